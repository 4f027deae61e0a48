// convert-llm-to-wsp on a model's ends. embedding: the AICPU checks every
// token id against the table (INVALID_PARAMS before anything is written),
// then each token's row is copied chunk by chunk through UB. argmax: per 8
// tokens the logits a chunk at a time, in f32, each token's best kept in
// UB and found by a scan on the scalar unit (a later value wins only when
// greater: ties to the lower id); the ids stored as one column.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.kernel @ends_embedding_0
// CHECK: %[[ID32:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK: %[[ID:.*]] = arith.index_castui %[[ID32]] : i32 to index
// CHECK: tile.load %{{.*}}, %{{.*}}[%[[ID]], %{{.*}}] : !tile.tile<vec, 1x256xbf16>, memref<1024x256xbf16>
// CHECK: tile.store
// CHECK-LABEL: wsp.kernel @ends_argmax_1
// CHECK: tile.load %{{.*}} : !tile.tile<vec, 8x1024xbf16, valid = ?x1024>, memref<?x1024xbf16>
// CHECK: tile.cvt
// CHECK: arith.cmpf ogt
// CHECK: tile.store %{{.*}}[%{{.*}}], %{{.*}} transpose : memref<?xi32>, !tile.tile<vec, 8x1xi32, valid = ?x1, col_major>
// CHECK-LABEL: func.func @ends(
// CHECK: %[[VOCAB:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<1024x256xbf16>
// CHECK: scf.for
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: wsp.dispatch @ends_embedding_0
// CHECK: wsp.dispatch @ends_argmax_1
func.func @ends(%ids: memref<?xi32>, %table: memref<1024x256xbf16>,
                %x: memref<?x256xbf16>, %logits: memref<?x1024xbf16>,
                %next: memref<?xi32>) {
  llm.embedding token_ids(%ids : memref<?xi32>) weight(%table : memref<1024x256xbf16>)
      -> y(%x : memref<?x256xbf16>)
  llm.argmax logits(%logits : memref<?x1024xbf16>) -> token_ids(%next : memref<?xi32>)
  return
}

// f32 logits load straight into the f32 tile: no conversion.
// CHECK-LABEL: wsp.kernel @argmax_f32_argmax_0
// CHECK: tile.load %{{.*}} : !tile.tile<vec, 8x1024xf32, valid = ?x1024>, memref<?x1024xf32>
// CHECK-NOT: tile.cvt
// CHECK: arith.cmpf ogt
// CHECK-LABEL: func.func @argmax_f32(
func.func @argmax_f32(%logits: memref<?x1024xf32>, %next: memref<?xi32>) {
  llm.argmax logits(%logits : memref<?x1024xf32>) -> token_ids(%next : memref<?xi32>)
  return
}
