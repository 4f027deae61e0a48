// The two benchmark attention operators of seed 002 in the CPU simulation
// (examples/ir/benchmark_attention.mlir through wsp-pipeline and
// wsp-to-cpusim, force-included), with the synchronization checker on, as
// `wspc --run` runs them.
//
//  * flash_decoding (@decoding_long: 8 query heads on 2 KV heads, head_dim
//    128, kv_len 2500): the K/V bytes of the batch (cache rows and the new
//    tokens) per second, as a ratio to memcpy of the same bytes in the same
//    run; the memory-bound measure of bench-cpusim-attention.
//  * flash_attention (@attention_qkv: the same heads in a packed qkv,
//    causal): GFLOP/s of the 4 S^2/2 x heads x head_dim multiply-adds of
//    QK^T and PV, against a naive loop in float in the same run (scores,
//    softmax and PV per query row, one thread).
// Times are the best of the repetitions. The simulation runs its cores on
// all hardware threads; memcpy and the naive loop run on one.
//
// Usage: bench-cpusim-benchmark-attention [repetitions]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "BenchTiming.h"

using wsp_gen::bf16;
using wsp_gen::MemRef;

namespace {

constexpr int64_t kHeads = 8, kKvHeads = 2, kDim = 128;
constexpr int64_t kBlocks = 24, kRows = 32, kKvTile = 128;

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

void fill(std::vector<bf16> &x, std::mt19937 &rng) {
  std::uniform_real_distribution<float> uni(-1.f, 1.f);
  for (bf16 &e : x)
    e = wsp_gen::f32_to_bf16(uni(rng));
}

float f32(bf16 x) { return wsp_gen::bf16_to_f32(x); }

/// Causal attention of one sequence in float, one query row at a time: the
/// baseline a CPU user would write first.
void naiveAttention(const std::vector<bf16> &qkv, int64_t tokens,
                    std::vector<float> &out) {
  const int64_t all = kHeads + 2 * kKvHeads, group = kHeads / kKvHeads;
  const float scale = 1.f / std::sqrt(float(kDim));
  std::vector<float> w(size_t(tokens), 0.f);
  for (int64_t s = 0; s < tokens; ++s)
    for (int64_t h = 0; h < kHeads; ++h) {
      const int64_t kh = kHeads + h / group, vh = kh + kKvHeads;
      const bf16 *q = &qkv[size_t((s * all + h) * kDim)];
      float mx = -1e30f, sum = 0.f;
      for (int64_t p = 0; p <= s; ++p) {
        const bf16 *k = &qkv[size_t((p * all + kh) * kDim)];
        float dot = 0.f;
        for (int64_t c = 0; c < kDim; ++c)
          dot += f32(q[c]) * f32(k[c]);
        w[size_t(p)] = dot * scale;
        mx = std::max(mx, w[size_t(p)]);
      }
      for (int64_t p = 0; p <= s; ++p) {
        w[size_t(p)] = std::exp(w[size_t(p)] - mx);
        sum += w[size_t(p)];
      }
      float *o = &out[size_t((s * kHeads + h) * kDim)];
      std::fill(o, o + kDim, 0.f);
      for (int64_t p = 0; p <= s; ++p) {
        const bf16 *v = &qkv[size_t((p * all + vh) * kDim)];
        for (int64_t c = 0; c < kDim; ++c)
          o[c] += w[size_t(p)] * f32(v[c]);
      }
      for (int64_t c = 0; c < kDim; ++c)
        o[c] /= sum;
    }
}

} // namespace

