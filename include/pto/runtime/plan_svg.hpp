// pto/runtime/plan_svg.hpp - pictures of plans: SVG Gantt charts of the
// simulated cores, for every planner.
//
// One frame for every planner (chart_svg): a title naming the call that
// planned (the self-check's case, the function and which call of it), a
// subtitle naming the planner and how the cores share its units, a legend
// (each tier used with its length range, the outline of a split row's
// pieces, the merge mark, the lower bound), one lane per core labelled with
// its id and its total, one bar per work unit in the core's order, as wide
// as its cost and coloured by tier, an x axis with ticks in the planner's
// cost unit, which its label names, and a dashed line at the lower bound,
// labelled with its value. The planners differ only in how the bars are
// derived:
//
// * balanced_chart: a balanced plan (plan_balanced_into). A bar is the
//   unit's modeled cost (per_unit + per_token x KV tokens x query tokens,
//   + per_merge for a piece after a row's first): what the planner charged
//   its core. The bound is balanced_lower_bound; the pieces of a split row
//   are outlined and its last piece carries a merge mark.
// * dispatch_chart: the descriptors a wsp.dispatch shares among its cores
//   (a grid: core c takes units c, c+N, ...; row_affine: contiguous ranges
//   of whole rows), as the spec's planner (WorkPlanner: attention rows,
//   MoE experts' tokens, an operator's rows) made them. That planner models
//   no cost, so a bar is the unit's length (params[3]: its KV tokens, its
//   expert's tokens: what the simulation's launch report counts) and the
//   bound is what no placement of these units beats (the total over the
//   cores, or the largest unit).
//
// Every element carries its numbers as data-* attributes, so a test (or a
// script) reads the chart back: lanes, bars, costs, the bound, the legend's
// tiers, the axis ticks, the call.
#ifndef PTO_RUNTIME_PLAN_SVG_HPP
#define PTO_RUNTIME_PLAN_SVG_HPP

#include "pto/runtime/balanced_planner.hpp"
#include "pto/runtime/kernel_dispatch.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

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

/// The tiers of a tier configuration, as ranges (the chart's legend).
template <typename... Tiers>
std::vector<TierRange> tier_ranges(const TierConfig<Tiers...> &) {
  return {TierRange{Tiers::id, Tiers::min_size, Tiers::max_size}...};
}
inline std::vector<TierRange> tier_ranges(const TierList &tiers) {
  return tiers.tiers();
}

/// One work unit of a chart: a bar.
struct ChartBar {
  int64_t cost = 0;   // its width, in the chart's unit
  int tier = 0;       // its colour
  bool split = false; // a piece of a split row: outlined
  bool merge = false; // a split row's last piece: a merge mark after it
  std::string attrs;  // its own data-* attributes
  std::string tip;    // what a viewer shows over it
};

/// One core of a chart: its bars in the order it runs them.
struct ChartLane {
  int core = 0;
  int64_t cost = 0; // the sum of its bars
  std::vector<ChartBar> bars;
};

/// A plan as chart_svg draws it, whichever planner made it.
struct PlanChart {
  std::string planner;     // data-planner: "balanced" or "dispatch"
  std::string subject;     // what ran the plan, for the title ("@kernel")
  std::string description; // who planned, how the cores share the units
  std::string unit;        // the axis label: the cost unit, what it counts
  std::string length_unit; // what a tier's lengths count ("KV tokens")
  std::vector<ChartLane> lanes;
  std::vector<TierRange> tiers; // the tiers' ranges, when known
  int units = 0;
  int64_t makespan = 0;     // the busiest core's cost
  int64_t lower_bound = -1; // < 0: none drawn
  std::string bound_note;   // what the bound is (legend)
  std::string merge_note;   // what a merge mark is (legend; empty: none)
};

/// Which call a chart belongs to: its title and file name.
struct ChartCall {
  std::string case_name; // the self-check's case (sim::set_plan_case)
  std::string function;  // the planning function, outer > inner
  int call = 0;          // which call of it (from 1) in the case or run
  int plan = 0;          // which of the call's charts (from 1)
};

namespace detail {

/// `text` with XML's special characters escaped.
inline std::string xml(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  return out;
}

/// printf into a std::string.
template <typename... Args> std::string format(const char *fmt, Args... args) {
  char buf[256];
  const int n = std::snprintf(buf, sizeof buf, fmt, args...);
  if (n < 0)
    return std::string();
  if (static_cast<size_t>(n) < sizeof buf)
    return std::string(buf, static_cast<size_t>(n));
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(&out[0], out.size(), fmt, args...);
  out.resize(static_cast<size_t>(n));
  return out;
}

/// The width `text` takes at `font_size` pixels, a little over what
/// sans-serif takes (DejaVu Sans, the widest common one, about 0.53 em a
/// character): what lays out the legend, wraps lines and places labels.
inline double text_width(const std::string &text, double font_size) {
  size_t chars = 0;
  for (unsigned char c : text)
    chars += (c & 0xc0) != 0x80; // UTF-8: count characters, not bytes
  return 0.56 * font_size * static_cast<double>(chars);
}

/// `text` cut at spaces into lines at most `width` pixels wide at
/// `font_size` (a word wider than that is a line of its own).
inline std::vector<std::string> wrap(const std::string &text, double width,
                                     double font_size) {
  std::vector<std::string> lines;
  std::string line;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos)
      end = text.size();
    const std::string word = text.substr(at, end - at);
    const std::string longer = line.empty() ? word : line + " " + word;
    if (!line.empty() && text_width(longer, font_size) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = longer;
    }
    at = end + 1;
  }
  if (!line.empty() || lines.empty())
    lines.push_back(line);
  return lines;
}

