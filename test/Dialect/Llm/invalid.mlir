// Every rule of the llm verifiers, one expected error each.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

// == Shapes, ranks, dtypes: the Signature checks every op shares ==

func.func @dtype(%x: memref<?x64xf16>, %s: memref<64xf32>, %y: memref<?x64xi8>, %sc: memref<?xf32>) {
  // expected-error @+1 {{'hidden_states' must hold bf16, got 'memref<?x64xf16>'}}
  llm.scale_dynamic_quant hidden_states(%x : memref<?x64xf16>) smooth_scale(%s : memref<64xf32>) -> y(%y : memref<?x64xi8>) scale(%sc : memref<?xf32>)
  return
}

// -----

func.func @out_dtype(%x: memref<?x64xbf16>, %s: memref<64xf32>, %y: memref<?x64xbf16>, %sc: memref<?xf32>) {
  // expected-error @+1 {{'y' must hold i8, got 'memref<?x64xbf16>'}}
  llm.scale_dynamic_quant hidden_states(%x : memref<?x64xbf16>) smooth_scale(%s : memref<64xf32>) -> y(%y : memref<?x64xbf16>) scale(%sc : memref<?xf32>)
  return
}

// -----

func.func @rank(%x: memref<?x64xbf16>, %s: memref<64xf32>, %y: memref<?x64xi8>, %sc: memref<?x1xf32>) {
  // expected-error @+1 {{'scale' must have rank 1 [num_tokens], got 'memref<?x1xf32>'}}
  llm.scale_dynamic_quant hidden_states(%x : memref<?x64xbf16>) smooth_scale(%s : memref<64xf32>) -> y(%y : memref<?x64xi8>) scale(%sc : memref<?x1xf32>)
  return
}

// -----

func.func @dim(%x: memref<?x64xbf16>, %s: memref<128xf32>, %y: memref<?x64xi8>, %sc: memref<?xf32>) {
  // expected-error @+1 {{'smooth_scale' has hidden_size = 128 but 'hidden_states' has hidden_size = 64}}
  llm.scale_dynamic_quant hidden_states(%x : memref<?x64xbf16>) smooth_scale(%s : memref<128xf32>) -> y(%y : memref<?x64xi8>) scale(%sc : memref<?xf32>)
  return
}

// -----

func.func @tokens(%x: memref<8x64xbf16>, %s: memref<64xf32>, %y: memref<8x64xi8>, %sc: memref<4xf32>) {
  // expected-error @+1 {{'scale' has num_tokens = 4 but 'hidden_states' has num_tokens = 8}}
  llm.scale_dynamic_quant hidden_states(%x : memref<8x64xbf16>) smooth_scale(%s : memref<64xf32>) -> y(%y : memref<8x64xi8>) scale(%sc : memref<4xf32>)
  return
}

// == rms_norm ==

// -----

func.func @residual_without_after_res(%x: memref<?x64xbf16>, %w: memref<64xf32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{has 'residual' but no 'after_res' output to write}}
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) residual(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) -> y(%y : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  return
}

// -----

func.func @after_res_without_residual(%x: memref<?x64xbf16>, %w: memref<64xf32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{has an 'after_res' output but no 'residual'}}
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) -> y(%y : memref<?x64xbf16>) after_res(%y : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  return
}

// -----

func.func @weight_f32_only(%x: memref<?x64xbf16>, %w: memref<64xbf16>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{'weight' must hold f32, got 'memref<64xbf16>'}}
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xbf16>) -> y(%y : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  return
}

// -----

func.func @eps_negative(%x: memref<?x64xbf16>, %w: memref<64xf32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{eps must be finite and non-negative, got -1.0}}
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) -> y(%y : memref<?x64xbf16>) {eps = -1.0 : f32}
  return
}

// -----

func.func @eps_nan(%x: memref<?x64xbf16>, %w: memref<64xf32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{eps must be finite and non-negative}}
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) -> y(%y : memref<?x64xbf16>) {eps = 0x7FC00000 : f32}
  return
}

// -----

func.func @residual_shape(%x: memref<?x64xbf16>, %r: memref<?x32xbf16>, %w: memref<64xf32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{'residual' has hidden_size = 32 but 'hidden_states' has hidden_size = 64}}
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) residual(%r : memref<?x32xbf16>) weight(%w : memref<64xf32>) -> y(%y : memref<?x64xbf16>) after_res(%y : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  return
}

// == add_rms_norm_dynamic_quant ==

// -----

func.func @smooth_scale_dtype(%x: memref<?x64xbf16>, %w: memref<64xf32>, %s: memref<64xi8>, %y: memref<?x64xi8>, %pts: memref<?xf32>) {
  // expected-error @+1 {{'smooth_scale' must hold bf16 or f32, got 'memref<64xi8>'}}
  llm.add_rms_norm_dynamic_quant hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) smooth_scale(%s : memref<64xi8>) -> y(%y : memref<?x64xi8>) per_token_scale(%pts : memref<?xf32>) {eps = 1.0e-6 : f32}
  return
}

// -----

func.func @quant_residual(%x: memref<?x64xbf16>, %w: memref<64xf32>, %y: memref<?x64xi8>, %pts: memref<?xf32>) {
  // expected-error @+1 {{has 'residual' but no 'after_res' output to write}}
  llm.add_rms_norm_dynamic_quant hidden_states(%x : memref<?x64xbf16>) residual(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) smooth_scale(%w : memref<64xf32>) -> y(%y : memref<?x64xi8>) per_token_scale(%pts : memref<?xf32>) {eps = 1.0e-6 : f32}
  return
}

// -----

