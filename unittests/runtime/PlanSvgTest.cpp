// plan_svg (plan_svg.hpp): the chart read back agrees with the plan: one
// lane per core, one bar per unit, each lane's bars summing to the core's
// planned cost, a merge mark per split row, the lower bound line and its
// label, a legend entry per tier used (with its range), axis ticks from 0
// past the busiest core; a dispatch's chart (the spec's and the MoE
// planner's descriptors as a grid or row_affine dispatch shares them);
// the plan rebuilt from the planner's buffers, and the simulation's
// recorder, whose files and titles name the case and the call.
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
/// The text value of attribute `name` after position `from`.
std::string text_attr(const std::string &s, size_t from,
                      const std::string &name) {
  const size_t at = s.find(name + "=\"", from) + name.size() + 2;
  return s.substr(at, s.find('"', at) - at);
}
/// The start of every element that begins with `head`.
std::vector<size_t> all(const std::string &s, const std::string &head) {
  std::vector<size_t> at;
  for (size_t i = s.find(head); i != std::string::npos; i = s.find(head, i + 1))
    at.push_back(i);
  return at;
}
/// The text of the element at `from` (its tspans' text run together with
/// a space), entities left as they are.
std::string text_of(const std::string &s, size_t from) {
  const size_t end = s.find("</text>", from);
  std::string out;
  bool tag = false;
  for (size_t i = s.find('>', from) + 1; i < end; ++i) {
    if (s[i] == '<') {
      tag = true;
      if (s.compare(i, 7, "<tspan ") == 0 && !out.empty())
        out += ' ';
    } else if (s[i] == '>') {
      tag = false;
    } else if (!tag) {
      out += s[i];
    }
  }
  return out;
}
/// What every chart shows, whatever its planner: the legend's tiers are
/// the bars' (sorted, each once, with the range `tiers` gives it), ticks
/// rise from 0 by one step to the axis's end, which covers the busiest
/// core and the bound, and the bound's label gives its value.
void expect_frame(const std::string &svg, const std::vector<TierRange> &tiers) {
  std::vector<long long> bar_tiers;
  for (size_t r : all(svg, "<rect class=\"unit"))
    bar_tiers.push_back(attr(svg, r, "data-tier"));
  std::sort(bar_tiers.begin(), bar_tiers.end());
  bar_tiers.erase(std::unique(bar_tiers.begin(), bar_tiers.end()),
                  bar_tiers.end());
  std::vector<long long> legend;
  for (size_t g : all(svg, "<g class=\"legend-tier\"")) {
    const long long t = attr(svg, g, "data-tier");
    legend.push_back(t);
    for (const TierRange &r : tiers)
      if (r.id == t) {
        EXPECT_EQ(attr(svg, g, "data-min"), r.min_size);
        EXPECT_EQ(attr(svg, g, "data-max"), r.max_size);
        EXPECT_NE(text_of(svg, svg.find("<text", g))
                      .find(std::to_string(r.min_size) + "-" +
                            std::to_string(r.max_size)),
                  std::string::npos);
      }
  }
  EXPECT_EQ(legend, bar_tiers);
  const size_t axis = svg.find("<g class=\"axis\"");
  ASSERT_NE(axis, std::string::npos);
  const long long end = attr(svg, axis, "data-end"),
                  step = attr(svg, axis, "data-step");
  const std::vector<size_t> ticks = all(svg, "<line class=\"tick\"");
  ASSERT_GE(ticks.size(), 2u);
  for (size_t i = 0; i < ticks.size(); ++i)
    EXPECT_EQ(attr(svg, ticks[i], "data-value"), (long long)i * step);
  EXPECT_EQ(attr(svg, ticks.back(), "data-value"), end);
  EXPECT_GE(end, attr(svg, 0, "data-makespan"));
  const long long bound = attr(svg, 0, "data-lower-bound");
  EXPECT_GE(end, bound);
  EXPECT_EQ(text_of(svg, svg.find("<text class=\"lower-bound-label\"")),
            "lower bound = " + std::to_string(bound));
  EXPECT_FALSE(text_of(svg, svg.find("<text class=\"axis-label\"")).empty());
  EXPECT_EQ(all(svg, "<g class=\"lane\"").size(),
            size_t(attr(svg, 0, "data-cores")));
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
    const std::vector<TierRange> tiers = tier_ranges(DecodeAttentionTiers{});
    const std::string svg =
        chart_svg(balanced_chart(plan, config, q.data(), tiers),
                  {"skew <&\"", "decode_step", 2, 1});
    // Titled by the case and the call, escaped as XML.
    EXPECT_EQ(text_of(svg, svg.find("<text class=\"title\"")),
              "skew &lt;&amp;&quot; \xc2\xb7 decode_step, call 2");
    EXPECT_EQ(text_attr(svg, 0, "data-case"), "skew &lt;&amp;&quot;");
    EXPECT_EQ(text_attr(svg, 0, "data-function"), "decode_step");
    EXPECT_EQ(attr(svg, 0, "data-call"), 2);
    EXPECT_EQ(text_attr(svg, 0, "data-planner"), "balanced");
    expect_frame(svg, tiers);
    EXPECT_EQ(count(svg, "<g class=\"legend-merge\""), 1);
    EXPECT_EQ(count(svg, "<g class=\"legend-split\""), 1);
    // The axis is in the planner's cost units, which it names.
    EXPECT_NE(text_of(svg, svg.find("<text class=\"axis-label\""))
                  .find("64 per unit + 1 per KV token x query tokens + 64 "
                        "per piece"),
              std::string::npos);
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

// The spec's planner's and the MoE planner's descriptors as a grid and a
// row_affine dispatch share them: core c's bars are the units the
// simulation runs on core c, in its order, each as wide as its length
// (params[3]); each lane's total is that core's cost in the simulation's
// launch report; the bound is the total over the cores or the largest
// unit; the legend has the tiers used.
TEST(PlanSvg, DispatchChartAgreesWithTheDispatch) {
  using Space = IterationSpace<Dim<DYNAMIC>, Dim<DYNAMIC>>;
  using MoeTiers =
      TierConfig<Tier<0, 1, 64>, Tier<1, 65, 1024>, Tier<2, 1025, 65536>>;
  std::vector<WorkDescriptor> attention(4096), moe(4096);
  WorkPlanner<Space, DecodeAttentionTiers, params::Attention> spec(
      PlanConfig{256, 4096, 1024, true});
  std::vector<int> kv = {1, 1500, 5000, 17000, 0, 300};
  int attention_count = 0, moe_count = 0;
  ASSERT_EQ(spec.generate(kv.data(), 6, 2,
                          spec.plan_chunk_size(kv.data(), 6, 2),
                          attention.data(), 4096, &attention_count),
            PlanResult::OK);
  WorkPlanner<Space, MoeTiers, params::MoEPerExpert> experts(
      PlanConfig{16, 512, 1024, true});
  std::vector<int> counts = {3, 70, 0, 12, 200, 1, 33, 900};
  ASSERT_EQ(experts.generate(counts.data(), 8, 1,
                             experts.plan_chunk_size(counts.data(), 8, 1),
                             moe.data(), 4096, &moe_count),
            PlanResult::OK);
  struct Case {
    const char *pattern;
    const std::vector<WorkDescriptor> &descs;
    int count;
    std::vector<TierRange> tiers;
    const char *planner;
  };
  const Case cases[] = {
      {"attention", attention, attention_count,
       tier_ranges(DecodeAttentionTiers{}), "spec planner"},
      {"moe", moe, moe_count, tier_ranges(MoeTiers{}), "MoE planner"}};
  for (const Case &k : cases)
    for (bool rows : {false, true})
      for (int cores : {5, 24}) {
        SCOPED_TRACE(std::string(k.pattern) + (rows ? " rows " : " grid ") +
                     std::to_string(cores));
        const DispatchInfo info{"kernel", k.pattern, "vector", cores, rows};
        const std::string svg =
            chart_svg(dispatch_chart(k.descs.data(), k.count, info, k.tiers));
        EXPECT_EQ(text_attr(svg, 0, "data-planner"), "dispatch");
        EXPECT_EQ(text_of(svg, svg.find("<text class=\"title\"")),
                  "dispatched plan: @kernel");
        EXPECT_NE(
            text_of(svg, svg.find("<text class=\"planner\"")).find(k.planner),
            std::string::npos);
        expect_frame(svg, k.tiers);
        // What the simulation runs on each core, and its costs.
        sim::LaunchReport report;
        sim::Options options;
        options.os_threads = 1;
        options.schedule = rows ? sim::Schedule::Rows : sim::Schedule::Strided;
        std::vector<std::vector<int>> ran(size_t(cores) + 1);
        ASSERT_EQ(sim::run_spmd(
                      sim::CoreKind::Vector, cores, k.descs.data(), k.count,
                      [&](const WorkDescriptor &d) {
                        ran[size_t(sim::block_idx())].push_back(
                            int(&d - k.descs.data()));
                      },
                      &report, options),
                  PlanResult::OK);
        const std::vector<size_t> lanes = all(svg, "<g class=\"lane\"");
        ASSERT_EQ(lanes.size(), size_t(cores));
        long long total = 0, largest = 0;
        for (int c = 0; c < cores; ++c) {
          const size_t end = svg.find("</g>", lanes[size_t(c)]);
          std::vector<int> drawn;
          long long sum = 0;
          for (size_t r : all(svg.substr(0, end), "<rect class=\"unit")) {
            if (r < lanes[size_t(c)])
              continue;
            const int i = int(attr(svg, r, "data-index"));
            drawn.push_back(i);
            EXPECT_EQ(attr(svg, r, "data-cost"), k.descs[size_t(i)].params[3]);
            EXPECT_EQ(attr(svg, r, "data-tier"), k.descs[size_t(i)].tier);
            sum += attr(svg, r, "data-cost");
            largest = std::max(largest, attr(svg, r, "data-cost"));
          }
          EXPECT_EQ(drawn, ran[size_t(c)]) << "core " << c;
          EXPECT_EQ(sum, (long long)report.cores[size_t(c)].cost);
          EXPECT_EQ(attr(svg, lanes[size_t(c)], "data-cost"), sum);
          total += sum;
        }
        EXPECT_EQ(attr(svg, 0, "data-lower-bound"),
                  std::max((total + cores - 1) / cores, largest));
        EXPECT_EQ(attr(svg, 0, "data-units"), k.count);
        if (std::string(k.pattern) == "moe") {
          // Each expert's bars cover its tokens exactly.
          std::vector<long long> tokens(counts.size(), 0);
          for (size_t r : all(svg, "<rect class=\"unit")) {
            EXPECT_EQ(attr(svg, r, "data-batch"), 0);
            tokens[size_t(attr(svg, r, "data-expert"))] +=
                attr(svg, r, "data-token-count");
          }
          for (size_t e = 0; e < counts.size(); ++e)
            EXPECT_EQ(tokens[e], counts[e]) << "expert " << e;
        }
      }
  // A pattern of its own names its parameters; without a fourth there is
  // no length, and each unit counts 1.
  std::vector<WorkDescriptor> rope(7);
  for (int i = 0; i < 7; ++i)
    rope[size_t(i)].params[0] = uint32_t(10 + i);
  const std::string svg = chart_svg(dispatch_chart(
      rope.data(), 7,
      DispatchInfo{"rope", "rope:token,position", "vector", 3, false}));
  EXPECT_EQ(attr(svg, 0, "data-makespan"), 3);
  EXPECT_EQ(attr(svg, 0, "data-lower-bound"), 3);
  EXPECT_EQ(attr(svg, svg.find("<rect class=\"unit"), "data-token"), 10);
  EXPECT_NE(
      text_of(svg, svg.find("<text class=\"axis-label\"")).find("1 per unit"),
      std::string::npos);
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
  sim::restart_plan_charts(); // the run reads the variable again
  record();
  EXPECT_TRUE(files().empty());
  // Set during a run: read at the next run, not before.
  setenv("WSP_PLAN_SVG_DIR", dir.c_str(), 1);
  record();
  EXPECT_TRUE(files().empty());
  sim::restart_plan_charts(); // a new run's charts count from 0
  record();
  // Unset during the run: the run keeps drawing where it started.
  unsetenv("WSP_PLAN_SVG_DIR");
  record();
  sim::restart_plan_charts();
  record();
  const std::vector<std::string> written = files();
  ASSERT_EQ(written, (std::vector<std::string>{"plan_00.svg", "plan_01.svg"}));
  std::remove((dir + "/" + written[1]).c_str());
  std::ifstream in(dir + "/" + written[0]);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), plan_svg(plan, config));
  std::remove((dir + "/" + written[0]).c_str());
  rmdir(dir.c_str());
}

