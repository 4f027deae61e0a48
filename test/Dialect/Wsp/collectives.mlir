// wsp.all_reduce round trip, custom and generic forms.
// RUN: wsp-opt %s | FileCheck %s
// RUN: wsp-opt %s -mlir-print-op-generic | wsp-opt | FileCheck %s

shard.grid @tp(shape = 4)
shard.grid @any(shape = ?)

// CHECK-LABEL: func.func @partials
// CHECK: %{{.*}} = wsp.all_reduce %{{.*}} on @tp : memref<?x256xbf16>
// CHECK: %[[S1:.*]] = wsp.all_reduce %{{.*}} on @any reduction = {{ *}}max : memref<16xf32>
// CHECK: %{{.*}} = wsp.all_reduce %{{.*}} on @tp reduction = {{ *}}min after(%[[S1]]) : memref<?xi32>
func.func @partials(%h: memref<?x256xbf16>, %m: memref<16xf32>,
                    %i: memref<?xi32>) -> i32 {
  %s0 = wsp.all_reduce %h on @tp reduction = sum : memref<?x256xbf16>
  %s1 = wsp.all_reduce %m on @any reduction = max : memref<16xf32>
  %s2 = wsp.all_reduce %i on @tp reduction = min after(%s1) : memref<?xi32>
  return %s2 : i32
}