/// The axis step: 1, 2 or 5 x 10^k, the smallest giving at most `ticks`
/// intervals over `span` (> 0).
inline int64_t tick_step(int64_t span, int64_t ticks) {
  const int64_t want = (span + ticks - 1) / ticks;
  for (int64_t power = 1;; power *= 10)
    for (int64_t m : {1, 2, 5})
      if (power * m >= want || power > INT64_MAX / 100)
        return power * m;
}

/// A tick's label: 20k for 20000, 3M for 3000000, else the number.
inline std::string tick_label(int64_t v) {
  if (v >= 1000000 && v % 1000000 == 0)
    return format("%lldM", (long long)(v / 1000000));
  if (v >= 10000 && v % 1000 == 0)
    return format("%lldk", (long long)(v / 1000));
  return format("%lld", (long long)v);
}

inline const char *tier_color(int tier) {
  static const char *const kColors[] = {"#4e79a7", "#f28e2b", "#59a14f",
                                        "#e15759", "#b07aa1", "#76b7b2"};
  const int n = static_cast<int>(sizeof kColors / sizeof *kColors);
  return kColors[((tier % n) + n) % n];
}

} // namespace detail

/// A chart's title: the case, the function and its call, the call's chart
/// when it drew several; a call nobody named is just the planner's plan.
inline std::string chart_title(const ChartCall &call, const PlanChart &chart) {
  std::string title;
  if (!call.case_name.empty())
    title = call.case_name;
  if (!call.function.empty()) {
    title += title.empty() ? "" : " \xc2\xb7 "; // a middle dot
    title += call.function + detail::format(", call %d", call.call);
    if (call.plan > 1)
      title += detail::format(", plan %d", call.plan);
  }
  if (title.empty())
    title = chart.planner == "balanced" ? "balanced plan" : "dispatched plan";
  if (!chart.subject.empty())
    title += ": " + chart.subject;
  return title;
}

