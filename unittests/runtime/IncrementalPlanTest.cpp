// IncrementalPlan (incremental_planner.hpp): after every update the buffer
// holds exactly what a fresh plan_chunk_size + generate writes, over
// thousands of random decode steps with requests joining and leaving; a
// decode step touches only the chunks that change; errors leave the plan.
#include <pto/runtime/incremental_planner.hpp>
#include <pto/runtime/runtime.hpp>

#include "PlannerCases.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

using namespace pto::runtime;

using namespace planner_cases;

namespace {

bool same_bytes(const WorkDescriptor *a, const WorkDescriptor *b, int n) {
  return n == 0 || std::memcmp(a, b, sizeof(WorkDescriptor) * n) == 0;
}

class IncrementalRandom : public ::testing::TestWithParam<Case> {};

} // namespace

TEST_P(IncrementalRandom, EveryStepEqualsAFreshPlan) {
  const Case c = GetParam();
  const SmallPlanner planner(PlanConfig{4, 32, c.max_work_units, c.balanced});
  constexpr int kMaxBatch = 24, kCapacity = 4096;
  std::vector<WorkDescriptor> buffer(kCapacity);
  IncrementalPlan<SmallPlanner> plan(planner, kMaxBatch, c.heads, buffer.data(),
                                     kCapacity);
  std::mt19937 rng(1234 + c.heads * 7 + c.max_work_units +
                   (c.balanced ? 1 : 0));
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  std::vector<int> lens(6);
  for (int &len : lens)
    len = uniform(0, 60);
  int kept_chunk = 0, rewrote_all = 0, moved = 0, errors = 0;
  for (int step = 0; step < 3000; ++step) {
    std::vector<int> bad;
    const Step kind = random_step(rng, lens, kMaxBatch, bad);
    if (kind == Step::kNegative) {
      std::vector<WorkDescriptor> before(buffer.begin(),
                                         buffer.begin() + plan.count());
      int count = 77;
      ASSERT_EQ(plan.update(bad.data(), (int)bad.size(), &count),
                PlanResult::INVALID_PARAMS);
      EXPECT_EQ(count, 0);
      ASSERT_TRUE(same_bytes(before.data(), buffer.data(), plan.count()))
          << "an error wrote descriptors at step " << step;
      ++errors;
      continue;
    }
    if (kind == Step::kUncovered) {
      int count = 77;
      const int before = plan.count();
      ASSERT_EQ(plan.update(bad.data(), (int)bad.size(), &count),
                PlanResult::UNSUPPORTED_SIZE);
      EXPECT_EQ(plan.count(), before);
      ++errors;
      continue;
    }
    const Fresh expected = fresh_plan(planner, lens, c.heads, kCapacity);
    int count = -1;
    const PlanResult result =
        plan.update(lens.data(), (int)lens.size(), &count);
    ASSERT_EQ(result, expected.result) << "step " << step;
    ASSERT_EQ(result, PlanResult::OK);
    ASSERT_EQ(count, expected.count) << "step " << step;
    ASSERT_TRUE(same_bytes(buffer.data(), expected.descs.data(), count))
        << "descriptors differ from a fresh plan at step " << step;
    kept_chunk += !plan.stats().replanned_chunk;
    rewrote_all += plan.stats().rewrote_all;
    moved += plan.stats().moved > 0;
  }
  // The walk visits every path: in-place patches, moves, and (where the
  // budget binds) chunk changes.
  EXPECT_GT(kept_chunk, 1000);
  EXPECT_GT(moved, 20);
  if (c.max_work_units < 1000) {
    EXPECT_GT(rewrote_all, 5);
  }
  EXPECT_GT(errors, 50);
}

INSTANTIATE_TEST_SUITE_P(Configs, IncrementalRandom, cases(), case_name);

TEST(IncrementalPlan, DecodeStepRewritesOnlyLastChunks) {
  // Unbalanced chunks of 32, no boundary crossed, no tier change: one
  // descriptor per (row, head) is rewritten, nothing moves.
  const SmallPlanner planner(PlanConfig{32, 32, 1 << 20, false});
  std::vector<WorkDescriptor> buffer(1024);
  IncrementalPlan<SmallPlanner> plan(planner, 8, 4, buffer.data(), 1024);
  std::vector<int> lens = {101, 140, 0, 170, 210};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 5, &count), PlanResult::OK);
  for (int &len : lens)
    if (len > 0)
      ++len;
  ASSERT_EQ(plan.update(lens.data(), 5, &count), PlanResult::OK);
  EXPECT_FALSE(plan.stats().replanned_chunk);
  EXPECT_FALSE(plan.stats().rewrote_all);
  EXPECT_EQ(plan.stats().written, 4 * 4);
  EXPECT_EQ(plan.stats().moved, 0);
  const Fresh expected = fresh_plan(planner, lens, 4, 1024);
  ASSERT_EQ(count, expected.count);
  EXPECT_TRUE(same_bytes(buffer.data(), expected.descs.data(), count));
}

