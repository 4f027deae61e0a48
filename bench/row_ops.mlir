// The row-wise operators of seed 002 at a model's size (hidden 4096), for
// bench-cpusim-row-ops.
func.func @rms_norm(%x: memref<?x4096xbf16>, %w: memref<4096xf32>, %y: memref<?x4096xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x4096xbf16>) weight(%w : memref<4096xf32>)
      -> y(%y : memref<?x4096xbf16>) {eps = 1.0e-06 : f32}
  return
}
func.func @add_rms_norm(%x: memref<?x4096xbf16>, %r: memref<?x4096xbf16>, %w: memref<4096xf32>,
                        %y: memref<?x4096xbf16>, %a: memref<?x4096xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x4096xbf16>) residual(%r : memref<?x4096xbf16>)
      weight(%w : memref<4096xf32>) -> y(%y : memref<?x4096xbf16>) after_res(%a : memref<?x4096xbf16>)
      {eps = 1.0e-06 : f32}
  return
}
func.func @scale_dynamic_quant(%x: memref<?x4096xbf16>, %s: memref<4096xf32>,
                               %y: memref<?x4096xi8>, %scale: memref<?xf32>) {
  llm.scale_dynamic_quant hidden_states(%x : memref<?x4096xbf16>) smooth_scale(%s : memref<4096xf32>)
      -> y(%y : memref<?x4096xi8>) scale(%scale : memref<?xf32>)
  return
}
func.func @add_rms_norm_dynamic_quant(%x: memref<?x4096xbf16>, %r: memref<?x4096xbf16>,
                                      %w: memref<4096xf32>, %s: memref<4096xf32>,
                                      %y: memref<?x4096xi8>, %scale: memref<?xf32>,
                                      %a: memref<?x4096xbf16>) {
  llm.add_rms_norm_dynamic_quant hidden_states(%x : memref<?x4096xbf16>) residual(%r : memref<?x4096xbf16>)
      weight(%w : memref<4096xf32>) smooth_scale(%s : memref<4096xf32>)
      -> y(%y : memref<?x4096xi8>) per_token_scale(%scale : memref<?xf32>) after_res(%a : memref<?x4096xbf16>)
      {eps = 1.0e-06 : f32}
  return
}
// Rotary embedding of the query and key heads of a packed qkv (32 query
// and 8 KV heads of 128), in place, one sequence.
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
// The step's keys and values (8 KV heads of 128) into pages of 128.
func.func @store_paged(%key: memref<?x8x128xbf16>, %value: memref<?x8x128xbf16>,
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
