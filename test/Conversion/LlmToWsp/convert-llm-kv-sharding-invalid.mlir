// convert-llm-kv-sharding's diagnostics: what it cannot lower is an error
// at the op.
// RUN: wsp-opt %s --convert-llm-kv-sharding -split-input-file -verify-diagnostics

shard.grid @g(shape = 4)
func.func @no_mode(%q: memref<?x1x2x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{is sharded over @g without a mode: llm-select-kv-sharding (or the kv_sharding attribute) chooses it}}
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x2x64xbf16>) on @g {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @g(shape = 4)
func.func @cp_dynamic_block(%q: memref<?x1x2x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x?x64xbf16>) {
  // expected-error @+1 {{sharded by sequence, needs a static block_size (each rank's part of a block)}}
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x?x64xbf16>) v_cache(%c : memref<?x2x?x64xbf16>) -> out(%q : memref<?x1x2x64xbf16>) on @g kv_sharding = cp {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @g(shape = ?)
func.func @dynamic_grid(%q: memref<?x1x2x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{shards over @g, whose number of ranks is dynamic: a rank's part of the batch and of the heads needs a static count}}
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x2x64xbf16>) on @g kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @g(shape = 2)
func.func @strided_q(%qkv: memref<?x1x6x64xbf16>, %o: memref<?x1x4x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  %c0 = arith.constant 0 : index
  %b = memref.dim %qkv, %c0 : memref<?x1x6x64xbf16>
  // Every other request: not a head range.
  %q = memref.subview %qkv[0, 0, 0, 0] [%b, 1, 4, 64] [2, 1, 1, 1] : memref<?x1x6x64xbf16> to memref<?x1x4x64xbf16, strided<[768, 384, 64, 1]>>
  // expected-error @+1 {{sharded, needs 'q' contiguous row-major or a head range of a contiguous buffer, not 'memref<?x1x4x64xbf16, strided<[768, 384, 64, 1]>>'}}
  llm.flash_attention_decode q(%q : memref<?x1x4x64xbf16, strided<[768, 384, 64, 1]>>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%o : memref<?x1x4x64xbf16>) on @g kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @g(shape = 2)
func.func @nested(%q: memref<?x1x4x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{sharded, lowers only in its function's top block or in scf.if branches there}}
    llm.flash_attention_decode q(%q : memref<?x1x4x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x4x64xbf16>) on @g kv_sharding = kvdp {q_seq_len = 1 : i32}
  }
  return
}

// -----

shard.grid @g(shape = 2)
func.func @store_cp(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>, %a: memref<?xi32>, %c: memref<?x1x8x64xbf16>) {
  // expected-error @+1 {{sharded by sequence, takes the tokens packed by q_lens (no accum_q_len) and their positions (kv_lens)}}
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>) block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) accum_q_len(%a : memref<?xi32>) -> k_cache(%c : memref<?x1x8x64xbf16>) v_cache(%c : memref<?x1x8x64xbf16>) on @g kv_sharding = cp {max_q_len = 64 : i32}
  return
}

// -----

shard.grid @g(shape = 2)
func.func @store_accum(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>, %a: memref<?xi32>, %c: memref<?x1x16x64xbf16>) {
  // expected-error @+1 {{sharded, takes its tokens packed by q_lens (no accum_q_len) or one row per request}}
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>) block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) accum_q_len(%a : memref<?xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>) v_cache(%c : memref<?x1x16x64xbf16>) on @g kv_sharding = kvdp {max_q_len = 64 : i32}
  return
}
