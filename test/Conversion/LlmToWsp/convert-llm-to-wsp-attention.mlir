// convert-llm-to-wsp on the attention ops. Decode: descriptors per
// (request, KV head, KV chunk) of the lengths kv_lens + q_seq_len, the
// chunks of a row in order on one block, which carries the softmax state
// in its slot of the workspaces. Prefill: descriptors per (sequence, KV
// head, query tokens of one 32-row tile), each over its whole causal KV
// range, a grid.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.kernel @dec_flash_attention_decode_0
// CHECK-SAME: constants {TILE_K = array<i64: 64, 128, 128, 128>}
// CHECK-SAME: (%{{.*}}: !wsp.descriptor<attention>, %[[KV_LENS:[^:]*]]: memref<?xi32>, %[[Q:[^:]*]]: memref<?x1x8x128xbf16>, {{.*}}, %[[WS_H:[^:]*]]: memref<24x2x32x128xbf16>, %[[WS_F:[^:]*]]: memref<24x3x32x128xf32>, %[[WS_ML:[^:]*]]: memref<24x2x32xf32>)
// CHECK: wsp.param %{{.*}}["request_idx"]
// CHECK: %[[INIT:.*]] = wsp.has_flag %{{.*}}, init
// CHECK: %[[LAST:.*]] = wsp.has_flag %{{.*}}, last
// The cached tokens precede the step's: prior = kv_lens[req].
// CHECK: memref.load %[[KV_LENS]][
// The vector work is split by rows over the block's vector cores: this one
// takes ceil(rows / cores) rows from VR0.
// CHECK: %[[SB:.*]] = tile.subblock_id : index
// CHECK: %[[NSB:.*]] = tile.subblock_num : index
// CHECK: %[[VROWS:.*]] = arith.ceildivui %{{.*}}, %[[NSB]] : index
// CHECK: %[[VAT:.*]] = arith.muli %[[SB]], %[[VROWS]] : index
// CHECK: %[[VR0:.*]] = arith.minui %[[VAT]], %{{.*}} : index
// 1 token x 4 heads of a group: rows = 4; each vector core packs its rows of
// Q (those of the token's group it holds) through the workspace.
// CHECK: %[[HAS:.*]] = arith.cmpi ult
// CHECK: scf.if %[[HAS]] {
// CHECK: tile.load %{{.*}}, %[[Q]][
// CHECK: tile.store %[[WS_H]][%[[BLK:[^,]*]], %c0, %{{.*}}, %c0]
// CHECK: scf.if %[[INIT]] {
// CHECK: tile.expands
// CHECK: } else {
// CHECK: tile.load %{{.*}}, %[[WS_F]][%[[BLK]], %c2, %[[VR0]], %c0] : !tile.tile<vec, 32x128xf32, valid = ?x?>
// CHECK: tile.load %{{.*}}, %[[WS_ML]][%[[BLK]], %c0, %[[VR0]]] transpose
// CHECK: wsp.mask_range standard
// The KV loop, software-pipelined: iteration j runs the softmax of tile
// j - 1, S of tile j (K in two L1 copies), o += alpha O_t of tile j - 2 and
// P V of tile j - 1 (V and P in two L1 copies).
// CHECK: %[[STEPS:.*]] = arith.addi %{{.*}}, %c2 : index
// CHECK: scf.for %[[J:.*]] = %c0 to %[[STEPS]] step %c1 {
// CHECK: tile.alloc shape(%{{.*}}) valid(%[[VROWS]], %{{.*}}) : !tile.tile<vec, 32x?xf32, valid = ?x?>
// CHECK: tile.load %{{.*}}, %[[WS_F]][%[[BLK]], %c0, %[[VR0]], %c0]
// CHECK: tile.rowmax
// CHECK: tile.rowexpandmul
// CHECK: } else {
// CHECK-NEXT: tile.expands
// CHECK: tile.alloc shape(%{{.*}}) valid(%{{.*}}) slot(%[[J]]) buffers(2) : !tile.tile<mat, 128x?xbf16, valid = ?x?, zn>
// CHECK-NEXT: tile.load_paged %{{.*}} transpose : !tile.tile<mat, 128x?xbf16, valid = ?x?, zn>
// CHECK: tile.matmul %{{.*}} : !tile.tile<acc, 32x?xf32, valid = ?x?>, !tile.tile<left, 32x128xbf16, valid = ?x?>
// CHECK: tile.load %{{.*}}, %[[WS_F]][%[[BLK]], %c1, %[[VR0]], %c0]
// CHECK: tile.alloc shape(%{{.*}}) valid(%{{.*}}) slot(%[[J]]) buffers(2) : !tile.tile<mat, 32x?xbf16, valid = ?x?>
// CHECK: tile.alloc shape(%{{.*}}) valid(%{{.*}}) slot(%[[J]]) buffers(2) : !tile.tile<mat, ?x128xbf16, valid = ?x?>
// CHECK: tile.matmul_acc
// CHECK: scf.if %[[LAST]] {
// CHECK: tile.rowexpanddiv
// CHECK: } else {
// CHECK: tile.store %[[WS_F]][%[[BLK]], %c2, %[[VR0]], %c0]