/// The SVG of `chart`, `width` pixels of plot for the axis's range (the
/// busiest core and the bound, rounded up to a tick), titled for `call`.
inline std::string chart_svg(const PlanChart &chart, const ChartCall &call = {},
                             int width = 960) {
  using detail::format;
  using detail::xml;
  const int lane = 14, gap = 4, left = 64, right = 76;
  const int total_width = left + width + right;
  const int cores = static_cast<int>(chart.lanes.size());
  std::string svg;
  auto emit = [&](const std::string &s) { svg += s; };

  // The axis: from 0 to the busiest core or the bound, rounded up to a
  // whole step of 1, 2 or 5 x 10^k, at most 8 steps.
  const int64_t span =
      std::max<int64_t>({chart.makespan, chart.lower_bound, int64_t(1)});
  const int64_t step = detail::tick_step(span, 8);
  const int64_t axis_end = (span + step - 1) / step * step;
  const double scale = width / static_cast<double>(axis_end);

  // The legend: the tiers the bars use, then the marks, in rows that wrap
  // at the chart's width.
  std::vector<int> used;
  for (const ChartLane &l : chart.lanes)
    for (const ChartBar &b : l.bars)
      if (std::find(used.begin(), used.end(), b.tier) == used.end())
        used.push_back(b.tier);
  std::sort(used.begin(), used.end());
  bool any_split = false, any_merge = false;
  for (const ChartLane &l : chart.lanes)
    for (const ChartBar &b : l.bars) {
      any_split |= b.split;
      any_merge |= b.merge;
    }
  struct Item {
    std::string klass, attrs, swatch, text;
  };
  std::vector<Item> items;
  for (int t : used) {
    std::string text = format("tier %d", t),
                attrs = format(" data-tier=\"%d\"", t);
    for (const TierRange &r : chart.tiers)
      if (r.id == t) {
        text += r.max_size == INT_MAX
                    ? format(": %d or more", r.min_size)
                    : format(": %d-%d", r.min_size, r.max_size);
        if (!chart.length_unit.empty())
          text += " " + chart.length_unit;
        attrs +=
            format(" data-min=\"%d\" data-max=\"%d\"", r.min_size, r.max_size);
        break;
      }
    items.push_back({"legend-tier", attrs,
                     format("<rect x=\"0\" y=\"-9\" width=\"14\" "
                            "height=\"10\" fill=\"%s\"/>",
                            detail::tier_color(t)),
                     text});
  }
  if (any_split)
    items.push_back({"legend-split", "",
                     "<rect x=\"0\" y=\"-9\" width=\"14\" height=\"10\" "
                     "fill=\"#ccc\" stroke=\"#000\" stroke-width=\"1\"/>",
                     "outlined: a piece of a split row"});
  if (any_merge && !chart.merge_note.empty())
    items.push_back({"legend-merge", "",
                     "<circle cx=\"7\" cy=\"-4\" r=\"3\" fill=\"#000\"/>",
                     chart.merge_note});
  if (chart.lower_bound >= 0)
    items.push_back({"legend-bound", "",
                     "<line x1=\"0\" y1=\"-4\" x2=\"14\" y2=\"-4\" "
                     "stroke=\"#d00\" stroke-width=\"1.5\" "
                     "stroke-dasharray=\"4 3\"/>",
                     chart.bound_note});
  // The title (bold: a wider font), the planner's description, each
  // wrapped at the chart's width, then the numbers, then the legend.
  const std::string title = chart_title(call, chart);
  const std::vector<std::string> titled =
      detail::wrap(title, total_width - left - 8, 16.5);
  const int described_top = 38 + 18 * (static_cast<int>(titled.size()) - 1);
  const std::vector<std::string> described =
      detail::wrap(chart.description, total_width - left - 8, 11);
  const int described_end =
      described_top + 14 * (static_cast<int>(described.size()) - 1);
  const int legend_font = 11, legend_row = 17, legend_top = described_end + 38;
  std::vector<std::pair<double, int>> at; // each item's x and row
  double x = left;
  int rows = 1;
  for (const Item &item : items) {
    const double w = 20 + detail::text_width(item.text, legend_font) + 18;
    if (x > left && x + w > total_width) {
      x = left;
      ++rows;
    }
    at.push_back({x, rows - 1});
    x += w;
  }
  if (items.empty())
    rows = 0;

  const int top = legend_top + rows * legend_row + 20; // the first lane
  const int plot_bottom = top + cores * (lane + gap);
  const std::vector<std::string> unit_lines =
      detail::wrap(chart.unit, width, 11);
  const int height =
      plot_bottom + 50 + 14 * (static_cast<int>(unit_lines.size()) - 1);

  emit(format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
              "height=\"%d\" font-family=\"sans-serif\" data-planner=\"%s\"",
              total_width, height, xml(chart.planner).c_str()));
  if (!call.case_name.empty())
    emit(" data-case=\"" + xml(call.case_name) + "\"");
  if (!call.function.empty())
    emit(format(" data-function=\"%s\" data-call=\"%d\" data-plan=\"%d\"",
                xml(call.function).c_str(), call.call, call.plan));
  emit(format(" data-cores=\"%d\" data-units=\"%d\" data-makespan=\"%lld\" "
              "data-lower-bound=\"%lld\">\n",
              cores, chart.units, (long long)chart.makespan,
              (long long)chart.lower_bound));
  emit("<title>" + xml(title) + "</title>\n");
  emit(format("<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", total_width,
              height));
  emit(format("<text class=\"title\" x=\"%d\" y=\"20\" font-size=\"15\" "
              "font-weight=\"bold\">",
              left));
  for (size_t i = 0; i < titled.size(); ++i)
    emit(format("<tspan x=\"%d\" dy=\"%d\">", left, i ? 18 : 0) +
         xml(titled[i]) + "</tspan>");
  emit("</text>\n");
  emit(format("<text class=\"planner\" x=\"%d\" y=\"%d\" font-size=\"11\">",
              left, described_top));
  for (size_t i = 0; i < described.size(); ++i)
    emit(format("<tspan x=\"%d\" dy=\"%d\">", left, i ? 14 : 0) +
         xml(described[i]) + "</tspan>");
  emit("</text>\n");
  std::string numbers = format("%d units on %d cores; busiest core %lld",
                               chart.units, cores, (long long)chart.makespan);
  if (chart.lower_bound > 0)
    numbers +=
        format(", lower bound %lld (%.3fx)", (long long)chart.lower_bound,
               double(chart.makespan) / double(chart.lower_bound));
  emit(format("<text class=\"summary\" x=\"%d\" y=\"%d\" font-size=\"11\" "
              "fill=\"#444\">",
              left, described_end + 16) +
       xml(numbers) + "</text>\n");
  for (size_t i = 0; i < items.size(); ++i)
    emit(format("<g class=\"%s\"%s transform=\"translate(%.1f,%d)\">",
                items[i].klass.c_str(), items[i].attrs.c_str(), at[i].first,
                legend_top + at[i].second * legend_row) +
         items[i].swatch +
         format("<text x=\"20\" y=\"0\" font-size=\"%d\">", legend_font) +
         xml(items[i].text) + "</text></g>\n");

  // The lanes: a label, the bars, the merge marks, the core's total (in a
  // column right of the plot, clear of the bars and the bound).
  emit(format("<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#444\">"
              "total</text>\n",
              left + width + 14, top - 7));
  for (int c = 0; c < cores; ++c) {
    const ChartLane &l = chart.lanes[size_t(c)];
    const int y = top + c * (lane + gap);
    emit(format("<g class=\"lane\" data-core=\"%d\" data-cost=\"%lld\">\n",
                l.core, (long long)l.cost));
    emit(format("<text x=\"%d\" y=\"%d\" font-size=\"10\" "
                "text-anchor=\"end\">core %d</text>\n",
                left - 6, y + lane - 3, l.core));
    int64_t pos = 0;
    for (const ChartBar &b : l.bars) {
      emit(format("<rect class=\"unit%s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
                  "height=\"%d\" fill=\"%s\"%s",
                  b.split ? " split" : "", left + pos * scale, y,
                  std::max(b.cost * scale, 1.0), lane,
                  detail::tier_color(b.tier),
                  b.split ? " stroke=\"#000\" stroke-width=\"1\""
                          : " stroke=\"#fff\" stroke-width=\"0.5\""));
      emit(b.attrs);
      emit(format(" data-tier=\"%d\" data-cost=\"%lld\">", b.tier,
                  (long long)b.cost));
      emit("<title>" + xml(b.tip) + "</title></rect>\n");
      pos += b.cost;
      if (b.merge)
        emit(format("<circle class=\"merge\" cx=\"%.2f\" cy=\"%d\" r=\"3\" "
                    "fill=\"#000\"%s>",
                    left + pos * scale, y + lane / 2, b.attrs.c_str()) +
             "<title>" + xml(chart.merge_note) + "</title></circle>\n");
    }
    emit(format("<text class=\"lane-total\" x=\"%d\" y=\"%d\" "
                "font-size=\"10\" fill=\"#444\">%lld</text>\n",
                left + width + 14, y + lane - 3, (long long)l.cost));
    emit("</g>\n");
  }

  // The axis: a baseline, ticks from 0 to its end, their labels, its unit.
  const int axis_y = plot_bottom + 2;
  emit(format("<g class=\"axis\" data-end=\"%lld\" data-step=\"%lld\">\n",
              (long long)axis_end, (long long)step));
  emit(format("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
              "stroke=\"#000\"/>\n",
              left, axis_y, left + width, axis_y));
  for (int64_t v = 0; v <= axis_end; v += step) {
    const double tx = left + v * scale;
    emit(format("<line class=\"tick\" data-value=\"%lld\" x1=\"%.2f\" "
                "y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#000\"/>\n",
                (long long)v, tx, axis_y, tx, axis_y + 5));
    emit(format("<text x=\"%.2f\" y=\"%d\" font-size=\"10\" "
                "text-anchor=\"middle\">%s</text>\n",
                tx, axis_y + 17, detail::tick_label(v).c_str()));
    if (v > axis_end - step)
      break; // the last tick (and no overflow past it)
  }
  emit(format("<text class=\"axis-label\" x=\"%.1f\" y=\"%d\" "
              "font-size=\"11\" text-anchor=\"middle\">",
              left + width / 2.0, axis_y + 35));
  for (size_t i = 0; i < unit_lines.size(); ++i)
    emit(
        format("<tspan x=\"%.1f\" dy=\"%d\">", left + width / 2.0, i ? 14 : 0) +
        xml(unit_lines[i]) + "</tspan>");
  emit("</text>\n</g>\n");

  // The bound: a dashed line over the lanes, its value above them.
  if (chart.lower_bound >= 0) {
    const double bx = left + chart.lower_bound * scale;
    const std::string label =
        format("lower bound = %lld", (long long)chart.lower_bound);
    const double half = detail::text_width(label, 10) / 2;
    const double lx =
        std::min(std::max(bx, left + half), double(left + width) - half);
    emit(format("<line class=\"lower-bound\" x1=\"%.2f\" y1=\"%d\" "
                "x2=\"%.2f\" y2=\"%d\" stroke=\"#d00\" stroke-width=\"1.5\" "
                "stroke-dasharray=\"4 3\" data-cost=\"%lld\"/>\n",
                bx, top - 4, bx, axis_y, (long long)chart.lower_bound));
    emit(format("<text class=\"lower-bound-label\" x=\"%.2f\" y=\"%d\" "
                "font-size=\"10\" fill=\"#d00\" text-anchor=\"middle\">",
                lx, top - 7) +
         xml(label) + "</text>\n");
  }
  emit("</svg>\n");
  return svg;
}

