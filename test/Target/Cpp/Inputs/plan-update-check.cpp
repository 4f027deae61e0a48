// Driver for cpusim-plan-update.mlir: the emitted wsp.update_plan against
// the emitted fresh plan (wsp.plan_chunk_size + wsp.generate, checked
// against pto::runtime::WorkPlanner by cpusim-planner.mlir) over random
// decode steps. When an update is possible, and which descriptors it need
// not write, is worked out here again, naively, from the op's contract.
// Beside each plan, the same plan as rows (wsp.generate / wsp.update_plan
// ... rows): expanded by pto::runtime::SpecRows, it must be the fresh
// plan's descriptors, byte for byte, and an update must leave the first ids
// before the first row that moved and the unchanged lengths unwritten.
#include <pto/runtime/runtime.hpp>

#include <algorithm>
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
using FreshRows = int32_t (*)(MemRef<int32_t, 1>, int64_t, int64_t, int64_t,
                              MemRef<rt::WorkDescriptor, 1>,
                              MemRef<int32_t, 1>, MemRef<int64_t, 1>);
using UpdateRows = bool (*)(MemRef<int32_t, 1>, MemRef<int32_t, 1>, int64_t,
                            int64_t, int64_t, int64_t, int64_t,
                            MemRef<rt::WorkDescriptor, 1>, MemRef<int32_t, 1>,
                            MemRef<int64_t, 1>);
using Expand = std::vector<rt::WorkDescriptor> (*)(const std::vector<int32_t> &);

using AttentionTiers =
    rt::TierConfig<rt::Tier<0, 1, 1024>, rt::Tier<1, 1025, 4096>,
                   rt::Tier<2, 4097, 16384>>;
using ExpertTiers = rt::TierConfig<rt::Tier<0, 1, 64>, rt::Tier<1, 65, 65536>>;

/// The descriptors a plan as rows expands to, in order.
template <typename Tiers>
std::vector<rt::WorkDescriptor> expand(const std::vector<int32_t> &rows) {
  const rt::SpecRows<Tiers> plan(rows.data(), int64_t(rows.size()), {});
  std::vector<rt::WorkDescriptor> out;
  plan.for_each(0, plan.count(), 1,
                [&](const rt::WorkDescriptor &d) { out.push_back(d); });
  return out;
}

/// The first n descriptors of `fresh`, byte for byte.
bool expands_to(const std::vector<rt::WorkDescriptor> &got,
                const std::vector<rt::WorkDescriptor> &fresh, int64_t n) {
  return int64_t(got.size()) == n &&
         std::memcmp(got.data(), fresh.data(),
                     sizeof(rt::WorkDescriptor) * size_t(n)) == 0;
}

