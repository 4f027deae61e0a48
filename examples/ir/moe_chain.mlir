// The MoE chain of seed 002 as a model author writes it, on one
// expert-parallel rank that holds all 16 experts (expert parallelism over
// several ranks: examples/ir/moe_ep.mlir, and python/test/test_moe_layer.py
// with a shared expert), top 2, hidden 128,
// intermediate 64. `wspc --run` lowers each op (a planning sequence and a
// tile kernel), emits them and runs the self-check
// (moe_chain.selfcheck.cpp), which recomputes the chain in a naive
// reference.
//
// @route: the router, gating GEMM then softmax-top-k.
// @route8: the same over Mixtral's 8 experts: the gating GEMM's N tile and
//   the top-k's rows are padded to whole 32-byte blocks (16 columns), the 8
//   experts valid.
// @experts: scatter + quant -> gate/up group GEMM -> swiglu + quant ->
//   down group GEMM -> gather. The scattered buffers have `allocated`
//   rows (their first dimension); the experts' rows are planned from
//   their token counts, no expert padded to a block.
// @experts_shared: the same with one shared expert, which this rank runs
//   for tokens [0, 8): its rows are the first 8 of the scattered buffers
//   (seed 002's layout), which its own matmuls (moe_quant_matmul) take as
//   row-range views, the routed experts' GEMMs the rows after them.

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

func.func @route8(%hidden_states: memref<?x128xbf16>,
                  %gate_weight: memref<128x8xbf16>,
                  %logits: memref<?x8xbf16>,
                  %selected_experts: memref<?x2xi32>,
                  %expert_weights: memref<?x2xf32>) {
  llm.moe_gating_gemm hidden_states(%hidden_states : memref<?x128xbf16>)
      weight(%gate_weight : memref<128x8xbf16>) -> y(%logits : memref<?x8xbf16>)
  llm.moe_softmax_topk hidden_states(%logits : memref<?x8xbf16>)
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

func.func @experts_shared(%hidden_states: memref<?x128xbf16>,
                          %selected_experts: memref<?x2xi32>,
                          %expert_weights: memref<?x2xf32>,
                          %smooth_up: memref<17x128xf32>,
                          %up_weight: memref<16x128x128xi8>,
                          %up_scale: memref<16x128xf32>,
                          %shared_up_weight: memref<128x128xi8>,
                          %shared_up_scale: memref<128xf32>,
                          %smooth_down: memref<17x64xf32>,
                          %down_weight: memref<16x64x128xi8>,
                          %down_scale: memref<16x128xf32>,
                          %shared_down_weight: memref<64x128xi8>,
                          %shared_down_scale: memref<128xf32>,
                          %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
                          %counts: memref<16xi32>, %token_offset: memref<?xi32>,
                          %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
                          %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
                          %out: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %shared = arith.constant 8 : index
  %all = memref.dim %rows, %c0 : memref<?x128xi8>
  %allocated = arith.subi %all, %shared : index
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<17x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<16xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 0 : i32, expert_end_idx = 16 : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_per_rank = 8 : i32}
  // The shared expert's rows [0, 8), the routed rows after them.
  %shared_rows = memref.subview %rows[0, 0] [8, 128] [1, 1]
      : memref<?x128xi8> to memref<8x128xi8, strided<[128, 1]>>
  %shared_scale = memref.subview %row_scale[0] [8] [1]
      : memref<?xf32> to memref<8xf32, strided<[1]>>
  %routed_rows = memref.subview %rows[8, 0] [%allocated, 128] [1, 1]
      : memref<?x128xi8> to memref<?x128xi8, strided<[128, 1], offset: 1024>>
  %routed_scale = memref.subview %row_scale[8] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 8>>
  %shared_gate_up = memref.subview %gate_up[0, 0] [8, 128] [1, 1]
      : memref<?x128xbf16> to memref<8x128xbf16, strided<[128, 1]>>
  %routed_gate_up = memref.subview %gate_up[8, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 1024>>
  llm.moe_quant_matmul hidden_states(%shared_rows : memref<8x128xi8, strided<[128, 1]>>)
      per_token_scale(%shared_scale : memref<8xf32, strided<[1]>>)
      expert_weight(%shared_up_weight : memref<128x128xi8>)
      expert_scale(%shared_up_scale : memref<128xf32>)
      -> y(%shared_gate_up : memref<8x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_rows : memref<?x128xi8, strided<[128, 1], offset: 1024>>)
      per_token_scale(%routed_scale : memref<?xf32, strided<[1], offset: 8>>)
      experts_weight(%up_weight : memref<16x128x128xi8>)
      experts_scale(%up_scale : memref<16x128xf32>)
      experts_token_count(%counts : memref<16xi32>)
      -> y(%routed_gate_up : memref<?x128xbf16, strided<[128, 1], offset: 1024>>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<17x64xf32>)
      experts_tokens_count(%counts : memref<16xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_per_rank = 8 : i32}
  %shared_act = memref.subview %act[0, 0] [8, 64] [1, 1]
      : memref<?x64xi8> to memref<8x64xi8, strided<[64, 1]>>
  %shared_act_scale = memref.subview %act_scale[0] [8] [1]
      : memref<?xf32> to memref<8xf32, strided<[1]>>
  %routed_act = memref.subview %act[8, 0] [%allocated, 64] [1, 1]
      : memref<?x64xi8> to memref<?x64xi8, strided<[64, 1], offset: 512>>
  %routed_act_scale = memref.subview %act_scale[8] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 8>>
  %shared_down = memref.subview %down[0, 0] [8, 128] [1, 1]
      : memref<?x128xbf16> to memref<8x128xbf16, strided<[128, 1]>>
  %routed_down = memref.subview %down[8, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 1024>>
  llm.moe_quant_matmul hidden_states(%shared_act : memref<8x64xi8, strided<[64, 1]>>)
      per_token_scale(%shared_act_scale : memref<8xf32, strided<[1]>>)
      expert_weight(%shared_down_weight : memref<64x128xi8>)
      expert_scale(%shared_down_scale : memref<128xf32>)
      -> y(%shared_down : memref<8x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_act : memref<?x64xi8, strided<[64, 1], offset: 512>>)
      per_token_scale(%routed_act_scale : memref<?xf32, strided<[1], offset: 8>>)
      experts_weight(%down_weight : memref<16x64x128xi8>)
      experts_scale(%down_scale : memref<16x128xf32>)
      experts_token_count(%counts : memref<16xi32>)
      -> y(%routed_down : memref<?x128xbf16, strided<[128, 1], offset: 1024>>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_per_rank = 8 : i32}
  return
}
