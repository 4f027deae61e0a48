// pto/runtime/iteration_space.hpp - IterationSpace<> (PTO-WSP spec §3.2).
#ifndef PTO_RUNTIME_ITERATION_SPACE_HPP
#define PTO_RUNTIME_ITERATION_SPACE_HPP

#include "pto/runtime/dim.hpp"

#include <cstddef>
#include <tuple>
#include <utility>

namespace pto {
namespace runtime {

/// A rectangular space of work units, one Dim<> per dimension. Linear work
/// indices enumerate it with dimension 0 varying fastest.
template <typename... Dims> class IterationSpace {
  static_assert((is_dim_v<Dims> && ...),
                "IterationSpace: every dimension type must be a Dim<>");

public:
  static constexpr size_t num_dims = sizeof...(Dims);
  using DimsTuple = std::tuple<Dims...>;

  constexpr IterationSpace() : dims_() {}

  /// Sets the run-time size of dynamic dimension I.
  template <size_t I> constexpr void set_dim(int size) {
    static_assert(I < num_dims, "IterationSpace::set_dim: index out of range");
    static_assert(std::tuple_element_t<I, DimsTuple>::is_dynamic,
                  "IterationSpace::set_dim: dimension is static; only DYNAMIC "
                  "dimensions can be set");
    std::get<I>(dims_).size = size;
  }

  template <size_t I> constexpr int get_dim() const {
    static_assert(I < num_dims, "IterationSpace::get_dim: index out of range");
    return std::get<I>(dims_).get_size();
  }

  /// Product of all dimension sizes (1 for a rank-0 space).
  constexpr int total_work() const {
    return total_work_impl(std::index_sequence_for<Dims...>{});
  }

  /// Linear index -> coordinates, dimension 0 fastest.
  /// Precondition: 0 <= work_idx < total_work(); coords has num_dims slots.
  constexpr void index_to_coords(int work_idx, int *coords) const {
    index_to_coords_impl(work_idx, coords, std::index_sequence_for<Dims...>{});
  }

  /// Coordinates -> linear index, the inverse of index_to_coords.
  constexpr int coords_to_index(const int *coords) const {
    int index = 0;
    int stride = 1;
    coords_to_index_impl(coords, index, stride,
                         std::index_sequence_for<Dims...>{});
    return index;
  }

private:
  template <size_t... I>
  constexpr int total_work_impl(std::index_sequence<I...>) const {
    return (1 * ... * get_dim<I>());
  }
  template <size_t... I>
  constexpr void index_to_coords_impl(int idx, int *coords,
                                      std::index_sequence<I...>) const {
    ((coords[I] = idx % get_dim<I>(), idx /= get_dim<I>()), ...);
  }
  template <size_t... I>
  constexpr void coords_to_index_impl(const int *coords, int &index,
                                      int &stride,
                                      std::index_sequence<I...>) const {
    ((index += coords[I] * stride, stride *= get_dim<I>()), ...);
  }

  DimsTuple dims_;
};

template <int Batch = DYNAMIC, int Head = DYNAMIC, int Chunk = DYNAMIC>
using AttentionSpace = IterationSpace<Dim<Batch>, Dim<Head>, Dim<Chunk>>;

template <int Batch = DYNAMIC, int Expert = DYNAMIC>
using MoESpace = IterationSpace<Dim<Batch>, Dim<Expert>>;

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_ITERATION_SPACE_HPP
