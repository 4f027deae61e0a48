// convert-llm-to-wsp on the KV cache stores: runs of at most 8 token rows
// of one sequence that land in one page, each found from its first row's
// sequence and cache position kv_lens[b] + s, then per KV head one tile of
// the run's key rows and one of its value rows (key and value seen as
// [token rows, heads x head_dim], a head a range of columns).
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// Paged int8: the page from the block table row kv_ids[b], the row inside
// the page; x / scale rounded once to i32 and narrowed through f16.
// CHECK-LABEL: wsp.kernel @paged_store_paged_kv_cache_0
// CHECK-SAME: %[[KEY:[^:]*]]: memref<?x2x128xbf16>, %[[VALUE:[^:]*]]: memref<?x2x128xbf16>, %[[TABLE:[^:]*]]: memref<?x?xi32>, %[[IDS:[^:]*]]: memref<?xi32>, %[[LENS:[^:]*]]: memref<?xi32>, %[[PAST:[^:]*]]: memref<?xi32>, %[[KS:[^:]*]]: memref<2x128xf32>, %[[VS:[^:]*]]: memref<2x128xf32>, %[[KC:[^:]*]]: memref<?x2x16x128xi8>, %[[VC:[^:]*]]: memref<?x2x16x128xi8>)
// CHECK: %[[KROWS:.*]] = memref.collapse_shape %[[KEY]] {{\[\[}}0], [1, 2]] : memref<?x2x128xbf16> into memref<?x256xbf16>
// CHECK: %[[VROWS:.*]] = memref.collapse_shape %[[VALUE]] {{\[\[}}0], [1, 2]] : memref<?x2x128xbf16> into memref<?x256xbf16>
// CHECK: scf.while (%[[I:.*]] = %{{.*}}) : (index) -> index {
// CHECK: memref.load %[[PAST]]
// The run: the sequence's tokens left, the unit's, at most 8, the page's.
// CHECK: %[[LEFT:.*]] = scf.if %{{.*}} -> (index) {
// CHECK: } else {
// CHECK-NEXT: scf.yield %c1 : index
// CHECK: %[[UNIT:.*]] = arith.subi %{{.*}}, %[[I]] : index
// CHECK: %[[N0:.*]] = arith.minui %[[LEFT]], %[[UNIT]] : index
// CHECK: %[[N1:.*]] = arith.minui %[[N0]], %c8 : index
// CHECK: %[[IN_PAGE:.*]] = arith.remui %{{.*}}, %c16 : index
// CHECK: %[[PAGE_LEFT:.*]] = arith.subi %c16, %[[IN_PAGE]] : index
// CHECK: %[[N:.*]] = arith.minui %[[N1]], %[[PAGE_LEFT]] : index
// CHECK: scf.if
// CHECK: %[[SLOT32:.*]] = memref.load %[[IDS]]
// CHECK: %[[SLOT:.*]] = arith.index_cast %[[SLOT32]]
// CHECK: arith.divui %{{.*}}, %c16
// CHECK: memref.load %[[TABLE]][%[[SLOT]],
// CHECK: arith.remui %{{.*}}, %c16
// CHECK: %[[KT:.*]] = tile.alloc valid(%[[N]]) : !tile.tile<vec, 8x128xbf16, valid = ?x128>
// CHECK: %[[VT:.*]] = tile.alloc valid(%[[N]]) : !tile.tile<vec, 8x128xbf16, valid = ?x128>
// CHECK: tile.load %[[KT]], %[[KROWS]][%[[I]], %{{.*}}] : !tile.tile<vec, 8x128xbf16, valid = ?x128>, memref<?x256xbf16>
// CHECK: tile.load %{{.*}}, %[[KS]][
// CHECK: tile.cvt %{{.*}}, %[[KT]]
// CHECK: tile.colexpanddiv
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 8x128xi16, valid = ?x128>, !tile.tile<vec, 8x128xf32, valid = ?x128>
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 8x128xf16, valid = ?x128>, !tile.tile<vec, 8x128xi16, valid = ?x128>
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 8x128xi8, valid = ?x128>, !tile.tile<vec, 8x128xf16, valid = ?x128>
// CHECK: tile.store %[[KC]][
// CHECK: tile.load %[[VT]], %[[VROWS]][%[[I]], %{{.*}}]
// CHECK: tile.load %{{.*}}, %[[VS]][
// CHECK: tile.cvt %{{.*}}, %[[VT]]
// CHECK: tile.store %[[VC]][
// CHECK: } {tile.min_stages = 1 : i64, tile.stages = 2 : i64}
// The next run starts after this one.
// CHECK: %[[NEXT:.*]] = arith.addi %[[I]], %[[N]] : index
// CHECK: scf.yield %[[NEXT]] : index

