// KV data parallelism (seed 003) on decode attention: 8 query heads over 2
// KV heads (GQA 4), head_dim 64, pages of 16 positions, bf16 or int8
// caches, 1 to 3 new tokens per request. The @attend_* functions are the
// unsharded attention; each @kvdpN_* function is one rank's part of the
// same attention on a grid of N ranks: its q and out hold the rank's 8 / N
// query heads of every request (tensor parallel), its k_cache, v_cache and
// block_table the KV of its own requests, ceil(batch / N) of them in
// order (rank r: requests [r c, min(batch, (r + 1) c))), in a pool and a
// table of its own, whose rows the requests' kv_ids name.
//
// The pipeline (convert-llm-kv-sharding) rewrites each into the rank's
// program: an all_gather of the query heads (kvdp; kvdp_all_to_all: one
// all_to_all of the rows each rank attends), the attention of the rank's
// requests with every head, the chunk size planned for the whole batch,
// an all_gather of the outputs along the batch and the rank's heads out
// of it. `wspc --run` runs the self-check (kvdp_attention.selfcheck.cpp):
// for batches 1 to 16 with ragged lengths, every rank's out equals the
// unsharded out's heads bit for bit, on 1, 2 and 4 ranks in one process
// and, started by `mpirun -np N`, on N processes.

shard.grid @kvdp1(shape = 1)
shard.grid @kvdp2(shape = 2)
shard.grid @kvdp4(shape = 4)

func.func @attend_q1(%q: memref<?x1x8x64xbf16>,
                     %kv_ids: memref<?xi32>,
                     %kv_lens: memref<?xi32>,
                     %q_lens: memref<?xi32>,
                     %accum_q_len: memref<?xi32>,
                     %block_table: memref<?x?xi32>,
                     %k_cache: memref<?x2x16x64xbf16>,
                     %v_cache: memref<?x2x16x64xbf16>,
                     %out: memref<?x1x8x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x1x8x64xbf16>) {q_seq_len = 1 : i32}
  return
}

func.func @attend_q3(%q: memref<?x3x8x64xbf16>,
                     %kv_ids: memref<?xi32>,
                     %kv_lens: memref<?xi32>,
                     %q_lens: memref<?xi32>,
                     %accum_q_len: memref<?xi32>,
                     %block_table: memref<?x?xi32>,
                     %k_cache: memref<?x2x16x64xbf16>,
                     %v_cache: memref<?x2x16x64xbf16>,
                     %out: memref<?x3x8x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x3x8x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x3x8x64xbf16>) {q_seq_len = 3 : i32}
  return
}

func.func @attend_int8_q2(%q: memref<?x2x8x64xbf16>,
                          %kv_ids: memref<?xi32>,
                          %kv_lens: memref<?xi32>,
                          %q_lens: memref<?xi32>,
                          %accum_q_len: memref<?xi32>,
                          %block_table: memref<?x?xi32>,
                          %k_cache: memref<?x2x16x64xi8>,
                          %v_cache: memref<?x2x16x64xi8>,
                          %k_scale: memref<2x64xf32>,
                          %v_scale: memref<2x64xf32>,
                          %out: memref<?x2x8x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x8x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xi8>) v_cache(%v_cache : memref<?x2x16x64xi8>)
      k_scale(%k_scale : memref<2x64xf32>) v_scale(%v_scale : memref<2x64xf32>)
      -> out(%out : memref<?x2x8x64xbf16>) {q_seq_len = 2 : i32}
  return
}

// One rank's part of the same attentions, KV data parallel.

func.func @kvdp1_q1(%q: memref<?x1x8x64xbf16>,
                    %kv_ids: memref<?xi32>,
                    %kv_lens: memref<?xi32>,
                    %q_lens: memref<?xi32>,
                    %accum_q_len: memref<?xi32>,
                    %block_table: memref<?x?xi32>,
                    %k_cache: memref<?x2x16x64xbf16>,
                    %v_cache: memref<?x2x16x64xbf16>,
                    %out: memref<?x1x8x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x1x8x64xbf16>) on @kvdp1 kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

