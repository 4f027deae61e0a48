// quant_matmul as the attention block of seed 002 uses it for the QKV and
// output projections: int8 activations (a token's scale from
// add_rms_norm_dynamic_quant) times int8 weights, dequantized to bf16.
// `wspc --run` lowers, plans, emits and runs the self-check
// (quant_matmul.selfcheck.cpp).
//
// The cube multiplies into i32 and the vector cores dequantize; on A2/A3
// they exchange the accumulator through global memory, so the lowered
// functions take one more argument, a workspace of one [32 x N tile] i32
// slot per block (memref<24x32x128xi32>, attribute llm.workspace).
//
// @qkv_proj: weight stored [new_hidden_size, hidden_size] (transpose_b,
//   PyTorch's Linear layout), f32 weight scales.
// @o_proj: weight stored [hidden_size, new_hidden_size], bf16 weight
//   scales and a bf16 bias.
// @columns_proj: activations stored [hidden_size, num_tokens] (transpose_a:
//   a token per column), both dimensions dynamic, and the weight stored
//   [new_hidden_size, hidden_size] (transpose_b).

func.func @qkv_proj(%hidden_states: memref<?x256xi8>, %per_token_scale: memref<?xf32>,
                    %weight: memref<384x256xi8>, %weight_scale: memref<384xf32>,
                    %y: memref<?x384xbf16>) {
  llm.quant_matmul hidden_states(%hidden_states : memref<?x256xi8>)
      per_token_scale(%per_token_scale : memref<?xf32>)
      weight(%weight : memref<384x256xi8>) weight_scale(%weight_scale : memref<384xf32>)
      -> y(%y : memref<?x384xbf16>) {transpose_b = true}
  return
}

func.func @o_proj(%hidden_states: memref<?x256xi8>, %per_token_scale: memref<?xf32>,
                  %weight: memref<256x128xi8>, %weight_scale: memref<128xbf16>,
                  %bias: memref<128xbf16>, %y: memref<?x128xbf16>) {
  llm.quant_matmul hidden_states(%hidden_states : memref<?x256xi8>)
      per_token_scale(%per_token_scale : memref<?xf32>)
      weight(%weight : memref<256x128xi8>) weight_scale(%weight_scale : memref<128xbf16>)
      bias(%bias : memref<128xbf16>) -> y(%y : memref<?x128xbf16>)
  return
}

func.func @columns_proj(%hidden_states: memref<?x?xi8>, %per_token_scale: memref<?xf32>,
                        %weight: memref<128x256xi8>, %weight_scale: memref<128xf32>,
                        %y: memref<?x128xbf16>) {
  llm.quant_matmul hidden_states(%hidden_states : memref<?x?xi8>)
      per_token_scale(%per_token_scale : memref<?xf32>)
      weight(%weight : memref<128x256xi8>) weight_scale(%weight_scale : memref<128xf32>)
      -> y(%y : memref<?x128xbf16>) {transpose_a = true, transpose_b = true}
  return
}
