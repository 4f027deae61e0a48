// convert-llm-to-wsp on quant_matmul: the function gains a workspace
// argument, the kernel multiplies on the cube and dequantizes on the
// vector cores through it.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.kernel @proj_quant_matmul_0
// CHECK-SAME: %[[A:[^:]*]]: memref<?x512xi8>, %[[PTS:[^:]*]]: memref<?xf32>, %[[W:[^:]*]]: memref<256x512xi8>, %[[WS:[^:]*]]: memref<256xf32>, %[[Y:[^:]*]]: memref<?x256xbf16>, %[[SLOTS:[^:]*]]: memref<24x32x128xi32>)
// K tiles of 256, N tiles of 128, M tiles of 32 rows; the N tile is the
// descriptor's batch_idx.
// CHECK: wsp.param %{{.*}}["batch_idx"]
// CHECK: %[[BLK:.*]] = tile.block_idx
// CHECK: %[[SB:.*]] = tile.subblock_id
// CHECK: %[[NSB:.*]] = tile.subblock_num
// CHECK: scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %c32
// The epilogue is split by rows over the block's vector cores: this one
// takes VROWS rows from VR0 of the M tile, token VM on.
// CHECK: %[[VROWS:.*]] = arith.ceildivui %{{.*}}, %[[NSB]] : index
// CHECK: %[[VAT:.*]] = arith.muli %[[SB]], %[[VROWS]] : index
// CHECK: %[[VR0:.*]] = arith.minui %[[VAT]], %{{.*}} : index
// CHECK: %[[VM:.*]] = arith.addi %[[M]], %[[VR0]] : index
// CHECK: scf.for %[[K:.*]] = %c0 to %c512 step %c256
// CHECK: tile.load %{{.*}}, %[[A]][%[[M]], %[[K]]] : !tile.tile<mat, 32x256xi8, valid = ?x256>
// CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<left, 32x256xi8, valid = ?x256>
// transpose_b: the weight rows are N, read transposed into a zn tile.
// CHECK: tile.load %{{.*}}, %[[W]][%{{.*}}, %[[K]]] transpose : !tile.tile<mat, 256x128xi8, zn>
// CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<right, 256x128xi8>
// CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<acc, 32x128xi32, valid = ?x128>
// CHECK: tile.matmul_acc
// CHECK: tile.store %[[SLOTS]][%[[BLK]], %c0, %c0], %{{.*}} : memref<24x32x128xi32>, !tile.tile<acc, 32x128xi32, valid = ?x128>
// CHECK: tile.alloc valid(%[[VROWS]]) : !tile.tile<vec, 32x128xf32, valid = ?x128>
// CHECK: tile.load %{{.*}}, %[[SLOTS]][%[[BLK]], %[[VR0]], %c0] : !tile.tile<vec, 32x128xi32, valid = ?x128>
// CHECK: tile.cvt
// CHECK: tile.load %{{.*}}, %[[PTS]][%[[VM]]] transpose
// CHECK: tile.rowexpandmul
// CHECK: tile.load %{{.*}}, %[[WS]][
// CHECK: tile.colexpandmul
// CHECK: tile.store %[[Y]][%[[VM]], %{{.*}}]

// The function's new argument is named for the op.
// CHECK-LABEL: func.func @proj(
// CHECK-SAME: %{{.*}}: memref<24x32x128xi32> {llm.workspace = "proj_quant_matmul_0"}) -> i32
// CHECK: wsp.plan_chunk_size %{{.*}}[%{{.*}}] heads(%c2{{.*}})
// CHECK: arith.ceildivui %{{.*}}, %c32
// CHECK: wsp.generate
// CHECK: wsp.dispatch @proj_quant_matmul_0({{.*}}) descriptors({{.*}}) on mix(24)
func.func @proj(%a: memref<?x512xi8>, %pts: memref<?xf32>, %w: memref<256x512xi8>,
                %ws: memref<256xf32>, %y: memref<?x256xbf16>) {
  llm.quant_matmul hidden_states(%a : memref<?x512xi8>)
      per_token_scale(%pts : memref<?xf32>) weight(%w : memref<256x512xi8>)
      weight_scale(%ws : memref<256xf32>) -> y(%y : memref<?x256xbf16>)
      {transpose_b = true}
  return
}