func.func @kvdp2_q1(%q: memref<?x1x4x64xbf16>,
                    %kv_ids: memref<?xi32>,
                    %kv_lens: memref<?xi32>,
                    %q_lens: memref<?xi32>,
                    %accum_q_len: memref<?xi32>,
                    %block_table: memref<?x?xi32>,
                    %k_cache: memref<?x2x16x64xbf16>,
                    %v_cache: memref<?x2x16x64xbf16>,
                    %out: memref<?x1x4x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x4x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x1x4x64xbf16>) on @kvdp2 kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

func.func @kvdp4_q1(%q: memref<?x1x2x64xbf16>,
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
      -> out(%out : memref<?x1x2x64xbf16>) on @kvdp4 kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

func.func @kvdp2_q3(%q: memref<?x3x4x64xbf16>,
                    %kv_ids: memref<?xi32>,
                    %kv_lens: memref<?xi32>,
                    %q_lens: memref<?xi32>,
                    %accum_q_len: memref<?xi32>,
                    %block_table: memref<?x?xi32>,
                    %k_cache: memref<?x2x16x64xbf16>,
                    %v_cache: memref<?x2x16x64xbf16>,
                    %out: memref<?x3x4x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x3x4x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x3x4x64xbf16>) on @kvdp2 kv_sharding = kvdp {q_seq_len = 3 : i32}
  return
}

func.func @kvdp4_q3(%q: memref<?x3x2x64xbf16>,
                    %kv_ids: memref<?xi32>,
                    %kv_lens: memref<?xi32>,
                    %q_lens: memref<?xi32>,
                    %accum_q_len: memref<?xi32>,
                    %block_table: memref<?x?xi32>,
                    %k_cache: memref<?x2x16x64xbf16>,
                    %v_cache: memref<?x2x16x64xbf16>,
                    %out: memref<?x3x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x3x2x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x3x2x64xbf16>) on @kvdp4 kv_sharding = kvdp_all_to_all {q_seq_len = 3 : i32}
  return
}

func.func @kvdp2_int8_q2(%q: memref<?x2x4x64xbf16>,
                         %kv_ids: memref<?xi32>,
                         %kv_lens: memref<?xi32>,
                         %q_lens: memref<?xi32>,
                         %accum_q_len: memref<?xi32>,
                         %block_table: memref<?x?xi32>,
                         %k_cache: memref<?x2x16x64xi8>,
                         %v_cache: memref<?x2x16x64xi8>,
                         %k_scale: memref<2x64xf32>,
                         %v_scale: memref<2x64xf32>,
                         %out: memref<?x2x4x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x4x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xi8>) v_cache(%v_cache : memref<?x2x16x64xi8>)
      k_scale(%k_scale : memref<2x64xf32>) v_scale(%v_scale : memref<2x64xf32>)
      -> out(%out : memref<?x2x4x64xbf16>) on @kvdp2 kv_sharding = kvdp_all_to_all {q_seq_len = 2 : i32}
  return
}

func.func @kvdp4_int8_q2(%q: memref<?x2x2x64xbf16>,
                         %kv_ids: memref<?xi32>,
                         %kv_lens: memref<?xi32>,
                         %q_lens: memref<?xi32>,
                         %accum_q_len: memref<?xi32>,
                         %block_table: memref<?x?xi32>,
                         %k_cache: memref<?x2x16x64xi8>,
                         %v_cache: memref<?x2x16x64xi8>,
                         %k_scale: memref<2x64xf32>,
                         %v_scale: memref<2x64xf32>,
                         %out: memref<?x2x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x2x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xi8>) v_cache(%v_cache : memref<?x2x16x64xi8>)
      k_scale(%k_scale : memref<2x64xf32>) v_scale(%v_scale : memref<2x64xf32>)
      -> out(%out : memref<?x2x2x64xbf16>) on @kvdp4 kv_sharding = kvdp {q_seq_len = 2 : i32}
  return
}

