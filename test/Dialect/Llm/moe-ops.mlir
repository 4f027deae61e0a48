// Round trip of the MoE chain of seed 002 on one expert-parallel rank:
// 16 experts, top 2, this rank holds routed experts [4, 8) and one shared
// expert that sees tokens [8, 16); 40 rows allocated for routed tokens.
// Custom and generic syntax.
// RUN: wsp-opt %s | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | wsp-opt | FileCheck %s

// CHECK-LABEL: func.func @moe_layer
func.func @moe_layer(%x: memref<16x256xbf16>, %gate_w: memref<256x16xbf16>,
                     %logits: memref<16x16xbf16>, %ids: memref<16x2xi32>,
                     %weights: memref<16x2xf32>,
                     %smooth: memref<5x256xf32>, %smooth_down: memref<5x512xf32>,
                     %rows: memref<48x256xi8>, %row_scale: memref<48xf32>,
                     %counts: memref<4xi32>, %offsets: memref<40xi32>,
                     %w_up: memref<4x256x1024xi8>, %s_up: memref<4x1024xf32>,
                     %up: memref<40x1024xbf16>,
                     %act: memref<48x512xi8>, %act_scale: memref<48xf32>,
                     %gate_up: memref<48x1024xbf16>,
                     %shared_x: memref<8x256xi8>, %shared_scale: memref<8xf32>,
                     %shared_w: memref<256x1024xi8>, %shared_s: memref<1024xf32>,
                     %shared_y: memref<8x1024xbf16>,
                     %down: memref<48x256xbf16>, %out: memref<16x256xbf16>) {
  // CHECK: llm.moe_gating_gemm hidden_states(%{{.*}} : memref<16x256xbf16>) weight(%{{.*}} : memref<256x16xbf16>) -> y(%{{.*}} : memref<16x16xbf16>)
  llm.moe_gating_gemm hidden_states(%x : memref<16x256xbf16>)
      weight(%gate_w : memref<256x16xbf16>) -> y(%logits : memref<16x16xbf16>)
  // CHECK: llm.moe_softmax_topk hidden_states(%{{.*}} : memref<16x16xbf16>) -> selected_experts(%{{.*}} : memref<16x2xi32>) expert_weights(%{{.*}} : memref<16x2xf32>)
  llm.moe_softmax_topk hidden_states(%logits : memref<16x16xbf16>)
      -> selected_experts(%ids : memref<16x2xi32>)
         expert_weights(%weights : memref<16x2xf32>)
  // CHECK: llm.moe_scatter_dynamic_quant hidden_states(%{{.*}}) selected_experts(%{{.*}}) smooth_scale(%{{.*}} : memref<5x256xf32>) -> scatter_tokens(%{{.*}} : memref<48x256xi8>) scatter_per_token_scale(%{{.*}} : memref<48xf32>) experts_token_count(%{{.*}} : memref<4xi32>) token_offset(%{{.*}} : memref<40xi32>) {expert_end_idx = 8 : i32, expert_start_idx = 4 : i32, num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 8 : i32, num_tokens_per_rank = 8 : i32}
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<16x256xbf16>)
      selected_experts(%ids : memref<16x2xi32>)
      smooth_scale(%smooth : memref<5x256xf32>)
      -> scatter_tokens(%rows : memref<48x256xi8>)
         scatter_per_token_scale(%row_scale : memref<48xf32>)
         experts_token_count(%counts : memref<4xi32>)
         token_offset(%offsets : memref<40xi32>)
      {expert_start_idx = 4 : i32, expert_end_idx = 8 : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 8 : i32,
       num_tokens_per_rank = 8 : i32}
  // The shared expert's gate/up projection.
  // CHECK: llm.moe_quant_matmul hidden_states(%{{.*}} : memref<8x256xi8>) per_token_scale(%{{.*}} : memref<8xf32>) expert_weight(%{{.*}} : memref<256x1024xi8>) expert_scale(%{{.*}} : memref<1024xf32>) -> y(%{{.*}} : memref<8x1024xbf16>)
  llm.moe_quant_matmul hidden_states(%shared_x : memref<8x256xi8>)
      per_token_scale(%shared_scale : memref<8xf32>)
      expert_weight(%shared_w : memref<256x1024xi8>)
      expert_scale(%shared_s : memref<1024xf32>)
      -> y(%shared_y : memref<8x1024xbf16>)
  // The routed experts' gate/up projection.
  // CHECK: llm.moe_quant_group_gemm scatter_tokens(%{{.*}} : memref<48x256xi8>) per_token_scale(%{{.*}} : memref<48xf32>) experts_weight(%{{.*}} : memref<4x256x1024xi8>) experts_scale(%{{.*}} : memref<4x1024xf32>) experts_token_count(%{{.*}} : memref<4xi32>) -> y(%{{.*}} : memref<48x1024xbf16>)
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<48x256xi8>)
      per_token_scale(%row_scale : memref<48xf32>)
      experts_weight(%w_up : memref<4x256x1024xi8>)
      experts_scale(%s_up : memref<4x1024xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%gate_up : memref<48x1024xbf16>)
  // A prefill step's wider N tiles.
  // CHECK: llm.moe_quant_group_gemm {{.*}} -> y(%{{.*}} : memref<48x1024xbf16>) {n_tile = 128 : i32}
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<48x256xi8>)
      per_token_scale(%row_scale : memref<48xf32>)
      experts_weight(%w_up : memref<4x256x1024xi8>)
      experts_scale(%s_up : memref<4x1024xf32>)
      experts_token_count(%counts : memref<4xi32>)
      -> y(%gate_up : memref<48x1024xbf16>) {n_tile = 128 : i32}
  // CHECK: llm.moe_swiglu_dynamic_quant scatter_tokens(%{{.*}} : memref<48x1024xbf16>) smooth_scale(%{{.*}} : memref<5x512xf32>) experts_tokens_count(%{{.*}} : memref<4xi32>) -> y(%{{.*}} : memref<48x512xi8>) per_token_scale(%{{.*}} : memref<48xf32>) {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 8 : i32, num_tokens_per_rank = 8 : i32}
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<48x1024xbf16>)
      smooth_scale(%smooth_down : memref<5x512xf32>)
      experts_tokens_count(%counts : memref<4xi32>)
      -> y(%act : memref<48x512xi8>) per_token_scale(%act_scale : memref<48xf32>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 8 : i32,
       num_tokens_per_rank = 8 : i32}
  // CHECK: llm.moe_gather scatter_tokens(%{{.*}} : memref<48x256xbf16>) token_offset(%{{.*}} : memref<40xi32>) expert_weights(%{{.*}} : memref<16x2xf32>) -> hidden_states(%{{.*}} : memref<16x256xbf16>) {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 8 : i32, num_tokens_per_rank = 8 : i32}
  llm.moe_gather scatter_tokens(%down : memref<48x256xbf16>)
      token_offset(%offsets : memref<40xi32>)
      expert_weights(%weights : memref<16x2xf32>)
      -> hidden_states(%out : memref<16x256xbf16>)
      {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 8 : i32,
       num_tokens_per_rank = 8 : i32}
  return
}

