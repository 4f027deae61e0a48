// What convert-llm-to-wsp refuses, each a diagnostic at the op or function.
// RUN: wsp-opt %s -split-input-file --convert-llm-to-wsp -verify-diagnostics

func.func @dynamic_hidden(%x: memref<?x?xbf16>, %w: memref<?xf32>) {
  // expected-error @+1 {{lowers with a static hidden_size only: its tiles are sized at compile time}}
  llm.rms_norm hidden_states(%x : memref<?x?xbf16>) weight(%w : memref<?xf32>) -> y(%x : memref<?x?xbf16>) {eps = 1.0e-6 : f32}
  return
}

// -----

func.func @hidden_not_multiple_of_16(%x: memref<?x100xbf16>, %w: memref<100xf32>) {
  // expected-error @+1 {{lowers with hidden_size a multiple of 16 (a bf16 tile row is whole 32-byte blocks), got 100}}
  llm.rms_norm hidden_states(%x : memref<?x100xbf16>) weight(%w : memref<100xf32>) -> y(%x : memref<?x100xbf16>) {eps = 1.0e-6 : f32}
  return
}

// -----

func.func @strided(%x: memref<?x64xbf16, strided<[128, 1]>>, %w: memref<64xf32>, %y: memref<?x64xbf16>) {
  // expected-error @+1 {{lowers with row-major buffers only; 'hidden_states' is a strided view 'memref<?x64xbf16, strided<[128, 1]>>'}}
  llm.rms_norm hidden_states(%x : memref<?x64xbf16, strided<[128, 1]>>) weight(%w : memref<64xf32>) -> y(%y : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  return
}

// -----

func.func @benchmark_attention_dynamic_heads(%qkv: memref<1x?x?x128xbf16>, %o: memref<1x?x8x128xbf16>) {
  // expected-error @+1 {{lowers with static head counts and head_dim only}}
  llm.flash_attention qkv(%qkv : memref<1x?x?x128xbf16>) -> out(%o : memref<1x?x8x128xbf16>)
  return
}

// -----

func.func @benchmark_attention_head_dim(%q: memref<?x1x8x48xbf16>, %k: memref<?x1x2x48xbf16>, %v: memref<?x1x2x48xbf16>, %kc: memref<?x2x?x48xbf16>, %vc: memref<?x2x?x48xbf16>, %o: memref<?x1x8x48xbf16>) {
  // expected-error @+1 {{lowers with a static head_dim, a multiple of 32 up to 128 (one cube tile)}}
  llm.flash_decoding q(%q : memref<?x1x8x48xbf16>) k(%k : memref<?x1x2x48xbf16>) v(%v : memref<?x1x2x48xbf16>) k_cache(%kc : memref<?x2x?x48xbf16>) v_cache(%vc : memref<?x2x?x48xbf16>) -> out(%o : memref<?x1x8x48xbf16>) {kv_lens = 10}
  return
}

// -----

func.func @benchmark_decoding_kv_len(%q: memref<?x1x8x64xbf16>, %k: memref<?x1x2x64xbf16>, %v: memref<?x1x2x64xbf16>, %kc: memref<?x2x?x64xbf16>, %vc: memref<?x2x?x64xbf16>, %o: memref<?x1x8x64xbf16>) {
  // expected-error @+1 {{lowers with kv_len + 1 inside int32, got kv_len 2147483647}}
  llm.flash_decoding q(%q : memref<?x1x8x64xbf16>) k(%k : memref<?x1x2x64xbf16>) v(%v : memref<?x1x2x64xbf16>) k_cache(%kc : memref<?x2x?x64xbf16>) v_cache(%vc : memref<?x2x?x64xbf16>) -> out(%o : memref<?x1x8x64xbf16>) {kv_lens = 2147483647}
  return
}

// -----

func.func @matmul_k(%a: memref<?x48xi8>, %p: memref<?xf32>, %w: memref<48x32xi8>, %s: memref<32xf32>, %y: memref<?x32xbf16>) {
  // expected-error @+1 {{lowers with hidden_size a multiple of 32 and new_hidden_size a multiple of 16 (whole 32-byte int8 and bf16 rows), got 48 and 32}}
  llm.quant_matmul hidden_states(%a : memref<?x48xi8>) per_token_scale(%p : memref<?xf32>) weight(%w : memref<48x32xi8>) weight_scale(%s : memref<32xf32>) -> y(%y : memref<?x32xbf16>)
  return
}

// -----

// expected-error @+1 {{holds llm ops and returns values; lowered, it returns the ops' PlanResult code (i32) instead, so it must return nothing itself}}
func.func @returns(%x: memref<?x64xbf16>, %w: memref<64xf32>) -> i32 {
  %c0 = arith.constant 0 : i32
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) -> y(%x : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  return %c0 : i32
}

// -----

func.func @nested(%x: memref<?x64xbf16>, %w: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{lowers only in its function's top block or an scf.if's branches, where its status can end the function}}
    llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) -> y(%x : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  }
  return
}

