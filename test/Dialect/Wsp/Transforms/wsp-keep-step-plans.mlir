// RUN: wsp-opt %s --wsp-keep-step-plans -split-input-file | FileCheck %s
// RUN: wsp-opt %s --wsp-keep-step-plans=rows=false -split-input-file | FileCheck %s --check-prefix=DENSE

// A launch a table records, planning from a lengths buffer and into a
// descriptor buffer of its own: the table calls @launch_kept, whose plan
// (with the chunk size that feeds it) runs only when the lengths, the
// batch, the heads or the queries changed, and which records them. When
// only lengths or the batch changed, an attention plan is first updated in
// place (wsp.update_plan, from the batch and the chunk the plan used:
// record entries 3 and 7). The
// function called every token keeps calling @launch; a launch called
// twice gets one variant.
//
// The attention plan is kept as rows (pto/runtime/spec_rows.hpp, a fourth
// buffer of 8 + 2 x 8 + 1 entries): generated and updated as rows, and its
// dispatch's cores expand them. With rows=false (DENSE) the descriptors
// are kept and updated themselves.

wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>, %x: memref<?xf32>) {
  wsp.return
}
wsp.step @table captures @step patches [#wsp.patch<request_kv_lens, 0>]

// CHECK-LABEL: func.func private @launch(
// CHECK-SAME: %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xf32>) -> i32
// CHECK: wsp.generate
// CHECK: into %{{.*}} : memref<8xi32>, memref<32x!wsp.descriptor<attention>>
func.func private @launch(%kv_lens: memref<?xi32>, %x: memref<?xf32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i32 = arith.constant 0 : i32
  %batch = memref.dim %kv_lens, %c0 : memref<?xi32>
  %lens = memref.alloca() : memref<8xi32>
  scf.for %b = %c0 to %batch step %c1 {
    %k = memref.load %kv_lens[%b] : memref<?xi32>
    memref.store %k, %lens[%b] : memref<8xi32>
  }
  %descs = memref.alloca() : memref<32x!wsp.descriptor<attention>>
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%c1)
      config(#wsp.plan_config<max_work_units = 32>) : memref<8xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%c1) chunk(%chunk)
      tiers(@T) config(#wsp.plan_config<max_work_units = 32>) into %descs
      : memref<8xi32>, memref<32x!wsp.descriptor<attention>>
  %ok = arith.cmpi eq, %status, %c0_i32 : i32
  scf.if %ok {
    wsp.dispatch @k(%x : memref<?xf32>)
        descriptors(%descs[%count] : memref<32x!wsp.descriptor<attention>>)
        on vector(8)
  }
  return %status : i32
}

// CHECK-LABEL: func.func private @launch_kept(
// CHECK-SAME: %[[KV:.*]]: memref<?xi32>, %[[X:.*]]: memref<?xf32>,
// CHECK-SAME: %[[DESCS:.*]]: memref<32x!wsp.descriptor<attention>>,
// CHECK-SAME: %[[PLANNED:.*]]: memref<8xi32>, %[[RECORD:.*]]: memref<8xi64>,
// CHECK-SAME: %[[ROWS:.*]]: memref<25xi32>) -> i32
// DENSE-LABEL: func.func private @launch_kept(
// DENSE-SAME: %[[DESCS:[^:]*]]: memref<32x!wsp.descriptor<attention>>,
// DENSE-SAME: %{{.*}}: memref<8xi32>, %{{.*}}: memref<8xi64>) -> i32
// DENSE: wsp.update_plan {{.*}} into %[[DESCS]] :
// DENSE: wsp.generate {{.*}} into %[[DESCS]] :
// DENSE: wsp.dispatch @k(%{{.*}} : memref<?xf32>) descriptors(%[[DESCS]][%{{.*}}] : memref<32x!wsp.descriptor<attention>>) on vector(8){{$}}
// CHECK-NOT: memref.alloca() : memref<32x!wsp.descriptor
// CHECK: %[[LENS:.*]] = memref.alloca() : memref<8xi32>
// Planned before, and for the same heads, chunk (0: computed from the
// lengths) and queries (0: none), and a batch the lengths hold; the same
// lengths of the same batch keep the plan.
// CHECK: %[[P:.*]] = memref.load %[[RECORD]][%{{.*}}] : memref<8xi64>
// CHECK: arith.cmpi ne, %[[P]]
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %{{.*}}, %c8 : index
// CHECK: %[[KEY:.*]] = arith.andi %{{.*}}, %[[FITS]] : i1
// CHECK: %[[R3:.*]] = memref.load %[[RECORD]][%c3] : memref<8xi64>
// CHECK: %[[SAMEBATCH:.*]] = arith.cmpi eq, %[[R3]]
// CHECK: %[[SAMEKEY:.*]] = arith.andi %[[KEY]], %[[SAMEBATCH]] : i1
// CHECK: %[[SAME:.*]] = scf.if %[[SAMEKEY]] -> (i1) {
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (i1) {
// CHECK: %[[NOW:.*]] = memref.load %[[LENS]][%[[I]]]
// CHECK: %[[THEN:.*]] = memref.load %[[PLANNED]][%[[I]]]
// CHECK: arith.cmpi eq, %[[NOW]], %[[THEN]] : i32
// CHECK: } else {
// CHECK: scf.yield %false
// Lengths or batch moved: updated when the record holds a plan with status
// ok, from its batch (entry 3) and the chunk it used (entry 7), searched
// again (the chunk comes from wsp.plan_chunk_size).
// CHECK: %[[ST:.*]] = memref.load %[[RECORD]][%c2] : memref<8xi64>
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[ST]]
// CHECK: arith.andi %[[KEY]], %[[OK]] : i1
// CHECK: %[[UPDATED:.*]]:2 = scf.if %{{.*}} -> (i1, index) {
// CHECK: %[[HELD64:.*]] = memref.load %[[RECORD]][%c3{{.*}}] : memref<8xi64>
// CHECK: %[[HELD:.*]] = arith.index_cast %[[HELD64]] : i64 to index
// CHECK: %[[R7:.*]] = memref.load %[[RECORD]][%c7] : memref<8xi64>
// CHECK: %[[UCHUNK:.*]] = arith.index_cast %[[R7]] : i64 to index
// CHECK: %[[U:.*]], %[[UCOUNT:.*]] = wsp.update_plan %[[LENS]][%[[BATCH:.*]]] from %[[PLANNED]][%[[HELD]]] heads(%{{.*}}) chunk(%[[UCHUNK]]) searched tiers(@T) config(#wsp.plan_config<max_work_units = 32>) into %[[DESCS]] rows(%[[ROWS]] : memref<25xi32>)
// CHECK: scf.yield %[[U]], %[[UCOUNT]] : i1, index
// CHECK: } else {
// CHECK: scf.yield %false{{.*}}, %c0{{.*}} : i1, index
// CHECK: %[[KEEP:.*]] = arith.ori %[[SAME]], %[[UPDATED]]#0 : i1
// CHECK: %[[KEPT:.*]]:2 = scf.if %[[KEEP]] -> (index, i32) {
// CHECK: %[[R1:.*]] = memref.load %[[RECORD]][%c1{{.*}}]
// CHECK: %[[RECORDED:.*]] = arith.index_cast %[[R1]]
// Updated: the lengths, the count and the batch recorded.
// CHECK: scf.if %[[UPDATED]]#0 {
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[PLANNED]]
// CHECK: %[[NEWCOUNT:.*]] = arith.index_cast %[[UPDATED]]#1 : index to i64
// CHECK: memref.store %[[NEWCOUNT]], %[[RECORD]][%c1{{.*}}]
// CHECK: memref.store %{{.*}}, %[[RECORD]][%c3{{.*}}]
// CHECK: arith.select %[[UPDATED]]#0, %[[UPDATED]]#1, %[[RECORDED]] : index
// CHECK: arith.trunci
// CHECK: scf.yield
// CHECK: } else {
// CHECK: %[[CHUNK:.*]] = wsp.plan_chunk_size %[[LENS]]
// CHECK: %[[COUNT:.*]], %[[STATUS:.*]] = wsp.generate %[[LENS]][%{{.*}}] heads(%{{.*}}) chunk(%[[CHUNK]]) {{.*}} into %[[DESCS]] rows(%[[ROWS]] : memref<25xi32>)
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[PLANNED]]
// CHECK: memref.store %{{.*}}, %[[RECORD]]
// CHECK: %[[USED:.*]] = arith.index_cast %[[CHUNK]] : index to i64
// CHECK: memref.store %[[USED]], %[[RECORD]][%c7{{.*}}] : memref<8xi64>
// CHECK: scf.yield %[[COUNT]], %[[STATUS]] : index, i32
// CHECK: arith.cmpi eq, %[[KEPT]]#1
// CHECK: wsp.dispatch @k(%[[X]] : memref<?xf32>) descriptors(%[[DESCS]][%[[KEPT]]#0] : memref<32x!wsp.descriptor<attention>>) on vector(8) expand_rows(%[[ROWS]] : memref<25xi32>)

