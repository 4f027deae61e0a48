// The attention block of operator set part 1 (examples/ir/attention_block.mlir's
// decode step) sharded 4 ways (seed 003): tensor parallel over the query
// heads and KV data parallel over the KV cache. @decode_block is the block
// on one device; @decode_block_tp4 is one rank's program on the grid @tp of
// 4: every rank holds every request's hidden states (the norm and its
// quantization run everywhere), its query head (1 of 4) and the KV head
// (replicated, as GQA replicates W_kv) of the QKV projection, and the
// columns of W_out for its head; its KV cache holds its requests only
// (ceil(batch / 4) of them, in a pool and a table of its own).
//
// One rank's step: the norm, its 192 QKV columns, RMS norm of its Q and
// the K head, rotary embedding, the store of its own requests' new keys and
// values (store_paged_kv_cache on @tp), attention of its requests with
// every rank's query head (flash_attention_decode on @tp: an all_gather of
// the heads, its attention, an all_gather of the outputs, its head out of
// them), the quantization of its head's output, its partial output
// projection and the all_reduce that sums the partials.
//
// @decode_block_cp4 is the same rank with the KV cache sharded by sequence
// instead (context parallelism): its pool holds its part of every page
// under the unsharded table, the store keeps the step's K and V of the
// positions in its parts, the attention merges the ranks' softmax states.
//
// `wspc --run --ranks 4` runs the self-check (tp_attention_block.selfcheck.cpp)
// on 4 ranks as threads, `mpirun -np 4` on the emitted tree as 4
// processes: every rank's cache equals the unsharded block's where it
// holds positions, its attention output equals the unsharded output's head
// bit for bit (KV data parallel) or within the stated bound (context
// parallel), and the summed projection is within the stated bound of the
// ranks' partials computed in double.

shard.grid @tp(shape = 4)

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
  return
}

