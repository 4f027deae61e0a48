// The attention block of seed 002 as a model author writes it, for a
// chunked prefill and for a decode step: residual add + RMS norm + dynamic
// quant, the int8 QKV projection, RMS norm of the Q and K heads, rotary
// embedding, the new keys and values appended to a paged cache, attention
// over the cache, dynamic quant of its output, the int8 output projection
// and the tensor-parallel all_reduce (the identity on the one rank this
// program runs on). `wspc --run` lowers each function's nine ops into one
// planning function (each op runs only if the ones before it returned 0;
// the projections and attention add workspace arguments), emits it and
// runs the self-check (attention_block.selfcheck.cpp), which computes the
// whole block again in a naive reference from the block's inputs.
//
// Shapes: hidden 256; 4 query heads and 1 KV head of 64 (GQA 4; QKV is
// 384 wide); pages of 16 positions. Real engines fold the quant of the
// attention output into the attention kernel's epilogue; here it is its
// own op (seed 002's quant_matmul takes int8 activations).

// @prefill_block: a ragged chunked prefill (sequences with tokens already
// cached). @decode_block: one new token per request, also captured as a
// step table (@decode_table, seed 004): built once, then replayed token
// after token with each request's position and KV length advanced; each
// of its nine operators is one launch of the table.

wsp.step @decode_table captures @decode_block patches [
  #wsp.patch<request_positions, 9>, #wsp.patch<request_kv_lens, 14>]

func.func @prefill_block(
    %hidden_states: memref<?x256xbf16>, %residual: memref<?x256xbf16>,
    %norm_weight: memref<256xbf16>, %smooth_scale: memref<256xf32>,
    %qkv_weight: memref<384x256xi8>, %qkv_scale: memref<384xf32>,
    %qk_norm_weight: memref<5x64xf32>,
    %sin: memref<?x64xbf16>, %cos: memref<?x64xbf16>,
    %position_ids: memref<?xi32>, %q_lens: memref<?xi32>,
    %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
    %k_cache: memref<?x1x16x64xbf16>, %v_cache: memref<?x1x16x64xbf16>,
    %o_smooth: memref<256xf32>, %o_weight: memref<256x256xi8>,
    %o_scale: memref<256xf32>,
    %x8: memref<?x256xi8>, %per_token_scale: memref<?xf32>,
    %after_res: memref<?x256xbf16>, %qkv: memref<?x384xbf16>,
    %attn: memref<?x4x64xbf16>, %attn8: memref<?x256xi8>, %attn_scale: memref<?xf32>,
    %y: memref<?x256xbf16>) {
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
  // Q: heads 0..3 of the packed QKV.
  %q = memref.subview %heads[0, 0, 0] [%tokens, 4, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x4x64xbf16, strided<[384, 64, 1]>>
  llm.flash_attention_prefill q(%q : memref<?x4x64xbf16, strided<[384, 64, 1]>>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x1x16x64xbf16>) v_cache(%v_cache : memref<?x1x16x64xbf16>)
      -> out(%attn : memref<?x4x64xbf16>) {max_q_len = 64 : i32}
  %attn2 = memref.collapse_shape %attn [[0], [1, 2]]
      : memref<?x4x64xbf16> into memref<?x256xbf16>
  llm.scale_dynamic_quant hidden_states(%attn2 : memref<?x256xbf16>)
      smooth_scale(%o_smooth : memref<256xf32>)
      -> y(%attn8 : memref<?x256xi8>) scale(%attn_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%attn8 : memref<?x256xi8>)
      per_token_scale(%attn_scale : memref<?xf32>)
      weight(%o_weight : memref<256x256xi8>) weight_scale(%o_scale : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.all_reduce hidden_states(%y : memref<?x256xbf16>)
  return
}

func.func @decode_block(
    %hidden_states: memref<?x256xbf16>, %residual: memref<?x256xbf16>,
    %norm_weight: memref<256xbf16>, %smooth_scale: memref<256xf32>,
    %qkv_weight: memref<384x256xi8>, %qkv_scale: memref<384xf32>,
    %qk_norm_weight: memref<5x64xf32>,
    %sin: memref<?x64xbf16>, %cos: memref<?x64xbf16>,
    %position_ids: memref<?xi32>, %q_lens: memref<?xi32>, %accum_q_len: memref<?xi32>,
    %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
    %k_cache: memref<?x1x16x64xbf16>, %v_cache: memref<?x1x16x64xbf16>,
    %o_smooth: memref<256xf32>, %o_weight: memref<256x256xi8>,
    %o_scale: memref<256xf32>,
    %x8: memref<?x256xi8>, %per_token_scale: memref<?xf32>,
    %after_res: memref<?x256xbf16>, %qkv: memref<?x384xbf16>,
    %attn: memref<?x1x4x64xbf16>, %attn8: memref<?x256xi8>, %attn_scale: memref<?xf32>,
    %y: memref<?x256xbf16>) {
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
  // One new token per request: Q [batch, 1, 4, 64], heads 0..3 of the
  // packed QKV.
  %heads4 = memref.expand_shape %heads [[0, 1], [2], [3]] output_shape [%tokens, 1, 6, 64]
      : memref<?x6x64xbf16> into memref<?x1x6x64xbf16>
  %q = memref.subview %heads4[0, 0, 0, 0] [%tokens, 1, 4, 64] [1, 1, 1, 1]
      : memref<?x1x6x64xbf16> to memref<?x1x4x64xbf16, strided<[384, 384, 64, 1]>>
  llm.flash_attention_decode q(%q : memref<?x1x4x64xbf16, strided<[384, 384, 64, 1]>>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x1x16x64xbf16>) v_cache(%v_cache : memref<?x1x16x64xbf16>)
      -> out(%attn : memref<?x1x4x64xbf16>) {q_seq_len = 1 : i32}
  %attn2 = memref.collapse_shape %attn [[0], [1, 2, 3]]
      : memref<?x1x4x64xbf16> into memref<?x256xbf16>
  llm.scale_dynamic_quant hidden_states(%attn2 : memref<?x256xbf16>)
      smooth_scale(%o_smooth : memref<256xf32>)
      -> y(%attn8 : memref<?x256xi8>) scale(%attn_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%attn8 : memref<?x256xi8>)
      per_token_scale(%attn_scale : memref<?xf32>)
      weight(%o_weight : memref<256x256xi8>) weight_scale(%o_scale : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.all_reduce hidden_states(%y : memref<?x256xbf16>)
  return
}
