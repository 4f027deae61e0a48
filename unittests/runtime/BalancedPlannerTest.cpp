// The balanced planner's invariants on random inputs: every KV position of
// every (request, KV head) covered exactly once, in KV order, cut only at
// block boundaries; each descriptor on exactly one core; a consistent merge
// plan; determinism; batch invariance; the spec's error codes; and a run
// through the persistent launcher.
#include <pto/runtime/balanced_planner.hpp>
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <vector>

using namespace pto::runtime;

namespace {

std::vector<int> random_lengths(std::mt19937 &rng, int batch) {
  std::vector<int> lens(batch);
  for (int &l : lens) {
    switch (rng() % 4) {
    case 0:
      l = 0;
      break;
    case 1:
      l = 1 + rng() % 64;
      break;
    case 2:
      l = 1 + rng() % 8192;
      break;
    default:
      l = 1 + rng() % 131072;
    }
  }
  return lens;
}

void check_invariants(const std::vector<int> &lens, int heads,
                      const BalancedConfig &config, const BalancedPlan &p,
                      const std::vector<int> &q_lens = {}) {
  const int n = p.count;
  // Rows: every nonempty (request, head), in order, pieces contiguous in
  // KV order from 0 to len, block-aligned cuts, FIRST/INIT and LAST.
  int row = 0;
  for (int b = 0; b < static_cast<int>(lens.size()); ++b) {
    if (lens[b] == 0)
      continue;
    for (int h = 0; h < heads; ++h, ++row) {
      ASSERT_LT(row, p.rows);
      const int begin = p.merge_indptr[row], end = p.merge_indptr[row + 1];
      ASSERT_LT(begin, end) << "row " << row << " has no piece";
      uint32_t next = 0;
      for (int i = begin; i < end; ++i) {
        const WorkDescriptor &d = p.descriptors[i];
        ASSERT_EQ(d.work_id, static_cast<uint32_t>(i));
        ASSERT_EQ(params::Attention::request_idx(d), static_cast<uint32_t>(b));
        ASSERT_EQ(params::Attention::head_idx(d), static_cast<uint32_t>(h));
        ASSERT_EQ(params::Attention::kv_start(d), next) << "gap or overlap";
        ASSERT_GT(params::Attention::kv_len(d), 0u);
        ASSERT_EQ(d.is_first(), i == begin);
        ASSERT_EQ(d.is_init(), i == begin);
        ASSERT_EQ(d.is_last(), i == end - 1);
        ASSERT_EQ(d.tier, DecodeAttentionTiers::select_tier(lens[b]));
        next = params::Attention::kv_end(d);
        if (i != end - 1) { // cut only at a block boundary
          ASSERT_EQ(next % config.block_size, 0u);
        }
      }
      ASSERT_EQ(next, static_cast<uint32_t>(lens[b])) << "row not covered";
    }
  }
  ASSERT_EQ(row, p.rows);
  ASSERT_EQ(p.merge_indptr[p.rows], n);
  // Cores: the CSR lists partition the descriptors.
  ASSERT_EQ(static_cast<int>(p.core_indptr.size()), config.num_cores + 1);
  ASSERT_EQ(p.core_indptr[0], 0);
  ASSERT_EQ(p.core_indptr[config.num_cores], n);
  std::vector<int> seen(n, 0);
  for (int c = 0; c < config.num_cores; ++c) {
    ASSERT_LE(p.core_indptr[c], p.core_indptr[c + 1]);
    int64_t cost = 0;
    for (int i = p.core_indptr[c]; i < p.core_indptr[c + 1]; ++i) {
      const WorkDescriptor &d = p.descriptors[p.core_items[i]];
      ++seen[p.core_items[i]];
      const int q =
          q_lens.empty() ? 1 : q_lens[params::Attention::request_idx(d)];
      cost += config.cost.per_unit +
              config.cost.per_token * q * params::Attention::kv_len(d) +
              (d.is_first() ? 0 : config.cost.per_merge);
    }
    ASSERT_EQ(cost, p.core_cost[c]) << "core " << c;
  }
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(seen[i], 1) << "descriptor " << i;
}

} // namespace

TEST(BalancedPlanner, InvariantsOnRandomInputs) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const int batch = 1 + rng() % 300;
    const int heads = 1 + rng() % 8;
    std::vector<int> lens = random_lengths(rng, batch);
    BalancedConfig config;
    config.num_cores = 1 + rng() % 264;
    config.block_size = trial % 2 ? 16 : 128;
    config.batch_invariant = trial % 3 == 0;
    config.invariant_chunk = 256 + rng() % 4096;
    BalancedPlan plan;
    ASSERT_EQ(plan_balanced(lens.data(), batch, heads, config,
                            DecodeAttentionTiers{}, &plan),
              PlanResult::OK);
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    check_invariants(lens, heads, config, plan);
  }
}

TEST(BalancedPlanner, Deterministic) {
  std::mt19937 rng(11);
  std::vector<int> lens = random_lengths(rng, 500);
  BalancedConfig config;
  config.num_cores = 48;
  BalancedPlan a, b;
  ASSERT_EQ(
      plan_balanced(lens.data(), 500, 4, config, DecodeAttentionTiers{}, &a),
      PlanResult::OK);
  ASSERT_EQ(
      plan_balanced(lens.data(), 500, 4, config, DecodeAttentionTiers{}, &b),
      PlanResult::OK);
  ASSERT_EQ(a.count, b.count);
  EXPECT_EQ(0, std::memcmp(a.descriptors.data(), b.descriptors.data(),
                           sizeof(WorkDescriptor) * a.count));
  EXPECT_EQ(a.core_indptr, b.core_indptr);
}

