// Written by examples/ir/moe_ep.py (edit that, then run it with -o this file).
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
// calls @layer_epN_rR (@layer_shared_epN_rR with the shared expert).
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

// With seed 002's shared expert, on steps of 24 tokens: rank r of N also
// runs the shared expert for its share of the tokens, [r 24 / N,
// (r + 1) 24 / N) (a static attribute, as the experts' range), its rows
// the first of the scattered buffers.

// Rank 0 of 1 with the shared expert: experts [0, 16), tokens [0, 24).
func.func @layer_shared_ep1_r0(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<17x128xf32>, %up_weight: memref<16x128x128xi8>,
    %up_scale: memref<16x128xf32>, %shared_up_weight: memref<128x128xi8>,
    %shared_up_scale: memref<128xf32>, %smooth_down: memref<17x64xf32>,
    %down_weight: memref<16x64x128xi8>, %down_scale: memref<16x128xf32>,
    %shared_down_weight: memref<64x128xi8>, %shared_down_scale: memref<128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<16xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %shared = arith.constant 24 : index
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
       num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 0 : i32,
       num_tokens_per_rank = 24 : i32}
  // The shared expert's rows [0, 24), the routed rows after them.
  %shared_rows = memref.subview %rows[0, 0] [24, 128] [1, 1]
      : memref<?x128xi8> to memref<24x128xi8, strided<[128, 1]>>
  %shared_scale = memref.subview %row_scale[0] [24] [1]
      : memref<?xf32> to memref<24xf32, strided<[1]>>
  %routed_rows = memref.subview %rows[24, 0] [%allocated, 128] [1, 1]
      : memref<?x128xi8> to memref<?x128xi8, strided<[128, 1], offset: 3072>>
  %routed_scale = memref.subview %row_scale[24] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 24>>
  %shared_gate_up = memref.subview %gate_up[0, 0] [24, 128] [1, 1]
      : memref<?x128xbf16> to memref<24x128xbf16, strided<[128, 1]>>
  %routed_gate_up = memref.subview %gate_up[24, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 3072>>
  llm.moe_quant_matmul hidden_states(%shared_rows : memref<24x128xi8, strided<[128, 1]>>)
      per_token_scale(%shared_scale : memref<24xf32, strided<[1]>>)
      expert_weight(%shared_up_weight : memref<128x128xi8>)
      expert_scale(%shared_up_scale : memref<128xf32>)
      -> y(%shared_gate_up : memref<24x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_rows : memref<?x128xi8, strided<[128, 1], offset: 3072>>)
      per_token_scale(%routed_scale : memref<?xf32, strided<[1], offset: 24>>)
      experts_weight(%up_weight : memref<16x128x128xi8>)
      experts_scale(%up_scale : memref<16x128xf32>)
      experts_token_count(%counts : memref<16xi32>)
      -> y(%routed_gate_up : memref<?x128xbf16, strided<[128, 1], offset: 3072>>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<17x64xf32>)
      experts_tokens_count(%counts : memref<16xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 0 : i32,
       num_tokens_per_rank = 24 : i32}
  %shared_act = memref.subview %act[0, 0] [24, 64] [1, 1]
      : memref<?x64xi8> to memref<24x64xi8, strided<[64, 1]>>
  %shared_act_scale = memref.subview %act_scale[0] [24] [1]
      : memref<?xf32> to memref<24xf32, strided<[1]>>
  %routed_act = memref.subview %act[24, 0] [%allocated, 64] [1, 1]
      : memref<?x64xi8> to memref<?x64xi8, strided<[64, 1], offset: 1536>>
  %routed_act_scale = memref.subview %act_scale[24] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 24>>
  %shared_down = memref.subview %down[0, 0] [24, 128] [1, 1]
      : memref<?x128xbf16> to memref<24x128xbf16, strided<[128, 1]>>
  %routed_down = memref.subview %down[24, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 3072>>
  llm.moe_quant_matmul hidden_states(%shared_act : memref<24x64xi8, strided<[64, 1]>>)
      per_token_scale(%shared_act_scale : memref<24xf32, strided<[1]>>)
      expert_weight(%shared_down_weight : memref<64x128xi8>)
      expert_scale(%shared_down_scale : memref<128xf32>)
      -> y(%shared_down : memref<24x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_act : memref<?x64xi8, strided<[64, 1], offset: 1536>>)
      per_token_scale(%routed_act_scale : memref<?xf32, strided<[1], offset: 24>>)
      experts_weight(%down_weight : memref<16x64x128xi8>)
      experts_scale(%down_scale : memref<16x128xf32>)
      experts_token_count(%counts : memref<16xi32>)
      -> y(%routed_down : memref<?x128xbf16, strided<[128, 1], offset: 3072>>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 0 : i32,
       num_tokens_per_rank = 24 : i32}
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep1
  return
}

// Rank 0 of 2 with the shared expert: experts [0, 8), tokens [0, 12).
func.func @layer_shared_ep2_r0(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<9x128xf32>, %up_weight: memref<8x128x128xi8>,
    %up_scale: memref<8x128xf32>, %shared_up_weight: memref<128x128xi8>,
    %shared_up_scale: memref<128xf32>, %smooth_down: memref<9x64xf32>,
    %down_weight: memref<8x64x128xi8>, %down_scale: memref<8x128xf32>,
    %shared_down_weight: memref<64x128xi8>, %shared_down_scale: memref<128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<8xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %shared = arith.constant 12 : index
  %all = memref.dim %rows, %c0 : memref<?x128xi8>
  %allocated = arith.subi %all, %shared : index
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<9x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<8xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 0 : i32, expert_end_idx = 8 : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 0 : i32,
       num_tokens_per_rank = 12 : i32}
  // The shared expert's rows [0, 12), the routed rows after them.
  %shared_rows = memref.subview %rows[0, 0] [12, 128] [1, 1]
      : memref<?x128xi8> to memref<12x128xi8, strided<[128, 1]>>
  %shared_scale = memref.subview %row_scale[0] [12] [1]
      : memref<?xf32> to memref<12xf32, strided<[1]>>
  %routed_rows = memref.subview %rows[12, 0] [%allocated, 128] [1, 1]
      : memref<?x128xi8> to memref<?x128xi8, strided<[128, 1], offset: 1536>>
  %routed_scale = memref.subview %row_scale[12] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 12>>
  %shared_gate_up = memref.subview %gate_up[0, 0] [12, 128] [1, 1]
      : memref<?x128xbf16> to memref<12x128xbf16, strided<[128, 1]>>
  %routed_gate_up = memref.subview %gate_up[12, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 1536>>
  llm.moe_quant_matmul hidden_states(%shared_rows : memref<12x128xi8, strided<[128, 1]>>)
      per_token_scale(%shared_scale : memref<12xf32, strided<[1]>>)
      expert_weight(%shared_up_weight : memref<128x128xi8>)
      expert_scale(%shared_up_scale : memref<128xf32>)
      -> y(%shared_gate_up : memref<12x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_rows : memref<?x128xi8, strided<[128, 1], offset: 1536>>)
      per_token_scale(%routed_scale : memref<?xf32, strided<[1], offset: 12>>)
      experts_weight(%up_weight : memref<8x128x128xi8>)
      experts_scale(%up_scale : memref<8x128xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%routed_gate_up : memref<?x128xbf16, strided<[128, 1], offset: 1536>>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<9x64xf32>)
      experts_tokens_count(%counts : memref<8xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 0 : i32,
       num_tokens_per_rank = 12 : i32}
  %shared_act = memref.subview %act[0, 0] [12, 64] [1, 1]
      : memref<?x64xi8> to memref<12x64xi8, strided<[64, 1]>>
  %shared_act_scale = memref.subview %act_scale[0] [12] [1]
      : memref<?xf32> to memref<12xf32, strided<[1]>>
  %routed_act = memref.subview %act[12, 0] [%allocated, 64] [1, 1]
      : memref<?x64xi8> to memref<?x64xi8, strided<[64, 1], offset: 768>>
  %routed_act_scale = memref.subview %act_scale[12] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 12>>
  %shared_down = memref.subview %down[0, 0] [12, 128] [1, 1]
      : memref<?x128xbf16> to memref<12x128xbf16, strided<[128, 1]>>
  %routed_down = memref.subview %down[12, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 1536>>
  llm.moe_quant_matmul hidden_states(%shared_act : memref<12x64xi8, strided<[64, 1]>>)
      per_token_scale(%shared_act_scale : memref<12xf32, strided<[1]>>)
      expert_weight(%shared_down_weight : memref<64x128xi8>)
      expert_scale(%shared_down_scale : memref<128xf32>)
      -> y(%shared_down : memref<12x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_act : memref<?x64xi8, strided<[64, 1], offset: 768>>)
      per_token_scale(%routed_act_scale : memref<?xf32, strided<[1], offset: 12>>)
      experts_weight(%down_weight : memref<8x64x128xi8>)
      experts_scale(%down_scale : memref<8x128xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%routed_down : memref<?x128xbf16, strided<[128, 1], offset: 1536>>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 0 : i32,
       num_tokens_per_rank = 12 : i32}
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep2
  return
}

// Rank 1 of 2 with the shared expert: experts [8, 16), tokens [12, 24).
func.func @layer_shared_ep2_r1(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<9x128xf32>, %up_weight: memref<8x128x128xi8>,
    %up_scale: memref<8x128xf32>, %shared_up_weight: memref<128x128xi8>,
    %shared_up_scale: memref<128xf32>, %smooth_down: memref<9x64xf32>,
    %down_weight: memref<8x64x128xi8>, %down_scale: memref<8x128xf32>,
    %shared_down_weight: memref<64x128xi8>, %shared_down_scale: memref<128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<8xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %shared = arith.constant 12 : index
  %all = memref.dim %rows, %c0 : memref<?x128xi8>
  %allocated = arith.subi %all, %shared : index
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<9x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<8xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 8 : i32, expert_end_idx = 16 : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 12 : i32,
       num_tokens_per_rank = 12 : i32}
  // The shared expert's rows [0, 12), the routed rows after them.
  %shared_rows = memref.subview %rows[0, 0] [12, 128] [1, 1]
      : memref<?x128xi8> to memref<12x128xi8, strided<[128, 1]>>
  %shared_scale = memref.subview %row_scale[0] [12] [1]
      : memref<?xf32> to memref<12xf32, strided<[1]>>
  %routed_rows = memref.subview %rows[12, 0] [%allocated, 128] [1, 1]
      : memref<?x128xi8> to memref<?x128xi8, strided<[128, 1], offset: 1536>>
  %routed_scale = memref.subview %row_scale[12] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 12>>
  %shared_gate_up = memref.subview %gate_up[0, 0] [12, 128] [1, 1]
      : memref<?x128xbf16> to memref<12x128xbf16, strided<[128, 1]>>
  %routed_gate_up = memref.subview %gate_up[12, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 1536>>
  llm.moe_quant_matmul hidden_states(%shared_rows : memref<12x128xi8, strided<[128, 1]>>)
      per_token_scale(%shared_scale : memref<12xf32, strided<[1]>>)
      expert_weight(%shared_up_weight : memref<128x128xi8>)
      expert_scale(%shared_up_scale : memref<128xf32>)
      -> y(%shared_gate_up : memref<12x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_rows : memref<?x128xi8, strided<[128, 1], offset: 1536>>)
      per_token_scale(%routed_scale : memref<?xf32, strided<[1], offset: 12>>)
      experts_weight(%up_weight : memref<8x128x128xi8>)
      experts_scale(%up_scale : memref<8x128xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%routed_gate_up : memref<?x128xbf16, strided<[128, 1], offset: 1536>>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<9x64xf32>)
      experts_tokens_count(%counts : memref<8xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 12 : i32,
       num_tokens_per_rank = 12 : i32}
  %shared_act = memref.subview %act[0, 0] [12, 64] [1, 1]
      : memref<?x64xi8> to memref<12x64xi8, strided<[64, 1]>>
  %shared_act_scale = memref.subview %act_scale[0] [12] [1]
      : memref<?xf32> to memref<12xf32, strided<[1]>>
  %routed_act = memref.subview %act[12, 0] [%allocated, 64] [1, 1]
      : memref<?x64xi8> to memref<?x64xi8, strided<[64, 1], offset: 768>>
  %routed_act_scale = memref.subview %act_scale[12] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 12>>
  %shared_down = memref.subview %down[0, 0] [12, 128] [1, 1]
      : memref<?x128xbf16> to memref<12x128xbf16, strided<[128, 1]>>
  %routed_down = memref.subview %down[12, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 1536>>
  llm.moe_quant_matmul hidden_states(%shared_act : memref<12x64xi8, strided<[64, 1]>>)
      per_token_scale(%shared_act_scale : memref<12xf32, strided<[1]>>)
      expert_weight(%shared_down_weight : memref<64x128xi8>)
      expert_scale(%shared_down_scale : memref<128xf32>)
      -> y(%shared_down : memref<12x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_act : memref<?x64xi8, strided<[64, 1], offset: 768>>)
      per_token_scale(%routed_act_scale : memref<?xf32, strided<[1], offset: 12>>)
      experts_weight(%down_weight : memref<8x64x128xi8>)
      experts_scale(%down_scale : memref<8x128xf32>)
      experts_token_count(%counts : memref<8xi32>)
      -> y(%routed_down : memref<?x128xbf16, strided<[128, 1], offset: 1536>>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 12 : i32,
       num_tokens_per_rank = 12 : i32}
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep2
  return
}

// Rank 0 of 4 with the shared expert: experts [0, 4), tokens [0, 6).
func.func @layer_shared_ep4_r0(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<5x128xf32>, %up_weight: memref<4x128x128xi8>,
    %up_scale: memref<4x128xf32>, %shared_up_weight: memref<128x128xi8>,
    %shared_up_scale: memref<128xf32>, %smooth_down: memref<5x64xf32>,
    %down_weight: memref<4x64x128xi8>, %down_scale: memref<4x128xf32>,
    %shared_down_weight: memref<64x128xi8>, %shared_down_scale: memref<128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<4xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %shared = arith.constant 6 : index
  %all = memref.dim %rows, %c0 : memref<?x128xi8>
  %allocated = arith.subi %all, %shared : index
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<5x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<4xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 0 : i32, expert_end_idx = 4 : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 0 : i32,
       num_tokens_per_rank = 6 : i32}
  // The shared expert's rows [0, 6), the routed rows after them.
  %shared_rows = memref.subview %rows[0, 0] [6, 128] [1, 1]
      : memref<?x128xi8> to memref<6x128xi8, strided<[128, 1]>>
  %shared_scale = memref.subview %row_scale[0] [6] [1]
      : memref<?xf32> to memref<6xf32, strided<[1]>>
  %routed_rows = memref.subview %rows[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xi8> to memref<?x128xi8, strided<[128, 1], offset: 768>>
  %routed_scale = memref.subview %row_scale[6] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 6>>
  %shared_gate_up = memref.subview %gate_up[0, 0] [6, 128] [1, 1]
      : memref<?x128xbf16> to memref<6x128xbf16, strided<[128, 1]>>
  %routed_gate_up = memref.subview %gate_up[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 768>>
  llm.moe_quant_matmul hidden_states(%shared_rows : memref<6x128xi8, strided<[128, 1]>>)
      per_token_scale(%shared_scale : memref<6xf32, strided<[1]>>)
      expert_weight(%shared_up_weight : memref<128x128xi8>)
      expert_scale(%shared_up_scale : memref<128xf32>)
      -> y(%shared_gate_up : memref<6x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_rows : memref<?x128xi8, strided<[128, 1], offset: 768>>)
      per_token_scale(%routed_scale : memref<?xf32, strided<[1], offset: 6>>)
      experts_weight(%up_weight : memref<4x128x128xi8>)
      experts_scale(%up_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%routed_gate_up : memref<?x128xbf16, strided<[128, 1], offset: 768>>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<5x64xf32>)
      experts_tokens_count(%counts : memref<4xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 0 : i32,
       num_tokens_per_rank = 6 : i32}
  %shared_act = memref.subview %act[0, 0] [6, 64] [1, 1]
      : memref<?x64xi8> to memref<6x64xi8, strided<[64, 1]>>
  %shared_act_scale = memref.subview %act_scale[0] [6] [1]
      : memref<?xf32> to memref<6xf32, strided<[1]>>
  %routed_act = memref.subview %act[6, 0] [%allocated, 64] [1, 1]
      : memref<?x64xi8> to memref<?x64xi8, strided<[64, 1], offset: 384>>
  %routed_act_scale = memref.subview %act_scale[6] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 6>>
  %shared_down = memref.subview %down[0, 0] [6, 128] [1, 1]
      : memref<?x128xbf16> to memref<6x128xbf16, strided<[128, 1]>>
  %routed_down = memref.subview %down[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 768>>
  llm.moe_quant_matmul hidden_states(%shared_act : memref<6x64xi8, strided<[64, 1]>>)
      per_token_scale(%shared_act_scale : memref<6xf32, strided<[1]>>)
      expert_weight(%shared_down_weight : memref<64x128xi8>)
      expert_scale(%shared_down_scale : memref<128xf32>)
      -> y(%shared_down : memref<6x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_act : memref<?x64xi8, strided<[64, 1], offset: 384>>)
      per_token_scale(%routed_act_scale : memref<?xf32, strided<[1], offset: 6>>)
      experts_weight(%down_weight : memref<4x64x128xi8>)
      experts_scale(%down_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%routed_down : memref<?x128xbf16, strided<[128, 1], offset: 768>>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 0 : i32,
       num_tokens_per_rank = 6 : i32}
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep4
  return
}

// Rank 1 of 4 with the shared expert: experts [4, 8), tokens [6, 12).
func.func @layer_shared_ep4_r1(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<5x128xf32>, %up_weight: memref<4x128x128xi8>,
    %up_scale: memref<4x128xf32>, %shared_up_weight: memref<128x128xi8>,
    %shared_up_scale: memref<128xf32>, %smooth_down: memref<5x64xf32>,
    %down_weight: memref<4x64x128xi8>, %down_scale: memref<4x128xf32>,
    %shared_down_weight: memref<64x128xi8>, %shared_down_scale: memref<128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<4xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %shared = arith.constant 6 : index
  %all = memref.dim %rows, %c0 : memref<?x128xi8>
  %allocated = arith.subi %all, %shared : index
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<5x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<4xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 4 : i32, expert_end_idx = 8 : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 6 : i32,
       num_tokens_per_rank = 6 : i32}
  // The shared expert's rows [0, 6), the routed rows after them.
  %shared_rows = memref.subview %rows[0, 0] [6, 128] [1, 1]
      : memref<?x128xi8> to memref<6x128xi8, strided<[128, 1]>>
  %shared_scale = memref.subview %row_scale[0] [6] [1]
      : memref<?xf32> to memref<6xf32, strided<[1]>>
  %routed_rows = memref.subview %rows[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xi8> to memref<?x128xi8, strided<[128, 1], offset: 768>>
  %routed_scale = memref.subview %row_scale[6] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 6>>
  %shared_gate_up = memref.subview %gate_up[0, 0] [6, 128] [1, 1]
      : memref<?x128xbf16> to memref<6x128xbf16, strided<[128, 1]>>
  %routed_gate_up = memref.subview %gate_up[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 768>>
  llm.moe_quant_matmul hidden_states(%shared_rows : memref<6x128xi8, strided<[128, 1]>>)
      per_token_scale(%shared_scale : memref<6xf32, strided<[1]>>)
      expert_weight(%shared_up_weight : memref<128x128xi8>)
      expert_scale(%shared_up_scale : memref<128xf32>)
      -> y(%shared_gate_up : memref<6x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_rows : memref<?x128xi8, strided<[128, 1], offset: 768>>)
      per_token_scale(%routed_scale : memref<?xf32, strided<[1], offset: 6>>)
      experts_weight(%up_weight : memref<4x128x128xi8>)
      experts_scale(%up_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%routed_gate_up : memref<?x128xbf16, strided<[128, 1], offset: 768>>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<5x64xf32>)
      experts_tokens_count(%counts : memref<4xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 6 : i32,
       num_tokens_per_rank = 6 : i32}
  %shared_act = memref.subview %act[0, 0] [6, 64] [1, 1]
      : memref<?x64xi8> to memref<6x64xi8, strided<[64, 1]>>
  %shared_act_scale = memref.subview %act_scale[0] [6] [1]
      : memref<?xf32> to memref<6xf32, strided<[1]>>
  %routed_act = memref.subview %act[6, 0] [%allocated, 64] [1, 1]
      : memref<?x64xi8> to memref<?x64xi8, strided<[64, 1], offset: 384>>
  %routed_act_scale = memref.subview %act_scale[6] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 6>>
  %shared_down = memref.subview %down[0, 0] [6, 128] [1, 1]
      : memref<?x128xbf16> to memref<6x128xbf16, strided<[128, 1]>>
  %routed_down = memref.subview %down[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 768>>
  llm.moe_quant_matmul hidden_states(%shared_act : memref<6x64xi8, strided<[64, 1]>>)
      per_token_scale(%shared_act_scale : memref<6xf32, strided<[1]>>)
      expert_weight(%shared_down_weight : memref<64x128xi8>)
      expert_scale(%shared_down_scale : memref<128xf32>)
      -> y(%shared_down : memref<6x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_act : memref<?x64xi8, strided<[64, 1], offset: 384>>)
      per_token_scale(%routed_act_scale : memref<?xf32, strided<[1], offset: 6>>)
      experts_weight(%down_weight : memref<4x64x128xi8>)
      experts_scale(%down_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%routed_down : memref<?x128xbf16, strided<[128, 1], offset: 768>>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 6 : i32,
       num_tokens_per_rank = 6 : i32}
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep4
  return
}

// Rank 2 of 4 with the shared expert: experts [8, 12), tokens [12, 18).
func.func @layer_shared_ep4_r2(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<5x128xf32>, %up_weight: memref<4x128x128xi8>,
    %up_scale: memref<4x128xf32>, %shared_up_weight: memref<128x128xi8>,
    %shared_up_scale: memref<128xf32>, %smooth_down: memref<5x64xf32>,
    %down_weight: memref<4x64x128xi8>, %down_scale: memref<4x128xf32>,
    %shared_down_weight: memref<64x128xi8>, %shared_down_scale: memref<128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<4xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %shared = arith.constant 6 : index
  %all = memref.dim %rows, %c0 : memref<?x128xi8>
  %allocated = arith.subi %all, %shared : index
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<5x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<4xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 8 : i32, expert_end_idx = 12 : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 12 : i32,
       num_tokens_per_rank = 6 : i32}
  // The shared expert's rows [0, 6), the routed rows after them.
  %shared_rows = memref.subview %rows[0, 0] [6, 128] [1, 1]
      : memref<?x128xi8> to memref<6x128xi8, strided<[128, 1]>>
  %shared_scale = memref.subview %row_scale[0] [6] [1]
      : memref<?xf32> to memref<6xf32, strided<[1]>>
  %routed_rows = memref.subview %rows[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xi8> to memref<?x128xi8, strided<[128, 1], offset: 768>>
  %routed_scale = memref.subview %row_scale[6] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 6>>
  %shared_gate_up = memref.subview %gate_up[0, 0] [6, 128] [1, 1]
      : memref<?x128xbf16> to memref<6x128xbf16, strided<[128, 1]>>
  %routed_gate_up = memref.subview %gate_up[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 768>>
  llm.moe_quant_matmul hidden_states(%shared_rows : memref<6x128xi8, strided<[128, 1]>>)
      per_token_scale(%shared_scale : memref<6xf32, strided<[1]>>)
      expert_weight(%shared_up_weight : memref<128x128xi8>)
      expert_scale(%shared_up_scale : memref<128xf32>)
      -> y(%shared_gate_up : memref<6x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_rows : memref<?x128xi8, strided<[128, 1], offset: 768>>)
      per_token_scale(%routed_scale : memref<?xf32, strided<[1], offset: 6>>)
      experts_weight(%up_weight : memref<4x128x128xi8>)
      experts_scale(%up_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%routed_gate_up : memref<?x128xbf16, strided<[128, 1], offset: 768>>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<5x64xf32>)
      experts_tokens_count(%counts : memref<4xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 12 : i32,
       num_tokens_per_rank = 6 : i32}
  %shared_act = memref.subview %act[0, 0] [6, 64] [1, 1]
      : memref<?x64xi8> to memref<6x64xi8, strided<[64, 1]>>
  %shared_act_scale = memref.subview %act_scale[0] [6] [1]
      : memref<?xf32> to memref<6xf32, strided<[1]>>
  %routed_act = memref.subview %act[6, 0] [%allocated, 64] [1, 1]
      : memref<?x64xi8> to memref<?x64xi8, strided<[64, 1], offset: 384>>
  %routed_act_scale = memref.subview %act_scale[6] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 6>>
  %shared_down = memref.subview %down[0, 0] [6, 128] [1, 1]
      : memref<?x128xbf16> to memref<6x128xbf16, strided<[128, 1]>>
  %routed_down = memref.subview %down[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 768>>
  llm.moe_quant_matmul hidden_states(%shared_act : memref<6x64xi8, strided<[64, 1]>>)
      per_token_scale(%shared_act_scale : memref<6xf32, strided<[1]>>)
      expert_weight(%shared_down_weight : memref<64x128xi8>)
      expert_scale(%shared_down_scale : memref<128xf32>)
      -> y(%shared_down : memref<6x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_act : memref<?x64xi8, strided<[64, 1], offset: 384>>)
      per_token_scale(%routed_act_scale : memref<?xf32, strided<[1], offset: 6>>)
      experts_weight(%down_weight : memref<4x64x128xi8>)
      experts_scale(%down_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%routed_down : memref<?x128xbf16, strided<[128, 1], offset: 768>>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 12 : i32,
       num_tokens_per_rank = 6 : i32}
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep4
  return
}

// Rank 3 of 4 with the shared expert: experts [12, 16), tokens [18, 24).
func.func @layer_shared_ep4_r3(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<5x128xf32>, %up_weight: memref<4x128x128xi8>,
    %up_scale: memref<4x128xf32>, %shared_up_weight: memref<128x128xi8>,
    %shared_up_scale: memref<128xf32>, %smooth_down: memref<5x64xf32>,
    %down_weight: memref<4x64x128xi8>, %down_scale: memref<4x128xf32>,
    %shared_down_weight: memref<64x128xi8>, %shared_down_scale: memref<128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<4xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %shared = arith.constant 6 : index
  %all = memref.dim %rows, %c0 : memref<?x128xi8>
  %allocated = arith.subi %all, %shared : index
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<5x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<4xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {expert_start_idx = 12 : i32, expert_end_idx = 16 : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 18 : i32,
       num_tokens_per_rank = 6 : i32}
  // The shared expert's rows [0, 6), the routed rows after them.
  %shared_rows = memref.subview %rows[0, 0] [6, 128] [1, 1]
      : memref<?x128xi8> to memref<6x128xi8, strided<[128, 1]>>
  %shared_scale = memref.subview %row_scale[0] [6] [1]
      : memref<?xf32> to memref<6xf32, strided<[1]>>
  %routed_rows = memref.subview %rows[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xi8> to memref<?x128xi8, strided<[128, 1], offset: 768>>
  %routed_scale = memref.subview %row_scale[6] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 6>>
  %shared_gate_up = memref.subview %gate_up[0, 0] [6, 128] [1, 1]
      : memref<?x128xbf16> to memref<6x128xbf16, strided<[128, 1]>>
  %routed_gate_up = memref.subview %gate_up[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 768>>
  llm.moe_quant_matmul hidden_states(%shared_rows : memref<6x128xi8, strided<[128, 1]>>)
      per_token_scale(%shared_scale : memref<6xf32, strided<[1]>>)
      expert_weight(%shared_up_weight : memref<128x128xi8>)
      expert_scale(%shared_up_scale : memref<128xf32>)
      -> y(%shared_gate_up : memref<6x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_rows : memref<?x128xi8, strided<[128, 1], offset: 768>>)
      per_token_scale(%routed_scale : memref<?xf32, strided<[1], offset: 6>>)
      experts_weight(%up_weight : memref<4x128x128xi8>)
      experts_scale(%up_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%routed_gate_up : memref<?x128xbf16, strided<[128, 1], offset: 768>>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<5x64xf32>)
      experts_tokens_count(%counts : memref<4xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 18 : i32,
       num_tokens_per_rank = 6 : i32}
  %shared_act = memref.subview %act[0, 0] [6, 64] [1, 1]
      : memref<?x64xi8> to memref<6x64xi8, strided<[64, 1]>>
  %shared_act_scale = memref.subview %act_scale[0] [6] [1]
      : memref<?xf32> to memref<6xf32, strided<[1]>>
  %routed_act = memref.subview %act[6, 0] [%allocated, 64] [1, 1]
      : memref<?x64xi8> to memref<?x64xi8, strided<[64, 1], offset: 384>>
  %routed_act_scale = memref.subview %act_scale[6] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 6>>
  %shared_down = memref.subview %down[0, 0] [6, 128] [1, 1]
      : memref<?x128xbf16> to memref<6x128xbf16, strided<[128, 1]>>
  %routed_down = memref.subview %down[6, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 768>>
  llm.moe_quant_matmul hidden_states(%shared_act : memref<6x64xi8, strided<[64, 1]>>)
      per_token_scale(%shared_act_scale : memref<6xf32, strided<[1]>>)
      expert_weight(%shared_down_weight : memref<64x128xi8>)
      expert_scale(%shared_down_scale : memref<128xf32>)
      -> y(%shared_down : memref<6x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_act : memref<?x64xi8, strided<[64, 1], offset: 384>>)
      per_token_scale(%routed_act_scale : memref<?xf32, strided<[1], offset: 6>>)
      experts_weight(%down_weight : memref<4x64x128xi8>)
      experts_scale(%down_scale : memref<4x128xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%routed_down : memref<?x128xbf16, strided<[128, 1], offset: 768>>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 18 : i32,
       num_tokens_per_rank = 6 : i32}
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep4
  return
}
