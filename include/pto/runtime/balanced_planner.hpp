// pto/runtime/balanced_planner.hpp - a cost-aware planner that balances work
// across cores (beside the spec's WorkPlanner, which stays as specified).
//
// The spec's planner picks one chunk size for the whole batch; once
// batch x heads fills its budget it stops splitting, and on skewed lengths
// one long request dominates the step. This planner plans per core instead:
//
// * Sweep (default). The rows (request x KV head, in order) are laid end to
//   end in cost: a fixed overhead per work unit + KV tokens (times the
//   request's query tokens, when given). Core c starts at c times the even
//   share, moved to the nearest KV block boundary of the row it falls in;
//   a piece after a cut also pays a merge. At most one row per core
//   boundary is split. Each core's start depends on its position alone, so
//   the plan is one pass over the requests, O(batch + cores), and can be
//   kept as its cuts (plan_sweep_into: num_cores + 1 points, each core
//   expanding its own descriptors) instead of its descriptors.
//   Deterministic.
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
} // namespace detail

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
  const bool invariant = config.batch_invariant;
  const int64_t block = config.block_size;
  const int64_t piece =
      std::max<int64_t>(block, config.invariant_chunk / block * block);
  uint32_t id = static_cast<uint32_t>(from.desc);
  // The pieces of row (b, h) over [k, end): one, or the invariant grid's.
  auto pieces = [&](int b, int h, int64_t k, int64_t end, int64_t len,
                    int tier) {
    while (k < end) {
      const int64_t stop =
          invariant ? std::min(end, (k / piece + 1) * piece) : end;
      fn(detail::make_piece(id++, tier, static_cast<uint32_t>(b),
                            static_cast<uint32_t>(h), k, stop - k, k == 0,
                            stop == len));
      k = stop;
    }
  };
  for (int b = from.request; b < batch && b <= to.request; ++b) {
    const int64_t len = kv_lens[b];
    if (len <= 0)
      continue;
    const bool last = b == to.request;
    int h = b == from.request ? from.head : 0;
    int64_t k = b == from.request ? from.kv : 0;
    const int whole_end = last ? to.head : kv_heads; // rows that run to len
    const int tier = tiers.select_tier(static_cast<int>(len));
    if (k > 0 && h < whole_end) { // the rest of a row cut before `from`
      pieces(b, h++, k, len, len, tier);
      k = 0;
    }
    if (invariant) {
      for (; h < whole_end; ++h)
        pieces(b, h, 0, len, len, tier);
    } else {
      // Whole rows: one template, the work id and head changing.
      WorkDescriptor whole =
          detail::make_piece(0, tier, static_cast<uint32_t>(b), 0, 0, len,
                             true, true);
      for (; h < whole_end; ++h) {
        whole.work_id = id++;
        whole.params[1] = static_cast<uint32_t>(h); // head_idx
        fn(whole);
      }
    }
    if (last && to.kv > 0) // the start of a row cut at `to`
      pieces(b, h, k, to.kv, len, tier);
  }
  return static_cast<int>(id - static_cast<uint32_t>(from.desc));
}

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

/// The descriptors a plan may need, which a descriptor buffer must hold:
/// one per row plus one split per core boundary (sweep), or the invariant
/// pieces. (The sweep's exact count is known only once it ran.)
inline int64_t max_pieces(const BalancedTotals &totals,
                          const BalancedConfig &config) {
  return config.batch_invariant ? totals.invariant_units
                                : totals.rows + config.num_cores;
}

/// INVALID_PARAMS of both forms' shared arguments: null lengths,
/// non-positive sizes, a bad config.
inline bool bad_arguments(const int *kv_lens, int batch, int kv_heads,
                          const BalancedConfig &config) {
  return !kv_lens || batch <= 0 || kv_heads <= 0 || config.num_cores <= 0 ||
         config.block_size <= 0 || config.invariant_chunk <= 0 ||
         config.cost.per_unit < 0 || config.cost.per_token <= 0 ||
         config.cost.per_merge < 0;
}