func.func @quant_out_dtype(%x: memref<?x64xbf16>, %w: memref<64xf32>, %y: memref<?x64xbf16>, %pts: memref<?xf32>) {
  // expected-error @+1 {{'y' must hold i8}}
  llm.add_rms_norm_dynamic_quant hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) smooth_scale(%w : memref<64xf32>) -> y(%y : memref<?x64xbf16>) per_token_scale(%pts : memref<?xf32>) {eps = 1.0e-6 : f32}
  return
}

// == quant_matmul ==

// -----

func.func @mm_a_dtype(%a: memref<?x64xbf16>, %p: memref<?xf32>, %w: memref<64x32xi8>, %s: memref<32xf32>, %y: memref<?x32xbf16>) {
  // expected-error @+1 {{'hidden_states' must hold i8}}
  llm.quant_matmul hidden_states(%a : memref<?x64xbf16>) per_token_scale(%p : memref<?xf32>) weight(%w : memref<64x32xi8>) weight_scale(%s : memref<32xf32>) -> y(%y : memref<?x32xbf16>)
  return
}

// -----

func.func @mm_k(%a: memref<?x64xi8>, %p: memref<?xf32>, %w: memref<128x32xi8>, %s: memref<32xf32>, %y: memref<?x32xbf16>) {
  // expected-error @+1 {{'weight' has hidden_size = 128 but 'hidden_states' has hidden_size = 64}}
  llm.quant_matmul hidden_states(%a : memref<?x64xi8>) per_token_scale(%p : memref<?xf32>) weight(%w : memref<128x32xi8>) weight_scale(%s : memref<32xf32>) -> y(%y : memref<?x32xbf16>)
  return
}

// -----

func.func @mm_transpose_b(%a: memref<?x64xi8>, %p: memref<?xf32>, %w: memref<64x32xi8>, %s: memref<32xf32>, %y: memref<?x32xbf16>) {
  // expected-error @+1 {{'weight' has hidden_size = 32 but 'hidden_states' has hidden_size = 64}}
  llm.quant_matmul hidden_states(%a : memref<?x64xi8>) per_token_scale(%p : memref<?xf32>) weight(%w : memref<64x32xi8>) weight_scale(%s : memref<32xf32>) -> y(%y : memref<?x32xbf16>) {transpose_b = true}
  return
}

// -----

func.func @mm_transpose_a(%a: memref<8x64xi8>, %p: memref<8xf32>, %w: memref<64x32xi8>, %s: memref<32xf32>, %y: memref<8x32xbf16>) {
  // expected-error @+1 {{'per_token_scale' has num_tokens = 8 but 'hidden_states' has num_tokens = 64}}
  llm.quant_matmul hidden_states(%a : memref<8x64xi8>) per_token_scale(%p : memref<8xf32>) weight(%w : memref<64x32xi8>) weight_scale(%s : memref<32xf32>) -> y(%y : memref<8x32xbf16>) {transpose_a = true}
  return
}

// -----

func.func @mm_bias(%a: memref<?x64xi8>, %p: memref<?xf32>, %w: memref<64x32xi8>, %s: memref<32xf32>, %b: memref<32xf32>, %y: memref<?x32xbf16>) {
  // expected-error @+1 {{'bias' must hold bf16, got 'memref<32xf32>'}}
  llm.quant_matmul hidden_states(%a : memref<?x64xi8>) per_token_scale(%p : memref<?xf32>) weight(%w : memref<64x32xi8>) weight_scale(%s : memref<32xf32>) bias(%b : memref<32xf32>) -> y(%y : memref<?x32xbf16>)
  return
}

// -----

func.func @mm_y(%a: memref<?x64xi8>, %p: memref<?xf32>, %w: memref<64x32xi8>, %s: memref<32xf32>, %y: memref<?x16xbf16>) {
  // expected-error @+1 {{'y' has new_hidden_size = 16 but 'weight' has new_hidden_size = 32}}
  llm.quant_matmul hidden_states(%a : memref<?x64xi8>) per_token_scale(%p : memref<?xf32>) weight(%w : memref<64x32xi8>) weight_scale(%s : memref<32xf32>) -> y(%y : memref<?x16xbf16>)
  return
}

// == head_rms_norm ==

// -----

func.func @head_range(%x: memref<?x12x128xbf16>, %w: memref<8x128xf32>) {
  // expected-error @+1 {{heads [6, 14) are not inside the 12 heads of 'hidden_states'}}
  llm.head_rms_norm hidden_states(%x : memref<?x12x128xbf16>) weight(%w : memref<8x128xf32>) -> y(%x : memref<?x12x128xbf16>) {eps = 1.0e-6 : f32, head_offset = 6 : i32, head_num = 8 : i32}
  return
}

// -----

func.func @head_weight(%x: memref<?x12x128xbf16>, %w: memref<10x128xf32>) {
  // expected-error @+1 {{the head_num attribute gives head_num = 8 but 'weight' has head_num = 10}}
  llm.head_rms_norm hidden_states(%x : memref<?x12x128xbf16>) weight(%w : memref<10x128xf32>) -> y(%x : memref<?x12x128xbf16>) {eps = 1.0e-6 : f32, head_offset = 0 : i32, head_num = 8 : i32}
  return
}

// -----

func.func @head_num_zero(%x: memref<?x12x128xbf16>, %w: memref<8x128xf32>) {
  // expected-error @+1 {{head_num must be at least 1, got 0}}
  llm.head_rms_norm hidden_states(%x : memref<?x12x128xbf16>) weight(%w : memref<8x128xf32>) -> y(%x : memref<?x12x128xbf16>) {eps = 1.0e-6 : f32, head_offset = 0 : i32, head_num = 0 : i32}
  return
}

// -----

