// The self-check of examples/ir/quant_matmul.mlir (run by `wspc --run` and
// the lit tests): quant_matmul on random int8 rows and weights against a
// naive triple loop written here: acc = sum_k a[t, k] b[k, n] exactly (in
// int64), ref = acc * per_token_scale[t] * weight_scale[n] + bias[n] in
// double.
// Tolerance: acc is exact in the kernel too (|acc| <= 256 * 128^2 < 2^24,
// so even its conversion to float is exact); the kernel then rounds three
// times in float (two products and the bias sum: at most 2^-23 of
// |acc ps ws| + |bias|, a bias may cancel the product) and once to bf16
// (half an ulp, 2^-8 |ref|), so
// |y - ref| <= 2^-8 |ref| (1 + 1e-4) + 2^-22 (|acc ps ws| + |bias|)
// plus half the storage's subnormal spacing.
// Then INVALID_PARAMS with nothing written: a y of another token count,
// fewer per-token scales than tokens, and (transpose_a, whose hidden_size
// is dynamic) activations of another hidden_size. (The workspace's shape is
// static: its type is the contract, as for every static dimension.)
#include "selfcheck.hpp"

using namespace selfcheck;

namespace {

constexpr int64_t kK = 256, kBlocks = 24, kMTile = 128, kNTile = 128;

struct Problem {
  int64_t tokens, n;
  bool transposed;          // weight stored [n, k]
  bool aTransposed = false; // activations stored [k, tokens]
  std::vector<int8_t> a, w;
  std::vector<float> pts;
  std::vector<float> wsF;
  std::vector<bf16> wsB, bias;
  std::vector<bf16> y;
  std::vector<int32_t> workspace = std::vector<int32_t>(kBlocks * kMTile * kNTile);

  Problem(int64_t tokens, int64_t n, bool transposed, bool bf16Scales,
          std::mt19937 &rng)
      : tokens(tokens), n(n), transposed(transposed) {
    std::uniform_int_distribution<int> i8(-127, 127);
    std::uniform_real_distribution<float> scale(1e-4f, 2e-2f), b(-1.f, 1.f);
    a.resize(size_t(tokens * kK));
    w.resize(size_t(kK * n));
    for (int8_t &v : a)
      v = int8_t(i8(rng));
    for (int8_t &v : w)
      v = int8_t(i8(rng));
    pts.resize(size_t(tokens));
    for (float &v : pts)
      v = scale(rng);
    if (bf16Scales) {
      wsB.resize(size_t(n));
      bias.resize(size_t(n));
      for (bf16 &v : wsB)
        v = toStorage(scale(rng));
      for (bf16 &v : bias)
        v = toStorage(b(rng));
    } else {
      wsF.resize(size_t(n));
      for (float &v : wsF)
        v = scale(rng);
    }
    y.assign(size_t(tokens * n), toStorage(0.f));
  }
  /// Whether y still holds what the constructor put there.
  bool untouched() const {
    return std::all_of(y.begin(), y.end(),
                       [](bf16 v) { return v.bits == toStorage(0.f).bits; });
  }
  int8_t act(int64_t t, int64_t k) const {
    return aTransposed ? a[size_t(k * tokens + t)] : a[size_t(t * kK + k)];
  }
  int8_t weight(int64_t k, int64_t col) const {
    return transposed ? w[size_t(col * kK + k)] : w[size_t(k * n + col)];
  }
  double weightScale(int64_t col) const {
    return wsB.empty() ? double(wsF[size_t(col)]) : toFloat(wsB[size_t(col)]);
  }