// transpose_a: hidden_states is [hidden_size, num_tokens]; the planner
// counts the tokens in its columns and checks its rows, and the M tile of
// token rows is read transposed into a zn tile.
// CHECK-LABEL: wsp.kernel @proj_t_quant_matmul_0
// CHECK-SAME: %[[A:[^:]*]]: memref<?x?xi8>
// CHECK: scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK: scf.for %[[K:.*]] = %c0 to %c512 step %c256
// CHECK: tile.load %{{.*}}, %[[A]][%[[K]], %[[M]]] transpose : !tile.tile<mat, 32x256xi8, valid = ?x256, zn>
// CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<left, 32x256xi8, valid = ?x256>, !tile.tile<mat, 32x256xi8, valid = ?x256, zn>
// CHECK: tile.load %{{.*}}, %{{.*}}[%[[K]], %{{.*}}] : !tile.tile<mat, 256x128xi8>, memref<512x256xi8>
// CHECK-LABEL: func.func @proj_t(
// CHECK-SAME: %[[TA:[^:]*]]: memref<?x?xi8>
// CHECK: %[[TOKENS:.*]] = memref.dim %[[TA]], %c1 : memref<?x?xi8>
// CHECK: %[[KSIZE:.*]] = memref.dim %[[TA]], %c0 : memref<?x?xi8>
// CHECK: arith.cmpi eq, %[[KSIZE]], %c512
// CHECK: wsp.generate
func.func @proj_t(%a: memref<?x?xi8>, %pts: memref<?xf32>, %w: memref<512x256xi8>,
                  %ws: memref<256xf32>, %y: memref<?x256xbf16>) {
  llm.quant_matmul hidden_states(%a : memref<?x?xi8>)
      per_token_scale(%pts : memref<?xf32>) weight(%w : memref<512x256xi8>)
      weight_scale(%ws : memref<256xf32>) -> y(%y : memref<?x256xbf16>)
      {transpose_a = true}
  return
}

// N a multiple of 16, not of 32 (issue 44): an untransposed int8 weight is
// an nz mat tile of 16x32 boxes, so the N tile of 48 is held in the cube's
// tiles padded to 64 columns, its first 48 valid; the workspace and the
// vector epilogue keep 48.
// CHECK-LABEL: wsp.kernel @proj_n48_quant_matmul_0
// CHECK-SAME: memref<24x32x48xi32>
// CHECK: tile.alloc valid(%{{.*}}) : !tile.tile<acc, 32x64xi32, valid = ?x48>
// CHECK: tile.load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] transpose : !tile.tile<mat, 32x256xi8, valid = ?x256, zn>
// CHECK: tile.load %{{.*}}, %{{.*}} : !tile.tile<mat, 256x64xi8, valid = 256x48>, memref<256x48xi8>
// CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<right, 256x64xi8, valid = 256x48>, !tile.tile<mat, 256x64xi8, valid = 256x48>
// CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<acc, 32x64xi32, valid = ?x48>, !tile.tile<left, 32x256xi8, valid = ?x256>, !tile.tile<right, 256x64xi8, valid = 256x48>
// CHECK: tile.store %{{.*}}[%{{.*}}, %c0, %c0], %{{.*}} : memref<24x32x48xi32>, !tile.tile<acc, 32x64xi32, valid = ?x48>
// CHECK: tile.load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %c0] : !tile.tile<vec, 32x48xi32, valid = ?x48>
func.func @proj_n48(%a: memref<?x?xi8>, %pts: memref<?xf32>, %w: memref<256x48xi8>,
                    %ws: memref<48xf32>, %y: memref<?x48xbf16>) {
  llm.quant_matmul hidden_states(%a : memref<?x?xi8>)
      per_token_scale(%pts : memref<?xf32>) weight(%w : memref<256x48xi8>)
      weight_scale(%ws : memref<48xf32>) -> y(%y : memref<?x48xbf16>)
      {transpose_a = true}
  return
}

// Transposed (zn, 32x16 boxes) the same weight needs no padding.
// CHECK-LABEL: wsp.kernel @proj_n48_tb_quant_matmul_0
// CHECK: tile.load %{{.*}}, %{{.*}} transpose : !tile.tile<mat, 256x48xi8, zn>, memref<48x256xi8>
// CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<right, 256x48xi8>, !tile.tile<mat, 256x48xi8, zn>
func.func @proj_n48_tb(%a: memref<?x256xi8>, %pts: memref<?xf32>, %w: memref<48x256xi8>,
                       %ws: memref<48xf32>, %y: memref<?x48xbf16>) {
  llm.quant_matmul hidden_states(%a : memref<?x256xi8>)
      per_token_scale(%pts : memref<?xf32>) weight(%w : memref<48x256xi8>)
      weight_scale(%ws : memref<48xf32>) -> y(%y : memref<?x48xbf16>)
      {transpose_b = true}
  return
}
