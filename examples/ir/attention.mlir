// The attention operators of seed 002 over a paged cache, as a model
// author writes them. `wspc --run` lowers each into a planning function
// and its tile kernel, emits them and runs the self-check
// (attention.selfcheck.cpp), which recomputes every output in a naive
// reference.
//
// @decode_gqa4: flash_attention_decode, one new token per request, 8 query
//   heads on 2 KV heads (GQA 4), head_dim 128. Long rows are cut into KV
//   chunks run in order on one block (flash decoding).
// @decode_gqa8: two new tokens per request (speculative decode), 8 query
//   heads on 1 KV head (GQA 8), head_dim 64.
// @prefill_mha: flash_attention_prefill, a ragged chunked prefill (tokens
//   already cached before the step's), 4 query and 4 KV heads (GQA 1),
//   head_dim 64, sequences at the prefix sums of q_lens.
// @prefill_gqa8: the same with 8 query heads on 1 KV head, head_dim 128,
//   and explicit accum_q_len.
// @decode_mha, @prefill_gqa4: the other ratios in the other phase: decode
//   with 4 query and 4 KV heads (GQA 1), head_dim 128; prefill with 8
//   query heads on 2 KV heads (GQA 4), head_dim 64.
//
// @decode_int8, @prefill_int8: int8 caches (below).
// @decode_window, @decode_window_int8, @prefill_window,
//   @prefill_window_int8: the attention ops with a sliding window (below).
// @decode_d80, @prefill_d48: head_dims that are multiples of 16, not of 32
//   (Phi-2's 80; 48), over bf16 caches (below).
// @decode_d256, @prefill_d256, @decode_d192, @prefill_d96: heads wider
//   than 128 (Gemma's 256; 192) take KV tiles of 64 positions; 96 (below).
// @decode_ring, @prefill_ring_int8: sliding windows over ring caches
//   (below); @decode_start_pos_ring: seed 001's start_pos tensor.
// @decode_g16_q4, @decode_g32_q8, @decode_g16_q4_window_int8: more query
//   rows per KV head than one tile of 32 (GQA groups of 16 and 32, 4 and 8
//   speculative tokens), cut into row tiles (below).
//
// Shapes: caches [pages, kv_head_num, 16, head_dim], block_table
// [max_batch, pages per sequence]; kv_lens counts the tokens cached before
// the step, whose own keys and values are already stored after them.

func.func @decode_gqa4(%q: memref<?x1x8x128xbf16>, %kv_ids: memref<?xi32>,
                       %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                       %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                       %k_cache: memref<?x2x16x128xbf16>,
                       %v_cache: memref<?x2x16x128xbf16>,
                       %out: memref<?x1x8x128xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x128xbf16>)
      v_cache(%v_cache : memref<?x2x16x128xbf16>)
      -> out(%out : memref<?x1x8x128xbf16>) {q_seq_len = 1 : i32}
  return
}

func.func @decode_gqa8(%q: memref<?x2x8x64xbf16>, %kv_ids: memref<?xi32>,
                       %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                       %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                       %k_cache: memref<?x1x16x64xbf16>,
                       %v_cache: memref<?x1x16x64xbf16>,
                       %out: memref<?x2x8x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x8x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x1x16x64xbf16>)
      v_cache(%v_cache : memref<?x1x16x64xbf16>)
      -> out(%out : memref<?x2x8x64xbf16>) {q_seq_len = 2 : i32}
  return
}

func.func @prefill_mha(%q: memref<?x4x64xbf16>, %kv_ids: memref<?xi32>,
                       %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                       %block_table: memref<?x?xi32>,
                       %k_cache: memref<?x4x16x64xbf16>,
                       %v_cache: memref<?x4x16x64xbf16>,
                       %out: memref<?x4x64xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x4x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x4x16x64xbf16>)
      v_cache(%v_cache : memref<?x4x16x64xbf16>)
      -> out(%out : memref<?x4x64xbf16>) {max_q_len = 256 : i32}
  return
}