  /// The worst error over its bound.
  double worst() const {
    double worst = 0;
    for (int64_t t = 0; t < tokens; ++t)
      for (int64_t col = 0; col < n; ++col) {
        int64_t acc = 0;
        for (int64_t k = 0; k < kK; ++k)
          acc += int64_t(act(t, k)) * weight(k, col);
        double product = double(acc) * pts[size_t(t)] * weightScale(col);
        double b = bias.empty() ? 0.0 : toFloat(bias[size_t(col)]);
        double ref = product + b;
        double bound = std::ldexp(std::fabs(ref), -8) * (1 + 1e-4) +
                       std::ldexp(std::fabs(product) + std::fabs(b), -22) +
                       selfcheck::kSubnormalRounding;
        double err = std::fabs(toFloat(y[size_t(t * n + col)]) - ref);
        worst = std::fmax(worst, err / bound);
      }
    return worst;
  }
};

int32_t runQkv(Problem &p, int64_t yTokens, int64_t scales) {
  return wsp_gen::qkv_proj(
      MemRef<int8_t, 2>{p.a.data(), {p.tokens, kK}},
      MemRef<float, 1>{p.pts.data(), {scales}},
      MemRef<int8_t, 2>{p.w.data(), {p.n, kK}}, vec(p.wsF),
      MemRef<bf16, 2>{p.y.data(), {yTokens, p.n}},
      MemRef<int32_t, 3>{p.workspace.data(), {kBlocks, kMTile, kNTile}});
}

/// Prints and returns whether a run of `p` succeeded within the bound.
bool report(const char *what, const Problem &p, int32_t status) {
  double worst = p.worst();
  bool ok = status == 0 && worst <= 1;
  std::printf(
      "%s T=%lld (K %lld, N %lld%s%s%s%s): %s (status %d, max err / "
      "bound %.3f)\n",
      what, (long long)p.tokens, (long long)kK, (long long)p.n,
      p.aTransposed ? ", transpose_a" : "", p.transposed ? ", transpose_b" : "",
      p.wsB.empty() ? "" : ", bf16 scales", p.bias.empty() ? "" : ", bias",
      ok ? "ok" : "MISMATCH", status, worst);
  return ok;
}

bool checkQkv(int64_t tokens, std::mt19937 &rng) {
  Problem p(tokens, 384, true, false, rng);
  return report("qkv_proj", p, runQkv(p, tokens, tokens));
}

bool checkOProj(int64_t tokens, std::mt19937 &rng) {
  Problem p(tokens, 128, false, true, rng);
  int32_t status = wsp_gen::o_proj(
      MemRef<int8_t, 2>{p.a.data(), {tokens, kK}}, vec(p.pts),
      MemRef<int8_t, 2>{p.w.data(), {kK, p.n}}, vec(p.wsB), vec(p.bias),
      MemRef<bf16, 2>{p.y.data(), {tokens, p.n}},
      MemRef<int32_t, 3>{p.workspace.data(), {kBlocks, kMTile, kNTile}});
  return report("o_proj", p, status);
}

int32_t runColumns(Problem &p, int64_t kRows, int64_t yTokens) {
  return wsp_gen::columns_proj(
      MemRef<int8_t, 2>{p.a.data(), {kRows, p.tokens}}, vec(p.pts),
      MemRef<int8_t, 2>{p.w.data(), {p.n, kK}}, vec(p.wsF),
      MemRef<bf16, 2>{p.y.data(), {yTokens, p.n}},
      MemRef<int32_t, 3>{p.workspace.data(), {kBlocks, kMTile, kNTile}});
}

bool checkColumns(int64_t tokens, std::mt19937 &rng) {
  Problem p(tokens, 128, true, false, rng);
  p.aTransposed = true;
  return report("columns_proj", p, runColumns(p, kK, tokens));
}

bool checkInvalid(std::mt19937 &rng) {
  bool ok = true;
  for (auto [yTokens, scales, what] :
       {std::tuple{int64_t(4), int64_t(8), "mismatched num_tokens"},
        std::tuple{int64_t(8), int64_t(4), "fewer per-token scales than tokens"}}) {
    Problem p(8, 384, true, false, rng);
    int32_t status = runQkv(p, yTokens, scales);
    ok = reportInvalid(what, status, p.untouched(), "output") && ok;
  }
  // transpose_a: activations of fewer rows than hidden_size.
  Problem p(8, 128, true, false, rng);
  p.aTransposed = true;
  int32_t status = runColumns(p, kK - 32, 8);
  ok = reportInvalid("transposed activations of another hidden_size", status,
                     p.untouched(), "output") &&
       ok;
  return ok;
}

} // namespace

int main() {
  std::mt19937 rng(2031);
  bool ok = true;
  // 1100 tokens: units of two M tiles (the plan aims at one unit per
  // core), which keep their weight panel in L1 across them.
  for (int64_t tokens : {0, 1, 31, 32, 33, 100, 1100})
    ok = checkQkv(tokens, rng) && ok;
  for (int64_t tokens : {1, 40})
    ok = checkOProj(tokens, rng) && ok;
  for (int64_t tokens : {1, 31, 33, 70, 1100})
    ok = checkColumns(tokens, rng) && ok;
  ok = checkInvalid(rng) && ok;
  return ok ? 0 : 1;
}
