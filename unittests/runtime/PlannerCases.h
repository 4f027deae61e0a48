// What the kept-plan tests share (IncrementalPlanTest, RowPlanTest): a small
// planner whose tiers change, whose rows cross chunk boundaries and whose
// chunk size moves within a few steps; the fresh plan every kept plan must
// equal; the configurations; and the random walk of a decode batch.
#ifndef WSP_UNITTESTS_RUNTIME_PLANNERCASES_H
#define WSP_UNITTESTS_RUNTIME_PLANNERCASES_H

#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace planner_cases {
using namespace pto::runtime;

using SmallTiers =
    TierConfig<Tier<0, 1, 20>, Tier<1, 21, 100>, Tier<2, 101, 400>>;
using SmallPlanner = WorkPlanner<AttentionSpace<DYNAMIC, DYNAMIC, DYNAMIC>,
                                 SmallTiers, params::Attention>;
/// Longer than any tier covers.
constexpr int kMaxLen = 400;

/// What a fresh plan writes: the reference.
struct Fresh {
  PlanResult result;
  int count;
  int chunk;
  std::vector<WorkDescriptor> descs;
};

inline Fresh fresh_plan(const SmallPlanner &planner,
                        const std::vector<int> &lens, int heads, int capacity) {
  std::vector<WorkDescriptor> buffer(capacity > 0 ? capacity : 1);
  const int batch = static_cast<int>(lens.size());
  const int chunk = planner.plan_chunk_size(lens.data(), batch, heads);
  int count = 0;
  const PlanResult result = planner.generate(lens.data(), batch, heads, chunk,
                                             buffer.data(), capacity, &count);
  buffer.resize(result == PlanResult::OK ? count : 0);
  return {result, count, chunk, buffer};
}

struct Case {
  bool balanced;
  int heads;
  int max_work_units;
};

/// The configurations each kept plan is walked in.
inline auto cases() {
  return ::testing::Values(Case{true, 1, 4096}, Case{false, 1, 4096},
                           Case{true, 3, 600}, Case{false, 3, 600},
                           Case{true, 2, 150}, Case{false, 4, 300});
}
inline std::string case_name(const ::testing::TestParamInfo<Case> &info) {
  return std::string(info.param.balanced ? "balanced" : "unbalanced") +
         "_heads" + std::to_string(info.param.heads) + "_units" +
         std::to_string(info.param.max_work_units);
}

/// One step of a decode batch of at most `max_batch` requests, in place:
/// mostly every request grows by 1 to 3 tokens (one at kMaxLen finishes);
/// requests join at the end, leave (the batch compacted, or the slot kept
/// empty), join an empty slot. Or, 5 times in 100, bad input: `bad` gets
/// the lengths with one negative (returns kNegative) or one no tier
/// covers (kUncovered), and `lens` stays.
enum class Step { kValid, kNegative, kUncovered };
inline Step random_step(std::mt19937 &rng, std::vector<int> &lens,
                        int max_batch, std::vector<int> &bad) {
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  const int event = uniform(0, 99);
  if (event < 70) { // a decode step of 1 to 3 new tokens per request
    const int q_len = uniform(1, 3);
    for (int &len : lens) // a request at the maximum length finishes
      if (len > 0)
        len = len + q_len > kMaxLen ? 0 : len + q_len;
  } else if (event < 78 && (int)lens.size() < max_batch) { // joins at the end
    // (or an empty slot appended: a row of no chunks after moved rows)
    lens.push_back(uniform(0, 3) == 0 ? 0 : uniform(1, 120));
  } else if (event < 84 && lens.size() > 1) { // leaves, batch compacted
    lens.erase(lens.begin() + uniform(0, (int)lens.size() - 1));
  } else if (event < 90) { // leaves, its slot kept empty
    lens[uniform(0, (int)lens.size() - 1)] = 0;
  } else if (event < 95) { // joins in an empty slot (or restarts a row)
    lens[uniform(0, (int)lens.size() - 1)] = uniform(1, 120);
  } else { // bad input
    bad = lens;
    const bool negative = event < 97;
    bad[uniform(0, (int)bad.size() - 1)] = negative ? -1 : kMaxLen + 1;
    return negative ? Step::kNegative : Step::kUncovered;
  }
  return Step::kValid;
}
} // namespace planner_cases

#endif // WSP_UNITTESTS_RUNTIME_PLANNERCASES_H
