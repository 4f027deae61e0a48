// Every rule of the MoE verifiers, one expected error each.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

func.func @gating_dims(%x: memref<?x256xbf16>, %w: memref<128x16xbf16>, %y: memref<?x16xbf16>) {
  // expected-error @+1 {{'weight' has hidden_size = 128 but 'hidden_states' has hidden_size = 256}}
  llm.moe_gating_gemm hidden_states(%x : memref<?x256xbf16>) weight(%w : memref<128x16xbf16>) -> y(%y : memref<?x16xbf16>)
  return
}

// -----

func.func @gating_experts(%x: memref<?x256xbf16>, %w: memref<256x16xbf16>, %y: memref<?x8xbf16>) {
  // expected-error @+1 {{'y' has num_experts = 8 but 'weight' has num_experts = 16}}
  llm.moe_gating_gemm hidden_states(%x : memref<?x256xbf16>) weight(%w : memref<256x16xbf16>) -> y(%y : memref<?x8xbf16>)
  return
}

// -----

func.func @topk_too_large(%l: memref<?x4xbf16>, %ids: memref<?x8xi32>, %w: memref<?x8xf32>) {
  // expected-error @+1 {{topk = 8 is larger than num_experts = 4}}
  llm.moe_softmax_topk hidden_states(%l : memref<?x4xbf16>) -> selected_experts(%ids : memref<?x8xi32>) expert_weights(%w : memref<?x8xf32>)
  return
}

// -----

func.func @topk_zero(%l: memref<?x4xbf16>, %ids: memref<?x0xi32>, %w: memref<?x0xf32>) {
  // expected-error @+1 {{topk (the outputs' second dimension) must be at least 1, got 0}}
  llm.moe_softmax_topk hidden_states(%l : memref<?x4xbf16>) -> selected_experts(%ids : memref<?x0xi32>) expert_weights(%w : memref<?x0xf32>)
  return
}

// -----

func.func @topk_ids_dtype(%l: memref<?x16xbf16>, %ids: memref<?x2xf32>, %w: memref<?x2xf32>) {
  // expected-error @+1 {{'selected_experts' must hold i32, got 'memref<?x2xf32>'}}
  llm.moe_softmax_topk hidden_states(%l : memref<?x16xbf16>) -> selected_experts(%ids : memref<?x2xf32>) expert_weights(%w : memref<?x2xf32>)
  return
}

// -----

func.func @topk_mismatch(%l: memref<?x16xbf16>, %ids: memref<?x2xi32>, %w: memref<?x4xf32>) {
  // expected-error @+1 {{'expert_weights' has topk = 4 but 'selected_experts' has topk = 2}}
  llm.moe_softmax_topk hidden_states(%l : memref<?x16xbf16>) -> selected_experts(%ids : memref<?x2xi32>) expert_weights(%w : memref<?x4xf32>)
  return
}

// -----

func.func @scatter_range(%x: memref<?x64xbf16>, %ids: memref<?x2xi32>, %s: memref<4x64xf32>, %r: memref<?x64xi8>, %rs: memref<?xf32>, %c: memref<4xi32>, %o: memref<?xi32>) {
  // expected-error @+1 {{expert_end_idx = 4 must be larger than expert_start_idx = 4 (the rank's experts [start, end))}}
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<?x64xbf16>) selected_experts(%ids : memref<?x2xi32>) smooth_scale(%s : memref<4x64xf32>) -> scatter_tokens(%r : memref<?x64xi8>) scatter_per_token_scale(%rs : memref<?xf32>) experts_token_count(%c : memref<4xi32>) token_offset(%o : memref<?xi32>) {expert_start_idx = 4 : i32, expert_end_idx = 4 : i32}
  return
}

// -----

func.func @scatter_negative_start(%x: memref<?x64xbf16>, %ids: memref<?x2xi32>, %s: memref<4x64xf32>, %r: memref<?x64xi8>, %rs: memref<?xf32>, %c: memref<4xi32>, %o: memref<?xi32>) {
  // expected-error @+1 {{expert_start_idx must be non-negative, got -1}}
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<?x64xbf16>) selected_experts(%ids : memref<?x2xi32>) smooth_scale(%s : memref<4x64xf32>) -> scatter_tokens(%r : memref<?x64xi8>) scatter_per_token_scale(%rs : memref<?xf32>) experts_token_count(%c : memref<4xi32>) token_offset(%o : memref<?xi32>) {expert_start_idx = -1 : i32, expert_end_idx = 3 : i32}
  return
}

