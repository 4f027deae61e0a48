// Spec §6, §11: PlanConfig, plan_chunk_size, generate, get_total_work, the
// error codes, and the edge cases the spec leaves open (docs/rationale/
// Runtime.md records each decision tested here).
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <vector>

using namespace pto::runtime;

namespace {
constexpr uint8_t F = WorkDescriptor::FLAG_FIRST;
constexpr uint8_t L = WorkDescriptor::FLAG_LAST;
constexpr uint8_t I = WorkDescriptor::FLAG_INIT;

struct Plan {
  PlanResult result;
  int count;
  std::vector<WorkDescriptor> descs;
};

Plan run(const AttentionPlanner &p, std::vector<int> lens, int heads, int chunk,
         int capacity = -1) {
  if (capacity < 0)
    capacity = std::max(
        0, p.get_total_work(lens.data(), (int)lens.size(), heads, chunk));
  std::vector<WorkDescriptor> buf(capacity + 1);
  buf[capacity].work_id = 0xdeadbeef; // canary one past the end
  int count = -7;
  PlanResult r = p.generate(lens.data(), (int)lens.size(), heads, chunk,
                            buf.data(), capacity, &count);
  EXPECT_EQ(buf[capacity].work_id, 0xdeadbeefu) << "wrote past the buffer";
  buf.resize(r == PlanResult::OK ? count : 0);
  return {r, count, buf};
}
} // namespace

TEST(PlanConfig, DefaultsAndConstraints) {
  PlanConfig c;
  EXPECT_EQ(c.chunk_min, 256);
  EXPECT_EQ(c.chunk_max, 4096);
  EXPECT_EQ(c.max_work_units, 65536);
  EXPECT_TRUE(c.balance_chunks);
  EXPECT_TRUE(c.is_valid());
  EXPECT_FALSE((PlanConfig{0, 4096, 1, true}.is_valid()));
  EXPECT_FALSE((PlanConfig{-1, 4096, 1, true}.is_valid()));
  EXPECT_FALSE((PlanConfig{512, 256, 1, true}.is_valid()));
  EXPECT_FALSE((PlanConfig{256, 4096, 0, true}.is_valid()));
  EXPECT_TRUE((PlanConfig{256, 256, 1, false}.is_valid()));
}

TEST(PlanResult, Values) {
  EXPECT_EQ(static_cast<int>(PlanResult::OK), 0);
  EXPECT_EQ(static_cast<int>(PlanResult::BUFFER_OVERFLOW), 1);
  EXPECT_EQ(static_cast<int>(PlanResult::UNSUPPORTED_SIZE), 2);
  EXPECT_EQ(static_cast<int>(PlanResult::INVALID_PARAMS), 3);
  EXPECT_STREQ(to_string(PlanResult::UNSUPPORTED_SIZE), "UNSUPPORTED_SIZE");
}

// --- plan_chunk_size (§6.3.4) ---------------------------------------------

TEST(PlanChunkSize, SmallestChunkThatFits) {
  // 4 x 10000 tokens, 1 head, budget 40: ceil(10000/c) <= 10 -> c >= 1000.
  AttentionPlanner p(PlanConfig{256, 4096, 40, true});
  std::vector<int> lens(4, 10000);
  EXPECT_EQ(p.plan_chunk_size(lens.data(), 4, 1), 1000);
  // Budget 41 still needs c = 1000 (c = 999 gives 11 chunks each: 44).
  AttentionPlanner p41(PlanConfig{256, 4096, 41, true});
  EXPECT_EQ(p41.plan_chunk_size(lens.data(), 4, 1), 1000);
}

TEST(PlanChunkSize, HeadsMultiplyTheCount) {
  AttentionPlanner p(PlanConfig{256, 4096, 80, true});
  std::vector<int> lens(4, 10000);
  // 8 heads: 4 * 8 * ceil(10000/c) <= 80 -> ceil <= 2 -> c >= 5000 > max.
  EXPECT_EQ(p.plan_chunk_size(lens.data(), 4, 8), 4096);
  // 2 heads: ceil <= 10 -> c = 1000.
  EXPECT_EQ(p.plan_chunk_size(lens.data(), 4, 2), 1000);
}

