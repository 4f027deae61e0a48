// pto/runtime/hardware.hpp - the device model of the PTO-WSP spec (§2.4):
// one place for the core counts that the CPU simulation and the wsp
// compiler's verifiers both use.
#ifndef PTO_RUNTIME_HARDWARE_HPP
#define PTO_RUNTIME_HARDWARE_HPP

namespace pto {
namespace runtime {

/// A2/A3 AICores: 24 cube (AIC) and 48 vector (AIV) cores.
constexpr int kNumCubeCores = 24;
constexpr int kNumVectorCores = 48;

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_HARDWARE_HPP
