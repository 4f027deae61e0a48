// pto/runtime/incremental_planner.hpp - a WorkPlanner plan kept up to date
// from step to step (decode: every KV length grows by one): IncrementalPlan
// keeps its descriptors and rewrites only those that change; RowPlan (at the
// end of the file) keeps only its rows, and its cores make the descriptors.
//
// IncrementalPlan::update(lens) leaves in the buffer exactly what
// plan_chunk_size + generate would write for `lens` (the tests compare the
// two over thousands of random steps), at the cost of the change:
// - the chunk size is re-searched only when it may have moved. Under growth
//   of every length (and new rows at the end), every chunk count can only
//   grow, so the smallest fitting chunk size can only grow: the old one
//   stays exactly when its count still fits (or it was chunk_max already).
//   Any shrinking length or removed row re-runs plan_chunk_size. A new chunk
//   size rewrites every descriptor.
// - a row whose length did not change and whose position did not move is not
//   touched; one that grew keeps its chunk count unless it crossed a chunk
//   boundary, and then only the chunks from the first one whose start or
//   size changed are rewritten (unbalanced chunks: the last chunk of each
//   head; balanced: the chunks after the one that grew), all of them when
//   its tier changed;
// - when rows gain chunks, the rows after them move right by whole rows
//   (a copy that renumbers work_id); when a row loses chunks, the rows after
//   it are regenerated.
// Errors follow generate()'s contract and leave the buffer and the plan as
// they were: the previous plan stays valid and usable.
#ifndef PTO_RUNTIME_INCREMENTAL_PLANNER_HPP
#define PTO_RUNTIME_INCREMENTAL_PLANNER_HPP

#include "pto/runtime/work_planner.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace pto {
namespace runtime {

namespace detail {
/// What IncrementalPlan and RowPlan share: the plan's lengths and rows (row
/// b's descriptors are [first_[b], first_[b + 1])), its chunk and counts,
/// the checks of arguments the planner cannot see, and the rule for when
/// the chunk size must be searched again. It keeps a reference to the
/// planner, which must outlive it: a temporary planner (any rvalue) is
/// refused at compile time, by deleted overloads (as std::reference_wrapper
/// refuses one), here and in both plans.
template <typename Planner> class KeptPlan {
public:
  /// Whether a plan is held (false before the first successful call).
  bool valid() const { return valid_; }
  int count() const { return count_; }
  int batch() const { return batch_; }
  int chunk_size() const { return chunk_; }

protected:
  KeptPlan(const Planner &planner, int max_batch, int num_heads)
      : planner_(planner), max_batch_(max_batch), heads_(num_heads),
        lens_(rows(max_batch)), first_(rows(max_batch) + 1) {}
  KeptPlan(const Planner &&, int, int) = delete;

  static size_t rows(int n) { return n > 0 ? static_cast<size_t>(n) : 0; }

  /// Arguments the planner cannot see: the batch must fit the plan's rows.
  bool usable(const int *lens, int batch, int *out_work_count) const {
    if (out_work_count)
      *out_work_count = 0;
    return lens && out_work_count && heads_ > 0 && batch > 0 &&
           batch <= max_batch_;
  }

  /// The chunk size plan_chunk_size gives `lens`, from the plan held:
  /// `chunks` is their count at the held chunk. Under growth of every
  /// length (and new rows at the end) every count can only grow, so the
  /// smallest fitting chunk can only grow: the held one stays exactly when
  /// its count still fits (or it is chunk_max already). When a length
  /// shrank or a row left (`shrank`), or it no longer fits, the search runs
  /// (*searched).
  int next_chunk(const int *lens, int batch, bool shrank, int64_t chunks,
                 bool *searched) const {
    const PlanConfig &config = planner_.config();
    *searched = shrank || (chunk_ != config.chunk_max &&
                           chunks > config.max_work_units / heads_);
    return *searched ? planner_.plan_chunk_size(lens, batch, heads_) : chunk_;
  }

  /// Holds the plan of `lens` with `chunk`: `total` descriptors (the rows
  /// are the caller's to set).
  void record(const int *lens, int batch, int chunk, int64_t total) {
    std::memcpy(lens_.data(), lens, sizeof(int) * static_cast<size_t>(batch));
    batch_ = batch;
    chunk_ = chunk;
    count_ = static_cast<int>(total);
    chunk_count_ = total / heads_;
    valid_ = true;
  }

  const Planner &planner_;
  int max_batch_;
  int heads_;
  std::vector<int> lens_;  // the planned lengths
  std::vector<int> first_; // row b's descriptors: [first_[b], first_[b+1])
  int batch_ = 0;
  int chunk_ = 0;
  int count_ = 0;
  int64_t chunk_count_ = 0; // count_ / heads_: sum of chunk counts
  bool valid_ = false;
};
} // namespace detail

/// The plan of up to `max_batch` sequences of `num_heads` heads in a
/// caller-owned descriptor buffer (the one the dispatch reads), made by a
/// planner that outlives it (not a temporary: see detail::KeptPlan).
template <typename Planner>
class IncrementalPlan : public detail::KeptPlan<Planner> {
  using Base = detail::KeptPlan<Planner>;
  using Base::batch_;
  using Base::chunk_;
  using Base::chunk_count_;
  using Base::count_;
  using Base::first_;
  using Base::heads_;
  using Base::lens_;
  using Base::planner_;
  using Base::usable;
  using Base::valid_;

public:
  /// What the last call did, for tests and benchmarks.
  struct Stats {
    bool replanned_chunk = false; // plan_chunk_size ran
    bool rewrote_all = false;     // every descriptor was written
    int64_t written = 0;          // descriptors generated
    int64_t moved = 0;            // descriptors moved to a new slot
  };

