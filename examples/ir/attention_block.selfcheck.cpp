// The self-check of examples/ir/attention_block.mlir (run by `wspc --run`
// and the lit tests): the whole attention block, for a ragged chunked
// prefill and for a decode step, against a naive reference of the whole
// block written here in double from the rules of
// docs/rationale/Operators.md (each op's reference as in its own
// self-check), fed only the block's inputs (the cache holds the tokens
// before the step):
//   s = x + residual, after_res = bf16(s), a = after_res / rms(s) * w * smooth,
//   x8 = rint(a * 127 / max|a|), per_token_scale = max|a| / 127,
//   qkv = bf16(x8 W^T * per_token_scale * qkv_scale),
//   heads 0..4 of qkv: bf16(h / rms(h) * qk_norm_weight[h]),
//   heads 0..4 rotated (NeoX, position_ids[b] + s), bf16,
//   heads 4 and 5 of each token to its cache page and row,
//   attn = bf16(softmax(q k^T / 8) v) over the positions <= kv_lens[b] + s,
//   attn8 = rint(attn * o_smooth * 127 / max), attn_scale = max / 127,
//   y = bf16(attn8 O^T * attn_scale * o_scale), all_reduce: y on one rank.
// Tolerances: after_res is exact. The rest goes through int8 quantization
// twice: an int8 value at a rounding boundary may come out one off in the
// kernel (the kernel's sums run in another order), which moves a
// projection output by at most 1/127 of one of its 256 terms. Those flips
// are the only differences besides the kernels' bf16 roundings of P and of
// their outputs (2^-8 relative each at most), so every cached head row, every
// attention output row and every output row is within 2% of the row's
// largest reference value, and the per-token scales within 2% of theirs;
// the counts of values equal to the reference show how rare the flips
// are. Then INVALID_PARAMS: a page id outside the pool makes the fifth op
// return 3 with the caches and everything after untouched (the ops before
// it ran: its status is the function's).
#include "attention_block.hpp"

#include <tuple>

using namespace selfcheck;

