//===- PlannerFuzzer.cpp - libFuzzer target: the runtime planners ---------===//
//
// Every call of a runtime planner entry point the fuzz input describes
// (the spec planner's plan_chunk_size, generate and generate_parallel, the
// balanced planner into caller buffers), checked against its documented
// contract:
//  * the result is one of the spec's four codes;
//  * the balanced planner's lower bound is -1 or a cost no plan beats;
//  * the balanced plan as cuts (plan_sweep_into) gives the materialized
//    form's result and, expanded core by core, its descriptors; called as
//    the emitted code calls it (the capacity and the work lists), the
//    materialized form's overflow rule and work lists;
//  * an IncrementalPlan updated through a sequence of lengths the input
//    describes (growth, replacement, rows joining and leaving) returns what
//    a fresh plan of the same lengths returns and holds its descriptors
//    byte for byte; an error leaves its buffer as it was; a RowPlan
//    updated alongside returns the same, and its cores' walks make the
//    same descriptors;
//  * on an error nothing is written (the buffers keep their canary bytes)
//    and, on BUFFER_OVERFLOW, the count is at least the capacity + 1;
//  * on success the count fits the capacity, nothing past it is written,
//    and the descriptors cover every (sequence, head) row's [0, len)
//    exactly once, in order, FIRST|INIT on its first piece and LAST on its
//    last, with the tier the tier list selects for the length.
// A violation aborts (a finding). Built with clang-19
// -fsanitize=fuzzer,address,undefined (fuzz/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "pto/runtime/balanced_planner.hpp"
#include "pto/runtime/incremental_planner.hpp"
#include "pto/runtime/work_planner.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace pto::runtime;

