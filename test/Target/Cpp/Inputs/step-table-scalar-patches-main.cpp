// Driver of step-table-scalar-patches.mlir: a single sequence's position
// and KV length patched per token, against the step called every token.
#include <cstdio>
#include <vector>

using namespace wsp_gen;

int main() {
  constexpr int kTokens = 12, kFirst = 5;
  auto view = [](std::vector<int32_t> &v) {
    return MemRef<int32_t, 1>{v.data(), {static_cast<int64_t>(v.size())}};
  };
  std::vector<int32_t> called(300, -1), replayed(300, -1);
  for (int t = 0; t < kTokens; ++t)
    if (step(view(called), kFirst + t, kFirst + t + 1) != 0)
      return 1;
  by_pos table;
  if (by_pos_build(table, kTokens, 64, view(replayed), kFirst, kFirst + 1) !=
          0 ||
      by_pos_replay(table, 0, kTokens, view(replayed), kFirst, kFirst + 1) !=
          0)
    return 1;
  std::printf("replayed %d tokens: %s\n", kTokens,
              called == replayed ? "equal to the step called every token"
                                 : "DIFFERENT");
  by_pos bad;
  std::printf("KV length not the position's + 1: %d\n",
              by_pos_build(bad, kTokens, 64, view(replayed), 5, 5));
  by_kv zero;
  std::printf("KV length 0: %d\n", by_kv_build(zero, kTokens, 64,
                                               view(replayed), 0));
  // Positions 5 .. 16 need a capacity of 17: 16 is one short.
  by_pos small;
  by_pos_build(small, kTokens, 16, view(replayed), kFirst, kFirst + 1);
  std::printf("past the KV capacity: %d\n",
              by_pos_replay(small, 0, kTokens, view(replayed), kFirst,
                            kFirst + 1));
  // The KV length alone: out[200 + k] for k = 6 .. 17.
  std::vector<int32_t> alone(300, -1), want(300, -1);
  for (int t = 0; t < kTokens; ++t)
    step_kv(view(want), kFirst + 1 + t);
  by_kv kv;
  const bool ok = by_kv_build(kv, kTokens, 64, view(alone), kFirst + 1) == 0 &&
                  by_kv_replay(kv, 0, kTokens, view(alone), kFirst + 1) == 0;
  std::printf("KV length alone: %s\n", ok && alone == want ? "equal" : "DIFFERENT");
  return 0;
}
