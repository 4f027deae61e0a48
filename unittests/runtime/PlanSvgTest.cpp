// plan_svg (plan_svg.hpp): the chart read back agrees with the plan: one
// lane per core, one bar per unit, each lane's bars summing to the core's
// planned cost, a merge mark per split row, the lower bound line.
#include <pto/runtime/plan_svg.hpp>
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace pto::runtime;

namespace {
int count(const std::string &s, const std::string &what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos;
       at = s.find(what, at + 1))
    ++n;
  return n;
}
/// The integer value of attribute `name` after position `from`.
long long attr(const std::string &s, size_t from, const std::string &name) {
  const size_t at = s.find(name + "=\"", from);
  return std::stoll(s.substr(at + name.size() + 2));
}
} // namespace

TEST(PlanSvg, ChartAgreesWithThePlan) {
  // Skewed lengths on few cores: long rows are split across cores.
  std::vector<int> lens = {4000, 17, 900, 33, 2500, 1, 64, 1200};
  std::vector<int> q = {1, 1, 2, 1, 1, 1, 3, 1};
  for (bool invariant : {false, true}) {
    BalancedConfig config;
    config.num_cores = 6;
    config.batch_invariant = invariant;
    config.invariant_chunk = 512;
    BalancedPlan plan;
    ASSERT_EQ(plan_balanced(lens.data(), int(lens.size()), 2, config,
                            DecodeAttentionTiers{}, &plan, q.data()),
              PlanResult::OK);
    const std::string svg = plan_svg(plan, config, q.data());
    EXPECT_EQ(count(svg, "<g class=\"lane\""), config.num_cores);
    EXPECT_EQ(count(svg, "<rect class=\"unit"), plan.count);
    int split_rows = 0;
    for (int r = 0; r < plan.rows; ++r)
      split_rows += plan.merge_indptr[r + 1] - plan.merge_indptr[r] > 1;
    EXPECT_GT(split_rows, 0);
    EXPECT_EQ(count(svg, "<circle class=\"merge\""), split_rows);
    EXPECT_EQ(count(svg, "<line class=\"lower-bound\""), 1);
    EXPECT_EQ(attr(svg, svg.find("<line class=\"lower-bound\""), "data-cost"),
              plan.lower_bound_cost);
    // Each lane's bars sum to the core's planned cost.
    size_t at = svg.find("<g class=\"lane\"");
    for (int c = 0; c < config.num_cores; ++c) {
      ASSERT_NE(at, std::string::npos);
      const size_t end = svg.find("</g>", at);
      long long sum = 0;
      for (size_t r = svg.find("<rect class=\"unit", at);
           r != std::string::npos && r < end;
           r = svg.find("<rect class=\"unit", r + 1))
        sum += attr(svg, r, "data-cost");
      EXPECT_EQ(sum, plan.core_cost[size_t(c)])
          << (invariant ? "batch-invariant" : "sweep") << " core " << c;
      EXPECT_EQ(attr(svg, at, "data-cost"), plan.core_cost[size_t(c)]);
      at = svg.find("<g class=\"lane\"", end);
    }
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
  }
}
