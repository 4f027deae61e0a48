// The first operators of seed 002 written as a model author writes them:
// llm ops on the layer's buffers, nothing about tiles, descriptors or
// cores. `wspc --run` lowers them (convert-llm-to-wsp: a planning sequence
// and a tile kernel per op), plans, specializes, emits and runs the
// self-check (rms_norm.selfcheck.cpp) against a naive reference.
//
// @pre_attention_norm is the residual stream's norm in front of attention:
// after_res = hidden_states + residual, y = rms_norm(after_res) * weight.
// @final_norm is the plain norm in front of the LM head.
// hidden_size is static (the model's), num_tokens is this step's.

func.func @pre_attention_norm(%hidden_states: memref<?x2048xbf16>,
                              %residual: memref<?x2048xbf16>,
                              %weight: memref<2048xf32>,
                              %y: memref<?x2048xbf16>,
                              %after_res: memref<?x2048xbf16>) {
  llm.rms_norm hidden_states(%hidden_states : memref<?x2048xbf16>)
      residual(%residual : memref<?x2048xbf16>)
      weight(%weight : memref<2048xf32>)
      -> y(%y : memref<?x2048xbf16>) after_res(%after_res : memref<?x2048xbf16>)
      {eps = 1.0e-05 : f32}
  return
}

func.func @final_norm(%hidden_states: memref<?x2048xbf16>,
                      %weight: memref<2048xf32>, %y: memref<?x2048xbf16>) {
  llm.rms_norm hidden_states(%hidden_states : memref<?x2048xbf16>)
      weight(%weight : memref<2048xf32>) -> y(%y : memref<?x2048xbf16>)
      {eps = 1.0e-06 : f32}
  return
}
