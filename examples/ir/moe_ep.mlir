// Expert parallelism of seed 002's MoE layer as emitted per-rank programs:
// the routed experts of examples/ir/moe_chain.mlir's @experts (16 experts,
// top 2, hidden 128, intermediate 64) spread over the ranks of a grid, each
// rank holding the experts [r E / N, (r + 1) E / N) and their weights, every
// rank holding every token (seed 002: the ops' expert range and the
// tokens' routing are the same on every rank). A rank's scatter picks the
// tokens routed to its experts (the dispatch: no token moves, every rank
// has them), its group GEMMs and swiglu run its experts, its gather sums
// its experts' weighted rows into out; then llm.all_reduce on the grid sums
// the ranks' outs in rank order (the combine: a reduce-scatter and an
// all_gather, docs/rationale/Sharding.md). The rank's program is its
// function: seed 002's expert range is a static attribute, so rank r of N
// calls @layer_epN_rR.
//
// `wspc --run` runs the self-check (moe_ep.selfcheck.cpp) on 1, 2 and 4
// ranks as threads; `mpirun -np N` on the emitted tree as N processes.

shard.grid @ep1(shape = 1)
shard.grid @ep2(shape = 2)
shard.grid @ep4(shape = 4)

// Rank 0 of 1: experts [0, 16).
func.func @layer_ep1_r0(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<16x128xf32>, %up_weight: memref<16x128x128xi8>,
    %up_scale: memref<16x128xf32>, %smooth_down: memref<16x64xf32>,
    %down_weight: memref<16x64x128xi8>, %down_scale: memref<16x128xf32>,
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
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep1
  return
}

// Rank 0 of 2: experts [0, 8).
func.func @layer_ep2_r0(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<8x128xf32>, %up_weight: memref<8x128x128xi8>,
    %up_scale: memref<8x128xf32>, %smooth_down: memref<8x64xf32>,
    %down_weight: memref<8x64x128xi8>, %down_scale: memref<8x128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<8xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<8x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<8xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 0 : i32, expert_end_idx = 8 : i32}
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<?x128xi8>)
      per_token_scale(%row_scale : memref<?xf32>)
      experts_weight(%up_weight : memref<8x128x128xi8>)
      experts_scale(%up_scale : memref<8x128xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<8x64xf32>)
      experts_tokens_count(%counts : memref<8xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.moe_quant_group_gemm scatter_tokens(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      experts_weight(%down_weight : memref<8x64x128xi8>)
      experts_scale(%down_scale : memref<8x128xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%down : memref<?x128xbf16>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep2
  return
}

// Rank 1 of 2: experts [8, 16).
func.func @layer_ep2_r1(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<8x128xf32>, %up_weight: memref<8x128x128xi8>,
    %up_scale: memref<8x128xf32>, %smooth_down: memref<8x64xf32>,
    %down_weight: memref<8x64x128xi8>, %down_scale: memref<8x128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<8xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<8x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<8xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 8 : i32, expert_end_idx = 16 : i32}
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<?x128xi8>)
      per_token_scale(%row_scale : memref<?xf32>)
      experts_weight(%up_weight : memref<8x128x128xi8>)
      experts_scale(%up_scale : memref<8x128xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<8x64xf32>)
      experts_tokens_count(%counts : memref<8xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.moe_quant_group_gemm scatter_tokens(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      experts_weight(%down_weight : memref<8x64x128xi8>)
      experts_scale(%down_scale : memref<8x128xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%down : memref<?x128xbf16>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep2
  return
}

// Rank 0 of 4: experts [0, 4).
func.func @layer_ep4_r0(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<4x128xf32>, %up_weight: memref<4x128x128xi8>,
    %up_scale: memref<4x128xf32>, %smooth_down: memref<4x64xf32>,
    %down_weight: memref<4x64x128xi8>, %down_scale: memref<4x128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<4xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<4x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<4xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 0 : i32, expert_end_idx = 4 : i32}
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<?x128xi8>)
      per_token_scale(%row_scale : memref<?xf32>)
      experts_weight(%up_weight : memref<4x128x128xi8>)
      experts_scale(%up_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<4x64xf32>)
      experts_tokens_count(%counts : memref<4xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.moe_quant_group_gemm scatter_tokens(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      experts_weight(%down_weight : memref<4x64x128xi8>)
      experts_scale(%down_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%down : memref<?x128xbf16>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep4
  return
}

// Rank 1 of 4: experts [4, 8).
func.func @layer_ep4_r1(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<4x128xf32>, %up_weight: memref<4x128x128xi8>,
    %up_scale: memref<4x128xf32>, %smooth_down: memref<4x64xf32>,
    %down_weight: memref<4x64x128xi8>, %down_scale: memref<4x128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<4xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<4x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<4xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 4 : i32, expert_end_idx = 8 : i32}
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<?x128xi8>)
      per_token_scale(%row_scale : memref<?xf32>)
      experts_weight(%up_weight : memref<4x128x128xi8>)
      experts_scale(%up_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<4x64xf32>)
      experts_tokens_count(%counts : memref<4xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.moe_quant_group_gemm scatter_tokens(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      experts_weight(%down_weight : memref<4x64x128xi8>)
      experts_scale(%down_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%down : memref<?x128xbf16>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep4
  return
}

// Rank 2 of 4: experts [8, 12).
func.func @layer_ep4_r2(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<4x128xf32>, %up_weight: memref<4x128x128xi8>,
    %up_scale: memref<4x128xf32>, %smooth_down: memref<4x64xf32>,
    %down_weight: memref<4x64x128xi8>, %down_scale: memref<4x128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<4xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<4x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<4xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 8 : i32, expert_end_idx = 12 : i32}
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<?x128xi8>)
      per_token_scale(%row_scale : memref<?xf32>)
      experts_weight(%up_weight : memref<4x128x128xi8>)
      experts_scale(%up_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<4x64xf32>)
      experts_tokens_count(%counts : memref<4xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.moe_quant_group_gemm scatter_tokens(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      experts_weight(%down_weight : memref<4x64x128xi8>)
      experts_scale(%down_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%down : memref<?x128xbf16>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep4
  return
}

// Rank 3 of 4: experts [12, 16).
func.func @layer_ep4_r3(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<4x128xf32>, %up_weight: memref<4x128x128xi8>,
    %up_scale: memref<4x128xf32>, %smooth_down: memref<4x64xf32>,
    %down_weight: memref<4x64x128xi8>, %down_scale: memref<4x128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<4xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<4x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<4xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 12 : i32, expert_end_idx = 16 : i32}
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<?x128xi8>)
      per_token_scale(%row_scale : memref<?xf32>)
      experts_weight(%up_weight : memref<4x128x128xi8>)
      experts_scale(%up_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<4x64xf32>)
      experts_tokens_count(%counts : memref<4xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.moe_quant_group_gemm scatter_tokens(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      experts_weight(%down_weight : memref<4x64x128xi8>)
      experts_scale(%down_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%down : memref<?x128xbf16>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep4
  return
}
