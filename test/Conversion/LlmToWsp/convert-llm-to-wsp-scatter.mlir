// convert-llm-to-wsp on moe_scatter_dynamic_quant: the planning function
// counts the rank's routed rows per expert (negative ids INVALID_PARAMS,
// too many rows BUFFER_OVERFLOW, before anything is written), writes the
// counts and token_offset (expert order, then (t, k) order), then the
// vector cores quantize the shared and routed rows one gathered row at a
// time, each with its expert's smooth_scale row.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.kernel @scatter_moe_scatter_dynamic_quant_0
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK: %[[T:.*]]:2 = scf.if
// The shared expert's rows: tokens [8, 16).
// CHECK: arith.divui %[[R]], %c8
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<16x2xi32>
// CHECK: tile.load %{{.*}}, %{{.*}}[%[[T]]#0, %{{.*}}] : !tile.tile<vec, 8x256xbf16, valid = ?x256>
// CHECK: tile.load %{{.*}}, %{{.*}}[%[[T]]#1, %{{.*}}] : !tile.tile<vec, 1x256xf32>
// CHECK: tile.store %{{.*}}[%[[R]], %{{.*}}], %{{.*}} : memref<?x256xi8>

// CHECK-LABEL: func.func @scatter(
// CHECK: memref.alloca() : memref<4xi32>
// CHECK: arith.cmpi slt
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4xi32>
// CHECK: wsp.dispatch @scatter_moe_scatter_dynamic_quant_0
func.func @scatter(%x: memref<16x256xbf16>, %ids: memref<16x2xi32>, %s: memref<5x256xf32>,
                   %r: memref<?x256xi8>, %rs: memref<?xf32>, %c: memref<4xi32>, %o: memref<?xi32>) {
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<16x256xbf16>)
      selected_experts(%ids : memref<16x2xi32>) smooth_scale(%s : memref<5x256xf32>)
      -> scatter_tokens(%r : memref<?x256xi8>) scatter_per_token_scale(%rs : memref<?xf32>)
         experts_token_count(%c : memref<4xi32>) token_offset(%o : memref<?xi32>)
      {expert_start_idx = 4 : i32, expert_end_idx = 8 : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 8 : i32,
       num_tokens_per_rank = 8 : i32}
  return
}
