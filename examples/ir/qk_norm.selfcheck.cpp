// The self-check of examples/ir/qk_norm.mlir (run by `wspc --run` and the
// lit tests): head_rms_norm on random packed QKV rows against a reference
// written here in double: for each token and each head h in the range,
// y = bf16(x / sqrt(mean(x^2) + eps) * weight[h - head_offset]); the other
// heads of y equal x bit for bit. Tolerance as rms_norm's: half a bf16 ulp
// (2^-8 relative) plus the kernel's float error (sums of at most 128
// squares, below 1e-6 relative): |y - ref| <= 2^-8 |ref| (1 + 1e-4) plus half the
// storage's subnormal spacing (2^-134 for bf16, 2^-25 when bf16 travels as
// half: examples/ir/selfcheck.hpp).
// Then in place again on heads at the ends of bf16's range (not where bf16
// travels as half, which holds none of them), to the same bound:
// selfcheck.hpp's extreme rows as the heads, overflowing ones beside
// ordinary ones in a token's tile.
// Then INVALID_PARAMS on a y of another token count, nothing written.
#include "selfcheck.hpp"

using namespace selfcheck;

namespace {

constexpr int64_t kHeads = 12;

std::vector<bf16> randomBf16(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> uni(-3.f, 3.f);
  std::vector<bf16> v(n);
  for (bf16 &x : v)
    x = toStorage(uni(rng));
  return v;
}

/// Checks y against x for `tokens` tokens of head_dim `dim`, heads
/// [lo, lo + num) normalized with `weight(h, c)`.
template <typename W>
bool compare(const char *what, int64_t tokens, int64_t dim, int64_t lo,
             int64_t num, double eps, const std::vector<bf16> &x,
             const std::vector<bf16> &y, W weight, int32_t status) {
  double worst = 0;
  int64_t copied_wrong = 0;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < kHeads; ++h) {
      const size_t base = size_t((t * kHeads + h) * dim);
      if (h < lo || h >= lo + num) {
        for (int64_t c = 0; c < dim; ++c)
          copied_wrong += y[base + c].bits != x[base + c].bits;
        continue;
      }
      double squares = 0;
      for (int64_t c = 0; c < dim; ++c)
        squares += double(toFloat(x[base + c])) * toFloat(x[base + c]);
      double rstd = 1.0 / std::sqrt(squares / dim + eps);
      for (int64_t c = 0; c < dim; ++c) {
        double ref = toFloat(x[base + c]) * rstd * weight(h - lo, c);
        double bound = std::ldexp(std::fabs(ref), -8) * (1 + 1e-4) +
                     selfcheck::kSubnormalRounding;
        worst = std::fmax(worst, std::fabs(toFloat(y[base + c]) - ref) / bound);
      }
    }
  bool ok = status == 0 && worst <= 1 && copied_wrong == 0;
  std::printf("%s T=%lld: %s (status %d, max err / bound %.3f, %lld copied "
              "values differ)\n",
              what, (long long)tokens, ok ? "ok" : "MISMATCH", status, worst,
              (long long)copied_wrong);
  return ok;
}

bool checkInPlace(int64_t tokens, std::mt19937 &rng) {
  const int64_t dim = 128;
  std::vector<bf16> x = randomBf16(size_t(tokens * kHeads * dim), rng);
  std::vector<bf16> y = x;
  std::vector<float> w(10 * dim);
  std::uniform_real_distribution<float> uni(-2.f, 2.f);
  for (float &v : w)
    v = uni(rng);
  int32_t status = wsp_gen::qk_norm(
      MemRef<bf16, 3>{y.data(), {tokens, kHeads, dim}},
      MemRef<float, 2>{w.data(), {10, dim}});
  return compare("qk_norm (in place)", tokens, dim, 0, 10, 1e-6, x, y,
                 [&](int64_t h, int64_t c) { return double(w[h * dim + c]); },
                 status);
}

#ifndef WSP_BF16_STORAGE_IS_F16
/// In place, head h of token t the extreme row (t * heads + h) % kinds.
bool checkExtremes(std::mt19937 &rng) {
  const int64_t dim = 128, tokens = 3;
  std::vector<bf16> x;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < kHeads; ++h)
      for (float v :
           extremeRow(int((t * kHeads + h) % kExtremeKinds), dim, rng))
        x.push_back(toStorage(v));
  std::vector<bf16> y = x;
  std::vector<float> w(10 * dim);
  std::uniform_real_distribution<float> uni(-2.f, 2.f);
  for (float &v : w)
    v = uni(rng);
  int32_t status = wsp_gen::qk_norm(
      MemRef<bf16, 3>{y.data(), {tokens, kHeads, dim}},
      MemRef<float, 2>{w.data(), {10, dim}});
  return compare("qk_norm (in place) extremes", tokens, dim, 0, 10, 1e-6, x,
                 y,
                 [&](int64_t h, int64_t c) { return double(w[h * dim + c]); },
                 status);
}
#endif

bool checkCopy(int64_t tokens, std::mt19937 &rng) {
  const int64_t dim = 64;
  std::vector<bf16> x = randomBf16(size_t(tokens * kHeads * dim), rng);
  std::vector<bf16> y(x.size());
  std::vector<bf16> w = randomBf16(size_t(2 * dim), rng);
  int32_t status = wsp_gen::k_norm(
      MemRef<bf16, 3>{x.data(), {tokens, kHeads, dim}},
      MemRef<bf16, 2>{w.data(), {2, dim}},
      MemRef<bf16, 3>{y.data(), {tokens, kHeads, dim}});
  return compare("k_norm (copy)", tokens, dim, 8, 2, 1e-5, x, y,
                 [&](int64_t h, int64_t c) { return double(toFloat(w[h * dim + c])); },
                 status);
}

bool checkInvalid(std::mt19937 &rng) {
  const int64_t dim = 64;
  std::vector<bf16> x = randomBf16(size_t(4 * kHeads * dim), rng);
  std::vector<bf16> w = randomBf16(size_t(2 * dim), rng);
  std::vector<bf16> y(size_t(3 * kHeads * dim), sentinel());
  int32_t status = wsp_gen::k_norm(
      MemRef<bf16, 3>{x.data(), {4, kHeads, dim}},
      MemRef<bf16, 2>{w.data(), {2, dim}},
      MemRef<bf16, 3>{y.data(), {3, kHeads, dim}});
  return reportInvalid("mismatched num_tokens", status, allSentinel(y),
                       "output");
}

} // namespace

int main() {
  std::mt19937 rng(2028);
  bool ok = true;
  for (int64_t tokens : {0, 1, 9, 100})
    ok = checkInPlace(tokens, rng) && ok;
  for (int64_t tokens : {1, 9, 100})
    ok = checkCopy(tokens, rng) && ok;
#ifndef WSP_BF16_STORAGE_IS_F16
  ok = checkExtremes(rng) && ok;
#endif
  ok = checkInvalid(rng) && ok;
  return ok ? 0 : 1;
}
