// pto/runtime/work_planner.hpp - PlanResult, PlanConfig, WorkPlanner
// (PTO-WSP spec §6).
//
// Decisions where the spec is silent or ambiguous (docs/rationale/Runtime.md):
// - plan_chunk_size follows the §6.3.4 pseudocode: the *smallest* chunk in
//   [chunk_min, chunk_max] whose work count fits max_work_units, or chunk_max
//   when none fits (the prose's "largest" contradicts its own pseudocode).
// - A sequence of length 0 produces no work units and selects no tier; a
//   negative length is INVALID_PARAMS.
// - balance_chunks = true splits a length L into n = ceil(L / chunk) chunks
//   whose sizes differ by at most one (the first L % n are one longer);
//   false gives n - 1 chunks of exactly `chunk` and a shorter last one. The
//   count n, and so every work count, is the same in both modes.
// - FLAG_INIT is set together with FLAG_FIRST: the first chunk of each
//   (sequence, head) initializes its accumulators.
// - Errors leave the output buffer untouched. Precedence: INVALID_PARAMS,
//   then UNSUPPORTED_SIZE, then BUFFER_OVERFLOW, whatever the position of the
//   offending length. On BUFFER_OVERFLOW *out_work_count holds the required
//   count (saturated at INT_MAX); on other errors it is 0.
// - plan_chunk_size returns 0 (never a valid chunk, so generate() rejects it
//   with INVALID_PARAMS) and get_total_work returns -1 on invalid input.
#ifndef PTO_RUNTIME_WORK_PLANNER_HPP
#define PTO_RUNTIME_WORK_PLANNER_HPP

#include "pto/runtime/chunking.hpp"
#include "pto/runtime/iteration_space.hpp"
#include "pto/runtime/tier_config.hpp"
#include "pto/runtime/work_descriptor.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <thread>
#include <vector>

namespace pto {
namespace runtime {

enum class PlanResult {
  OK = 0,           // Success
  BUFFER_OVERFLOW,  // Output buffer too small
  UNSUPPORTED_SIZE, // Size not covered by any tier
  INVALID_PARAMS,   // Invalid input parameters
};

constexpr const char *to_string(PlanResult result) {
  switch (result) {
  case PlanResult::OK:
    return "OK";
  case PlanResult::BUFFER_OVERFLOW:
    return "BUFFER_OVERFLOW";
  case PlanResult::UNSUPPORTED_SIZE:
    return "UNSUPPORTED_SIZE";
  case PlanResult::INVALID_PARAMS:
    return "INVALID_PARAMS";
  }
  return "UNKNOWN";
}

struct PlanConfig {
  int chunk_min = 256;        // Minimum chunk size
  int chunk_max = 4096;       // Maximum chunk size
  int max_work_units = 65536; // Maximum work units
  bool balance_chunks = true; // Balance chunk sizes

  /// Spec §6.2.1: chunk_min > 0, chunk_max >= chunk_min, max_work_units > 0.
  constexpr bool is_valid() const {
    return chunk_min > 0 && chunk_max >= chunk_min && max_work_units > 0;
  }
};

namespace detail {

/// BUFFER_OVERFLOW's count: the descriptors `chunks` chunks of `heads`
/// heads need, saturated at INT_MAX (heads > 0).
constexpr int required_count(int64_t chunks, int heads) {
  return chunks > INT_MAX / heads ? INT_MAX : static_cast<int>(chunks * heads);
}

template <typename Space> struct is_iteration_space : std::false_type {};
template <typename... Dims>
struct is_iteration_space<IterationSpace<Dims...>> : std::true_type {};

} // namespace detail

/// Plans a chunk size and generates work descriptors in batch -> head ->
/// chunk order (spec §6.3). The first two dimensions of Space are the batch
/// and the head dimension; a static one fixes the matching argument.
/// TierCfg is a TierConfig<...> or, for tiers known only at run time, a
/// TierList passed to the constructor.
template <typename Space, typename TierCfg, typename PatternParams>
class WorkPlanner {
  static_assert(detail::is_iteration_space<Space>::value,
                "WorkPlanner: Space must be an IterationSpace<>");
  static_assert(Space::num_dims >= 2,
                "WorkPlanner: Space needs a batch and a head dimension");

public:
  explicit WorkPlanner(const PlanConfig &config = {}, TierCfg tiers = {})
      : config_(config), tiers_(std::move(tiers)) {}

  const PlanConfig &config() const { return config_; }
  const TierCfg &tiers() const { return tiers_; }

