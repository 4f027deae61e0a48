// bf16 and f16 conversions against independent references: the compiler's
// own _Float16 (when the target has it) and exhaustive round trips.
#include <pto/runtime/float16.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace pto::runtime;

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

TEST(Float16Test, Bf16RoundTripsEveryPattern) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = bf16_to_f32(bf16{static_cast<uint16_t>(b)});
    const uint16_t back = f32_to_bf16(f).bits;
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(bf16_to_f32(bf16{back}))) << b;
    else
      EXPECT_EQ(back, b);
  }
}

TEST(Float16Test, Bf16RoundsToNearestEven) {
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: even is 1.
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(1.0f, -8)).bits, 0x3f80);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: even is the upper.
  EXPECT_EQ(f32_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)).bits, 0x3f82);
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)).bits,
            0x3f81);
}

TEST(Float16Test, F16RoundTripsEveryPattern) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = f16_to_f32(f16{static_cast<uint16_t>(b)});
    const uint16_t back = f32_to_f16(f).bits;
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(f16_to_f32(f16{back}))) << b;
    else
      EXPECT_EQ(back, b) << b;
  }
}

TEST(Float16Test, F16KnownValues) {
  EXPECT_EQ(f16_to_f32(f16{0x3c00}), 1.0f);
  EXPECT_EQ(f16_to_f32(f16{0x7bff}), 65504.0f);
  EXPECT_EQ(f16_to_f32(f16{0x0001}), std::ldexp(1.0f, -24)); // smallest subnormal
  EXPECT_EQ(f32_to_f16(65519.0f).bits, 0x7bff);
  EXPECT_EQ(f32_to_f16(65520.0f).bits, 0x7c00); // rounds to infinity
  EXPECT_EQ(f32_to_f16(-std::numeric_limits<float>::infinity()).bits, 0xfc00);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)).bits, 0x0000); // tie to even 0
  EXPECT_EQ(f32_to_f16(std::ldexp(1.5f, -25)).bits, 0x0001);
}

#if defined(__FLT16_MAX__)
// Every half to float against the compiler's _Float16 conversion (exact),
// NaNs as NaNs.
TEST(Float16Test, F16ToF32MatchesCompilerEveryPattern) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    _Float16 h;
    std::memcpy(&h, &bits, sizeof h);
    const float want = static_cast<float>(h);
    const float got = f16_to_f32(f16{bits});
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << b;
      continue;
    }
    uint32_t w, g;
    std::memcpy(&w, &want, sizeof w);
    std::memcpy(&g, &got, sizeof g);
    EXPECT_EQ(g, w) << b;
  }
}

// The compiler's _Float16 conversion (round to nearest even) as reference,
// over random floats of every magnitude.
TEST(Float16Test, F16MatchesCompilerConversion) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    const float f = from_bits(bits(rng));
    if (std::isnan(f))
      continue;
    const _Float16 h = static_cast<_Float16>(f);
    uint16_t want;
    std::memcpy(&want, &h, sizeof want);
    EXPECT_EQ(f32_to_f16(f).bits, want) << f;
  }
}

// The same over every 1021st float bit pattern and every pattern within 4096
// of the places where f32_to_f16 changes case (half's smallest subnormal,
// its smallest normal, overflow to infinity, infinity and NaN), both signs.
TEST(Float16Test, F16MatchesCompilerAtEveryCase) {
  std::vector<uint32_t> patterns;
  for (uint64_t b = 0; b <= 0xffffffffu; b += 1021)
    patterns.push_back(static_cast<uint32_t>(b));
  for (uint32_t edge : {0x33000000u, 0x38800000u, 0x477ff000u, 0x7f800000u})
    for (uint32_t sign : {0u, 0x80000000u})
      for (uint32_t d = 0; d < 8192; ++d)
        patterns.push_back((edge - 4096 + d) | sign);
  int wrong = 0;
  for (uint32_t b : patterns) {
    const float f = from_bits(b);
    const uint16_t got = f32_to_f16(f).bits;
    if (std::isnan(f)) {
      wrong += (got & 0x7c00u) != 0x7c00u || (got & 0x3ffu) == 0;
      continue;
    }
    const _Float16 h = static_cast<_Float16>(f);
    uint16_t want;
    std::memcpy(&want, &h, sizeof want);
    if (got != want && ++wrong <= 10)
      ADD_FAILURE() << std::hex << "pattern 0x" << b << ": 0x" << got
                    << ", want 0x" << want;
  }
  EXPECT_EQ(wrong, 0);
}
#endif

} // namespace
