// llm-select-kv-sharding: seed 003's rule, context parallelism when the
// batch is smaller than the ranks, KV data parallelism (its all_to_all
// form) otherwise, both on
// a group of two axes whose first the batch fills; a mode already named
// stays.
// RUN: wsp-opt %s --llm-select-kv-sharding -split-input-file -verify-diagnostics | FileCheck %s

shard.grid @g(shape = 4)

// CHECK-LABEL: func.func @small
// CHECK: on @g kv_sharding = cp
func.func @small(%q: memref<2x1x2x64xbf16>, %l: memref<2xi32>, %a: memref<3xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<2x1x2x64xbf16>) kv_ids(%l : memref<2xi32>) kv_lens(%l : memref<2xi32>) q_lens(%l : memref<2xi32>) accum_q_len(%a : memref<3xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<2x1x2x64xbf16>) on @g {q_seq_len = 1 : i32}
  return
}

// KV data parallelism in its all_to_all form, the least bytes.
// CHECK-LABEL: func.func @even
// CHECK: on @g kv_sharding = kvdp_all_to_all {
func.func @even(%q: memref<4x1x2x64xbf16>, %l: memref<4xi32>, %a: memref<5xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<4x1x2x64xbf16>) kv_ids(%l : memref<4xi32>) kv_lens(%l : memref<4xi32>) q_lens(%l : memref<4xi32>) accum_q_len(%a : memref<5xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<4x1x2x64xbf16>) on @g {q_seq_len = 1 : i32}
  return
}

// CHECK-LABEL: func.func @named
// CHECK: on @g kv_sharding = kvdp_all_to_all
func.func @named(%q: memref<2x1x2x64xbf16>, %l: memref<2xi32>, %a: memref<3xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<2x1x2x64xbf16>) kv_ids(%l : memref<2xi32>) kv_lens(%l : memref<2xi32>) q_lens(%l : memref<2xi32>) accum_q_len(%a : memref<3xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<2x1x2x64xbf16>) on @g kv_sharding = kvdp_all_to_all {q_seq_len = 1 : i32}
  return
}

// The store's batch is its q_lens'.
// CHECK-LABEL: func.func @store_small
// CHECK: on @g kv_sharding = cp
func.func @store_small(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<3xi32>, %c: memref<?x1x16x64xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>) block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<3xi32>) q_lens(%l : memref<3xi32>) kv_lens(%l : memref<3xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>) v_cache(%c : memref<?x1x16x64xbf16>) on @g {max_q_len = 64 : i32}
  return
}

// On a group of two axes (2 x 4 ranks): KV data parallel along the first
// and context parallel along the second when the batch fills the first
// but not the group, as seed 003's TP8-KVDP2-CP4 for B = 2; cp below it,
// kvdp from the group's size up.
shard.grid @g2x4(shape = 2x4)

// CHECK-LABEL: func.func @combined
// CHECK: on @g2x4 grid_axes = [0, 1] kv_sharding = kvdp_cp
// CHECK: on @g2x4 grid_axes = [0, 1] kv_sharding = cp
// CHECK: on @g2x4 grid_axes = [0, 1] kv_sharding = kvdp_all_to_all {
func.func @combined(%q2: memref<2x1x1x64xbf16>, %q1: memref<1x1x1x64xbf16>,
                    %q8: memref<8x1x1x64xbf16>, %l2: memref<2xi32>, %l1: memref<1xi32>,
                    %l8: memref<8xi32>, %a: memref<?xi32>, %bt: memref<?x?xi32>,
                    %c: memref<?x1x8x64xbf16>) {
  llm.flash_attention_decode q(%q2 : memref<2x1x1x64xbf16>) kv_ids(%l2 : memref<2xi32>) kv_lens(%l2 : memref<2xi32>) q_lens(%l2 : memref<2xi32>) accum_q_len(%a : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x1x8x64xbf16>) v_cache(%c : memref<?x1x8x64xbf16>) -> out(%q2 : memref<2x1x1x64xbf16>) on @g2x4 grid_axes = [0, 1] {q_seq_len = 1 : i32}
  llm.flash_attention_decode q(%q1 : memref<1x1x1x64xbf16>) kv_ids(%l1 : memref<1xi32>) kv_lens(%l1 : memref<1xi32>) q_lens(%l1 : memref<1xi32>) accum_q_len(%a : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x1x8x64xbf16>) v_cache(%c : memref<?x1x8x64xbf16>) -> out(%q1 : memref<1x1x1x64xbf16>) on @g2x4 grid_axes = [0, 1] {q_seq_len = 1 : i32}
  llm.flash_attention_decode q(%q8 : memref<8x1x1x64xbf16>) kv_ids(%l8 : memref<8xi32>) kv_lens(%l8 : memref<8xi32>) q_lens(%l8 : memref<8xi32>) accum_q_len(%a : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x1x8x64xbf16>) v_cache(%c : memref<?x1x8x64xbf16>) -> out(%q8 : memref<8x1x1x64xbf16>) on @g2x4 grid_axes = [0, 1] {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @g(shape = 4)
func.func @dynamic(%q: memref<?x1x2x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{is sharded over @g with a dynamic batch: seed 003's rule compares the batch with the ranks; name the mode (kv_sharding = kvdp or cp)}}
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x2x64xbf16>) on @g {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @g(shape = ?)
func.func @dynamic_grid(%q: memref<4x1x2x64xbf16>, %l: memref<4xi32>, %a: memref<5xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{is sharded over @g with a dynamic number of ranks}}
  llm.flash_attention_decode q(%q : memref<4x1x2x64xbf16>) kv_ids(%l : memref<4xi32>) kv_lens(%l : memref<4xi32>) q_lens(%l : memref<4xi32>) accum_q_len(%a : memref<5xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<4x1x2x64xbf16>) on @g {q_seq_len = 1 : i32}
  return
}

// report=true: the rule's inputs and its choice, as a remark at each op
// (the dynamic cases' errors make the run fail).
// RUN: not wsp-opt %s --llm-select-kv-sharding=report=true -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: remark: kv_sharding = cp by seed 003's rule: batch 2 < 4 ranks of the group
// REPORT: remark: kv_sharding = kvdp_all_to_all by seed 003's rule: batch 4 >= 4 ranks of the group
// REPORT: remark: kv_sharding = kvdp_cp by seed 003's rule: batch 2 < 8 ranks of the group, >= 2 along its first axis
// REPORT: remark: kv_sharding = cp by seed 003's rule: batch 1 < 8 ranks of the group, < 2 along its first axis
