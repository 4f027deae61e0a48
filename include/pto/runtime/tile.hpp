// pto/runtime/tile.hpp - a functional simulation of AICore tiles for the CPU
// simulation (PTO-WSP spec §10): the A2/A3 on-chip buffers of one core with
// their budgets, tiles placed in them at explicit offsets, one function per
// tile instruction (the semantics of hw-native-sys/pto-isa's instructions,
// written here from their definitions), and a checker that the pipes of a
// core, and the cube and vector cores of a block, are synchronized.
//
// Semantics, not timing: every instruction completes when called. The
// checker makes up for it. Each instruction runs on a pipe of a core; pipes
// run in parallel on a device, so an instruction that touches bytes another
// pipe touched must be ordered after it by set_flag/wait_flag (same core) or
// sync_set/sync_wait (the other core of the block), and one vector
// instruction that depends on another through a reduction, a broadcast or a
// differently shaped access needs pipe_barrier(V) between them. A missing
// order is reported with the two instructions and the bytes, and aborts.
//
// Plain C++17, no MLIR and no pto-isa: names live in pto::runtime::tile.
#ifndef PTO_RUNTIME_TILE_HPP
#define PTO_RUNTIME_TILE_HPP

#include "pto/runtime/float16.hpp"
#include "pto/runtime/hardware.hpp"
#include "pto/runtime/sim_core.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <type_traits>
#include <vector>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
// x86 with GCC's or clang's builtins: instructions beyond the baseline in
// functions compiled for them, chosen by what the host has (below).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PTO_TILE_X86 1
#include <immintrin.h>
#endif

namespace pto {
namespace runtime {
namespace tile {

//===----------------------------------------------------------------------===//
// Locations, layouts, pipes
//===----------------------------------------------------------------------===//

/// Where a tile lives (pto-isa's TileType).
enum class Loc : uint8_t { Vec, Mat, Left, Right, Acc };
/// How it is stored. The simulation stores row-major (RowMajor, Nz, Zz) or
/// column-major (ColMajor, Zn); the fractal boxes are a device detail.
enum class Layout : uint8_t { RowMajor, ColMajor, Nz, Zn, Zz };
enum class Unit : uint8_t { Cube, Vector };
enum class Pipe : uint8_t { S, V, M, MTE1, MTE2, MTE3, FIX };

constexpr Buffer buffer_of(Loc l) {
  return l == Loc::Vec    ? Buffer::UB
         : l == Loc::Mat  ? Buffer::L1
         : l == Loc::Left ? Buffer::L0A
         : l == Loc::Right ? Buffer::L0B
                           : Buffer::L0C;
}
constexpr Unit unit_of(Loc l) { return l == Loc::Vec ? Unit::Vector : Unit::Cube; }
constexpr bool col_storage(Layout l) {
  return l == Layout::ColMajor || l == Layout::Zn;
}
constexpr Layout default_layout(Loc l) {
  return l == Loc::Vec    ? Layout::RowMajor
         : l == Loc::Left ? Layout::Zz
         : l == Loc::Right ? Layout::Zn
                           : Layout::Nz;
}

constexpr const char *pipe_name(Pipe p) {
  return p == Pipe::S      ? "S"
         : p == Pipe::V    ? "V"
         : p == Pipe::M    ? "M"
         : p == Pipe::MTE1 ? "MTE1"
         : p == Pipe::MTE2 ? "MTE2"
         : p == Pipe::MTE3 ? "MTE3"
                           : "FIX";
}
constexpr const char *unit_name(Unit u) {
  return u == Unit::Cube ? "cube" : "vector";
}

//===----------------------------------------------------------------------===//
// Elements: storage types and their float view
//===----------------------------------------------------------------------===//

template <typename T> struct Elem {
  static float to_f32(T x) { return static_cast<float>(x); }
  static T from_f32(float f) { return static_cast<T>(f); }
};
template <> struct Elem<bf16> {
  static float to_f32(bf16 x) { return bf16_to_f32(x); }
  static bf16 from_f32(float f) { return f32_to_bf16(f); }
};
template <> struct Elem<f16> {
  static float to_f32(f16 x) { return f16_to_f32(x); }
  static f16 from_f32(float f) { return f32_to_f16(f); }
};

template <typename T>
constexpr bool is_float_v =
    std::is_same_v<T, float> || std::is_same_v<T, bf16> || std::is_same_v<T, f16>;

/// How a float becomes an integer (TCVT's rounding modes).
enum class Round : uint8_t { Rint, Round, Floor, Ceil, Trunc };

/// `f` rounded to the nearest integer, ties to even: std::nearbyint, which
/// without SSE4.1 is a libm call per element (most of a conversion's time
/// in the simulation). Adding and subtracting 2^23 rounds |f| < 2^23 in
/// the default rounding mode; from 2^23 up every float is an integer. The
/// sum is picked by its bits (select_bits), so a loop of roundings
/// vectorizes. Not under -ffast-math, which may fold the two additions
/// away.
inline float round_even(float f) {
#if defined(__FAST_MATH__)
  return std::nearbyint(f);
#else
  uint32_t u, rounded_bits;
  std::memcpy(&u, &f, sizeof u);
  const uint32_t abs = u & 0x7fffffffu;
  float a;
  std::memcpy(&a, &abs, sizeof a);
  const float rounded = (a + 8388608.0f) - 8388608.0f;
  std::memcpy(&rounded_bits, &rounded, sizeof rounded_bits);
  const uint32_t r = select_bits(abs < 0x4b000000u, rounded_bits, abs) | // < 2^23
                     (u & 0x80000000u);
  float out;
  std::memcpy(&out, &r, sizeof out);
  return out;
#endif
}

/// Saturating conversion to an integer type, rounding by `mode`.
template <typename To> To saturate_round(float f, Round mode = Round::Rint) {
  // The default rounding to int8, int16 or int32 (a quantization's steps):
  // clamp as floats, then convert, without a branch on the value, so that
  // TCVT's loop vectorizes. INT32_MAX is no float: clamp below 2^31 and
  // pick INT32_MAX for what reached it. NaN gives 0.
  if constexpr (sizeof(To) <= 4 && std::is_signed_v<To>) {
    if (mode == Round::Rint) {
      float r = round_even(f);
      const float lo = static_cast<float>(std::numeric_limits<To>::min());
      if constexpr (sizeof(To) < 4) {
        const float hi = static_cast<float>(std::numeric_limits<To>::max());
        r = r > lo ? r : lo;
        r = r < hi ? r : hi;
        return static_cast<To>(f == f ? r : 0.0f);
      } else {
        const bool over = r >= 2147483648.0f;
        r = r > lo ? r : lo;
        r = r < 2147483520.0f ? r : 2147483520.0f; // the float below 2^31
        To v = static_cast<To>(r);
        v = over ? std::numeric_limits<To>::max() : v;
        return f == f ? v : 0;
      }
    }
  }
  if (f != f)
    return 0;
  const float r = mode == Round::Round   ? std::round(f)
                  : mode == Round::Floor ? std::floor(f)
                  : mode == Round::Ceil  ? std::ceil(f)
                  : mode == Round::Trunc ? std::trunc(f)
                                         : round_even(f); // nearest even
  if (r <= static_cast<float>(std::numeric_limits<To>::min()))
    return std::numeric_limits<To>::min();
  if (r >= static_cast<float>(std::numeric_limits<To>::max()))
    return std::numeric_limits<To>::max();
  return static_cast<To>(r);
}

/// Element conversion as TCVT / the fixpipe do it.
template <typename To, typename From> To convert(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (is_float_v<To>) {
    return Elem<To>::from_f32(Elem<From>::to_f32(x));
  } else if constexpr (is_float_v<From>) {
    return saturate_round<To>(Elem<From>::to_f32(x));
  } else { // integer to integer: saturate
    const int64_t v = static_cast<int64_t>(x);
    return static_cast<To>(std::min<int64_t>(
        std::max<int64_t>(v, std::numeric_limits<To>::min()),
        std::numeric_limits<To>::max()));
  }
}

namespace detail {
#ifdef PTO_TILE_X86
/// What the host can run beyond the build's baseline, asked once each at
/// start-up (__builtin_cpu_init: a static initializer may run before the
/// runtime's own; constants, since a function-local static costs a guard
/// check per call, which was 2% of the rope's small instructions).
inline const bool kHostHasAvx =
    (__builtin_cpu_init(), __builtin_cpu_supports("avx"));
inline const bool kHostHasAvx2 =
    (__builtin_cpu_init(), __builtin_cpu_supports("avx2"));
inline const bool kHostHasFma =
    (__builtin_cpu_init(), __builtin_cpu_supports("avx2") &&
                               __builtin_cpu_supports("fma") &&
                               __builtin_cpu_supports("f16c"));
inline const bool kHostHasAvx512 =
    (__builtin_cpu_init(), __builtin_cpu_supports("avx512f") &&
                               __builtin_cpu_supports("avx512dq") &&
                               __builtin_cpu_supports("avx512vl") &&
                               __builtin_cpu_supports("avx512bw"));
/// VCVTNEPS2BF16, which fused groups' conversions to bf16 use.
inline const bool kHostHasAvx512Bf16 =
    (__builtin_cpu_init(),
     kHostHasAvx512 &&__builtin_cpu_supports("avx512bf16"));
inline bool host_has_avx() { return kHostHasAvx; }
inline bool host_has_avx2() { return kHostHasAvx2; }
inline bool host_has_fma() { return kHostHasFma; }
inline bool host_has_avx512() { return kHostHasAvx512; }
inline bool host_has_avx512_bf16() { return kHostHasAvx512Bf16; }
/// The rounding every explicit-rounding instruction of the simulation uses:
/// to nearest even, no exception raised (the device's rounding).
constexpr int kRoundNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
#endif

#if defined(PTO_TILE_X86) && !defined(__AVX2__)
#define PTO_TILE_AVX2_LOOPS 1
/// `loop()` with everything it calls inlined and compiled for AVX2.
template <typename Loop>
__attribute__((target("avx2"), flatten)) void run_avx2(Loop &loop) {
  loop();
}
#endif

/// Runs `loop()`, a vector instruction's loop over `elements` elements of
/// its tiles, compiled for AVX2 when the host has it: the build's baseline
/// is SSE2, and the conversions and element-wise loops run 2-3x faster
/// with AVX2. The results are the same bits: AVX2 brings no fused
/// multiply-add, so no product and sum are contracted into one rounding.
/// A loop under 1024 elements stays on the baseline: the rope's [8 x 64]
/// tiles ran 10% slower with AVX2 (its memcpy-bound loads got slower; why,
/// I have not found).
template <typename Loop> void vector_loop(int elements, Loop &&loop) {
#ifdef PTO_TILE_AVX2_LOOPS
  if (host_has_avx2() && elements >= 1024)
    return run_avx2(loop);
#endif
  loop();
}

/// The arithmetic of an element type: float, or 64-bit integers (32-bit
/// sums and products do not overflow there; results wrap back).
template <typename T>
using Arith = std::conditional_t<is_float_v<T>, float, int64_t>;
/// An element as vector arithmetic sees it: float, or the integer itself.
template <typename T> Arith<T> value(T x) {
  if constexpr (is_float_v<T>)
    return Elem<T>::to_f32(x);
  else
    return x;
}
template <typename T, typename V> T from_value(V v) {
  if constexpr (is_float_v<T>)
    return Elem<T>::from_f32(static_cast<float>(v));
  else
    return static_cast<T>(v);
}
} // namespace detail

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// What the simulation calls on a broken rule (a buffer overrun, a missing
/// synchronization). The default prints the message and aborts; tests may
/// install their own.
using ErrorHandler = void (*)(const char *message);
namespace detail {
inline void default_error(const char *message) {
  std::fprintf(stderr, "tile simulation: %s\n", message);
  std::fflush(stderr);
  std::abort();
}
inline ErrorHandler &error_handler() {
  static ErrorHandler handler = &default_error;
  return handler;
}
template <typename... Args> void fail(const char *fmt, Args... args) {
  char message[512];
  std::snprintf(message, sizeof message, fmt, args...);
  error_handler()(message);
}
} // namespace detail
inline void set_error_handler(ErrorHandler h) {
  detail::error_handler() = h ? h : &detail::default_error;
}

//===----------------------------------------------------------------------===//
// On-chip memory of the running simulated core
//===----------------------------------------------------------------------===//

namespace detail {
struct Scratch {
  std::unique_ptr<uint8_t[]> bytes[kNumBuffers];
  Scratch() {
    for (int b = 0; b < kNumBuffers; ++b)
      bytes[b].reset(new uint8_t[buffer_bytes(static_cast<Buffer>(b))]());
  }
  uint8_t *base(Buffer b) { return bytes[static_cast<int>(b)].get(); }
};
/// One set of buffers per OS thread; a simulated core runs a kernel on one
/// thread from start to end.
inline Scratch &scratch() {
  thread_local Scratch s;
  return s;
}
} // namespace detail

//===----------------------------------------------------------------------===//
// Tiles
//===----------------------------------------------------------------------===//

/// A tile handle: the static extent and layout in the type, a place in its
/// buffer and the valid extent at run time.
template <Loc L, typename T, int R, int C, Layout Lay = default_layout(L)>
struct Tile {
  static_assert(R > 0 && C > 0, "a tile has a positive static extent");
  using DType = T;
  static constexpr Loc loc = L;
  static constexpr Layout layout = Lay;
  static constexpr int Rows = R, Cols = C;
  static constexpr int64_t bytes = int64_t(R) * C * int64_t(sizeof(T));

  T *data = nullptr;
  int rows = R, cols = C; // the valid extent
  /// A subview's bytes (its valid rows at the source's stride); 0 for a
  /// tile of its own, whose bytes are its static extent.
  int64_t view_bytes = 0;

  Tile() = default;
  Tile(int valid_rows, int valid_cols) : rows(valid_rows), cols(valid_cols) {}

  /// Element (r, c) of the storage.
  T &at(int r, int c) const {
    return col_storage(Lay) ? data[int64_t(c) * R + r] : data[int64_t(r) * C + c];
  }
  /// Distance between consecutive rows / columns of the storage.
  static constexpr int64_t row_step = col_storage(Lay) ? 1 : C;
  static constexpr int64_t col_step = col_storage(Lay) ? R : 1;
};

/// Places `t` (copy `slot` of a multi-buffered site) at byte `offset` of its
/// buffer, checking the A2/A3 budget and alignment, and the valid extent.
template <typename TileT>
void assign(TileT &t, int64_t offset, int64_t slot = 0) {
  constexpr Buffer b = buffer_of(TileT::loc);
  const int64_t at = offset + slot * TileT::bytes;
  if (slot < 0)
    detail::fail("a tile in slot %lld of its buffers",
                 static_cast<long long>(slot));
  if (offset < 0 || offset % kTileAlignBytes != 0)
    detail::fail("a tile at offset %lld of %s is not 32-byte aligned",
                 static_cast<long long>(offset), buffer_name(b));
  if (at + TileT::bytes > buffer_bytes(b))
    detail::fail("a %dx%d tile (%lld bytes) at offset %lld overruns %s "
                 "(%lld bytes)",
                 TileT::Rows, TileT::Cols, static_cast<long long>(TileT::bytes),
                 static_cast<long long>(at), buffer_name(b),
                 static_cast<long long>(buffer_bytes(b)));
  if (t.rows < 0 || t.rows > TileT::Rows || t.cols < 0 || t.cols > TileT::Cols)
    detail::fail("a %dx%d tile with a valid extent of %dx%d", TileT::Rows,
                 TileT::Cols, t.rows, t.cols);
  t.data = reinterpret_cast<typename TileT::DType *>(detail::scratch().base(b) +
                                                     at);
}

/// A view of rows x cols of `src` at (row, col) of a row-major vec tile:
/// rows keep the source's stride, so the view's static extent may reach past
/// the source; its valid extent may not.
template <typename To, typename From>
To subview(const From &src, int64_t row, int64_t col, int rows, int cols) {
  static_assert(From::loc == Loc::Vec && From::layout == Layout::RowMajor &&
                    To::loc == Loc::Vec && To::layout == Layout::RowMajor,
                "subviews of row-major vec tiles");
  static_assert(To::Cols == From::Cols, "a subview keeps the row stride");
  if (row < 0 || col < 0 || rows < 0 || cols < 0 || row + rows > From::Rows ||
      col + cols > From::Cols || rows > To::Rows || cols > To::Cols)
    detail::fail("a %dx%d subview at (%lld, %lld) of a %dx%d tile", rows, cols,
                 static_cast<long long>(row), static_cast<long long>(col),
                 From::Rows, From::Cols);
  To t(rows, cols);
  t.data = reinterpret_cast<typename To::DType *>(src.data + row * From::Cols +
                                                  col);
  t.view_bytes = int64_t(rows) * From::Cols * int64_t(sizeof(typename From::DType));
  return t;
}

/// The same bytes as a tile of another shape.
template <typename To, typename From> To reshape(const From &src) {
  static_assert(To::bytes == From::bytes, "a reshape keeps the bytes");
  static_assert(To::loc == From::loc, "a reshape stays in its buffer");
  To t;
  t.data = reinterpret_cast<typename To::DType *>(src.data);
  return t;
}

//===----------------------------------------------------------------------===//
// The synchronization checker
//===----------------------------------------------------------------------===//

namespace detail {
constexpr int kPipes = 7;
constexpr int kAgents = 2 * kPipes; // (unit, pipe)
constexpr int kGm = kNumBuffers;    // region table of global memory

inline int agent(Unit u, Pipe p) {
  return static_cast<int>(u) * kPipes + static_cast<int>(p);
}

/// What is known of a byte range: its last writer (agent and clock) and the
/// latest read by each agent since.
struct Region {
  uintptr_t lo, hi;
  int8_t writer;
  bool writer_elementwise;
  bool read_elementwise[kAgents];
  uint32_t wclock;
  const char *wname;
  uint32_t reads[kAgents];
  const char *rname[kAgents];
};

/// One operand of an instruction: bytes [lo, hi) of a buffer (or of global
/// memory), read or written, and whether element (r, c) of it depends only
/// on element (r, c) of the instruction's other element-wise operands.
struct Access {
  int table;
  uintptr_t lo, hi;
  bool write;
  bool elementwise = false;
};

/// Nodes of one size kept for reuse: global memory's region table gains
/// and loses a node per row a kernel stores, every invocation, and malloc
/// and free were a sixth of the paged KV store's time.
struct NodePool {
  std::vector<void *> free;
  size_t size = 0;
  NodePool() = default;
  NodePool(const NodePool &) = delete;
  NodePool &operator=(const NodePool &) = delete;
  ~NodePool() {
    for (void *p : free)
      ::operator delete(p);
  }
};
/// A std::map's allocator from a NodePool (single nodes; anything else, or
/// a node of another size, from the heap).
template <typename T> struct PoolAllocator {
  using value_type = T;
  NodePool *pool;
  explicit PoolAllocator(NodePool *p) : pool(p) {}
  template <typename U>
  PoolAllocator(const PoolAllocator<U> &o) : pool(o.pool) {}
  T *allocate(size_t n) {
    if (n == 1 && pool->size == sizeof(T) && !pool->free.empty()) {
      void *p = pool->free.back();
      pool->free.pop_back();
      return static_cast<T *>(p);
    }
    return static_cast<T *>(::operator new(n * sizeof(T)));
  }
  void deallocate(T *p, size_t n) {
    if (n == 1 && (pool->size == 0 || pool->size == sizeof(T))) {
      pool->size = sizeof(T);
      pool->free.push_back(p);
      return;
    }
    ::operator delete(p);
  }
  template <typename U> bool operator==(const PoolAllocator<U> &o) const {
    return pool == o.pool;
  }
  template <typename U> bool operator!=(const PoolAllocator<U> &o) const {
    return pool != o.pool;
  }
};

/// The pipes of one block (a cube core and its vector core) as vector
/// clocks: know[a][b] is the latest instruction of agent b that agent a is
/// ordered after.
struct Checker {
  uint32_t know[kAgents][kAgents] = {};
  std::vector<Region> regions[kNumBuffers];
  // Global memory's table, its nodes from `nodes` (declared first: it
  // outlives the table).
  NodePool nodes;
  using GmTable =
      std::map<uintptr_t, Region, std::less<uintptr_t>,
               PoolAllocator<std::pair<const uintptr_t, Region>>>;
  GmTable gm{PoolAllocator<std::pair<const uintptr_t, Region>>(&nodes)};
  // What a setting pipe had done: its row of `know`, by value (no
  // allocation per set_flag).
  using Snapshot = std::array<uint32_t, kAgents>;
  // Pending flags: set snapshots by (unit, src, dst, event).
  std::deque<Snapshot> flags[2][kPipes][kPipes][8];
  std::deque<Snapshot> cross[2][kCrossCoreFlags]; // by setting unit
  // How many snapshots the flag queues hold: the 816 queues are looked at
  // only when some are not empty (every invocation checks, at its end).
  int pending = 0;
  // The V pipe: clock of the last pipe_barrier(V).
  uint32_t v_barrier[2] = {0, 0};
  // The simulated core run the state belongs to (0: none).
  uint64_t run = 0;

