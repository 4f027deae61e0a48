// Decode attention on the balanced plan (issue: a balanced planner). The
// same workload as decode_attention.mlir (bf16 paged KV cache, GQA, causal
// among the new tokens), planned by pto::runtime's balanced planner instead
// of the spec's chunk-size planner:
//
//  * @decode_step plans with #wsp.plan_config<strategy = balanced>: one
//    descriptor per (request, KV head) row or piece of a row, every core
//    given the same cost (KV tokens + 64 per unit + 64 per extra piece), rows
//    cut only at 16-token KV blocks. It runs two persistent dispatches over
//    the plan's per-core work lists: the partial pass, then the merge.
//  * @decode_partial: one descriptor = one KV range of one KV head, for all
//    query heads of its GQA group. A whole row (FIRST and LAST) writes the
//    output directly; a piece of a split row writes its partial softmax
//    state (running max m, sum l, unnormalized o) to its own slot, indexed
//    by work id, so pieces of one row may run on different cores at once.
//  * @decode_merge: the LAST piece of each split row combines the row's
//    pieces (contiguous, from the FIRST one; what the plan's merge_indptr
//    lists per row) with the log-sum-exp rule and writes the output.
//
// The planner's block_size (16) is the KV block it never splits; the kernels
// index the cache by position, so any cache block size gives the same
// result (a multiple of 16 keeps every cut on a cache block boundary).

wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>,       // short
  #wsp.tier<1, [1025, 4096]>,    // medium
  #wsp.tier<2, [4097, 16384]>,   // long
  #wsp.tier<3, [16385, 131072]>  // very long
]

