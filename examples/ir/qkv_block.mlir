// The attention block of seed 002 up to attention, as a model author
// writes it: residual add + RMS norm + dynamic quant, the int8 QKV
// projection, RMS norm of the Q and K heads, rotary embedding, and the new
// keys and values appended to a paged cache. `wspc --run` lowers all five
// ops into one planning function (each runs only if the ones before it
// returned 0; the projection adds a workspace argument), emits it and runs
// the self-check (qkv_block.selfcheck.cpp), which computes the whole chain
// again in a naive reference. (The attention ops do not lower yet.)
//
// Shapes: hidden 256; 4 query heads and 1 KV head of 64 (QKV is 384 wide);
// pages of 16 positions.

func.func @qkv_block(
    %hidden_states: memref<?x256xbf16>, %residual: memref<?x256xbf16>,
    %norm_weight: memref<256xbf16>, %smooth_scale: memref<256xf32>,
    %qkv_weight: memref<384x256xi8>, %qkv_scale: memref<384xf32>,
    %qk_norm_weight: memref<5x64xf32>,
    %sin: memref<?x64xbf16>, %cos: memref<?x64xbf16>,
    %position_ids: memref<?xi32>, %q_lens: memref<?xi32>,
    %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
    %k_cache: memref<?x1x16x64xbf16>, %v_cache: memref<?x1x16x64xbf16>,
    %x8: memref<?x256xi8>, %per_token_scale: memref<?xf32>,
    %after_res: memref<?x256xbf16>, %qkv: memref<?x384xbf16>) {
  %c0 = arith.constant 0 : index
  %tokens = memref.dim %hidden_states, %c0 : memref<?x256xbf16>
  llm.add_rms_norm_dynamic_quant hidden_states(%hidden_states : memref<?x256xbf16>)
      residual(%residual : memref<?x256xbf16>) weight(%norm_weight : memref<256xbf16>)
      smooth_scale(%smooth_scale : memref<256xf32>)
      -> y(%x8 : memref<?x256xi8>) per_token_scale(%per_token_scale : memref<?xf32>)
         after_res(%after_res : memref<?x256xbf16>) {eps = 1.0e-06 : f32}
  llm.quant_matmul hidden_states(%x8 : memref<?x256xi8>)
      per_token_scale(%per_token_scale : memref<?xf32>)
      weight(%qkv_weight : memref<384x256xi8>) weight_scale(%qkv_scale : memref<384xf32>)
      -> y(%qkv : memref<?x384xbf16>) {transpose_b = true}
  // The projection's rows as heads: Q 0..3, K 4, V 5.
  %heads = memref.expand_shape %qkv [[0], [1, 2]] output_shape [%tokens, 6, 64]
      : memref<?x384xbf16> into memref<?x6x64xbf16>
  llm.head_rms_norm hidden_states(%heads : memref<?x6x64xbf16>)
      weight(%qk_norm_weight : memref<5x64xf32>) -> y(%heads : memref<?x6x64xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 5 : i32}
  llm.rotary_embedding qkv(%heads : memref<?x6x64xbf16>)
      sin(%sin : memref<?x64xbf16>) cos(%cos : memref<?x64xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      -> out(%heads : memref<?x6x64xbf16>)
      {q_head_num = 4 : i32, kv_head_num = 1 : i32, rope_dim = 64 : i32,
       max_q_len = 64 : i32}
  // K and V are head ranges of the packed QKV.
  %key = memref.subview %heads[0, 4, 0] [%tokens, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>
  %value = memref.subview %heads[0, 5, 0] [%tokens, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>)
      value(%value : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k_cache : memref<?x1x16x64xbf16>) v_cache(%v_cache : memref<?x1x16x64xbf16>)
      {max_q_len = 64 : i32}
  return
}
