// Driver for cpusim-plan-update.mlir: the emitted wsp.update_plan against
// the emitted fresh plan (wsp.plan_chunk_size + wsp.generate, checked
// against pto::runtime::WorkPlanner by cpusim-planner.mlir) over random
// decode steps. The rule for when an update is possible is written out
// here again, naively, from the op's contract.
#include <pto/runtime/runtime.hpp>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace rt = pto::runtime;
using wsp_gen::MemRef;

using Fresh = int32_t (*)(MemRef<int32_t, 1>, int64_t, int64_t, int64_t,
                          MemRef<rt::WorkDescriptor, 1>, MemRef<int64_t, 1>);
using Update = bool (*)(MemRef<int32_t, 1>, MemRef<int32_t, 1>, int64_t,
                        int64_t, int64_t, int64_t,
                        MemRef<rt::WorkDescriptor, 1>);

struct Variant {
  const char *name;
  Fresh fresh;
  Update update;
  std::vector<int> tier_max; // tier t covers (tier_max[t - 1], tier_max[t]]
  int window;                // 0: none
  int max_len;
};

/// The tier of an effective length, or -1.
int tier_of(const Variant &v, int len) {
  int lo = 1;
  for (size_t t = 0; t < v.tier_max.size(); ++t) {
    if (len >= lo && len <= v.tier_max[t])
      return static_cast<int>(t);
    lo = v.tier_max[t] + 1;
  }
  return -1;
}

/// The length a request plans: its window's, for `queries` query tokens.
int effective(const Variant &v, int len, int queries) {
  if (!v.window)
    return len;
  int start = len - queries - v.window + 1;
  return len - (start > 0 ? start : 0);
}

