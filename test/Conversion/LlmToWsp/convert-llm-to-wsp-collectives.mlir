// convert-llm-to-wsp threads the status of a function's ops through the
// wsp collectives already in it (a sharded program's): each runs after
// the ops before it (`after`: joined not ready when one failed; its own
// `after`, if it had one, counts when the ops before it succeeded), and
// the ops after it run only when it returned 0.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

shard.grid @g(shape = 2)

// CHECK-LABEL: func.func @chain(
// The first op of the function: its own `after` stays.
// CHECK: %[[G:.*]] = wsp.all_gather %arg0 into %arg1 on @g gather_axis = 0 after(%arg4)
// The norm runs only when the gather returned 0.
// CHECK: %[[GO:.*]] = arith.cmpi eq, %[[G]], %{{.*}} : i32
// CHECK: %[[NORM:.*]] = scf.if %[[GO]] -> (i32) {
// CHECK: wsp.dispatch
// CHECK: } else {
// CHECK: scf.yield %[[G]] : i32
// The slice after the norm, which had its own `after`: the norm's failure
// first, else that one.
// CHECK: %[[FAILED:.*]] = arith.cmpi ne, %[[NORM]], %{{.*}} : i32
// CHECK: %[[AFTER:.*]] = arith.select %[[FAILED]], %[[NORM]], %arg4 : i32
// CHECK: %[[S:.*]] = wsp.all_slice %arg1 into %arg0 on @g slice_axis = 0 after(%[[AFTER]])
// CHECK: return %[[S]] : i32
func.func @chain(%x: memref<8x256xbf16>, %all: memref<16x256xbf16>,
                 %w: memref<256xf32>, %y: memref<16x256xbf16>, %before: i32) {
  %g = wsp.all_gather %x into %all on @g gather_axis = 0 after(%before)
      : memref<8x256xbf16> into memref<16x256xbf16>
  llm.rms_norm hidden_states(%all : memref<16x256xbf16>) weight(%w : memref<256xf32>)
      -> y(%y : memref<16x256xbf16>) {eps = 1.0e-06 : f32}
  %s = wsp.all_slice %all into %x on @g slice_axis = 0 after(%before)
      : memref<16x256xbf16> into memref<8x256xbf16>
  return
}
