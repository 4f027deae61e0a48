// pto/runtime/work_descriptor.hpp - WorkDescriptor, params accessors and the
// descriptor buffer (PTO-WSP spec §4, §8.1).
#ifndef PTO_RUNTIME_WORK_DESCRIPTOR_HPP
#define PTO_RUNTIME_WORK_DESCRIPTOR_HPP

#include <cstddef>
#include <cstdint>
#include <new>

namespace pto {
namespace runtime {

/// One unit of work: 24 bytes, 8-byte aligned, identical on host, AICPU and
/// AICore.
struct alignas(8) WorkDescriptor {
  uint32_t work_id;   // Offset: 0, Size: 4
  uint8_t tier;       // Offset: 4, Size: 1
  uint8_t flags;      // Offset: 5, Size: 1
  uint16_t reserved;  // Offset: 6, Size: 2 (always 0)
  uint32_t params[4]; // Offset: 8, Size: 16

  static constexpr uint8_t FLAG_FIRST = 0x01; // first chunk of a sequence
  static constexpr uint8_t FLAG_LAST = 0x02;  // last chunk of a sequence
  static constexpr uint8_t FLAG_INIT = 0x04;  // initialize accumulators

  constexpr bool is_first() const { return (flags & FLAG_FIRST) != 0; }
  constexpr bool is_last() const { return (flags & FLAG_LAST) != 0; }
  constexpr bool is_init() const { return (flags & FLAG_INIT) != 0; }
};

static_assert(sizeof(WorkDescriptor) == 24, "WorkDescriptor must be 24 bytes");
static_assert(alignof(WorkDescriptor) == 8,
              "WorkDescriptor must be 8-byte aligned");
static_assert(offsetof(WorkDescriptor, work_id) == 0, "work_id at byte 0");
static_assert(offsetof(WorkDescriptor, tier) == 4, "tier at byte 4");
static_assert(offsetof(WorkDescriptor, flags) == 5, "flags at byte 5");
static_assert(offsetof(WorkDescriptor, reserved) == 6, "reserved at byte 6");
static_assert(offsetof(WorkDescriptor, params) == 8, "params at byte 8");
static_assert(sizeof(WorkDescriptor::params) == 16, "params are 16 bytes");

namespace params {

/// Attention: params = {request_idx, head_idx, kv_start, kv_len}.
struct Attention {
  static void set(WorkDescriptor &d, uint32_t request_idx, uint32_t head_idx,
                  uint32_t kv_start, uint32_t kv_len) {
    d.params[0] = request_idx;
    d.params[1] = head_idx;
    d.params[2] = kv_start;
    d.params[3] = kv_len;
  }
  static uint32_t request_idx(const WorkDescriptor &d) { return d.params[0]; }
  static uint32_t head_idx(const WorkDescriptor &d) { return d.params[1]; }
  static uint32_t kv_start(const WorkDescriptor &d) { return d.params[2]; }
  static uint32_t kv_len(const WorkDescriptor &d) { return d.params[3]; }
  /// One past the last KV position of the chunk.
  static uint32_t kv_end(const WorkDescriptor &d) {
    return d.params[2] + d.params[3];
  }
};

/// MoE: params = {batch_idx, expert_idx, token_start, token_count}.
struct MoE {
  static void set(WorkDescriptor &d, uint32_t batch_idx, uint32_t expert_idx,
                  uint32_t token_start, uint32_t token_count) {
    d.params[0] = batch_idx;
    d.params[1] = expert_idx;
    d.params[2] = token_start;
    d.params[3] = token_count;
  }
  static uint32_t batch_idx(const WorkDescriptor &d) { return d.params[0]; }
  static uint32_t expert_idx(const WorkDescriptor &d) { return d.params[1]; }
  static uint32_t token_start(const WorkDescriptor &d) { return d.params[2]; }
  static uint32_t token_count(const WorkDescriptor &d) { return d.params[3]; }
};

/// MoE planned per expert, for WorkPlanner: its lengths are token counts per
/// expert (the planner's first index) and its "heads" are batch groups (the
/// second), so every expert gets its own count. Writes the spec's MoE layout.
struct MoEPerExpert {
  static void set(WorkDescriptor &d, uint32_t expert_idx, uint32_t batch_idx,
                  uint32_t token_start, uint32_t token_count) {
    MoE::set(d, batch_idx, expert_idx, token_start, token_count);
  }
};

} // namespace params

/// Descriptor buffers (spec §8.1, implementation-defined). This
/// implementation allocates zeroed, 64-byte aligned host memory, which is
/// what the CPU simulation and the AICPU (whose memory the AICore reads) use.
/// count < 0 yields nullptr; count == 0 yields a valid, empty buffer so that
/// a plan with no work still has somewhere to write.
inline WorkDescriptor *allocate_descriptors(int count) {
  if (count < 0)
    return nullptr;
  const size_t n = count == 0 ? 1 : static_cast<size_t>(count);
  void *mem = ::operator new(n * sizeof(WorkDescriptor), std::align_val_t(64),
                             std::nothrow);
  if (!mem)
    return nullptr;
  auto *buffer = static_cast<WorkDescriptor *>(mem);
  for (size_t i = 0; i < n; ++i)
    new (buffer + i) WorkDescriptor{};
  return buffer;
}

/// Releases a buffer from allocate_descriptors (nullptr is a no-op).
inline void free_descriptors(WorkDescriptor *buffer) {
  if (buffer)
    ::operator delete(buffer, std::align_val_t(64));
}

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_WORK_DESCRIPTOR_HPP
