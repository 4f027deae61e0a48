// Sliding-window decode attention (window W = 2048 tokens): the bf16
// workload of decode_attention.mlir with gen_mask_tkg's sliding-window mask
// computed inline in the kernel (wsp.mask_value, block KV: the window is
// clipped at 0, never wraps) and planning that covers only each request's
// window, [max(0, kv_len - q_len - W + 1), kv_len): no work unit for chunks
// the window masks out. Two parts:
//
//  * @decode_step: the AICPU planning function of spec §13.1. It plans the
//    KV chunk size from this step's lengths, generates one descriptor per
//    (request, head, chunk), and dispatches them on the 48 vector cores.
//  * @decode_attention: the tiered AICore kernel of spec §13.2. One body for
//    all tiers; TILE_K is its per-tier tile size.
//
// Shapes: q/out [batch, q_seq_len, head_num, head_dim]; k/v cache
// [max_block_num, kv_head_num, block_size, head_dim]; block_table
// [max_batch, max_blocks_per_seq], row chosen by kv_ids (the seed leaves the
// table out of flash_attention_decode; store_paged_kv_cache shows it).
// kv_lens counts the new tokens too: query token s of a request sees KV
// positions p <= kv_len - q_seq_len + s (causal among the new tokens).
// head_num is a multiple of kv_head_num (GQA).
//
// The accumulators (running max m, running sum l, unnormalized output o)
// live in global memory per (request, query token, head): a descriptor with
// INIT resets them, every chunk folds its KV range in with the online-softmax
// rule, and the LAST chunk writes o / l. The chunks of one row therefore run
// in order on one core: the dispatch is row_affine.

wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>,       // short
  #wsp.tier<1, [1025, 4096]>,    // medium
  #wsp.tier<2, [4097, 16384]>,   // long
  #wsp.tier<3, [16385, 131072]>  // very long
]

// ---------------------------------------------------------------------------
// AICPU: plan, generate, dispatch.
// ---------------------------------------------------------------------------
func.func @decode_step(
    %q: memref<?x?x?x?xbf16>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %k_cache: memref<?x?x?x?xbf16>, %v_cache: memref<?x?x?x?xbf16>,
    %acc_o: memref<?x?x?x?xf32>, %acc_m: memref<?x?x?xf32>,
    %acc_l: memref<?x?x?xf32>, %out: memref<?x?x?x?xbf16>,
    %descs: memref<?x!wsp.descriptor<attention>>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %batch = memref.dim %kv_lens, %c0 : memref<?xi32>
  %q_len = memref.dim %q, %c1 : memref<?x?x?x?xbf16>
  %heads = memref.dim %q, %c2 : memref<?x?x?x?xbf16>

  // The spec's AttentionPlanner configuration (§13.1), over the windows.
  %chunk = wsp.plan_chunk_size %kv_lens[%batch] heads(%heads)
      window(2048) queries(%q_len)
      config(#wsp.plan_config<chunk_min = 256, chunk_max = 4096,
                              max_work_units = 65536>) : memref<?xi32>
  %count, %status = wsp.generate %kv_lens[%batch] heads(%heads)
      window(2048) queries(%q_len) chunk(%chunk)
      tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>)
      into %descs : memref<?xi32>, memref<?x!wsp.descriptor<attention>>

  // Run only a plan that was written: on an error the buffer is left
  // as it was (and on overflow the count exceeds it).
  %ok = arith.constant 0 : i32
  %planned = arith.cmpi eq, %status, %ok : i32
  scf.if %planned {
    wsp.dispatch @decode_attention(
          %q, %kv_ids, %kv_lens, %block_table, %k_cache, %v_cache,
          %acc_o, %acc_m, %acc_l, %out
        : memref<?x?x?x?xbf16>, memref<?xi32>, memref<?xi32>, memref<?x?xi32>,
          memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>,
          memref<?x?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>,
          memref<?x?x?x?xbf16>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
        on vector(48) row_affine
  }
  return %status : i32
}