// -----

func.func @scatter_counts(%x: memref<?x64xbf16>, %ids: memref<?x2xi32>, %s: memref<4x64xf32>, %r: memref<?x64xi8>, %rs: memref<?xf32>, %c: memref<8xi32>, %o: memref<?xi32>) {
  // expected-error @+1 {{'experts_token_count' has num_experts_per_rank = 8 but expert_end_idx - expert_start_idx has num_experts_per_rank = 4}}
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<?x64xbf16>) selected_experts(%ids : memref<?x2xi32>) smooth_scale(%s : memref<4x64xf32>) -> scatter_tokens(%r : memref<?x64xi8>) scatter_per_token_scale(%rs : memref<?xf32>) experts_token_count(%c : memref<8xi32>) token_offset(%o : memref<?xi32>) {expert_start_idx = 0 : i32, expert_end_idx = 4 : i32}
  return
}

// -----

func.func @scatter_smooth_rows(%x: memref<?x64xbf16>, %ids: memref<?x2xi32>, %s: memref<4x64xf32>, %r: memref<?x64xi8>, %rs: memref<?xf32>, %c: memref<4xi32>, %o: memref<?xi32>) {
  // expected-error @+1 {{'smooth_scale' has 4 rows but num_shared_experts_per_rank + num_experts_per_rank = 1 + 4 = 5}}
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<?x64xbf16>) selected_experts(%ids : memref<?x2xi32>) smooth_scale(%s : memref<4x64xf32>) -> scatter_tokens(%r : memref<?x64xi8>) scatter_per_token_scale(%rs : memref<?xf32>) experts_token_count(%c : memref<4xi32>) token_offset(%o : memref<?xi32>) {expert_start_idx = 4 : i32, expert_end_idx = 8 : i32, num_shared_experts_per_rank = 1 : i32, num_tokens_per_rank = 4 : i32}
  return
}

// -----

func.func @scatter_rows(%x: memref<16x64xbf16>, %ids: memref<16x2xi32>, %s: memref<5x64xf32>, %r: memref<40x64xi8>, %rs: memref<40xf32>, %c: memref<4xi32>, %o: memref<40xi32>) {
  // expected-error @+1 {{'scatter_tokens' has 40 rows but num_shared_experts_per_rank * num_tokens_per_rank + allocated_tokens = 1 * 8 + 40 = 48}}
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<16x64xbf16>) selected_experts(%ids : memref<16x2xi32>) smooth_scale(%s : memref<5x64xf32>) -> scatter_tokens(%r : memref<40x64xi8>) scatter_per_token_scale(%rs : memref<40xf32>) experts_token_count(%c : memref<4xi32>) token_offset(%o : memref<40xi32>) {expert_start_idx = 4 : i32, expert_end_idx = 8 : i32, num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 8 : i32, num_tokens_per_rank = 8 : i32}
  return
}

// -----

func.func @scatter_token_range(%x: memref<16x64xbf16>, %ids: memref<16x2xi32>, %s: memref<5x64xf32>, %r: memref<?x64xi8>, %rs: memref<?xf32>, %c: memref<4xi32>, %o: memref<?xi32>) {
  // expected-error @+1 {{the rank's tokens [12, 20) are not inside the 16 tokens}}
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<16x64xbf16>) selected_experts(%ids : memref<16x2xi32>) smooth_scale(%s : memref<5x64xf32>) -> scatter_tokens(%r : memref<?x64xi8>) scatter_per_token_scale(%rs : memref<?xf32>) experts_token_count(%c : memref<4xi32>) token_offset(%o : memref<?xi32>) {expert_start_idx = 4 : i32, expert_end_idx = 8 : i32, num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 12 : i32, num_tokens_per_rank = 8 : i32}
  return
}

// -----

func.func @scatter_shared_without_tokens(%x: memref<16x64xbf16>, %ids: memref<16x2xi32>, %s: memref<5x64xf32>, %r: memref<?x64xi8>, %rs: memref<?xf32>, %c: memref<4xi32>, %o: memref<?xi32>) {
  // expected-error @+1 {{has 1 shared experts but num_tokens_per_rank = 0 (the tokens they see on this rank)}}
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<16x64xbf16>) selected_experts(%ids : memref<16x2xi32>) smooth_scale(%s : memref<5x64xf32>) -> scatter_tokens(%r : memref<?x64xi8>) scatter_per_token_scale(%rs : memref<?xf32>) experts_token_count(%c : memref<4xi32>) token_offset(%o : memref<?xi32>) {expert_start_idx = 4 : i32, expert_end_idx = 8 : i32, num_shared_experts_per_rank = 1 : i32}
  return
}

