// convert-llm-to-wsp on moe_quant_group_gemm: the planner checks the
// experts' token counts and plans one unit per (expert, chunk of its rows,
// N tile) from the counts themselves (no expert padded to a block; an
// expert without tokens gets no unit); two tiers by the expert's count,
// whose kernels multiply M tiles of 16 and 128 rows; the kernel finds the
// expert's first row from the counts before it and reads the expert's
// weight and scale (its K x N panel kept in L1 across the unit's M tiles).
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s
// RUN: wsp-opt %s --wsp-pipeline | FileCheck %s --check-prefix=TIERS

// CHECK: wsp.tier_config @up_moe_quant_group_gemm_0_tiers [#wsp.tier<0, [1, 16]>, #wsp.tier<1, [17, 2147483647]>]
// CHECK-LABEL: wsp.kernel @up_moe_quant_group_gemm_0
// CHECK-SAME: constants {M_TILE = array<i64: 16, 128>}
// CHECK-SAME: %[[A:[^:]*]]: memref<?x256xi8>, %[[PTS:[^:]*]]: memref<?xf32>, %[[W:[^:]*]]: memref<4x256x256xi8>, %[[WS:[^:]*]]: memref<4x256xf32>, %[[COUNTS:[^:]*]]: memref<4xi32>, %[[Y:[^:]*]]: memref<?x256xbf16>, %[[SLOTS:[^:]*]]: memref<24x128x64xi32>)
// CHECK: %[[M_TILE:.*]] = wsp.tier_constant "M_TILE"
// CHECK: %[[SEG:.*]] = wsp.param %{{.*}}["expert_idx"]
// CHECK: %[[E:.*]] = arith.subi %[[SEG]], %c0
// CHECK: %[[BASE:.*]] = scf.if
// CHECK: scf.for %[[I:.*]] = %c0{{.*}} to %[[E]]
// CHECK: memref.load %[[COUNTS]][%[[I]]]
// CHECK: %[[LOCAL:.*]] = wsp.param %{{.*}}["token_start"]
// CHECK: %[[START:.*]] = arith.addi %[[BASE]], %[[LOCAL]]
// CHECK: tile.load %{{.*}}, %[[WS]][%[[E]], %{{.*}}] : !tile.tile<vec, 1x64xf32>
// CHECK: tile.load %{{.*}}, %[[W]][%[[E]], %c0, %{{.*}}] : !tile.tile<mat, 256x64xi8>, memref<4x256x256xi8>
// CHECK: scf.for %[[M:.*]] = %[[START]] to %{{.*}} step %[[M_TILE]]
// CHECK: tile.alloc shape(%[[M_TILE]]) valid(%{{.*}}) slot(%{{.*}}) buffers(2) : !tile.tile<acc, ?x64xi32, valid = ?x64>
// CHECK: tile.load %{{.*}}, %[[A]][%[[M]], %{{.*}}] : !tile.tile<mat, ?x256xi8, valid = ?x256>
// CHECK: tile.extract
// CHECK: tile.load %{{.*}}, %[[W]][%[[E]], %{{.*}}, %{{.*}}] : !tile.tile<mat, 256x64xi8>, memref<4x256x256xi8>
// CHECK: tile.matmul
// CHECK: tile.store %[[SLOTS]]
// The epilogue: this vector core's rows, token VM on.
// CHECK: tile.load %{{.*}}, %[[PTS]][%[[VM:.*]]] transpose
// CHECK: tile.store %[[Y]][%[[VM]], %{{.*}}]

// CHECK-LABEL: func.func @up(
// CHECK-SAME: {llm.workspace = "up_moe_quant_group_gemm_0"}) -> i32
// The counts: negative is INVALID_PARAMS (3), more rows than allocated is
// BUFFER_OVERFLOW (1).
// CHECK: scf.for {{.*}} -> (index, i1)
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi ule, %{{.*}}, %{{.*}} : index
// CHECK: wsp.plan_chunk_size %{{.*}}[%c4] heads(%c4
// CHECK: wsp.generate %{{.*}}[%c4] heads(%c4{{.*}}) chunk(%{{.*}}) tiers(@up_moe_quant_group_gemm_0_tiers)
// CHECK: wsp.dispatch @up_moe_quant_group_gemm_0({{.*}}) descriptors({{.*}}) on mix(24)

