// The self-check of examples/ir/moe_chain.mlir (run by `wspc --run` and
// the lit tests): the router and the experts of an MoE layer on random
// bf16 tokens and int8 weights, against a reference written here in double
// from the ops' definitions (docs/rationale/Operators.md).
//
// @route: logits = bf16(x W_gate) (bf16 products exact in f32, f32 sums
// of 128 terms: |logit - ref| <= 2^-8 |ref| + 128 2^-24 sum|x w|); the
// top 2 of softmax(logits) are recomputed from the kernel's logits as bf16
// values (ties to the lower id) and must be the same experts, their
// normalized weights within 1e-5 relative (f32 softmax). @route8 the same
// over 8 experts (Mixtral's count, whose tiles are padded to 16 columns).
// @experts (fed the route's ids and weights): the counts and token_offset
// exactly (expert order, then (token, slot) order); the output within 1%
// of each token's largest reference value: int8 activations carry 1/254 of
// a row's max in rounding, and the kernel (f32) and the reference (double)
// may round a value lying near a half differently, moving that element by
// 1/127 of its row's max (measured: below 0.4% here).
// @experts_shared adds the shared expert for tokens [0, 8), weight 1, its
// rows the first 8 of the scattered buffers (same tolerance).
// Then INVALID_PARAMS with nothing written: a negative expert id.
#include "moe_chain.hpp"

#include <string>

using namespace selfcheck;

namespace {

using namespace moe_chain;

constexpr int64_t kH = 128, kBlocks = 24;
/// Tokens the shared expert of @experts_shared runs on this rank: [0, 8).
constexpr int64_t kShared = 8;

struct Layer : MoeWeights<kH> {
  int64_t tokens, allocated;
  std::vector<bf16> x, logits;
  std::vector<int32_t> ids;
  std::vector<float> weights;
  // The experts' buffers.
  std::vector<int8_t> rows, act;
  std::vector<float> rowScale, actScale;
  std::vector<int32_t> counts = std::vector<int32_t>(kE, -5);
  std::vector<int32_t> offsets;
  std::vector<bf16> gateUp, downRows, out;
  std::vector<float> routeWs = std::vector<float>(kBlocks * 128 * 16);
  std::vector<int32_t> upWs = std::vector<int32_t>(kBlocks * 128 * 128),
                       downWs = std::vector<int32_t>(kBlocks * 128 * 128),
                       sharedUpWs = std::vector<int32_t>(kBlocks * 128 * 128),
                       sharedDownWs = std::vector<int32_t>(kBlocks * 128 * 128),
                       inverse = std::vector<int32_t>(8192 * kTopK);
  // @experts_shared's buffers.
  std::vector<int8_t> sRows, sAct;
  std::vector<float> sRowScale, sActScale;
  std::vector<bf16> sGateUp, sDown;

  Layer(int64_t tokens, std::mt19937 &rng)
      : MoeWeights<kH>(rng), tokens(tokens), allocated(tokens * kTopK) {
    x = randomBf16(size_t(tokens * kH), -2.f, 2.f, rng);
    logits.assign(size_t(tokens * kE), sentinel());
    ids.assign(size_t(tokens * kTopK), -7);
    weights.assign(size_t(tokens * kTopK), -1.f);
    rows.assign(size_t(allocated * kH), 0);
    rowScale.assign(size_t(allocated), 0.f);
    offsets.assign(size_t(allocated), -9);
    gateUp.assign(size_t(allocated * 2 * kI), sentinel());
    act.assign(size_t(allocated * kI), 0);
    actScale.assign(size_t(allocated), 0.f);
    downRows.assign(size_t(allocated * kH), sentinel());
    out.assign(size_t(tokens * kH), toStorage(0.f));
  }

  int32_t route() {
    return wsp_gen::route(
        MemRef<bf16, 2>{x.data(), {tokens, kH}},
        MemRef<bf16, 2>{gate.data(), {kH, kE}},
        MemRef<bf16, 2>{logits.data(), {tokens, kE}},
        MemRef<int32_t, 2>{ids.data(), {tokens, kTopK}},
        MemRef<float, 2>{weights.data(), {tokens, kTopK}},
        MemRef<float, 3>{routeWs.data(), {kBlocks, 128, 16}});
  }

