// pto/runtime/runtime.hpp - the PTO-WSP runtime (spec v4.2), main include.
#ifndef PTO_RUNTIME_RUNTIME_HPP
#define PTO_RUNTIME_RUNTIME_HPP

#include "pto/runtime/platform.hpp"

#include "pto/runtime/dim.hpp"
#include "pto/runtime/hardware.hpp"
#include "pto/runtime/iteration_space.hpp"
#include "pto/runtime/kernel_dispatch.hpp"
#include "pto/runtime/spec_rows.hpp"
#include "pto/runtime/tier_config.hpp"
#include "pto/runtime/work_descriptor.hpp"

// Planning runs on the host or the AICPU, never on an AICore.
#if defined(__CPU_SIM) || !defined(__CCE_AICORE__)
#include "pto/runtime/work_planner.hpp"
#endif

#ifdef __CPU_SIM
#include "pto/runtime/balanced_planner.hpp"
#include "pto/runtime/cpu_sim.hpp"
#endif

#endif // PTO_RUNTIME_RUNTIME_HPP
