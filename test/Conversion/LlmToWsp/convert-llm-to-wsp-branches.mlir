// Operators in the branches of an scf.if (a program that chooses between
// two forms at run time): each branch runs its operators after the ones
// before the if, each only while the ones before it returned 0, and the if
// yields its branch's status, which guards the operators after it. The ops
// are numbered in program order. Then the same program compiled and run in
// the CPU simulation, both ways, against a naive RMSNorm.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s
// RUN: wsp-opt %s --wsp-pipeline | wsp-translate --wsp-to-cpusim -o %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp %S/Inputs/branches-main.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @choose(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x64xbf16>, %[[W:[^:]*]]: memref<64xf32>, %[[Y:[^:]*]]: memref<?x64xbf16>, %[[C:[^:]*]]: i1) -> i32
// CHECK: %[[S0:.*]] = call @choose_rms_norm_0_launch(%[[X]], %[[W]], %[[Y]])
// CHECK: %[[S1:.*]] = scf.if %[[C]] -> (i32) {
// CHECK: %[[GO1:.*]] = arith.cmpi eq, %[[S0]], %{{.*}} : i32
// CHECK: %[[T:.*]] = scf.if %[[GO1]] -> (i32) {
// CHECK: func.call @choose_rms_norm_1_launch(%[[Y]], %[[W]], %[[X]])
// CHECK: scf.yield %[[T]] : i32
// CHECK: } else {
// CHECK: %[[GO2:.*]] = arith.cmpi eq, %[[S0]], %{{.*}} : i32
// CHECK: %[[E:.*]] = scf.if %[[GO2]] -> (i32) {
// CHECK: func.call @choose_rms_norm_2_launch(%[[Y]], %[[W]], %[[Y]])
// CHECK: scf.yield %[[E]] : i32
// CHECK: %[[GO3:.*]] = arith.cmpi eq, %[[S1]], %{{.*}} : i32
// CHECK: %[[S3:.*]] = scf.if %[[GO3]] -> (i32) {
// CHECK: func.call @choose_rms_norm_3_launch(%[[X]], %[[W]], %[[Y]])
// CHECK: return %[[S3]] : i32

// A branch without operators, or no else, yields the status before it.
// CHECK-LABEL: func.func @maybe(
// CHECK: %[[M0:.*]] = call @maybe_rms_norm_0_launch(
// CHECK: %[[M1:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: scf.yield %{{.*}} : i32
// CHECK: } else {
// CHECK: scf.yield %[[M0]] : i32
// CHECK: return %[[M1]] : i32

// An if in a branch: its status is the outer branch's.
// CHECK-LABEL: func.func @nested_ifs(
// CHECK: %[[N0:.*]] = call @nested_ifs_rms_norm_0_launch(
// CHECK: %[[OUTER:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: %[[INNER:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: call @nested_ifs_rms_norm_1_launch(
// CHECK: scf.yield %[[INNER]] : i32
// CHECK: } else {
// CHECK: scf.yield %[[N0]] : i32
// CHECK: return %[[OUTER]] : i32

// OUT: then branch: status 0, y = rms(rms(rms(x))) within 0.03: yes
// OUT: else branch: status 0, y = rms(x) within 0.03: yes
// OUT: mismatched rows: status 3, nothing written: yes

wsp.step @table captures @choose patches []

func.func @choose(%x: memref<?x64xbf16>, %w: memref<64xf32>,
                  %y: memref<?x64xbf16>, %c: i1) {
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>)
      -> y(%y : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  scf.if %c {
    llm.rms_norm hidden_states(%y : memref<?x64xbf16>) weight(%w : memref<64xf32>)
        -> y(%x : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  } else {
    llm.rms_norm hidden_states(%y : memref<?x64xbf16>) weight(%w : memref<64xf32>)
        -> y(%y : memref<?x64xbf16>) {eps = 1.0e-5 : f32}
  }
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>)
      -> y(%y : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  return
}

wsp.step @table2 captures @maybe patches []

func.func @maybe(%x: memref<?x64xbf16>, %w: memref<64xf32>,
                 %y: memref<?x64xbf16>, %c: i1) {
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>)
      -> y(%y : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  scf.if %c {
    llm.rms_norm hidden_states(%y : memref<?x64xbf16>) weight(%w : memref<64xf32>)
        -> y(%x : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  }
  return
}

wsp.step @table3 captures @nested_ifs patches []

func.func @nested_ifs(%x: memref<?x64xbf16>, %w: memref<64xf32>,
                      %y: memref<?x64xbf16>, %c: i1, %d: i1) {
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>)
      -> y(%y : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  scf.if %c {
    scf.if %d {
      llm.rms_norm hidden_states(%y : memref<?x64xbf16>) weight(%w : memref<64xf32>)
          -> y(%x : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
    }
  }
  return
}