  /// Spec §6.3.4: binary search for the smallest chunk size whose work count
  /// fits max_work_units. Returns 0 on invalid input.
  int plan_chunk_size(const int *seq_lens, int batch_size,
                      int num_heads) const {
    if (!config_.is_valid() || !seq_lens || !shape_ok(batch_size, num_heads))
      return 0;
    // One pass for the bounds that decide most probes without a count:
    // max(nz, ceil(S/c)) <= sum_i ceil(len_i/c) <= (S + nz*(c-1)) / c.
    int64_t sum = 0, nonzero = 0;
    int max_len = 0, min_len = 0;
    for (int b = 0; b < batch_size; ++b) { // branch-free: it vectorizes
      const int len = seq_lens[b];
      sum += len;
      nonzero += len != 0;
      max_len = std::max(max_len, len);
      min_len = std::min(min_len, len);
    }
    if (min_len < 0)
      return 0;
    // count(c) * num_heads <= max_work_units  <=>  count(c) <= limit.
    const int64_t limit = config_.max_work_units / num_heads;
    if (nonzero > limit) // no chunk size fits: the search ends at chunk_max
      return config_.chunk_max;
    if (nonzero == 0) // no work: every chunk size fits
      return config_.chunk_min;
    // The pseudocode returns the smallest fitting chunk in [chunk_min,
    // chunk_max], else chunk_max. Fitting is monotone in c, and the bounds
    // say every fitting c is >= first_lower (ceil(S/c) <= limit) and that
    // first_upper fits ((S + nz(c-1))/c <= limit, or c >= max_len). Searching
    // [max(chunk_min, first_lower), min(chunk_max, first_upper)] with the
    // same rule therefore gives the same answer with fewer probes.
    const int64_t first_lower = (sum + limit - 1) / limit;
    const int64_t first_upper =
        std::min<int64_t>((sum - nonzero) / (limit + 1 - nonzero) + 1, max_len);
    if (first_lower > config_.chunk_max)
      return config_.chunk_max;
    if (first_upper <= config_.chunk_min)
      return config_.chunk_min;
    int low =
        static_cast<int>(std::max<int64_t>(config_.chunk_min, first_lower));
    int high =
        static_cast<int>(std::min<int64_t>(config_.chunk_max, first_upper));
    while (low < high) {
      const int mid = low + (high - low) / 2;
      if (count_chunks_upto(seq_lens, batch_size, mid, max_len, limit) > limit)
        low = mid + 1;
      else
        high = mid;
    }
    return low;
  }

  /// Spec §6.3.5. Writes descriptors only when the whole plan is valid and
  /// fits; see the file comment for the error contract.
  PlanResult generate(const int *seq_lens, int batch_size, int num_heads,
                      int chunk_size, WorkDescriptor *out_buffer,
                      int buffer_capacity, int *out_work_count) const {
    int64_t total = 0;
    const PlanResult result =
        validate(seq_lens, batch_size, num_heads, chunk_size, out_buffer,
                 buffer_capacity, out_work_count, &total);
    if (result != PlanResult::OK)
      return result;
    write_range(seq_lens, 0, batch_size, num_heads, chunk_size, out_buffer, 0);
    *out_work_count = static_cast<int>(total);
    return PlanResult::OK;
  }

  /// Spec §8.2: the number of descriptors generate() will write, or -1 on
  /// invalid input or a count that does not fit an int. Tiers are not
  /// checked here (generate() reports UNSUPPORTED_SIZE).
  int get_total_work(const int *seq_lens, int batch_size, int num_heads,
                     int chunk_size) const {
    if (!seq_lens || !shape_ok(batch_size, num_heads) || chunk_size <= 0)
      return -1;
    int64_t chunks = 0;
    for (int b = 0; b < batch_size; ++b) {
      if (seq_lens[b] < 0)
        return -1;
      chunks += detail::num_chunks(seq_lens[b], chunk_size);
    }
    return chunks > INT_MAX / num_heads ? -1
                                        : static_cast<int>(chunks * num_heads);
  }