TEST(PlanChunkSize, GenerousBudgetGivesChunkMin) {
  AttentionPlanner p;
  std::vector<int> lens = {1, 5000, 130000};
  EXPECT_EQ(p.plan_chunk_size(lens.data(), 3, 32), 256);
}

TEST(PlanChunkSize, NothingFitsGivesChunkMax) {
  AttentionPlanner p(PlanConfig{256, 4096, 10, true});
  std::vector<int> lens(100, 1); // 100 units even at any chunk size
  EXPECT_EQ(p.plan_chunk_size(lens.data(), 100, 1), 4096);
}

TEST(PlanChunkSize, AllZeroLengths) {
  AttentionPlanner p(PlanConfig{256, 4096, 1, true});
  std::vector<int> lens(10, 0); // no work at all: everything fits
  EXPECT_EQ(p.plan_chunk_size(lens.data(), 10, 4), 256);
}

TEST(PlanChunkSize, InvalidInputGivesZero) {
  std::vector<int> lens = {100, 200};
  AttentionPlanner p;
  EXPECT_EQ(p.plan_chunk_size(nullptr, 2, 1), 0);
  EXPECT_EQ(p.plan_chunk_size(lens.data(), 0, 1), 0);
  EXPECT_EQ(p.plan_chunk_size(lens.data(), 2, 0), 0);
  EXPECT_EQ(p.plan_chunk_size(lens.data(), -2, 1), 0);
  std::vector<int> negative = {100, -1};
  EXPECT_EQ(p.plan_chunk_size(negative.data(), 2, 1), 0);
  AttentionPlanner bad(PlanConfig{512, 256, 100, true});
  EXPECT_EQ(bad.plan_chunk_size(lens.data(), 2, 1), 0);
  AttentionPlanner zero_min(PlanConfig{0, 256, 100, true});
  EXPECT_EQ(zero_min.plan_chunk_size(lens.data(), 2, 1), 0);
}

TEST(PlanChunkSize, LargeBatch) {
  std::vector<int> lens(10000);
  for (int i = 0; i < 10000; ++i)
    lens[i] = 1 + (i * 7919) % 32768; // mean ~16K: fits between the bounds
  AttentionPlanner p;
  const int c = p.plan_chunk_size(lens.data(), 10000, 1);
  EXPECT_GT(c, 256);
  EXPECT_LT(c, 4096);
  // The smallest fitting chunk: c fits and c - 1 does not.
  auto count = [&](int chunk) {
    long n = 0;
    for (int l : lens)
      n += (l + chunk - 1) / chunk;
    return n;
  };
  EXPECT_LE(count(c), 65536);
  EXPECT_GT(count(c - 1), 65536);
}

// --- generate (§6.3.5) ----------------------------------------------------

