// The AICPU planner that wsp-plan lowers (dynamic lengths), emitted as C++
// and run against pto::runtime::WorkPlanner on the same inputs: chunk size,
// status, count and every descriptor byte must agree, for attention and
// MoE, balanced and unbalanced chunks, tight and loose budgets, and every
// error path (negative length, no tier, overflow, batch or heads < 1).
// RUN: wsp-opt %s --wsp-pipeline | wsp-translate --wsp-to-cpusim -o %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp %S/Inputs/planner-check.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s

// CHECK: attention/default: 400 workloads equal
// CHECK: attention/tight-unbalanced: 400 workloads equal
// CHECK: moe/per-expert: 400 workloads equal
// CHECK: errors: all equal

wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
  #wsp.tier<2, [4097, 16384]>, #wsp.tier<3, [16385, 131072]>]
wsp.tier_config @ExpertTiers [#wsp.tier<0, [1, 64]>, #wsp.tier<1, [65, 65536]>]

// Each planner returns the status and writes (chunk, count) to %out.
func.func @plan_default(%lens: memref<?xi32>, %batch: index, %heads: index,
                        %descs: memref<?x!wsp.descriptor<attention>>,
                        %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<>) : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>) into %descs
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @plan_tight(%lens: memref<?xi32>, %batch: index, %heads: index,
                      %descs: memref<?x!wsp.descriptor<attention>>,
                      %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<chunk_min = 128, chunk_max = 8192,
                              max_work_units = 300, balance_chunks = false>)
      : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<chunk_min = 128, chunk_max = 8192,
                              max_work_units = 300, balance_chunks = false>)
      into %descs : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @plan_moe(%counts: memref<?xi32>, %experts: index, %groups: index,
                    %descs: memref<?x!wsp.descriptor<moe>>,
                    %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %counts[%experts] heads(%groups)
      config(#wsp.plan_config<chunk_min = 16, chunk_max = 512,
                              max_work_units = 1024>) : memref<?xi32>
  %count, %status = wsp.generate %counts[%experts] heads(%groups) chunk(%chunk)
      tiers(@ExpertTiers)
      config(#wsp.plan_config<chunk_min = 16, chunk_max = 512,
                              max_work_units = 1024>)
      into %descs : memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}