func.func @prefill_gqa8(%q: memref<?x8x128xbf16>, %kv_ids: memref<?xi32>,
                        %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                        %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                        %k_cache: memref<?x1x16x128xbf16>,
                        %v_cache: memref<?x1x16x128xbf16>,
                        %out: memref<?x8x128xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x8x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x1x16x128xbf16>)
      v_cache(%v_cache : memref<?x1x16x128xbf16>)
      -> out(%out : memref<?x8x128xbf16>) {max_q_len = 256 : i32}
  return
}

func.func @decode_mha(%q: memref<?x1x4x128xbf16>, %kv_ids: memref<?xi32>,
                      %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                      %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                      %k_cache: memref<?x4x16x128xbf16>,
                      %v_cache: memref<?x4x16x128xbf16>,
                      %out: memref<?x1x4x128xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x4x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x4x16x128xbf16>)
      v_cache(%v_cache : memref<?x4x16x128xbf16>)
      -> out(%out : memref<?x1x4x128xbf16>) {q_seq_len = 1 : i32}
  return
}

func.func @prefill_gqa4(%q: memref<?x8x64xbf16>, %kv_ids: memref<?xi32>,
                        %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                        %block_table: memref<?x?xi32>,
                        %k_cache: memref<?x2x16x64xbf16>,
                        %v_cache: memref<?x2x16x64xbf16>,
                        %out: memref<?x8x64xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x8x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>)
      v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x8x64xbf16>) {max_q_len = 256 : i32}
  return
}

// @decode_int8: flash_attention_decode over an int8 cache dequantized by
//   per-(KV head, channel) scales, GQA 4, head_dim 128.
func.func @decode_int8(%q: memref<?x1x8x128xbf16>, %kv_ids: memref<?xi32>,
                       %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                       %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                       %k_cache: memref<?x2x16x128xi8>,
                       %v_cache: memref<?x2x16x128xi8>,
                       %k_scale: memref<2x128xf32>, %v_scale: memref<2x128xf32>,
                       %out: memref<?x1x8x128xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x128xi8>)
      v_cache(%v_cache : memref<?x2x16x128xi8>)
      k_scale(%k_scale : memref<2x128xf32>) v_scale(%v_scale : memref<2x128xf32>)
      -> out(%out : memref<?x1x8x128xbf16>) {q_seq_len = 1 : i32}
  return
}

// @prefill_int8: flash_attention_prefill over an int8 cache, 4 query heads
//   on 2 KV heads (GQA 2), head_dim 64.
func.func @prefill_int8(%q: memref<?x4x64xbf16>, %kv_ids: memref<?xi32>,
                        %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                        %block_table: memref<?x?xi32>,
                        %k_cache: memref<?x2x16x64xi8>,
                        %v_cache: memref<?x2x16x64xi8>,
                        %k_scale: memref<2x64xf32>, %v_scale: memref<2x64xf32>,
                        %out: memref<?x4x64xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x4x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xi8>)
      v_cache(%v_cache : memref<?x2x16x64xi8>)
      k_scale(%k_scale : memref<2x64xf32>) v_scale(%v_scale : memref<2x64xf32>)
      -> out(%out : memref<?x4x64xbf16>) {max_q_len = 256 : i32}
  return
}

// @decode_window: flash_attention_decode with a sliding window of 300
//   positions (each of the two new tokens sees its last 300), GQA 4,
//   head_dim 128: only the chunks the windows reach are planned.
func.func @decode_window(%q: memref<?x2x8x128xbf16>, %kv_ids: memref<?xi32>,
                         %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                         %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                         %k_cache: memref<?x2x16x128xbf16>,
                         %v_cache: memref<?x2x16x128xbf16>,
                         %out: memref<?x2x8x128xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x8x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x128xbf16>)
      v_cache(%v_cache : memref<?x2x16x128xbf16>)
      -> out(%out : memref<?x2x8x128xbf16>)
      {q_seq_len = 2 : i32, sliding_window = 300 : i32}
  return
}