namespace {

/// Reads the fuzz input front to back; past its end every read is 0.
struct Input {
  const uint8_t *data;
  size_t size;
  template <typename T> T take() {
    T v{};
    size_t n = std::min(sizeof v, size);
    std::memcpy(&v, data, n);
    data += n;
    size -= n;
    return v;
  }
  /// Mostly small values, sometimes extreme ones (the interesting edges).
  int intIn(int small) {
    uint8_t kind = take<uint8_t>();
    int32_t raw = take<int32_t>();
    switch (kind % 8) {
    case 0:
      return raw; // anything
    case 1:
      return kind & 0x10 ? INT32_MAX : INT32_MIN;
    default:
      return static_cast<int>(static_cast<uint32_t>(raw) % (small + 1)) -
             (kind % 8 == 2 ? 1 : 0);
    }
  }
};

[[noreturn]] void violation(const char *what) {
  std::fprintf(stderr, "contract violation: %s\n", what);
  std::abort();
}
void require(bool ok, const char *what) {
  if (!ok)
    violation(what);
}

constexpr uint8_t kCanary = 0xA5;

bool untouched(const void *p, size_t bytes) {
  const uint8_t *b = static_cast<const uint8_t *>(p);
  for (size_t i = 0; i < bytes; ++i)
    if (b[i] != kCanary)
      return false;
  return true;
}

bool validCode(PlanResult r) {
  return r == PlanResult::OK || r == PlanResult::BUFFER_OVERFLOW ||
         r == PlanResult::UNSUPPORTED_SIZE || r == PlanResult::INVALID_PARAMS;
}

/// Checks that `descs[0, count)` cover every row [0, lens[b]) of every head
/// exactly once, in order, rows in (sequence, head) order.
void checkCoverage(const std::vector<int> &lens, int heads,
                   const WorkDescriptor *descs, int count,
                   const TierList &tiers) {
  int i = 0;
  for (size_t b = 0; b < lens.size(); ++b) {
    if (lens[b] == 0)
      continue;
    for (int h = 0; h < heads; ++h) {
      int64_t next = 0;
      bool first = true;
      while (next < lens[b]) {
        require(i < count, "a row is not covered");
        const WorkDescriptor &d = descs[i++];
        require(params::Attention::request_idx(d) == b, "row order (request)");
        require(static_cast<int>(params::Attention::head_idx(d)) == h,
                "row order (head)");
        require(params::Attention::kv_start(d) == next, "a gap or an overlap");
        const int64_t len = params::Attention::kv_len(d);
        require(len > 0, "an empty piece");
        require(d.tier == tiers.select_tier(lens[b]), "the tier");
        require(bool(d.flags & WorkDescriptor::FLAG_FIRST) == first &&
                    bool(d.flags & WorkDescriptor::FLAG_INIT) == first,
                "FIRST|INIT on the first piece only");
        next += len;
        require(next <= lens[b], "past the row's end");
        require(bool(d.flags & WorkDescriptor::FLAG_LAST) == (next == lens[b]),
                "LAST on the last piece only");
        first = false;
      }
    }
  }
  require(i == count, "descriptors beyond the rows");
}

/// A spec planner configuration, possibly invalid.
PlanConfig specConfig(Input &in) {
  PlanConfig config;
  config.chunk_min = in.intIn(512);
  config.chunk_max = in.intIn(8192);
  config.max_work_units = in.intIn(4096);
  config.balance_chunks = in.take<uint8_t>() & 1;
  return config;
}

void fuzzSpecPlanner(Input &in, const std::vector<int> &lens, int heads,
                     const TierList &tiers) {
  const PlanConfig config = specConfig(in);
  WorkPlanner<AttentionSpace<>, TierList, params::Attention> planner(config,
                                                                     tiers);
  const int batch = static_cast<int>(lens.size());
  int chunk;
  if (in.take<uint8_t>() & 1) {
    chunk = planner.plan_chunk_size(lens.data(), batch, heads);
    require(chunk >= 0, "plan_chunk_size is never negative");
    require(chunk == 0 ||
                (chunk >= config.chunk_min && chunk <= config.chunk_max),
            "plan_chunk_size inside [chunk_min, chunk_max] (or 0: invalid)");
  } else {
    chunk = in.intIn(8192);
  }
  const int capacity = in.intIn(2048) & 0x3fff;
  std::vector<WorkDescriptor> buffer(static_cast<size_t>(capacity) + 4);
  std::memset(buffer.data(), kCanary, buffer.size() * sizeof(WorkDescriptor));
  int count = -12345;
  const bool parallel = in.take<uint8_t>() & 1;
  PlanResult r = parallel ? planner.generate_parallel(
                                lens.data(), batch, heads, chunk, buffer.data(),
                                capacity, &count, 1 + in.take<uint8_t>() % 4)
                          : planner.generate(lens.data(), batch, heads, chunk,
                                             buffer.data(), capacity, &count);
  require(validCode(r), "a result code outside the spec");
  require(untouched(buffer.data() + capacity, 4 * sizeof(WorkDescriptor)),
          "a write past the capacity");
  if (r != PlanResult::OK) {
    require(untouched(buffer.data(), buffer.size() * sizeof(WorkDescriptor)),
            "an error wrote descriptors");
    if (r == PlanResult::BUFFER_OVERFLOW)
      require(count > capacity, "overflow reports the count it needs");
    return;
  }
  require(count >= 0 && count <= capacity, "a count past the capacity");
  checkCoverage(lens, heads, buffer.data(), count, tiers);
}

/// The plan as cuts (plan_sweep_into) on the input the materialized planner
/// just took, with a cut buffer of the same length as its core_indptr: the
/// same result wherever the descriptor and merge buffers were big enough
/// (OK, or an error that is not BUFFER_OVERFLOW), nothing written on error,
/// and on OK the materialized plan, core by core.
void fuzzSweepCuts(const std::vector<int> &lens, int heads,
                   const BalancedConfig &config, const TierList &tiers,
                   int cutsSize, const int *q, PlanResult materialized,
                   const WorkDescriptor *descs, int count,
                   const int *indptr, int capacity) {
  // As the emitted AICPU function calls it (wsp.plan_balanced ... cuts):
  // with the descriptor buffer's capacity and the work lists, which the
  // materialized form's capacity rule and core_indptr must match.
  {
    std::vector<SweepCut> cuts(static_cast<size_t>(cutsSize) + 4);
    std::vector<int> lists(static_cast<size_t>(cutsSize) + 4);
    std::memset(cuts.data(), kCanary, cuts.size() * sizeof(SweepCut));
    std::memset(lists.data(), kCanary, lists.size() * sizeof(int));
    int n = -12345;
    const PlanResult r = plan_sweep_into(
        lens.data(), static_cast<int>(lens.size()), heads, config, tiers,
        cuts.data(), cutsSize, &n, nullptr, nullptr, q, capacity,
        lists.data(), cutsSize);
    require(validCode(r), "cuts with lists: a result code outside the spec");
    require(untouched(cuts.data() + cutsSize, 4 * sizeof(SweepCut)) &&
                untouched(lists.data() + cutsSize, 4 * sizeof(int)),
            "cuts with lists: a write past a buffer");
    if (r != PlanResult::OK) {
      require(untouched(cuts.data(), cuts.size() * sizeof(SweepCut)) &&
                  untouched(lists.data(), lists.size() * sizeof(int)),
              "cuts with lists: an error wrote a buffer");
      require(materialized != PlanResult::OK,
              "cuts with lists: an error the materialized form does not have");
      if (r == PlanResult::BUFFER_OVERFLOW)
        require(materialized == PlanResult::BUFFER_OVERFLOW && n > capacity,
                "cuts with lists: an overflow the materialized form does "
                "not have, or a count within the capacity");
    } else if (materialized == PlanResult::OK) {
      require(n == count, "cuts with lists: another descriptor count");
      for (int c = 0; c <= config.num_cores; ++c)
        require(lists[c] == indptr[c], "cuts with lists: another work list");
    }
  }
  std::vector<SweepCut> cuts(static_cast<size_t>(cutsSize) + 4);
  std::memset(cuts.data(), kCanary, cuts.size() * sizeof(SweepCut));
  int n = -12345;
  const PlanResult r = plan_sweep_into(
      lens.data(), static_cast<int>(lens.size()), heads, config, tiers,
      cuts.data(), cutsSize, &n, nullptr, nullptr, q);
  require(validCode(r) && r != PlanResult::BUFFER_OVERFLOW,
          "cuts: a result code outside the spec");
  require(untouched(cuts.data() + cutsSize, 4 * sizeof(SweepCut)),
          "cuts: a write past the buffer");
  if (r != PlanResult::OK) {
    require(untouched(cuts.data(), cuts.size() * sizeof(SweepCut)) &&
                n == -12345,
            "cuts: an error wrote a buffer");
    require(materialized != PlanResult::OK,
            "cuts: an error the materialized form does not have");
    return;
  }
  if (materialized == PlanResult::BUFFER_OVERFLOW)
    return; // (the materialized form had too little room to compare)
  require(materialized == PlanResult::OK,
          "cuts: a plan the materialized form refuses");
  require(n == count, "cuts: another descriptor count");
  for (int c = 0; c < config.num_cores; ++c) {
    require(cuts[c].desc == indptr[c], "cuts: another core boundary");
    int i = cuts[c].desc;
    for_each_sweep_piece(lens.data(), static_cast<int>(lens.size()), heads,
                         config, tiers, cuts[c], cuts[c + 1],
                         [&](const WorkDescriptor &d) {
                           require(i < count && std::memcmp(&d, &descs[i],
                                                            sizeof d) == 0,
                                   "cuts: another descriptor");
                           ++i;
                         });
    require(i == cuts[c + 1].desc, "cuts: another piece count");
  }
}

void fuzzBalancedPlanner(Input &in, const std::vector<int> &lens, int heads,
                         const TierList &tiers) {
  BalancedConfig config;
  config.num_cores = in.intIn(64);
  config.block_size = in.intIn(64);
  config.cost.per_unit = in.intIn(256);
  config.cost.per_token = in.intIn(8);
  config.cost.per_merge = in.intIn(256);
  config.batch_invariant = in.take<uint8_t>() & 1;
  config.invariant_chunk = in.intIn(4096);
  std::vector<int> q(lens.size());
  const bool withQ = in.take<uint8_t>() & 1;
  for (int &x : q)
    x = in.intIn(8);
  const int capacity = in.intIn(2048) & 0x3fff;
  const int indptrSize = in.intIn(80) & 0xff;
  const int mergeSize = in.intIn(2048) & 0x3fff;
  std::vector<WorkDescriptor> descs(static_cast<size_t>(capacity) + 4);
  std::vector<int> indptr(static_cast<size_t>(indptrSize) + 4),
      merge(static_cast<size_t>(mergeSize) + 4);
  std::memset(descs.data(), kCanary, descs.size() * sizeof(WorkDescriptor));
  std::memset(indptr.data(), kCanary, indptr.size() * sizeof(int));
  std::memset(merge.data(), kCanary, merge.size() * sizeof(int));
  int count = -12345, rows = -1;
  const bool costs = config.num_cores > 0 && config.num_cores <= 4096;
  std::vector<int64_t> coreCost(costs ? size_t(config.num_cores) : 0);
  PlanResult r = plan_balanced_into(
      lens.data(), static_cast<int>(lens.size()), heads, config, tiers,
      descs.data(), capacity, indptr.data(), indptrSize, merge.data(),
      mergeSize, &count, &rows, costs ? coreCost.data() : nullptr,
      withQ ? q.data() : nullptr);
  // The lower bound: defined wherever the plan is, and no plan beats it.
  const int64_t bound =
      balanced_lower_bound(lens.data(), static_cast<int>(lens.size()), heads,
                           config, withQ ? q.data() : nullptr);
  require(bound >= -1, "the lower bound is -1 or a cost");
  if (r == PlanResult::OK && costs && bound > 0)
    require(*std::max_element(coreCost.begin(), coreCost.end()) >= bound,
            "a plan beat the lower bound");
  require(validCode(r), "a result code outside the spec");
  fuzzSweepCuts(lens, heads, config, tiers, indptrSize,
                withQ ? q.data() : nullptr, r, descs.data(), count,
                indptr.data(), capacity);
  require(untouched(descs.data() + capacity, 4 * sizeof(WorkDescriptor)) &&
              untouched(indptr.data() + indptrSize, 4 * sizeof(int)) &&
              untouched(merge.data() + mergeSize, 4 * sizeof(int)),
          "a write past a buffer");
  if (r != PlanResult::OK) {
    require(untouched(descs.data(), descs.size() * sizeof(WorkDescriptor)) &&
                untouched(indptr.data(), indptr.size() * sizeof(int)) &&
                untouched(merge.data(), merge.size() * sizeof(int)),
            "an error wrote a buffer");
    if (r == PlanResult::BUFFER_OVERFLOW)
      require(count > capacity || mergeSize < rows + 1 || count >= 0,
              "overflow reports the count it needs");
    return;
  }
  require(count >= 0 && count <= capacity, "a count past the capacity");
  checkCoverage(lens, heads, descs.data(), count, tiers);
  // Every descriptor on exactly one core, in order.
  require(indptr[0] == 0 && indptr[config.num_cores] == count,
          "the cores' lists cover the descriptors");
  for (int c = 0; c < config.num_cores; ++c)
    require(indptr[c] <= indptr[c + 1], "core lists in order");
  require(merge[0] == 0 && merge[rows] == count, "the merge plan");
}

void fuzzIncrementalPlanner(Input &in, std::vector<int> lens, int heads,
                            const TierList &tiers) {
  const PlanConfig config = specConfig(in);
  using Planner = WorkPlanner<AttentionSpace<>, TierList, params::Attention>;
  Planner planner(config, tiers);
  constexpr int kMaxBatch = 256;
  const int capacity = in.intIn(2048) & 0x3fff;
  std::vector<WorkDescriptor> buffer(static_cast<size_t>(capacity) + 4);
  std::vector<WorkDescriptor> fresh(static_cast<size_t>(capacity) + 4);
  std::memset(buffer.data(), kCanary, buffer.size() * sizeof(WorkDescriptor));
  IncrementalPlan<Planner> plan(planner, kMaxBatch, heads, buffer.data(),
                                capacity);
  RowPlan<Planner> rows(planner, kMaxBatch, heads, capacity);
  const int cores = 1 + in.take<uint8_t>() % 48;
  for (int step = 0; step < 8; ++step) {
    const int batch = static_cast<int>(lens.size());
    std::vector<WorkDescriptor> before(buffer);
    int count = -12345;
    const PlanResult r = plan.update(lens.data(), batch, &count);
    require(validCode(r), "a result code outside the spec");
    require(untouched(buffer.data() + capacity, 4 * sizeof(WorkDescriptor)),
            "a write past the capacity");
    int fresh_count = -12345;
    const PlanResult expected =
        batch > kMaxBatch || batch <= 0 || heads <= 0
            ? PlanResult::INVALID_PARAMS
            : planner.generate(
                  lens.data(), batch, heads,
                  planner.plan_chunk_size(lens.data(), batch, heads),
                  fresh.data(), capacity, &fresh_count);
    require(r == expected, "an update's result differs from a fresh plan's");
    int rows_count = -12345;
    const PlanResult rr = rows.update(lens.data(), batch, &rows_count);
    require(rr == expected &&
                (rr == PlanResult::OK || rr == PlanResult::BUFFER_OVERFLOW
                     ? rows_count == count
                     : rows_count == 0),
            "a RowPlan update's result differs from a fresh plan's");
    if (r != PlanResult::OK) {
      require(std::memcmp(before.data(), buffer.data(),
                          buffer.size() * sizeof(WorkDescriptor)) == 0,
              "an error changed the plan's descriptors");
    } else {
      require(count == fresh_count &&
                  std::memcmp(buffer.data(), fresh.data(),
                              static_cast<size_t>(count) *
                                  sizeof(WorkDescriptor)) == 0,
              "an update's descriptors differ from a fresh plan's");
      // The cores' walks make the same descriptors.
      int made = 0;
      for (int c = 0; c < cores; ++c) {
        int next = c;
        rows.for_each(c, cores, [&](const WorkDescriptor &d) {
          require(next < count &&
                      std::memcmp(&d, &fresh[static_cast<size_t>(next)],
                                  sizeof(WorkDescriptor)) == 0,
                  "a RowPlan core made another descriptor than a fresh "
                  "plan's");
          next += cores;
          ++made;
        });
      }
      require(made == count && rows.count() == count,
              "a RowPlan's cores made another number of descriptors");
    }
    // The next step's lengths: a decode step, a replaced row, a row joining
    // or leaving.
    const uint8_t event = in.take<uint8_t>();
    const int grow = 1 + event % 3;
    switch ((event >> 2) % 4) {
    case 0:
      for (int &l : lens)
        if (l > 0 && l < INT32_MAX - grow)
          l += grow;
      break;
    case 1:
      if (!lens.empty())
        lens[in.take<uint8_t>() % lens.size()] = in.intIn(20000);
      break;
    case 2:
      lens.push_back(in.intIn(20000));
      break;
    default:
      if (!lens.empty())
        lens.erase(lens.begin() + in.take<uint8_t>() % lens.size());
      break;
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in{data, size};
  const uint8_t which = in.take<uint8_t>();
  // A tier list of 1 to 4 ranges, possibly odd (gaps, overlaps).
  std::vector<TierRange> ranges;
  const int numTiers = 1 + in.take<uint8_t>() % 4;
  for (int t = 0; t < numTiers; ++t)
    ranges.push_back({t, in.intIn(4096), in.intIn(131072)});
  TierList tiers(ranges);
  const int batch = in.intIn(64);
  const int heads = in.intIn(16);
  if (batch < 0 || batch > 256)
    return 0; // the batch buffer itself is the caller's: keep it sane
  std::vector<int> lens(static_cast<size_t>(batch));
  for (int &l : lens)
    l = in.intIn(20000);
  if (heads > 64 && which & 2)
    return 0; // huge heads are covered by the error paths only
  if ((which & 5) == 5)
    fuzzIncrementalPlanner(in, lens, heads, tiers);
  else if (which & 1)
    fuzzSpecPlanner(in, lens, heads, tiers);
  else
    fuzzBalancedPlanner(in, lens, heads, tiers);
  return 0;
}
