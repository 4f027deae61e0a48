// Decode attention in the CPU simulation (examples/ir/decode_attention.mlir
// through wsp-pipeline and wsp-to-cpusim, force-included): KV bytes read
// per second, as a ratio to memcpy bandwidth measured in the same run on
// the same number of bytes. Two shapes: one long context, and many short
// requests. bf16 cache, 8 query / 2 KV heads, head_dim 128, block 16.
#include "BenchTiming.h"

#include <pto/runtime/runtime.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace rt = pto::runtime;
using wsp_gen::bf16;
using wsp_gen::MemRef;

struct Shape {
  const char *name;
  std::vector<int> lens;
};

static double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

int main() {
  const int heads = 8, kv_heads = 2, dim = 128, block = 16;
  std::printf("CPU-sim decode attention: KV bandwidth vs memcpy (best of 3)\n");
  for (const Shape &shape :
       {Shape{"long context 1 x 65536", {65536}},
        Shape{"many short 256 x 200", std::vector<int>(256, 200)}}) {
    const int batch = static_cast<int>(shape.lens.size());
    int blocks = 0, max_blocks = 0;
    for (int l : shape.lens) {
      blocks += (l + block - 1) / block;
      max_blocks = std::max(max_blocks, (l + block - 1) / block);
    }
    std::vector<int32_t> table(batch * max_blocks), ids(batch),
        lens(shape.lens.begin(), shape.lens.end());
    std::iota(ids.begin(), ids.end(), 0);
    for (int b = 0, next = 0; b < batch; ++b)
      for (int j = 0; j < (lens[b] + block - 1) / block; ++j)
        table[b * max_blocks + j] = next++;
    const size_t cache = static_cast<size_t>(blocks) * kv_heads * block * dim;
    std::vector<bf16> k(cache), v(cache), q(batch * heads * dim),
        out(batch * heads * dim);
    std::mt19937 rng(1);
    for (auto *buf : {&k, &v, &q})
      for (bf16 &x : *buf)
        x = wsp_gen::f32_to_bf16(
            std::uniform_real_distribution<float>(-1, 1)(rng));
    std::vector<float> o(batch * heads * dim), m(batch * heads),
        l(batch * heads);
    std::vector<rt::WorkDescriptor> descs(1 << 16);
    auto step = [&] {
      wsp_bench::sink = wsp_gen::decode_step(
          MemRef<bf16, 4>{q.data(), {batch, 1, heads, dim}},
          MemRef<int32_t, 1>{ids.data(), {batch}},
          MemRef<int32_t, 1>{lens.data(), {batch}},
          MemRef<int32_t, 2>{table.data(), {batch, max_blocks}},
          MemRef<bf16, 4>{k.data(), {blocks, kv_heads, block, dim}},
          MemRef<bf16, 4>{v.data(), {blocks, kv_heads, block, dim}},
          MemRef<float, 4>{o.data(), {batch, 1, heads, dim}},
          MemRef<float, 3>{m.data(), {batch, 1, heads}},
          MemRef<float, 3>{l.data(), {batch, 1, heads}},
          MemRef<bf16, 4>{out.data(), {batch, 1, heads, dim}},
          MemRef<rt::WorkDescriptor, 1>{descs.data(),
                                        {static_cast<int64_t>(descs.size())}});
    };
    // KV bytes: every token's K and V rows for every KV head, read once.
    size_t tokens = 0;
    for (int len : shape.lens)
      tokens += len;
    const double bytes = 2.0 * tokens * kv_heads * dim * sizeof(bf16);
    std::vector<char> src(static_cast<size_t>(bytes)), dst(src.size());
    double t_attn = 1e30, t_copy = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      step();
      t_attn = std::min(t_attn, seconds(t0));
      t0 = std::chrono::steady_clock::now();
      std::memcpy(dst.data(), src.data(), src.size());
      wsp_bench::sink = dst[src.size() / 2];
      t_copy = std::min(t_copy, seconds(t0));
    }
    std::printf("%-26s KV %7.1f MB: attention %8.2f ms = %7.2f GB/s, memcpy "
                "%7.2f GB/s, ratio %.4f\n",
                shape.name, bytes / 1e6, t_attn * 1e3, bytes / t_attn / 1e9,
                bytes / t_copy / 1e9, t_copy / t_attn);
  }
  return 0;
}
