// Round trip of every llm op, in every form the seed allows, custom and
// generic syntax.
// RUN: wsp-opt %s | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | wsp-opt | FileCheck %s

// CHECK-LABEL: func.func @norms_and_quant
func.func @norms_and_quant(%x: memref<?x4096xbf16>, %r: memref<?x4096xbf16>,
                           %wf: memref<4096xf32>, %wb: memref<4096xbf16>,
                           %y: memref<?x4096xbf16>, %ar: memref<?x4096xbf16>,
                           %q: memref<?x4096xi8>, %s: memref<?xf32>) {
  // CHECK: llm.scale_dynamic_quant hidden_states(%{{.*}} : memref<?x4096xbf16>) smooth_scale(%{{.*}} : memref<4096xf32>) -> y(%{{.*}} : memref<?x4096xi8>) scale(%{{.*}} : memref<?xf32>)
  llm.scale_dynamic_quant hidden_states(%x : memref<?x4096xbf16>)
      smooth_scale(%wf : memref<4096xf32>)
      -> y(%q : memref<?x4096xi8>) scale(%s : memref<?xf32>)
  // CHECK: llm.rms_norm hidden_states(%{{.*}}) weight(%{{.*}} : memref<4096xf32>) -> y(%{{.*}}) {eps = 9.99999997E-7 : f32}
  llm.rms_norm hidden_states(%x : memref<?x4096xbf16>)
      weight(%wf : memref<4096xf32>) -> y(%y : memref<?x4096xbf16>)
      {eps = 1.0e-06 : f32}
  // CHECK: llm.rms_norm hidden_states(%{{.*}}) residual(%{{.*}}) weight(%{{.*}}) -> y(%{{.*}}) after_res(%{{.*}} : memref<?x4096xbf16>)
  llm.rms_norm hidden_states(%x : memref<?x4096xbf16>)
      residual(%r : memref<?x4096xbf16>) weight(%wf : memref<4096xf32>)
      -> y(%y : memref<?x4096xbf16>) after_res(%ar : memref<?x4096xbf16>)
      {eps = 1.0e-06 : f32}
  // CHECK: llm.add_rms_norm_dynamic_quant hidden_states(%{{.*}}) residual(%{{.*}}) weight(%{{.*}} : memref<4096xbf16>) smooth_scale(%{{.*}} : memref<4096xf32>) -> y(%{{.*}} : memref<?x4096xi8>) per_token_scale(%{{.*}} : memref<?xf32>) after_res(%{{.*}})
  llm.add_rms_norm_dynamic_quant hidden_states(%x : memref<?x4096xbf16>)
      residual(%r : memref<?x4096xbf16>) weight(%wb : memref<4096xbf16>)
      smooth_scale(%wf : memref<4096xf32>)
      -> y(%q : memref<?x4096xi8>) per_token_scale(%s : memref<?xf32>)
         after_res(%ar : memref<?x4096xbf16>) {eps = 1.0e-05 : f32}
  // CHECK: llm.add_rms_norm_dynamic_quant hidden_states(%{{.*}}) weight(%{{.*}} : memref<4096xf32>) smooth_scale(%{{.*}} : memref<4096xbf16>) -> y(%{{.*}}) per_token_scale(%{{.*}}) {eps
  llm.add_rms_norm_dynamic_quant hidden_states(%x : memref<?x4096xbf16>)
      weight(%wf : memref<4096xf32>) smooth_scale(%wb : memref<4096xbf16>)
      -> y(%q : memref<?x4096xi8>) per_token_scale(%s : memref<?xf32>)
      {eps = 1.0e-05 : f32}
  return
}

