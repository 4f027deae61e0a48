// pto/runtime/tile/types.hpp - the foundations of the tile simulation
// (pto/runtime/tile.hpp): locations, layouts and pipes, elements and their
// conversions, what the host's vector units can run (PTO_TILE_X86,
// PTO_TILE_AVX2_LOOPS, detail::vector_loop), the error handler, the on-chip
// buffers of the running core, tiles, and the detail helpers several
// instruction families share (check_valid, TCVT's AVX2 and AVX-512 lane
// conversions, the fixed tree of eight partial sums).
#ifndef PTO_RUNTIME_TILE_TYPES_HPP
#define PTO_RUNTIME_TILE_TYPES_HPP

#include "pto/runtime/float16.hpp"
#include "pto/runtime/hardware.hpp"
#include "pto/runtime/sim_core.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
// x86 with GCC's or clang's builtins: instructions beyond the baseline in
// functions compiled for them, chosen by what the host has (below). Not
// under ThreadSanitizer, which does not see an access wider than 16 bytes
// (an AVX load or store of global memory would race unseen): there the
// portable code runs, every access of which it checks (scripts/tsan.sh).
#if defined(__SANITIZE_THREAD__)
#define PTO_TILE_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PTO_TILE_UNDER_TSAN 1
#endif
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&       \
    !defined(PTO_TILE_UNDER_TSAN)
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
#else
  (void)elements;
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
/// install their own. One for the process (atomic: a core may fail on one
/// thread while another installs a handler).
using ErrorHandler = void (*)(const char *message);
namespace detail {
inline void default_error(const char *message) {
  std::fprintf(stderr, "tile simulation: %s\n", message);
  std::fflush(stderr);
  std::abort();
}
inline std::atomic<ErrorHandler> &error_handler() {
  static std::atomic<ErrorHandler> handler{&default_error};
  return handler;
}
template <typename... Args> void fail(const char *fmt, Args... args) {
  char message[512];
  std::snprintf(message, sizeof message, fmt, args...);
  error_handler().load()(message);
}
/// A kernel fault: a run-time input (an index, a page id, a size) would
/// take an instruction out of its memory. Unlike fail() (a rule of the
/// hardware broken: the compiler's bug), this is the input's: the core
/// stops before the access, and its launch reports it (sim::fault()).
template <typename... Args>
[[noreturn]] void fault(const char *fmt, Args... args) {
  char message[512];
  std::snprintf(message, sizeof message, fmt, args...);
  throw ::pto::runtime::sim::KernelFault(message);
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
// Helpers several instruction families share
//===----------------------------------------------------------------------===//

// The valid-extent check of every instruction family (from the loads and
// stores), TCVT's conversions in AVX2 and AVX-512 registers (the cube reads
// 16-bit operands through f32x8, fused groups convert through lanes::),
// and the fixed tree of eight partial sums (the cube, TROWSUM and the
// fused rowsum).
namespace detail {
template <typename TileT> void check_valid(const TileT &t, const char *op) {
  if (t.rows < 0 || t.rows > TileT::Rows || t.cols < 0 || t.cols > TileT::Cols)
    fail("%s: a %dx%d tile with a valid extent of %dx%d", op, TileT::Rows,
         TileT::Cols, t.rows, t.cols);
}
} // namespace detail

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
/// f32 to i16 (in 32-bit lanes): rounded to nearest even, clamped to
/// [-32768, 32767], 0 for NaN (saturate_round<int16_t>: the bounds are
/// integers, so clamping before rounding gives the same).
PTO_TILE_LANES_TARGET __m512i f32_to_i16(__m512 x) {
  __mmask16 all = 0xffff;
  const __m512 clamped = _mm512_maskz_min_ps(
      all, _mm512_maskz_max_ps(all, x, _mm512_set1_ps(-32768.0f)),
      _mm512_set1_ps(32767.0f));
  const __mmask16 number = _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q);
  return _mm512_maskz_cvt_roundps_epi32(number, clamped, kRoundNearest);
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
} // namespace detail
#endif

namespace detail {
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
} // namespace detail

} // namespace tile
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_TILE_TYPES_HPP
