// pto/runtime/balanced_planner.hpp - a cost-aware planner that balances work
// across cores (beside the spec's WorkPlanner, which stays as specified).
//
// The spec's planner picks one chunk size for the whole batch; once
// batch x heads fills its budget it stops splitting, and on skewed lengths
// one long request dominates the step. This planner plans per core instead:
//
// * Sweep (default). The rows (request x KV head, in order) are laid end to
//   end and cut into one contiguous range per core, each holding the same
//   cost: KV tokens (times the request's query tokens, when given) + a
//   fixed overhead per work unit + a merge cost per extra piece of a split
//   row. A row is cut only at a KV block boundary, and only where a core
//   fills up, so at most one row per core boundary is split.
//   O(batch + cores); deterministic.
// * Batch-invariant. A row's chunk boundaries depend only on its own length
//   (pieces of `invariant_chunk` tokens, block aligned); pieces are then
//   dealt to cores in order, each core filled to the average cost.
//
// Output: the spec's 24-byte descriptors (FIRST/INIT on a row's first piece,
// LAST on its last; params: request, KV head, kv_start, kv_len), in row
// order; per-core work lists in CSR form (core_indptr[N+1], core_items) for a
// persistent kernel that walks its own list; and the merge plan: for each
// row, the descriptors whose partial results combine into it, in KV order
// (merge_indptr: a row's pieces are contiguous). Both planners place
// contiguous descriptor ranges on cores in order, so core_items is the
// identity; it is filled for consumers that walk it.
#ifndef PTO_RUNTIME_BALANCED_PLANNER_HPP
#define PTO_RUNTIME_BALANCED_PLANNER_HPP

#include "pto/runtime/work_descriptor.hpp"
#include "pto/runtime/work_planner.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <cstdint>
#include <vector>

namespace pto {
namespace runtime {

/// The cost of a plan, in KV-token units.
struct CostModel {
  int64_t per_unit = 64;  // fixed overhead of one work unit
  int64_t per_token = 1;  // per KV token
  int64_t per_merge = 64; // per extra piece of a split row (its merge)

