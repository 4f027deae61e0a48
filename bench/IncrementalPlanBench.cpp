// Incremental re-planning (incremental_planner.hpp) against a fresh plan per
// decode step, same lengths, same run.
//
// Decode attention: 8 KV heads, the spec's AttentionPlanner configuration
// (chunks 256-4096, 65536 units, balanced) and the same with unbalanced
// chunks; B = 16 / 256 / 1024 rows with KV lengths uniform in [1, 4096];
// every step each row grows by one token. A fresh plan is plan_chunk_size +
// generate (what the emitted planning function does every step); an update
// is IncrementalPlan::update on the same lengths. Each figure is the median
// over 9 runs of 512 consecutive steps (time per step); the two plans are
// compared byte for byte after each run. memcpy of the plan's descriptor
// bytes is printed for scale.
//
// Then the same plan kept as rows (RowPlan: the chunk size and each row's
// length, chunk count and first work id; the cores make the descriptors):
// its update per step, the same plan made afresh in that form, and what
// making a descriptor costs a core against reading a materialized one (all
// 48 vector cores' walks, one after another, on this one thread).
#include "BenchTiming.h"

#include <pto/runtime/incremental_planner.hpp>
#include <pto/runtime/runtime.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

using namespace pto::runtime;

namespace {

constexpr int kHeads = 8;
constexpr int kSteps = 512;
constexpr int kRuns = 9;

/// Time per step of kSteps decode steps from `start`, median of kRuns
/// runs: each run sets `lens` to `start` and calls `begin()`, then each
/// step grows every length by one and calls `step()`.
template <typename Begin, typename Step>
double decode_step_us(const std::vector<int> &start, std::vector<int> &lens,
                      Begin &&begin, Step &&step) {
  return wsp_bench::median_step_us(
      [&] {
        lens = start;
        begin();
        for (int s = 0; s < kSteps; ++s) {
          for (int &len : lens)
            ++len;
          step();
        }
      },
      kSteps, kRuns);
}

void bench(int batch, bool balanced) {
  PlanConfig config;
  config.balance_chunks = balanced;
  const AttentionPlanner planner(config);
  std::mt19937 rng(42 + batch);
  std::vector<int> start(batch);
  for (int &len : start)
    len = std::uniform_int_distribution<int>(1, 4096)(rng);
  const int capacity = config.max_work_units + kHeads * batch;
  std::vector<WorkDescriptor> fresh(capacity), kept(capacity);

  std::vector<int> lens;
  int fresh_count = 0;
  const double fresh_us = decode_step_us(
      start, lens, [] {},
      [&] {
        const int chunk = planner.plan_chunk_size(lens.data(), batch, kHeads);
        if (planner.generate(lens.data(), batch, kHeads, chunk, fresh.data(),
                             capacity, &fresh_count) != PlanResult::OK)
          std::abort();
      });

  IncrementalPlan<AttentionPlanner> plan(planner, batch, kHeads, kept.data(),
                                         capacity);
  int kept_count = 0;
  int64_t written = 0, moved = 0, rewrites = 0;
  const double update_us = decode_step_us(
      start, lens,
      [&] {
        if (plan.plan(lens.data(), batch, &kept_count) != PlanResult::OK)
          std::abort();
        written = moved = rewrites = 0;
      },
      [&] {
        if (plan.update(lens.data(), batch, &kept_count) != PlanResult::OK)
          std::abort();
        written += plan.stats().written;
        moved += plan.stats().moved;
        rewrites += plan.stats().rewrote_all;
      });
  const bool equal = kept_count == fresh_count &&
                     std::memcmp(kept.data(), fresh.data(),
                                 sizeof(WorkDescriptor) *
                                     static_cast<size_t>(fresh_count)) == 0;

  // The same plan kept as rows (RowPlan): updated, and planned afresh in
  // that form, per step; then what the cores pay to make the descriptors
  // (all 48 vector cores' walks, one after another) against reading them.
  RowPlan<AttentionPlanner> rows(planner, batch, kHeads, capacity);
  int rows_count = 0;
  int64_t recounted = 0;
  const double rows_update_us = decode_step_us(
      start, lens,
      [&] {
        if (rows.plan(lens.data(), batch, &rows_count) != PlanResult::OK)
          std::abort();
        recounted = 0;
      },
      [&] {
        if (rows.update(lens.data(), batch, &rows_count) != PlanResult::OK)
          std::abort();
        recounted += rows.stats().recounted;
      });
  bool rows_equal = rows_count == fresh_count;
  for (int i = 0; rows_equal && i < fresh_count; ++i) {
    const WorkDescriptor d = rows.descriptor(i);
    rows_equal = std::memcmp(&d, &fresh[i], sizeof(WorkDescriptor)) == 0;
  }
  RowPlan<AttentionPlanner> rows_fresh(planner, batch, kHeads, capacity);
  const double rows_fresh_us = decode_step_us(
      start, lens, [] {},
      [&] {
        if (rows_fresh.plan(lens.data(), batch, &rows_count) != PlanResult::OK)
          std::abort();
      });
  constexpr int kCores = 48;
  const double expand_us = wsp_bench::median_us([&] {
    uint32_t sum = 0;
    for (int c = 0; c < kCores; ++c)
      rows.for_each(c, kCores,
                    [&](const WorkDescriptor &d) { sum += d.params[3]; });
    wsp_bench::sink = sum;
  });
  const double read_us = wsp_bench::median_us([&] {
    uint32_t sum = 0;
    for (int c = 0; c < kCores; ++c)
      for (int i = c; i < fresh_count; i += kCores)
        sum += fresh[i].params[3];
    wsp_bench::sink = sum;
  });

  std::vector<WorkDescriptor> copy(fresh_count);
  const double memcpy_us = wsp_bench::median_us([&] {
    std::memcpy(copy.data(), fresh.data(),
                sizeof(WorkDescriptor) * static_cast<size_t>(fresh_count));
    wsp_bench::sink = copy[fresh_count / 2].work_id;
  });
  std::printf("%-10s B=%-5d %6d descs  fresh %8.2f us  update %7.2f us  "
              "speedup %6.1fx  memcpy %6.2f us  | per step: written %6.0f "
              "moved %7.0f, full rewrites %3lld/%d  %s\n",
              balanced ? "balanced" : "unbalanced", batch, fresh_count,
              fresh_us, update_us, fresh_us / update_us, memcpy_us,
              double(written) / kSteps, double(moved) / kSteps,
              static_cast<long long>(rewrites), kSteps,
              equal ? "equal" : "DIFFERENT");
  std::printf("%-10s B=%-5d   as rows: update %7.2f us (%6.1fx the fresh "
              "plan), planned afresh as rows %7.2f us | rows counted %6.1f "
              "per step | the cores make a descriptor in %5.2f ns, read one "
              "in %5.2f ns  %s\n",
              "", batch, rows_update_us, fresh_us / rows_update_us,
              rows_fresh_us, double(recounted) / kSteps,
              expand_us * 1e3 / fresh_count, read_us * 1e3 / fresh_count,
              rows_equal ? "equal" : "DIFFERENT");
}

} // namespace

int main() {
  std::printf("Incremental re-planning vs a fresh plan per decode step "
              "(8 KV heads, lengths U[1,4096] + 1 per step, %d steps, "
              "median of %d runs; goal: >= 10x at B = 1024)\n",
              kSteps, kRuns);
  for (bool balanced : {true, false})
    for (int batch : {16, 256, 1024})
      bench(batch, balanced);
  return 0;
}
