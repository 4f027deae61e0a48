// RUN: wsp-opt %s --wsp-specialize-tiers -split-input-file | FileCheck %s
// RUN: wsp-opt %s --wsp-specialize-tiers="report=true" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// Every tier when nothing is known: one clone per tier, the tier id and
// TILE substituted and folded, a table, the generic kernel gone.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
                    #wsp.tier<2, [4097, 16384]>]
wsp.kernel @k tiers(@T) constants {TILE = array<i64: 64, 128, 256>}
    (%d: !wsp.descriptor<attention>, %o: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  %id = wsp.tier_id : index
  %tile = wsp.tier_constant "TILE" : index
  %twice = arith.muli %tile, %c1 : index
  memref.store %id, %o[%twice] : memref<?xindex>
  wsp.return
}
// CHECK-NOT: wsp.kernel @k tiers
// CHECK-LABEL: wsp.kernel @k_tier0 tiers(@T) tier(0)
// CHECK-DAG: %[[ID0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[TILE0:.*]] = arith.constant 64 : index
// CHECK: memref.store %[[ID0]], %{{.*}}[%[[TILE0]]]
// CHECK-LABEL: wsp.kernel @k_tier1 tiers(@T) tier(1)
// CHECK-DAG: %[[ID1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[TILE1:.*]] = arith.constant 128 : index
// CHECK: memref.store %[[ID1]], %{{.*}}[%[[TILE1]]]
// CHECK-LABEL: wsp.kernel @k_tier2 tiers(@T) tier(2)
// CHECK: arith.constant 256 : index
// CHECK: wsp.kernel_table @k_table tiers(@T) {0: @k_tier0, 1: @k_tier1, 2: @k_tier2}
// CHECK-LABEL: func.func @all
// CHECK: wsp.dispatch @k_table(
func.func @all(%b: memref<?x!wsp.descriptor<attention>>, %n: index,
               %o: memref<?xindex>) {
  wsp.dispatch @k(%o : memref<?xindex>)
      descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(48)
  return
}
// REPORT: remark: @k: specialized for tiers [0, 1, 2], pruned []

// -----

// Pruning: planning proved only tiers 0 and 1 reachable. MPMD: a group that
// reaches only tier 2 gets its own table; a group with the same set as
// another shares its table.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
                    #wsp.tier<2, [4097, 16384]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>, %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %id = wsp.tier_id : index
  memref.store %id, %o[%c0] : memref<?xindex>
  wsp.return
}
// CHECK-LABEL: wsp.kernel @k_tier2 tiers(@T) tier(2)
// CHECK: wsp.kernel_table @k_table_0 tiers(@T) {2: @k_tier2}
// CHECK-LABEL: wsp.kernel @k_tier0 tiers(@T) tier(0)
// CHECK-LABEL: wsp.kernel @k_tier1 tiers(@T) tier(1)
// CHECK: wsp.kernel_table @k_table tiers(@T) {0: @k_tier0, 1: @k_tier1}
// CHECK-NOT: wsp.kernel_table
// CHECK-LABEL: func.func @pruned
// CHECK: wsp.dispatch @k_table({{.*}} on vector(48)
// CHECK: wsp.mpmd {
// CHECK-NEXT: wsp.dispatch @k_table({{.*}} on vector(24)
// CHECK-NEXT: wsp.dispatch @k_table_0({{.*}} on vector(24)
// CHECK-NEXT: wsp.dispatch @k_table({{.*}} on cube(24)
func.func @pruned(%b: memref<?x!wsp.descriptor<attention>>, %n: index,
                   %o: memref<?xindex>) {
  wsp.dispatch @k(%o : memref<?xindex>) descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(48) {reachable_tiers = array<i64: 0, 1>}
  wsp.mpmd {
    wsp.dispatch @k(%o : memref<?xindex>) descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>)
        on vector(24) {reachable_tiers = array<i64: 0, 1>}
    wsp.dispatch @k(%o : memref<?xindex>) descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>)
        on vector(24) {reachable_tiers = array<i64: 2>}
    wsp.dispatch @k(%o : memref<?xindex>) descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>)
        on cube(24) {reachable_tiers = array<i64: 0, 1>}
  }
  return
}
// REPORT: remark: @k: specialized for tiers [0, 1], pruned [2]
// REPORT: remark: @k: specialized for tiers [2], pruned [0, 1]

// -----

