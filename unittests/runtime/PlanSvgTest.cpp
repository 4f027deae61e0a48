// plan_svg (plan_svg.hpp): the chart read back agrees with the plan: one
// lane per core, one bar per unit, each lane's bars summing to the core's
// planned cost, a merge mark per split row, the lower bound line; the plan
// rebuilt from the planner's buffers, and the simulation's recorder.
#include <pto/runtime/plan_svg.hpp>
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
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

// What the CPU-sim form draws: the plan rebuilt from the buffers
// plan_balanced_into filled is the planner's own, costs and bound included.
TEST(PlanSvg, BuffersGiveThePlannersPlan) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const int batch = 1 + int(rng() % 40), heads = 1 + int(rng() % 4);
    std::vector<int> lens(batch), q(batch);
    for (int b = 0; b < batch; ++b) {
      lens[b] = rng() % 5 == 0 ? int(rng() % 20000) : 1 + int(rng() % 3000);
      q[b] = 1 + int(rng() % 3);
      q[b] = lens[b] == 0 ? 1 : std::min(q[b], lens[b]);
    }
    BalancedConfig config;
    config.num_cores = 1 + int(rng() % 30);
    config.batch_invariant = trial % 3 == 0;
    config.invariant_chunk = 256;
    const int *qp = trial % 2 ? q.data() : nullptr;
    BalancedPlan want;
    ASSERT_EQ(plan_balanced(lens.data(), batch, heads, config,
                            DecodeAttentionTiers{}, &want, qp),
              PlanResult::OK);
    // Room as the planner asks it (rows + cores at least).
    std::vector<WorkDescriptor> descs(
        size_t(want.count + want.rows + config.num_cores));
    std::vector<int> cores(size_t(config.num_cores) + 1),
        merges(size_t(want.rows) + 1);
    int count = 0;
    ASSERT_EQ(plan_balanced_into(lens.data(), batch, heads, config,
                                 DecodeAttentionTiers{}, descs.data(),
                                 int(descs.size()), cores.data(),
                                 int(cores.size()), merges.data(),
                                 int(merges.size()), &count, nullptr, nullptr,
                                 qp),
              PlanResult::OK);
    const BalancedPlan got =
        plan_from_buffers(lens.data(), batch, heads, config, descs.data(),
                          count, cores.data(), merges.data(), qp);
    EXPECT_EQ(got.count, want.count);
    EXPECT_EQ(got.rows, want.rows);
    EXPECT_EQ(got.core_indptr, want.core_indptr);
    EXPECT_EQ(got.merge_indptr, want.merge_indptr);
    EXPECT_EQ(got.core_cost, want.core_cost) << "trial " << trial;
    EXPECT_EQ(got.lower_bound_cost, want.lower_bound_cost);
    EXPECT_EQ(plan_svg(got, config, qp), plan_svg(want, config, qp));
  }
}

// The simulation's recorder writes each plan's chart into
// WSP_PLAN_SVG_DIR, and nothing without it.
TEST(PlanSvg, RecorderWritesOnlyWhenAsked) {
  std::vector<int> lens = {3000, 20, 700};
  BalancedConfig config;
  config.num_cores = 4;
  BalancedPlan plan;
  ASSERT_EQ(plan_balanced(lens.data(), 3, 2, config, DecodeAttentionTiers{},
                          &plan),
            PlanResult::OK);
  char tmpl[] = "/tmp/wsp-plan-svg-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  auto files = [&] {
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
      while (dirent *e = readdir(d))
        if (e->d_name[0] != '.')
          names.push_back(e->d_name);
      closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  auto record = [&] {
    sim::record_balanced_plan(lens.data(), 3, 2, config,
                              plan.descriptors.data(), plan.count,
                              plan.core_indptr.data(), plan.merge_indptr.data());
  };
  unsetenv("WSP_PLAN_SVG_DIR");
  record();
  EXPECT_TRUE(files().empty());
  setenv("WSP_PLAN_SVG_DIR", dir.c_str(), 1);
  sim::restart_plan_charts(); // a new run's charts count from 0
  record();
  unsetenv("WSP_PLAN_SVG_DIR");
  const std::vector<std::string> written = files();
  ASSERT_EQ(written, std::vector<std::string>{"plan_0.svg"});
  std::ifstream in(dir + "/" + written[0]);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), plan_svg(plan, config));
  std::remove((dir + "/" + written[0]).c_str());
  rmdir(dir.c_str());
}

// Inside a ScopedPlanCharts a thread draws into its own directory with its
// own count, and reads nothing of the environment: threads drawing at once
// (the Python package's calls) each get their charts, numbered from 0.
TEST(PlanSvg, ScopedChartsAreTheThreadsOwn) {
  std::vector<int> lens = {3000, 20, 700};
  BalancedConfig config;
  config.num_cores = 4;
  BalancedPlan plan;
  ASSERT_EQ(plan_balanced(lens.data(), 3, 2, config, DecodeAttentionTiers{},
                          &plan),
            PlanResult::OK);
  auto make_dir = [] {
    char tmpl[] = "/tmp/wsp-plan-svg-XXXXXX";
    EXPECT_NE(mkdtemp(tmpl), nullptr);
    return std::string(tmpl);
  };
  auto files = [](const std::string &dir) {
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
      while (dirent *e = readdir(d))
        if (e->d_name[0] != '.')
          names.push_back(e->d_name);
      closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  const std::string run_dir = make_dir();
  setenv("WSP_PLAN_SVG_DIR", run_dir.c_str(), 1); // never read in a scope
  constexpr int kThreads = 4, kPlans = 3;
  std::vector<sim::PlanCharts> charts(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    charts[t].dir = make_dir();
    threads.emplace_back([&, t] {
      sim::ScopedPlanCharts scope(&charts[t]);
      for (int i = 0; i < kPlans; ++i)
        sim::record_balanced_plan(
            lens.data(), 3, 2, config, plan.descriptors.data(), plan.count,
            plan.core_indptr.data(), plan.merge_indptr.data());
    });
  }
  for (std::thread &t : threads)
    t.join();
  // A scope without a directory draws nothing.
  {
    sim::PlanCharts none;
    sim::ScopedPlanCharts scope(&none);
    sim::record_balanced_plan(lens.data(), 3, 2, config,
                              plan.descriptors.data(), plan.count,
                              plan.core_indptr.data(),
                              plan.merge_indptr.data());
  }
  unsetenv("WSP_PLAN_SVG_DIR");
  EXPECT_TRUE(files(run_dir).empty());
  rmdir(run_dir.c_str());
  for (const sim::PlanCharts &c : charts) {
    EXPECT_EQ(c.count, kPlans);
    EXPECT_FALSE(c.failed);
    EXPECT_EQ(files(c.dir), (std::vector<std::string>{
                                "plan_0.svg", "plan_1.svg", "plan_2.svg"}));
    for (const std::string &name : files(c.dir))
      std::remove((c.dir + "/" + name).c_str());
    rmdir(c.dir.c_str());
  }
}
