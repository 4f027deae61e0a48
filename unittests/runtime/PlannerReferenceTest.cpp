// The planner against an independent, naive reference written from the
// spec's text (linear scan instead of binary search, per-token walk instead
// of chunk arithmetic), over random lengths in every tier, batches 1..4096,
// heads 1..64 and several configurations.
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

#include <climits>
#include <random>
#include <vector>

using namespace pto::runtime;

namespace {

struct RefDesc {
  uint32_t id, req, head, start, len;
  int tier;
  uint8_t flags;
};

int ref_tier(int len) {
  if (len >= 1 && len <= 1024)
    return 0;
  if (len >= 1025 && len <= 4096)
    return 1;
  if (len >= 4097 && len <= 16384)
    return 2;
  if (len >= 16385 && len <= 131072)
    return 3;
  return -1;
}

long ref_count(const std::vector<int> &lens, int heads, int chunk) {
  long n = 0;
  for (int len : lens) {
    int chunks = 0;
    for (int covered = 0; covered < len; covered += chunk)
      ++chunks;
    n += (long)chunks * heads;
  }
  return n;
}

/// Smallest chunk in [min, max] whose count fits, else max: a linear scan.
int ref_chunk(const std::vector<int> &lens, int heads, const PlanConfig &c) {
  for (int chunk = c.chunk_min; chunk <= c.chunk_max; ++chunk)
    if (ref_count(lens, heads, chunk) <= c.max_work_units)
      return chunk;
  return c.chunk_max;
}

/// Descriptor list written token by token: a chunk's tokens are dealt out
/// so that sizes differ by at most one (balanced), or cut every `chunk`.
std::vector<RefDesc> ref_generate(const std::vector<int> &lens, int heads,
                                  int chunk, bool balanced) {
  std::vector<RefDesc> out;
  uint32_t id = 0;
  for (size_t r = 0; r < lens.size(); ++r) {
    const int len = lens[r];
    if (len == 0)
      continue;
    std::vector<int> sizes;
    if (balanced) {
      int n = (len + chunk - 1) / chunk;
      sizes.assign(n, 0);
      for (int t = 0; t < len; ++t) // deal tokens round-robin
        ++sizes[t % n];
    } else {
      for (int left = len; left > 0; left -= chunk)
        sizes.push_back(std::min(left, chunk));
    }
    for (int h = 0; h < heads; ++h) {
      uint32_t start = 0;
      for (size_t i = 0; i < sizes.size(); ++i) {
        uint8_t flags = 0;
        if (i == 0)
          flags |= 0x01 | 0x04;
        if (i + 1 == sizes.size())
          flags |= 0x02;
        out.push_back({id++, (uint32_t)r, (uint32_t)h, start,
                       (uint32_t)sizes[i], ref_tier(len), flags});
        start += sizes[i];
      }
    }
  }
  return out;
}

struct Case {
  int batch, heads;
  PlanConfig config;
};

} // namespace

