// quant_matmul at a projection's size (hidden 1024 -> 1024, weights stored
// [N, K]), for bench-cpusim-quant-matmul.
func.func @proj(%x: memref<?x1024xi8>, %pts: memref<?xf32>, %w: memref<1024x1024xi8>,
                %ws: memref<1024xf32>, %y: memref<?x1024xbf16>) {
  llm.quant_matmul hidden_states(%x : memref<?x1024xi8>) per_token_scale(%pts : memref<?xf32>)
      weight(%w : memref<1024x1024xi8>) weight_scale(%ws : memref<1024xf32>)
      -> y(%y : memref<?x1024xbf16>) {transpose_b = true}
  return
}
