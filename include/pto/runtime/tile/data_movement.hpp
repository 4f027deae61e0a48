// pto/runtime/tile/data_movement.hpp - data movement in the tile simulation
// (pto/runtime/tile.hpp): global memory <-> tiles (TLOAD, paged loads,
// TSTORE, the traffic counters) and on-chip moves and conversions (TMOV,
// TEXTRACT, TTRANS).
#ifndef PTO_RUNTIME_TILE_DATA_MOVEMENT_HPP
#define PTO_RUNTIME_TILE_DATA_MOVEMENT_HPP

#include "pto/runtime/tile/types.hpp"
#include "pto/runtime/tile/sync.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace pto {
namespace runtime {
namespace tile {

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

//===----------------------------------------------------------------------===//
// Checked places in global memory
//===----------------------------------------------------------------------===//

/// The most dimensions a memref a tile loads or stores has.
constexpr int kMaxGmRank = 8;

/// Where a tile load or store meets a memref: its element at `index`, rows
/// `stride` elements apart (the last size; 0 for a rank-1 memref, whose one
/// row a load may repeat), and the memref's sizes, which the instruction
/// checks its extent against (a KernelFault before any access, never a
/// read or write past the memref). Generated code makes one with at().
template <typename T> struct GmAt {
  T *base;
  int64_t offset, stride;
  int rank;
  int64_t index[kMaxGmRank], size[kMaxGmRank];
  T *data() const { return base + offset; }
};

/// The element of a memref view (any type with `data` and `sizes[Rank]`,
/// as generated code's MemRef) at `index`, one per dimension.
template <typename M, typename... I>
auto at(const M &m, I... index) -> GmAt<std::remove_reference_t<decltype(*m.data)>> {
  constexpr int rank = static_cast<int>(sizeof...(I));
  static_assert(rank >= 1 && rank <= kMaxGmRank &&
                    rank == std::extent_v<decltype(m.sizes)>,
                "one index per dimension of the memref");
  GmAt<std::remove_reference_t<decltype(*m.data)>> g{m.data, 0, 0, rank, {}, {}};
  const int64_t indices[] = {static_cast<int64_t>(index)...};
  for (int d = 0; d < rank; ++d) {
    g.index[d] = indices[d];
    g.size[d] = m.sizes[d];
    g.offset = d == 0 ? indices[0] : g.offset * m.sizes[d] + indices[d];
  }
  g.stride = rank >= 2 ? m.sizes[rank - 1] : 0;
  return g;
}

namespace detail {
/// "[a, b, c]" of n values.
inline void print_list(char *out, size_t n, const int64_t *v, int count) {
  size_t used = static_cast<size_t>(std::snprintf(out, n, "["));
  for (int i = 0; i < count && used < n; ++i)
    used += static_cast<size_t>(std::snprintf(out + used, n - used, "%s%lld",
                                              i ? ", " : "",
                                              static_cast<long long>(v[i])));
  if (used < n)
    std::snprintf(out + used, n - used, "]");
}

/// Faults unless `lines` rows of `width` elements from `g` lie inside the
/// memref: every index names an element, and
///  * several rows: the columns lie inside the last dimension (rows wider
///    than the memref's would overlap), and the rows inside the memref's
///    rows (the product of every size but the last: a tile's rows may run
///    on from one index of the dimensions before the last into the next, as
///    a [q_len x group] tile of the heads of consecutive tokens does);
///  * one row (a rank-1 memref's row may repeat): a contiguous run of
///    `width` elements inside the memref (it may run on past the last
///    dimension, as a column of per-head values stored as one run does).
/// `rows` x `cols` is the tile's extent, for the message.
template <typename T>
void check_gm(const GmAt<T> &g, const char *instr, int64_t lines,
              int64_t width, int rows, int cols) {
  if (lines <= 0 || width <= 0)
    return;
  const int r = g.rank;
  bool inside = true;
  int64_t row = 0, total_rows = 1; // the first row, of how many
  for (int d = 0; d < r; ++d) {
    inside = inside && g.index[d] >= 0 && g.index[d] < g.size[d];
    if (d + 1 < r) {
      row = row * g.size[d] + g.index[d];
      total_rows *= g.size[d];
    }
  }
  if (lines > 1 && r >= 2)
    inside = inside && g.index[r - 1] <= g.size[r - 1] - width &&
             row <= total_rows - lines;
  else
    inside = inside && g.offset <= total_rows * g.size[r - 1] - width;
  if (inside)
    return;
  char at[160], sizes[160];
  print_list(at, sizeof at, g.index, r);
  print_list(sizes, sizeof sizes, g.size, r);
  fault("%s of a %dx%d tile at %s of a memref of sizes %s: out of bounds",
        instr, rows, cols, at, sizes);
}
} // namespace detail

/// TLOAD from a checked place (at()): a fault, nothing read, when the valid
/// extent does not lie inside the memref.
template <typename TileT>
void load(TileT &dst, const GmAt<typename TileT::DType> &gm) {
  detail::check_gm(gm, "TLOAD", dst.rows, dst.cols, dst.rows, dst.cols);
  detail::load_lines<false>(dst, gm.data(), gm.stride);
}

/// TLOAD of a DN block from a checked place: the tile's columns are the
/// memref's rows.
template <typename TileT>
void load_t(TileT &dst, const GmAt<typename TileT::DType> &gm) {
  detail::check_gm(gm, "TLOAD", dst.cols, dst.rows, dst.rows, dst.cols);
  detail::load_lines<true>(dst, gm.data(), gm.stride);
}

/// A paged cache: position p is row p % page_size of page table[p /
/// page_size]; pages are `page_stride` elements apart from `base` (which
/// includes the head offset) and rows `row_stride` apart.
template <typename T> struct Pages {
  const T *base;
  int64_t page_stride, row_stride, page_size;
  const int32_t *table; // the sequence's row of the page table
  int64_t table_len;    // entries in that row
  int64_t num_pages = -1; // pages in the cache (-1: not checked)
};

/// The pages of row `row` of page table `table` in `cache` ([pages,
/// page_size, cols], or [pages, heads, page_size, cols] and head `head`):
/// memref views as generated code's MemRef. A row or head outside its
/// dimension is a fault; a page id outside the cache faults when a load
/// reaches it.
template <typename Cache, typename Table>
auto pages(const Cache &cache, const Table &table, int64_t row,
           int64_t head = 0) -> Pages<std::remove_const_t<
    std::remove_reference_t<decltype(*cache.data)>>> {
  constexpr int rank = static_cast<int>(std::extent_v<decltype(cache.sizes)>);
  static_assert(rank == 3 || rank == 4, "a paged cache has 3 or 4 dimensions");
  static_assert(std::extent_v<decltype(table.sizes)> == 2,
                "a page table has 2 dimensions");
  const int64_t heads = rank == 4 ? cache.sizes[1] : 1;
  if (row < 0 || row >= table.sizes[0])
    detail::fault("a paged load through row %lld of a page table of %lld "
                  "rows: out of bounds",
                  static_cast<long long>(row),
                  static_cast<long long>(table.sizes[0]));
  if (head < 0 || head >= heads)
    detail::fault("a paged load of head %lld of a cache of %lld heads: out "
                  "of bounds",
                  static_cast<long long>(head), static_cast<long long>(heads));
  const int64_t page_size = cache.sizes[rank - 2], cols = cache.sizes[rank - 1];
  const int64_t page_elems = page_size * cols; // one page of one head
  return {cache.data + head * page_elems, heads * page_elems, cols,
          page_size, table.data + row * table.sizes[1], table.sizes[1],
          cache.sizes[0]};
}

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
      fault("a paged load of position %lld beyond the page table (%lld "
            "pages)",
            static_cast<long long>(p), static_cast<long long>(pages.table_len));
    const int32_t page = pages.table[slot];
    if (page < 0 || (pages.num_pages >= 0 && page >= pages.num_pages))
      fault("a paged load of position %lld reads page %d of a cache of %lld "
            "pages",
            static_cast<long long>(p), page,
            static_cast<long long>(pages.num_pages));
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

/// TSTORE to a checked place (at()): a fault, nothing written, when the
/// valid extent does not lie inside the memref.
template <typename G, typename TileT>
void store(const GmAt<G> &gm, const TileT &src) {
  detail::check_gm(gm, "TSTORE", src.rows, src.cols, src.rows, src.cols);
  store(gm.data(), gm.stride, src);
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

/// TSTORE of a DN tile to a checked place: the tile's columns are the
/// memref's rows.
template <typename G, typename TileT>
void store_t(const GmAt<G> &gm, const TileT &src) {
  detail::check_gm(gm, "TSTORE", src.cols, src.rows, src.rows, src.cols);
  store_t(gm.data(), gm.stride, src);
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

} // namespace tile
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_TILE_DATA_MOVEMENT_HPP
