// convert-llm-to-wsp on the two benchmark attention ops, whose keys and
// values are contiguous. flash_attention: prefill's units (KV head, query
// tokens of one 32-row tile) over the one sequence; K and V tiles are rows
// of k/v seen as [q_seq_len, heads x head_dim] (a KV head is a range of
// columns). flash_decoding: decode's units (request, KV head, KV chunk) of
// kv_len + 1 positions; a request's cached positions come from its cache
// row, the last from its own new key and value, a tile of one position.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// CHECK-LABEL: wsp.kernel @attention_flash_attention_0
// CHECK-SAME: constants {TILE_K = array<i64: 128>}
// CHECK-SAME: (%{{.*}}: !wsp.descriptor<moe>, %[[Q:[^:]*]]: memref<1x?x12x128xbf16>, %[[K:[^:]*]]: memref<1x?x12x128xbf16>, %[[V:[^:]*]]: memref<1x?x12x128xbf16>, %[[OUT:[^:]*]]: memref<1x?x8x128xbf16>, %[[WS_H:[^:]*]]: memref<24x2x32x128xbf16>, %[[WS_F:[^:]*]]: memref<24x2x32x128xf32>)
// CHECK: %[[KV_HEAD:.*]] = wsp.param %{{.*}}["batch_idx"]
// Causal: a unit reads the positions up to its last token.
// CHECK: %[[FIRST:.*]] = wsp.param %{{.*}}["token_start"]
// CHECK: %[[COUNT:.*]] = wsp.param %{{.*}}["token_count"]
// CHECK: %[[END:.*]] = arith.addi %[[FIRST]], %[[COUNT]] : index
// K heads follow the 8 query heads in qkv, V heads the 2 K heads.
// CHECK: %[[K0:.*]] = arith.constant 8 : index
// CHECK: %[[KH:.*]] = arith.addi %[[KV_HEAD]], %[[K0]] : index
// CHECK: %[[V0:.*]] = arith.constant 10 : index
// CHECK: %[[VH:.*]] = arith.addi %[[KV_HEAD]], %[[V0]] : index
// CHECK: %[[KROWS:.*]] = memref.collapse_shape %[[K]] {{\[\[}}0, 1], [2, 3]] : memref<1x?x12x128xbf16> into memref<?x1536xbf16>
// CHECK: %[[VROWS:.*]] = memref.collapse_shape %[[V]] {{\[\[}}0, 1], [2, 3]] : memref<1x?x12x128xbf16> into memref<?x1536xbf16>
// CHECK: %[[KCOL:.*]] = arith.muli %[[KH]], %c128 : index
// CHECK: %[[VCOL:.*]] = arith.muli %[[VH]], %c128 : index
// CHECK: wsp.mask_range standard
// CHECK: tile.load %{{.*}}, %[[KROWS]][%{{.*}}, %[[KCOL]]] transpose : !tile.tile<mat, 128x?xbf16, valid = ?x?, zn>, memref<?x1536xbf16>
// CHECK: tile.load %{{.*}}, %[[VROWS]][%{{.*}}, %[[VCOL]]] : !tile.tile<mat, ?x128xbf16, valid = ?x?>, memref<?x1536xbf16>
// CHECK: tile.store %[[OUT]][%c0, %{{.*}}, %{{.*}}, %c0]

// The planner: the leading dimension 1, out of q's length, one sequence of
// q_seq_len tokens as prefill units of 8 tokens (GQA 4) per KV head.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME: %[[PQKV:[^:]*]]: memref<1x?x12x128xbf16>, %[[POUT:[^:]*]]: memref<1x?x8x128xbf16>, %{{.*}}: memref<24x2x32x128xbf16> {llm.workspace = "attention_flash_attention_0.ws_h"}, %{{.*}}: memref<24x2x32x128xf32> {llm.workspace = "attention_flash_attention_0.ws_f"}) -> i32
// CHECK: %[[TOKENS:.*]] = memref.dim %[[PQKV]], %c1
// CHECK: %[[LENS:.*]] = memref.alloca() : memref<1xi32>
// CHECK: memref.dim %[[POUT]], %c1
// CHECK: %[[NONE:.*]] = arith.cmpi eq, %[[TOKENS]], %c0 : index
// CHECK: scf.if %[[NONE]]
// CHECK: %[[T32:.*]] = arith.index_cast %[[TOKENS]] : index to i32
// CHECK: memref.store %[[T32]], %[[LENS]][%c0]
// CHECK: wsp.generate %[[LENS]][%{{.*}}] heads(%{{.*}}) chunk(%c8)
// CHECK: wsp.dispatch @attention_flash_attention_0(
// CHECK-SAME: on mix(24)
// CHECK-NOT: row_affine
func.func @attention(%qkv: memref<1x?x12x128xbf16>, %out: memref<1x?x8x128xbf16>) {
  llm.flash_attention qkv(%qkv : memref<1x?x12x128xbf16>) -> out(%out : memref<1x?x8x128xbf16>)
  return
}

// Not causal: every unit reads all q_seq_len positions.
// CHECK-LABEL: wsp.kernel @full_flash_attention_0
// CHECK-SAME: %[[FQ:[^:]*]]: memref<1x?x4x64xbf16>
// CHECK: memref.dim %[[FQ]], %c1 : memref<1x?x4x64xbf16>
// CHECK-NOT: wsp.mask_range
// CHECK: wsp.return
func.func @full(%q: memref<1x?x4x64xbf16>, %k: memref<1x?x4x64xbf16>, %v: memref<1x?x4x64xbf16>, %out: memref<1x?x4x64xbf16>) {
  llm.flash_attention q(%q : memref<1x?x4x64xbf16>) k(%k : memref<1x?x4x64xbf16>) v(%v : memref<1x?x4x64xbf16>) -> out(%out : memref<1x?x4x64xbf16>) {is_causal = false}
  return
}

