// The MoE chain of seed 002 as a model author writes it, on one
// expert-parallel rank that holds all 16 experts (expert parallelism over
// several ranks: python/test/test_moe_layer.py), top 2, hidden 128,
// intermediate 64. `wspc --run` lowers each op (a planning sequence and a
// tile kernel), emits them and runs the self-check
// (moe_chain.selfcheck.cpp), which recomputes the chain in a naive
// reference.
//
// @route: the router, gating GEMM then softmax-top-k.
// @experts: scatter + quant -> gate/up group GEMM -> swiglu + quant ->
//   down group GEMM -> gather. The scattered buffers have `allocated`
//   rows (their first dimension); the experts' rows are planned from
//   their token counts, no expert padded to a block.

func.func @route(%hidden_states: memref<?x128xbf16>,
                 %gate_weight: memref<128x16xbf16>,
                 %logits: memref<?x16xbf16>,
                 %selected_experts: memref<?x2xi32>,
                 %expert_weights: memref<?x2xf32>) {
  llm.moe_gating_gemm hidden_states(%hidden_states : memref<?x128xbf16>)
      weight(%gate_weight : memref<128x16xbf16>) -> y(%logits : memref<?x16xbf16>)
  llm.moe_softmax_topk hidden_states(%logits : memref<?x16xbf16>)
      -> selected_experts(%selected_experts : memref<?x2xi32>)
         expert_weights(%expert_weights : memref<?x2xf32>)
  return
}

func.func @experts(%hidden_states: memref<?x128xbf16>,
                   %selected_experts: memref<?x2xi32>,
                   %expert_weights: memref<?x2xf32>,
                   %smooth_up: memref<16x128xf32>,
                   %up_weight: memref<16x128x128xi8>,
                   %up_scale: memref<16x128xf32>,
                   %smooth_down: memref<16x64xf32>,
                   %down_weight: memref<16x64x128xi8>,
                   %down_scale: memref<16x128xf32>,
                   %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
                   %counts: memref<16xi32>, %token_offset: memref<?xi32>,
                   %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
                   %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
                   %out: memref<?x128xbf16>) {
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<16x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<16xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 0 : i32, expert_end_idx = 16 : i32}
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<?x128xi8>)
      per_token_scale(%row_scale : memref<?xf32>)
      experts_weight(%up_weight : memref<16x128x128xi8>)
      experts_scale(%up_scale : memref<16x128xf32>)
      experts_token_count(%counts : memref<16xi32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<16x64xf32>)
      experts_tokens_count(%counts : memref<16xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.moe_quant_group_gemm scatter_tokens(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      experts_weight(%down_weight : memref<16x64x128xi8>)
      experts_scale(%down_scale : memref<16x128xf32>)
      experts_token_count(%counts : memref<16xi32>)
      -> y(%down : memref<?x128xbf16>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
  return
}
