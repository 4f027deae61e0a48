// A small MoE decoder that generates tokens (issue 44): tiny_lm.mlir's
// model with a sparse MoE block in its second layer, written with
// operator ops only. Layer 0: the attention block and a dense MLP. Layer
// 1: the attention block; the shared expert that every token runs (the
// dense MLP's chain of ops, which writes %out); the router
// (moe_gating_gemm 256 -> 8, moe_softmax_topk: each token's top 2 of 8
// experts); the chosen tokens scattered by expert and quantized with each
// expert's smoothing (moe_scatter_dynamic_quant); the experts' gate/up
// GEMMs (moe_quant_group_gemm, 256 -> 2 x 64), swiglu + quant per expert,
// the down GEMMs (64 -> 256); and the weighted gather (moe_gather), which
// adds each token's two rows to the shared expert's output (the op
// accumulates into its destination, so the shared expert's GEMM is what
// clears it each step). Hidden 256; 4 query heads and 1 KV head of 64; a
// paged bf16 KV cache per layer (pages of 16 positions); vocabulary 1024.
//
// @prefill: the prompts of a batch (ragged, q_lens tokens each, after
// kv_lens cached ones) in one step, the MoE's units planned for the
// step's tokens from the router's counts; each sequence's next token is
// the pick of its last token. @decode: one token per request; its table
// (@decode_table, seed 004) is built once and replayed per token, as
// tiny_lm.mlir's.
//
// examples/model/tiny_moe_lm.py draws the weights and drives the compiled
// model; python/test/test_moe_model.py and test_moe_prefill.py check it
// against a PyTorch reference of the whole model
// (examples/model/tiny_lm_torch.py).
//
// Buffers are shared by the layers (each op's inputs are consumed before
// the layer writes them again); layer 0's residual is %zeros. The
// scattered rows (%rows ... %moe_down) hold tokens x 2 rows: every
// (token, choice) once.