// ---------------------------------------------------------------------------
// AICPU: plan (balanced), then the partial pass and the merge pass.
// Buffers: descs >= batch x kv_heads + 48 (the planner's bound), core_indptr
// >= 49, merge_indptr >= batch x kv_heads + 1; partial state
// [descs, q_len, heads / kv_heads (, head_dim)].
// ---------------------------------------------------------------------------
func.func @decode_step(
    %q: memref<?x?x?x?xbf16>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %k_cache: memref<?x?x?x?xbf16>, %v_cache: memref<?x?x?x?xbf16>,
    %part_o: memref<?x?x?x?xf32>, %part_m: memref<?x?x?xf32>,
    %part_l: memref<?x?x?xf32>, %out: memref<?x?x?x?xbf16>,
    %descs: memref<?x!wsp.descriptor<attention>>,
    %core_indptr: memref<?xi32>, %merge_indptr: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ok = arith.constant 0 : i32
  %batch = memref.dim %kv_lens, %c0 : memref<?xi32>
  %kv_heads = memref.dim %k_cache, %c1 : memref<?x?x?x?xbf16>

  %count, %status = wsp.generate %kv_lens[%batch] heads(%kv_heads)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<strategy = balanced, cores = 48, block_size = 16>)
      into %descs cores(%core_indptr : memref<?xi32>)
      merges(%merge_indptr : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>

  // Run only a plan that was written (an error leaves the buffers as they
  // were).
  %planned = arith.cmpi eq, %status, %ok : i32
  scf.if %planned {
    wsp.dispatch @decode_partial(
          %q, %kv_ids, %kv_lens, %block_table, %k_cache, %v_cache,
          %part_o, %part_m, %part_l, %out
        : memref<?x?x?x?xbf16>, memref<?xi32>, memref<?xi32>, memref<?x?xi32>,
          memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>,
          memref<?x?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>,
          memref<?x?x?x?xbf16>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
        on vector(48) persistent(%core_indptr : memref<?xi32>)
    wsp.dispatch @decode_merge(%descs, %part_o, %part_m, %part_l, %out
        : memref<?x!wsp.descriptor<attention>>, memref<?x?x?x?xf32>,
          memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?x?xbf16>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
        on vector(48) persistent(%core_indptr : memref<?xi32>)
  }
  return %status : i32
}

// ---------------------------------------------------------------------------
// AICore, pass 1: one descriptor = one KV range of one (request, KV head).
// ---------------------------------------------------------------------------
wsp.kernel @decode_partial tiers(@DecodeAttentionTiers)
    constants {TILE_K = array<i64: 256, 512, 1024, 2048>}
    (%desc: !wsp.descriptor<attention>,
     %q: memref<?x?x?x?xbf16>, %kv_ids: memref<?xi32>,
     %kv_lens: memref<?xi32>, %block_table: memref<?x?xi32>,
     %k_cache: memref<?x?x?x?xbf16>, %v_cache: memref<?x?x?x?xbf16>,
     %part_o: memref<?x?x?x?xf32>, %part_m: memref<?x?x?xf32>,
     %part_l: memref<?x?x?xf32>, %out: memref<?x?x?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32

  // The descriptor: which row (request, KV head), which KV range, and
  // whether it is the whole row; its work id names its partial slot.
  %req = wsp.param %desc["request_idx"] : !wsp.descriptor<attention>
  %kv_head = wsp.param %desc["head_idx"] : !wsp.descriptor<attention>
  %kv_start = wsp.param %desc["kv_start"] : !wsp.descriptor<attention>
  %kv_end = wsp.kv_end %desc : !wsp.descriptor<attention>
  %first = wsp.has_flag %desc, first : !wsp.descriptor<attention>
  %last = wsp.has_flag %desc, last : !wsp.descriptor<attention>
  %whole = arith.andi %first, %last : i1
  %slot = wsp.work_id %desc : !wsp.descriptor<attention>
  %tile = wsp.tier_constant "TILE_K" : index

  // Shapes.
  %q_len = memref.dim %q, %c1 : memref<?x?x?x?xbf16>
  %head_num = memref.dim %q, %c2 : memref<?x?x?x?xbf16>
  %head_dim = memref.dim %q, %c3 : memref<?x?x?x?xbf16>
  %kv_heads = memref.dim %k_cache, %c1 : memref<?x?x?x?xbf16>
  %block_size = memref.dim %k_cache, %c2 : memref<?x?x?x?xbf16>
  %group = arith.divui %head_num, %kv_heads : index
  %head_base = arith.muli %kv_head, %group : index

  %kv_id_i32 = memref.load %kv_ids[%req] : memref<?xi32>
  %kv_id = arith.index_cast %kv_id_i32 : i32 to index
  %kv_len_i32 = memref.load %kv_lens[%req] : memref<?xi32>
  %kv_len = arith.index_cast %kv_len_i32 : i32 to index
  %head_dim_i32 = arith.index_cast %head_dim : index to i32
  %head_dim_f = arith.sitofp %head_dim_i32 : i32 to f32
  %scale = math.rsqrt %head_dim_f : f32

  scf.for %s = %c0 to %q_len step %c1 {
    // Causal among the new tokens: token s sees p < kv_len - q_len + 1 + s.
    %visible_base = arith.subi %kv_len, %q_len : index
    %visible_1 = arith.addi %visible_base, %c1 : index
    %visible = arith.addi %visible_1, %s : index
    %hi = arith.minui %kv_end, %visible : index

    scf.for %g = %c0 to %group step %c1 {
      %head = arith.addi %head_base, %g : index
      // This piece's own state (the INIT of its slot).
      memref.store %neg_inf, %part_m[%slot, %s, %g] : memref<?x?x?xf32>
      memref.store %zero, %part_l[%slot, %s, %g] : memref<?x?x?xf32>
      scf.for %d = %c0 to %head_dim step %c1 {
        memref.store %zero, %part_o[%slot, %s, %g, %d] : memref<?x?x?x?xf32>
      }
      scf.for %t = %kv_start to %hi step %tile {
        %t_next = arith.addi %t, %tile : index
        %t_end = arith.minui %t_next, %hi : index
        scf.for %p = %t to %t_end step %c1 {
          // Paged KV: position p -> (block, offset).
          %blk_col = arith.divui %p, %block_size : index
          %offset = arith.remui %p, %block_size : index
          %blk_i32 = memref.load %block_table[%kv_id, %blk_col] : memref<?x?xi32>
          %blk = arith.index_cast %blk_i32 : i32 to index

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

          // Online softmax within the piece.
          %m = memref.load %part_m[%slot, %s, %g] : memref<?x?x?xf32>
          %l = memref.load %part_l[%slot, %s, %g] : memref<?x?x?xf32>
          %m_new = arith.maximumf %m, %score : f32
          %m_diff = arith.subf %m, %m_new : f32
          %alpha = math.exp %m_diff : f32
          %x_diff = arith.subf %score, %m_new : f32
          %weight = math.exp %x_diff : f32
          %l_scaled = arith.mulf %l, %alpha : f32
          %l_new = arith.addf %l_scaled, %weight : f32
          memref.store %m_new, %part_m[%slot, %s, %g] : memref<?x?x?xf32>
          memref.store %l_new, %part_l[%slot, %s, %g] : memref<?x?x?xf32>
          scf.for %d = %c0 to %head_dim step %c1 {
            %o = memref.load %part_o[%slot, %s, %g, %d] : memref<?x?x?x?xf32>
            %vv = memref.load %v_cache[%blk, %kv_head, %offset, %d]
                : memref<?x?x?x?xbf16>
            %vf = arith.extf %vv : bf16 to f32
            %o_scaled = arith.mulf %o, %alpha : f32
            %wv = arith.mulf %weight, %vf : f32
            %o_new = arith.addf %o_scaled, %wv : f32
            memref.store %o_new, %part_o[%slot, %s, %g, %d] : memref<?x?x?x?xf32>
          }
        }
      }
      // A whole row needs no merge: normalize and write it now.
      scf.if %whole {
        %l_final = memref.load %part_l[%slot, %s, %g] : memref<?x?x?xf32>
        scf.for %d = %c0 to %head_dim step %c1 {
          %o = memref.load %part_o[%slot, %s, %g, %d] : memref<?x?x?x?xf32>
          %normalized = arith.divf %o, %l_final : f32
          %o_bf16 = arith.truncf %normalized : f32 to bf16
          memref.store %o_bf16, %out[%req, %s, %head, %d] : memref<?x?x?x?xbf16>
        }
      }
    }
  }
  wsp.return
}

// ---------------------------------------------------------------------------
// AICore, pass 2: the LAST piece of a split row merges the row's pieces.
// m = max m_i, l = sum l_i e^(m_i - m), o = sum o_i e^(m_i - m); out = o / l.
// ---------------------------------------------------------------------------
wsp.kernel @decode_merge tiers(@DecodeAttentionTiers)
    (%desc: !wsp.descriptor<attention>,
     %descs: memref<?x!wsp.descriptor<attention>>,
     %part_o: memref<?x?x?x?xf32>, %part_m: memref<?x?x?xf32>,
     %part_l: memref<?x?x?xf32>, %out: memref<?x?x?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %true = arith.constant true
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32

  %first = wsp.has_flag %desc, first : !wsp.descriptor<attention>
  %last = wsp.has_flag %desc, last : !wsp.descriptor<attention>
  %not_first = arith.xori %first, %true : i1
  %split_last = arith.andi %last, %not_first : i1
  scf.if %split_last {
    %req = wsp.param %desc["request_idx"] : !wsp.descriptor<attention>
    %kv_head = wsp.param %desc["head_idx"] : !wsp.descriptor<attention>
    %end_slot = wsp.work_id %desc : !wsp.descriptor<attention>
    %slots_end = arith.addi %end_slot, %c1 : index
    // The row's first piece: walk back to its FIRST descriptor.
    %begin_slot = scf.while (%k = %end_slot) : (index) -> index {
      %dk = memref.load %descs[%k] : memref<?x!wsp.descriptor<attention>>
      %is_first = wsp.has_flag %dk, first : !wsp.descriptor<attention>
      %more = arith.xori %is_first, %true : i1
      scf.condition(%more) %k : index
    } do {
    ^bb0(%k: index):
      %prev = arith.subi %k, %c1 : index
      scf.yield %prev : index
    }

    %q_len = memref.dim %part_o, %c1 : memref<?x?x?x?xf32>
    %group = memref.dim %part_o, %c2 : memref<?x?x?x?xf32>
    %head_dim = memref.dim %part_o, %c3 : memref<?x?x?x?xf32>
    %head_base = arith.muli %kv_head, %group : index
    scf.for %s = %c0 to %q_len step %c1 {
      scf.for %g = %c0 to %group step %c1 {
        %head = arith.addi %head_base, %g : index
        %m = scf.for %i = %begin_slot to %slots_end step %c1
            iter_args(%acc = %neg_inf) -> (f32) {
          %mi = memref.load %part_m[%i, %s, %g] : memref<?x?x?xf32>
          %mx = arith.maximumf %acc, %mi : f32
          scf.yield %mx : f32
        }
        %l = scf.for %i = %begin_slot to %slots_end step %c1
            iter_args(%acc = %zero) -> (f32) {
          %mi = memref.load %part_m[%i, %s, %g] : memref<?x?x?xf32>
          %li = memref.load %part_l[%i, %s, %g] : memref<?x?x?xf32>
          %diff = arith.subf %mi, %m : f32
          %w = math.exp %diff : f32
          %lw = arith.mulf %li, %w : f32
          %sum = arith.addf %acc, %lw : f32
          scf.yield %sum : f32
        }
        scf.for %d = %c0 to %head_dim step %c1 {
          %o = scf.for %i = %begin_slot to %slots_end step %c1
              iter_args(%acc = %zero) -> (f32) {
            %mi = memref.load %part_m[%i, %s, %g] : memref<?x?x?xf32>
            %oi = memref.load %part_o[%i, %s, %g, %d] : memref<?x?x?x?xf32>
            %diff = arith.subf %mi, %m : f32
            %w = math.exp %diff : f32
            %ow = arith.mulf %oi, %w : f32
            %sum = arith.addf %acc, %ow : f32
            scf.yield %sum : f32
          }
          %normalized = arith.divf %o, %l : f32
          %o_bf16 = arith.truncf %normalized : f32 to bf16
          memref.store %o_bf16, %out[%req, %s, %head, %d] : memref<?x?x?x?xbf16>
        }
      }
    }
  }
  wsp.return
}
