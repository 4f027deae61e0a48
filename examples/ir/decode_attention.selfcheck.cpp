// The self-check of examples/ir/decode_attention.mlir (run by `wspc --run`
// and by the lit tests): the emitted decode_step on random paged bf16
// caches, against a naive fp32 attention written here independently (no
// chunks, no tiers, no online softmax). The CPU-sim source is force-included
// (-include); with WSP_DEVICE_FORM the device form's AICPU entry is called.
//
// Tolerance (kTolerance): |out - ref| <= 2^-8 + 2^-9 + 1e-5 (5.9e-3).
// Values of v are in [-1, 1], so outputs are in [-1, 1], where half a bf16
// ulp is at most 2^-9 = 1.95e-3. The tile kernels round the softmax
// weights p to bf16 for the cube's P V (half an ulp of p, a relative error
// <= 2^-8 per weight, so at most 2^-8 max|v| = 3.9e-3 in a weighted mean
// of v) and round the output to bf16 (<= 1.95e-3 more); the rest (fp32
// sums in another order than the reference) is below 1e-5.
// q is drawn from [-8, 8] so that attention is peaked, not near-uniform
// (near-uniform attention over long sequences hides scale errors).
//
// Two forms of one program compare their outputs through files: with
// WSP_DUMP_DIR set, each case's output is written there (as float); with
// WSP_COMPARE_DIR set, it is compared with the file there, within the same
// tolerance (scripts/check-pto-isa.sh: the AICore form over pto-isa against
// the CPU-sim form).
#include <pto/runtime/runtime.hpp>

// Blocks (cube core + vector cores) the tile kernels run on: each has its
// own workspace in global memory for the cube <-> vector exchange.
constexpr int kBlocks = 24;

// The device form (WSP_DEVICE_FORM): the AICPU entry over its argument
// block, launching the AICore entry through the simulated hook.
#ifdef WSP_DEVICE_FORM
#include "wsp_module_abi.h"
extern "C" int decode_step(void *args);
#endif

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <numeric>
#include <random>
#include <vector>

namespace rt = pto::runtime;
using wsp_gen::bf16;
using wsp_gen::MemRef;

// WSP_INT8_KV: the int8 cache of decode_attention_int8.mlir, with float
// scales per (kv_head, head_dim); the reference dequantizes the same way.
#ifdef WSP_INT8_KV
using CacheElem = int8_t;
#else
using CacheElem = bf16;
#endif


// The 16-bit storage of the bf16 tensors. pto-isa's CPU simulation holds
// bfloat16_t as IEEE half when the C++ library has no std::bfloat16_t
// (libstdc++ 12): scripts/check-pto-isa.sh then defines
// WSP_BF16_STORAGE_IS_F16 and the same values travel as half bits. The
// values drawn here (|x| <= 8, 8 significant bits) are exact either way.
static uint16_t to_bf16_bits(float f) {
#ifdef WSP_BF16_STORAGE_IS_F16
  return rt::f32_to_f16(f).bits;
#else
  return rt::f32_to_bf16(f).bits;
#endif
}
static float from_bf16_bits(uint16_t b) {
#ifdef WSP_BF16_STORAGE_IS_F16
  return rt::f16_to_f32(rt::f16{b});
#else
  return rt::bf16_to_f32(rt::bf16{b});
#endif
}

constexpr double kTolerance = 0x1p-8 + 0x1p-9 + 1e-5;

/// The case's output file in `dir`: its name with every character that is
/// not a letter or a digit replaced.
static std::string output_file(const char *dir, const char *name) {
  std::string file = std::string(dir) + "/";
  for (const char *c = name; *c; ++c)
    file += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  return file + ".f32";
}

