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
