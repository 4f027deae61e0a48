// convert-llm-to-wsp on llm.all_reduce. Without a grid the program runs on
// one rank and the op leaves the buffer as it is: nothing is emitted. On a
// shard.grid it is wsp.all_reduce, in place, after the ops before it: it
// takes their status (`after`) instead of being skipped when they failed,
// so that a rank that failed still joins the collective and no rank waits
// for it; the function returns the collective's status.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @alone(
// CHECK-NOT: all_reduce
// CHECK: return
func.func @alone(%y: memref<?x256xbf16>) {
  llm.all_reduce hidden_states(%y : memref<?x256xbf16>)
  return
}

// CHECK-LABEL: func.func @first(
// CHECK: %[[S:.*]] = wsp.all_reduce %{{.*}} on @tp reduction = {{ *}}max : memref<?x256xf32>
// CHECK-NEXT: return %[[S]] : i32
func.func @first(%y: memref<?x256xf32>) {
  llm.all_reduce hidden_states(%y : memref<?x256xf32>) kind max on @tp
  return
}

// A rank group: the sum along axis 0 of a 2 x 2 grid keeps its axes.
shard.grid @tp_kvdp(shape = 2x2)
// CHECK-LABEL: func.func @along_an_axis(
// CHECK: %[[S:.*]] = wsp.all_reduce %{{.*}} on @tp_kvdp grid_axes = [0] : memref<?x256xbf16>
// CHECK-NEXT: return %[[S]] : i32
func.func @along_an_axis(%y: memref<?x256xbf16>) {
  llm.all_reduce hidden_states(%y : memref<?x256xbf16>) on @tp_kvdp grid_axes = [0]
  return
}

// CHECK-LABEL: func.func @row_parallel(
// CHECK: %[[MM:.*]] = scf.if
// CHECK: wsp.dispatch @row_parallel_quant_matmul_0
// CHECK: %[[S:.*]] = wsp.all_reduce %arg4 on @tp after(%[[MM]]) : memref<?x256xbf16>
// CHECK-NEXT: return %[[S]] : i32
func.func @row_parallel(%x: memref<?x128xi8>, %pts: memref<?xf32>,
                        %w: memref<256x128xi8>, %ws: memref<256xf32>,
                        %y: memref<?x256xbf16>) {
  llm.quant_matmul hidden_states(%x : memref<?x128xi8>)
      per_token_scale(%pts : memref<?xf32>)
      weight(%w : memref<256x128xi8>) weight_scale(%ws : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.all_reduce hidden_states(%y : memref<?x256xbf16>) on @tp
  return
}
