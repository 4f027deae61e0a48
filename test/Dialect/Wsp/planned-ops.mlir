// Round trip of the planned forms: specialized kernels, kernel tables,
// descriptor construction, static descriptor tables, length bounds and
// reachable tiers.
// RUN: wsp-opt %s | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | wsp-opt | FileCheck %s

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]

// CHECK-LABEL: wsp.kernel @k_t1 tiers(@T) tier(1) constants {TILE = array<i64: 64, 128>} (
wsp.kernel @k_t1 tiers(@T) tier(1) constants {TILE = array<i64: 64, 128>}
    (%d: !wsp.descriptor<attention>, %o: memref<?xf32>) {
  wsp.return
}
// CHECK-LABEL: wsp.kernel @k_t0 tiers(@T) tier(0) constants
wsp.kernel @k_t0 tiers(@T) tier(0) constants {TILE = array<i64: 64, 128>}
    (%d: !wsp.descriptor<attention>, %o: memref<?xf32>) {
  wsp.return
}

// CHECK: wsp.kernel_table @k_table tiers(@T) {0: @k_t0, 1: @k_t1}
wsp.kernel_table @k_table tiers(@T) {0: @k_t0, 1: @k_t1}

// CHECK: wsp.descriptor_table @plan : !wsp.descriptor<attention> chunk(256) = dense<{{\[\[}}0, 0, 5, 0, 0, 0, 100], [1, 1, 5, 1, 0, 0, 2000]]> : tensor<2x7xi32>
wsp.descriptor_table @plan : !wsp.descriptor<attention> chunk(256)
    = dense<[[0, 0, 5, 0, 0, 0, 100], [1, 1, 5, 1, 0, 0, 2000]]> : tensor<2x7xi32>

// CHECK-LABEL: func.func @planned
func.func @planned(%lens: memref<?xi32>, %n: index, %id: index, %t: i32,
                   %f: i32, %buf: memref<?x!wsp.descriptor<attention>>,
                   %o: memref<?xf32>) -> (index, i32) {
  // CHECK: wsp.make_descriptor id(%{{.*}}) tier(%{{.*}}) flags(%{{.*}}) params(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : !wsp.descriptor<attention>
  %d = wsp.make_descriptor id(%id) tier(%t) flags(%f) params(%n, %n, %id, %n)
      : !wsp.descriptor<attention>
  memref.store %d, %buf[%id] : memref<?x!wsp.descriptor<attention>>
  // CHECK: wsp.load_descriptors @plan into %{{.*}} : memref<?x!wsp.descriptor<attention>>
  %count, %status = wsp.load_descriptors @plan into %buf
      : memref<?x!wsp.descriptor<attention>>
  // CHECK: wsp.generate %{{.*}}[%{{.*}}] lengths in [1, 4096] heads(
  %c2, %s2 = wsp.generate %lens[%n] lengths in [1, 4096] heads(%n) chunk(%n)
      tiers(@T) config(#wsp.plan_config<>) into %buf
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  // CHECK: wsp.dispatch @k_table(%{{.*}} : memref<?xf32>) descriptors(%{{.*}} : memref<?x!wsp.descriptor<attention>>) on vector(48) {reachable_tiers = array<i64: 0, 1>}
  wsp.dispatch @k_table(%o : memref<?xf32>)
      descriptors(%buf[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(48) {reachable_tiers = array<i64: 0, 1>}
  return %count, %status : index, i32
}
