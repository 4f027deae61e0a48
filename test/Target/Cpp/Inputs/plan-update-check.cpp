// Driver for cpusim-plan-update.mlir: the emitted wsp.update_plan against
// the emitted fresh plan (wsp.plan_chunk_size + wsp.generate, checked
// against pto::runtime::WorkPlanner by cpusim-planner.mlir) over random
// decode steps. When an update is possible, and which descriptors it need
// not write, is worked out here again, naively, from the op's contract.
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
                        int64_t, int64_t, int64_t, int64_t,
                        MemRef<rt::WorkDescriptor, 1>, MemRef<int64_t, 1>);

struct Variant {
  const char *name;
  Fresh fresh;
  Update update;
  std::vector<int> tier_max; // tier t covers (tier_max[t - 1], tier_max[t]]
  int window;                // 0: none
  int max_len;
  bool last_only; // unbalanced chunks, no window
  // The chunk search's config; chunk_min == chunk_max: a given chunk.
  int chunk_min, chunk_max, max_work_units;
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

int64_t chunks_of(int len, int64_t chunk) { return (len + chunk - 1) / chunk; }

/// The chunk the spec's search picks (the smallest in [min, max] whose
/// count fits, else max), by bisection over the monotone count.
int64_t search(const Variant &v, const std::vector<int> &eff, int heads) {
  const int64_t limit = v.max_work_units / heads;
  auto fits = [&](int64_t c) {
    int64_t n = 0;
    for (int e : eff)
      n += chunks_of(e, c);
    return n <= limit;
  };
  int64_t lo = v.chunk_min, hi = v.chunk_max;
  if (!fits(hi))
    return hi;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (fits(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

int main() {
  const Variant variants[] = {
      {"attention/balanced", &wsp_gen::fresh_balanced,
       &wsp_gen::update_balanced, {1024, 4096, 16384}, 0, 16384, false, 64,
       4096, 512},
      {"attention/unbalanced", &wsp_gen::fresh_unbalanced,
       &wsp_gen::update_unbalanced, {1024, 4096, 16384}, 0, 16384, true, 32,
       8192, 300},
      {"attention/window", &wsp_gen::fresh_window, &wsp_gen::update_window,
       {1024, 4096, 16384}, 700, 4000, false, 64, 4096, 400},
      {"moe/per-expert", &wsp_gen::fresh_moe, &wsp_gen::update_moe,
       {64, 65536}, 0, 2000, false, 16, 512, 256},
      {"attention/fixed-chunk", &wsp_gen::fresh_fixed, &wsp_gen::update_fixed,
       {1024, 4096, 16384}, 0, 16384, true, 96, 96, 1 << 30},
  };
  std::mt19937 rng(2027);
  const int capacity = 4096, max_batch = 32;
  bool all = true;
  for (const Variant &v : variants) {
    // Updates in all, and those that moved rows (a count changed, or a
    // request joined).
    int steps = 0, updated = 0, moving = 0, failures = 0;
    std::vector<rt::WorkDescriptor> descs(capacity), fresh(capacity),
        before(capacity);
    auto plan = [&](std::vector<int> &lens, int heads, int queries,
                    std::vector<rt::WorkDescriptor> &into, int64_t *out) {
      const int batch = static_cast<int>(lens.size());
      return v.fresh(MemRef<int32_t, 1>{lens.data(), {batch}}, batch, heads,
                     queries, MemRef<rt::WorkDescriptor, 1>{into.data(),
                                                            {capacity}},
                     MemRef<int64_t, 1>{out, {2}});
    };
    auto update = [&](std::vector<int> &lens, std::vector<int> &planned,
                      int heads, int queries, int64_t chunk,
                      rt::WorkDescriptor *into, int into_capacity,
                      int64_t *out) {
      const int batch = static_cast<int>(lens.size()),
                held = static_cast<int>(planned.size());
      return v.update(MemRef<int32_t, 1>{lens.data(), {batch}},
                      MemRef<int32_t, 1>{planned.data(), {held}}, batch, held,
                      heads, queries, chunk,
                      MemRef<rt::WorkDescriptor, 1>{into, {into_capacity}},
                      MemRef<int64_t, 1>{out, {2}});
    };
    for (int trial = 0; trial < 60; ++trial) {
      const int heads = 1 + static_cast<int>(rng() % 4);
      const int queries = 1 + static_cast<int>(rng() % 3);
      auto random_len = [&] {
        return rng() % 7 == 0 ? 0
                              : 1 + static_cast<int>(rng() % (v.max_len / 2));
      };
      std::vector<int> lens(1 + rng() % 24);
      for (int &l : lens)
        l = random_len();
      int64_t out[2] = {0, 0};
      std::memset(descs.data(), 0xab, sizeof(rt::WorkDescriptor) * capacity);
      if (plan(lens, heads, queries, descs, out) != 0)
        continue;
      int64_t chunk = out[0], count = out[1];
      std::vector<int> planned = lens;
      for (int step = 0; step < 80; ++step, ++steps) {
        // Decode: every request grows by one, mostly; now and then one
        // grows by more, shrinks, goes to or from 0; requests join and
        // leave at the end of the batch.
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
        const unsigned r = rng() % 100;
        if (r < 5 && lens.size() < max_batch)
          lens.push_back(random_len());
        else if (r < 8 && lens.size() > 1)
          lens.pop_back();
        const int batch = static_cast<int>(lens.size()),
                  held = static_cast<int>(planned.size());

        // The plan of `lens` and whether it keeps the chunk: every length
        // valid and covered, the search's choice (or the given chunk)
        // unchanged, and the descriptors fit.
        std::vector<int> eff(batch);
        bool valid = true;
        int64_t chunks = 0;
        for (int b = 0; b < batch; ++b) {
          eff[b] = effective(v, std::max(lens[b], 0), queries);
          valid &= lens[b] >= 0 && (eff[b] == 0 || tier_of(v, eff[b]) >= 0);
          chunks += chunks_of(eff[b], chunk);
        }
        const bool allowed = valid && chunks * heads <= capacity &&
                             search(v, eff, heads) == chunk;
        // What it need not write: the rows before the first whose count
        // changed (or that joined) that did not change; of the ones that
        // changed, with unbalanced chunks and the same tier, all chunks
        // but each head's last.
        std::vector<size_t> untouched;
        bool moves = false;
        {
          size_t at = 0;
          for (int b = 0; b < batch; ++b) {
            const int64_t n = chunks_of(eff[b], chunk);
            if (b >= held) {
              moves = true;
              break;
            }
            const int then = effective(v, planned[b], queries);
            if (n != chunks_of(then, chunk)) {
              moves = true;
              break;
            }
            const bool same_tier = tier_of(v, eff[b]) == tier_of(v, then);
            for (int h = 0; h < heads; ++h)
              for (int64_t i = 0; i < n; ++i)
                if (lens[b] == planned[b] ||
                    (v.last_only && same_tier && i + 1 < n))
                  untouched.push_back(at + size_t(h * n + i));
            at += size_t(heads * n);
          }
        }

        // Poisoned where nothing need be written: a rewrite shows.
        before = descs;
        for (size_t i : untouched)
          descs[i].params[0] ^= 0x5a5a5a5au;
        int64_t got[2] = {0, 0};
        const bool did = update(lens, planned, heads, queries, chunk,
                                descs.data(), capacity, got);
        bool ok = did == allowed;
        for (size_t i : untouched) {
          ok &= descs[i].params[0] == (before[i].params[0] ^ 0x5a5a5a5au);
          descs[i].params[0] = before[i].params[0];
        }
        int64_t want[2] = {0, 0};
        std::memset(fresh.data(), 0xcd, sizeof(rt::WorkDescriptor) * capacity);
        const int32_t status = plan(lens, heads, queries, fresh, want);
        if (did) {
          // The fresh plan's, byte for byte, and nothing past the count.
          ok = ok && status == 0 && want[0] == chunk && got[1] == want[1] &&
               std::memcmp(descs.data(), fresh.data(),
                           sizeof(rt::WorkDescriptor) * want[1]) == 0 &&
               std::memcmp(descs.data() + want[1], before.data() + want[1],
                           sizeof(rt::WorkDescriptor) *
                               (capacity - want[1])) == 0;
          ++updated;
          moving += moves;
        } else {
          ok = ok && got[1] == 0 &&
               std::memcmp(descs.data(), before.data(),
                           sizeof(rt::WorkDescriptor) * capacity) == 0;
        }
        if (!ok && failures++ < 5)
          std::printf("%s MISMATCH: trial %d step %d batch %d/%d heads %d: "
                      "updated %d (allowed %d), chunk %lld/%lld, count "
                      "%lld/%lld, status %d\n",
                      v.name, trial, step, batch, held, heads, did, allowed,
                      (long long)chunk, (long long)want[0],
                      (long long)got[1], (long long)want[1], status);
        if (!did) { // planned afresh, as the table would
          if (status != 0)
            break;
          descs = fresh;
          chunk = want[0];
        }
        count = want[1];
        planned = lens;
      }
      (void)count;
    }
    // Inputs no plan with status ok has: a negative length, a buffer too
    // small for the plan, a held batch beyond its lengths. Nothing written.
    {
      std::vector<int> bad = {40, -3, 70}, grown = {41, -3, 71};
      std::memset(descs.data(), 0x5a, sizeof(rt::WorkDescriptor) * capacity);
      before = descs;
      int64_t got[2] = {0, 0};
      const bool negative =
          update(grown, bad, 2, 1, 64, descs.data(), capacity, got);
      std::vector<int> lens = {40, 70}, planned = lens;
      int64_t out[2] = {0, 0};
      plan(lens, 2, 1, descs, out);
      lens = {41, 71};
      before = descs;
      const bool small = out[1] > 0 && update(lens, planned, 2, 1, out[0],
                                              descs.data(), int(out[1] - 1),
                                              got);
      const bool beyond =
          v.update(MemRef<int32_t, 1>{lens.data(), {2}},
                   MemRef<int32_t, 1>{planned.data(), {2}}, 2, 3, 2, 1, out[0],
                   MemRef<rt::WorkDescriptor, 1>{descs.data(), {capacity}},
                   MemRef<int64_t, 1>{got, {2}});
      if (negative || small || beyond ||
          std::memcmp(descs.data(), before.data(),
                      sizeof(rt::WorkDescriptor) * capacity) != 0) {
        std::printf("%s: a broken precondition was updated (negative %d, "
                    "small buffer %d, held batch beyond %d)\n",
                    v.name, negative, small, beyond);
        ++failures;
      }
    }
    std::printf("%s: %d steps, %d updated in place (%d moving rows), %s\n",
                v.name, steps, updated, moving,
                failures ? "MISMATCHES" : "all equal to a fresh plan");
    all &= failures == 0;
  }
  std::printf("%s\n", all ? "all variants equal" : "SOME VARIANTS DIFFER");
  return all ? 0 : 1;
}
