// pto/runtime/kernel_dispatch.hpp - tiered kernels and O(1) tier dispatch
// (PTO-WSP spec §7).
//
//   PTO_TIERED_KERNEL(attn, 4, const WorkDescriptor &d, __gm__ float *out);
//   template <int Tier> AICORE void attn_impl(const WorkDescriptor &d,
//                                             __gm__ float *out) { ... }
//   ...
//   PTO_DISPATCH_TIER(attn, desc, out); // attn_dispatch[desc.tier](desc, out)
//
// The table has one entry per tier id 0 .. num_tiers-1, for any num_tiers.
// Device code that cannot call through function pointers selects the
// instantiation with a switch instead (wsp emits that form for AICore).
#ifndef PTO_RUNTIME_KERNEL_DISPATCH_HPP
#define PTO_RUNTIME_KERNEL_DISPATCH_HPP

#include "pto/runtime/platform.hpp"
#include "pto/runtime/work_descriptor.hpp"

#include <array>
#include <cstddef>
#include <utility>

namespace pto {
namespace runtime {

/// A tier kernel: the descriptor, then the kernel's own parameters.
template <typename... Params>
using KernelFnPtr = void (*)(const WorkDescriptor &, Params...);

namespace detail {
/// {Entry<0>::value, ..., Entry<N-1>::value} as a constexpr table.
template <typename Fn, template <int> class Entry, size_t... I>
constexpr std::array<Fn, sizeof...(I)>
make_dispatch_table(std::index_sequence<I...>) {
  return {{Entry<static_cast<int>(I)>::value...}};
}
} // namespace detail

/// Row-affine sharing of a descriptor list among `num_cores` cores: core
/// `core` runs [row_range_begin(core), row_range_begin(core + 1)), a
/// contiguous range cut only before FLAG_FIRST descriptors, so a row's chunks
/// run in order on one core. Used by AICore entries and the CPU simulation.
inline int row_range_begin(const WorkDescriptor *descs, int count, int core,
                           int num_cores) {
  int i = static_cast<int>(static_cast<long long>(count) * core / num_cores);
  while (i < count && i > 0 && !descs[i].is_first())
    ++i;
  return i;
}

/// The dispatch table of a kernel template `Kernel<Tier>::run`, for callers
/// that prefer a class template to the macros.
template <typename Fn, template <int> class Entry, size_t NumTiers>
constexpr std::array<Fn, NumTiers> make_dispatch_table() {
  return detail::make_dispatch_table<Fn, Entry>(
      std::make_index_sequence<NumTiers>{});
}

} // namespace runtime
} // namespace pto

/// Declares `template <int Tier> AICORE void name##_impl(params...)` and its
/// constexpr dispatch table `name##_dispatch[num_tiers]`. The parameter list
/// must start with the `const WorkDescriptor &`.
#define PTO_TIERED_KERNEL(name, num_tiers, ...)                                \
  template <int PtoTier_> AICORE void name##_impl(__VA_ARGS__);                \
  using name##_fn_type = void (*)(__VA_ARGS__);                                \
  template <int PtoTier_> struct name##_tier_entry {                           \
    static constexpr name##_fn_type value = &name##_impl<PtoTier_>;            \
  };                                                                           \
  static constexpr auto name##_dispatch =                                      \
      ::pto::runtime::make_dispatch_table<name##_fn_type, name##_tier_entry,   \
                                          (num_tiers)>()

/// O(1), branch-free dispatch: PTO_DISPATCH_TIER(name, desc, args...) is
/// name##_dispatch[desc.tier](desc, args...). (Written without GNU's `,
/// ##__VA_ARGS__`, so it is standard C++17 with or without arguments.)
#define PTO_DISPATCH_TIER(name, ...)                                           \
  name##_dispatch[(PTO_DISPATCH_FIRST_(__VA_ARGS__, 0)).tier](__VA_ARGS__)
#define PTO_DISPATCH_FIRST_(first, ...) first

#endif // PTO_RUNTIME_KERNEL_DISPATCH_HPP