  /// Forgets everything, keeping the containers' storage: a fresh Checker
  /// constructs its 816 flag queues (each allocating), and reset runs once
  /// per simulated core of every launch.
  void reset() {
    std::memset(know, 0, sizeof know);
    for (std::vector<Region> &t : regions)
      t.clear();
    gm.clear();
    if (pending != 0) {
      for (auto &unit : flags)
        for (auto &src : unit)
          for (auto &dst : src)
            for (std::deque<Snapshot> &q : dst)
              q.clear();
      for (auto &unit : cross)
        for (std::deque<Snapshot> &q : unit)
          q.clear();
      pending = 0;
    }
    v_barrier[0] = v_barrier[1] = 0;
    run = 0;
  }

  /// Orders agent `a` after `snapshot`.
  void join(int a, const Snapshot &snapshot) {
    for (int b = 0; b < kAgents; ++b)
      know[a][b] = std::max(know[a][b], snapshot[b]);
  }
  Snapshot snapshot(int a) const {
    Snapshot s;
    std::copy(know[a], know[a] + kAgents, s.begin());
    return s;
  }

  static const char *agent_name(int a) {
    static const char *names[kAgents] = {
        "cube S",    "cube V",    "cube M",    "cube MTE1", "cube MTE2",
        "cube MTE3", "cube FIX",  "vector S",  "vector V",  "vector M",
        "vector MTE1", "vector MTE2", "vector MTE3", "vector FIX"};
    return names[a];
  }

  /// Agent `a` may touch a range last touched by agent `b` at `clock`.
  /// A pipe runs in order, so within one pipe only a read of what an
  /// earlier instruction wrote can go wrong, and only on V: a chain of
  /// element-wise accesses to the same bytes streams safely, anything else
  /// (a reduction, a broadcast, another shape) needs pipe_barrier(V).
  bool ordered(int a, int b, uint32_t clock, bool raw,
               bool same_elementwise) const {
    if (a != b)
      return know[a][b] >= clock;
    if (!raw || b % kPipes != static_cast<int>(Pipe::V))
      return true;
    return same_elementwise || v_barrier[b / kPipes] >= clock;
  }

  void report(const char *op, int a, const char *kind, const Access &x,
              const char *other, int b) {
    const char *where = x.table == kGm
                            ? "global memory"
                            : buffer_name(static_cast<Buffer>(x.table));
    fail("%s on %s %s %s bytes [%#llx, %#llx) that %s on %s %s with no %s "
         "ordering them",
         op, agent_name(a), x.write ? "writes" : "reads", where,
         static_cast<unsigned long long>(x.lo),
         static_cast<unsigned long long>(x.hi), other, agent_name(b), kind,
         a == b ? "pipe_barrier(V)"
                : (a / kPipes == b / kPipes ? "set_flag/wait_flag"
                                            : "sync_set/sync_wait"));
  }

  // A table is sorted by address, its regions disjoint: each access finds
  // what it overlaps by binary search. An on-chip buffer's table is a
  // vector (a few dozen tiles at most); global memory's is a map, since a
  // kernel may store thousands of separate rows (a KV store into shuffled
  // pages), and inserting into the middle of a vector of them is quadratic.
  static Region &reg(std::vector<Region>::iterator it) { return *it; }
  static Region &reg(GmTable::iterator it) { return it->second; }
  static std::vector<Region>::iterator put(std::vector<Region> &t,
                                           std::vector<Region>::iterator at,
                                           const Region &r) {
    return t.insert(at, r);
  }
  static GmTable::iterator put(GmTable &t, GmTable::iterator at,
                               const Region &r) {
    return t.emplace_hint(at, r.lo, r);
  }

  /// The first region of `t` that ends after `at`.
  static std::vector<Region>::iterator first_after(std::vector<Region> &t,
                                                   uintptr_t at) {
    return std::partition_point(t.begin(), t.end(),
                                [&](const Region &r) { return r.hi <= at; });
  }
  static GmTable::iterator first_after(GmTable &t, uintptr_t at) {
    auto it = t.upper_bound(at); // the first region starting after `at`
    if (it != t.begin() && std::prev(it)->second.hi > at)
      return std::prev(it);
    return it;
  }

  /// Splits the region `it` at `at` (it straddles it), returning the right
  /// part. Iterators before the right part stay valid in a map, positions
  /// in a vector (`position`, `at_position`).
  template <typename Table, typename It>
  static It split(Table &t, It it, uintptr_t at) {
    Region right = reg(it);
    right.lo = at;
    reg(it).hi = at;
    return put(t, std::next(it), right);
  }
  static size_t position(std::vector<Region> &t,
                         std::vector<Region>::iterator it) {
    return static_cast<size_t>(it - t.begin());
  }
  static std::vector<Region>::iterator at_position(std::vector<Region> &t,
                                                   size_t i) {
    return t.begin() + static_cast<std::ptrdiff_t>(i);
  }
  static GmTable::iterator position(GmTable &, GmTable::iterator it) {
    return it;
  }
  static GmTable::iterator at_position(GmTable &, GmTable::iterator it) {
    return it;
  }

  void touch(const char *op, int a, const Access &x, uint32_t clock) {
    if (x.table == kGm)
      touch(gm, op, a, x, clock);
    else
      touch(regions[x.table], op, a, x, clock);
  }

  template <typename Table>
  void touch(Table &t, const char *op, int a, const Access &x,
             uint32_t clock) {
    const auto first = first_after(t, x.lo);
    for (auto it = first; it != t.end() && reg(it).lo < x.hi; ++it) {
      const Region &r = reg(it);
      const bool same_bytes = x.elementwise && r.lo == x.lo && r.hi == x.hi;
      const bool same = same_bytes && r.writer_elementwise;
      // The instruction's own accesses (an in-place update) are ordered.
      if (r.writer >= 0 && !(r.writer == a && r.wclock == clock) &&
          !ordered(a, r.writer, r.wclock, !x.write, same))
        report(op, a, x.write ? "wrote (write after write)" : "wrote", x,
               r.wname, r.writer);
      if (x.write)
        for (int b = 0; b < kAgents; ++b)
          if (r.reads[b] && !(b == a && r.reads[b] == clock) &&
              !ordered(a, b, r.reads[b], false,
                       same_bytes && r.read_elementwise[b]))
            report(op, a, "read (write after read)", x, r.rname[b], b);
    }
    // Regions straddling lo or hi are split there: the search above found
    // the first region [lo, hi) overlaps, a walk finds the one straddling
    // hi.
    auto it = first;
    if (it != t.end() && reg(it).lo < x.lo)
      it = split(t, it, x.lo);
    auto h = it;
    while (h != t.end() && reg(h).hi <= x.hi)
      ++h;
    if (h != t.end() && reg(h).lo < x.hi) {
      const auto kept = position(t, it);
      split(t, h, x.hi);
      it = at_position(t, kept);
    }
    if (x.write) {
      // One region for what was written, replacing what was there. When a
      // region starts at lo (a tile written again, the common case) it is
      // overwritten in place, so that the table's tail moves once (to
      // close up what else lay in [lo, hi)) or not at all, not twice.
      auto end = it;
      while (end != t.end() && reg(end).lo < x.hi)
        ++end;
      auto written = [&](Region &r) {
        r.lo = x.lo;
        r.hi = x.hi;
        r.writer = static_cast<int8_t>(a);
        r.writer_elementwise = x.elementwise;
        r.wclock = clock;
        r.wname = op;
        // No reads since (a reader's name and kind are read only where
        // its clock is set).
        std::fill(std::begin(r.reads), std::end(r.reads), 0u);
      };
      if (it != end && reg(it).lo == x.lo) {
        written(reg(it));
        t.erase(std::next(it), end);
      } else {
        Region r{};
        written(r);
        put(t, t.erase(it, end), r);
      }
      return;
    }
    // The read, recorded everywhere in [lo, hi), gaps filled: a later write
    // of those bytes (on chip, or a store to global memory the kernel has
    // only read so far) must be ordered after it.
    auto mark = [&](Region &r) {
      r.reads[a] = clock;
      r.rname[a] = op;
      r.read_elementwise[a] = x.elementwise;
    };
    auto gap = [&](uintptr_t lo, uintptr_t hi) {
      Region g{};
      g.lo = lo;
      g.hi = hi;
      g.writer = -1;
      mark(g);
      return g;
    };
    uintptr_t at = x.lo;
    while (it != t.end() && reg(it).lo < x.hi) {
      if (at < reg(it).lo) {
        const uintptr_t lo = reg(it).lo;
        it = std::next(put(t, it, gap(at, lo)));
      }
      mark(reg(it));
      at = reg(it).hi;
      ++it;
    }
    if (at < x.hi)
      put(t, it, gap(at, x.hi));
  }

  /// Forgets what every agent is ordered after already: such a record can
  /// make no later access unordered. Run between invocations, after the
  /// kernel's fence, it keeps the tables to one invocation's accesses.
  void prune() {
    auto known = [&](int b, uint32_t clock) {
      for (int a = 0; a < kAgents; ++a)
        if (know[a][b] < clock)
          return false;
      return true;
    };
    auto settled = [&](const Region &r) {
      if (r.writer >= 0 && !known(r.writer, r.wclock))
        return false;
      for (int b = 0; b < kAgents; ++b)
        if (r.reads[b] && !known(b, r.reads[b]))
          return false;
      return true;
    };
    for (std::vector<Region> &t : regions)
      t.erase(std::remove_if(t.begin(), t.end(), settled), t.end());
    for (auto it = gm.begin(); it != gm.end();)
      it = settled(it->second) ? gm.erase(it) : std::next(it);
  }

