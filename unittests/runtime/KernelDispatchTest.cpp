// Spec §7: KernelFnPtr, constexpr dispatch tables, PTO_TIERED_KERNEL /
// PTO_DISPATCH_TIER for any number of tiers.
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

#include <vector>

using namespace pto::runtime;

namespace {

std::vector<int> calls;

PTO_TIERED_KERNEL(four, 4, const WorkDescriptor &desc, int scale);
template <int Tier>
AICORE void four_impl(const WorkDescriptor &desc, int scale) {
  calls.push_back(Tier * 1000 + static_cast<int>(desc.params[0]) * scale);
}

// Any number of tiers, not only the spec's four.
PTO_TIERED_KERNEL(seven, 7, const WorkDescriptor &desc);
template <int Tier> AICORE void seven_impl(const WorkDescriptor &) {
  calls.push_back(Tier);
}

PTO_TIERED_KERNEL(single, 1, const WorkDescriptor &desc, int *out);
template <int Tier>
AICORE void single_impl(const WorkDescriptor &desc, int *out) {
  *out = Tier + static_cast<int>(desc.work_id);
}

// The spec's §7.2 form, written by hand.
template <int Tier> void by_hand_impl(const WorkDescriptor &, int *out) {
  *out = 10 + Tier;
}
constexpr KernelFnPtr<int *> dispatch_table[3] = {
    &by_hand_impl<0>, &by_hand_impl<1>, &by_hand_impl<2>};

// The class-template form.
template <int Tier> struct Doubler {
  static void run(const WorkDescriptor &d, int *out) {
    *out = 2 * Tier + static_cast<int>(d.flags);
  }
};
template <int Tier> struct DoublerEntry {
  static constexpr KernelFnPtr<int *> value = &Doubler<Tier>::run;
};

} // namespace

TEST(KernelDispatch, TablesAreConstexprAndSized) {
  static_assert(four_dispatch.size() == 4);
  static_assert(seven_dispatch.size() == 7);
  static_assert(single_dispatch.size() == 1);
  static_assert(four_dispatch[2] == &four_impl<2>);
  static_assert(seven_dispatch[6] == &seven_impl<6>);
  static_assert(sizeof(four_dispatch) == 8 * 4, "8 bytes per tier (§12.3)");
}

TEST(KernelDispatch, DispatchByTier) {
  calls.clear();
  WorkDescriptor d{};
  d.params[0] = 5;
  for (uint8_t t = 0; t < 4; ++t) {
    d.tier = t;
    PTO_DISPATCH_TIER(four, d, 3);
  }
  EXPECT_EQ(calls, (std::vector<int>{15, 1015, 2015, 3015}));

  calls.clear();
  for (uint8_t t = 0; t < 7; ++t) {
    d.tier = 6 - t;
    PTO_DISPATCH_TIER(seven, d); // no extra arguments
  }
  EXPECT_EQ(calls, (std::vector<int>{6, 5, 4, 3, 2, 1, 0}));

  int out = 0;
  d.tier = 0;
  d.work_id = 41;
  PTO_DISPATCH_TIER(single, d, &out);
  EXPECT_EQ(out, 41);
}

TEST(KernelDispatch, SpecTableForm) {
  WorkDescriptor d{};
  int out = 0;
  d.tier = 2;
  dispatch_table[d.tier](d, &out);
  EXPECT_EQ(out, 12);
}

TEST(KernelDispatch, MakeDispatchTable) {
  constexpr auto table =
      make_dispatch_table<KernelFnPtr<int *>, DoublerEntry, 5>();
  static_assert(table.size() == 5);
  WorkDescriptor d{};
  d.flags = WorkDescriptor::FLAG_LAST;
  int out = 0;
  d.tier = 4;
  table[d.tier](d, &out);
  EXPECT_EQ(out, 10);
}