// CHECK-LABEL: wsp.kernel @decoding_flash_decoding_0
// CHECK-SAME: constants {TILE_K = array<i64: 64, 128, 128, 128>}
// CHECK-SAME: (%{{.*}}: !wsp.descriptor<attention>, %[[DQ:[^:]*]]: memref<?x1x8x128xbf16>, %[[DK:[^:]*]]: memref<?x1x2x128xbf16>, %[[DV:[^:]*]]: memref<?x1x2x128xbf16>, %[[KC:[^:]*]]: memref<?x2x?x128xbf16>, %[[VC:[^:]*]]: memref<?x2x?x128xbf16>, %{{.*}}: memref<?x1x8x128xbf16>, %{{.*}}: memref<24x2x32x128xbf16>, %{{.*}}: memref<24x3x32x128xf32>, %{{.*}}: memref<24x2x32xf32>)
// CHECK: %[[REQ:.*]] = wsp.param %{{.*}}["request_idx"]
// CHECK: %[[HEAD:.*]] = wsp.param %{{.*}}["head_idx"]
// CHECK: %[[KV_END:.*]] = wsp.kv_end
// The new token's position: kv_len.
// CHECK: %[[PRIOR:.*]] = arith.constant 1000 : index
// Cached tiles up to min(kv_end, kv_len), then one tile of the new token
// when the chunk reaches it.
// CHECK: %[[CACHE_END:.*]] = arith.minui %[[KV_END]], %[[PRIOR]] : index
// CHECK: %[[CACHE_TILES:.*]] = arith.ceildivui
// CHECK: %[[HAS_NEW:.*]] = arith.cmpi ugt, %[[KV_END]], %[[PRIOR]] : index
// CHECK: %[[NEW:.*]] = arith.select %[[HAS_NEW]], %c1, %c0 : index
// CHECK: arith.addi %[[CACHE_TILES]], %[[NEW]] : index
// CHECK: %[[IN_CACHE:.*]] = arith.cmpi ult, %{{.*}}, %[[CACHE_TILES]] : index
// CHECK: %[[W:.*]] = arith.select %[[IN_CACHE]], %{{.*}}, %[[PRIOR]] : index
// CHECK: arith.select %[[IN_CACHE]], %{{.*}}, %c1 : index
// CHECK: scf.if %[[IN_CACHE]] {
// CHECK-NEXT: tile.load %{{.*}}, %[[KC]][%[[REQ]], %[[HEAD]], %[[W]], %c0] transpose
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.load %{{.*}}, %[[DK]][%[[REQ]], %c0, %{{.*}}, %c0] transpose
// CHECK: tile.load %{{.*}}, %[[VC]][%[[REQ]], %[[HEAD]], %{{.*}}, %c0] :
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.load %{{.*}}, %[[DV]][%[[REQ]], %c0, %{{.*}}, %c0] :

// The planner: every request's length is kv_len + 1, planned as decode's
// rows (chunks of a row in order on one block); the caches must hold the
// batch's rows and kv_len positions.
// CHECK-LABEL: func.func @decoding(
// CHECK-SAME: %[[PQ:[^:]*]]: memref<?x1x8x128xbf16>, %{{.*}}: memref<?x1x2x128xbf16>, %{{.*}}: memref<?x1x2x128xbf16>, %[[PKC:[^:]*]]: memref<?x2x?x128xbf16>
// CHECK: %[[BATCH:.*]] = memref.dim %[[PQ]], %c0
// CHECK: %[[MAX:.*]] = arith.constant 1024 : index
// CHECK: arith.cmpi ule, %[[BATCH]], %[[MAX]] : index
// CHECK: %[[ROWS:.*]] = memref.dim %[[PKC]], %c0
// CHECK: %[[CAP:.*]] = memref.dim %[[PKC]], %c2
// CHECK: arith.cmpi ule, %[[BATCH]], %[[ROWS]] : index
// CHECK: arith.cmpi ule, %{{.*}}, %[[CAP]] : index
// CHECK: %[[SEEN:.*]] = arith.constant 1001 : i32
// CHECK: memref.store %[[SEEN]]
// CHECK: wsp.plan_chunk_size
// CHECK: wsp.generate
// CHECK: wsp.dispatch @decoding_flash_decoding_0(
// CHECK-SAME: on mix(24) row_affine
func.func @decoding(%q: memref<?x1x8x128xbf16>, %k: memref<?x1x2x128xbf16>, %v: memref<?x1x2x128xbf16>, %kc: memref<?x2x?x128xbf16>, %vc: memref<?x2x?x128xbf16>, %out: memref<?x1x8x128xbf16>) {
  llm.flash_decoding q(%q : memref<?x1x8x128xbf16>) k(%k : memref<?x1x2x128xbf16>) v(%v : memref<?x1x2x128xbf16>) k_cache(%kc : memref<?x2x?x128xbf16>) v_cache(%vc : memref<?x2x?x128xbf16>) -> out(%out : memref<?x1x8x128xbf16>) {kv_lens = 1000}
  return
}