// @decode_window_int8: the same over an int8 cache, one new token, a
//   window of 1,000.
func.func @decode_window_int8(%q: memref<?x1x8x128xbf16>, %kv_ids: memref<?xi32>,
                              %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                              %accum_q_len: memref<?xi32>,
                              %block_table: memref<?x?xi32>,
                              %k_cache: memref<?x2x16x128xi8>,
                              %v_cache: memref<?x2x16x128xi8>,
                              %k_scale: memref<2x128xf32>,
                              %v_scale: memref<2x128xf32>,
                              %out: memref<?x1x8x128xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x128xi8>)
      v_cache(%v_cache : memref<?x2x16x128xi8>)
      k_scale(%k_scale : memref<2x128xf32>) v_scale(%v_scale : memref<2x128xf32>)
      -> out(%out : memref<?x1x8x128xbf16>)
      {q_seq_len = 1 : i32, sliding_window = 1000 : i32}
  return
}

// @prefill_window: flash_attention_prefill with a sliding window of 48
//   positions, 8 query heads on 2 KV heads (GQA 4), head_dim 64: a prompt
//   longer than the window sees only its last 48 positions, new tokens
//   included.
func.func @prefill_window(%q: memref<?x8x64xbf16>, %kv_ids: memref<?xi32>,
                          %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                          %block_table: memref<?x?xi32>,
                          %k_cache: memref<?x2x16x64xbf16>,
                          %v_cache: memref<?x2x16x64xbf16>,
                          %out: memref<?x8x64xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x8x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>)
      v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x8x64xbf16>) {max_q_len = 256 : i32, sliding_window = 48 : i32}
  return
}

// @prefill_window_int8: the same over an int8 cache, 4 query heads on 2 KV
//   heads (GQA 2), a window of 100.
func.func @prefill_window_int8(%q: memref<?x4x64xbf16>, %kv_ids: memref<?xi32>,
                               %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                               %block_table: memref<?x?xi32>,
                               %k_cache: memref<?x2x16x64xi8>,
                               %v_cache: memref<?x2x16x64xi8>,
                               %k_scale: memref<2x64xf32>,
                               %v_scale: memref<2x64xf32>,
                               %out: memref<?x4x64xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x4x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xi8>)
      v_cache(%v_cache : memref<?x2x16x64xi8>)
      k_scale(%k_scale : memref<2x64xf32>) v_scale(%v_scale : memref<2x64xf32>)
      -> out(%out : memref<?x4x64xbf16>) {max_q_len = 256 : i32, sliding_window = 100 : i32}
  return
}

// @decode_d80: flash_attention_decode with head_dim 80 (5 blocks of 16
//   bf16 columns), 8 query heads on 2 KV heads (GQA 4), one new token.
func.func @decode_d80(%q: memref<?x1x8x80xbf16>, %kv_ids: memref<?xi32>,
                      %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                      %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                      %k_cache: memref<?x2x16x80xbf16>,
                      %v_cache: memref<?x2x16x80xbf16>,
                      %out: memref<?x1x8x80xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x80xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x80xbf16>)
      v_cache(%v_cache : memref<?x2x16x80xbf16>)
      -> out(%out : memref<?x1x8x80xbf16>) {q_seq_len = 1 : i32}
  return
}

// @prefill_d48: flash_attention_prefill with head_dim 48, 4 query and 4
//   KV heads (GQA 1).
func.func @prefill_d48(%q: memref<?x4x48xbf16>, %kv_ids: memref<?xi32>,
                       %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                       %block_table: memref<?x?xi32>,
                       %k_cache: memref<?x4x16x48xbf16>,
                       %v_cache: memref<?x4x16x48xbf16>,
                       %out: memref<?x4x48xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x4x48xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x4x16x48xbf16>)
      v_cache(%v_cache : memref<?x4x16x48xbf16>)
      -> out(%out : memref<?x4x48xbf16>) {max_q_len = 256 : i32}
  return
}