  /// One instruction on (unit, pipe) with its accesses.
  void instr(const char *op, Unit u, Pipe p,
             std::initializer_list<Access> accesses) {
    const int a = agent(u, p);
    const uint32_t clock = ++know[a][a];
    for (const Access &x : accesses)
      if (x.lo < x.hi)
        touch(op, a, x, clock);
  }
};

inline Checker &checker() {
  thread_local Checker c;
  return c;
}

/// Set while tile::fused runs a group's instructions for their checks
/// alone: each checks its operands and records its accesses (and a load or
/// store its traffic), in program order, and computes or moves nothing (the
/// group's lanes do).
inline bool &checks_only() {
  thread_local bool on = false;
  return on;
}

/// The bytes of a tile's static extent.
template <typename TileT>
Access on_chip(const TileT &t, bool write, bool elementwise = false) {
  const uint8_t *base = scratch().base(buffer_of(TileT::loc));
  const uintptr_t lo = reinterpret_cast<const uint8_t *>(t.data) - base;
  const int64_t bytes = t.view_bytes ? t.view_bytes : TileT::bytes;
  return {static_cast<int>(buffer_of(TileT::loc)), lo,
          lo + static_cast<uintptr_t>(bytes), write, elementwise};
}
/// The bytes of a strided block of global memory: rows of `row_bytes`,
/// `stride_bytes` apart.
inline Access gm(const void *p, int64_t rows, int64_t row_bytes,
                 int64_t stride_bytes, bool write) {
  if (rows <= 0 || row_bytes <= 0)
    return {kGm, 0, 0, write};
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p);
  return {kGm, lo,
          lo + static_cast<uintptr_t>((rows - 1) * stride_bytes + row_bytes),
          write};
}
} // namespace detail

/// One kernel invocation on the running simulated core. The core's pipe
/// clocks and what its buffers hold carry over from its previous invocation
/// in the same launch (consecutive descriptors share a core's pipes, as on
/// device), and start afresh on another core (with the CPU simulation's
/// launcher, pto/runtime/cpu_sim.hpp) or without a launcher. At the end of
/// an invocation every flag that was set must have been waited on.
class KernelScope {
public:
  KernelScope() {
    detail::Checker &c = detail::checker();
    const uint64_t run = ::pto::runtime::sim::core_run();
    if (run == 0 || run != c.run) {
      c.reset();
      c.run = run;
    } else {
      c.prune();
    }
  }
  ~KernelScope() {
    detail::Checker &c = detail::checker();
    if (c.pending == 0)
      return;
    for (int u = 0; u < 2; ++u)
      for (int s = 0; s < detail::kPipes; ++s)
        for (int d = 0; d < detail::kPipes; ++d)
          for (int e = 0; e < 8; ++e)
            if (!c.flags[u][s][d][e].empty())
              detail::fail("the kernel ends with set_flag(%s -> %s, event %d) "
                           "of the %s core never waited on",
                           pipe_name(static_cast<Pipe>(s)),
                           pipe_name(static_cast<Pipe>(d)), e,
                           unit_name(static_cast<Unit>(u)));
    for (int u = 0; u < 2; ++u)
      for (int e = 0; e < kCrossCoreFlags; ++e)
        if (!c.cross[u][e].empty())
          detail::fail("the kernel ends with cross-core flag %d of the %s "
                       "core never waited on",
                       e, unit_name(static_cast<Unit>(u)));
  }
  KernelScope(const KernelScope &) = delete;
  KernelScope &operator=(const KernelScope &) = delete;
};

//===----------------------------------------------------------------------===//
// Synchronization instructions
//===----------------------------------------------------------------------===//

inline void set_flag(Unit u, Pipe src, Pipe dst, int event) {
  detail::Checker &c = detail::checker();
  if (event < 0 || event > 7)
    detail::fail("set_flag event %d is not in 0-7", event);
  c.flags[int(u)][int(src)][int(dst)][event].push_back(
      c.snapshot(detail::agent(u, src)));
  ++c.pending;
}

inline void wait_flag(Unit u, Pipe src, Pipe dst, int event) {
  detail::Checker &c = detail::checker();
  if (event < 0 || event > 7)
    detail::fail("wait_flag event %d is not in 0-7", event);
  auto &q = c.flags[int(u)][int(src)][int(dst)][event];
  if (q.empty())
    detail::fail("wait_flag(%s -> %s, event %d) on the %s core has no "
                 "set_flag to wait for: the device would hang",
                 pipe_name(src), pipe_name(dst), event, unit_name(u));
  c.join(detail::agent(u, dst), q.front());
  q.pop_front();
  --c.pending;
}

/// pipe_barrier(p): what `p` issues next waits for what it issued before.
inline void barrier(Unit u, Pipe p) {
  detail::Checker &c = detail::checker();
  if (p == Pipe::V)
    c.v_barrier[int(u)] = c.know[detail::agent(u, p)][detail::agent(u, p)];
}

/// pipe_barrier(PIPE_ALL): every pipe of the core after everything before.
inline void barrier_all(Unit u) {
  detail::Checker &c = detail::checker();
  detail::Checker::Snapshot all{};
  for (int p = 0; p < detail::kPipes; ++p)
    for (int b = 0; b < detail::kAgents; ++b)
      all[b] = std::max(all[b], c.know[detail::agent(u, Pipe(p))][b]);
  for (int p = 0; p < detail::kPipes; ++p)
    c.join(detail::agent(u, Pipe(p)), all);
  c.v_barrier[int(u)] = c.know[detail::agent(u, Pipe::V)][detail::agent(u, Pipe::V)];
}

/// Cross-core flag: `u` signals the block's other core once `p` finished.
inline void sync_set(Unit u, Pipe p, int event) {
  detail::Checker &c = detail::checker();
  if (event < 0 || event >= kCrossCoreFlags)
    detail::fail("sync_set event %d is not in 0-%d", event,
                 kCrossCoreFlags - 1);
  auto &q = c.cross[int(u)][event];
  if (static_cast<int>(q.size()) == kCrossCoreFlagMaxCount)
    detail::fail("sync_set(event %d) on the %s core: %d sets wait for their "
                 "sync_wait already, and the flag's counter holds no more",
                 event, unit_name(u), kCrossCoreFlagMaxCount);
  q.push_back(c.snapshot(detail::agent(u, p)));
  ++c.pending;
}

/// The waiting core stops until the other core set `event`: everything it
/// issues after is ordered after what the setter's pipe had done.
inline void sync_wait(Unit u, int event) {
  detail::Checker &c = detail::checker();
  if (event < 0 || event >= kCrossCoreFlags)
    detail::fail("sync_wait event %d is not in 0-%d", event,
                 kCrossCoreFlags - 1);
  const Unit other = u == Unit::Cube ? Unit::Vector : Unit::Cube;
  auto &q = c.cross[int(other)][event];
  if (q.empty())
    detail::fail("sync_wait(event %d) on the %s core has no sync_set of the "
                 "%s core before it: the device would hang",
                 event, unit_name(u), unit_name(other));
  for (int p = 0; p < detail::kPipes; ++p)
    c.join(detail::agent(u, Pipe(p)), q.front());
  q.pop_front();
  --c.pending;
}

//===----------------------------------------------------------------------===//
// Global memory <-> tiles
//===----------------------------------------------------------------------===//

/// Bytes moved between global memory and the on-chip buffers by all
/// simulated cores since the last reset: what benchmarks report as the
/// traffic of a step (paged: the part gathered through page tables).
struct Traffic {
  std::atomic<uint64_t> loaded{0}, paged{0}, stored{0};
  void reset() {
    loaded = 0;
    paged = 0;
    stored = 0;
  }
};
inline Traffic &traffic() {
  static Traffic t;
  return t;
}

namespace detail {
inline void count(std::atomic<uint64_t> &counter, int64_t rows, int64_t cols,
                  size_t elem) {
  counter.fetch_add(static_cast<uint64_t>(rows * cols) * elem,
                    std::memory_order_relaxed);
}
template <typename TileT> void check_valid(const TileT &t, const char *op) {
  if (t.rows < 0 || t.rows > TileT::Rows || t.cols < 0 || t.cols > TileT::Cols)
    fail("%s: a %dx%d tile with a valid extent of %dx%d", op, TileT::Rows,
         TileT::Cols, t.rows, t.cols);
}
} // namespace detail

namespace detail {
/// Lines [l0, l0 + n) of dst (its rows or, Transposed, its columns) from
/// `src`, lines `stride` elements apart.
template <bool Transposed, typename TileT>
void fill_lines(TileT &dst, int64_t l0, int64_t n,
                const typename TileT::DType *src, int64_t stride) {
  using T = typename TileT::DType;
  const int width = Transposed ? dst.rows : dst.cols;
  // A line is contiguous in the tile when its storage runs along it.
  const bool contiguous = col_storage(TileT::layout) == Transposed;
  // Lines back to back in the tile and in memory: one copy.
  const int64_t line_step = Transposed ? TileT::Rows : TileT::Cols;
  if (contiguous && stride == width && line_step == width) {
    std::memcpy(Transposed ? &dst.at(0, int(l0)) : &dst.at(int(l0), 0), src,
                sizeof(T) * size_t(n) * width);
    return;
  }
  for (int64_t l = 0; l < n; ++l) {
    const T *from = src + l * stride;
    const int line = int(l0 + l);
    if (contiguous)
      std::memcpy(Transposed ? &dst.at(0, line) : &dst.at(line, 0), from,
                  sizeof(T) * width);
    else
      for (int k = 0; k < width; ++k)
        (Transposed ? dst.at(k, line) : dst.at(line, k)) = from[k];
  }
}

template <bool Transposed, typename TileT>
void load_lines(TileT &dst, const typename TileT::DType *gm, int64_t stride) {
  using T = typename TileT::DType;
  check_valid(dst, "TLOAD");
  count(traffic().loaded, dst.rows, dst.cols, sizeof(T));
  const int lines = Transposed ? dst.cols : dst.rows;
  const int width = Transposed ? dst.rows : dst.cols;
  checker().instr("TLOAD", unit_of(TileT::loc), Pipe::MTE2,
                  {on_chip(dst, true),
                   detail::gm(gm, lines, width * int64_t(sizeof(T)),
                              stride * int64_t(sizeof(T)), false)});
  if (checks_only())
    return;
  fill_lines<Transposed>(dst, 0, lines, gm, stride);
}
} // namespace detail

/// TLOAD: dst[r, c] = gm[r * stride + c] over the valid extent.
template <typename TileT>
void load(TileT &dst, const typename TileT::DType *gm, int64_t stride) {
  detail::load_lines<false>(dst, gm, stride);
}

/// TLOAD of a DN block: dst[r, c] = gm[c * stride + r] (the transpose of
/// the rows of `gm`).
template <typename TileT>
void load_t(TileT &dst, const typename TileT::DType *gm, int64_t stride) {
  detail::load_lines<true>(dst, gm, stride);
}

/// A paged cache: position p is row p % page_size of page table[p /
/// page_size]; pages are `page_stride` elements apart from `base` (which
/// includes the head offset) and rows `row_stride` apart.
template <typename T> struct Pages {
  const T *base;
  int64_t page_stride, row_stride, page_size;
  const int32_t *table; // the sequence's row of the page table
  int64_t table_len;    // entries in that row
};

namespace detail {
/// Calls f(first position offset, count, row pointer) per page segment of
/// [pos, pos + n).
template <typename T, typename F>
void for_each_page(const Pages<T> &pages, int64_t pos, int64_t n, F &&f) {
  if (pages.page_size <= 0)
    fail("a paged load with page size %lld",
         static_cast<long long>(pages.page_size));
  for (int64_t i = 0; i < n;) {
    const int64_t p = pos + i, slot = p / pages.page_size,
                  off = p % pages.page_size;
    if (p < 0 || slot >= pages.table_len)
      fail("a paged load of position %lld beyond the page table (%lld pages)",
           static_cast<long long>(p), static_cast<long long>(pages.table_len));
    const int32_t page = pages.table[slot];
    if (page < 0)
      fail("a paged load of position %lld reads page %d",
           static_cast<long long>(p), page);
    const int64_t count = std::min(n - i, pages.page_size - off);
    f(i, count, pages.base + page * pages.page_stride + off * pages.row_stride);
    i += count;
  }
}
} // namespace detail

namespace detail {
/// Positions pos + i of a paged cache into the rows of dst or, Transposed,
/// its columns: one instruction, one global-memory access per page.
template <bool Transposed, typename TileT>
void load_paged_lines(TileT &dst, const Pages<typename TileT::DType> &pages,
                      int64_t pos) {
  using T = typename TileT::DType;
  check_valid(dst, "TLOAD");
  count(traffic().loaded, dst.rows, dst.cols, sizeof(T));
  count(traffic().paged, dst.rows, dst.cols, sizeof(T));
  Checker &c = checker();
  c.instr("TLOAD", unit_of(TileT::loc), Pipe::MTE2, {on_chip(dst, true)});
  const int lines = Transposed ? dst.cols : dst.rows; // positions
  const int width = Transposed ? dst.rows : dst.cols; // elements of one
  for_each_page(pages, pos, lines, [&](int64_t l0, int64_t n, const T *row) {
    c.instr("TLOAD", unit_of(TileT::loc), Pipe::MTE2,
            {gm(row, n, width * int64_t(sizeof(T)),
                pages.row_stride * int64_t(sizeof(T)), false)});
    fill_lines<Transposed>(dst, l0, n, row, pages.row_stride);
  });
}
} // namespace detail

/// Rows of dst from positions pos + r of a paged cache.
template <typename TileT>
void load_paged(TileT &dst, const Pages<typename TileT::DType> &pages,
                int64_t pos) {
  detail::load_paged_lines<false>(dst, pages, pos);
}

/// Columns of dst from positions pos + c: dst[r, c] = row(pos + c)[r].
template <typename TileT>
void load_paged_t(TileT &dst, const Pages<typename TileT::DType> &pages,
                  int64_t pos) {
  detail::load_paged_lines<true>(dst, pages, pos);
}

/// TSTORE: gm[r * stride + c] = src[r, c] (converting on the fixpipe).
template <typename G, typename TileT>
void store(G *gm, int64_t stride, const TileT &src) {
  using T = typename TileT::DType;
  detail::check_valid(src, "TSTORE");
  detail::count(traffic().stored, src.rows, src.cols, sizeof(G));
  const bool acc = TileT::loc == Loc::Acc;
  detail::checker().instr(
      "TSTORE", unit_of(TileT::loc), acc ? Pipe::FIX : Pipe::MTE3,
      {detail::on_chip(src, false),
       detail::gm(gm, src.rows, src.cols * int64_t(sizeof(G)),
                  stride * int64_t(sizeof(G)), true)});
  if (detail::checks_only())
    return;
  for (int r = 0; r < src.rows; ++r) {
    if constexpr (std::is_same_v<G, T>) {
      if (!col_storage(TileT::layout)) {
        std::memcpy(gm + r * stride, &src.at(r, 0), sizeof(T) * src.cols);
        continue;
      }
    }
    for (int c = 0; c < src.cols; ++c)
      gm[r * stride + c] = convert<G>(src.at(r, c));
  }
}

/// TSTORE of a DN tile: gm[c * stride + r] = src[r, c].
template <typename G, typename TileT>
void store_t(G *gm, int64_t stride, const TileT &src) {
  using T = typename TileT::DType;
  detail::check_valid(src, "TSTORE");
  detail::count(traffic().stored, src.rows, src.cols, sizeof(G));
  detail::checker().instr(
      "TSTORE", unit_of(TileT::loc),
      TileT::loc == Loc::Acc ? Pipe::FIX : Pipe::MTE3,
      {detail::on_chip(src, false),
       detail::gm(gm, src.cols, src.rows * int64_t(sizeof(G)),
                  stride * int64_t(sizeof(G)), true)});
  for (int c = 0; c < src.cols; ++c)
    for (int r = 0; r < src.rows; ++r)
      gm[c * stride + r] = convert<G>(src.at(r, c));
  (void)sizeof(T);
}

//===----------------------------------------------------------------------===//
// On-chip moves and conversions
//===----------------------------------------------------------------------===//

namespace detail {
#ifdef __SSE2__
/// Transposes 8 x 8 16-bit elements: line i of the input (8 elements from
/// in + i * in_step) becomes element i of every output line (out + j *
/// out_step), in three rounds of interleaving.
template <typename T>
inline void transpose8x8_16(const T *in, int64_t in_step, T *out,
                            int64_t out_step) {
  static_assert(sizeof(T) == 2, "16-bit elements");
  __m128i r[8], t[8], u[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i * in_step));
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
    t[4 + i] = _mm_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
  }
  // t[0..3]: columns 0-3 of row pairs (0,1) .. (6,7); t[4..7]: columns 4-7.
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 2; ++i) {
      u[4 * h + i] = _mm_unpacklo_epi32(t[4 * h + 2 * i], t[4 * h + 2 * i + 1]);
      u[4 * h + 2 + i] =
          _mm_unpackhi_epi32(t[4 * h + 2 * i], t[4 * h + 2 * i + 1]);
    }
  // u[4h + 2p + i]: columns 4h + 2p and 4h + 2p + 1 of rows 4i..4i+3.
  for (int h = 0; h < 2; ++h)
    for (int p = 0; p < 2; ++p) {
      const __m128i lo = u[4 * h + 2 * p], hi = u[4 * h + 2 * p + 1];
      const int col = 4 * h + 2 * p;
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + col * out_step),
                       _mm_unpacklo_epi64(lo, hi));
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + (col + 1) * out_step),
                       _mm_unpackhi_epi64(lo, hi));
    }
}

#ifdef PTO_TILE_X86
/// Transposes 16 x 16 16-bit elements in AVX2 registers: the rounds of
/// `transpose8x8_16` interleave within each 128-bit half, so a register
/// holding row i of two side-by-side 8 x 8 blocks transposes both at once;
/// the halves are then paired into whole output lines.
template <typename T>
__attribute__((target("avx2"))) void
transpose16x16_16(const T *in, int64_t in_step, T *out, int64_t out_step) {
  static_assert(sizeof(T) == 2, "16-bit elements");
  __m256i col[2][8]; // [rows 0-7 / 8-15][j]: column j (low half), j + 8
  for (int h = 0; h < 2; ++h) {
    __m256i r[8], t[8];
    for (int i = 0; i < 8; ++i)
      r[i] = _mm256_loadu_si256(
          reinterpret_cast<const __m256i *>(in + (8 * h + i) * in_step));
    for (int i = 0; i < 4; ++i) {
      t[i] = _mm256_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
      t[4 + i] = _mm256_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
    }
    for (int g = 0; g < 2; ++g)
      for (int i = 0; i < 2; ++i) {
        r[4 * g + i] =
            _mm256_unpacklo_epi32(t[4 * g + 2 * i], t[4 * g + 2 * i + 1]);
        r[4 * g + 2 + i] =
            _mm256_unpackhi_epi32(t[4 * g + 2 * i], t[4 * g + 2 * i + 1]);
      }
    for (int g = 0; g < 2; ++g)
      for (int p = 0; p < 2; ++p) {
        const __m256i lo = r[4 * g + 2 * p], hi = r[4 * g + 2 * p + 1];
        col[h][4 * g + 2 * p] = _mm256_unpacklo_epi64(lo, hi);
        col[h][4 * g + 2 * p + 1] = _mm256_unpackhi_epi64(lo, hi);
      }
  }
  for (int j = 0; j < 8; ++j) {
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + j * out_step),
                        _mm256_permute2x128_si256(col[0][j], col[1][j], 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + (j + 8) * out_step),
                        _mm256_permute2x128_si256(col[0][j], col[1][j], 0x31));
  }
}
#endif
#endif

/// dst[r, c] = src[r0 + r, c0 + c] over dst's valid extent, converting.
template <typename D, typename S>
void copy_block(D &dst, const S &src, int r0, int c0) {
  using DT = typename D::DType;
  using ST = typename S::DType;
  if (std::is_same_v<DT, ST> && col_storage(D::layout) == col_storage(S::layout)) {
    if (!col_storage(D::layout)) {
      for (int r = 0; r < dst.rows; ++r)
        std::memcpy(&dst.at(r, 0), &src.at(r0 + r, c0), sizeof(DT) * dst.cols);
    } else {
      for (int c = 0; c < dst.cols; ++c)
        std::memcpy(&dst.at(0, c), &src.at(r0, c0 + c), sizeof(DT) * dst.rows);
    }
    return;
  }
  // A layout change (the cube's operand fetch transposes storage): blocks
  // of 16 x 16 keep both sides in cache; whole 8 x 8 blocks of one 16-bit
  // type move as registers.
  for (int rb = 0; rb < dst.rows; rb += 16)
    for (int cb = 0; cb < dst.cols; cb += 16) {
      const int re = std::min(rb + 16, dst.rows), ce = std::min(cb + 16, dst.cols);
#ifdef __SSE2__
      if constexpr (std::is_same_v<DT, ST> && sizeof(DT) == 2) {
        if (re - rb == 16 && ce - cb == 16) {
          // Storage runs along c in src and along r in dst, or the other way.
          constexpr bool src_rows = !col_storage(S::layout);
          const int64_t sstep = src_rows ? S::row_step : S::col_step;
          const int64_t dstep = src_rows ? D::col_step : D::row_step;
#ifdef PTO_TILE_X86
          if (host_has_avx2()) {
            transpose16x16_16(&src.at(r0 + rb, c0 + cb), sstep, &dst.at(rb, cb),
                              dstep);
            continue;
          }
#endif
          for (int r = rb; r < re; r += 8)
            for (int c = cb; c < ce; c += 8) {
              const DT *in = &src.at(r0 + r, c0 + c);
              DT *out = &dst.at(r, c);
              transpose8x8_16(in, sstep, out, dstep);
            }
          continue;
        }
      }
#endif
      for (int r = rb; r < re; ++r)
        for (int c = cb; c < ce; ++c)
          dst.at(r, c) = convert<DT>(src.at(r0 + r, c0 + c));
    }
}
} // namespace detail

/// TMOV: mat -> left/right (MTE1), vec -> vec (V), acc -> mat (FIX).
template <typename D, typename S> void mov(D &dst, const S &src) {
  static_assert(D::Rows == S::Rows && D::Cols == S::Cols,
                "TMOV keeps the static extent");
  constexpr Pipe p = S::loc == Loc::Vec   ? Pipe::V
                     : S::loc == Loc::Acc ? Pipe::FIX
                                          : Pipe::MTE1;
  detail::check_valid(dst, "TMOV");
  if (dst.rows > src.rows || dst.cols > src.cols)
    detail::fail("TMOV of a %dx%d valid extent into %dx%d", src.rows, src.cols,
                 dst.rows, dst.cols);
  detail::checker().instr("TMOV", unit_of(S::loc), p,
                          {detail::on_chip(src, false), detail::on_chip(dst, true)});
  detail::copy_block(dst, src, 0, 0);
}

