// bench/KvShardingBench.cpp's programs: examples/ir/kv_sharding.mlir's
// unsharded attention and its 4-rank KV data parallel and context parallel
// parts, one new token, with pages of 64 positions (16 per rank under
// context parallelism: the example's pages of 16 leave each rank pages of
// 4, whose per-page overhead would dominate a timing).

shard.grid @ranks4(shape = 4)

func.func @attend_q1(%q: memref<?x1x8x64xbf16>,
                     %kv_ids: memref<?xi32>,
                     %kv_lens: memref<?xi32>,
                     %q_lens: memref<?xi32>,
                     %accum_q_len: memref<?xi32>,
                     %block_table: memref<?x?xi32>,
                     %k_cache: memref<?x2x64x64xbf16>,
                     %v_cache: memref<?x2x64x64xbf16>,
                     %out: memref<?x1x8x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x64x64xbf16>) v_cache(%v_cache : memref<?x2x64x64xbf16>)
      -> out(%out : memref<?x1x8x64xbf16>) {q_seq_len = 1 : i32}
  return
}

func.func @kvdp4_q1(%q: memref<?x1x2x64xbf16>,
                    %kv_ids: memref<?xi32>,
                    %kv_lens: memref<?xi32>,
                    %q_lens: memref<?xi32>,
                    %accum_q_len: memref<?xi32>,
                    %block_table: memref<?x?xi32>,
                    %k_cache: memref<?x2x64x64xbf16>,
                    %v_cache: memref<?x2x64x64xbf16>,
                    %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x64x64xbf16>) v_cache(%v_cache : memref<?x2x64x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @ranks4 kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

// The same in its all_to_all form (llm-select-kv-sharding's choice).
func.func @kvdp4_all_to_all_q1(%q: memref<?x1x2x64xbf16>,
                               %kv_ids: memref<?xi32>,
                               %kv_lens: memref<?xi32>,
                               %q_lens: memref<?xi32>,
                               %accum_q_len: memref<?xi32>,
                               %block_table: memref<?x?xi32>,
                               %k_cache: memref<?x2x64x64xbf16>,
                               %v_cache: memref<?x2x64x64xbf16>,
                               %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x64x64xbf16>) v_cache(%v_cache : memref<?x2x64x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @ranks4 kv_sharding = kvdp_all_to_all {q_seq_len = 1 : i32}
  return
}

func.func @cp4_q1(%q: memref<?x1x2x64xbf16>,
                  %kv_ids: memref<?xi32>,
                  %kv_lens: memref<?xi32>,
                  %q_lens: memref<?xi32>,
                  %accum_q_len: memref<?xi32>,
                  %block_table: memref<?x?xi32>,
                  %k_cache: memref<?x2x16x64xbf16>,
                  %v_cache: memref<?x2x16x64xbf16>,
                  %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @ranks4 kv_sharding = cp {q_seq_len = 1 : i32}
  return
}

