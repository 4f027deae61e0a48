// RowPlan (incremental_planner.hpp): the spec plan kept as rows, expanded by
// the cores. After every update, every descriptor it makes (one by one, and
// as each core's walk) is what a fresh plan_chunk_size + generate writes,
// over thousands of random steps with requests joining and leaving, chunk
// sizes moving and bad input; a decode step recounts no row; errors leave
// the plan; run_spmd_expanding runs each core on the descriptors run_spmd
// gives it from the materialized plan; walks and descriptors asked for
// outside the plan (a stride below 1, a first id before or past it) end
// and give nothing.
#include <pto/runtime/incremental_planner.hpp>
#include <pto/runtime/runtime.hpp>

#include "PlannerCases.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <vector>

using namespace pto::runtime;

using namespace planner_cases;

namespace {

bool same(const WorkDescriptor &a, const WorkDescriptor &b) {
  return std::memcmp(&a, &b, sizeof(WorkDescriptor)) == 0;
}

/// Every descriptor the plan makes is the fresh plan's: one by one, and as
/// the walk of each of `cores` cores (core c: c, c + cores, ...).
::testing::AssertionResult expands_to(const RowPlan<SmallPlanner> &plan,
                                      const Fresh &expected, int cores) {
  if (plan.count() != expected.count)
    return ::testing::AssertionFailure()
           << "count " << plan.count() << ", fresh " << expected.count;
  if (plan.chunk_size() != expected.chunk)
    return ::testing::AssertionFailure()
           << "chunk " << plan.chunk_size() << ", fresh " << expected.chunk;
  for (int i = 0; i < expected.count; ++i)
    if (!same(plan.descriptor(i), expected.descs[i]))
      return ::testing::AssertionFailure() << "descriptor " << i << " differs";
  for (int c = 0; c < cores; ++c) {
    int next = c;
    bool ok = true;
    plan.for_each(c, cores, [&](const WorkDescriptor &d) {
      ok &= next < expected.count && same(d, expected.descs[next]);
      next += cores;
    });
    if (!ok || next < expected.count)
      return ::testing::AssertionFailure()
             << "core " << c << " of " << cores << " walks other descriptors";
  }
  return ::testing::AssertionSuccess();
}

class RowPlanRandom : public ::testing::TestWithParam<Case> {};

} // namespace

TEST_P(RowPlanRandom, EveryStepExpandsToAFreshPlan) {
  const Case c = GetParam();
  const SmallPlanner planner(PlanConfig{4, 32, c.max_work_units, c.balanced});
  constexpr int kMaxBatch = 24, kCapacity = 4096;
  RowPlan<SmallPlanner> plan(planner, kMaxBatch, c.heads, kCapacity);
  std::mt19937 rng(4321 + c.heads * 7 + c.max_work_units +
                   (c.balanced ? 1 : 0));
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  std::vector<int> lens(6);
  for (int &len : lens)
    len = uniform(0, 60);
  int quiet = 0, recounted_all = 0, moved = 0, errors = 0;
  for (int step = 0; step < 3000; ++step) {
    std::vector<int> bad;
    const Step kind = random_step(rng, lens, kMaxBatch, bad);
    if (kind != Step::kValid) {
      const Fresh before = fresh_plan(planner, lens, c.heads, kCapacity);
      int count = 77;
      ASSERT_EQ(plan.update(bad.data(), (int)bad.size(), &count),
                kind == Step::kNegative ? PlanResult::INVALID_PARAMS
                                        : PlanResult::UNSUPPORTED_SIZE);
      EXPECT_EQ(count, 0);
      ++errors;
      // The plan held is the one before the error: of `lens`, which the
      // last step that planned left as they are.
      if (plan.valid()) {
        ASSERT_TRUE(expands_to(plan, before, 5))
            << "after an error, step " << step;
      }
      continue;
    }
    const Fresh expected = fresh_plan(planner, lens, c.heads, kCapacity);
    int count = -1;
    const PlanResult result =
        plan.update(lens.data(), (int)lens.size(), &count);
    ASSERT_EQ(result, expected.result) << "step " << step;
    ASSERT_EQ(result, PlanResult::OK);
    ASSERT_EQ(count, expected.count) << "step " << step;
    ASSERT_TRUE(expands_to(plan, expected, 1 + step % 7)) << "step " << step;
    quiet += plan.stats().recounted == 0;
    recounted_all += plan.stats().recounted_all;
    moved += plan.stats().recounted > 0 && !plan.stats().recounted_all;
  }
  // The walk visits every path: steps that recount nothing, steps that
  // move rows, and (where the budget binds) chunk changes.
  EXPECT_GT(quiet, 100);
  EXPECT_GT(moved, 100);
  if (c.max_work_units < 1000) {
    EXPECT_GT(recounted_all, 5);
  }
  EXPECT_GT(errors, 50);
}

INSTANTIATE_TEST_SUITE_P(Configs, RowPlanRandom, cases(), case_name);

