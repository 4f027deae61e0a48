// The KV cache of decode attention sharded over N ranks (seed 003), both
// ways: KV data parallelism (each rank holds whole requests) and context
// parallelism (each rank holds part of every request's sequence). 8 query
// heads over 2 KV heads (GQA 4), head_dim 64, pages of 16 positions, bf16
// or int8 caches, 1 to 3 new tokens per request.
//
// The @attend_* functions are the unsharded attention. Each @kvdpN_* and
// @cpN_* function is one rank's part of the same attention on a grid of
// N ranks: its q and out hold the rank's 8 / N query heads of every
// request (tensor parallel). Its cache:
// - kvdp (and kvdp_all_to_all): the KV of its own requests, ceil(batch /
//   N) of them in order (rank r: [r c, min(batch, (r + 1) c))), in a pool
//   and a table of its own, whose rows the requests' kv_ids name;
// - cp: positions [r 16 / N, (r + 1) 16 / N) of every page (element-level
//   sharding of each block): a pool of the same pages with 16 / N
//   positions each, and the same table.
//
// The pipeline (convert-llm-kv-sharding) rewrites each into the rank's
// program. kvdp: an all_gather of the query heads (kvdp_all_to_all: one
// all_to_all of the rows each rank attends), the attention of the rank's
// requests with every head, the chunk planned for the whole batch, an
// all_gather of the outputs along the batch and the rank's heads out of
// it. cp: an all_gather of the query heads, the attention of every request
// over the rank's positions into softmax states, an all_to_all of the
// states of each rank's heads and their merge (max, rescale, sum, in rank
// order). `wspc --run` runs the self-check (kv_sharding.selfcheck.cpp):
// kvdp equals the unsharded attention bit for bit, cp stays within the
// stated bound of a naive reference, on 1, 2 and 4 ranks in one process
// and, started by `mpirun -np N`, on N processes.

shard.grid @ranks1(shape = 1)
shard.grid @ranks2(shape = 2)
shard.grid @ranks4(shape = 4)
shard.grid @tp2x2(shape = 2x2)
shard.grid @tp2x2x2(shape = 2x2x2)

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
      -> out(%out : memref<?x1x8x64xbf16>) on @ranks1 kv_sharding = kvdp {q_seq_len = 1 : i32}
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
      -> out(%out : memref<?x1x4x64xbf16>) on @ranks2 kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

// Seed 003's TP64-KVDP8 at this machine's scale, TP4-KVDP2: a grid of 2 x 2,
// axis 0 the KV heads (tensor parallel over them), axis 1 KV data parallel
// inside each KV head's group of query heads. Rank (g, d) holds query heads
// [4 g + 2 d, 4 g + 2 d + 2) (as rank 2 g + d of 4), KV head g alone and
// the requests of half d of the batch; the query heads are gathered, and
// the outputs sent back, along axis 1 only (grid_axes = [1]).
func.func @tp4_kvdp2_q1(%q: memref<?x1x2x64xbf16>,
                        %kv_ids: memref<?xi32>,
                        %kv_lens: memref<?xi32>,
                        %q_lens: memref<?xi32>,
                        %accum_q_len: memref<?xi32>,
                        %block_table: memref<?x?xi32>,
                        %k_cache: memref<?x1x16x64xbf16>,
                        %v_cache: memref<?x1x16x64xbf16>,
                        %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x1x16x64xbf16>) v_cache(%v_cache : memref<?x1x16x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @tp2x2 grid_axes = [1]
      kv_sharding = kvdp {q_seq_len = 1 : i32}
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
      -> out(%out : memref<?x1x2x64xbf16>) on @ranks4 kv_sharding = kvdp {q_seq_len = 1 : i32}
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
      -> out(%out : memref<?x3x4x64xbf16>) on @ranks2 kv_sharding = kvdp {q_seq_len = 3 : i32}
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
      -> out(%out : memref<?x3x2x64xbf16>) on @ranks4 kv_sharding = kvdp_all_to_all {q_seq_len = 3 : i32}
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
      -> out(%out : memref<?x2x4x64xbf16>) on @ranks2 kv_sharding = kvdp_all_to_all {q_seq_len = 2 : i32}
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
      -> out(%out : memref<?x2x2x64xbf16>) on @ranks4 kv_sharding = kvdp {q_seq_len = 2 : i32}
  return
}

