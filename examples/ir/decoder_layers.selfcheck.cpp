// The self-check of examples/ir/decoder_layers.mlir (run by `wspc --run`
// and the lit tests): a decode step of the MoE and of the dense decoder
// layer, stage by stage, each against a naive reference in double fed the
// stage's inputs:
// * the attention block against attention_block.hpp's reference of the
//   whole block from the layer's inputs (after_res exact; the output within
//   2% of each row's largest value, as attention_block.selfcheck.cpp
//   justifies: two int8 quantizations);
// * the post-attention norm from the block's output: the residual stream
//   exact (the float sum of two bf16 values, rounded once) and the normed
//   value within half a bf16 ulp (2^-8 relative) plus the sums' float error;
// * MoE: the router from the normed value (logits within 2^-8 relative plus
//   the f32 sum's error, the same top 2 of the kernel's logits, ties to the
//   lower id, weights within 1e-5 relative), then the experts from the
//   normed value and the router's choice, shared expert included (this rank
//   runs it for all 4 tokens): within 1% of each token's largest value, as
//   moe_chain.selfcheck.cpp justifies;
// * dense: the MLP from the normed value (moe_chain.hpp's expert reference
//   with the MLP's weights: it is the same chain of ops), within 1% too.
// Each stage's reference starts from the kernel's output of the stage
// before it: top-k is a discontinuous choice, so a reference fed its own
// attention output could route a token to another expert where two
// probabilities are nearly equal. Then INVALID_PARAMS: a page id outside
// the pool stops a layer at the KV store, with the caches and everything
// after them untouched.
#include "attention_block.hpp"
#include "moe_chain.hpp"

using namespace selfcheck;

namespace {

using namespace attention_block;
using moe_chain::kE;
using moe_chain::kI;
using moe_chain::kTopK;
using Weights = moe_chain::MoeWeights<kHidden>;

/// The shared expert runs tokens [0, 4): the decode step's four.
constexpr int64_t kShared = 4;

/// The attention block's buffers (Outputs), then the norm's and the
/// layers'.
struct LayerBuffers : Outputs {
  // The norm's and the MoE's.
  std::vector<float> postNorm;
  std::vector<bf16> h, residual, logits, gateUp, down, out;
  std::vector<int32_t> ids, counts = std::vector<int32_t>(kE, -5), offsets;
  std::vector<float> weights, rowScale, actScale;
  std::vector<int8_t> rows, act;
  std::vector<float> gatingWs = std::vector<float>(24 * 128 * 16);
  std::vector<int32_t> matmulWs = std::vector<int32_t>(4 * 24 * 128 * 128),
                       inverse = std::vector<int32_t>(8192 * kTopK);
  int64_t allocated;
  // The dense MLP's: its input quantized, its one "expert" of every token.
  std::vector<int8_t> h8;
  std::vector<float> hScale;
  std::vector<int32_t> allTokens;