  IncrementalPlan(const Planner &planner, int max_batch, int num_heads,
                  WorkDescriptor *buffer, int capacity)
      : Base(planner, max_batch, num_heads), buffer_(buffer),
        capacity_(capacity), next_first_(Base::rows(max_batch) + 1) {}
  IncrementalPlan(const Planner &&, int, int, WorkDescriptor *, int) = delete;

  /// A fresh plan of `lens` (plan_chunk_size + generate): the reference
  /// update() is equal to, and where a plan starts.
  PlanResult plan(const int *lens, int batch, int *out_work_count) {
    Stats stats;
    stats.replanned_chunk = true;
    if (!usable(lens, batch, out_work_count))
      return PlanResult::INVALID_PARAMS;
    return commit_all(lens, batch,
                      planner_.plan_chunk_size(lens, batch, heads_), stats,
                      out_work_count);
  }

  /// The plan of `lens`, equal to plan(lens, batch), from the previous one.
  PlanResult update(const int *lens, int batch, int *out_work_count) {
    if (!valid_)
      return plan(lens, batch, out_work_count);
    Stats stats;
    if (!usable(lens, batch, out_work_count))
      return PlanResult::INVALID_PARAMS;
    // 1. The chunk size: kept when every length grew and its count fits.
    const int common = batch < batch_ ? batch : batch_;
    bool shrank = batch < batch_;
    int64_t chunks = chunk_count_;
    for (int b = 0; b < common && !shrank; ++b) {
      if (lens[b] == lens_[b])
        continue;
      if (lens[b] < lens_[b]) {
        shrank = true;
        break;
      }
      chunks += detail::num_chunks(lens[b], chunk_) - row_chunks(b);
    }
    for (int b = batch_; b < batch && !shrank; ++b)
      chunks += lens[b] < 0 ? 0 : detail::num_chunks(lens[b], chunk_);
    const int chunk =
        this->next_chunk(lens, batch, shrank, chunks, &stats.replanned_chunk);
    if (chunk != chunk_)
      return commit_all(lens, batch, chunk, stats, out_work_count);

    int64_t total = 0;
    const PlanResult result =
        validate(lens, batch, chunk, out_work_count, &total);
    if (result != PlanResult::OK)
      return result;

    // 2. Where each row goes, and whether any row lost chunks.
    next_first_[0] = 0;
    bool lost = false;
    int first_moved = batch; // first row whose position changes
    for (int b = 0; b < batch; ++b) {
      const int n = b < batch_ && lens[b] == lens_[b]
                        ? row_chunks(b)
                        : detail::num_chunks(lens[b], chunk);
      next_first_[b + 1] = next_first_[b] + heads_ * n;
      if (b < batch_ && n < row_chunks(b))
        lost = true;
      if (first_moved == batch && b + 1 <= batch_ &&
          next_first_[b + 1] != first_[b + 1])
        first_moved = b + 1;
    }

    // 3. Rows from the first move on go to their new place; the rows before
    // it stay and are patched where they changed.
    if (!lost) {
      // Rows move right only: from the last row down, nothing is
      // overwritten before it is read.
      for (int b = batch - 1; b >= first_moved; --b) {
        // A moved row is copied when most of it is unchanged, else
        // written anew. A row of no chunks has nothing to place (and, past
        // the old batch, no old slots to copy from).
        const int n = next_row_chunks(b);
        if (n == 0)
          continue;
        const int from = b >= batch_ || row_chunks(b) != n
                             ? 0
                             : first_changed_chunk(b, lens[b]);
        if (2 * from < n) {
          rewrite_row(b, lens[b], 0, stats);
        } else {
          move_row(b, stats);
          if (from < n)
            rewrite_row(b, lens[b], from, stats);
        }
      }
    } else {
      for (int b = first_moved; b < batch; ++b)
        rewrite_row(b, lens[b], 0, stats);
    }
    for (int b = 0; b < first_moved; ++b) {
      if (b >= batch_)
        rewrite_row(b, lens[b], 0, stats);
      else if (lens[b] != lens_[b])
        rewrite_row(b, lens[b], first_changed_chunk(b, lens[b]), stats);
    }
    first_.swap(next_first_);
    this->record(lens, batch, chunk_, total);
    stats_ = stats;
    *out_work_count = count_;
    return PlanResult::OK;
  }

