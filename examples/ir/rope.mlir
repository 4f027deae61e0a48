// rotary_embedding on a QKV of 8 query, 2 key and 2 value heads, head_dim
// 128, as the attention block of seed 002 applies it after head_rms_norm.
// `wspc --run` lowers, plans, emits and runs the self-check
// (rope.selfcheck.cpp).
//
// @rope_packed: a ragged batch packed without padding, sequences at the
//   prefix sums of q_lens, rope on all 128 columns, in place.
// @rope_accum: the same with explicit accum_q_len (gaps allowed between
//   sequences), rope on the last 64 columns (rope_offset 64), into another
//   buffer.
// @rope_unpacked: [batch, 3 query slots, heads, head_dim], each sequence
//   using its first q_lens slots (decode with up to 3 new tokens).

func.func @rope_packed(%qkv: memref<?x12x128xbf16>, %sin: memref<?x128xbf16>,
                       %cos: memref<?x128xbf16>, %position_ids: memref<?xi32>,
                       %q_lens: memref<?xi32>) {
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>)
      sin(%sin : memref<?x128xbf16>) cos(%cos : memref<?x128xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      -> out(%qkv : memref<?x12x128xbf16>)
      {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 128 : i32,
       max_q_len = 512 : i32}
  return
}

func.func @rope_accum(%qkv: memref<?x12x128xbf16>, %sin: memref<?x64xbf16>,
                      %cos: memref<?x64xbf16>, %position_ids: memref<?xi32>,
                      %q_lens: memref<?xi32>, %accum_q_len: memref<?xi32>,
                      %out: memref<?x12x128xbf16>) {
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>)
      sin(%sin : memref<?x64xbf16>) cos(%cos : memref<?x64xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      accum_q_len(%accum_q_len : memref<?xi32>)
      -> out(%out : memref<?x12x128xbf16>)
      {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_offset = 64 : i32,
       rope_dim = 64 : i32, max_q_len = 512 : i32}
  return
}

func.func @rope_unpacked(%qkv: memref<?x3x12x128xbf16>, %sin: memref<?x128xbf16>,
                         %cos: memref<?x128xbf16>, %position_ids: memref<?xi32>,
                         %q_lens: memref<?xi32>) {
  llm.rotary_embedding qkv(%qkv : memref<?x3x12x128xbf16>)
      sin(%sin : memref<?x128xbf16>) cos(%cos : memref<?x128xbf16>)
      position_ids(%position_ids : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      -> out(%qkv : memref<?x3x12x128xbf16>)
      {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 128 : i32,
       max_q_len = 3 : i32}
  return
}
