// RUN: wsp-opt %s --wsp-lower-preconditions -split-input-file | FileCheck %s

// The preconditions guard everything after the last of them: the planning
// and the dispatch run only when every one holds; else the function
// returns INVALID_PARAMS (3), and zero for its other result.

// CHECK-LABEL: func.func @guarded(
// CHECK-SAME: %[[N:[^:]*]]: index, %[[M:[^:]*]]: memref<?xi32>) -> (i32, index)
// CHECK-NOT: wsp.require
// CHECK: %[[A:.*]] = arith.cmpi sgt, %[[N]]
// CHECK: %[[B:.*]] = arith.cmpi sle, %[[N]]
// CHECK: %[[BOTH:.*]] = arith.andi %[[A]], %[[B]] : i1
// CHECK: %[[R:.*]]:2 = scf.if %[[BOTH]] -> (i32, index) {
// CHECK:   memref.store
// CHECK:   scf.yield %{{.*}}, %[[N]] : i32, index
// CHECK: } else {
// CHECK:   %[[INVALID:.*]] = arith.constant 3 : i32
// CHECK:   %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:   scf.yield %[[INVALID]], %[[ZERO]] : i32, index
// CHECK: return %[[R]]#0, %[[R]]#1 : i32, index
func.func @guarded(%n: index, %m: memref<?xi32>) -> (i32, index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %positive = arith.cmpi sgt, %n, %c0 : index
  wsp.require %positive, "n is positive"
  %small = arith.cmpi sle, %n, %c8 : index
  wsp.require %small, "n is at most 8"
  %ok = arith.constant 0 : i32
  memref.store %ok, %m[%c0] : memref<?xi32>
  return %ok, %n : i32, index
}

// -----

// wsp.all_in_range: the count checked against the array first, then a
// loop over the values that fit, each in [0, bound).

// CHECK-LABEL: func.func @ids(
// CHECK-SAME: %[[V:[^:]*]]: memref<?xi32>, %[[COUNT:[^:]*]]: index, %[[BOUND:[^:]*]]: index)
// CHECK-NOT: wsp.all_in_range
// CHECK: %[[SIZE:.*]] = memref.dim %[[V]], %{{.*}}
// CHECK: %[[HIGH:.*]] = arith.cmpi sle, %[[COUNT]], %[[SIZE]] : index
// CHECK: %[[FITS:.*]] = arith.andi %{{.*}}, %[[HIGH]] : i1
// CHECK: %[[ROWS:.*]] = arith.select %[[FITS]], %[[COUNT]], %{{.*}} : index
// CHECK: %[[ALL:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[ROWS]] step %{{.*}} iter_args(%[[ACC:.*]] = %true) -> (i1) {
// CHECK:   %[[X:.*]] = memref.load %[[V]][%[[I]]] : memref<?xi32>
// CHECK:   %[[XI:.*]] = arith.index_cast %[[X]] : i32 to index
// CHECK:   arith.cmpi sge, %[[XI]]
// CHECK:   arith.cmpi slt, %[[XI]], %[[BOUND]] : index
// CHECK: %[[OK:.*]] = arith.andi %[[FITS]], %[[ALL]] : i1
// CHECK: return %[[OK]] : i1
func.func @ids(%v: memref<?xi32>, %count: index, %bound: index) -> i1 {
  %ok = wsp.all_in_range %v[%count] below %bound : memref<?xi32>
  return %ok : i1
}

// -----

// wsp.pages_in_range: per request its row and length, then the pages of
// positions [0, length), read only when the row and length are good.

// CHECK-LABEL: func.func @pages(
// CHECK-NOT: wsp.pages_in_range
// CHECK: scf.for
// CHECK:   %[[ROW:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:   %[[LEN:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:   %[[USED:.*]] = arith.ceildivui %[[LEN]], %{{.*}} : index
// CHECK:   %[[SPAN:.*]] = arith.select %{{.*}}, %[[USED]], %{{.*}} : index
// CHECK:   scf.for %[[J:.*]] = %{{.*}} to %[[SPAN]]
// CHECK:     memref.load %{{.*}}[%[[ROW]], %[[J]]] : memref<?x?xi32>
func.func @pages(%t: memref<?x?xi32>, %ids: memref<?xi32>,
                 %lens: memref<?xi32>, %n: index, %ps: index,
                 %pages: index) -> i1 {
  %ok = wsp.pages_in_range %t rows(%ids[%n]) lengths(%lens) page_size(%ps)
      pages(%pages) : memref<?x?xi32>, memref<?xi32>, memref<?xi32>
  return %ok : i1
}