int main() {
  const Variant variants[] = {
      {"attention/balanced", &wsp_gen::fresh_balanced,
       &wsp_gen::update_balanced, {1024, 4096, 16384}, 0, 16384},
      {"attention/unbalanced", &wsp_gen::fresh_unbalanced,
       &wsp_gen::update_unbalanced, {1024, 4096, 16384}, 0, 16384},
      {"attention/window", &wsp_gen::fresh_window, &wsp_gen::update_window,
       {1024, 4096, 16384}, 700, 4000},
      {"moe/per-expert", &wsp_gen::fresh_moe, &wsp_gen::update_moe,
       {64, 65536}, 0, 2000},
  };
  std::mt19937 rng(2027);
  const int capacity = 4096;
  bool all = true;
  for (const Variant &v : variants) {
    int steps = 0, updated = 0, failures = 0;
    std::vector<rt::WorkDescriptor> descs(capacity), fresh(capacity),
        before(capacity);
    auto plan = [&](std::vector<int> &lens, int batch, int heads, int queries,
                    std::vector<rt::WorkDescriptor> &into, int64_t *out) {
      return v.fresh(MemRef<int32_t, 1>{lens.data(), {batch}}, batch, heads,
                     queries, MemRef<rt::WorkDescriptor, 1>{into.data(),
                                                            {capacity}},
                     MemRef<int64_t, 1>{out, {2}});
    };
    for (int trial = 0; trial < 60; ++trial) {
      const int batch = 1 + static_cast<int>(rng() % 24);
      const int heads = 1 + static_cast<int>(rng() % 4);
      const int queries = 1 + static_cast<int>(rng() % 3);
      std::vector<int> lens(batch);
      for (int &l : lens)
        l = rng() % 7 == 0 ? 0
                           : 1 + static_cast<int>(rng() % (v.max_len / 2));
      int64_t out[2] = {0, 0};
      std::memset(descs.data(), 0xab, sizeof(rt::WorkDescriptor) * capacity);
      if (plan(lens, batch, heads, queries, descs, out) != 0)
        continue;
      int64_t chunk = out[0], count = out[1];
      std::vector<int> planned = lens;
      for (int step = 0; step < 80; ++step, ++steps) {
        // Decode: every request grows by one, mostly; now and then one
        // grows by more, shrinks, leaves (0) or joins.
        for (int &l : lens) {
          const unsigned r = rng() % 100;
          if (r < 85)
            l += l > 0 ? 1 : 0;
          else if (r < 92)
            l += static_cast<int>(rng() % 200);
          else if (r < 94)
            l = l > 0 ? l - 1 - static_cast<int>(rng() % l) : 0;
          else if (r < 96)
            l = l > 0 ? 0 : 1 + static_cast<int>(rng() % 300);
          l = std::min(l, v.max_len);
        }
        // Whether the contract allows an update: every changed length grew
        // and keeps its chunk count and tier.
        bool allowed = true;
        for (int b = 0; b < batch; ++b) {
          if (lens[b] == planned[b])
            continue;
          const int now = effective(v, lens[b], queries),
                    then = effective(v, planned[b], queries);
          allowed &= lens[b] > planned[b] &&
                     (now + chunk - 1) / chunk == (then + chunk - 1) / chunk &&
                     tier_of(v, now) == tier_of(v, then);
        }
        before = descs;
        const bool did = v.update(
            MemRef<int32_t, 1>{lens.data(), {batch}},
            MemRef<int32_t, 1>{planned.data(), {batch}}, batch, heads,
            queries, chunk, MemRef<rt::WorkDescriptor, 1>{descs.data(),
                                                          {capacity}});
        int64_t want[2] = {0, 0};
        std::memset(fresh.data(), 0xcd, sizeof(rt::WorkDescriptor) * capacity);
        const int32_t status = plan(lens, batch, heads, queries, fresh, want);
        bool ok = did == allowed;
        if (did) {
          // The fresh plan's, byte for byte, and nothing past the count.
          ok = ok && status == 0 && want[0] == chunk && want[1] == count &&
               std::memcmp(descs.data(), fresh.data(),
                           sizeof(rt::WorkDescriptor) * count) == 0 &&
               std::memcmp(descs.data() + count, before.data() + count,
                           sizeof(rt::WorkDescriptor) * (capacity - count)) ==
                   0;
          ++updated;
        } else {
          ok = ok && std::memcmp(descs.data(), before.data(),
                                 sizeof(rt::WorkDescriptor) * capacity) == 0;
        }
        if (!ok && failures++ < 5)
          std::printf("%s MISMATCH: trial %d step %d batch %d heads %d: "
                      "updated %d (allowed %d), chunk %lld/%lld, count "
                      "%lld/%lld, status %d\n",
                      v.name, trial, step, batch, heads, did, allowed,
                      (long long)chunk, (long long)want[0], (long long)count,
                      (long long)want[1], status);
        if (!did) { // planned afresh, as the table would
          if (status != 0)
            break;
          descs = fresh;
          chunk = want[0];
          count = want[1];
        }
        planned = lens;
      }
    }
    // Inputs no plan with status ok has (the op's precondition broken):
    // a negative length, a buffer too small for the plan. Nothing written.
    {
      std::vector<int> bad = {40, -3, 70}, grown = {41, -3, 71};
      std::memset(descs.data(), 0x5a, sizeof(rt::WorkDescriptor) * capacity);
      before = descs;
      const bool negative = v.update(
          MemRef<int32_t, 1>{grown.data(), {3}},
          MemRef<int32_t, 1>{bad.data(), {3}}, 3, 2, 1, 64,
          MemRef<rt::WorkDescriptor, 1>{descs.data(), {capacity}});
      std::vector<int> lens = {40, 70}, planned = lens;
      int64_t out[2] = {0, 0};
      plan(lens, 2, 2, 1, descs, out);
      lens = {41, 71};
      before = descs;
      const bool small = out[1] > 0 && v.update(
          MemRef<int32_t, 1>{lens.data(), {2}},
          MemRef<int32_t, 1>{planned.data(), {2}}, 2, 2, 1, out[0],
          MemRef<rt::WorkDescriptor, 1>{descs.data(), {out[1] - 1}});
      if (negative || small ||
          std::memcmp(descs.data(), before.data(),
                      sizeof(rt::WorkDescriptor) * capacity) != 0) {
        std::printf("%s: a broken precondition was updated (negative %d, "
                    "small buffer %d)\n",
                    v.name, negative, small);
        ++failures;
      }
    }
    std::printf("%s: %d steps, %d updated in place, %s\n", v.name, steps,
                updated,
                failures ? "MISMATCHES" : "all equal to a fresh plan");
    all &= failures == 0;
  }
  std::printf("%s\n", all ? "all variants equal" : "SOME VARIANTS DIFFER");
  return all ? 0 : 1;
}
