// pto/runtime/hardware.hpp - the device model of the PTO-WSP spec (§2.4):
// one place for the core counts and on-chip buffer budgets that the CPU
// simulation, the tile simulation and the wsp compiler's verifiers and
// memory planner all use.
#ifndef PTO_RUNTIME_HARDWARE_HPP
#define PTO_RUNTIME_HARDWARE_HPP

#include <cstdint>

namespace pto {
namespace runtime {

/// A2/A3 AICores: 24 cube (AIC) and 48 vector (AIV) cores. A mixed block
/// pairs one cube core with kVectorCoresPerBlock vector cores.
constexpr int kNumCubeCores = 24;
constexpr int kNumVectorCores = 48;
constexpr int kVectorCoresPerBlock = kNumVectorCores / kNumCubeCores;

/// The pipes of an AICore (S, V, M, MTE1, MTE2, MTE3, FIX), and the flag ids
/// set_flag/wait_flag have between two of them.
constexpr int kNumPipes = 7;
constexpr int kFlagEventsPerPipePair = 8;

/// The cross-core flags of a mixed block (A2/A3's FFTS): 16 flag ids, each
/// a 4-bit counter, so at most 15 sets of one id wait for their waits.
constexpr int kCrossCoreFlags = 16;
constexpr int kCrossCoreFlagMaxCount = 15;

/// The on-chip buffers of an A2/A3 AICore, by what they hold (pto-isa's
/// TileType names): Vec tiles live in the vector core's unified buffer (UB),
/// Mat tiles in the cube core's L1, Left/Right (the matmul operands) in L0A
/// and L0B, Acc (the matmul result) in L0C.
enum class Buffer : uint8_t { UB, L1, L0A, L0B, L0C };
constexpr int kNumBuffers = 5;

/// Bytes per buffer, per core (A2/A3).
constexpr int64_t kUbBytes = 192 * 1024;
constexpr int64_t kL1Bytes = 512 * 1024;
constexpr int64_t kL0aBytes = 64 * 1024;
constexpr int64_t kL0bBytes = 64 * 1024;
constexpr int64_t kL0cBytes = 128 * 1024;

/// Tile addresses and sizes are multiples of this many bytes (the DMA and
/// vector units work on 32-byte blocks).
constexpr int64_t kTileAlignBytes = 32;

/// The bytes one repeat of a vector instruction processes (eight blocks):
/// an instruction runs over a tile one repeat at a time.
constexpr int64_t kVectorRepeatBytes = 256;

constexpr int64_t buffer_bytes(Buffer b) {
  return b == Buffer::UB    ? kUbBytes
         : b == Buffer::L1  ? kL1Bytes
         : b == Buffer::L0A ? kL0aBytes
         : b == Buffer::L0B ? kL0bBytes
                            : kL0cBytes;
}

constexpr const char *buffer_name(Buffer b) {
  return b == Buffer::UB    ? "UB"
         : b == Buffer::L1  ? "L1"
         : b == Buffer::L0A ? "L0A"
         : b == Buffer::L0B ? "L0B"
                            : "L0C";
}

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_HARDWARE_HPP