namespace {

using namespace attention_block;

int32_t run(Block &blk, Outputs &o) {
  // Rope's positions are the cached counts: the step's tokens follow them.
  if (blk.decode)
    return std::apply(wsp_gen::decode_block,
                      decodeArgs(blk, o, blk.past, blk.past));
  int64_t t = blk.tokens;
  MemRef<bf16, 2> x{blk.x.data(), {t, kHidden}}, r{blk.r.data(), {t, kHidden}};
  MemRef<int8_t, 2> w{blk.w.data(), {kQkv, kHidden}};
  MemRef<float, 2> qkNormW{blk.qkNormW.data(), {5, kDim}};
  MemRef<bf16, 2> sin{blk.sin.data(), {kTable, kDim}},
      cos{blk.cos.data(), {kTable, kDim}};
  MemRef<int32_t, 2> table{blk.table.data(), {blk.slots, kPagesPerSeq}};
  MemRef<bf16, 4> kc{blk.kc.data(), {blk.pool, 1, kBlock, kDim}},
      vc{blk.vc.data(), {blk.pool, 1, kBlock, kDim}};
  MemRef<int8_t, 2> ow{blk.ow.data(), {kHidden, kAttn}};
  MemRef<int8_t, 2> x8{o.x8.data(), {t, kHidden}}, attn8{o.attn8.data(), {t, kAttn}};
  MemRef<bf16, 2> after{o.after.data(), {t, kHidden}}, qkv{o.qkv.data(), {t, kQkv}},
      y{o.y.data(), {t, kHidden}};
  MemRef<int32_t, 3> qkvWs{o.qkvWs.data(), {24, 128, 128}},
      oWs{o.oWs.data(), {24, 128, 128}};
  MemRef<bf16, 4> wsH{o.wsH.data(), {24, 2, 32, 128}};
  return wsp_gen::prefill_block(
      x, r, vec(blk.normW), vec(blk.smooth), w, vec(blk.qkvScale), qkNormW,
      sin, cos, vec(blk.past), vec(blk.lens), table, vec(blk.ids),
      vec(blk.past), kc, vc, vec(blk.oSmooth), ow, vec(blk.oScale), x8,
      vec(o.pts), after, qkv,
      MemRef<bf16, 3>{o.attn.data(), {t, kQHeads, kDim}}, attn8,
      vec(o.attnScale), y, qkvWs, wsH,
      MemRef<float, 4>{o.wsF.data(), {24, 2, 32, 128}}, oWs);
}

/// The largest |got - ref| over 2% of each row's largest |ref|, and the
/// count of values equal to the reference.
template <typename Got>
double rowsErr(int64_t rows, int64_t cols, const std::vector<double> &ref,
               Got got, int64_t &equal) {
  double worst = 0;
  for (int64_t t = 0; t < rows; ++t) {
    double rowMax = 0;
    for (int64_t c = 0; c < cols; ++c)
      rowMax = std::max(rowMax, std::fabs(ref[size_t(t * cols + c)]));
    for (int64_t c = 0; c < cols; ++c) {
      double g = got(t, c), e = ref[size_t(t * cols + c)];
      worst = std::max(worst, std::isfinite(g)
                                  ? std::fabs(g - e) / (0.02 * rowMax + 1e-30)
                                  : 1e30);
      equal += g == e;
    }
  }
  return worst;
}

bool check(const char *what, Block blk) {
  Block before = blk; // the cache before the step
  Outputs o(blk.tokens);
  int32_t status = run(blk, o);
  std::vector<double> heads, pts, attn, y;
  std::vector<bf16> after;
  before.reference(heads, pts, after, attn, y);
  int64_t afterWrong = 0;
  for (size_t i = 0; i < after.size(); ++i)
    afterWrong += after[i].bits != o.after[i].bits;
  double worst = 0;
  for (int64_t t = 0; t < blk.tokens; ++t)
    worst = std::max(worst, std::fabs(o.pts[size_t(t)] - pts[size_t(t)]) /
                                (0.02 * pts[size_t(t)]));
  // The cache: the step's keys and values at their positions, everything
  // else as it was.
  int64_t cacheEqual = 0, cacheStray = 0;
  std::vector<bool> stepped(blk.kc.size(), false);
  std::vector<double> newKv, gotKv;
  for (size_t b = 0; b < blk.lens.size(); ++b)
    for (int64_t s = 0; s < blk.lens[b]; ++s)
      for (auto [cache, head] : {std::pair{&blk.kc, 4}, std::pair{&blk.vc, 5}})
        for (int64_t c = 0; c < kDim; ++c) {
          size_t at = blk.at(b, blk.past[b] + s, c);
          stepped[at] = true;
          newKv.push_back(heads[size_t((blk.accum[b] + s) * kQkv + head * kDim + c)]);
          gotKv.push_back(toFloat((*cache)[at]));
        }
  worst = std::max(worst, rowsErr(int64_t(newKv.size()) / kDim, kDim, newKv,
                                  [&](int64_t t, int64_t c) {
                                    return gotKv[size_t(t * kDim + c)];
                                  },
                                  cacheEqual));
  for (size_t i = 0; i < blk.kc.size(); ++i)
    if (!stepped[i])
      cacheStray += (blk.kc[i].bits != before.kc[i].bits) +
                    (blk.vc[i].bits != before.vc[i].bits);
  int64_t attnEqual = 0, yEqual = 0;
  worst = std::max(worst, rowsErr(blk.tokens, kAttn, attn,
                                  [&](int64_t t, int64_t c) {
                                    return toFloat(o.attn[size_t(t * kAttn + c)]);
                                  },
                                  attnEqual));
  worst = std::max(worst, rowsErr(blk.tokens, kHidden, y,
                                  [&](int64_t t, int64_t c) {
                                    return toFloat(o.y[size_t(t * kHidden + c)]);
                                  },
                                  yEqual));
  bool ok = status == 0 && afterWrong == 0 && cacheStray == 0 && worst <= 1;
  std::printf("%s, %lld tokens in %zu sequences: %s (status %d, max err / "
              "bound %.3f, %lld after_res values differ, %lld cache values "
              "outside the step changed; equal to the reference: %lld of "
              "%zu cached, %lld of %lld attention, %lld of %lld output "
              "values)\n",
              what, (long long)blk.tokens, blk.lens.size(),
              ok ? "ok" : "MISMATCH", status, worst, (long long)afterWrong,
              (long long)cacheStray, (long long)cacheEqual, newKv.size(),
              (long long)attnEqual, (long long)(blk.tokens * kAttn),
              (long long)yEqual, (long long)(blk.tokens * kHidden));
  return ok;
}

bool checkInvalid(const char *what, Block blk) {
  Block before = blk;
  // The last sequence's first page of the step.
  size_t b = blk.lens.size() - 1;
  blk.table[size_t(blk.ids[b] * kPagesPerSeq + blk.past[b] / kBlock)] =
      int32_t(blk.pool);
  Outputs o(blk.tokens);
  int32_t status = run(blk, o);
  auto same = [](const std::vector<bf16> &a, const std::vector<bf16> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](bf16 x, bf16 y) { return x.bits == y.bits; });
  };
  bool untouched = same(blk.kc, before.kc) && same(blk.vc, before.vc) &&
                   allSentinel(o.attn) && allSentinel(o.y);
  return reportInvalid(what, status, untouched, "caches, attention and output");
}

