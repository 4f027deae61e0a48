// wsp-reduce keeps what a bug needs: of a model's step, only the function
// and the op that convert-llm-to-wsp refuses (an rms_norm over 100 columns)
// are left; the interestingness script (Inputs/reduce-interesting.sh) runs
// wsp-opt on each candidate.
// RUN: wsp-reduce %s -reduction-tree='traversal-mode=0 test=%S/Inputs/reduce-interesting.sh test-arg=wsp-opt' | FileCheck %s

// CHECK-NOT: func.func @embed
// CHECK-LABEL: func.func @norm(
// CHECK: llm.rms_norm hidden_states(%{{.*}} : memref<?x100xbf16>)
// CHECK-NOT: llm.rms_norm
// CHECK-NOT: func.func @other

func.func @embed(%ids: memref<?xi32>, %table: memref<1024x64xbf16>, %y: memref<?x64xbf16>) {
  llm.embedding token_ids(%ids : memref<?xi32>) weight(%table : memref<1024x64xbf16>) -> y(%y : memref<?x64xbf16>)
  return
}

func.func @norm(%x: memref<?x100xbf16>, %w: memref<100xf32>, %x64: memref<?x64xbf16>, %w64: memref<64xf32>) {
  llm.rms_norm hidden_states(%x64 : memref<?x64xbf16>) weight(%w64 : memref<64xf32>) -> y(%x64 : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  llm.rms_norm hidden_states(%x : memref<?x100xbf16>) weight(%w : memref<100xf32>) -> y(%x : memref<?x100xbf16>) {eps = 1.0e-6 : f32}
  return
}

func.func @other(%x: memref<?x64xbf16>, %w: memref<64xf32>) {
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) -> y(%x : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  return
}
