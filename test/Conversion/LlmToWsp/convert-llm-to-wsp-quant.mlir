// convert-llm-to-wsp on the quantizing row ops: a max-|v| pass, the scale
// stored per token, and y rounded once to i16 then narrowed through f16.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// At hidden 2048 a row is one chunk: the smooth scale is loaded once,
// before the rows; each row is loaded and smoothed once into %xf, which the
// second pass quantizes without loading it again; the conversion tiles are
// the two halves of the squares' tile.
// CHECK-LABEL: wsp.kernel @quant_scale_dynamic_quant_0
// CHECK-SAME: (%{{.*}}: !wsp.descriptor<moe>, %[[X:.*]]: memref<?x2048xbf16>, %[[S:.*]]: memref<2048xf32>, %[[Y:.*]]: memref<?x2048xi8>, %[[SCALE:.*]]: memref<?xf32>)
// CHECK: %[[SMOOTH:.*]] = tile.alloc : !tile.tile<vec, 1x2048xf32>
// CHECK: tile.load %[[SMOOTH]], %[[S]][
// CHECK: scf.for
// CHECK: %[[XF:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x2048xf32, valid = ?x2048>
// CHECK: %[[SQ:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x2048xf32, valid = ?x2048>
// CHECK: %[[F16:.*]] = tile.reshape %[[SQ]] : !tile.tile<vec, 8x2048xf32, valid = ?x2048> to !tile.tile<vec, 16x2048xf16>
// CHECK: %[[QH:.*]] = tile.subview %[[F16]][%c0, %c0] valid(%{{.*}}) : !tile.tile<vec, 16x2048xf16> to !tile.tile<vec, 8x2048xf16, valid = ?x2048>
// CHECK: %[[I16:.*]] = tile.reshape %[[SQ]] : !tile.tile<vec, 8x2048xf32, valid = ?x2048> to !tile.tile<vec, 16x2048xi16>
// CHECK: %[[QI:.*]] = tile.subview %[[I16]][%c8, %c0] valid(%{{.*}}) : !tile.tile<vec, 16x2048xi16> to !tile.tile<vec, 8x2048xi16, valid = ?x2048>
// CHECK: scf.for
// CHECK: tile.load %{{.*}}, %[[X]][
// CHECK: tile.colexpandmul %[[XF]], %[[XF]], %[[SMOOTH]]
// CHECK: tile.abs %[[SQ]], %[[XF]]
// CHECK: tile.rowmax
// CHECK: tile.max
// CHECK: tile.divs
// CHECK: tile.store %[[SCALE]][%{{.*}}], %{{.*}} transpose
// CHECK: tile.maxs
// CHECK: tile.div
// CHECK: scf.for
// CHECK-NOT: tile.load
// CHECK: tile.rowexpandmul %[[XF]], %[[XF]], %{{.*}}, %[[SQ]]
// CHECK-NEXT: tile.cvt %[[QI]], %[[XF]] : !tile.tile<vec, 8x2048xi16, valid = ?x2048>, !tile.tile<vec, 8x2048xf32, valid = ?x2048>
// CHECK-NEXT: tile.cvt %[[QH]], %[[QI]] : !tile.tile<vec, 8x2048xf16, valid = ?x2048>, !tile.tile<vec, 8x2048xi16, valid = ?x2048>
// CHECK-NEXT: tile.cvt %{{.*}}, %[[QH]] : !tile.tile<vec, 8x2048xi8, valid = ?x2048>, !tile.tile<vec, 8x2048xf16, valid = ?x2048>
// CHECK-NEXT: tile.store %[[Y]][

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

// Wider rows are chunks of 1024 columns, each loaded and smoothed again in
// the second pass, converted through tiles of their own.
// CHECK-LABEL: wsp.kernel @wide_scale_dynamic_quant_0
// CHECK-SAME: (%{{.*}}: !wsp.descriptor<moe>, %[[WX:.*]]: memref<?x4096xbf16>, %[[WS:.*]]: memref<4096xf32>,
// CHECK: %[[WQI:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x1024xi16, valid = ?x1024>
// CHECK: %[[WQH:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x1024xf16, valid = ?x1024>
// CHECK: scf.for
// CHECK: tile.load %{{.*}}, %[[WS]][
// CHECK: tile.load %{{.*}}, %[[WX]][
// CHECK: tile.abs
// CHECK: scf.for
// CHECK: tile.load %{{.*}}, %[[WS]][
// CHECK: tile.load %{{.*}}, %[[WX]][
// CHECK: tile.rowexpandmul
// CHECK-NEXT: tile.cvt %[[WQI]], %{{.*}} : !tile.tile<vec, 8x1024xi16, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
// CHECK-NEXT: tile.cvt %[[WQH]], %[[WQI]]

// CHECK-LABEL: func.func @wide(
func.func @wide(%x: memref<?x4096xbf16>, %s: memref<4096xf32>,
                %y: memref<?x4096xi8>, %scale: memref<?xf32>) {
  llm.scale_dynamic_quant hidden_states(%x : memref<?x4096xbf16>)
      smooth_scale(%s : memref<4096xf32>)
      -> y(%y : memref<?x4096xi8>) scale(%scale : memref<?xf32>)
  return
}