TEST(IncrementalPlan, CrossingABoundaryMovesTheRowsAfterIt) {
  const SmallPlanner planner(PlanConfig{32, 32, 1 << 20, false});
  std::vector<WorkDescriptor> buffer(1024);
  IncrementalPlan<SmallPlanner> plan(planner, 8, 2, buffer.data(), 1024);
  // Row 1 crosses 128 -> 129 (4 -> 5 chunks); rows 2 and 3 only move.
  std::vector<int> lens = {150, 128, 60, 60};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 4, &count), PlanResult::OK);
  lens[1] = 129;
  ASSERT_EQ(plan.update(lens.data(), 4, &count), PlanResult::OK);
  EXPECT_EQ(plan.stats().written, 2 * 5);   // row 1, whole
  EXPECT_EQ(plan.stats().moved, 2 * 2 * 2); // rows 2 and 3
  const Fresh expected = fresh_plan(planner, lens, 2, 1024);
  ASSERT_EQ(count, expected.count);
  EXPECT_TRUE(same_bytes(buffer.data(), expected.descs.data(), count));
}

TEST(IncrementalPlan, AnEmptyRowAfterMovedRowsIsNotMoved) {
  // Found by the planner fuzz target: a row of no chunks appended after
  // rows that move was "moved" from the slots the plan before last left
  // beyond the batch (a negative memmove). It has nothing to move.
  const SmallPlanner planner(PlanConfig{32, 32, 1 << 20, false});
  std::vector<WorkDescriptor> buffer(256);
  IncrementalPlan<SmallPlanner> plan(planner, 8, 1, buffer.data(), 256);
  std::vector<int> lens = {40, 40, 40, 40};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 4, &count), PlanResult::OK);
  lens = {41, 40}; // two leave
  ASSERT_EQ(plan.update(lens.data(), 2, &count), PlanResult::OK);
  lens = {70, 40, 0}; // row 0 gains a chunk, an empty slot is appended
  ASSERT_EQ(plan.update(lens.data(), 3, &count), PlanResult::OK);
  const Fresh expected = fresh_plan(planner, lens, 1, 256);
  ASSERT_EQ(count, expected.count);
  EXPECT_TRUE(same_bytes(buffer.data(), expected.descs.data(), count));
}

TEST(IncrementalPlan, GrowthPastTheBudgetReplansTheChunk) {
  // 2 rows x 1 head, max 4 units: 2 chunks each at chunk 32 up to 64
  // tokens; at 65 the chunk must grow.
  const SmallPlanner planner(PlanConfig{32, 64, 4, true});
  std::vector<WorkDescriptor> buffer(64);
  IncrementalPlan<SmallPlanner> plan(planner, 4, 1, buffer.data(), 64);
  std::vector<int> lens = {64, 40};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 2, &count), PlanResult::OK);
  EXPECT_EQ(plan.chunk_size(), 32);
  lens[0] = 65;
  ASSERT_EQ(plan.update(lens.data(), 2, &count), PlanResult::OK);
  EXPECT_TRUE(plan.stats().replanned_chunk);
  EXPECT_TRUE(plan.stats().rewrote_all);
  EXPECT_EQ(plan.chunk_size(), 33);
  const Fresh expected = fresh_plan(planner, lens, 1, 64);
  ASSERT_EQ(count, expected.count);
  EXPECT_TRUE(same_bytes(buffer.data(), expected.descs.data(), count));
}

TEST(IncrementalPlan, ErrorsLeaveThePlanUsable) {
  const SmallPlanner planner(PlanConfig{8, 8, 1 << 20, true});
  std::vector<WorkDescriptor> buffer(16);
  IncrementalPlan<SmallPlanner> plan(planner, 4, 1, buffer.data(), 16);
  std::vector<int> lens = {16, 16};
  int count = 0;
  ASSERT_EQ(plan.plan(lens.data(), 2, &count), PlanResult::OK);
  ASSERT_EQ(count, 4);
  const std::vector<WorkDescriptor> before(buffer);
  // Past the buffer: the required count, nothing written.
  std::vector<int> big = {16, 120};
  EXPECT_EQ(plan.update(big.data(), 2, &count), PlanResult::BUFFER_OVERFLOW);
  EXPECT_EQ(count, 17);
  // More rows than the plan was made for; no lengths; no count.
  std::vector<int> wide(5, 1);
  EXPECT_EQ(plan.update(wide.data(), 5, &count), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan.update(nullptr, 2, &count), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan.update(lens.data(), 2, nullptr), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(plan.update(lens.data(), 0, &count), PlanResult::INVALID_PARAMS);
  EXPECT_TRUE(same_bytes(before.data(), buffer.data(), 16));
  EXPECT_EQ(plan.count(), 4);
  // The plan still updates from where it was.
  lens = {17, 16};
  ASSERT_EQ(plan.update(lens.data(), 2, &count), PlanResult::OK);
  const Fresh expected = fresh_plan(planner, lens, 1, 16);
  ASSERT_EQ(count, expected.count);
  EXPECT_TRUE(same_bytes(buffer.data(), expected.descs.data(), count));
}
