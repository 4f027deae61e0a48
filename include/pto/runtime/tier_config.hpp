// pto/runtime/tier_config.hpp - Tier<> and TierConfig<> (PTO-WSP spec §5).
#ifndef PTO_RUNTIME_TIER_CONFIG_HPP
#define PTO_RUNTIME_TIER_CONFIG_HPP

#include <cstddef>
#include <type_traits>

// TierList needs the standard library: host, AICPU and CPU simulation only.
#if defined(__CPU_SIM) || !defined(__CCE_AICORE__)
#define PTO_RUNTIME_HAS_TIER_LIST 1
#include <utility>
#include <vector>
#endif

namespace pto {
namespace runtime {

/// A size tier: lengths in [MinSize, MaxSize] (inclusive) select TierID.
template <int TierID, int MinSize, int MaxSize> struct Tier {
  static_assert(TierID >= 0 && TierID <= 255, "Tier: TierID must be in 0-255");
  static_assert(MinSize > 0, "Tier: MinSize must be > 0");
  static_assert(MaxSize >= MinSize, "Tier: MaxSize must be >= MinSize");

  static constexpr int id = TierID;
  static constexpr int min_size = MinSize;
  static constexpr int max_size = MaxSize;

  static constexpr bool matches(int size) {
    return MinSize <= size && size <= MaxSize;
  }
};

template <typename T> struct is_tier : std::false_type {};
template <int I, int Lo, int Hi>
struct is_tier<Tier<I, Lo, Hi>> : std::true_type {};
template <typename T> constexpr bool is_tier_v = is_tier<T>::value;

namespace detail {
template <int... Ids> constexpr bool ids_unique() {
  constexpr int ids[] = {Ids..., 0};
  for (size_t i = 0; i < sizeof...(Ids); ++i)
    for (size_t j = i + 1; j < sizeof...(Ids); ++j)
      if (ids[i] == ids[j])
        return false;
  return true;
}
} // namespace detail

/// An ordered list of tiers; a length selects the first tier that matches.
template <typename... Tiers> struct TierConfig {
  static_assert((is_tier_v<Tiers> && ...),
                "TierConfig: every argument must be a Tier<>");
  static_assert(detail::ids_unique<Tiers::id...>(),
                "TierConfig: tier ids must be unique");

  static constexpr size_t num_tiers = sizeof...(Tiers);

  /// The id of the first tier (in argument order) matching `size`, or -1.
  static constexpr int select_tier(int size) {
    int selected = -1;
    (void)((Tiers::matches(size) ? (selected = Tiers::id, true) : false) ||
           ...);
    return selected;
  }
};

#ifdef PTO_RUNTIME_HAS_TIER_LIST
/// A tier known only at run time: what TierList holds.
struct TierRange {
  int id;
  int min_size;
  int max_size;
};

/// A tier configuration whose tiers are known only at run time (the wsp
/// compiler's static planner builds one from the IR), with the same
/// first-match select_tier as TierConfig. It can stand wherever WorkPlanner
/// takes a TierConfig.
class TierList {
public:
  TierList() = default;
  explicit TierList(std::vector<TierRange> tiers) : tiers_(std::move(tiers)) {}

  size_t num_tiers() const { return tiers_.size(); }
  const std::vector<TierRange> &tiers() const { return tiers_; }

  /// The id of the first tier (in list order) matching `size`, or -1.
  int select_tier(int size) const {
    for (const TierRange &t : tiers_)
      if (t.min_size <= size && size <= t.max_size)
        return t.id;
    return -1;
  }

private:
  std::vector<TierRange> tiers_;
};
#endif // PTO_RUNTIME_HAS_TIER_LIST

/// The spec's standard decode-attention tiers.
using DecodeAttentionTiers = TierConfig<Tier<0, 1, 1024>,      // Short
                                        Tier<1, 1025, 4096>,   // Medium
                                        Tier<2, 4097, 16384>,  // Long
                                        Tier<3, 16385, 131072> // Very long
                                        >;

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_TIER_CONFIG_HPP
