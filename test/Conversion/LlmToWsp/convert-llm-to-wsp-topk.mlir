// convert-llm-to-wsp on moe_softmax_topk: token rows as the row ops plan
// them; per 8 tokens the softmax over the experts on the vector unit, then
// per token the top k by a scan of the logits on the scalar unit (not of
// the probabilities, which tie at 0 where they underflow; the first of
// equals wins: ties to the lower id; a taken one, NaN, never), the chosen
// ones taken out, their probabilities normalized over them; bf16 weights
// are converted from f32 as a tile.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.kernel @route_moe_softmax_topk_0
// CHECK: %[[NONE:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[TAKEN:.*]] = arith.constant 0x7FC0 : bf16
// CHECK: tile.load %{{.*}}, %{{.*}} : !tile.tile<vec, 8x64xbf16, valid = ?x64>
// CHECK: tile.rowmax
// CHECK: tile.exp
// CHECK: tile.rowexpanddiv
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args(%{{.*}} = %[[NONE]], %{{.*}} = %c0) -> (f32, index)
// CHECK: tile.getval %{{.*}}[%{{.*}}, %{{.*}}] : !tile.tile<vec, 8x64xbf16, valid = ?x64>, bf16
// CHECK: arith.extf
// CHECK: arith.cmpf ord
// CHECK: arith.cmpf ugt
// CHECK: tile.setval %{{.*}}[%{{.*}}, %{{.*}}], %[[TAKEN]] : !tile.tile<vec, 8x64xbf16, valid = ?x64>, bf16
// CHECK: tile.getval %{{.*}}[%{{.*}}, %{{.*}}] : !tile.tile<vec, 8x64xf32, valid = ?x64>, f32
// CHECK: tile.setval %{{.*}}, %{{.*}} : !tile.tile<vec, 8x8xi32, valid = ?x2>, i32
// CHECK: arith.divf
// CHECK: tile.store %{{.*}}[%{{.*}}, %c0], %{{.*}} : memref<?x2xi32>, !tile.tile<vec, 8x8xi32, valid = ?x2>
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 8x16xbf16, valid = ?x2>, !tile.tile<vec, 8x16xf32, valid = ?x2>
// CHECK-LABEL: func.func @route(
// CHECK: wsp.dispatch @route_moe_softmax_topk_0
func.func @route(%l: memref<?x64xbf16>, %ids: memref<?x2xi32>, %w: memref<?x2xbf16>) {
  llm.moe_softmax_topk hidden_states(%l : memref<?x64xbf16>)
      -> selected_experts(%ids : memref<?x2xi32>) expert_weights(%w : memref<?x2xbf16>)
  return
}

// Mixtral's 8 experts: the logits' tile rows padded to whole 32-byte
// blocks (16 columns), the 8 experts valid, so the row's max, sum and scan
// see only them.
// CHECK-LABEL: wsp.kernel @route8_moe_softmax_topk_0
// CHECK: tile.load %{{.*}}, %{{.*}} : !tile.tile<vec, 8x16xbf16, valid = ?x8>, memref<?x8xbf16>
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 8x16xf32, valid = ?x8>, !tile.tile<vec, 8x16xbf16, valid = ?x8>
// CHECK: tile.rowmax %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x16xf32, valid = ?x8>
// CHECK: scf.for %{{.*}} = %c0 to %c8{{(_[0-9]+)?}} step %c1 iter_args
func.func @route8(%l: memref<?x8xbf16>, %ids: memref<?x2xi32>, %w: memref<?x2xf32>) {
  llm.moe_softmax_topk hidden_states(%l : memref<?x8xbf16>)
      -> selected_experts(%ids : memref<?x2xi32>) expert_weights(%w : memref<?x2xf32>)
  return
}