// A chart's file name and title say which call drew it: the case the
// self-check named (set_plan_case), the functions (PlanCall, outer first),
// which call of them in the case, and which of the call's charts.
TEST(PlanSvg, RecorderNamesTheCaseAndTheCall) {
  std::vector<int> lens = {3000, 20, 700};
  BalancedConfig config;
  config.num_cores = 4;
  BalancedPlan plan;
  ASSERT_EQ(
      plan_balanced(lens.data(), 3, 2, config, DecodeAttentionTiers{}, &plan),
      PlanResult::OK);
  char tmpl[] = "/tmp/wsp-plan-svg-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  auto balanced = [&] {
    sim::record_balanced_plan(lens.data(), 3, 2, config,
                              plan.descriptors.data(), plan.count,
                              plan.core_indptr.data(), plan.merge_indptr.data(),
                              nullptr, DecodeAttentionTiers{});
  };
  auto dispatched = [&] {
    sim::record_dispatch_plan(plan.descriptors.data(), plan.count,
                              DispatchInfo{"k", "attention", "mix", 4, true},
                              DecodeAttentionTiers{});
  };
  setenv("WSP_PLAN_SVG_DIR", dir.c_str(), 1);
  sim::restart_plan_charts();
  sim::set_plan_case("first case");
  {
    sim::PlanCall call("decode_step");
    balanced();
    dispatched();
  }
  {
    sim::PlanCall call("decode_step");
    balanced();
  }
  sim::set_plan_case("second/case");
  {
    sim::PlanCall outer("experts");
    sim::PlanCall inner("gemm");
    dispatched();
  }
  sim::set_plan_case(nullptr);
  {
    sim::PlanCall call("decode_step");
    balanced();
  }
  balanced(); // outside any call: plan_<n>.svg, as before
  // Inside a scope, the scope's case; the run's stays.
  {
    sim::PlanCharts own;
    own.dir = dir;
    sim::ScopedPlanCharts scope(&own);
    sim::set_plan_case("scoped");
    sim::PlanCall call("f");
    dispatched();
  }
  unsetenv("WSP_PLAN_SVG_DIR");
  sim::restart_plan_charts();
  const std::pair<const char *, const char *> want[] = {
      {"plan_00-first_case-decode_step-call1.svg",
       "first case \xc2\xb7 decode_step, call 1"},
      {"plan_01-first_case-decode_step-call1-plan2.svg",
       "first case \xc2\xb7 decode_step, call 1, plan 2: @k"},
      {"plan_02-first_case-decode_step-call2.svg",
       "first case \xc2\xb7 decode_step, call 2"},
      {"plan_03-second_case-experts.gemm-call1.svg",
       "second/case \xc2\xb7 experts &gt; gemm, call 1: @k"},
      {"plan_04-decode_step-call1.svg", "decode_step, call 1"},
      {"plan_05.svg", "balanced plan"},
      {"plan_00-scoped-f-call1.svg", "scoped \xc2\xb7 f, call 1: @k"},
  };
  for (const auto &[name, title] : want) {
    std::ifstream in(dir + "/" + name);
    ASSERT_TRUE(in.good()) << name;
    std::stringstream text;
    text << in.rdbuf();
    const std::string svg = text.str();
    EXPECT_EQ(text_of(svg, svg.find("<text class=\"title\"")), title);
    std::remove((dir + "/" + name).c_str());
  }
  EXPECT_EQ(rmdir(dir.c_str()), 0) << "a chart not named as expected";
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
  sim::restart_plan_charts();
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
  sim::restart_plan_charts();
  EXPECT_TRUE(files(run_dir).empty());
  rmdir(run_dir.c_str());
  for (const sim::PlanCharts &c : charts) {
    EXPECT_EQ(c.count, kPlans);
    EXPECT_FALSE(c.failed);
    EXPECT_EQ(files(c.dir), (std::vector<std::string>{
                                "plan_00.svg", "plan_01.svg", "plan_02.svg"}));
    for (const std::string &name : files(c.dir))
      std::remove((c.dir + "/" + name).c_str());
    rmdir(c.dir.c_str());
  }
}