// Without shared experts the attributes take their defaults (not printed);
// dynamic token counts; bf16 weights.
// CHECK-LABEL: func.func @routed_only
func.func @routed_only(%x: memref<?x128xbf16>, %ids: memref<?x8xi32>,
                       %logits: memref<?x64xbf16>, %w: memref<?x8xbf16>,
                       %smooth: memref<64x128xf32>, %rows: memref<?x128xi8>,
                       %scale: memref<?xf32>, %counts: memref<64xi32>,
                       %offsets: memref<?xi32>, %back: memref<?x128xbf16>,
                       %out: memref<?x128xbf16>) {
  // CHECK: llm.moe_softmax_topk hidden_states(%{{.*}}) -> selected_experts(%{{.*}} : memref<?x8xi32>) expert_weights(%{{.*}} : memref<?x8xbf16>)
  llm.moe_softmax_topk hidden_states(%logits : memref<?x64xbf16>)
      -> selected_experts(%ids : memref<?x8xi32>) expert_weights(%w : memref<?x8xbf16>)
  // CHECK: llm.moe_scatter_dynamic_quant {{.*}} {expert_end_idx = 64 : i32, expert_start_idx = 0 : i32}
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<?x128xbf16>)
      selected_experts(%ids : memref<?x8xi32>)
      smooth_scale(%smooth : memref<64x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%scale : memref<?xf32>)
         experts_token_count(%counts : memref<64xi32>)
         token_offset(%offsets : memref<?xi32>)
      {expert_start_idx = 0 : i32, expert_end_idx = 64 : i32}
  // CHECK: llm.moe_gather {{.*}} -> hidden_states(%{{.*}} : memref<?x128xbf16>){{$}}
  llm.moe_gather scatter_tokens(%back : memref<?x128xbf16>)
      token_offset(%offsets : memref<?xi32>)
      expert_weights(%w : memref<?x8xbf16>)
      -> hidden_states(%out : memref<?x128xbf16>)
  return
}
