// pto/runtime/dim.hpp - DYNAMIC and Dim<> (PTO-WSP spec §2.2, §3.1).
#ifndef PTO_RUNTIME_DIM_HPP
#define PTO_RUNTIME_DIM_HPP

#include <type_traits>

namespace pto {
namespace runtime {

/// A dimension whose size is only known at run time. Same value as
/// pto-isa's pto::DYNAMIC.
constexpr int DYNAMIC = -1;

/// One dimension of an iteration space: static (size fixed at compile time)
/// or DYNAMIC (size stored in `size`).
template <int StaticSize = DYNAMIC> struct Dim {
  static_assert(StaticSize == DYNAMIC || StaticSize >= 0,
                "Dim<N>: a static size must be >= 0 (or DYNAMIC)");

  static constexpr int static_size = StaticSize;
  static constexpr bool is_dynamic = (StaticSize == DYNAMIC);

  int size;

  /// Postcondition: size == StaticSize (DYNAMIC for a dynamic dimension).
  constexpr Dim() : size(StaticSize) {}

  /// Only a dynamic dimension takes a run-time size.
  explicit constexpr Dim(int runtime_size) : size(runtime_size) {
    static_assert(is_dynamic,
                  "Dim(int): only a DYNAMIC dimension takes a run-time size");
  }

  constexpr int get_size() const {
    if constexpr (is_dynamic)
      return size;
    else
      return StaticSize;
  }
};

template <int N> using StaticDim = Dim<N>;
using DynamicDim = Dim<DYNAMIC>;

/// True for specializations of Dim<>.
template <typename T> struct is_dim : std::false_type {};
template <int N> struct is_dim<Dim<N>> : std::true_type {};
template <typename T> constexpr bool is_dim_v = is_dim<T>::value;

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_DIM_HPP