// CHECK-LABEL: func.func @quant_matmul
func.func @quant_matmul(%a: memref<?x512xi8>, %at: memref<512x?xi8>,
                        %pts: memref<?xf32>, %w: memref<512x1024xi8>,
                        %wt: memref<1024x512xi8>, %ws: memref<1024xf32>,
                        %wsb: memref<1024xbf16>, %bias: memref<1024xbf16>,
                        %y: memref<?x1024xbf16>) {
  // CHECK: llm.quant_matmul hidden_states(%{{.*}} : memref<?x512xi8>) per_token_scale(%{{.*}}) weight(%{{.*}} : memref<512x1024xi8>) weight_scale(%{{.*}} : memref<1024xf32>) -> y(%{{.*}} : memref<?x1024xbf16>)
  llm.quant_matmul hidden_states(%a : memref<?x512xi8>)
      per_token_scale(%pts : memref<?xf32>) weight(%w : memref<512x1024xi8>)
      weight_scale(%ws : memref<1024xf32>) -> y(%y : memref<?x1024xbf16>)
  // CHECK: llm.quant_matmul {{.*}} bias(%{{.*}} : memref<1024xbf16>) -> y(%{{.*}}) {transpose_a = true, transpose_b = true}
  llm.quant_matmul hidden_states(%at : memref<512x?xi8>)
      per_token_scale(%pts : memref<?xf32>) weight(%wt : memref<1024x512xi8>)
      weight_scale(%wsb : memref<1024xbf16>) bias(%bias : memref<1024xbf16>)
      -> y(%y : memref<?x1024xbf16>) {transpose_a = true, transpose_b = true}
  return
}

// CHECK-LABEL: func.func @heads
func.func @heads(%qkv: memref<?x12x128xbf16>, %w: memref<8x128xf32>,
                 %qkv4: memref<4x3x12x128xbf16>, %sin: memref<4096x64xbf16>,
                 %cos: memref<4096x64xbf16>, %pos: memref<4xi32>,
                 %qlens: memref<4xi32>, %accum: memref<5xi32>,
                 %strided: memref<?x8x128xbf16, strided<[1536, 128, 1]>>) {
  // Q and K (heads 0..7 of 8 + 2 * 2) of a packed QKV, normalized in place.
  // CHECK: llm.head_rms_norm hidden_states(%{{.*}}) weight(%{{.*}} : memref<8x128xf32>) -> y(%{{.*}}) {eps = 9.99999997E-7 : f32, head_num = 8 : i32, head_offset = 0 : i32}
  llm.head_rms_norm hidden_states(%qkv : memref<?x12x128xbf16>)
      weight(%w : memref<8x128xf32>) -> y(%qkv : memref<?x12x128xbf16>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 8 : i32}
  // A head range passed as a strided view.
  // CHECK: llm.scale_dynamic_quant hidden_states
  // CHECK: llm.head_rms_norm hidden_states(%{{.*}} : memref<?x8x128xbf16, strided<[1536, 128, 1]>>)
  %x = memref.alloc() : memref<2x128xbf16>
  %s = memref.alloc() : memref<128xf32>
  %yq = memref.alloc() : memref<2x128xi8>
  %sc = memref.alloc() : memref<2xf32>
  llm.scale_dynamic_quant hidden_states(%x : memref<2x128xbf16>)
      smooth_scale(%s : memref<128xf32>)
      -> y(%yq : memref<2x128xi8>) scale(%sc : memref<2xf32>)
  llm.head_rms_norm hidden_states(%strided : memref<?x8x128xbf16, strided<[1536, 128, 1]>>)
      weight(%w : memref<8x128xf32>)
      -> y(%strided : memref<?x8x128xbf16, strided<[1536, 128, 1]>>)
      {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 8 : i32}
  // Packed, with accum_q_len; rope on the last 64 columns.
  // CHECK: llm.rotary_embedding qkv(%{{.*}} : memref<?x12x128xbf16>) sin(%{{.*}}) cos(%{{.*}}) position_ids(%{{.*}}) q_lens(%{{.*}}) accum_q_len(%{{.*}} : memref<5xi32>) -> out(%{{.*}}) {kv_head_num = 2 : i32, max_q_len = 3 : i32, q_head_num = 8 : i32, rope_dim = 64 : i32, rope_offset = 64 : i32}
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>)
      sin(%sin : memref<4096x64xbf16>) cos(%cos : memref<4096x64xbf16>)
      position_ids(%pos : memref<4xi32>) q_lens(%qlens : memref<4xi32>)
      accum_q_len(%accum : memref<5xi32>) -> out(%qkv : memref<?x12x128xbf16>)
      {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_offset = 64 : i32,
       rope_dim = 64 : i32, max_q_len = 3 : i32}
  // Unpacked.
  // CHECK: llm.rotary_embedding qkv(%{{.*}} : memref<4x3x12x128xbf16>) {{.*}} q_lens(%{{.*}}) -> out
  llm.rotary_embedding qkv(%qkv4 : memref<4x3x12x128xbf16>)
      sin(%sin : memref<4096x64xbf16>) cos(%cos : memref<4096x64xbf16>)
      position_ids(%pos : memref<4xi32>) q_lens(%qlens : memref<4xi32>)
      -> out(%qkv4 : memref<4x3x12x128xbf16>)
      {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32,
       max_q_len = 3 : i32}
  return
}