  const WorkDescriptor *descriptors() const { return buffer_; }
  const Stats &stats() const { return stats_; }

private:
  /// generate()'s checks of `lens` cut in chunks of `chunk` into the buffer.
  PlanResult validate(const int *lens, int batch, int chunk,
                      int *out_work_count, int64_t *total) const {
    return planner_.validate(lens, batch, heads_, chunk, buffer_, capacity_,
                             out_work_count, total);
  }

  int row_chunks(int b) const { return (first_[b + 1] - first_[b]) / heads_; }
  int next_row_chunks(int b) const {
    return (next_first_[b + 1] - next_first_[b]) / heads_;
  }

  /// A new chunk size (or the first plan): generate everything.
  PlanResult commit_all(const int *lens, int batch, int chunk, Stats stats,
                        int *out_work_count) {
    int64_t total = 0;
    const PlanResult result =
        validate(lens, batch, chunk, out_work_count, &total);
    if (result != PlanResult::OK)
      return result;
    first_[0] = 0;
    for (int b = 0; b < batch; ++b)
      first_[b + 1] =
          first_[b] + planner_.write_row(b, lens[b], heads_, chunk, 0,
                                         buffer_ + first_[b],
                                         static_cast<uint32_t>(first_[b]));
    this->record(lens, batch, chunk, total);
    stats.rewrote_all = true;
    stats.written = total;
    stats_ = stats;
    *out_work_count = count_;
    return PlanResult::OK;
  }

  /// Row b's descriptors at its new position, from chunk `first_chunk` on.
  void rewrite_row(int b, int len, int first_chunk, Stats &stats) {
    const int at = next_first_[b];
    planner_.write_row(b, len, heads_, chunk_, first_chunk, buffer_ + at,
                       static_cast<uint32_t>(at));
    const int n = detail::num_chunks(len, chunk_);
    stats.written += static_cast<int64_t>(heads_) * (n - first_chunk);
  }

  /// Row b's first chunk (of every head) that differs between its planned
  /// length and `len`: its chunk count when none does.
  int first_changed_chunk(int b, int len) const {
    const bool balanced = planner_.config().balance_chunks;
    const detail::Chunking before =
        detail::Chunking::of(lens_[b], chunk_, balanced);
    const detail::Chunking after = detail::Chunking::of(len, chunk_, balanced);
    const bool same_tier = lens_[b] > 0 && len > 0 &&
                           planner_.tiers().select_tier(lens_[b]) ==
                               planner_.tiers().select_tier(len);
    return same_tier ? after.first_difference(before) : 0;
  }

  /// Row b's descriptors, moved to its new position with their new work_id.
  void move_row(int b, Stats &stats) {
    const int from = first_[b], to = next_first_[b];
    const int size = first_[b + 1] - first_[b];
    if (from == to)
      return;
    std::memmove(static_cast<void *>(buffer_ + to), buffer_ + from,
                 sizeof(WorkDescriptor) * static_cast<size_t>(size));
    for (int i = 0; i < size; ++i)
      buffer_[to + i].work_id = static_cast<uint32_t>(to + i);
    stats.moved += size;
  }