// The function gains the three workspaces, named for the op and the part.
// CHECK-LABEL: func.func @dec(
// CHECK-SAME: memref<24x2x32x128xbf16> {llm.workspace = "dec_flash_attention_decode_0.ws_h"}
// CHECK-SAME: memref<24x3x32x128xf32> {llm.workspace = "dec_flash_attention_decode_0.ws_f"}
// CHECK-SAME: memref<24x2x32xf32> {llm.workspace = "dec_flash_attention_decode_0.ws_ml"}) -> i32
// CHECK: %[[LENS:.*]] = memref.alloca() : memref<1024xi32>
// CHECK: memref.store %{{.*}}, %[[LENS]][
// CHECK: wsp.plan_chunk_size %[[LENS]][%{{.*}}] heads(%c2{{.*}}) config(#wsp.plan_config<max_work_units = 4096>)
// CHECK: wsp.generate %[[LENS]]
// CHECK: wsp.dispatch @dec_flash_attention_decode_0({{.*}}) descriptors({{.*}}) on mix(24) row_affine
func.func @dec(%q: memref<?x1x8x128xbf16>, %kv_ids: memref<?xi32>,
               %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
               %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
               %k_cache: memref<?x2x16x128xbf16>, %v_cache: memref<?x2x16x128xbf16>,
               %out: memref<?x1x8x128xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x128xbf16>) v_cache(%v_cache : memref<?x2x16x128xbf16>)
      -> out(%out : memref<?x1x8x128xbf16>) {q_seq_len = 1 : i32}
  return
}

// Prefill on Q heads 0..7 of a packed QKV of 12 heads: the kernel reads
// the QKV buffer itself.
// CHECK-LABEL: wsp.kernel @pre_flash_attention_prefill_0
// CHECK-SAME: constants {TILE_K = array<i64: 128>}
// CHECK-SAME: (%{{.*}}: !wsp.descriptor<moe>, %[[Q_LENS:[^:]*]]: memref<?xi32>, %[[QKV:[^:]*]]: memref<?x12x64xbf16>,
// CHECK-SAME: memref<24x2x32x128xbf16>, %{{.*}}: memref<24x2x32x128xf32>)
// CHECK: wsp.param %{{.*}}["expert_idx"]
// CHECK: wsp.param %{{.*}}["batch_idx"]
// Without accum_q_len a sequence starts at the sum of the q_lens before it.
// CHECK: scf.for
// CHECK: memref.load %[[Q_LENS]][
// CHECK: tile.load %{{.*}}, %[[QKV]][
// CHECK-NOT: scf.if %{{.*}} {
// CHECK: wsp.mask_range standard
// CHECK: tile.rowexpanddiv