/// TEXTRACT: dst = the block of src at (row, col).
template <typename D, typename S>
void extract(D &dst, const S &src, int64_t row, int64_t col) {
  constexpr Pipe p = S::loc == Loc::Vec ? Pipe::V : Pipe::MTE1;
  detail::check_valid(dst, "TEXTRACT");
  if (row < 0 || col < 0 || row + dst.rows > S::Rows || col + dst.cols > S::Cols)
    detail::fail("TEXTRACT of %dx%d at (%lld, %lld) from a %dx%d tile",
                 dst.rows, dst.cols, static_cast<long long>(row),
                 static_cast<long long>(col), S::Rows, S::Cols);
  detail::checker().instr("TEXTRACT", unit_of(S::loc), p,
                          {detail::on_chip(src, false), detail::on_chip(dst, true)});
  detail::copy_block(dst, src, int(row), int(col));
}

/// TTRANS: dst[c, r] = src[r, c].
template <typename D, typename S, typename Tmp>
void transpose(D &dst, const S &src, Tmp &tmp) {
  detail::checker().instr("TTRANS", Unit::Vector, Pipe::V,
                          {detail::on_chip(src, false), detail::on_chip(tmp, true),
                           detail::on_chip(dst, true)});
  for (int r = 0; r < src.rows; ++r)
    for (int c = 0; c < src.cols; ++c)
      dst.at(c, r) = src.at(r, c);
}

//===----------------------------------------------------------------------===//
// Element-wise vector instructions
//===----------------------------------------------------------------------===//

namespace detail {
/// The checks of an element-wise instruction: dst's valid extent, and its
/// accesses (operand r, c only meets operand r, c).
template <typename D, typename... S>
void check_elementwise(const char *op, D &dst, const S &...src) {
  check_valid(dst, op);
  checker().instr(op, Unit::Vector, Pipe::V,
                  {on_chip(src, false, true)..., on_chip(dst, true, true)});
}

/// dst[r, c] = f(operands at [r, c]), the loop alone.
template <typename D, typename F, typename... S>
void elementwise_loop(D &dst, F &&f, const S &...src) {
  using T = typename D::DType;
  // Local copies of the handles: a store through an int8 element may alias
  // anything, and would make the compiler reload every handle's pointer and
  // extent per element.
  const D d = dst;
  auto run = [&](const S &...s) {
    for (int r = 0; r < d.rows; ++r)
      for (int c = 0; c < d.cols; ++c)
        d.at(r, c) = from_value<T>(f(value(s.at(r, c))...));
  };
  vector_loop(d.rows * d.cols, [&] { run(S(src)...); });
}

/// dst[r, c] = f(operands at [r, c]) over dst's valid extent, computed in
/// float for float elements.
template <typename D, typename F, typename... S>
void elementwise(const char *op, D &dst, F &&f, const S &...src) {
  check_elementwise(op, dst, src...);
  if (checks_only())
    return;
  elementwise_loop(dst, f, src...);
}
} // namespace detail

#define PTO_TILE_BINARY(NAME, PTO, EXPR)                                     \
  template <typename D, typename A, typename B>                              \
  void NAME(D &dst, const A &a, const B &b) {                                \
    using V = detail::Arith<typename D::DType>;                              \
    detail::elementwise(PTO, dst, [](V x, V y) -> V { return EXPR; }, a, b); \
  }
PTO_TILE_BINARY(add, "TADD", x + y)
PTO_TILE_BINARY(sub, "TSUB", x - y)
PTO_TILE_BINARY(mul, "TMUL", x * y)
PTO_TILE_BINARY(div, "TDIV", x / y)
PTO_TILE_BINARY(max, "TMAX", x > y ? x : y)
PTO_TILE_BINARY(min, "TMIN", x < y ? x : y)
#undef PTO_TILE_BINARY

namespace detail {
/// TEXP's exp: computed in double and rounded to float once, so that the
/// element-wise loop vectorizes (a call to the C library's expf per element
/// does not; it took a tenth of decode attention's time). x = (k + f) ln 2
/// with k = round(x / ln 2) and |f| <= 1/2; 2^f is its Taylor series to
/// degree 11 (truncation below 2^-47) and 2^k goes into the exponent. The
/// double result is within about 2^-45 of exp(x), so the float is exp(x)
/// correctly rounded except where exp(x) lies that close to the midpoint of
/// two floats; there it is one ulp off. Under -104 the float is 0, over 89
/// infinity (x is clamped to [-110, 100] first, where double's exponent
/// cannot overflow); NaN stays NaN. The same bits on every host: the
/// rounding to float absorbs the last bits of double a build's fused
/// multiply-adds might change, again except in those near-ties.
constexpr double kInvLn2 = 1.4426950408889634;
constexpr double kExpShifter = 6755399441055744.0; // 1.5 * 2^52
constexpr int kExp2Terms = 12;
/// ln(2)^n / n! for n = 11 down to 0: 2^f's Taylor series.
constexpr double kExp2Taylor[kExp2Terms] = {
    4.44553827187081e-10,   7.054911620801121e-09,  1.0178086009239696e-07,
    1.3215486790144305e-06, 1.5252733804059838e-05, 0.00015403530393381606,
    0.0013333558146428441,  0.009618129107628477,   0.055504108664821576,
    0.2402265069591007,     0.6931471805599453,     1.0};
inline float exp_f32(float xf) {
  // The clamp as a select of bits (see select_bits): a NaN compares false
  // and stays.
  uint32_t u;
  std::memcpy(&u, &xf, sizeof u);
  u = select_bits(xf < -110.0f, 0xc2dc0000u, u); // -110
  u = select_bits(xf > 100.0f, 0x42c80000u, u);  // 100
  float xc;
  std::memcpy(&xc, &u, sizeof xc);
  const double x = xc;
  const double z = x * kInvLn2;
  // z + 1.5 * 2^52 rounds z to an integer in the low bits of the mantissa.
  const double t = z + kExpShifter;
  const double f = z - (t - kExpShifter);
  double p = kExp2Taylor[0];
  for (int i = 1; i < kExp2Terms; ++i)
    p = p * f + kExp2Taylor[i];
  uint64_t tb, sb;
  std::memcpy(&tb, &t, sizeof tb);
  std::memcpy(&sb, &kExpShifter, sizeof sb);
  const uint64_t scale_bits = (tb - sb + 1023) << 52; // 2^k, k in [-159, 145]
  double scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  return static_cast<float>(p * scale);
}

#ifdef PTO_TILE_X86
/// `exp_f32` of eight floats in AVX-512 registers: the same operations in
/// the same order, so the same bits. Each multiply and add is the form
/// with an explicit rounding mode (to nearest, as everywhere), which no
/// compiler fuses into a multiply-add. (All masked forms, with every lane
/// on: GCC 12's unmasked ones warn of an uninitialized operand under
/// -Wall.)
__attribute__((target("avx512f,avx512vl"), always_inline)) inline __m256
exp8_avx512(__m256 xf) {
  // Every lane (a variable: without optimization GCC's headers pass the
  // mask on as a char, and the constant 0xff would not fit one).
  __mmask8 all = 0xff;
  // max(-110, x) and min(100, x) return x when x is NaN.
  const __m256 xc = _mm256_min_ps(_mm256_set1_ps(100.0f),
                                  _mm256_max_ps(_mm256_set1_ps(-110.0f), xf));
  const __m512d x = _mm512_maskz_cvtps_pd(all, xc);
  const __m512d shifter = _mm512_set1_pd(kExpShifter);
  const __m512d z =
      _mm512_maskz_mul_round_pd(all, x, _mm512_set1_pd(kInvLn2), kRoundNearest);
  const __m512d t = _mm512_maskz_add_round_pd(all, z, shifter, kRoundNearest);
  const __m512d f = _mm512_maskz_sub_round_pd(
      all, z, _mm512_maskz_sub_round_pd(all, t, shifter, kRoundNearest),
      kRoundNearest);
  __m512d p = _mm512_set1_pd(kExp2Taylor[0]);
  for (int i = 1; i < kExp2Terms; ++i)
    p = _mm512_maskz_add_round_pd(
        all, _mm512_maskz_mul_round_pd(all, p, f, kRoundNearest),
        _mm512_set1_pd(kExp2Taylor[i]), kRoundNearest);
  const __m512i k =
      _mm512_sub_epi64(_mm512_castpd_si512(t), _mm512_castpd_si512(shifter));
  const __m512d scale = _mm512_castsi512_pd(_mm512_maskz_slli_epi64(
      all, _mm512_add_epi64(k, _mm512_set1_epi64(1023)), 52));
  return _mm512_maskz_cvt_roundpd_ps(
      all, _mm512_maskz_mul_round_pd(all, p, scale, kRoundNearest),
      kRoundNearest);
}

/// TEXP over float tiles in row storage, eight elements at a time (the
/// last ones of a row masked). In place too: a group is read before it is
/// written, and groups do not overlap.
template <typename D, typename S>
__attribute__((target("avx512f,avx512vl"))) void exp_rows_avx512(D &dst,
                                                                 const S &src) {
  for (int r = 0; r < dst.rows; ++r) {
    float *out = &dst.at(r, 0);
    const float *in = &src.at(r, 0);
    int c = 0;
    // Four groups at a time: each is a chain of some thirty dependent
    // operations, and four independent chains keep the units busy.
    for (; c + 32 <= dst.cols; c += 32) {
      const __m256 e0 = exp8_avx512(_mm256_loadu_ps(in + c)),
                   e1 = exp8_avx512(_mm256_loadu_ps(in + c + 8)),
                   e2 = exp8_avx512(_mm256_loadu_ps(in + c + 16)),
                   e3 = exp8_avx512(_mm256_loadu_ps(in + c + 24));
      _mm256_storeu_ps(out + c, e0);
      _mm256_storeu_ps(out + c + 8, e1);
      _mm256_storeu_ps(out + c + 16, e2);
      _mm256_storeu_ps(out + c + 24, e3);
    }
    for (; c < dst.cols; c += 8) {
      const __mmask8 m = dst.cols - c >= 8
                             ? __mmask8(0xff)
                             : __mmask8((1u << (dst.cols - c)) - 1);
      _mm256_mask_storeu_ps(out + c, m,
                            exp8_avx512(_mm256_maskz_loadu_ps(m, in + c)));
    }
  }
}
#endif
} // namespace detail

#define PTO_TILE_UNARY(NAME, PTO, EXPR)                                      \
  template <typename D, typename S> void NAME(D &dst, const S &src) {        \
    detail::elementwise(PTO, dst, [](float x) -> float { return EXPR; }, src); \
  }
#undef PTO_TILE_UNARY

/// TEXP: dst = e^src (detail::exp_f32), in AVX-512 registers where the
/// host has them and both tiles are float in row storage.
template <typename D, typename S> void exp(D &dst, const S &src) {
  detail::check_elementwise("TEXP", dst, src);
#ifdef PTO_TILE_X86
  if constexpr (std::is_same_v<typename D::DType, float> &&
                std::is_same_v<typename S::DType, float> &&
                !col_storage(D::layout) && !col_storage(S::layout))
    if (detail::host_has_avx512())
      return detail::exp_rows_avx512(dst, src);
#endif
  detail::elementwise_loop(
      dst, [](float x) -> float { return detail::exp_f32(x); }, src);
}

#define PTO_TILE_UNARY(NAME, PTO, EXPR)                                        \
  template <typename D, typename S> void NAME(D &dst, const S &src) {          \
    detail::elementwise(                                                       \
        PTO, dst, [](float x) -> float { return EXPR; }, src);                 \
  }
PTO_TILE_UNARY(log, "TLOG", std::log(x))
PTO_TILE_UNARY(sqrt, "TSQRT", std::sqrt(x))
PTO_TILE_UNARY(rsqrt, "TRSQRT", 1.0f / std::sqrt(x))
PTO_TILE_UNARY(abs, "TABS", std::fabs(x))
#undef PTO_TILE_UNARY

#define PTO_TILE_SCALAR(NAME, PTO, EXPR)                                     \
  template <typename D, typename S, typename X>                              \
  void NAME(D &dst, const S &src, X scalar) {                                \
    using V = detail::Arith<typename D::DType>;                              \
    const V y = static_cast<V>(detail::value(scalar));                       \
    detail::elementwise(PTO, dst, [y](V x) -> V { return EXPR; }, src);      \
  }
PTO_TILE_SCALAR(adds, "TADDS", x + y)
PTO_TILE_SCALAR(subs, "TSUBS", x - y)
PTO_TILE_SCALAR(muls, "TMULS", x * y)
PTO_TILE_SCALAR(divs, "TDIVS", x / y)
PTO_TILE_SCALAR(maxs, "TMAXS", x > y ? x : y)
PTO_TILE_SCALAR(mins, "TMINS", x < y ? x : y)
#undef PTO_TILE_SCALAR

/// TEXPANDS: fill the valid extent (vec, V) or the whole tile (mat, MTE2).
template <typename D, typename X> void expands(D &dst, X scalar) {
  using T = typename D::DType;
  const T v = convert<T>(scalar);
  if constexpr (D::loc == Loc::Vec) {
    detail::check_valid(dst, "TEXPANDS");
    detail::checker().instr("TEXPANDS", Unit::Vector, Pipe::V,
                            {detail::on_chip(dst, true, true)});
    for (int r = 0; r < dst.rows; ++r)
      for (int c = 0; c < dst.cols; ++c)
        dst.at(r, c) = v;
  } else {
    detail::checker().instr("TEXPANDS", Unit::Cube, Pipe::MTE2,
                            {detail::on_chip(dst, true)});
    std::fill(dst.data, dst.data + D::Rows * D::Cols, v);
  }
}

#ifdef PTO_TILE_X86
namespace detail {
/// TCVT's conversions through half and bf16 and to integers in AVX2
/// registers (half with F16C's conversion instructions), eight elements at
/// a time, the rest of a row by `convert`: the same bits as `convert`
/// (round to nearest even, saturating; NaN to the quiet NaN sign | 0x7e00
/// in half, quieted in bf16, to 0 in an integer), which the instructions
/// give but for those NaNs. Tiles of any size: the baseline loop of the
/// rope's [8 x 64] tiles spent a tenth of its time in bf16 conversions.
#define PTO_TILE_CVT_TARGET                                                    \
  __attribute__((target("avx2,fma,f16c"), always_inline))
PTO_TILE_CVT_TARGET inline __m256 f32x8(const float *p) {
  return _mm256_loadu_ps(p);
}
PTO_TILE_CVT_TARGET inline __m256 f32x8(const int32_t *p) {
  return _mm256_cvtepi32_ps(
      _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
}
PTO_TILE_CVT_TARGET inline __m256 f32x8(const f16 *p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
}
PTO_TILE_CVT_TARGET inline __m256 f32x8(const bf16 *p) {
  return _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(
                            reinterpret_cast<const __m128i *>(p))),
                        16));
}
/// Eight 32-bit lanes as eight 16-bit ones, saturating (signed or not).
PTO_TILE_CVT_TARGET inline __m128i narrow16(__m256i v, bool is_signed) {
  const __m128i lo = _mm256_castsi256_si128(v),
                hi = _mm256_extracti128_si256(v, 1);
  return is_signed ? _mm_packs_epi32(lo, hi) : _mm_packus_epi32(lo, hi);
}
PTO_TILE_CVT_TARGET inline void store_f32x8(f16 *p, __m256 x) {
  const __m128i h = _mm256_cvtps_ph(x, kRoundNearest);
  const __m256i bits = _mm256_castps_si256(x);
  const __m128i nan =
      narrow16(_mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)), true);
  const __m128i quiet =
      _mm_or_si128(narrow16(_mm256_and_si256(_mm256_srli_epi32(bits, 16),
                                             _mm256_set1_epi32(0x8000)),
                            false),
                   _mm_set1_epi16(0x7e00));
  _mm_storeu_si128(reinterpret_cast<__m128i *>(p),
                   _mm_blendv_epi8(h, quiet, nan));
}
/// f32_to_bf16 on eight lanes: the top half rounded to nearest even, a NaN
/// quieted.
PTO_TILE_CVT_TARGET inline void store_f32x8(bf16 *p, __m256 x) {
  const __m256i u = _mm256_castps_si256(x);
  const __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(
          _mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)),
          _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1))),
      16);
  const __m256i nan =
      _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  const __m256i is_nan =
      _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                         _mm256_set1_epi32(0x7f800000));
  _mm_storeu_si128(reinterpret_cast<__m128i *>(p),
                   narrow16(_mm256_blendv_epi8(rounded, nan, is_nan), false));
}
PTO_TILE_CVT_TARGET inline void store_f32x8(float *p, __m256 x) {
  _mm256_storeu_ps(p, x);
}
/// x rounded to nearest even and clamped to [lo, hi] as floats, NaN to 0.
PTO_TILE_CVT_TARGET inline __m256 rounded_within(__m256 x, float lo, float hi) {
  __m256 r = _mm256_round_ps(x, kRoundNearest);
  r = _mm256_min_ps(_mm256_max_ps(r, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
  return _mm256_andnot_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q), r);
}
PTO_TILE_CVT_TARGET inline void store_f32x8(int8_t *p, __m256 x) {
  const __m128i w =
      narrow16(_mm256_cvtps_epi32(rounded_within(x, -128.0f, 127.0f)), true);
  _mm_storel_epi64(reinterpret_cast<__m128i *>(p), _mm_packs_epi16(w, w));
}
PTO_TILE_CVT_TARGET inline void store_f32x8(int32_t *p, __m256 x) {
  // Rounded first, so the conversion is exact whatever the rounding mode.
  // Below -2^31 (and for NaN) the instruction gives INT32_MIN, the
  // saturated value; from 2^31 up INT32_MAX is put in, for NaN 0.
  const __m256 r = _mm256_round_ps(x, kRoundNearest);
  const __m256 over =
      _mm256_cmp_ps(r, _mm256_set1_ps(2147483648.0f), _CMP_GE_OQ);
  __m256i v = _mm256_cvtps_epi32(r);
  v = _mm256_blendv_epi8(v, _mm256_set1_epi32(0x7fffffff),
                         _mm256_castps_si256(over));
  v = _mm256_andnot_si256(
      _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)), v);
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), v);
}
#undef PTO_TILE_CVT_TARGET