/// The decode step replayed from its table (@decode_table) against
/// @decode_block called every token: `steps` tokens, one by one and then
/// chained, give bit-identical caches, outputs, positions and KV lengths.
/// Then the table's bounds: a replay past its tokens or past a request's
/// cache, and one on other buffers, return an error with nothing written.
bool checkReplay(const char *what, const Block &start, int steps) {
  Block called = start, replayed = start, chained = start;
  Outputs oc(start.tokens), orp(start.tokens), och(start.tokens);
  std::vector<int32_t> posC = start.past, kvC = start.past;
  std::vector<int32_t> posR = start.past, kvR = start.past;
  std::vector<int32_t> posH = start.past, kvH = start.past;
  const int32_t capacity = int32_t(kPagesPerSeq * kBlock);
  auto argsR = decodeArgs(replayed, orp, posR, kvR);
  auto argsH = decodeArgs(chained, och, posH, kvH);
  wsp_gen::decode_table table, chain;
  auto build = [&](wsp_gen::decode_table &t, auto &args) {
    return std::apply(
        [&](auto... a) {
          return wsp_gen::decode_table_build(t, steps, capacity, a...);
        },
        args);
  };
  auto replay = [&](wsp_gen::decode_table &t, auto &args, int first, int n) {
    return std::apply(
        [&](auto... a) {
          return wsp_gen::decode_table_replay(t, first, n, a...);
        },
        args);
  };
  bool ok = build(table, argsR) == 0 && build(chain, argsH) == 0;
  const size_t commands = table.steps.size();
  auto same = [](const std::vector<bf16> &a, const std::vector<bf16> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](bf16 x, bf16 y) { return x.bits == y.bits; });
  };
  int identical = 0;
  for (int t = 0; t < steps; ++t) {
    ok = std::apply(wsp_gen::decode_block, decodeArgs(called, oc, posC, kvC)) ==
             0 &&
         ok;
    for (size_t b = 0; b < posC.size(); ++b) {
      ++posC[b];
      ++kvC[b];
    }
    ok = replay(table, argsR, t, 1) == 0 && ok;
    identical += same(oc.y, orp.y) && same(called.kc, replayed.kc) &&
                 same(called.vc, replayed.vc) && posC == posR && kvC == kvR;
  }
  ok = replay(chain, argsH, 0, steps) == 0 && ok;
  const bool chainedSame = same(oc.y, och.y) && same(called.kc, chained.kc) &&
                           same(called.vc, chained.vc) && posC == posH &&
                           kvC == kvH;
  // Bounds: nothing written, the table still valid.
  const Block before = replayed;
  const std::vector<int32_t> kvBefore = kvR;
  const int32_t pastTokens = replay(table, argsR, steps, 1);
  wsp_gen::decode_table tight;
  // A cache of the longest request's positions plus steps - 1.
  int32_t longest = *std::max_element(kvR.begin(), kvR.end());
  auto tightBuild = std::apply(
      [&](auto... a) {
        return wsp_gen::decode_table_build(tight, steps, longest + steps - 1,
                                           a...);
      },
      argsR);
  const int32_t pastCache = replay(tight, argsR, 0, steps);
  Outputs other(start.tokens);
  auto argsO = decodeArgs(replayed, other, posR, kvR);
  const int32_t otherBuffers = replay(table, argsO, 0, 1);
  const bool untouched = same(before.kc, replayed.kc) &&
                         same(before.vc, replayed.vc) && kvR == kvBefore;
  ok = ok && identical == steps && chainedSame && pastTokens == 1 &&
       tightBuild == 0 && pastCache == 1 && otherBuffers == 3 && untouched;
  std::printf("%s: %zu launches recorded once; %d of %d tokens replayed one "
              "by one and all %d chained bit-identical to calling "
              "@decode_block every token: %s; past the table's tokens %d, "
              "past a request's cache %d, on other buffers %d, nothing "
              "written: %s\n",
              what, commands, identical, steps, steps, ok ? "ok" : "MISMATCH",
              pastTokens, pastCache, otherBuffers, untouched ? "yes" : "no");
  return ok;
}

} // namespace

int main() {
  std::mt19937 rng(2032);
  bool ok = true;
  // Chunked prefill: 3, 1 and 9 new tokens after 17, 0 and 30 cached.
  Block prefill(false, {3, 1, 9}, {1, 0, 2}, {17, 0, 30}, rng);
  ok = check("prefill block", prefill) && ok;
  ok = checkInvalid("prefill block, page id outside the pool", prefill) && ok;
  // Decode: one token each after 17, 0, 300 and 45 cached.
  Block decode(true, {1, 1, 1, 1}, {3, 0, 2, 1}, {17, 0, 300, 45}, rng);
  ok = check("decode block", decode) && ok;
  ok = checkInvalid("decode block, page id outside the pool", decode) && ok;
  ok = checkReplay("decode step table", decode, 8) && ok;
  return ok ? 0 : 1;
}
