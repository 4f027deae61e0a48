// pto::runtime planner benchmark: a small driver that measures everything in
// one run and prints ratios, because this machine is shared and noisy.
//
//   plan_chunk_size, batch 10 000     vs spec target (100 us host), vs memcpy
//                                     of the 40 KB it reads, vs the naive
//                                     pseudocode (every probe counts in full)
//   generate, per 1 000 descriptors   vs spec target (10 us host), vs memcpy
//                                     of the same 24 KB of output
//   generate_parallel, 2 threads      speedup over serial on ~1M descriptors
//
// Each figure is the median of 15 samples; a sample times enough calls to
// last about 2 ms.
#include "BenchTiming.h"

#include <pto/runtime/runtime.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using namespace pto::runtime;

namespace {

/// The §6.3.4 pseudocode as written: every probe counts every sequence.
int naive_plan_chunk_size(const PlanConfig &c, const int *lens, int batch,
                          int heads) {
  int low = c.chunk_min, high = c.chunk_max;
  while (low < high) {
    int mid = (low + high) / 2;
    long total = 0;
    for (int b = 0; b < batch; ++b)
      total += (long)heads * ((lens[b] + mid - 1) / mid);
    if (total > c.max_work_units)
      low = mid + 1;
    else
      high = mid;
  }
  return low;
}

std::vector<int> pareto_lengths(int batch, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(1e-9, 1.0);
  std::vector<int> lens(batch);
  for (int &l : lens)
    l = (int)std::clamp(256.0 / std::pow(u(rng), 1 / 1.1), 64.0, 131072.0);
  return lens;
}

void plan_bench(const char *name, const std::vector<int> &lens, int heads,
                const PlanConfig &config) {
  AttentionPlanner planner(config);
  const int batch = (int)lens.size();
  const int chunk = planner.plan_chunk_size(lens.data(), batch, heads);
  const int naive_chunk =
      naive_plan_chunk_size(config, lens.data(), batch, heads);
  if (chunk != naive_chunk) {
    std::printf("MISMATCH: %d vs naive %d\n", chunk, naive_chunk);
    std::exit(1);
  }
  std::vector<int> copy(lens.size());
  const double t_plan = wsp_bench::median_ns([&] {
    wsp_bench::sink = planner.plan_chunk_size(lens.data(), batch, heads);
  });
  const double t_naive = wsp_bench::median_ns([&] {
    wsp_bench::sink = naive_plan_chunk_size(config, lens.data(), batch, heads);
  });
  const double t_copy = wsp_bench::median_ns([&] {
    std::memcpy(copy.data(), lens.data(), lens.size() * sizeof(int));
    wsp_bench::sink = copy[batch / 2];
  });
  std::printf("plan_chunk_size  %-28s chunk %5d  %8.2f us   target/time "
              "%6.1fx   vs memcpy(in) %5.1fx   naive/ours %6.1fx\n",
              name, chunk, t_plan / 1e3, 100e3 / t_plan, t_plan / t_copy,
              t_naive / t_plan);
}

} // namespace

int main() {
  std::printf("pto::runtime planner benchmark (median of 15 samples)\n\n");

  // --- plan_chunk_size, batch 10 000 --------------------------------------
  {
    std::mt19937 rng(1);
    std::vector<int> uniform(10000);
    for (int &l : uniform)
      l = std::uniform_int_distribution<int>(1, 131072)(rng);
    plan_bench("B=10000 H=32 uniform", uniform, 32, PlanConfig{});
    plan_bench("B=10000 H=1 uniform", uniform, 1, PlanConfig{});
    plan_bench("B=10000 H=1 pareto", pareto_lengths(10000, 11234), 1,
               PlanConfig{});
    plan_bench("B=10000 H=8 pareto budget", pareto_lengths(10000, 11234), 8,
               PlanConfig{256, 4096, 400000, true});
  }
  std::printf("\n");

  // --- generate, per 1 000 descriptors --------------------------------------
  {
    // 8 requests x 32 heads x 4 chunks = 1024 descriptors.
    std::vector<int> lens(8, 1000);
    AttentionPlanner planner;
    const int count_expected = planner.get_total_work(lens.data(), 8, 32, 256);
    std::vector<WorkDescriptor> out(count_expected), copy(count_expected);
    int count = 0;
    const double t_gen = wsp_bench::median_ns([&] {
      planner.generate(lens.data(), 8, 32, 256, out.data(), count_expected,
                       &count);
      wsp_bench::sink = count;
    });
    const double t_copy = wsp_bench::median_ns([&] {
      std::memcpy(copy.data(), out.data(), out.size() * sizeof(WorkDescriptor));
      wsp_bench::sink = copy[5].work_id;
    });
    const double per_k = t_gen * 1000.0 / count_expected;
    std::printf("generate         %d descriptors: %7.3f us per 1000   "
                "target/time %6.1fx   vs memcpy(out) %5.2fx   %.2f ns/desc\n",
                count_expected, per_k / 1e3, 10e3 / per_k, t_gen / t_copy,
                t_gen / count_expected);
  }

  // --- generate_parallel speedup on 2 threads --------------------------------
  {
    // 4096 requests x 32 heads x 8 chunks ~ 1M descriptors (24 MB).
    std::vector<int> lens(4096);
    std::mt19937 rng(3);
    for (int &l : lens)
      l = std::uniform_int_distribution<int>(1793, 2048)(rng);
    AttentionPlanner planner;
    const int n = planner.get_total_work(lens.data(), 4096, 32, 256);
    WorkDescriptor *out = allocate_descriptors(n);
    int count = 0;
    const double t_serial = wsp_bench::median_ns([&] {
      planner.generate(lens.data(), 4096, 32, 256, out, n, &count);
      wsp_bench::sink = count;
    });
    const double t_par = wsp_bench::median_ns([&] {
      planner.generate_parallel(lens.data(), 4096, 32, 256, out, n, &count, 2);
      wsp_bench::sink = count;
    });
    std::printf("generate_parallel %d descriptors: serial %.2f ms, 2 threads "
                "%.2f ms, speedup %.2fx\n",
                n, t_serial / 1e6, t_par / 1e6, t_serial / t_par);
    free_descriptors(out);
  }
  return 0;
}