// ---------------------------------------------------------------------------
// AICore: one work unit = one (request, head) row over one KV chunk.
// ---------------------------------------------------------------------------
wsp.kernel @decode_attention tiers(@DecodeAttentionTiers)
    constants {TILE_K = array<i64: 256, 512, 1024, 2048>}
    (%desc: !wsp.descriptor<attention>,
     %q: memref<?x?x?x?xbf16>, %kv_ids: memref<?xi32>,
     %kv_lens: memref<?xi32>, %block_table: memref<?x?xi32>,
     %k_cache: memref<?x?x?x?xbf16>, %v_cache: memref<?x?x?x?xbf16>,
     %acc_o: memref<?x?x?x?xf32>, %acc_m: memref<?x?x?xf32>,
     %acc_l: memref<?x?x?xf32>, %out: memref<?x?x?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32

  // The descriptor: which row, which KV range, which role in the row.
  %req = wsp.param %desc["request_idx"] : !wsp.descriptor<attention>
  %head = wsp.param %desc["head_idx"] : !wsp.descriptor<attention>
  %kv_start = wsp.param %desc["kv_start"] : !wsp.descriptor<attention>
  %kv_end = wsp.kv_end %desc : !wsp.descriptor<attention>
  %init = wsp.has_flag %desc, init : !wsp.descriptor<attention>
  %last = wsp.has_flag %desc, last : !wsp.descriptor<attention>
  // Per-tier tile of KV positions (spec §13.2 TILE_K).
  %tile = wsp.tier_constant "TILE_K" : index

  // Shapes.
  %q_len = memref.dim %q, %c1 : memref<?x?x?x?xbf16>
  %head_num = memref.dim %q, %c2 : memref<?x?x?x?xbf16>
  %head_dim = memref.dim %q, %c3 : memref<?x?x?x?xbf16>
  %kv_heads = memref.dim %k_cache, %c1 : memref<?x?x?x?xbf16>
  %block_size = memref.dim %k_cache, %c2 : memref<?x?x?x?xbf16>

  // GQA: query head -> KV head.
  %group = arith.divui %head_num, %kv_heads : index
  %kv_head = arith.divui %head, %group : index
  // The request's block-table row and KV length.
  %kv_id_i32 = memref.load %kv_ids[%req] : memref<?xi32>
  %kv_id = arith.index_cast %kv_id_i32 : i32 to index
  %kv_len_i32 = memref.load %kv_lens[%req] : memref<?xi32>
  %kv_len = arith.index_cast %kv_len_i32 : i32 to index
  // softmax scale 1 / sqrt(head_dim).
  %head_dim_i32 = arith.index_cast %head_dim : index to i32
  %head_dim_f = arith.sitofp %head_dim_i32 : i32 to f32
  %scale = math.rsqrt %head_dim_f : f32
  %one = arith.constant 1.0 : f32
  // gen_mask_tkg's layout: the first kv_len - q_len slots are the prior
  // cache, the last q_len the active (new) tokens.
  %prior = arith.subi %kv_len, %q_len : index

  scf.for %s = %c0 to %q_len step %c1 {
    // INIT: reset this row's accumulators.
    scf.if %init {
      memref.store %neg_inf, %acc_m[%req, %s, %head] : memref<?x?x?xf32>
      memref.store %zero, %acc_l[%req, %s, %head] : memref<?x?x?xf32>
      scf.for %d = %c0 to %head_dim step %c1 {
        memref.store %zero, %acc_o[%req, %s, %head, %d] : memref<?x?x?x?xf32>
      }
    }
    // Causal among the new tokens: token s sees p < kv_len - q_len + 1 + s.
    %visible_base = arith.subi %kv_len, %q_len : index
    %visible_1 = arith.addi %visible_base, %c1 : index
    %visible = arith.addi %visible_1, %s : index
    %hi = arith.minui %kv_end, %visible : index

    scf.for %t = %kv_start to %hi step %tile {
      %t_next = arith.addi %t, %tile : index
      %t_end = arith.minui %t_next, %hi : index
      scf.for %p = %t to %t_end step %c1 {
        // Paged KV: position p -> (block, offset).
        %blk_col = arith.divui %p, %block_size : index
        %offset = arith.remui %p, %block_size : index
        %blk_i32 = memref.load %block_table[%kv_id, %blk_col] : memref<?x?xi32>
        %blk = arith.index_cast %blk_i32 : i32 to index

        // score = scale * <q, k>
        %dot = scf.for %d = %c0 to %head_dim step %c1
            iter_args(%acc = %zero) -> (f32) {
          %qv = memref.load %q[%req, %s, %head, %d] : memref<?x?x?x?xbf16>
          %kv = memref.load %k_cache[%blk, %kv_head, %offset, %d]
              : memref<?x?x?x?xbf16>
          %qf = arith.extf %qv : bf16 to f32
          %kf = arith.extf %kv : bf16 to f32
          %prod = arith.mulf %qf, %kf : f32
          %sum = arith.addf %acc, %prod : f32
          scf.yield %sum : f32
        }
        %score = arith.mulf %dot, %scale : f32

        // The sliding-window mask, inline (never materialized): query s is
        // the token at slot prior + s.
        %qpos = arith.addi %prior, %s : index
        %attend = wsp.mask_value sliding window(2048) block col(%p)
            query(%s) pos(%qpos) prior(%prior) active(%q_len) offset(%c0)
            cache(%prior) : i1

        // Online softmax, branch-free; a masked position changes nothing:
        // m' = max(m, x), l' = l e^(m - m') + e^(x - m'),
        // o' = o e^(m - m') + e^(x - m') v.
        %m = memref.load %acc_m[%req, %s, %head] : memref<?x?x?xf32>
        %l = memref.load %acc_l[%req, %s, %head] : memref<?x?x?xf32>
        %m_cand = arith.maximumf %m, %score : f32
        %m_new = arith.select %attend, %m_cand, %m : f32
        %m_diff = arith.subf %m, %m_new : f32
        %alpha_raw = math.exp %m_diff : f32
        %alpha = arith.select %attend, %alpha_raw, %one : f32
        %x_diff = arith.subf %score, %m_new : f32
        %weight_raw = math.exp %x_diff : f32
        %weight = arith.select %attend, %weight_raw, %zero : f32
        %l_scaled = arith.mulf %l, %alpha : f32
        %l_new = arith.addf %l_scaled, %weight : f32
        memref.store %m_new, %acc_m[%req, %s, %head] : memref<?x?x?xf32>
        memref.store %l_new, %acc_l[%req, %s, %head] : memref<?x?x?xf32>
        scf.for %d = %c0 to %head_dim step %c1 {
          %o = memref.load %acc_o[%req, %s, %head, %d] : memref<?x?x?x?xf32>
          %vv = memref.load %v_cache[%blk, %kv_head, %offset, %d]
              : memref<?x?x?x?xbf16>
          %vf = arith.extf %vv : bf16 to f32
          %o_scaled = arith.mulf %o, %alpha : f32
          %wv = arith.mulf %weight, %vf : f32
          %o_new = arith.addf %o_scaled, %wv : f32
          memref.store %o_new, %acc_o[%req, %s, %head, %d] : memref<?x?x?x?xf32>
        }
      }
    }

    // LAST: normalize and write the bf16 output row.
    scf.if %last {
      %l_final = memref.load %acc_l[%req, %s, %head] : memref<?x?x?xf32>
      scf.for %d = %c0 to %head_dim step %c1 {
        %o = memref.load %acc_o[%req, %s, %head, %d] : memref<?x?x?x?xf32>
        %normalized = arith.divf %o, %l_final : f32
        %o_bf16 = arith.truncf %normalized : f32 to bf16
        memref.store %o_bf16, %out[%req, %s, %head, %d] : memref<?x?x?x?xbf16>
      }
    }
  }
  wsp.return
}