/// A balanced plan's chart (made with `config` and `q_lens`; `tiers`, the
/// plan's tier ranges, for the legend). `as_cuts`: the plan was made as
/// cuts, whose descriptors the cores expanded.
inline PlanChart balanced_chart(const BalancedPlan &plan,
                                const BalancedConfig &config,
                                const int *q_lens = nullptr,
                                std::vector<TierRange> tiers = {},
                                bool as_cuts = false) {
  using detail::format;
  PlanChart chart;
  chart.planner = "balanced";
  chart.description =
      std::string("balanced planner (pto::runtime::plan_balanced_into") +
      (as_cuts ? ", the plan as cuts the cores expanded" : "") +
      "): each core a contiguous range of rows and pieces of rows, its "
      "modeled cost evened out";
  const CostModel &cost = config.cost;
  chart.unit =
      format("modeled cost, in the balanced planner's units: %lld "
             "per unit + %lld per KV token%s + %lld per piece after "
             "a row's first",
             (long long)cost.per_unit, (long long)cost.per_token,
             q_lens ? " x query tokens" : "", (long long)cost.per_merge);
  chart.length_unit = "KV tokens";
  chart.tiers = std::move(tiers);
  chart.units = plan.count;
  chart.lower_bound = plan.lower_bound_cost;
  chart.bound_note = "lower bound: no plan's busiest core costs less";
  int split_rows = 0;
  for (int i = 0; i < plan.count; ++i) {
    const WorkDescriptor &d = plan.descriptors[size_t(i)];
    split_rows += d.is_last() && !d.is_first();
  }
  chart.merge_note =
      format("merge: a split row's partial results combine after its last "
             "piece (%d rows)",
             split_rows);
  const int cores = static_cast<int>(plan.core_indptr.size()) - 1;
  for (int c = 0; c < cores; ++c) {
    ChartLane l;
    l.core = c;
    l.cost = c < int(plan.core_cost.size()) ? plan.core_cost[size_t(c)] : 0;
    for (int i = plan.core_indptr[size_t(c)];
         i < plan.core_indptr[size_t(c) + 1]; ++i) {
      const WorkDescriptor &d =
          plan.descriptors[size_t(plan.core_items[size_t(i)])];
      ChartBar b;
      b.cost = unit_cost(d, cost, q_lens);
      b.tier = d.tier;
      b.split = !(d.is_first() && d.is_last());
      b.merge = b.split && d.is_last();
      const unsigned r = params::Attention::request_idx(d),
                     h = params::Attention::head_idx(d),
                     s = params::Attention::kv_start(d),
                     n = params::Attention::kv_len(d);
      b.attrs = format(" data-request=\"%u\" data-head=\"%u\" "
                       "data-kv-start=\"%u\" data-kv-len=\"%u\"",
                       r, h, s, n);
      b.tip = format("request %u, KV head %u, KV [%u, %u), tier %d, cost %lld",
                     r, h, s, s + n, int(d.tier), (long long)b.cost);
      l.bars.push_back(std::move(b));
    }
    chart.makespan = std::max(chart.makespan, l.cost);
    chart.lanes.push_back(std::move(l));
  }
  return chart;
}

