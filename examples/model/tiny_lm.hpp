// The small model's weights, buffers and argument lists
// (examples/model/tiny_lm.mlir), shared by its self-check and by
// bench/TinyModelBench.cpp: weights drawn from a seeded generator, a
// step's buffers for n token rows, and @prefill's and @decode's arguments
// in their order.
#ifndef WSP_EXAMPLES_TINY_LM_HPP
#define WSP_EXAMPLES_TINY_LM_HPP

#include "../ir/attention_block.hpp"
#include "../ir/moe_chain.hpp"

#include <tuple>

namespace tiny_lm {

using namespace selfcheck;

using attention_block::bf;
using attention_block::kBlock;
using attention_block::kDim;
using attention_block::kHidden;
using attention_block::kQHeads;
using moe_chain::kI;
using moe_chain::randomBf16;
using moe_chain::randomF32;
using moe_chain::randomI8;

constexpr int64_t kVocab = 1024, kLayers = 2, kQkv = 384, kAttn = 256;
constexpr int64_t kBatch = 3, kPages = 4, kPool = kBatch * kPages;
constexpr int64_t kCapacity = kPages * kBlock, kSteps = 32;
const std::vector<int32_t> kPromptLens = {5, 9, 2};

struct Layer {
  std::vector<bf16> normW, kc, vc;
  std::vector<float> smooth, qkvScale, qkNorm, oSmooth, oScale, postNorm,
      smoothUp, upScale, smoothDown, downScale;
  std::vector<int8_t> qkvW, oW, upW, downW;
  explicit Layer(std::mt19937 &rng)
      : normW(randomBf16(kHidden, 0.5f, 1.5f, rng)),
        kc(size_t(kPool * kBlock * kDim), sentinel()), vc(kc),
        smooth(randomF32(kHidden, 0.5f, 1.5f, rng)),
        qkvScale(randomF32(kQkv, 0.002f, 0.01f, rng)),
        qkNorm(randomF32(5 * kDim, 0.5f, 1.5f, rng)),
        oSmooth(randomF32(kAttn, 0.5f, 1.5f, rng)),
        oScale(randomF32(kHidden, 0.002f, 0.01f, rng)),
        postNorm(randomF32(kHidden, 0.5f, 1.5f, rng)),
        smoothUp(randomF32(kHidden, 0.5f, 2.f, rng)),
        upScale(randomF32(2 * kI, 1e-3f, 4e-3f, rng)),
        smoothDown(randomF32(kI, 0.5f, 2.f, rng)),
        downScale(randomF32(kHidden, 1e-3f, 4e-3f, rng)),
        qkvW(randomI8(kQkv * kHidden, rng)), oW(randomI8(kHidden * kAttn, rng)),
        upW(randomI8(kHidden * 2 * kI, rng)),
        downW(randomI8(kI * kHidden, rng)) {}
};

struct Model {
  std::vector<bf16> embedding, lmHead, sin, cos;
  std::vector<float> finalNorm;
  std::vector<Layer> layers;
  std::vector<int32_t> table; // [kBatch, kPages]: distinct pages, shuffled
  explicit Model(std::mt19937 &rng)
      : embedding(randomBf16(kVocab * kHidden, -2.f, 2.f, rng)),
        lmHead(randomBf16(kHidden * kVocab, -0.25f, 0.25f, rng)),
        finalNorm(randomF32(kHidden, 0.5f, 1.5f, rng)) {
    for (int64_t l = 0; l < kLayers; ++l)
      layers.emplace_back(rng);
    attention_block::ropeTables(sin, cos);
    for (int32_t i = 0; i < kPool; ++i)
      table.push_back(i);
    std::shuffle(table.begin(), table.end(), rng);
  }
};

/// A step's buffers for `n` token rows, and the requests' lengths.
struct Step {
  int64_t n;
  std::vector<bf16> zeros, x, after, qkv, attn, y, h, layerRes, gateUp, out,
      finalH, finalRes, logits;
  std::vector<int8_t> x8, attn8, h8, act;
  std::vector<float> pts, attnScale, hScale, actScale;
  std::vector<int32_t> positions, kvLens, qLens, accum, kvIds, allTokens;
  // Workspaces: each launch's own while it runs, so one of each kind.
  std::vector<int32_t> mmWs = std::vector<int32_t>(24 * 128 * 128);
  std::vector<bf16> attnWsH = std::vector<bf16>(24 * 2 * 32 * 128);
  std::vector<float> attnWsF = std::vector<float>(24 * 3 * 32 * 128),
                     attnWsMl = std::vector<float>(24 * 2 * 32),
                     headWs = std::vector<float>(24 * 128 * 128);
  explicit Step(int64_t rows)
      : n(rows), zeros(size_t(n * kHidden), toStorage(0.f)), x(zeros),
        after(zeros), qkv(size_t(n * kQkv)), attn(size_t(n * kAttn)), y(zeros),
        h(zeros), layerRes(zeros), gateUp(size_t(n * 2 * kI)), out(zeros),
        finalH(zeros), finalRes(zeros), logits(size_t(n * kVocab)),
        x8(size_t(n * kHidden)), attn8(size_t(n * kAttn)), h8(x8),
        act(size_t(n * kI)), pts(size_t(n)), attnScale(pts), hScale(pts),
        actScale(pts), allTokens{int32_t(n)} {
    for (int32_t b = 0; b < kBatch; ++b)
      kvIds.push_back(b);
  }
};

template <typename T> MemRef<T, 2> mat(std::vector<T> &v, int64_t cols) {
  return MemRef<T, 2>{v.data(), {int64_t(v.size()) / cols, cols}};
}

/// The arguments both functions share after their token rows and lengths.
inline auto layerArgs(Layer &l) {
  return std::make_tuple(vec(l.normW), vec(l.smooth), mat(l.qkvW, kHidden),
                         vec(l.qkvScale), mat(l.qkNorm, kDim),
                         MemRef<bf16, 4>{l.kc.data(), {kPool, 1, kBlock, kDim}},
                         MemRef<bf16, 4>{l.vc.data(), {kPool, 1, kBlock, kDim}},
                         vec(l.oSmooth), mat(l.oW, kAttn), vec(l.oScale),
                         vec(l.postNorm), vec(l.smoothUp), mat(l.upW, 2 * kI),
                         vec(l.upScale), mat(l.smoothDown, kI),
                         mat(l.downW, kHidden), vec(l.downScale));
}

inline auto commonArgs(Model &m, Step &s) {
  return std::tuple_cat(
      std::make_tuple(MemRef<int32_t, 2>{m.table.data(), {kBatch, kPages}},
                      vec(s.kvIds), mat(m.sin, kDim), mat(m.cos, kDim),
                      mat(m.embedding, kHidden), mat(s.zeros, kHidden),
                      vec(s.allTokens)),
      layerArgs(m.layers[0]), layerArgs(m.layers[1]),
      std::make_tuple(vec(m.finalNorm), mat(m.lmHead, kVocab),
                      mat(s.x, kHidden), mat(s.x8, kHidden), vec(s.pts),
                      mat(s.after, kHidden), mat(s.qkv, kQkv)));
}

inline auto tailArgs(Step &s) {
  return std::make_tuple(
      mat(s.attn8, kAttn), vec(s.attnScale), mat(s.y, kHidden),
      mat(s.h, kHidden), mat(s.layerRes, kHidden), mat(s.h8, kHidden),
      vec(s.hScale), mat(s.gateUp, 2 * kI), mat(s.act, kI), vec(s.actScale),
      mat(s.out, kHidden), mat(s.finalH, kHidden), mat(s.finalRes, kHidden),
      mat(s.logits, kVocab));
}

inline MemRef<int32_t, 3> mmWs(Step &s) {
  return {s.mmWs.data(), {24, 128, 128}};
}

inline auto prefillArgs(Model &m, Step &s, std::vector<int32_t> &tokens,
                        std::vector<int32_t> &next) {
  MemRef<bf16, 4> wsH{s.attnWsH.data(), {24, 2, 32, 128}};
  MemRef<float, 4> wsF{s.attnWsF.data(), {24, 2, 32, 128}};
  return std::tuple_cat(
      std::make_tuple(vec(tokens), vec(next), vec(s.positions), vec(s.kvLens),
                      vec(s.qLens)),
      commonArgs(m, s),
      std::make_tuple(MemRef<bf16, 3>{s.attn.data(), {s.n, kQHeads, kDim}}),
      tailArgs(s),
      std::make_tuple(mmWs(s), wsH, wsF, mmWs(s), mmWs(s), mmWs(s), mmWs(s),
                      wsH, wsF, mmWs(s), mmWs(s), mmWs(s),
                      MemRef<float, 3>{s.headWs.data(), {24, 128, 128}}));
}

/// @decode's arguments: this token's row and the next one's.
inline auto decodeArgs(Model &m, Step &s, int32_t *row, int32_t *nextRow) {
  MemRef<bf16, 4> wsH{s.attnWsH.data(), {24, 2, 32, 128}};
  MemRef<float, 4> wsF{s.attnWsF.data(), {24, 3, 32, 128}};
  MemRef<float, 3> wsMl{s.attnWsMl.data(), {24, 2, 32}};
  return std::tuple_cat(
      std::make_tuple(MemRef<int32_t, 1>{row, {kBatch}},
                      MemRef<int32_t, 1>{nextRow, {kBatch}}, vec(s.positions),
                      vec(s.kvLens), vec(s.qLens), vec(s.accum)),
      commonArgs(m, s),
      std::make_tuple(MemRef<bf16, 4>{s.attn.data(), {s.n, 1, kQHeads, kDim}}),
      tailArgs(s),
      std::make_tuple(mmWs(s), wsH, wsF, wsMl, mmWs(s), mmWs(s), mmWs(s),
                      mmWs(s), wsH, wsF, wsMl, mmWs(s), mmWs(s), mmWs(s),
                      MemRef<float, 3>{s.headWs.data(), {24, 128, 128}}));
}

/// A batch of prompts (kPromptLens tokens each, drawn at random),
/// concatenated, and where each starts.
struct Prompts {
  std::vector<int32_t> tokens, accum = {0};
  explicit Prompts(std::mt19937 &rng) {
    for (int32_t len : kPromptLens) {
      for (int32_t i = 0; i < len; ++i)
        tokens.push_back(int32_t(rng() % kVocab));
      accum.push_back(accum.back() + len);
    }
  }
};

/// @prefill's step: the prompts, nothing cached before.
inline Step prefillStep(const Prompts &prompts) {
  Step s(int64_t(prompts.tokens.size()));
  s.positions.assign(kBatch, 0);
  s.kvLens.assign(kBatch, 0);
  s.qLens = kPromptLens;
  return s;
}

/// @decode's step right after the prefill: one token per request, each
/// request's prompt cached.
inline Step decodeStep() {
  Step s(kBatch);
  s.positions = kPromptLens;
  s.kvLens = kPromptLens;
  s.qLens.assign(kBatch, 1);
  for (int32_t b = 0; b <= kBatch; ++b)
    s.accum.push_back(b);
  return s;
}

} // namespace tiny_lm

#endif // WSP_EXAMPLES_TINY_LM_HPP
