// The self-check of examples/ir/benchmark_attention.mlir (run by `wspc
// --run` and the lit tests): flash_attention and flash_decoding against a
// naive reference written here. Query head h reads KV head h / group; its
// output is sum_p softmax_p(q . k_p / sqrt(head_dim)) v_p over the
// positions its token sees, computed in double from the same bf16 inputs:
//   flash_attention: token s of the one sequence sees positions p <= s
//     (causal) or all of them; k_p, v_p are the sequence's own keys and
//     values (from k/v or from qkv's heads after the query heads);
//   flash_decoding: request b's token sees positions p < kv_len of its
//     cache row b, and then its own key and value as position kv_len.
//
// Tolerance, per output element, as for the paged attention ops
// (attention.selfcheck.cpp): the probabilities and the output are rounded
// to bf16 (2^-8 relative each at most) and the f32 sums over n positions
// add at most n 2^-24 relative per sum, so |out - ref| <= max_p |v_p|
// (2^-7 + n 2^-22).
//
// Then INVALID_PARAMS with nothing written: a qkv whose leading dimension
// is not 1, an out of another length, a batch beyond the caches' rows, a
// kv_len beyond their length, k of another batch.
#include "selfcheck.hpp"

using namespace selfcheck;

namespace {

constexpr int64_t kBlocks = 24, kRows = 32, kKvTile = 128;

/// One call's inputs: `batch` rows of `tokens` query tokens (attention: one
/// row of many tokens; decoding: many rows of one), keys and values either
/// in their own buffers or packed with the queries, and for decoding the
/// caches.
struct Problem {
  int64_t heads, kvHeads, dim, batch, tokens;
  bool packed, causal = true;
  int64_t kvLen = 0, slots = 0, capacity = 0; // decoding: the caches
  std::vector<bf16> q, k, v, qkv, kCache, vCache, out;
  std::vector<bf16> wsH = std::vector<bf16>(size_t(kBlocks * 2 * kRows * kKvTile));
  std::vector<float> wsF = std::vector<float>(size_t(kBlocks * 3 * kRows * kKvTile));
  std::vector<float> wsMl = std::vector<float>(size_t(kBlocks * 2 * kRows));

  Problem(int64_t heads, int64_t kvHeads, int64_t dim, int64_t batch,
          int64_t tokens, bool packed, std::mt19937 &rng)
      : heads(heads), kvHeads(kvHeads), dim(dim), batch(batch),
        tokens(tokens), packed(packed) {
    int64_t rows = batch * tokens;
    if (packed) {
      fill(qkv, rows * (heads + 2 * kvHeads) * dim, rng, 3.f);
      // Keys and values at the scale of the unpacked ones.
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t h = heads; h < heads + 2 * kvHeads; ++h)
          for (int64_t c = 0; c < dim; ++c) {
            bf16 &x = qkv[size_t(((r * (heads + 2 * kvHeads)) + h) * dim + c)];
            x = toStorage(toFloat(x) / 3.f * (h < heads + kvHeads ? 1.f : 2.f));
          }
    } else {
      fill(q, rows * heads * dim, rng, 3.f);
      fill(k, rows * kvHeads * dim, rng, 1.f);
      fill(v, rows * kvHeads * dim, rng, 2.f);
    }
    out.assign(size_t(rows * heads * dim), sentinel());
  }
  /// Caches of `slots` rows of `capacity` positions, kv_len of them used.
  void cache(int64_t len, int64_t rows, int64_t positions, std::mt19937 &rng) {
    kvLen = len;
    slots = rows;
    capacity = positions;
    fill(kCache, slots * kvHeads * capacity * dim, rng, 1.f);
    fill(vCache, slots * kvHeads * capacity * dim, rng, 2.f);
  }
  static void fill(std::vector<bf16> &x, int64_t n, std::mt19937 &rng,
                   float scale) {
    std::uniform_real_distribution<float> uni(-1.f, 1.f);
    x.resize(size_t(n));
    for (bf16 &e : x)
      e = toStorage(scale * uni(rng));
  }