  /// Spec §6.5.2: the same output as generate(), written by `num_threads`
  /// threads, thread t taking batches [B*t/P, B*(t+1)/P).
  PlanResult generate_parallel(const int *seq_lens, int batch_size,
                               int num_heads, int chunk_size,
                               WorkDescriptor *out_buffer, int buffer_capacity,
                               int *out_work_count, int num_threads) const {
    if (num_threads <= 0) {
      if (out_work_count)
        *out_work_count = 0;
      return PlanResult::INVALID_PARAMS;
    }
    int64_t total = 0;
    const PlanResult result =
        validate(seq_lens, batch_size, num_heads, chunk_size, out_buffer,
                 buffer_capacity, out_work_count, &total);
    if (result != PlanResult::OK)
      return result;
    const int threads = std::min(num_threads, batch_size);
    // Each thread's first work id: the units of all batches before its range.
    std::vector<uint32_t> first_id(threads + 1, 0);
    for (int t = 0; t < threads; ++t)
      first_id[t + 1] =
          first_id[t] +
          static_cast<uint32_t>(count_units(
              seq_lens, batch_begin(t, threads, batch_size),
              batch_begin(t + 1, threads, batch_size), num_heads, chunk_size));
    auto work = [&](int t) {
      write_range(seq_lens, batch_begin(t, threads, batch_size),
                  batch_begin(t + 1, threads, batch_size), num_heads,
                  chunk_size, out_buffer + first_id[t], first_id[t]);
    };
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (int t = 1; t < threads; ++t)
      pool.emplace_back(work, t);
    work(0);
    for (std::thread &thread : pool)
      thread.join();
    *out_work_count = static_cast<int>(total);
    return PlanResult::OK;
  }

  /// The building block of parallel generation on AICPU threads: writes the
  /// descriptors of batches [batch_begin, batch_end) to `out`, numbering them
  /// from `first_work_id`. No validation: call validate() first.
  void write_range(const int *seq_lens, int batch_begin, int batch_end,
                   int num_heads, int chunk_size, WorkDescriptor *out,
                   uint32_t first_work_id) const {
    for (int b = batch_begin; b < batch_end; ++b) {
      const int written = write_row(b, seq_lens[b], num_heads, chunk_size, 0,
                                    out, first_work_id);
      out += written;
      first_work_id += static_cast<uint32_t>(written);
    }
  }

  /// The descriptors of one sequence: batch index `b` of length `len`,
  /// heads in order, for each head its chunks from `first_chunk` on. `row`
  /// points at (and `first_work_id` numbers) the row's first descriptor,
  /// chunk 0 of head 0, even when earlier chunks are skipped. Returns the
  /// row's descriptor count. No validation: call validate() first.
  int write_row(int b, int len, int num_heads, int chunk_size, int first_chunk,
                WorkDescriptor *row, uint32_t first_work_id) const {
    if (len == 0)
      return 0;
    const auto tier = static_cast<uint8_t>(tiers_.select_tier(len));
    const detail::Chunking chunks =
        detail::Chunking::of(len, chunk_size, config_.balance_chunks);
    for (int h = 0; h < num_heads; ++h)
      for (int i = first_chunk; i < chunks.count; ++i) {
        const int index = h * chunks.count + i;
        row[index] =
            make_descriptor(b, h, i, chunks, tier,
                            first_work_id + static_cast<uint32_t>(index));
      }
    return num_heads * chunks.count;
  }

  /// Descriptor `index` of one sequence's row (batch index `b` of length
  /// `len`, numbered from `first_work_id`): what write_row writes there,
  /// for a core that expands a plan kept as rows (RowPlan). No
  /// validation.
  WorkDescriptor row_descriptor(int b, int len, int chunk_size, int index,
                                uint32_t first_work_id) const {
    const detail::Chunking chunks =
        detail::Chunking::of(len, chunk_size, config_.balance_chunks);
    return make_descriptor(b, index / chunks.count, index % chunks.count,
                           chunks,
                           static_cast<uint8_t>(tiers_.select_tier(len)),
                           first_work_id + static_cast<uint32_t>(index));
  }

  /// Chunk `i` of head `h` of sequence `b`, cut as `chunks`: the single
  /// place a descriptor's fields are defined.
  static WorkDescriptor make_descriptor(int b, int h, int i,
                                        const detail::Chunking &chunks,
                                        uint8_t tier, uint32_t work_id) {
    WorkDescriptor d;
    d.work_id = work_id;
    d.tier = tier;
    d.flags = static_cast<uint8_t>(
        (i == 0 ? WorkDescriptor::FLAG_FIRST | WorkDescriptor::FLAG_INIT : 0) |
        (i == chunks.count - 1 ? WorkDescriptor::FLAG_LAST : 0));
    d.reserved = 0;
    PatternParams::set(d, static_cast<uint32_t>(b), static_cast<uint32_t>(h),
                       static_cast<uint32_t>(chunks.start(i)),
                       static_cast<uint32_t>(chunks.size(i)));
    return d;
  }

