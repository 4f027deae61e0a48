// pto/runtime/sim_core.hpp - which simulated core run the calling thread
// executes: shared by the CPU-simulation launcher (cpu_sim.hpp), which
// starts runs, and the tile simulation (tile.hpp), which keeps a core's
// pipe state from one kernel invocation to the next within a run.
#ifndef PTO_RUNTIME_SIM_CORE_HPP
#define PTO_RUNTIME_SIM_CORE_HPP

#include <cstdint>

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

} // namespace sim
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_SIM_CORE_HPP
