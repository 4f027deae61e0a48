// CPU-simulation throughput of quant_matmul (an llm op lowered by
// convert-llm-to-wsp to a cube kernel with vector dequant, emitted by
// wsp-translate): bench/quant_matmul.mlir, K = N = 1024, weights [N, K],
// for a decode batch (64 tokens) and a prefill chunk (512), against a naive
// triple loop and a blocked loop nest written here, in the same run.
// GOP/s counts 2 T K N operations. The simulation runs its cores on every
// hardware thread; the two references on one.
#include "BenchTiming.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using wsp_gen::bf16;
using wsp_gen::MemRef;

namespace {
constexpr int64_t kK = 1024, kN = 1024;

/// y[t, n] = sum_k a[t, k] w[n, k], then the scales: one dot product per
/// output.
void naive(const std::vector<int8_t> &a, const std::vector<int8_t> &w,
           const std::vector<float> &pts, const std::vector<float> &ws,
           std::vector<float> &y, int64_t tokens) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t n = 0; n < kN; ++n) {
      int32_t acc = 0;
      for (int64_t k = 0; k < kK; ++k)
        acc += int32_t(a[size_t(t * kK + k)]) * w[size_t(n * kK + k)];
      y[size_t(t * kN + n)] = float(acc) * pts[size_t(t)] * ws[size_t(n)];
    }
}

/// The same, in 32 x 64 output blocks over 256-wide K panels, i32
/// accumulators kept for the block.
void blocked(const std::vector<int8_t> &a, const std::vector<int8_t> &w,
             const std::vector<float> &pts, const std::vector<float> &ws,
             std::vector<float> &y, int64_t tokens) {
  constexpr int64_t bt = 32, bn = 64, bk = 256;
  std::vector<int32_t> acc(bt * bn);
  for (int64_t t0 = 0; t0 < tokens; t0 += bt)
    for (int64_t n0 = 0; n0 < kN; n0 += bn) {
      int64_t t1 = std::min(tokens, t0 + bt);
      std::fill(acc.begin(), acc.end(), 0);
      for (int64_t k0 = 0; k0 < kK; k0 += bk)
        for (int64_t t = t0; t < t1; ++t)
          for (int64_t n = n0; n < n0 + bn; ++n) {
            const int8_t *ar = &a[size_t(t * kK + k0)];
            const int8_t *wr = &w[size_t(n * kK + k0)];
            int32_t s = 0;
            for (int64_t k = 0; k < bk; ++k)
              s += int32_t(ar[k]) * wr[k];
            acc[size_t((t - t0) * bn + (n - n0))] += s;
          }
      for (int64_t t = t0; t < t1; ++t)
        for (int64_t n = n0; n < n0 + bn; ++n)
          y[size_t(t * kN + n)] = float(acc[size_t((t - t0) * bn + (n - n0))]) *
                                  pts[size_t(t)] * ws[size_t(n)];
    }
}
} // namespace

int main() {
  for (int64_t tokens : {64, 512}) {
    std::vector<int8_t> a(size_t(tokens * kK)), w(size_t(kN * kK));
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = int8_t(int(i * 37 % 255) - 127);
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = int8_t(int(i * 91 % 255) - 127);
    std::vector<float> pts(size_t(tokens), 0.01f), ws(kN, 0.02f);
    std::vector<float> ref(size_t(tokens * kN));
    std::vector<bf16> y(size_t(tokens * kN));
    std::vector<int32_t> workspace(24 * 128 * 128);
    int status = 0;
    double sim = wsp_bench::median_us(
        [&] {
          status |= wsp_gen::proj(
              MemRef<int8_t, 2>{a.data(), {tokens, kK}},
              MemRef<float, 1>{pts.data(), {tokens}},
              MemRef<int8_t, 2>{w.data(), {kN, kK}},
              MemRef<float, 1>{ws.data(), {kN}},
              MemRef<bf16, 2>{y.data(), {tokens, kN}},
              MemRef<int32_t, 3>{workspace.data(), {24, 128, 128}});
        },
        3);
    double slow = wsp_bench::median_us(
        [&] { naive(a, w, pts, ws, ref, tokens); }, 3);
    double fast = wsp_bench::median_us(
        [&] { blocked(a, w, pts, ws, ref, tokens); }, 3);
    wsp_bench::sink = int(ref[ref.size() / 2]);
    double ops = 2.0 * double(tokens) * kK * kN;
    std::printf("T=%4lld K=%lld N=%lld: CPU-sim %7.2f GOP/s, naive %7.2f "
                "GOP/s, blocked %7.2f GOP/s; CPU-sim / naive %.2f, / blocked "
                "%.2f\n",
                (long long)tokens, (long long)kK, (long long)kN,
                ops / sim / 1e3, ops / slow / 1e3, ops / fast / 1e3,
                slow / sim, fast / sim);
    if (status)
      std::printf("status %d: the runs failed\n", status);
  }
  return 0;
}
