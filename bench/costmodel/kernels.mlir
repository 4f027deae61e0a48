// The operators of seed 002 at the per-core shapes issue 41 measures under
// pto-isa's cost model (scripts/pto-isa/costmodel.py sets the run-time sizes
// so that each core gets the stated share: bench/costmodel/README.md).

// quant_matmul, prefill: M 512 x K 2048 x N 512 per cube core (M = 24 x 512).
func.func @quant_matmul_prefill(%x: memref<?x2048xi8>, %pts: memref<?xf32>,
                                %w: memref<512x2048xi8>, %ws: memref<512xf32>,
                                %y: memref<?x512xbf16>) {
  llm.quant_matmul hidden_states(%x : memref<?x2048xi8>) per_token_scale(%pts : memref<?xf32>)
      weight(%w : memref<512x2048xi8>) weight_scale(%ws : memref<512xf32>)
      -> y(%y : memref<?x512xbf16>) {transpose_b = true}
  return
}

// quant_matmul, decode: 16 tokens x K 2048 x N 256 per cube core (N = 24 x 256).
func.func @quant_matmul_decode(%x: memref<?x2048xi8>, %pts: memref<?xf32>,
                               %w: memref<6144x2048xi8>, %ws: memref<6144xf32>,
                               %y: memref<?x6144xbf16>) {
  llm.quant_matmul hidden_states(%x : memref<?x2048xi8>) per_token_scale(%pts : memref<?xf32>)
      weight(%w : memref<6144x2048xi8>) weight_scale(%ws : memref<6144xf32>)
      -> y(%y : memref<?x6144xbf16>) {transpose_b = true}
  return
}

// moe_quant_group_gemm: 8 experts of 1536 rows, K 2048 x N 512.
func.func @moe_group_gemm(%x: memref<?x2048xi8>, %pts: memref<?xf32>,
                          %w: memref<8x2048x512xi8>, %ws: memref<8x512xf32>,
                          %counts: memref<8xi32>, %y: memref<?x512xbf16>) {
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x2048xi8>)
      per_token_scale(%pts : memref<?xf32>) experts_weight(%w : memref<8x2048x512xi8>)
      experts_scale(%ws : memref<8x512xf32>) experts_token_count(%counts : memref<8xi32>)
      -> y(%y : memref<?x512xbf16>)
  return
}

// The same in a prefill step's form: N tiles of 128 (n_tile), so that each
// unit reads its expert's rows half as often.
func.func @moe_group_gemm_prefill(%x: memref<?x2048xi8>, %pts: memref<?xf32>,
                                  %w: memref<8x2048x512xi8>, %ws: memref<8x512xf32>,
                                  %counts: memref<8xi32>, %y: memref<?x512xbf16>) {
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x2048xi8>)
      per_token_scale(%pts : memref<?xf32>) experts_weight(%w : memref<8x2048x512xi8>)
      experts_scale(%ws : memref<8x512xf32>) experts_token_count(%counts : memref<8xi32>)
      -> y(%y : memref<?x512xbf16>) {n_tile = 128 : i32}
  return
}

// pre_attention_norm: add + rms_norm, 64 rows x 2048 bf16 per vector core.
func.func @pre_attention_norm(%x: memref<?x2048xbf16>, %r: memref<?x2048xbf16>,
                              %w: memref<2048xf32>, %y: memref<?x2048xbf16>,
                              %a: memref<?x2048xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x2048xbf16>) residual(%r : memref<?x2048xbf16>)
      weight(%w : memref<2048xf32>) -> y(%y : memref<?x2048xbf16>) after_res(%a : memref<?x2048xbf16>)
      {eps = 1.0e-06 : f32}
  return
}

// final_norm: rms_norm, 64 rows x 2048 bf16 per vector core.
func.func @final_norm(%x: memref<?x2048xbf16>, %w: memref<2048xf32>,
                      %y: memref<?x2048xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x2048xbf16>) weight(%w : memref<2048xf32>)
      -> y(%y : memref<?x2048xbf16>) {eps = 1.0e-06 : f32}
  return
}

// scale_dynamic_quant: 64 rows x 2048 bf16 -> int8 per vector core.
func.func @scale_dynamic_quant(%x: memref<?x2048xbf16>, %s: memref<2048xf32>,
                               %y: memref<?x2048xi8>, %scale: memref<?xf32>) {
  llm.scale_dynamic_quant hidden_states(%x : memref<?x2048xbf16>) smooth_scale(%s : memref<2048xf32>)
      -> y(%y : memref<?x2048xi8>) scale(%scale : memref<?xf32>)
  return
}

// rotary_embedding in place: 32 query and 8 key heads of 128.
func.func @rope(%qkv: memref<?x48x128xbf16>, %sin: memref<?x128xbf16>,
                %cos: memref<?x128xbf16>, %position_ids: memref<?xi32>,
                %q_lens: memref<?xi32>) {
  llm.rotary_embedding qkv(%qkv : memref<?x48x128xbf16>)
      sin(%sin : memref<?x128xbf16>) cos(%cos : memref<?x128xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      -> out(%qkv : memref<?x48x128xbf16>)
      {q_head_num = 32 : i32, kv_head_num = 8 : i32, rope_dim = 128 : i32,
       max_q_len = 4096 : i32}
  return
}

// store_paged_kv_cache: the step's keys and values (8 KV heads of 128) into
// pages of 128.
func.func @kv_store(%key: memref<?x8x128xbf16>, %value: memref<?x8x128xbf16>,
                    %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>,
                    %q_lens: memref<?xi32>, %kv_lens: memref<?xi32>,
                    %k_cache: memref<?x8x128x128xbf16>,
                    %v_cache: memref<?x8x128x128xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x8x128xbf16>)
      value(%value : memref<?x8x128xbf16>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k_cache : memref<?x8x128x128xbf16>)
         v_cache(%v_cache : memref<?x8x128x128xbf16>) {max_q_len = 4096 : i32}
  return
}

// flash_attention_prefill: 128 new tokens per sequence, 16 query heads on 2
// KV heads of 128, pages of 128.
func.func @prefill_attention(%q: memref<?x16x128xbf16>, %kv_ids: memref<?xi32>,
                             %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                             %block_table: memref<?x?xi32>,
                             %k_cache: memref<?x2x128x128xbf16>,
                             %v_cache: memref<?x2x128x128xbf16>,
                             %out: memref<?x16x128xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x16x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x128x128xbf16>)
      v_cache(%v_cache : memref<?x2x128x128xbf16>)
      -> out(%out : memref<?x16x128xbf16>) {max_q_len = 128 : i32}
  return
}
