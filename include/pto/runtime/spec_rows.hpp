// pto/runtime/spec_rows.hpp - a spec plan (§6.3.5) kept as rows, which the
// cores that run it expand into its descriptors.
//
// `wsp.generate ... rows(%rows)` and `wsp.update_plan ... rows(%rows)` write
// a plan this way instead of as descriptors: a header, then per request its
// first work id and its length as given, one int32 each. Request b's
// descriptors are its heads' rows of n_b chunks, head after head, with ids
// [first[b], first[b + 1]); everything else about a descriptor (its chunk's
// place and size, flags, tier) follows from the length, the chunk size and
// the plan's mode. A `wsp.dispatch ... expand_rows(%rows)` has each core
// write its own descriptors into the dispatch's buffer, then run them; what
// it writes is byte for byte what `wsp.generate` writes for the same
// lengths (test/Target/Cpp/cpusim-plan-update.mlir runs both).
//
// Why: a plan updated from step to step as rows costs a compare per request
// and an add per request from the first whose chunk count changed, where the
// dense plan rewrites every descriptor from there on (docs/rationale/
// Replay.md, "The plan kept as rows").
#ifndef PTO_RUNTIME_SPEC_ROWS_HPP
#define PTO_RUNTIME_SPEC_ROWS_HPP

#include "pto/runtime/chunking.hpp"
#include "pto/runtime/work_descriptor.hpp"

#include <algorithm>
#include <cstdint>

