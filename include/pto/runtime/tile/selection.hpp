// pto/runtime/tile/selection.hpp - indices, masks, selection and scalar
// access in the tile simulation (pto/runtime/tile.hpp): TCI, TTRI, TCMPS,
// TSEL, GetValue and SetValue.
#ifndef PTO_RUNTIME_TILE_SELECTION_HPP
#define PTO_RUNTIME_TILE_SELECTION_HPP

#include "pto/runtime/tile/types.hpp"
#include "pto/runtime/tile/sync.hpp"

#include <cstdint>
#include <cstring>

namespace pto {
namespace runtime {
namespace tile {

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

} // namespace tile
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_TILE_SELECTION_HPP