  int32_t experts() {
    return wsp_gen::experts(
        MemRef<bf16, 2>{x.data(), {tokens, kH}},
        MemRef<int32_t, 2>{ids.data(), {tokens, kTopK}},
        MemRef<float, 2>{weights.data(), {tokens, kTopK}},
        MemRef<float, 2>{smoothUp.data(), {kE, kH}},
        MemRef<int8_t, 3>{up.data(), {kE, kH, 2 * kI}},
        MemRef<float, 2>{upScale.data(), {kE, 2 * kI}},
        MemRef<float, 2>{smoothDown.data(), {kE, kI}},
        MemRef<int8_t, 3>{down.data(), {kE, kI, kH}},
        MemRef<float, 2>{downScale.data(), {kE, kH}},
        MemRef<int8_t, 2>{rows.data(), {allocated, kH}},
        MemRef<float, 1>{rowScale.data(), {allocated}},
        MemRef<int32_t, 1>{counts.data(), {kE}},
        MemRef<int32_t, 1>{offsets.data(), {allocated}},
        MemRef<bf16, 2>{gateUp.data(), {allocated, 2 * kI}},
        MemRef<int8_t, 2>{act.data(), {allocated, kI}},
        MemRef<float, 1>{actScale.data(), {allocated}},
        MemRef<bf16, 2>{downRows.data(), {allocated, kH}},
        MemRef<bf16, 2>{out.data(), {tokens, kH}},
        MemRef<int32_t, 3>{upWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 3>{downWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 1>{inverse.data(), {8192 * kTopK}});
  }

  /// Token t's row of x, in double.
  std::vector<double> row(int64_t t) const {
    std::vector<double> r(kH);
    for (int64_t h = 0; h < kH; ++h)
      r[size_t(h)] = toFloat(x[size_t(t * kH + h)]);
    return r;
  }
  std::vector<double> expert(int64_t t, int64_t e) const {
    return expertOf(row(t).data(), e);
  }
  std::vector<double> sharedExpert(int64_t t) const {
    return sharedExpertOf(row(t).data());
  }

  /// @experts_shared: the shared expert's 8 rows first in every scattered
  /// buffer (its smooth rows first in smooth_up and smooth_down).
  int32_t expertsShared() {
    const int64_t rowsAll = kShared + allocated;
    std::vector<float> su(sharedSmoothUp), sd(sharedSmoothDown);
    su.insert(su.end(), smoothUp.begin(), smoothUp.end());
    sd.insert(sd.end(), smoothDown.begin(), smoothDown.end());
    sRows.assign(size_t(rowsAll * kH), 0);
    sRowScale.assign(size_t(rowsAll), 0.f);
    sGateUp.assign(size_t(rowsAll * 2 * kI), sentinel());
    sAct.assign(size_t(rowsAll * kI), 0);
    sActScale.assign(size_t(rowsAll), 0.f);
    sDown.assign(size_t(rowsAll * kH), sentinel());
    return wsp_gen::experts_shared(
        MemRef<bf16, 2>{x.data(), {tokens, kH}},
        MemRef<int32_t, 2>{ids.data(), {tokens, kTopK}},
        MemRef<float, 2>{weights.data(), {tokens, kTopK}},
        MemRef<float, 2>{su.data(), {1 + kE, kH}},
        MemRef<int8_t, 3>{up.data(), {kE, kH, 2 * kI}},
        MemRef<float, 2>{upScale.data(), {kE, 2 * kI}},
        MemRef<int8_t, 2>{sharedUp.data(), {kH, 2 * kI}},
        MemRef<float, 1>{sharedUpScale.data(), {2 * kI}},
        MemRef<float, 2>{sd.data(), {1 + kE, kI}},
        MemRef<int8_t, 3>{down.data(), {kE, kI, kH}},
        MemRef<float, 2>{downScale.data(), {kE, kH}},
        MemRef<int8_t, 2>{sharedDown.data(), {kI, kH}},
        MemRef<float, 1>{sharedDownScale.data(), {kH}},
        MemRef<int8_t, 2>{sRows.data(), {rowsAll, kH}},
        MemRef<float, 1>{sRowScale.data(), {rowsAll}},
        MemRef<int32_t, 1>{counts.data(), {kE}},
        MemRef<int32_t, 1>{offsets.data(), {allocated}},
        MemRef<bf16, 2>{sGateUp.data(), {rowsAll, 2 * kI}},
        MemRef<int8_t, 2>{sAct.data(), {rowsAll, kI}},
        MemRef<float, 1>{sActScale.data(), {rowsAll}},
        MemRef<bf16, 2>{sDown.data(), {rowsAll, kH}},
        MemRef<bf16, 2>{out.data(), {tokens, kH}},
        MemRef<int32_t, 3>{upWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 3>{sharedUpWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 3>{downWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 3>{sharedDownWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 1>{inverse.data(), {8192 * kTopK}});
  }
};

/// What a router wrote for `tokens` tokens of x over `experts` experts
/// (gate: [kH, experts]), against the reference.
struct Routed {
  const char *function;
  int64_t tokens, experts;
  const std::vector<bf16> &x, &gate, &logits;
  const std::vector<int32_t> &ids;
  const std::vector<float> &weights;
};

bool checkRouter(const Routed &r, int32_t status) {
  double worst = 0;
  bool sameIds = true;
  double worstW = 0;
  const int64_t n = r.experts;
  for (int64_t t = 0; t < r.tokens; ++t) {
    // The logits.
    std::vector<double> p(static_cast<size_t>(n));
    for (int64_t e = 0; e < n; ++e) {
      double ref = 0, mag = 0;
      for (int64_t h = 0; h < kH; ++h) {
        double prod = double(toFloat(r.x[size_t(t * kH + h)])) *
                      toFloat(r.gate[size_t(h * n + e)]);
        ref += prod;
        mag += std::fabs(prod);
      }
      double got = toFloat(r.logits[size_t(t * n + e)]);
      double bound = std::ldexp(std::fabs(ref), -8) + 128 * 0x1p-24 * mag +
                     kSubnormalRounding;
      worst = std::max(worst, std::fabs(got - ref) / bound);
      p[size_t(e)] = got;
    }
    // The top 2 of softmax(the kernel's logits), chosen by the logits as
    // bf16 values, the op's input type. (Where pto-isa's CPU simulation
    // holds bf16 as half, the logits carry 3 more bits, which the kernel's
    // scan drops: two logits equal in bf16 tie, the lower id first.) The
    // weights from the logits as stored, which the kernel's softmax reads.
    std::vector<double> asBf16(p.size());
    for (size_t e = 0; e < p.size(); ++e)
      asBf16[e] = pto::runtime::bf16_to_f32(pto::runtime::f32_to_bf16(float(p[e])));
    std::vector<int> ids;
    std::vector<double> unused;
    MoeWeights<kH>::topk(asBf16, ids, unused);
    const double top = *std::max_element(p.begin(), p.end());
    std::vector<double> refW;
    double chosen = 0;
    for (int64_t k = 0; k < kTopK; ++k)
      chosen += refW.emplace_back(std::exp(p[size_t(ids[size_t(k)])] - top));
    for (double &w : refW)
      w /= chosen;
    for (int64_t k = 0; k < kTopK; ++k) {
      if (sameIds && r.ids[size_t(t * kTopK + k)] != ids[size_t(k)])
        std::printf("%s: token %lld's expert %lld is %d, the reference's %d\n",
                    r.function, (long long)t, (long long)k,
                    r.ids[size_t(t * kTopK + k)], ids[size_t(k)]);
      sameIds = sameIds && r.ids[size_t(t * kTopK + k)] == ids[size_t(k)];
      worstW = std::max(worstW, std::fabs(r.weights[size_t(t * kTopK + k)] -
                                          refW[size_t(k)]) /
                                    (1e-5 * refW[size_t(k)]));
    }
  }
  bool ok = status == 0 && worst <= 1 && sameIds && worstW <= 1;
  std::printf("%s T=%lld: %s (status %d, logits max err / bound %.3f, "
              "experts %s, weights max err / bound %.3f)\n",
              r.function, (long long)r.tokens, ok ? "ok" : "MISMATCH", status,
              worst, sameIds ? "equal" : "DIFFERENT", worstW);
  return ok;
}

bool checkRoute(Layer &l) {
  const std::string name = "route T=" + std::to_string(l.tokens);
  nameCase(name.c_str());
  int32_t status = l.route();
  return checkRouter({"route", l.tokens, kE, l.x, l.gate, l.logits, l.ids,
                      l.weights},
                     status);
}

/// @route8 on the layer's tokens, with its own 8 experts' gate.
bool checkRoute8(Layer &l, std::mt19937 &rng) {
  constexpr int64_t kE8 = 8;
  const std::string name = "route8 T=" + std::to_string(l.tokens);
  nameCase(name.c_str());
  std::vector<bf16> gate = randomBf16(size_t(kH * kE8), -1.f, 1.f, rng);
  std::vector<bf16> logits(size_t(l.tokens * kE8), sentinel());
  std::vector<int32_t> ids(size_t(l.tokens * kTopK), -7);
  std::vector<float> weights(size_t(l.tokens * kTopK), -1.f);
  std::vector<float> ws(size_t(kBlocks * 128 * kE8));
  int32_t status = wsp_gen::route8(
      MemRef<bf16, 2>{l.x.data(), {l.tokens, kH}},
      MemRef<bf16, 2>{gate.data(), {kH, kE8}},
      MemRef<bf16, 2>{logits.data(), {l.tokens, kE8}},
      MemRef<int32_t, 2>{ids.data(), {l.tokens, kTopK}},
      MemRef<float, 2>{weights.data(), {l.tokens, kTopK}},
      MemRef<float, 3>{ws.data(), {kBlocks, 128, kE8}});
  return checkRouter({"route8", l.tokens, kE8, l.x, gate, logits, ids,
                      weights},
                     status);
}

/// @experts, or @experts_shared (`shared`): counts, token_offset and the
/// output against the reference.
bool checkExperts(Layer &l, bool shared) {
  const std::string name =
      std::string(shared ? "experts with a shared expert" : "experts") +
      " T=" + std::to_string(l.tokens);
  nameCase(name.c_str());
  l.out.assign(l.out.size(), toStorage(0.f));
  l.counts.assign(kE, -5);
  int32_t status = shared ? l.expertsShared() : l.experts();
  // Counts and token_offset: expert order, then (token, slot) order.
  std::vector<int32_t> counts(kE, 0), offsets(size_t(l.allocated), -1);
  int64_t row = 0;
  for (int64_t e = 0; e < kE; ++e)
    for (int64_t t = 0; t < l.tokens; ++t)
      for (int64_t k = 0; k < kTopK; ++k)
        if (l.ids[size_t(t * kTopK + k)] == e) {
          ++counts[size_t(e)];
          offsets[size_t(row++)] = int32_t(t * kTopK + k);
        }
  bool routing = counts == l.counts && offsets == l.offsets;
  // The output.
  double worst = 0;
  for (int64_t t = 0; t < l.tokens; ++t) {
    std::vector<double> ref(kH, 0.0);
    if (shared && t < kShared)
      ref = l.sharedExpert(t);
    for (int64_t k = 0; k < kTopK; ++k) {
      std::vector<double> y = l.expert(t, l.ids[size_t(t * kTopK + k)]);
      for (int64_t h = 0; h < kH; ++h)
        ref[size_t(h)] += l.weights[size_t(t * kTopK + k)] * y[size_t(h)];
    }
    double scale = 0;
    for (double v : ref)
      scale = std::max(scale, std::fabs(v));
    for (int64_t h = 0; h < kH; ++h)
      worst = std::max(worst, std::fabs(toFloat(l.out[size_t(t * kH + h)]) -
                                        ref[size_t(h)]) /
                                  (0.01 * scale + kSubnormalRounding));
  }
  bool ok = status == 0 && routing && worst <= 1;
  std::printf("%s T=%lld: %s (status %d, counts and token_offset %s, "
              "output max err / bound %.3f)\n",
              shared ? "experts with a shared expert" : "experts",
              (long long)l.tokens, ok ? "ok" : "MISMATCH", status,
              routing ? "exact" : "DIFFERENT", worst);
  return ok;
}

bool checkNegativeId(std::mt19937 &rng) {
  nameCase("a negative expert id");
  Layer l(8, rng);
  bool routed = l.route() == 0;
  l.ids[3] = -1;
  l.out.assign(l.out.size(), sentinel());
  int32_t status = l.experts();
  bool untouched = allSentinel(l.out) &&
                   std::all_of(l.counts.begin(), l.counts.end(),
                               [](int32_t c) { return c == -5; });
  return reportInvalid("a negative expert id", routed ? status : -1,
                       untouched, "counts and output");
}

} // namespace

int main() {
  std::mt19937 rng(2032);
  bool ok = true;
  for (int64_t tokens : {1, 8, 40}) {
    Layer l(tokens, rng);
    ok = checkRoute(l) && ok;
    ok = checkRoute8(l, rng) && ok;
    ok = checkExperts(l, false) && ok;
    // The shared expert runs tokens [0, 8): it needs 8 tokens.
    if (tokens >= kShared)
      ok = checkExperts(l, true) && ok;
  }
  ok = checkNegativeId(rng) && ok;
  return ok ? 0 : 1;
}
