// The MoE chain's weights and its naive reference, shared by the
// self-checks of examples/ir/moe_chain.mlir (hidden 128) and of the
// decoder layer that runs the chain after the attention block
// (examples/ir/decoder_layers.mlir, hidden 256): one reference, written in
// double from docs/rationale/Operators.md (the tolerances are in the
// self-checks' opening comments).
#ifndef WSP_EXAMPLES_MOE_CHAIN_HPP
#define WSP_EXAMPLES_MOE_CHAIN_HPP

#include "selfcheck.hpp"

namespace moe_chain {

using namespace selfcheck;

/// Experts, top k, the experts' intermediate size.
constexpr int64_t kE = 16, kTopK = 2, kI = 64;

inline std::vector<bf16> randomBf16(size_t n, float lo, float hi,
                                    std::mt19937 &rng) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<bf16> v(n);
  for (bf16 &x : v)
    x = toStorage(u(rng));
  return v;
}

inline std::vector<int8_t> randomI8(size_t n, std::mt19937 &rng) {
  std::uniform_int_distribution<int> u(-127, 127);
  std::vector<int8_t> v(n);
  for (int8_t &x : v)
    x = int8_t(u(rng));
  return v;
}

inline std::vector<float> randomF32(size_t n, float lo, float hi,
                                    std::mt19937 &rng) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = u(rng);
  return v;
}

inline double roundBf16(double v) { return toFloat(toStorage(float(v))); }

/// scale_dynamic_quant of one row: q = rint(v 127 / max|v|), scale max/127.
inline void quantize(const std::vector<double> &v, std::vector<double> &q,
                     double &scale) {
  double m = 0;
  for (double x : v)
    m = std::max(m, std::fabs(x));
  double mult = 127.0 / std::max(m, 1e-30);
  q.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    q[i] = std::max(-128.0, std::min(127.0, std::nearbyint(v[i] * mult)));
  scale = m / 127.0;
}

/// scale_dynamic_quant of v, then the int8 matmul with weight `w` (element
/// (i, j), input i to output j, at w[i * k_stride + j * n_stride]) and
/// per-output scales, each output rounded to bf16 once.
inline std::vector<double> quantMatmul(const std::vector<double> &v,
                                       const int8_t *w, int64_t k_stride,
                                       int64_t n_stride, const float *w_scale,
                                       int64_t n) {
  std::vector<double> q;
  double scale;
  quantize(v, q, scale);
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    double acc = 0;
    for (size_t i = 0; i < q.size(); ++i)
      acc += q[i] * w[int64_t(i) * k_stride + j * n_stride];
    out[size_t(j)] = roundBf16(acc * scale * w_scale[j]);
  }
  return out;
}

/// The router's and the experts' weights for hidden size H, drawn at
/// random, and the naive reference of one expert (or the shared expert)
/// for one token row.
template <int64_t H> struct MoeWeights {
  std::vector<bf16> gate;
  std::vector<float> smoothUp, upScale, smoothDown, downScale;
  std::vector<int8_t> up, down;
  std::vector<float> sharedSmoothUp, sharedSmoothDown, sharedUpScale,
      sharedDownScale;
  std::vector<int8_t> sharedUp, sharedDown;

  explicit MoeWeights(std::mt19937 &rng) {
    gate = randomBf16(size_t(H * kE), -1.f, 1.f, rng);
    smoothUp = randomF32(size_t(kE * H), 0.5f, 2.f, rng);
    smoothDown = randomF32(size_t(kE * kI), 0.5f, 2.f, rng);
    up = randomI8(size_t(kE * H * 2 * kI), rng);
    down = randomI8(size_t(kE * kI * H), rng);
    upScale = randomF32(size_t(kE * 2 * kI), 1e-3f, 4e-3f, rng);
    downScale = randomF32(size_t(kE * H), 1e-3f, 4e-3f, rng);
    sharedSmoothUp = randomF32(size_t(H), 0.5f, 2.f, rng);
    sharedSmoothDown = randomF32(size_t(kI), 0.5f, 2.f, rng);
    sharedUp = randomI8(size_t(H * 2 * kI), rng);
    sharedDown = randomI8(size_t(kI * H), rng);
    sharedUpScale = randomF32(size_t(2 * kI), 1e-3f, 4e-3f, rng);
    sharedDownScale = randomF32(size_t(H), 1e-3f, 4e-3f, rng);
  }

  /// An expert's output for the token row x (H values), in double: smooth,
  /// quantize, gate/up (bf16), swiglu, smooth, quantize, down (bf16). The
  /// weights: up [H, 2 kI], down [kI, H], row-major; scales and smooth rows
  /// per column.
  static std::vector<double> mlp(const double *x, const float *su,
                                 const int8_t *upW, const float *upS,
                                 const float *sd, const int8_t *downW,
                                 const float *downS) {
    std::vector<double> v(H);
    for (int64_t h = 0; h < H; ++h)
      v[size_t(h)] = x[h] * su[h];
    const std::vector<double> gu = quantMatmul(v, upW, 2 * kI, 1, upS, 2 * kI);
    std::vector<double> a(kI);
    for (int64_t i = 0; i < kI; ++i) {
      double g = gu[size_t(i)], u = gu[size_t(kI + i)];
      a[size_t(i)] = g / (1 + std::exp(-g)) * u * sd[i];
    }
    return quantMatmul(a, downW, H, 1, downS, H);
  }
  std::vector<double> expertOf(const double *x, int64_t e) const {
    return mlp(x, &smoothUp[size_t(e * H)], &up[size_t(e * H * 2 * kI)],
               &upScale[size_t(e * 2 * kI)], &smoothDown[size_t(e * kI)],
               &down[size_t(e * kI * H)], &downScale[size_t(e * H)]);
  }
  std::vector<double> sharedExpertOf(const double *x) const {
    return mlp(x, sharedSmoothUp.data(), sharedUp.data(), sharedUpScale.data(),
               sharedSmoothDown.data(), sharedDown.data(),
               sharedDownScale.data());
  }

  /// The top k of softmax(logits) (ties to the lower id) and their weights
  /// normalized over them.
  static void topk(const std::vector<double> &logits, std::vector<int> &ids,
                   std::vector<double> &weights) {
    std::vector<double> p(logits);
    double m = *std::max_element(p.begin(), p.end()), sum = 0;
    for (double &v : p)
      sum += (v = std::exp(v - m));
    for (double &v : p)
      v /= sum;
    std::vector<int> order(p.size());
    for (size_t e = 0; e < p.size(); ++e)
      order[e] = int(e);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return p[size_t(a)] > p[size_t(b)]; });
    double chosen = 0;
    for (int64_t k = 0; k < kTopK; ++k)
      chosen += p[size_t(order[size_t(k)])];
    ids.assign(order.begin(), order.begin() + kTopK);
    weights.clear();
    for (int64_t k = 0; k < kTopK; ++k)
      weights.push_back(p[size_t(ids[size_t(k)])] / chosen);
  }
};

} // namespace moe_chain

#endif // WSP_EXAMPLES_MOE_CHAIN_HPP