// GQA 4: 8 tokens of 4 heads fill the 32 rows of a unit.
// CHECK-LABEL: func.func @pre(
// CHECK: wsp.generate %{{.*}}[%{{.*}}] heads(%c2{{.*}}) chunk(%c8{{.*}})
// CHECK: wsp.dispatch @pre_flash_attention_prefill_0({{.*}}) descriptors({{.*}}) on mix(24)
// CHECK-NOT: row_affine
func.func @pre(%qkv: memref<?x12x64xbf16>, %kv_ids: memref<?xi32>,
               %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
               %block_table: memref<?x?xi32>,
               %k_cache: memref<?x2x16x64xbf16>, %v_cache: memref<?x2x16x64xbf16>,
               %out: memref<?x8x64xbf16>) {
  %c0 = arith.constant 0 : index
  %tokens = memref.dim %qkv, %c0 : memref<?x12x64xbf16>
  %q = memref.subview %qkv[0, 0, 0] [%tokens, 8, 64] [1, 1, 1]
      : memref<?x12x64xbf16> to memref<?x8x64xbf16, strided<[768, 64, 1]>>
  llm.flash_attention_prefill q(%q : memref<?x8x64xbf16, strided<[768, 64, 1]>>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x8x64xbf16>) {max_q_len = 128 : i32}
  return
}

// An int8 cache: Q in f32 scaled by k_scale, the pages dequantized into
// f32 K and bf16 V in the block's workspaces, KV tiles of 32 and 64, and
// v_scale applied at the end of a row.
// CHECK-LABEL: wsp.kernel @dec8_flash_attention_decode_0
// CHECK-SAME: constants {TILE_K = array<i64: 32, 64, 64, 64>}
// CHECK-SAME: %[[KS:[^:]*]]: memref<2x128xf32>, %[[VS:[^:]*]]: memref<2x128xf32>, %{{.*}}: memref<?x1x8x128xbf16>, %{{.*}}: memref<24x1x32x128xbf16>, %{{.*}}: memref<24x3x32x128xf32>, %{{.*}}: memref<24x2x32xf32>, %[[WQ:[^:]*]]: memref<24x32x128xf32>, %[[WK:[^:]*]]: memref<24x64x128xf32>, %[[WV:[^:]*]]: memref<24x64x128xbf16>)
// CHECK: tile.load %{{.*}}, %[[KS]][
// CHECK: tile.colexpandmul
// CHECK: tile.store %[[WQ]][
// Stage B turns K's pages into f32, stage D V's into bf16, both through
// one scratch as wide as the widest int8 KV tile.
// CHECK: tile.alloc valid(%{{.*}}) : !tile.tile<vec, 64x128xi8, valid = ?x?>
// CHECK: scf.for
// CHECK: tile.load_paged %{{.*}} : !tile.tile<vec, 64x128xi8, valid = ?x?>
// CHECK: tile.store %[[WK]][
// CHECK: tile.load %{{.*}}, %[[WK]][{{.*}}] transpose : !tile.tile<mat, 128x?xf32, valid = ?x?, zn>
// CHECK: tile.matmul %{{.*}} : !tile.tile<acc, 32x?xf32, valid = ?x?>, !tile.tile<left, 32x128xf32, valid = ?x?>
// CHECK: tile.load_paged %{{.*}} : !tile.tile<vec, 64x128xi8, valid = ?x?>
// CHECK: tile.store %[[WV]][
// CHECK: tile.load %{{.*}}, %[[WV]][
// CHECK: scf.if
// CHECK: tile.load %{{.*}}, %[[VS]][
// CHECK: tile.colexpandmul
// CHECK: tile.rowexpanddiv
// CHECK-LABEL: func.func @dec8(
// CHECK-SAME: {llm.workspace = "dec8_flash_attention_decode_0.ws_v"}) -> i32
func.func @dec8(%q: memref<?x1x8x128xbf16>, %kv_ids: memref<?xi32>,
                %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                %k_cache: memref<?x2x16x128xi8>, %v_cache: memref<?x2x16x128xi8>,
                %k_scale: memref<2x128xf32>, %v_scale: memref<2x128xf32>,
                %out: memref<?x1x8x128xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x128xi8>) v_cache(%v_cache : memref<?x2x16x128xi8>)
      k_scale(%k_scale : memref<2x128xf32>) v_scale(%v_scale : memref<2x128xf32>)
      -> out(%out : memref<?x1x8x128xbf16>) {q_seq_len = 1 : i32}
  return
}