TEST(BalancedPlanner, BatchInvariantBoundariesDependOnlyOnTheLength) {
  // The same request (length 10000) in two different batches is cut the
  // same way.
  BalancedConfig config;
  config.num_cores = 24;
  config.batch_invariant = true;
  config.invariant_chunk = 1024;
  auto pieces_of_first = [&](std::vector<int> lens) {
    BalancedPlan p;
    EXPECT_EQ(plan_balanced(lens.data(), static_cast<int>(lens.size()), 2,
                            config, DecodeAttentionTiers{}, &p),
              PlanResult::OK);
    std::vector<std::pair<uint32_t, uint32_t>> cuts;
    for (int i = p.merge_indptr[0]; i < p.merge_indptr[1]; ++i)
      cuts.emplace_back(params::Attention::kv_start(p.descriptors[i]),
                        params::Attention::kv_len(p.descriptors[i]));
    return cuts;
  };
  auto alone = pieces_of_first({10000});
  auto crowded = pieces_of_first({10000, 5, 130000, 777, 4096, 1});
  EXPECT_EQ(alone, crowded);
  ASSERT_EQ(alone.size(), 10u); // ceil(10000 / 1024)
  EXPECT_EQ(alone.back(), std::make_pair(9216u, 784u));
}

TEST(BalancedPlanner, SweepBalancesSkewedLengths) {
  // One very long request among short ones: the sweep splits it across
  // cores so that no core is far above the average.
  std::vector<int> lens(64, 300);
  lens[5] = 120000;
  BalancedConfig config;
  config.num_cores = 48;
  BalancedPlan plan;
  ASSERT_EQ(
      plan_balanced(lens.data(), 64, 2, config, DecodeAttentionTiers{}, &plan),
      PlanResult::OK);
  check_invariants(lens, 2, config, plan);
  int64_t total = 0, most = 0;
  for (int64_t c : plan.core_cost) {
    total += c;
    most = std::max(most, c);
  }
  EXPECT_LE(most, total / 48 + 64 + 64 + config.block_size);
}

TEST(BalancedPlanner, Errors) {
  std::vector<int> lens = {100, 200};
  BalancedConfig config;
  BalancedPlan plan;
  auto plan_with = [&](const int *l, int b, int h, const BalancedConfig &c,
                       BalancedPlan *p) {
    return plan_balanced(l, b, h, c, DecodeAttentionTiers{}, p);
  };
  EXPECT_EQ(plan_with(nullptr, 2, 1, config, &plan),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan_with(lens.data(), 0, 1, config, &plan),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan_with(lens.data(), 2, 0, config, &plan),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan_with(lens.data(), 2, 1, config, nullptr),
            PlanResult::INVALID_PARAMS);
  BalancedConfig bad = config;
  bad.num_cores = 0;
  EXPECT_EQ(plan_with(lens.data(), 2, 1, bad, &plan),
            PlanResult::INVALID_PARAMS);
  bad = config;
  bad.block_size = 0;
  EXPECT_EQ(plan_with(lens.data(), 2, 1, bad, &plan),
            PlanResult::INVALID_PARAMS);
  std::vector<int> negative = {5, -1};
  EXPECT_EQ(plan_with(negative.data(), 2, 1, config, &plan),
            PlanResult::INVALID_PARAMS);
  std::vector<int> huge = {5, 200000};
  EXPECT_EQ(plan_with(huge.data(), 2, 1, config, &plan),
            PlanResult::UNSUPPORTED_SIZE);
}

// Issue 18's findings: invalid parameters win whatever their position;
// extreme but representable inputs are UNSUPPORTED_SIZE, with no signed
// overflow (UBSan) and no unbounded allocation (ASan), and nothing written.
TEST(BalancedPlanner, ErrorPrecedenceDoesNotDependOnPosition) {
  BalancedConfig config;
  BalancedPlan plan;
  // An uncovered length before a negative one: still INVALID_PARAMS.
  std::vector<int> lens = {200000, -1};
  EXPECT_EQ(plan_balanced(lens.data(), 2, 1, config, DecodeAttentionTiers{},
                          &plan),
            PlanResult::INVALID_PARAMS);
  // Too many cores and a negative length: INVALID_PARAMS first.
  BalancedConfig many = config;
  many.num_cores = INT32_MAX;
  EXPECT_EQ(plan_balanced(lens.data(), 2, 1, many, DecodeAttentionTiers{},
                          &plan),
            PlanResult::INVALID_PARAMS);
}