namespace pto {
namespace runtime {

/// The rows buffer's layout: kHeader int32 fields, then request b's first
/// work id at kHeader + 2 b and its length at kHeader + 2 b + 1, then the
/// count at kHeader + 2 batch (the first id past the last request). A
/// request keeps its place when the batch changes.
struct SpecRowsLayout {
  enum Field : int {
    kBatch,   // requests
    kHeads,   // heads per request (for MoE: batch groups per expert)
    kChunk,   // the chunk size the plan used
    kQueries, // a sliding window's queries per request (0 without one)
    kWindow,  // the window (0: none)
    kFlags,   // kBalanced | kMoE
    kCount,   // the descriptors in the plan
    kReserved,
    kHeader
  };
  static constexpr int32_t kBalanced = 1; // balanced chunk sizes
  static constexpr int32_t kMoE = 2;      // params (head, request, ...)
  /// Entries a plan of `batch` requests needs.
  static constexpr int64_t size(int64_t batch) {
    return kHeader + 2 * batch + 1;
  }
};

/// A read-only view of a rows buffer of `size` entries, with the tier
/// configuration its descriptors are tiered by. An inconsistent header (a
/// batch the buffer cannot hold, heads or chunk < 1, a negative count) makes
/// an empty plan: count() is 0 and nothing is visited.
template <typename Tiers> class SpecRows {
public:
  SpecRows(const int32_t *rows, int64_t size, const Tiers &tiers)
      : rows_(rows), tiers_(tiers) {
    using L = SpecRowsLayout;
    if (!rows || size < L::kHeader + 1)
      return;
    const int64_t batch = rows[L::kBatch];
    if (batch < 0 || L::size(batch) > size || rows[L::kHeads] < 1 ||
        rows[L::kChunk] < 1 || rows[L::kCount] < 0 || rows[L::kHeader] != 0 ||
        rows[L::kHeader + 2 * batch] != rows[L::kCount])
      return;
    batch_ = static_cast<int>(batch);
    count_ = rows[L::kCount];
  }

  /// The descriptors in the plan.
  int count() const { return count_; }

  /// Where core `core` of `cores` starts when each core takes whole rows
  /// (row_affine): what row_range_begin finds in the plan's descriptors,
  /// the first FLAG_FIRST descriptor at or after count x core / cores.
  int range_begin(int core, int cores) const {
    const int i = static_cast<int>(static_cast<int64_t>(count_) * core / cores);
    if (i <= 0 || i >= count_)
      return i;
    const int b = request_of(i);
    const int n = chunks(b);
    const int into = (i - first(b)) % n;
    return into == 0 ? i : i + n - into;
  }

  /// Calls f(descriptor) for descriptors begin, begin + step, ... below
  /// end (clamped to the plan), in order.
  template <typename F>
  void for_each(int begin, int end, int step, F &&f) const {
    begin = std::max(begin, 0);
    end = std::min(end, count_);
    if (begin >= end || step < 1)
      return;
    int b = request_of(begin);
    for (int i = begin; i < end;) {
      while (first(b + 1) <= i)
        ++b;
      // Request b's descriptors in [i, stop): what they share, once.
      const Row row = this->row(b);
      const int stop = std::min(end, first(b + 1));
      const int k = i - first(b);
      int h = k / row.n, c = k % row.n;
      for (; i < stop; i += step) {
        f(row.make(h, c, static_cast<uint32_t>(i)));
        c += step;
        if (c >= row.n) {
          h += c / row.n;
          c %= row.n;
        }
      }
    }
  }

  /// Descriptor `i` of the plan (the empty descriptor outside it).
  WorkDescriptor descriptor(int i) const {
    WorkDescriptor d{};
    for_each(i, i + 1, 1, [&](const WorkDescriptor &w) { d = w; });
    return d;
  }

private:
  using L = SpecRowsLayout;
  int field(int f) const { return rows_[f]; }
  int first(int b) const { return rows_[L::kHeader + 2 * b]; }
  int length(int b) const { return rows_[L::kHeader + 2 * b + 1]; }
  /// Chunks per head of request b (its descriptors over its heads; >= 1
  /// where it has any).
  int chunks(int b) const {
    return std::max(1, (first(b + 1) - first(b)) / field(L::kHeads));
  }
  /// The request whose descriptors hold id i (0 <= i < count): the last b
  /// with first(b) <= i (a request without descriptors shares its first
  /// id with the next).
  int request_of(int i) const {
    int lo = 0, hi = batch_; // first(lo) <= i < first(hi)
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      if (first(mid) <= i)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  }
  /// What request b's descriptors share.
  struct Row {
    int b, n, start;
    detail::Chunking cut;
    uint8_t tier;
    bool moe;
    /// Chunk c of head h, with id `id`.
    WorkDescriptor make(int h, int c, uint32_t id) const {
      // (Made whole, not field by field: a copy of a descriptor written a
      // byte at a time waits for its stores, about 7 ns a descriptor.)
      const uint8_t flags = static_cast<uint8_t>(
          (c == 0 ? WorkDescriptor::FLAG_FIRST | WorkDescriptor::FLAG_INIT
                  : 0) |
          (c == n - 1 ? WorkDescriptor::FLAG_LAST : 0));
      return WorkDescriptor{id,
                            tier,
                            flags,
                            0,
                            {static_cast<uint32_t>(moe ? h : b),
                             static_cast<uint32_t>(moe ? b : h),
                             static_cast<uint32_t>(start + cut.start(c)),
                             static_cast<uint32_t>(cut.size(c))}};
    }
  };
  Row row(int b) const {
    const int given = length(b);
    // A sliding window plans only [start, given): the last `queries` tokens
    // attend at most `window` back.
    const int window = field(L::kWindow);
    const int start =
        window ? std::max(0, given - field(L::kQueries) - window + 1) : 0;
    const int len = given - start;
    const int flags = field(L::kFlags);
    return {b,
            chunks(b),
            start,
            detail::Chunking::of(len, field(L::kChunk), flags & L::kBalanced),
            static_cast<uint8_t>(tiers_.select_tier(len)),
            (flags & L::kMoE) != 0};
  }

  const int32_t *rows_;
  Tiers tiers_;
  int batch_ = 0, count_ = 0;
};

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_SPEC_ROWS_HPP
