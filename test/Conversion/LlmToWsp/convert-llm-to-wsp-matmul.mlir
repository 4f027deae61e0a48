// convert-llm-to-wsp on quant_matmul: the function gains a workspace
// argument, the kernel multiplies on the cube and dequantizes on the
// vector cores through it (the GEMM recipe: Backend.md).
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.tier_config @proj_quant_matmul_0_tiers [#wsp.tier<0, [1, 32]>, #wsp.tier<1, [33, 2147483647]>]
// Two tiers by the token count: M tiles of 32 rows for a decode step's
// few, 128 for the others.
// CHECK-LABEL: wsp.kernel @proj_quant_matmul_0
// CHECK-SAME: constants {M_TILE = array<i64: 32, 128>}
// CHECK-SAME: %[[A:[^:]*]]: memref<?x512xi8>, %[[PTS:[^:]*]]: memref<?xf32>, %[[W:[^:]*]]: memref<256x512xi8>, %[[WS:[^:]*]]: memref<256xf32>, %[[Y:[^:]*]]: memref<?x256xbf16>, %[[SLOTS:[^:]*]]: memref<24x128x128xi32>)
// CHECK: %[[M_TILE:.*]] = wsp.tier_constant "M_TILE" : index
// CHECK: wsp.param %{{.*}}["batch_idx"]
// CHECK: %[[COUNT:.*]] = wsp.param %{{.*}}["token_count"]
// CHECK: %[[BLK:.*]] = tile.block_idx
// CHECK: %[[SB:.*]] = tile.subblock_id
// CHECK: %[[NSB:.*]] = tile.subblock_num
// The unit's K x N panel of weights in L1, loaded once when the unit has
// more than one M tile.
// CHECK: %[[PANEL:.*]] = tile.alloc : !tile.tile<mat, 512x128xi8, zn>
// CHECK: %[[MULTI:.*]] = arith.cmpi ugt, %[[COUNT]], %[[M_TILE]] : index
// CHECK: scf.if %[[MULTI]] {
// CHECK-NEXT: tile.load %[[PANEL]], %[[W]][%{{.*}}, %c0] transpose : !tile.tile<mat, 512x128xi8, zn>, memref<256x512xi8>
// CHECK: scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %[[M_TILE]]
// CHECK: %[[M_SLOT:.*]] = arith.divui %{{.*}}, %[[M_TILE]] : index
// The vector cores' share of the rows: this one's first row and count.
// CHECK: %[[VN:.*]] = arith.ceildivui %{{.*}}, %[[NSB]] : index
// CHECK: %[[VAT:.*]] = arith.muli %[[SB]], %[[VN]] : index
// CHECK: %[[VR:.*]] = arith.minui %[[VAT]], %{{.*}} : index
// Double buffers: the accumulator by M tile, A's and B's tiles by K step.
// CHECK: %[[ACC:.*]] = tile.alloc shape(%[[M_TILE]]) valid(%{{.*}}) slot(%[[M_SLOT]]) buffers(2) : !tile.tile<acc, ?x128xi32, valid = ?x128>
// CHECK: scf.for %[[K:.*]] = %c0 to %c512 step %c256
// CHECK: %[[K_SLOT:.*]] = arith.divui %[[K]], %c256 : index
// CHECK: tile.alloc shape(%[[M_TILE]]) valid(%{{.*}}) slot(%[[K_SLOT]]) buffers(2) : !tile.tile<mat, ?x256xi8, valid = ?x256>
// CHECK: tile.load %{{.*}}, %[[A]][%[[M]], %[[K]]] : !tile.tile<mat, ?x256xi8, valid = ?x256>
// CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<left, ?x256xi8, valid = ?x256>
// CHECK: %[[B:.*]] = tile.alloc slot(%[[K_SLOT]]) buffers(2) : !tile.tile<right, 256x128xi8>
// CHECK: scf.if %[[MULTI]] {
// CHECK-NEXT: tile.extract %[[B]], %[[PANEL]][%[[K]], %c0] : !tile.tile<right, 256x128xi8>, !tile.tile<mat, 512x128xi8, zn>
// CHECK: } else {
// CHECK: tile.load %{{.*}}, %[[W]][%{{.*}}, %[[K]]] transpose : !tile.tile<mat, 256x128xi8, zn>
// CHECK: tile.mov %[[B]], %{{.*}} : !tile.tile<right, 256x128xi8>
// CHECK: tile.matmul %[[ACC]], %{{.*}}, %[[B]] : !tile.tile<acc, ?x128xi32, valid = ?x128>
// CHECK: tile.matmul_acc
// CHECK: tile.store %[[SLOTS]][%[[BLK]], %c0, %c0], %[[ACC]] : memref<24x128x128xi32>, !tile.tile<acc, ?x128xi32, valid = ?x128>
// The epilogue in chunks of 64 rows (its tiles' 8192 elements).
// CHECK: %[[VEND:.*]] = arith.addi %[[VR]], %[[VN]] : index
// CHECK: scf.for %[[VR0:.*]] = %[[VR]] to %[[VEND]] step %c64
// CHECK: %[[VM:.*]] = arith.addi %[[M]], %[[VR0]] : index
// CHECK: tile.alloc valid(%{{.*}}) : !tile.tile<vec, 64x128xf32, valid = ?x128>
// CHECK: tile.load %{{.*}}, %[[SLOTS]][%[[BLK]], %[[VR0]], %c0] : !tile.tile<vec, 64x128xi32, valid = ?x128>
// CHECK: tile.cvt
// CHECK: tile.load %{{.*}}, %[[PTS]][%[[VM]]] transpose
// CHECK: tile.rowexpandmul
// CHECK: tile.load %{{.*}}, %[[WS]][
// CHECK: tile.colexpandmul
// CHECK: tile.store %[[Y]][%[[VM]], %{{.*}}]

// The function's new argument is named for the op.
// CHECK-LABEL: func.func @proj(
// CHECK-SAME: %{{.*}}: memref<24x128x128xi32> {llm.workspace = "proj_quant_matmul_0"}) -> i32
// CHECK: wsp.plan_chunk_size %{{.*}}[%{{.*}}] heads(%c2{{.*}})
// CHECK: arith.ceildivui %{{.*}}, %c128
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
// CHECK: tile.load %{{.*}}, %{{.*}}[%c0, %{{.*}}] : !tile.tile<mat, 512x128xi8>, memref<512x256xi8>
// CHECK: scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %{{.*}}
// CHECK: scf.for %[[K:.*]] = %c0 to %c512 step %c256
// CHECK: tile.load %{{.*}}, %[[A]][%[[K]], %[[M]]] transpose : !tile.tile<mat, ?x256xi8, valid = ?x256, zn>
// CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<left, ?x256xi8, valid = ?x256>, !tile.tile<mat, ?x256xi8, valid = ?x256, zn>
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
// CHECK-SAME: memref<24x128x48xi32>
// CHECK: tile.load %{{.*}}, %{{.*}} : !tile.tile<mat, 256x64xi8, valid = 256x48>, memref<256x48xi8>
// CHECK: tile.alloc shape(%{{.*}}) valid(%{{.*}}) slot(%{{.*}}) buffers(2) : !tile.tile<acc, ?x64xi32, valid = ?x48>
// CHECK: tile.load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] transpose : !tile.tile<mat, ?x256xi8, valid = ?x256, zn>
// CHECK: tile.extract %{{.*}}, %{{.*}}[%{{.*}}, %c0] : !tile.tile<right, 256x64xi8, valid = 256x48>, !tile.tile<mat, 256x64xi8, valid = 256x48>
// CHECK: tile.load %{{.*}}, %{{.*}} : !tile.tile<mat, 256x64xi8, valid = 256x48>, memref<256x48xi8>
// CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<right, 256x64xi8, valid = 256x48>, !tile.tile<mat, 256x64xi8, valid = 256x48>
// CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<acc, ?x64xi32, valid = ?x48>, !tile.tile<left, ?x256xi8, valid = ?x256>, !tile.tile<right, 256x64xi8, valid = 256x48>
// CHECK: tile.store %{{.*}}[%{{.*}}, %c0, %c0], %{{.*}} : memref<24x128x48xi32>, !tile.tile<acc, ?x64xi32, valid = ?x48>
// CHECK: tile.load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %c0] : !tile.tile<vec, 128x48xi32, valid = ?x48>
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
// CHECK: tile.extract %{{.*}}, %{{.*}}[%{{.*}}, %c0] : !tile.tile<right, 256x48xi8>, !tile.tile<mat, 256x48xi8, zn>
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

// A bf16 gating GEMM over Mixtral's 8 experts: the N tile of 8 padded to
// 16 columns on the cube (L1, L0B, L0C) and in the epilogue's rows, the 8
// valid; the workspace holds the 8.
// CHECK-LABEL: wsp.kernel @gate8_moe_gating_gemm_0
// CHECK-SAME: memref<24x128x8xf32>
// CHECK: tile.load %{{.*}}, %{{.*}} : !tile.tile<mat, 128x16xbf16, valid = 128x8>, memref<256x8xbf16>
// CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<acc, ?x16xf32, valid = ?x8>, !tile.tile<left, ?x128xbf16, valid = ?x128>, !tile.tile<right, 128x16xbf16, valid = 128x8>
// CHECK: tile.store %{{.*}}, %{{.*}} : memref<24x128x8xf32>, !tile.tile<acc, ?x16xf32, valid = ?x8>
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 128x16xbf16, valid = ?x8>, !tile.tile<vec, 128x16xf32, valid = ?x8>
// CHECK: tile.store %{{.*}}, %{{.*}} : memref<?x8xbf16>, !tile.tile<vec, 128x16xbf16, valid = ?x8>
func.func @gate8(%x: memref<?x256xbf16>, %w: memref<256x8xbf16>, %y: memref<?x8xbf16>) {
  llm.moe_gating_gemm hidden_states(%x : memref<?x256xbf16>) weight(%w : memref<256x8xbf16>)
      -> y(%y : memref<?x8xbf16>)
  return
}