/// TCVT's conversions on sixteen lanes where the host has AVX-512: the same
/// rounding and NaN rules as store_f32x8 and the i32 -> f16 loop below.
/// The instructions' rows (cvt_row_avx512) and fused groups (Lanes) both
/// convert through these. 16-bit and 8-bit elements travel zero- or
/// sign-extended in 32-bit lanes, except half, which stays packed for
/// VCVTPH2PS. (GCC 12 warns at the unmasked forms of these intrinsics: the
/// masked ones with every lane set.)
#define PTO_TILE_LANES_TARGET                                                  \
  __attribute__((target("avx512f"), always_inline)) inline
namespace lanes {
/// bf16 bits (in the low half of each lane) to f32.
PTO_TILE_LANES_TARGET __m512 bf16_to_f32(__m512i bits) {
  __mmask16 all = 0xffff; // (a variable: see exp8_avx512)
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(all, bits, 16));
}
/// f32 to bf16 bits: the top half rounded to nearest even, a NaN quieted.
PTO_TILE_LANES_TARGET __m512i f32_to_bf16(__m512 x) {
  __mmask16 all = 0xffff;
  const __m512i u = _mm512_castps_si512(x);
  const __m512i high = _mm512_maskz_srli_epi32(all, u, 16);
  const __m512i rounded = _mm512_maskz_srli_epi32(
      all,
      _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)),
                       _mm512_and_si512(high, _mm512_set1_epi32(1))),
      16);
  const __mmask16 nan = _mm512_cmpgt_epi32_mask(
      _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)),
      _mm512_set1_epi32(0x7f800000));
  return _mm512_mask_blend_epi32(
      nan, rounded, _mm512_or_si512(high, _mm512_set1_epi32(0x40)));
}
/// f32 to i32: rounded to nearest even; INT32_MIN below -2^31 (the
/// instruction's), INT32_MAX from 2^31 up, 0 for NaN.
PTO_TILE_LANES_TARGET __m512i f32_to_i32(__m512 x) {
  __mmask16 all = 0xffff;
  const __m512 r = _mm512_maskz_roundscale_ps(all, x, kRoundNearest);
  const __mmask16 over =
      _mm512_cmp_ps_mask(r, _mm512_set1_ps(2147483648.0f), _CMP_GE_OQ);
  const __mmask16 number = _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q);
  return _mm512_mask_blend_epi32(over, _mm512_maskz_cvtps_epi32(number, r),
                                 _mm512_set1_epi32(0x7fffffff));
}
/// i32 to packed half: an int32 is no NaN, and exact in float within
/// half's range (beyond it, infinity either way).
PTO_TILE_LANES_TARGET __m256i i32_to_f16(__m512i x) {
  __mmask16 all = 0xffff;
  return _mm512_maskz_cvtps_ph(all, _mm512_maskz_cvtepi32_ps(all, x),
                               kRoundNearest);
}
/// Packed half to i8 (in 32-bit lanes): rounded, clamped to [-128, 127]
/// (max and min give the bound for NaN), NaN to 0.
PTO_TILE_LANES_TARGET __m512i f16_to_i8(__m256i h) {
  __mmask16 all = 0xffff;
  const __m512 x = _mm512_maskz_cvtph_ps(all, h);
  __m512 r = _mm512_maskz_roundscale_ps(all, x, kRoundNearest);
  r = _mm512_maskz_min_ps(all,
                          _mm512_maskz_max_ps(all, r, _mm512_set1_ps(-128.0f)),
                          _mm512_set1_ps(127.0f));
  const __mmask16 number = _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q);
  return _mm512_maskz_cvtps_epi32(number, r);
}
} // namespace lanes

/// Whole groups of sixteen of a row through the lane conversions; returns
/// how many elements were converted.
__attribute__((target("avx512f"))) inline int
cvt_row_avx512(bf16 *out, const float *in, int n) {
  __mmask16 all = 0xffff;
  int c = 0;
  for (; c + 16 <= n; c += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + c),
                        _mm512_maskz_cvtepi32_epi16(
                            all, lanes::f32_to_bf16(_mm512_loadu_ps(in + c))));
  return c;
}
__attribute__((target("avx512f"))) inline int
cvt_row_avx512(float *out, const bf16 *in, int n) {
  __mmask16 all = 0xffff;
  int c = 0;
  for (; c + 16 <= n; c += 16)
    _mm512_storeu_ps(out + c,
                     lanes::bf16_to_f32(_mm512_maskz_cvtepu16_epi32(
                         all, _mm256_loadu_si256(
                                  reinterpret_cast<const __m256i *>(in + c)))));
  return c;
}
__attribute__((target("avx512f"))) inline int
cvt_row_avx512(int8_t *out, const f16 *in, int n) {
  __mmask16 all = 0xffff;
  int c = 0;
  for (; c + 16 <= n; c += 16)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + c),
                     _mm512_maskz_cvtepi32_epi8(
                         all, lanes::f16_to_i8(_mm256_loadu_si256(
                                  reinterpret_cast<const __m256i *>(in + c)))));
  return c;
}
__attribute__((target("avx512f"))) inline int
cvt_row_avx512(int32_t *out, const float *in, int n) {
  int c = 0;
  for (; c + 16 <= n; c += 16)
    _mm512_storeu_si512(out + c, lanes::f32_to_i32(_mm512_loadu_ps(in + c)));
  return c;
}
__attribute__((target("avx512f"))) inline int
cvt_row_avx512(f16 *out, const int32_t *in, int n) {
  int c = 0;
  for (; c + 16 <= n; c += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + c),
                        lanes::i32_to_f16(_mm512_loadu_si512(in + c)));
  return c;
}

/// Whether `cvt_row_f16c` converts ST to DT.
template <typename DT, typename ST> constexpr bool f16c_cvt() {
  constexpr bool from_float = std::is_same_v<ST, float>;
  if constexpr (std::is_same_v<DT, f16>)
    return from_float || std::is_same_v<ST, int32_t>;
  else if constexpr (std::is_same_v<DT, int8_t> || std::is_same_v<DT, int32_t>)
    return from_float || std::is_same_v<ST, f16>;
  else if constexpr (std::is_same_v<DT, bf16>)
    return from_float;
  else if constexpr (std::is_same_v<DT, float>)
    return std::is_same_v<ST, bf16>;
  else
    return false;
}
template <typename DT, typename ST>
constexpr bool f16c_cvt_v = f16c_cvt<DT, ST>();

template <typename DT, typename ST>
__attribute__((target("avx2,fma,f16c"))) void
cvt_row_f16c(DT *out, const ST *in, int n) {
  int c = 0;
  if constexpr ((std::is_same_v<DT, bf16> && std::is_same_v<ST, float>) ||
                (std::is_same_v<DT, float> && std::is_same_v<ST, bf16>) ||
                (std::is_same_v<DT, int8_t> && std::is_same_v<ST, f16>) ||
                (std::is_same_v<DT, int32_t> && std::is_same_v<ST, float>) ||
                (std::is_same_v<DT, f16> && std::is_same_v<ST, int32_t>)) {
    if (host_has_avx512())
      c = cvt_row_avx512(out, in, n);
  }
  if constexpr (std::is_same_v<DT, f16> && std::is_same_v<ST, int32_t>) {
    // An int32 is no NaN, and exact in float within half's range (beyond
    // it, infinity either way): the conversion alone.
    for (; c + 8 <= n; c += 8)
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + c),
                       _mm256_cvtps_ph(f32x8(in + c), kRoundNearest));
  }
  for (; c + 8 <= n; c += 8)
    store_f32x8(out + c, f32x8(in + c));
  for (; c < n; ++c)
    out[c] = convert<DT>(in[c]);
}
} // namespace detail
#endif

/// TCVT: element conversion (rounding to nearest even, saturating).
template <typename D, typename S>
void cvt(D &dst, const S &src, Round mode = Round::Rint) {
  using DT = typename D::DType;
  using ST = typename S::DType;
  detail::check_valid(dst, "TCVT");
  detail::checker().instr("TCVT", Unit::Vector, Pipe::V,
                          {detail::on_chip(src, false, true),
                           detail::on_chip(dst, true, true)});
  if (detail::checks_only())
    return;
  const D d = dst; // (local handles: see detail::elementwise)
  const S s = src;
  if constexpr (is_float_v<ST> && !is_float_v<DT>) {
    if (mode != Round::Rint) {
      for (int r = 0; r < d.rows; ++r)
        for (int c = 0; c < d.cols; ++c)
          d.at(r, c) = saturate_round<DT>(Elem<ST>::to_f32(s.at(r, c)), mode);
      return;
    }
  }
  // The default rounding: one straight loop per row when both tiles store
  // rows, which the compiler vectorizes (the conversions have no branch on
  // the value), else element by element.
  if constexpr (!col_storage(D::layout) && !col_storage(S::layout)) {
#ifdef PTO_TILE_X86
    if constexpr (detail::f16c_cvt_v<DT, ST>)
      if (detail::host_has_fma()) { // AVX2, FMA and F16C
        for (int r = 0; r < d.rows; ++r)
          detail::cvt_row_f16c(&d.at(r, 0), &s.at(r, 0), d.cols);
        return;
      }
#endif
    detail::vector_loop(d.rows * d.cols, [&] {
      for (int r = 0; r < d.rows; ++r) {
        DT *__restrict out = &d.at(r, 0);
        const ST *__restrict in = &s.at(r, 0);
        const int cols = d.cols;
        for (int c = 0; c < cols; ++c)
          out[c] = convert<DT>(in[c]);
      }
    });
  } else {
    for (int r = 0; r < d.rows; ++r)
      for (int c = 0; c < d.cols; ++c)
        d.at(r, c) = convert<DT>(s.at(r, c));
  }
}

/// TQUANT (symmetric): dst = saturate_i8(rint(src * scale[r])).
template <typename D, typename S, typename Sc>
void quant(D &dst, S &src, const Sc &scale) {
  detail::check_valid(dst, "TQUANT");
  detail::checker().instr("TQUANT", Unit::Vector, Pipe::V,
                          {detail::on_chip(src, false, true),
                           detail::on_chip(scale, false),
                           detail::on_chip(src, true, true),
                           detail::on_chip(dst, true, true)});
  for (int r = 0; r < dst.rows; ++r)
    for (int c = 0; c < dst.cols; ++c) {
      src.at(r, c) = src.at(r, c) * scale.at(r, 0);
      dst.at(r, c) = saturate_round<int8_t>(src.at(r, c));
    }
}

/// TDEQUANT: dst = (src - zero[r]) * scale[r].
template <typename D, typename S, typename Sc>
void dequant(D &dst, const S &src, const Sc &scale, const Sc &zero) {
  detail::check_valid(dst, "TDEQUANT");
  detail::checker().instr("TDEQUANT", Unit::Vector, Pipe::V,
                          {detail::on_chip(src, false, true),
                           detail::on_chip(scale, false),
                           detail::on_chip(zero, false),
                           detail::on_chip(dst, true, true)});
  for (int r = 0; r < dst.rows; ++r)
    for (int c = 0; c < dst.cols; ++c)
      dst.at(r, c) = (static_cast<float>(src.at(r, c)) - zero.at(r, 0)) *
                     scale.at(r, 0);
}

//===----------------------------------------------------------------------===//
// Reductions and broadcasts
//===----------------------------------------------------------------------===//

namespace detail {
/// dst[r, 0] = f-fold of row r of src (an empty row leaves dst alone).
template <typename D, typename S, typename F>
void row_reduce(const char *op, D &dst, const S &src, Access scratch, F &&f) {
  check_valid(src, op);
  checker().instr(op, Unit::Vector, Pipe::V,
                  {on_chip(src, false), scratch, on_chip(dst, true)});
  for (int r = 0; r < src.rows && src.cols > 0; ++r) {
    auto acc = value(src.at(r, 0));
    for (int c = 1; c < src.cols; ++c)
      acc = f(acc, value(src.at(r, c)));
    dst.at(r, 0) = from_value<typename D::DType>(acc);
  }
}
template <typename D, typename S, typename F>
void col_reduce(const char *op, D &dst, const S &src, F &&f) {
  check_valid(src, op);
  checker().instr(op, Unit::Vector, Pipe::V,
                  {on_chip(src, false), on_chip(dst, true)});
  for (int c = 0; c < src.cols && src.rows > 0; ++c) {
    auto acc = value(src.at(0, c));
    for (int r = 1; r < src.rows; ++r)
      acc = f(acc, value(src.at(r, c)));
    dst.at(0, c) = from_value<typename D::DType>(acc);
  }
}
} // namespace detail

namespace detail {
/// The fold `acc = Greater ? (acc > x ? acc : x) : (acc < x ? acc : x)` of
/// x[0, n) from acc = x[0], computed without its chain of dependent
/// compares, to the bit. In the fold a NaN replaces acc and the next
/// element replaces the NaN, so only what follows the last NaN counts (the
/// NaN itself when it is last); there an equal element replaces acc, which
/// matters only between +0 and -0: the result is the extreme value, and
/// when that is zero, the last zero. Eight independent lanes find the
/// extreme (compares are exact, so any order finds the same value).
template <bool Greater> float row_extreme(const float *x, int n) {
  auto pick = [](float a, float b) {
    return Greater ? (a > b ? a : b) : (a < b ? a : b);
  };
  // The lanes as one vector (written lane by lane, the loop stayed eight
  // scalar compares, a tenth of the quantization's time), searched from
  // x[start] on; NaNs are looked for in the same pass.
  typedef float Lanes8 __attribute__((vector_size(8 * sizeof(float))));
  typedef int32_t Mask8 __attribute__((vector_size(8 * sizeof(int32_t))));
  auto search = [&](int start, Mask8 *nan) {
    Lanes8 lane = Lanes8{} + x[start];
    int c = start;
    for (; c + 8 <= n; c += 8) {
      Lanes8 v;
      std::memcpy(&v, x + c, sizeof v);
      *nan |= v != v;
      lane = Greater ? (lane > v ? lane : v) : (lane < v ? lane : v);
    }
    float m = lane[0];
    for (int l = 1; l < 8; ++l)
      m = pick(m, lane[l]);
    for (; c < n; ++c) {
      (*nan)[0] |= x[c] != x[c];
      m = pick(m, x[c]);
    }
    if (m == 0.0f)
      for (int k = n - 1; k >= start; --k)
        if (x[k] == 0.0f)
          return x[k];
    return m;
  };
  Mask8 nan{};
  const float m = search(0, &nan);
  bool any = false;
  for (int l = 0; l < 8; ++l)
    any |= nan[l] != 0;
  if (!any)
    return m;
  // Only what follows the last NaN counts.
  int start = 0;
  for (int c = 0; c < n; ++c)
    start = x[c] != x[c] ? c : start;
  if (start == n - 1)
    return x[start];
  return search(start + 1, &nan);
}

/// The fixed tree in which the cube's dot products and TROWSUM add their
/// eight partial sums, lane(0) ... lane(7): ((0 1)(2 3))((4 5)(6 7)).
template <typename Lane> inline auto sum_tree8(Lane lane) {
  return ((lane(0) + lane(1)) + (lane(2) + lane(3))) +
         ((lane(4) + lane(5)) + (lane(6) + lane(7)));
}

/// TROWSUM's last steps: the eight lanes added in their tree, then the n
/// elements of `tail` in order (also the fused lanes' rowsum's,
/// Row16::rowsum).
inline float row_sum_finish(const float lane[8], const float *tail, int n) {
  float s = sum_tree8([&](int l) { return lane[l]; });
  for (int c = 0; c < n; ++c)
    s += tail[c];
  return s;
}

/// TROWSUM's sum of a float row, in the order the cube's dot products add
/// (`dot_all`): lane l of eight sums the elements at positions l mod 8 in
/// order, starting from the first eight themselves (a row of -0.0 sums to
/// -0.0), the lanes are added in the tree ((0 1)(2 3))((4 5)(6 7)), then
/// the tail in order; a row shorter than eight in order. One order, plain
/// float additions, so the same bits on every host, and a loop the
/// compiler keeps in vector registers (the one-by-one fold it replaced was
/// 15% of rms_norm's time).
inline float row_sum(const float *x, int n) {
  if (n < 8) {
    float s = x[0];
    for (int c = 1; c < n; ++c)
      s += x[c];
    return s;
  }
  float lane[8];
  for (int l = 0; l < 8; ++l)
    lane[l] = x[l];
  int c = 8;
  for (; c + 8 <= n; c += 8)
    for (int l = 0; l < 8; ++l)
      lane[l] += x[c + l];
  return row_sum_finish(lane, x + c, n - c);
}

/// A row reduction (rowmax, rowmin, rowsum): of a row-major f32 tile,
/// `row(x, n)` per row, in a loop compiled for AVX2 from 1024 elements; of
/// any other, the fold `f` along the row. `row` is a lambda, not a function
/// pointer: through a pointer the row function was not inlined into the
/// AVX2 loop, and the quantization's rowmax ran 12% slower.
template <typename D, typename S, typename Tmp, typename Row, typename F>
void reduce_rows(const char *op, D &dst, const S &src, Tmp &tmp, Row &&row,
                 F &&f) {
  if constexpr (std::is_same_v<typename S::DType, float> &&
                !col_storage(S::layout)) {
    check_valid(src, op);
    checker().instr(
        op, Unit::Vector, Pipe::V,
        {on_chip(src, false), on_chip(tmp, true), on_chip(dst, true)});
    if (checks_only())
      return;
    vector_loop(src.rows * src.cols, [&] {
      for (int r = 0; r < src.rows && src.cols > 0; ++r)
        dst.at(r, 0) =
            from_value<typename D::DType>(row(&src.at(r, 0), src.cols));
    });
  } else {
    row_reduce(op, dst, src, on_chip(tmp, true), f);
  }
}

/// rowmax and rowmin: of a row-major f32 tile, row_extreme per row; of
/// any other, the fold itself.
template <bool Greater, typename D, typename S, typename Tmp>
void row_extreme(const char *op, D &dst, const S &src, Tmp &tmp) {
  reduce_rows(
      op, dst, src, tmp,
      [](const float *x, int n) { return row_extreme<Greater>(x, n); },
      [](auto x, auto y) {
        return Greater ? (x > y ? x : y) : (x < y ? x : y);
      });
}
} // namespace detail

