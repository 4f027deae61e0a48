// head_rms_norm on a packed QKV of 8 query, 2 key and 2 value heads, as the
// attention block of seed 002 uses it after the QKV projection. `wspc --run`
// lowers, plans, emits and runs the self-check (qk_norm.selfcheck.cpp).
//
// @qk_norm: Q and K (heads 0..9) normalized in place over head_dim 128,
//   one f32 weight row per head.
// @k_norm: K only (heads 8 and 9) of a head_dim-64 QKV into another
//   buffer, bf16 weights; the other heads are copied.

func.func @qk_norm(%qkv: memref<?x12x128xbf16>, %weight: memref<10x128xf32>) {
  llm.head_rms_norm hidden_states(%qkv : memref<?x12x128xbf16>)
      weight(%weight : memref<10x128xf32>) -> y(%qkv : memref<?x12x128xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 10 : i32}
  return
}

func.func @k_norm(%qkv: memref<?x12x64xbf16>, %weight: memref<2x64xbf16>,
                  %y: memref<?x12x64xbf16>) {
  llm.head_rms_norm hidden_states(%qkv : memref<?x12x64xbf16>)
      weight(%weight : memref<2x64xbf16>) -> y(%y : memref<?x12x64xbf16>)
      {eps = 1.0e-05 : f32, head_offset = 8 : i32, head_num = 2 : i32}
  return
}
