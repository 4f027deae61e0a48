// CPU-simulation throughput of the row-wise operators (llm ops lowered by
// convert-llm-to-wsp, emitted by wsp-translate), bench/row_ops.mlir at
// hidden 4096: bytes the operator must move (its inputs read once, its
// outputs written once) per second, against memcpy of the same number of
// bytes in the same run. Decode (64 tokens) and prefill (2048 tokens)
// batches: the norms and quantizations at hidden 4096, then the rotary
// embedding of a packed qkv (32 query and 8 KV heads of 128) and the
// paged KV store of its 8 K and 8 V heads. Goal (issue 12): >= 0.3x
// memcpy.
//
// The simulation runs its cores on all hardware threads; memcpy runs on
// one. The kernels read a row 2 (rms_norm) or 3 (the fused quant) times
// from global memory, which the "bytes moved" below do not count.
#include "BenchTiming.h"

#include <cstdio>
#include <cstring>
#include <vector>

using wsp_gen::bf16;
using wsp_gen::MemRef;

namespace {
constexpr int64_t kHidden = 4096;

template <typename T> MemRef<T, 2> rows(std::vector<T> &v, int64_t t) {
  return MemRef<T, 2>{v.data(), {t, kHidden}};
}
template <typename T> MemRef<T, 1> vec(std::vector<T> &v) {
  return MemRef<T, 1>{v.data(), {int64_t(v.size())}};
}

/// Ops whose name starts with this run (all by default).
const char *g_only = "";

/// Times `run` (median of 7) unless the op is filtered out, and prints its
/// bytes per second against memcpy of the same bytes.
template <typename Run>
void measure(const char *op, int64_t tokens, double bytes, Run &&run) {
  if (std::strncmp(op, g_only, std::strlen(g_only)) != 0)
    return;
  const double us = wsp_bench::median_us(run, 7);
  std::vector<char> src(size_t(bytes), 1);
  std::vector<char> dst(src.size());
  double copy = wsp_bench::median_us(
      [&] { std::memcpy(dst.data(), src.data(), src.size()); });
  wsp_bench::sink = dst[size_t(bytes) / 2];
  std::printf("%-28s T=%5lld  %8.1f us = %6.2f GB/s, memcpy %6.2f GB/s, "
              "ratio %.3f\n",
              op, (long long)tokens, us, bytes / us / 1e3, bytes / copy / 1e3,
              copy / us);
}
} // namespace

int main(int argc, char **argv) {
  if (argc > 2) {
    std::fprintf(stderr, "usage: %s [op name prefix]\n", argv[0]);
    return 2;
  }
  if (argc == 2)
    g_only = argv[1];
  for (int64_t t : {64, 2048}) {
    size_t n = size_t(t * kHidden);
    std::vector<bf16> x(n), r(n), y(n), a(n);
    for (size_t i = 0; i < n; ++i) {
      x[i].bits = uint16_t(0x3f80 + (i % 64));
      r[i].bits = uint16_t(0xbf00 + (i % 32));
    }
    std::vector<float> w(kHidden, 1.5f), s(kHidden, 0.75f), scale(t);
    std::vector<int8_t> q(n);
    const double row = double(kHidden) * 2, vecb = double(kHidden) * 4;
    int status = 0;
    measure("rms_norm", t, t * row * 2 + vecb, [&] {
             status |= wsp_gen::rms_norm(rows(x, t), vec(w), rows(y, t));
           });
    measure("rms_norm + residual", t, t * row * 4 + vecb,
           [&] {
             status |= wsp_gen::add_rms_norm(rows(x, t), rows(r, t), vec(w),
                                             rows(y, t), rows(a, t));
           });
    measure("scale_dynamic_quant", t, t * (row + kHidden + 4.0) + vecb,
           [&] {
             status |= wsp_gen::scale_dynamic_quant(rows(x, t), vec(s),
                                                    rows(q, t), vec(scale));
           });
    measure("add_rms_norm_dynamic_quant", t,
           t * (row * 3 + kHidden + 4.0) + 2 * vecb, [&] {
             status |= wsp_gen::add_rms_norm_dynamic_quant(
                 rows(x, t), rows(r, t), vec(w), vec(s), rows(q, t),
                 vec(scale), rows(a, t));
           });

    // Rotary embedding: the 40 query and key heads of each token read and
    // written, its sin and cos rows read. One sequence from position 0.
    // The rope runs in place, call after call, so it rotates by about 45
    // degrees (sin = cos = 0.707, bf16 0x3f35), which keeps the values'
    // size: a rotation that shrank them (it did, by 0.56 a call) sent them
    // into denormals within a few hundred calls, and timed those. (The
    // values' period, 61, keeps a head's two halves apart.)
    const int64_t heads = 48, ropeHeads = 40, dim = 128;
    std::vector<bf16> qkv(size_t(t * heads * dim)), sin(size_t(t * dim)),
        cos(sin.size());
    for (size_t i = 0; i < qkv.size(); ++i)
      qkv[i].bits = uint16_t(0x3f80 + (i % 61));
    for (size_t i = 0; i < sin.size(); ++i) {
      sin[i].bits = 0x3f35;
      cos[i].bits = 0x3f35;
    }
    std::vector<int32_t> zero = {0}, len = {int32_t(t)};
    measure("rotary_embedding", t,
           t * (2.0 * ropeHeads * dim * 2 + 2.0 * dim * 2),
           [&] {
             status |= wsp_gen::rope(MemRef<bf16, 3>{qkv.data(), {t, heads, dim}},
                                     MemRef<bf16, 2>{sin.data(), {t, dim}},
                                     MemRef<bf16, 2>{cos.data(), {t, dim}},
                                     vec(zero), vec(len));
           });

    // Paged KV store: each token's 8 K and 8 V heads read and written once.
    const int64_t kvHeads = 8, page = 128, pages = (t + page - 1) / page;
    std::vector<bf16> key(size_t(t * kvHeads * dim)), value(key.size()),
        kCache(size_t(pages * kvHeads * page * dim)), vCache(kCache.size());
    std::vector<int32_t> table(static_cast<size_t>(pages));
    for (int64_t p = 0; p < pages; ++p)
      table[size_t(p)] = int32_t(pages - 1 - p);
    measure("store_paged_kv_cache", t, t * (2.0 * kvHeads * dim * 2) * 2,
           [&] {
             status |= wsp_gen::store_paged(
                 MemRef<bf16, 3>{key.data(), {t, kvHeads, dim}},
                 MemRef<bf16, 3>{value.data(), {t, kvHeads, dim}},
                 MemRef<int32_t, 2>{table.data(), {1, pages}}, vec(zero),
                 vec(len), vec(zero),
                 MemRef<bf16, 4>{kCache.data(), {pages, kvHeads, page, dim}},
                 MemRef<bf16, 4>{vCache.data(), {pages, kvHeads, page, dim}});
           });
    if (status)
      std::printf("status %d: the runs failed\n", status);
  }
  return 0;
}