TEST(BalancedPlanner, ExtremeInputsAreUnsupportedNotUndefined) {
  BalancedPlan plan;
  std::vector<int> lens = {100000, 131072, 5};
  // A core count of INT32_MAX: num_cores + 1 would overflow.
  BalancedConfig many;
  many.num_cores = INT32_MAX;
  EXPECT_EQ(plan_balanced(lens.data(), 3, 8, many, DecodeAttentionTiers{},
                          &plan),
            PlanResult::UNSUPPORTED_SIZE);
  std::vector<int> indptr(4), merge(32);
  std::vector<WorkDescriptor> descs(64);
  int count = -7;
  // Into caller buffers, a core_indptr of 4 for INT32_MAX cores is too
  // short: INVALID_PARAMS comes first, num_cores + 1 compared in 64 bits.
  EXPECT_EQ(plan_balanced_into(lens.data(), 3, 8, many, DecodeAttentionTiers{},
                               descs.data(), 64, indptr.data(), 4, merge.data(),
                               32, &count),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(count, -7);
  // Cost coefficients that would overflow the plan's cost.
  for (int which = 0; which < 3; ++which) {
    BalancedConfig costly;
    (which == 0   ? costly.cost.per_token
     : which == 1 ? costly.cost.per_unit
                  : costly.cost.per_merge) = INT64_MAX;
    EXPECT_EQ(plan_balanced(lens.data(), 3, 8, costly, DecodeAttentionTiers{},
                            &plan),
              PlanResult::UNSUPPORTED_SIZE)
        << which;
  }
  // Query tokens times KV tokens times heads past 64 bits of cost.
  std::vector<int> long_lens(64, 131072), q_lens(64, 131072);
  BalancedConfig costly;
  costly.cost.per_token = kMaxCostCoefficient;
  EXPECT_EQ(plan_balanced(long_lens.data(), 64, INT32_MAX / 2, costly,
                          DecodeAttentionTiers{}, &plan, q_lens.data()),
            PlanResult::UNSUPPORTED_SIZE);
  // A plan of more pieces than the vector form sizes for: no allocation of
  // batch x heads, UNSUPPORTED_SIZE.
  std::vector<int> many_rows(1024, 16);
  EXPECT_EQ(plan_balanced(many_rows.data(), 1024, 1 << 20, BalancedConfig{},
                          DecodeAttentionTiers{}, &plan),
            PlanResult::UNSUPPORTED_SIZE);
  EXPECT_TRUE(plan.descriptors.empty());
}

TEST(BalancedPlanner, PersistentLaunchRunsEachCoresList) {
  std::mt19937 rng(3);
  std::vector<int> lens = random_lengths(rng, 200);
  BalancedConfig config;
  config.num_cores = 48;
  BalancedPlan plan;
  ASSERT_EQ(
      plan_balanced(lens.data(), 200, 4, config, DecodeAttentionTiers{}, &plan),
      PlanResult::OK);
  std::vector<std::atomic<int>> ran(plan.count);
  std::vector<std::atomic<int>> on(plan.count);
  sim::LaunchReport report;
  ASSERT_EQ(sim::run_persistent(
                sim::CoreKind::Vector, 48, plan.descriptors.data(), plan.count,
                plan.core_indptr.data(), plan.core_items.data(),
                [&](const WorkDescriptor &d) {
                  ++ran[d.work_id];
                  on[d.work_id] = get_block_idx();
                },
                &report),
            PlanResult::OK);
  for (int c = 0; c < 48; ++c)
    for (int i = plan.core_indptr[c]; i < plan.core_indptr[c + 1]; ++i) {
      EXPECT_EQ(ran[plan.core_items[i]], 1);
      EXPECT_EQ(on[plan.core_items[i]], c);
    }
  EXPECT_EQ(report.total_descriptors(), static_cast<uint64_t>(plan.count));
  // Null items: the identity list, the same runs.
  std::vector<std::atomic<int>> ran_identity(plan.count);
  ASSERT_EQ(sim::run_persistent(sim::CoreKind::Vector, 48,
                                plan.descriptors.data(), plan.count,
                                plan.core_indptr.data(), nullptr,
                                [&](const WorkDescriptor &d) {
                                  ++ran_identity[d.work_id];
                                  EXPECT_EQ(on[d.work_id], get_block_idx());
                                }),
            PlanResult::OK);
  for (int i = 0; i < plan.count; ++i)
    EXPECT_EQ(ran_identity[i], 1);
  std::vector<int> bad_indptr(49, 0);
  bad_indptr[48] = plan.count + 1;
  EXPECT_EQ(sim::run_persistent(sim::CoreKind::Vector, 48,
                                plan.descriptors.data(), plan.count,
                                bad_indptr.data(), plan.core_items.data(),
                                [](const WorkDescriptor &) {}),
            PlanResult::INVALID_PARAMS);
}

// The allocation-free form (what emitted AICPU code calls) writes the same
// plan as the vector form, byte for byte.
TEST(BalancedPlanner, IntoBuffersMatchesTheVectorForm) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    const int batch = 1 + rng() % 300, heads = 1 + rng() % 8;
    std::vector<int> lens = random_lengths(rng, batch);
    BalancedConfig config;
    config.num_cores = 1 + rng() % 100;
    config.block_size = 1 << (rng() % 7);
    config.batch_invariant = rng() % 3 == 0;
    BalancedPlan plan;
    ASSERT_EQ(plan_balanced(lens.data(), batch, heads, config,
                            DecodeAttentionTiers{}, &plan),
              PlanResult::OK);
    std::vector<WorkDescriptor> descs(plan.descriptors.size() + 3);
    std::vector<int> indptr(config.num_cores + 1, -7),
        merge(batch * heads + 1, -7);
    std::vector<int64_t> cost(config.num_cores, -7);
    int count = -1, rows = -1;
    ASSERT_EQ(plan_balanced_into(lens.data(), batch, heads, config,
                                 DecodeAttentionTiers{}, descs.data(),
                                 static_cast<int>(descs.size()), indptr.data(),
                                 static_cast<int>(indptr.size()), merge.data(),
                                 static_cast<int>(merge.size()), &count, &rows,
                                 cost.data()),
              PlanResult::OK);
    ASSERT_EQ(count, plan.count);
    ASSERT_EQ(rows, plan.rows);
    EXPECT_EQ(std::memcmp(descs.data(), plan.descriptors.data(),
                          count * sizeof(WorkDescriptor)),
              0);
    EXPECT_EQ(indptr, plan.core_indptr);
    EXPECT_EQ(std::vector<int>(merge.begin(), merge.begin() + rows + 1),
              plan.merge_indptr);
    EXPECT_EQ(cost, plan.core_cost);
  }
}