func.func @head_offset_negative(%x: memref<?x12x128xbf16>, %w: memref<8x128xf32>) {
  // expected-error @+1 {{head_offset must be non-negative, got -1}}
  llm.head_rms_norm hidden_states(%x : memref<?x12x128xbf16>) weight(%w : memref<8x128xf32>) -> y(%x : memref<?x12x128xbf16>) {eps = 1.0e-6 : f32, head_offset = -1 : i32, head_num = 8 : i32}
  return
}

// -----

func.func @head_y(%x: memref<?x12x128xbf16>, %w: memref<8x128xf32>, %y: memref<?x8x128xbf16>) {
  // expected-error @+1 {{'y' has total_heads = 8 but 'hidden_states' has total_heads = 12}}
  llm.head_rms_norm hidden_states(%x : memref<?x12x128xbf16>) weight(%w : memref<8x128xf32>) -> y(%y : memref<?x8x128xbf16>) {eps = 1.0e-6 : f32, head_offset = 0 : i32, head_num = 8 : i32}
  return
}

// == rotary_embedding ==

// -----

func.func @rope_odd(%qkv: memref<?x12x128xbf16>, %sc: memref<4096x63xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{rope_dim must be even (its halves rotate as pairs), got 63}}
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>) sin(%sc : memref<4096x63xbf16>) cos(%sc : memref<4096x63xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 63 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_range(%qkv: memref<?x12x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{rope range [96, 160) is not inside head_dim 128}}
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_offset = 96 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_heads(%qkv: memref<?x10x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{'qkv' has heads = 10 but q_head_num + 2 * kv_head_num has heads = 12}}
  llm.rotary_embedding qkv(%qkv : memref<?x10x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x10x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_table(%qkv: memref<?x12x128xbf16>, %sc: memref<4096x32xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{'sin' has rope_dim = 32 but the rope_dim attribute has rope_dim = 64}}
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>) sin(%sc : memref<4096x32xbf16>) cos(%sc : memref<4096x32xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_accum(%qkv: memref<?x12x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<4xi32>, %a: memref<4xi32>) {
  // expected-error @+1 {{'accum_q_len' has batch_size + 1 = 4 but 'position_ids' has batch_size = 4}}
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<4xi32>) q_lens(%p : memref<4xi32>) accum_q_len(%a : memref<4xi32>) -> out(%qkv : memref<?x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_accum_unpacked(%qkv: memref<4x2x12x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<4xi32>, %a: memref<5xi32>) {
  // expected-error @+1 {{'accum_q_len' is for the packed form only}}
  llm.rotary_embedding qkv(%qkv : memref<4x2x12x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<4xi32>) q_lens(%p : memref<4xi32>) accum_q_len(%a : memref<5xi32>) -> out(%qkv : memref<4x2x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_max_q_len(%qkv: memref<4x2x12x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<4xi32>) {
  // expected-error @+1 {{max_q_len 3 exceeds the unpacked q_seq_len 2}}
  llm.rotary_embedding qkv(%qkv : memref<4x2x12x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<4xi32>) q_lens(%p : memref<4xi32>) -> out(%qkv : memref<4x2x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32, max_q_len = 3 : i32}
  return
}

// -----

func.func @rope_rank(%qkv: memref<?x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{'qkv' must have rank 3 (packed) or 4 (unpacked), got 'memref<?x128xbf16>'}}
  llm.rotary_embedding qkv(%qkv : memref<?x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_positions(%qkv: memref<?x12x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<?xi64>, %l: memref<?xi32>) {
  // expected-error @+1 {{'position_ids' must hold i32, got 'memref<?xi64>'}}
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<?xi64>) q_lens(%l : memref<?xi32>) -> out(%qkv : memref<?x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_kv_heads(%qkv: memref<?x8x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{kv_head_num must be at least 1, got 0}}
  llm.rotary_embedding qkv(%qkv : memref<?x8x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x8x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 0 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// == store_kv_cache / store_paged_kv_cache ==

// -----

func.func @int8_without_scales(%k: memref<?x2x128xbf16>, %l: memref<?xi32>, %c: memref<8x2x1024x128xi8>) {
  // expected-error @+1 {{int8 caches need 'key_scale'}}
  llm.store_kv_cache key(%k : memref<?x2x128xbf16>) value(%k : memref<?x2x128xbf16>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<8x2x1024x128xi8>) v_cache(%c : memref<8x2x1024x128xi8>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @int8_one_scale(%k: memref<?x2x128xbf16>, %l: memref<?xi32>, %s: memref<2x128xf32>, %c: memref<8x2x1024x128xi8>) {
  // expected-error @+1 {{int8 caches need 'value_scale'}}
  llm.store_kv_cache key(%k : memref<?x2x128xbf16>) value(%k : memref<?x2x128xbf16>) q_lens(%l : memref<?xi32>) key_scale(%s : memref<2x128xf32>) -> k_cache(%c : memref<8x2x1024x128xi8>) v_cache(%c : memref<8x2x1024x128xi8>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @bf16_with_scales(%k: memref<?x2x128xbf16>, %l: memref<?xi32>, %s: memref<2x128xf32>, %c: memref<8x2x1024x128xbf16>) {
  // expected-error @+1 {{'key_scale' is given but the caches hold 'bf16'; scales are for int8 caches only}}
  llm.store_kv_cache key(%k : memref<?x2x128xbf16>) value(%k : memref<?x2x128xbf16>) q_lens(%l : memref<?xi32>) key_scale(%s : memref<2x128xf32>) value_scale(%s : memref<2x128xf32>) -> k_cache(%c : memref<8x2x1024x128xbf16>) v_cache(%c : memref<8x2x1024x128xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @cache_dtypes(%k: memref<?x2x128xbf16>, %l: memref<?xi32>, %kc: memref<8x2x1024x128xbf16>, %vc: memref<8x2x1024x128xi8>) {
  // expected-error @+1 {{'k_cache' and 'v_cache' must hold one dtype, got 'bf16' and 'i8'}}
  llm.store_kv_cache key(%k : memref<?x2x128xbf16>) value(%k : memref<?x2x128xbf16>) q_lens(%l : memref<?xi32>) -> k_cache(%kc : memref<8x2x1024x128xbf16>) v_cache(%vc : memref<8x2x1024x128xi8>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @cache_heads(%k: memref<?x2x128xbf16>, %l: memref<?xi32>, %c: memref<8x4x1024x128xbf16>) {
  // expected-error @+1 {{'k_cache' has kv_head_num = 4 but 'key' has kv_head_num = 2}}
  llm.store_kv_cache key(%k : memref<?x2x128xbf16>) value(%k : memref<?x2x128xbf16>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<8x4x1024x128xbf16>) v_cache(%c : memref<8x4x1024x128xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @value_shape(%k: memref<?x2x128xbf16>, %v: memref<?x2x64xbf16>, %l: memref<?xi32>, %c: memref<8x2x1024x128xbf16>) {
  // expected-error @+1 {{'value' has head_dim = 64 but 'key' has head_dim = 128}}
  llm.store_kv_cache key(%k : memref<?x2x128xbf16>) value(%v : memref<?x2x64xbf16>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<8x2x1024x128xbf16>) v_cache(%c : memref<8x2x1024x128xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @value_form(%k: memref<?x2x128xbf16>, %v: memref<?x1x2x128xbf16>, %l: memref<?xi32>, %c: memref<8x2x1024x128xbf16>) {
  // expected-error @+1 {{'value' must have rank 3 [num_tokens, kv_head_num, head_dim]}}
  llm.store_kv_cache key(%k : memref<?x2x128xbf16>) value(%v : memref<?x1x2x128xbf16>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<8x2x1024x128xbf16>) v_cache(%c : memref<8x2x1024x128xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @slots(%k: memref<16x1x2x128xbf16>, %l: memref<16xi32>, %c: memref<8x2x1024x128xbf16>) {
  // expected-error @+1 {{without 'kv_ids' request b uses cache slot b, but batch_size 16 exceeds max_batch_size 8}}
  llm.store_kv_cache key(%k : memref<16x1x2x128xbf16>) value(%k : memref<16x1x2x128xbf16>) q_lens(%l : memref<16xi32>) -> k_cache(%c : memref<8x2x1024x128xbf16>) v_cache(%c : memref<8x2x1024x128xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @store_max_q_len(%k: memref<?x2x128xbf16>, %l: memref<?xi32>, %c: memref<8x2x1024x128xbf16>) {
  // expected-error @+1 {{max_q_len must be at least 1, got 0}}
  llm.store_kv_cache key(%k : memref<?x2x128xbf16>) value(%k : memref<?x2x128xbf16>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<8x2x1024x128xbf16>) v_cache(%c : memref<8x2x1024x128xbf16>) {max_q_len = 0 : i32}
  return
}

// -----

func.func @block_table_dtype(%k: memref<?x2x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi64>, %c: memref<?x2x64x128xbf16>) {
  // expected-error @+1 {{'block_table' must hold i32, got 'memref<?x?xi64>'}}
  llm.store_paged_kv_cache key(%k : memref<?x2x128xbf16>) value(%k : memref<?x2x128xbf16>) block_table(%bt : memref<?x?xi64>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @page_head_dim(%k: memref<?x2x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x64xbf16>) {
  // expected-error @+1 {{'k_cache' has head_dim = 64 but 'key' has head_dim = 128}}
  llm.store_paged_kv_cache key(%k : memref<?x2x128xbf16>) value(%k : memref<?x2x128xbf16>) block_table(%bt : memref<?x?xi32>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x2x64x64xbf16>) v_cache(%c : memref<?x2x64x64xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @paged_scale_shape(%k: memref<?x2x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %s: memref<2x64xf32>, %c: memref<?x2x64x128xi8>) {
  // expected-error @+1 {{'key_scale' has head_dim = 64 but 'key' has head_dim = 128}}
  llm.store_paged_kv_cache key(%k : memref<?x2x128xbf16>) value(%k : memref<?x2x128xbf16>) block_table(%bt : memref<?x?xi32>) q_lens(%l : memref<?xi32>) key_scale(%s : memref<2x64xf32>) value_scale(%s : memref<2x64xf32>) -> k_cache(%c : memref<?x2x64x128xi8>) v_cache(%c : memref<?x2x64x128xi8>) {max_q_len = 1 : i32}
  return
}

// == flash_attention / flash_decoding ==

// -----

func.func @both_forms(%qkv: memref<1x?x12x128xbf16>, %q: memref<1x?x8x128xbf16>, %k: memref<1x?x2x128xbf16>, %o: memref<1x?x8x128xbf16>) {
  // expected-error @+1 {{takes either 'qkv' or 'q', 'k' and 'v', not both}}
  llm.flash_attention qkv(%qkv : memref<1x?x12x128xbf16>) q(%q : memref<1x?x8x128xbf16>) -> out(%o : memref<1x?x8x128xbf16>)
  return
}

// -----

func.func @partial_form(%q: memref<1x?x8x128xbf16>, %k: memref<1x?x2x128xbf16>, %o: memref<1x?x8x128xbf16>) {
  // expected-error @+1 {{needs all of 'q', 'k' and 'v' (or 'qkv')}}
  llm.flash_attention q(%q : memref<1x?x8x128xbf16>) k(%k : memref<1x?x2x128xbf16>) -> out(%o : memref<1x?x8x128xbf16>)
  return
}

// -----

func.func @no_form(%o: memref<1x?x8x128xbf16>) {
  // expected-error @+1 {{needs 'qkv' or 'q', 'k' and 'v'}}
  llm.flash_attention -> out(%o : memref<1x?x8x128xbf16>)
  return
}

// -----

func.func @one_sequence(%qkv: memref<2x?x12x128xbf16>, %o: memref<2x?x8x128xbf16>) {
  // expected-error @+1 {{'out' has batch = 2 but flash_attention's single sequence has batch = 1}}
  llm.flash_attention qkv(%qkv : memref<2x?x12x128xbf16>) -> out(%o : memref<2x?x8x128xbf16>)
  return
}

// -----

func.func @qkv_heads(%qkv: memref<1x?x11x128xbf16>, %o: memref<1x?x8x128xbf16>) {
  // expected-error @+1 {{'qkv' has 11 heads; with q_head_num 8 from 'out' that leaves no whole kv_head_num}}
  llm.flash_attention qkv(%qkv : memref<1x?x11x128xbf16>) -> out(%o : memref<1x?x8x128xbf16>)
  return
}

// -----

func.func @gqa(%q: memref<1x?x8x128xbf16>, %k: memref<1x?x3x128xbf16>, %o: memref<1x?x8x128xbf16>) {
  // expected-error @+1 {{q_head_num 8 is not a multiple of kv_head_num 3}}
  llm.flash_attention q(%q : memref<1x?x8x128xbf16>) k(%k : memref<1x?x3x128xbf16>) v(%k : memref<1x?x3x128xbf16>) -> out(%o : memref<1x?x8x128xbf16>)
  return
}

// -----

func.func @kv_seq(%q: memref<1x16x8x128xbf16>, %k: memref<1x8x2x128xbf16>, %o: memref<1x16x8x128xbf16>) {
  // expected-error @+1 {{'k' has q_seq_len = 8 but 'out' has q_seq_len = 16}}
  llm.flash_attention q(%q : memref<1x16x8x128xbf16>) k(%k : memref<1x8x2x128xbf16>) v(%k : memref<1x8x2x128xbf16>) -> out(%o : memref<1x16x8x128xbf16>)
  return
}

// -----

func.func @decoding_tokens(%q: memref<?x2x8x128xbf16>, %k: memref<?x2x2x128xbf16>, %c: memref<8x2x1024x128xbf16>, %o: memref<?x2x8x128xbf16>) {
  // expected-error @+1 {{'out' has q_seq_len = 2 but flash_decoding's single new token has q_seq_len = 1}}
  llm.flash_decoding q(%q : memref<?x2x8x128xbf16>) k(%k : memref<?x2x2x128xbf16>) v(%k : memref<?x2x2x128xbf16>) k_cache(%c : memref<8x2x1024x128xbf16>) v_cache(%c : memref<8x2x1024x128xbf16>) -> out(%o : memref<?x2x8x128xbf16>) {kv_lens = 1 : i64}
  return
}

// -----

func.func @decoding_kv_len(%q: memref<?x1x8x128xbf16>, %k: memref<?x1x2x128xbf16>, %c: memref<8x2x1024x128xbf16>, %o: memref<?x1x8x128xbf16>) {
  // expected-error @+1 {{kv_lens 2048 exceeds the caches' max_seq_len 1024}}
  llm.flash_decoding q(%q : memref<?x1x8x128xbf16>) k(%k : memref<?x1x2x128xbf16>) v(%k : memref<?x1x2x128xbf16>) k_cache(%c : memref<8x2x1024x128xbf16>) v_cache(%c : memref<8x2x1024x128xbf16>) -> out(%o : memref<?x1x8x128xbf16>) {kv_lens = 2048 : i64}
  return
}

// -----

func.func @decoding_negative(%q: memref<?x1x8x128xbf16>, %k: memref<?x1x2x128xbf16>, %c: memref<8x2x1024x128xbf16>, %o: memref<?x1x8x128xbf16>) {
  // expected-error @+1 {{kv_lens must be non-negative, got -1}}
  llm.flash_decoding q(%q : memref<?x1x8x128xbf16>) k(%k : memref<?x1x2x128xbf16>) v(%k : memref<?x1x2x128xbf16>) k_cache(%c : memref<8x2x1024x128xbf16>) v_cache(%c : memref<8x2x1024x128xbf16>) -> out(%o : memref<?x1x8x128xbf16>) {kv_lens = -1 : i64}
  return
}

// -----

func.func @decoding_batch(%q: memref<16x1x8x128xbf16>, %k: memref<16x1x2x128xbf16>, %c: memref<8x2x1024x128xbf16>, %o: memref<16x1x8x128xbf16>) {
  // expected-error @+1 {{batch_size 16 exceeds the caches' max_batch_size 8}}
  llm.flash_decoding q(%q : memref<16x1x8x128xbf16>) k(%k : memref<16x1x2x128xbf16>) v(%k : memref<16x1x2x128xbf16>) k_cache(%c : memref<8x2x1024x128xbf16>) v_cache(%c : memref<8x2x1024x128xbf16>) -> out(%o : memref<16x1x8x128xbf16>) {kv_lens = 1 : i64}
  return
}

// -----

func.func @decoding_cache_dtype(%q: memref<?x1x8x128xbf16>, %k: memref<?x1x2x128xbf16>, %c: memref<8x2x1024x128xi8>, %o: memref<?x1x8x128xbf16>) {
  // expected-error @+1 {{'k_cache' must hold bf16, got 'memref<8x2x1024x128xi8>'}}
  llm.flash_decoding q(%q : memref<?x1x8x128xbf16>) k(%k : memref<?x1x2x128xbf16>) v(%k : memref<?x1x2x128xbf16>) k_cache(%c : memref<8x2x1024x128xi8>) v_cache(%c : memref<8x2x1024x128xi8>) -> out(%o : memref<?x1x8x128xbf16>) {kv_lens = 1 : i64}
  return
}

// == flash_attention_prefill / flash_attention_decode ==

// -----

func.func @prefill_scales(%q: memref<?x8x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xbf16>, %s: memref<2x128xf32>) {
  // expected-error @+1 {{'k_scale' is given but the caches hold 'bf16'}}
  llm.flash_attention_prefill q(%q : memref<?x8x128xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) k_scale(%s : memref<2x128xf32>) v_scale(%s : memref<2x128xf32>) -> out(%q : memref<?x8x128xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @prefill_int8(%q: memref<?x8x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xi8>) {
  // expected-error @+1 {{int8 caches need 'k_scale'}}
  llm.flash_attention_prefill q(%q : memref<?x8x128xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x64x128xi8>) v_cache(%c : memref<?x2x64x128xi8>) -> out(%q : memref<?x8x128xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @prefill_window_zero(%q: memref<?x8x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xbf16>) {
  // expected-error @+1 {{sliding_window must be at least 1, got 0}}
  llm.flash_attention_prefill q(%q : memref<?x8x128xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) -> out(%q : memref<?x8x128xbf16>) {max_q_len = 64 : i32, sliding_window = 0 : i32}
  return
}

// -----

func.func @prefill_max_q_len(%q: memref<64x8x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xbf16>) {
  // expected-error @+1 {{max_q_len 100 exceeds num_tokens 64}}
  llm.flash_attention_prefill q(%q : memref<64x8x128xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) -> out(%q : memref<64x8x128xbf16>) {max_q_len = 100 : i32}
  return
}

// -----

func.func @prefill_gqa(%q: memref<?x8x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x3x64x128xbf16>) {
  // expected-error @+1 {{q_head_num 8 is not a multiple of kv_head_num 3}}
  llm.flash_attention_prefill q(%q : memref<?x8x128xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x3x64x128xbf16>) v_cache(%c : memref<?x3x64x128xbf16>) -> out(%q : memref<?x8x128xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @prefill_out(%q: memref<?x8x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xbf16>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{'out' must hold bf16, got 'memref<?x8x128xf32>'}}
  llm.flash_attention_prefill q(%q : memref<?x8x128xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) -> out(%o : memref<?x8x128xf32>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @decode_q_seq_len(%q: memref<?x2x8x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xbf16>) {
  // expected-error @+1 {{'q' has q_seq_len = 2 but the q_seq_len attribute has q_seq_len = 1}}
  llm.flash_attention_decode q(%q : memref<?x2x8x128xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) -> out(%q : memref<?x2x8x128xbf16>) {q_seq_len = 1 : i32}
  return
}

// -----

func.func @decode_zero(%q: memref<?x?x8x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xbf16>) {
  // expected-error @+1 {{q_seq_len must be at least 1, got 0}}
  llm.flash_attention_decode q(%q : memref<?x?x8x128xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) -> out(%q : memref<?x?x8x128xbf16>) {q_seq_len = 0 : i32}
  return
}

// -----

func.func @decode_accum(%q: memref<4x1x8x128xbf16>, %l: memref<4xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xbf16>) {
  // expected-error @+1 {{'accum_q_len' has batch_size + 1 = 4 but 'q' has batch_size = 4}}
  llm.flash_attention_decode q(%q : memref<4x1x8x128xbf16>) kv_ids(%l : memref<4xi32>) kv_lens(%l : memref<4xi32>) q_lens(%l : memref<4xi32>) accum_q_len(%l : memref<4xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) -> out(%q : memref<4x1x8x128xbf16>) {q_seq_len = 1 : i32}
  return
}

// -----

func.func @decode_window_below_tokens(%q: memref<?x2x8x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xbf16>) {
  // expected-error @+1 {{sliding_window = 1 must be at least q_seq_len = 2 (a window that does not cover the step's new tokens is not seed 001's sliding mask)}}
  llm.flash_attention_decode q(%q : memref<?x2x8x128xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) -> out(%q : memref<?x2x8x128xbf16>) {q_seq_len = 2 : i32, sliding_window = 1 : i32}
  return
}

// -----

func.func @decode_window_and_visible_lens(%q: memref<?x1x8x128xbf16>, %l: memref<?xi32>, %vis: memref<?x1xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xbf16>) {
  // expected-error @+1 {{takes sliding_window or visible_lens, not both (visible_lens gives each token's range itself)}}
  llm.flash_attention_decode q(%q : memref<?x1x8x128xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) visible_lens(%vis : memref<?x1xi32>) -> out(%q : memref<?x1x8x128xbf16>) {q_seq_len = 1 : i32, sliding_window = 64 : i32}
  return
}

// -----

shard.grid @kvdp(shape = 2)
func.func @decode_window_sharded(%q: memref<?x1x8x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{sharded, has no sliding_window (a rank's part of the cache is not the positions a window counts)}}
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x8x64xbf16>) on @kvdp kv_sharding = kvdp {q_seq_len = 1 : i32, sliding_window = 64 : i32}
  return
}

// -----

func.func @decode_ring_without_window(%q: memref<?x1x8x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{reads a ring cache only with a sliding_window (a ring keeps a sequence's last positions, not all)}}
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x8x64xbf16>) {q_seq_len = 1 : i32, ring}
  return
}

// -----

func.func @decode_start_pos_without_window(%q: memref<?x1x8x64xbf16>, %l: memref<?xi32>, %s: memref<?x1xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{takes start_pos only with a sliding_window (W bounds each start and the chunks planned)}}
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) start_pos(%s : memref<?x1xi32>) -> out(%q : memref<?x1x8x64xbf16>) {q_seq_len = 1 : i32}
  return
}

// -----

func.func @decode_start_pos_shape(%q: memref<?x2x8x64xbf16>, %l: memref<?xi32>, %s: memref<?x1xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{'start_pos' has q_seq_len = 1 but the q_seq_len attribute has q_seq_len = 2}}
  llm.flash_attention_decode q(%q : memref<?x2x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) start_pos(%s : memref<?x1xi32>) -> out(%q : memref<?x2x8x64xbf16>) {q_seq_len = 2 : i32, sliding_window = 64 : i32}
  return
}

// -----

func.func @prefill_ring_without_window(%q: memref<?x8x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{reads a ring cache only with a sliding_window (a ring keeps a sequence's last positions, not all)}}
  llm.flash_attention_prefill q(%q : memref<?x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x8x64xbf16>) {max_q_len = 64 : i32, ring}
  return
}

// -----

shard.grid @kvdp(shape = 2)
func.func @ring_store_sharded(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>, %c: memref<?x1x16x64xbf16>) {
  // expected-error @+1 {{sharded, has no ring (a rank's part of the cache is not the positions a ring wraps)}}
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>) block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>) v_cache(%c : memref<?x1x16x64xbf16>) on @kvdp kv_sharding = kvdp {max_q_len = 64 : i32, ring}
  return
}

// -----

func.func @decode_sharding_without_grid(%q: memref<?x1x8x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{kv_sharding needs the device grid it shards over (on @grid)}}
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x8x64xbf16>) {q_seq_len = 1 : i32, kv_sharding = 0 : i32}
  return
}

// -----

func.func @decode_grid_missing(%q: memref<?x1x8x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{names no symbol @kvdp}}
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x8x64xbf16>) on @kvdp kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

// -----

func.func @kvdp() { return }
func.func @decode_grid_not_a_grid(%q: memref<?x1x8x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{names @kvdp, which is not a shard.grid}}
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x8x64xbf16>) on @kvdp {q_seq_len = 1 : i32}
  return
}

// -----

func.func @decode_plan_lens_dtype(%q: memref<?x1x8x64xbf16>, %l: memref<?xi32>, %p: memref<?xi64>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{'plan_kv_lens' must hold i32, got 'memref<?xi64>'}}
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x8x64xbf16>) plan_kv_lens(%p : memref<?xi64>) {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @kvdp(shape = 4)
func.func @decode_sharded_gqa(%q: memref<?x1x1x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x3x16x64xbf16>) {
  // expected-error @+1 {{sharded over 4 ranks of 1 query heads: the 4 heads are not a multiple of kv_head_num 3 (each KV head serves a whole group of query heads)}}
  llm.flash_attention_decode q(%q : memref<?x1x1x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x3x16x64xbf16>) v_cache(%c : memref<?x3x16x64xbf16>) -> out(%q : memref<?x1x1x64xbf16>) on @kvdp kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

// -----

func.func @store_sharding_without_grid(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>, %c: memref<?x1x16x64xbf16>) {
  // expected-error @+1 {{kv_sharding needs the device grid it shards over (on @grid)}}
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>) block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>) v_cache(%c : memref<?x1x16x64xbf16>) {max_q_len = 64 : i32, kv_sharding = 0 : i32}
  return
}

// -----

func.func @store_grid_missing(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>, %c: memref<?x1x16x64xbf16>) {
  // expected-error @+1 {{names no symbol @nowhere}}
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>) block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>) v_cache(%c : memref<?x1x16x64xbf16>) on @nowhere kv_sharding = kvdp {max_q_len = 64 : i32}
  return
}

// == all_reduce ==

// -----

func.func @all_reduce_dtype(%h: memref<?x64xi8>) {
  // expected-error @+1 {{'hidden_states' must hold bf16 or f32, got 'memref<?x64xi8>'}}
  llm.all_reduce hidden_states(%h : memref<?x64xi8>)
  return
}

// -----

func.func @all_reduce_rank(%h: memref<?x4x64xbf16>) {
  // expected-error @+1 {{'hidden_states' must have rank 2 [num_tokens, hidden_size]}}
  llm.all_reduce hidden_states(%h : memref<?x4x64xbf16>)
  return
}

// -----

func.func @not_strided(%h: memref<?x64xbf16, affine_map<(d0, d1) -> (d1, d0)>>) {
  // expected-error @+1 {{operand #0 must be strided memref of any type values}}
  llm.all_reduce hidden_states(%h : memref<?x64xbf16, affine_map<(d0, d1) -> (d1, d0)>>)
  return
}

// -----

func.func @all_reduce_no_grid(%h: memref<?x64xbf16>) {
  // expected-error @+1 {{names no symbol @tp}}
  llm.all_reduce hidden_states(%h : memref<?x64xbf16>) on @tp
  return
}

// -----

func.func @tp() { return }
func.func @all_reduce_not_a_grid(%h: memref<?x64xbf16>) {
  // expected-error @+1 {{names @tp, which is not a shard.grid}}
  llm.all_reduce hidden_states(%h : memref<?x64xbf16>) on @tp
  return
}

// -----

shard.grid @tp(shape = 2)
func.func @all_reduce_strided(%h: memref<?x64xbf16, strided<[128, 1]>>) {
  // expected-error @+1 {{over a grid needs a contiguous 'hidden_states' (identity layout), got 'memref<?x64xbf16, strided<[128, 1]>>'}}
  llm.all_reduce hidden_states(%h : memref<?x64xbf16, strided<[128, 1]>>) on @tp
  return
}

// -----

func.func @rope_offset_negative(%qkv: memref<?x12x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{rope_offset must be non-negative, got -2}}
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_offset = -2 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_q_heads(%qkv: memref<?x12x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{q_head_num must be at least 1, got 0}}
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x12x128xbf16>) {q_head_num = 0 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_dim_zero(%qkv: memref<?x12x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{rope_dim must be at least 1, got 0}}
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 0 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_packed_max_q_len(%qkv: memref<16x12x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{max_q_len 32 exceeds num_tokens 16}}
  llm.rotary_embedding qkv(%qkv : memref<16x12x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<16x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32, max_q_len = 32 : i32}
  return
}

// -----

func.func @store_packed_max_q_len(%k: memref<4x2x128xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x64x128xbf16>) {
  // expected-error @+1 {{max_q_len 8 exceeds num_tokens 4}}
  llm.store_paged_kv_cache key(%k : memref<4x2x128xbf16>) value(%k : memref<4x2x128xbf16>) block_table(%bt : memref<?x?xi32>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) {max_q_len = 8 : i32}
  return
}

// -----

func.func @paged_rows(%k: memref<16x2x128xbf16>, %l: memref<16xi32>, %bt: memref<8x4xi32>, %c: memref<?x2x64x128xbf16>) {
  // expected-error @+1 {{without 'kv_ids' request b uses block-table row b, but batch_size 16 exceeds max_batch_size 8}}
  llm.store_paged_kv_cache key(%k : memref<16x2x128xbf16>) value(%k : memref<16x2x128xbf16>) block_table(%bt : memref<8x4xi32>) q_lens(%l : memref<16xi32>) -> k_cache(%c : memref<?x2x64x128xbf16>) v_cache(%c : memref<?x2x64x128xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @decode_partial_state(%q: memref<?x1x8x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>, %so: memref<?x1x8x64xf32>, %sm: memref<?x1x8x8xf32>) {
  // expected-error @+1 {{writes its softmax state as state_o, state_m and state_l together}}
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> state_o(%so : memref<?x1x8x64xf32>) state_m(%sm : memref<?x1x8x8xf32>) {q_seq_len = 1 : i32}
  return
}

// -----

func.func @decode_out_and_state(%q: memref<?x1x8x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>, %so: memref<?x1x8x64xf32>, %sm: memref<?x1x8x8xf32>) {
  // expected-error @+1 {{writes either out or its softmax state (state_o, state_m, state_l), not both}}
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x8x64xbf16>) state_o(%so : memref<?x1x8x64xf32>) state_m(%sm : memref<?x1x8x8xf32>) state_l(%sm : memref<?x1x8x8xf32>) {q_seq_len = 1 : i32}
  return
}

// -----

func.func @decode_no_output(%q: memref<?x1x8x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{needs out, or its softmax state (state_o, state_m, state_l)}}
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @kvdp(shape = 4)
func.func @decode_sharded_visible(%q: memref<?x1x2x64xbf16>, %l: memref<?xi32>, %v: memref<?x1xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{sharded, takes q and writes out as the whole attention's; visible_lens and the softmax state are what its ranks' programs use}}
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) visible_lens(%v : memref<?x1xi32>) -> out(%q : memref<?x1x2x64xbf16>) on @kvdp kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

// -----

func.func @grid_axes_without_grid(%h: memref<?x256xbf16>) {
  // expected-error @+1 {{grid_axes needs the device grid (on @grid)}}
  llm.all_reduce hidden_states(%h : memref<?x256xbf16>) {grid_axes = array<i16: 0>}
  return
}

// -----

shard.grid @g(shape = 2x2)
func.func @store_grid_axis_outside(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>, %c: memref<?x1x16x64xbf16>) {
  // expected-error @+1 {{grid axis 2 is outside @g's 2 dimensions}}
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>) block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>) v_cache(%c : memref<?x1x16x64xbf16>) on @g grid_axes = [2] kv_sharding = kvdp {max_q_len = 64 : i32}
  return
}

// -----

// The group (2 ranks along axis 1), not the grid's 4, holds the heads.
shard.grid @g(shape = 2x2)
func.func @decode_group_gqa(%q: memref<?x1x1x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x4x16x64xbf16>) {
  // expected-error @+1 {{sharded over 2 ranks of 1 query heads: the 2 heads are not a multiple of kv_head_num 4}}
  llm.flash_attention_decode q(%q : memref<?x1x1x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x4x16x64xbf16>) v_cache(%c : memref<?x4x16x64xbf16>) -> out(%q : memref<?x1x1x64xbf16>) on @g grid_axes = [1] kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @g(shape = 2x2)
func.func @all_reduce_axis_twice(%h: memref<?x256xbf16>) {
  // expected-error @+1 {{names grid axis 0 twice}}
  llm.all_reduce hidden_states(%h : memref<?x256xbf16>) on @g grid_axes = [0, 0]
  return
}

// -----

shard.grid @g(shape = 2x2)
func.func @kvdp_cp_one_axis(%q: memref<?x1x2x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x1x8x64xbf16>) {
  // expected-error @+1 {{kv_sharding = kvdp_cp needs two grid_axes: KV data parallel along the first, context parallel along the second}}
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x1x8x64xbf16>) v_cache(%c : memref<?x1x8x64xbf16>) -> out(%q : memref<?x1x2x64xbf16>) on @g grid_axes = [0] kv_sharding = kvdp_cp {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @g(shape = 2x2)
func.func @kvdp_cp_store_no_axes(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>, %c: memref<?x1x8x64xbf16>) {
  // expected-error @+1 {{kv_sharding = kvdp_cp needs two grid_axes}}
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>) block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x1x8x64xbf16>) v_cache(%c : memref<?x1x8x64xbf16>) on @g kv_sharding = kvdp_cp {max_q_len = 64 : i32}
  return
}