// @decode_g16_q4: 32 query heads on 2 KV heads (GQA 16), 4 new tokens per
//   request (speculative decode), head_dim 64: 64 rows per KV head, two
//   row tiles of 2 tokens.
func.func @decode_g16_q4(%q: memref<?x4x32x64xbf16>, %kv_ids: memref<?xi32>,
                         %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                         %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                         %k_cache: memref<?x2x16x64xbf16>,
                         %v_cache: memref<?x2x16x64xbf16>,
                         %out: memref<?x4x32x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x4x32x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>)
      v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x4x32x64xbf16>) {q_seq_len = 4 : i32}
  return
}

// @decode_g32_q8: 32 query heads on 1 KV head (GQA 32), 8 new tokens,
//   head_dim 128: eight row tiles of one token each.
func.func @decode_g32_q8(%q: memref<?x8x32x128xbf16>, %kv_ids: memref<?xi32>,
                         %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                         %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                         %k_cache: memref<?x1x16x128xbf16>,
                         %v_cache: memref<?x1x16x128xbf16>,
                         %out: memref<?x8x32x128xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x8x32x128xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x1x16x128xbf16>)
      v_cache(%v_cache : memref<?x1x16x128xbf16>)
      -> out(%out : memref<?x8x32x128xbf16>) {q_seq_len = 8 : i32}
  return
}

// @decode_g16_q4_window_int8: @decode_g16_q4's rows over an int8 cache
//   (head_dim 64) with a window of 300.
func.func @decode_g16_q4_window_int8(%q: memref<?x4x32x64xbf16>, %kv_ids: memref<?xi32>,
                                     %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                                     %accum_q_len: memref<?xi32>,
                                     %block_table: memref<?x?xi32>,
                                     %k_cache: memref<?x2x16x64xi8>,
                                     %v_cache: memref<?x2x16x64xi8>,
                                     %k_scale: memref<2x64xf32>,
                                     %v_scale: memref<2x64xf32>,
                                     %out: memref<?x4x32x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x4x32x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xi8>)
      v_cache(%v_cache : memref<?x2x16x64xi8>)
      k_scale(%k_scale : memref<2x64xf32>) v_scale(%v_scale : memref<2x64xf32>)
      -> out(%out : memref<?x4x32x64xbf16>)
      {q_seq_len = 4 : i32, sliding_window = 300 : i32}
  return
}

// @decode_d256: head_dim 256 (Gemma), 8 query heads on 2 KV heads (GQA 4),
//   one new token: KV tiles of 64 positions in every tier, the
//   workspaces' rows 256 wide.
func.func @decode_d256(%q: memref<?x1x8x256xbf16>, %kv_ids: memref<?xi32>,
    %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
    %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
    %k_cache: memref<?x2x16x256xbf16>, %v_cache: memref<?x2x16x256xbf16>,
    %out: memref<?x1x8x256xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x8x256xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x256xbf16>)
      v_cache(%v_cache : memref<?x2x16x256xbf16>)
      -> out(%out : memref<?x1x8x256xbf16>) {q_seq_len = 1 : i32}
  return
}

// @prefill_d256: head_dim 256, 4 query heads on 2 KV heads (GQA 2).
func.func @prefill_d256(%q: memref<?x4x256xbf16>, %kv_ids: memref<?xi32>,
    %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %k_cache: memref<?x2x16x256xbf16>, %v_cache: memref<?x2x16x256xbf16>,
    %out: memref<?x4x256xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x4x256xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x256xbf16>)
      v_cache(%v_cache : memref<?x2x16x256xbf16>)
      -> out(%out : memref<?x4x256xbf16>) {max_q_len = 256 : i32}
  return
}