TEST(RowPlan, DecodeStepRecountsNoRow) {
  // No boundary crossed, lengths grow: no row counted, no chunk search.
  const SmallPlanner planner(PlanConfig{32, 32, 1 << 20, false});
  RowPlan<SmallPlanner> plan(planner, 8, 4, 1024);
  std::vector<int> lens = {101, 140, 0, 170, 210};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 5, &count), PlanResult::OK);
  for (int &len : lens)
    if (len > 0)
      ++len;
  ASSERT_EQ(plan.update(lens.data(), 5, &count), PlanResult::OK);
  EXPECT_FALSE(plan.stats().replanned_chunk);
  EXPECT_FALSE(plan.stats().recounted_all);
  EXPECT_EQ(plan.stats().recounted, 0);
  EXPECT_TRUE(expands_to(plan, fresh_plan(planner, lens, 4, 1024), 3));
}

TEST(RowPlan, CrossingABoundaryRecountsFromThatRow) {
  const SmallPlanner planner(PlanConfig{32, 32, 1 << 20, false});
  RowPlan<SmallPlanner> plan(planner, 8, 2, 1024);
  // Row 1 crosses 128 -> 129 (4 -> 5 chunks): rows 1 to 3 are counted.
  std::vector<int> lens = {150, 128, 60, 60};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 4, &count), PlanResult::OK);
  lens[1] = 129;
  ASSERT_EQ(plan.update(lens.data(), 4, &count), PlanResult::OK);
  EXPECT_EQ(plan.stats().recounted, 3);
  EXPECT_TRUE(expands_to(plan, fresh_plan(planner, lens, 2, 1024), 4));
}

TEST(RowPlan, GrowthPastTheBudgetReplansTheChunk) {
  // 2 rows x 1 head, max 4 units: 2 chunks each at chunk 32 up to 64
  // tokens; at 65 the chunk must grow.
  const SmallPlanner planner(PlanConfig{32, 64, 4, true});
  RowPlan<SmallPlanner> plan(planner, 4, 1, 64);
  std::vector<int> lens = {64, 40};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 2, &count), PlanResult::OK);
  EXPECT_EQ(plan.chunk_size(), 32);
  lens[0] = 65;
  ASSERT_EQ(plan.update(lens.data(), 2, &count), PlanResult::OK);
  EXPECT_TRUE(plan.stats().replanned_chunk);
  EXPECT_TRUE(plan.stats().recounted_all);
  EXPECT_EQ(plan.chunk_size(), 33);
  EXPECT_TRUE(expands_to(plan, fresh_plan(planner, lens, 1, 64), 2));
}

TEST(RowPlan, ErrorsLeaveThePlanUsable) {
  const SmallPlanner planner(PlanConfig{8, 8, 1 << 20, true});
  RowPlan<SmallPlanner> plan(planner, 4, 1, 16);
  std::vector<int> lens = {16, 16};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 2, &count), PlanResult::OK);
  ASSERT_EQ(count, 4);
  // Past the capacity: the required count, the plan kept.
  std::vector<int> big = {16, 120};
  EXPECT_EQ(plan.update(big.data(), 2, &count), PlanResult::BUFFER_OVERFLOW);
  EXPECT_EQ(count, 17);
  // More rows than the plan was made for; no lengths; no count.
  std::vector<int> wide(5, 1);
  EXPECT_EQ(plan.update(wide.data(), 5, &count), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan.update(nullptr, 2, &count), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan.update(lens.data(), 2, nullptr), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan.update(lens.data(), 0, &count), PlanResult::INVALID_PARAMS);
  EXPECT_TRUE(expands_to(plan, fresh_plan(planner, lens, 1, 16), 3));
  // The plan still updates from where it was.
  lens = {17, 16};
  ASSERT_EQ(plan.update(lens.data(), 2, &count), PlanResult::OK);
  EXPECT_EQ(count, 5);
  EXPECT_TRUE(expands_to(plan, fresh_plan(planner, lens, 1, 16), 3));
}

