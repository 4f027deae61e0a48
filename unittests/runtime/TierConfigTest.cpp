// Spec §5: Tier<>, TierConfig<>, DecodeAttentionTiers.
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

using namespace pto::runtime;

TEST(Tier, Members) {
  using T = Tier<7, 10, 20>;
  static_assert(T::id == 7 && T::min_size == 10 && T::max_size == 20);
  static_assert(!T::matches(9) && T::matches(10) && T::matches(20) &&
                !T::matches(21));
  static_assert(Tier<255, 1, 1>::matches(1));
}

TEST(TierConfig, FirstMatchWins) {
  // Overlapping tiers: argument order decides.
  using C = TierConfig<Tier<4, 1, 100>, Tier<2, 50, 200>>;
  static_assert(C::num_tiers == 2);
  static_assert(C::select_tier(50) == 4);
  static_assert(C::select_tier(100) == 4);
  static_assert(C::select_tier(101) == 2);
  static_assert(C::select_tier(201) == -1);
  static_assert(C::select_tier(0) == -1);
  static_assert(C::select_tier(-5) == -1);
}

TEST(TierConfig, GapsSelectNothing) {
  using C = TierConfig<Tier<0, 1, 10>, Tier<1, 20, 30>>;
  EXPECT_EQ(C::select_tier(15), -1);
  EXPECT_EQ(C::select_tier(20), 1);
}

TEST(TierConfig, DecodeAttentionTiers) {
  using C = DecodeAttentionTiers;
  static_assert(C::num_tiers == 4);
  struct Case {
    int size, tier;
  } cases[] = {{0, -1},     {1, 0},       {1024, 0},  {1025, 1},
               {4096, 1},   {4097, 2},    {16384, 2}, {16385, 3},
               {131072, 3}, {131073, -1}, {-1, -1}};
  for (const Case &c : cases)
    EXPECT_EQ(C::select_tier(c.size), c.tier) << "size " << c.size;
}

TEST(TierConfig, SelectionIsConstexpr) {
  constexpr int t = DecodeAttentionTiers::select_tier(5000);
  static_assert(t == 2);
}

TEST(TierList, MatchesTierConfig) {
  TierList list({{0, 1, 1024}, {1, 1025, 4096}, {2, 4097, 16384},
                 {3, 16385, 131072}});
  EXPECT_EQ(list.num_tiers(), 4u);
  for (int size : {-1, 0, 1, 1024, 1025, 4096, 4097, 16384, 16385, 131072,
                   131073, 2000000000})
    EXPECT_EQ(list.select_tier(size),
              DecodeAttentionTiers::select_tier(size))
        << size;
  // First match wins; ids need not be dense.
  TierList overlap({{9, 1, 100}, {4, 50, 200}});
  EXPECT_EQ(overlap.select_tier(60), 9);
  EXPECT_EQ(overlap.select_tier(150), 4);
  EXPECT_EQ(TierList().select_tier(5), -1);
}