// CHECK-LABEL: func.func @stores
func.func @stores(%k: memref<?x2x128xbf16>, %v: memref<?x2x128xbf16>,
                  %k4: memref<4x1x2x128xbf16>, %v4: memref<4x1x2x128xbf16>,
                  %ids: memref<4xi32>, %qlens: memref<4xi32>,
                  %kvlens: memref<4xi32>, %accum: memref<5xi32>,
                  %kc: memref<16x2x4096x128xbf16>, %vc: memref<16x2x4096x128xbf16>,
                  %kc8: memref<16x2x4096x128xi8>, %vc8: memref<16x2x4096x128xi8>,
                  %ks: memref<2x128xf32>, %vs: memref<2x128xf32>,
                  %bt: memref<16x64xi32>,
                  %pk: memref<?x2x64x128xbf16>, %pv: memref<?x2x64x128xbf16>,
                  %pk8: memref<?x2x64x128xi8>, %pv8: memref<?x2x64x128xi8>) {
  // CHECK: llm.store_kv_cache key(%{{.*}} : memref<?x2x128xbf16>) value(%{{.*}}) kv_ids(%{{.*}}) q_lens(%{{.*}}) kv_lens(%{{.*}}) accum_q_len(%{{.*}}) -> k_cache(%{{.*}}) v_cache(%{{.*}}) {max_q_len = 16 : i32}
  llm.store_kv_cache key(%k : memref<?x2x128xbf16>) value(%v : memref<?x2x128xbf16>)
      kv_ids(%ids : memref<4xi32>) q_lens(%qlens : memref<4xi32>)
      kv_lens(%kvlens : memref<4xi32>) accum_q_len(%accum : memref<5xi32>)
      -> k_cache(%kc : memref<16x2x4096x128xbf16>)
         v_cache(%vc : memref<16x2x4096x128xbf16>) {max_q_len = 16 : i32}
  // Unpacked, int8, defaults for kv_ids and kv_lens.
  // CHECK: llm.store_kv_cache key(%{{.*}} : memref<4x1x2x128xbf16>) value(%{{.*}}) q_lens(%{{.*}}) key_scale(%{{.*}}) value_scale(%{{.*}}) -> k_cache(%{{.*}} : memref<16x2x4096x128xi8>)
  llm.store_kv_cache key(%k4 : memref<4x1x2x128xbf16>)
      value(%v4 : memref<4x1x2x128xbf16>) q_lens(%qlens : memref<4xi32>)
      key_scale(%ks : memref<2x128xf32>) value_scale(%vs : memref<2x128xf32>)
      -> k_cache(%kc8 : memref<16x2x4096x128xi8>)
         v_cache(%vc8 : memref<16x2x4096x128xi8>) {max_q_len = 1 : i32}
  // CHECK: llm.store_paged_kv_cache key(%{{.*}}) value(%{{.*}}) block_table(%{{.*}} : memref<16x64xi32>) kv_ids(%{{.*}}) q_lens(%{{.*}}) kv_lens(%{{.*}}) -> k_cache(%{{.*}} : memref<?x2x64x128xbf16>)
  llm.store_paged_kv_cache key(%k : memref<?x2x128xbf16>)
      value(%v : memref<?x2x128xbf16>) block_table(%bt : memref<16x64xi32>)
      kv_ids(%ids : memref<4xi32>) q_lens(%qlens : memref<4xi32>)
      kv_lens(%kvlens : memref<4xi32>)
      -> k_cache(%pk : memref<?x2x64x128xbf16>)
         v_cache(%pv : memref<?x2x64x128xbf16>) {max_q_len = 16 : i32}
  // CHECK: llm.store_paged_kv_cache {{.*}} key_scale(%{{.*}}) value_scale(%{{.*}}) -> k_cache(%{{.*}} : memref<?x2x64x128xi8>)
  llm.store_paged_kv_cache key(%k4 : memref<4x1x2x128xbf16>)
      value(%v4 : memref<4x1x2x128xbf16>) block_table(%bt : memref<16x64xi32>)
      q_lens(%qlens : memref<4xi32>) kv_lens(%kvlens : memref<4xi32>)
      key_scale(%ks : memref<2x128xf32>) value_scale(%vs : memref<2x128xf32>)
      -> k_cache(%pk8 : memref<?x2x64x128xi8>)
         v_cache(%pv8 : memref<?x2x64x128xi8>) {max_q_len = 1 : i32}
  return
}

