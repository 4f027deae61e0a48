// The quantizing row operators of seed 002 as a model author writes them:
// the smooth quantization in front of an int8 matmul, and the fused
// residual add + RMS norm + quantization in front of the QKV projection.
// `wspc --run` lowers, plans, emits and runs the self-check
// (norm_quant.selfcheck.cpp) against a naive reference.
//
// @smooth_quant: y, scale = scale_dynamic_quant(x * smooth_scale).
// @pre_qkv_quant: after_res = x + residual; y, per_token_scale =
//   quant(rms_norm(after_res) * weight * smooth_scale), weight in bf16.
// @final_quant: the same without a residual, weight in f32 and
//   smooth_scale in bf16 (the seed allows either for both).

func.func @smooth_quant(%hidden_states: memref<?x2048xbf16>,
                        %smooth_scale: memref<2048xf32>,
                        %y: memref<?x2048xi8>, %scale: memref<?xf32>) {
  llm.scale_dynamic_quant hidden_states(%hidden_states : memref<?x2048xbf16>)
      smooth_scale(%smooth_scale : memref<2048xf32>)
      -> y(%y : memref<?x2048xi8>) scale(%scale : memref<?xf32>)
  return
}

func.func @pre_qkv_quant(%hidden_states: memref<?x2048xbf16>,
                         %residual: memref<?x2048xbf16>,
                         %weight: memref<2048xbf16>,
                         %smooth_scale: memref<2048xf32>,
                         %y: memref<?x2048xi8>, %per_token_scale: memref<?xf32>,
                         %after_res: memref<?x2048xbf16>) {
  llm.add_rms_norm_dynamic_quant hidden_states(%hidden_states : memref<?x2048xbf16>)
      residual(%residual : memref<?x2048xbf16>)
      weight(%weight : memref<2048xbf16>)
      smooth_scale(%smooth_scale : memref<2048xf32>)
      -> y(%y : memref<?x2048xi8>) per_token_scale(%per_token_scale : memref<?xf32>)
         after_res(%after_res : memref<?x2048xbf16>)
      {eps = 1.0e-05 : f32}
  return
}

func.func @final_quant(%hidden_states: memref<?x2048xbf16>,
                       %weight: memref<2048xf32>,
                       %smooth_scale: memref<2048xbf16>,
                       %y: memref<?x2048xi8>, %per_token_scale: memref<?xf32>) {
  llm.add_rms_norm_dynamic_quant hidden_states(%hidden_states : memref<?x2048xbf16>)
      weight(%weight : memref<2048xf32>)
      smooth_scale(%smooth_scale : memref<2048xbf16>)
      -> y(%y : memref<?x2048xi8>) per_token_scale(%per_token_scale : memref<?xf32>)
      {eps = 1.0e-06 : f32}
  return
}