// The `tmp` operand is pto-isa's scratch; the simulation does not need it
// but the checker counts it as written.
template <typename D, typename S, typename Tmp>
void rowmax(D &dst, const S &src, Tmp &tmp) {
  detail::row_extreme<true>("TROWMAX", dst, src, tmp);
}
template <typename D, typename S, typename Tmp>
void rowmin(D &dst, const S &src, Tmp &tmp) {
  detail::row_extreme<false>("TROWMIN", dst, src, tmp);
}
template <typename D, typename S, typename Tmp>
void rowsum(D &dst, const S &src, Tmp &tmp) {
  detail::reduce_rows(
      "TROWSUM", dst, src, tmp,
      [](const float *x, int n) { return detail::row_sum(x, n); },
      [](auto x, auto y) { return x + y; });
}

#define PTO_TILE_COLREDUCE(NAME, PTO, EXPR)                                  \
  template <typename D, typename S> void NAME(D &dst, const S &src) {        \
    detail::col_reduce(PTO, dst, src, [](auto x, auto y) { return EXPR; });  \
  }
PTO_TILE_COLREDUCE(colmax, "TCOLMAX", x > y ? x : y)
PTO_TILE_COLREDUCE(colsum, "TCOLSUM", x + y)
PTO_TILE_COLREDUCE(colmin, "TCOLMIN", x < y ? x : y)
#undef PTO_TILE_COLREDUCE

/// TROWEXPAND: dst[r, c] = src[r, 0].
template <typename D, typename S> void rowexpand(D &dst, const S &src) {
  using T = typename D::DType;
  detail::check_valid(dst, "TROWEXPAND");
  detail::checker().instr("TROWEXPAND", Unit::Vector, Pipe::V,
                          {detail::on_chip(src, false), detail::on_chip(dst, true)});
  for (int r = 0; r < dst.rows; ++r)
    std::fill(&dst.at(r, 0), &dst.at(r, 0) + dst.cols, convert<T>(src.at(r, 0)));
}

/// TCOLEXPAND: dst[r, c] = src[0, c].
template <typename D, typename S> void colexpand(D &dst, const S &src) {
  using T = typename D::DType;
  detail::check_valid(dst, "TCOLEXPAND");
  detail::checker().instr("TCOLEXPAND", Unit::Vector, Pipe::V,
                          {detail::on_chip(src, false), detail::on_chip(dst, true)});
  for (int r = 0; r < dst.rows; ++r)
    for (int c = 0; c < dst.cols; ++c)
      dst.at(r, c) = convert<T>(src.at(0, c));
}

namespace detail {
/// dst[r, c] = f(src[r, c], b[r, 0]) (`Row`) or f(src[r, c], b[0, c]),
/// with b a broadcast operand (and a scratch tile the device uses).
template <bool Row, typename D, typename S, typename B, typename F>
void broadcast_binary(const char *op, D &dst, const S &src, const B &b,
                      Access scratch, F &&f) {
  using T = typename D::DType;
  check_valid(dst, op);
  checker().instr(op, Unit::Vector, Pipe::V,
                  {on_chip(src, false, true), on_chip(b, false), scratch,
                   on_chip(dst, true, true)});
  if (checks_only())
    return;
  const D d = dst; // (local handles: see detail::elementwise)
  const S s = src;
  const B v = b;
  vector_loop(d.rows * d.cols, [&] {
    for (int r = 0; r < d.rows; ++r) {
      if constexpr (Row) {
        const auto y = value(v.at(r, 0));
        for (int c = 0; c < d.cols; ++c)
          d.at(r, c) = from_value<T>(f(value(s.at(r, c)), y));
      } else {
        for (int c = 0; c < d.cols; ++c)
          d.at(r, c) = from_value<T>(f(value(s.at(r, c)), value(v.at(0, c))));
      }
    }
  });
}
} // namespace detail

#define PTO_TILE_EXPAND_BINARY(NAME, OP, EXPR)                                 \
  template <typename D, typename S, typename R, typename Tmp>                  \
  void row##NAME(D &dst, const S &src, const R &row, Tmp &tmp) {               \
    detail::broadcast_binary<true>("TROW" OP, dst, src, row,                   \
                                   detail::on_chip(tmp, true),                 \
                                   [](auto x, auto y) { return EXPR; });       \
  }                                                                            \
  template <typename D, typename S, typename C>                                \
  void col##NAME(D &dst, const S &src, const C &col) {                         \
    detail::broadcast_binary<false>("TCOL" OP, dst, src, col,                  \
                                    detail::Access{0, 0, 0, true},             \
                                    [](auto x, auto y) { return EXPR; });      \
  }
PTO_TILE_EXPAND_BINARY(expandadd, "EXPANDADD", x + y)
PTO_TILE_EXPAND_BINARY(expandsub, "EXPANDSUB", x - y)
PTO_TILE_EXPAND_BINARY(expandmul, "EXPANDMUL", x * y)
PTO_TILE_EXPAND_BINARY(expanddiv, "EXPANDDIV", x / y)
PTO_TILE_EXPAND_BINARY(expandmax, "EXPANDMAX", x > y ? x : y)
PTO_TILE_EXPAND_BINARY(expandmin, "EXPANDMIN", x < y ? x : y)
#undef PTO_TILE_EXPAND_BINARY

//===----------------------------------------------------------------------===//
// Indices, masks, selection, scalar access
//===----------------------------------------------------------------------===//

/// TCI: dst[r, c] = start +/- (r * cols + c) in row-major order.
template <typename D, typename X>
void ci(D &dst, X start, bool descending = false) {
  using T = typename D::DType;
  detail::check_valid(dst, "TCI");
  detail::checker().instr("TCI", Unit::Vector, Pipe::V,
                          {detail::on_chip(dst, true)});
  int64_t k = 0;
  for (int r = 0; r < dst.rows; ++r)
    for (int c = 0; c < dst.cols; ++c, ++k)
      dst.at(r, c) = static_cast<T>(descending ? start - k : start + k);
}

/// TTRI: lower: 1 where c <= r + diagonal; upper: 0 where c < r + diagonal.
template <typename D> void tri(D &dst, int32_t diagonal, bool upper = false) {
  using T = typename D::DType;
  detail::check_valid(dst, "TTRI");
  detail::checker().instr("TTRI", Unit::Vector, Pipe::V,
                          {detail::on_chip(dst, true)});
  for (int r = 0; r < dst.rows; ++r)
    for (int c = 0; c < dst.cols; ++c) {
      const bool below = c <= int64_t(r) + diagonal;
      const bool one = upper ? !(c < int64_t(r) + diagonal) : below;
      dst.at(r, c) = convert<T>(one ? 1.0f : 0.0f);
    }
}

enum class Cmp : uint8_t { EQ, NE, LT, LE, GT, GE };

/// TCMPS: bit c of mask row r = src[r, c] <cmp> scalar.
template <typename M, typename S, typename X>
void cmps(M &mask, const S &src, X scalar, Cmp cmp) {
  using T = typename S::DType;
  detail::checker().instr("TCMPS", Unit::Vector, Pipe::V,
                          {detail::on_chip(src, false), detail::on_chip(mask, true)});
  // In the source's arithmetic: float, or the integer itself (an i32
  // above 2^24 is not a float).
  using V = detail::Arith<T>;
  const V y = static_cast<V>(detail::value(scalar));
  for (int r = 0; r < src.rows; ++r) {
    uint8_t *bits = reinterpret_cast<uint8_t *>(&mask.at(r, 0));
    std::memset(bits, 0, M::Cols);
    for (int c = 0; c < src.cols; ++c) {
      const V x = detail::value(src.at(r, c));
      const bool v = cmp == Cmp::EQ   ? x == y
                     : cmp == Cmp::NE ? x != y
                     : cmp == Cmp::LT ? x < y
                     : cmp == Cmp::LE ? x <= y
                     : cmp == Cmp::GT ? x > y
                                      : x >= y;
      bits[c / 8] |= static_cast<uint8_t>(v) << (c % 8);
    }
  }
}

/// TSEL: dst[r, c] = bit(mask, r, c) ? a[r, c] : b[r, c].
template <typename D, typename M, typename A, typename B, typename Tmp>
void sel(D &dst, const M &mask, const A &a, const B &b, Tmp &tmp) {
  detail::check_valid(dst, "TSEL");
  detail::checker().instr("TSEL", Unit::Vector, Pipe::V,
                          {detail::on_chip(mask, false), detail::on_chip(a, false),
                           detail::on_chip(b, false), detail::on_chip(tmp, true),
                           detail::on_chip(dst, true)});
  for (int r = 0; r < dst.rows; ++r) {
    const uint8_t *bits = reinterpret_cast<const uint8_t *>(&mask.at(r, 0));
    for (int c = 0; c < dst.cols; ++c)
      dst.at(r, c) = (bits[c / 8] >> (c % 8)) & 1 ? a.at(r, c) : b.at(r, c);
  }
}

/// GetValue / SetValue on the scalar unit of the vector core.
template <typename TileT>
typename TileT::DType getval(const TileT &t, int64_t r, int64_t c) {
  if (r < 0 || c < 0 || r >= TileT::Rows || c >= TileT::Cols)
    detail::fail("GetValue at (%lld, %lld) of a %dx%d tile",
                 static_cast<long long>(r), static_cast<long long>(c),
                 TileT::Rows, TileT::Cols);
  detail::checker().instr("GetValue", Unit::Vector, Pipe::S,
                          {detail::on_chip(t, false)});
  return t.at(int(r), int(c));
}
template <typename TileT, typename X>
void setval(TileT &t, int64_t r, int64_t c, X v) {
  if (r < 0 || c < 0 || r >= TileT::Rows || c >= TileT::Cols)
    detail::fail("SetValue at (%lld, %lld) of a %dx%d tile",
                 static_cast<long long>(r), static_cast<long long>(c),
                 TileT::Rows, TileT::Cols);
  detail::checker().instr("SetValue", Unit::Vector, Pipe::S,
                          {detail::on_chip(t, true)});
  t.at(int(r), int(c)) = convert<typename TileT::DType>(v);
}

//===----------------------------------------------------------------------===//
// The cube
//===----------------------------------------------------------------------===//

namespace detail {
/// The cube's arithmetic on the host. Each result c[i, j] is the dot
/// product of row i of a and column j of b, both converted to the
/// accumulator type: eight partial sums (lane l sums the products at
/// positions = l mod 8), added in a fixed tree, then the tail. The order is
/// fixed, so every build and every host computes the same bits; the AVX
/// form below only holds the eight lanes in one register instead of two.
template <typename T, int N> struct Lanes {
  typedef T type __attribute__((vector_size(N * sizeof(T))));
};
/// lo += row[0, N) * col[0, N), lane by lane (the vectors never cross a
/// call boundary, where an AVX vector would change the ABI).
template <typename V, typename Acc>
inline void add_products(V &lo, const Acc *row, const Acc *col) {
  V r, c;
  std::memcpy(&r, row, sizeof r);
  std::memcpy(&c, col, sizeof c);
  lo += r * c;
}

/// Eight partial sums of a dot product, as two vectors of four lanes
/// (Wide = false: SSE2) or one of eight (Wide = true: AVX).
template <typename Acc, bool Wide> struct Partial;
template <typename Acc> struct Partial<Acc, false> {
  using V = typename Lanes<Acc, 4>::type;
  V lo{}, hi{};
  void add(const Acc *row, const Acc *col) {
    add_products(lo, row, col);
    add_products(hi, row + 4, col + 4);
  }
  Acc lane(int l) const { return l < 4 ? lo[l] : hi[l - 4]; }
};
template <typename Acc> struct Partial<Acc, true> {
  using V = typename Lanes<Acc, 8>::type;
  V all{};
  void add(const Acc *row, const Acc *col) {
    add_products(all, row, col);
  }
  Acc lane(int l) const { return all[l]; }
};

/// The sum of the partial sums in the fixed tree, then the tail from kk.
template <typename P, typename Acc>
inline Acc finish_dot(const P &p, const Acc *row, const Acc *col, int kk,
                      int k) {
  Acc sum = sum_tree8([&](int l) { return p.lane(l); });
  for (; kk < k; ++kk)
    sum += row[kk] * col[kk];
  return sum;
}

/// out[i * n + j] = dot(a row i, b column j) for a (m x k, row-major) and b
/// (n columns of k, one after another): four rows of a against two columns
/// at a time (eight independent chains, each loaded row used twice), then
/// the rows and columns left over one by one.
template <typename Acc, bool Wide>
__attribute__((always_inline)) inline void
dot_all(const Acc *a, int m, const Acc *b, int n, int k, Acc *out) {
  using P = Partial<Acc, Wide>;
  auto one = [&](int i, int j) {
    const Acc *row = a + size_t(i) * k, *col = b + size_t(j) * k;
    P p;
    int kk = 0;
    for (; kk + 8 <= k; kk += 8)
      p.add(row + kk, col + kk);
    out[size_t(i) * n + j] = finish_dot(p, row, col, kk, k);
  };
  int j = 0;
  for (; j + 2 <= n; j += 2) {
    const Acc *c0 = b + size_t(j) * k, *c1 = c0 + k;
    int i = 0;
    for (; i + 4 <= m; i += 4) {
      const Acc *r0 = a + size_t(i) * k, *r1 = r0 + k, *r2 = r1 + k,
                *r3 = r2 + k;
      P p00, p10, p20, p30, p01, p11, p21, p31;
      int kk = 0;
      for (; kk + 8 <= k; kk += 8) {
        p00.add(r0 + kk, c0 + kk);
        p10.add(r1 + kk, c0 + kk);
        p20.add(r2 + kk, c0 + kk);
        p30.add(r3 + kk, c0 + kk);
        p01.add(r0 + kk, c1 + kk);
        p11.add(r1 + kk, c1 + kk);
        p21.add(r2 + kk, c1 + kk);
        p31.add(r3 + kk, c1 + kk);
      }
      Acc *o = out + size_t(i) * n + j;
      o[0] = finish_dot(p00, r0, c0, kk, k);
      o[1] = finish_dot(p01, r0, c1, kk, k);
      o[n] = finish_dot(p10, r1, c0, kk, k);
      o[n + 1] = finish_dot(p11, r1, c1, kk, k);
      o[2 * size_t(n)] = finish_dot(p20, r2, c0, kk, k);
      o[2 * size_t(n) + 1] = finish_dot(p21, r2, c1, kk, k);
      o[3 * size_t(n)] = finish_dot(p30, r3, c0, kk, k);
      o[3 * size_t(n) + 1] = finish_dot(p31, r3, c1, kk, k);
    }
    for (; i < m; ++i) {
      one(i, j);
      one(i, j + 1);
    }
  }
  for (; j < n; ++j)
    for (int i = 0; i < m; ++i)
      one(i, j);
}

inline void dot_all_portable(const float *a, int m, const float *b, int n,
                             int k, float *out) {
  dot_all<float, false>(a, m, b, n, k, out);
}
inline void dot_all_portable(const int32_t *a, int m, const int32_t *b, int n,
                             int k, int32_t *out) {
  dot_all<int32_t, false>(a, m, b, n, k, out);
}

#ifdef PTO_TILE_X86
/// The same sums with AVX registers (float only: eight int32 lanes need
/// AVX2, and the integer sums are exact anyway).
__attribute__((target("avx"))) inline void
dot_all_avx(const float *a, int m, const float *b, int n, int k, float *out) {
  dot_all<float, true>(a, m, b, n, k, out);
}
#endif

inline void dot_all_fast(const float *a, int m, const float *b, int n, int k,
                         float *out) {
#ifdef PTO_TILE_X86
  if (host_has_avx())
    return dot_all_avx(a, m, b, n, k, out);
#endif
  dot_all_portable(a, m, b, n, k, out);
}

/// The cube's sums for 16-bit float operands (bf16, half). The product of
/// two of them is exact in float (8 + 8 or 11 + 11 significant bits fit in
/// float's 24), so each step is one fused multiply-add: lane l of eight
/// partial sums is fma(row[p], col[p], lane) over the positions p = l mod 8
/// in order, the lanes are added in the fixed tree of `finish_dot`, and the
/// tail is fused too. Where no product leaves float's normal range, these
/// are the bits of `dot_all` (a rounded exact product is the product); the
/// fused form is the cube's own (it rounds at the accumulator, not at the
/// product), and on hosts with FMA it runs one instruction per step, not
/// two. Every form below computes these bits: AVX-512 holds two columns'
/// eight lanes in one register, AVX2 one column's, and the portable form
/// calls std::fma.
///
/// a is in float, m rows of k; b is n columns of k elements of BT (float,
/// bf16 or half), column j at b + j * ldb: the 16-bit forms are converted
/// in registers as they are read (exactly), not in a pass of their own.
template <typename BT>
inline float finish_fused(const float *lanes, const float *row, const BT *col,
                          int kk, int k) {
  float sum = sum_tree8([&](int l) { return lanes[l]; });
  for (; kk < k; ++kk)
    sum = std::fma(row[kk], Elem<BT>::to_f32(col[kk]), sum);
  return sum;
}

/// One dot product, portably.
template <typename BT>
inline float fused_dot(const float *row, const BT *col, int k) {
  float lanes[8] = {};
  int kk = 0;
  for (; kk + 8 <= k; kk += 8)
    for (int l = 0; l < 8; ++l)
      lanes[l] = std::fma(row[kk + l], Elem<BT>::to_f32(col[kk + l]), lanes[l]);
  return finish_fused(lanes, row, col, kk, k);
}

/// out[i * n + j] = the fused dot product of row i of a and column j of b,
/// for the columns [j0, n).
template <typename BT>
inline void dot_all_fused_portable(const float *a, int m, const BT *b,
                                   int64_t ldb, int n, int k, float *out,
                                   int j0 = 0) {
  for (int i = 0; i < m; ++i)
    for (int j = j0; j < n; ++j)
      out[size_t(i) * n + j] = fused_dot(a + size_t(i) * k, b + j * ldb, k);
}

#ifdef PTO_TILE_X86
#define PTO_TILE_FMA_TARGET                                                    \
  __attribute__((target("avx2,fma,f16c"), always_inline))
/// Rows [i, i + R) of a against columns [j, j + 2) of b, one column's eight
/// lanes per register (read as floats by TCVT's f32x8).
template <int R, typename BT>
PTO_TILE_FMA_TARGET inline void fused_block_avx2(const float *a, const BT *b,
                                                 int64_t ldb, int n, int k,
                                                 int i, int j, float *out) {
  const BT *col[2] = {b + j * ldb, b + (j + 1) * ldb};
  __m256 acc[R][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  int kk = 0;
  for (; kk + 8 <= k; kk += 8) {
    const __m256 c0 = f32x8(col[0] + kk), c1 = f32x8(col[1] + kk);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 x = _mm256_loadu_ps(a + size_t(i + r) * k + kk);
      acc[r][0] = _mm256_fmadd_ps(x, c0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(x, c1, acc[r][1]);
    }
  }
  float lanes[8];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < 2; ++c) {
      _mm256_storeu_ps(lanes, acc[r][c]);
      out[size_t(i + r) * n + j + c] =
          finish_fused(lanes, a + size_t(i + r) * k, col[c], kk, k);
    }
}
#undef PTO_TILE_FMA_TARGET

#define PTO_TILE_AVX512_TARGET                                                 \
  __attribute__((target("avx512f,avx512dq"), always_inline))
/// Eight elements of each of two columns as floats, the first column in the
/// low half.
PTO_TILE_AVX512_TARGET inline __m512 load8x2(const float *p, const float *q) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(p)),
                            _mm256_loadu_ps(q), 1);
}
PTO_TILE_AVX512_TARGET inline __m256i load8x2_16(const void *p, const void *q) {
  return _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128(static_cast<const __m128i *>(p))),
      _mm_loadu_si128(static_cast<const __m128i *>(q)), 1);
}
PTO_TILE_AVX512_TARGET inline __m512 load8x2(const bf16 *p, const bf16 *q) {
  // (The masked forms: GCC 12's unmasked ones warn of an uninitialized
  // operand under -Wall.)
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(
      0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, load8x2_16(p, q)), 16));
}
PTO_TILE_AVX512_TARGET inline __m512 load8x2(const f16 *p, const f16 *q) {
  return _mm512_maskz_cvtph_ps(0xffff, load8x2_16(p, q));
}

