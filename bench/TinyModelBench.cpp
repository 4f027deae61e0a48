// The small model (examples/model/tiny_lm.mlir) decoding in the CPU
// simulation: tokens per second through the replayed step table and by
// calling @decode every token, and the share of each token's time spent
// outside kernels (the table walk, the patches and each launch's planning
// on the host: everything but the simulated cores' launches, whose wall
// time the launch report accumulates). Goal (issue 15): < 1% outside
// kernels. Same weights, prompts and caches for both paths; median of 5
// runs of 32 tokens for a batch of 3.
#include "BenchTiming.h"

#include "../examples/model/tiny_lm.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace tiny_lm;

namespace {

struct Run {
  double us = 0;        // the 32 tokens
  double launch_us = 0; // of which inside launches
  uint64_t launches = 0;
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

} // namespace

int main() {
  std::mt19937 rng(2041);
  const Model base(rng);
  const Prompts prompts(rng);
  // Prefill once; every run decodes from these caches.
  Model prefilled = base;
  Step pre = prefillStep(prompts);
  std::vector<int32_t> prompt = prompts.tokens, picks(prompt.size());
  if (std::apply(wsp_gen::prefill, prefillArgs(prefilled, pre, prompt, picks)))
    std::abort();
  std::vector<int32_t> first(size_t((kSteps + 1) * kBatch));
  for (int64_t b = 0; b < kBatch; ++b)
    first[size_t(b)] = picks[size_t(prompts.accum[size_t(b + 1)] - 1)];

  using clock = std::chrono::steady_clock;
  auto timed = [&](bool table) {
    Model m = prefilled;
    Step s = decodeStep();
    std::vector<int32_t> tokens = first;
    ::pto::runtime::sim::LaunchReport report;
    wsp_gen::wsp_launch_report = &report;
    Run r;
    if (table) {
      wsp_gen::decode_table t;
      auto args = decodeArgs(m, s, &tokens[0], &tokens[kBatch]);
      if (std::apply(
              [&](auto... a) {
                return wsp_gen::decode_table_build(t, int32_t(kSteps),
                                                   int32_t(kCapacity), a...);
              },
              args))
        std::abort();
      const auto t0 = clock::now();
      if (std::apply(
              [&](auto... a) {
                return wsp_gen::decode_table_replay(t, 0, int(kSteps), a...);
              },
              args))
        std::abort();
      r.us =
          std::chrono::duration<double, std::micro>(clock::now() - t0).count();
    } else {
      const auto t0 = clock::now();
      for (int64_t t = 0; t < kSteps; ++t) {
        if (std::apply(wsp_gen::decode,
                       decodeArgs(m, s, &tokens[size_t(t * kBatch)],
                                  &tokens[size_t((t + 1) * kBatch)])))
          std::abort();
        for (int64_t b = 0; b < kBatch; ++b) {
          ++s.positions[size_t(b)];
          ++s.kvLens[size_t(b)];
        }
      }
      r.us =
          std::chrono::duration<double, std::micro>(clock::now() - t0).count();
    }
    wsp_gen::wsp_launch_report = nullptr;
    r.launch_us = report.launch_us;
    r.launches = report.launches;
    return r;
  };

  std::printf("tiny_lm decode in the CPU simulation: batch %lld, %lld tokens "
              "each, median of 5 runs\n",
              (long long)kBatch, (long long)kSteps);
  for (bool table : {true, false}) {
    std::vector<double> us, outside;
    uint64_t launches = 0;
    for (int i = 0; i < 5; ++i) {
      const Run r = timed(table);
      us.push_back(r.us);
      outside.push_back(1.0 - r.launch_us / r.us);
      launches = r.launches;
    }
    const double t = median(us);
    std::printf("%-28s %8.1f tokens/s  %7.0f us per step  %llu launches  "
                "outside kernels %.2f%% (goal < 1%%)\n",
                table ? "replayed table (chained)" : "@decode called per token",
                double(kBatch * kSteps) / (t * 1e-6), t / double(kSteps),
                (unsigned long long)launches, 100.0 * median(outside));
  }
  return 0;
}
