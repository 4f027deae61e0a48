// Plans kept as rows (pto/runtime/spec_rows.hpp): wsp.generate and
// wsp.update_plan write the rows, and a grid or row_affine wsp.dispatch
// expands them (expand_rows). Round trip, custom and generic form.
// RUN: wsp-opt %s | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | wsp-opt | FileCheck %s

wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>, %x: memref<?xf32>) {
  wsp.return
}

// CHECK-LABEL: func.func @plan_as_rows(
// CHECK: %[[COUNT:.*]], %{{.*}} = wsp.generate %{{.*}}[%{{.*}}] heads(%{{.*}}) chunk(%{{.*}}) tiers(@T) config(#wsp.plan_config<>) into %[[D:.*]] rows(%[[R:.*]] : memref<25xi32>) : memref<8xi32>, memref<?x!wsp.descriptor<attention>>
// CHECK: %{{.*}}, %{{.*}} = wsp.update_plan %{{.*}}[%{{.*}}] from %{{.*}}[%{{.*}}] heads(%{{.*}}) window(64) queries(%{{.*}}) chunk(%{{.*}}) searched tiers(@T) config(#wsp.plan_config<>) into %[[D]] rows(%[[R]] : memref<25xi32>) : memref<8xi32>, memref<8xi32>, memref<?x!wsp.descriptor<attention>>
// CHECK: wsp.dispatch @k(%{{.*}} : memref<?xf32>) descriptors(%[[D]][%[[COUNT]]] : memref<?x!wsp.descriptor<attention>>) on vector(8) row_affine expand_rows(%[[R]] : memref<25xi32>)
// CHECK: wsp.dispatch @k(%{{.*}} : memref<?xf32>) descriptors(%[[D]][%[[COUNT]]] : memref<?x!wsp.descriptor<attention>>) on vector(8) expand_rows(%[[R]] : memref<25xi32>)
func.func @plan_as_rows(%lens: memref<8xi32>, %planned: memref<8xi32>,
                        %n: index, %held: index, %h: index, %c: index,
                        %q: index, %descs: memref<?x!wsp.descriptor<attention>>,
                        %rows: memref<25xi32>, %x: memref<?xf32>) -> i32 {
  %count, %status = wsp.generate %lens[%n] heads(%h) chunk(%c) tiers(@T)
      config(#wsp.plan_config<>) into %descs rows(%rows : memref<25xi32>)
      : memref<8xi32>, memref<?x!wsp.descriptor<attention>>
  %u, %un = wsp.update_plan %lens[%n] from %planned[%held] heads(%h)
      window(64) queries(%q) chunk(%c) searched tiers(@T)
      config(#wsp.plan_config<>) into %descs rows(%rows : memref<25xi32>)
      : memref<8xi32>, memref<8xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k(%x : memref<?xf32>)
      descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) row_affine expand_rows(%rows : memref<25xi32>)
  wsp.dispatch @k(%x : memref<?xf32>)
      descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) expand_rows(%rows : memref<25xi32>)
  return %status : i32
}