/// Writes `out` to WSP_DUMP_DIR and compares it with WSP_COMPARE_DIR's copy
/// (false when it differs by more than the tolerance or is missing).
static bool dump_and_compare(const char *name, const std::vector<float> &out) {
  if (const char *dir = std::getenv("WSP_DUMP_DIR")) {
    FILE *f = std::fopen(output_file(dir, name).c_str(), "wb");
    if (!f || std::fwrite(out.data(), sizeof(float), out.size(), f) != out.size()) {
      std::printf("    cannot write %s\n", output_file(dir, name).c_str());
      if (f)
        std::fclose(f);
      return false;
    }
    std::fclose(f);
  }
  const char *dir = std::getenv("WSP_COMPARE_DIR");
  if (!dir)
    return true;
  std::vector<float> other(out.size());
  FILE *f = std::fopen(output_file(dir, name).c_str(), "rb");
  const bool read = f && std::fread(other.data(), sizeof(float), other.size(),
                                    f) == other.size() &&
                    std::fgetc(f) == EOF;
  if (f)
    std::fclose(f);
  if (!read) {
    std::printf("    vs %s: no output of the same size\n", dir);
    return false;
  }
  double diff = 0;
  for (size_t i = 0; i < out.size(); ++i)
    diff = std::max(diff, static_cast<double>(std::abs(out[i] - other[i])));
  const bool same = diff <= kTolerance;
  std::printf("    vs the other form: %s (max |diff| %.2e)\n",
              same ? "same" : "DIFFERENT", diff);
  return same;
}

struct Case {
  const char *name;
  int q_len, heads, kv_heads, head_dim, block_size;
  std::vector<int> kv_lens;
  // Give the planner a one-descriptor buffer: planning must report
  // BUFFER_OVERFLOW (1) and no kernel may run (the output stays zero).
  bool overflow = false;
};