TEST(Generate, OrderIdsFlagsAndParams) {
  AttentionPlanner p(PlanConfig{256, 4096, 65536, false});
  Plan plan = run(p, {600, 256}, 2, 256);
  ASSERT_EQ(plan.result, PlanResult::OK);
  ASSERT_EQ(plan.count, 8); // (3 + 1) chunks x 2 heads
  struct E {
    uint32_t req, head, start, len;
    uint8_t flags;
  } expect[] = {{0, 0, 0, 256, F | I},     {0, 0, 256, 256, 0},
                {0, 0, 512, 88, L},        {0, 1, 0, 256, F | I},
                {0, 1, 256, 256, 0},       {0, 1, 512, 88, L},
                {1, 0, 0, 256, F | I | L}, {1, 1, 0, 256, F | I | L}};
  for (int i = 0; i < 8; ++i) {
    const WorkDescriptor &d = plan.descs[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(d.work_id, (uint32_t)i);
    EXPECT_EQ(d.tier, 0);
    EXPECT_EQ(d.reserved, 0);
    EXPECT_EQ(d.flags, expect[i].flags);
    EXPECT_EQ(params::Attention::request_idx(d), expect[i].req);
    EXPECT_EQ(params::Attention::head_idx(d), expect[i].head);
    EXPECT_EQ(params::Attention::kv_start(d), expect[i].start);
    EXPECT_EQ(params::Attention::kv_len(d), expect[i].len);
  }
}

TEST(Generate, BalancedChunksDifferByAtMostOne) {
  AttentionPlanner p(PlanConfig{256, 4096, 65536, true});
  Plan plan = run(p, {600}, 1, 256); // 3 chunks: 200, 200, 200
  ASSERT_EQ(plan.result, PlanResult::OK);
  ASSERT_EQ(plan.count, 3);
  EXPECT_EQ(params::Attention::kv_len(plan.descs[0]), 200u);
  EXPECT_EQ(params::Attention::kv_start(plan.descs[2]), 400u);
  Plan odd = run(p, {602}, 1, 256); // 201, 201, 200
  EXPECT_EQ(params::Attention::kv_len(odd.descs[0]), 201u);
  EXPECT_EQ(params::Attention::kv_len(odd.descs[1]), 201u);
  EXPECT_EQ(params::Attention::kv_len(odd.descs[2]), 200u);
  EXPECT_EQ(params::Attention::kv_start(odd.descs[2]), 402u);
}

TEST(Generate, LengthOne) {
  AttentionPlanner p;
  Plan plan = run(p, {1}, 3, 256);
  ASSERT_EQ(plan.result, PlanResult::OK);
  ASSERT_EQ(plan.count, 3);
  for (const WorkDescriptor &d : plan.descs) {
    EXPECT_EQ(d.flags, F | L | I);
    EXPECT_EQ(params::Attention::kv_len(d), 1u);
    EXPECT_EQ(d.tier, 0);
  }
}

TEST(Generate, ExactMultipleOfChunk) {
  for (bool balanced : {false, true}) {
    AttentionPlanner p(PlanConfig{256, 4096, 65536, balanced});
    Plan plan = run(p, {1024}, 1, 256);
    ASSERT_EQ(plan.count, 4);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(params::Attention::kv_start(plan.descs[i]), 256u * i);
      EXPECT_EQ(params::Attention::kv_len(plan.descs[i]), 256u);
    }
    EXPECT_EQ(plan.descs[3].flags, L);
  }
}

TEST(Generate, TierBoundaries) {
  AttentionPlanner p;
  Plan plan = run(p, {1024, 1025, 4096, 4097, 16384, 16385, 131072}, 1, 4096);
  ASSERT_EQ(plan.result, PlanResult::OK);
  // The tier comes from the sequence length, not the chunk length.
  std::vector<int> tier_of_first;
  for (const WorkDescriptor &d : plan.descs) {
    if (d.is_first())
      tier_of_first.push_back(d.tier);
  }
  EXPECT_EQ(tier_of_first, (std::vector<int>{0, 1, 1, 2, 2, 3, 3}));
  for (const WorkDescriptor &d : plan.descs) {
    if (params::Attention::request_idx(d) == 6) {
      EXPECT_EQ(d.tier, 3);
    }
  }
}

TEST(Generate, UnsupportedSize) {
  AttentionPlanner p;
  for (int len : {131073, INT_MAX}) {
    Plan plan = run(p, {100, len}, 1, 4096, 1000);
    EXPECT_EQ(plan.result, PlanResult::UNSUPPORTED_SIZE) << len;
    EXPECT_EQ(plan.count, 0);
  }
}

TEST(Generate, ZeroLengthProducesNoWork) {
  AttentionPlanner p;
  Plan plan = run(p, {0, 300, 0}, 2, 256);
  ASSERT_EQ(plan.result, PlanResult::OK);
  ASSERT_EQ(plan.count, 4); // only request 1: 2 chunks x 2 heads
  for (const WorkDescriptor &d : plan.descs)
    EXPECT_EQ(params::Attention::request_idx(d), 1u);
  Plan none = run(p, {0, 0}, 4, 256);
  EXPECT_EQ(none.result, PlanResult::OK);
  EXPECT_EQ(none.count, 0);
}

