// pto/runtime/tile/cube.hpp - the cube in the tile simulation
// (pto/runtime/tile.hpp): dot products in one fixed order (portable, AVX,
// AVX2 + FMA and AVX-512 forms, the same bits) and TMATMUL, TMATMUL_ACC,
// TGEMV.
#ifndef PTO_RUNTIME_TILE_CUBE_HPP
#define PTO_RUNTIME_TILE_CUBE_HPP

#include "pto/runtime/tile/types.hpp"
#include "pto/runtime/tile/sync.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace pto {
namespace runtime {
namespace tile {

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

} // namespace tile
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_TILE_CUBE_HPP
