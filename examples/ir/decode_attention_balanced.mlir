// Decode attention on the balanced plan, as tile kernels (seed 002
// flash_attention_decode; bf16 paged KV cache, GQA, causal among the new
// tokens), planned by pto::runtime's balanced planner:
//
//  * @decode_step plans with #wsp.plan_config<strategy = balanced>: one
//    descriptor per (request, KV head) row or piece of a row, every core
//    given the same cost (KV tokens + 64 per unit + 64 per extra piece), rows
//    cut only at 16-token KV blocks. It runs two persistent dispatches over
//    the plan's per-core work lists: the partial pass on 24 blocks, each a
//    cube core with its two vector cores (mix(24)), then the merge on the
//    vector cores.
//  * @decode_step_cuts is the same step with the plan as cuts: the AICPU
//    function writes where each core's share starts (`cuts`, O(batch +
//    cores)) and no descriptor; the partial pass (`expand`) has each core
//    write its own descriptors from its two cuts before it runs them, and
//    the merge pass finds the whole plan in the buffer.
//  * @decode_partial: one descriptor = one KV range of one KV head for all
//    query heads of its GQA group (q_len x group rows of one 32-row tile), so
//    each K/V byte is read once. The cube computes S = Q K^T and O_t = P V
//    per KV tile, reading K and V pages straight from the cache into L1; the
//    vector core runs the online softmax with the row statistics kept in UB
//    for the whole range. The two cores exchange Q, S, P and O_t through a
//    per-block workspace in global memory (A2/A3 has no path between L0C
//    and UB). A whole row (FIRST and LAST) writes the output; a piece of a
//    split row writes its softmax state (max m, sum l, unnormalized o) to
//    its own slot, indexed by work id.
//  * @decode_merge: the LAST piece of each split row combines the row's
//    pieces (contiguous, from the FIRST one) with the log-sum-exp rule.
//
// Tiles: Q and O are [32 x 128] (q_len x group <= 32 rows, head_dim <= 128
// columns: valid extents carry the actual sizes); TILE_K, the KV positions
// of one tile, is 64 for the short tier and 128 above it (L0B holds K^T and
// V of one tile: 2 x 32 KiB at 128). KV tiles start on multiples of TILE_K;
// the positions of a tile outside the descriptor's range are masked. The
// cube works one cache page of a tile at a time (pages of 16 or more
// positions: P's columns for a page start on a fractal boundary), so every
// load reads one page.

wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>,       // short
  #wsp.tier<1, [1025, 4096]>,    // medium
  #wsp.tier<2, [4097, 16384]>,   // long
  #wsp.tier<3, [16385, 131072]>  // very long
]

