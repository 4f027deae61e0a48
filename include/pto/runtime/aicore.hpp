// pto/runtime/aicore.hpp - what the AICore form of a wsp program needs on top
// of pto-isa (hw-native-sys/pto-isa): global-memory views of memref blocks,
// loads from a paged cache, cross-core flags between a block's cube and
// vector cores, per-core compilation of each instruction, and the pull of
// a collective's pieces between ranks (pto-isa's TGATHER).
//
// Include <pto/pto-inst.hpp> first. The same source builds for the device
// (one AIC and one AIV compilation), under pto-isa's CPU simulation
// (-D__CPU_SIM) and under its perf-sim cost model (-D__COSTMODEL, with the
// header fixes of scripts/pto-isa/costmodel-fixes.sh). Names here are
// wsp_aicore:: or WSP_ macros: none is one pto-isa declares.
#ifndef PTO_RUNTIME_AICORE_HPP
#define PTO_RUNTIME_AICORE_HPP

#ifndef PTO_INST_HPP
#error "include <pto/pto-inst.hpp> (pto-isa) before pto/runtime/aicore.hpp"
#endif

#include "pto/runtime/float16.hpp"
#include "pto/runtime/hardware.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CPU_SIM) && !defined(__COSTMODEL)
#include "pto/runtime/cross_core.hpp"

#include <memory>
#include <vector>
#endif

#if defined(__COSTMODEL)
// pto-isa's cost model builds its a2a3 instruction implementations from a
// fixed list (pto/common/pto_instr_impl.hpp) that leaves out the four
// below, although its instruction header declares TEXPANDS, TCI,
// TCOLEXPANDSUB and TCOLEXPANDMUL over them; included before the first
// use, they are found.
#include <pto/costmodel/perf_sim/launch.hpp>
#include <pto/npu/a2a3/TCI.hpp>
#include <pto/npu/a2a3/TColExpandMul.hpp>
#include <pto/npu/a2a3/TColExpandSub.hpp>
#include <pto/npu/a2a3/TExpandS.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#endif

// Each instruction is compiled only for the core it runs on: the cube's into
// the AIC build, the vector cores' into the AIV build (WSP_CUBE, WSP_VEC).
// A tile is declared with WSP_CUBE_TILE or WSP_VEC_TILE: on the device only
// where its core's instructions are. pto-isa's cost model defines both cores
// and runs a block's instructions in program order. Its CPU simulation
// (-D__CPU_SIM) runs a mixed kernel's cube and two vector cores as three
// threads of a block (wsp_aicore::launch_mixed): there every instruction
// asks at run time whether its thread is its core, so declarations stay in
// scope on every thread.
#if defined(__CPU_SIM) && !defined(__COSTMODEL)
#define WSP_CUBE(...)                                                          \
  do {                                                                         \
    if (::wsp_aicore::sim_runs(::wsp_aicore::SimCore::cube)) {                 \
      __VA_ARGS__;                                                             \
    }                                                                          \
  } while (0)
#define WSP_VEC(...)                                                           \
  do {                                                                         \
    if (::wsp_aicore::sim_runs(::wsp_aicore::SimCore::vector)) {               \
      __VA_ARGS__;                                                             \
    }                                                                          \
  } while (0)
#define WSP_CUBE_TILE(...) __VA_ARGS__
#define WSP_VEC_TILE(...) __VA_ARGS__
#else
#if defined(__DAV_CUBE__)
#define WSP_CUBE(...) __VA_ARGS__
#else
#define WSP_CUBE(...)
#endif
#if defined(__DAV_VEC__)
#define WSP_VEC(...) __VA_ARGS__
#else
#define WSP_VEC(...)
#endif
#define WSP_CUBE_TILE(...) WSP_CUBE(__VA_ARGS__)
#define WSP_VEC_TILE(...) WSP_VEC(__VA_ARGS__)
#endif

