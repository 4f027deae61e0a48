// pto/runtime/tile/reductions.hpp - reductions and broadcasts in the tile
// simulation (pto/runtime/tile.hpp): TROWMAX, TROWMIN, TROWSUM, TCOLMAX,
// TCOLSUM, TCOLMIN, TROWEXPAND, TCOLEXPAND and the row and column
// broadcast binaries (TROWEXPANDADD ..., TCOLEXPANDADD ...).
#ifndef PTO_RUNTIME_TILE_REDUCTIONS_HPP
#define PTO_RUNTIME_TILE_REDUCTIONS_HPP

#include "pto/runtime/tile/types.hpp"
#include "pto/runtime/tile/sync.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace pto {
namespace runtime {
namespace tile {

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

// (sum_tree8 and row_sum_finish are in tile/types.hpp: the cube and fused
// groups add in the same tree.)

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

} // namespace tile
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_TILE_REDUCTIONS_HPP