  WorkDescriptor *buffer_;
  int capacity_;
  std::vector<int> next_first_; // first_ for the plan being made
  Stats stats_;
};

/// The plan plan_chunk_size + generate make, kept as the rows it is made
/// of instead of its descriptors: the chunk size, and each row's length,
/// chunk count and first work id. The cores expand it: descriptor(i) is
/// generate()'s descriptor i (WorkPlanner::row_descriptor, made by the
/// function generate writes with), and for_each(c, n, f) gives core c of n
/// its descriptors c, c + n, ... in order, as run_spmd deals a buffer
/// (sim::run_spmd_expanding runs a kernel so).
///
/// update(lens, batch) re-plans from the previous plan and writes no
/// descriptor: a row whose length stayed within its chunk count costs a
/// compare and a tier check (its descriptors are made from its length when
/// expanded); the first work ids are summed again from the first row whose
/// chunk count changed (or that joined) on. The chunk size is searched
/// again only when it may have moved, by IncrementalPlan's rule: with no
/// length shrunk and no row gone, the old chunk stays exactly when its
/// count still fits (or it is chunk_max). A new chunk size recounts every
/// row, still without a descriptor.
///
/// Errors follow generate()'s contract, `capacity` (what the dispatch can
/// hold) standing for the buffer's, and leave the previous plan as it was.
/// The planner must outlive the plan (not a temporary: see
/// detail::KeptPlan).
template <typename Planner> class RowPlan : public detail::KeptPlan<Planner> {
  using Base = detail::KeptPlan<Planner>;
  using Base::batch_;
  using Base::chunk_;
  using Base::chunk_count_;
  using Base::count_;
  using Base::first_;
  using Base::heads_;
  using Base::lens_;
  using Base::planner_;
  using Base::usable;
  using Base::valid_;

public:
  /// What the last call did, for tests and benchmarks.
  struct Stats {
    bool replanned_chunk = false; // plan_chunk_size ran
    bool recounted_all = false;   // every row was counted afresh
    int64_t recounted = 0;        // rows whose first work id was summed
  };

  RowPlan(const Planner &planner, int max_batch, int num_heads, int capacity)
      : Base(planner, max_batch, num_heads), capacity_(capacity),
        chunks_(Base::rows(max_batch)), changed_(Base::rows(max_batch)) {}
  RowPlan(const Planner &&, int, int, int) = delete;

  /// A fresh plan of `lens`: what plan_chunk_size + generate make.
  PlanResult plan(const int *lens, int batch, int *out_work_count) {
    if (!usable(lens, batch, out_work_count))
      return PlanResult::INVALID_PARAMS;
    Stats stats;
    stats.replanned_chunk = true;
    return commit_all(lens, batch,
                      planner_.plan_chunk_size(lens, batch, heads_), stats,
                      out_work_count);
  }

  /// The plan of `lens`, equal to plan(lens, batch), from the previous one.
  PlanResult update(const int *lens, int batch, int *out_work_count) {
    if (!valid_)
      return plan(lens, batch, out_work_count);
    if (!usable(lens, batch, out_work_count))
      return PlanResult::INVALID_PARAMS;
    // 1. Which rows moved: a length outside its row's chunk count, or a
    // row that joined; what the counts add up to; whether anything shrank.
    bool negative = false, unsupported = false, shrank = batch < batch_;
    int64_t chunks = chunk_count_;
    int moved = batch, changed = 0;
    for (int b = 0; b < batch; ++b) {
      const int len = lens[b];
      if (b < batch_) {
        if (len == lens_[b])
          continue;
        shrank |= len < lens_[b];
        // (A length of 0 has no chunk count to stay within.)
        if (len > 0 && len > (chunks_[b] - 1) * int64_t(chunk_) &&
            len <= chunks_[b] * int64_t(chunk_)) {
          unsupported |= planner_.tiers().select_tier(len) < 0;
          continue;
        }
      }
      negative |= len < 0;
      if (negative)
        continue;
      unsupported |= len > 0 && planner_.tiers().select_tier(len) < 0;
      const int n = detail::num_chunks(len, chunk_);
      chunks += n - (b < batch_ ? chunks_[b] : 0);
      changed_[changed++] = {b, n};
      if (moved == batch && (b >= batch_ || n != chunks_[b]))
        moved = b;
    }
    for (int b = batch; b < batch_; ++b)
      chunks -= chunks_[b];
    if (negative)
      return PlanResult::INVALID_PARAMS;
    if (unsupported)
      return PlanResult::UNSUPPORTED_SIZE;

    // 2. The chunk size: kept when nothing shrank and its count fits.
    Stats stats;
    const int chunk =
        this->next_chunk(lens, batch, shrank, chunks, &stats.replanned_chunk);
    if (chunk != chunk_)
      return commit_all(lens, batch, chunk, stats, out_work_count);
    if (chunks > capacity_ / heads_) {
      *out_work_count = detail::required_count(chunks, heads_);
      return PlanResult::BUFFER_OVERFLOW;
    }

    // 3. Commit: the rows that changed count, the first ids from the first
    // that moved on.
    for (int k = 0; k < changed; ++k)
      chunks_[changed_[k].first] = changed_[k].second;
    for (int b = moved; b < batch; ++b)
      first_[b + 1] = first_[b] + heads_ * chunks_[b];
    this->record(lens, batch, chunk_, chunks * heads_);
    stats.recounted = batch - moved;
    stats_ = stats;
    *out_work_count = count_;
    return PlanResult::OK;
  }

  /// Descriptor `work_id` of the plan: generate()'s. Outside the plan
  /// (work_id < 0 or >= count(), or nothing planned yet), the empty
  /// descriptor WorkDescriptor{}: all zero, a chunk of size 0, which no
  /// planned descriptor is (each covers at least one position, and
  /// descriptor 0 is a first chunk).
  WorkDescriptor descriptor(int work_id) const {
    if (work_id < 0 || work_id >= count_)
      return WorkDescriptor{};
    // The last row whose first id is <= work_id (rows of no chunks share
    // their first id with the next row).
    const int b = static_cast<int>(
        std::upper_bound(first_.begin(), first_.begin() + batch_ + 1, work_id) -
        first_.begin() - 1);
    return planner_.row_descriptor(b, lens_[b], chunk_, work_id - first_[b],
                                   static_cast<uint32_t>(first_[b]));
  }

  /// f(descriptor) for descriptors first, first + stride, ... < count(), in
  /// order: what core `first` of `stride` runs. Nothing for a stride below
  /// 1 or a first id outside [0, count()).
  template <typename F> void for_each(int first, int stride, F &&f) const {
    if (first < 0 || stride < 1)
      return;
    // The row's cut and tier, made once per row the walk enters.
    int b = -1, end = 0;
    detail::Chunking chunks{};
    uint8_t tier = 0;
    // (The next id is past the plan when stride reaches count_ - id: no
    // id + stride, which could pass INT_MAX.)
    for (int id = first; id < count_;
         id = stride < count_ - id ? id + stride : count_) {
      if (id >= end) {
        do
          ++b;
        while (first_[b + 1] <= id);
        end = first_[b + 1];
        chunks = detail::Chunking::of(lens_[b], chunk_,
                                      planner_.config().balance_chunks);
        tier = static_cast<uint8_t>(planner_.tiers().select_tier(lens_[b]));
      }
      const int index = id - first_[b];
      f(Planner::make_descriptor(b, index / chunks.count, index % chunks.count,
                                 chunks, tier, static_cast<uint32_t>(id)));
    }
  }

  const Stats &stats() const { return stats_; }

private:
  /// A new chunk size (or the first plan): every row counted.
  PlanResult commit_all(const int *lens, int batch, int chunk, Stats stats,
                        int *out_work_count) {
    int64_t total = 0;
    const PlanResult result = planner_.validate_lengths(
        lens, batch, heads_, chunk, capacity_, out_work_count, &total);
    if (result != PlanResult::OK)
      return result;
    first_[0] = 0;
    for (int b = 0; b < batch; ++b) {
      chunks_[b] = detail::num_chunks(lens[b], chunk);
      first_[b + 1] = first_[b] + heads_ * chunks_[b];
    }
    this->record(lens, batch, chunk, total);
    stats.recounted_all = true;
    stats.recounted = batch;
    stats_ = stats;
    *out_work_count = count_;
    return PlanResult::OK;
  }

  int capacity_;
  std::vector<int> chunks_;  // row b's chunk count (per head)
  // Scratch: the rows update() counted again, with their new counts.
  std::vector<std::pair<int, int>> changed_;
  Stats stats_;
};

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_INCREMENTAL_PLANNER_HPP