TEST(Generate, BufferOverflowWritesNothing) {
  AttentionPlanner p;
  std::vector<int> lens = {1000, 1000};
  std::vector<WorkDescriptor> buf(5);
  for (WorkDescriptor &d : buf)
    d.work_id = 77;
  int count = 0;
  // Needs 2 x 4 = 8 descriptors; capacity 5.
  EXPECT_EQ(p.generate(lens.data(), 2, 1, 256, buf.data(), 5, &count),
            PlanResult::BUFFER_OVERFLOW);
  EXPECT_EQ(count, 8) << "the required count is reported";
  for (const WorkDescriptor &d : buf)
    EXPECT_EQ(d.work_id, 77u);
  // Exactly enough is fine.
  buf.resize(8);
  EXPECT_EQ(p.generate(lens.data(), 2, 1, 256, buf.data(), 8, &count),
            PlanResult::OK);
  EXPECT_EQ(count, 8);
}

TEST(Generate, OverflowCountSaturates) {
  AttentionPlanner p(PlanConfig{1, 4096, 65536, true});
  std::vector<int> lens(4, 131072);
  WorkDescriptor one{};
  int count = 0;
  EXPECT_EQ(p.generate(lens.data(), 4, 8192, 1, &one, 1, &count),
            PlanResult::BUFFER_OVERFLOW);
  EXPECT_EQ(count, INT_MAX); // 4 * 131072 * 8192 does not fit an int
}

