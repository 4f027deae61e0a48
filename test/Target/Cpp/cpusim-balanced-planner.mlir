// The balanced strategy through the backend: a dynamic plan (wsp.generate
// -> wsp.plan_balanced -> a call of the runtime's planner in the emitted
// AICPU code), a static plan (planned by wsp-plan at compile time, loaded
// from a table) and a persistent dispatch over the plan's work lists.
// A driver runs the emitted code against pto::runtime::plan_balanced_into
// on the same inputs: status, count, every descriptor byte, work lists and
// merge plan agree, incl. the error paths; every descriptor runs once.
// The plan as cuts: the emitted planner writes the cuts and the work lists,
// a persistent `expand` dispatch's cores write the descriptors and run
// them; the buffer ends equal to the materialized plan's, each descriptor
// ran once, and an error writes nothing and runs nothing.
// RUN: wsp-opt %s --wsp-pipeline | wsp-translate --wsp-to-cpusim -o %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp %S/Inputs/balanced-check.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s
// RUN: wsp-opt %s --wsp-pipeline | wsp-translate --wsp-to-cpusim | FileCheck %s --check-prefix=EMIT
// RUN: wsp-opt %s --wsp-pipeline | wsp-translate --wsp-to-cpusim-capi | FileCheck %s --check-prefix=CAPI

// CHECK: sweep: 300 workloads equal
// CHECK: batch-invariant: 300 workloads equal
// CHECK: prefill: 200 workloads equal
// CHECK: errors: all equal
// CHECK: static: equal to the runtime's plan
// CHECK: idle: an empty plan
// CHECK: persistent: every descriptor ran once
// CHECK: cuts: 300 workloads equal, every descriptor ran once

// The simulation draws its balanced plans (wspc --run --plan-svg), with
// their tiers' ranges, titled by the function's call (PlanCall), a plan
// made as cuts once its cores expanded it; a C entry point's caller asks
// per call, through its handle, and a call without a handle draws none.
// CAPI: struct wsp_capi_call {
// CAPI-NEXT: ::pto::runtime::sim::LaunchReport report;
// CAPI-NEXT: ::pto::runtime::sim::PlanCharts charts;
// CAPI: : saved_(wsp_gen::wsp_launch_report), charts_(call ? &call->charts : &none_) {
// CAPI: ::pto::runtime::sim::PlanCharts none_;
// CAPI-NEXT: ::pto::runtime::sim::ScopedPlanCharts charts_;
// CAPI: int32_t wsp_capi_call_draw_plans(::wsp_capi_call *call, const char *dir) {
// EMIT: #include <pto/runtime/plan_svg.hpp>
// EMIT: // wsp.descriptor_table @__wsp_plan_0: 5 descriptors planned at compile time (balanced)
// EMIT: static const int32_t g___wsp_plan_0_cores[] = {0, 3, 5};
// EMIT-NEXT: static const int32_t g___wsp_plan_0_merges[] = {0, 1, 2, 4, 5};
// EMIT-LABEL: int32_t plan_sweep(
// EMIT-NEXT: const ::pto::runtime::sim::PlanCall wsp_plan_call("plan_sweep");
// EMIT: // wsp.plan_balanced over @DecodeAttentionTiers: pto::runtime's balanced planner
// EMIT: config.num_cores = 48;
// EMIT: ::pto::runtime::plan_balanced_into(
// EMIT-NEXT: {{.*}}, config,
// EMIT-NEXT: ::pto::runtime::TierConfig<::pto::runtime::Tier<0, 1, 1024>, ::pto::runtime::Tier<1, 1025, 4096>, ::pto::runtime::Tier<2, 4097, 16384>, ::pto::runtime::Tier<3, 16385, 131072>>{},
// EMIT: if ([[STATUS:.*]] == 0)
// EMIT-NEXT: ::pto::runtime::sim::record_balanced_plan(
// EMIT: nullptr, ::pto::runtime::TierConfig<::pto::runtime::Tier<0, 1, 1024>, {{.*}}>{});
// EMIT-LABEL: int32_t plan_static(
// EMIT: std::copy(g___wsp_plan_0_cores, g___wsp_plan_0_cores + {{.*}}, a1.data);
// EMIT-LABEL: void run_all(
// EMIT: // wsp.dispatch @count_runs_table on vector(48) persistent
// EMIT-NEXT: ::pto::runtime::sim::run_persistent(
// EMIT-LABEL: int32_t plan_cuts_and_run(
// EMIT: // wsp.plan_balanced over @DecodeAttentionTiers: pto::runtime's balanced planner, the plan as cuts (the cores expand the descriptors)
// EMIT: ::pto::runtime::plan_sweep_into(
// EMIT: // wsp.dispatch @count_runs_table on vector(48) persistent expand
// EMIT: const auto *sweep_cuts = reinterpret_cast<const ::pto::runtime::SweepCut *>([[CUTS:.*]].data);
// EMIT-NEXT: ::pto::runtime::sim::run_persistent_expanding(
// EMIT-NEXT: [&](int core) { // this core's descriptors, from its cuts
// EMIT-NEXT: ::pto::runtime::for_each_sweep_piece(
// EMIT: sweep_cuts[core], sweep_cuts[core + 1],
// EMIT: if (!::pto::runtime::sim::fault())
// EMIT-NEXT: ::pto::runtime::sim::record_balanced_plan(
// EMIT: , /*as_cuts=*/true);

wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
  #wsp.tier<2, [4097, 16384]>, #wsp.tier<3, [16385, 131072]>]

// Each planner returns the status and writes the count to %out[0].
func.func @plan_sweep(%lens: memref<?xi32>, %batch: index, %heads: index,
                      %descs: memref<?x!wsp.descriptor<attention>>,
                      %cores: memref<?xi32>, %merges: memref<?xi32>,
                      %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %count, %status = wsp.generate %lens[%batch] heads(%heads)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<strategy = balanced>) into %descs
      cores(%cores : memref<?xi32>) merges(%merges : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c0] : memref<?xindex>
  return %status : i32
}

func.func @plan_invariant(%lens: memref<?xi32>, %batch: index, %heads: index,
                          %descs: memref<?x!wsp.descriptor<attention>>,
                          %cores: memref<?xi32>, %merges: memref<?xi32>,
                          %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %count, %status = wsp.generate %lens[%batch] heads(%heads)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<strategy = balanced, cores = 24, block_size = 32,
                              unit_cost = 100, token_cost = 2, merge_cost = 7,
                              batch_invariant = true, invariant_chunk = 1000>)
      into %descs cores(%cores : memref<?xi32>)
      merges(%merges : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c0] : memref<?xindex>
  return %status : i32
}

// Query lengths per request (chunked prefill beside decode).
func.func @plan_prefill(%lens: memref<?xi32>, %q: memref<?xi32>,
                        %batch: index, %heads: index,
                        %descs: memref<?x!wsp.descriptor<attention>>,
                        %cores: memref<?xi32>, %merges: memref<?xi32>,
                        %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %count, %status = wsp.generate %lens[%batch] heads(%heads)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<strategy = balanced, cores = 64>) into %descs
      cores(%cores : memref<?xi32>) merges(%merges : memref<?xi32>)
      q_lens(%q : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c0] : memref<?xindex>
  return %status : i32
}

// Static: wsp-plan's hand-checked case (wsp-plan.mlir), 2 cores.
memref.global "private" constant @lens : memref<3xi32> = dense<[600, 0, 1500]>
func.func @plan_static(%descs: memref<?x!wsp.descriptor<attention>>,
                       %cores: memref<?xi32>, %merges: memref<?xi32>,
                       %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %lens = memref.get_global @lens : memref<3xi32>
  %count, %status = wsp.generate %lens[%c3] heads(%c2)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<strategy = balanced, cores = 2>) into %descs
      cores(%cores : memref<?xi32>) merges(%merges : memref<?xi32>)
      : memref<3xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c0] : memref<?xindex>
  return %status : i32
}

// Every request idle: the empty static plan (C++ has no empty arrays; the
// emitter keeps the count apart).
memref.global "private" constant @idle : memref<2xi32> = dense<[0, 0]>
func.func @plan_idle(%descs: memref<?x!wsp.descriptor<attention>>,
                     %cores: memref<?xi32>, %merges: memref<?xi32>,
                     %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %lens = memref.get_global @idle : memref<2xi32>
  %count, %status = wsp.generate %lens[%c2] heads(%c2)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<strategy = balanced, cores = 2>) into %descs
      cores(%cores : memref<?xi32>) merges(%merges : memref<?xi32>)
      : memref<2xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c0] : memref<?xindex>
  return %status : i32
}

// Persistent: each core walks its list; the kernel counts runs per id.
wsp.kernel @count_runs tiers(@DecodeAttentionTiers)
    (%d: !wsp.descriptor<attention>, %runs: memref<?xi32>) {
  %c1 = arith.constant 1 : i32
  %id = wsp.work_id %d : !wsp.descriptor<attention>
  %n = memref.load %runs[%id] : memref<?xi32>
  %n1 = arith.addi %n, %c1 : i32
  memref.store %n1, %runs[%id] : memref<?xi32>
  wsp.return
}

func.func @run_all(%descs: memref<?x!wsp.descriptor<attention>>,
                   %count: index, %cores: memref<?xi32>,
                   %runs: memref<?xi32>) {
  wsp.dispatch @count_runs(%runs : memref<?xi32>)
      descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(48) persistent(%cores : memref<?xi32>)
  return
}

// The plan as cuts: planned, then dispatched with each core expanding its
// own descriptors (and counting its runs).
func.func @plan_cuts_and_run(%lens: memref<?xi32>, %batch: index,
                             %heads: index,
                             %descs: memref<?x!wsp.descriptor<attention>>,
                             %cores: memref<?xi32>, %cuts: memref<?xi32>,
                             %runs: memref<?xi32>, %out: memref<?xindex>)
    -> i32 {
  %c0 = arith.constant 0 : index
  %ok = arith.constant 0 : i32
  %count, %status = wsp.generate %lens[%batch] heads(%heads)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<strategy = balanced>) into %descs
      cores(%cores : memref<?xi32>) cuts(%cuts : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c0] : memref<?xindex>
  %planned = arith.cmpi eq, %status, %ok : i32
  scf.if %planned {
    wsp.dispatch @count_runs(%runs : memref<?xi32>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
        on vector(48) persistent(%cores : memref<?xi32>)
        expand(%cuts : memref<?xi32>)
  }
  return %status : i32
}
