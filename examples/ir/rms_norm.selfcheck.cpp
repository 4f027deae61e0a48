// The self-check of examples/ir/rms_norm.mlir (run by `wspc --run` and the
// lit tests): the emitted planning functions on random bf16 rows of several
// token counts, against a reference written here in double from the seed's
// formula (docs/rationale/Operators.md):
//   s = x + residual (exact in float), after_res = bf16(s),
//   y = bf16(after_res * w / sqrt(mean(s^2) + eps))   (with a residual)
//   y = bf16(x * w / sqrt(mean(x^2) + eps))           (without)
// Tolerance: after_res is exact (the float sum of two bf16 values is exact
// here and both round it to nearest even). y is within half a bf16 ulp of
// the reference (2^-8 relative) plus the kernel's float error (sums of
// 2048 squares in another order: below 1e-6 relative), so
// |y - ref| <= 2^-8 |ref| (1 + 1e-4) plus half the
// storage's subnormal spacing (2^-134 for bf16, 2^-25 when bf16 travels as
// half: examples/ir/selfcheck.hpp).
// Then rows at the ends of bf16's range (not where bf16 travels as half,
// which holds none of them), to the same bound: |x| of 1e18, 1e30 and
// bf16's largest, whose f32 sums of squares overflow (the kernel then
// sums the row scaled: docs/rationale/Lowering.md), tiny and subnormal
// rows that eps dominates, a zero row, and rows mixing them.
// Then the planner's INVALID_PARAMS: a y buffer of another token count
// returns 3 and writes nothing.
#include "selfcheck.hpp"

using namespace selfcheck;

namespace {

constexpr int64_t kHidden = 2048;

std::vector<bf16> randomRows(int64_t tokens, std::mt19937 &rng) {
  std::uniform_real_distribution<float> uni(-4.f, 4.f);
  std::vector<bf16> rows(tokens * kHidden);
  for (bf16 &v : rows)
    v = toStorage(uni(rng));
  return rows;
}

MemRef<bf16, 2> view(std::vector<bf16> &rows, int64_t tokens) {
  return MemRef<bf16, 2>{rows.data(), {tokens, kHidden}};
}

/// Checks one call on rows x (and residual r) against the reference.
bool check(bool residual, int64_t tokens, std::vector<bf16> x,
           std::vector<bf16> r, std::mt19937 &rng, const char *what = "") {
  std::vector<bf16> y(tokens * kHidden), after(tokens * kHidden);
  std::vector<float> w(kHidden);
  std::uniform_real_distribution<float> uni(-2.f, 2.f);
  for (float &v : w)
    v = uni(rng);
  MemRef<float, 1> weight{w.data(), {kHidden}};
  const double eps = residual ? 1e-5 : 1e-6;
  int32_t status = residual
                       ? wsp_gen::pre_attention_norm(view(x, tokens),
                                                     view(r, tokens), weight,
                                                     view(y, tokens),
                                                     view(after, tokens))
                       : wsp_gen::final_norm(view(x, tokens), weight,
                                             view(y, tokens));
  double worst = 0;
  bool exact = true;
  for (int64_t t = 0; t < tokens; ++t) {
    std::vector<double> s(kHidden);
    double squares = 0;
    for (int64_t c = 0; c < kHidden; ++c) {
      size_t i = t * kHidden + c;
      s[c] = toFloat(x[i]) + (residual ? toFloat(r[i]) : 0.0);
      squares += s[c] * s[c];
    }
    double rstd = 1.0 / std::sqrt(squares / kHidden + eps);
    for (int64_t c = 0; c < kHidden; ++c) {
      size_t i = t * kHidden + c;
      double normed = s[c];
      if (residual) {
        bf16 expect = toStorage(float(s[c]));
        exact = exact && after[i].bits == expect.bits;
        normed = toFloat(expect);
      }
      double ref = normed * rstd * w[c];
      double err = std::fabs(toFloat(y[i]) - ref);
      double bound = std::ldexp(std::fabs(ref), -8) * (1 + 1e-4) +
                     selfcheck::kSubnormalRounding;
      worst = std::fmax(worst, err / bound);
    }
  }
  bool ok = status == 0 && worst <= 1 && exact;
  std::printf("%s%s T=%lld: %s (status %d, max err / bound %.3f%s)\n",
              residual ? "pre_attention_norm" : "final_norm", what,
              (long long)tokens, ok ? "ok" : "MISMATCH", status, worst,
              residual ? (exact ? ", after_res exact" : ", after_res WRONG")
                       : "");
  return ok;
}

bool checkRandom(bool residual, int64_t tokens, std::mt19937 &rng) {
  std::vector<bf16> x = randomRows(tokens, rng), r = randomRows(tokens, rng);
  return check(residual, tokens, std::move(x), std::move(r), rng);
}

#ifndef WSP_BF16_STORAGE_IS_F16
/// The extreme rows (selfcheck.hpp's, the first 8 one tile, the last 4
/// another) as hidden_states; with a residual, x takes a share of 50-70%
/// and the residual the rest rounded to bf16 (a binade below, so no sum
/// rounds past bf16's largest).
bool checkExtremes(bool residual, std::mt19937 &rng) {
  std::vector<float> v;
  for (int kind = 0; kind < kExtremeKinds; ++kind) {
    std::vector<float> row = extremeRow(kind, kHidden, rng);
    v.insert(v.end(), row.begin(), row.end());
  }
  const int64_t tokens = kExtremeKinds;
  std::vector<bf16> x(v.size()), r(v.size());
  std::uniform_real_distribution<float> share(0.5f, 0.7f);
  for (size_t i = 0; i < v.size(); ++i) {
    x[i] = toStorage(residual ? v[i] * share(rng) : v[i]);
    r[i] = toStorage(v[i] - toFloat(x[i]));
  }
  return check(residual, tokens, std::move(x), std::move(r), rng,
               " extremes");
}
#endif

// A y buffer shorter than hidden_states: INVALID_PARAMS, nothing written.
bool checkInvalid(std::mt19937 &rng) {
  std::vector<bf16> x = randomRows(16, rng);
  std::vector<bf16> y(8 * kHidden, sentinel());
  std::vector<float> w(kHidden, 1.f);
  int32_t status = wsp_gen::final_norm(
      view(x, 16), MemRef<float, 1>{w.data(), {kHidden}}, view(y, 8));
  return reportInvalid("mismatched num_tokens", status, allSentinel(y),
                       "output");
}

} // namespace

int main() {
  std::mt19937 rng(2026);
  bool ok = true;
  for (bool residual : {true, false})
    for (int64_t tokens : {0, 1, 7, 8, 9, 100, 389})
      ok = checkRandom(residual, tokens, rng) && ok;
#ifndef WSP_BF16_STORAGE_IS_F16
  for (bool residual : {true, false})
    ok = checkExtremes(residual, rng) && ok;
#endif
  ok = checkInvalid(rng) && ok;
  return ok ? 0 : 1;
}
