// Driver for cpusim-planner.mlir: the emitted planners (force-included)
// against pto::runtime's WorkPlanner on the same inputs.
#include <pto/runtime/runtime.hpp>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace rt = pto::runtime;
using wsp_gen::MemRef;

using Emitted = int32_t (*)(MemRef<int32_t, 1>, int64_t, int64_t,
                            MemRef<rt::WorkDescriptor, 1>, MemRef<int64_t, 1>);

/// One workload through both; false (with a message) on any difference.
template <typename Planner>
bool same(const char *what, Emitted emitted, const Planner &planner,
          std::vector<int> lens, int batch, int heads, int capacity) {
  // The runtime.
  const int chunk = planner.plan_chunk_size(lens.data(), batch, heads);
  std::vector<rt::WorkDescriptor> want(capacity + 1), got(capacity + 1);
  int want_count = -1;
  const rt::PlanResult want_status =
      planner.generate(lens.data(), batch, heads, chunk, want.data(),
                       capacity, &want_count);
  // The emitted planner.
  int64_t out[2] = {-1, -1};
  const int32_t got_status = emitted(
      MemRef<int32_t, 1>{lens.data(), {static_cast<int64_t>(lens.size())}},
      batch, heads, MemRef<rt::WorkDescriptor, 1>{got.data(), {capacity}},
      MemRef<int64_t, 1>{out, {2}});
  bool ok = out[0] == chunk && got_status == static_cast<int>(want_status) &&
            out[1] == want_count &&
            std::memcmp(want.data(), got.data(),
                        sizeof(rt::WorkDescriptor) * (capacity + 1)) == 0;
  if (!ok)
    std::printf("%s MISMATCH: batch %d heads %d cap %d: chunk %lld/%d "
                "status %d/%d count %lld/%d\n",
                what, batch, heads, capacity, (long long)out[0], chunk,
                got_status, static_cast<int>(want_status), (long long)out[1],
                want_count);
  return ok;
}

int main() {
  std::mt19937 rng(2026);
  const int lo[] = {1, 1025, 4097, 16385};
  const int hi[] = {1024, 4096, 16384, 131072};
  auto lengths = [&](int batch, int max_tier) {
    std::vector<int> lens(batch);
    for (int &l : lens) {
      int t = static_cast<int>(rng() % (max_tier + 1));
      l = rng() % 9 == 0 ? 0
                         : std::uniform_int_distribution<int>(lo[t], hi[t])(rng);
    }
    return lens;
  };

  using AttnPlanner = rt::AttentionPlanner;
  struct Variant {
    const char *name;
    Emitted fn;
    rt::PlanConfig config;
  } variants[] = {
      {"attention/default", &wsp_gen::plan_default, rt::PlanConfig{}},
      {"attention/tight-unbalanced", &wsp_gen::plan_tight,
       rt::PlanConfig{128, 8192, 300, false}},
  };
  int failures = 0;
  for (const Variant &v : variants) {
    AttnPlanner planner(v.config);
    int equal = 0;
    for (int i = 0; i < 400; ++i) {
      int batch = 1 + static_cast<int>(rng() % (i < 350 ? 64 : 4096));
      int heads = 1 + static_cast<int>(rng() % 64);
      std::vector<int> lens = lengths(batch, 3);
      int cap = std::max(0, planner.get_total_work(
                                lens.data(), batch, heads,
                                planner.plan_chunk_size(lens.data(), batch,
                                                        heads)));
      equal += same(v.name, v.fn, planner, lens, batch, heads, cap);
    }
    failures += 400 - equal;
    std::printf("%s: %d workloads equal\n", v.name, equal);
  }

  {
    using MoEPlanner = rt::WorkPlanner<rt::MoESpace<>,
                                       rt::TierConfig<rt::Tier<0, 1, 64>,
                                                      rt::Tier<1, 65, 65536>>,
                                       rt::params::MoEPerExpert>;
    MoEPlanner planner(rt::PlanConfig{16, 512, 1024, true});
    int equal = 0;
    for (int i = 0; i < 400; ++i) {
      int experts = 1 + static_cast<int>(rng() % 256);
      int groups = 1 + static_cast<int>(rng() % 4);
      std::vector<int> tokens(experts);
      for (int &t : tokens)
        t = static_cast<int>(rng() % 3000) * (rng() % 4 != 0);
      int cap = std::max(0, planner.get_total_work(
                                tokens.data(), experts, groups,
                                planner.plan_chunk_size(tokens.data(), experts,
                                                        groups)));
      equal += same("moe", &wsp_gen::plan_moe, planner, tokens, experts,
                    groups, cap);
    }
    failures += 400 - equal;
    std::printf("moe/per-expert: %d workloads equal\n", equal);
  }

  // Error paths: the same codes, counts and untouched buffers.
  {
    AttnPlanner planner;
    bool ok = true;
    ok &= same("negative", &wsp_gen::plan_default, planner, {100, -5, 7}, 3,
               2, 64);
    ok &= same("no-tier", &wsp_gen::plan_default, planner, {100, 200000}, 2,
               2, 64);
    ok &= same("overflow", &wsp_gen::plan_default, planner, {5000, 5000}, 2,
               8, 10);
    ok &= same("zero-heads", &wsp_gen::plan_default, planner, {100}, 1, 0, 8);
    ok &= same("zero-batch", &wsp_gen::plan_default, planner, {100}, 0, 1, 8);
    ok &= same("all-idle", &wsp_gen::plan_default, planner, {0, 0, 0}, 3, 4,
               0);
    ok &= same("exact-fit", &wsp_gen::plan_default, planner, {1024, 256}, 2,
               3, 15);
    failures += !ok;
    std::printf("errors: %s\n", ok ? "all equal" : "MISMATCH");
  }
  return failures == 0 ? 0 : 1;
}
