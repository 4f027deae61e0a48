// Every rule of embedding and argmax, one expected error each.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

func.func @ids_type(%ids: memref<?xi64>, %t: memref<64x32xbf16>, %y: memref<?x32xbf16>) {
  // expected-error @+1 {{'token_ids' must hold i32, got 'memref<?xi64>'}}
  llm.embedding token_ids(%ids : memref<?xi64>) weight(%t : memref<64x32xbf16>) -> y(%y : memref<?x32xbf16>)
  return
}

// -----

func.func @hidden(%ids: memref<?xi32>, %t: memref<64x32xbf16>, %y: memref<?x16xbf16>) {
  // expected-error @+1 {{'y' has hidden_size = 16 but 'weight' has hidden_size = 32}}
  llm.embedding token_ids(%ids : memref<?xi32>) weight(%t : memref<64x32xbf16>) -> y(%y : memref<?x16xbf16>)
  return
}

// -----

func.func @tokens(%ids: memref<4xi32>, %t: memref<64x32xbf16>, %y: memref<5x32xbf16>) {
  // expected-error @+1 {{'y' has num_tokens = 5 but 'token_ids' has num_tokens = 4}}
  llm.embedding token_ids(%ids : memref<4xi32>) weight(%t : memref<64x32xbf16>) -> y(%y : memref<5x32xbf16>)
  return
}

// -----

func.func @table_type(%ids: memref<?xi32>, %t: memref<64x32xf32>, %y: memref<?x32xbf16>) {
  // expected-error @+1 {{'weight' must hold bf16, got 'memref<64x32xf32>'}}
  llm.embedding token_ids(%ids : memref<?xi32>) weight(%t : memref<64x32xf32>) -> y(%y : memref<?x32xbf16>)
  return
}

// -----

func.func @logits_type(%l: memref<?x64xi32>, %ids: memref<?xi32>) {
  // expected-error @+1 {{'logits' must hold bf16 or f32, got 'memref<?x64xi32>'}}
  llm.argmax logits(%l : memref<?x64xi32>) -> token_ids(%ids : memref<?xi32>)
  return
}

// -----

func.func @argmax_tokens(%l: memref<3x64xf32>, %ids: memref<4xi32>) {
  // expected-error @+1 {{'token_ids' has num_tokens = 4 but 'logits' has num_tokens = 3}}
  llm.argmax logits(%l : memref<3x64xf32>) -> token_ids(%ids : memref<4xi32>)
  return
}

// -----

func.func @argmax_rank(%l: memref<?xf32>, %ids: memref<?xi32>) {
  // expected-error @+1 {{'logits' must have rank 2}}
  llm.argmax logits(%l : memref<?xf32>) -> token_ids(%ids : memref<?xi32>)
  return
}
