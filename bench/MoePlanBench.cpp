// MoE expert planning without padding (bench/moe.mlir: moe_quant_group_gemm,
// 64 experts, hidden 512 -> 256, lowered by convert-llm-to-wsp), on
// Zipf-skewed top-8 routing of 16, 256 and 4096 tokens. Per size:
//
// * Padding. Rows the plan's kernels compute against the rows vLLM's
//   moe_align_block_size would compute (each expert's count rounded up to
//   the block, 64 and 128), over the exact routed rows. The kernels'
//   tiles carry the unit's valid rows (its M tile is 16 rows for an expert
//   of at most 16 tokens, 128 above), so they compute exactly the routed
//   rows; the cube itself works in 16-row fractals, so the rows it
//   multiplies are each unit's rows rounded up to 16, reported too.
// * Balance. Modeled work per core (per unit: its fractal rows x the N
//   tile, plus a fixed overhead of 32 rows) over the physical limit (all
//   that work over the 24 cube cores), for the grid the dispatch runs
//   (core c takes units c, c + 24, ...).
// * Planning time. The AICPU's part: the histogram of the routing, the
//   chunk plan and the descriptors (the runtime's WorkPlanner with the
//   lowering's configuration), the median of many runs, beside memcpy of
//   the routing's bytes in the same run.
// * CPU-sim throughput. The lowered group GEMM against the same K x N
//   arithmetic as one dense quant_matmul over the block-128-padded rows,
//   both run in the CPU simulation: useful GOP/s (2 x routed rows x K x N
//   per second) of each.
//
// The plan here mirrors the lowering's constants (chunks of at least 512
// rows and of whole M tiles of 128, up to 1024 units, chunks not balanced,
// tiers [1, 16] and [17, ...)); the bench checks it against the compiled
// program's own launch report (units per tier) before it reports anything.
#include "BenchTiming.h"

#include <pto/runtime/work_planner.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using wsp_gen::bf16;
using wsp_gen::MemRef;
namespace rt = ::pto::runtime;

namespace {
constexpr int kExperts = 64, kTopK = 8, kK = 512, kN = 256, kNTile = 64;
constexpr int kNTiles = kN / kNTile, kCores = 24, kUnitOverheadRows = 32;
/// The lowering's M tile of an expert above 16 rows, the units its plan may
/// make and its chunks' least rows (Moe.cpp: kMatmulRows,
/// kGroupGemmPlanUnits, kGroupGemmChunkRows).
constexpr int kMTile = 128, kPlanUnits = 1024, kChunkMin = 4 * kMTile;

using Tiers = rt::TierConfig<rt::Tier<0, 1, 16>, rt::Tier<1, 17, 2147483647>>;
using Planner = rt::WorkPlanner<rt::MoESpace<>, Tiers, rt::params::MoEPerExpert>;
/// The cube multiplies rows in fractals of 16.
constexpr int64_t kFractalRows = 16;

/// Top-8 distinct experts per token, expert e drawn with weight
/// 1 / (rank(e) + 1)^1.2 (Zipf; the ranks a fixed shuffle of the experts).
std::vector<int32_t> zipfRouting(int tokens, std::mt19937 &rng) {
  std::vector<int> rank(kExperts);
  for (int e = 0; e < kExperts; ++e)
    rank[e] = e;
  std::shuffle(rank.begin(), rank.end(), rng);
  std::vector<double> weight(kExperts);
  for (int e = 0; e < kExperts; ++e)
    weight[e] = 1.0 / std::pow(rank[e] + 1.0, 1.2);
  std::vector<int32_t> ids(size_t(tokens) * kTopK);
  for (int t = 0; t < tokens; ++t) {
    std::vector<double> w = weight;
    for (int k = 0; k < kTopK; ++k) {
      std::discrete_distribution<int> pick(w.begin(), w.end());
      int e = pick(rng);
      ids[size_t(t) * kTopK + k] = e;
      w[size_t(e)] = 0; // distinct experts per token
    }
  }
  return ids;
}

struct Plan {
  std::vector<rt::WorkDescriptor> descs = std::vector<rt::WorkDescriptor>(1024);
  int count = 0;
  int chunk = 0;
};

/// The AICPU's work: counts from the routing, then the lowering's plan.
rt::PlanResult plan(const int32_t *ids, int tokens, int32_t *counts,
                    Plan &p) {
  // As the scatter's planner counts: token t in partial count t % 4, so a
  // hot expert's increments are four chains, not one.
  int32_t part[4][kExperts] = {};
  for (int t = 0; t < tokens; ++t)
    for (int k = 0; k < kTopK; ++k)
      ++part[t % 4][ids[t * kTopK + k]];
  for (int e = 0; e < kExperts; ++e)
    counts[e] = part[0][e] + part[1][e] + part[2][e] + part[3][e];
  static const Planner planner(
      rt::PlanConfig{kChunkMin, 2147483647, kPlanUnits, false});
  int chunk = planner.plan_chunk_size(counts, kExperts, kNTiles);
  // Whole M tiles, as the lowering rounds (in 64 bits: chunk_max is
  // INT_MAX, the chunk of a plan no chunk size fits).
  chunk = int(std::min<int64_t>((int64_t(chunk) + kMTile - 1) / kMTile * kMTile,
                                INT32_MAX));
  p.chunk = chunk;
  return planner.generate(counts, kExperts, kNTiles, chunk, p.descs.data(),
                          int(p.descs.size()), &p.count);
}
} // namespace