// -----

// The module already defines a symbol the lowering needs.
wsp.tier_config @taken_rms_norm_0_tiers [#wsp.tier<0, [1, 8]>]
func.func @taken(%x: memref<?x64xbf16>, %w: memref<64xf32>) {
  // expected-error @+1 {{would define @taken_rms_norm_0_tiers, which the module already has}}
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) -> y(%x : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  return
}

// -----

func.func @int8_rows(%x: memref<?x48xbf16>, %s: memref<48xf32>, %y: memref<?x48xi8>, %sc: memref<?xf32>) {
  // expected-error @+1 {{lowers with hidden_size a multiple of 32 (an int8 tile row is whole 32-byte blocks), got 48}}
  llm.scale_dynamic_quant hidden_states(%x : memref<?x48xbf16>) smooth_scale(%s : memref<48xf32>) -> y(%y : memref<?x48xi8>) scale(%sc : memref<?xf32>)
  return
}

// -----

func.func @rope_halves(%qkv: memref<?x12x128xbf16>, %sc: memref<4096x48xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{lowers with rope_dim a multiple of 32 and rope_offset a multiple of 16 (each half of the rotated range is whole 32-byte bf16 rows), got rope_dim 48 and rope_offset 0}}
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>) sin(%sc : memref<4096x48xbf16>) cos(%sc : memref<4096x48xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 48 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @rope_slots(%qkv: memref<?x?x12x128xbf16>, %sc: memref<4096x64xbf16>, %p: memref<?xi32>) {
  // expected-error @+1 {{lowers the unpacked form with a static q_seq_len only}}
  llm.rotary_embedding qkv(%qkv : memref<?x?x12x128xbf16>) sin(%sc : memref<4096x64xbf16>) cos(%sc : memref<4096x64xbf16>) position_ids(%p : memref<?xi32>) q_lens(%p : memref<?xi32>) -> out(%qkv : memref<?x?x12x128xbf16>) {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 64 : i32, max_q_len = 1 : i32}
  return
}

// -----

func.func @store_head_dim(%k: memref<?x2x48xbf16>, %l: memref<?xi32>, %c: memref<8x2x1024x48xbf16>) {
  // expected-error @+1 {{lowers with a static head_dim, a multiple of 32 up to 1024 (one bf16 or int8 tile row per head)}}
  llm.store_kv_cache key(%k : memref<?x2x48xbf16>) value(%k : memref<?x2x48xbf16>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<8x2x1024x48xbf16>) v_cache(%c : memref<8x2x1024x48xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @store_block_size(%k: memref<?x2x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x?x64xbf16>) {
  // expected-error @+1 {{lowers with a static block_size only}}
  llm.store_paged_kv_cache key(%k : memref<?x2x64xbf16>) value(%k : memref<?x2x64xbf16>) block_table(%bt : memref<?x?xi32>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x2x?x64xbf16>) v_cache(%c : memref<?x2x?x64xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

// A strided view that is not a head range (every other token) is refused.
func.func @not_a_head_range(%qkv: memref<?x6x64xbf16>, %lens: memref<?xi32>, %kc: memref<8x1x256x64xbf16>) {
  %c0 = arith.constant 0 : index
  %k = memref.subview %qkv[0, 4, 0] [4, 1, 64] [2, 1, 1]
      : memref<?x6x64xbf16> to memref<4x1x64xbf16, strided<[768, 64, 1], offset: 256>>
  // expected-error @+1 {{lowers with row-major buffers only; 'key' is a strided view}}
  llm.store_kv_cache key(%k : memref<4x1x64xbf16, strided<[768, 64, 1], offset: 256>>) value(%k : memref<4x1x64xbf16, strided<[768, 64, 1], offset: 256>>) q_lens(%lens : memref<?xi32>) -> k_cache(%kc : memref<8x1x256x64xbf16>) v_cache(%kc : memref<8x1x256x64xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

func.func @attention_dynamic_heads(%q: memref<?x?x64xbf16>, %ids: memref<?xi32>, %lens: memref<?xi32>, %ql: memref<?xi32>, %bt: memref<?x?xi32>, %k: memref<?x?x16x64xbf16>, %v: memref<?x?x16x64xbf16>, %o: memref<?x?x64xbf16>) {
  // expected-error @+1 {{lowers with static q_head_num, kv_head_num and block_size only}}
  llm.flash_attention_prefill q(%q : memref<?x?x64xbf16>) kv_ids(%ids : memref<?xi32>) kv_lens(%lens : memref<?xi32>) q_lens(%ql : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%k : memref<?x?x16x64xbf16>) v_cache(%v : memref<?x?x16x64xbf16>) -> out(%o : memref<?x?x64xbf16>) {max_q_len = 16 : i32}
  return
}

// -----

// A bf16 cache takes head_dim a multiple of 16 (48, 80, 112 lower); 40 is
// not a whole 32-byte row.
func.func @attention_head_dim(%q: memref<?x4x40xbf16>, %ids: memref<?xi32>, %lens: memref<?xi32>, %ql: memref<?xi32>, %bt: memref<?x?xi32>, %k: memref<?x4x16x40xbf16>, %v: memref<?x4x16x40xbf16>, %o: memref<?x4x40xbf16>) {
  // expected-error @+1 {{lowers with a static head_dim, a multiple of 16 up to 256 (one cube tile)}}
  llm.flash_attention_prefill q(%q : memref<?x4x40xbf16>) kv_ids(%ids : memref<?xi32>) kv_lens(%lens : memref<?xi32>) q_lens(%ql : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%k : memref<?x4x16x40xbf16>) v_cache(%v : memref<?x4x16x40xbf16>) -> out(%o : memref<?x4x40xbf16>) {max_q_len = 16 : i32}
  return
}

// -----

// An int8 cache's rows need head_dim a multiple of 32.
func.func @attention_int8_head_dim(%q: memref<?x4x48xbf16>, %ids: memref<?xi32>, %lens: memref<?xi32>, %ql: memref<?xi32>, %bt: memref<?x?xi32>, %k: memref<?x4x16x48xi8>, %v: memref<?x4x16x48xi8>, %s: memref<4x48xf32>, %o: memref<?x4x48xbf16>) {
  // expected-error @+1 {{lowers with a static head_dim, a multiple of 32 up to 128 (over an int8 cache: a KV tile's dequantization scratch and the row state fill UB)}}
  llm.flash_attention_prefill q(%q : memref<?x4x48xbf16>) kv_ids(%ids : memref<?xi32>) kv_lens(%lens : memref<?xi32>) q_lens(%ql : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%k : memref<?x4x16x48xi8>) v_cache(%v : memref<?x4x16x48xi8>) k_scale(%s : memref<4x48xf32>) v_scale(%s : memref<4x48xf32>) -> out(%o : memref<?x4x48xbf16>) {max_q_len = 16 : i32}
  return
}

// -----

// A bf16 cache's head ends at 256 (K^T and V tiles of 64 positions fill
// L0B)...
func.func @attention_head_dim_272(%q: memref<?x1x4x272xbf16>, %ids: memref<?xi32>, %lens: memref<?xi32>, %ql: memref<?xi32>, %acc: memref<?xi32>, %bt: memref<?x?xi32>, %k: memref<?x4x16x272xbf16>, %v: memref<?x4x16x272xbf16>, %o: memref<?x1x4x272xbf16>) {
  // expected-error @+1 {{lowers with a static head_dim, a multiple of 16 up to 256 (one cube tile)}}
  llm.flash_attention_decode q(%q : memref<?x1x4x272xbf16>) kv_ids(%ids : memref<?xi32>) kv_lens(%lens : memref<?xi32>) q_lens(%ql : memref<?xi32>) accum_q_len(%acc : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%k : memref<?x4x16x272xbf16>) v_cache(%v : memref<?x4x16x272xbf16>) -> out(%o : memref<?x1x4x272xbf16>) {q_seq_len = 1 : i32}
  return
}

// -----

// ... an int8 cache's at 128.
func.func @attention_int8_head_dim_256(%q: memref<?x4x256xbf16>, %ids: memref<?xi32>, %lens: memref<?xi32>, %ql: memref<?xi32>, %bt: memref<?x?xi32>, %k: memref<?x4x16x256xi8>, %v: memref<?x4x16x256xi8>, %s: memref<4x256xf32>, %o: memref<?x4x256xbf16>) {
  // expected-error @+1 {{lowers with a static head_dim, a multiple of 32 up to 128 (over an int8 cache: a KV tile's dequantization scratch and the row state fill UB)}}
  llm.flash_attention_prefill q(%q : memref<?x4x256xbf16>) kv_ids(%ids : memref<?xi32>) kv_lens(%lens : memref<?xi32>) q_lens(%ql : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%k : memref<?x4x16x256xi8>) v_cache(%v : memref<?x4x16x256xi8>) k_scale(%s : memref<4x256xf32>) v_scale(%s : memref<4x256xf32>) -> out(%o : memref<?x4x256xbf16>) {max_q_len = 16 : i32}
  return
}

// -----

func.func @attention_group(%q: memref<?x64x64xbf16>, %ids: memref<?xi32>, %lens: memref<?xi32>, %ql: memref<?xi32>, %bt: memref<?x?xi32>, %k: memref<?x1x16x64xbf16>, %v: memref<?x1x16x64xbf16>, %o: memref<?x64x64xbf16>) {
  // expected-error @+1 {{lowers with at most 32 query heads per KV head (one tile of rows), got 64}}
  llm.flash_attention_prefill q(%q : memref<?x64x64xbf16>) kv_ids(%ids : memref<?xi32>) kv_lens(%lens : memref<?xi32>) q_lens(%ql : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%k : memref<?x1x16x64xbf16>) v_cache(%v : memref<?x1x16x64xbf16>) -> out(%o : memref<?x64x64xbf16>) {max_q_len = 16 : i32}
  return
}

// -----

func.func @decode_group(%q: memref<?x2x64x64xbf16>, %ids: memref<?xi32>, %lens: memref<?xi32>, %ql: memref<?xi32>, %acc: memref<?xi32>, %bt: memref<?x?xi32>, %k: memref<?x1x16x64xbf16>, %v: memref<?x1x16x64xbf16>, %o: memref<?x2x64x64xbf16>) {
  // expected-error @+1 {{lowers with at most 32 query heads per KV head (one tile of rows), got 64}}
  llm.flash_attention_decode q(%q : memref<?x2x64x64xbf16>) kv_ids(%ids : memref<?xi32>) kv_lens(%lens : memref<?xi32>) q_lens(%ql : memref<?xi32>) accum_q_len(%acc : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%k : memref<?x1x16x64xbf16>) v_cache(%v : memref<?x1x16x64xbf16>) -> out(%o : memref<?x2x64x64xbf16>) {q_seq_len = 2 : i32}
  return
}

// -----

func.func @topk_too_many_experts(%l: memref<?x1025xbf16>, %ids: memref<?x2xi32>, %w: memref<?x2xf32>) {
  // expected-error @+1 {{lowers with num_experts at most 1024, got 1025}}
  llm.moe_softmax_topk hidden_states(%l : memref<?x1025xbf16>) -> selected_experts(%ids : memref<?x2xi32>) expert_weights(%w : memref<?x2xf32>)
  return
}

// -----

func.func @gather_wide_topk(%x: memref<?x256xbf16>, %o: memref<?xi32>, %w: memref<?x32xf32>, %h: memref<?x256xbf16>) {
  // expected-error @+1 {{lowers with a static topk of at most 16 only (its inverse table and weight tile are sized at compile time)}}
  llm.moe_gather scatter_tokens(%x : memref<?x256xbf16>) token_offset(%o : memref<?xi32>) expert_weights(%w : memref<?x32xf32>) -> hidden_states(%h : memref<?x256xbf16>)
  return
}


// -----

func.func @group_gemm_dynamic_weight(%x: memref<?x256xi8>, %s: memref<?xf32>, %w: memref<?x256x256xi8>, %ws: memref<?x256xf32>, %c: memref<?xi32>, %y: memref<?x256xbf16>) {
  // expected-error @+1 {{lowers with a static experts_weight shape only: its tiles are sized at compile time}}
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x256xi8>) per_token_scale(%s : memref<?xf32>) experts_weight(%w : memref<?x256x256xi8>) experts_scale(%ws : memref<?x256xf32>) experts_token_count(%c : memref<?xi32>) -> y(%y : memref<?x256xbf16>)
  return
}

// -----

func.func @group_gemm_odd_k(%x: memref<?x200xi8>, %s: memref<?xf32>, %w: memref<4x200x256xi8>, %ws: memref<4x256xf32>, %c: memref<4xi32>, %y: memref<?x256xbf16>) {
  // expected-error @+1 {{lowers with hidden_size a multiple of 32 and new_hidden_size a multiple of 16 (whole 32-byte int8 and bf16 rows), got 200 and 256}}
  llm.moe_quant_group_gemm scatter_tokens(%x : memref<?x200xi8>) per_token_scale(%s : memref<?xf32>) experts_weight(%w : memref<4x200x256xi8>) experts_scale(%ws : memref<4x256xf32>) experts_token_count(%c : memref<4xi32>) -> y(%y : memref<?x256xbf16>)
  return
}

// -----

func.func @swiglu_dynamic_experts(%x: memref<?x1024xbf16>, %s: memref<?x512xf32>, %c: memref<?xi32>, %y: memref<?x512xi8>, %ys: memref<?xf32>) {
  // expected-error @+1 {{lowers with static smooth_scale and experts_tokens_count shapes only (the experts and the tiles are sized at compile time)}}
  llm.moe_swiglu_dynamic_quant scatter_tokens(%x : memref<?x1024xbf16>) smooth_scale(%s : memref<?x512xf32>) experts_tokens_count(%c : memref<?xi32>) -> y(%y : memref<?x512xi8>) per_token_scale(%ys : memref<?xf32>)
  return
}

// -----

shard.grid @g(shape = 2)
func.func @sharded_attention(%q: memref<?x1x4x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x2x16x64xbf16>) {
  // expected-error @+1 {{is sharded over @g: convert-llm-kv-sharding lowers it to this rank's program first}}
  llm.flash_attention_decode q(%q : memref<?x1x4x64xbf16>) kv_ids(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) accum_q_len(%l : memref<?xi32>) block_table(%bt : memref<?x?xi32>) k_cache(%c : memref<?x2x16x64xbf16>) v_cache(%c : memref<?x2x16x64xbf16>) -> out(%q : memref<?x1x4x64xbf16>) on @g kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

// -----

shard.grid @g(shape = 2)
func.func @sharded_store(%key: memref<?x1x64xbf16>, %t: memref<?x?xi32>, %l: memref<?xi32>, %c: memref<?x1x16x64xbf16>) {
  // expected-error @+1 {{is sharded over @g: convert-llm-kv-sharding lowers it to this rank's program first}}
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16>) value(%key : memref<?x1x64xbf16>) block_table(%t : memref<?x?xi32>) kv_ids(%l : memref<?xi32>) q_lens(%l : memref<?xi32>) kv_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x1x16x64xbf16>) v_cache(%c : memref<?x1x16x64xbf16>) on @g kv_sharding = kvdp {max_q_len = 64 : i32}
  return
}

// -----

func.func @head_norm_dynamic_dim(%qkv: memref<?x12x?xbf16>, %w: memref<8x?xf32>) {
  // expected-error @+1 {{lowers with a static head_dim only: its tiles are sized at compile time}}
  llm.head_rms_norm hidden_states(%qkv : memref<?x12x?xbf16>) weight(%w : memref<8x?xf32>) -> y(%qkv : memref<?x12x?xbf16>) {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 8 : i32}
  return
}

// -----

func.func @head_norm_dim(%qkv: memref<?x12x72xbf16>, %w: memref<8x72xf32>) {
  // expected-error @+1 {{lowers with head_dim a multiple of 16 up to 1024 (one bf16 tile row per head), got 72}}
  llm.head_rms_norm hidden_states(%qkv : memref<?x12x72xbf16>) weight(%w : memref<8x72xf32>) -> y(%qkv : memref<?x12x72xbf16>) {eps = 1.0e-06 : f32, head_offset = 0 : i32, head_num = 8 : i32}
  return
}

// -----

func.func @store_dynamic_kv_heads(%k: memref<?x?x64xbf16>, %l: memref<?xi32>, %bt: memref<?x?xi32>, %c: memref<?x?x16x64xbf16>) {
  // expected-error @+1 {{lowers with a static kv_head_num only}}
  llm.store_paged_kv_cache key(%k : memref<?x?x64xbf16>) value(%k : memref<?x?x64xbf16>) block_table(%bt : memref<?x?xi32>) q_lens(%l : memref<?xi32>) -> k_cache(%c : memref<?x?x16x64xbf16>) v_cache(%c : memref<?x?x16x64xbf16>) {max_q_len = 1 : i32}
  return
}

// -----

// expected-error @+1 {{holds llm ops in a body of several blocks; write it with structured control flow}}
func.func @blocks(%x: memref<?x64xbf16>, %w: memref<64xf32>) {
  llm.rms_norm hidden_states(%x : memref<?x64xbf16>) weight(%w : memref<64xf32>) -> y(%x : memref<?x64xbf16>) {eps = 1.0e-6 : f32}
  return
^unreachable:
  return
}

// -----

// A bf16 gating GEMM takes any multiple of 8 experts (8 lowers, padded to
// 16 columns on the cube); 12 does not fill a 32-byte f32 row.
func.func @gating_twelve_experts(%x: memref<?x256xbf16>, %w: memref<256x12xbf16>, %y: memref<?x12xbf16>) {
  // expected-error @+1 {{lowers with hidden_size a multiple of 32 and new_hidden_size a multiple of 8 (whole 32-byte f32 rows), got 256 and 12}}
  llm.moe_gating_gemm hidden_states(%x : memref<?x256xbf16>) weight(%w : memref<256x12xbf16>) -> y(%y : memref<?x12xbf16>)
  return
}
