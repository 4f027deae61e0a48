// SpecRows (spec_rows.hpp): a spec plan kept as rows, as wsp.generate ...
// rows writes it, expanded by the cores. Rows written here from the lengths
// (the layout's contract, by hand) expand to what WorkPlanner::generate
// writes, descriptor by descriptor and as each core's walk; whole-row core
// ranges fall where row_range_begin cuts the materialized plan;
// run_rows_expanding gives every core what run_spmd gives it from the
// materialized plan, and leaves the plan in the buffer; a header that does
// not fit its buffer makes an empty plan. (Windows and the MoE order are
// checked against the emitted planner by cpusim-plan-rows.mlir.)
#include <pto/runtime/runtime.hpp>

#include "PlannerCases.h"

#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <random>
#include <vector>

using namespace pto::runtime;
using namespace planner_cases;

namespace {

bool same(const WorkDescriptor &a, const WorkDescriptor &b) {
  return std::memcmp(&a, &b, sizeof(WorkDescriptor)) == 0;
}

/// The rows of the plan of `lens` with `chunk`, written from the layout.
std::vector<int32_t> rows_of(const std::vector<int> &lens, int heads, int chunk,
                             bool balanced, int count) {
  using L = SpecRowsLayout;
  const int batch = static_cast<int>(lens.size());
  std::vector<int32_t> rows(L::size(batch));
  rows[L::kBatch] = batch;
  rows[L::kHeads] = heads;
  rows[L::kChunk] = chunk;
  rows[L::kFlags] = balanced ? L::kBalanced : 0;
  rows[L::kCount] = count;
  int first = 0;
  for (int b = 0; b < batch; ++b) {
    rows[L::kHeader + 2 * b] = first;
    rows[L::kHeader + 2 * b + 1] = lens[b];
    first += heads * ((lens[b] + chunk - 1) / chunk);
  }
  rows[L::kHeader + 2 * batch] = first;
  return rows;
}

class SpecRowsRandom : public ::testing::TestWithParam<Case> {};

} // namespace

TEST_P(SpecRowsRandom, ExpandsToTheMaterializedPlan) {
  const Case c = GetParam();
  const SmallPlanner planner(PlanConfig{4, 32, c.max_work_units, c.balanced});
  std::mt19937 rng(77 + c.heads * 13 + c.max_work_units + (c.balanced ? 1 : 0));
  std::vector<int> lens(6, 5), bad;
  int plans = 0;
  for (int step = 0; step < 400; ++step) {
    if (random_step(rng, lens, 24, bad) != Step::kValid)
      continue;
    const Fresh fresh = fresh_plan(planner, lens, c.heads, 4096);
    if (fresh.result != PlanResult::OK)
      continue;
    ++plans;
    const std::vector<int32_t> rows =
        rows_of(lens, c.heads, fresh.chunk, c.balanced, fresh.count);
    const SpecRows<SmallTiers> plan(rows.data(),
                                    static_cast<int64_t>(rows.size()), {});
    ASSERT_EQ(plan.count(), fresh.count);
    for (int i = 0; i < fresh.count; ++i)
      ASSERT_TRUE(same(plan.descriptor(i), fresh.descs[i]))
          << "step " << step << " descriptor " << i;
    EXPECT_TRUE(same(plan.descriptor(fresh.count), WorkDescriptor{}));
    EXPECT_TRUE(same(plan.descriptor(-1), WorkDescriptor{}));
    for (int cores : {1, 2, 3, 7, 24, 48}) {
      for (int core = 0; core <= cores; ++core)
        ASSERT_EQ(plan.range_begin(core, cores),
                  row_range_begin(fresh.descs.data(), fresh.count, core, cores))
            << "step " << step << " core " << core << " of " << cores;
      // Core c's grid walk: c, c + cores, ...
      for (int core = 0; core < cores; ++core) {
        int next = core;
        bool ok = true;
        plan.for_each(core, fresh.count, cores, [&](const WorkDescriptor &d) {
          ok &= next < fresh.count && same(d, fresh.descs[next]);
          next += cores;
        });
        ASSERT_TRUE(ok && next >= fresh.count)
            << "step " << step << " core " << core << " of " << cores;
      }
    }
  }
  EXPECT_GT(plans, 100);
}

