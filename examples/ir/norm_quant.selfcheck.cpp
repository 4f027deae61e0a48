// The self-check of examples/ir/norm_quant.mlir (run by `wspc --run` and
// the lit tests): the emitted planning functions on random bf16 rows,
// against references written here from the seed's rules as
// docs/rationale/Operators.md fixes them:
//   scale = max|v| / 127,  y = rint(v * (127 / max(max|v|, 1e-30)))
// with v = x * smooth_scale (scale_dynamic_quant) or
// v = a * rstd * weight * smooth_scale (add_rms_norm_dynamic_quant, a the
// bf16 after_res or x, rstd = 1 / sqrt(mean(s^2) + eps) over the f32 sum s).
//
// Tolerances:
// - scale_dynamic_quant is computed here in float in the kernel's order
//   (one product, a max, one division each): y and scale match exactly.
// - add_rms_norm_dynamic_quant: rstd sums 2048 squares in another order
//   than the kernel, so the reference (double) differs from the kernel's
//   float v by ~1e-6 relative, i.e. ~1e-4 in y's units at 127. y must be
//   rint of the reference except where the reference lies within 1e-3 of a
//   rounding boundary (x.5), where it may be the other neighbour; those
//   cases are counted. per_token_scale within 1e-5 relative; after_res exact.
// Then add_rms_norm_dynamic_quant on rows at the ends of bf16's range (not
// where bf16 travels as half, which holds none of them), to the same
// tolerances: selfcheck.hpp's extreme rows, whose f32 sums of squares
// overflow or which eps dominates (a row whose max|v| is below 1e-30
// quantizes to 0, by the rule above).
// Then an all-zero row (scale 0, y 0) and INVALID_PARAMS on a short y.
#include "selfcheck.hpp"

using namespace selfcheck;