// `cuts` (balanced only): run @decode_step_cuts, the plan as cuts, whose
// cores expand their own descriptors.
static bool run(const Case &c, std::mt19937 &rng, bool cuts = false) {
  const int batch = static_cast<int>(c.kv_lens.size());
  const int group = c.heads / c.kv_heads;
  std::uniform_real_distribution<float> uni(-1.f, 1.f);
  // Paged cache: each request's blocks are scattered through the pool, and
  // its block-table row is kv_ids[b] (a permutation), as in
  // store_paged_kv_cache.
  std::vector<int> blocks_of(batch);
  int total_blocks = 0, max_blocks = 1;
  for (int b = 0; b < batch; ++b) {
    blocks_of[b] = (c.kv_lens[b] + c.block_size - 1) / c.block_size;
    total_blocks += blocks_of[b];
    max_blocks = std::max(max_blocks, blocks_of[b]);
  }
  std::vector<int> pool(std::max(total_blocks, 1));
  std::iota(pool.begin(), pool.end(), 0);
  std::shuffle(pool.begin(), pool.end(), rng);
  std::vector<int32_t> kv_ids(batch);
  std::iota(kv_ids.begin(), kv_ids.end(), 0);
  std::shuffle(kv_ids.begin(), kv_ids.end(), rng);
  std::vector<int32_t> table(batch * max_blocks, -1);
  for (int b = 0, next = 0; b < batch; ++b)
    for (int j = 0; j < blocks_of[b]; ++j)
      table[kv_ids[b] * max_blocks + j] = pool[next++];

  const size_t cache_elems = static_cast<size_t>(pool.size()) * c.kv_heads *
                             c.block_size * c.head_dim;
  std::vector<uint16_t> k(cache_elems), v(cache_elems);
  std::vector<int8_t> k8(cache_elems), v8(cache_elems);
  std::vector<float> k_scale(c.kv_heads * c.head_dim),
      v_scale(c.kv_heads * c.head_dim);
#ifdef WSP_INT8_KV
  std::uniform_int_distribution<int> q8(-127, 127);
  std::uniform_real_distribution<float> scale_dist(0.5f / 127, 1.0f / 127);
  for (auto *buf : {&k8, &v8})
    for (int8_t &x : *buf)
      x = static_cast<int8_t>(q8(rng));
  for (auto *buf : {&k_scale, &v_scale})
    for (float &x : *buf)
      x = scale_dist(rng);
#else
  for (auto *buf : {&k, &v})
    for (uint16_t &x : *buf)
      x = to_bf16_bits(rt::bf16_to_f32(rt::f32_to_bf16(uni(rng))));
#endif
  // One cache element as the reference sees it (dequantized for int8).
  auto kv_value = [&](bool is_k, size_t index, int kvh, int d) -> float {
#ifdef WSP_INT8_KV
    const std::vector<int8_t> &cache = is_k ? k8 : v8;
    const std::vector<float> &sc = is_k ? k_scale : v_scale;
    return static_cast<float>(cache[index]) * sc[kvh * c.head_dim + d];
#else
    (void)kvh;
    (void)d;
    return from_bf16_bits(is_k ? k[index] : v[index]);
#endif
  };
  const size_t q_elems =
      static_cast<size_t>(batch) * c.q_len * c.heads * c.head_dim;
  std::vector<uint16_t> q(q_elems), out(q_elems, 0);
  for (uint16_t &x : q)
    x = to_bf16_bits(rt::bf16_to_f32(rt::f32_to_bf16(8.0f * uni(rng))));
  std::vector<int32_t> lens(c.kv_lens.begin(), c.kv_lens.end());
#ifdef WSP_BALANCED
  // The balanced planner's bound: a descriptor per (request, KV head) row
  // plus one split per core boundary; partial state per descriptor.
  const int rows_max = batch * c.kv_heads,
            cap = c.overflow ? 1 : rows_max + kBlocks;
  std::vector<rt::WorkDescriptor> descs(cap);
  const size_t part_rows = static_cast<size_t>(cap) * c.q_len * group;
  std::vector<float> part_o(part_rows * c.head_dim), part_m(part_rows),
      part_l(part_rows);
  std::vector<int32_t> core_indptr(kBlocks + 1), merge_indptr(rows_max + 1);
#else
  // A row's softmax state between chunks: one [32 x 128] block per
  // (request, KV head).
  const size_t acc_rows = static_cast<size_t>(batch) * c.kv_heads * 32;
  std::vector<float> acc_o(acc_rows * 128), acc_m(acc_rows), acc_l(acc_rows);
  // Enough descriptors for any chunk >= chunk_min (256): one per (request,
  // KV head, chunk).
  int cap = 0;
  for (int len : c.kv_lens)
    cap += c.kv_heads * ((len + 255) / 256);
  std::vector<rt::WorkDescriptor> descs(c.overflow ? 1 : std::max(cap, 1));
#endif
  rt::sim::LaunchReport report;
#ifndef WSP_DEVICE_FORM
  wsp_gen::wsp_launch_report = &report;
  // The charts of this case's plans carry its name (wspc --plan-svg).
  rt::sim::set_plan_case(c.name);
#endif

  auto *qb = reinterpret_cast<bf16 *>(q.data());
#ifdef WSP_INT8_KV
  CacheElem *kb = k8.data(), *vb = v8.data();
#else
  auto *kb = reinterpret_cast<bf16 *>(k.data());
  auto *vb = reinterpret_cast<bf16 *>(v.data());
#endif
  auto *ob = reinterpret_cast<bf16 *>(out.data());
  const int64_t P = static_cast<int64_t>(pool.size());
  MemRef<bf16, 4> mq{qb, {batch, c.q_len, c.heads, c.head_dim}};
  MemRef<int32_t, 1> mids{kv_ids.data(), {batch}};
  MemRef<int32_t, 1> mlens{lens.data(), {batch}};
  MemRef<int32_t, 2> mtable{table.data(), {batch, max_blocks}};
  MemRef<CacheElem, 4> mk{kb, {P, c.kv_heads, c.block_size, c.head_dim}};
  MemRef<CacheElem, 4> mv{vb, {P, c.kv_heads, c.block_size, c.head_dim}};
#ifdef WSP_INT8_KV
  MemRef<float, 2> mks{k_scale.data(), {c.kv_heads, c.head_dim}};
  MemRef<float, 2> mvs{v_scale.data(), {c.kv_heads, c.head_dim}};
#define WSP_SCALES mks, mvs,
#else
#define WSP_SCALES
#endif
#ifdef WSP_BALANCED
  MemRef<float, 4> mo{part_o.data(), {cap, c.q_len, group, c.head_dim}};
  MemRef<float, 3> mm{part_m.data(), {cap, c.q_len, group}};
  MemRef<float, 3> ml{part_l.data(), {cap, c.q_len, group}};
  MemRef<int32_t, 1> mcores{core_indptr.data(), {kBlocks + 1}};
  MemRef<int32_t, 1> mmerges{merge_indptr.data(), {rows_max + 1}};
  // The plan as cuts: 4 int32 per core's start, kBlocks + 1 of them.
  std::vector<int32_t> cut_points(4 * (kBlocks + 1));
  MemRef<int32_t, 1> mcuts{cut_points.data(), {4 * (kBlocks + 1)}};
#define WSP_PLAN_LISTS , mcores, mmerges
#define WSP_CUT_LISTS , mcores, mcuts
#else
  MemRef<float, 4> mo{acc_o.data(), {batch, c.kv_heads, 32, 128}};
  MemRef<float, 3> mm{acc_m.data(), {batch, c.kv_heads, 32}};
  MemRef<float, 3> ml{acc_l.data(), {batch, c.kv_heads, 32}};
#define WSP_PLAN_LISTS
#endif
  MemRef<bf16, 4> mout{ob, {batch, c.q_len, c.heads, c.head_dim}};
  // Per-block workspaces: Q, S, P and O_t of one KV tile, [32 x 128] each
  // (and, over an int8 cache, the tile's dequantized K and V, [64 x 128]).
  std::vector<uint16_t> ws_p(kBlocks * 32 * 128);
  std::vector<float> ws_s(kBlocks * 32 * 128), ws_o(kBlocks * 32 * 128);
  MemRef<float, 3> mws{ws_s.data(), {kBlocks, 32, 128}};
  MemRef<bf16, 3> mwp{reinterpret_cast<bf16 *>(ws_p.data()), {kBlocks, 32, 128}};
  MemRef<float, 3> mwo{ws_o.data(), {kBlocks, 32, 128}};
#ifdef WSP_INT8_KV
  std::vector<float> ws_q(kBlocks * 32 * 128), ws_k(kBlocks * 64 * 128);
  std::vector<uint16_t> ws_v(kBlocks * 64 * 128);
  MemRef<float, 3> mwq{ws_q.data(), {kBlocks, 32, 128}};
  MemRef<float, 3> mwk{ws_k.data(), {kBlocks, 64, 128}};
  MemRef<bf16, 3> mwv{reinterpret_cast<bf16 *>(ws_v.data()), {kBlocks, 64, 128}};
#define WSP_WORKSPACE , mwq, mwk, mwv, mws, mwp, mwo
#else
  std::vector<uint16_t> ws_q(kBlocks * 32 * 128);
  MemRef<bf16, 3> mwq{reinterpret_cast<bf16 *>(ws_q.data()), {kBlocks, 32, 128}};
#define WSP_WORKSPACE , mwq, mws, mwp, mwo
#endif
  MemRef<rt::WorkDescriptor, 1> mdescs{descs.data(),
                                       {static_cast<int64_t>(descs.size())}};
  (void)cuts; // read by the balanced example only
  const auto start = std::chrono::steady_clock::now();
#ifdef WSP_DEVICE_FORM
  wsp_gen::decode_step_args args{mq, mids,  mlens, mtable, mk,
                                 mv, WSP_SCALES mo, mm,    ml,
                                 mout, mdescs WSP_PLAN_LISTS WSP_WORKSPACE};
#ifdef WSP_BALANCED
  wsp_gen::decode_step_cuts_args cut_args{
      mq, mids, mlens, mtable, mk, mv, WSP_SCALES mo, mm, ml,
      mout, mdescs WSP_CUT_LISTS WSP_WORKSPACE};
  const int32_t status = cuts ? decode_step_cuts(&cut_args) : decode_step(&args);
#else
  const int32_t status = decode_step(&args);
#endif
#else
#ifdef WSP_BALANCED
  const int32_t status =
      cuts ? wsp_gen::decode_step_cuts(mq, mids, mlens, mtable, mk, mv,
                                       WSP_SCALES mo, mm, ml, mout,
                                       mdescs WSP_CUT_LISTS WSP_WORKSPACE)
           : wsp_gen::decode_step(mq, mids, mlens, mtable, mk, mv,
                                  WSP_SCALES mo, mm, ml, mout,
                                  mdescs WSP_PLAN_LISTS WSP_WORKSPACE);
#else
  const int32_t status =
      wsp_gen::decode_step(mq, mids, mlens, mtable, mk, mv, WSP_SCALES mo, mm,
                           ml, mout, mdescs WSP_PLAN_LISTS WSP_WORKSPACE);
#endif
#endif
  const double elapsed_ms = std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - start)
                                .count();