// Decode with plan_kv_lens (a KV-sharded rank's attention): the chunk is
// planned for those lengths (each + q_seq_len, checked, in a buffer of
// 4096), the rank's own descriptors generated with it; an empty batch
// plans nothing and returns 0.
// CHECK-LABEL: func.func @dec_planned_for(
// CHECK: %[[LENS:.*]] = memref.alloca() : memref<1024xi32>
// CHECK: %[[PLAN_LENS:.*]] = memref.alloca() : memref<4096xi32>
// CHECK: %[[NONE:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK: scf.if %[[NONE]] -> (i32) {
// CHECK: scf.yield %c0_i32
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// CHECK: memref.load %arg9[
// CHECK: memref.store %{{.*}}, %[[PLAN_LENS]][
// CHECK: %[[CHUNK:.*]] = wsp.plan_chunk_size %[[PLAN_LENS]][%{{.*}}] heads(%c2{{.*}}) config(#wsp.plan_config<max_work_units = 4096>) : memref<4096xi32>
// CHECK: wsp.generate %[[LENS]][%{{.*}}] heads(%c2{{.*}}) chunk(%[[CHUNK]])
func.func @dec_planned_for(%q: memref<?x1x8x128xbf16>, %kv_ids: memref<?xi32>,
               %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
               %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
               %k_cache: memref<?x2x16x128xbf16>, %v_cache: memref<?x2x16x128xbf16>,
               %out: memref<?x1x8x128xbf16>, %batch_kv_lens: memref<?xi32>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x128xbf16>) v_cache(%v_cache : memref<?x2x16x128xbf16>)
      -> out(%out : memref<?x1x8x128xbf16>) plan_kv_lens(%batch_kv_lens : memref<?xi32>)
      {q_seq_len = 1 : i32}
  return
}

// A sliding window: each row's range from seed 001's sliding mask (the
// kernel masks and skips tiles as for the causal one), and only the chunks
// the windows reach planned and generated (the lengths' last q_seq_len
// positions are the queries).
// CHECK-LABEL: wsp.kernel @win_flash_attention_decode_0
// CHECK: wsp.mask_range sliding window(4096) query
// CHECK-NOT: wsp.mask_range standard
// CHECK-LABEL: func.func @win(
// CHECK: wsp.plan_chunk_size %{{.*}} heads(%{{.*}}) window(4096) queries(%c2{{(_[0-9]+)?}})
// CHECK: wsp.generate %{{.*}} heads(%{{.*}}) window(4096) queries(%c2{{(_[0-9]+)?}}) chunk(
func.func @win(%q: memref<?x2x8x128xbf16>, %ids: memref<?xi32>, %kvlens: memref<?xi32>,
               %qlens: memref<?xi32>, %accum: memref<?xi32>, %bt: memref<?x?xi32>,
               %kc: memref<?x2x16x128xbf16>, %vc: memref<?x2x16x128xbf16>,
               %o: memref<?x2x8x128xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x8x128xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) accum_q_len(%accum : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>)
      k_cache(%kc : memref<?x2x16x128xbf16>) v_cache(%vc : memref<?x2x16x128xbf16>)
      -> out(%o : memref<?x2x8x128xbf16>) {q_seq_len = 2 : i32, sliding_window = 4096 : i32}
  return
}

// Prefill with a sliding window: each unit reads from its first token's
// window on (kv_start = max(0, prior + q_first + 1 - W)), and each row is
// masked to its own window, new tokens included (computed here, not by
// wsp.mask_range, whose sliding mask never hides a new token).
// CHECK-LABEL: wsp.kernel @pwin_flash_attention_prefill_0
// CHECK: %[[W:.*]] = arith.constant 48 : index
// CHECK: %[[FIRST_PAST:.*]] = arith.cmpi ugt, %{{.*}}, %[[W]] : index
// CHECK: %[[FIRST_LO:.*]] = arith.subi %{{.*}}, %[[W]] : index
// CHECK: arith.select %[[FIRST_PAST]], %[[FIRST_LO]], %c0
// CHECK-NOT: wsp.mask_range
// CHECK: tile.setval
// CHECK-LABEL: func.func @pwin(
func.func @pwin(%q: memref<?x8x64xbf16>, %ids: memref<?xi32>, %kvlens: memref<?xi32>,
                %qlens: memref<?xi32>, %bt: memref<?x?xi32>,
                %kc: memref<?x2x16x64xbf16>, %vc: memref<?x2x16x64xbf16>,
                %o: memref<?x8x64xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x8x64xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      k_cache(%kc : memref<?x2x16x64xbf16>) v_cache(%vc : memref<?x2x16x64xbf16>)
      -> out(%o : memref<?x8x64xbf16>) {max_q_len = 256 : i32, sliding_window = 48 : i32}
  return
}

