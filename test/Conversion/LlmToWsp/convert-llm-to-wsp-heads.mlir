// convert-llm-to-wsp on head_rms_norm, and all_reduce on one rank.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// Per token, heads [0, 10) in one tile of 16 rows (whole blocks of 8) of
// head_dim 128; in place, so nothing is copied and y needs no run-time
// check of its own.
// CHECK-LABEL: wsp.kernel @in_place_head_rms_norm_0
// CHECK-SAME: (%{{.*}}: !wsp.descriptor<moe>, %[[X:.*]]: memref<?x12x128xbf16>, %[[W:.*]]: memref<10x128xf32>, %[[Y:.*]]: memref<?x12x128xbf16>)
// CHECK: %[[HI:.*]] = arith.constant 10 : index
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %[[HI]] step %c16
// CHECK: tile.load %{{.*}}, %[[X]][%[[T]], %[[H]], %{{.*}}] : !tile.tile<vec, 16x128xbf16, valid = ?x128>
// CHECK: tile.rowsum %{{.*}} : !tile.tile<vec, 16x1xf32, valid = ?x1, col_major>
// CHECK: tile.rsqrt
// CHECK: tile.rowexpandmul
// CHECK: tile.load %{{.*}}, %[[W]][
// CHECK: tile.mul
// CHECK: tile.store %[[Y]][%[[T]], %[[H]], %{{.*}}]
// CHECK-NOT: tile.store
// CHECK: wsp.return

// The planner checks the head range against the run-time head count and y's
// shape.
// CHECK-LABEL: func.func @in_place(
// CHECK: %[[TOTAL:.*]] = memref.dim %arg0, %c1
// CHECK: arith.cmpi ule, %c10{{.*}}, %[[TOTAL]]
// CHECK: wsp.dispatch @in_place_head_rms_norm_0

// Into another buffer: heads below and above the range are copied.
// CHECK-LABEL: wsp.kernel @copy_head_rms_norm_0
// CHECK: tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x64xbf16
// CHECK: tile.cvt
// CHECK: tile.store
// CHECK: memref.dim %{{.*}}, %c1
// CHECK: scf.for
// CHECK: tile.load
// CHECK-NEXT: tile.store
// CHECK: scf.for
// CHECK: tile.load
// CHECK-NEXT: tile.store

// CHECK-LABEL: func.func @copy(
// CHECK: memref.dim %arg2, %c0
// CHECK: wsp.dispatch @copy_head_rms_norm_0
func.func @in_place(%qkv: memref<?x12x128xbf16>, %w: memref<10x128xf32>) {
  llm.head_rms_norm hidden_states(%qkv : memref<?x12x128xbf16>)
      weight(%w : memref<10x128xf32>) -> y(%qkv : memref<?x12x128xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 10 : i32}
  return
}
func.func @copy(%qkv: memref<?x?x64xbf16>, %w: memref<2x64xbf16>, %y: memref<?x?x64xbf16>) {
  llm.head_rms_norm hidden_states(%qkv : memref<?x?x64xbf16>)
      weight(%w : memref<2x64xbf16>) -> y(%y : memref<?x?x64xbf16>)
      {eps = 1.0e-05 : f32, head_offset = 8 : i32, head_num = 2 : i32}
  return
}

// Heads of 1024 columns: 40 of them would take [40 x 1024] tiles beyond
// half of UB, so they go 8 at a time.
// CHECK-LABEL: wsp.kernel @wide_head_rms_norm_0
// CHECK: scf.for %{{.*}} = %{{.*}} to %c40{{.*}} step %c8
// CHECK: tile.load %{{.*}} : !tile.tile<vec, 8x1024xbf16, valid = ?x1024>
func.func @wide(%qkv: memref<?x48x1024xbf16>, %w: memref<40x1024xf32>) {
  llm.head_rms_norm hidden_states(%qkv : memref<?x48x1024xbf16>)
      weight(%w : memref<40x1024xf32>) -> y(%qkv : memref<?x48x1024xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 40 : i32}
  return
}

// all_reduce on one rank is the identity: it leaves no op and no status
// of its own; the ops around it lower as usual.
// CHECK-LABEL: func.func @one_rank(
// CHECK-SAME: -> i32
// CHECK-NOT: llm.all_reduce
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: return %[[ZERO]] : i32
func.func @one_rank(%h: memref<?x64xbf16>) {
  llm.all_reduce hidden_states(%h : memref<?x64xbf16>)
  return
}
