// pto/runtime/platform.hpp - platform macros (PTO-WSP spec §2.3, §10.3).
//
// Under __CPU_SIM every device qualifier is empty and AICPU dispatch is a
// direct call. On device builds the toolchain (bisheng, pto-isa) defines
// AICORE and __gm__; AICPU code is an ordinary aarch64 shared object, so AICPU
// and __gm__ are empty there too. Nothing here knows of MLIR.
#ifndef PTO_RUNTIME_PLATFORM_HPP
#define PTO_RUNTIME_PLATFORM_HPP

#if defined(__CPU_SIM) || !defined(__CCE_AICORE__)
// Host, AICPU or CPU simulation: no address spaces, no core attributes.
#ifndef AICORE
#define AICORE
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#else
// AICore device compile: pto-isa's spelling of the core attribute.
#ifndef AICORE
#define AICORE [aicore]
#endif
#endif

// AICPU carries no function attribute in CANN: it marks planning code only.
#ifndef AICPU
#define AICPU
#endif

#ifdef __CPU_SIM
// Spec §10.3: in simulation, AICPU -> AICore dispatch is a direct call.
#ifndef aicpu_dispatch_kernel
#define aicpu_dispatch_kernel(fn, ...) fn(__VA_ARGS__)
#endif
#endif

#endif // PTO_RUNTIME_PLATFORM_HPP
