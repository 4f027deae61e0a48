// pto/runtime/cross_core.hpp - the cross-core flags of one mixed AICore
// block (A2/A3's FFTS in mode 2) between its cube core and its vector
// cores, for simulations that run a block's cores as concurrent threads
// (pto/runtime/aicore.hpp does under pto-isa's CPU simulation).
//
// A set by the cube raises the flag at every vector core of the block, and
// each vector core's wait takes its own; a set by a vector core raises its
// count at the cube, and the cube's wait takes one from every vector core.
// A flag's count is a 4-bit counter. What the hardware would do wrong is
// reported and aborts, naming the block, the core and the flag: a set past
// the counter's limit, a wait that no set answers within the patience (a
// hang on the device), and a flag still raised when the block ends.
#ifndef PTO_RUNTIME_CROSS_CORE_HPP
#define PTO_RUNTIME_CROSS_CORE_HPP

#include "pto/runtime/hardware.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace pto {
namespace runtime {

/// The core of a mixed block that sets or waits.
enum class BlockCore : uint8_t { cube, vector };

class CrossCoreFlags {
public:
  /// `patience`: how long a wait may block before it is reported as never
  /// answered.
  explicit CrossCoreFlags(
      uint32_t block,
      std::chrono::milliseconds patience = std::chrono::seconds(60))
      : block_(block), patience_(patience) {}

  /// `core` (vector core `sub` of the block) sets flag `id`.
  void set(BlockCore core, uint32_t sub, uint16_t id) {
    check(core, sub, id);
    std::lock_guard<std::mutex> lock(m_);
    for (int v = 0; v < kVectorCoresPerBlock; ++v) {
      if (core == BlockCore::vector && v != static_cast<int>(sub))
        continue;
      uint8_t &count =
          core == BlockCore::cube ? to_vector_[v][id] : to_cube_[v][id];
      if (count == kCrossCoreFlagMaxCount)
        fail(core, sub, "sets cross-core flag %u a %dth time before it is "
                        "waited on",
             unsigned{id}, kCrossCoreFlagMaxCount + 1);
      ++count;
    }
    raised_.notify_all();
  }

  /// `core` (vector core `sub`) waits for flag `id`, then takes it.
  void wait(BlockCore core, uint32_t sub, uint16_t id) {
    check(core, sub, id);
    std::unique_lock<std::mutex> lock(m_);
    auto ready = [&] {
      if (core == BlockCore::vector)
        return to_vector_[sub][id] > 0;
      for (int v = 0; v < kVectorCoresPerBlock; ++v)
        if (to_cube_[v][id] == 0)
          return false;
      return true;
    };
    if (!raised_.wait_for(lock, patience_, ready))
      fail(core, sub, "waited %lld ms for cross-core flag %u, which the "
                      "other cores never set",
           static_cast<long long>(patience_.count()), unsigned{id});
    for (int v = 0; v < kVectorCoresPerBlock; ++v) {
      if (core == BlockCore::cube)
        --to_cube_[v][id];
      else if (v == static_cast<int>(sub))
        --to_vector_[v][id];
    }
  }

  /// Once every core of the block returned: reports a flag still raised.
  void check_drained() {
    std::lock_guard<std::mutex> lock(m_);
    for (int v = 0; v < kVectorCoresPerBlock; ++v)
      for (int id = 0; id < kCrossCoreFlags; ++id) {
        if (to_vector_[v][id] != 0)
          fail(BlockCore::cube, 0,
               "set cross-core flag %d for vector core %d, which never "
               "waited on it",
               id, v);
        if (to_cube_[v][id] != 0)
          fail(BlockCore::vector, static_cast<uint32_t>(v),
               "set cross-core flag %d, which the cube never waited on", id);
      }
  }

private:
  template <typename... A>
  [[noreturn]] void fail(BlockCore core, uint32_t sub, const char *what,
                         A... a) const {
    if (core == BlockCore::cube)
      std::fprintf(stderr, "cross-core flags: block %u, the cube ", block_);
    else
      std::fprintf(stderr, "cross-core flags: block %u, vector core %u ",
                   block_, sub);
    std::fprintf(stderr, what, a...);
    std::fprintf(stderr, "\n");
    std::abort();
  }
  void check(BlockCore core, uint32_t sub, uint16_t id) const {
    if (id >= kCrossCoreFlags)
      fail(core, sub, "names cross-core flag %u; a block has %d", unsigned{id},
           kCrossCoreFlags);
    if (core == BlockCore::vector &&
        sub >= static_cast<uint32_t>(kVectorCoresPerBlock))
      fail(core, sub, "is not one of the block's %d vector cores",
           kVectorCoresPerBlock);
  }

  const uint32_t block_;
  const std::chrono::milliseconds patience_;
  std::mutex m_;
  std::condition_variable raised_;
  uint8_t to_vector_[kVectorCoresPerBlock][kCrossCoreFlags] = {};
  uint8_t to_cube_[kVectorCoresPerBlock][kCrossCoreFlags] = {};
};

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_CROSS_CORE_HPP
