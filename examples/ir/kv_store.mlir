// The KV cache stores of seed 002 as the attention block uses them after
// rotary_embedding: this step's keys and values appended after each
// sequence's kv_lens tokens. `wspc --run` lowers, plans, emits and runs the
// self-check (kv_store.selfcheck.cpp).
//
// @store_paged: a packed ragged batch into a paged bf16 cache (pages of
//   16 positions, 2 KV heads, head_dim 128) through the block table.
// @store_paged_int8: the same into an int8 cache with per-channel scales.
// @store_paged_ring: @store_paged into ring caches (`ring`: each
//   sequence's block-table row a ring, position p at slot p mod the row's
//   positions, seed 001's circular cache over pages).
// @store_contiguous: a decode batch (unpacked, one slot) into a contiguous
//   cache [max_batch, kv_heads, max_seq_len, head_dim], slots by kv_ids.
// @store_contiguous_int8: a packed ragged prefill batch into a contiguous
//   int8 cache with per-channel scales.

func.func @store_paged(%key: memref<?x2x128xbf16>, %value: memref<?x2x128xbf16>,
                       %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>,
                       %q_lens: memref<?xi32>, %kv_lens: memref<?xi32>,
                       %k_cache: memref<?x2x16x128xbf16>,
                       %v_cache: memref<?x2x16x128xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x2x128xbf16>)
      value(%value : memref<?x2x128xbf16>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k_cache : memref<?x2x16x128xbf16>)
         v_cache(%v_cache : memref<?x2x16x128xbf16>) {max_q_len = 64 : i32}
  return
}

func.func @store_paged_ring(%key: memref<?x2x128xbf16>, %value: memref<?x2x128xbf16>,
                            %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>,
                            %q_lens: memref<?xi32>, %kv_lens: memref<?xi32>,
                            %k_cache: memref<?x2x16x128xbf16>,
                            %v_cache: memref<?x2x16x128xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x2x128xbf16>)
      value(%value : memref<?x2x128xbf16>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k_cache : memref<?x2x16x128xbf16>)
         v_cache(%v_cache : memref<?x2x16x128xbf16>) {max_q_len = 64 : i32, ring}
  return
}

func.func @store_paged_int8(%key: memref<?x2x128xbf16>, %value: memref<?x2x128xbf16>,
                            %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>,
                            %q_lens: memref<?xi32>, %kv_lens: memref<?xi32>,
                            %key_scale: memref<2x128xf32>,
                            %value_scale: memref<2x128xf32>,
                            %k_cache: memref<?x2x16x128xi8>,
                            %v_cache: memref<?x2x16x128xi8>) {
  llm.store_paged_kv_cache key(%key : memref<?x2x128xbf16>)
      value(%value : memref<?x2x128xbf16>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      key_scale(%key_scale : memref<2x128xf32>)
      value_scale(%value_scale : memref<2x128xf32>)
      -> k_cache(%k_cache : memref<?x2x16x128xi8>)
         v_cache(%v_cache : memref<?x2x16x128xi8>) {max_q_len = 64 : i32}
  return
}

func.func @store_contiguous(%key: memref<?x1x2x128xbf16>, %value: memref<?x1x2x128xbf16>,
                            %kv_ids: memref<?xi32>, %q_lens: memref<?xi32>,
                            %kv_lens: memref<?xi32>,
                            %k_cache: memref<?x2x?x128xbf16>,
                            %v_cache: memref<?x2x?x128xbf16>) {
  llm.store_kv_cache key(%key : memref<?x1x2x128xbf16>)
      value(%value : memref<?x1x2x128xbf16>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k_cache : memref<?x2x?x128xbf16>)
         v_cache(%v_cache : memref<?x2x?x128xbf16>) {max_q_len = 1 : i32}
  return
}

func.func @store_contiguous_int8(%key: memref<?x2x128xbf16>, %value: memref<?x2x128xbf16>,
                                 %kv_ids: memref<?xi32>, %q_lens: memref<?xi32>,
                                 %kv_lens: memref<?xi32>,
                                 %key_scale: memref<2x128xf32>,
                                 %value_scale: memref<2x128xf32>,
                                 %k_cache: memref<?x2x?x128xi8>,
                                 %v_cache: memref<?x2x?x128xi8>) {
  llm.store_kv_cache key(%key : memref<?x2x128xbf16>)
      value(%value : memref<?x2x128xbf16>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      key_scale(%key_scale : memref<2x128xf32>)
      value_scale(%value_scale : memref<2x128xf32>)
      -> k_cache(%k_cache : memref<?x2x?x128xi8>)
         v_cache(%v_cache : memref<?x2x?x128xi8>) {max_q_len = 64 : i32}
  return
}
