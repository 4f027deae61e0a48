// convert-llm-to-wsp on moe_swiglu_dynamic_quant: the planner builds the
// segments' lengths (the shared expert's 8 rows, then the routed experts'
// counts) and plans units within one segment each, so a unit has one
// smooth_scale row; the kernel finds its segment's first row, then per 8
// rows computes silu(gate) * up * smooth and quantizes it.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.kernel @act_moe_swiglu_dynamic_quant_0
// CHECK-SAME: %[[X:[^:]*]]: memref<?x1024xbf16>, %[[S:[^:]*]]: memref<5x512xf32>, %[[C:[^:]*]]: memref<4xi32>, %[[Y:[^:]*]]: memref<?x512xi8>, %[[PTS:[^:]*]]: memref<?xf32>)
// CHECK: %[[SEG:.*]] = wsp.param %{{.*}}["expert_idx"]
// CHECK: scf.if
// CHECK: memref.load %[[C]]
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %c8
// The max |v| pass and the quantizing pass each recompute v.
// CHECK: tile.load %{{.*}}, %[[X]][%[[R]], %[[COL:.*]]] : !tile.tile<vec, 8x512xbf16, valid = ?x512>
// CHECK: tile.exp
// CHECK: tile.div
// CHECK: %[[UP:.*]] = arith.addi %[[COL]], %c512
// CHECK: tile.load %{{.*}}, %[[X]][%[[R]], %[[UP]]]
// CHECK: tile.load %{{.*}}, %[[S]][%[[SEG]], %[[COL]]] : !tile.tile<vec, 1x512xf32>
// CHECK: tile.rowmax
// CHECK: tile.store %[[PTS]][%[[R]]]
// CHECK: tile.store %[[Y]][%[[R]], %{{.*}}], %{{.*}} : memref<?x512xi8>

// CHECK-LABEL: func.func @act(
// CHECK: memref.alloca() : memref<5xi32>
// CHECK: wsp.generate %{{.*}}[%c5{{.*}}] heads(%c1)
// CHECK: on vector(48)
func.func @act(%x: memref<?x1024xbf16>, %s: memref<5x512xf32>, %c: memref<4xi32>,
               %y: memref<?x512xi8>, %ys: memref<?xf32>) {
  llm.moe_swiglu_dynamic_quant scatter_tokens(%x : memref<?x1024xbf16>)
      smooth_scale(%s : memref<5x512xf32>) experts_tokens_count(%c : memref<4xi32>)
      -> y(%y : memref<?x512xi8>) per_token_scale(%ys : memref<?xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_per_rank = 8 : i32}
  return
}