// CHECK-LABEL: func.func @attention
func.func @attention(%qkv: memref<1x?x12x128xbf16>, %q: memref<1x?x8x128xbf16>,
                     %k: memref<1x?x2x128xbf16>, %v: memref<1x?x2x128xbf16>,
                     %o: memref<1x?x8x128xbf16>,
                     %dq: memref<?x1x8x128xbf16>, %dk: memref<?x1x2x128xbf16>,
                     %dv: memref<?x1x2x128xbf16>, %dqkv: memref<?x1x12x128xbf16>,
                     %kc: memref<16x2x4096x128xbf16>, %vc: memref<16x2x4096x128xbf16>,
                     %do: memref<?x1x8x128xbf16>) {
  // CHECK: llm.flash_attention qkv(%{{.*}} : memref<1x?x12x128xbf16>) -> out(%{{.*}}){{$}}
  llm.flash_attention qkv(%qkv : memref<1x?x12x128xbf16>)
      -> out(%o : memref<1x?x8x128xbf16>)
  // CHECK: llm.flash_attention q(%{{.*}}) k(%{{.*}}) v(%{{.*}}) -> out(%{{.*}}) {is_causal = false}
  llm.flash_attention q(%q : memref<1x?x8x128xbf16>) k(%k : memref<1x?x2x128xbf16>)
      v(%v : memref<1x?x2x128xbf16>) -> out(%o : memref<1x?x8x128xbf16>)
      {is_causal = false}
  // CHECK: llm.flash_decoding q(%{{.*}}) k(%{{.*}}) v(%{{.*}}) k_cache(%{{.*}}) v_cache(%{{.*}}) -> out(%{{.*}}) {kv_lens = 4000 : i64}
  llm.flash_decoding q(%dq : memref<?x1x8x128xbf16>) k(%dk : memref<?x1x2x128xbf16>)
      v(%dv : memref<?x1x2x128xbf16>) k_cache(%kc : memref<16x2x4096x128xbf16>)
      v_cache(%vc : memref<16x2x4096x128xbf16>)
      -> out(%do : memref<?x1x8x128xbf16>) {kv_lens = 4000 : i64}
  // CHECK: llm.flash_decoding qkv(%{{.*}} : memref<?x1x12x128xbf16>) k_cache
  llm.flash_decoding qkv(%dqkv : memref<?x1x12x128xbf16>)
      k_cache(%kc : memref<16x2x4096x128xbf16>)
      v_cache(%vc : memref<16x2x4096x128xbf16>)
      -> out(%do : memref<?x1x8x128xbf16>) {kv_lens = 0 : i64}
  return
}