namespace wsp_aicore {

/// The device type of a global-memory element stored as a host struct.
template <typename T> struct device_elem {
  using type = T;
};
template <> struct device_elem<::pto::runtime::bf16> {
  using type = bfloat16_t;
};
template <> struct device_elem<::pto::runtime::f16> {
  using type = half;
};
template <typename G> using device_elem_t = typename device_elem<G>::type;

/// The on-chip buffer a tile of pto-isa's TileType lives in.
template <pto::TileType Loc> constexpr ::pto::runtime::Buffer buffer_of() {
  using ::pto::runtime::Buffer;
  return Loc == pto::TileType::Vec    ? Buffer::UB
         : Loc == pto::TileType::Mat  ? Buffer::L1
         : Loc == pto::TileType::Left ? Buffer::L0A
         : Loc == pto::TileType::Right ? Buffer::L0B
                                       : Buffer::L0C;
}

#if defined(__COSTMODEL)
/// Host memory standing for on-chip buffer `Loc` under the cost model, which
/// reads no tile data but dereferences tile addresses on the scalar side
/// (GetValue/SetValue) and tracks dependences by address. Each of a
/// block's two vector cores has a UB of its own (the same arena would make
/// the model order one core's tiles after the other's).
template <pto::TileType Loc> inline uintptr_t host_buffer() {
  constexpr uintptr_t align = 512; // a fractal box
  constexpr size_t bytes =
      ::pto::runtime::buffer_bytes(buffer_of<Loc>()) + align;
  static std::vector<uint8_t> arenas[2] = {std::vector<uint8_t>(bytes),
                                           std::vector<uint8_t>(bytes)};
  // The model's vector core (not get_subblockid(): a vector-only launch
  // runs each of its blocks alone on its core, CostmodelBlock).
  const int core =
      Loc == pto::TileType::Vec && ::pto::perf_sim::current_subblock_id == 1
          ? 1
          : 0;
  return (reinterpret_cast<uintptr_t>(arenas[core].data()) + align - 1) &
         ~(align - 1);
}
#endif

/// tile.alloc's placement: the tile at byte `offset` of its buffer
/// (TASSIGN). pto-isa's cost model keeps TASSIGN's integer as the tile's
/// host address, so there the offset is placed in a host arena of the
/// buffer's size (distinct per buffer, as on chip).
template <typename TileT> AICORE inline void assign(TileT &t, uint64_t offset) {
#if defined(__COSTMODEL)
  constexpr uint64_t bytes = TileT::Numel * sizeof(typename TileT::DType);
  constexpr ::pto::runtime::Buffer b = buffer_of<TileT::Loc>();
  if (offset + bytes > static_cast<uint64_t>(::pto::runtime::buffer_bytes(b))) {
    std::fprintf(stderr,
                 "wsp_aicore::assign: a tile of %llu bytes at %llu overruns "
                 "%s\n",
                 static_cast<unsigned long long>(bytes),
                 static_cast<unsigned long long>(offset),
                 ::pto::runtime::buffer_name(b));
    std::abort();
  }
  pto::TASSIGN(t, host_buffer<TileT::Loc>() + offset);
#else
  pto::TASSIGN(t, offset);
#endif
}

/// A block of global memory, rows `stride` elements apart (ND), and its
/// transpose (DN: column c at c * stride).
template <typename T>
using GmNd = pto::GlobalTensor<T, pto::Shape<1, 1, 1, pto::DYNAMIC, pto::DYNAMIC>,
                               pto::Stride<1, 1, 1, pto::DYNAMIC, 1>>;
template <typename T>
using GmDn = pto::GlobalTensor<T, pto::Shape<1, 1, 1, pto::DYNAMIC, pto::DYNAMIC>,
                               pto::Stride<1, 1, 1, 1, pto::DYNAMIC>, pto::Layout::DN>;

/// The view of `p` (rows `stride` apart) that a tile's valid extent covers
/// (an lvalue: TLOAD and TSTORE take the view by reference).
template <template <typename> class Gm, typename T, typename TileT, typename G>
AICORE inline Gm<T> view_of(__gm__ G *p, const TileT &t, int64_t stride) {
  return Gm<T>(reinterpret_cast<__gm__ T *>(p),
               typename Gm<T>::Shape(t.GetValidRow(), t.GetValidCol()),
               typename Gm<T>::Stride(stride));
}

/// TLOAD of a tile's valid extent from `p` (rows `stride` apart), or of its
/// transpose (tile column c from row c).
template <typename TileT, typename G>
AICORE inline void load(TileT &t, __gm__ G *p, int64_t stride) {
  using T = typename TileT::DType;
  static_assert(sizeof(T) == sizeof(G), "a load does not convert");
  auto g = view_of<GmNd, T>(p, t, stride);
  pto::TLOAD(t, g);
}
template <typename TileT, typename G>
AICORE inline void load_t(TileT &t, __gm__ G *p, int64_t stride) {
  using T = typename TileT::DType;
  static_assert(sizeof(T) == sizeof(G), "a load does not convert");
  auto g = view_of<GmDn, T>(p, t, stride);
  pto::TLOAD(t, g);
}

/// TSTORE of a tile's valid extent to `p`; from an Acc tile the fixpipe
/// converts to the memory's element type.
template <typename G, typename TileT>
AICORE inline void store(__gm__ G *p, int64_t stride, TileT &t) {
  auto g = view_of<GmNd, device_elem_t<G>>(p, t, stride);
  pto::TSTORE(g, t);
}
template <typename G, typename TileT>
AICORE inline void store_t(__gm__ G *p, int64_t stride, TileT &t) {
  auto g = view_of<GmDn, device_elem_t<G>>(p, t, stride);
  pto::TSTORE(g, t);
}

/// A paged cache: position p is row p % page_size of page table[p /
/// page_size]; pages `page_stride` elements apart from `base` (head offset
/// included), rows `row_stride` apart.
template <typename G> struct Pages {
  __gm__ G *base;
  int64_t page_stride, row_stride, page_size;
  __gm__ const int32_t *table;
  int64_t table_len;
};

/// The byte offset of row `r` (or, transposed, column `c`) of a tile's
/// storage: a whole fractal box row for the cube's layouts, which is why a
/// page segment must start on a multiple of 16 there.
template <typename TileT> AICORE inline uint64_t line_offset(int64_t line) {
  using T = typename TileT::DType;
  if constexpr (TileT::SFractal == pto::SLayout::NoneBox)
    return static_cast<uint64_t>(line) *
           (TileT::isRowMajor ? TileT::Cols : TileT::Rows) * sizeof(T);
  else
    return static_cast<uint64_t>(line) * 32; // 16 lines = one 512-byte box
}

/// Loads positions pos + r (rows, or columns when Transposed) of a paged
/// cache into a tile: one TLOAD per page segment, each into the part of the
/// tile it fills.
template <bool Transposed, typename TileT, typename G>
AICORE inline void load_paged_impl(TileT &t, const Pages<G> &pages,
                                   int64_t pos) {
  const int64_t n = Transposed ? t.GetValidCol() : t.GetValidRow();
  const uint64_t base = reinterpret_cast<uint64_t>(t.data());
  for (int64_t i = 0; i < n;) {
    const int64_t p = pos + i, off = p % pages.page_size;
    const int64_t count = n - i < pages.page_size - off ? n - i
                                                        : pages.page_size - off;
    __gm__ G *row = pages.base + pages.table[p / pages.page_size] * pages.page_stride +
                    off * pages.row_stride;
    TileT part(Transposed ? t.GetValidRow() : static_cast<unsigned>(count),
               Transposed ? static_cast<unsigned>(count) : t.GetValidCol());
    pto::TASSIGN(part, base + line_offset<TileT>(i));
    if constexpr (Transposed)
      load_t(part, row, pages.row_stride);
    else
      load(part, row, pages.row_stride);
    i += count;
  }
}
template <typename TileT, typename G>
AICORE inline void load_paged(TileT &t, const Pages<G> &pages, int64_t pos) {
  load_paged_impl<false>(t, pages, pos);
}
template <typename TileT, typename G>
AICORE inline void load_paged_t(TileT &t, const Pages<G> &pages, int64_t pos) {
  load_paged_impl<true>(t, pages, pos);
}

#if defined(__CPU_SIM) && !defined(__COSTMODEL)
/// The core a thread of pto-isa's CPU simulation stands for. A thread that
/// launch_mixed did not start (the one thread per block of a vector-only or
/// cube-only kernel) is `both` and runs every instruction.
enum class SimCore : uint8_t { both, cube, vector };
inline SimCore &sim_core() {
  thread_local SimCore core = SimCore::both;
  return core;
}
inline bool sim_runs(SimCore c) {
  const SimCore t = sim_core();
  return t == SimCore::both || t == c;
}

/// The flags of the block this thread's core belongs to (null: its cores
/// are not concurrent).
inline ::pto::runtime::CrossCoreFlags *&sim_block() {
  thread_local ::pto::runtime::CrossCoreFlags *block = nullptr;
  return block;
}
inline ::pto::runtime::BlockCore sim_block_core() {
  return sim_core() == SimCore::cube ? ::pto::runtime::BlockCore::cube
                                     : ::pto::runtime::BlockCore::vector;
}

/// Runs `entry` as a mixed kernel on `blocks` blocks, each as three threads
/// of pto-isa's launch: the cube core and two vector cores (get_subblockid()
/// 0 and 1, get_subblockdim() 2) synchronized by the block's
/// CrossCoreFlags.
template <typename Entry>
void launch_mixed(const char *name, int blocks, Entry &&entry) {
  using ::pto::runtime::kVectorCoresPerBlock;
  std::vector<std::unique_ptr<::pto::runtime::CrossCoreFlags>> state;
  for (int b = 0; b < blocks; ++b)
    state.push_back(std::make_unique<::pto::runtime::CrossCoreFlags>(
        static_cast<uint32_t>(b)));
  pto::cpu_sim::KernelLaunchOptions options;
  options.kernel_name = name;
  options.explicit_block_count = static_cast<uint32_t>(blocks);
  options.subblocks_per_block = 1 + kVectorCoresPerBlock;
  options.write_trace_files = false;
  pto::cpu_sim::LaunchKernelMultiCore(options, nullptr, [&] {
    const uint32_t block = get_block_idx(), core = get_subblockid();
    pto::cpu_sim::set_execution_context(block, core == 0 ? 0 : core - 1,
                                        kVectorCoresPerBlock);
    sim_core() = core == 0 ? SimCore::cube : SimCore::vector;
    sim_block() = state[block].get();
    entry();
    sim_core() = SimCore::both;
    sim_block() = nullptr;
  });
  for (auto &block : state)
    block->check_drained();
}
#endif

/// A cross-core flag of the block: `pipe` of the signalling core finished
/// what it issued, so the other core may go on (A2/A3's FFTS, mode 2 =
/// between the cube core and the vector cores of one block). In pto-isa's
/// CPU simulation a block launched by launch_mixed has its CrossCoreFlags;
/// otherwise its cores run on one thread, in program order, and there is
/// nothing to wait for.
AICORE inline void cross_core_set(pipe_t pipe, uint16_t id) {
#if defined(__CPU_SIM) && !defined(__COSTMODEL)
  (void)pipe;
  if (::pto::runtime::CrossCoreFlags *block = sim_block())
    block->set(sim_block_core(), get_subblockid(), id);
#else
  ffts_cross_core_sync(pipe, pto::getFFTSMsg(FFTS_MODE_VAL, id));
#endif
}
AICORE inline void cross_core_wait(uint16_t id) {
#if defined(__CPU_SIM) && !defined(__COSTMODEL)
  if (::pto::runtime::CrossCoreFlags *block = sim_block())
    block->wait(sim_block_core(), get_subblockid(), id);
#else
  wait_flag_dev(id);
#endif
}

#if defined(__COSTMODEL)
/// The cost model's launch: the emitted launch hook runs `launch` (a
/// LAUNCH_KERNEL of one block) once per block, each simulated alone with
/// get_block_idx() answering that block, its reports written to
/// $WSP_COSTMODEL_OUT/<table>/block_NN (default ./perf_sim_output). Blocks
/// share nothing in the model (no global-memory contention), so this is the
/// launch of all blocks; one LAUNCH_KERNEL of many blocks overflows the
/// model's per-core event table on long rows. $WSP_COSTMODEL_BLOCKS, a
/// comma-separated list of block indices, simulates only those (a launch
/// whose blocks get equal shares needs one).
inline int &costmodel_block() {
  static int block = 0;
  return block;
}
/// Whether $WSP_COSTMODEL_BLOCKS (unset: every block) names block `b`.
inline bool costmodel_simulates(int b) {
  const char *list = std::getenv("WSP_COSTMODEL_BLOCKS");
  if (!list || !*list)
    return true;
  for (const char *p = list;;) {
    char *end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (end == p)
      return false;
    if (v == b)
      return true;
    if (*end != ',')
      return false;
    p = end + 1;
  }
}
/// Whether the launch being simulated is of a vector-only kernel.
inline bool &costmodel_vector_only() {
  static bool vector_only = false;
  return vector_only;
}
/// A vector-only kernel's blocks are single vector cores: each is simulated
/// alone on the model's first vector core (AIV0), the second idle. (The
/// model runs the two in turn and puts both cores' scalar instructions on
/// the block's one scalar lane in that order, which would hold the second
/// core's back behind the first's.)
template <typename Launch>
void costmodel_launch(const char *table, int num_blocks, Launch &&launch,
                      bool vector_only = false) {
  const char *out = std::getenv("WSP_COSTMODEL_OUT");
  const std::string base =
      std::string(out && *out ? out : "./perf_sim_output") + "/" + table;
  costmodel_vector_only() = vector_only;
  for (int b = 0; b < num_blocks; ++b) {
    if (!costmodel_simulates(b))
      continue;
    char dir[32];
    std::snprintf(dir, sizeof dir, "/block_%02d", b);
    ::pto::perf_sim::GetConfig().output_dir = base + dir;
    costmodel_block() = b;
    launch();
  }
}
/// Inside the launched function: get_block_idx() is the block being
/// simulated (LAUNCH_KERNEL of one block sets 0); in a vector-only launch
/// the block is one vector core (get_subblockid() 0 of 1), and `idle()` on
/// the model's second.
class CostmodelBlock {
public:
  CostmodelBlock()
      : second_vector_core(costmodel_vector_only() && get_subblockid() == 1),
        ctx(static_cast<uint32_t>(costmodel_block()),
            costmodel_vector_only() ? 0 : get_subblockid(),
            costmodel_vector_only() ? 1 : get_subblockdim()) {}
  bool idle() const { return second_vector_core; }

private:
  bool second_vector_core;
  pto::cpu_sim::ScopedExecutionContext ctx;
};
#endif

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// The bytes of a collective, moved on the AICore (pto/runtime/
/// collectives.hpp's GatherFn; the device form's AICPU code installs it):
/// piece p, `bytes` from sends[p], into recv at p * bytes, by pto-isa's
/// TGATHER (pto/comm) with the calling rank's piece as the group's root,
/// which pulls every piece. In words of four bytes where the pieces have
/// them. The ranks have agreed on the call before and wait for each other
/// after: the pull needs no signal of its own. On an NPU the sends are
/// the ranks' addresses in the group's shared windows (HCCL), which the
/// device integration supplies; in pto-isa's CPU simulation the ranks are
/// threads of one process. pto-isa's cost model has no communication
/// instructions: there the pieces are copied.
template <typename W>
void gather_words(const void *const *sends, void *recv, int64_t words,
                  int32_t pieces, int32_t self) {
#if !defined(__COSTMODEL) && !defined(PTO_COMM_NOT_SUPPORTED)
  using Sizes = pto::Shape<pto::DYNAMIC, pto::DYNAMIC, pto::DYNAMIC,
                           pto::DYNAMIC, pto::DYNAMIC>;
  using Strides = pto::Stride<pto::DYNAMIC, pto::DYNAMIC, pto::DYNAMIC,
                              pto::DYNAMIC, pto::DYNAMIC>;
  using Words = pto::GlobalTensor<W, Sizes, Strides>;
  using Staging = pto::Tile<pto::TileType::Vec, W, 1, 256 / sizeof(W),
                            pto::BLayout::RowMajor, -1, -1>;
  Staging staging(1, 256 / int(sizeof(W)));
  TASSIGN(staging, 0x0);
  // A group of at most kMaxGroup pieces at a time (the group's tensors
  // live here; HCCL's rank limit); pto-isa indexes a gather's elements with
  // int, so a larger piece goes alone, in chunks.
  constexpr int32_t kMaxGroup = 64;
  constexpr int64_t kChunk = int64_t(1) << 30;
  Words group[kMaxGroup];
  if (words * kMaxGroup <= kChunk) {
    for (int32_t p0 = 0; p0 < pieces; p0 += kMaxGroup) {
      const int32_t n = std::min(kMaxGroup, pieces - p0);
      for (int32_t p = 0; p < n; ++p)
        group[p] = Words(static_cast<W *>(const_cast<void *>(sends[p0 + p])),
                         Sizes(1, 1, 1, 1, words),
                         Strides(words, words, words, words, 1));
      const int64_t total = words * n;
      Words rows(static_cast<W *>(recv) + p0 * words, Sizes(1, 1, 1, n, words),
                 Strides(total, total, total, words, 1));
      const int32_t root = self >= p0 && self < p0 + n ? self - p0 : 0;
      pto::comm::ParallelGroup<Words> pg(group, n, root);
      pto::comm::TGATHER(pg, rows, staging);
    }
    return;
  }
  for (int32_t p = 0; p < pieces; ++p)
    for (int64_t at = 0; at < words; at += kChunk) {
      const int64_t n = std::min(kChunk, words - at);
      group[0] = Words(static_cast<W *>(const_cast<void *>(sends[p])) + at,
                       Sizes(1, 1, 1, 1, n), Strides(n, n, n, n, 1));
      Words into(static_cast<W *>(recv) + p * words + at, Sizes(1, 1, 1, 1, n),
                 Strides(n, n, n, n, 1));
      pto::comm::ParallelGroup<Words> pg(group, 1, 0);
      pto::comm::TGATHER(pg, into, staging);
    }
#else
  (void)self;
  for (int32_t p = 0; p < pieces; ++p)
    std::memcpy(static_cast<W *>(recv) + p * words, sends[p],
                size_t(words) * sizeof(W));
#endif
}
inline void gather_pieces(const void *const *sends, void *recv, uint64_t bytes,
                          int32_t pieces, int32_t self) {
  if (bytes % 4 == 0)
    gather_words<uint32_t>(sends, recv, int64_t(bytes / 4), pieces, self);
  else
    gather_words<uint8_t>(sends, recv, int64_t(bytes), pieces, self);
}

} // namespace wsp_aicore

#endif // PTO_RUNTIME_AICORE_HPP