// ---------------------------------------------------------------------------
// AICPU: plan (balanced), then the partial pass and the merge pass.
// Buffers: descs >= batch x kv_heads + 24 (the planner's bound), core_indptr
// >= 25, merge_indptr >= batch x kv_heads + 1; partial state
// [descs, q_len, heads / kv_heads (, head_dim)]; workspace per block
// [24, 32, 128].
// ---------------------------------------------------------------------------
func.func @decode_step(
    %q: memref<?x?x?x?xbf16>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %k_cache: memref<?x?x?x?xbf16>, %v_cache: memref<?x?x?x?xbf16>,
    %part_o: memref<?x?x?x?xf32>, %part_m: memref<?x?x?xf32>,
    %part_l: memref<?x?x?xf32>, %out: memref<?x?x?x?xbf16>,
    %descs: memref<?x!wsp.descriptor<attention>>,
    %core_indptr: memref<?xi32>, %merge_indptr: memref<?xi32>,
    %ws_q: memref<?x32x128xbf16>, %ws_s: memref<?x32x128xf32>,
    %ws_p: memref<?x32x128xbf16>, %ws_o: memref<?x32x128xf32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %ok = arith.constant 0 : i32
  %batch = memref.dim %kv_lens, %c0 : memref<?xi32>
  %q_len = memref.dim %q, %c1 : memref<?x?x?x?xbf16>
  %heads = memref.dim %q, %c2 : memref<?x?x?x?xbf16>
  %head_dim = memref.dim %q, %c3 : memref<?x?x?x?xbf16>
  %kv_heads = memref.dim %k_cache, %c1 : memref<?x?x?x?xbf16>

  // Run-time preconditions (as in decode_attention.mlir): the planner
  // checks them before anything else and returns INVALID_PARAMS, with
  // nothing written and no kernel run, unless every one holds.
  %some_kv_heads = arith.cmpi ugt, %kv_heads, %c0 : index
  %one_or_kv_heads = arith.maxui %kv_heads, %c1 : index
  %odd_heads = arith.remui %heads, %one_or_kv_heads : index
  %whole_groups = arith.cmpi eq, %odd_heads, %c0 : index
  %gqa = arith.andi %some_kv_heads, %whole_groups : i1
  wsp.require %gqa, "the query heads are a whole number of groups of KV heads"
  %q_batch = memref.dim %q, %c0 : memref<?x?x?x?xbf16>
  %q_rows = arith.cmpi uge, %q_batch, %batch : index
  %out_batch = memref.dim %out, %c0 : memref<?x?x?x?xbf16>
  %out_len = memref.dim %out, %c1 : memref<?x?x?x?xbf16>
  %out_heads = memref.dim %out, %c2 : memref<?x?x?x?xbf16>
  %out_dim = memref.dim %out, %c3 : memref<?x?x?x?xbf16>
  %out_rows = arith.cmpi uge, %out_batch, %batch : index
  %out_same_len = arith.cmpi eq, %out_len, %q_len : index
  %out_same_heads = arith.cmpi eq, %out_heads, %heads : index
  %out_same_dim = arith.cmpi eq, %out_dim, %head_dim : index
  %out_a = arith.andi %out_rows, %out_same_len : i1
  %out_b = arith.andi %out_a, %out_same_heads : i1
  %out_c = arith.andi %out_b, %out_same_dim : i1
  %q_and_out = arith.andi %q_rows, %out_c : i1
  wsp.require %q_and_out, "q and out hold every request's tokens and heads"
  %k_pages = memref.dim %k_cache, %c0 : memref<?x?x?x?xbf16>
  %block_size = memref.dim %k_cache, %c2 : memref<?x?x?x?xbf16>
  %k_dim = memref.dim %k_cache, %c3 : memref<?x?x?x?xbf16>
  %v_pages = memref.dim %v_cache, %c0 : memref<?x?x?x?xbf16>
  %v_heads = memref.dim %v_cache, %c1 : memref<?x?x?x?xbf16>
  %v_block = memref.dim %v_cache, %c2 : memref<?x?x?x?xbf16>
  %v_dim = memref.dim %v_cache, %c3 : memref<?x?x?x?xbf16>
  %k_same_dim = arith.cmpi eq, %k_dim, %head_dim : index
  %v_same_pages = arith.cmpi eq, %v_pages, %k_pages : index
  %v_same_heads = arith.cmpi eq, %v_heads, %kv_heads : index
  %v_same_block = arith.cmpi eq, %v_block, %block_size : index
  %v_same_dim = arith.cmpi eq, %v_dim, %head_dim : index
  %kv_a = arith.andi %k_same_dim, %v_same_pages : i1
  %kv_b = arith.andi %kv_a, %v_same_heads : i1
  %kv_c = arith.andi %kv_b, %v_same_block : i1
  %caches = arith.andi %kv_c, %v_same_dim : i1
  wsp.require %caches, "the K and V caches have one shape, of pages of head_dim"
  %table_rows = memref.dim %block_table, %c0 : memref<?x?xi32>
  %kv_ids_ok = wsp.all_in_range %kv_ids[%batch] below %table_rows : memref<?xi32>
  wsp.require %kv_ids_ok, "every kv id names a row of the block table"
  %paged = wsp.pages_in_range %block_table rows(%kv_ids[%batch])
      lengths(%kv_lens) page_size(%block_size) pages(%k_pages)
      : memref<?x?xi32>, memref<?xi32>, memref<?xi32>
  wsp.require %paged, "every request's KV positions lie in pages of the cache"
  // The tiles hold q_len x group rows and head_dim columns.
  %group = arith.divui %heads, %one_or_kv_heads : index
  %rows = arith.muli %q_len, %group : index
  %rows_fit = arith.cmpi ule, %rows, %c32 : index
  wsp.require %rows_fit, "q_len x group fits the 32 rows of a tile"
  %dim_fits = arith.cmpi ule, %head_dim, %c128 : index
  wsp.require %dim_fits, "head_dim fits the 128 columns of a tile"

  %count, %status = wsp.generate %kv_lens[%batch] heads(%kv_heads)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<strategy = balanced, cores = 24, block_size = 16>)
      into %descs cores(%core_indptr : memref<?xi32>)
      merges(%merge_indptr : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>

  // Run only a plan that was written (an error leaves the buffers as they
  // were).
  %planned = arith.cmpi eq, %status, %ok : i32
  scf.if %planned {
    wsp.dispatch @decode_partial(
          %q, %kv_ids, %kv_lens, %block_table, %k_cache, %v_cache,
          %part_o, %part_m, %part_l, %out, %ws_q, %ws_s, %ws_p, %ws_o
        : memref<?x?x?x?xbf16>, memref<?xi32>, memref<?xi32>, memref<?x?xi32>,
          memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>,
          memref<?x?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>,
          memref<?x?x?x?xbf16>, memref<?x32x128xbf16>, memref<?x32x128xf32>,
          memref<?x32x128xbf16>, memref<?x32x128xf32>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
        on mix(24) persistent(%core_indptr : memref<?xi32>)
    wsp.dispatch @decode_merge(%descs, %part_o, %part_m, %part_l, %out
        : memref<?x!wsp.descriptor<attention>>, memref<?x?x?x?xf32>,
          memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?x?xbf16>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
        on vector(24) persistent(%core_indptr : memref<?xi32>)
  }
  return %status : i32
}

func.func @decode_step_cuts(
    %q: memref<?x?x?x?xbf16>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %k_cache: memref<?x?x?x?xbf16>, %v_cache: memref<?x?x?x?xbf16>,
    %part_o: memref<?x?x?x?xf32>, %part_m: memref<?x?x?xf32>,
    %part_l: memref<?x?x?xf32>, %out: memref<?x?x?x?xbf16>,
    %descs: memref<?x!wsp.descriptor<attention>>,
    %core_indptr: memref<?xi32>, %cuts: memref<?xi32>,
    %ws_q: memref<?x32x128xbf16>, %ws_s: memref<?x32x128xf32>,
    %ws_p: memref<?x32x128xbf16>, %ws_o: memref<?x32x128xf32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %ok = arith.constant 0 : i32
  %batch = memref.dim %kv_lens, %c0 : memref<?xi32>
  %q_len = memref.dim %q, %c1 : memref<?x?x?x?xbf16>
  %heads = memref.dim %q, %c2 : memref<?x?x?x?xbf16>
  %head_dim = memref.dim %q, %c3 : memref<?x?x?x?xbf16>
  %kv_heads = memref.dim %k_cache, %c1 : memref<?x?x?x?xbf16>

  // Run-time preconditions (as in decode_attention.mlir): the planner
  // checks them before anything else and returns INVALID_PARAMS, with
  // nothing written and no kernel run, unless every one holds.
  %some_kv_heads = arith.cmpi ugt, %kv_heads, %c0 : index
  %one_or_kv_heads = arith.maxui %kv_heads, %c1 : index
  %odd_heads = arith.remui %heads, %one_or_kv_heads : index
  %whole_groups = arith.cmpi eq, %odd_heads, %c0 : index
  %gqa = arith.andi %some_kv_heads, %whole_groups : i1
  wsp.require %gqa, "the query heads are a whole number of groups of KV heads"
  %q_batch = memref.dim %q, %c0 : memref<?x?x?x?xbf16>
  %q_rows = arith.cmpi uge, %q_batch, %batch : index
  %out_batch = memref.dim %out, %c0 : memref<?x?x?x?xbf16>
  %out_len = memref.dim %out, %c1 : memref<?x?x?x?xbf16>
  %out_heads = memref.dim %out, %c2 : memref<?x?x?x?xbf16>
  %out_dim = memref.dim %out, %c3 : memref<?x?x?x?xbf16>
  %out_rows = arith.cmpi uge, %out_batch, %batch : index
  %out_same_len = arith.cmpi eq, %out_len, %q_len : index
  %out_same_heads = arith.cmpi eq, %out_heads, %heads : index
  %out_same_dim = arith.cmpi eq, %out_dim, %head_dim : index
  %out_a = arith.andi %out_rows, %out_same_len : i1
  %out_b = arith.andi %out_a, %out_same_heads : i1
  %out_c = arith.andi %out_b, %out_same_dim : i1
  %q_and_out = arith.andi %q_rows, %out_c : i1
  wsp.require %q_and_out, "q and out hold every request's tokens and heads"
  %k_pages = memref.dim %k_cache, %c0 : memref<?x?x?x?xbf16>
  %block_size = memref.dim %k_cache, %c2 : memref<?x?x?x?xbf16>
  %k_dim = memref.dim %k_cache, %c3 : memref<?x?x?x?xbf16>
  %v_pages = memref.dim %v_cache, %c0 : memref<?x?x?x?xbf16>
  %v_heads = memref.dim %v_cache, %c1 : memref<?x?x?x?xbf16>
  %v_block = memref.dim %v_cache, %c2 : memref<?x?x?x?xbf16>
  %v_dim = memref.dim %v_cache, %c3 : memref<?x?x?x?xbf16>
  %k_same_dim = arith.cmpi eq, %k_dim, %head_dim : index
  %v_same_pages = arith.cmpi eq, %v_pages, %k_pages : index
  %v_same_heads = arith.cmpi eq, %v_heads, %kv_heads : index
  %v_same_block = arith.cmpi eq, %v_block, %block_size : index
  %v_same_dim = arith.cmpi eq, %v_dim, %head_dim : index
  %kv_a = arith.andi %k_same_dim, %v_same_pages : i1
  %kv_b = arith.andi %kv_a, %v_same_heads : i1
  %kv_c = arith.andi %kv_b, %v_same_block : i1
  %caches = arith.andi %kv_c, %v_same_dim : i1
  wsp.require %caches, "the K and V caches have one shape, of pages of head_dim"
  %table_rows = memref.dim %block_table, %c0 : memref<?x?xi32>
  %kv_ids_ok = wsp.all_in_range %kv_ids[%batch] below %table_rows : memref<?xi32>
  wsp.require %kv_ids_ok, "every kv id names a row of the block table"
  %paged = wsp.pages_in_range %block_table rows(%kv_ids[%batch])
      lengths(%kv_lens) page_size(%block_size) pages(%k_pages)
      : memref<?x?xi32>, memref<?xi32>, memref<?xi32>
  wsp.require %paged, "every request's KV positions lie in pages of the cache"
  // The tiles hold q_len x group rows and head_dim columns.
  %group = arith.divui %heads, %one_or_kv_heads : index
  %rows = arith.muli %q_len, %group : index
  %rows_fit = arith.cmpi ule, %rows, %c32 : index
  wsp.require %rows_fit, "q_len x group fits the 32 rows of a tile"
  %dim_fits = arith.cmpi ule, %head_dim, %c128 : index
  wsp.require %dim_fits, "head_dim fits the 128 columns of a tile"

  %count, %status = wsp.generate %kv_lens[%batch] heads(%kv_heads)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<strategy = balanced, cores = 24, block_size = 16>)
      into %descs cores(%core_indptr : memref<?xi32>)
      cuts(%cuts : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>

  // Run only a plan that was written (an error leaves the buffers as they
  // were).
  %planned = arith.cmpi eq, %status, %ok : i32
  scf.if %planned {
    wsp.dispatch @decode_partial(
          %q, %kv_ids, %kv_lens, %block_table, %k_cache, %v_cache,
          %part_o, %part_m, %part_l, %out, %ws_q, %ws_s, %ws_p, %ws_o
        : memref<?x?x?x?xbf16>, memref<?xi32>, memref<?xi32>, memref<?x?xi32>,
          memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>,
          memref<?x?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>,
          memref<?x?x?x?xbf16>, memref<?x32x128xbf16>, memref<?x32x128xf32>,
          memref<?x32x128xbf16>, memref<?x32x128xf32>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
        on mix(24) persistent(%core_indptr : memref<?xi32>)
        expand(%cuts : memref<?xi32>)
    wsp.dispatch @decode_merge(%descs, %part_o, %part_m, %part_l, %out
        : memref<?x!wsp.descriptor<attention>>, memref<?x?x?x?xf32>,
          memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?x?xbf16>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
        on vector(24) persistent(%core_indptr : memref<?xi32>)
  }
  return %status : i32
}

// ---------------------------------------------------------------------------
// AICore, pass 1: one descriptor = one KV range of one (request, KV head).
// ---------------------------------------------------------------------------
wsp.kernel @decode_partial tiers(@DecodeAttentionTiers)
    constants {TILE_K = array<i64: 64, 128, 128, 128>}
    (%desc: !wsp.descriptor<attention>,
     %q: memref<?x?x?x?xbf16>, %kv_ids: memref<?xi32>,
     %kv_lens: memref<?xi32>, %block_table: memref<?x?xi32>,
     %k_cache: memref<?x?x?x?xbf16>, %v_cache: memref<?x?x?x?xbf16>,
     %part_o: memref<?x?x?x?xf32>, %part_m: memref<?x?x?xf32>,
     %part_l: memref<?x?x?xf32>, %out: memref<?x?x?x?xbf16>,
     %ws_q: memref<?x32x128xbf16>, %ws_s: memref<?x32x128xf32>,
     %ws_p: memref<?x32x128xbf16>, %ws_o: memref<?x32x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %minus_one = arith.constant -1.0 : f32
  // The lowest float: a masked score, finite so that exp() of a difference
  // of two never becomes NaN.
  %lowest = arith.constant -3.40282347e+38 : f32
  %largest = arith.constant 3.40282347e+38 : f32

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
  %tile_k = wsp.tier_constant "TILE_K" : index
  %blk = tile.block_idx : index

  // Shapes: the group's rows are (query token s, head g) -> s * group + g.
  %q_len = memref.dim %q, %c1 : memref<?x?x?x?xbf16>
  %head_num = memref.dim %q, %c2 : memref<?x?x?x?xbf16>
  %head_dim = memref.dim %q, %c3 : memref<?x?x?x?xbf16>
  %kv_heads = memref.dim %k_cache, %c1 : memref<?x?x?x?xbf16>
  %group = arith.divui %head_num, %kv_heads : index
  %rows = arith.muli %q_len, %group : index
  // The vector work is split by rows over the block's vector cores (two on
  // A2/A3, one in the CPU simulation): this one takes rows [vr0, vr_end),
  // every core as many; an odd row count leaves the middle row to both,
  // which write the same bytes.
  %sb = tile.subblock_id : index
  %nsb = tile.subblock_num : index
  %vrows = arith.ceildivui %rows, %nsb : index
  %vr_last = arith.subi %rows, %vrows : index
  %vr_at = arith.muli %sb, %vrows : index
  %vr0 = arith.minui %vr_at, %vr_last : index
  %vr_end = arith.addi %vr0, %vrows : index
  %head_base = arith.muli %kv_head, %group : index
  %kv_id_i32 = memref.load %kv_ids[%req] : memref<?xi32>
  %kv_id = arith.index_cast %kv_id_i32 : i32 to index
  %kv_len_i32 = memref.load %kv_lens[%req] : memref<?xi32>
  %kv_len = arith.index_cast %kv_len_i32 : i32 to index
  %head_dim_i32 = arith.index_cast %head_dim : index to i32
  %head_dim_f = arith.sitofp %head_dim_i32 : i32 to f32
  %scale = math.rsqrt %head_dim_f : f32

  // Q: each vector core packs its rows of the group into the block's
  // workspace, the cube loads them all as one [rows x head_dim] operand.
  scf.for %s = %c0 to %q_len step %c1 {
    // The rows of query token s that this vector core holds: [lo_r,
    // hi_r) of the group's, at row tr of its tiles, head g0 of the group.
    %t_lo = arith.muli %s, %group : index
    %t_hi = arith.addi %t_lo, %group : index
    %lo_r = arith.maxui %t_lo, %vr0 : index
    %hi_r = arith.minui %t_hi, %vr_end : index
    %has_rows = arith.cmpi ult, %lo_r, %hi_r : index
    %n_rows = arith.subi %hi_r, %lo_r : index
    %tr = arith.subi %lo_r, %vr0 : index
    %g0 = arith.subi %lo_r, %t_lo : index
    %head = arith.addi %head_base, %g0 : index
    scf.if %has_rows {
      %qv = tile.alloc valid(%n_rows, %head_dim) : !tile.tile<vec, 32x128xbf16, valid = ?x?>
      tile.load %qv, %q[%req, %s, %head, %c0] : !tile.tile<vec, 32x128xbf16, valid = ?x?>, memref<?x?x?x?xbf16>
      tile.store %ws_q[%blk, %lo_r, %c0], %qv : memref<?x32x128xbf16>, !tile.tile<vec, 32x128xbf16, valid = ?x?>
    }
  }
  %qm = tile.alloc valid(%rows, %head_dim) : !tile.tile<mat, 32x128xbf16, valid = ?x?>
  tile.load %qm, %ws_q[%blk, %c0, %c0] : !tile.tile<mat, 32x128xbf16, valid = ?x?>, memref<?x32x128xbf16>
  %ql = tile.alloc valid(%rows, %head_dim) : !tile.tile<left, 32x128xbf16, valid = ?x?>
  tile.mov %ql, %qm : !tile.tile<left, 32x128xbf16, valid = ?x?>, !tile.tile<mat, 32x128xbf16, valid = ?x?>

  // The running softmax state of the core's rows, in UB for the whole
  // range: o [vrows x head_dim], and per row the max m and the sum l
  // ([vrows x 1]; element-wise updates see them as one row of 32).
  %o = tile.alloc valid(%vrows, %head_dim) : !tile.tile<vec, 32x128xf32, valid = ?x?>
  %otmp = tile.alloc valid(%vrows, %head_dim) : !tile.tile<vec, 32x128xf32, valid = ?x?>
  %m = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %l = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %m_row = tile.reshape %m : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
  %l_row = tile.reshape %l : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
  tile.expands %o, %zero : !tile.tile<vec, 32x128xf32, valid = ?x?>, f32
  tile.expands %m_row, %lowest : !tile.tile<vec, 1x32xf32>, f32
  tile.expands %l_row, %zero : !tile.tile<vec, 1x32xf32>, f32

  // Each row's visible positions: its mask range (wsp.mask_range: causal
  // among the new tokens, which follow the prior = kv_len - q_len cached
  // ones) cut to the descriptor's [kv_start, kv_end). A tile inside every
  // row's range needs no mask: [largest lo, smallest hi) = [the last
  // token's lo, the first token's hi).
  %lo_t = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %hi_t = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %prior = arith.subi %kv_len, %q_len : index
  scf.for %r = %c0 to %vrows step %c1 {
    %row = arith.addi %vr0, %r : index
    %s = arith.divui %row, %group : index
    %pos = arith.addi %prior, %s : index
    %mask_lo, %mask_hi = wsp.mask_range standard query(%s) pos(%pos) prior(%prior) : index, index
    %lo = arith.maxui %kv_start, %mask_lo : index
    %hi = arith.minui %kv_end, %mask_hi : index
    %lo_i32 = arith.index_cast %lo : index to i32
    %lo_f = arith.sitofp %lo_i32 : i32 to f32
    %hi_i32 = arith.index_cast %hi : index to i32
    %hi_f = arith.sitofp %hi_i32 : i32 to f32
    tile.setval %lo_t[%r, %c0], %lo_f : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, f32
    tile.setval %hi_t[%r, %c0], %hi_f : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, f32
  }
  %last_token = arith.subi %q_len, %c1 : index
  %last_pos = arith.addi %prior, %last_token : index
  %lo_last, %hi_last = wsp.mask_range standard query(%last_token) pos(%last_pos) prior(%prior) : index, index
  %lo_max = arith.maxui %kv_start, %lo_last : index
  %lo_first, %hi_first = wsp.mask_range standard query(%c0) pos(%prior) prior(%prior) : index, index
  %hi_min = arith.minui %kv_end, %hi_first : index

  // KV tiles of TILE_K positions from the multiple of TILE_K at or before
  // kv_start, software-pipelined over three stages so that the K/V loads,
  // the cube and the vector core work on different tiles at once.
  // Iteration j of the loop runs, in this order:
  //   A. vector: the softmax of tile j - 1 (its S from the workspace, its P
  //      to the workspace), and o scaled to the new row maximum;
  //   B. cube: S = Q K^T of tile j (K pages into double-buffered L1 tiles);
  //   C. vector: o += alpha O_t of tile j - 2 (its P V from the workspace,
  //      brought to the maximum A just set);
  //   D. cube: O_t = P V of tile j - 1 (V pages double-buffered in L1).
  // Each workspace then has one reader between two writes, and the cube
  // loads K and V of one tile while the vector core runs the softmax of
  // the one before. Iterations 0, T and T + 1 (T tiles) fill and drain the
  // pipeline.
  %w_first_q = arith.divui %kv_start, %tile_k : index
  %w_first = arith.muli %w_first_q, %tile_k : index
  %span = arith.subi %kv_end, %w_first : index
  %num_tiles = arith.ceildivui %span, %tile_k : index
  %num_steps = arith.addi %num_tiles, %c2 : index
  %block_size = memref.dim %k_cache, %c2 : memref<?x?x?x?xbf16>
  // alpha = e^(m_old - m_new) of the last softmax, per row: C brings tile
  // j - 2's O_t to the maximum after tile j - 1 with it.
  %alpha = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %alpha_row = tile.reshape %alpha : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
  scf.for %j = %c0 to %num_steps step %c1 {
    // A. Vector, tile t = j - 1: the scaled, masked scores, then the online
    // softmax: m' = max(m, max_c s), alpha = e^(m - m'), p = e^(s - m'),
    // l' = l alpha + sum_c p, o' = o alpha.
    %a_t = arith.subi %j, %c1 : index
    %a_live = arith.cmpi ult, %a_t, %num_tiles : index
    scf.if %a_live {
      %t_off = arith.muli %a_t, %tile_k : index
      %w = arith.addi %w_first, %t_off : index
      %left = arith.subi %kv_end, %w : index
      %n = arith.minui %tile_k, %left : index
      %w_end = arith.addi %w, %n : index
      %sv = tile.alloc shape(%tile_k) valid(%vrows, %n) : !tile.tile<vec, 32x?xf32, valid = ?x?>
      %tmp = tile.alloc shape(%tile_k) valid(%vrows, %n) : !tile.tile<vec, 32x?xf32, valid = ?x?>
      tile.load %sv, %ws_s[%blk, %vr0, %c0] : !tile.tile<vec, 32x?xf32, valid = ?x?>, memref<?x32x128xf32>
      tile.muls %sv, %sv, %scale : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
      %cut_lo = arith.cmpi ult, %w, %lo_max : index
      %cut_hi = arith.cmpi ugt, %w_end, %hi_min : index
      %masked = arith.ori %cut_lo, %cut_hi : i1
      scf.if %masked {
        // bias = 0 where lo <= p < hi, else the lowest float, for p = w + c:
        // visible = clamp(min(hi - p, p - lo + 1), 0, 1).
        %w_i32 = arith.index_cast %w : index to i32
        %pos_i = tile.alloc shape(%tile_k) valid(%n) : !tile.tile<vec, 1x?xi32, valid = 1x?>
        %pos = tile.alloc shape(%tile_k) valid(%n) : !tile.tile<vec, 1x?xf32, valid = 1x?>
        tile.ci %pos_i, %w_i32 : !tile.tile<vec, 1x?xi32, valid = 1x?>, i32
        tile.cvt %pos, %pos_i : !tile.tile<vec, 1x?xf32, valid = 1x?>, !tile.tile<vec, 1x?xi32, valid = 1x?>
        %to_hi = tile.alloc shape(%tile_k) valid(%vrows, %n) : !tile.tile<vec, 32x?xf32, valid = ?x?>
        %from_lo = tile.alloc shape(%tile_k) valid(%vrows, %n) : !tile.tile<vec, 32x?xf32, valid = ?x?>
        tile.rowexpand %to_hi, %hi_t : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
        tile.colexpandsub %to_hi, %to_hi, %pos : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 1x?xf32, valid = 1x?>
        tile.rowexpand %from_lo, %lo_t : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
        tile.colexpandsub %from_lo, %from_lo, %pos : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 1x?xf32, valid = 1x?>
        tile.muls %from_lo, %from_lo, %minus_one : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.adds %from_lo, %from_lo, %one : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.min %to_hi, %to_hi, %from_lo : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
        tile.mins %to_hi, %to_hi, %one : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.maxs %to_hi, %to_hi, %zero : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.adds %to_hi, %to_hi, %minus_one : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.muls %to_hi, %to_hi, %largest : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.add %sv, %sv, %to_hi : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      }
      %mt = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
      %mt_row = tile.reshape %mt : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
      tile.rowmax %mt, %sv, %tmp : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      tile.max %mt_row, %mt_row, %m_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.sub %alpha_row, %m_row, %mt_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.exp %alpha_row, %alpha_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.adds %m_row, %mt_row, %zero : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, f32
      tile.rowexpandsub %sv, %sv, %mt, %tmp : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      tile.exp %sv, %sv : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      %lt = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
      %lt_row = tile.reshape %lt : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
      tile.rowsum %lt, %sv, %tmp : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      tile.mul %l_row, %l_row, %alpha_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.add %l_row, %l_row, %lt_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      %pb = tile.alloc shape(%tile_k) valid(%vrows, %n) : !tile.tile<vec, 32x?xbf16, valid = ?x?>
      tile.cvt %pb, %sv : !tile.tile<vec, 32x?xbf16, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      tile.store %ws_p[%blk, %vr0, %c0], %pb : memref<?x32x128xbf16>, !tile.tile<vec, 32x?xbf16, valid = ?x?>
      tile.rowexpandmul %o, %o, %alpha, %otmp : !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x128xf32, valid = ?x?>
    } else {
      // No softmax ran: C adds tile j - 2's O_t as it is.
      tile.expands %alpha_row, %one : !tile.tile<vec, 1x32xf32>, f32
    }

    // B. Cube, tile j: S = Q K^T, one page at a time (a KV tile spans pages
    // when the page is smaller than TILE_K): K^T of the page's positions
    // into L1 (two copies, alternating by tile), its columns of S to the
    // workspace.
    %b_live = arith.cmpi ult, %j, %num_tiles : index
    scf.if %b_live {
      %j_off = arith.muli %j, %tile_k : index
      %w = arith.addi %w_first, %j_off : index
      %left = arith.subi %kv_end, %w : index
      %n = arith.minui %tile_k, %left : index
      %w_end = arith.addi %w, %n : index
      scf.for %p = %w to %w_end step %block_size {
        %p_page = arith.divui %p, %block_size : index
        %p_next_page = arith.addi %p_page, %c1 : index
        %p_page_end = arith.muli %p_next_page, %block_size : index
        %p_end = arith.minui %p_page_end, %w_end : index
        %seg = arith.subi %p_end, %p : index
        %col = arith.subi %p, %w : index
        %kt = tile.alloc shape(%tile_k) valid(%head_dim, %seg) slot(%j) buffers(2) : !tile.tile<mat, 128x?xbf16, valid = ?x?, zn>
        tile.load_paged %kt, %k_cache[%kv_head], %block_table[%kv_id], %p transpose : !tile.tile<mat, 128x?xbf16, valid = ?x?, zn>, memref<?x?x?x?xbf16>, memref<?x?xi32>
        %kr = tile.alloc shape(%tile_k) valid(%head_dim, %seg) : !tile.tile<right, 128x?xbf16, valid = ?x?>
        tile.mov %kr, %kt : !tile.tile<right, 128x?xbf16, valid = ?x?>, !tile.tile<mat, 128x?xbf16, valid = ?x?, zn>
        %sa = tile.alloc shape(%tile_k) valid(%rows, %seg) : !tile.tile<acc, 32x?xf32, valid = ?x?>
        tile.matmul %sa, %ql, %kr : !tile.tile<acc, 32x?xf32, valid = ?x?>, !tile.tile<left, 32x128xbf16, valid = ?x?>, !tile.tile<right, 128x?xbf16, valid = ?x?>
        tile.store %ws_s[%blk, %c0, %col], %sa : memref<?x32x128xf32>, !tile.tile<acc, 32x?xf32, valid = ?x?>
      }
    }

    // C. Vector, tile j - 2: o += alpha O_t.
    %c_live = arith.cmpi uge, %j, %c2 : index
    scf.if %c_live {
      %ot = tile.alloc valid(%vrows, %head_dim) : !tile.tile<vec, 32x128xf32, valid = ?x?>
      tile.load %ot, %ws_o[%blk, %vr0, %c0] : !tile.tile<vec, 32x128xf32, valid = ?x?>, memref<?x32x128xf32>
      tile.rowexpandmul %ot, %ot, %alpha, %otmp : !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x128xf32, valid = ?x?>
      tile.add %o, %o, %ot : !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>
    }

    // D. Cube, tile j - 1: O_t = P V, one page at a time: V of the page's
    // positions into L1 (two copies), the matching columns of P from L1
    // into L0A, accumulated in L0C. P is loaded after the first V page, so
    // that the V loads do not queue behind the softmax.
    scf.if %a_live {
      %t_off = arith.muli %a_t, %tile_k : index
      %w = arith.addi %w_first, %t_off : index
      %left = arith.subi %kv_end, %w : index
      %n = arith.minui %tile_k, %left : index
      %w_end = arith.addi %w, %n : index
      %pm = tile.alloc shape(%tile_k) valid(%rows, %n) slot(%j) buffers(2) : !tile.tile<mat, 32x?xbf16, valid = ?x?>
      %oa = tile.alloc valid(%rows, %head_dim) : !tile.tile<acc, 32x128xf32, valid = ?x?>
      scf.for %p = %w to %w_end step %block_size {
        %p_page = arith.divui %p, %block_size : index
        %p_next_page = arith.addi %p_page, %c1 : index
        %p_page_end = arith.muli %p_next_page, %block_size : index
        %p_end = arith.minui %p_page_end, %w_end : index
        %seg = arith.subi %p_end, %p : index
        %col = arith.subi %p, %w : index
        %vm = tile.alloc shape(%tile_k) valid(%seg, %head_dim) slot(%j) buffers(2) : !tile.tile<mat, ?x128xbf16, valid = ?x?>
        tile.load_paged %vm, %v_cache[%kv_head], %block_table[%kv_id], %p : !tile.tile<mat, ?x128xbf16, valid = ?x?>, memref<?x?x?x?xbf16>, memref<?x?xi32>
        %first_page = arith.cmpi eq, %p, %w : index
        scf.if %first_page {
          tile.load %pm, %ws_p[%blk, %c0, %c0] : !tile.tile<mat, 32x?xbf16, valid = ?x?>, memref<?x32x128xbf16>
        }
        %vr = tile.alloc shape(%tile_k) valid(%seg, %head_dim) : !tile.tile<right, ?x128xbf16, valid = ?x?>
        tile.mov %vr, %vm : !tile.tile<right, ?x128xbf16, valid = ?x?>, !tile.tile<mat, ?x128xbf16, valid = ?x?>
        %pl = tile.alloc shape(%tile_k) valid(%rows, %seg) : !tile.tile<left, 32x?xbf16, valid = ?x?>
        tile.extract %pl, %pm[%c0, %col] : !tile.tile<left, 32x?xbf16, valid = ?x?>, !tile.tile<mat, 32x?xbf16, valid = ?x?>
        scf.if %first_page {
          tile.matmul %oa, %pl, %vr : !tile.tile<acc, 32x128xf32, valid = ?x?>, !tile.tile<left, 32x?xbf16, valid = ?x?>, !tile.tile<right, ?x128xbf16, valid = ?x?>
        } else {
          tile.matmul_acc %oa, %pl, %vr : !tile.tile<acc, 32x128xf32, valid = ?x?>, !tile.tile<left, 32x?xbf16, valid = ?x?>, !tile.tile<right, ?x128xbf16, valid = ?x?>
        }
      }
      tile.store %ws_o[%blk, %c0, %c0], %oa : memref<?x32x128xf32>, !tile.tile<acc, 32x128xf32, valid = ?x?>
    }
  }
  scf.if %whole {
    // A whole row needs no merge: o / l, as bf16, one query token's group
    // of rows at a time.
    tile.rowexpanddiv %o, %o, %l, %otmp : !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x128xf32, valid = ?x?>
    %ob = tile.alloc valid(%vrows, %head_dim) : !tile.tile<vec, 32x128xbf16, valid = ?x?>
    tile.cvt %ob, %o : !tile.tile<vec, 32x128xbf16, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>
    scf.for %s = %c0 to %q_len step %c1 {
      // The rows of query token s that this vector core holds: [lo_r,
      // hi_r) of the group's, at row tr of its tiles, head g0 of the group.
      %t_lo = arith.muli %s, %group : index
      %t_hi = arith.addi %t_lo, %group : index
      %lo_r = arith.maxui %t_lo, %vr0 : index
      %hi_r = arith.minui %t_hi, %vr_end : index
      %has_rows = arith.cmpi ult, %lo_r, %hi_r : index
      %n_rows = arith.subi %hi_r, %lo_r : index
      %tr = arith.subi %lo_r, %vr0 : index
      %g0 = arith.subi %lo_r, %t_lo : index
      %head = arith.addi %head_base, %g0 : index
      scf.if %has_rows {
        %token = tile.subview %ob[%tr, %c0] valid(%n_rows, %head_dim) : !tile.tile<vec, 32x128xbf16, valid = ?x?> to !tile.tile<vec, 32x128xbf16, valid = ?x?>
        tile.store %out[%req, %s, %head, %c0], %token : memref<?x?x?x?xbf16>, !tile.tile<vec, 32x128xbf16, valid = ?x?>
      }
    }
  } else {
    // A piece of a split row: its state, rows in (token, head) order; this
    // vector core's from row vr0 = (token vr_s, head vr_g).
    %vr_s = arith.divui %vr0, %group : index
    %vr_g = arith.remui %vr0, %group : index
    tile.store %part_o[%slot, %vr_s, %vr_g, %c0], %o : memref<?x?x?x?xf32>, !tile.tile<vec, 32x128xf32, valid = ?x?>
    tile.store %part_m[%slot, %vr_s, %vr_g], %m transpose : memref<?x?x?xf32>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
    tile.store %part_l[%slot, %vr_s, %vr_g], %l transpose : memref<?x?x?xf32>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
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
  %lowest = arith.constant -3.40282347e+38 : f32

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
    %rows = arith.muli %q_len, %group : index
    %head_base = arith.muli %kv_head, %group : index

    // m = max over the pieces.
    %m = tile.alloc valid(%rows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
    %m_row = tile.reshape %m : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
    %mi = tile.alloc valid(%rows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
    %mi_row = tile.reshape %mi : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
    tile.expands %m_row, %lowest : !tile.tile<vec, 1x32xf32>, f32
    scf.for %i = %begin_slot to %slots_end step %c1 {
      tile.load %mi, %part_m[%i, %c0, %c0] transpose : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, memref<?x?x?xf32>
      tile.max %m_row, %m_row, %mi_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
    }
    // l and o weighted by w_i = e^(m_i - m).
    %l = tile.alloc valid(%rows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
    %l_row = tile.reshape %l : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
    %li = tile.alloc valid(%rows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
    %li_row = tile.reshape %li : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
    %o = tile.alloc valid(%rows, %head_dim) : !tile.tile<vec, 32x128xf32, valid = ?x?>
    %oi = tile.alloc valid(%rows, %head_dim) : !tile.tile<vec, 32x128xf32, valid = ?x?>
    %tmp = tile.alloc valid(%rows, %head_dim) : !tile.tile<vec, 32x128xf32, valid = ?x?>
    tile.expands %l_row, %zero : !tile.tile<vec, 1x32xf32>, f32
    tile.expands %o, %zero : !tile.tile<vec, 32x128xf32, valid = ?x?>, f32
    scf.for %i = %begin_slot to %slots_end step %c1 {
      tile.load %mi, %part_m[%i, %c0, %c0] transpose : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, memref<?x?x?xf32>
      tile.load %li, %part_l[%i, %c0, %c0] transpose : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, memref<?x?x?xf32>
      tile.load %oi, %part_o[%i, %c0, %c0, %c0] : !tile.tile<vec, 32x128xf32, valid = ?x?>, memref<?x?x?x?xf32>
      tile.sub %mi_row, %mi_row, %m_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.exp %mi_row, %mi_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.mul %li_row, %li_row, %mi_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.add %l_row, %l_row, %li_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.rowexpandmul %oi, %oi, %mi, %tmp : !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x128xf32, valid = ?x?>
      tile.add %o, %o, %oi : !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>
    }
    tile.rowexpanddiv %o, %o, %l, %tmp : !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x128xf32, valid = ?x?>
    %ob = tile.alloc valid(%rows, %head_dim) : !tile.tile<vec, 32x128xbf16, valid = ?x?>
    tile.cvt %ob, %o : !tile.tile<vec, 32x128xbf16, valid = ?x?>, !tile.tile<vec, 32x128xf32, valid = ?x?>
    scf.for %s = %c0 to %q_len step %c1 {
      %r0 = arith.muli %s, %group : index
      %token = tile.subview %ob[%r0, %c0] valid(%group, %head_dim) : !tile.tile<vec, 32x128xbf16, valid = ?x?> to !tile.tile<vec, 32x128xbf16, valid = ?x?>
      tile.store %out[%req, %s, %head_base, %c0], %token : memref<?x?x?x?xbf16>, !tile.tile<vec, 32x128xbf16, valid = ?x?>
    }
  }
  wsp.return
}