/// The chart of `plan` (made with `config` and `q_lens`), `width` pixels
/// wide for the axis's range.
inline std::string plan_svg(const BalancedPlan &plan,
                            const BalancedConfig &config,
                            const int *q_lens = nullptr, int width = 960) {
  return chart_svg(balanced_chart(plan, config, q_lens), {}, width);
}

/// A wsp.dispatch of a descriptor buffer, as the CPU-sim form runs it.
struct DispatchInfo {
  const char *kernel = "";    // the kernel or kernel table dispatched
  const char *pattern = "";   // "attention", "moe", or "name:param,param,..."
  const char *core_kind = ""; // "cube", "vector" or "mix"
  int num_cores = 0;
  bool row_affine = false; // whole rows per core, else a grid
};

/// The chart of `count` descriptors dispatched as `info` says (core c of N
/// runs units c, c+N, ... or, row_affine, the contiguous range
/// row_range_begin gives it); `tiers`, their tier ranges, for the legend.
/// A bar is the unit's length, params[3] (the spec's patterns: KV tokens,
/// an expert's tokens; a pattern of fewer parameters: 1 per unit).
inline PlanChart dispatch_chart(const WorkDescriptor *descs, int count,
                                const DispatchInfo &info,
                                std::vector<TierRange> tiers = {}) {
  using detail::format;
  PlanChart chart;
  chart.planner = "dispatch";
  if (info.kernel && *info.kernel)
    chart.subject = std::string("@") + info.kernel;
  // The pattern's parameter names: its data-* attributes and its tips.
  std::vector<std::string> names;
  std::string pattern = info.pattern ? info.pattern : "";
  const bool attention = pattern == "attention", moe = pattern == "moe";
  if (attention)
    names = {"request", "head", "kv-start", "kv-len"};
  else if (moe)
    names = {"batch", "expert", "token-start", "token-count"};
  else if (size_t colon = pattern.find(':'); colon != std::string::npos) {
    std::string list = pattern.substr(colon + 1);
    pattern.resize(colon);
    for (size_t at = 0; at <= list.size();) {
      size_t end = list.find(',', at);
      if (end == std::string::npos)
        end = list.size();
      std::string name;
      for (char ch : list.substr(at, end - at))
        name += (std::isalnum(static_cast<unsigned char>(ch)) ? ch : '-');
      if (!name.empty() && names.size() < 4)
        names.push_back(name);
      at = end + 1;
    }
  }
  const bool lengths = names.size() == 4; // params[3] is a length
  const std::string what = attention ? "KV tokens"
                           : moe     ? "tokens"
                           : lengths ? names[3]
                                     : "work units";
  chart.length_unit = attention ? "KV tokens" : moe ? "tokens" : "";
  const std::string planner =
      attention ? "spec planner (WorkPlanner): a unit per (request, KV head, "
                  "chunk)"
      : moe ? "MoE planner (WorkPlanner per expert): a unit per chunk of an "
              "expert's tokens"
            : "spec planner (WorkPlanner): " +
                  (pattern.empty() ? std::string("unnamed") : pattern) +
                  " descriptors";
  chart.description = format(
      "%s; wsp.dispatch @%s on %s(%d), %s", planner.c_str(),
      info.kernel ? info.kernel : "", info.core_kind ? info.core_kind : "",
      info.num_cores,
      info.row_affine ? "row_affine: each core a contiguous range of whole rows"
                      : "a grid: core c runs units c, c+N, c+2N, ...");
  chart.unit =
      lengths ? format("%s per core (the spec's planner models no cost: a "
                       "bar is its unit's %s, params[3])",
                       what.c_str(),
                       attention ? "kv_len"
                       : moe     ? "token_count"
                                 : names[3].c_str())
              : std::string("work units per core (the spec's planner models "
                            "no cost, and the pattern no length: 1 per unit)");
  chart.tiers = std::move(tiers);
  chart.units = count;
  chart.bound_note = "lower bound: no placement of these units does better "
                     "(the total over the cores, or the largest unit)";
  const int cores = std::max(info.num_cores, 0);
  int64_t total = 0, largest = 0;
  for (int c = 0; c < cores; ++c) {
    ChartLane l;
    l.core = c;
    auto add = [&](int i) {
      const WorkDescriptor &d = descs[i];
      ChartBar b;
      b.cost = lengths ? int64_t(d.params[3]) : int64_t(1);
      b.tier = d.tier;
      b.attrs = format(" data-index=\"%d\"", i);
      b.tip = format("unit %d:", i);
      for (size_t p = 0; p < names.size(); ++p) {
        b.attrs += format(" data-%s=\"%u\"", names[p].c_str(), d.params[p]);
        b.tip += format(" %s %u%s", names[p].c_str(), d.params[p],
                        p + 1 < names.size() ? "," : "");
      }
      b.tip += format("; tier %d, %lld %s", int(d.tier), (long long)b.cost,
                      what.c_str());
      l.cost += b.cost;
      largest = std::max(largest, b.cost);
      l.bars.push_back(std::move(b));
    };
    if (info.row_affine) {
      const int end = row_range_begin(descs, count, c + 1, cores);
      for (int i = row_range_begin(descs, count, c, cores); i < end; ++i)
        add(i);
    } else {
      for (int i = c; i < count; i += cores)
        add(i);
    }
    total += l.cost;
    chart.makespan = std::max(chart.makespan, l.cost);
    chart.lanes.push_back(std::move(l));
  }
  chart.lower_bound =
      cores > 0 ? std::max((total + cores - 1) / cores, largest) : 0;
  return chart;
}