INSTANTIATE_TEST_SUITE_P(Cases, SpecRowsRandom, cases(), case_name);

// Each core runs, in order, what run_spmd gives it from the materialized
// plan (grid and whole rows), and the buffer holds the plan after.
TEST(SpecRows, RunRowsExpandingGivesEachCoreWhatRunSpmdDoes) {
  const SmallPlanner planner(PlanConfig{4, 32, 300, false});
  const std::vector<int> lens = {0, 57, 3, 400, 0, 120, 33, 1, 260};
  const int heads = 3;
  const Fresh fresh = fresh_plan(planner, lens, heads, 4096);
  ASSERT_EQ(fresh.result, PlanResult::OK);
  const std::vector<int32_t> rows =
      rows_of(lens, heads, fresh.chunk, false, fresh.count);
  const SpecRows<SmallTiers> plan(rows.data(),
                                  static_cast<int64_t>(rows.size()), {});
  for (bool whole_rows : {false, true}) {
    sim::Options options;
    if (whole_rows)
      options.schedule = sim::Schedule::Rows;
    const int cores = 5;
    std::mutex mutex;
    auto record = [&](std::vector<std::vector<int>> &seen) {
      return [&](const WorkDescriptor &d) {
        std::lock_guard<std::mutex> lock(mutex);
        seen[sim::block_idx()].push_back(static_cast<int>(d.work_id));
      };
    };
    std::vector<std::vector<int>> want(cores), got(cores);
    ASSERT_EQ(sim::run_spmd(sim::CoreKind::Vector, cores, fresh.descs.data(),
                            fresh.count, record(want), nullptr, options),
              PlanResult::OK);
    std::vector<WorkDescriptor> buffer(fresh.count + 4);
    std::memset(buffer.data(), 0x5a, buffer.size() * sizeof(WorkDescriptor));
    ASSERT_EQ(sim::run_rows_expanding(sim::CoreKind::Vector, cores,
                                      buffer.data(), fresh.count, plan,
                                      record(got), nullptr, options),
              PlanResult::OK);
    EXPECT_EQ(got, want) << (whole_rows ? "whole rows" : "grid");
    for (int i = 0; i < fresh.count; ++i)
      ASSERT_TRUE(same(buffer[i], fresh.descs[i])) << "descriptor " << i;
    // Nothing past the plan.
    WorkDescriptor poison;
    std::memset(&poison, 0x5a, sizeof poison);
    for (size_t i = fresh.count; i < buffer.size(); ++i)
      EXPECT_TRUE(same(buffer[i], poison));
  }
}

// Rows whose header does not fit their buffer, or whose count is not the
// dispatch's, run nothing.
TEST(SpecRows, ABrokenHeaderIsAnEmptyPlan) {
  const std::vector<int> lens = {10, 20};
  std::vector<int32_t> rows = rows_of(lens, 2, 8, true, 2 * (2 + 3));
  using L = SpecRowsLayout;
  auto count = [&](std::vector<int32_t> r, int64_t size) {
    return SpecRows<SmallTiers>(r.data(), size, {}).count();
  };
  const int64_t size = static_cast<int64_t>(rows.size());
  EXPECT_EQ(count(rows, size), 10);
  EXPECT_EQ(count(rows, size - 1), 0); // the buffer is one short
  EXPECT_EQ(SpecRows<SmallTiers>(nullptr, size, {}).count(), 0);
  for (int field : {int(L::kHeads), int(L::kChunk)}) {
    std::vector<int32_t> broken = rows;
    broken[field] = 0;
    EXPECT_EQ(count(broken, size), 0) << "field " << field;
  }
  std::vector<int32_t> broken = rows;
  broken[L::kBatch] = 1000; // more requests than the buffer holds
  EXPECT_EQ(count(broken, size), 0);
  broken = rows;
  broken[L::kCount] = 9; // not the first id past the last request
  EXPECT_EQ(count(broken, size), 0);

  const SpecRows<SmallTiers> plan(rows.data(), size, {});
  std::vector<WorkDescriptor> buffer(16);
  int ran = 0;
  EXPECT_EQ(sim::run_rows_expanding(sim::CoreKind::Vector, 4, buffer.data(), 9,
                                    plan,
                                    [&](const WorkDescriptor &) { ++ran; }),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(ran, 0);
}