int main() {
  std::mt19937 rng(2026);
  std::printf("MoE plan: %d experts, top-%d, Zipf 1.2 routing, K = %d, N = "
              "%d (N tiles of %d), %d cube cores\n",
              kExperts, kTopK, kK, kN, kNTile, kCores);
  for (int tokens : {16, 256, 4096}) {
    std::vector<int32_t> ids = zipfRouting(tokens, rng);
    std::vector<int32_t> counts(kExperts);
    Plan p;
    if (plan(ids.data(), tokens, counts.data(), p) != rt::PlanResult::OK) {
      std::printf("T=%d: the plan failed\n", tokens);
      return 1;
    }
    const int64_t rows = int64_t(tokens) * kTopK;

    // Padding: the plan's computed rows against block padding (each row
    // is computed once per N tile; counted once).
    int64_t planRows = 0, fractalRows = 0, units[2] = {0, 0};
    std::vector<int64_t> coreWork(kCores, 0);
    for (int i = 0; i < p.count; ++i) {
      const rt::WorkDescriptor &d = p.descs[size_t(i)];
      int64_t r = rt::params::MoE::token_count(d);
      int64_t fractal = (r + kFractalRows - 1) / kFractalRows * kFractalRows;
      planRows += r;
      fractalRows += fractal;
      ++units[d.tier];
      coreWork[size_t(i % kCores)] += (fractal + kUnitOverheadRows) * kNTile;
    }
    planRows /= kNTiles;
    fractalRows /= kNTiles;
    int64_t block64 = 0, block128 = 0, empty = 0;
    for (int e = 0; e < kExperts; ++e) {
      block64 += (counts[size_t(e)] + 63) / 64 * 64;
      block128 += (counts[size_t(e)] + 127) / 128 * 128;
      empty += counts[size_t(e)] == 0;
    }
    int64_t total = 0, busiest = 0;
    for (int64_t w : coreWork) {
      total += w;
      busiest = std::max(busiest, w);
    }
    // The physical limit: every routed row's work and every unit's overhead
    // spread evenly over the cores.
    double limit = double(total) / kCores;

    // The compiled program's own plan must be this one.
    std::vector<int8_t> a(size_t(std::max<int64_t>(rows, block128)) * kK);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = int8_t(int(i * 37 % 255) - 127);
    std::vector<int8_t> w(size_t(kExperts) * kK * kN);
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = int8_t(int(i * 91 % 255) - 127);
    std::vector<float> pts(a.size() / kK, 0.01f), ws(size_t(kExperts) * kN,
                                                     0.02f);
    std::vector<bf16> y(a.size() / kK * kN);
    // The cube <-> vector slots: [24 blocks, the M tile, the N tile] for
    // the group GEMM, [24, 128, 128] for the dense one.
    std::vector<int32_t> workspace(24 * 128 * 128);
    rt::sim::LaunchReport report;
    wsp_gen::wsp_launch_report = &report;
    auto group = [&] {
      return wsp_gen::experts(
          MemRef<int8_t, 2>{a.data(), {rows, kK}},
          MemRef<float, 1>{pts.data(), {rows}},
          MemRef<int8_t, 3>{w.data(), {kExperts, kK, kN}},
          MemRef<float, 2>{ws.data(), {kExperts, kN}},
          MemRef<int32_t, 1>{counts.data(), {kExperts}},
          MemRef<bf16, 2>{y.data(), {rows, kN}},
          MemRef<int32_t, 3>{workspace.data(), {24, kMTile, kNTile}});
    };
    int status = group();
    wsp_gen::wsp_launch_report = nullptr;
    uint64_t reported[2] = {0, 0};
    for (const auto &c : report.cores)
      for (int t = 0; t < 2; ++t)
        reported[t] += c.per_tier[size_t(t)];
    if (status != 0 || reported[0] != uint64_t(units[0]) ||
        reported[1] != uint64_t(units[1])) {
      std::printf("T=%d: the program's plan (status %d, units %llu + %llu) "
                  "is not the bench's (%lld + %lld)\n",
                  tokens, status, (unsigned long long)reported[0],
                  (unsigned long long)reported[1], (long long)units[0],
                  (long long)units[1]);
      return 1;
    }

    // Planning time against memcpy of the routing bytes.
    std::vector<int32_t> scratch(counts.size()), copy(ids.size());
    Plan q;
    double planNs = wsp_bench::median_ns(
        [&] { wsp_bench::sink = int(plan(ids.data(), tokens, scratch.data(), q)); });
    double copyNs = wsp_bench::median_ns([&] {
      std::memcpy(copy.data(), ids.data(), ids.size() * sizeof(int32_t));
      wsp_bench::sink = copy[copy.size() / 2];
    });

    // CPU-sim: the group GEMM against one dense GEMM over the padded rows.
    double groupUs = wsp_bench::median_us([&] { status |= group(); }, 3);
    double denseUs = wsp_bench::median_us(
        [&] {
          status |= wsp_gen::dense(
              MemRef<int8_t, 2>{a.data(), {block128, kK}},
              MemRef<float, 1>{pts.data(), {block128}},
              MemRef<int8_t, 2>{w.data(), {kK, kN}},
              MemRef<float, 1>{ws.data(), {kN}},
              MemRef<bf16, 2>{y.data(), {block128, kN}},
              MemRef<int32_t, 3>{workspace.data(), {24, 128, 128}});
        },
        3);
    const double useful = 2.0 * double(rows) * kK * kN;

    std::printf("\nT=%d: %lld routed rows, %lld experts without tokens, "
                "chunk %d rows, %d units (tier 0: %lld, tier 1: %lld)\n",
                tokens, (long long)rows, (long long)empty, p.chunk, p.count,
                (long long)units[0], (long long)units[1]);
    std::printf("  rows computed: plan %lld (padding rows: %lld; goal 0), "
                "block 64 %lld (%.3fx routed), block 128 %lld (%.3fx); the "
                "plan's rows in 16-row cube fractals %lld (%.3fx)\n",
                (long long)planRows, (long long)(planRows - rows),
                (long long)block64, double(block64) / double(rows),
                (long long)block128, double(block128) / double(rows),
                (long long)fractalRows, double(fractalRows) / double(rows));
    std::printf("  work per core: busiest / physical limit %.3f (goal <= "
                "1.10)\n",
                double(busiest) / limit);
    std::printf("  planning (histogram + chunk + descriptors): %.2f us "
                "(goal %s), memcpy of the %zu routing bytes %.3f us, ratio "
                "%.1f\n",
                planNs / 1e3, tokens <= 16 ? "<= 2 us" : tokens >= 4096 ? "<= 20 us" : "-",
                ids.size() * sizeof(int32_t), copyNs / 1e3, planNs / copyNs);
    std::printf("  CPU-sim: group GEMM %.2f useful GOP/s (%.1f ms), dense "
                "GEMM over the block-128 rows %.2f useful GOP/s (%.1f ms); "
                "group / dense time %.3f\n",
                useful / groupUs / 1e3, groupUs / 1e3, useful / denseUs / 1e3,
                denseUs / 1e3, groupUs / denseUs);
    if (status)
      std::printf("status %d: the runs failed\n", status);
  }
  return 0;
}