// Decode with more rows than a tile holds (q_seq_len 3 x group 16 = 48):
// row tiles of whole query tokens (32 / 16 = 2 per tile, so 2 tiles: tokens
// 0-1 and token 2). Each (KV head, row tile) is a row of the plan: the
// planner sees kv_heads x 2 heads, and the kernel splits head_idx back
// into the KV head and the row tile, whose tokens are its q_first and
// q_count.
// CHECK-LABEL: wsp.kernel @rows48_flash_attention_decode_0
// CHECK: %[[UNIT_HEAD:.*]] = wsp.param %{{.*}}["head_idx"]
// CHECK: %[[TILES:.*]] = arith.constant 2 : index
// CHECK: %[[KV_HEAD:.*]] = arith.divui %[[UNIT_HEAD]], %[[TILES]] : index
// CHECK: %[[ROW_TILE:.*]] = arith.remui %[[UNIT_HEAD]], %[[TILES]] : index
// CHECK: %[[PER_TILE:.*]] = arith.constant 2 : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[ROW_TILE]], %[[PER_TILE]] : index
// CHECK: %[[TOKENS:.*]] = arith.constant 3 : index
// CHECK: %[[AFTER:.*]] = arith.subi %[[TOKENS]], %[[FIRST]] : index
// CHECK: %[[COUNT:.*]] = arith.minui %[[PER_TILE]], %[[AFTER]] : index
// CHECK: arith.muli %[[COUNT]], %{{.*}} : index
// CHECK: arith.muli %[[KV_HEAD]], %{{.*}} : index
// CHECK-LABEL: func.func @rows48(
// 2 KV heads x 2 row tiles:
// CHECK: %[[PLAN_HEADS:.*]] = arith.muli %c2{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}} : index
// CHECK: wsp.plan_chunk_size %{{.*}} heads(%[[PLAN_HEADS]])
// CHECK: wsp.generate %{{.*}} heads(%[[PLAN_HEADS]])
func.func @rows48(%q: memref<?x3x32x64xbf16>, %ids: memref<?xi32>, %kvlens: memref<?xi32>,
                  %qlens: memref<?xi32>, %accum: memref<?xi32>, %bt: memref<?x?xi32>,
                  %kc: memref<?x2x16x64xbf16>, %vc: memref<?x2x16x64xbf16>,
                  %o: memref<?x3x32x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x3x32x64xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) accum_q_len(%accum : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>)
      k_cache(%kc : memref<?x2x16x64xbf16>) v_cache(%vc : memref<?x2x16x64xbf16>)
      -> out(%o : memref<?x3x32x64xbf16>) {q_seq_len = 3 : i32}
  return
}

// head_dim 256: KV tiles of 64 positions in every tier (K^T and V of a
// tile fill L0B as tiles of 128 do at head_dim 128), and the workspaces'
// rows as wide as the head.
// CHECK-LABEL: wsp.kernel @d256_flash_attention_decode_0
// CHECK-SAME: constants {TILE_K = array<i64: 64, 64, 64, 64>}
// CHECK-SAME: memref<24x2x32x256xbf16>, %{{.*}}: memref<24x3x32x256xf32>, %{{.*}}: memref<24x2x32xf32>)
// CHECK: tile.matmul %{{.*}} : !tile.tile<acc, 32x?xf32, valid = ?x?>, !tile.tile<left, 32x256xbf16, valid = ?x?>, !tile.tile<right, 256x?xbf16, valid = ?x?>
func.func @d256(%q: memref<?x1x8x256xbf16>, %ids: memref<?xi32>, %kvlens: memref<?xi32>,
                %qlens: memref<?xi32>, %accum: memref<?xi32>, %bt: memref<?x?xi32>,
                %kc: memref<?x2x16x256xbf16>, %vc: memref<?x2x16x256xbf16>,
                %o: memref<?x1x8x256xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x256xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) accum_q_len(%accum : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>)
      k_cache(%kc : memref<?x2x16x256xbf16>) v_cache(%vc : memref<?x2x16x256xbf16>)
      -> out(%o : memref<?x1x8x256xbf16>) {q_seq_len = 1 : i32}
  return
}