// A kernel nobody dispatches is left alone; specialized kernels and tables
// are not touched again.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
// CHECK: wsp.kernel @unused tiers(@T) (
wsp.kernel @unused tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// CHECK: wsp.kernel @done tiers(@T) tier(0)
wsp.kernel @done tiers(@T) tier(0) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// CHECK: wsp.kernel_table @tab tiers(@T) {0: @done}
wsp.kernel_table @tab tiers(@T) {0: @done}
// CHECK-NOT: wsp.kernel_table
func.func @idempotent(%b: memref<?x!wsp.descriptor<attention>>, %n: index) {
  // CHECK: wsp.dispatch @tab()
  wsp.dispatch @tab() descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(8)
  // CHECK: wsp.dispatch @done()
  wsp.dispatch @done() descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(8)
  return
}

// -----

// Tables that overlap share the clones of their common tiers.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]
wsp.kernel @k tiers(@T) constants {TILE = array<i64: 64, 128>}
    (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// CHECK-COUNT-2: wsp.kernel @k_tier
// CHECK-NOT: wsp.kernel @k_tier
// CHECK-DAG: wsp.kernel_table @k_table tiers(@T) {0: @k_tier0, 1: @k_tier1}
// CHECK-DAG: wsp.kernel_table @k_table_0 tiers(@T) {1: @k_tier1}
func.func @shared(%b: memref<?x!wsp.descriptor<attention>>, %n: index) {
  wsp.mpmd {
    wsp.dispatch @k() descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>)
        on vector(24) {reachable_tiers = array<i64: 0, 1>}
    wsp.dispatch @k() descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>)
        on vector(24) {reachable_tiers = array<i64: 1>}
  }
  return
}

// -----

// Folding: tiers 1 and 2 have the same TILE, so their specializations are
// the same kernel; tier 0's differs. Tier constants that differ keep their
// kernels apart even when the body does not read them (the table may route
// a tier only to a kernel made with its constants).
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
                    #wsp.tier<2, [4097, 16384]>]
wsp.kernel @fold tiers(@T) constants {TILE = array<i64: 64, 128, 128>}
    (%d: !wsp.descriptor<attention>, %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %tile = wsp.tier_constant "TILE" : index
  memref.store %tile, %o[%c0] : memref<?xindex>
  wsp.return
}
wsp.kernel @unread tiers(@T) constants {TILE = array<i64: 64, 128, 128>,
                                        DEPTH = array<i64: 1, 1, 2>}
    (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// CHECK-LABEL: wsp.kernel @fold_tier0
// CHECK: arith.constant 64 : index
// CHECK-LABEL: wsp.kernel @fold_tier1
// CHECK: arith.constant 128 : index
// CHECK-NOT: wsp.kernel @fold_tier2
// CHECK: wsp.kernel_table @fold_table tiers(@T) {0: @fold_tier0, 1: @fold_tier1, 2: @fold_tier1}
// CHECK-COUNT-3: wsp.kernel @unread_tier
// CHECK: wsp.kernel_table @unread_table tiers(@T) {0: @unread_tier0, 1: @unread_tier1, 2: @unread_tier2}
func.func @folded(%b: memref<?x!wsp.descriptor<attention>>, %n: index,
                  %o: memref<?xindex>) {
  wsp.dispatch @fold(%o : memref<?xindex>)
      descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(48)
  wsp.dispatch @unread()
      descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(48)
  return
}
// REPORT: remark: tier 2 folded into @fold_tier1: the same kernel
// REPORT-NOT: folded

// -----

// Two clones are the same kernel only when every operand is the
// corresponding value: here the tiers' clones have the same ops at the top
// and differ only in which of two outer constants the loop stores, so
// both stay.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]
wsp.kernel @pick tiers(@T) (%d: !wsp.descriptor<attention>,
                            %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c9 = arith.constant 9 : index
  memref.store %c7, %o[%c0] : memref<?xindex>
  memref.store %c9, %o[%c1] : memref<?xindex>
  %id = wsp.tier_id : index
  %is0 = arith.cmpi eq, %id, %c0 : index
  %v = arith.select %is0, %c7, %c9 : index
  %n = memref.dim %o, %c0 : memref<?xindex>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %o[%i] : memref<?xindex>
  }
  wsp.return
}
// CHECK-LABEL: wsp.kernel @pick_tier0
// CHECK-LABEL: wsp.kernel @pick_tier1
// CHECK: wsp.kernel_table @pick_table tiers(@T) {0: @pick_tier0, 1: @pick_tier1}
func.func @pick_both(%b: memref<?x!wsp.descriptor<attention>>, %n: index,
                     %o: memref<?xindex>) {
  wsp.dispatch @pick(%o : memref<?xindex>)
      descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(48)
  return
}