#ifndef WSP_DEVICE_FORM
  wsp_gen::wsp_launch_report = nullptr;
#endif
  if (c.overflow) {
    const bool untouched =
        std::all_of(out.begin(), out.end(), [](uint16_t x) { return x == 0; });
    const bool ok = status == 1 && untouched;
    std::printf("%s: %s (status %d, output %s)\n", c.name,
                ok ? "ok" : "MISMATCH", status,
                untouched ? "untouched" : "WRITTEN");
    return ok;
  }
  if (status != 0) {
    std::printf("%s: planning status %d\n", c.name, status);
    return false;
  }

  // The naive reference.
  double max_err = 0;
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  for (int b = 0; b < batch; ++b)
    for (int s = 0; s < c.q_len; ++s)
      for (int h = 0; h < c.heads; ++h) {
        if (c.kv_lens[b] == 0)
          continue; // an idle batch slot: no work, no output
        const int kvh = h / group;
        const int visible = c.kv_lens[b] - c.q_len + 1 + s; // causal
#ifdef WSP_WINDOW
        // Sliding window: cached tokens at most W - 1 back from the query;
        // the new tokens themselves are causal (gen_mask_tkg's layout).
        const int prior = c.kv_lens[b] - c.q_len;
        const int first = std::min(prior, std::max(0, prior + s - WSP_WINDOW + 1));
#else
        const int first = 0;
#endif
        std::vector<float> scores(visible);
        float m = -INFINITY;
        for (int p = first; p < visible; ++p) {
          const int blk = table[kv_ids[b] * max_blocks + p / c.block_size];
          const size_t base =
              ((static_cast<size_t>(blk) * c.kv_heads + kvh) * c.block_size +
               p % c.block_size) *
              c.head_dim;
          float dot = 0;
          for (int d = 0; d < c.head_dim; ++d)
            dot += from_bf16_bits(
                       q[((static_cast<size_t>(b) * c.q_len + s) * c.heads +
                          h) *
                             c.head_dim +
                         d]) *
                   kv_value(true, base + d, kvh, d);
          scores[p] = dot * scale;
          m = std::max(m, scores[p]);
        }
        std::vector<double> o(c.head_dim, 0);
        double sum = 0;
        for (int p = first; p < visible; ++p) {
          const double w = std::exp(static_cast<double>(scores[p]) - m);
          sum += w;
          const int blk = table[kv_ids[b] * max_blocks + p / c.block_size];
          const size_t base =
              ((static_cast<size_t>(blk) * c.kv_heads + kvh) * c.block_size +
               p % c.block_size) *
              c.head_dim;
          for (int d = 0; d < c.head_dim; ++d)
            o[d] += w * kv_value(false, base + d, kvh, d);
        }
        for (int d = 0; d < c.head_dim; ++d) {
          const double ref = o[d] / sum;
          const double got = from_bf16_bits(
              out[((static_cast<size_t>(b) * c.q_len + s) * c.heads + h) *
                      c.head_dim +
                  d]);
          max_err = std::max(max_err, std::abs(got - ref));
        }
      }

  uint64_t per_tier[4] = {};
  for (const rt::sim::CoreStats &core : report.cores)
    for (int t = 0; t < 4; ++t)
      per_tier[t] += core.per_tier[t];
  std::vector<float> out_f(out.size());
  for (size_t i = 0; i < out.size(); ++i)
    out_f[i] = from_bf16_bits(out[i]);
  const bool ok = max_err <= kTolerance;
  std::printf("%s: %s (max |err| %.2e, units per tier %llu/%llu/%llu/%llu, "
              "KV balance %.2f)\n",
              c.name, ok ? "ok" : "MISMATCH", max_err,
              (unsigned long long)per_tier[0], (unsigned long long)per_tier[1],
              (unsigned long long)per_tier[2], (unsigned long long)per_tier[3],
              report.balance());
