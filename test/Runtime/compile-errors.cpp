// What the spec says SHALL be a compile-time error is one, for the stated
// reason. Each case compiles this file with one CASE defined and must fail
// with the runtime's own static_assert message, or, where the runtime
// deletes an overload (a plan that keeps a reference to its planner, built
// from a temporary one), with the compiler's message for a deleted
// function. CASE=0 proves the file compiles when no error is selected.
//
// RUN: %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=0 %s
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=1 %s 2>&1 | FileCheck %s --check-prefix=DIM-CTOR
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=2 %s 2>&1 | FileCheck %s --check-prefix=SET-STATIC
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=3 %s 2>&1 | FileCheck %s --check-prefix=SET-RANGE
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=4 %s 2>&1 | FileCheck %s --check-prefix=NOT-DIM
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=5 %s 2>&1 | FileCheck %s --check-prefix=TIER-ID
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=6 %s 2>&1 | FileCheck %s --check-prefix=TIER-MIN
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=7 %s 2>&1 | FileCheck %s --check-prefix=TIER-MAX
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=8 %s 2>&1 | FileCheck %s --check-prefix=TIER-UNIQUE
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=9 %s 2>&1 | FileCheck %s --check-prefix=NOT-TIER
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=10 %s 2>&1 | FileCheck %s --check-prefix=DIM-NEG
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=11 %s 2>&1 | FileCheck %s --check-prefix=PLANNER-SPACE
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=12 %s 2>&1 | FileCheck %s --check-prefix=ROW-PLAN-TEMPORARY
// RUN: not %host_cxx -std=c++17 -fsyntax-only -D__CPU_SIM -I %wsp_include -DCASE=13 %s 2>&1 | FileCheck %s --check-prefix=INCREMENTAL-PLAN-TEMPORARY

// DIM-CTOR: Dim(int): only a DYNAMIC dimension takes a run-time size
// SET-STATIC: IterationSpace::set_dim: dimension is static; only DYNAMIC dimensions can be set
// SET-RANGE: IterationSpace::set_dim: index out of range
// NOT-DIM: IterationSpace: every dimension type must be a Dim<>
// TIER-ID: Tier: TierID must be in 0-255
// TIER-MIN: Tier: MinSize must be > 0
// TIER-MAX: Tier: MaxSize must be >= MinSize
// TIER-UNIQUE: TierConfig: tier ids must be unique
// NOT-TIER: TierConfig: every argument must be a Tier<>
// DIM-NEG: Dim<N>: a static size must be >= 0 (or DYNAMIC)
// PLANNER-SPACE: WorkPlanner: Space must be an IterationSpace<>
// ROW-PLAN-TEMPORARY: error: {{.*}}deleted {{.*}}RowPlan
// INCREMENTAL-PLAN-TEMPORARY: error: {{.*}}deleted {{.*}}IncrementalPlan

#include <pto/runtime/incremental_planner.hpp>
#include <pto/runtime/runtime.hpp>

using namespace pto::runtime;

int main() {
  // The legal uses next to each illegal one.
  Dim<> dynamic(5);
  AttentionSpace<DYNAMIC, 8> space;
  space.set_dim<0>(4);
  (void)dynamic;
  const AttentionPlanner planner;
  WorkDescriptor buffer[8];
  RowPlan<AttentionPlanner> rows(planner, 4, 2, 8);
  IncrementalPlan<AttentionPlanner> plan(planner, 4, 2, buffer, 8);
#if CASE == 1
  Dim<8> d(5); // static dimension given a run-time size
  (void)d;
#elif CASE == 2
  space.set_dim<1>(16); // dimension 1 is static
#elif CASE == 3
  space.set_dim<3>(16); // no dimension 3
#elif CASE == 4
  IterationSpace<Dim<4>, int> bad;
  (void)bad;
#elif CASE == 5
  (void)Tier<256, 1, 2>::id;
#elif CASE == 6
  (void)Tier<0, 0, 2>::id;
#elif CASE == 7
  (void)Tier<0, 10, 9>::id;
#elif CASE == 8
  (void)TierConfig<Tier<1, 1, 10>, Tier<1, 11, 20>>::select_tier(5);
#elif CASE == 9
  (void)TierConfig<Tier<1, 1, 10>, Dim<4>>::select_tier(5);
#elif CASE == 10
  Dim<-2> d;
  (void)d;
#elif CASE == 11
  WorkPlanner<int, DecodeAttentionTiers, params::Attention> p;
  (void)p;
#elif CASE == 12
  // The plan would keep a reference to the temporary, gone at the `;`.
  RowPlan<AttentionPlanner> dangling(AttentionPlanner{}, 4, 2, 8);
#elif CASE == 13
  IncrementalPlan<AttentionPlanner> dangling(AttentionPlanner{}, 4, 2, buffer,
                                             8);
#endif
  return 0;
}