TEST(RowPlan, CoresRunWhatRunSpmdGivesThem) {
  // The same kernel over the materialized plan (run_spmd) and over the
  // rows (run_spmd_expanding): each core runs the same descriptors in the
  // same order.
  const SmallPlanner planner(PlanConfig{8, 32, 256, false});
  std::vector<int> lens = {90, 0, 33, 400, 7, 64};
  const int heads = 3, cores = 5;
  const Fresh fresh = fresh_plan(planner, lens, heads, 1024);
  ASSERT_EQ(fresh.result, PlanResult::OK);
  RowPlan<SmallPlanner> plan(planner, 8, heads, 1024);
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 6, &count), PlanResult::OK);

  auto record = [&](auto &&launch) {
    std::vector<std::vector<uint32_t>> ran(cores);
    std::mutex m;
    launch([&](const WorkDescriptor &d) {
      std::lock_guard<std::mutex> lock(m);
      ran[static_cast<size_t>(sim::block_idx())].push_back(d.work_id);
    });
    return ran;
  };
  const auto materialized = record([&](auto kernel) {
    EXPECT_EQ(sim::run_spmd(sim::CoreKind::Vector, cores, fresh.descs.data(),
                            fresh.count, kernel),
              PlanResult::OK);
  });
  const auto expanded = record([&](auto kernel) {
    EXPECT_EQ(
        sim::run_spmd_expanding(sim::CoreKind::Vector, cores, plan, kernel),
        PlanResult::OK);
  });
  EXPECT_EQ(materialized, expanded);
  size_t total = 0;
  for (const auto &core : expanded)
    total += core.size();
  EXPECT_EQ(total, static_cast<size_t>(fresh.count));
  // A core count the device does not have runs nothing.
  EXPECT_EQ(sim::run_spmd_expanding(sim::CoreKind::Vector, 0, plan,
                                    [](const WorkDescriptor &) {}),
            PlanResult::INVALID_PARAMS);
}

namespace {
/// How many descriptors core `first` of `stride` is given. A walk that
/// would not end throws once it passes the plan's count, so that it fails
/// the test instead of hanging it.
int walked(const RowPlan<SmallPlanner> &plan, int first, int stride) {
  int visits = 0;
  plan.for_each(first, stride, [&](const WorkDescriptor &) {
    if (++visits > plan.count())
      throw std::length_error("the walk does not end");
  });
  return visits;
}
} // namespace

TEST(RowPlan, WalksOfAStrideBelowOneVisitNothing) {
  const SmallPlanner planner(PlanConfig{8, 8, 1 << 20, true});
  RowPlan<SmallPlanner> plan(planner, 4, 2, 64);
  std::vector<int> lens = {20, 9};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 2, &count), PlanResult::OK);
  ASSERT_EQ(count, 10);
  for (int first : {0, 3, count - 1}) {
    EXPECT_EQ(walked(plan, first, 0), 0) << "first " << first;
    EXPECT_EQ(walked(plan, first, -1), 0) << "first " << first;
    EXPECT_EQ(walked(plan, first, INT_MIN), 0) << "first " << first;
  }
}

TEST(RowPlan, WalksFromOutsideThePlanVisitNothing) {
  const SmallPlanner planner(PlanConfig{8, 8, 1 << 20, true});
  RowPlan<SmallPlanner> plan(planner, 4, 2, 64);
  // Nothing planned yet: no descriptor.
  EXPECT_EQ(walked(plan, 0, 1), 0);
  std::vector<int> lens = {20, 9};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 2, &count), PlanResult::OK);
  for (int first : {count, count + 1, INT_MAX, -1, -7, INT_MIN})
    for (int stride : {1, 3})
      EXPECT_EQ(walked(plan, first, stride), 0)
          << "first " << first << " stride " << stride;
}

TEST(RowPlan, WalksOfAHugeStrideEndWithoutOverflow) {
  const SmallPlanner planner(PlanConfig{8, 8, 1 << 20, true});
  RowPlan<SmallPlanner> plan(planner, 4, 2, 64);
  std::vector<int> lens = {20, 9};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 2, &count), PlanResult::OK);
  const Fresh expected = fresh_plan(planner, lens, 2, 64);
  // One descriptor each: the next id, first + stride, is past INT_MAX.
  for (int first : {0, 4, count - 1}) {
    std::vector<WorkDescriptor> got;
    plan.for_each(first, INT_MAX, [&](const WorkDescriptor &d) {
      if (got.size() > static_cast<size_t>(count))
        throw std::length_error("the walk does not end");
      got.push_back(d);
    });
    ASSERT_EQ(got.size(), 1u) << "first " << first;
    EXPECT_TRUE(same(got[0], expected.descs[first])) << "first " << first;
  }
}

TEST(RowPlan, DescriptorsOutsideThePlanAreEmpty) {
  const SmallPlanner planner(PlanConfig{8, 8, 1 << 20, true});
  // A batch below the plan's rows, so a read past the last row would find
  // a row slot, not the end of the lengths.
  RowPlan<SmallPlanner> plan(planner, 4, 2, 64);
  std::vector<int> lens = {20, 9};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 2, &count), PlanResult::OK);
  const WorkDescriptor empty{};
  for (int id : {-1, -11, INT_MIN, count, count + 1, INT_MAX})
    EXPECT_TRUE(same(plan.descriptor(id), empty)) << "work id " << id;
  // No planned descriptor is the empty one: descriptor 0 is a first chunk,
  // and every chunk covers a position.
  EXPECT_FALSE(same(plan.descriptor(0), empty));
  EXPECT_TRUE(plan.descriptor(0).is_first());
  // Nothing planned yet: every id is outside the plan.
  RowPlan<SmallPlanner> unplanned(planner, 4, 2, 64);
  EXPECT_TRUE(same(unplanned.descriptor(0), empty));
}
