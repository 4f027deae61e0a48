// RUN: wsp-opt %s | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | wsp-opt | FileCheck %s

// Run-time preconditions of a planning function round-trip.

// CHECK-LABEL: func.func @plan
// CHECK: %[[IDS:.*]] = wsp.all_in_range %arg1[%arg3] below %{{.*}} : memref<?xi32>
// CHECK: wsp.require %[[IDS]], "every kv id names a row of the block table"
// CHECK: %[[PAGED:.*]] = wsp.pages_in_range %arg0 rows(%arg1[%arg3]) lengths(%arg2) page_size(%{{.*}}) pages(%arg4) : memref<?x?xi32>, memref<?xi32>, memref<?xi32>
// CHECK: wsp.require %[[PAGED]], "every request's pages lie in the cache"
func.func @plan(%table: memref<?x?xi32>, %ids: memref<?xi32>,
                %lens: memref<?xi32>, %batch: index, %pages: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %table, %c0 : memref<?x?xi32>
  %ids_ok = wsp.all_in_range %ids[%batch] below %rows : memref<?xi32>
  wsp.require %ids_ok, "every kv id names a row of the block table"
  %paged = wsp.pages_in_range %table rows(%ids[%batch]) lengths(%lens)
      page_size(%c16) pages(%pages)
      : memref<?x?xi32>, memref<?xi32>, memref<?xi32>
  wsp.require %paged, "every request's pages lie in the cache"
  %ok = arith.constant 0 : i32
  return %ok : i32
}
