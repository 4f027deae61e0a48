// The two benchmark attention operators of seed 002, whose keys and values
// are contiguous (no page table). `wspc --run` lowers each into a planning
// function and its tile kernel, emits them and runs the self-check
// (benchmark_attention.selfcheck.cpp), which recomputes every output in a
// naive reference.
//
// flash_attention: one sequence, nothing cached; query token s sees the
// sequence's positions up to s (causal, the default) or all of them.
// @attention_qkv: a packed qkv of 8 query and 2 KV heads (GQA 4), head_dim
//   128; its leading dimension is dynamic (the planner checks it is 1).
// @attention_gqa8: separate q, k, v, 8 query heads on 1 KV head, head_dim 64.
// @attention_full: not causal, 4 query and 4 KV heads (GQA 1), head_dim 64.
//
// flash_decoding: each request's one new token sees the first kv_len
// positions of its cache row and then its own key and value.
// @decoding_long: 8 query heads on 2 KV heads, head_dim 128, kv_len 2500
//   (a request's row is cut into KV chunks run in order on one block).
// @decoding_qkv: a packed qkv, GQA 8, head_dim 64, kv_len 37.
// @decoding_first: kv_len 0 (only the new token: out = v).

func.func @attention_qkv(%qkv: memref<?x?x12x128xbf16>,
                         %out: memref<?x?x8x128xbf16>) {
  llm.flash_attention qkv(%qkv : memref<?x?x12x128xbf16>)
      -> out(%out : memref<?x?x8x128xbf16>)
  return
}

func.func @attention_gqa8(%q: memref<1x?x8x64xbf16>, %k: memref<1x?x1x64xbf16>,
                          %v: memref<1x?x1x64xbf16>,
                          %out: memref<1x?x8x64xbf16>) {
  llm.flash_attention q(%q : memref<1x?x8x64xbf16>)
      k(%k : memref<1x?x1x64xbf16>) v(%v : memref<1x?x1x64xbf16>)
      -> out(%out : memref<1x?x8x64xbf16>)
  return
}

func.func @attention_full(%q: memref<1x?x4x64xbf16>, %k: memref<1x?x4x64xbf16>,
                          %v: memref<1x?x4x64xbf16>,
                          %out: memref<1x?x4x64xbf16>) {
  llm.flash_attention q(%q : memref<1x?x4x64xbf16>)
      k(%k : memref<1x?x4x64xbf16>) v(%v : memref<1x?x4x64xbf16>)
      -> out(%out : memref<1x?x4x64xbf16>) {is_causal = false}
  return
}

func.func @decoding_long(%q: memref<?x1x8x128xbf16>, %k: memref<?x1x2x128xbf16>,
                         %v: memref<?x1x2x128xbf16>,
                         %k_cache: memref<?x2x?x128xbf16>,
                         %v_cache: memref<?x2x?x128xbf16>,
                         %out: memref<?x1x8x128xbf16>) {
  llm.flash_decoding q(%q : memref<?x1x8x128xbf16>)
      k(%k : memref<?x1x2x128xbf16>) v(%v : memref<?x1x2x128xbf16>)
      k_cache(%k_cache : memref<?x2x?x128xbf16>)
      v_cache(%v_cache : memref<?x2x?x128xbf16>)
      -> out(%out : memref<?x1x8x128xbf16>) {kv_lens = 2500}
  return
}

func.func @decoding_qkv(%qkv: memref<?x1x10x64xbf16>,
                        %k_cache: memref<?x1x?x64xbf16>,
                        %v_cache: memref<?x1x?x64xbf16>,
                        %out: memref<?x1x8x64xbf16>) {
  llm.flash_decoding qkv(%qkv : memref<?x1x10x64xbf16>)
      k_cache(%k_cache : memref<?x1x?x64xbf16>)
      v_cache(%v_cache : memref<?x1x?x64xbf16>)
      -> out(%out : memref<?x1x8x64xbf16>) {kv_lens = 37}
  return
}

func.func @decoding_first(%q: memref<?x1x8x128xbf16>, %k: memref<?x1x2x128xbf16>,
                          %v: memref<?x1x2x128xbf16>,
                          %k_cache: memref<?x2x?x128xbf16>,
                          %v_cache: memref<?x2x?x128xbf16>,
                          %out: memref<?x1x8x128xbf16>) {
  llm.flash_decoding q(%q : memref<?x1x8x128xbf16>)
      k(%k : memref<?x1x2x128xbf16>) v(%v : memref<?x1x2x128xbf16>)
      k_cache(%k_cache : memref<?x2x?x128xbf16>)
      v_cache(%v_cache : memref<?x2x?x128xbf16>)
      -> out(%out : memref<?x1x8x128xbf16>) {kv_lens = 0}
  return
}
