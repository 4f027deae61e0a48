// Spec §2.2, §3.1: DYNAMIC and Dim<>.
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

using namespace pto::runtime;

TEST(Dim, DynamicConstantIsMinusOne) { static_assert(DYNAMIC == -1); }

TEST(Dim, StaticDim) {
  using D = Dim<32>;
  static_assert(D::static_size == 32);
  static_assert(!D::is_dynamic);
  constexpr D d;
  static_assert(d.size == 32, "postcondition: size == StaticSize");
  static_assert(d.get_size() == 32);
  EXPECT_EQ(sizeof(D), 4u);
}

TEST(Dim, DynamicDim) {
  using D = Dim<>;
  static_assert(D::is_dynamic);
  static_assert(D::static_size == DYNAMIC);
  constexpr D unset;
  static_assert(unset.size == DYNAMIC);
  D d(4096);
  EXPECT_EQ(d.get_size(), 4096);
  d.size = 7;
  EXPECT_EQ(d.get_size(), 7);
}

TEST(Dim, AliasesAndTrait) {
  static_assert(std::is_same_v<StaticDim<8>, Dim<8>>);
  static_assert(std::is_same_v<DynamicDim, Dim<DYNAMIC>>);
  static_assert(is_dim_v<Dim<3>> && is_dim_v<DynamicDim>);
  static_assert(!is_dim_v<int>);
}

TEST(Dim, StaticSizeZeroIsAllowed) {
  constexpr Dim<0> d;
  static_assert(d.get_size() == 0);
}

TEST(Dim, GetSizeOfStaticIgnoresStorage) {
  Dim<16> d;
  d.size = 99; // storage is unused for a static dimension
  EXPECT_EQ(d.get_size(), 16);
}
