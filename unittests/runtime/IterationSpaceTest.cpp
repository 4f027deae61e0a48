// Spec §3.2: IterationSpace<>, AttentionSpace, MoESpace.
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace pto::runtime;

TEST(IterationSpace, NumDimsAndTuple) {
  using S = IterationSpace<Dim<2>, Dim<>, Dim<5>>;
  static_assert(S::num_dims == 3);
  static_assert(
      std::is_same_v<S::DimsTuple, std::tuple<Dim<2>, Dim<>, Dim<5>>>);
}

TEST(IterationSpace, StaticSpaceIsConstexpr) {
  constexpr IterationSpace<Dim<2>, Dim<3>, Dim<4>> s;
  static_assert(s.get_dim<0>() == 2 && s.get_dim<2>() == 4);
  static_assert(s.total_work() == 24);
}

TEST(IterationSpace, SetDynamicDims) {
  IterationSpace<Dim<>, Dim<8>, Dim<>> s;
  s.set_dim<0>(3);
  s.set_dim<2>(5);
  EXPECT_EQ(s.get_dim<0>(), 3);
  EXPECT_EQ(s.get_dim<1>(), 8);
  EXPECT_EQ(s.get_dim<2>(), 5);
  EXPECT_EQ(s.total_work(), 120);
}

TEST(IterationSpace, RankZeroHasOneUnit) {
  IterationSpace<> s;
  EXPECT_EQ(s.total_work(), 1);
}

TEST(IterationSpace, ZeroSizedDimHasNoWork) {
  IterationSpace<Dim<>, Dim<4>> s;
  s.set_dim<0>(0);
  EXPECT_EQ(s.total_work(), 0);
}

// Dimension 0 varies fastest: index = c0 + d0 * (c1 + d1 * c2).
TEST(IterationSpace, IndexToCoordsDimZeroFastest) {
  IterationSpace<Dim<>, Dim<>, Dim<>> s;
  s.set_dim<0>(2);
  s.set_dim<1>(3);
  s.set_dim<2>(4);
  int c[3];
  s.index_to_coords(0, c);
  EXPECT_EQ(std::vector<int>(c, c + 3), (std::vector<int>{0, 0, 0}));
  s.index_to_coords(1, c);
  EXPECT_EQ(std::vector<int>(c, c + 3), (std::vector<int>{1, 0, 0}));
  s.index_to_coords(2, c);
  EXPECT_EQ(std::vector<int>(c, c + 3), (std::vector<int>{0, 1, 0}));
  s.index_to_coords(6, c);
  EXPECT_EQ(std::vector<int>(c, c + 3), (std::vector<int>{0, 0, 1}));
  s.index_to_coords(23, c);
  EXPECT_EQ(std::vector<int>(c, c + 3), (std::vector<int>{1, 2, 3}));
}

// Every index maps to a distinct in-range coordinate, and back.
TEST(IterationSpace, IndexToCoordsIsABijection) {
  IterationSpace<Dim<3>, Dim<>, Dim<5>, Dim<>> s;
  s.set_dim<1>(4);
  s.set_dim<3>(2);
  std::set<std::vector<int>> seen;
  for (int i = 0; i < s.total_work(); ++i) {
    int c[4];
    s.index_to_coords(i, c);
    EXPECT_TRUE(c[0] >= 0 && c[0] < 3 && c[1] >= 0 && c[1] < 4 && c[2] >= 0 &&
                c[2] < 5 && c[3] >= 0 && c[3] < 2);
    // Independent reference: the row-major formula with dim 0 fastest.
    EXPECT_EQ(i, c[0] + 3 * (c[1] + 4 * (c[2] + 5 * c[3])));
    EXPECT_EQ(s.coords_to_index(c), i);
    seen.insert(std::vector<int>(c, c + 4));
  }
  EXPECT_EQ(seen.size(), 120u);
}

TEST(IterationSpace, CommonAliases) {
  static_assert(
      std::is_same_v<AttentionSpace<>, IterationSpace<Dim<>, Dim<>, Dim<>>>);
  static_assert(std::is_same_v<AttentionSpace<4, 32>,
                               IterationSpace<Dim<4>, Dim<32>, Dim<>>>);
  static_assert(std::is_same_v<MoESpace<>, IterationSpace<Dim<>, Dim<>>>);
  MoESpace<DYNAMIC, 8> moe;
  moe.set_dim<0>(16);
  EXPECT_EQ(moe.total_work(), 128);
}
