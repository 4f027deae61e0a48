// Decode attention in the CPU simulation (examples/ir/decode_attention.mlir
// through wsp-pipeline and wsp-to-cpusim, force-included): the tile kernels
// on the simulated cube and vector cores, with the synchronization checker
// on, as `wspc --run` runs them.
//
// Per shape it prints
//  * the K/V bytes the step gathered from the paged cache (the simulation's
//    traffic counters) next to the K/V bytes of the batch: 1.00x means each
//    K/V byte is read once per step, not once per query head of a group;
//  * the KV bytes of the batch per second of the step, as a ratio to
//    memcpy of the same number of bytes in the same run (best of the repetitions).
// The simulation runs its cores on all hardware threads; memcpy runs on
// one, as the bandwidth a single core sees.
//
// bf16 cache, 16 query heads on 2 KV heads (8 per group), head_dim 128,
// pages of 128 positions.
//
// Usage: bench-cpusim-attention [repetitions [shape name prefix]], e.g.
// `bench-cpusim-attention 20 B=64` to profile one shape.
#include "BenchTiming.h"

#include <pto/runtime/runtime.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
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

int main(int argc, char **argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  const std::string only = argc > 2 ? argv[2] : "";
  if (argc > 3 || reps < 1) {
    std::fprintf(stderr, "usage: %s [repetitions >= 1 [shape name prefix]]\n",
                 argv[0]);
    return 2;
  }
  int ran = 0;
  const int heads = 16, kv_heads = 2, dim = 128, block = 128;
  // The kernels' fixed shapes: a [32 x 128] state per (request, KV head)
  // and a [32 x 128] workspace per block of the 24-block launch.
  const int rows = 32, cols = 128, num_blocks = 24;
  std::printf("CPU-sim decode attention (group %d, head_dim %d, page %d, "
              "%u threads; memcpy on 1)\n",
              heads / kv_heads, dim, block,
              std::thread::hardware_concurrency());
  for (const Shape &shape :
       {Shape{"B=64 x 4096", std::vector<int>(64, 4096)},
        Shape{"B=1 x 65536", {65536}},
        Shape{"B=256 x 200", std::vector<int>(256, 200)}}) {
    if (std::string(shape.name).rfind(only, 0) != 0)
      continue;
    ++ran;
    const int batch = static_cast<int>(shape.lens.size());
    int pages = 0, max_pages = 0;
    for (int l : shape.lens) {
      pages += (l + block - 1) / block;
      max_pages = std::max(max_pages, (l + block - 1) / block);
    }
    std::vector<int32_t> table(batch * max_pages), ids(batch),
        lens(shape.lens.begin(), shape.lens.end());
    std::iota(ids.begin(), ids.end(), 0);
    for (int b = 0, next = 0; b < batch; ++b)
      for (int j = 0; j < (lens[b] + block - 1) / block; ++j)
        table[b * max_pages + j] = next++;
    const size_t cache = static_cast<size_t>(pages) * kv_heads * block * dim;
    std::vector<bf16> k(cache), v(cache), q(batch * heads * dim),
        out(batch * heads * dim);
    std::mt19937 rng(1);
    for (auto *buf : {&k, &v, &q})
      for (bf16 &x : *buf)
        x = wsp_gen::f32_to_bf16(
            std::uniform_real_distribution<float>(-1, 1)(rng));
    std::vector<float> acc_o(size_t(batch) * kv_heads * rows * cols),
        acc_m(batch * kv_heads * rows), acc_l(batch * kv_heads * rows),
        ws_s(num_blocks * rows * cols), ws_o(num_blocks * rows * cols);
    std::vector<bf16> ws_q(num_blocks * rows * cols),
        ws_p(num_blocks * rows * cols);
    std::vector<rt::WorkDescriptor> descs(1 << 16);
    int32_t status = 0;
    auto step = [&] {
      status = wsp_gen::decode_step(
          MemRef<bf16, 4>{q.data(), {batch, 1, heads, dim}},
          MemRef<int32_t, 1>{ids.data(), {batch}},
          MemRef<int32_t, 1>{lens.data(), {batch}},
          MemRef<int32_t, 2>{table.data(), {batch, max_pages}},
          MemRef<bf16, 4>{k.data(), {pages, kv_heads, block, dim}},
          MemRef<bf16, 4>{v.data(), {pages, kv_heads, block, dim}},
          MemRef<float, 4>{acc_o.data(), {batch, kv_heads, rows, cols}},
          MemRef<float, 3>{acc_m.data(), {batch, kv_heads, rows}},
          MemRef<float, 3>{acc_l.data(), {batch, kv_heads, rows}},
          MemRef<bf16, 4>{out.data(), {batch, 1, heads, dim}},
          MemRef<rt::WorkDescriptor, 1>{descs.data(),
                                        {static_cast<int64_t>(descs.size())}},
          MemRef<bf16, 3>{ws_q.data(), {num_blocks, rows, cols}},
          MemRef<float, 3>{ws_s.data(), {num_blocks, rows, cols}},
          MemRef<bf16, 3>{ws_p.data(), {num_blocks, rows, cols}},
          MemRef<float, 3>{ws_o.data(), {num_blocks, rows, cols}});
      wsp_bench::sink = status;
    };
    // KV bytes of the batch: every token's K and V rows for every KV head.
    size_t tokens = 0;
    for (int len : shape.lens)
      tokens += len;
    const double bytes = 2.0 * tokens * kv_heads * dim * sizeof(bf16);
    std::vector<char> src(static_cast<size_t>(bytes), 1), dst(src.size());
    double t_attn = 1e30, t_copy = 1e30;
    uint64_t gathered = 0;
    for (int rep = 0; rep < reps; ++rep) {
      pto::runtime::tile::traffic().reset();
      auto t0 = std::chrono::steady_clock::now();
      step();
      t_attn = std::min(t_attn, seconds(t0));
      gathered = pto::runtime::tile::traffic().paged;
      t0 = std::chrono::steady_clock::now();
      std::memcpy(dst.data(), src.data(), src.size());
      wsp_bench::sink = dst[src.size() / 2];
      t_copy = std::min(t_copy, seconds(t0));
    }
    if (status != 0) {
      std::printf("%-14s step failed with status %d\n", shape.name, status);
      return 1;
    }
    std::printf("%-14s KV %7.1f MB, gathered %7.1f MB (%.2fx): attention "
                "%8.2f ms = %6.2f GB/s, memcpy %6.2f GB/s, ratio %.3f\n",
                shape.name, bytes / 1e6, gathered / 1e6, gathered / bytes,
                t_attn * 1e3, bytes / t_attn / 1e9, bytes / t_copy / 1e9,
                t_copy / t_attn);
  }
  if (!ran) {
    std::fprintf(stderr, "no shape starts with '%s' (B=64, B=1, B=256)\n",
                 only.c_str());
    return 2;
  }
  return 0;
}