// After tier specialization each tier's tiles have its M tile.
// TIERS-LABEL: wsp.kernel @up_moe_quant_group_gemm_0_tier0
// TIERS: !tile.tile<acc, 16x64xi32, valid = ?x64>
// TIERS-LABEL: wsp.kernel @up_moe_quant_group_gemm_0_tier1
// TIERS: !tile.tile<acc, 128x64xi32, valid = ?x64>
func.func @up(%x: memref<?x256xi8>, %s: memref<?xf32>, %w: memref<4x256x256xi8>,
              %ws: memref<4x256xf32>, %c: memref<4xi32>, %y: memref<?x256xbf16>) {
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x256xi8>)
      per_token_scale(%s : memref<?xf32>)
      experts_weight(%w : memref<4x256x256xi8>)
      experts_scale(%ws : memref<4x256xf32>)
      experts_token_count(%c : memref<4xi32>) -> y(%y : memref<?x256xbf16>)
  return
}

// N = 96 (issue 44): N tiles of 48 (the largest multiple of 16 up to 64
// dividing 96), held in the cube's int8 tiles padded to 64 columns (nz
// boxes are 32 wide), their first 48 valid.
// CHECK-LABEL: wsp.kernel @up96_moe_quant_group_gemm_0
// CHECK-SAME: memref<24x128x48xi32>
// CHECK: tile.alloc shape(%{{.*}}) valid(%{{.*}}) slot(%{{.*}}) buffers(2) : !tile.tile<acc, ?x64xi32, valid = ?x48>
// CHECK: tile.load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : !tile.tile<mat, 256x64xi8, valid = 256x48>, memref<2x256x96xi8>
// CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<right, 256x64xi8, valid = 256x48>, !tile.tile<mat, 256x64xi8, valid = 256x48>
// TIERS-LABEL: wsp.kernel @up96_moe_quant_group_gemm_0_tier1
// TIERS: !tile.tile<acc, 128x64xi32, valid = ?x48>
func.func @up96(%x: memref<?x256xi8>, %s: memref<?xf32>, %w: memref<2x256x96xi8>,
                %ws: memref<2x96xf32>, %c: memref<2xi32>, %y: memref<?x96xbf16>) {
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x256xi8>)
      per_token_scale(%s : memref<?xf32>)
      experts_weight(%w : memref<2x256x96xi8>)
      experts_scale(%ws : memref<2x96xf32>)
      experts_token_count(%c : memref<2xi32>) -> y(%y : memref<?x96xbf16>)
  return
}

// n_tile = 128 (a prefill step's): units of 128 columns, two per chunk of
// an expert's rows here; the panel, the scales and the accumulator are
// 128 wide, and so is the workspace's slot.
// CHECK-LABEL: wsp.kernel @up_wide_moe_quant_group_gemm_0
// CHECK-SAME: %{{[^:]*}}: memref<24x128x128xi32>)
// CHECK: tile.load %{{.*}} : !tile.tile<vec, 1x128xf32>
// CHECK: tile.load %{{.*}} : !tile.tile<mat, 256x128xi8>, memref<4x256x256xi8>
// CHECK: !tile.tile<acc, ?x128xi32, valid = ?x128>
// CHECK-LABEL: func.func @up_wide(
// CHECK: wsp.generate %{{.*}}[%c4] heads(%c2{{.*}}) chunk(%{{.*}}) tiers(@up_wide_moe_quant_group_gemm_0_tiers)
// TIERS-LABEL: wsp.kernel @up_wide_moe_quant_group_gemm_0_tier1
// TIERS: !tile.tile<acc, 128x128xi32, valid = ?x128>
func.func @up_wide(%x: memref<?x256xi8>, %s: memref<?xf32>, %w: memref<4x256x256xi8>,
                   %ws: memref<4x256xf32>, %c: memref<4xi32>, %y: memref<?x256xbf16>) {
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x256xi8>)
      per_token_scale(%s : memref<?xf32>)
      experts_weight(%w : memref<4x256x256xi8>)
      experts_scale(%ws : memref<4x256xf32>)
      experts_token_count(%c : memref<4xi32>) -> y(%y : memref<?x256xbf16>)
      {n_tile = 128 : i32}
  return
}
