// wsp.step and #wsp.patch round trip, custom and generic forms.
// RUN: wsp-opt %s | FileCheck %s
// RUN: wsp-opt %s -mlir-print-op-generic | wsp-opt | FileCheck %s

// A batch decode step: this token's row of a token buffer, per-request
// positions and KV lengths, the argmax writing the next row.
// CHECK-LABEL: wsp.step @decode_table captures @decode_step patches
// CHECK-SAME: [#wsp.patch<token_offset, 0>, #wsp.patch<argmax_output, 4>,
// CHECK-SAME: #wsp.patch<request_positions, 1>, #wsp.patch<request_kv_lens, 2>]
wsp.step @decode_table captures @decode_step patches [
  #wsp.patch<token_offset, 0>, #wsp.patch<argmax_output, 4>,
  #wsp.patch<request_positions, 1>, #wsp.patch<request_kv_lens, 2>]
func.func @decode_step(%tokens: memref<?xi32>, %positions: memref<?xi32>,
                       %kv_lens: memref<?xi32>, %hidden: memref<?x?xbf16>,
                       %next_tokens: memref<?xi32>) {
  return
}

// One sequence, akunu's scalar patches: position and KV length in the
// step's parameter block.
// CHECK-LABEL: wsp.step @single captures @single_step patches
// CHECK-SAME: [#wsp.patch<token_offset, 0>, #wsp.patch<position, 1>,
// CHECK-SAME: #wsp.patch<kv_seq_len, 2>, #wsp.patch<pos_and_kv, 3, 4>]
wsp.step @single captures @single_step patches [
  #wsp.patch<token_offset, 0>, #wsp.patch<position, 1>,
  #wsp.patch<kv_seq_len, 2>, #wsp.patch<pos_and_kv, 3, 4>]
func.func @single_step(%tokens: memref<?xi32>, %rope_pos: i32, %attn_kv: i32,
                       %pos: i32, %kv: i32) {
  return
}

// A call the table replays with a variant whose plan it keeps
// (wsp-keep-step-plans).
// CHECK-LABEL: func.func @kept_step
// CHECK: call @launch(%{{.*}}) {wsp.replay_with = @launch_kept} : (memref<?xi32>) -> i32
func.func private @launch(%x: memref<?xi32>) -> i32
func.func private @launch_kept(%x: memref<?xi32>, %k: memref<4xi32>,
                               %r: memref<8xi64>) -> i32 {
  %c = arith.constant 0 : i32
  return %c : i32
}
func.func @kept_step(%x: memref<?xi32>) -> i32 {
  %s = func.call @launch(%x) {wsp.replay_with = @launch_kept}
      : (memref<?xi32>) -> i32
  return %s : i32
}
