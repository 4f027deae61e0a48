// Tutorial step 3: plan a batch with the tiers emitted from tiers.mlir
// (my_tiers.hpp), run a tiered kernel on the simulated vector cores, and
// look at the schedule.
//
// From the repository root (docs/tutorial.md, step 3):
//   build/bin/wsp-translate --wsp-tier-configs-to-cpp
//     examples/tutorial/tiers.mlir -o build/tutorial/my_tiers.hpp
//   g++ -std=c++17 -D__CPU_SIM -I include -I build/tutorial
//     examples/tutorial/plan_and_run.cpp -o build/tutorial/plan_and_run -pthread
#include "my_tiers.hpp"

#include <pto/runtime/runtime.hpp>

#include <atomic>
#include <cstdio>

using namespace pto::runtime;

// One kernel per tier, selected in O(1) from each descriptor's tier byte.
std::atomic<long> tokens_seen{0};
PTO_TIERED_KERNEL(my_kernel, 3, const WorkDescriptor &desc, int head_dim);
template <int Tier>
AICORE void my_kernel_impl(const WorkDescriptor &desc, int head_dim) {
  constexpr int kTile = Tier == 0 ? 128 : Tier == 1 ? 512 : 2048;
  (void)kTile;
  (void)head_dim;
  tokens_seen += params::Attention::kv_len(desc);
}

int main() {
  // Six requests of the current decode step, 4 heads each.
  const int kv_lens[] = {17, 900, 3000, 20000, 60000, 0};
  const int batch = 6, heads = 4;

  // The planner: the spec's WorkPlanner over our emitted tier configuration.
  using MyPlanner = WorkPlanner<AttentionSpace<>, MyTiers, params::Attention>;
  MyPlanner planner(PlanConfig{/*chunk_min=*/256, /*chunk_max=*/8192,
                               /*max_work_units=*/256,
                               /*balance_chunks=*/true});
  const int chunk = planner.plan_chunk_size(kv_lens, batch, heads);
  const int capacity = planner.get_total_work(kv_lens, batch, heads, chunk);
  WorkDescriptor *descs = allocate_descriptors(capacity);
  int count = 0;
  PlanResult r =
      planner.generate(kv_lens, batch, heads, chunk, descs, capacity, &count);
  if (r != PlanResult::OK) {
    std::printf("planning failed: %s\n", to_string(r));
    return 1;
  }
  std::printf("chunk %d, %d work units\n", chunk, count);

  // SPMD on the 48 simulated vector cores.
  sim::LaunchReport report;
  sim::run_spmd(
      sim::CoreKind::Vector, sim::kNumVectorCores, descs, count,
      [](const WorkDescriptor &d) {
        PTO_DISPATCH_TIER(my_kernel, d, /*head_dim=*/128);
      },
      &report);
  uint64_t per_tier[3] = {};
  for (const sim::CoreStats &c : report.cores)
    for (int t = 0; t < 3; ++t)
      per_tier[t] += c.per_tier[t];
  std::printf("units per tier: %llu %llu %llu\n",
              (unsigned long long)per_tier[0], (unsigned long long)per_tier[1],
              (unsigned long long)per_tier[2]);
  std::printf("tokens %ld, balance (max/mean KV tokens per core) %.2f\n",
              tokens_seen.load(), report.balance());
  free_descriptors(descs);
  return 0;
}