namespace {

constexpr int64_t kHidden = 2048;

std::vector<bf16> randomRows(int64_t n, std::mt19937 &rng, float range) {
  std::uniform_real_distribution<float> uni(-range, range);
  std::vector<bf16> v(n);
  for (bf16 &x : v)
    x = toStorage(uni(rng));
  return v;
}
MemRef<bf16, 2> rows(std::vector<bf16> &v, int64_t t) {
  return MemRef<bf16, 2>{v.data(), {t, kHidden}};
}
MemRef<int8_t, 2> rows(std::vector<int8_t> &v, int64_t t) {
  return MemRef<int8_t, 2>{v.data(), {t, kHidden}};
}
bool checkSmoothQuant(int64_t tokens, bool zeroRow, std::mt19937 &rng) {
  std::vector<bf16> x = randomRows(tokens * kHidden, rng, 8.f);
  if (zeroRow && tokens > 0)
    for (int64_t c = 0; c < kHidden; ++c)
      x[c].bits = 0;
  std::vector<float> s(kHidden);
  std::uniform_real_distribution<float> uni(0.25f, 2.f);
  for (float &v : s)
    v = uni(rng);
  std::vector<int8_t> y(tokens * kHidden);
  std::vector<float> scale(tokens);
  int32_t status = wsp_gen::smooth_quant(rows(x, tokens), vec(s), rows(y, tokens),
                                         vec(scale));
  int64_t wrong = 0;
  for (int64_t t = 0; t < tokens; ++t) {
    std::vector<float> v(kHidden);
    float amax = 0;
    for (int64_t c = 0; c < kHidden; ++c) {
      v[c] = toFloat(x[t * kHidden + c]) * s[c];
      amax = std::max(amax, std::fabs(v[c]));
    }
    float mult = 127.f / std::max(amax, 1e-30f);
    wrong += scale[t] != amax / 127.f;
    for (int64_t c = 0; c < kHidden; ++c)
      wrong += y[t * kHidden + c] != int8_t(std::nearbyint(v[c] * mult));
  }
  bool ok = status == 0 && wrong == 0;
  std::printf("smooth_quant T=%lld%s: %s (status %d, %lld values differ)\n",
              (long long)tokens, zeroRow ? " with a zero row" : "",
              ok ? "ok" : "MISMATCH", status, (long long)wrong);
  return ok;
}

bool checkNormQuant(bool residual, int64_t tokens, std::vector<bf16> x,
                    std::vector<bf16> r, std::mt19937 &rng,
                    const char *what = "") {
  std::vector<bf16> wb = randomRows(kHidden, rng, 2.f);
  std::vector<bf16> sb = randomRows(kHidden, rng, 2.f);
  std::vector<float> wf(kHidden), sf(kHidden);
  for (int64_t c = 0; c < kHidden; ++c) {
    wf[c] = toFloat(wb[c]);
    sf[c] = std::fabs(toFloat(sb[c])) + 0.25f;
    sb[c] = toStorage(sf[c]);
    sf[c] = toFloat(sb[c]);
  }
  std::vector<int8_t> y(tokens * kHidden);
  std::vector<float> scale(tokens);
  std::vector<bf16> after(tokens * kHidden);
  const double eps = residual ? 1e-5 : 1e-6;
  int32_t status =
      residual ? wsp_gen::pre_qkv_quant(rows(x, tokens), rows(r, tokens),
                                        vec(wb), vec(sf), rows(y, tokens),
                                        vec(scale), rows(after, tokens))
               : wsp_gen::final_quant(rows(x, tokens), vec(wf), vec(sb),
                                      rows(y, tokens), vec(scale));
  int64_t wrong = 0, boundary = 0;
  for (int64_t t = 0; t < tokens; ++t) {
    std::vector<double> s(kHidden), a(kHidden), v(kHidden);
    double squares = 0, amax = 0;
    for (int64_t c = 0; c < kHidden; ++c) {
      size_t i = t * kHidden + c;
      float sum = toFloat(x[i]) + (residual ? toFloat(r[i]) : 0.f);
      s[c] = sum;
      squares += s[c] * s[c];
      bf16 stored = residual ? toStorage(sum) : x[i];
      if (residual)
        wrong += after[i].bits != stored.bits;
      a[c] = toFloat(stored);
    }
    double rstd = 1.0 / std::sqrt(squares / kHidden + eps);
    for (int64_t c = 0; c < kHidden; ++c) {
      v[c] = a[c] * rstd * wf[c] * sf[c];
      amax = std::max(amax, std::fabs(v[c]));
    }
    wrong += std::fabs(scale[t] - amax / 127) > 1e-5 * amax / 127;
    for (int64_t c = 0; c < kHidden; ++c) {
      double q = v[c] * 127 / std::max(amax, 1e-30);
      int8_t got = y[t * kHidden + c];
      if (got == int8_t(std::nearbyint(q)))
        continue;
      double frac = q - std::floor(q);
      if (std::fabs(frac - 0.5) < 1e-3 && std::fabs(got - q) <= 0.5 + 1e-3)
        ++boundary;
      else
        ++wrong;
    }
  }
  bool ok = status == 0 && wrong == 0;
  std::printf("%s%s T=%lld: %s (status %d, %lld values differ, %lld at a "
              "rounding boundary)\n",
              residual ? "pre_qkv_quant" : "final_quant", what,
              (long long)tokens,
              ok ? "ok" : "MISMATCH", status, (long long)wrong,
              (long long)boundary);
  return ok;
}

bool checkNormQuantRandom(bool residual, int64_t tokens, std::mt19937 &rng) {
  std::vector<bf16> x = randomRows(tokens * kHidden, rng, 4.f);
  std::vector<bf16> r = randomRows(tokens * kHidden, rng, 4.f);
  return checkNormQuant(residual, tokens, std::move(x), std::move(r), rng);
}

#ifndef WSP_BF16_STORAGE_IS_F16
/// The extreme rows as hidden_states; with a residual, x takes a share of
/// 50-70% and the residual the rest rounded to bf16 (a binade below, so no
/// sum rounds past bf16's largest).
bool checkNormQuantExtremes(bool residual, std::mt19937 &rng) {
  std::vector<bf16> x, r;
  std::uniform_real_distribution<float> share(0.5f, 0.7f);
  for (int kind = 0; kind < kExtremeKinds; ++kind)
    for (float v : extremeRow(kind, kHidden, rng)) {
      x.push_back(toStorage(residual ? v * share(rng) : v));
      r.push_back(toStorage(v - toFloat(x.back())));
    }
  return checkNormQuant(residual, kExtremeKinds, std::move(x), std::move(r),
                        rng, " extremes");
}
#endif

bool checkInvalid(std::mt19937 &rng) {
  std::vector<bf16> x = randomRows(16 * kHidden, rng, 1.f);
  std::vector<float> s(kHidden, 1.f), scale(16, -1.f);
  std::vector<int8_t> y(8 * kHidden, 42);
  int32_t status =
      wsp_gen::smooth_quant(rows(x, 16), vec(s), rows(y, 8), vec(scale));
  bool untouched = std::all_of(y.begin(), y.end(), [](int8_t v) { return v == 42; }) &&
                   std::all_of(scale.begin(), scale.end(), [](float v) { return v == -1.f; });
  return reportInvalid("mismatched num_tokens", status, untouched, "outputs");
}

} // namespace

int main() {
  std::mt19937 rng(2027);
  bool ok = true;
  for (int64_t tokens : {0, 1, 9, 100, 389})
    ok = checkSmoothQuant(tokens, false, rng) && ok;
  ok = checkSmoothQuant(9, true, rng) && ok;
  for (bool residual : {true, false})
    for (int64_t tokens : {1, 8, 9, 100, 389})
      ok = checkNormQuantRandom(residual, tokens, rng) && ok;
#ifndef WSP_BF16_STORAGE_IS_F16
  for (bool residual : {true, false})
    ok = checkNormQuantExtremes(residual, rng) && ok;
#endif
  ok = checkInvalid(rng) && ok;
  return ok ? 0 : 1;
}
