// convert-llm-to-wsp on the quantizing row ops: a max-|v| pass, the scale
// stored per token, and y rounded once to i32 then narrowed through f16.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.kernel @quant_scale_dynamic_quant_0
// CHECK-SAME: (%{{.*}}: !wsp.descriptor<moe>, %[[X:.*]]: memref<?x2048xbf16>, %[[S:.*]]: memref<2048xf32>, %[[Y:.*]]: memref<?x2048xi8>, %[[SCALE:.*]]: memref<?xf32>)
// CHECK: scf.for
// CHECK: scf.for
// The smooth scale is loaded first, so that the arithmetic is one
// element-wise chain.
// CHECK: tile.load %{{.*}}, %[[S]][
// CHECK: tile.load %{{.*}}, %[[X]][
// CHECK: tile.colexpandmul
// CHECK: tile.abs
// CHECK: tile.rowmax
// CHECK: tile.max
// CHECK: tile.divs
// CHECK: tile.store %[[SCALE]][%{{.*}}], %{{.*}} transpose
// CHECK: tile.maxs
// CHECK: tile.div
// CHECK: scf.for
// CHECK: tile.rowexpandmul
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 8x1024xi16, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 8x1024xf16, valid = ?x1024>, !tile.tile<vec, 8x1024xi16, valid = ?x1024>
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 8x1024xi8, valid = ?x1024>, !tile.tile<vec, 8x1024xf16, valid = ?x1024>
// CHECK: tile.store %[[Y]][

// The fused op: rms statistics, then the quantization of the normalized
// rows, with a bf16 weight converted per chunk.
// CHECK-LABEL: wsp.kernel @quant_add_rms_norm_dynamic_quant_1
// CHECK: tile.alloc : !tile.tile<vec, 1x1024xbf16>
// CHECK: tile.rowsum
// CHECK: tile.rsqrt
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 1x1024xf32>, !tile.tile<vec, 1x1024xbf16>
// CHECK: tile.rowexpandmul
// CHECK: tile.colexpandmul
// CHECK: tile.colexpandmul
// CHECK: tile.rowmax

// CHECK-LABEL: func.func @quant(
// CHECK-SAME: -> i32
// CHECK: wsp.dispatch @quant_scale_dynamic_quant_0(
// CHECK: wsp.dispatch @quant_add_rms_norm_dynamic_quant_1(
func.func @quant(%x: memref<?x2048xbf16>, %s: memref<2048xf32>,
                 %wb: memref<2048xbf16>, %y: memref<?x2048xi8>,
                 %scale: memref<?xf32>) {
  llm.scale_dynamic_quant hidden_states(%x : memref<?x2048xbf16>)
      smooth_scale(%s : memref<2048xf32>)
      -> y(%y : memref<?x2048xi8>) scale(%scale : memref<?xf32>)
  llm.add_rms_norm_dynamic_quant hidden_states(%x : memref<?x2048xbf16>)
      weight(%wb : memref<2048xbf16>) smooth_scale(%s : memref<2048xf32>)
      -> y(%y : memref<?x2048xi8>) per_token_scale(%scale : memref<?xf32>)
      {eps = 1.0e-06 : f32}
  return
}
