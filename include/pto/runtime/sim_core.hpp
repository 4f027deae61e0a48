// pto/runtime/sim_core.hpp - what the CPU-simulation launcher (cpu_sim.hpp)
// and the tile simulation (tile.hpp) share: which simulated core run the
// calling thread executes (the tile simulation keeps a core's pipe state
// from one kernel invocation to the next within a run), and kernel faults
// (a kernel's run-time input out of bounds stops its core; the launch
// reports it to its caller).
#ifndef PTO_RUNTIME_SIM_CORE_HPP
#define PTO_RUNTIME_SIM_CORE_HPP

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

namespace pto {
namespace runtime {
namespace sim {

/// Which run of a simulated core the calling thread is executing: a new
/// number each time a simulated core starts its share of a launch, so that
/// state a core keeps from one kernel invocation to the next (the tile
/// simulation's pipe clocks) is reset between cores, not between calls.
/// 0: no launcher (every invocation starts afresh).
inline uint64_t &core_run() {
  thread_local uint64_t run = 0;
  return run;
}

/// What a kernel throws when its run-time input would take it out of
/// bounds (a tile load past its memref, a page past the cache): the
/// simulated core stops there, before touching the memory, and its launch
/// records the fault for the launch's caller (fault()). The device has no
/// such check; the planners' preconditions keep such inputs from kernels.
class KernelFault : public std::exception {
public:
  explicit KernelFault(const char *message) {
    std::snprintf(message_, sizeof message_, "%s", message);
  }
  const char *what() const noexcept override { return message_; }

private:
  char message_[512];
};

namespace detail {
inline std::string &pending_fault() {
  thread_local std::string message;
  return message;
}
} // namespace detail

/// The first kernel fault of the launches the calling thread made since
/// clear_fault(), or null. While one is pending, the thread's launches run
/// nothing and return INVALID_PARAMS: what a program does after a fault
/// never runs on the memory the fault protected.
inline const char *fault() {
  const std::string &m = detail::pending_fault();
  return m.empty() ? nullptr : m.c_str();
}
inline void clear_fault() { detail::pending_fault().clear(); }

} // namespace sim
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_SIM_CORE_HPP