// The planner checks every sequence: lengths, slot, capacity (pages per
// sequence x block size) and each page the new tokens touch.
// CHECK-LABEL: func.func @paged(
// CHECK: memref.dim %{{.*}}, %c1 : memref<?x?xi32>
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK: memref.load %arg2[
// CHECK: wsp.dispatch @paged_store_paged_kv_cache_0
func.func @paged(%k: memref<?x2x128xbf16>, %v: memref<?x2x128xbf16>,
                 %bt: memref<?x?xi32>, %ids: memref<?xi32>, %lens: memref<?xi32>,
                 %past: memref<?xi32>, %ks: memref<2x128xf32>, %vs: memref<2x128xf32>,
                 %kc: memref<?x2x16x128xi8>, %vc: memref<?x2x16x128xi8>) {
  llm.store_paged_kv_cache key(%k : memref<?x2x128xbf16>) value(%v : memref<?x2x128xbf16>)
      block_table(%bt : memref<?x?xi32>) kv_ids(%ids : memref<?xi32>)
      q_lens(%lens : memref<?xi32>) kv_lens(%past : memref<?xi32>)
      key_scale(%ks : memref<2x128xf32>) value_scale(%vs : memref<2x128xf32>)
      -> k_cache(%kc : memref<?x2x16x128xi8>) v_cache(%vc : memref<?x2x16x128xi8>)
      {max_q_len = 8 : i32}
  return
}

// Contiguous, defaults: slot b, no tokens in the cache before. Per KV
// head, the key and the value have tiles of their own, in a loop that asks
// for two heads in flight (tile-pipeline).
// CHECK-LABEL: wsp.kernel @contiguous_store_kv_cache_0
// CHECK-NOT: kv_ids
// CHECK: scf.for %[[H:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[K:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x64xbf16, valid = ?x64>
// CHECK: %[[V:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x64xbf16, valid = ?x64>
// CHECK: tile.load %[[K]],
// CHECK: tile.store %{{.*}}[%{{.*}}, %[[H]], %{{.*}}, %{{.*}}], %[[K]] : memref<8x2x256x64xbf16>, !tile.tile<vec, 8x64xbf16, valid = ?x64>
// CHECK: tile.load %[[V]],
// CHECK: tile.store %{{.*}}[%{{.*}}, %[[H]], %{{.*}}, %{{.*}}], %[[V]] : memref<8x2x256x64xbf16>, !tile.tile<vec, 8x64xbf16, valid = ?x64>
// CHECK: } {tile.min_stages = 1 : i64, tile.stages = 2 : i64}
func.func @contiguous(%k: memref<?x1x2x64xbf16>, %lens: memref<?xi32>,
                      %kc: memref<8x2x256x64xbf16>) {
  llm.store_kv_cache key(%k : memref<?x1x2x64xbf16>) value(%k : memref<?x1x2x64xbf16>)
      q_lens(%lens : memref<?xi32>)
      -> k_cache(%kc : memref<8x2x256x64xbf16>) v_cache(%kc : memref<8x2x256x64xbf16>)
      {max_q_len = 1 : i32}
  return
}

// K and V as head ranges of a packed QKV: the kernel reads the QKV buffer
// itself at the ranges' first heads, and the planner checks that the
// ranges fit the buffer's heads.
// CHECK-LABEL: wsp.kernel @heads_store_paged_kv_cache_0
// CHECK-SAME: (%{{.*}}: !wsp.descriptor<moe>, %[[KB:[^:]*]]: memref<?x6x64xbf16>, %[[VB:[^:]*]]: memref<?x6x64xbf16>,
// CHECK-DAG: %[[K0:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[V0:.*]] = arith.constant 5 : index
// CHECK: %[[KBR:.*]] = memref.collapse_shape %[[KB]]
// CHECK: %[[VBR:.*]] = memref.collapse_shape %[[VB]]
// CHECK: %[[KH:.*]] = arith.addi %{{.*}}, %[[K0]] : index
// CHECK: %[[KC:.*]] = arith.muli %[[KH]], %c64 : index
// CHECK: %[[VH:.*]] = arith.addi %{{.*}}, %[[V0]] : index
// CHECK: %[[VC:.*]] = arith.muli %[[VH]], %c64 : index
// CHECK: tile.load %{{.*}}, %[[KBR]][%{{.*}}, %[[KC]]]
// CHECK: tile.load %{{.*}}, %[[VBR]][%{{.*}}, %[[VC]]]
// CHECK-LABEL: func.func @heads(
// CHECK: memref.dim %arg0, %c1
// CHECK: arith.cmpi ule, %c5{{.*}}, %{{.*}} : index
// CHECK: arith.cmpi ule, %c6{{.*}}, %{{.*}} : index
// CHECK: wsp.dispatch @heads_store_paged_kv_cache_0(%arg0, %arg0,
func.func @heads(%qkv: memref<?x6x64xbf16>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                 %kc: memref<?x1x16x64xbf16>) {
  %c0 = arith.constant 0 : index
  %t = memref.dim %qkv, %c0 : memref<?x6x64xbf16>
  %k = memref.subview %qkv[0, 4, 0] [%t, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>
  %v = memref.subview %qkv[0, 5, 0] [%t, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>
  llm.store_paged_kv_cache key(%k : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>)
      value(%v : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>)
      block_table(%bt : memref<?x?xi32>) q_lens(%lens : memref<?xi32>)
      -> k_cache(%kc : memref<?x1x16x64xbf16>) v_cache(%kc : memref<?x1x16x64xbf16>)
      {max_q_len = 8 : i32}
  return
}

// A ring cache: position p in page (p / 16) mod the block-table row's
// pages; the planner needs the step's tokens (not kv_lens + q_lens) to fit
// the row, and checks the row's pages up to the ring's.
// CHECK-LABEL: wsp.kernel @ring_store_paged_kv_cache_0
// CHECK-SAME: %{{[^:]*}}: memref<?x1x64xbf16>, %{{[^:]*}}: memref<?x1x64xbf16>, %[[RTABLE:[^:]*]]: memref<?x?xi32>
// CHECK: %[[ABS_PAGE:.*]] = arith.divui %{{.*}}, %c16{{(_[0-9]+)?}} : index
// CHECK: %[[ROW_PAGES:.*]] = memref.dim %[[RTABLE]], %c1 : memref<?x?xi32>
// CHECK: %[[RING_PAGE:.*]] = arith.remui %[[ABS_PAGE]], %[[ROW_PAGES]] : index
// CHECK: memref.load %[[RTABLE]][%{{.*}}, %[[RING_PAGE]]]
// CHECK-LABEL: func.func @ring(
// CHECK: %[[PER_SEQ:.*]] = memref.dim %{{.*}}, %c1 : memref<?x?xi32>
// CHECK: %[[LEN:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.cmpi sle, %[[LEN]], %{{.*}} : i64
// CHECK: %[[RING_PAGES:.*]] = arith.minui %{{.*}}, %[[PER_SEQ]] : index
// CHECK: scf.for %{{.*}} = %c0 to %[[RING_PAGES]] step %c1
func.func @ring(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>,
                %c: memref<?x1x16x64xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>)
      block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>)
      kv_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>)
      v_cache(%c : memref<?x1x16x64xbf16>) {max_q_len = 64 : i32, ring}
  return
}