/// dispatch_chart's SVG.
inline std::string dispatch_svg(const WorkDescriptor *descs, int count,
                                const DispatchInfo &info,
                                std::vector<TierRange> tiers = {},
                                int width = 960) {
  return chart_svg(dispatch_chart(descs, count, info, std::move(tiers)), {},
                   width);
}

/// The plan plan_balanced_into wrote into caller buffers (`count`
/// descriptors, `core_indptr` of config.num_cores + 1 entries over
/// contiguous ranges, `merge_indptr`, or null for a plan made as cuts), as
/// the BalancedPlan plan_svg draws: each core's cost from its descriptors
/// (unit_cost), the lower bound from the same input
/// (balanced_lower_bound). `q_lens` as the planner's.
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
  if (merge_indptr) {
    plan.merge_indptr.assign(merge_indptr, merge_indptr + plan.rows + 1);
  } else { // a row's pieces are contiguous: they start at FIRST
    for (int i = 0; i < count; ++i)
      if (descs[i].is_first())
        plan.merge_indptr.push_back(i);
    plan.merge_indptr.push_back(count);
  }
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

/// Where one caller's plans are drawn, and how many so far: a C entry
/// point's caller (the Python package) gives each call its own, so that
/// calls on several threads share neither a directory nor a count and
/// read nothing of the environment (ScopedPlanCharts). Used by one thread
/// at a time.
struct PlanCharts {
  std::string dir; // empty: none drawn
  int count = 0;
  bool failed = false;   // a chart could not be written (said once)
  std::string case_name; // set_plan_case on the scope's thread
  /// The calls that drew charts, per function, in this case.
  std::vector<std::pair<std::string, int>> calls;
};