// One rank of 4: QKV rows [64 r, 64 r + 64) (its query head), 256..383 (K
// and V); the norm weights of its query head and of K; W_out's columns of
// its head ([256, 64], stored [N, K]) and their smoothing.
func.func @decode_block_tp4(
    %hidden_states: memref<?x256xbf16>, %residual: memref<?x256xbf16>,
    %norm_weight: memref<256xbf16>, %smooth_scale: memref<256xf32>,
    %qkv_weight: memref<192x256xi8>, %qkv_scale: memref<192xf32>,
    %qk_norm_weight: memref<2x64xf32>,
    %sin: memref<?x64xbf16>, %cos: memref<?x64xbf16>,
    %position_ids: memref<?xi32>, %q_lens: memref<?xi32>, %accum_q_len: memref<?xi32>,
    %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
    %k_cache: memref<?x1x16x64xbf16>, %v_cache: memref<?x1x16x64xbf16>,
    %o_smooth: memref<64xf32>, %o_weight: memref<256x64xi8>,
    %o_scale: memref<256xf32>,
    %x8: memref<?x256xi8>, %per_token_scale: memref<?xf32>,
    %after_res: memref<?x256xbf16>, %qkv: memref<?x192xbf16>,
    %attn: memref<?x1x1x64xbf16>, %attn8: memref<?x64xi8>, %attn_scale: memref<?xf32>,
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
      weight(%qkv_weight : memref<192x256xi8>) weight_scale(%qkv_scale : memref<192xf32>)
      -> y(%qkv : memref<?x192xbf16>) {transpose_b = true}
  // The rank's heads: Q 0, K 1, V 2.
  %heads = memref.expand_shape %qkv [[0], [1, 2]] output_shape [%tokens, 3, 64]
      : memref<?x192xbf16> into memref<?x3x64xbf16>
  llm.head_rms_norm hidden_states(%heads : memref<?x3x64xbf16>)
      weight(%qk_norm_weight : memref<2x64xf32>) -> y(%heads : memref<?x3x64xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 2 : i32}
  llm.rotary_embedding qkv(%heads : memref<?x3x64xbf16>)
      sin(%sin : memref<?x64xbf16>) cos(%cos : memref<?x64xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      -> out(%heads : memref<?x3x64xbf16>)
      {q_head_num = 1 : i32, kv_head_num = 1 : i32, rope_dim = 64 : i32,
       max_q_len = 64 : i32}
  // Every request's K and V; the rank stores its own requests'.
  %key = memref.subview %heads[0, 1, 0] [%tokens, 1, 64] [1, 1, 1]
      : memref<?x3x64xbf16> to memref<?x1x64xbf16, strided<[192, 64, 1], offset: 64>>
  %value = memref.subview %heads[0, 2, 0] [%tokens, 1, 64] [1, 1, 1]
      : memref<?x3x64xbf16> to memref<?x1x64xbf16, strided<[192, 64, 1], offset: 128>>
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16, strided<[192, 64, 1], offset: 64>>)
      value(%value : memref<?x1x64xbf16, strided<[192, 64, 1], offset: 128>>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k_cache : memref<?x1x16x64xbf16>) v_cache(%v_cache : memref<?x1x16x64xbf16>)
      on @tp kv_sharding = kvdp {max_q_len = 64 : i32}
  // The rank's query head of every request.
  %heads4 = memref.expand_shape %heads [[0, 1], [2], [3]] output_shape [%tokens, 1, 3, 64]
      : memref<?x3x64xbf16> into memref<?x1x3x64xbf16>
  %q = memref.subview %heads4[0, 0, 0, 0] [%tokens, 1, 1, 64] [1, 1, 1, 1]
      : memref<?x1x3x64xbf16> to memref<?x1x1x64xbf16, strided<[192, 192, 64, 1]>>
  llm.flash_attention_decode q(%q : memref<?x1x1x64xbf16, strided<[192, 192, 64, 1]>>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x1x16x64xbf16>) v_cache(%v_cache : memref<?x1x16x64xbf16>)
      -> out(%attn : memref<?x1x1x64xbf16>) on @tp kv_sharding = kvdp {q_seq_len = 1 : i32}
  %attn2 = memref.collapse_shape %attn [[0], [1, 2, 3]]
      : memref<?x1x1x64xbf16> into memref<?x64xbf16>
  llm.scale_dynamic_quant hidden_states(%attn2 : memref<?x64xbf16>)
      smooth_scale(%o_smooth : memref<64xf32>)
      -> y(%attn8 : memref<?x64xi8>) scale(%attn_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%attn8 : memref<?x64xi8>)
      per_token_scale(%attn_scale : memref<?xf32>)
      weight(%o_weight : memref<256x64xi8>) weight_scale(%o_scale : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.all_reduce hidden_states(%y : memref<?x256xbf16>) on @tp
  return
}

// The same rank with the KV cache sharded by sequence (context
// parallelism): its pool holds its part of every page (positions [4 r, 4 r
// + 4) of each page of 16), under the unsharded block table. The store
// keeps the step's K and V of the positions in its parts; the attention
// attends every request over its positions and merges the ranks' softmax
// states (Sharding.md).
func.func @decode_block_cp4(
    %hidden_states: memref<?x256xbf16>, %residual: memref<?x256xbf16>,
    %norm_weight: memref<256xbf16>, %smooth_scale: memref<256xf32>,
    %qkv_weight: memref<192x256xi8>, %qkv_scale: memref<192xf32>,
    %qk_norm_weight: memref<2x64xf32>,
    %sin: memref<?x64xbf16>, %cos: memref<?x64xbf16>,
    %position_ids: memref<?xi32>, %q_lens: memref<?xi32>, %accum_q_len: memref<?xi32>,
    %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
    %k_cache: memref<?x1x4x64xbf16>, %v_cache: memref<?x1x4x64xbf16>,
    %o_smooth: memref<64xf32>, %o_weight: memref<256x64xi8>,
    %o_scale: memref<256xf32>,
    %x8: memref<?x256xi8>, %per_token_scale: memref<?xf32>,
    %after_res: memref<?x256xbf16>, %qkv: memref<?x192xbf16>,
    %attn: memref<?x1x1x64xbf16>, %attn8: memref<?x64xi8>, %attn_scale: memref<?xf32>,
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
      weight(%qkv_weight : memref<192x256xi8>) weight_scale(%qkv_scale : memref<192xf32>)
      -> y(%qkv : memref<?x192xbf16>) {transpose_b = true}
  // The rank's heads: Q 0, K 1, V 2.
  %heads = memref.expand_shape %qkv [[0], [1, 2]] output_shape [%tokens, 3, 64]
      : memref<?x192xbf16> into memref<?x3x64xbf16>
  llm.head_rms_norm hidden_states(%heads : memref<?x3x64xbf16>)
      weight(%qk_norm_weight : memref<2x64xf32>) -> y(%heads : memref<?x3x64xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 2 : i32}
  llm.rotary_embedding qkv(%heads : memref<?x3x64xbf16>)
      sin(%sin : memref<?x64xbf16>) cos(%cos : memref<?x64xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      -> out(%heads : memref<?x3x64xbf16>)
      {q_head_num = 1 : i32, kv_head_num = 1 : i32, rope_dim = 64 : i32,
       max_q_len = 64 : i32}
  // Every request's K and V; the rank stores those of its positions.
  %key = memref.subview %heads[0, 1, 0] [%tokens, 1, 64] [1, 1, 1]
      : memref<?x3x64xbf16> to memref<?x1x64xbf16, strided<[192, 64, 1], offset: 64>>
  %value = memref.subview %heads[0, 2, 0] [%tokens, 1, 64] [1, 1, 1]
      : memref<?x3x64xbf16> to memref<?x1x64xbf16, strided<[192, 64, 1], offset: 128>>
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16, strided<[192, 64, 1], offset: 64>>)
      value(%value : memref<?x1x64xbf16, strided<[192, 64, 1], offset: 128>>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k_cache : memref<?x1x4x64xbf16>) v_cache(%v_cache : memref<?x1x4x64xbf16>)
      on @tp kv_sharding = cp {max_q_len = 64 : i32}
  // The rank's query head of every request.
  %heads4 = memref.expand_shape %heads [[0, 1], [2], [3]] output_shape [%tokens, 1, 3, 64]
      : memref<?x3x64xbf16> into memref<?x1x3x64xbf16>
  %q = memref.subview %heads4[0, 0, 0, 0] [%tokens, 1, 1, 64] [1, 1, 1, 1]
      : memref<?x1x3x64xbf16> to memref<?x1x1x64xbf16, strided<[192, 192, 64, 1]>>
  llm.flash_attention_decode q(%q : memref<?x1x1x64xbf16, strided<[192, 192, 64, 1]>>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x1x4x64xbf16>) v_cache(%v_cache : memref<?x1x4x64xbf16>)
      -> out(%attn : memref<?x1x1x64xbf16>) on @tp kv_sharding = cp {q_seq_len = 1 : i32}
  %attn2 = memref.collapse_shape %attn [[0], [1, 2, 3]]
      : memref<?x1x1x64xbf16> into memref<?x64xbf16>
  llm.scale_dynamic_quant hidden_states(%attn2 : memref<?x64xbf16>)
      smooth_scale(%o_smooth : memref<64xf32>)
      -> y(%attn8 : memref<?x64xi8>) scale(%attn_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%attn8 : memref<?x64xi8>)
      per_token_scale(%attn_scale : memref<?xf32>)
      weight(%o_weight : memref<256x64xi8>) weight_scale(%o_scale : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.all_reduce hidden_states(%y : memref<?x256xbf16>) on @tp
  return
}