int main(int argc, char **argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  if (argc > 2 || reps < 1) {
    std::fprintf(stderr, "usage: %s [repetitions >= 1]\n", argv[0]);
    return 2;
  }
  std::mt19937 rng(1);
  std::vector<bf16> wsH(size_t(kBlocks * 2 * kRows * kKvTile));
  std::vector<float> wsF(size_t(kBlocks * 3 * kRows * kKvTile)),
      wsMl(size_t(kBlocks * 2 * kRows));
  MemRef<bf16, 4> wsh{wsH.data(), {kBlocks, 2, kRows, kKvTile}};
  MemRef<float, 3> wsml{wsMl.data(), {kBlocks, 2, kRows}};
  std::printf("CPU-sim benchmark attention (group %lld, head_dim %lld, %u "
              "threads; memcpy and the naive loop on 1)\n",
              (long long)(kHeads / kKvHeads), (long long)kDim,
              std::thread::hardware_concurrency());

  // flash_decoding: B requests of kv_len 2500 (+ the new token).
  for (int64_t batch : {16, 64}) {
    const int64_t kvLen = 2500, capacity = 2560;
    std::vector<bf16> q(size_t(batch * kHeads * kDim)),
        k(size_t(batch * kKvHeads * kDim)), v(k.size()),
        kc(size_t(batch * kKvHeads * capacity * kDim)), vc(kc.size()),
        out(q.size());
    for (auto *x : {&q, &k, &v, &kc, &vc})
      fill(*x, rng);
    int32_t status = 0;
    auto step = [&] {
      status = wsp_gen::decoding_long(
          {q.data(), {batch, 1, kHeads, kDim}},
          {k.data(), {batch, 1, kKvHeads, kDim}},
          {v.data(), {batch, 1, kKvHeads, kDim}},
          {kc.data(), {batch, kKvHeads, capacity, kDim}},
          {vc.data(), {batch, kKvHeads, capacity, kDim}},
          {out.data(), {batch, 1, kHeads, kDim}}, wsh,
          {wsF.data(), {kBlocks, 3, kRows, kKvTile}}, wsml);
      wsp_bench::sink = status;
    };
    const double bytes =
        2.0 * double(batch) * kKvHeads * double(kvLen + 1) * kDim * sizeof(bf16);
    std::vector<char> src(size_t(bytes), 1), dst(src.size());
    double tAttn = 1e30, tCopy = 1e30;
    for (int rep = 0; rep < reps; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      step();
      tAttn = std::min(tAttn, seconds(t0));
      t0 = std::chrono::steady_clock::now();
      std::memcpy(dst.data(), src.data(), src.size());
      wsp_bench::sink = dst[src.size() / 2];
      tCopy = std::min(tCopy, seconds(t0));
    }
    if (status != 0) {
      std::printf("flash_decoding B=%lld failed with status %d\n",
                  (long long)batch, status);
      return 1;
    }
    std::printf("flash_decoding  B=%-3lld x %lld: KV %7.1f MB in %8.2f ms = "
                "%6.2f GB/s, memcpy %6.2f GB/s, ratio %.3f\n",
                (long long)batch, (long long)kvLen + 1, bytes / 1e6,
                tAttn * 1e3, bytes / tAttn / 1e9, bytes / tCopy / 1e9,
                tCopy / tAttn);
  }

  // flash_attention: one causal sequence of S tokens.
  for (int64_t tokens : {256, 1024}) {
    const int64_t all = kHeads + 2 * kKvHeads;
    std::vector<bf16> qkv(size_t(tokens * all * kDim)),
        out(size_t(tokens * kHeads * kDim));
    std::vector<float> ref(out.size());
    fill(qkv, rng);
    int32_t status = 0;
    double tAttn = 1e30, tNaive = 1e30;
    for (int rep = 0; rep < reps; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      status = wsp_gen::attention_qkv({qkv.data(), {1, tokens, all, kDim}},
                                      {out.data(), {1, tokens, kHeads, kDim}},
                                      wsh,
                                      {wsF.data(), {kBlocks, 2, kRows, kKvTile}});
      tAttn = std::min(tAttn, seconds(t0));
      t0 = std::chrono::steady_clock::now();
      naiveAttention(qkv, tokens, ref);
      wsp_bench::sink = int(ref[ref.size() / 2]);
      tNaive = std::min(tNaive, seconds(t0));
    }
    if (status != 0) {
      std::printf("flash_attention S=%lld failed with status %d\n",
                  (long long)tokens, status);
      return 1;
    }
    // QK^T and PV over the causal triangle: 2 x 2 flops per (row, position,
    // column) pair, S (S + 1) / 2 (row, position) pairs per head.
    const double flops = 4.0 * double(kHeads) * kDim * double(tokens) *
                         double(tokens + 1) / 2;
    std::printf("flash_attention S=%-5lld: %6.2f GFLOP in %8.2f ms = %6.2f "
                "GFLOP/s, naive %6.2f GFLOP/s, ratio %.3f\n",
                (long long)tokens, flops / 1e9, tAttn * 1e3,
                flops / tAttn / 1e9, flops / tNaive / 1e9, tNaive / tAttn);
  }
  return 0;
}
