// A function a wsp.step captures: each operator's workload becomes a
// private launch function (its planner), which the function calls in
// order, each only while the ones before it returned 0. The step table
// records these calls (test/Target/Cpp/step-table.mlir); a function no
// step captures keeps its planners inlined.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK: wsp.step @table captures @step
// CHECK: func.func private @step_rms_norm_0_launch(%{{.*}}: memref<?x256xbf16>, %{{.*}}: memref<256xf32>, %{{.*}}: memref<?x256xbf16>) -> i32
// CHECK: wsp.dispatch @step_rms_norm_0
// CHECK: func.func private @step_scale_dynamic_quant_1_launch(%{{.*}}: memref<?x256xbf16>, %{{.*}}: memref<256xf32>, %{{.*}}: memref<?x256xi8>, %{{.*}}: memref<?xf32>) -> i32
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x256xbf16>, %[[W:[^:]*]]: memref<256xf32>, %[[Y:[^:]*]]: memref<?x256xbf16>, %[[S:[^:]*]]: memref<256xf32>, %[[KV:[^:]*]]: memref<?xi32>, %[[Y8:[^:]*]]: memref<?x256xi8>, %[[SC:[^:]*]]: memref<?xf32>) -> i32
// CHECK-NOT: wsp.dispatch
// CHECK: %[[S0:.*]] = call @step_rms_norm_0_launch(%[[X]], %[[W]], %[[Y]])
// CHECK: %[[GO:.*]] = arith.cmpi eq, %[[S0]], %{{.*}} : i32
// CHECK: scf.if %[[GO]] -> (i32)
// CHECK: func.call @step_scale_dynamic_quant_1_launch(%[[Y]], %[[S]], %[[Y8]], %[[SC]])
// CHECK-LABEL: func.func @not_captured(
// CHECK-NOT: call
// CHECK: wsp.dispatch @not_captured_rms_norm_0
wsp.step @table captures @step patches [#wsp.patch<request_kv_lens, 4>]
func.func @step(%x: memref<?x256xbf16>, %w: memref<256xf32>, %y: memref<?x256xbf16>,
                %smooth: memref<256xf32>, %kv_lens: memref<?xi32>,
                %y8: memref<?x256xi8>, %scale: memref<?xf32>) {
  llm.rms_norm hidden_states(%x : memref<?x256xbf16>) weight(%w : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {eps = 1.0e-06 : f32}
  llm.scale_dynamic_quant hidden_states(%y : memref<?x256xbf16>)
      smooth_scale(%smooth : memref<256xf32>)
      -> y(%y8 : memref<?x256xi8>) scale(%scale : memref<?xf32>)
  return
}

func.func @not_captured(%x: memref<?x256xbf16>, %w: memref<256xf32>,
                        %y: memref<?x256xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x256xbf16>) weight(%w : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {eps = 1.0e-06 : f32}
  return
}
