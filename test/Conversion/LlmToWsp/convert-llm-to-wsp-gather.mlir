// convert-llm-to-wsp on moe_gather: the planning function checks
// token_offset (each entry -1 or a (token, slot) of expert_weights, none
// twice) while it writes its inverse to a workspace the lowering adds;
// each token then adds, per column chunk, its shared experts' rows and its
// routed rows times their weights to its own row, in f32, rounded once.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.kernel @gather_moe_gather_0
// CHECK-SAME: %[[INV:[^:]*]]: memref<16384xi32>)
// CHECK: tile.load %{{.*}}, %{{.*}}[%[[T:.*]], %c0] : !tile.tile<vec, 1x8xf32, valid = 1x2>
// CHECK: scf.if
// CHECK: tile.add
// CHECK: memref.load %[[INV]][%{{.*}}] : memref<16384xi32>
// CHECK: tile.getval
// CHECK: tile.muls
// CHECK: tile.store %{{.*}}[%[[T]], %{{.*}}], %{{.*}} : memref<16x256xbf16>, !tile.tile<vec, 1x256xbf16>

// CHECK-LABEL: func.func @gather(
// CHECK-SAME: memref<16384xi32> {llm.workspace = "gather_moe_gather_0"}) -> i32
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<16384xi32>
// CHECK: wsp.dispatch @gather_moe_gather_0
func.func @gather(%x: memref<?x256xbf16>, %o: memref<?xi32>, %w: memref<16x2xf32>, %h: memref<16x256xbf16>) {
  llm.moe_gather scatter_tokens(%x : memref<?x256xbf16>) token_offset(%o : memref<?xi32>)
      expert_weights(%w : memref<16x2xf32>) -> hidden_states(%h : memref<16x256xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 8 : i32, num_tokens_per_rank = 8 : i32}
  return
}
