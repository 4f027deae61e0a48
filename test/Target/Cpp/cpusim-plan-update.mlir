// wsp.update_plan (incremental re-planning) emitted as C++ and run over
// thousands of random decode steps against a fresh plan (wsp.plan_chunk_size
// + wsp.generate) of the same lengths: whenever it updates, the buffer holds
// exactly the fresh plan's descriptors (same chunk, status and count, and
// nothing written past them), and the rows it had no need to write (before
// the first row whose chunk count changed, unchanged, or changed only in
// their last chunk) were not written; whenever it declines, nothing is
// written and the driver's own rule (another chunk size, an invalid or
// uncovered length, a buffer too small) says it had to. Balanced and
// unbalanced chunks, a sliding window, MoE descriptors and a given chunk;
// lengths that grow, cross chunk boundaries and tiers, shrink, go to and
// from 0, and requests joining and leaving at the end of the batch. The
// same plans as rows (wsp.generate / wsp.update_plan ... rows), expanded by
// pto::runtime::SpecRows, must be the fresh plan's descriptors too; and a
// dispatch that expands rows runs each descriptor as the fresh plan has it.
// RUN: wsp-opt %s --wsp-pipeline | wsp-translate --wsp-to-cpusim -o %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp %S/Inputs/plan-update-check.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s

// CHECK: attention/balanced: {{[0-9]+}} steps, {{[1-9][0-9]+}} updated in place ({{[1-9][0-9]+}} moving rows), {{[1-9][0-9]+}} as rows, all equal to a fresh plan
// CHECK: attention/unbalanced: {{[0-9]+}} steps, {{[1-9][0-9]+}} updated in place ({{[1-9][0-9]+}} moving rows), {{[1-9][0-9]+}} as rows, all equal to a fresh plan
// CHECK: attention/window: {{[0-9]+}} steps, {{[1-9][0-9]+}} updated in place ({{[1-9][0-9]+}} moving rows), {{[1-9][0-9]+}} as rows, all equal to a fresh plan
// CHECK: moe/per-expert: {{[0-9]+}} steps, {{[1-9][0-9]+}} updated in place ({{[1-9][0-9]+}} moving rows), {{[1-9][0-9]+}} as rows, all equal to a fresh plan
// CHECK: attention/fixed-chunk: {{[0-9]+}} steps, {{[1-9][0-9]+}} updated in place ({{[1-9][0-9]+}} moving rows), {{[1-9][0-9]+}} as rows, all equal to a fresh plan
// CHECK: dispatch as rows: {{[1-9][0-9]+}} descriptors, each run as the fresh plan has it
// CHECK: all variants equal

wsp.tier_config @AttentionTiers [
  #wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
  #wsp.tier<2, [4097, 16384]>]
wsp.tier_config @ExpertTiers [#wsp.tier<0, [1, 64]>, #wsp.tier<1, [65, 65536]>]

// Each fresh plan returns the status and writes (chunk, count) to %out.
func.func @fresh_balanced(%lens: memref<?xi32>, %batch: index, %heads: index,
                          %q: index, %descs: memref<?x!wsp.descriptor<attention>>,
                          %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 512>)
      : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 512>)
      into %descs : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_balanced(%lens: memref<?xi32>, %planned: memref<?xi32>,
    %batch: index, %held: index, %heads: index, %q: index, %chunk: index,
    %descs: memref<?x!wsp.descriptor<attention>>, %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) chunk(%chunk) searched
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 512>)
      into %descs : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

func.func @fresh_unbalanced(%lens: memref<?xi32>, %batch: index, %heads: index,
                            %q: index,
                            %descs: memref<?x!wsp.descriptor<attention>>,
                            %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<chunk_min = 32, chunk_max = 8192,
                              max_work_units = 300, balance_chunks = false>)
      : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 32, chunk_max = 8192,
                              max_work_units = 300, balance_chunks = false>)
      into %descs : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_unbalanced(%lens: memref<?xi32>, %planned: memref<?xi32>,
    %batch: index, %held: index, %heads: index, %q: index, %chunk: index,
    %descs: memref<?x!wsp.descriptor<attention>>, %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) chunk(%chunk) searched
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 32, chunk_max = 8192,
                              max_work_units = 300, balance_chunks = false>)
      into %descs : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

func.func @fresh_window(%lens: memref<?xi32>, %batch: index, %heads: index,
                        %q: index, %descs: memref<?x!wsp.descriptor<attention>>,
                        %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads) window(700)
      queries(%q)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 400,
                              balance_chunks = false>)
      : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) window(700)
      queries(%q) chunk(%chunk) tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 400,
                              balance_chunks = false>)
      into %descs : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_window(%lens: memref<?xi32>, %planned: memref<?xi32>,
    %batch: index, %held: index, %heads: index, %q: index, %chunk: index,
    %descs: memref<?x!wsp.descriptor<attention>>, %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) window(700) queries(%q) chunk(%chunk) searched
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 400,
                              balance_chunks = false>)
      into %descs : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