TEST(Generate, InvalidParams) {
  AttentionPlanner p;
  std::vector<int> lens = {100};
  WorkDescriptor buf[4];
  int count = 5;
  auto gen = [&](const int *l, int b, int h, int c, WorkDescriptor *o, int cap,
                 int *n) { return p.generate(l, b, h, c, o, cap, n); };
  EXPECT_EQ(gen(nullptr, 1, 1, 256, buf, 4, &count),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(count, 0);
  EXPECT_EQ(gen(lens.data(), 1, 1, 256, nullptr, 4, &count),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(gen(lens.data(), 1, 1, 256, buf, 4, nullptr),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(gen(lens.data(), 0, 1, 256, buf, 4, &count),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(gen(lens.data(), 1, 0, 256, buf, 4, &count),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(gen(lens.data(), 1, 1, 0, buf, 4, &count),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(gen(lens.data(), 1, 1, -256, buf, 4, &count),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(gen(lens.data(), 1, 1, 256, buf, -1, &count),
            PlanResult::INVALID_PARAMS);
  AttentionPlanner bad(PlanConfig{4096, 256, 100, true}); // chunk_min > max
  EXPECT_EQ(bad.generate(lens.data(), 1, 1, 256, buf, 4, &count),
            PlanResult::INVALID_PARAMS);
}

TEST(Generate, ErrorPrecedence) {
  AttentionPlanner p;
  WorkDescriptor buf[1];
  int count = 0;
  // An unsupported length before a negative one: INVALID_PARAMS wins.
  std::vector<int> lens = {200000, -1};
  EXPECT_EQ(p.generate(lens.data(), 2, 1, 256, buf, 1, &count),
            PlanResult::INVALID_PARAMS);
  // Unsupported and too big for the buffer: UNSUPPORTED_SIZE wins.
  std::vector<int> lens2 = {5000, 200000};
  EXPECT_EQ(p.generate(lens2.data(), 2, 1, 256, buf, 1, &count),
            PlanResult::UNSUPPORTED_SIZE);
}

TEST(Generate, StaticSpaceDimsPinArguments) {
  using Pinned = WorkPlanner<AttentionSpace<2, 4>, DecodeAttentionTiers,
                             params::Attention>;
  Pinned p;
  std::vector<int> lens = {100, 200};
  WorkDescriptor buf[16];
  int count = 0;
  EXPECT_EQ(p.generate(lens.data(), 2, 4, 256, buf, 16, &count),
            PlanResult::OK);
  EXPECT_EQ(count, 8);
  EXPECT_EQ(p.generate(lens.data(), 2, 3, 256, buf, 16, &count),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(p.generate(lens.data(), 1, 4, 256, buf, 16, &count),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(p.plan_chunk_size(lens.data(), 2, 3), 0);
}

TEST(Generate, MoEPattern) {
  using MoEPlanner =
      WorkPlanner<MoESpace<>, TierConfig<Tier<0, 1, 512>>, params::MoE>;
  MoEPlanner p(PlanConfig{64, 512, 1024, false});
  std::vector<int> tokens = {100, 0, 64};
  WorkDescriptor buf[16];
  int count = 0;
  ASSERT_EQ(p.generate(tokens.data(), 3, 2, 64, buf, 16, &count),
            PlanResult::OK);
  ASSERT_EQ(count, 6); // (2 + 0 + 1) chunks x 2
  EXPECT_EQ(params::MoE::batch_idx(buf[0]), 0u);
  EXPECT_EQ(params::MoE::expert_idx(buf[2]), 1u);
  EXPECT_EQ(params::MoE::token_start(buf[1]), 64u);
  EXPECT_EQ(params::MoE::token_count(buf[1]), 36u);
  EXPECT_EQ(params::MoE::batch_idx(buf[4]), 2u);
}

TEST(Generate, MoEPerExpertPattern) {
  // Token counts per expert; one batch group.
  using Planner = WorkPlanner<MoESpace<>, TierConfig<Tier<0, 1, 4096>>,
                              params::MoEPerExpert>;
  Planner p(PlanConfig{64, 512, 1024, false});
  std::vector<int> tokens = {100, 0, 64, 7};
  WorkDescriptor buf[16];
  int count = 0;
  ASSERT_EQ(p.generate(tokens.data(), 4, 1, 64, buf, 16, &count),
            PlanResult::OK);
  ASSERT_EQ(count, 4); // 2 + 0 + 1 + 1 chunks
  EXPECT_EQ(params::MoE::expert_idx(buf[0]), 0u);
  EXPECT_EQ(params::MoE::batch_idx(buf[0]), 0u);
  EXPECT_EQ(params::MoE::token_count(buf[1]), 36u);
  EXPECT_EQ(params::MoE::expert_idx(buf[2]), 2u);
  EXPECT_EQ(params::MoE::expert_idx(buf[3]), 3u);
  EXPECT_EQ(params::MoE::token_count(buf[3]), 7u);
  EXPECT_EQ(buf[3].flags, F | L | I);
}

TEST(Generate, TierListPlannerEqualsTemplatePlanner) {
  using ListPlanner =
      WorkPlanner<AttentionSpace<>, TierList, params::Attention>;
  ListPlanner list(PlanConfig{256, 4096, 300, true},
                   TierList({{0, 1, 1024}, {1, 1025, 4096},
                             {2, 4097, 16384}, {3, 16385, 131072}}));
  AttentionPlanner templ(PlanConfig{256, 4096, 300, true});
  std::vector<int> lens = {1, 1024, 1025, 5000, 0, 131072, 77};
  const int c = list.plan_chunk_size(lens.data(), 7, 3);
  ASSERT_EQ(c, templ.plan_chunk_size(lens.data(), 7, 3));
  Plan a = run(templ, lens, 3, c);
  const int cap = list.get_total_work(lens.data(), 7, 3, c);
  std::vector<WorkDescriptor> b(cap);
  int count = 0;
  ASSERT_EQ(list.generate(lens.data(), 7, 3, c, b.data(), cap, &count),
            PlanResult::OK);
  ASSERT_EQ(count, a.count);
  EXPECT_EQ(0, std::memcmp(a.descs.data(), b.data(),
                           sizeof(WorkDescriptor) * count));
  std::vector<int> bad = {200000};
  EXPECT_EQ(list.generate(bad.data(), 1, 1, c, b.data(), cap, &count),
            PlanResult::UNSUPPORTED_SIZE);
}

TEST(Generate, BatchOfTenThousand) {
  std::vector<int> lens(10000);
  for (int i = 0; i < 10000; ++i)
    lens[i] = 1 + (i * 104729) % 32768;
  AttentionPlanner p;
  const int c = p.plan_chunk_size(lens.data(), 10000, 1);
  Plan plan = run(p, lens, 1, c);
  ASSERT_EQ(plan.result, PlanResult::OK);
  EXPECT_LE(plan.count, 65536);
  // Coverage: the chunks of each request tile [0, len) in order.
  std::vector<uint32_t> next(10000, 0);
  for (const WorkDescriptor &d : plan.descs) {
    const uint32_t r = params::Attention::request_idx(d);
    ASSERT_EQ(params::Attention::kv_start(d), next[r]);
    next[r] = params::Attention::kv_end(d);
  }
  for (int i = 0; i < 10000; ++i)
    ASSERT_EQ(next[i], (uint32_t)lens[i]);
}

// --- get_total_work (§8.2) ---------------------------------------------------

TEST(GetTotalWork, CountsAndErrors) {
  AttentionPlanner p;
  std::vector<int> lens = {1, 256, 257, 0};
  EXPECT_EQ(p.get_total_work(lens.data(), 4, 3, 256), (1 + 1 + 2 + 0) * 3);
  EXPECT_EQ(p.get_total_work(nullptr, 4, 3, 256), -1);
  EXPECT_EQ(p.get_total_work(lens.data(), 4, 3, 0), -1);
  EXPECT_EQ(p.get_total_work(lens.data(), 0, 3, 256), -1);
  std::vector<int> negative = {5, -5};
  EXPECT_EQ(p.get_total_work(negative.data(), 2, 1, 256), -1);
  std::vector<int> huge(4, INT_MAX);
  EXPECT_EQ(p.get_total_work(huge.data(), 4, 1, 1), -1) << "does not fit int";
}

// --- parallel generation (§6.5.2) ------------------------------------------

TEST(GenerateParallel, EqualsSerial) {
  std::vector<int> lens(777);
  for (int i = 0; i < 777; ++i)
    lens[i] = (i * 31337) % 20000; // includes zeros
  AttentionPlanner p;
  const int c = p.plan_chunk_size(lens.data(), 777, 4);
  Plan serial = run(p, lens, 4, c);
  ASSERT_EQ(serial.result, PlanResult::OK);
  for (int threads : {1, 2, 3, 8, 1000}) {
    std::vector<WorkDescriptor> par(serial.count);
    int count = 0;
    ASSERT_EQ(p.generate_parallel(lens.data(), 777, 4, c, par.data(),
                                  serial.count, &count, threads),
              PlanResult::OK);
    ASSERT_EQ(count, serial.count);
    EXPECT_EQ(0, std::memcmp(par.data(), serial.descs.data(),
                             sizeof(WorkDescriptor) * count))
        << threads << " threads";
  }
}

TEST(GenerateParallel, SameErrors) {
  AttentionPlanner p;
  std::vector<int> lens = {100, 200000};
  WorkDescriptor buf[4];
  int count = 0;
  EXPECT_EQ(p.generate_parallel(lens.data(), 2, 1, 256, buf, 4, &count, 2),
            PlanResult::UNSUPPORTED_SIZE);
  EXPECT_EQ(p.generate_parallel(lens.data(), 2, 1, 256, buf, 4, &count, 0),
            PlanResult::INVALID_PARAMS);
  std::vector<int> ok = {1000, 1000};
  EXPECT_EQ(p.generate_parallel(ok.data(), 2, 1, 256, buf, 4, &count, 2),
            PlanResult::BUFFER_OVERFLOW);
  EXPECT_EQ(count, 8);
}
