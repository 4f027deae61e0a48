// pto/runtime/tile/fused.hpp - fused groups of vector instructions in the
// tile simulation (pto/runtime/tile.hpp): GmRows, the AVX-512 lanes a group
// runs in (Row16, run_lanes, PTO_TILE_FUSED) and tile::fused.
#ifndef PTO_RUNTIME_TILE_FUSED_HPP
#define PTO_RUNTIME_TILE_FUSED_HPP

#include "pto/runtime/tile/reductions.hpp"
#include "pto/runtime/tile/sync.hpp"
#include "pto/runtime/tile/types.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>

namespace pto {
namespace runtime {
namespace tile {

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
template <> struct Reg<int16_t> { __m256i v; };
/// Int32 lanes converted from floats (Row16::to_i32), with the floats.
struct IntOfFloat {
  __m512i v;
  __m512 from;
};
/// Int16 lanes converted from floats (Row16::to_i16; in 32-bit lanes),
/// with the floats: an IntOfFloat whose values are int16's, which only
/// its store needs to know (its half and int8 are an IntOfFloat's).
struct ShortOfFloat : IntOfFloat {};
/// Halves converted from int32 lanes (Row16::to_f16), with what those came
/// from (the int32 lanes, or an IntOfFloat): to_i8 narrows that directly.
/// The same bits: an int32's half rounded and clamped to [-128, 127] is
/// the int32 clamped (exact up to 2048 in magnitude; beyond, a half or
/// infinity of the same sign past the bound), without the round trip
/// through float; and the int32 of a float, clamped, is the float clamped
/// to [-128, 127] and rounded (TCVT's int32 saturates, monotonically, and
/// gives 0 for NaN). The compiler drops whichever form no statement uses.
/// An int16 (of a float, or loaded) is handled as an int32 is.
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
  template <typename Place>
  PTO_TILE_ROW_TARGET void store(const Place &t, int r, int c,
                                 ShortOfFloat x) const {
    __mmask16 all = 0xffff;
    store(t, r, c, Reg<int16_t>{_mm512_maskz_cvtepi32_epi16(all, x.v)});
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
      sum16(dst, r, slot, x, c == 0, last_group());
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
  /// A whole group of sixteen into the sum in `slot`: the first group of a
  /// row (or piece) starts it, the last writes its tree to dst[row, 0].
  template <typename TileT>
  PTO_TILE_ROW_TARGET void sum16(TileT &dst, int row, int slot, Reg<float> x,
                                 bool first, bool last) {
    __m256 &sum = sums[slot];
    __mmask8 all = 0xff; // (a variable: see exp8_avx512)
    // (GCC 12's cast to the low half is an unmasked extract.)
    const __m256 lo = _mm256_castpd_ps(
        _mm512_maskz_extractf64x4_pd(all, _mm512_castps_pd(x.v), 0));
    const __m256 hi = _mm256_castpd_ps(
        _mm512_maskz_extractf64x4_pd(all, _mm512_castps_pd(x.v), 1));
    sum = first ? _mm256_add_ps(lo, hi)
                : _mm256_add_ps(_mm256_add_ps(sum, lo), hi);
    if (last)
      dst.at(row, 0) = tree8(sum);
  }
  /// detail::sum_tree8 of the eight lanes, in registers (a sum is
  /// commutative, so each pair's two orders give the same bits).
  PTO_TILE_ROW_TARGET static float tree8(__m256 sum) {
    const __m256 pairs = _mm256_add_ps(sum, _mm256_permute_ps(sum, 0xb1));
    const __m256 quads = _mm256_add_ps(pairs, _mm256_permute_ps(pairs, 0x4e));
    return _mm_cvtss_f32(_mm_add_ss(_mm256_castps256_ps128(quads),
                                    _mm256_extractf128_ps(quads, 1)));
  }
  PTO_TILE_ROW_TARGET static float finish_sum(__m256 sum, const float *tail,
                                              int n) {
    alignas(32) float lane[8];
    _mm256_store_ps(lane, sum);
    return row_sum_finish(lane, tail, n);
  }

  template <typename TileT>
  PTO_TILE_ROW_TARGET void rowmax(TileT &dst, int r, int slot, Reg<float> x) {
    extreme<true>(dst, r, slot, x, c == 0, last_group());
  }
  template <typename TileT>
  PTO_TILE_ROW_TARGET void rowmin(TileT &dst, int r, int slot, Reg<float> x) {
    extreme<false>(dst, r, slot, x, c == 0, last_group());
  }
  /// The fold `acc = acc > x ? acc : x` (Greater) or `<` along the row:
  /// only what follows the last NaN counts (that NaN when it is last), the
  /// extreme value of it, and when that is zero, the last zero. The first
  /// group of a row (or piece) starts it, the last writes dst[row, 0].
  template <bool Greater, typename TileT>
  PTO_TILE_ROW_TARGET void extreme(TileT &dst, int row, int slot, Reg<float> x,
                                   bool first, bool last) {
    __m512 &m = extremes[slot];
    const __m512 none = _mm512_set1_ps(Greater ? -INFINITY : INFINITY);
    if (first) {
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
    if (!last)
      return;
    if (!any[slot]) {
      dst.at(row, 0) = nan[slot];
      return;
    }
    // (Compares are exact: any order of the lanes finds the same value;
    // no lane holds a NaN.)
    float e = reduce_extreme<Greater>(m);
    if (e == 0.0f)
      e = last_zero_negative[slot] ? -0.0f : 0.0f;
    dst.at(row, 0) = e;
  }

  /// The extreme of sixteen lanes holding no NaN (compares are exact, so
  /// in any order). (GCC 12's _mm512_reduce_max_ps reads an undefined
  /// register: masked extracts instead, as in rowsum.)
  template <bool Greater>
  PTO_TILE_ROW_TARGET static float reduce_extreme(__m512 m) {
    __mmask8 all = 0xff;
    const __m256 lo = _mm256_castpd_ps(
        _mm512_maskz_extractf64x4_pd(all, _mm512_castps_pd(m), 0));
    const __m256 hi = _mm256_castpd_ps(
        _mm512_maskz_extractf64x4_pd(all, _mm512_castps_pd(m), 1));
    __m128 q;
    if constexpr (Greater) {
      const __m256 h = _mm256_max_ps(lo, hi);
      q = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
      q = _mm_max_ps(q, _mm_movehl_ps(q, q));
      q = _mm_max_ps(q, _mm_shuffle_ps(q, q, 1));
    } else {
      const __m256 h = _mm256_min_ps(lo, hi);
      q = _mm_min_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
      q = _mm_min_ps(q, _mm_movehl_ps(q, q));
      q = _mm_min_ps(q, _mm_shuffle_ps(q, q, 1));
    }
    return _mm_cvtss_f32(q);
  }

  // A row reduction in k pieces of `piece` columns (tile-fold-row-
  // reductions' two steps), to the bit as the two instructions compute it:
  // the first reduces piece p of row r as a row of the pieces' view into
  // partials[r * k + p, 0]; the second, at the row's last group, reduces
  // the row's k partials as a row of the [rows x k] view
  // (detail::row_sum, detail::row_extreme).
  template <typename TileT>
  PTO_TILE_ROW_TARGET void rowsum_pieces(TileT &partials, int r, int slot,
                                         Reg<float> x, int k, int piece) {
    const int at = c % piece; // (pieces are whole groups)
    sum16(partials, r * k + c / piece, slot, x, at == 0, at + 16 == piece);
  }
  template <typename TileT>
  PTO_TILE_ROW_TARGET void rowmax_pieces(TileT &partials, int r, int slot,
                                         Reg<float> x, int k, int piece) {
    extreme_pieces<true>(partials, r, slot, x, k, piece);
  }
  template <typename TileT>
  PTO_TILE_ROW_TARGET void rowmin_pieces(TileT &partials, int r, int slot,
                                         Reg<float> x, int k, int piece) {
    extreme_pieces<false>(partials, r, slot, x, k, piece);
  }
  template <bool Greater, typename TileT>
  PTO_TILE_ROW_TARGET void extreme_pieces(TileT &partials, int r, int slot,
                                          Reg<float> x, int k, int piece) {
    const int at = c % piece; // (pieces are whole groups)
    extreme<Greater>(partials, r * k + c / piece, slot, x, at == 0,
                     at + 16 == piece);
  }

  template <typename TileT, typename PartialsT>
  PTO_TILE_ROW_TARGET void rowsum_of_pieces(TileT &dst, int r,
                                            const PartialsT &partials, int k) {
    if (last_group())
      dst.at(r, 0) = row_sum(&partials.at(r * k, 0), k);
  }
  template <typename TileT, typename PartialsT>
  PTO_TILE_ROW_TARGET void rowmax_of_pieces(TileT &dst, int r,
                                            const PartialsT &partials, int k) {
    if (last_group())
      dst.at(r, 0) = row_extreme<true>(&partials.at(r * k, 0), k);
  }
  template <typename TileT, typename PartialsT>
  PTO_TILE_ROW_TARGET void rowmin_of_pieces(TileT &dst, int r,
                                            const PartialsT &partials, int k) {
    if (last_group())
      dst.at(r, 0) = row_extreme<false>(&partials.at(r * k, 0), k);
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
  PTO_TILE_ROW_TARGET ShortOfFloat to_i16(Reg<float> x) const {
    return {{lanes::f32_to_i16(x.v), x.v}};
  }
  PTO_TILE_ROW_TARGET HalfOfInt to_f16(Reg<int32_t> x) const {
    return {lanes::i32_to_f16(x.v), x};
  }
  PTO_TILE_ROW_TARGET HalfOf<IntOfFloat> to_f16(IntOfFloat x) const {
    return {lanes::i32_to_f16(x.v), x};
  }
  PTO_TILE_ROW_TARGET HalfOfInt to_f16(Reg<int16_t> x) const {
    __mmask16 all = 0xffff;
    const Reg<int32_t> wide{_mm512_maskz_cvtepi16_epi32(all, x.v)};
    return {lanes::i32_to_f16(wide.v), wide};
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

#endif // PTO_RUNTIME_TILE_FUSED_HPP
