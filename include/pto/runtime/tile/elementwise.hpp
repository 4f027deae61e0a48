// pto/runtime/tile/elementwise.hpp - the element-wise vector instructions
// of the tile simulation (pto/runtime/tile.hpp): binary, unary and scalar
// arithmetic (TADD ..., TEXP, TLOG ..., TADDS ...), TEXPANDS, the
// conversions (TCVT) and TQUANT/TDEQUANT.
#ifndef PTO_RUNTIME_TILE_ELEMENTWISE_HPP
#define PTO_RUNTIME_TILE_ELEMENTWISE_HPP

#include "pto/runtime/tile/types.hpp"
#include "pto/runtime/tile/sync.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace pto {
namespace runtime {
namespace tile {

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
// (TCVT's eight- and sixteen-lane conversions, f32x8, store_f32x8 and
// lanes::, are in tile/types.hpp: the cube and fused groups use them too.)

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

} // namespace tile
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_TILE_ELEMENTWISE_HPP