/// Lane l of the result: the sum of lanes 2l and 2l + 1 of x then y (as
/// one register of 32 lanes).
PTO_TILE_AVX512_TARGET inline __m512 pair_lanes(__m512 x, __m512 y) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                         22, 24, 26, 28, 30),
                odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                        23, 25, 27, 29, 31);
  return _mm512_add_ps(_mm512_permutex2var_ps(x, even, y),
                       _mm512_permutex2var_ps(x, odd, y));
}

/// Rows [i, i + R) of a against columns [j, j + 4) of b: a register holds
/// two columns' eight lanes (columns j, j + 1 and j + 2, j + 3), against
/// the row's eight positions in both halves.
template <int R, typename BT>
PTO_TILE_AVX512_TARGET inline void
fused_block_avx512(const float *a, const BT *b, int64_t ldb, int n, int k,
                   int i, int j, float *out) {
  const BT *col[4] = {b + j * ldb, b + (j + 1) * ldb, b + (j + 2) * ldb,
                      b + (j + 3) * ldb};
  __m512 acc[R][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  int kk = 0;
  for (; kk + 8 <= k; kk += 8) {
    const __m512 c01 = load8x2(col[0] + kk, col[1] + kk),
                 c23 = load8x2(col[2] + kk, col[3] + kk);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_maskz_broadcast_f32x8(
          0xffff, _mm256_loadu_ps(a + size_t(i + r) * k + kk));
      acc[r][0] = _mm512_fmadd_ps(x, c01, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(x, c23, acc[r][1]);
    }
  }
  if constexpr (R % 4 == 0) {
    // The tree of `finish_fused` on whole registers: pairing the even and
    // odd lanes of two registers adds lanes (0, 1), (2, 3), (4, 5), (6, 7)
    // of each dot product, then the pair sums (01, 23) and (45, 67), then
    // the two halves. The first pairing takes a row's two registers, the
    // second two rows, the third two pairs of rows: at the end, lane
    // 4 * r + c holds row r, column c of four rows and four columns.
#pragma GCC unroll 2
    for (int r = 0; r < R; r += 4) {
      const __m512 sums =
          pair_lanes(pair_lanes(pair_lanes(acc[r][0], acc[r][1]),
                                pair_lanes(acc[r + 1][0], acc[r + 1][1])),
                     pair_lanes(pair_lanes(acc[r + 2][0], acc[r + 2][1]),
                                pair_lanes(acc[r + 3][0], acc[r + 3][1])));
      float lanes[16];
      _mm512_storeu_ps(lanes, sums);
      for (int q = 0; q < 4; ++q)
        std::memcpy(out + size_t(i + r + q) * n + j, lanes + 4 * q,
                    4 * sizeof(float));
    }
    for (; kk < k; ++kk) // the tail, after the tree
      for (int r = 0; r < R; ++r)
        for (int c = 0; c < 4; ++c) {
          float &o = out[size_t(i + r) * n + j + c];
          o = std::fma(a[size_t(i + r) * k + kk], Elem<BT>::to_f32(col[c][kk]),
                       o);
        }
  } else {
    float lanes[16];
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < 2; ++c) {
        _mm512_storeu_ps(lanes, acc[r][c]);
        for (int h = 0; h < 2; ++h)
          out[size_t(i + r) * n + j + 2 * c + h] = finish_fused(
              lanes + 8 * h, a + size_t(i + r) * k, col[2 * c + h], kk, k);
      }
  }
}
#undef PTO_TILE_AVX512_TARGET

/// Four rows at a time, then one; the last column, if n is odd, portably.
template <typename BT>
__attribute__((target("avx2,fma,f16c"))) void
dot_all_fused_avx2(const float *a, int m, const BT *b, int64_t ldb, int n,
                   int k, float *out) {
  int j = 0;
  for (; j + 2 <= n; j += 2) {
    int i = 0;
    for (; i + 4 <= m; i += 4)
      fused_block_avx2<4>(a, b, ldb, n, k, i, j, out);
    for (; i < m; ++i)
      fused_block_avx2<1>(a, b, ldb, n, k, i, j, out);
  }
  dot_all_fused_portable(a, m, b, ldb, n, k, out, j);
}

/// Eight rows at a time, then four, then one; the last columns (n mod 4)
/// portably.
template <typename BT>
__attribute__((target("avx512f,avx512dq"))) void
dot_all_fused_avx512(const float *a, int m, const BT *b, int64_t ldb, int n,
                     int k, float *out) {
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    int i = 0;
    for (; i + 8 <= m; i += 8)
      fused_block_avx512<8>(a, b, ldb, n, k, i, j, out);
    for (; i + 4 <= m; i += 4)
      fused_block_avx512<4>(a, b, ldb, n, k, i, j, out);
    for (; i < m; ++i)
      fused_block_avx512<1>(a, b, ldb, n, k, i, j, out);
  }
  dot_all_fused_portable(a, m, b, ldb, n, k, out, j);
}
#endif

template <typename BT>
void dot_all_fused(const float *a, int m, const BT *b, int64_t ldb, int n,
                   int k, float *out) {
#ifdef PTO_TILE_X86
  if (host_has_avx512())
    return dot_all_fused_avx512(a, m, b, ldb, n, k, out);
  if (host_has_fma())
    return dot_all_fused_avx2(a, m, b, ldb, n, k, out);
#endif
  dot_all_fused_portable(a, m, b, ldb, n, k, out);
}

#ifdef PTO_TILE_AVX2_LOOPS
/// The integer sums with eight int32 lanes in one AVX2 register (integer
/// sums are exact: any order gives the same bits).
__attribute__((target("avx2"))) inline void
dot_all_avx2(const int32_t *a, int m, const int32_t *b, int n, int k,
             int32_t *out) {
  dot_all<int32_t, true>(a, m, b, n, k, out);
}
#endif

inline void dot_all_fast(const int32_t *a, int m, const int32_t *b, int n,
                         int k, int32_t *out) {
#if defined(__AVX2__)
  return dot_all<int32_t, true>(a, m, b, n, k, out);
#else
#ifdef PTO_TILE_AVX2_LOOPS
  if (host_has_avx2())
    return dot_all_avx2(a, m, b, n, k, out);
#endif
  dot_all_portable(a, m, b, n, k, out);
#endif
}

/// Operands whose products the cube sums fused (`dot_all_fused`): 16-bit
/// floats, whose products float holds exactly.
template <typename X>
constexpr bool narrow_float_v =
    std::is_same_v<X, bf16> || std::is_same_v<X, f16>;
template <typename X, typename Y>
constexpr bool fused_operands = narrow_float_v<X> &&narrow_float_v<Y>;

template <typename C, typename A, typename B>
void matmul_impl(const char *op, C &c, const A &a, const B &b, bool acc) {
  using CT = typename C::DType;
  const int m = a.rows, k = a.cols, n = b.cols;
  if (b.rows < k)
    fail("%s: a is %dx%d, b has %d valid rows", op, m, k, b.rows);
  if (m > C::Rows || n > C::Cols)
    fail("%s: a %dx%d result in a %dx%d accumulator", op, m, n, C::Rows,
         C::Cols);
  checker().instr(op, Unit::Cube, Pipe::M,
                  {on_chip(a, false), on_chip(b, false), on_chip(c, false),
                   on_chip(c, true)});
  using Acc = std::conditional_t<std::is_same_v<CT, int32_t>, int32_t, float>;
  // The operands in the accumulator type, a by rows and b by columns, then
  // every dot product at once.
  thread_local std::vector<Acc> abuf, bbuf, out;
  abuf.resize(size_t(m) * k);
  out.resize(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk)
      abuf[size_t(i) * k + kk] = static_cast<Acc>(value(a.at(i, kk)));
  constexpr bool fused = fused_operands<typename A::DType, typename B::DType>;
  if constexpr (fused && col_storage(B::layout)) {
    // b's columns as they are stored, converted as the sums read them.
    dot_all_fused(abuf.data(), m, &b.at(0, 0), B::col_step, n, k, out.data());
  } else {
    bbuf.resize(size_t(n) * k);
    vector_loop(n * k, [&] {
      for (int j = 0; j < n; ++j) {
        Acc *col = &bbuf[size_t(j) * k];
        if constexpr (col_storage(B::layout)) {
          const typename B::DType *src = &b.at(0, j);
          for (int kk = 0; kk < k; ++kk)
            col[kk] = static_cast<Acc>(value(src[kk]));
        } else {
          for (int kk = 0; kk < k; ++kk)
            col[kk] = static_cast<Acc>(value(b.at(kk, j)));
        }
      }
    });
    if constexpr (fused)
      dot_all_fused(abuf.data(), m, bbuf.data(), int64_t(k), n, k, out.data());
    else
      dot_all_fast(abuf.data(), m, bbuf.data(), n, k, out.data());
  }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const Acc sum = out[size_t(i) * n + j];
      c.at(i, j) = acc ? static_cast<CT>(c.at(i, j) + sum) : static_cast<CT>(sum);
    }
}
} // namespace detail

/// TMATMUL: c = a * b over a's valid rows and columns and b's valid columns.
template <typename C, typename A, typename B>
void matmul(C &c, const A &a, const B &b) {
  detail::matmul_impl("TMATMUL", c, a, b, false);
}
/// TMATMUL_ACC: c += a * b.
template <typename C, typename A, typename B>
void matmul_acc(C &c, const A &a, const B &b) {
  detail::matmul_impl("TMATMUL_ACC", c, a, b, true);
}
/// TGEMV: c = a * b for one row of a.
template <typename C, typename A, typename B>
void gemv(C &c, const A &a, const B &b) {
  detail::matmul_impl("TGEMV", c, a, b, false);
}

//===----------------------------------------------------------------------===//
// Fused groups of vector instructions
//===----------------------------------------------------------------------===//
//
// A run of element-wise vector instructions over tiles of one valid extent
// (generated code calls tile::fused for it) runs as one loop over sixteen
// columns of a row at a time, its intermediate values in registers: each
// instruction read and wrote whole tiles, and the simulation's time went to
// those loads and stores. The same bits: the lanes compute as the
// instructions do (IEEE float arithmetic with no contraction, the same
// conversions). The group's instructions still run first, in program
// order, for their checks alone (tile::detail::checks_only), so the
// synchronization checker sees exactly the unfused program.

/// Rows of global memory as a fused group's loads (GmRows<const T>) and
/// stores (GmRows<T>) address them: element (r, c) at data[r * stride + c],
/// the operands of the instruction.
template <typename T> struct GmRows {
  T *data;
  int64_t stride;
};

namespace detail {
/// The bytes a group's GmRows covers over its extent: rows of `width`
/// bytes, `stride` apart, from lo to hi.
struct GmSpan {
  uintptr_t lo, hi;
  int64_t width, stride;
  size_t elem;
  bool write;
};
template <typename T> GmSpan span(const GmRows<T> &g, int rows, int cols) {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(g.data);
  const int64_t width = int64_t(cols) * int64_t(sizeof(T)),
                stride = g.stride * int64_t(sizeof(T));
  return {lo,        lo + uintptr_t(int64_t(rows - 1) * stride + width),
          width,     stride,
          sizeof(T), !std::is_const_v<T>};
}
/// Whether two blocks share no byte: their ranges are apart, or their rows
/// interleave (the same stride, b's rows in the gaps of a's, as the two
/// halves of a rotary embedding's heads).
inline bool disjoint(const GmSpan &a, const GmSpan &b) {
  if (a.hi <= b.lo || b.hi <= a.lo)
    return true;
  if (a.stride != b.stride || a.stride <= 0)
    return false;
  const GmSpan &first = a.lo <= b.lo ? a : b, &second = a.lo <= b.lo ? b : a;
  const int64_t at = int64_t((second.lo - first.lo) % uint64_t(a.stride));
  return at >= first.width && at + second.width <= a.stride;
}
/// Whether the lanes may load and store global memory as they go, a row's
/// sixteen columns after another: no block a group stores shares a byte
/// with another it loads or stores unless the two address every element
/// alike (a load and a store in place, where each element is read before
/// it is written, as the instructions read and write it).
inline bool gm_apart(std::initializer_list<GmSpan> spans) {
  for (auto a = spans.begin(); a != spans.end(); ++a)
    for (auto b = std::next(a); b != spans.end(); ++b)
      if ((a->write || b->write) && !disjoint(*a, *b) &&
          !(a->lo == b->lo && a->stride == b->stride && a->elem == b->elem))
        return false;
  return true;
}
} // namespace detail

#ifdef PTO_TILE_X86
/// The attribute of a fused group's lane code, a generic lambda
/// `[&](auto &L, int r, int c) PTO_TILE_FUSED { ... }`.
#define PTO_TILE_FUSED                                                         \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16")))
/// Row16's operations (inlined into the lanes).
#define PTO_TILE_ROW_TARGET                                                    \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"),                 \
                 always_inline)) inline

namespace detail {
/// Sixteen elements of T in a register: int8 ones sign-extended in 32-bit
/// lanes, bf16 and half packed.
template <typename T> struct Reg;
template <> struct Reg<float> { __m512 v; };
template <> struct Reg<int32_t> { __m512i v; };
template <> struct Reg<bf16> { __m256i v; };
template <> struct Reg<int8_t> { __m512i v; };
template <> struct Reg<f16> { __m256i v; };
/// Int32 lanes converted from floats (Row16::to_i32), with the floats.
struct IntOfFloat {
  __m512i v;
  __m512 from;
};
/// Halves converted from int32 lanes (Row16::to_f16), with what those came
/// from (the int32 lanes, or an IntOfFloat): to_i8 narrows that directly.
/// The same bits: an int32's half rounded and clamped to [-128, 127] is
/// the int32 clamped (exact up to 2048 in magnitude; beyond, a half or
/// infinity of the same sign past the bound), without the round trip
/// through float; and the int32 of a float, clamped, is the float clamped
/// to [-128, 127] and rounded (TCVT's int32 saturates, monotonically, and
/// gives 0 for NaN). The compiler drops whichever form no statement uses.
template <typename From> struct HalfOf {
  __m256i v;
  From from;
};
using HalfOfInt = HalfOf<Reg<int32_t>>;

/// Columns [c, c + 16) of row r of a fused group's tiles and global
/// memory. Loads from a tile read all sixteen (a row of a tile whose static
/// columns are whole groups of sixteen: they stay inside it), loads from
/// global memory the `valid` lanes only; stores write the `valid` lanes.
struct Row16 {
  __mmask16 valid;
  /// The group's first column, and the valid columns of every row.
  int c, cols;