#ifdef WSP_WINDOW
  // Planning covered only the windows: every unit lies in its request's
  // [max(0, len - q - W + 1), len).
  bool in_window = true;
  for (int i = 0; i < static_cast<int>(report.total_descriptors()); ++i) {
    const rt::WorkDescriptor &d = descs[i];
    const int len = c.kv_lens[rt::params::Attention::request_idx(d)];
    const int start = std::max(0, len - c.q_len - WSP_WINDOW + 1);
    in_window &= static_cast<int>(rt::params::Attention::kv_start(d)) >=
                     start &&
                 static_cast<int>(rt::params::Attention::kv_end(d)) <= len;
  }
  std::printf("    planned within the windows: %s\n",
              in_window ? "yes" : "NO");
  if (!in_window)
    return false;
#endif
#ifdef WSP_BALANCED
  // The balanced plan: rows cut into pieces and merged by the second pass.
  // The plan's count is where the last core's list ends (the device form
  // has no launch report).
  int split_rows = 0, pieces = 0;
  for (int i = 0; i < core_indptr[kBlocks]; ++i) {
    const uint8_t f = descs[i].flags;
    const bool first = f & rt::WorkDescriptor::FLAG_FIRST,
               last = f & rt::WorkDescriptor::FLAG_LAST;
    split_rows += last && !first;
    pieces += !(first && last);
  }
  std::printf("    balanced plan: %d descriptors, %d split rows merged from "
              "%d pieces\n",
              core_indptr[kBlocks], split_rows, pieces);
  if (cuts) {
    // The cores expanded their shares of the cuts: the buffer must hold the
    // materialized plan of the same lengths, byte for byte.
    rt::BalancedConfig config;
    config.num_cores = kBlocks;
    config.block_size = 16;
    rt::BalancedPlan plan;
    const bool planned =
        rt::plan_balanced(lens.data(), batch, c.kv_heads, config,
                          rt::DecodeAttentionTiers{}, &plan) ==
        rt::PlanResult::OK;
    bool same = planned && plan.count == core_indptr[kBlocks];
    for (int i = 0; same && i < plan.count; ++i)
      same = std::memcmp(&descs[i], &plan.descriptors[i],
                         sizeof(rt::WorkDescriptor)) == 0;
    std::printf("    the cores' descriptors: %s the materialized plan's\n",
                same ? "equal to" : "DIFFERENT FROM");
    if (!same)
      return false;
  }