TEST(PlannerReference, RandomWorkloadsMatchNaiveReference) {
  std::mt19937 rng(20261121);
  const int tier_lo[] = {1, 1025, 4097, 16385};
  const int tier_hi[] = {1024, 4096, 16384, 131072};
  const Case cases[] = {
      {1, 1, {256, 4096, 65536, true}},     {1, 64, {256, 4096, 8, false}},
      {7, 8, {256, 4096, 512, true}},       {16, 32, {256, 4096, 65536, true}},
      {33, 4, {128, 1024, 300, false}},     {100, 16, {256, 4096, 4096, true}},
      {257, 2, {64, 8192, 10000, true}},    {512, 1, {256, 4096, 2000, false}},
      {1000, 8, {256, 4096, 65536, true}},  {4096, 1, {256, 4096, 65536, true}},
      {4096, 2, {512, 2048, 20000, false}}, {3, 5, {1, 16, 100, true}},
  };
  for (const Case &c : cases) {
    for (int trial = 0; trial < 2; ++trial) {
      std::vector<int> lens(c.batch);
      for (int &len : lens) {
        const int tier = rng() % 4;
        len = std::uniform_int_distribution<int>(tier_lo[tier],
                                                 tier_hi[tier])(rng);
      }
      if (c.batch > 2)
        lens[1] = 0; // a zero length among them
      SCOPED_TRACE(testing::Message()
                   << "batch " << c.batch << " heads " << c.heads << " budget "
                   << c.config.max_work_units);
      AttentionPlanner planner(c.config);
      const int chunk = planner.plan_chunk_size(lens.data(), c.batch, c.heads);
      ASSERT_EQ(chunk, ref_chunk(lens, c.heads, c.config));

      const std::vector<RefDesc> ref =
          ref_generate(lens, c.heads, chunk, c.config.balance_chunks);
      std::vector<WorkDescriptor> out(ref.size());
      int count = -1;
      ASSERT_EQ(planner.generate(lens.data(), c.batch, c.heads, chunk,
                                 out.data(), (int)out.size(), &count),
                PlanResult::OK);
      ASSERT_EQ(count, (int)ref.size());
      ASSERT_EQ(planner.get_total_work(lens.data(), c.batch, c.heads, chunk),
                (int)ref.size());
      for (size_t i = 0; i < ref.size(); ++i) {
        const WorkDescriptor &d = out[i];
        const RefDesc &e = ref[i];
        ASSERT_EQ(d.work_id, e.id) << i;
        ASSERT_EQ(d.tier, e.tier) << i;
        ASSERT_EQ(d.flags, e.flags) << i;
        ASSERT_EQ(d.reserved, 0) << i;
        ASSERT_EQ(params::Attention::request_idx(d), e.req) << i;
        ASSERT_EQ(params::Attention::head_idx(d), e.head) << i;
        ASSERT_EQ(params::Attention::kv_start(d), e.start) << i;
        ASSERT_EQ(params::Attention::kv_len(d), e.len) << i;
      }
    }
  }
}

// Lengths the decode tiers never see: near the 2^22 edge of the planner's
// float-reciprocal count, and far above it (its integer path). The
// reference is a linear scan with one integer division per length.
TEST(PlannerReference, LongLengthsMatchLinearScan) {
  using Wide = WorkPlanner<AttentionSpace<>, TierConfig<Tier<0, 1, INT_MAX>>,
                           params::Attention>;
  auto scan = [](const std::vector<int> &lens, int heads, const PlanConfig &c) {
    for (int chunk = c.chunk_min; chunk <= c.chunk_max; ++chunk) {
      long long n = 0;
      for (int len : lens)
        n += ((long long)len + chunk - 1) / chunk;
      if (n * heads <= c.max_work_units)
        return chunk;
    }
    return c.chunk_max;
  };
  std::mt19937 rng(4242);
  struct Range {
    int lo, hi;
    PlanConfig config;
  } ranges[] = {
      // Just below and at 2^22, with chunks down to 1 (quotients ~ 2^22).
      {(1 << 22) - 64, (1 << 22) - 1, {1, 64, 2000000, true}},
      {(1 << 22) - 8, (1 << 22) + 8, {1, 64, 3000000, false}},
      // Far above 2^22: the integer path.
      {1 << 24, 1 << 30, {1 << 16, 1 << 20, 40000, true}},
  };
  int interior = 0; // answers strictly inside (chunk_min, chunk_max)
  for (const Range &r : ranges) {
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<int> lens(20 + trial * 7);
      for (int &len : lens)
        len = std::uniform_int_distribution<int>(r.lo, r.hi)(rng);
      for (int heads : {1, 3}) {
        Wide planner(r.config);
        const int chunk =
            planner.plan_chunk_size(lens.data(), (int)lens.size(), heads);
        EXPECT_EQ(chunk, scan(lens, heads, r.config))
            << "lengths [" << r.lo << ", " << r.hi << "] heads " << heads;
        interior += chunk > r.config.chunk_min && chunk < r.config.chunk_max;
      }
    }
  }
  EXPECT_GE(interior, 9) << "most cases must exercise the search itself";
}