  LayerBuffers(int64_t tokens, std::mt19937 &rng)
      : Outputs(tokens), allocated(tokens * kTopK) {
    postNorm = moe_chain::randomF32(size_t(kHidden), 0.5f, 1.5f, rng);
    h.assign(size_t(tokens * kHidden), sentinel());
    residual.assign(size_t(tokens * kHidden), sentinel());
    logits.assign(size_t(tokens * kE), sentinel());
    ids.assign(size_t(tokens * kTopK), -7);
    weights.assign(size_t(tokens * kTopK), -1.f);
    const int64_t rowsAll = kShared + allocated;
    rows.assign(size_t(rowsAll * kHidden), 0);
    rowScale.assign(size_t(rowsAll), 0.f);
    offsets.assign(size_t(allocated), -9);
    gateUp.assign(size_t(rowsAll * 2 * kI), sentinel());
    act.assign(size_t(rowsAll * kI), 0);
    actScale.assign(size_t(rowsAll), 0.f);
    down.assign(size_t(rowsAll * kHidden), sentinel());
    out.assign(size_t(tokens * kHidden), toStorage(0.f));
    h8.resize(size_t(tokens * kHidden));
    hScale.resize(size_t(tokens));
    allTokens.assign(1, int32_t(tokens));
  }
};

/// Calls a layer: the attention block's arguments (both layers take them
/// first), then `rest`.
template <typename Layer, typename... Rest>
int32_t callLayer(Layer layer, Block &blk, LayerBuffers &o, Rest... rest) {
  const int64_t t = blk.tokens;
  return layer(
      MemRef<bf16, 2>{blk.x.data(), {t, kHidden}},
      MemRef<bf16, 2>{blk.r.data(), {t, kHidden}}, vec(blk.normW),
      vec(blk.smooth), MemRef<int8_t, 2>{blk.w.data(), {kQkv, kHidden}},
      vec(blk.qkvScale), MemRef<float, 2>{blk.qkNormW.data(), {5, kDim}},
      MemRef<bf16, 2>{blk.sin.data(), {kTable, kDim}},
      MemRef<bf16, 2>{blk.cos.data(), {kTable, kDim}}, vec(blk.past),
      vec(blk.lens), vec(blk.accum),
      MemRef<int32_t, 2>{blk.table.data(), {blk.slots, kPagesPerSeq}},
      vec(blk.ids), vec(blk.past),
      MemRef<bf16, 4>{blk.kc.data(), {blk.pool, 1, kBlock, kDim}},
      MemRef<bf16, 4>{blk.vc.data(), {blk.pool, 1, kBlock, kDim}},
      vec(blk.oSmooth), MemRef<int8_t, 2>{blk.ow.data(), {kHidden, kAttn}},
      vec(blk.oScale), MemRef<int8_t, 2>{o.x8.data(), {t, kHidden}},
      vec(o.pts), MemRef<bf16, 2>{o.after.data(), {t, kHidden}},
      MemRef<bf16, 2>{o.qkv.data(), {t, kQkv}},
      MemRef<bf16, 4>{o.attn.data(), {t, 1, kQHeads, kDim}},
      MemRef<int8_t, 2>{o.attn8.data(), {t, kAttn}}, vec(o.attnScale),
      MemRef<bf16, 2>{o.y.data(), {t, kHidden}},
      // The post-attention norm.
      vec(o.postNorm), MemRef<bf16, 2>{o.h.data(), {t, kHidden}},
      MemRef<bf16, 2>{o.residual.data(), {t, kHidden}}, rest...);
}

template <typename T> MemRef<T, 1> in(const std::vector<T> &v) {
  return MemRef<T, 1>{const_cast<T *>(v.data()), {int64_t(v.size())}};
}
template <typename T>
MemRef<T, 2> in(const std::vector<T> &v, int64_t rows, int64_t cols) {
  return MemRef<T, 2>{const_cast<T *>(v.data()), {rows, cols}};
}

/// The layer's workspaces after the attention block's.
MemRef<int32_t, 3> matmulWs(LayerBuffers &o, int i) {
  return MemRef<int32_t, 3>{o.matmulWs.data() + i * 24 * 128 * 128,
                            {24, 128, 128}};
}

int32_t runMoe(Block &blk, const Weights &wt, LayerBuffers &o) {
  const int64_t t = blk.tokens, rowsAll = kShared + o.allocated;
  std::vector<float> smoothUp(wt.sharedSmoothUp), smoothDown(wt.sharedSmoothDown);
  smoothUp.insert(smoothUp.end(), wt.smoothUp.begin(), wt.smoothUp.end());
  smoothDown.insert(smoothDown.end(), wt.smoothDown.begin(), wt.smoothDown.end());
  return callLayer(
      wsp_gen::moe_decode_layer, blk, o, in(wt.gate, kHidden, kE),
      MemRef<bf16, 2>{o.logits.data(), {t, kE}},
      MemRef<int32_t, 2>{o.ids.data(), {t, kTopK}},
      MemRef<float, 2>{o.weights.data(), {t, kTopK}},
      in(smoothUp, 1 + kE, kHidden),
      MemRef<int8_t, 3>{const_cast<int8_t *>(wt.up.data()), {kE, kHidden, 2 * kI}},
      in(wt.upScale, kE, 2 * kI), in(wt.sharedUp, kHidden, 2 * kI),
      in(wt.sharedUpScale), in(smoothDown, 1 + kE, kI),
      MemRef<int8_t, 3>{const_cast<int8_t *>(wt.down.data()), {kE, kI, kHidden}},
      in(wt.downScale, kE, kHidden), in(wt.sharedDown, kI, kHidden),
      in(wt.sharedDownScale),
      MemRef<int8_t, 2>{o.rows.data(), {rowsAll, kHidden}},
      MemRef<float, 1>{o.rowScale.data(), {rowsAll}},
      MemRef<int32_t, 1>{o.counts.data(), {kE}},
      MemRef<int32_t, 1>{o.offsets.data(), {o.allocated}},
      MemRef<bf16, 2>{o.gateUp.data(), {rowsAll, 2 * kI}},
      MemRef<int8_t, 2>{o.act.data(), {rowsAll, kI}},
      MemRef<float, 1>{o.actScale.data(), {rowsAll}},
      MemRef<bf16, 2>{o.down.data(), {rowsAll, kHidden}},
      MemRef<bf16, 2>{o.out.data(), {t, kHidden}},
      // Workspaces: the block's, the router's, the experts', the gather's.
      MemRef<int32_t, 3>{o.qkvWs.data(), {24, 128, 128}},
      MemRef<bf16, 4>{o.wsH.data(), {24, 2, 32, 128}},
      MemRef<float, 4>{o.wsF.data(), {24, 3, 32, 128}},
      MemRef<float, 3>{o.wsMl.data(), {24, 2, 32}},
      MemRef<int32_t, 3>{o.oWs.data(), {24, 128, 128}},
      MemRef<float, 3>{o.gatingWs.data(), {24, 128, 16}}, matmulWs(o, 0),
      matmulWs(o, 1), matmulWs(o, 2), matmulWs(o, 3),
      MemRef<int32_t, 1>{o.inverse.data(), {8192 * kTopK}});
}

/// The dense layer's MLP takes the shared expert's weights.
int32_t runDense(Block &blk, const Weights &wt, LayerBuffers &o) {
  const int64_t t = blk.tokens;
  return callLayer(
      wsp_gen::dense_decode_layer, blk, o, in(wt.sharedSmoothUp),
      MemRef<int8_t, 2>{o.h8.data(), {t, kHidden}}, vec(o.hScale),
      in(wt.sharedUp, kHidden, 2 * kI), in(wt.sharedUpScale),
      MemRef<bf16, 2>{o.gateUp.data(), {t, 2 * kI}},
      in(wt.sharedSmoothDown, 1, kI), vec(o.allTokens),
      MemRef<int8_t, 2>{o.act.data(), {t, kI}},
      MemRef<float, 1>{o.actScale.data(), {t}},
      in(wt.sharedDown, kI, kHidden), in(wt.sharedDownScale),
      MemRef<bf16, 2>{o.out.data(), {t, kHidden}},
      MemRef<int32_t, 3>{o.qkvWs.data(), {24, 128, 128}},
      MemRef<bf16, 4>{o.wsH.data(), {24, 2, 32, 128}},
      MemRef<float, 4>{o.wsF.data(), {24, 3, 32, 128}},
      MemRef<float, 3>{o.wsMl.data(), {24, 2, 32}},
      MemRef<int32_t, 3>{o.oWs.data(), {24, 128, 128}}, matmulWs(o, 0),
      matmulWs(o, 1));
}

/// The largest |got - ref| over `fraction` of each row's largest |ref|.
template <typename Got>
double rowsErr(int64_t rows, int64_t cols, const std::vector<double> &ref,
               Got got, double fraction) {
  double worst = 0;
  for (int64_t t = 0; t < rows; ++t) {
    double rowMax = 0;
    for (int64_t c = 0; c < cols; ++c)
      rowMax = std::max(rowMax, std::fabs(ref[size_t(t * cols + c)]));
    for (int64_t c = 0; c < cols; ++c) {
      double g = got(t, c), e = ref[size_t(t * cols + c)];
      worst = std::max(worst, std::isfinite(g) ? std::fabs(g - e) /
                                                     (fraction * rowMax + 1e-30)
                                               : 1e30);
    }
  }
  return worst;
}

/// The router from the normed value, then the experts from the normed
/// value and the router's choice.
bool checkMoe(const LayerBuffers &o, const Weights &wt, int64_t tokens) {
  bool ok = true;
  // The router, from the normed value.
  double logitErr = 0, weightErr = 0;
  bool sameIds = true;
  for (int64_t t = 0; t < tokens; ++t) {
    std::vector<double> got(kE);
    for (int64_t e = 0; e < kE; ++e) {
      double ref = 0, mag = 0;
      for (int64_t c = 0; c < kHidden; ++c) {
        double prod = double(toFloat(o.h[size_t(t * kHidden + c)])) *
                      toFloat(wt.gate[size_t(c * kE + e)]);
        ref += prod;
        mag += std::fabs(prod);
      }
      got[size_t(e)] = toFloat(o.logits[size_t(t * kE + e)]);
      logitErr = std::max(logitErr,
                          std::fabs(got[size_t(e)] - ref) /
                              (std::ldexp(std::fabs(ref), -8) +
                               kHidden * 0x1p-24 * mag + kSubnormalRounding));
    }
    std::vector<int> refIds;
    std::vector<double> refW;
    Weights::topk(got, refIds, refW);
    for (int64_t k = 0; k < kTopK; ++k) {
      sameIds = sameIds && o.ids[size_t(t * kTopK + k)] == refIds[size_t(k)];
      weightErr = std::max(weightErr,
                           std::fabs(o.weights[size_t(t * kTopK + k)] -
                                     refW[size_t(k)]) /
                               (1e-5 * refW[size_t(k)]));
    }
  }
  ok = ok && logitErr <= 1 && sameIds && weightErr <= 1;
  std::printf("router: %s (logits max err / bound %.3f, experts %s, weights "
              "max err / bound %.3f)\n",
              logitErr <= 1 && sameIds && weightErr <= 1 ? "ok" : "MISMATCH",
              logitErr, sameIds ? "equal" : "DIFFERENT", weightErr);

  // The experts, from the normed value and the router's choice.
  std::vector<double> moe(size_t(tokens * kHidden), 0.0);
  for (int64_t t = 0; t < tokens; ++t) {
    std::vector<double> x(kHidden);
    for (int64_t c = 0; c < kHidden; ++c)
      x[size_t(c)] = toFloat(o.h[size_t(t * kHidden + c)]);
    std::vector<double> acc =
        t < kShared ? wt.sharedExpertOf(x.data()) : std::vector<double>(kHidden);
    for (int64_t k = 0; k < kTopK; ++k) {
      std::vector<double> e = wt.expertOf(x.data(), o.ids[size_t(t * kTopK + k)]);
      for (int64_t c = 0; c < kHidden; ++c)
        acc[size_t(c)] += o.weights[size_t(t * kTopK + k)] * e[size_t(c)];
    }
    std::copy(acc.begin(), acc.end(), moe.begin() + t * kHidden);
  }
  double moeErr = rowsErr(tokens, kHidden, moe, [&](int64_t t, int64_t c) {
    return double(toFloat(o.out[size_t(t * kHidden + c)]));
  }, 0.01);
  ok = ok && moeErr <= 1;
  std::printf("experts with the shared expert: %s (max err / bound %.3f)\n",
              moeErr <= 1 ? "ok" : "MISMATCH", moeErr);
  return ok;
}

bool check(Block blk, bool dense, std::mt19937 &rng) {
  Block before = blk; // the cache before the step
  Weights wt(rng);
  LayerBuffers o(blk.tokens, rng);
  const int64_t tokens = blk.tokens;
  int32_t status = dense ? runDense(blk, wt, o) : runMoe(blk, wt, o);
  bool ok = status == 0;

  // The attention block, from the layer's inputs.
  std::vector<double> heads, pts, attn, y;
  std::vector<bf16> after;
  before.reference(heads, pts, after, attn, y);
  int64_t afterWrong = 0;
  for (size_t i = 0; i < after.size(); ++i)
    afterWrong += after[i].bits != o.after[i].bits;
  double attnErr = rowsErr(tokens, kHidden, y, [&](int64_t t, int64_t c) {
    return double(toFloat(o.y[size_t(t * kHidden + c)]));
  }, 0.02);
  ok = ok && afterWrong == 0 && attnErr <= 1;
  std::printf("attention block: %s (max err / bound %.3f, %lld after_res "
              "values differ)\n",
              afterWrong == 0 && attnErr <= 1 ? "ok" : "MISMATCH", attnErr,
              (long long)afterWrong);

  // The post-attention norm, from the block's output.
  int64_t residualWrong = 0;
  double normErr = 0;
  std::vector<double> hRef(size_t(tokens * kHidden));
  for (int64_t t = 0; t < tokens; ++t) {
    double squares = 0;
    std::vector<double> s(kHidden);
    for (int64_t c = 0; c < kHidden; ++c) {
      size_t i = size_t(t * kHidden + c);
      s[size_t(c)] = double(toFloat(o.y[i])) + toFloat(o.after[i]);
      squares += s[size_t(c)] * s[size_t(c)];
      residualWrong += toStorage(float(s[size_t(c)])).bits != o.residual[i].bits;
    }
    double rstd = 1.0 / std::sqrt(squares / kHidden + 1e-6);
    for (int64_t c = 0; c < kHidden; ++c) {
      size_t i = size_t(t * kHidden + c);
      double ref = toFloat(o.residual[i]) * rstd * o.postNorm[size_t(c)];
      normErr = std::max(normErr,
                         std::fabs(toFloat(o.h[i]) - ref) /
                             (std::ldexp(std::fabs(ref), -8) * (1 + 1e-4) +
                              kSubnormalRounding));
    }
  }
  ok = ok && residualWrong == 0 && normErr <= 1;
  std::printf("post-attention norm: %s (max err / bound %.3f, %lld residual "
              "values differ)\n",
              residualWrong == 0 && normErr <= 1 ? "ok" : "MISMATCH", normErr,
              (long long)residualWrong);

  if (dense) {
    // The MLP, from the normed value.
    std::vector<double> mlp(size_t(tokens * kHidden));
    for (int64_t t = 0; t < tokens; ++t) {
      std::vector<double> x(kHidden);
      for (int64_t c = 0; c < kHidden; ++c)
        x[size_t(c)] = toFloat(o.h[size_t(t * kHidden + c)]);
      std::vector<double> y = wt.sharedExpertOf(x.data());
      std::copy(y.begin(), y.end(), mlp.begin() + t * kHidden);
    }
    double mlpErr = rowsErr(tokens, kHidden, mlp, [&](int64_t t, int64_t c) {
      return double(toFloat(o.out[size_t(t * kHidden + c)]));
    }, 0.01);
    ok = ok && mlpErr <= 1;
    std::printf("dense MLP: %s (max err / bound %.3f)\n",
                mlpErr <= 1 ? "ok" : "MISMATCH", mlpErr);
  } else {
    ok = checkMoe(o, wt, tokens) && ok;
  }
  std::printf("%s decode layer, %lld tokens: %s (status %d)\n",
              dense ? "dense" : "MoE", (long long)tokens,
              ok ? "ok" : "MISMATCH", status);
  return ok;
}

bool checkInvalid(Block blk, bool dense, std::mt19937 &rng) {
  Block before = blk;
  size_t b = blk.lens.size() - 1;
  blk.table[size_t(blk.ids[b] * kPagesPerSeq + blk.past[b] / kBlock)] =
      int32_t(blk.pool);
  Weights wt(rng);
  LayerBuffers o(blk.tokens, rng);
  o.out.assign(o.out.size(), sentinel());
  int32_t status = dense ? runDense(blk, wt, o) : runMoe(blk, wt, o);
  auto same = [](const std::vector<bf16> &a, const std::vector<bf16> &c) {
    return std::equal(a.begin(), a.end(), c.begin(), c.end(),
                      [](bf16 x, bf16 y) { return x.bits == y.bits; });
  };
  bool untouched = same(blk.kc, before.kc) && same(blk.vc, before.vc) &&
                   allSentinel(o.y) && allSentinel(o.h) && allSentinel(o.out);
  return reportInvalid(dense ? "dense decode layer, page id outside the pool"
                             : "MoE decode layer, page id outside the pool",
                       status, untouched,
                       "caches, attention, norm and layer output");
}

} // namespace

int main() {
  std::mt19937 rng(2033);
  bool ok = true;
  // Decode: one token each after 17, 0, 300 and 45 cached.
  Block decode(true, {1, 1, 1, 1}, {3, 0, 2, 1}, {17, 0, 300, 45}, rng);
  for (bool dense : {false, true}) {
    ok = check(decode, dense, rng) && ok;
    ok = checkInvalid(decode, dense, rng) && ok;
  }
  return ok ? 0 : 1;
}
