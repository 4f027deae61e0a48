// A model's ends in the CPU simulation: embedding rows against the table
// bit for bit, argmax against a scan of the logits (bf16 and f32; a tie
// goes to the lower id, NaN is never picked), and a token id outside the
// table returning INVALID_PARAMS with nothing written.
// RUN: wsp-opt %s --wsp-pipeline | wsp-translate --wsp-to-cpusim -o %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp %S/Inputs/model-ends-main.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s

// CHECK: 13 tokens: embedding rows equal to the table: 13 of 13; argmax equal to a scan: 13 of 13 (bf16), 13 of 13 (f32); tie picks 10, NaN row picks 0
// CHECK: token id 1024 of a 1024-row table: status 3, nothing written: yes
// CHECK: token id -1: status 3, nothing written: yes

func.func @ends(%ids: memref<?xi32>, %table: memref<1024x256xbf16>,
                %x: memref<?x256xbf16>, %logits: memref<?x1024xbf16>,
                %next: memref<?xi32>) {
  llm.embedding token_ids(%ids : memref<?xi32>) weight(%table : memref<1024x256xbf16>)
      -> y(%x : memref<?x256xbf16>)
  llm.argmax logits(%logits : memref<?x1024xbf16>) -> token_ids(%next : memref<?xi32>)
  return
}

func.func @pick(%logits: memref<?x1024xf32>, %next: memref<?xi32>) {
  llm.argmax logits(%logits : memref<?x1024xf32>) -> token_ids(%next : memref<?xi32>)
  return
}