// CHECK-LABEL: func.func @paged_attention
func.func @paged_attention(%q: memref<?x8x128xbf16>, %ids: memref<?xi32>,
                           %kvlens: memref<?xi32>, %qlens: memref<?xi32>,
                           %accum: memref<?xi32>, %bt: memref<?x?xi32>,
                           %kc: memref<?x2x64x128xbf16>, %vc: memref<?x2x64x128xbf16>,
                           %kc8: memref<?x2x64x128xi8>, %vc8: memref<?x2x64x128xi8>,
                           %ks: memref<2x128xf32>, %vs: memref<2x128xf32>,
                           %o: memref<?x8x128xbf16>,
                           %dq: memref<?x2x8x128xbf16>, %do: memref<?x2x8x128xbf16>,
                           %starts: memref<?x2xi32>) {
  // CHECK: llm.flash_attention_prefill q(%{{.*}}) kv_ids(%{{.*}}) kv_lens(%{{.*}}) q_lens(%{{.*}}) accum_q_len(%{{.*}}) block_table(%{{.*}}) k_cache(%{{.*}}) v_cache(%{{.*}}) -> out(%{{.*}}) {max_q_len = 512 : i32}
  llm.flash_attention_prefill q(%q : memref<?x8x128xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) accum_q_len(%accum : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>)
      k_cache(%kc : memref<?x2x64x128xbf16>) v_cache(%vc : memref<?x2x64x128xbf16>)
      -> out(%o : memref<?x8x128xbf16>) {max_q_len = 512 : i32}
  // CHECK: llm.flash_attention_prefill {{.*}} k_scale(%{{.*}}) v_scale(%{{.*}}) -> out
  llm.flash_attention_prefill q(%q : memref<?x8x128xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      k_cache(%kc8 : memref<?x2x64x128xi8>) v_cache(%vc8 : memref<?x2x64x128xi8>)
      k_scale(%ks : memref<2x128xf32>) v_scale(%vs : memref<2x128xf32>)
      -> out(%o : memref<?x8x128xbf16>) {max_q_len = 512 : i32}
  // A sliding window of 4096 positions.
  // CHECK: llm.flash_attention_prefill {{.*}} -> out(%{{.*}}) {max_q_len = 512 : i32, sliding_window = 4096 : i32}
  llm.flash_attention_prefill q(%q : memref<?x8x128xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      k_cache(%kc8 : memref<?x2x64x128xi8>) v_cache(%vc8 : memref<?x2x64x128xi8>)
      k_scale(%ks : memref<2x128xf32>) v_scale(%vs : memref<2x128xf32>)
      -> out(%o : memref<?x8x128xbf16>) {max_q_len = 512 : i32, sliding_window = 4096 : i32}
  // CHECK: llm.flash_attention_decode q(%{{.*}} : memref<?x2x8x128xbf16>) {{.*}} -> out(%{{.*}}) {q_seq_len = 2 : i32}
  llm.flash_attention_decode q(%dq : memref<?x2x8x128xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) accum_q_len(%accum : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>)
      k_cache(%kc8 : memref<?x2x64x128xi8>) v_cache(%vc8 : memref<?x2x64x128xi8>)
      k_scale(%ks : memref<2x128xf32>) v_scale(%vs : memref<2x128xf32>)
      -> out(%do : memref<?x2x8x128xbf16>) {q_seq_len = 2 : i32}
  // A sliding window of 4096 positions.
  // CHECK: llm.flash_attention_decode {{.*}} -> out(%{{.*}}) {q_seq_len = 2 : i32, sliding_window = 4096 : i32}
  llm.flash_attention_decode q(%dq : memref<?x2x8x128xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) accum_q_len(%accum : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>)
      k_cache(%kc8 : memref<?x2x64x128xi8>) v_cache(%vc8 : memref<?x2x64x128xi8>)
      k_scale(%ks : memref<2x128xf32>) v_scale(%vs : memref<2x128xf32>)
      -> out(%do : memref<?x2x8x128xbf16>) {q_seq_len = 2 : i32, sliding_window = 4096 : i32}
  // Over ring caches (seed 001's circular cache, over pages).
  // CHECK: llm.flash_attention_prefill {{.*}} -> out(%{{.*}}) {max_q_len = 512 : i32, ring, sliding_window = 4096 : i32}
  llm.flash_attention_prefill q(%q : memref<?x8x128xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      k_cache(%kc8 : memref<?x2x64x128xi8>) v_cache(%vc8 : memref<?x2x64x128xi8>)
      k_scale(%ks : memref<2x128xf32>) v_scale(%vs : memref<2x128xf32>)
      -> out(%o : memref<?x8x128xbf16>) {max_q_len = 512 : i32, sliding_window = 4096 : i32, ring}
  // Seed 001's start_pos tensor, with the window bounding it.
  // CHECK: llm.flash_attention_decode {{.*}} start_pos(%{{.*}} : memref<?x2xi32>) -> out(%{{.*}}) {q_seq_len = 2 : i32, sliding_window = 4096 : i32}
  llm.flash_attention_decode q(%dq : memref<?x2x8x128xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) accum_q_len(%accum : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>)
      k_cache(%kc8 : memref<?x2x64x128xi8>) v_cache(%vc8 : memref<?x2x64x128xi8>)
      k_scale(%ks : memref<2x128xf32>) v_scale(%vs : memref<2x128xf32>)
      start_pos(%starts : memref<?x2xi32>)
      -> out(%do : memref<?x2x8x128xbf16>) {q_seq_len = 2 : i32, sliding_window = 4096 : i32}
  // CHECK: llm.flash_attention_decode {{.*}} -> out(%{{.*}}) {q_seq_len = 2 : i32, ring, sliding_window = 4096 : i32}
  llm.flash_attention_decode q(%dq : memref<?x2x8x128xbf16>)
      kv_ids(%ids : memref<?xi32>) kv_lens(%kvlens : memref<?xi32>)
      q_lens(%qlens : memref<?xi32>) accum_q_len(%accum : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>)
      k_cache(%kc8 : memref<?x2x64x128xi8>) v_cache(%vc8 : memref<?x2x64x128xi8>)
      k_scale(%ks : memref<2x128xf32>) v_scale(%vs : memref<2x128xf32>)
      -> out(%do : memref<?x2x8x128xbf16>) {q_seq_len = 2 : i32, sliding_window = 4096 : i32, ring}
  return
}

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @collectives
func.func @collectives(%h: memref<?x4096xbf16>, %f: memref<?x?xf32>) {
  // CHECK: llm.all_reduce hidden_states(%{{.*}} : memref<?x4096xbf16>){{$}}
  llm.all_reduce hidden_states(%h : memref<?x4096xbf16>)
  // CHECK: llm.all_reduce hidden_states(%{{.*}} : memref<?x?xf32>) kind max
  llm.all_reduce hidden_states(%f : memref<?x?xf32>) kind max
  // CHECK: llm.all_reduce hidden_states(%{{.*}} : memref<?x4096xbf16>) on @tp{{$}}
  llm.all_reduce hidden_states(%h : memref<?x4096xbf16>) on @tp
  // CHECK: llm.all_reduce hidden_states(%{{.*}} : memref<?x?xf32>) kind min on @tp
  llm.all_reduce hidden_states(%f : memref<?x?xf32>) kind min on @tp
  return
}

// Sharded decode attention (seed 003): the grid, the mode, the lengths the
// chunk is planned for.
shard.grid @kvdp(shape = 4)

// CHECK-LABEL: func.func @sharded_decode
// CHECK: llm.flash_attention_decode {{.*}} -> out(%{{.*}} : memref<?x1x2x64xbf16>) on @kvdp kv_sharding = kvdp {q_seq_len = 1 : i32}
// CHECK: llm.flash_attention_decode {{.*}} -> out(%{{.*}} : memref<?x1x2x64xbf16>) on @kvdp {q_seq_len = 1 : i32}
// CHECK: llm.flash_attention_decode {{.*}} -> out(%{{.*}} : memref<?x1x8x64xbf16>) plan_kv_lens(%{{.*}} : memref<?xi32>) {q_seq_len = 1 : i32}
func.func @sharded_decode(%q: memref<?x1x2x64xbf16>, %q8: memref<?x1x8x64xbf16>,
                          %l: memref<?xi32>, %bt: memref<?x?xi32>,
                          %c: memref<?x2x16x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%l : memref<?xi32>)
      kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>)
      v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x2x64xbf16>)
      on @kvdp kv_sharding = kvdp {q_seq_len = 1 : i32}
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%l : memref<?xi32>)
      kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>)
      v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x2x64xbf16>)
      on @kvdp {q_seq_len = 1 : i32}
  llm.flash_attention_decode q(%q8 : memref<?x1x8x64xbf16>) kv_ids(%l : memref<?xi32>)
      kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>)
      v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q8 : memref<?x1x8x64xbf16>)
      plan_kv_lens(%l : memref<?xi32>) {q_seq_len = 1 : i32}
  return
}