  template <typename TileT>
  PTO_TILE_ROW_TARGET Reg<typename TileT::DType> load(const TileT &t, int r,
                                                      int c) const {
    return load16(&t.at(r, c));
  }
  template <typename T>
  PTO_TILE_ROW_TARGET Reg<std::remove_const_t<T>> load(const GmRows<T> &g,
                                                       int r, int c) const {
    const T *p = g.data + r * g.stride + c;
    if (valid == 0xffff)
      return load16(p);
    // The tail of a row: what lies past it may not be there.
    std::remove_const_t<T> tail[16] = {};
    std::memcpy(tail, p, sizeof(T) * size_t(__builtin_popcount(valid)));
    return load16(&tail[0]);
  }
  template <typename TileT>
  PTO_TILE_ROW_TARGET void store(TileT &t, int r, int c,
                                 Reg<typename TileT::DType> x) const {
    store16(&t.at(r, c), x);
  }
  template <typename T>
  PTO_TILE_ROW_TARGET void store(const GmRows<T> &g, int r, int c,
                                 Reg<T> x) const {
    store16(g.data + r * g.stride + c, x);
  }
  template <typename Place, typename From>
  PTO_TILE_ROW_TARGET void store(const Place &t, int r, int c,
                                 HalfOf<From> x) const {
    store(t, r, c, Reg<f16>{x.v});
  }
  template <typename Place>
  PTO_TILE_ROW_TARGET void store(const Place &t, int r, int c,
                                 IntOfFloat x) const {
    store(t, r, c, Reg<int32_t>{x.v});
  }

  /// Sixteen elements from p.
  template <typename T> PTO_TILE_ROW_TARGET Reg<T> load16(const T *p) const {
    __mmask16 all = 0xffff; // (a variable: see exp8_avx512)
    if constexpr (std::is_same_v<T, float>)
      return {_mm512_loadu_ps(p)};
    else if constexpr (std::is_same_v<T, int32_t>)
      return {_mm512_loadu_si512(p)};
    else if constexpr (std::is_same_v<T, bf16>)
      return {_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p))};
    else if constexpr (std::is_same_v<T, int8_t>)
      return {_mm512_maskz_cvtepi8_epi32(
          all, _mm_loadu_si128(reinterpret_cast<const __m128i *>(p)))};
    else
      return {_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p))};
  }
  /// The `valid` lanes of x to p. (A whole group of int8 narrows in a
  /// register and stores plainly: the masked narrowing store took twice as
  /// long.)
  template <typename T> PTO_TILE_ROW_TARGET void store16(T *p, Reg<T> x) const {
    __mmask16 all = 0xffff;
    if constexpr (std::is_same_v<T, float>)
      _mm512_mask_storeu_ps(p, valid, x.v);
    else if constexpr (std::is_same_v<T, int32_t>)
      _mm512_mask_storeu_epi32(p, valid, x.v);
    else if constexpr (std::is_same_v<T, int8_t>) {
      if (valid == 0xffff)
        _mm_storeu_si128(reinterpret_cast<__m128i *>(p),
                         _mm512_maskz_cvtepi32_epi8(all, x.v));
      else
        _mm512_mask_cvtepi32_storeu_epi8(p, valid, x.v);
    } else { // bf16, half: packed
      _mm256_mask_storeu_epi16(p, valid, x.v);
    }
  }
  /// Columns [c, c + 16) of a [1 x C] float tile (a column broadcast).
  template <typename TileT>
  PTO_TILE_ROW_TARGET Reg<float> col(const TileT &t, int c) const {
    return {_mm512_loadu_ps(&t.at(0, c))};
  }
  /// Element r of an [R x 1] float tile in every lane (a row broadcast).
  template <typename TileT>
  PTO_TILE_ROW_TARGET Reg<float> row(const TileT &t, int r) const {
    return {_mm512_set1_ps(t.at(r, 0))};
  }
  template <typename X> PTO_TILE_ROW_TARGET Reg<float> scalar(X x) const {
    return {_mm512_set1_ps(static_cast<float>(value(x)))};
  }

  // The instructions' arithmetic on float: max and min as their
  // `x > y ? x : y` and `x < y ? x : y` (VMAXPS and VMINPS return the
  // second operand on NaN and on equal zeros), abs as fabs. The four
  // operations name their rounding (to nearest even, the default): GCC
  // contracts the plain intrinsics, a product and a sum, into one FMA
  // (-ffp-contract=fast is GNU C++'s default), which rounds once where the
  // instructions round twice.
  PTO_TILE_ROW_TARGET Reg<float> add(Reg<float> x, Reg<float> y) const {
    __mmask16 all = 0xffff;
    return {_mm512_maskz_add_round_ps(all, x.v, y.v, kRoundNearest)};
  }
  PTO_TILE_ROW_TARGET Reg<float> sub(Reg<float> x, Reg<float> y) const {
    __mmask16 all = 0xffff;
    return {_mm512_maskz_sub_round_ps(all, x.v, y.v, kRoundNearest)};
  }
  PTO_TILE_ROW_TARGET Reg<float> mul(Reg<float> x, Reg<float> y) const {
    __mmask16 all = 0xffff;
    return {_mm512_maskz_mul_round_ps(all, x.v, y.v, kRoundNearest)};
  }
  PTO_TILE_ROW_TARGET Reg<float> div(Reg<float> x, Reg<float> y) const {
    __mmask16 all = 0xffff;
    return {_mm512_maskz_div_round_ps(all, x.v, y.v, kRoundNearest)};
  }
  PTO_TILE_ROW_TARGET Reg<float> max(Reg<float> x, Reg<float> y) const {
    __mmask16 all = 0xffff;
    return {_mm512_maskz_max_ps(all, x.v, y.v)};
  }
  PTO_TILE_ROW_TARGET Reg<float> min(Reg<float> x, Reg<float> y) const {
    __mmask16 all = 0xffff;
    return {_mm512_maskz_min_ps(all, x.v, y.v)};
  }
  PTO_TILE_ROW_TARGET Reg<float> abs(Reg<float> x) const {
    return {_mm512_castsi512_ps(_mm512_and_si512(
        _mm512_castps_si512(x.v), _mm512_set1_epi32(0x7fffffff)))};
  }

  // Row reductions (TROWSUM, TROWMAX, TROWMIN) of a group's values, in
  // `slot` (each reduction of a group has its own): each group of sixteen
  // adds to the row's state, and the last writes dst[r, 0] as the
  // instruction does (detail::row_sum, detail::row_extreme), to the bit.
  static constexpr int kSlots = 4; // (the compiler's kMaxFusedReductions)
  /// TROWSUM's lanes: lane l sums x[l], x[l + 8], ... in order.
  __m256 sums[kSlots];
  /// TROWMAX's and TROWMIN's: the extreme of each lane since the row's
  /// last NaN (or its start); whether there is any element since, that NaN,
  /// and the sign of the last zero since.
  __m512 extremes[kSlots];
  bool any[kSlots], last_zero_negative[kSlots];
  float nan[kSlots];

  bool last_group() const { return c + 16 >= cols; }

  template <typename TileT>
  PTO_TILE_ROW_TARGET void rowsum(TileT &dst, int r, int slot, Reg<float> x) {
    __m256 &sum = sums[slot];
    if (valid == 0xffff) {
      __mmask8 all = 0xff; // (a variable: see exp8_avx512)
      // (GCC 12's cast to the low half is an unmasked extract.)
      const __m256 lo = _mm256_castpd_ps(
          _mm512_maskz_extractf64x4_pd(all, _mm512_castps_pd(x.v), 0));
      const __m256 hi = _mm256_castpd_ps(
          _mm512_maskz_extractf64x4_pd(all, _mm512_castps_pd(x.v), 1));
      sum = c == 0 ? _mm256_add_ps(lo, hi)
                   : _mm256_add_ps(_mm256_add_ps(sum, lo), hi);
      if (!last_group())
        return;
      dst.at(r, 0) = finish_sum(sum, nullptr, 0);
      return;
    }
    // The row's last, partial group: a whole eight to the lanes, the rest
    // to the tail.
    alignas(64) float v[16];
    _mm512_store_ps(v, x.v);
    const int n = cols - c;
    int tail = 0;
    if (n >= 8) {
      const __m256 lo = _mm256_load_ps(v);
      sum = c == 0 ? lo : _mm256_add_ps(sum, lo);
      tail = 8;
    }
    if (cols < 8) { // no lanes: the row in order
      float s = v[0];
      for (int k = 1; k < n; ++k)
        s += v[k];
      dst.at(r, 0) = s;
      return;
    }
    dst.at(r, 0) = finish_sum(sum, v + tail, n - tail);
  }
  PTO_TILE_ROW_TARGET static float finish_sum(__m256 sum, const float *tail,
                                              int n) {
    alignas(32) float lane[8];
    _mm256_store_ps(lane, sum);
    return row_sum_finish(lane, tail, n);
  }

  template <typename TileT>
  PTO_TILE_ROW_TARGET void rowmax(TileT &dst, int r, int slot, Reg<float> x) {
    extreme<true>(dst, r, slot, x);
  }
  template <typename TileT>
  PTO_TILE_ROW_TARGET void rowmin(TileT &dst, int r, int slot, Reg<float> x) {
    extreme<false>(dst, r, slot, x);
  }
  /// The fold `acc = acc > x ? acc : x` (Greater) or `<` along the row:
  /// only what follows the last NaN counts (that NaN when it is last), the
  /// extreme value of it, and when that is zero, the last zero.
  template <bool Greater, typename TileT>
  PTO_TILE_ROW_TARGET void extreme(TileT &dst, int r, int slot, Reg<float> x) {
    __m512 &m = extremes[slot];
    const __m512 none = _mm512_set1_ps(Greater ? -INFINITY : INFINITY);
    if (c == 0) {
      m = none;
      any[slot] = false;
    }
    // One test for the rare lanes, NaNs and zeros (VFPCLASSPS: quiet and
    // signalling NaN, +0, -0); the common group is one VMAXPS (VMINPS).
    const __mmask16 rare = _mm512_mask_fpclass_ps_mask(valid, x.v, 0x87);
    __mmask16 counted = valid;
    if (rare) {
      const __mmask16 nans =
          _mm512_mask_cmp_ps_mask(valid, x.v, x.v, _CMP_UNORD_Q);
      if (nans) { // start again after the last
        const int at = 31 - __builtin_clz(unsigned(nans));
        alignas(64) float v[16];
        _mm512_store_ps(v, x.v);
        nan[slot] = v[at];
        m = none;
        any[slot] = false;
        counted &= __mmask16(~((2u << at) - 1));
      }
      const __mmask16 zeros = rare & counted & ~nans;
      if (zeros) {
        const __mmask16 negative = _mm512_cmplt_epi32_mask(
            _mm512_castps_si512(x.v), _mm512_setzero_si512());
        last_zero_negative[slot] =
            (negative >> (31 - __builtin_clz(unsigned(zeros)))) & 1;
      }
    }
    if (counted) {
      // No NaN here, so VMAXPS (VMINPS) is the fold's compare but for the
      // sign of equal zeros, which the last zero decides.
      m = Greater ? _mm512_mask_max_ps(m, counted, m, x.v)
                  : _mm512_mask_min_ps(m, counted, m, x.v);
      any[slot] = true;
    }
    if (!last_group())
      return;
    if (!any[slot]) {
      dst.at(r, 0) = nan[slot];
      return;
    }
    // (Compares are exact: any order of the lanes finds the same value.)
    alignas(64) float lane[16];
    _mm512_store_ps(lane, m);
    float e = lane[0];
    for (int l = 1; l < 16; ++l)
      e = Greater ? (lane[l] > e ? lane[l] : e) : (lane[l] < e ? lane[l] : e);
    if (e == 0.0f)
      e = last_zero_negative[slot] ? -0.0f : 0.0f;
    dst.at(r, 0) = e;
  }

  // TCVT's conversions (rounding to nearest even), those of lanes::.
  PTO_TILE_ROW_TARGET Reg<float> to_f32(Reg<bf16> x) const {
    __mmask16 all = 0xffff;
    return {lanes::bf16_to_f32(_mm512_maskz_cvtepu16_epi32(all, x.v))};
  }
  PTO_TILE_ROW_TARGET Reg<bf16> to_bf16(Reg<float> x) const {
    __mmask16 all = 0xffff;
    return {_mm512_maskz_cvtepi32_epi16(all, lanes::f32_to_bf16(x.v))};
  }
  PTO_TILE_ROW_TARGET IntOfFloat to_i32(Reg<float> x) const {
    return {lanes::f32_to_i32(x.v), x.v};
  }
  PTO_TILE_ROW_TARGET HalfOfInt to_f16(Reg<int32_t> x) const {
    return {lanes::i32_to_f16(x.v), x};
  }
  PTO_TILE_ROW_TARGET HalfOf<IntOfFloat> to_f16(IntOfFloat x) const {
    return {lanes::i32_to_f16(x.v), x};
  }
  PTO_TILE_ROW_TARGET Reg<int8_t> to_i8(Reg<f16> x) const {
    return {lanes::f16_to_i8(x.v)};
  }
  PTO_TILE_ROW_TARGET Reg<int8_t> to_i8(HalfOfInt x) const {
    __mmask16 all = 0xffff;
    return {_mm512_maskz_max_epi32(
        all, _mm512_maskz_min_epi32(all, x.from.v, _mm512_set1_epi32(127)),
        _mm512_set1_epi32(-128))};
  }
  PTO_TILE_ROW_TARGET Reg<int8_t> to_i8(HalfOf<IntOfFloat> x) const {
    __mmask16 all = 0xffff;
    const __m512 f = x.from.from;
    // (A NaN is clamped to -128 here and zeroed by the mask.)
    const __m512 clamped = _mm512_maskz_min_ps(
        all, _mm512_maskz_max_ps(all, f, _mm512_set1_ps(-128.0f)),
        _mm512_set1_ps(127.0f));
    return {_mm512_maskz_cvt_roundps_epi32(_mm512_cmp_ps_mask(f, f, _CMP_ORD_Q),
                                           clamped, kRoundNearest)};
  }
};

/// Row16 on a host with AVX512_BF16: conversions to bf16 by VCVTNEPS2BF16,
/// which rounds to nearest even and quiets a NaN as TCVT does (the top half,
/// bit 6 set) but reads a denormal as zero: a group of sixteen holding one
/// converts as Row16 does.
struct Row16Bf16 : Row16 {
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16"),
                 always_inline)) inline Reg<bf16>
  to_bf16(Reg<float> x) const {
    if (__builtin_expect(_mm512_fpclass_ps_mask(x.v, 0x20) != 0, 0))
      return Row16::to_bf16(x);
    return {reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(x.v))};
  }
};

/// `lanes(L, r, c)` over rows [0, rows) and columns [0, cols) sixteen at a
/// time, inlined into one AVX-512 function.
template <typename Row, typename Body>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16"),
               flatten)) void
run_lanes(int rows, int cols, const Body &body) {
  // A copy of the lambda whose address nothing takes: its captures (tile
  // handles, global memory rows, scalars) stay in registers, where through
  // a reference every store of a lane reloaded them.
  Body lanes = body;
  // One Row16 for the run: its row reductions carry over a row's groups.
  Row L{};
  L.cols = cols;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; c += 16) {
      L.valid = cols - c >= 16 ? __mmask16(0xffff)
                               : __mmask16((1u << (cols - c)) - 1);
      L.c = c;
      lanes(L, r, c);
    }
}

/// checks_only() for a scope.
struct ChecksOnly {
  ChecksOnly() { checks_only() = true; }
  ~ChecksOnly() { checks_only() = false; }
  ChecksOnly(const ChecksOnly &) = delete;
  ChecksOnly &operator=(const ChecksOnly &) = delete;
};
} // namespace detail
#else
#define PTO_TILE_FUSED
#endif

/// A fused group: `instructions()` runs the group's instructions in program
/// order; `lanes(L, r, c)` computes what they compute for columns
/// [c, c + 16) of row r, loads and stores global memory through `gm` (the
/// group's loads and stores) and stores to tiles what the program reads
/// later. Where the host has AVX-512, and the blocks of `gm` are apart
/// (detail::gm_apart), the instructions run for their checks alone and the
/// lanes over `extent`'s valid rows and columns (the group's common
/// extent); elsewhere the instructions run as they are.
template <typename Instructions, typename Extent, typename Body, typename... Gm>
void fused(Instructions &&instructions, const Extent &extent, Body &&lanes,
           const GmRows<Gm> &...gm) {
  static_assert(Extent::Cols % 16 == 0 && !col_storage(Extent::layout),
                "a fused group's rows are whole groups of sixteen elements");
#ifdef PTO_TILE_X86
  // (An empty extent runs the instructions: a group's load of a column's
  // row is stored on chip by the lanes of its first row.)
  if (detail::host_has_avx512() && extent.rows > 0 && extent.cols > 0 &&
      (sizeof...(Gm) < 2 ||
       detail::gm_apart({detail::span(gm, extent.rows, extent.cols)...}))) {
    {
      detail::ChecksOnly checks;
      instructions();
    }
    if (detail::host_has_avx512_bf16())
      detail::run_lanes<detail::Row16Bf16>(extent.rows, extent.cols, lanes);
    else
      detail::run_lanes<detail::Row16>(extent.rows, extent.cols, lanes);
    return;
  }
#else
  (void)extent;
  (void)lanes;
  ((void)gm, ...);
#endif
  instructions();
}

} // namespace tile
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_TILE_HPP
