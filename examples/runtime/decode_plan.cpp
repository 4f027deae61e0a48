// A tour of pto::runtime in the CPU simulation: plan a decode batch with
// variable KV lengths, run a tiered kernel on the 48 simulated vector cores,
// and inspect the schedule.
//
// The kernel is a stand-in for attention with the same shape of work: each
// descriptor reduces its KV chunk of one (request, head) row; chunks of a row
// combine into one result, which FLAG_LAST publishes. The result is checked
// against a direct sum over the whole row.
#include <pto/runtime/runtime.hpp>

#include <atomic>
#include <cstdio>
#include <random>
#include <vector>

using namespace pto::runtime;

namespace {

struct Problem {
  int batch, heads;
  std::vector<int> kv_lens;
  std::vector<std::vector<float>> kv; // per request, kv_len values
  std::vector<std::atomic<double>> partial;
  std::vector<double> result;
};

PTO_TIERED_KERNEL(row_sum, 4, const WorkDescriptor &desc, Problem *p);

template <int Tier>
AICORE void row_sum_impl(const WorkDescriptor &desc, Problem *p) {
  // A bigger tile for longer sequences: what tiers are for.
  constexpr int kTile = Tier == 0   ? 64
                        : Tier == 1 ? 256
                        : Tier == 2 ? 1024
                                    : 4096;
  const uint32_t req = params::Attention::request_idx(desc);
  const uint32_t head = params::Attention::head_idx(desc);
  const std::vector<float> &kv = p->kv[req];
  double sum = 0;
  for (uint32_t t = params::Attention::kv_start(desc);
       t < params::Attention::kv_end(desc); t += kTile) {
    const uint32_t end =
        std::min<uint32_t>(t + kTile, params::Attention::kv_end(desc));
    for (uint32_t k = t; k < end; ++k)
      sum += kv[k] * (head + 1);
  }
  std::atomic<double> &row = p->partial[req * p->heads + head];
  double seen = row.load();
  while (!row.compare_exchange_weak(seen, seen + sum)) {
  }
  (void)desc.is_last(); // a real kernel would normalize on FLAG_LAST
}

} // namespace

int main() {
  Problem p;
  p.batch = 64;
  p.heads = 8;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> len(1, 20000);
  std::uniform_real_distribution<float> val(-1, 1);
  for (int r = 0; r < p.batch; ++r) {
    p.kv_lens.push_back(len(rng));
    p.kv.emplace_back(p.kv_lens.back());
    for (float &v : p.kv.back())
      v = val(rng);
  }
  p.partial = std::vector<std::atomic<double>>(p.batch * p.heads);

  // Plan on the "AICPU" (here: the host).
  AttentionPlanner planner(PlanConfig{256, 4096, 2048, true});
  const int chunk = planner.plan_chunk_size(p.kv_lens.data(), p.batch, p.heads);
  const int capacity =
      planner.get_total_work(p.kv_lens.data(), p.batch, p.heads, chunk);
  WorkDescriptor *descs = allocate_descriptors(capacity);
  int count = 0;
  const PlanResult planned = planner.generate(
      p.kv_lens.data(), p.batch, p.heads, chunk, descs, capacity, &count);
  if (planned != PlanResult::OK) {
    std::printf("planning failed: %s\n", to_string(planned));
    return 1;
  }

  // Dispatch: SPMD over the 48 vector cores, O(1) tier table per descriptor.
  sim::LaunchReport report;
  sim::run_spmd(
      sim::CoreKind::Vector, sim::kNumVectorCores, descs, count,
      [&](const WorkDescriptor &d) { PTO_DISPATCH_TIER(row_sum, d, &p); },
      &report);

  // Check against a direct, unchunked sum.
  double max_err = 0;
  for (int r = 0; r < p.batch; ++r)
    for (int h = 0; h < p.heads; ++h) {
      double ref = 0;
      for (float v : p.kv[r])
        ref += v * (h + 1);
      max_err = std::max(max_err, std::abs(ref - p.partial[r * p.heads + h]));
    }

  uint64_t tiers[4] = {};
  for (const sim::CoreStats &c : report.cores)
    for (int t = 0; t < 4; ++t)
      tiers[t] += c.per_tier[t];
  std::printf("batch %d x %d heads: chunk %d, %d work units\n", p.batch,
              p.heads, chunk, count);
  std::printf("tiers: %llu / %llu / %llu / %llu\n",
              (unsigned long long)tiers[0], (unsigned long long)tiers[1],
              (unsigned long long)tiers[2], (unsigned long long)tiers[3]);
  std::printf("cores: %zu, KV tokens per core max/mean = %.3f\n",
              report.cores.size(), report.balance());
  std::printf("max |error| vs direct sum: %.3g\n", max_err);
  free_descriptors(descs);
  return max_err < 1e-6 * 20000 ? 0 : 1;
}
