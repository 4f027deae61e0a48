// Driver of step-table-kept-plan.mlir: tokens replayed from the table,
// whose launches keep their plans, against @step called every token.
#include <cstdio>
#include <vector>

using namespace wsp_gen;

namespace {
constexpr int kBatch = 3, kCapacity = 32, kTokens = 6;
const int32_t kFirstKvLens[kBatch] = {5, 10, 1};

struct State {
  std::vector<int32_t> kv_lens{kFirstKvLens, kFirstKvLens + kBatch};
  std::vector<int32_t> marks = std::vector<int32_t>(kBatch * kCapacity);
  std::vector<int32_t> filled = std::vector<int32_t>(kBatch);
  std::vector<int32_t> tag = {7};
  MemRef<int32_t, 1> view(std::vector<int32_t> &v) {
    return {v.data(), {static_cast<int64_t>(v.size())}};
  }
  MemRef<int32_t, 2> grid() { return {marks.data(), {kBatch, kCapacity}}; }
};

const char *yes(bool b) { return b ? "yes" : "no"; }
} // namespace

int main() {
  // Called every token: the caller advances the KV lengths.
  State called;
  std::vector<int32_t> marksAfter[2], filledAfter[2];
  for (int t = 0; t < 2 * kTokens; ++t) {
    if (step(called.view(called.kv_lens), called.grid(),
             called.view(called.filled), called.view(called.tag)) != 0)
      return 1;
    for (int32_t &k : called.kv_lens)
      ++k;
    if (t % kTokens == kTokens - 1) {
      marksAfter[t / kTokens] = called.marks;
      filledAfter[t / kTokens] = called.filled;
    }
  }

  State replayed;
  table captured;
  if (table_build(captured, 2 * kTokens, kCapacity,
                  replayed.view(replayed.kv_lens), replayed.grid(),
                  replayed.view(replayed.filled),
                  replayed.view(replayed.tag)) != 0)
    return 2;
  if (table_replay(captured, 0, kTokens, replayed.view(replayed.kv_lens),
                   replayed.grid(), replayed.view(replayed.filled),
                   replayed.view(replayed.tag)) != 0)
    return 3;
  std::printf("replayed %d tokens: marks equal to calling @step every token: "
              "%s, filled equal: %s\n",
              kTokens, yes(replayed.marks == marksAfter[0]),
              yes(replayed.filled == filledAfter[0]));
  // Token t plans over kv_len + t + 1 positions of each request.
  bool upTo = true;
  for (int b = 0; b < kBatch; ++b)
    for (int i = 0; i < kCapacity; ++i)
      upTo &= replayed.marks[b * kCapacity + i] ==
              (i < kFirstKvLens[b] + kTokens ? 7 : 0);
  std::printf("each request marked up to its last KV length: %s\n", yes(upTo));
  if (table_replay(captured, kTokens, kTokens, replayed.view(replayed.kv_lens),
                   replayed.grid(), replayed.view(replayed.filled),
                   replayed.view(replayed.tag)) != 0)
    return 4;
  std::printf("tokens %d to %d from the same table: equal: %s\n", kTokens,
              2 * kTokens - 1,
              yes(replayed.marks == marksAfter[1] &&
                  replayed.filled == filledAfter[1]));
  return 0;
}
