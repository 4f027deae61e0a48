// Driver of convert-llm-to-wsp-branches.mlir: @choose run down each branch
// against a naive RMSNorm in double. Tolerance 0.03: the outputs are
// normalized (|y| about 1 with weights in [0.5, 1.5]), each of the up to
// three chained norms rounds to bf16 (relative 2^-9 per element) and reads
// the previous one's rounded output, and the simulation sums in float.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace wsp_gen;

namespace {
constexpr int kRows = 5, kHidden = 64;

std::vector<double> rms(const std::vector<double> &x,
                        const std::vector<float> &w, double eps) {
  std::vector<double> y(x.size());
  for (int r = 0; r < kRows; ++r) {
    double sum = 0;
    for (int c = 0; c < kHidden; ++c)
      sum += x[r * kHidden + c] * x[r * kHidden + c];
    const double inv = 1.0 / std::sqrt(sum / kHidden + eps);
    for (int c = 0; c < kHidden; ++c)
      y[r * kHidden + c] = x[r * kHidden + c] * inv * w[c];
  }
  return y;
}

bool near(const std::vector<bf16> &got, const std::vector<double> &want) {
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(double(bf16_storage_to_f32(got[i])) - want[i]) <= 0.03))
      return false;
  return true;
}
bool same(const std::vector<bf16> &a, const std::vector<bf16> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].bits != b[i].bits)
      return false;
  return true;
}
const char *yes(bool b) { return b ? "yes" : "no"; }
} // namespace

int main() {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uni(-3.f, 3.f), wuni(0.5f, 1.5f);
  std::vector<float> w(kHidden);
  for (float &v : w)
    v = wuni(rng);
  std::vector<bf16> x0(kRows * kHidden);
  std::vector<double> xd(x0.size());
  for (size_t i = 0; i < x0.size(); ++i) {
    x0[i] = f32_to_bf16_storage(uni(rng));
    xd[i] = bf16_storage_to_f32(x0[i]);
  }
  MemRef<float, 1> wv{w.data(), {kHidden}};
  for (bool then : {true, false}) {
    std::vector<bf16> x = x0, y(x0.size());
    const int32_t status =
        choose(MemRef<bf16, 2>{x.data(), {kRows, kHidden}}, wv,
               MemRef<bf16, 2>{y.data(), {kRows, kHidden}}, then);
    const std::vector<double> want =
        then ? rms(rms(rms(xd, w, 1e-6), w, 1e-6), w, 1e-6) : rms(xd, w, 1e-6);
    std::printf("%s branch: status %d, y = %s within 0.03: %s\n",
                then ? "then" : "else", status,
                then ? "rms(rms(rms(x)))" : "rms(x)",
                yes(status == 0 && near(y, want)));
  }
  // The first operator refuses: nothing after it, in either branch, runs.
  std::vector<bf16> x = x0, y(x0.size() - kHidden), before = y;
  const int32_t status =
      choose(MemRef<bf16, 2>{x.data(), {kRows, kHidden}}, wv,
             MemRef<bf16, 2>{y.data(), {kRows - 1, kHidden}}, true);
  std::printf("mismatched rows: status %d, nothing written: %s\n", status,
              yes(same(x, x0) && same(y, before)));
  return 0;
}
