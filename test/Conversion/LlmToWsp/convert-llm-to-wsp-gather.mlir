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

// bf16 expert weights: a token's weights load as a bf16 tile (one 32-byte
// block), each read as bf16 and widened to f32 before its routed row is
// weighted.
// CHECK-LABEL: wsp.kernel @gather_bf16_moe_gather_0
// CHECK: tile.load %[[W:.*]], %{{.*}}[%{{.*}}, %c0] : !tile.tile<vec, 1x16xbf16, valid = 1x2>, memref<16x2xbf16>
// CHECK: %[[V:.*]] = tile.getval %[[W]][%c0, %{{.*}}] : !tile.tile<vec, 1x16xbf16, valid = 1x2>, bf16
// CHECK: arith.extf %[[V]] : bf16 to f32
func.func @gather_bf16(%x: memref<?x256xbf16>, %o: memref<?xi32>, %w: memref<16x2xbf16>, %h: memref<16x256xbf16>) {
  llm.moe_gather scatter_tokens(%x : memref<?x256xbf16>) token_offset(%o : memref<?xi32>)
      expert_weights(%w : memref<16x2xbf16>) -> hidden_states(%h : memref<16x256xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 8 : i32, num_tokens_per_rank = 8 : i32}
  return
}
