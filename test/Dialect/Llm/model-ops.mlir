// The model's ends, embedding and argmax: round trip, custom and generic.
// RUN: wsp-opt %s | FileCheck %s
// RUN: wsp-opt %s -mlir-print-op-generic | wsp-opt | FileCheck %s

// CHECK-LABEL: func.func @ends
// CHECK: llm.embedding token_ids(%{{.*}} : memref<?xi32>) weight(%{{.*}} : memref<1024x256xbf16>) -> y(%{{.*}} : memref<?x256xbf16>)
// CHECK: llm.argmax logits(%{{.*}} : memref<?x1024xbf16>) -> token_ids(%{{.*}} : memref<?xi32>)
// CHECK: llm.argmax logits(%{{.*}} : memref<?x1024xf32>) -> token_ids(%{{.*}} : memref<?xi32>)
func.func @ends(%ids: memref<?xi32>, %table: memref<1024x256xbf16>,
                %x: memref<?x256xbf16>, %logits: memref<?x1024xbf16>,
                %logits32: memref<?x1024xf32>, %next: memref<?xi32>) {
  llm.embedding token_ids(%ids : memref<?xi32>) weight(%table : memref<1024x256xbf16>)
      -> y(%x : memref<?x256xbf16>)
  llm.argmax logits(%logits : memref<?x1024xbf16>) -> token_ids(%next : memref<?xi32>)
  llm.argmax logits(%logits32 : memref<?x1024xf32>) -> token_ids(%next : memref<?xi32>)
  return
}