// CHECK-LABEL: func.func @step(
// CHECK: call @launch(%{{.*}}) {wsp.replay_with = @launch_kept}
// CHECK: call @launch(%{{.*}}) {wsp.replay_with = @launch_kept}
// CHECK-NOT: _kept
func.func @step(%kv_lens: memref<?xi32>, %x: memref<?xf32>) -> i32 {
  %s = func.call @launch(%kv_lens, %x) : (memref<?xi32>, memref<?xf32>) -> i32
  %t = func.call @launch(%kv_lens, %x) : (memref<?xi32>, memref<?xf32>) -> i32
  return %t : i32
}

// A function no table captures keeps its calls as they are.
// CHECK-LABEL: func.func @not_captured(
// CHECK: call @launch(%{{.*}}) : (
func.func @not_captured(%kv_lens: memref<?xi32>, %x: memref<?xf32>) -> i32 {
  %s = func.call @launch(%kv_lens, %x) : (memref<?xi32>, memref<?xf32>) -> i32
  return %s : i32
}

// -----

// Plans a table re-plans (left alone): the lengths are the caller's buffer
// (no static copy to compare with), the descriptors are the caller's too.

wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
wsp.step @table captures @step patches [#wsp.patch<request_kv_lens, 0>]

func.func private @from_caller(%kv_lens: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = memref.dim %kv_lens, %c0 : memref<?xi32>
  %descs = memref.alloca() : memref<32x!wsp.descriptor<attention>>
  %count, %status = wsp.generate %kv_lens[%batch] heads(%c1) chunk(%c1)
      tiers(@T) config(#wsp.plan_config<max_work_units = 32>) into %descs
      : memref<?xi32>, memref<32x!wsp.descriptor<attention>>
  wsp.dispatch @k() descriptors(%descs[%count]
      : memref<32x!wsp.descriptor<attention>>) on vector(8)
  return %status : i32
}

func.func private @into_caller(%kv_lens: memref<?xi32>,
    %descs: memref<32x!wsp.descriptor<attention>>) -> i32 {
  %c1 = arith.constant 1 : index
  %lens = memref.alloca() : memref<8xi32>
  %count, %status = wsp.generate %lens[%c1] heads(%c1) chunk(%c1)
      tiers(@T) config(#wsp.plan_config<max_work_units = 32>) into %descs
      : memref<8xi32>, memref<32x!wsp.descriptor<attention>>
  return %status : i32
}

// CHECK-LABEL: func.func @step(
// CHECK: call @from_caller(%{{.*}}) : (
// CHECK: call @into_caller(%{{.*}}) : (
// CHECK-NOT: _kept
func.func @step(%kv_lens: memref<?xi32>,
                %descs: memref<32x!wsp.descriptor<attention>>) -> i32 {
  %s = func.call @from_caller(%kv_lens) : (memref<?xi32>) -> i32
  %t = func.call @into_caller(%kv_lens, %descs)
      : (memref<?xi32>, memref<32x!wsp.descriptor<attention>>) -> i32
  return %t : i32
}

// -----

// A chunk size that something writes memory after (here the lengths
// themselves) stays where it is and runs every call; the plan is then
// compared on the chunk too (record entry 5), and an update keeps it as
// given (not searched).

wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
wsp.step @table captures @step patches [#wsp.patch<request_kv_lens, 0>]

// CHECK-LABEL: func.func private @launch_kept(
// CHECK: %[[CHUNK:.*]] = wsp.plan_chunk_size
// CHECK: memref.store
// CHECK: %[[C:.*]] = arith.index_cast %[[CHUNK]] : index to i64
// CHECK: %[[R5:.*]] = memref.load %{{.*}}[%c5] : memref<8xi64>
// CHECK: arith.cmpi eq, %[[R5]], %[[C]] : i64
// CHECK: wsp.update_plan {{.*}} chunk(%{{[^)]*}}) tiers(@T)
// CHECK: } else {
// CHECK-NOT: wsp.plan_chunk_size
// CHECK: wsp.generate %{{.*}} chunk(%[[CHUNK]])
func.func private @launch(%kv_lens: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %lens = memref.alloca() : memref<8xi32>
  memref.store %c7, %lens[%c0] : memref<8xi32>
  %descs = memref.alloca() : memref<32x!wsp.descriptor<attention>>
  %chunk = wsp.plan_chunk_size %lens[%c1] heads(%c1)
      config(#wsp.plan_config<max_work_units = 32>) : memref<8xi32>
  memref.store %c7, %lens[%c1] : memref<8xi32>
  %count, %status = wsp.generate %lens[%c1] heads(%c1) chunk(%chunk)
      tiers(@T) config(#wsp.plan_config<max_work_units = 32>) into %descs
      : memref<8xi32>, memref<32x!wsp.descriptor<attention>>
  wsp.dispatch @k() descriptors(%descs[%count]
      : memref<32x!wsp.descriptor<attention>>) on vector(8)
  return %status : i32
}

func.func @step(%kv_lens: memref<?xi32>) -> i32 {
  %s = func.call @launch(%kv_lens) : (memref<?xi32>) -> i32
  return %s : i32
}

// -----

// A plan of token counts (the moe pattern: what a step does not grow) is
// compared and kept, never updated.

wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<moe>) {
  wsp.return
}
wsp.step @table captures @step patches [#wsp.patch<request_kv_lens, 0>]

// CHECK-LABEL: func.func private @launch_kept(
// CHECK-NOT: wsp.update_plan
// CHECK: wsp.generate
// CHECK-NOT: wsp.update_plan
// CHECK-LABEL: func.func @step(
func.func private @launch(%counts: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %experts = memref.dim %counts, %c0 : memref<?xi32>
  %lens = memref.alloca() : memref<8xi32>
  scf.for %e = %c0 to %experts step %c1 {
    %n = memref.load %counts[%e] : memref<?xi32>
    memref.store %n, %lens[%e] : memref<8xi32>
  }
  %descs = memref.alloca() : memref<32x!wsp.descriptor<moe>>
  %count, %status = wsp.generate %lens[%experts] heads(%c1) chunk(%c1)
      tiers(@T) config(#wsp.plan_config<max_work_units = 32>) into %descs
      : memref<8xi32>, memref<32x!wsp.descriptor<moe>>
  wsp.dispatch @k() descriptors(%descs[%count]
      : memref<32x!wsp.descriptor<moe>>) on vector(8)
  return %status : i32
}

func.func @step(%counts: memref<?xi32>) -> i32 {
  %s = func.call @launch(%counts) : (memref<?xi32>) -> i32
  return %s : i32
}