struct Variant {
  const char *name;
  Fresh fresh;
  Update update;
  FreshRows fresh_rows;
  UpdateRows update_rows;
  Expand expand;
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
       &wsp_gen::update_balanced, &wsp_gen::fresh_rows_balanced,
       &wsp_gen::update_rows_balanced, &expand<AttentionTiers>, {1024, 4096, 16384}, 0, 16384, false, 64,
       4096, 512},
      {"attention/unbalanced", &wsp_gen::fresh_unbalanced,
       &wsp_gen::update_unbalanced, &wsp_gen::fresh_rows_unbalanced,
       &wsp_gen::update_rows_unbalanced, &expand<AttentionTiers>, {1024, 4096, 16384}, 0, 16384, true, 32,
       8192, 300},
      {"attention/window", &wsp_gen::fresh_window, &wsp_gen::update_window,
       &wsp_gen::fresh_rows_window, &wsp_gen::update_rows_window,
       &expand<AttentionTiers>, {1024, 4096, 16384}, 700, 4000, false, 64, 4096, 400},
      {"moe/per-expert", &wsp_gen::fresh_moe, &wsp_gen::update_moe,
       &wsp_gen::fresh_rows_moe, &wsp_gen::update_rows_moe,
       &expand<ExpertTiers>, {64, 65536}, 0, 2000, false, 16, 512, 256},
      {"attention/fixed-chunk", &wsp_gen::fresh_fixed, &wsp_gen::update_fixed,
       &wsp_gen::fresh_rows_fixed, &wsp_gen::update_rows_fixed,
       &expand<AttentionTiers>, {1024, 4096, 16384}, 0, 16384, true, 96, 96, 1 << 30},
  };
  std::mt19937 rng(2027);
  const int capacity = 4096, max_batch = 32;
  using L = rt::SpecRowsLayout;
  const int rows_size = int(L::size(max_batch));
  bool all = true;
  for (const Variant &v : variants) {
    // Updates in all, and those that moved rows (a count changed, or a
    // request joined).
    int steps = 0, updated = 0, moving = 0, failures = 0, rows_updated = 0;
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
    // The plan as rows, beside the descriptors.
    std::vector<int32_t> rows(rows_size), rows_before(rows_size);
    auto plan_rows = [&](std::vector<int> &lens, int heads, int queries,
                         int64_t *out) {
      const int batch = static_cast<int>(lens.size());
      std::vector<rt::WorkDescriptor> unused(capacity);
      return v.fresh_rows(MemRef<int32_t, 1>{lens.data(), {batch}}, batch,
                          heads, queries,
                          MemRef<rt::WorkDescriptor, 1>{unused.data(),
                                                        {capacity}},
                          MemRef<int32_t, 1>{rows.data(), {rows_size}},
                          MemRef<int64_t, 1>{out, {2}});
    };
    auto update_rows = [&](std::vector<int> &lens, std::vector<int> &planned,
                           int heads, int queries, int64_t chunk,
                           int into_capacity, int rows_held, int64_t *out) {
      const int batch = static_cast<int>(lens.size()),
                held = static_cast<int>(planned.size());
      std::vector<rt::WorkDescriptor> unused(capacity);
      return v.update_rows(
          MemRef<int32_t, 1>{lens.data(), {batch}},
          MemRef<int32_t, 1>{planned.data(), {held}}, batch, held, heads,
          queries, chunk,
          MemRef<rt::WorkDescriptor, 1>{unused.data(), {into_capacity}},
          MemRef<int32_t, 1>{rows.data(), {rows_held}},
          MemRef<int64_t, 1>{out, {2}});
    };
    auto report = [&](bool ok, const char *what, int trial, int step) {
      if (!ok && failures++ < 5)
        std::printf("%s ROWS MISMATCH (%s): trial %d step %d\n", v.name, what,
                    trial, step);
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
      {
        int64_t rows_out[2] = {0, 0};
        const int32_t status = plan_rows(lens, heads, queries, rows_out);
        report(status == 0 && rows_out[0] == out[0] &&
                   rows_out[1] == out[1] && expands_to(v.expand(rows), descs, out[1]),
               "fresh", trial, -1);
      }
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
        int first_moved = batch;
        {
          size_t at = 0;
          for (int b = 0; b < batch; ++b) {
            const int64_t n = chunks_of(eff[b], chunk);
            if (b >= held) {
              moves = true;
              first_moved = b;
              break;
            }
            const int then = effective(v, planned[b], queries);
            if (n != chunks_of(then, chunk)) {
              moves = true;
              first_moved = b;
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
        // The plan as rows: updated when the descriptors are; what it need
        // not write (the first ids before the first row that moved, the
        // lengths that did not change) poisoned.
        {
          std::vector<size_t> fixed;
          for (int b = 0; b < std::min(first_moved, held); ++b) {
            fixed.push_back(size_t(L::kHeader + 2 * b));
            if (lens[b] == planned[b])
              fixed.push_back(size_t(L::kHeader + 2 * b + 1));
          }
          for (size_t i : fixed)
            rows[i] ^= 0x5a5a5a5a;
          rows_before = rows;
          int64_t rows_got[2] = {0, 0};
          const bool rows_did = update_rows(lens, planned, heads, queries,
                                            chunk, capacity, rows_size,
                                            rows_got);
          bool rows_ok = rows_did == did;
          if (!rows_did)
            rows_ok = rows_ok && rows == rows_before && rows_got[1] == 0;
          for (size_t i : fixed) {
            rows_ok = rows_ok && rows[i] == rows_before[i];
            rows[i] ^= 0x5a5a5a5a;
          }
          if (rows_did) {
            rows_ok = rows_ok && rows_got[1] == want[1] &&
                      expands_to(v.expand(rows), fresh, want[1]);
            ++rows_updated;
          } else { // planned afresh as rows
            int64_t rows_out[2] = {0, 0};
            const int32_t rows_status =
                plan_rows(lens, heads, queries, rows_out);
            rows_ok = rows_ok && rows_status == status &&
                      (status != 0 ||
                       (rows_out[1] == want[1] &&
                        expands_to(v.expand(rows), fresh, want[1])));
          }
          report(rows_ok, "update", trial, step);
        }
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
      // As rows: the same refusals, and a rows buffer one entry short of
      // the batch's (INVALID_PARAMS from the plan, no update); nothing
      // written.
      std::vector<int> two = {40, 70};
      plan_rows(two, 2, 1, out);
      const std::vector<int32_t> held_rows = rows;
      lens = {41, 71};
      const bool rows_negative =
          update_rows(grown, bad, 2, 1, 64, capacity, rows_size, got);
      const bool rows_small =
          update_rows(lens, two, 2, 1, out[0], int(out[1] - 1), rows_size, got);
      const bool rows_short = update_rows(lens, two, 2, 1, out[0], capacity,
                                          int(L::size(2) - 1), got);
      std::vector<int> three = {40, 70, 9};
      rows.assign(rows_size, 77);
      int64_t short_out[2] = {5, 5};
      std::vector<rt::WorkDescriptor> unused(capacity);
      const int32_t short_status = v.fresh_rows(
          MemRef<int32_t, 1>{three.data(), {3}}, 3, 2, 1,
          MemRef<rt::WorkDescriptor, 1>{unused.data(), {capacity}},
          MemRef<int32_t, 1>{rows.data(), {int(L::size(3) - 1)}},
          MemRef<int64_t, 1>{short_out, {2}});
      const bool untouched_short =
          std::all_of(rows.begin(), rows.end(), [](int32_t x) { return x == 77; });
      rows = held_rows;
      if (rows_negative || rows_small || rows_short || short_status != 3 ||
          short_out[1] != 0 || !untouched_short) {
        std::printf("%s: a broken precondition was kept as rows (negative "
                    "%d, small buffer %d, short rows %d, short fresh rows "
                    "status %d)\n",
                    v.name, rows_negative, rows_small, rows_short, short_status);
        ++failures;
      }
    }
    std::printf("%s: %d steps, %d updated in place (%d moving rows), %d as "
                "rows, %s\n",
                v.name, steps, updated, moving, rows_updated,
                failures ? "MISMATCHES" : "all equal to a fresh plan");
    all &= failures == 0;
  }
  // A dispatch of a plan as rows: every descriptor runs once, as the fresh
  // plan has it, and the buffer holds the plan after.
  {
    std::vector<int> lens = {0, 57, 3, 1400, 0, 120, 33, 1, 4100, 260};
    const int batch = int(lens.size()), heads = 3;
    std::vector<rt::WorkDescriptor> fresh(capacity), descs(capacity);
    int64_t want[2] = {0, 0};
    const int32_t status = wsp_gen::fresh_unbalanced(
        MemRef<int32_t, 1>{lens.data(), {batch}}, batch, heads, 1,
        MemRef<rt::WorkDescriptor, 1>{fresh.data(), {capacity}},
        MemRef<int64_t, 1>{want, {2}});
    std::vector<int32_t> rows(rows_size), out(8 * capacity, -1);
    const int32_t ran = wsp_gen::dispatch_rows(
        MemRef<int32_t, 1>{lens.data(), {batch}}, batch, heads,
        MemRef<rt::WorkDescriptor, 1>{descs.data(), {capacity}},
        MemRef<int32_t, 1>{rows.data(), {rows_size}},
        MemRef<int32_t, 1>{out.data(), {8 * capacity}});
    bool ok = status == 0 && ran == 0 && want[1] > 0 &&
              std::memcmp(descs.data(), fresh.data(),
                          sizeof(rt::WorkDescriptor) * size_t(want[1])) == 0;
    for (int64_t i = 0; ok && i < want[1]; ++i) {
      const rt::WorkDescriptor &d = fresh[i];
      const int32_t row[8] = {int32_t(d.work_id),
                              d.tier,
                              d.is_first(),
                              d.is_last(),
                              (d.flags & rt::WorkDescriptor::FLAG_INIT) != 0,
                              int32_t(d.params[0]),
                              int32_t(d.params[1]),
                              int32_t(d.params[2])};
      ok = std::memcmp(&out[8 * i], row, sizeof row) == 0;
    }
    std::printf("dispatch as rows: %lld descriptors, %s\n",
                (long long)want[1],
                ok ? "each run as the fresh plan has it" : "MISMATCH");
    all &= ok;
  }
  std::printf("%s\n", all ? "all variants equal" : "SOME VARIANTS DIFFER");
  return all ? 0 : 1;
}