#endif
  // The details a kernel engineer looks at.
  uint32_t largest = 0;
  for (int i = 0; i < static_cast<int>(report.total_descriptors()); ++i)
    largest = std::max(largest, rt::params::Attention::kv_len(descs[i]));
  std::printf("    lengths:");
  for (int len : c.kv_lens)
    std::printf(" %d", len);
  std::printf("\n    work units %llu, largest chunk %u tokens, %zu cores, "
              "plan+run %.2f ms\n",
              (unsigned long long)report.total_descriptors(), largest,
              report.cores.size(), elapsed_ms);
  std::printf("    KV tokens per core:");
  for (const rt::sim::CoreStats &core : report.cores)
    std::printf(" %llu", (unsigned long long)core.cost);
  std::printf("\n");
  return dump_and_compare(c.name, out_f) && ok;
}

int main() {
  std::mt19937 rng(5);
  const Case cases[] = {
      // Every tier, one query token, no GQA, head_dim 64, block 16.
      {"tiers q1 g1 d64 b16", 1, 4, 4, 64, 16, {1, 1500, 5000, 17000}},
      // Two query tokens, GQA 4, head_dim 128, block 128; exact multiples
      // of the 256-token chunk and a one-block request.
      {"q2 g4 d128 b128", 2, 8, 2, 128, 128, {256, 512, 2, 1025}},
      // Three query tokens, GQA 8, head_dim 64, block 16.
      {"q3 g8 d64 b16", 3, 16, 2, 64, 16, {3, 300, 4096, 4097}},
      // Many short requests.
      {"many short q1 g4 d64 b16", 1, 8, 2, 64, 16,
       {1, 7, 33, 64, 100, 255, 256, 257, 511, 512, 700, 1024}},
      // Too small a descriptor buffer: reported, nothing dispatched.
      {"overflow q1 g4 d64 b16", 1, 8, 2, 64, 16, {3000, 20}, true},
#ifdef WSP_BALANCED
      // Skewed: one long request spread over most cores, zero-length
      // requests, two query tokens, GQA 4.
      {"skew q2 g4 d64 b16", 2, 8, 2, 64, 16,
       {40000, 0, 5, 3000, 2, 0, 700, 12000}},
#endif
  };
  bool ok = true;
  for (const Case &c : cases) {
    ok &= run(c, rng);
#ifdef WSP_BALANCED
    // The same case planned as cuts (named apart: the device form compares
    // its outputs by name).
    const std::string name = std::string(c.name) + " (cuts)";
    Case as_cuts = c;
    as_cuts.name = name.c_str();
    ok &= run(as_cuts, rng, true);
#endif
  }
  return ok ? 0 : 1;
}