wsp.step @decode_table captures @decode patches [
  #wsp.patch<token_offset, 0>, #wsp.patch<argmax_output, 1>,
  #wsp.patch<request_positions, 2>, #wsp.patch<request_kv_lens, 3>]

func.func @prefill(
    %tokens: memref<?xi32>,
    %next_tokens: memref<?xi32>,
    %position_ids: memref<?xi32>,
    %kv_lens: memref<?xi32>,
    %q_lens: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %kv_ids: memref<?xi32>,
    %sin: memref<?x64xbf16>,
    %cos: memref<?x64xbf16>,
    %embedding: memref<1024x256xbf16>,
    %zeros: memref<?x256xbf16>,
    %all_tokens: memref<1xi32>,
    %l0_norm_weight: memref<256xbf16>,
    %l0_smooth_scale: memref<256xf32>,
    %l0_qkv_weight: memref<384x256xi8>,
    %l0_qkv_scale: memref<384xf32>,
    %l0_qk_norm_weight: memref<5x64xf32>,
    %l0_k_cache: memref<?x1x16x64xbf16>,
    %l0_v_cache: memref<?x1x16x64xbf16>,
    %l0_o_smooth: memref<256xf32>,
    %l0_o_weight: memref<256x256xi8>,
    %l0_o_scale: memref<256xf32>,
    %l0_post_norm_weight: memref<256xf32>,
    %l0_mlp_smooth_up: memref<256xf32>,
    %l0_mlp_up_weight: memref<256x128xi8>,
    %l0_mlp_up_scale: memref<128xf32>,
    %l0_mlp_smooth_down: memref<1x64xf32>,
    %l0_mlp_down_weight: memref<64x256xi8>,
    %l0_mlp_down_scale: memref<256xf32>,
    %l1_norm_weight: memref<256xbf16>,
    %l1_smooth_scale: memref<256xf32>,
    %l1_qkv_weight: memref<384x256xi8>,
    %l1_qkv_scale: memref<384xf32>,
    %l1_qk_norm_weight: memref<5x64xf32>,
    %l1_k_cache: memref<?x1x16x64xbf16>,
    %l1_v_cache: memref<?x1x16x64xbf16>,
    %l1_o_smooth: memref<256xf32>,
    %l1_o_weight: memref<256x256xi8>,
    %l1_o_scale: memref<256xf32>,
    %l1_post_norm_weight: memref<256xf32>,
    %l1_mlp_smooth_up: memref<256xf32>,
    %l1_mlp_up_weight: memref<256x128xi8>,
    %l1_mlp_up_scale: memref<128xf32>,
    %l1_mlp_smooth_down: memref<1x64xf32>,
    %l1_mlp_down_weight: memref<64x256xi8>,
    %l1_mlp_down_scale: memref<256xf32>,
    %l1_gate_weight: memref<256x8xbf16>,
    %l1_moe_smooth_up: memref<8x256xf32>,
    %l1_moe_up_weight: memref<8x256x128xi8>,
    %l1_moe_up_scale: memref<8x128xf32>,
    %l1_moe_smooth_down: memref<8x64xf32>,
    %l1_moe_down_weight: memref<8x64x256xi8>,
    %l1_moe_down_scale: memref<8x256xf32>,
    %final_norm_weight: memref<256xf32>,
    %lm_head: memref<256x1024xbf16>,
    %x: memref<?x256xbf16>,
    %x8: memref<?x256xi8>,
    %per_token_scale: memref<?xf32>,
    %after_res: memref<?x256xbf16>,
    %qkv: memref<?x384xbf16>,
    %attn: memref<?x4x64xbf16>,
    %attn8: memref<?x256xi8>,
    %attn_scale: memref<?xf32>,
    %y: memref<?x256xbf16>,
    %h: memref<?x256xbf16>,
    %layer_residual: memref<?x256xbf16>,
    %h8: memref<?x256xi8>,
    %h_scale: memref<?xf32>,
    %gate_up: memref<?x128xbf16>,
    %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>,
    %out: memref<?x256xbf16>,
    %router_logits: memref<?x8xbf16>,
    %selected_experts: memref<?x2xi32>,
    %expert_weights: memref<?x2xf32>,
    %rows: memref<?x256xi8>,
    %row_scale: memref<?xf32>,
    %counts: memref<8xi32>,
    %token_offset: memref<?xi32>,
    %moe_gate_up: memref<?x128xbf16>,
    %moe_act: memref<?x64xi8>,
    %moe_act_scale: memref<?xf32>,
    %moe_down: memref<?x256xbf16>,
    %final_h: memref<?x256xbf16>,
    %final_res: memref<?x256xbf16>,
    %logits: memref<?x1024xbf16>) {
  %c0 = arith.constant 0 : index
  %tokens_n = memref.dim %x, %c0 : memref<?x256xbf16>
  // The embedding read.
  llm.embedding token_ids(%tokens : memref<?xi32>) weight(%embedding : memref<1024x256xbf16>)
      -> y(%x : memref<?x256xbf16>)
  // Layer 0: the attention block (prefill), the post-attention
  // norm and the dense MLP; its residual stream leaves in %layer_residual and
  // its output in %out.
  llm.add_rms_norm_dynamic_quant hidden_states(%x : memref<?x256xbf16>)
      residual(%zeros : memref<?x256xbf16>) weight(%l0_norm_weight : memref<256xbf16>)
      smooth_scale(%l0_smooth_scale : memref<256xf32>)
      -> y(%x8 : memref<?x256xi8>) per_token_scale(%per_token_scale : memref<?xf32>)
         after_res(%after_res : memref<?x256xbf16>) {eps = 1.0e-06 : f32}
  llm.quant_matmul hidden_states(%x8 : memref<?x256xi8>)
      per_token_scale(%per_token_scale : memref<?xf32>)
      weight(%l0_qkv_weight : memref<384x256xi8>) weight_scale(%l0_qkv_scale : memref<384xf32>)
      -> y(%qkv : memref<?x384xbf16>) {transpose_b = true}
  %heads0 = memref.expand_shape %qkv [[0], [1, 2]] output_shape [%tokens_n, 6, 64]
      : memref<?x384xbf16> into memref<?x6x64xbf16>
  llm.head_rms_norm hidden_states(%heads0 : memref<?x6x64xbf16>)
      weight(%l0_qk_norm_weight : memref<5x64xf32>) -> y(%heads0 : memref<?x6x64xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 5 : i32}
  llm.rotary_embedding qkv(%heads0 : memref<?x6x64xbf16>)
      sin(%sin : memref<?x64xbf16>) cos(%cos : memref<?x64xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      -> out(%heads0 : memref<?x6x64xbf16>)
      {q_head_num = 4 : i32, kv_head_num = 1 : i32, rope_dim = 64 : i32,
       max_q_len = 64 : i32}
  %key0 = memref.subview %heads0[0, 4, 0] [%tokens_n, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>
  %value0 = memref.subview %heads0[0, 5, 0] [%tokens_n, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>
  llm.store_paged_kv_cache key(%key0 : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>)
      value(%value0 : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%l0_k_cache : memref<?x1x16x64xbf16>) v_cache(%l0_v_cache : memref<?x1x16x64xbf16>)
      {max_q_len = 64 : i32}
  %q0 = memref.subview %heads0[0, 0, 0] [%tokens_n, 4, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x4x64xbf16, strided<[384, 64, 1]>>
  llm.flash_attention_prefill q(%q0 : memref<?x4x64xbf16, strided<[384, 64, 1]>>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%l0_k_cache : memref<?x1x16x64xbf16>) v_cache(%l0_v_cache : memref<?x1x16x64xbf16>)
      -> out(%attn : memref<?x4x64xbf16>) {max_q_len = 64 : i32}
  %attn2_0 = memref.collapse_shape %attn [[0], [1, 2]]
      : memref<?x4x64xbf16> into memref<?x256xbf16>
  llm.scale_dynamic_quant hidden_states(%attn2_0 : memref<?x256xbf16>)
      smooth_scale(%l0_o_smooth : memref<256xf32>)
      -> y(%attn8 : memref<?x256xi8>) scale(%attn_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%attn8 : memref<?x256xi8>)
      per_token_scale(%attn_scale : memref<?xf32>)
      weight(%l0_o_weight : memref<256x256xi8>) weight_scale(%l0_o_scale : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.rms_norm hidden_states(%y : memref<?x256xbf16>)
      residual(%after_res : memref<?x256xbf16>)
      weight(%l0_post_norm_weight : memref<256xf32>)
      -> y(%h : memref<?x256xbf16>) after_res(%layer_residual : memref<?x256xbf16>)
      {eps = 1.0e-06 : f32}
  llm.scale_dynamic_quant hidden_states(%h : memref<?x256xbf16>)
      smooth_scale(%l0_mlp_smooth_up : memref<256xf32>)
      -> y(%h8 : memref<?x256xi8>) scale(%h_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%h8 : memref<?x256xi8>)
      per_token_scale(%h_scale : memref<?xf32>)
      weight(%l0_mlp_up_weight : memref<256x128xi8>)
      weight_scale(%l0_mlp_up_scale : memref<128xf32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%l0_mlp_smooth_down : memref<1x64xf32>)
      experts_tokens_count(%all_tokens : memref<1xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      weight(%l0_mlp_down_weight : memref<64x256xi8>)
      weight_scale(%l0_mlp_down_scale : memref<256xf32>)
      -> y(%out : memref<?x256xbf16>)
  // Layer 1: the attention block (prefill), the post-attention
  // norm and the MoE (the dense MLP is its shared expert); its residual stream leaves in %layer_residual and
  // its output in %out.
  llm.add_rms_norm_dynamic_quant hidden_states(%out : memref<?x256xbf16>)
      residual(%layer_residual : memref<?x256xbf16>) weight(%l1_norm_weight : memref<256xbf16>)
      smooth_scale(%l1_smooth_scale : memref<256xf32>)
      -> y(%x8 : memref<?x256xi8>) per_token_scale(%per_token_scale : memref<?xf32>)
         after_res(%after_res : memref<?x256xbf16>) {eps = 1.0e-06 : f32}
  llm.quant_matmul hidden_states(%x8 : memref<?x256xi8>)
      per_token_scale(%per_token_scale : memref<?xf32>)
      weight(%l1_qkv_weight : memref<384x256xi8>) weight_scale(%l1_qkv_scale : memref<384xf32>)
      -> y(%qkv : memref<?x384xbf16>) {transpose_b = true}
  %heads1 = memref.expand_shape %qkv [[0], [1, 2]] output_shape [%tokens_n, 6, 64]
      : memref<?x384xbf16> into memref<?x6x64xbf16>
  llm.head_rms_norm hidden_states(%heads1 : memref<?x6x64xbf16>)
      weight(%l1_qk_norm_weight : memref<5x64xf32>) -> y(%heads1 : memref<?x6x64xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 5 : i32}
  llm.rotary_embedding qkv(%heads1 : memref<?x6x64xbf16>)
      sin(%sin : memref<?x64xbf16>) cos(%cos : memref<?x64xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      -> out(%heads1 : memref<?x6x64xbf16>)
      {q_head_num = 4 : i32, kv_head_num = 1 : i32, rope_dim = 64 : i32,
       max_q_len = 64 : i32}
  %key1 = memref.subview %heads1[0, 4, 0] [%tokens_n, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>
  %value1 = memref.subview %heads1[0, 5, 0] [%tokens_n, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>
  llm.store_paged_kv_cache key(%key1 : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>)
      value(%value1 : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%l1_k_cache : memref<?x1x16x64xbf16>) v_cache(%l1_v_cache : memref<?x1x16x64xbf16>)
      {max_q_len = 64 : i32}
  %q1 = memref.subview %heads1[0, 0, 0] [%tokens_n, 4, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x4x64xbf16, strided<[384, 64, 1]>>
  llm.flash_attention_prefill q(%q1 : memref<?x4x64xbf16, strided<[384, 64, 1]>>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%l1_k_cache : memref<?x1x16x64xbf16>) v_cache(%l1_v_cache : memref<?x1x16x64xbf16>)
      -> out(%attn : memref<?x4x64xbf16>) {max_q_len = 64 : i32}
  %attn2_1 = memref.collapse_shape %attn [[0], [1, 2]]
      : memref<?x4x64xbf16> into memref<?x256xbf16>
  llm.scale_dynamic_quant hidden_states(%attn2_1 : memref<?x256xbf16>)
      smooth_scale(%l1_o_smooth : memref<256xf32>)
      -> y(%attn8 : memref<?x256xi8>) scale(%attn_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%attn8 : memref<?x256xi8>)
      per_token_scale(%attn_scale : memref<?xf32>)
      weight(%l1_o_weight : memref<256x256xi8>) weight_scale(%l1_o_scale : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.rms_norm hidden_states(%y : memref<?x256xbf16>)
      residual(%after_res : memref<?x256xbf16>)
      weight(%l1_post_norm_weight : memref<256xf32>)
      -> y(%h : memref<?x256xbf16>) after_res(%layer_residual : memref<?x256xbf16>)
      {eps = 1.0e-06 : f32}
  llm.scale_dynamic_quant hidden_states(%h : memref<?x256xbf16>)
      smooth_scale(%l1_mlp_smooth_up : memref<256xf32>)
      -> y(%h8 : memref<?x256xi8>) scale(%h_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%h8 : memref<?x256xi8>)
      per_token_scale(%h_scale : memref<?xf32>)
      weight(%l1_mlp_up_weight : memref<256x128xi8>)
      weight_scale(%l1_mlp_up_scale : memref<128xf32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%l1_mlp_smooth_down : memref<1x64xf32>)
      experts_tokens_count(%all_tokens : memref<1xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      weight(%l1_mlp_down_weight : memref<64x256xi8>)
      weight_scale(%l1_mlp_down_scale : memref<256xf32>)
      -> y(%out : memref<?x256xbf16>)
  // The routed experts: the router's logits and top 2, the chosen
  // tokens scattered by expert, each expert's gate/up GEMM, swiglu +
  // quant and down GEMM on its rows, and each token's two rows weighted
  // and added to the shared expert's output in %out.
  llm.moe_gating_gemm hidden_states(%h : memref<?x256xbf16>)
      weight(%l1_gate_weight : memref<256x8xbf16>)
      -> y(%router_logits : memref<?x8xbf16>)
  llm.moe_softmax_topk hidden_states(%router_logits : memref<?x8xbf16>)
      -> selected_experts(%selected_experts : memref<?x2xi32>)
         expert_weights(%expert_weights : memref<?x2xf32>)
  llm.moe_scatter_dynamic_quant hidden_states(%h : memref<?x256xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%l1_moe_smooth_up : memref<8x256xf32>)
      -> scatter_tokens(%rows : memref<?x256xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<8xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 0 : i32, expert_end_idx = 8 : i32}
  // A prefill step's experts hold many rows: N tiles of 128, so that their
  // rows are read half as often (decode keeps the default 64).
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<?x256xi8>)
      per_token_scale(%row_scale : memref<?xf32>)
      experts_weight(%l1_moe_up_weight : memref<8x256x128xi8>)
      experts_scale(%l1_moe_up_scale : memref<8x128xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%moe_gate_up : memref<?x128xbf16>) {n_tile = 128 : i32}
  llm.moe_swiglu_dynamic_quant scatter_tokens(%moe_gate_up : memref<?x128xbf16>)
      smooth_scale(%l1_moe_smooth_down : memref<8x64xf32>)
      experts_tokens_count(%counts : memref<8xi32>)
      -> y(%moe_act : memref<?x64xi8>) per_token_scale(%moe_act_scale : memref<?xf32>)
  llm.moe_quant_group_gemm scatter_tokens(%moe_act : memref<?x64xi8>)
      per_token_scale(%moe_act_scale : memref<?xf32>)
      experts_weight(%l1_moe_down_weight : memref<8x64x256xi8>)
      experts_scale(%l1_moe_down_scale : memref<8x256xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%moe_down : memref<?x256xbf16>) {n_tile = 128 : i32}
  llm.moe_gather scatter_tokens(%moe_down : memref<?x256xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x256xbf16>)
  // The final norm, the LM head (bf16 logits) and the greedy pick.
  llm.rms_norm hidden_states(%out : memref<?x256xbf16>)
      residual(%layer_residual : memref<?x256xbf16>)
      weight(%final_norm_weight : memref<256xf32>)
      -> y(%final_h : memref<?x256xbf16>) after_res(%final_res : memref<?x256xbf16>)
      {eps = 1.0e-06 : f32}
  llm.moe_gating_gemm hidden_states(%final_h : memref<?x256xbf16>)
      weight(%lm_head : memref<256x1024xbf16>) -> y(%logits : memref<?x1024xbf16>)
  llm.argmax logits(%logits : memref<?x1024xbf16>) -> token_ids(%next_tokens : memref<?xi32>)
  return
}

func.func @decode(
    %tokens: memref<?xi32>,
    %next_tokens: memref<?xi32>,
    %position_ids: memref<?xi32>,
    %kv_lens: memref<?xi32>,
    %q_lens: memref<?xi32>,
    %accum_q_len: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %kv_ids: memref<?xi32>,
    %sin: memref<?x64xbf16>,
    %cos: memref<?x64xbf16>,
    %embedding: memref<1024x256xbf16>,
    %zeros: memref<?x256xbf16>,
    %all_tokens: memref<1xi32>,
    %l0_norm_weight: memref<256xbf16>,
    %l0_smooth_scale: memref<256xf32>,
    %l0_qkv_weight: memref<384x256xi8>,
    %l0_qkv_scale: memref<384xf32>,
    %l0_qk_norm_weight: memref<5x64xf32>,
    %l0_k_cache: memref<?x1x16x64xbf16>,
    %l0_v_cache: memref<?x1x16x64xbf16>,
    %l0_o_smooth: memref<256xf32>,
    %l0_o_weight: memref<256x256xi8>,
    %l0_o_scale: memref<256xf32>,
    %l0_post_norm_weight: memref<256xf32>,
    %l0_mlp_smooth_up: memref<256xf32>,
    %l0_mlp_up_weight: memref<256x128xi8>,
    %l0_mlp_up_scale: memref<128xf32>,
    %l0_mlp_smooth_down: memref<1x64xf32>,
    %l0_mlp_down_weight: memref<64x256xi8>,
    %l0_mlp_down_scale: memref<256xf32>,
    %l1_norm_weight: memref<256xbf16>,
    %l1_smooth_scale: memref<256xf32>,
    %l1_qkv_weight: memref<384x256xi8>,
    %l1_qkv_scale: memref<384xf32>,
    %l1_qk_norm_weight: memref<5x64xf32>,
    %l1_k_cache: memref<?x1x16x64xbf16>,
    %l1_v_cache: memref<?x1x16x64xbf16>,
    %l1_o_smooth: memref<256xf32>,
    %l1_o_weight: memref<256x256xi8>,
    %l1_o_scale: memref<256xf32>,
    %l1_post_norm_weight: memref<256xf32>,
    %l1_mlp_smooth_up: memref<256xf32>,
    %l1_mlp_up_weight: memref<256x128xi8>,
    %l1_mlp_up_scale: memref<128xf32>,
    %l1_mlp_smooth_down: memref<1x64xf32>,
    %l1_mlp_down_weight: memref<64x256xi8>,
    %l1_mlp_down_scale: memref<256xf32>,
    %l1_gate_weight: memref<256x8xbf16>,
    %l1_moe_smooth_up: memref<8x256xf32>,
    %l1_moe_up_weight: memref<8x256x128xi8>,
    %l1_moe_up_scale: memref<8x128xf32>,
    %l1_moe_smooth_down: memref<8x64xf32>,
    %l1_moe_down_weight: memref<8x64x256xi8>,
    %l1_moe_down_scale: memref<8x256xf32>,
    %final_norm_weight: memref<256xf32>,
    %lm_head: memref<256x1024xbf16>,
    %x: memref<?x256xbf16>,
    %x8: memref<?x256xi8>,
    %per_token_scale: memref<?xf32>,
    %after_res: memref<?x256xbf16>,
    %qkv: memref<?x384xbf16>,
    %attn: memref<?x1x4x64xbf16>,
    %attn8: memref<?x256xi8>,
    %attn_scale: memref<?xf32>,
    %y: memref<?x256xbf16>,
    %h: memref<?x256xbf16>,
    %layer_residual: memref<?x256xbf16>,
    %h8: memref<?x256xi8>,
    %h_scale: memref<?xf32>,
    %gate_up: memref<?x128xbf16>,
    %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>,
    %out: memref<?x256xbf16>,
    %router_logits: memref<?x8xbf16>,
    %selected_experts: memref<?x2xi32>,
    %expert_weights: memref<?x2xf32>,
    %rows: memref<?x256xi8>,
    %row_scale: memref<?xf32>,
    %counts: memref<8xi32>,
    %token_offset: memref<?xi32>,
    %moe_gate_up: memref<?x128xbf16>,
    %moe_act: memref<?x64xi8>,
    %moe_act_scale: memref<?xf32>,
    %moe_down: memref<?x256xbf16>,
    %final_h: memref<?x256xbf16>,
    %final_res: memref<?x256xbf16>,
    %logits: memref<?x1024xbf16>) {
  %c0 = arith.constant 0 : index
  %tokens_n = memref.dim %x, %c0 : memref<?x256xbf16>
  // The embedding read.
  llm.embedding token_ids(%tokens : memref<?xi32>) weight(%embedding : memref<1024x256xbf16>)
      -> y(%x : memref<?x256xbf16>)
  // Layer 0: the attention block (decode), the post-attention
  // norm and the dense MLP; its residual stream leaves in %layer_residual and
  // its output in %out.
  llm.add_rms_norm_dynamic_quant hidden_states(%x : memref<?x256xbf16>)
      residual(%zeros : memref<?x256xbf16>) weight(%l0_norm_weight : memref<256xbf16>)
      smooth_scale(%l0_smooth_scale : memref<256xf32>)
      -> y(%x8 : memref<?x256xi8>) per_token_scale(%per_token_scale : memref<?xf32>)
         after_res(%after_res : memref<?x256xbf16>) {eps = 1.0e-06 : f32}
  llm.quant_matmul hidden_states(%x8 : memref<?x256xi8>)
      per_token_scale(%per_token_scale : memref<?xf32>)
      weight(%l0_qkv_weight : memref<384x256xi8>) weight_scale(%l0_qkv_scale : memref<384xf32>)
      -> y(%qkv : memref<?x384xbf16>) {transpose_b = true}
  %heads0 = memref.expand_shape %qkv [[0], [1, 2]] output_shape [%tokens_n, 6, 64]
      : memref<?x384xbf16> into memref<?x6x64xbf16>
  llm.head_rms_norm hidden_states(%heads0 : memref<?x6x64xbf16>)
      weight(%l0_qk_norm_weight : memref<5x64xf32>) -> y(%heads0 : memref<?x6x64xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 5 : i32}
  llm.rotary_embedding qkv(%heads0 : memref<?x6x64xbf16>)
      sin(%sin : memref<?x64xbf16>) cos(%cos : memref<?x64xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      -> out(%heads0 : memref<?x6x64xbf16>)
      {q_head_num = 4 : i32, kv_head_num = 1 : i32, rope_dim = 64 : i32,
       max_q_len = 64 : i32}
  %key0 = memref.subview %heads0[0, 4, 0] [%tokens_n, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>
  %value0 = memref.subview %heads0[0, 5, 0] [%tokens_n, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>
  llm.store_paged_kv_cache key(%key0 : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>)
      value(%value0 : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%l0_k_cache : memref<?x1x16x64xbf16>) v_cache(%l0_v_cache : memref<?x1x16x64xbf16>)
      {max_q_len = 64 : i32}
  %heads4_0 = memref.expand_shape %heads0 [[0, 1], [2], [3]] output_shape [%tokens_n, 1, 6, 64]
      : memref<?x6x64xbf16> into memref<?x1x6x64xbf16>
  %q0 = memref.subview %heads4_0[0, 0, 0, 0] [%tokens_n, 1, 4, 64] [1, 1, 1, 1]
      : memref<?x1x6x64xbf16> to memref<?x1x4x64xbf16, strided<[384, 384, 64, 1]>>
  llm.flash_attention_decode q(%q0 : memref<?x1x4x64xbf16, strided<[384, 384, 64, 1]>>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%l0_k_cache : memref<?x1x16x64xbf16>) v_cache(%l0_v_cache : memref<?x1x16x64xbf16>)
      -> out(%attn : memref<?x1x4x64xbf16>) {q_seq_len = 1 : i32}
  %attn2_0 = memref.collapse_shape %attn [[0], [1, 2, 3]]
      : memref<?x1x4x64xbf16> into memref<?x256xbf16>
  llm.scale_dynamic_quant hidden_states(%attn2_0 : memref<?x256xbf16>)
      smooth_scale(%l0_o_smooth : memref<256xf32>)
      -> y(%attn8 : memref<?x256xi8>) scale(%attn_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%attn8 : memref<?x256xi8>)
      per_token_scale(%attn_scale : memref<?xf32>)
      weight(%l0_o_weight : memref<256x256xi8>) weight_scale(%l0_o_scale : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.rms_norm hidden_states(%y : memref<?x256xbf16>)
      residual(%after_res : memref<?x256xbf16>)
      weight(%l0_post_norm_weight : memref<256xf32>)
      -> y(%h : memref<?x256xbf16>) after_res(%layer_residual : memref<?x256xbf16>)
      {eps = 1.0e-06 : f32}
  llm.scale_dynamic_quant hidden_states(%h : memref<?x256xbf16>)
      smooth_scale(%l0_mlp_smooth_up : memref<256xf32>)
      -> y(%h8 : memref<?x256xi8>) scale(%h_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%h8 : memref<?x256xi8>)
      per_token_scale(%h_scale : memref<?xf32>)
      weight(%l0_mlp_up_weight : memref<256x128xi8>)
      weight_scale(%l0_mlp_up_scale : memref<128xf32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%l0_mlp_smooth_down : memref<1x64xf32>)
      experts_tokens_count(%all_tokens : memref<1xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      weight(%l0_mlp_down_weight : memref<64x256xi8>)
      weight_scale(%l0_mlp_down_scale : memref<256xf32>)
      -> y(%out : memref<?x256xbf16>)
  // Layer 1: the attention block (decode), the post-attention
  // norm and the MoE (the dense MLP is its shared expert); its residual stream leaves in %layer_residual and
  // its output in %out.
  llm.add_rms_norm_dynamic_quant hidden_states(%out : memref<?x256xbf16>)
      residual(%layer_residual : memref<?x256xbf16>) weight(%l1_norm_weight : memref<256xbf16>)
      smooth_scale(%l1_smooth_scale : memref<256xf32>)
      -> y(%x8 : memref<?x256xi8>) per_token_scale(%per_token_scale : memref<?xf32>)
         after_res(%after_res : memref<?x256xbf16>) {eps = 1.0e-06 : f32}
  llm.quant_matmul hidden_states(%x8 : memref<?x256xi8>)
      per_token_scale(%per_token_scale : memref<?xf32>)
      weight(%l1_qkv_weight : memref<384x256xi8>) weight_scale(%l1_qkv_scale : memref<384xf32>)
      -> y(%qkv : memref<?x384xbf16>) {transpose_b = true}
  %heads1 = memref.expand_shape %qkv [[0], [1, 2]] output_shape [%tokens_n, 6, 64]
      : memref<?x384xbf16> into memref<?x6x64xbf16>
  llm.head_rms_norm hidden_states(%heads1 : memref<?x6x64xbf16>)
      weight(%l1_qk_norm_weight : memref<5x64xf32>) -> y(%heads1 : memref<?x6x64xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 5 : i32}
  llm.rotary_embedding qkv(%heads1 : memref<?x6x64xbf16>)
      sin(%sin : memref<?x64xbf16>) cos(%cos : memref<?x64xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      -> out(%heads1 : memref<?x6x64xbf16>)
      {q_head_num = 4 : i32, kv_head_num = 1 : i32, rope_dim = 64 : i32,
       max_q_len = 64 : i32}
  %key1 = memref.subview %heads1[0, 4, 0] [%tokens_n, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>
  %value1 = memref.subview %heads1[0, 5, 0] [%tokens_n, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>
  llm.store_paged_kv_cache key(%key1 : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>)
      value(%value1 : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%l1_k_cache : memref<?x1x16x64xbf16>) v_cache(%l1_v_cache : memref<?x1x16x64xbf16>)
      {max_q_len = 64 : i32}
  %heads4_1 = memref.expand_shape %heads1 [[0, 1], [2], [3]] output_shape [%tokens_n, 1, 6, 64]
      : memref<?x6x64xbf16> into memref<?x1x6x64xbf16>
  %q1 = memref.subview %heads4_1[0, 0, 0, 0] [%tokens_n, 1, 4, 64] [1, 1, 1, 1]
      : memref<?x1x6x64xbf16> to memref<?x1x4x64xbf16, strided<[384, 384, 64, 1]>>
  llm.flash_attention_decode q(%q1 : memref<?x1x4x64xbf16, strided<[384, 384, 64, 1]>>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%l1_k_cache : memref<?x1x16x64xbf16>) v_cache(%l1_v_cache : memref<?x1x16x64xbf16>)
      -> out(%attn : memref<?x1x4x64xbf16>) {q_seq_len = 1 : i32}
  %attn2_1 = memref.collapse_shape %attn [[0], [1, 2, 3]]
      : memref<?x1x4x64xbf16> into memref<?x256xbf16>
  llm.scale_dynamic_quant hidden_states(%attn2_1 : memref<?x256xbf16>)
      smooth_scale(%l1_o_smooth : memref<256xf32>)
      -> y(%attn8 : memref<?x256xi8>) scale(%attn_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%attn8 : memref<?x256xi8>)
      per_token_scale(%attn_scale : memref<?xf32>)
      weight(%l1_o_weight : memref<256x256xi8>) weight_scale(%l1_o_scale : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.rms_norm hidden_states(%y : memref<?x256xbf16>)
      residual(%after_res : memref<?x256xbf16>)
      weight(%l1_post_norm_weight : memref<256xf32>)
      -> y(%h : memref<?x256xbf16>) after_res(%layer_residual : memref<?x256xbf16>)
      {eps = 1.0e-06 : f32}
  llm.scale_dynamic_quant hidden_states(%h : memref<?x256xbf16>)
      smooth_scale(%l1_mlp_smooth_up : memref<256xf32>)
      -> y(%h8 : memref<?x256xi8>) scale(%h_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%h8 : memref<?x256xi8>)
      per_token_scale(%h_scale : memref<?xf32>)
      weight(%l1_mlp_up_weight : memref<256x128xi8>)
      weight_scale(%l1_mlp_up_scale : memref<128xf32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%l1_mlp_smooth_down : memref<1x64xf32>)
      experts_tokens_count(%all_tokens : memref<1xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.quant_matmul hidden_states(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      weight(%l1_mlp_down_weight : memref<64x256xi8>)
      weight_scale(%l1_mlp_down_scale : memref<256xf32>)
      -> y(%out : memref<?x256xbf16>)
  // The routed experts: the router's logits and top 2, the chosen
  // tokens scattered by expert, each expert's gate/up GEMM, swiglu +
  // quant and down GEMM on its rows, and each token's two rows weighted
  // and added to the shared expert's output in %out.
  llm.moe_gating_gemm hidden_states(%h : memref<?x256xbf16>)
      weight(%l1_gate_weight : memref<256x8xbf16>)
      -> y(%router_logits : memref<?x8xbf16>)
  llm.moe_softmax_topk hidden_states(%router_logits : memref<?x8xbf16>)
      -> selected_experts(%selected_experts : memref<?x2xi32>)
         expert_weights(%expert_weights : memref<?x2xf32>)
  llm.moe_scatter_dynamic_quant hidden_states(%h : memref<?x256xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%l1_moe_smooth_up : memref<8x256xf32>)
      -> scatter_tokens(%rows : memref<?x256xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<8xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 0 : i32, expert_end_idx = 8 : i32}
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<?x256xi8>)
      per_token_scale(%row_scale : memref<?xf32>)
      experts_weight(%l1_moe_up_weight : memref<8x256x128xi8>)
      experts_scale(%l1_moe_up_scale : memref<8x128xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%moe_gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%moe_gate_up : memref<?x128xbf16>)
      smooth_scale(%l1_moe_smooth_down : memref<8x64xf32>)
      experts_tokens_count(%counts : memref<8xi32>)
      -> y(%moe_act : memref<?x64xi8>) per_token_scale(%moe_act_scale : memref<?xf32>)
  llm.moe_quant_group_gemm scatter_tokens(%moe_act : memref<?x64xi8>)
      per_token_scale(%moe_act_scale : memref<?xf32>)
      experts_weight(%l1_moe_down_weight : memref<8x64x256xi8>)
      experts_scale(%l1_moe_down_scale : memref<8x256xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%moe_down : memref<?x256xbf16>)
  llm.moe_gather scatter_tokens(%moe_down : memref<?x256xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x256xbf16>)
  // The final norm, the LM head (bf16 logits) and the greedy pick.
  llm.rms_norm hidden_states(%out : memref<?x256xbf16>)
      residual(%layer_residual : memref<?x256xbf16>)
      weight(%final_norm_weight : memref<256xf32>)
      -> y(%final_h : memref<?x256xbf16>) after_res(%final_res : memref<?x256xbf16>)
      {eps = 1.0e-06 : f32}
  llm.moe_gating_gemm hidden_states(%final_h : memref<?x256xbf16>)
      weight(%lm_head : memref<256x1024xbf16>) -> y(%logits : memref<?x1024xbf16>)
  llm.argmax logits(%logits : memref<?x1024xbf16>) -> token_ids(%next_tokens : memref<?xi32>)
  return
}