  /// Head h (of `of` heads, starting at `first` in qkv) at row r.
  double at(const std::vector<bf16> &own, int64_t of, int64_t first,
            int64_t r, int64_t h, int64_t c) const {
    if (packed)
      return toFloat(qkv[size_t((r * (heads + 2 * kvHeads) + first + h) * dim + c)]);
    return toFloat(own[size_t((r * of + h) * dim + c)]);
  }
  double query(int64_t b, int64_t s, int64_t h, int64_t c) const {
    return at(q, heads, 0, b * tokens + s, h, c);
  }
  /// Key (or value) column c of KV head h at position p of row b.
  double kv(bool key, int64_t b, int64_t p, int64_t h, int64_t c) const {
    if (!kCache.empty() && p < kvLen)
      return toFloat((key ? kCache : vCache)[size_t(
          ((b * kvHeads + h) * capacity + p) * dim + c)]);
    int64_t r = kCache.empty() ? p : b; // decoding: the new token's row
    return key ? at(k, kvHeads, heads, r, h, c)
               : at(v, kvHeads, heads + kvHeads, r, h, c);
  }
  int64_t seen(int64_t s) const {
    if (!kCache.empty())
      return kvLen + 1;
    return causal ? s + 1 : tokens;
  }

  MemRef<bf16, 4> view(std::vector<bf16> &x, int64_t h) {
    return {x.data(), {batch, tokens, h, dim}};
  }
  MemRef<bf16, 4> qkvView() { return view(qkv, heads + 2 * kvHeads); }
  MemRef<bf16, 4> cacheView(std::vector<bf16> &c) {
    return {c.data(), {slots, kvHeads, capacity, dim}};
  }
  MemRef<bf16, 4> wsh() { return {wsH.data(), {kBlocks, 2, kRows, kKvTile}}; }
  MemRef<float, 4> wsf(int64_t parts) {
    return {wsF.data(), {kBlocks, parts, kRows, kKvTile}};
  }
  MemRef<float, 3> wsml() { return {wsMl.data(), {kBlocks, 2, kRows}}; }
};

/// The largest error over its bound, over every output.
double compare(const Problem &pb) {
  double worst = 0, scale = 1.0 / std::sqrt(double(pb.dim));
  int64_t group = pb.heads / pb.kvHeads;
  for (int64_t b = 0; b < pb.batch; ++b)
    for (int64_t s = 0; s < pb.tokens; ++s)
      for (int64_t h = 0; h < pb.heads; ++h) {
        int64_t kvh = h / group, n = pb.seen(s);
        std::vector<double> w(static_cast<size_t>(n));
        double mx = -1e300, sum = 0;
        for (int64_t p = 0; p < n; ++p) {
          double dot = 0;
          for (int64_t c = 0; c < pb.dim; ++c)
            dot += pb.query(b, s, h, c) * pb.kv(true, b, p, kvh, c);
          w[size_t(p)] = dot * scale;
          mx = std::max(mx, w[size_t(p)]);
        }
        for (double &x : w) {
          x = std::exp(x - mx);
          sum += x;
        }
        for (int64_t c = 0; c < pb.dim; ++c) {
          double o = 0, maxv = 0;
          for (int64_t p = 0; p < n; ++p) {
            double vv = pb.kv(false, b, p, kvh, c);
            o += w[size_t(p)] * vv;
            maxv = std::max(maxv, std::fabs(vv));
          }
          o /= sum;
          double bound =
              maxv * (0x1p-7 + double(n) * 0x1p-22) + kSubnormalRounding;
          double got = toFloat(
              pb.out[size_t(((b * pb.tokens + s) * pb.heads + h) * pb.dim + c)]);
          worst = std::max(worst, std::isfinite(got)
                                      ? std::fabs(got - o) / bound
                                      : 1e30);
        }
      }
  return worst;
}

int32_t runAttentionQkv(Problem &pb) {
  return wsp_gen::attention_qkv(pb.qkvView(), pb.view(pb.out, pb.heads),
                                pb.wsh(), pb.wsf(2));
}
template <typename Fn> int32_t runAttention(Fn fn, Problem &pb) {
  return fn(pb.view(pb.q, pb.heads), pb.view(pb.k, pb.kvHeads),
            pb.view(pb.v, pb.kvHeads), pb.view(pb.out, pb.heads), pb.wsh(),
            pb.wsf(2));
}
template <typename Fn> int32_t runDecoding(Fn fn, Problem &pb) {
  return fn(pb.view(pb.q, pb.heads), pb.view(pb.k, pb.kvHeads),
            pb.view(pb.v, pb.kvHeads), pb.cacheView(pb.kCache),
            pb.cacheView(pb.vCache), pb.view(pb.out, pb.heads), pb.wsh(),
            pb.wsf(3), pb.wsml());
}
int32_t runDecodingQkv(Problem &pb) {
  return wsp_gen::decoding_qkv(pb.qkvView(), pb.cacheView(pb.kCache),
                               pb.cacheView(pb.vCache),
                               pb.view(pb.out, pb.heads), pb.wsh(), pb.wsf(3),
                               pb.wsml());
}