class PlanCall;

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
/// The run's directory: WSP_PLAN_SVG_DIR as the run found it, read at its
/// first chart and again after restart_plan_charts (every dispatch asks,
/// and reading the environment each time was about 15 of the 120-160 ns a
/// replayed launch spends on the host). Each value read stays valid for
/// the process, so a thread drawing while another restarts reads one or
/// the other.
inline std::atomic<const std::string *> &run_dir_read() {
  static std::atomic<const std::string *> read{nullptr};
  return read;
}
inline const std::string &run_dir() {
  if (const std::string *dir = run_dir_read().load(std::memory_order_acquire))
    return *dir;
  static std::mutex mutex;
  static std::vector<std::unique_ptr<const std::string>> values;
  std::lock_guard<std::mutex> lock(mutex);
  const char *env = std::getenv("WSP_PLAN_SVG_DIR");
  const std::string value = env ? env : "";
  if (values.empty() || *values.back() != value)
    values.push_back(std::make_unique<const std::string>(value));
  run_dir_read().store(values.back().get(), std::memory_order_release);
  return *values.back();
}
/// Whether the calling thread draws its plans at all (a scope's directory
/// or the run's): asked before anything of a chart is built.
inline bool charts_wanted() {
  const PlanCharts *own = thread_plan_charts();
  return own ? !own->dir.empty() : !run_dir().empty();
}
/// The run's case and calls (ranks running as threads share them).
struct RunCases {
  std::mutex mutex;
  std::string case_name;
  std::vector<std::pair<std::string, int>> calls;
};
inline RunCases &run_cases() {
  static RunCases cases;
  return cases;
}
/// The innermost function of the calling thread that plans (PlanCall).
inline PlanCall *&current_plan_call() {
  thread_local PlanCall *call = nullptr;
  return call;
}
/// The next call number of `function` in `calls`.
inline int count_call(std::vector<std::pair<std::string, int>> &calls,
                      const std::string &function) {
  for (auto &[name, n] : calls)
    if (name == function)
      return ++n;
  calls.push_back({function, 1});
  return 1;
}
} // namespace detail

/// A function that plans or dispatches, while it runs: the CPU-sim form
/// opens one at the top of each (`wsp_plan_call`), so that a chart's title
/// and file name say which call drew it. A function called from another
/// is named after it (`outer > inner`). Two thread-local stores when no
/// chart is drawn.
class PlanCall {
public:
  explicit PlanCall(const char *function)
      : function_(function), outer_(detail::current_plan_call()) {
    detail::current_plan_call() = this;
  }
  ~PlanCall() { detail::current_plan_call() = outer_; }
  PlanCall(const PlanCall &) = delete;
  PlanCall &operator=(const PlanCall &) = delete;

  /// Its chart's call: the functions, outer first, which call of them
  /// this is (counted at its first chart, per case) and which chart.
  void name_chart(ChartCall &chart, PlanCharts *own) {
    for (const PlanCall *c = this; c; c = c->outer_)
      chart.function = std::string(c->function_) +
                       (chart.function.empty() ? "" : " > ") + chart.function;
    if (call_ == 0) {
      if (own) {
        call_ = detail::count_call(own->calls, chart.function);
      } else {
        detail::RunCases &run = detail::run_cases();
        std::lock_guard<std::mutex> lock(run.mutex);
        call_ = detail::count_call(run.calls, chart.function);
      }
    }
    chart.call = call_;
    chart.plan = ++plans_;
  }

private:
  const char *function_;
  PlanCall *outer_;
  int call_ = 0;  // which call of the function, once it drew a chart
  int plans_ = 0; // the charts it drew
};

/// Names the case a self-check runs next: the charts drawn until the next
/// call carry it in their titles and file names, and calls are counted
/// from 1 again. Null or empty: no case. On a thread inside a
/// ScopedPlanCharts, the scope's case; else the run's (every thread's).
inline void set_plan_case(const char *name) {
  const std::string value = name ? name : "";
  if (PlanCharts *own = detail::thread_plan_charts()) {
    own->case_name = value;
    own->calls.clear();
    return;
  }
  detail::RunCases &run = detail::run_cases();
  std::lock_guard<std::mutex> lock(run.mutex);
  run.case_name = value;
  run.calls.clear();
}

/// Numbers the next charts from 0 again, as a new run's (no case, no
/// calls), and reads WSP_PLAN_SVG_DIR again at the next chart: a process
/// that runs several steps and draws each one's plans restarts before
/// each, and one that sets or unsets the variable restarts after.
inline void restart_plan_charts() {
  detail::run_dir_read().store(nullptr, std::memory_order_release);
  detail::plan_charts() = 0;
  detail::plan_chart_failed() = false;
  set_plan_case(nullptr);
}

/// For its lifetime, the calling thread draws its plans into `charts`
/// (numbered by its count) instead of WSP_PLAN_SVG_DIR; a `charts` with no
/// directory draws none. Null: the run's, as without it.
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