// Too little room: BUFFER_OVERFLOW with the count the planner needs and
// nothing written; a short core_indptr is INVALID_PARAMS.
TEST(BalancedPlanner, IntoBuffersOverflowWritesNothing) {
  std::vector<int> lens = {5000, 0, 100, 70000};
  BalancedConfig config;
  config.num_cores = 8;
  std::vector<int> indptr(9, -7), merge(4 * 2 + 1, -7);
  std::vector<WorkDescriptor> descs(64);
  for (WorkDescriptor &d : descs)
    d.work_id = 0xdead;
  int count = -1;
  auto plan_into = [&](int capacity, int indptr_size, int merge_size) {
    return plan_balanced_into(lens.data(), 4, 2, config,
                              DecodeAttentionTiers{}, descs.data(), capacity,
                              indptr.data(), indptr_size, merge.data(),
                              merge_size, &count);
  };
  // 3 nonempty requests x 2 heads = 6 rows; the sweep's bound: 6 + 8.
  EXPECT_EQ(plan_into(13, 9, 9), PlanResult::BUFFER_OVERFLOW);
  EXPECT_EQ(count, 14);
  EXPECT_EQ(plan_into(64, 9, 6), PlanResult::BUFFER_OVERFLOW);
  EXPECT_EQ(count, 14);
  EXPECT_EQ(plan_into(64, 8, 9), PlanResult::INVALID_PARAMS);
  for (const WorkDescriptor &d : descs)
    EXPECT_EQ(d.work_id, 0xdeadu);
  EXPECT_EQ(indptr, std::vector<int>(9, -7));
  EXPECT_EQ(merge, std::vector<int>(9, -7));
  EXPECT_EQ(plan_into(14, 9, 7), PlanResult::OK);
  EXPECT_EQ(indptr[8], count);
  EXPECT_EQ(merge[6], count);
}

// Query lengths weight a request's KV tokens (every query token reads every
// KV token): the invariants hold with the weighted costs, the cores carry
// equal weighted cost, and a long prefill row is cut finer than the same
// row in decode.
// Decode (no q_lens) is checked and summed in its own pass, one that
// vectorizes: its plans, costs and errors are those of the general pass,
// reached with q_len 1 for every request.
TEST(BalancedPlanner, DecodePassEqualsTheGeneralOne) {
  std::mt19937 rng(33);
  for (int trial = 0; trial < 60; ++trial) {
    const int batch = 1 + rng() % 300, heads = 1 + rng() % 8;
    std::vector<int> lens = random_lengths(rng, batch);
    if (trial % 5 == 1)
      lens[rng() % batch] = 200000; // no tier covers it
    if (trial % 5 == 2)
      lens[rng() % batch] = -3;
    std::vector<int> ones(batch, 1);
    BalancedConfig config;
    config.num_cores = 1 + rng() % 300;
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    BalancedPlan decode, general;
    const PlanResult a = plan_balanced(lens.data(), batch, heads, config,
                                       DecodeAttentionTiers{}, &decode);
    const PlanResult b =
        plan_balanced(lens.data(), batch, heads, config, DecodeAttentionTiers{},
                      &general, ones.data());
    ASSERT_EQ(a, b);
    if (a != PlanResult::OK)
      continue;
    ASSERT_EQ(decode.count, general.count);
    EXPECT_EQ(0,
              std::memcmp(decode.descriptors.data(), general.descriptors.data(),
                          decode.count * sizeof(WorkDescriptor)));
    EXPECT_EQ(decode.core_indptr, general.core_indptr);
    EXPECT_EQ(decode.core_cost, general.core_cost);
    EXPECT_EQ(decode.merge_indptr, general.merge_indptr);
  }
}