/// The validation both forms share (their "Errors" paragraph), in order,
/// before anything is written. `cuts_size` is the per-core buffer's length
/// (core_indptr or the cuts): INVALID_PARAMS below num_cores + 1.
template <typename TierCfg>
PlanResult check_balanced(const int *kv_lens, int batch, int kv_heads,
                          const BalancedConfig &config, const TierCfg &tiers,
                          int cuts_size, const int *q_lens,
                          BalancedTotals *out) {
  // Decode (no q_lens, not batch-invariant), what the AICPU runs every
  // step: one pass that only sets flags and sums, so that it vectorizes;
  // the errors are then returned in the order below. (Int64 sums of int
  // lengths cannot overflow.)
  const bool decode = !q_lens && !config.batch_invariant;
  int negative = 0, uncovered = 0, decode_rows = 0;
  uint64_t decode_tokens = 0;
  if (decode) {
    for (int b = 0; b < batch; ++b) {
      const int len = kv_lens[b];
      negative |= len < 0;
      uncovered |= len > 0 && tiers.select_tier(len) < 0;
      // (Zero-extended: what baseline x86 vectorizes.)
      decode_tokens += static_cast<uint32_t>(len > 0 ? len : 0);
      decode_rows += len > 0;
    }
  } else {
    for (int b = 0; b < batch; ++b) {
      const int len = kv_lens[b];
      negative |=
          len < 0 || (q_lens && len > 0 && (q_lens[b] < 1 || q_lens[b] > len));
    }
  }
  // Every invalid parameter before any unsupported size (the per-core
  // buffer's length in 64 bits: num_cores + 1 need not fit an int).
  if (negative || int64_t(cuts_size) < int64_t(config.num_cores) + 1)
    return PlanResult::INVALID_PARAMS;
  const CostModel &c = config.cost;
  if (config.num_cores > kMaxBalancedCores ||
      c.per_unit > kMaxCostCoefficient || c.per_token > kMaxCostCoefficient ||
      c.per_merge > kMaxCostCoefficient)
    return PlanResult::UNSUPPORTED_SIZE;
  const int64_t block = config.block_size;
  const int64_t piece =
      std::max<int64_t>(block, config.invariant_chunk / block * block);
  // tokens: KV tokens weighted by query tokens (the per-token cost's unit).
  // Every sum is checked: a plan whose cost does not fit is unsupported.
  int64_t tokens = static_cast<int64_t>(decode_tokens), rows = decode_rows,
          invariant_units = 0;
  bool overflow = false; // (a flag, not a branch per request)
  if (uncovered)
    return PlanResult::UNSUPPORTED_SIZE;
  for (int b = 0; b < batch && !decode; ++b) {
    const int len = kv_lens[b];
    if (len > 0 && tiers.select_tier(len) < 0)
      return PlanResult::UNSUPPORTED_SIZE;
    const int64_t weighted =
        static_cast<int64_t>(len) * (q_lens && len > 0 ? q_lens[b] : 1);
    overflow |= __builtin_add_overflow(tokens, weighted, &tokens);
    rows += len > 0;
    if (config.batch_invariant) // (a division: only where it is used)
      invariant_units += (len + piece - 1) / piece;
  }
  // The total cost, with headroom for the per-core arithmetic
  // (capacity plus one split, used plus one row).
  int64_t remaining = 0;
  bool fits = !overflow;
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

/// A batch-invariant core's capacity: its fair share of the base cost
/// still to place over the cores left. Recomputed per core, so rounding
/// slack never piles up on the last one.
inline int64_t core_capacity(int64_t remaining, int cores_left) {
  return (remaining + cores_left - 1) / cores_left;
}

/// The balanced plan's rule, in one place: calls `cut(c, point, cost)` for
/// c = 0 .. num_cores in order, `point` where core c starts (the last one
/// past every row) and `cost` what core c - 1 runs (0 for c = 0). Both
/// forms call it: plan_sweep_into keeps the points; plan_balanced_into
/// expands the pieces between consecutive points as it goes. `total` is
/// check_balanced's base cost.
///
/// Sweep: the rows (request x KV head, in order) are laid end to end in
/// base cost, a unit and then per_token x q_len per KV token each. Core c
/// starts at c x ceil(total / cores), moved to the nearest block boundary
/// of the row it falls in (to the row's start when it falls in the row's
/// unit or its first half block; to the next row's start when it rounds to
/// the row's end or past it). So every core's start depends on its own
/// position only: one pass over the requests, jumping the ones no start
/// falls in, O(batch + cores) with no recurrence between cores. A core
/// costs the base cost between its start and the next core's, plus a unit
/// and a merge when it starts inside a row: at most the even share, plus
/// two rounding moves (a block's tokens, or a unit), plus a unit and a
/// merge.
///
/// Batch-invariant: a row's pieces are `invariant_chunk` tokens (block
/// aligned) whatever the batch; they are dealt in order, a piece going to
/// the next core once the current one is over its fair share of what
/// remains by more than half the piece. This walks every piece.
template <typename Fn>
void plan_cuts(const int *kv_lens, int batch, int kv_heads,
               const BalancedConfig &config, const int *q_lens, int64_t rows,
               int64_t total, Fn &&cut) {
  const CostModel &cm = config.cost;
  const int cores = config.num_cores;
  const int64_t block = config.block_size;
  auto per_token = [&](int b) {
    return cm.per_token * (q_lens ? q_lens[b] : 1);
  };
  auto next_request = [&](int b) {
    while (b < batch && kv_lens[b] == 0)
      ++b;
    return b;
  };
  const int first = next_request(0);
  if (config.batch_invariant) {
    const int64_t piece =
        std::max<int64_t>(block, config.invariant_chunk / block * block);
    int core = 0;
    int64_t remaining = total, used = 0, n = 0;
    int64_t capacity = core_capacity(remaining, cores);
    cut(0, SweepCut{first, 0, 0, 0}, int64_t(0));
    for (int b = first; b < batch; b = next_request(b + 1)) {
      const int64_t len = kv_lens[b], pt = per_token(b);
      for (int h = 0; h < kv_heads; ++h)
        for (int64_t start = 0; start < len; start += piece) {
          const int64_t cost = cm.piece(pt * std::min(piece, len - start),
                                        start == 0);
          if (used > 0 && used + cost / 2 > capacity && core < cores - 1) {
            cut(++core,
                SweepCut{b, h, static_cast<int32_t>(start),
                         static_cast<int32_t>(n)},
                used);
            used = 0;
            capacity = core_capacity(remaining, cores - core);
          }
          ++n;
          used += cost;
          remaining -= cost;
        }
    }
    const SweepCut end{batch, 0, 0, static_cast<int32_t>(n)};
    cut(++core, end, used);
    while (core < cores)
      cut(++core, end, int64_t(0));
    return;
  }
  const int64_t share = total > 0 ? (total + cores - 1) / cores : 0;
  const int block_shift =
      (block & (block - 1)) == 0 ? __builtin_ctzll(block) : -1;
  // The previous point's base position, and whether it was inside a row.
  int64_t prev_base = 0;
  bool prev_inside = false;
  int c = 0;
  auto emit = [&](const SweepCut &p, int64_t base) {
    int64_t cost = 0;
    if (c > 0 && base > prev_base)
      cost = base - prev_base + (prev_inside ? cm.per_unit + cm.per_merge : 0);
    cut(c++, p, cost);
    prev_base = base;
    prev_inside = p.kv > 0;
  };
  emit(SweepCut{first, 0, 0, 0}, 0);
  // Points inside rows so far, distinct: each adds a piece.
  int64_t inside = 0;
  SweepCut last_inside{-1, -1, -1, -1};
  int64_t pos = 0, row = 0; // base position and index of request b's row 0
  // (A plain loop over b, so that no load sits on the loop's dependency
  // chain: the next nonempty request is looked up only where a point needs
  // it.)
  int64_t at = c * share; // core c's even-share position
  for (int b = first; b < batch && c < cores; ++b) {
    const int64_t len = kv_lens[b];
    if (len == 0)
      continue;
    const int64_t pt = per_token(b);
    const int64_t row_cost = cm.piece(pt * len, true);
    const int64_t span = row_cost * kv_heads;
    for (; c < cores && at < pos + span && at < total; at = c * share) {
      // (Divisions only where they are not trivial: this runs once per
      // core, with no dependency between cores.)
      const int64_t off = at - pos;
      int64_t h = off < row_cost ? 0 : off / row_cost;
      const int64_t in_row = off - h * row_cost;
      int64_t k = 0;
      if (in_row > cm.per_unit) {
        const int64_t tokens = pt == 1 ? in_row - cm.per_unit
                                       : (in_row - cm.per_unit) / pt;
        k = block_shift >= 0
                ? (tokens + block / 2) >> block_shift << block_shift
                : (tokens + block / 2) / block * block;
      }
      // No cut leaves less than a block after it: such a cut moves to the
      // row's end (the next row's start), as one that rounds to the end or
      // past it does. (The rounding leaves at least a block before it.)
      if (k > 0 && k > len - block) {
        ++h;
        k = 0;
      }
      SweepCut p = h == kv_heads
                       ? SweepCut{next_request(b + 1), 0, 0, 0}
                       : SweepCut{b, static_cast<int32_t>(h),
                                  static_cast<int32_t>(k), 0};
      p.desc = static_cast<int32_t>(row + h + inside + (k > 0));
      if (k > 0) {
        if (p.request == last_inside.request && p.head == last_inside.head &&
            p.kv == last_inside.kv) {
          p.desc = last_inside.desc; // the same point again: an empty core
        } else {
          ++inside;
          last_inside = p;
        }
      }
      emit(p, pos + h * row_cost + (k > 0 ? cm.per_unit + pt * k : 0));
    }
    pos += span;
    row += kv_heads;
  }
  const SweepCut end{batch, 0, 0, static_cast<int32_t>(rows + inside)};
  while (c <= cores)
    emit(end, total);
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
/// INVALID_PARAMS (null or non-positive sizes, negative length, bad config,
/// core_indptr shorter than num_cores + 1), UNSUPPORTED_SIZE (more than
/// kMaxBalancedCores cores, a cost coefficient over kMaxCostCoefficient, a
/// length no tier covers, a plan whose total cost would not fit the
/// planner's 64-bit arithmetic), BUFFER_OVERFLOW (merge_indptr shorter than
/// rows + 1, or fewer descriptors than the plan may need). The sweep's
/// exact count is known only once it ran, so the capacity it needs is its
/// bound, rows + num_cores (batch-invariant: the exact piece count); on
/// overflow *out_count is that bound.
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
  if (!out_count || detail::bad_arguments(kv_lens, batch, kv_heads, config) ||
      !core_indptr || !merge_indptr || desc_capacity < 0 ||
      (desc_capacity > 0 && !descs))
    return PlanResult::INVALID_PARAMS;
  detail::BalancedTotals totals;
  const PlanResult checked =
      detail::check_balanced(kv_lens, batch, kv_heads, config, tiers,
                             indptr_size, q_lens, &totals);
  if (checked != PlanResult::OK)
    return checked;
  const int64_t max_pieces = detail::max_pieces(totals, config);
  if (merge_size < totals.rows + 1 || desc_capacity < max_pieces) {
    *out_count = static_cast<int>(std::min<int64_t>(max_pieces, INT32_MAX));
    return PlanResult::BUFFER_OVERFLOW;
  }
  // Each core's pieces, expanded between its two points as they come.
  int n = 0, row = 0;
  SweepCut from;
  detail::plan_cuts(
      kv_lens, batch, kv_heads, config, q_lens, totals.rows, totals.remaining,
      [&](int c, const SweepCut &to, int64_t cost) {
        if (c > 0) {
          if (core_cost)
            core_cost[c - 1] = cost;
          for_each_sweep_piece(kv_lens, batch, kv_heads, config, tiers, from,
                               to, [&](const WorkDescriptor &d) {
                                 if (d.is_first())
                                   merge_indptr[row++] = n;
                                 descs[n++] = d;
                               });
        }
        core_indptr[c] = to.desc;
        from = to;
      });
  merge_indptr[row] = n;
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
  int bound = 0;
  int probe_indptr_size = std::min(config.num_cores, kMaxBalancedCores) + 1;
  std::vector<int> indptr(probe_indptr_size);
  int no_merge = 0;
  if (config.num_cores > kMaxBalancedCores) {
    // Its own buffers are never too short: past the core limit the
    // arguments are checked (a dry run at the limit: INVALID_PARAMS first),
    // then the core count is unsupported.
    BalancedConfig capped = config;
    capped.num_cores = kMaxBalancedCores;
    const PlanResult r = plan_balanced_into(
        kv_lens, batch, kv_heads, capped, tiers, nullptr, 0, indptr.data(),
        probe_indptr_size, &no_merge, 0, &bound, nullptr, nullptr, q_lens);
    return r == PlanResult::INVALID_PARAMS ? r : PlanResult::UNSUPPORTED_SIZE;
  }
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
/// INT32_MAX pieces (work ids), or a batch-invariant one of more than
/// kMaxBalancedPieces, is UNSUPPORTED_SIZE.
///
/// What an AICPU function whose cores expand the plan passes too (the
/// emitted `wsp.plan_balanced ... cuts`): `desc_capacity`, the descriptor
/// buffer the cores will fill (BUFFER_OVERFLOW, nothing written and the
/// count it needs in *out_count, below the materialized form's bound);
/// `core_indptr[indptr_size]`, at least num_cores + 1 (INVALID_PARAMS
/// otherwise), which gets each core's first descriptor for a persistent
/// dispatch. A negative capacity means no descriptor buffer.
template <typename TierCfg>
PlanResult plan_sweep_into(const int *kv_lens, int batch, int kv_heads,
                           const BalancedConfig &config, const TierCfg &tiers,
                           SweepCut *cuts, int cuts_size, int *out_count,
                           int *out_rows = nullptr,
                           int64_t *core_cost = nullptr,
                           const int *q_lens = nullptr,
                           int desc_capacity = -1, int *core_indptr = nullptr,
                           int indptr_size = 0) {
  if (!out_count || detail::bad_arguments(kv_lens, batch, kv_heads, config) ||
      !cuts ||
      (core_indptr &&
       int64_t(indptr_size) < int64_t(config.num_cores) + 1))
    return PlanResult::INVALID_PARAMS;
  detail::BalancedTotals totals;
  const PlanResult checked = detail::check_balanced(
      kv_lens, batch, kv_heads, config, tiers, cuts_size, q_lens, &totals);
  if (checked != PlanResult::OK)
    return checked;
  const int64_t max_pieces = detail::max_pieces(totals, config);
  if (desc_capacity >= 0 && desc_capacity < max_pieces) {
    *out_count = static_cast<int>(std::min<int64_t>(max_pieces, INT32_MAX));
    return PlanResult::BUFFER_OVERFLOW;
  }
  // The batch-invariant mode walks its pieces: bounded as the allocating
  // form's buffers are, so that no call runs for seconds.
  if (config.batch_invariant ? totals.invariant_units > kMaxBalancedPieces
                             : totals.rows + config.num_cores > INT32_MAX)
    return PlanResult::UNSUPPORTED_SIZE;
  detail::plan_cuts(kv_lens, batch, kv_heads, config, q_lens, totals.rows,
                    totals.remaining,
                    [&](int c, const SweepCut &point, int64_t cost) {
                      cuts[c] = point;
                      if (c > 0 && core_cost)
                        core_cost[c - 1] = cost;
                    });
  *out_count = cuts[config.num_cores].desc;
  if (core_indptr)
    for (int c = 0; c <= config.num_cores; ++c)
      core_indptr[c] = cuts[c].desc;
  if (out_rows)
    *out_rows = static_cast<int>(totals.rows);
  return PlanResult::OK;
}

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_BALANCED_PLANNER_HPP
