// Decoder layers for a decode step, as a model author writes them with
// seed 002's operators. Both start with the attention block of
// examples/ir/attention_block.mlir (@decode_block: residual add + RMS norm
// + quant, QKV projection, Q/K norm, rope, paged KV store, decode
// attention, quant, output projection, all_reduce) and the post-attention
// residual add + RMS norm; then
// * @moe_decode_layer: the MoE of examples/ir/moe_chain.mlir at hidden
//   256 (router, scatter + quant, the shared expert's and the routed
//   experts' gate/up GEMMs, swiglu + quant, down GEMMs, gather);
// * @dense_decode_layer: a dense MLP from the same operators (quant,
//   gate/up quant_matmul, swiglu + quant as one expert holding every
//   token, down quant_matmul).
// `wspc --run` lowers each layer's ops into one planning function and runs
// the self-check (decoder_layers.selfcheck.cpp), which recomputes every
// stage in a naive reference.

func.func @moe_decode_layer(
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
    %y: memref<?x256xbf16>,
    %post_norm_weight: memref<256xf32>, %h: memref<?x256xbf16>,
    %layer_residual: memref<?x256xbf16>,
    %gate_weight: memref<256x16xbf16>, %logits: memref<?x16xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<17x256xf32>,
    %up_weight: memref<16x256x128xi8>, %up_scale: memref<16x128xf32>,
    %shared_up_weight: memref<256x128xi8>, %shared_up_scale: memref<128xf32>,
    %smooth_down: memref<17x64xf32>,
    %down_weight: memref<16x64x256xi8>, %down_scale: memref<16x256xf32>,
    %shared_down_weight: memref<64x256xi8>, %shared_down_scale: memref<256xf32>,
    %rows: memref<?x256xi8>, %row_scale: memref<?xf32>,
    %counts: memref<16xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x256xbf16>,
    %out: memref<?x256xbf16>) {
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

  // The post-attention norm: the block's output added to the residual
  // stream (layer_residual, the next layer's residual) and normalized.
  llm.rms_norm hidden_states(%y : memref<?x256xbf16>)
      residual(%after_res : memref<?x256xbf16>)
      weight(%post_norm_weight : memref<256xf32>)
      -> y(%h : memref<?x256xbf16>) after_res(%layer_residual : memref<?x256xbf16>)
      {eps = 1.0e-06 : f32}

  // The MoE: the router, then the experts with the shared expert's 4 rows
  // (tokens [0, 4) on this rank) first in the scattered buffers.
  llm.moe_gating_gemm hidden_states(%h : memref<?x256xbf16>)
      weight(%gate_weight : memref<256x16xbf16>) -> y(%logits : memref<?x16xbf16>)
  llm.moe_softmax_topk hidden_states(%logits : memref<?x16xbf16>)
      -> selected_experts(%selected_experts : memref<?x2xi32>)
         expert_weights(%expert_weights : memref<?x2xf32>)
  llm.moe_scatter_dynamic_quant hidden_states(%h : memref<?x256xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<17x256xf32>)
      -> scatter_tokens(%rows : memref<?x256xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<16xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 0 : i32, expert_end_idx = 16 : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_per_rank = 4 : i32}
  %all = memref.dim %rows, %c0 : memref<?x256xi8>
  %c4 = arith.constant 4 : index
  %allocated = arith.subi %all, %c4 : index
  %shared_rows = memref.subview %rows[0, 0] [4, 256] [1, 1]
      : memref<?x256xi8> to memref<4x256xi8, strided<[256, 1]>>
  %shared_scale = memref.subview %row_scale[0] [4] [1]
      : memref<?xf32> to memref<4xf32, strided<[1]>>
  %routed_rows = memref.subview %rows[4, 0] [%allocated, 256] [1, 1]
      : memref<?x256xi8> to memref<?x256xi8, strided<[256, 1], offset: 1024>>
  %routed_scale = memref.subview %row_scale[4] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 4>>
  %shared_gate_up = memref.subview %gate_up[0, 0] [4, 128] [1, 1]
      : memref<?x128xbf16> to memref<4x128xbf16, strided<[128, 1]>>
  %routed_gate_up = memref.subview %gate_up[4, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 512>>
  llm.moe_quant_matmul hidden_states(%shared_rows : memref<4x256xi8, strided<[256, 1]>>)
      per_token_scale(%shared_scale : memref<4xf32, strided<[1]>>)
      expert_weight(%shared_up_weight : memref<256x128xi8>)
      expert_scale(%shared_up_scale : memref<128xf32>)
      -> y(%shared_gate_up : memref<4x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_rows : memref<?x256xi8, strided<[256, 1], offset: 1024>>)
      per_token_scale(%routed_scale : memref<?xf32, strided<[1], offset: 4>>)
      experts_weight(%up_weight : memref<16x256x128xi8>)
      experts_scale(%up_scale : memref<16x128xf32>)
      experts_token_count(%counts : memref<16xi32>)
      -> y(%routed_gate_up : memref<?x128xbf16, strided<[128, 1], offset: 512>>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<17x64xf32>)
      experts_tokens_count(%counts : memref<16xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_per_rank = 4 : i32}
  %shared_act = memref.subview %act[0, 0] [4, 64] [1, 1]
      : memref<?x64xi8> to memref<4x64xi8, strided<[64, 1]>>
  %shared_act_scale = memref.subview %act_scale[0] [4] [1]
      : memref<?xf32> to memref<4xf32, strided<[1]>>
  %routed_act = memref.subview %act[4, 0] [%allocated, 64] [1, 1]
      : memref<?x64xi8> to memref<?x64xi8, strided<[64, 1], offset: 256>>
  %routed_act_scale = memref.subview %act_scale[4] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 4>>
  %shared_down = memref.subview %down[0, 0] [4, 256] [1, 1]
      : memref<?x256xbf16> to memref<4x256xbf16, strided<[256, 1]>>
  %routed_down = memref.subview %down[4, 0] [%allocated, 256] [1, 1]
      : memref<?x256xbf16> to memref<?x256xbf16, strided<[256, 1], offset: 1024>>
  llm.moe_quant_matmul hidden_states(%shared_act : memref<4x64xi8, strided<[64, 1]>>)
      per_token_scale(%shared_act_scale : memref<4xf32, strided<[1]>>)
      expert_weight(%shared_down_weight : memref<64x256xi8>)
      expert_scale(%shared_down_scale : memref<256xf32>)
      -> y(%shared_down : memref<4x256xbf16, strided<[256, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_act : memref<?x64xi8, strided<[64, 1], offset: 256>>)
      per_token_scale(%routed_act_scale : memref<?xf32, strided<[1], offset: 4>>)
      experts_weight(%down_weight : memref<16x64x256xi8>)
      experts_scale(%down_scale : memref<16x256xf32>)
      experts_token_count(%counts : memref<16xi32>)
      -> y(%routed_down : memref<?x256xbf16, strided<[256, 1], offset: 1024>>)
  llm.moe_gather scatter_tokens(%down : memref<?x256xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x256xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_per_rank = 4 : i32}
  return
}

func.func @dense_decode_layer(
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
    %y: memref<?x256xbf16>,
    %post_norm_weight: memref<256xf32>, %h: memref<?x256xbf16>,
    %layer_residual: memref<?x256xbf16>,
    %mlp_smooth_up: memref<256xf32>, %h8: memref<?x256xi8>, %h_scale: memref<?xf32>,
    %mlp_up_weight: memref<256x128xi8>, %mlp_up_scale: memref<128xf32>,
    %gate_up: memref<?x128xbf16>,
    %mlp_smooth_down: memref<1x64xf32>, %all_tokens: memref<1xi32>,
    %act: memref<?x64xi8>, %act_scale: memref<?xf32>,
    %mlp_down_weight: memref<64x256xi8>, %mlp_down_scale: memref<256xf32>,
    %out: memref<?x256xbf16>) {
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

  // The post-attention norm.
  llm.rms_norm hidden_states(%y : memref<?x256xbf16>)
      residual(%after_res : memref<?x256xbf16>)
      weight(%post_norm_weight : memref<256xf32>)
      -> y(%h : memref<?x256xbf16>) after_res(%layer_residual : memref<?x256xbf16>)
      {eps = 1.0e-06 : f32}

  // The dense MLP: smooth + quant, gate/up, swiglu + quant (one "expert"
  // whose count, all_tokens, is the step's token count), down.
  llm.scale_dynamic_quant hidden_states(%h : memref<?x256xbf16>)
      smooth_scale(%mlp_smooth_up : memref<256xf32>)
      -> y(%h8 : memref<?x256xi8>) scale(%h_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%h8 : memref<?x256xi8>)
      per_token_scale(%h_scale : memref<?xf32>)
      weight(%mlp_up_weight : memref<256x128xi8>)
      weight_scale(%mlp_up_scale : memref<128xf32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%mlp_smooth_down : memref<1x64xf32>)
      experts_tokens_count(%all_tokens : memref<1xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      weight(%mlp_down_weight : memref<64x256xi8>)
      weight_scale(%mlp_down_scale : memref<256xf32>)
      -> y(%out : memref<?x256xbf16>)
  return
}