TEST(BalancedPlanner, QueryLengthsWeightTheCost) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 40; ++trial) {
    const int batch = 1 + rng() % 200, heads = 1 + rng() % 8;
    std::vector<int> lens = random_lengths(rng, batch);
    std::vector<int> q(batch);
    for (int b = 0; b < batch; ++b) // in [1, kv_len]
      q[b] = std::max(1, std::min<int>(lens[b], rng() % 4 == 0
                                                    ? 1 + rng() % 64
                                                    : 1));
    BalancedConfig config;
    config.num_cores = 1 + rng() % 100;
    config.batch_invariant = trial % 4 == 0;
    BalancedPlan plan;
    ASSERT_EQ(plan_balanced(lens.data(), batch, heads, config,
                            DecodeAttentionTiers{}, &plan, q.data()),
              PlanResult::OK);
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    check_invariants(lens, heads, config, plan, q);
  }
  // One 8192-token request with 8 query tokens among 63 decode requests of
  // 1024: weighted, it is half the work, so it spans about half the cores.
  std::vector<int> lens(64, 1024), q(64, 1);
  lens[0] = 8192;
  q[0] = 8;
  BalancedConfig config;
  config.num_cores = 32;
  BalancedPlan decode, mixed;
  ASSERT_EQ(plan_balanced(lens.data(), 64, 1, config, DecodeAttentionTiers{},
                          &decode),
            PlanResult::OK);
  ASSERT_EQ(plan_balanced(lens.data(), 64, 1, config, DecodeAttentionTiers{},
                          &mixed, q.data()),
            PlanResult::OK);
  const int decode_pieces = decode.merge_indptr[1] - decode.merge_indptr[0];
  const int mixed_pieces = mixed.merge_indptr[1] - mixed.merge_indptr[0];
  EXPECT_LE(decode_pieces, 4);
  EXPECT_GE(mixed_pieces, 14);
  EXPECT_LE(mixed_pieces, 18);
  // Bad query lengths: below 1, or more than the KV length (which counts
  // the new tokens).
  q[5] = 0;
  EXPECT_EQ(plan_balanced(lens.data(), 64, 1, config, DecodeAttentionTiers{},
                          &mixed, q.data()),
            PlanResult::INVALID_PARAMS);
  q[5] = 1025;
  EXPECT_EQ(plan_balanced(lens.data(), 64, 1, config, DecodeAttentionTiers{},
                          &mixed, q.data()),
            PlanResult::INVALID_PARAMS);
  q[5] = 1024;
  EXPECT_EQ(plan_balanced(lens.data(), 64, 1, config, DecodeAttentionTiers{},
                          &mixed, q.data()),
            PlanResult::OK);
}

// --- The lower bound on any plan's makespan ---------------------------------

namespace {
/// The bound by its definition, T = 1, 2, ...: each row in the fewest
/// pieces of cost <= T, all rows within cores x T.
int64_t naive_lower_bound(const std::vector<int> &lens, int heads,
                          const BalancedConfig &config) {
  const CostModel &c = config.cost;
  for (int64_t t = 1;; ++t) {
    int64_t total = 0;
    bool ok = true;
    for (int len : lens) {
      if (len == 0)
        continue;
      const int64_t w = int64_t(len) * c.per_token;
      int64_t best = -1;
      for (int64_t k = 1; k <= w + 1 && best < 0; ++k)
        if (w + k * c.per_unit + (k - 1) * c.per_merge <= k * t)
          best = w + k * c.per_unit + (k - 1) * c.per_merge;
      if (best < 0) {
        ok = false;
        break;
      }
      total += best * heads;
    }
    if (ok && total <= config.num_cores * t)
      return t;
  }
}
} // namespace

TEST(BalancedLowerBound, WorkedExample) {
  // One row of 1000 tokens on 4 cores, per_unit = per_merge = 64: four
  // pieces cost 1000 + 4 x 64 + 3 x 64 = 1448 = 4 x 362; at T = 361 four
  // pieces do not fit (936 > 4 x 233) and five cost 1576 > 4 x 361.
  BalancedConfig config;
  config.num_cores = 4;
  const int len = 1000;
  EXPECT_EQ(balanced_lower_bound(&len, 1, 1, config), 362);
}

TEST(BalancedLowerBound, EqualsItsDefinitionAndBoundsEveryPlan) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 300; ++trial) {
    const int batch = 1 + int(rng() % 6), heads = 1 + int(rng() % 3);
    std::vector<int> lens(batch);
    for (int &l : lens)
      l = rng() % 4 == 0 ? 0 : 1 + int(rng() % 300);
    BalancedConfig config;
    config.num_cores = 1 + int(rng() % 12);
    config.block_size = 1 << (rng() % 5);
    config.cost = {int64_t(rng() % 40), 1 + int64_t(rng() % 3),
                   int64_t(rng() % 40)};
    config.batch_invariant = rng() % 2 == 0;
    config.invariant_chunk = 16 + int(rng() % 200);
    const int64_t bound =
        balanced_lower_bound(lens.data(), batch, heads, config);
    bool any = false;
    for (int l : lens)
      any |= l > 0;
    ASSERT_EQ(bound, any ? naive_lower_bound(lens, heads, config) : 0)
        << "trial " << trial;
    BalancedPlan plan;
    ASSERT_EQ(plan_balanced(lens.data(), batch, heads, config,
                            DecodeAttentionTiers{}, &plan),
              PlanResult::OK);
    EXPECT_EQ(plan.lower_bound_cost, bound);
    const int64_t makespan =
        *std::max_element(plan.core_cost.begin(), plan.core_cost.end());
    EXPECT_GE(makespan, bound)
        << "trial " << trial << ": a plan beat the bound";
  }
}

