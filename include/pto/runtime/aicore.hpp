// pto/runtime/aicore.hpp - what the AICore form of a wsp program needs on top
// of pto-isa (hw-native-sys/pto-isa): global-memory views of memref blocks,
// loads from a paged cache, cross-core flags between a block's cube and
// vector cores, and per-core compilation of each instruction.
//
// Include <pto/pto-inst.hpp> first. The same source builds for the device
// (one AIC and one AIV compilation), under pto-isa's CPU simulation
// (-D__CPU_SIM) and under its cost model (-D__COSTMODEL). Names here are
// wsp_aicore:: or WSP_ macros: none is one pto-isa declares.
#ifndef PTO_RUNTIME_AICORE_HPP
#define PTO_RUNTIME_AICORE_HPP

#ifndef PTO_INST_HPP
#error "include <pto/pto-inst.hpp> (pto-isa) before pto/runtime/aicore.hpp"
#endif

#include "pto/runtime/float16.hpp"

#include <type_traits>

// Each instruction is compiled only for the core it runs on: the cube's into
// the AIC build, the vector cores' into the AIV build. pto-isa's CPU
// simulation and cost model define both and run a block's instructions in
// program order.
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

/// A block of global memory, rows `stride` elements apart (ND), and its
/// transpose (DN: column c at c * stride).
template <typename T>
using GmNd = pto::GlobalTensor<T, pto::Shape<1, 1, 1, pto::DYNAMIC, pto::DYNAMIC>,
                               pto::Stride<1, 1, 1, pto::DYNAMIC, 1>>;
template <typename T>
using GmDn = pto::GlobalTensor<T, pto::Shape<1, 1, 1, pto::DYNAMIC, pto::DYNAMIC>,
                               pto::Stride<1, 1, 1, 1, pto::DYNAMIC>, pto::Layout::DN>;

template <typename Gm, typename T>
AICORE inline Gm gm_view(__gm__ T *p, unsigned rows, unsigned cols,
                         int64_t stride) {
  return Gm(p, typename Gm::Shape(rows, cols), typename Gm::Stride(stride));
}

/// TLOAD of a tile's valid extent from `p` (rows `stride` apart), or of its
/// transpose (tile column c from row c).
template <typename TileT, typename G>
AICORE inline void load(TileT &t, __gm__ G *p, int64_t stride) {
  using T = typename TileT::DType;
  static_assert(sizeof(T) == sizeof(G), "a load does not convert");
  auto g = gm_view<GmNd<T>>(reinterpret_cast<__gm__ T *>(p), t.GetValidRow(),
                            t.GetValidCol(), stride);
  pto::TLOAD(t, g);
}
template <typename TileT, typename G>
AICORE inline void load_t(TileT &t, __gm__ G *p, int64_t stride) {
  using T = typename TileT::DType;
  static_assert(sizeof(T) == sizeof(G), "a load does not convert");
  auto g = gm_view<GmDn<T>>(reinterpret_cast<__gm__ T *>(p), t.GetValidRow(),
                            t.GetValidCol(), stride);
  pto::TLOAD(t, g);
}

/// TSTORE of a tile's valid extent to `p`; from an Acc tile the fixpipe
/// converts to the memory's element type.
template <typename G, typename TileT>
AICORE inline void store(__gm__ G *p, int64_t stride, TileT &t) {
  using T = device_elem_t<G>;
  auto g = gm_view<GmNd<T>>(reinterpret_cast<__gm__ T *>(p), t.GetValidRow(),
                            t.GetValidCol(), stride);
  pto::TSTORE(g, t);
}
template <typename G, typename TileT>
AICORE inline void store_t(__gm__ G *p, int64_t stride, TileT &t) {
  using T = device_elem_t<G>;
  auto g = gm_view<GmDn<T>>(reinterpret_cast<__gm__ T *>(p), t.GetValidRow(),
                            t.GetValidCol(), stride);
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

/// A cross-core flag of the block: `pipe` of the signalling core finished
/// what it issued, so the other core may go on (A2/A3's FFTS, mode 2 =
/// between the cube core and the vector cores of one block). pto-isa's CPU
/// simulation runs a block's cores in program order: nothing to wait for.
AICORE inline void cross_core_set(pipe_t pipe, uint16_t id) {
#if defined(__CPU_SIM) && !defined(__COSTMODEL)
  (void)pipe;
  (void)id;
#else
  ffts_cross_core_sync(pipe, pto::getFFTSMsg(FFTS_MODE_VAL, id));
#endif
}
AICORE inline void cross_core_wait(uint16_t id) {
#if defined(__CPU_SIM) && !defined(__COSTMODEL)
  (void)id;
#else
  wait_flag_dev(id);
#endif
}

} // namespace wsp_aicore

#endif // PTO_RUNTIME_AICORE_HPP
