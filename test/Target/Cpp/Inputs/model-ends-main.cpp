// Driver of model-ends.mlir: embedding and argmax against naive scans.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace wsp_gen;

namespace {
constexpr int kTokens = 13, kVocab = 1024, kHidden = 256;

/// The first index of the largest value; NaN never wins (all NaN: 0).
template <typename Get> int scan(Get get) {
  int best = 0;
  float value = -INFINITY;
  for (int v = 0; v < kVocab; ++v)
    if (get(v) > value) {
      value = get(v);
      best = v;
    }
  return best;
}
} // namespace

int main() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uni(-4.f, 4.f);
  std::vector<bf16> table(kVocab * kHidden), x(kTokens * kHidden),
      logits(kTokens * kVocab);
  std::vector<float> logits32(kTokens * kVocab);
  for (bf16 &b : table)
    b = f32_to_bf16(uni(rng));
  for (int i = 0; i < kTokens * kVocab; ++i) {
    logits[i] = f32_to_bf16(uni(rng));
    logits32[i] = uni(rng);
  }
  // Row 3: its largest value twice (the lower id wins); row 4: all NaN.
  logits[3 * kVocab + 10] = logits[3 * kVocab + 900] = f32_to_bf16(100.f);
  logits32[3 * kVocab + 10] = logits32[3 * kVocab + 900] = 100.f;
  for (int v = 0; v < kVocab; ++v)
    logits32[4 * kVocab + v] = NAN;
  std::vector<int32_t> ids(kTokens), next(kTokens, -5), next32(kTokens, -5);
  for (int32_t &id : ids)
    id = static_cast<int32_t>(rng() % kVocab);
  auto run = [&] {
    return ends({ids.data(), {kTokens}}, {table.data(), {kVocab, kHidden}},
                {x.data(), {kTokens, kHidden}},
                {logits.data(), {kTokens, kVocab}}, {next.data(), {kTokens}});
  };
  const int32_t status = run();
  const int32_t status32 =
      pick({logits32.data(), {kTokens, kVocab}}, {next32.data(), {kTokens}});
  int rows = 0, picks = 0, picks32 = 0;
  for (int t = 0; t < kTokens; ++t) {
    bool same = true;
    for (int h = 0; h < kHidden; ++h)
      same &= x[t * kHidden + h].bits == table[ids[t] * kHidden + h].bits;
    rows += same;
    picks += next[t] == scan([&](int v) {
               return bf16_to_f32(logits[t * kVocab + v]);
             });
    picks32 += next32[t] == scan([&](int v) { return logits32[t * kVocab + v]; });
  }
  std::printf("%d tokens: embedding rows equal to the table: %d of %d; "
              "argmax equal to a scan: %d of %d (bf16), %d of %d (f32); tie "
              "picks %d, NaN row picks %d\n",
              status == 0 && status32 == 0 ? kTokens : 0, rows, kTokens, picks,
              kTokens, picks32, kTokens, next[3], next32[4]);
  for (int32_t bad : {kVocab, -1}) {
    ids[5] = bad;
    for (bf16 &b : x)
      b.bits = 0x7fc0;
    std::vector<int32_t> before = next;
    const int32_t s = run();
    bool untouched = next == before;
    for (bf16 b : x)
      untouched &= b.bits == 0x7fc0;
    if (bad == kVocab)
      std::printf("token id %d of a %d-row table: status %d, nothing "
                  "written: %s\n",
                  bad, kVocab, s, untouched ? "yes" : "no");
    else
      std::printf("token id %d: status %d, nothing written: %s\n", bad, s,
                  untouched ? "yes" : "no");
  }
  return 0;
}
