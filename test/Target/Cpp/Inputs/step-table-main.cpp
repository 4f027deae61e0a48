// Driver of step-table.mlir: the toy step replayed from its table against
// @step called every token and a plain reference; then the bad replays.
#include <cstdio>
#include <vector>

using namespace wsp_gen;

namespace {
constexpr int kBatch = 3, kTokens = 32;

struct State {
  std::vector<int32_t> tokens = std::vector<int32_t>((kTokens + 1) * kBatch);
  std::vector<int32_t> positions = {4, 9, 0};
  std::vector<int32_t> kv_lens = {5, 10, 1};
  std::vector<int32_t> acc = std::vector<int32_t>(kBatch);
  State() {
    for (int b = 0; b < kBatch; ++b)
      tokens[b] = 11 * b + 5;
  }
  MemRef<int32_t, 1> row(int t) {
    return {tokens.data() + t * kBatch, {kBatch}};
  }
  MemRef<int32_t, 1> view(std::vector<int32_t> &v) {
    return {v.data(), {static_cast<int64_t>(v.size())}};
  }
};
} // namespace

int main() {
  // Called every token: the caller advances rows, positions and lengths.
  State called;
  for (int t = 0; t < kTokens; ++t) {
    if (step(called.row(t), called.view(called.positions),
             called.view(called.kv_lens), called.row(t + 1),
             called.view(called.acc)) != 0)
      return 1;
    for (int b = 0; b < kBatch; ++b) {
      ++called.positions[b];
      ++called.kv_lens[b];
    }
  }
  // Replayed: built once, 32 tokens in one call.
  State replayed;
  decode table;
  auto args = [&](State &s) {
    return std::make_tuple(s.row(0), s.view(s.positions), s.view(s.kv_lens),
                           s.row(1), s.view(s.acc));
  };
  auto [t0, p0, k0, n0, a0] = args(replayed);
  if (decode_build(table, kTokens, 64, t0, p0, k0, n0, a0) != 0)
    return 2;
  const int32_t ok = decode_replay(table, 0, kTokens, t0, p0, k0, n0, a0);
  // The reference.
  std::vector<int32_t> expected((kTokens + 1) * kBatch);
  std::vector<int32_t> pos = {4, 9, 0}, kv = {5, 10, 1};
  for (int b = 0; b < kBatch; ++b)
    expected[b] = 11 * b + 5;
  for (int t = 0; t < kTokens; ++t)
    for (int b = 0; b < kBatch; ++b) {
      const int32_t acc =
          expected[t * kBatch + b] * 7 + 3 + pos[b]++ + 2 * kv[b]++;
      expected[(t + 1) * kBatch + b] = static_cast<int32_t>(
          static_cast<uint32_t>(acc) % 1000u);
    }
  std::printf("replayed %d tokens: equal to calling @step every token: %s, "
              "to the reference: %s\n",
              ok == 0 ? kTokens : 0,
              replayed.tokens == called.tokens &&
                      replayed.kv_lens == called.kv_lens &&
                      replayed.positions == called.positions
                  ? "yes"
                  : "no",
              replayed.tokens == expected ? "yes" : "no");

  // Bad replays: nothing written, the table still valid.
  const std::vector<int32_t> before = replayed.tokens, kv_before =
                                                         replayed.kv_lens;
  std::printf("past the last token: %d, nothing written: %s\n",
              decode_replay(table, kTokens, 1, t0, p0, k0, n0, a0),
              replayed.tokens == before && replayed.kv_lens == kv_before
                  ? "yes"
                  : "no");
  // Request 1 has 10 positions cached: 32 tokens need 42 of a 41-position
  // cache.
  decode small;
  State fresh;
  auto [t1, p1, k1, n1, a1] = args(fresh);
  if (decode_build(small, kTokens, 41, t1, p1, k1, n1, a1) != 0)
    return 3;
  const std::vector<int32_t> fresh_tokens = fresh.tokens;
  std::printf("past the KV capacity: %d, nothing written: %s\n",
              decode_replay(small, 0, kTokens, t1, p1, k1, n1, a1),
              fresh.tokens == fresh_tokens ? "yes" : "no");
  State other;
  auto [t2, p2, k2, n2, a2] = args(other);
  std::printf("on other arguments: %d\n",
              decode_replay(table, 0, 1, t2, p2, k2, n2, a2));
  decode empty;
  std::printf("build without launches: %d\n",
              decode_replay(empty, 0, 1, t0, p0, k0, n0, a0));
  return 0;
}