// One query head per rank, two KV heads: the 4 ranks' heads are 2 groups
// of 2 (the rank's own head count need not cover a group).
// CHECK-LABEL: func.func @sharded_decode_one_head
// CHECK: on @kvdp kv_sharding = kvdp_all_to_all
func.func @sharded_decode_one_head(%q: memref<?x1x1x64xbf16>, %l: memref<?xi32>,
                                   %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x1x64xbf16>) kv_ids(%l : memref<?xi32>)
      kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>)
      v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x1x64xbf16>)
      on @kvdp kv_sharding = kvdp_all_to_all {q_seq_len = 1 : i32}
  return
}

// Rank groups: tensor parallel along axis 0 of a 2 x 2 grid, KV data
// parallel along axis 1.
shard.grid @tp_kvdp(shape = 2x2)

// CHECK-LABEL: func.func @rank_groups
// CHECK: llm.store_paged_kv_cache {{.*}} on @tp_kvdp grid_axes = [1] kv_sharding = kvdp {max_q_len = 64 : i32}
// CHECK: llm.flash_attention_decode {{.*}} on @tp_kvdp grid_axes = [1] kv_sharding = kvdp {q_seq_len = 1 : i32}
// CHECK: llm.all_reduce hidden_states(%{{.*}} : memref<?x256xbf16>) on @tp_kvdp grid_axes = [0]{{$}}
func.func @rank_groups(%key: memref<?x1x64xbf16>, %q: memref<?x1x2x64xbf16>,
                       %l: memref<?xi32>, %bt: memref<?x?xi32>,
                       %c: memref<?x1x16x64xbf16>, %h: memref<?x256xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>)
      block_table(%bt : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>)
      kv_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>)
      v_cache(%c : memref<?x1x16x64xbf16>)
      on @tp_kvdp grid_axes = [1] kv_sharding = kvdp {max_q_len = 64 : i32}
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%l : memref<?xi32>)
      kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>)
      block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x1x16x64xbf16>)
      v_cache(%c : memref<?x1x16x64xbf16>) -> out(%q : memref<?x1x2x64xbf16>)
      on @tp_kvdp grid_axes = [1] kv_sharding = kvdp {q_seq_len = 1 : i32}
  llm.all_reduce hidden_states(%h : memref<?x256xbf16>) on @tp_kvdp grid_axes = [0]
  return
}

// A store into ring caches.
// CHECK-LABEL: func.func @ring_store
// CHECK: llm.store_paged_kv_cache {{.*}} -> k_cache(%{{.*}}) v_cache(%{{.*}}) {max_q_len = 64 : i32, ring}
func.func @ring_store(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>,
                      %c: memref<?x1x16x64xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>)
      block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>)
      kv_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>)
      v_cache(%c : memref<?x1x16x64xbf16>) {max_q_len = 64 : i32, ring}
  return
}

// A KV-data-parallel store.
// CHECK-LABEL: func.func @sharded_store
// CHECK: llm.store_paged_kv_cache {{.*}} -> k_cache(%{{.*}}) v_cache(%{{.*}}) on @kvdp kv_sharding = kvdp {max_q_len = 64 : i32}
func.func @sharded_store(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>,
                         %c: memref<?x1x16x64xbf16>) {
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>)
      block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>)
      kv_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>)
      v_cache(%c : memref<?x1x16x64xbf16>) on @kvdp kv_sharding = kvdp {max_q_len = 64 : i32}
  return
}