// Seed 003's TP8-KVDP2-CP4 at this machine's scale, KVDP2-CP2: a grid of
// 2 x 2, KV data parallel along axis 0 and, inside each rank's half of the
// batch, context parallel along axis 1 (kv_sharding = kvdp_cp). Rank (d, c)
// holds positions [8 c, 8 c + 8) of every page of the requests of half d,
// and the query heads [2 (2 c + d), 2 (2 c + d) + 2) (the group's heads are
// ordered by (cp, kvdp) coordinate); its requests' softmax states merge
// over axis 1, their outputs are gathered over axis 0.
func.func @kvdp2_cp2_q1(%q: memref<?x1x2x64xbf16>,
                        %kv_ids: memref<?xi32>,
                        %kv_lens: memref<?xi32>,
                        %q_lens: memref<?xi32>,
                        %accum_q_len: memref<?xi32>,
                        %block_table: memref<?x?xi32>,
                        %k_cache: memref<?x2x8x64xbf16>,
                        %v_cache: memref<?x2x8x64xbf16>,
                        %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x8x64xbf16>) v_cache(%v_cache : memref<?x2x8x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @tp2x2 grid_axes = [0, 1]
      kv_sharding = kvdp_cp {q_seq_len = 1 : i32}
  return
}

// Both, with tensor parallelism over the KV heads: TP2-KVDP2-CP2 on a grid
// of 2 x 2 x 2 (8 ranks). Axis 0 is the KV head (rank (g, d, c) holds KV
// head g alone and one query head), KV data parallel along axis 1, context
// parallel along axis 2, inside each KV head's group of 4 query heads.
func.func @tp2_kvdp2_cp2_q1(%q: memref<?x1x1x64xbf16>,
                            %kv_ids: memref<?xi32>,
                            %kv_lens: memref<?xi32>,
                            %q_lens: memref<?xi32>,
                            %accum_q_len: memref<?xi32>,
                            %block_table: memref<?x?xi32>,
                            %k_cache: memref<?x1x8x64xbf16>,
                            %v_cache: memref<?x1x8x64xbf16>,
                            %out: memref<?x1x1x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x1x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x1x8x64xbf16>) v_cache(%v_cache : memref<?x1x8x64xbf16>)
      -> out(%out : memref<?x1x1x64xbf16>) on @tp2x2x2 grid_axes = [1, 2]
      kv_sharding = kvdp_cp {q_seq_len = 1 : i32}
  return
}

// One rank's part of the same attentions, context parallel: its part
// of every page (16 / N positions).

func.func @cp2_q1(%q: memref<?x1x4x64xbf16>,
                  %kv_ids: memref<?xi32>,
                  %kv_lens: memref<?xi32>,
                  %q_lens: memref<?xi32>,
                  %accum_q_len: memref<?xi32>,
                  %block_table: memref<?x?xi32>,
                  %k_cache: memref<?x2x8x64xbf16>,
                  %v_cache: memref<?x2x8x64xbf16>,
                  %out: memref<?x1x4x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x4x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x8x64xbf16>) v_cache(%v_cache : memref<?x2x8x64xbf16>)
      -> out(%out : memref<?x1x4x64xbf16>) on @ranks2 kv_sharding = cp {q_seq_len = 1 : i32}
  return
}

func.func @cp4_q1(%q: memref<?x1x2x64xbf16>,
                  %kv_ids: memref<?xi32>,
                  %kv_lens: memref<?xi32>,
                  %q_lens: memref<?xi32>,
                  %accum_q_len: memref<?xi32>,
                  %block_table: memref<?x?xi32>,
                  %k_cache: memref<?x2x4x64xbf16>,
                  %v_cache: memref<?x2x4x64xbf16>,
                  %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x4x64xbf16>) v_cache(%v_cache : memref<?x2x4x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @ranks4 kv_sharding = cp {q_seq_len = 1 : i32}
  return
}

func.func @cp4_q3(%q: memref<?x3x2x64xbf16>,
                  %kv_ids: memref<?xi32>,
                  %kv_lens: memref<?xi32>,
                  %q_lens: memref<?xi32>,
                  %accum_q_len: memref<?xi32>,
                  %block_table: memref<?x?xi32>,
                  %k_cache: memref<?x2x4x64xbf16>,
                  %v_cache: memref<?x2x4x64xbf16>,
                  %out: memref<?x3x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x3x2x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x4x64xbf16>) v_cache(%v_cache : memref<?x2x4x64xbf16>)
      -> out(%out : memref<?x3x2x64xbf16>) on @ranks4 kv_sharding = cp {q_seq_len = 3 : i32}
  return
}