// -----

func.func @scatter_quantized(%x: memref<?x64xbf16>, %ids: memref<?x2xi32>, %s: memref<4x64xf32>, %r: memref<?x64xbf16>, %rs: memref<?xf32>, %c: memref<4xi32>, %o: memref<?xi32>) {
  // expected-error @+1 {{'scatter_tokens' must hold i8, got 'memref<?x64xbf16>'}}
  llm.moe_scatter_dynamic_quant hidden_states(%x : memref<?x64xbf16>) selected_experts(%ids : memref<?x2xi32>) smooth_scale(%s : memref<4x64xf32>) -> scatter_tokens(%r : memref<?x64xbf16>) scatter_per_token_scale(%rs : memref<?xf32>) experts_token_count(%c : memref<4xi32>) token_offset(%o : memref<?xi32>) {expert_start_idx = 0 : i32, expert_end_idx = 4 : i32}
  return
}

// -----

func.func @shared_matmul(%x: memref<8x256xi8>, %s: memref<8xf32>, %w: memref<256x512xi8>, %ws: memref<1024xf32>, %y: memref<8x512xbf16>) {
  // expected-error @+1 {{'expert_scale' has new_hidden_size = 1024 but 'expert_weight' has new_hidden_size = 512}}
  llm.moe_quant_matmul hidden_states(%x : memref<8x256xi8>) per_token_scale(%s : memref<8xf32>) expert_weight(%w : memref<256x512xi8>) expert_scale(%ws : memref<1024xf32>) -> y(%y : memref<8x512xbf16>)
  return
}

// -----

func.func @group_gemm_experts(%x: memref<?x256xi8>, %s: memref<?xf32>, %w: memref<4x256x512xi8>, %ws: memref<4x512xf32>, %c: memref<8xi32>, %y: memref<?x512xbf16>) {
  // expected-error @+1 {{'experts_token_count' has num_experts_per_rank = 8 but 'experts_weight' has num_experts_per_rank = 4}}
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x256xi8>) per_token_scale(%s : memref<?xf32>) experts_weight(%w : memref<4x256x512xi8>) experts_scale(%ws : memref<4x512xf32>) experts_token_count(%c : memref<8xi32>) -> y(%y : memref<?x512xbf16>)
  return
}

// -----

func.func @group_gemm_weight_dtype(%x: memref<?x256xi8>, %s: memref<?xf32>, %w: memref<4x256x512xbf16>, %ws: memref<4x512xf32>, %c: memref<4xi32>, %y: memref<?x512xbf16>) {
  // expected-error @+1 {{'experts_weight' must hold i8, got 'memref<4x256x512xbf16>'}}
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x256xi8>) per_token_scale(%s : memref<?xf32>) experts_weight(%w : memref<4x256x512xbf16>) experts_scale(%ws : memref<4x512xf32>) experts_token_count(%c : memref<4xi32>) -> y(%y : memref<?x512xbf16>)
  return
}

// -----

func.func @group_gemm_n_tile_align(%x: memref<?x256xi8>, %s: memref<?xf32>, %w: memref<4x256x512xi8>, %ws: memref<4x512xf32>, %c: memref<4xi32>, %y: memref<?x512xbf16>) {
  // expected-error @+1 {{'n_tile' must be a multiple of 16 from 16 to 128 (whole 32-byte rows of its bf16 output, at most the cube's widest N tile), got 24}}
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x256xi8>) per_token_scale(%s : memref<?xf32>) experts_weight(%w : memref<4x256x512xi8>) experts_scale(%ws : memref<4x512xf32>) experts_token_count(%c : memref<4xi32>) -> y(%y : memref<?x512xbf16>) {n_tile = 24 : i32}
  return
}

// -----

func.func @group_gemm_n_tile_wide(%x: memref<?x256xi8>, %s: memref<?xf32>, %w: memref<4x256x512xi8>, %ws: memref<4x512xf32>, %c: memref<4xi32>, %y: memref<?x512xbf16>) {
  // expected-error @+1 {{got 256}}
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x256xi8>) per_token_scale(%s : memref<?xf32>) experts_weight(%w : memref<4x256x512xi8>) experts_scale(%ws : memref<4x512xf32>) experts_token_count(%c : memref<4xi32>) -> y(%y : memref<?x512xbf16>) {n_tile = 256 : i32}
  return
}

