// The AICPU planner wsp emits (bench/planner.mlir through wsp-pipeline and
// wsp-to-cpusim, force-included) against pto::runtime::AttentionPlanner on
// the same inputs: time per plan (chunk search + generation), as a ratio,
// for batch 16 to 4096 with 32 heads and uniform lengths in [1, 8192].
// Outputs are checked equal before timing. Median of 15 samples.
#include "BenchTiming.h"

#include <pto/runtime/runtime.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace rt = pto::runtime;
using wsp_gen::MemRef;

int main() {
  std::printf("emitted AICPU planner vs pto::runtime::AttentionPlanner "
              "(32 heads, lengths U[1, 8192])\n");
  std::printf("%8s %12s %12s %10s %14s\n", "batch", "runtime us", "emitted us",
              "units", "emitted/runtime");
  for (int batch : {16, 64, 256, 1024, 4096}) {
    std::mt19937 rng(batch);
    std::vector<int> lens(batch);
    for (int &l : lens)
      l = std::uniform_int_distribution<int>(1, 8192)(rng);
    const int heads = 32;
    rt::AttentionPlanner planner;
    const int cap = heads * batch * 32 + 1; // any chunk >= 256
    std::vector<rt::WorkDescriptor> a(cap), b(cap);
    int count = 0;
    auto runtime = [&] {
      int chunk = planner.plan_chunk_size(lens.data(), batch, heads);
      planner.generate(lens.data(), batch, heads, chunk, a.data(), cap, &count);
      wsp_bench::sink = count;
    };
    int64_t out[2];
    auto emitted = [&] {
      wsp_bench::sink =
          wsp_gen::plan(MemRef<int32_t, 1>{lens.data(), {batch}}, batch, heads,
                        MemRef<rt::WorkDescriptor, 1>{b.data(), {cap}},
                        MemRef<int64_t, 1>{out, {2}});
    };
    runtime();
    emitted();
    if (out[1] != count ||
        std::memcmp(a.data(), b.data(), sizeof(rt::WorkDescriptor) * count)) {
      std::printf("MISMATCH at batch %d\n", batch);
      return 1;
    }
    const double tr = wsp_bench::median_us(runtime),
                 te = wsp_bench::median_us(emitted);
    std::printf("%8d %12.2f %12.2f %10d %14.2f\n", batch, tr, te, count,
                te / tr);
  }
  std::printf("goal: emitted/runtime < 1 at every batch (the specialization "
              "pays for its second copy: docs/rationale/Passes.md)\n");
  return 0;
}