  /// One piece of a row: its tokens' cost (per_token x KV tokens x query
  /// tokens), a unit, and a merge unless it is the row's first piece. What
  /// the planner charges a core, and what plan_svg draws.
  constexpr int64_t piece(int64_t token_cost, bool first) const {
    return per_unit + token_cost + (first ? 0 : per_merge);
  }
};

/// The balanced planner's limits: beyond them a plan is UNSUPPORTED_SIZE
/// (its arithmetic is 64-bit and overflow-free within them).
constexpr int kMaxBalancedCores = 1 << 16;
constexpr int64_t kMaxCostCoefficient = int64_t(1) << 24;
constexpr int64_t kMaxPlanCost = INT64_MAX / 4;
/// Descriptors the allocating plan_balanced sizes its vectors for at most
/// (96 MiB of descriptors); more is UNSUPPORTED_SIZE.
constexpr int64_t kMaxBalancedPieces = int64_t(1) << 22;

struct BalancedConfig {
  int num_cores = 48;  // e.g. the spec's 48 vector or 24 cube cores
  int block_size = 16; // KV block: chunks never split one
  CostModel cost;
  bool batch_invariant = false;
  int invariant_chunk = 2048; // tokens per piece in batch-invariant mode
};

struct BalancedPlan {
  std::vector<WorkDescriptor> descriptors; // row order
  int count = 0;                           // descriptors used
  std::vector<int> core_indptr;            // num_cores + 1
  std::vector<int> core_items;             // descriptor indices, per core
  std::vector<int> merge_indptr;           // rows + 1: a row's pieces are
                                           // descriptors [r, r+1), KV order
  int rows = 0;
  std::vector<int64_t> core_cost; // planned cost per core
  /// balanced_lower_bound() of the same input: no plan's busiest core can
  /// cost less, so max(core_cost) / lower_bound_cost is how far this plan
  /// is from the best possible one.
  int64_t lower_bound_cost = 0;
};

/// A lower bound on any plan's makespan (its busiest core's cost) under
/// `config`'s cost model, whatever the strategy: the smallest T such that
/// every row fits in pieces of cost at most T (a row of w weighted KV
/// tokens cut into k pieces costs per_token w + k per_unit + (k - 1)
/// per_merge, so it needs the smallest k with that <= k T) and all rows
/// fit in num_cores x T. Block boundaries are ignored, which only lowers
/// the bound. A binary search over T of O(batch) checks:
/// O(batch log(cost)). `q_lens` as plan_balanced_into's. Returns 0 when
/// nothing is to be planned and -1 on input plan_balanced_into rejects as
/// INVALID_PARAMS or beyond its cost limits.
inline int64_t balanced_lower_bound(const int *kv_lens, int batch, int kv_heads,
                                    const BalancedConfig &config,
                                    const int *q_lens = nullptr) {
  const CostModel &c = config.cost;
  if (!kv_lens || batch <= 0 || kv_heads <= 0 || config.num_cores <= 0 ||
      config.num_cores > kMaxBalancedCores || c.per_unit < 0 ||
      c.per_token <= 0 || c.per_merge < 0 || c.per_unit > kMaxCostCoefficient ||
      c.per_token > kMaxCostCoefficient || c.per_merge > kMaxCostCoefficient)
    return -1;
  // Each row's weighted tokens, and the load with one piece per row (the
  // least any plan carries).
  std::vector<int64_t> weight;
  weight.reserve(static_cast<size_t>(batch));
  int64_t one_piece = 0, widest = 0;
  for (int b = 0; b < batch; ++b) {
    const int len = kv_lens[b];
    if (len < 0 || (q_lens && len > 0 && (q_lens[b] < 1 || q_lens[b] > len)))
      return -1;
    if (len == 0)
      continue;
    int64_t w = 0, row = 0, all = 0;
    if (__builtin_mul_overflow(static_cast<int64_t>(len) *
                                   (q_lens ? q_lens[b] : 1),
                               c.per_token, &w) ||
        __builtin_add_overflow(w, c.per_unit, &row) ||
        __builtin_mul_overflow(row, int64_t(kv_heads), &all) ||
        __builtin_add_overflow(one_piece, all, &one_piece) ||
        one_piece > kMaxPlanCost)
      return -1;
    weight.push_back(w);
    widest = std::max(widest, row);
  }
  if (weight.empty())
    return 0;
  const int64_t cores = config.num_cores;
  // Whether every row fits in pieces of at most t and all of it in cores x t.
  // (A sum past int64 is past the budget: it does not fit.)
  auto fits = [&](int64_t t) {
    const int64_t room = t - c.per_unit - c.per_merge; // per extra piece
    const int64_t budget = t > INT64_MAX / cores ? INT64_MAX : t * cores;
    int64_t total = 0;
    for (int64_t w : weight) {
      int64_t load = w + c.per_unit;
      if (load > t) {
        if (room <= 0)
          return false;
        // k pieces: w + k per_unit + (k - 1) per_merge <= k t.
        const int64_t k = (w - c.per_merge + room - 1) / room;
        int64_t fixed = 0;
        if (__builtin_mul_overflow(k, c.per_unit + c.per_merge, &fixed) ||
            __builtin_add_overflow(w, fixed - c.per_merge, &load))
          return false;
      }
      int64_t rows = 0;
      if (__builtin_mul_overflow(load, int64_t(kv_heads), &rows) ||
          __builtin_add_overflow(total, rows, &total) || total > budget)
        return false;
    }
    return true;
  };
  // One piece per row fits at max(widest row, even share); no plan
  // carries less than the even share of one piece per row.
  int64_t low = (one_piece + cores - 1) / cores;
  int64_t high = std::max(widest, low);
  while (low < high) {
    const int64_t mid = low + (high - low) / 2;
    if (fits(mid))
      high = mid;
    else
      low = mid + 1;
  }
  return low;
}

namespace detail {
inline WorkDescriptor make_piece(uint32_t id, int tier, uint32_t req,
                                 uint32_t head, int64_t start, int64_t len,
                                 bool first, bool last) {
  WorkDescriptor d;
  d.work_id = id;
  d.tier = static_cast<uint8_t>(tier);
  d.flags = static_cast<uint8_t>(
      (first ? WorkDescriptor::FLAG_FIRST | WorkDescriptor::FLAG_INIT : 0) |
      (last ? WorkDescriptor::FLAG_LAST : 0));
  d.reserved = 0;
  params::Attention::set(d, req, head, static_cast<uint32_t>(start),
                         static_cast<uint32_t>(len));
  return d;
}
#if defined(__GNUC__)
typedef uint32_t u32x4 __attribute__((vector_size(16)));
#endif

/// Writes `rows` descriptors from `tmpl` at desc[n..): work ids n, n+1, ...
/// and heads 0, 1, ... (params[1]), everything else as `tmpl`; merge[i] =
/// n + i + 1 (each row one piece). Returns n + rows. Where the compiler
/// has vector types, two descriptors (48 bytes) go out as three 16-byte
/// stores: the generation is store-bound, and this halves the stores.
inline int write_rows(const WorkDescriptor &tmpl, int n, int rows,
                      WorkDescriptor *desc, int *merge) {
  static_assert(sizeof(WorkDescriptor) == 24, "the spec's 24-byte layout");
  int h = 0;
#if defined(__GNUC__)
  uint32_t w[6];
  std::memcpy(w, &tmpl, sizeof w); // work_id, tier|flags|reserved, params
  u32x4 a = {static_cast<uint32_t>(n), w[1], w[2], 0u};
  u32x4 b = {w[4], w[5], static_cast<uint32_t>(n) + 1, w[1]};
  u32x4 c = {w[2], 1u, w[4], w[5]};
  const u32x4 da = {2u, 0u, 0u, 2u}, db = {0u, 0u, 2u, 0u},
              dc = {0u, 2u, 0u, 0u};
  for (; h + 1 < rows; h += 2) {
    char *out = reinterpret_cast<char *>(desc + n + h);
    std::memcpy(out, &a, 16);
    std::memcpy(out + 16, &b, 16);
    std::memcpy(out + 32, &c, 16);
    merge[h] = n + h + 1;
    merge[h + 1] = n + h + 2;
    a += da;
    b += db;
    c += dc;
  }
#endif
  for (; h < rows; ++h) {
    desc[n + h] = tmpl;
    desc[n + h].work_id = static_cast<uint32_t>(n + h);
    desc[n + h].params[1] = static_cast<uint32_t>(h); // head_idx
    merge[h] = n + h + 1;
  }
  return n + rows;
}
} // namespace detail

/// Plans `batch` requests of `kv_lens` with `kv_heads` rows each into
/// caller-owned buffers, allocating nothing (what an AICPU planning function
/// calls every step). `tiers` selects each descriptor's tier from its
/// request's length (any type with select_tier(int): a TierConfig or a
/// TierList).
///
/// Buffers: `descs[desc_capacity]`; `core_indptr[indptr_size]`, at least
/// num_cores + 1; `merge_indptr[merge_size]`, at least rows + 1 (rows =
/// nonzero lengths x kv_heads); `core_cost[num_cores]` when not null.
/// Writes *out_count (descriptors) and, when not null, *out_rows.
///
/// `q_lens` (optional, per request): query tokens. Every query token reads
/// every KV token of its row, so a request's KV tokens cost
/// per_token x q_len (chunked prefill beside decode); null means one query
/// token each (decode). The KV length counts the new tokens, so a nonempty
/// request's q_len lies in [1, kv_len]; anything else is INVALID_PARAMS.
///
/// Errors, as the spec's planner, validated before anything is written,
/// in this order whatever the position of the offending input:
/// INVALID_PARAMS (null or non-positive sizes, negative length, bad config),
/// UNSUPPORTED_SIZE (more than kMaxBalancedCores cores, a cost coefficient
/// over kMaxCostCoefficient, a length no tier covers, a plan whose total
/// cost would not fit the planner's 64-bit arithmetic), INVALID_PARAMS again
/// for core_indptr shorter than num_cores + 1 (a buffer sized from a
/// supported core count), BUFFER_OVERFLOW (merge_indptr shorter than
/// rows + 1, or fewer descriptors than the plan may need). The sweep's
/// exact count is known only once it ran, so the capacity it needs is its
/// bound, rows + num_cores (batch-invariant: the exact piece count); on
/// overflow *out_count is that bound.
namespace detail {
/// What plan_balanced_into and plan_sweep_into check and sum before they
/// plan: the rows, the invariant pieces (times kv_heads), and the base cost
/// still to place (tokens and one unit per row; the fixed pieces and their
/// merges when batch-invariant).
struct BalancedTotals {
  int64_t rows = 0;
  int64_t invariant_units = 0;
  int64_t remaining = 0;
};

/// The validation both forms share (their "Errors" paragraph), in order,
/// before anything is written. `cuts_size` is the per-core buffer's length
/// (core_indptr or the cuts): INVALID_PARAMS below num_cores + 1.
template <typename TierCfg>
PlanResult check_balanced(const int *kv_lens, int batch, int kv_heads,
                          const BalancedConfig &config, const TierCfg &tiers,
                          int cuts_size, const int *q_lens,
                          BalancedTotals *out) {
  for (int b = 0; b < batch; ++b) {
    const int len = kv_lens[b];
    if (len < 0 || (q_lens && len > 0 && (q_lens[b] < 1 || q_lens[b] > len)))
      return PlanResult::INVALID_PARAMS;
  }
  const CostModel &c = config.cost;
  if (config.num_cores > kMaxBalancedCores ||
      c.per_unit > kMaxCostCoefficient || c.per_token > kMaxCostCoefficient ||
      c.per_merge > kMaxCostCoefficient)
    return PlanResult::UNSUPPORTED_SIZE;
  // (Checked once num_cores is within its limit, so num_cores + 1 fits.)
  if (cuts_size < config.num_cores + 1)
    return PlanResult::INVALID_PARAMS;
  const int64_t block = config.block_size;
  const int64_t piece =
      std::max<int64_t>(block, config.invariant_chunk / block * block);
  // tokens: KV tokens weighted by query tokens (the per-token cost's unit).
  // Every sum is checked: a plan whose cost does not fit is unsupported.
  int64_t tokens = 0, rows = 0, invariant_units = 0;
  bool fits = true;
  for (int b = 0; b < batch; ++b) {
    const int len = kv_lens[b];
    if (len > 0 && tiers.select_tier(len) < 0)
      return PlanResult::UNSUPPORTED_SIZE;
    const int64_t weighted =
        static_cast<int64_t>(len) * (q_lens && len > 0 ? q_lens[b] : 1);
    fits = fits && !__builtin_add_overflow(tokens, weighted, &tokens);
    rows += len > 0;
    if (config.batch_invariant) // (a division: only where it is used)
      invariant_units += (len + piece - 1) / piece;
  }
  // The total cost, with headroom for the per-core arithmetic
  // (capacity plus one split, used plus one row).
  int64_t remaining = 0;
  {
    int64_t t = 0, u = 0, m = 0;
    const int64_t units = config.batch_invariant ? invariant_units : rows;
    fits = fits && !__builtin_mul_overflow(tokens, int64_t(kv_heads), &tokens) &&
           !__builtin_mul_overflow(c.per_token, tokens, &t) &&
           !__builtin_mul_overflow(c.per_unit, units * kv_heads, &u) &&
           !__builtin_add_overflow(t, u, &remaining) &&
           (!config.batch_invariant ||
            (!__builtin_mul_overflow(
                 c.per_merge, (invariant_units - rows) * kv_heads, &m) &&
             !__builtin_add_overflow(remaining, m, &remaining))) &&
           remaining <= kMaxPlanCost;
  }
  if (!fits)
    return PlanResult::UNSUPPORTED_SIZE;
  out->rows = rows * kv_heads;
  out->invariant_units = invariant_units * kv_heads;
  out->remaining = remaining;
  return PlanResult::OK;
}

/// A sweep core's capacity: its fair share of the base cost still to
/// place over the cores left, plus room for one split (`split`: per_unit +
/// per_merge; 0 when batch-invariant). Recomputed per core, so rounding
/// slack never piles up on the last one.
inline int64_t core_capacity(int64_t remaining, int cores_left,
                             int64_t split) {
  return (remaining + cores_left - 1) / cores_left + split;
}

/// Where the sweep cuts a row that does not fit: the KV tokens `free` cost
/// units buy at `per_token` each, rounded to the nearest block, so that
/// block rounding does not leave every core short and pile up on the last.
inline int64_t cut_room(int64_t free, int64_t per_token, int64_t block) {
  return free > 0 ? (free / per_token + block / 2) / block * block : 0;
}
} // namespace detail

template <typename TierCfg>
PlanResult plan_balanced_into(const int *kv_lens, int batch, int kv_heads,
                              const BalancedConfig &config,
                              const TierCfg &tiers, WorkDescriptor *descs,
                              int desc_capacity, int *core_indptr,
                              int indptr_size, int *merge_indptr,
                              int merge_size, int *out_count,
                              int *out_rows = nullptr,
                              int64_t *core_cost = nullptr,
                              const int *q_lens = nullptr) {
  if (!out_count || !kv_lens || batch <= 0 || kv_heads <= 0 ||
      config.num_cores <= 0 || config.block_size <= 0 ||
      config.invariant_chunk <= 0 || config.cost.per_unit < 0 ||
      config.cost.per_token <= 0 || config.cost.per_merge < 0 ||
      !core_indptr || !merge_indptr || desc_capacity < 0 ||
      (desc_capacity > 0 && !descs))
    return PlanResult::INVALID_PARAMS;
  detail::BalancedTotals totals;
  const PlanResult checked =
      detail::check_balanced(kv_lens, batch, kv_heads, config, tiers,
                             indptr_size, q_lens, &totals);
  if (checked != PlanResult::OK)
    return checked;
  const CostModel &c = config.cost;
  const int cores = config.num_cores;
  const int64_t block = config.block_size;
  const int64_t piece =
      std::max<int64_t>(block, config.invariant_chunk / block * block);
  const int64_t rows = totals.rows, invariant_units = totals.invariant_units;
  int64_t remaining = totals.remaining;

  const bool invariant = config.batch_invariant;
  // Upper bound on pieces: one per row, plus one split per core boundary
  // (sweep) or the invariant pieces.
  const int64_t max_pieces = invariant ? invariant_units : rows + cores;
  if (merge_size < rows + 1 || desc_capacity < max_pieces) {
    *out_count = static_cast<int>(std::min<int64_t>(max_pieces, INT32_MAX));
    return PlanResult::BUFFER_OVERFLOW;
  }
  WorkDescriptor *desc = descs;
  int *merge = merge_indptr;
  int n = 0, row = 0, core = 0;
  merge[0] = 0;
  core_indptr[0] = 0;
  // The base cost still to place: tokens and one unit per piece the plan
  // needs anyway (one per row in the sweep; the fixed pieces and their
  // merges when batch-invariant). Each core's capacity is its fair share of
  // what remains, recomputed per core so rounding slack never piles up at
  // the end; a sweep core may also take one split (an extra unit + merge).
  const int64_t split = invariant ? 0 : c.per_unit + c.per_merge;
  int64_t capacity = detail::core_capacity(remaining, cores, split);
  int64_t used = 0;
  auto next_core = [&] {
    if (core_cost)
      core_cost[core] = used;
    core_indptr[++core] = n;
    used = 0;
    capacity = detail::core_capacity(remaining, cores - core, split);
  };

  for (int b = 0; b < batch; ++b) {
    const int64_t len = kv_lens[b];
    if (len == 0)
      continue;
    const int tier = tiers.select_tier(static_cast<int>(len));
    // This request's cost per KV token.
    const int64_t per_token = c.per_token * (q_lens ? q_lens[b] : 1);
    int h0 = 0;
    if (!invariant) {
      // Fast path: the request's rows are alike; write every one that fits
      // whole on this core (what the per-row loop below would do) from one
      // template, changing only the work id and the head. A compare per
      // row, no division: the row is written anyway.
      const int64_t row_cost = c.piece(per_token * len, true);
      const int64_t room = core == cores - 1 ? INT64_MAX : capacity - used;
      const WorkDescriptor whole =
          detail::make_piece(0, tier, b, 0, 0, len, true, true);
      int fit = 0;
      for (int64_t taken = row_cost; fit < kv_heads && taken <= room;
           ++fit, taken += row_cost) {
      }
      n = detail::write_rows(whole, n, fit, desc, merge + row + 1);
      row += fit;
      h0 = fit;
      used += h0 * row_cost;
      remaining -= h0 * row_cost;
    }
    for (int h = h0; h < kv_heads; ++h) {
      if (invariant) {
        // Boundaries from the row's own length; whole pieces per core.
        for (int64_t start = 0; start < len; start += piece) {
          const int64_t size = std::min(piece, len - start);
          const int64_t cost = c.piece(per_token * size, start == 0);
          if (used > 0 && used + cost / 2 > capacity && core < cores - 1)
            next_core();
          desc[n] = detail::make_piece(n, tier, b, h, start, size, start == 0,
                                       start + size >= len);
          ++n;
          used += cost;
          remaining -= cost;
        }
      } else {
        // Sweep: fill this core; cut the row at a block boundary when full.
        int64_t start = 0;
        // Places [start, start + size) on this core.
        auto place = [&](int64_t size, bool last) {
          desc[n] = detail::make_piece(n, tier, b, h, start, size, start == 0,
                                       last);
          ++n;
          used += c.piece(per_token * size, start == 0);
          remaining -= per_token * size + (start == 0 ? c.per_unit : 0);
          start += size;
        };
        while (start < len) {
          const int64_t rest = len - start;
          // What still fits on this core, in cost units; divide only when
          // the row must be cut (at most once per core), not per row.
          const int64_t free = capacity - used - c.piece(0, start == 0);
          if (core == cores - 1 || per_token * rest <= free) {
            place(rest, true);
            break;
          }
          const int64_t room = detail::cut_room(free, per_token, block);
          if (room >= rest) {
            place(rest, true);
            break;
          }
          if (room >= block)
            place(room, false);
          next_core();
        }
      }
      merge[++row] = n;
    }
  }
  // Close the last used core; the rest are empty.
  if (core_cost) {
    core_cost[core] = used;
    for (int i = core + 1; i < cores; ++i)
      core_cost[i] = 0;
  }
  for (int i = core + 1; i <= cores; ++i)
    core_indptr[i] = n;
  *out_count = n;
  if (out_rows)
    *out_rows = row;
  return PlanResult::OK;
}

/// The same plan into a BalancedPlan, sizing its vectors (host code and
/// tests). Errors as plan_balanced_into; `out` is left as it was on error.
template <typename TierCfg>
PlanResult plan_balanced(const int *kv_lens, int batch, int kv_heads,
                         const BalancedConfig &config, const TierCfg &tiers,
                         BalancedPlan *out, const int *q_lens = nullptr) {
  if (!out || !kv_lens || batch <= 0 || kv_heads <= 0 ||
      config.num_cores <= 0)
    return PlanResult::INVALID_PARAMS;
  // Size from the bound the planner asks for (a dry run with no room),
  // within kMaxBalancedPieces.
  // (Past the core limit the dry run reports it, after the lengths.)
  int bound = 0;
  int probe_indptr_size = std::min(config.num_cores, kMaxBalancedCores) + 1;
  std::vector<int> indptr(probe_indptr_size);
  int no_merge = 0;
  PlanResult r = plan_balanced_into(kv_lens, batch, kv_heads, config, tiers,
                                    nullptr, 0, indptr.data(),
                                    probe_indptr_size, &no_merge, 0, &bound,
                                    nullptr, nullptr, q_lens);
  if (r == PlanResult::OK && bound == 0) {
    // Nothing to plan: every length is zero.
  } else if (r != PlanResult::BUFFER_OVERFLOW) {
    return r;
  }
  if (bound > kMaxBalancedPieces)
    return PlanResult::UNSUPPORTED_SIZE;
  // Rows never exceed the pieces.
  const int merge_size = bound + 1;
  std::vector<int> merge(merge_size);
  BalancedPlan &p = *out;
  if (static_cast<int>(p.descriptors.size()) < bound)
    p.descriptors.resize(bound);
  p.core_indptr.swap(indptr);
  p.merge_indptr.swap(merge);
  p.core_cost.assign(config.num_cores, 0);
  r = plan_balanced_into(kv_lens, batch, kv_heads, config, tiers,
                         p.descriptors.data(),
                         static_cast<int>(p.descriptors.size()),
                         p.core_indptr.data(), probe_indptr_size,
                         p.merge_indptr.data(), merge_size, &p.count, &p.rows,
                         p.core_cost.data(), q_lens);
  if (r != PlanResult::OK)
    return r;
  p.merge_indptr.resize(p.rows + 1);
  p.lower_bound_cost =
      balanced_lower_bound(kv_lens, batch, kv_heads, config, q_lens);
  // Cores run contiguous ranges in descriptor order: the work lists are the
  // identity, kept explicit for persistent kernels that walk core_items.
  p.core_items.resize(p.count);
  for (int i = 0; i < p.count; ++i)
    p.core_items[i] = i;
  return PlanResult::OK;
}

/// The sweep plan without its descriptors: one point per core in
/// (request, KV head, KV position) order. Core c runs every KV position from
/// cuts[c] up to cuts[c + 1]; `desc` counts the descriptors before the
/// point, so it is the first work id core c runs in the materialized plan.
/// A point at a row's start has kv 0 and names a nonempty request, or
/// request == batch past the last row.
struct SweepCut {
  int32_t request = 0;
  int32_t head = 0;
  int32_t kv = 0;
  int32_t desc = 0;
};

/// The balanced plan as cuts, not descriptors: the plan plan_balanced_into
/// writes, described by num_cores + 1 points instead of one descriptor per
/// piece. An AICPU planning function that calls this writes O(cores) bytes;
/// each AICore expands its own descriptors from its two cuts and the
/// lengths it already holds (for_each_sweep_piece). The sweep jumps over
/// the rows a core takes whole, a compare per request, so the plan costs
/// O(batch + cores), whatever the number of heads; the batch-invariant mode
/// walks its pieces, O(pieces), still writing only the cuts.
///
/// `cuts[cuts_size]`, at least num_cores + 1; `core_cost[num_cores]` when
/// not null. Writes *out_count (the descriptors the plan holds) and, when
/// not null, *out_rows. Errors as plan_balanced_into's, before anything is
/// written, with the cuts in place of core_indptr; a plan of more than
/// INT32_MAX pieces (work ids) is UNSUPPORTED_SIZE. There is no descriptor
/// or merge buffer, so no BUFFER_OVERFLOW.
template <typename TierCfg>
PlanResult plan_sweep_into(const int *kv_lens, int batch, int kv_heads,
                           const BalancedConfig &config, const TierCfg &tiers,
                           SweepCut *cuts, int cuts_size, int *out_count,
                           int *out_rows = nullptr,
                           int64_t *core_cost = nullptr,
                           const int *q_lens = nullptr) {
  if (!out_count || !kv_lens || batch <= 0 || kv_heads <= 0 ||
      config.num_cores <= 0 || config.block_size <= 0 ||
      config.invariant_chunk <= 0 || config.cost.per_unit < 0 ||
      config.cost.per_token <= 0 || config.cost.per_merge < 0 || !cuts)
    return PlanResult::INVALID_PARAMS;
  detail::BalancedTotals totals;
  const PlanResult checked = detail::check_balanced(
      kv_lens, batch, kv_heads, config, tiers, cuts_size, q_lens, &totals);
  if (checked != PlanResult::OK)
    return checked;
  const bool invariant = config.batch_invariant;
  const int cores = config.num_cores;
  if ((invariant ? totals.invariant_units : totals.rows + cores) > INT32_MAX)
    return PlanResult::UNSUPPORTED_SIZE;
  const CostModel &c = config.cost;
  const int64_t block = config.block_size;
  const int64_t piece =
      std::max<int64_t>(block, config.invariant_chunk / block * block);
  const int64_t rows = totals.rows;
  const int64_t split = invariant ? 0 : c.per_unit + c.per_merge;
  int64_t remaining = totals.remaining;
  // The position: KV position k of row (b, h); r rows before that row; n
  // descriptors before the position.
  int b = 0, h = 0;
  int64_t k = 0, r = 0, n = 0;
  auto skip_empty = [&] {
    while (b < batch && kv_lens[b] == 0)
      ++b;
  };
  auto next_row = [&] {
    k = 0;
    ++r;
    if (++h == kv_heads) {
      h = 0;
      ++b;
      skip_empty();
    }
  };
  auto per_token = [&](int at) {
    return c.per_token * (q_lens ? q_lens[at] : 1);
  };
  skip_empty();
  for (int core = 0; core < cores; ++core) {
    cuts[core] = SweepCut{b, h, static_cast<int32_t>(k),
                          static_cast<int32_t>(n)};
    int64_t used = 0;
    if (b < batch && core == cores - 1 && !invariant) {
      // The last core takes the rest: each whole row at its base cost, a
      // row cut before it with its merge.
      used = remaining + (k > 0 ? split : 0);
      n += rows - r;
      b = batch;
    } else if (b < batch && invariant) {
      // Whole pieces per core, each taken while the core is under its
      // capacity by more than half the piece (plan_balanced_into's rule).
      const int64_t capacity =
          detail::core_capacity(remaining, cores - core, 0);
      while (b < batch) {
        const int64_t len = kv_lens[b];
        const int64_t size = std::min(piece, len - k);
        const int64_t cost = c.piece(per_token(b) * size, k == 0);
        if (used > 0 && used + cost / 2 > capacity && core < cores - 1)
          break;
        used += cost;
        remaining -= cost;
        ++n;
        k += size;
        if (k == len)
          next_row();
      }
    } else if (b < batch) {
      const int64_t capacity =
          detail::core_capacity(remaining, cores - core, split);
      bool full = false;
      // 1. The rest of a row cut on an earlier core: whole if it fits (or
      // its cut rounds up to its end), else cut again.
      if (k > 0) {
        const int64_t rest = kv_lens[b] - k, pt = per_token(b);
        const int64_t free = capacity - split;
        int64_t take = rest;
        if (pt * rest > free) {
          const int64_t room = detail::cut_room(free, pt, block);
          take = room >= rest ? rest : room >= block ? room : 0;
        }
        if (take > 0) {
          used = split + pt * take;
          remaining -= pt * take;
          ++n;
        }
        if (take < rest) {
          k += take;
          full = true;
        } else {
          next_row();
        }
      }
      // 2. Whole rows while they fit: a request's rows are alike, so a
      // compare per request, a division where it stops.
      while (!full && b < batch) {
        const int64_t row_cost = c.piece(per_token(b) * kv_lens[b], true);
        const int64_t left = kv_heads - h;
        const int64_t budget = capacity - used;
        const int64_t fit =
            left * row_cost <= budget ? left
            : budget >= row_cost      ? budget / row_cost
                                      : 0;
        used += fit * row_cost;
        remaining -= fit * row_cost;
        n += fit;
        r += fit;
        if (fit < left) {
          h += static_cast<int>(fit);
          break;
        }
        h = 0;
        ++b;
        skip_empty();
      }
      // 3. The row that does not fit whole: cut at a block boundary (or
      // whole, when the cut rounds up to its end).
      if (!full && b < batch) {
        const int64_t len = kv_lens[b], pt = per_token(b);
        const int64_t room =
            detail::cut_room(capacity - used - c.per_unit, pt, block);
        const int64_t take = room >= len ? len : room >= block ? room : 0;
        if (take > 0) {
          used += c.piece(pt * take, true);
          remaining -= c.per_unit + pt * take;
          ++n;
          k = take;
          if (take == len)
            next_row();
        }
      }
    }
    if (core_cost)
      core_cost[core] = used;
  }
  cuts[cores] = SweepCut{b, h, static_cast<int32_t>(k),
                         static_cast<int32_t>(n)};
  *out_count = static_cast<int>(n);
  if (out_rows)
    *out_rows = static_cast<int>(rows);
  return PlanResult::OK;
}

/// Calls `fn(descriptor)` for every piece from `from` up to `to` (a core's
/// cuts[c] and cuts[c + 1], from plan_sweep_into with the same lengths,
/// heads, config and tiers), in order: exactly the descriptors the
/// materialized plan holds at [from.desc, to.desc). What a persistent core
/// runs over its own share; it reads the lengths of the requests it visits
/// and nothing else. Returns the number of pieces.
template <typename TierCfg, typename Fn>
int for_each_sweep_piece(const int *kv_lens, int batch, int kv_heads,
                         const BalancedConfig &config, const TierCfg &tiers,
                         SweepCut from, SweepCut to, Fn &&fn) {
  const int64_t block = config.block_size;
  const int64_t piece =
      std::max<int64_t>(block, config.invariant_chunk / block * block);
  int b = from.request, h = from.head;
  int64_t k = from.kv;
  uint32_t id = static_cast<uint32_t>(from.desc);
  const int end_b = std::min(to.request, batch);
  while (b < end_b || (b == to.request && b < batch &&
                       (h < to.head || (h == to.head && k < to.kv)))) {
    const int64_t len = kv_lens[b];
    if (len <= 0) {
      ++b;
      h = 0;
      continue;
    }
    const int tier = tiers.select_tier(static_cast<int>(len));
    int64_t end = b == to.request && h == to.head ? to.kv : len;
    if (config.batch_invariant) // pieces end on the row's own grid
      end = std::min(end, (k / piece + 1) * piece);
    fn(detail::make_piece(id++, tier, static_cast<uint32_t>(b),
                          static_cast<uint32_t>(h), k, end - k, k == 0,
                          end == len));
    k = end;
    if (k == len) {
      k = 0;
      if (++h == kv_heads) {
        h = 0;
        ++b;
      }
    }
  }
  return static_cast<int>(id - static_cast<uint32_t>(from.desc));
}

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_BALANCED_PLANNER_HPP