TEST(BalancedLowerBound, BadInput) {
  BalancedConfig config;
  std::vector<int> lens = {5, -1};
  EXPECT_EQ(balanced_lower_bound(lens.data(), 2, 1, config), -1);
  EXPECT_EQ(balanced_lower_bound(nullptr, 2, 1, config), -1);
  lens = {5, 7};
  EXPECT_EQ(balanced_lower_bound(lens.data(), 0, 1, config), -1);
  EXPECT_EQ(balanced_lower_bound(lens.data(), 2, 0, config), -1);
  config.cost.per_token = 0;
  EXPECT_EQ(balanced_lower_bound(lens.data(), 2, 1, config), -1);
  config.cost.per_token = 1;
  std::vector<int> q = {0, 1};
  EXPECT_EQ(balanced_lower_bound(lens.data(), 2, 1, config, q.data()), -1);
  // Extreme lengths: a bound, not an overflow.
  lens = {INT_MAX, INT_MAX};
  config.num_cores = 1;
  config.cost = {kMaxCostCoefficient, 1, kMaxCostCoefficient};
  EXPECT_GT(balanced_lower_bound(lens.data(), 2, 1, config), 0);
}

// The plan as cuts (plan_sweep_into): each core's descriptors, expanded from
// its two cuts, are the materialized plan's, byte for byte, on random inputs
// of both modes (zero lengths, query lengths, one core to more cores than
// rows, random cost models and blocks).
namespace {

struct SweepForm {
  PlanResult result = PlanResult::OK;
  std::vector<SweepCut> cuts;
  std::vector<int64_t> cost;
  std::vector<WorkDescriptor> descriptors;
  int count = -1, rows = -1;
};

SweepForm plan_and_expand(const std::vector<int> &lens, int heads,
                          const BalancedConfig &config,
                          const std::vector<int> &q_lens) {
  SweepForm f;
  const int batch = static_cast<int>(lens.size());
  f.cuts.resize(config.num_cores + 1);
  f.cost.assign(config.num_cores, -1);
  const int *q = q_lens.empty() ? nullptr : q_lens.data();
  f.result = plan_sweep_into(lens.data(), batch, heads, config,
                             DecodeAttentionTiers{}, f.cuts.data(),
                             config.num_cores + 1, &f.count, &f.rows,
                             f.cost.data(), q);
  if (f.result != PlanResult::OK)
    return f;
  for (int c = 0; c < config.num_cores; ++c) {
    const int n = for_each_sweep_piece(
        lens.data(), batch, heads, config, DecodeAttentionTiers{}, f.cuts[c],
        f.cuts[c + 1],
        [&](const WorkDescriptor &d) { f.descriptors.push_back(d); });
    EXPECT_EQ(n, f.cuts[c + 1].desc - f.cuts[c].desc) << "core " << c;
  }
  return f;
}

void expect_same_plan(const std::vector<int> &lens, int heads,
                      const BalancedConfig &config,
                      const std::vector<int> &q_lens = {}) {
  BalancedPlan plan;
  ASSERT_EQ(plan_balanced(lens.data(), static_cast<int>(lens.size()), heads,
                          config, DecodeAttentionTiers{}, &plan,
                          q_lens.empty() ? nullptr : q_lens.data()),
            PlanResult::OK);
  SweepForm f = plan_and_expand(lens, heads, config, q_lens);
  ASSERT_EQ(f.result, PlanResult::OK);
  ASSERT_EQ(f.count, plan.count);
  ASSERT_EQ(f.rows, plan.rows);
  ASSERT_EQ(static_cast<int>(f.descriptors.size()), plan.count);
  for (int i = 0; i < plan.count; ++i)
    ASSERT_EQ(0, std::memcmp(&f.descriptors[i], &plan.descriptors[i],
                             sizeof(WorkDescriptor)))
        << "descriptor " << i << ": request "
        << params::Attention::request_idx(f.descriptors[i]) << " head "
        << params::Attention::head_idx(f.descriptors[i]) << " kv "
        << params::Attention::kv_start(f.descriptors[i]) << "+"
        << params::Attention::kv_len(f.descriptors[i]) << ", materialized kv "
        << params::Attention::kv_start(plan.descriptors[i]) << "+"
        << params::Attention::kv_len(plan.descriptors[i]);
  for (int c = 0; c <= config.num_cores; ++c)
    ASSERT_EQ(f.cuts[c].desc, plan.core_indptr[c]) << "core " << c;
  ASSERT_EQ(f.cost, plan.core_cost);
}

} // namespace

TEST(SweepCuts, ExpandToTheMaterializedPlan) {
  std::mt19937 rng(2026);
  for (int trial = 0; trial < 400; ++trial) {
    const int batch = 1 + rng() % (trial % 4 == 0 ? 2000 : 40);
    const int heads = 1 + rng() % 8;
    std::vector<int> lens = random_lengths(rng, batch);
    BalancedConfig config;
    config.num_cores = 1 + rng() % (trial % 5 == 0 ? 600 : 64);
    config.block_size = 1 + rng() % 256;
    config.cost.per_unit = rng() % 300;
    config.cost.per_token = 1 + rng() % 4;
    config.cost.per_merge = rng() % 300;
    config.batch_invariant = trial % 4 == 1;
    config.invariant_chunk = 1 + rng() % 8192;
    std::vector<int> q;
    if (trial % 3 == 2) {
      q.resize(batch);
      for (int b = 0; b < batch; ++b)
        q[b] = lens[b] > 0 ? 1 + static_cast<int>(rng() % std::min(lens[b], 8))
                           : 0;
    }
    SCOPED_TRACE(testing::Message()
                 << "trial " << trial << ": batch " << batch << ", heads "
                 << heads << ", cores " << config.num_cores << ", block "
                 << config.block_size << (config.batch_invariant ? ", invariant"
                                                                  : ""));
    expect_same_plan(lens, heads, config, q);
  }
}

