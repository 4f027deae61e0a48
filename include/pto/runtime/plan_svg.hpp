// pto/runtime/plan_svg.hpp - a picture of a balanced plan: an SVG Gantt
// chart of its cores.
//
// One lane per core, one bar per work unit in the core's order, as wide as
// the unit's modeled cost (per_unit + per_token x KV tokens x query tokens,
// + per_merge for a piece after a row's first), coloured by tier; the
// pieces of a split row are outlined and its last piece carries a merge
// mark; a vertical line at the plan's lower bound (balanced_lower_bound)
// shows how far the busiest core is from the best any plan could do.
// Every element carries its numbers as data-* attributes, so a test (or a
// script) reads the chart back: lanes, bars, costs, the bound.
#ifndef PTO_RUNTIME_PLAN_SVG_HPP
#define PTO_RUNTIME_PLAN_SVG_HPP

#include "pto/runtime/balanced_planner.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace pto {
namespace runtime {

/// The modeled cost of descriptor `d` of a balanced plan: what the planner
/// charged its core.
inline int64_t unit_cost(const WorkDescriptor &d, const CostModel &cost,
                         const int *q_lens = nullptr) {
  const int64_t q =
      q_lens ? q_lens[params::Attention::request_idx(d)] : int64_t(1);
  return cost.piece(cost.per_token * q * int64_t(params::Attention::kv_len(d)),
                    params::Attention::kv_start(d) == 0);
}

/// The chart of `plan` (made with `config` and `q_lens`), `width` pixels
/// wide for the longest of the busiest core and the lower bound.
inline std::string plan_svg(const BalancedPlan &plan,
                            const BalancedConfig &config,
                            const int *q_lens = nullptr, int width = 960) {
  static const char *const kTierColors[] = {"#4e79a7", "#f28e2b", "#59a14f",
                                            "#e15759", "#b07aa1", "#76b7b2"};
  const int cores = static_cast<int>(plan.core_indptr.size()) - 1;
  const int lane = 14, gap = 4, left = 48, top = 24;
  int64_t makespan = 0;
  for (int64_t c : plan.core_cost)
    makespan = std::max(makespan, c);
  const double span = static_cast<double>(
      std::max<int64_t>({makespan, plan.lower_bound_cost, int64_t(1)}));
  const double scale = width / span;
  const int height = top + std::max(cores, 0) * (lane + gap) + 24;
  std::string svg;
  char buf[512];
  auto emit = [&](const char *fmt, auto... args) {
    std::snprintf(buf, sizeof buf, fmt, args...);
    svg += buf;
  };
  emit("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
       "data-cores=\"%d\" data-units=\"%d\" data-makespan=\"%lld\" "
       "data-lower-bound=\"%lld\">\n",
       left + width + 16, height, cores, plan.count, (long long)makespan,
       (long long)plan.lower_bound_cost);
  emit("<text x=\"%d\" y=\"16\" font-size=\"12\">%d units on %d cores; "
       "busiest core %lld, lower bound %lld (%.3fx)</text>\n",
       left, plan.count, cores, (long long)makespan,
       (long long)plan.lower_bound_cost,
       plan.lower_bound_cost > 0
           ? double(makespan) / double(plan.lower_bound_cost)
           : 1.0);
  for (int c = 0; c < cores; ++c) {
    const int y = top + c * (lane + gap);
    emit("<g class=\"lane\" data-core=\"%d\" data-cost=\"%lld\">\n", c,
         (long long)(c < int(plan.core_cost.size()) ? plan.core_cost[c] : 0));
    emit("<text x=\"%d\" y=\"%d\" font-size=\"10\" "
         "text-anchor=\"end\">%d</text>\n",
         left - 4, y + lane - 3, c);
    int64_t at = 0;
    for (int i = plan.core_indptr[c]; i < plan.core_indptr[c + 1]; ++i) {
      const WorkDescriptor &d = plan.descriptors[plan.core_items[i]];
      const int64_t cost = unit_cost(d, config.cost, q_lens);
      const bool split = !(d.is_first() && d.is_last());
      emit("<rect class=\"unit%s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
           "height=\"%d\" fill=\"%s\"%s data-request=\"%u\" data-head=\"%u\" "
           "data-kv-start=\"%u\" data-kv-len=\"%u\" data-tier=\"%d\" "
           "data-cost=\"%lld\"/>\n",
           split ? " split" : "", left + at * scale, y,
           std::max(cost * scale, 0.5), lane,
           kTierColors[d.tier % (sizeof kTierColors / sizeof *kTierColors)],
           split ? " stroke=\"#000\" stroke-width=\"1\"" : "",
           params::Attention::request_idx(d), params::Attention::head_idx(d),
           params::Attention::kv_start(d), params::Attention::kv_len(d),
           int(d.tier), (long long)cost);
      at += cost;
      if (split && d.is_last())
        emit("<circle class=\"merge\" cx=\"%.2f\" cy=\"%d\" r=\"3\" "
             "fill=\"#000\" data-request=\"%u\" data-head=\"%u\"/>\n",
             left + at * scale, y + lane / 2, params::Attention::request_idx(d),
             params::Attention::head_idx(d));
    }
    svg += "</g>\n";
  }
  const double bound = left + plan.lower_bound_cost * scale;
  emit("<line class=\"lower-bound\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
       "y2=\"%d\" stroke=\"#d00\" stroke-dasharray=\"4 3\" "
       "data-cost=\"%lld\"/>\n",
       bound, top - 4, bound, height - 16, (long long)plan.lower_bound_cost);
  svg += "</svg>\n";
  return svg;
}

/// The plan plan_balanced_into wrote into caller buffers (`count`
/// descriptors, `core_indptr` of config.num_cores + 1 entries over
/// contiguous ranges, `merge_indptr`), as the BalancedPlan plan_svg draws:
/// each core's cost from its descriptors (unit_cost), the lower bound from
/// the same input (balanced_lower_bound). `q_lens` as the planner's.
inline BalancedPlan plan_from_buffers(const int *kv_lens, int batch,
                                      int kv_heads, const BalancedConfig &config,
                                      const WorkDescriptor *descs, int count,
                                      const int *core_indptr,
                                      const int *merge_indptr,
                                      const int *q_lens = nullptr) {
  BalancedPlan plan;
  plan.count = count;
  plan.descriptors.assign(descs, descs + count);
  plan.core_indptr.assign(core_indptr, core_indptr + config.num_cores + 1);
  plan.core_items.resize(count);
  for (int i = 0; i < count; ++i)
    plan.core_items[i] = i;
  plan.rows = 0;
  for (int i = 0; i < count; ++i)
    plan.rows += descs[i].is_first();
  plan.merge_indptr.assign(merge_indptr, merge_indptr + plan.rows + 1);
  plan.core_cost.assign(config.num_cores, 0);
  for (int c = 0; c < config.num_cores; ++c)
    for (int i = core_indptr[c]; i < core_indptr[c + 1]; ++i)
      plan.core_cost[c] += unit_cost(descs[i], config.cost, q_lens);
  plan.lower_bound_cost =
      balanced_lower_bound(kv_lens, batch, kv_heads, config, q_lens);
  return plan;
}

namespace sim {

/// Plans a run draws at most (a model's decode loop plans every step).
constexpr int kMaxPlanCharts = 100;

/// Where one caller's balanced plans are drawn, and how many so far: a
/// C entry point's caller (the Python package) gives each call its own,
/// so that calls on several threads share neither a directory nor a count
/// and read nothing of the environment (ScopedPlanCharts). Used by one
/// thread at a time.
struct PlanCharts {
  std::string dir; // empty: none drawn
  int count = 0;
  bool failed = false; // a chart could not be written (said once)
};

namespace detail {
/// The run's charts so far, and whether one could not be written.
inline std::atomic<int> &plan_charts() {
  static std::atomic<int> count{0};
  return count;
}
inline std::atomic<bool> &plan_chart_failed() {
  static std::atomic<bool> failed{false};
  return failed;
}
/// The calling thread's charts, when a ScopedPlanCharts gave it some.
inline PlanCharts *&thread_plan_charts() {
  thread_local PlanCharts *charts = nullptr;
  return charts;
}
} // namespace detail

/// Numbers the next charts from 0 again, as a new run's: a process that
/// runs several steps and draws each one's plans restarts before each.
inline void restart_plan_charts() {
  detail::plan_charts() = 0;
  detail::plan_chart_failed() = false;
}

/// For its lifetime, the calling thread draws its balanced plans into
/// `charts` (numbered by its count) instead of WSP_PLAN_SVG_DIR; a
/// `charts` with no directory draws none. Null: the run's, as without it.
class ScopedPlanCharts {
public:
  explicit ScopedPlanCharts(PlanCharts *charts)
      : saved_(detail::thread_plan_charts()) {
    detail::thread_plan_charts() = charts;
  }
  ~ScopedPlanCharts() { detail::thread_plan_charts() = saved_; }
  ScopedPlanCharts(const ScopedPlanCharts &) = delete;
  ScopedPlanCharts &operator=(const ScopedPlanCharts &) = delete;

private:
  PlanCharts *saved_;
};

/// The CPU simulation's picture of each balanced plan it makes (the
/// CPU-sim form calls it after every successful plan_balanced_into; `wspc
/// --run --plan-svg DIR` sets WSP_PLAN_SVG_DIR): plan_svg of the plan into
/// DIR/plan_<n>.svg, n counting the run's plans from 0 (ranks running as
/// threads share the count). Nothing without WSP_PLAN_SVG_DIR. Inside a
/// ScopedPlanCharts, the scope's directory and count instead, and never
/// the environment. A file is written whole or not at all (a temporary
/// renamed into place); past kMaxPlanCharts plans, one line on stderr says
/// the rest were not drawn, and a chart that cannot be written says so
/// once per run (until restart_plan_charts) or per scope's charts.
inline void record_balanced_plan(const int *kv_lens, int batch, int kv_heads,
                                 const BalancedConfig &config,
                                 const WorkDescriptor *descs, int count,
                                 const int *core_indptr,
                                 const int *merge_indptr,
                                 const int *q_lens = nullptr) {
  PlanCharts *own = detail::thread_plan_charts();
  const char *dir = own ? own->dir.c_str() : std::getenv("WSP_PLAN_SVG_DIR");
  if (!dir || !*dir)
    return;
  const int n = own ? own->count++ : detail::plan_charts()++;
  if (n >= kMaxPlanCharts) {
    if (n == kMaxPlanCharts)
      std::fprintf(stderr,
                   "wsp: %d plan charts written to %s; later plans not "
                   "drawn\n",
                   kMaxPlanCharts, dir);
    return;
  }
  const std::string svg =
      plan_svg(plan_from_buffers(kv_lens, batch, kv_heads, config, descs,
                                 count, core_indptr, merge_indptr, q_lens),
               config, q_lens);
  const std::string path =
      std::string(dir) + "/plan_" + std::to_string(n) + ".svg";
  const std::string tmp = path + ".tmp";
  bool ok = false;
  if (std::FILE *f = std::fopen(tmp.c_str(), "w")) {
    ok = std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
    ok = std::fclose(f) == 0 && ok;
  }
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    const bool said = own ? std::exchange(own->failed, true)
                          : detail::plan_chart_failed().exchange(true);
    if (!said)
      std::fprintf(stderr, "wsp: cannot write the plan chart %s\n",
                   path.c_str());
  }
}

} // namespace sim

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_PLAN_SVG_HPP