func.func @cp2_int8_q2(%q: memref<?x2x4x64xbf16>,
                       %kv_ids: memref<?xi32>,
                       %kv_lens: memref<?xi32>,
                       %q_lens: memref<?xi32>,
                       %accum_q_len: memref<?xi32>,
                       %block_table: memref<?x?xi32>,
                       %k_cache: memref<?x2x8x64xi8>,
                       %v_cache: memref<?x2x8x64xi8>,
                       %k_scale: memref<2x64xf32>,
                       %v_scale: memref<2x64xf32>,
                       %out: memref<?x2x4x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x4x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x8x64xi8>) v_cache(%v_cache : memref<?x2x8x64xi8>)
      k_scale(%k_scale : memref<2x64xf32>) v_scale(%v_scale : memref<2x64xf32>)
      -> out(%out : memref<?x2x4x64xbf16>) on @ranks2 kv_sharding = cp {q_seq_len = 2 : i32}
  return
}

func.func @cp4_int8_q2(%q: memref<?x2x2x64xbf16>,
                       %kv_ids: memref<?xi32>,
                       %kv_lens: memref<?xi32>,
                       %q_lens: memref<?xi32>,
                       %accum_q_len: memref<?xi32>,
                       %block_table: memref<?x?xi32>,
                       %k_cache: memref<?x2x4x64xi8>,
                       %v_cache: memref<?x2x4x64xi8>,
                       %k_scale: memref<2x64xf32>,
                       %v_scale: memref<2x64xf32>,
                       %out: memref<?x2x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x2x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x4x64xi8>) v_cache(%v_cache : memref<?x2x4x64xi8>)
      k_scale(%k_scale : memref<2x64xf32>) v_scale(%v_scale : memref<2x64xf32>)
      -> out(%out : memref<?x2x2x64xbf16>) on @ranks4 kv_sharding = cp {q_seq_len = 2 : i32}
  return
}


// The step's new keys and values into the cache: unsharded, and into a
// context-parallel rank's part of every page (the rank that holds a
// token's position stores it, at its place in the rank's page). One token
// per request (decode) or several (a chunk of prefill), packed by q_lens.
func.func @store_whole(%key: memref<?x2x64xbf16>, %value: memref<?x2x64xbf16>,
                       %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>,
                       %q_lens: memref<?xi32>, %kv_lens: memref<?xi32>,
                       %k_cache: memref<?x2x16x64xbf16>, %v_cache: memref<?x2x16x64xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x2x64xbf16>) value(%value : memref<?x2x64xbf16>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      {max_q_len = 64 : i32}
  return
}

func.func @cp4_store(%key: memref<?x2x64xbf16>, %value: memref<?x2x64xbf16>,
                     %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>,
                     %q_lens: memref<?xi32>, %kv_lens: memref<?xi32>,
                     %k_cache: memref<?x2x4x64xbf16>, %v_cache: memref<?x2x4x64xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x2x64xbf16>) value(%value : memref<?x2x64xbf16>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k_cache : memref<?x2x4x64xbf16>) v_cache(%v_cache : memref<?x2x4x64xbf16>)
      on @ranks4 kv_sharding = cp {max_q_len = 64 : i32}
  return
}

// kvdp_cp's store on the 2 x 2 grid: rank (d, c) stores the tokens of the
// requests of half d whose positions fall in its part [8 c, 8 c + 8) of a
// block, into its pool.
func.func @kvdp2_cp2_store(%key: memref<?x2x64xbf16>, %value: memref<?x2x64xbf16>,
                           %block_table: memref<?x?xi32>, %kv_ids: memref<?xi32>,
                           %q_lens: memref<?xi32>, %kv_lens: memref<?xi32>,
                           %k_cache: memref<?x2x8x64xbf16>, %v_cache: memref<?x2x8x64xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x2x64xbf16>) value(%value : memref<?x2x64xbf16>)
      block_table(%block_table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k_cache : memref<?x2x8x64xbf16>) v_cache(%v_cache : memref<?x2x8x64xbf16>)
      on @tp2x2 grid_axes = [0, 1] kv_sharding = kvdp_cp {max_q_len = 64 : i32}
  return
}