TEST(SweepCuts, CornerCases) {
  BalancedConfig config;
  config.num_cores = 5;
  // Every length zero: every cut at the end, no pieces.
  expect_same_plan({0, 0, 0}, 4, config);
  // One core takes everything; more cores than rows; one row over every
  // core; rows that end exactly on a core's capacity.
  config.num_cores = 1;
  expect_same_plan({100, 0, 7000}, 2, config);
  config.num_cores = 264;
  expect_same_plan({3, 5}, 1, config);
  expect_same_plan({131072}, 1, config);
  config.num_cores = 4;
  config.cost = CostModel{0, 1, 0};
  config.block_size = 1;
  expect_same_plan({100, 100, 100, 100}, 1, config);
  expect_same_plan({0, 50, 0, 50, 0}, 3, config);
  // More cores than blocks (a fuzz finding): several cores start at the
  // same point inside a row; the ones between are empty, and the point's
  // descriptor count must not grow with its repeats.
  config.num_cores = 19;
  config.block_size = 60;
  config.cost = CostModel{0, 5, 124};
  expect_same_plan({255, 46}, 1, config);
}

TEST(SweepCuts, ErrorsAsTheMaterializedFormWithNothingWritten) {
  const BalancedConfig config;
  std::vector<SweepCut> cuts(config.num_cores + 1, SweepCut{-7, -7, -7, -7});
  std::vector<int64_t> cost(config.num_cores, -7);
  int count = -7;
  auto plan = [&](std::vector<int> lens, int heads, const BalancedConfig &c,
                  int cuts_size) {
    return plan_sweep_into(lens.data(), static_cast<int>(lens.size()), heads,
                           c, DecodeAttentionTiers{}, cuts.data(), cuts_size,
                           &count, nullptr, cost.data());
  };
  const int size = config.num_cores + 1;
  EXPECT_EQ(plan({100, -1}, 1, config, size), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan({200000, -1}, 1, config, size), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan({100}, 0, config, size), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan({5, 200000}, 1, config, size), PlanResult::UNSUPPORTED_SIZE);
  EXPECT_EQ(plan({100}, 1, config, size - 1), PlanResult::INVALID_PARAMS);
  BalancedConfig bad = config;
  bad.block_size = 0;
  EXPECT_EQ(plan({100}, 1, bad, size), PlanResult::INVALID_PARAMS);
  bad = config;
  bad.num_cores = kMaxBalancedCores + 1;
  EXPECT_EQ(plan({100}, 1, bad, kMaxBalancedCores + 2),
            PlanResult::UNSUPPORTED_SIZE);
  // Invalid parameters come first: a per-core buffer too short for the
  // cores asked for is INVALID_PARAMS whatever else is unsupported (the
  // core count itself, a cost coefficient, a length no tier covers), and
  // num_cores + 1 is compared without overflow.
  EXPECT_EQ(plan({100}, 1, bad, size), PlanResult::INVALID_PARAMS);
  bad.num_cores = INT32_MAX;
  EXPECT_EQ(plan({100}, 1, bad, size), PlanResult::INVALID_PARAMS);
  bad = config;
  bad.cost.per_unit = kMaxCostCoefficient + 1;
  EXPECT_EQ(plan({100}, 1, bad, size), PlanResult::UNSUPPORTED_SIZE);
  EXPECT_EQ(plan({100}, 1, bad, size - 1), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan({200000}, 1, config, size - 1), PlanResult::INVALID_PARAMS);
  // More pieces than 32-bit work ids.
  std::vector<int> many(1 << 16, 4096);
  EXPECT_EQ(plan(many, 1 << 15, config, size), PlanResult::UNSUPPORTED_SIZE);
  // A batch-invariant plan of more pieces than kMaxBalancedPieces (it walks
  // them): 2^13 pieces of 16 tokens per row, 2^12 rows.
  bad = config;
  bad.batch_invariant = true;
  bad.invariant_chunk = 16;
  EXPECT_EQ(plan({131072}, 1 << 12, bad, size), PlanResult::UNSUPPORTED_SIZE);
  EXPECT_EQ(plan_sweep_into(many.data(), 1, 1, config, DecodeAttentionTiers{},
                            nullptr, size, &count),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan_sweep_into(many.data(), 1, 1, config, DecodeAttentionTiers{},
                            cuts.data(), size, nullptr),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(count, -7);
  for (const SweepCut &c : cuts)
    EXPECT_EQ(c.request, -7);
  for (int64_t c : cost)
    EXPECT_EQ(c, -7);
}

// What the emitted AICPU function passes besides the cuts: the descriptor
// buffer's capacity (below the materialized form's bound: BUFFER_OVERFLOW
// with that count, nothing written) and the work lists (each core's first
// descriptor: the materialized plan's core_indptr).
TEST(SweepCuts, CapacityAndWorkListsAsTheMaterializedForm) {
  std::mt19937 rng(77);
  for (int trial = 0; trial < 50; ++trial) {
    const int batch = 1 + rng() % 64, heads = 1 + rng() % 8;
    std::vector<int> lens = random_lengths(rng, batch);
    BalancedConfig config;
    config.num_cores = 1 + rng() % 300;
    config.batch_invariant = trial % 5 == 4;
    BalancedPlan plan;
    ASSERT_EQ(plan_balanced(lens.data(), batch, heads, config,
                            DecodeAttentionTiers{}, &plan),
              PlanResult::OK);
    // The materialized form's bound on its buffer.
    std::vector<WorkDescriptor> none;
    std::vector<int> indptr(config.num_cores + 1), merge(plan.rows + 1);
    int bound = 0;
    ASSERT_EQ(plan_balanced_into(lens.data(), batch, heads, config,
                                 DecodeAttentionTiers{}, none.data(), 0,
                                 indptr.data(), config.num_cores + 1,
                                 merge.data(), plan.rows + 1, &bound),
              PlanResult::BUFFER_OVERFLOW); // the bound is >= num_cores
    const int size = config.num_cores + 1;
    std::vector<SweepCut> cuts(size, SweepCut{-7, -7, -7, -7});
    std::vector<int> lists(size, -7);
    int count = -7;
    auto sweep = [&](int capacity, int lists_size) {
      return plan_sweep_into(lens.data(), batch, heads, config,
                             DecodeAttentionTiers{}, cuts.data(), size, &count,
                             nullptr, nullptr, nullptr, capacity,
                             lists.data(), lists_size);
    };
    EXPECT_EQ(sweep(bound - 1, size), PlanResult::BUFFER_OVERFLOW);
    EXPECT_EQ(count, bound);
    for (int c = 0; c < size; ++c)
      ASSERT_TRUE(cuts[c].request == -7 && lists[c] == -7);
    EXPECT_EQ(sweep(bound, size - 1), PlanResult::INVALID_PARAMS);
    ASSERT_EQ(sweep(bound, size), PlanResult::OK);
    EXPECT_EQ(count, plan.count);
    for (int c = 0; c < size; ++c)
      ASSERT_EQ(lists[c], plan.core_indptr[c]) << "core " << c;
  }
}

// The sweep's rule against a naive reading of it: lay every row out in base
// cost one by one, put core c's start at c x ceil(total / cores), find its
// row by scanning, round its tokens to the nearest block (halves up), move
// a cut that leaves less than a block after it to the row's end, and price
// each core by summing its descriptors' piece costs.
TEST(SweepCuts, EachCoreStartsAtItsEvenShareRounded) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 200; ++trial) {
    const int batch = 1 + rng() % 50;
    const int heads = 1 + rng() % 6;
    std::vector<int> lens = random_lengths(rng, batch);
    BalancedConfig config;
    config.num_cores = 1 + rng() % 300;
    config.block_size = 1 + rng() % 200;
    config.cost.per_unit = rng() % 200;
    config.cost.per_token = 1 + rng() % 3;
    config.cost.per_merge = rng() % 200;
    const CostModel &cm = config.cost;
    std::vector<SweepCut> cuts(config.num_cores + 1);
    std::vector<int64_t> cost(config.num_cores);
    int count = 0;
    ASSERT_EQ(plan_sweep_into(lens.data(), batch, heads, config,
                              DecodeAttentionTiers{}, cuts.data(),
                              config.num_cores + 1, &count, nullptr,
                              cost.data()),
              PlanResult::OK);
    struct Row {
      int b, h;
      int64_t start, len;
    };
    std::vector<Row> rows;
    int64_t total = 0;
    for (int b = 0; b < batch; ++b)
      for (int h = 0; lens[b] > 0 && h < heads; ++h) {
        rows.push_back({b, h, total, lens[b]});
        total += cm.per_unit + cm.per_token * lens[b];
      }
    const int64_t share = (total + config.num_cores - 1) / config.num_cores;
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    for (int c = 0; c <= config.num_cores; ++c) {
      int64_t at = static_cast<int64_t>(c) * share;
      int eb = batch, eh = 0;
      int64_t ek = 0;
      if (c < config.num_cores && at < total) {
        size_t i = 0;
        while (i + 1 < rows.size() && rows[i + 1].start <= at)
          ++i;
        const int64_t in_row = at - rows[i].start;
        int64_t k = 0;
        if (in_row > cm.per_unit) {
          const int64_t tokens = (in_row - cm.per_unit) / cm.per_token;
          k = (tokens + config.block_size / 2) / config.block_size *
              config.block_size;
        }
        if (k > 0 && k > rows[i].len - config.block_size) { // < a block left
          ++i; // the next row's start, or the end
          k = 0;
        }
        if (i < rows.size()) {
          eb = rows[i].b;
          eh = rows[i].h;
          ek = k;
        }
      }
      ASSERT_EQ(cuts[c].request, eb) << "core " << c;
      ASSERT_EQ(cuts[c].head, eh) << "core " << c;
      ASSERT_EQ(cuts[c].kv, ek) << "core " << c;
    }
    // Each core's cost: its pieces' costs.
    for (int c = 0; c < config.num_cores; ++c) {
      int64_t sum = 0;
      for_each_sweep_piece(
          lens.data(), batch, heads, config, DecodeAttentionTiers{}, cuts[c],
          cuts[c + 1], [&](const WorkDescriptor &d) {
            sum += cm.piece(cm.per_token * params::Attention::kv_len(d),
                            d.is_first());
          });
      ASSERT_EQ(cost[c], sum) << "core " << c;
    }
  }
}
