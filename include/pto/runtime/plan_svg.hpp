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
#include <cstdint>
#include <cstdio>
#include <string>

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

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_PLAN_SVG_HPP