// A sliding window over ring caches: the kernel reads position p at slot
// p mod the ring's length (the block-table row's pages x block_size); the
// planner needs the positions a request reads, min(kv_lens + q_seq_len,
// W + q_seq_len - 1), to fit the row, and checks its pages up to the
// ring's.
// CHECK-LABEL: wsp.kernel @dring_flash_attention_decode_0
// CHECK-SAME: %[[DTABLE:[^:]*]]: memref<?x?xi32>, %{{[^:]*}}: memref<?x2x16x64xbf16>
// CHECK: %[[RPAGES:.*]] = memref.dim %[[DTABLE]], %c1 : memref<?x?xi32>
// CHECK: %[[RLEN:.*]] = arith.muli %[[RPAGES]], %{{.*}} : index
// CHECK: %[[PRING:.*]] = arith.remui %{{.*}}, %[[RLEN]] : index
// CHECK: tile.load_paged %{{.*}}, %{{.*}}[%{{.*}}], %[[DTABLE]][%{{.*}}], %[[PRING]] transpose
// CHECK: %[[PRING2:.*]] = arith.remui %{{.*}}, %[[RLEN]] : index
// CHECK: tile.load_paged %{{.*}}, %{{.*}}[%{{.*}}], %[[DTABLE]][%{{.*}}], %[[PRING2]] :
// CHECK-LABEL: func.func @dring(
// CHECK: %[[NEED:.*]] = arith.constant 63 : i64
// CHECK: %[[SPAN:.*]] = arith.addi %{{.*}}, %[[NEED]] : i64
// CHECK: %[[RNEED:.*]] = arith.minsi %{{.*}}, %[[SPAN]] : i64
// CHECK: arith.cmpi sle, %[[RNEED]], %{{.*}} : i64
// CHECK: %[[RP:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK: scf.for %{{.*}} = %c0 to %[[RP]] step %c1
func.func @dring(%q: memref<?x1x8x64xbf16>, %ids: memref<?xi32>, %kvlens: memref<?xi32>,
                 %qlens: memref<?xi32>, %accum: memref<?xi32>, %bt: memref<?x?xi32>,
                 %kc: memref<?x2x16x64xbf16>, %vc: memref<?x2x16x64xbf16>,
                 %o: memref<?x1x8x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) accum_q_len(%accum : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>)
      k_cache(%kc : memref<?x2x16x64xbf16>) v_cache(%vc : memref<?x2x16x64xbf16>)
      -> out(%o : memref<?x1x8x64xbf16>) {q_seq_len = 1 : i32, sliding_window = 64 : i32, ring}
  return
}

// Seed 001's start_pos: each row from its query's start (read per row),
// the tiles that need no mask bounded by the largest lo and smallest hi of
// the core's rows; the planner checks every start inside its W-window.
// CHECK-LABEL: wsp.kernel @starts_flash_attention_decode_0
// CHECK: %[[LO_MAX:.*]]:2 = scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (index, index) {
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x2xi32>
// CHECK: tile.setval
// CHECK: scf.yield
// CHECK-NOT: wsp.mask_range
// CHECK-LABEL: func.func @starts(
// CHECK: %[[W:.*]] = arith.constant 64 : i64
// CHECK: scf.for
// CHECK: arith.subi %{{.*}}, %[[W]] : i64
// CHECK: arith.maxsi
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x2xi32>
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi sle
func.func @starts(%q: memref<?x2x8x64xbf16>, %ids: memref<?xi32>, %kvlens: memref<?xi32>,
                  %qlens: memref<?xi32>, %accum: memref<?xi32>, %bt: memref<?x?xi32>,
                  %kc: memref<?x2x16x64xbf16>, %vc: memref<?x2x16x64xbf16>,
                  %s: memref<?x2xi32>, %o: memref<?x2x8x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x8x64xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) accum_q_len(%accum : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>)
      k_cache(%kc : memref<?x2x16x64xbf16>) v_cache(%vc : memref<?x2x16x64xbf16>)
      start_pos(%s : memref<?x2xi32>)
      -> out(%o : memref<?x2x8x64xbf16>) {q_seq_len = 2 : i32, sliding_window = 64 : i32}
  return
}
