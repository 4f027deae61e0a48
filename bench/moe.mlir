// The routed experts' projection of an MoE layer (64 experts, hidden 512 ->
// 256) as moe_quant_group_gemm, and the same arithmetic as one dense
// quant_matmul over block-padded rows, for bench-moe-plan.
func.func @experts(%x: memref<?x512xi8>, %s: memref<?xf32>, %w: memref<64x512x256xi8>,
                   %ws: memref<64x256xf32>, %c: memref<64xi32>, %y: memref<?x256xbf16>) {
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x512xi8>)
      per_token_scale(%s : memref<?xf32>)
      experts_weight(%w : memref<64x512x256xi8>)
      experts_scale(%ws : memref<64x256xf32>)
      experts_token_count(%c : memref<64xi32>) -> y(%y : memref<?x256xbf16>)
  return
}

func.func @dense(%x: memref<?x512xi8>, %s: memref<?xf32>, %w: memref<512x256xi8>,
                 %ws: memref<256xf32>, %y: memref<?x256xbf16>) {
  llm.quant_matmul hidden_states(%x : memref<?x512xi8>) per_token_scale(%s : memref<?xf32>)
      weight(%w : memref<512x256xi8>) weight_scale(%ws : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>)
  return
}