  /// The validation shared by every generating entry point (and by
  /// IncrementalPlan): the error contract of the file comment. On OK,
  /// *total holds the descriptor count and nothing else is written but
  /// *out_work_count = 0.
  PlanResult validate(const int *seq_lens, int batch_size, int num_heads,
                      int chunk_size, const WorkDescriptor *out_buffer,
                      int buffer_capacity, int *out_work_count,
                      int64_t *total) const {
    if (!out_work_count)
      return PlanResult::INVALID_PARAMS;
    *out_work_count = 0;
    if (!out_buffer)
      return PlanResult::INVALID_PARAMS;
    return validate_lengths(seq_lens, batch_size, num_heads, chunk_size,
                            buffer_capacity, out_work_count, total);
  }

  /// validate() for a plan of up to `capacity` descriptors that no buffer
  /// holds (RowPlan's: the cores make them); `out_work_count` must not be
  /// null.
  PlanResult validate_lengths(const int *seq_lens, int batch_size,
                              int num_heads, int chunk_size,
                              int buffer_capacity, int *out_work_count,
                              int64_t *total) const {
    *out_work_count = 0;
    if (!config_.is_valid() || !seq_lens || !shape_ok(batch_size, num_heads) ||
        chunk_size <= 0 || buffer_capacity < 0)
      return PlanResult::INVALID_PARAMS;
    bool unsupported = false;
    int64_t chunks = 0;
    for (int b = 0; b < batch_size; ++b) {
      const int len = seq_lens[b];
      if (len < 0)
        return PlanResult::INVALID_PARAMS;
      if (len > 0 && tiers_.select_tier(len) < 0)
        unsupported = true;
      chunks += detail::num_chunks(len, chunk_size);
    }
    if (unsupported)
      return PlanResult::UNSUPPORTED_SIZE;
    // chunks * num_heads > capacity, written so that it cannot overflow.
    if (chunks > buffer_capacity / num_heads) {
      *out_work_count = detail::required_count(chunks, num_heads);
      return PlanResult::BUFFER_OVERFLOW;
    }
    *total = chunks * num_heads;
    return PlanResult::OK;
  }

private:
  static constexpr int batch_begin(int t, int threads, int batch_size) {
    return static_cast<int>(static_cast<int64_t>(batch_size) * t / threads);
  }

  /// A static batch or head dimension of Space pins the argument.
  static constexpr bool shape_ok(int batch_size, int num_heads) {
    using BatchDim = std::tuple_element_t<0, typename Space::DimsTuple>;
    using HeadDim = std::tuple_element_t<1, typename Space::DimsTuple>;
    return batch_size > 0 && num_heads > 0 &&
           (BatchDim::is_dynamic || BatchDim::static_size == batch_size) &&
           (HeadDim::is_dynamic || HeadDim::static_size == num_heads);
  }

  static int64_t count_units(const int *seq_lens, int begin, int end,
                             int num_heads, int chunk_size) {
    int64_t chunks = 0;
    for (int b = begin; b < end; ++b)
      chunks += detail::num_chunks(seq_lens[b], chunk_size);
    return chunks * num_heads;
  }

  /// sum_b ceil(len_b / c), stopping early once it exceeds `limit`.
  static int64_t count_chunks_upto(const int *seq_lens, int batch_size, int c,
                                   int max_len, int64_t limit) {
    constexpr int kBlock = 256; // keep the inner loops branch-free
    // Below 2^22 a float reciprocal gets floor(len / c) to within one, and
    // one exact integer correction finds the ceiling; this loop vectorizes,
    // where an integer division per length would not.
    const bool use_reciprocal = max_len < (1 << 22);
    const float inv = 1.0f / static_cast<float>(c);
    int64_t chunks = 0;
    for (int begin = 0; begin < batch_size; begin += kBlock) {
      const int end = std::min(batch_size, begin + kBlock);
      int32_t block = 0;
      if (use_reciprocal) {
        for (int b = begin; b < end; ++b) {
          const int32_t len = seq_lens[b];
          const int32_t q = static_cast<int32_t>(static_cast<float>(len) * inv);
          const int32_t r = len - q * c; // in [-c, 2c)
          block += q + (r > 0) + (r > c) - (r <= -c);
        }
        chunks += block;
      } else {
        for (int b = begin; b < end; ++b)
          chunks += detail::num_chunks(seq_lens[b], c);
      }
      if (chunks > limit)
        break;
    }
    return chunks;
  }

  PlanConfig config_;
  TierCfg tiers_;
};

using AttentionPlanner = WorkPlanner<AttentionSpace<DYNAMIC, DYNAMIC, DYNAMIC>,
                                     DecodeAttentionTiers, params::Attention>;

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_WORK_PLANNER_HPP