namespace detail {
/// `text` as part of a file name: letters, digits, '.' and '_' kept, any
/// run of others one '_', at most `max` characters.
inline std::string file_part(const std::string &text, size_t max = 48) {
  std::string out;
  for (char c : text) {
    if (out.size() >= max)
      break;
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_')
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_')
    out.pop_back();
  return out;
}

/// Where the calling thread's next chart goes: nothing when none is asked
/// for (no scope's directory, no WSP_PLAN_SVG_DIR) or past kMaxPlanCharts;
/// else its path, its call, and the scope it belongs to (null: the run).
struct ChartSlot {
  std::string path;
  ChartCall call;
  PlanCharts *own = nullptr;
};
inline bool next_chart(ChartSlot &slot) {
  PlanCharts *own = thread_plan_charts();
  const char *dir = own ? own->dir.c_str() : run_dir().c_str();
  if (!*dir)
    return false;
  const int n = own ? own->count++ : plan_charts()++;
  if (n >= kMaxPlanCharts) {
    if (n == kMaxPlanCharts)
      std::fprintf(stderr,
                   "wsp: %d plan charts written to %s; later plans not "
                   "drawn\n",
                   kMaxPlanCharts, dir);
    return false;
  }
  slot.own = own;
  if (own) {
    slot.call.case_name = own->case_name;
  } else {
    RunCases &run = run_cases();
    std::lock_guard<std::mutex> lock(run.mutex);
    slot.call.case_name = run.case_name;
  }
  if (PlanCall *call = current_plan_call())
    call->name_chart(slot.call, own);
  // plan_<n>.svg, or plan_<n>-<case>-<functions>-call<k>[-plan<p>].svg,
  // n of two digits (kMaxPlanCharts) so that names sort in order.
  static_assert(kMaxPlanCharts <= 100, "plan numbers of two digits");
  char number[24];
  std::snprintf(number, sizeof number, "plan_%02d", n);
  std::string name = number;
  if (!slot.call.case_name.empty())
    name += "-" + file_part(slot.call.case_name);
  if (!slot.call.function.empty()) {
    std::string functions = slot.call.function;
    for (size_t at; (at = functions.find(" > ")) != std::string::npos;)
      functions.replace(at, 3, ".");
    name +=
        "-" + file_part(functions) + "-call" + std::to_string(slot.call.call);
    if (slot.call.plan > 1)
      name += "-plan" + std::to_string(slot.call.plan);
  }
  slot.path = std::string(dir) + "/" + name + ".svg";
  return true;
}

/// Writes `svg` to the slot's path, whole or not at all (a temporary
/// renamed into place); a chart that cannot be written says so once per
/// run (until restart_plan_charts) or per scope's charts.
inline void write_chart(const ChartSlot &slot, const std::string &svg) {
  const std::string tmp = slot.path + ".tmp";
  bool ok = false;
  if (std::FILE *f = std::fopen(tmp.c_str(), "w")) {
    ok = std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
    ok = std::fclose(f) == 0 && ok;
  }
  if (!ok || std::rename(tmp.c_str(), slot.path.c_str()) != 0) {
    std::remove(tmp.c_str());
    const bool said = slot.own ? std::exchange(slot.own->failed, true)
                               : plan_chart_failed().exchange(true);
    if (!said)
      std::fprintf(stderr, "wsp: cannot write the plan chart %s\n",
                   slot.path.c_str());
  }
}
} // namespace detail

/// The CPU simulation's picture of each balanced plan it makes (the
/// CPU-sim form calls it after every successful plan_balanced_into, and
/// after the cores expanded a plan made as cuts, `as_cuts`; `wspc --run
/// --plan-svg DIR` sets WSP_PLAN_SVG_DIR): balanced_chart of the plan,
/// with `tiers`' ranges, into DIR/plan_<n>[-<case>-<function>-call<k>].svg,
/// n counting the run's plans from 0 (ranks running as threads share the
/// count), the case set_plan_case named and the PlanCall it was made in.
/// Nothing without WSP_PLAN_SVG_DIR (read once per run: see
/// restart_plan_charts). Inside a ScopedPlanCharts, the
/// scope's directory, count and case instead, and never the environment.
/// Past kMaxPlanCharts plans, one line on stderr says the rest were not
/// drawn.
template <typename TierCfg>
void record_balanced_plan(const int *kv_lens, int batch, int kv_heads,
                          const BalancedConfig &config,
                          const WorkDescriptor *descs, int count,
                          const int *core_indptr, const int *merge_indptr,
                          const int *q_lens, const TierCfg &tiers,
                          bool as_cuts = false) {
  if (!detail::charts_wanted())
    return;
  detail::ChartSlot slot;
  if (!detail::next_chart(slot))
    return;
  detail::write_chart(
      slot,
      chart_svg(balanced_chart(
                    plan_from_buffers(kv_lens, batch, kv_heads, config, descs,
                                      count, core_indptr, merge_indptr, q_lens),
                    config, q_lens, tier_ranges(tiers), as_cuts),
                slot.call));
}

/// record_balanced_plan without the tiers' ranges.
inline void record_balanced_plan(const int *kv_lens, int batch, int kv_heads,
                                 const BalancedConfig &config,
                                 const WorkDescriptor *descs, int count,
                                 const int *core_indptr,
                                 const int *merge_indptr,
                                 const int *q_lens = nullptr) {
  record_balanced_plan(kv_lens, batch, kv_heads, config, descs, count,
                       core_indptr, merge_indptr, q_lens, TierList{});
}

/// The CPU simulation's picture of each grid or row_affine dispatch (the
/// CPU-sim form calls it before the dispatch runs): dispatch_chart of its
/// `count` descriptors, with `tiers`' ranges, drawn and named as
/// record_balanced_plan's.
template <typename TierCfg>
void record_dispatch_plan(const WorkDescriptor *descs, int count,
                          const DispatchInfo &info, const TierCfg &tiers) {
  if (!detail::charts_wanted())
    return;
  detail::ChartSlot slot;
  if (!detail::next_chart(slot))
    return;
  detail::write_chart(
      slot, chart_svg(dispatch_chart(descs, count, info, tier_ranges(tiers)),
                      slot.call));
}

} // namespace sim

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_PLAN_SVG_HPP