// @decode_d192: head_dim 192, 8 query heads on 1 KV head (GQA 8), two new
//   tokens.
func.func @decode_d192(%q: memref<?x2x8x192xbf16>, %kv_ids: memref<?xi32>,
    %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
    %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
    %k_cache: memref<?x1x16x192xbf16>, %v_cache: memref<?x1x16x192xbf16>,
    %out: memref<?x2x8x192xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x8x192xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x1x16x192xbf16>)
      v_cache(%v_cache : memref<?x1x16x192xbf16>)
      -> out(%out : memref<?x2x8x192xbf16>) {q_seq_len = 2 : i32}
  return
}

// @prefill_d96: head_dim 96 (Phi-3), 8 query heads on 2 KV heads (GQA 4):
//   tiles of 128 positions as at 128.
func.func @prefill_d96(%q: memref<?x8x96xbf16>, %kv_ids: memref<?xi32>,
    %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %k_cache: memref<?x2x16x96xbf16>, %v_cache: memref<?x2x16x96xbf16>,
    %out: memref<?x8x96xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x8x96xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x96xbf16>)
      v_cache(%v_cache : memref<?x2x16x96xbf16>)
      -> out(%out : memref<?x8x96xbf16>) {max_q_len = 256 : i32}
  return
}

// @decode_ring: a window of 64 over ring caches (seed 001's circular cache,
//   over pages: each sequence's block-table row is a ring, position p at
//   slot p mod the row's positions, as store_paged_kv_cache's `ring` writes
//   them), 8 query heads on 2 KV heads, 2 new tokens, head_dim 64.
func.func @decode_ring(%q: memref<?x2x8x64xbf16>, %kv_ids: memref<?xi32>,
                       %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                       %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                       %k_cache: memref<?x2x16x64xbf16>,
                       %v_cache: memref<?x2x16x64xbf16>,
                       %out: memref<?x2x8x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x8x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>)
      v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x2x8x64xbf16>)
      {q_seq_len = 2 : i32, sliding_window = 64 : i32, ring}
  return
}

// @prefill_ring_int8: a chunked prefill with a window of 48 over int8 ring
//   caches, 4 query heads on 2 KV heads, head_dim 64.
func.func @prefill_ring_int8(%q: memref<?x4x64xbf16>, %kv_ids: memref<?xi32>,
                             %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                             %block_table: memref<?x?xi32>,
                             %k_cache: memref<?x2x16x64xi8>,
                             %v_cache: memref<?x2x16x64xi8>,
                             %k_scale: memref<2x64xf32>,
                             %v_scale: memref<2x64xf32>,
                             %out: memref<?x4x64xbf16>) {
  llm.flash_attention_prefill q(%q : memref<?x4x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xi8>)
      v_cache(%v_cache : memref<?x2x16x64xi8>)
      k_scale(%k_scale : memref<2x64xf32>) v_scale(%v_scale : memref<2x64xf32>)
      -> out(%out : memref<?x4x64xbf16>)
      {max_q_len = 256 : i32, sliding_window = 48 : i32, ring}
  return
}

// @decode_start_pos_ring: seed 001's caller-provided window starts
//   (start_pos [batch, q_seq_len], absolute positions, each inside the
//   W-window of 128) over ring caches, 8 query heads on 2 KV heads, 2 new
//   tokens, head_dim 64.
func.func @decode_start_pos_ring(%q: memref<?x2x8x64xbf16>, %kv_ids: memref<?xi32>,
                                 %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                                 %accum_q_len: memref<?xi32>,
                                 %block_table: memref<?x?xi32>,
                                 %k_cache: memref<?x2x16x64xbf16>,
                                 %v_cache: memref<?x2x16x64xbf16>,
                                 %start_pos: memref<?x2xi32>,
                                 %out: memref<?x2x8x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x2x8x64xbf16>)
      kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>)
      v_cache(%v_cache : memref<?x2x16x64xbf16>)
      start_pos(%start_pos : memref<?x2xi32>)
      -> out(%out : memref<?x2x8x64xbf16>)
      {q_seq_len = 2 : i32, sliding_window = 128 : i32, ring}
  return
}