template <typename Run> bool check(const char *what, Problem &pb, Run run) {
  int32_t status = run(pb);
  double worst = compare(pb);
  bool ok = status == 0 && worst <= 1.0;
  std::printf("%s: %s (status %d, max err / bound %.3f)\n", what,
              ok ? "ok" : "MISMATCH", status, worst);
  return ok;
}

} // namespace

int main() {
  std::mt19937 rng(2032);
  bool ok = true;
  {
    // 200 tokens: units of 8 tokens (GQA 4), rows of 1 to 200 positions.
    Problem pb(8, 2, 128, 1, 200, true, rng);
    ok = check("flash_attention, qkv, GQA 4, head_dim 128, 200 tokens", pb,
               runAttentionQkv) && ok;
  }
  {
    Problem pb(8, 1, 64, 1, 131, false, rng);
    ok = check("flash_attention, GQA 8, head_dim 64, 131 tokens", pb,
               [](Problem &p) { return runAttention(wsp_gen::attention_gqa8, p); }) &&
         ok;
  }
  {
    Problem pb(4, 4, 64, 1, 77, false, rng);
    pb.causal = false;
    ok = check("flash_attention, not causal, MHA, head_dim 64, 77 tokens", pb,
               [](Problem &p) { return runAttention(wsp_gen::attention_full, p); }) &&
         ok;
  }
  {
    // 2501 positions: several KV chunks per request.
    Problem pb(8, 2, 128, 3, 1, false, rng);
    pb.cache(2500, 4, 2600, rng);
    ok = check("flash_decoding, GQA 4, head_dim 128, kv_len 2500, 3 requests",
               pb, [](Problem &p) { return runDecoding(wsp_gen::decoding_long, p); }) &&
         ok;
  }
  {
    Problem pb(8, 1, 64, 5, 1, true, rng);
    pb.cache(37, 5, 40, rng);
    ok = check("flash_decoding, qkv, GQA 8, head_dim 64, kv_len 37, 5 requests",
               pb, runDecodingQkv) && ok;
  }
  {
    Problem pb(8, 2, 128, 2, 1, false, rng);
    pb.cache(0, 2, 16, rng);
    ok = check("flash_decoding, kv_len 0, 2 requests", pb, [](Problem &p) {
      return runDecoding(wsp_gen::decoding_first, p);
    }) && ok;
  }

  // Run-time errors.
  {
    Problem pb(8, 2, 128, 2, 20, true, rng);
    int32_t status = runAttentionQkv(pb);
    ok = reportInvalid("flash_attention: a qkv of 2 sequences", status,
                       allSentinel(pb.out), "output") && ok;
  }
  {
    Problem pb(8, 1, 64, 1, 30, false, rng);
    int32_t status = wsp_gen::attention_gqa8(
        pb.view(pb.q, pb.heads), pb.view(pb.k, pb.kvHeads),
        pb.view(pb.v, pb.kvHeads), MemRef<bf16, 4>{pb.out.data(), {1, 29, 8, 64}},
        pb.wsh(), pb.wsf(2));
    ok = reportInvalid("flash_attention: out of another length", status,
                       allSentinel(pb.out), "output") && ok;
  }
  for (int which = 0; which < 3; ++which) {
    Problem pb(8, 2, 128, 3, 1, false, rng);
    // Too few cache rows, too short rows, k of another batch.
    pb.cache(2500, which == 0 ? 2 : 3, which == 1 ? 2499 : 2500, rng);
    MemRef<bf16, 4> k = pb.view(pb.k, pb.kvHeads);
    if (which == 2)
      k.sizes[0] = 2;
    int32_t status = wsp_gen::decoding_long(
        pb.view(pb.q, pb.heads), k, pb.view(pb.v, pb.kvHeads),
        pb.cacheView(pb.kCache), pb.cacheView(pb.vCache),
        pb.view(pb.out, pb.heads), pb.wsh(), pb.wsf(3), pb.wsml());
    const char *what[] = {"flash_decoding: more requests than cache rows",
                          "flash_decoding: kv_len beyond the cache rows",
                          "flash_decoding: k of another batch"};
    ok = reportInvalid(what[which], status, allSentinel(pb.out), "output") && ok;
  }
  return ok ? 0 : 1;
}
