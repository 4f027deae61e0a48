// convert-llm-to-wsp on rms_norm without a residual at hidden 2048: a row
// is one chunk, summed and normalized from what one load left in %xf, and
// the normalized row is stored from the first half of the squares' tile,
// not from the tile the rows load into (so that the next rows load while
// the store drains).
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.kernel @final_norm_rms_norm_0
// CHECK-SAME: (%{{.*}}: !wsp.descriptor<moe>, %[[X:.*]]: memref<?x2048xbf16>, %[[W:.*]]: memref<2048xf32>, %[[Y:.*]]: memref<?x2048xbf16>)
// CHECK: %[[WF:.*]] = tile.alloc : !tile.tile<vec, 1x2048xf32>
// CHECK: tile.load %[[WF]], %[[W]][
// CHECK: scf.for
// CHECK: %[[XB:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x2048xbf16, valid = ?x2048>
// CHECK: %[[XF:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x2048xf32, valid = ?x2048>
// CHECK: %[[SQ:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x2048xf32, valid = ?x2048>
// CHECK: tile.load %[[XB]], %[[X]][
// CHECK: tile.cvt %[[XF]], %[[XB]]
// CHECK: tile.mul %[[SQ]], %[[XF]], %[[XF]]
// CHECK: tile.rowsum
// CHECK: tile.rsqrt
// The normalization, with no load of the rows again.
// CHECK-NOT: tile.load %{{.*}}, %[[X]][
// CHECK: tile.rowexpandmul %[[XF]], %[[XF]], %{{.*}}, %[[SQ]]
// CHECK-NEXT: tile.colexpandmul %[[XF]], %[[XF]], %[[WF]]
// CHECK-NEXT: %[[HALVES:.*]] = tile.reshape %[[SQ]] : !tile.tile<vec, 8x2048xf32, valid = ?x2048> to !tile.tile<vec, 16x2048xbf16>
// CHECK-NEXT: %[[YB:.*]] = tile.subview %[[HALVES]][%c0, %c0] valid(%{{.*}}) : !tile.tile<vec, 16x2048xbf16> to !tile.tile<vec, 8x2048xbf16, valid = ?x2048>
// CHECK-NEXT: tile.cvt %[[YB]], %[[XF]]
// CHECK-NEXT: tile.store %[[Y]][%{{.*}}, %{{.*}}], %[[YB]]
func.func @final_norm(%x: memref<?x2048xbf16>, %w: memref<2048xf32>,
                      %y: memref<?x2048xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x2048xbf16>)
      weight(%w : memref<2048xf32>) -> y(%y : memref<?x2048xbf16>)
      {eps = 1.0e-05 : f32}
  return
}