func.func @fresh_moe(%counts: memref<?xi32>, %experts: index, %groups: index,
                     %q: index, %descs: memref<?x!wsp.descriptor<moe>>,
                     %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %counts[%experts] heads(%groups)
      config(#wsp.plan_config<chunk_min = 16, chunk_max = 512,
                              max_work_units = 256>) : memref<?xi32>
  %count, %status = wsp.generate %counts[%experts] heads(%groups) chunk(%chunk)
      tiers(@ExpertTiers)
      config(#wsp.plan_config<chunk_min = 16, chunk_max = 512,
                              max_work_units = 256>)
      into %descs : memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_moe(%counts: memref<?xi32>, %planned: memref<?xi32>,
    %experts: index, %held: index, %groups: index, %q: index, %chunk: index,
    %descs: memref<?x!wsp.descriptor<moe>>, %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %counts[%experts] from %planned[%held]
      heads(%groups) chunk(%chunk) searched
      tiers(@ExpertTiers)
      config(#wsp.plan_config<chunk_min = 16, chunk_max = 512,
                              max_work_units = 256>)
      into %descs : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

// A chunk given, not searched: kept whatever the lengths.
func.func @fresh_fixed(%lens: memref<?xi32>, %batch: index, %heads: index,
                       %q: index, %descs: memref<?x!wsp.descriptor<attention>>,
                       %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = arith.constant 96 : index
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@AttentionTiers)
      config(#wsp.plan_config<balance_chunks = false>)
      into %descs : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_fixed(%lens: memref<?xi32>, %planned: memref<?xi32>,
    %batch: index, %held: index, %heads: index, %q: index, %chunk: index,
    %descs: memref<?x!wsp.descriptor<attention>>, %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) chunk(%chunk)
      tiers(@AttentionTiers)
      config(#wsp.plan_config<balance_chunks = false>)
      into %descs : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

// -----------------------------------------------------------------------
// The same plans as rows (pto/runtime/spec_rows.hpp): generated and updated
// as rows, which the driver expands and compares with the fresh plan's
// descriptors.

func.func @fresh_rows_balanced(%lens: memref<?xi32>, %batch: index, %heads: index,
                          %q: index, %descs: memref<?x!wsp.descriptor<attention>>, %rows: memref<?xi32>,
                          %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 512>)
      : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 512>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_rows_balanced(%lens: memref<?xi32>, %planned: memref<?xi32>,
    %batch: index, %held: index, %heads: index, %q: index, %chunk: index,
    %descs: memref<?x!wsp.descriptor<attention>>, %rows: memref<?xi32>, %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) chunk(%chunk) searched
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 512>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

func.func @fresh_rows_unbalanced(%lens: memref<?xi32>, %batch: index, %heads: index,
                            %q: index,
                            %descs: memref<?x!wsp.descriptor<attention>>, %rows: memref<?xi32>,
                            %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<chunk_min = 32, chunk_max = 8192,
                              max_work_units = 300, balance_chunks = false>)
      : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 32, chunk_max = 8192,
                              max_work_units = 300, balance_chunks = false>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_rows_unbalanced(%lens: memref<?xi32>, %planned: memref<?xi32>,
    %batch: index, %held: index, %heads: index, %q: index, %chunk: index,
    %descs: memref<?x!wsp.descriptor<attention>>, %rows: memref<?xi32>, %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) chunk(%chunk) searched
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 32, chunk_max = 8192,
                              max_work_units = 300, balance_chunks = false>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

func.func @fresh_rows_window(%lens: memref<?xi32>, %batch: index, %heads: index,
                        %q: index, %descs: memref<?x!wsp.descriptor<attention>>, %rows: memref<?xi32>,
                        %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads) window(700)
      queries(%q)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 400,
                              balance_chunks = false>)
      : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) window(700)
      queries(%q) chunk(%chunk) tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 400,
                              balance_chunks = false>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_rows_window(%lens: memref<?xi32>, %planned: memref<?xi32>,
    %batch: index, %held: index, %heads: index, %q: index, %chunk: index,
    %descs: memref<?x!wsp.descriptor<attention>>, %rows: memref<?xi32>, %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) window(700) queries(%q) chunk(%chunk) searched
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 64, max_work_units = 400,
                              balance_chunks = false>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

func.func @fresh_rows_moe(%counts: memref<?xi32>, %experts: index, %groups: index,
                     %q: index, %descs: memref<?x!wsp.descriptor<moe>>, %rows: memref<?xi32>,
                     %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %counts[%experts] heads(%groups)
      config(#wsp.plan_config<chunk_min = 16, chunk_max = 512,
                              max_work_units = 256>) : memref<?xi32>
  %count, %status = wsp.generate %counts[%experts] heads(%groups) chunk(%chunk)
      tiers(@ExpertTiers)
      config(#wsp.plan_config<chunk_min = 16, chunk_max = 512,
                              max_work_units = 256>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_rows_moe(%counts: memref<?xi32>, %planned: memref<?xi32>,
    %experts: index, %held: index, %groups: index, %q: index, %chunk: index,
    %descs: memref<?x!wsp.descriptor<moe>>, %rows: memref<?xi32>, %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %counts[%experts] from %planned[%held]
      heads(%groups) chunk(%chunk) searched
      tiers(@ExpertTiers)
      config(#wsp.plan_config<chunk_min = 16, chunk_max = 512,
                              max_work_units = 256>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

func.func @fresh_rows_fixed(%lens: memref<?xi32>, %batch: index, %heads: index,
                       %q: index, %descs: memref<?x!wsp.descriptor<attention>>, %rows: memref<?xi32>,
                       %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = arith.constant 96 : index
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@AttentionTiers)
      config(#wsp.plan_config<balance_chunks = false>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_rows_fixed(%lens: memref<?xi32>, %planned: memref<?xi32>,
    %batch: index, %held: index, %heads: index, %q: index, %chunk: index,
    %descs: memref<?x!wsp.descriptor<attention>>, %rows: memref<?xi32>, %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) chunk(%chunk)
      tiers(@AttentionTiers)
      config(#wsp.plan_config<balance_chunks = false>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

// A dispatch of a plan as rows: each core writes its descriptors, then runs
// them; @record writes each descriptor's fields at its work id (row
// w: id, tier, flags as FIRST + 2 LAST + 4 INIT, params), and the plan is
// left in %descs.
wsp.kernel @record tiers(@AttentionTiers)
    (%d: !wsp.descriptor<attention>, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %id = wsp.work_id %d : !wsp.descriptor<attention>
  %row = arith.muli %id, %c8 : index
  %at1 = arith.addi %row, %c1 : index
  %at2 = arith.addi %row, %c2 : index
  %at3 = arith.addi %row, %c3 : index
  %at4 = arith.addi %row, %c4 : index
  %at5 = arith.addi %row, %c5 : index
  %at6 = arith.addi %row, %c6 : index
  %at7 = arith.addi %row, %c7 : index
  %id32 = arith.index_cast %id : index to i32
  memref.store %id32, %out[%row] : memref<?xi32>
  %tier = wsp.tier_id : i32
  memref.store %tier, %out[%at1] : memref<?xi32>
  %first = wsp.has_flag %d, first : !wsp.descriptor<attention>
  %last = wsp.has_flag %d, last : !wsp.descriptor<attention>
  %init = wsp.has_flag %d, init : !wsp.descriptor<attention>
  %f = arith.select %first, %one, %zero : i32
  %l = arith.select %last, %one, %zero : i32
  %i = arith.select %init, %one, %zero : i32
  memref.store %f, %out[%at2] : memref<?xi32>
  memref.store %l, %out[%at3] : memref<?xi32>
  memref.store %i, %out[%at4] : memref<?xi32>
  %req = wsp.param %d["request_idx"] : !wsp.descriptor<attention>
  %head = wsp.param %d["head_idx"] : !wsp.descriptor<attention>
  %start = wsp.param %d["kv_start"] : !wsp.descriptor<attention>
  %req32 = arith.index_cast %req : index to i32
  %head32 = arith.index_cast %head : index to i32
  %start32 = arith.index_cast %start : index to i32
  memref.store %req32, %out[%at5] : memref<?xi32>
  memref.store %head32, %out[%at6] : memref<?xi32>
  memref.store %start32, %out[%at7] : memref<?xi32>
  wsp.return
}

func.func @dispatch_rows(%lens: memref<?xi32>, %batch: index, %heads: index,
                         %descs: memref<?x!wsp.descriptor<attention>>,
                         %rows: memref<?xi32>, %out: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<chunk_min = 32, chunk_max = 8192,
                              max_work_units = 300, balance_chunks = false>)
      : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@AttentionTiers)
      config(#wsp.plan_config<chunk_min = 32, chunk_max = 8192,
                              max_work_units = 300, balance_chunks = false>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  %run = arith.cmpi eq, %status, %ok : i32
  scf.if %run {
    wsp.dispatch @record(%out : memref<?xi32>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
        on vector(7) row_affine expand_rows(%rows : memref<?xi32>)
  }
  return %status : i32
}