// -----

func.func @group_gemm_n_tile_divides(%x: memref<?x256xi8>, %s: memref<?xf32>, %w: memref<4x256x320xi8>, %ws: memref<4x320xf32>, %c: memref<4xi32>, %y: memref<?x320xbf16>) {
  // expected-error @+1 {{'n_tile' 128 does not divide new_hidden_size 320: every work unit computes whole N tiles}}
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x256xi8>) per_token_scale(%s : memref<?xf32>) experts_weight(%w : memref<4x256x320xi8>) experts_scale(%ws : memref<4x320xf32>) experts_token_count(%c : memref<4xi32>) -> y(%y : memref<?x320xbf16>) {n_tile = 128 : i32}
  return
}

// -----

func.func @swiglu_width(%x: memref<?x1000xbf16>, %s: memref<4x512xf32>, %c: memref<4xi32>, %y: memref<?x512xi8>, %ys: memref<?xf32>) {
  // expected-error @+1 {{'scatter_tokens' has 1000 columns but holds gate and up side by side: 2 * hidden_size = 1024}}
  llm.moe_swiglu_dynamic_quant scatter_tokens(%x : memref<?x1000xbf16>) smooth_scale(%s : memref<4x512xf32>) experts_tokens_count(%c : memref<4xi32>) -> y(%y : memref<?x512xi8>) per_token_scale(%ys : memref<?xf32>)
  return
}

// -----

func.func @swiglu_shared_rows(%x: memref<4x1024xbf16>, %s: memref<5x512xf32>, %c: memref<4xi32>, %y: memref<4x512xi8>, %ys: memref<4xf32>) {
  // expected-error @+1 {{'scatter_tokens' has 4 rows, fewer than the 8 rows of the shared experts}}
  llm.moe_swiglu_dynamic_quant scatter_tokens(%x : memref<4x1024xbf16>) smooth_scale(%s : memref<5x512xf32>) experts_tokens_count(%c : memref<4xi32>) -> y(%y : memref<4x512xi8>) per_token_scale(%ys : memref<4xf32>) {num_shared_experts_per_rank = 1 : i32, num_tokens_per_rank = 8 : i32}
  return
}

// -----

func.func @swiglu_negative(%x: memref<?x1024xbf16>, %s: memref<4x512xf32>, %c: memref<4xi32>, %y: memref<?x512xi8>, %ys: memref<?xf32>) {
  // expected-error @+1 {{num_tokens_offset must be non-negative, got -3}}
  llm.moe_swiglu_dynamic_quant scatter_tokens(%x : memref<?x1024xbf16>) smooth_scale(%s : memref<4x512xf32>) experts_tokens_count(%c : memref<4xi32>) -> y(%y : memref<?x512xi8>) per_token_scale(%ys : memref<?xf32>) {num_tokens_offset = -3 : i32}
  return
}

// -----

func.func @gather_rows(%x: memref<40x256xbf16>, %o: memref<40xi32>, %w: memref<16x2xf32>, %h: memref<16x256xbf16>) {
  // expected-error @+1 {{'scatter_tokens' has 40 rows but num_shared_experts_per_rank * num_tokens_per_rank + allocated_tokens = 1 * 8 + 40 = 48}}
  llm.moe_gather scatter_tokens(%x : memref<40x256xbf16>) token_offset(%o : memref<40xi32>) expert_weights(%w : memref<16x2xf32>) -> hidden_states(%h : memref<16x256xbf16>) {num_shared_experts_per_rank = 1 : i32, num_tokens_offset = 0 : i32, num_tokens_per_rank = 8 : i32}
  return
}

// -----

func.func @gather_tokens(%x: memref<?x256xbf16>, %o: memref<?xi32>, %w: memref<8x2xf32>, %h: memref<16x256xbf16>) {
  // expected-error @+1 {{'hidden_states' has num_tokens = 16 but 'expert_weights' has num_tokens = 8}}
  llm.moe_gather scatter_tokens(%x : memref<?x256xbf16>) token_offset(%o : memref<?xi32>) expert_weights(%w : memref<8x2xf32>) -> hidden_states(%h : memref<16x256xbf16>)
  return
}
