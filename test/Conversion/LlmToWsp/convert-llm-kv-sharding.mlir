// convert-llm-kv-sharding: a KV-sharded decode attention becomes the
// rank's program (seed 003): the query heads of every rank gathered (an
// all_gather along the heads, or one all_to_all of the rows each rank
// attends), the attention of the rank's requests [r c, min(B, (r + 1) c))
// with every head against its own pool, the chunk planned for the whole
// batch (plan_kv_lens), the outputs gathered along the batch and the rank's
// heads sliced out. Its buffers come from one workspace argument, checked
// at run time with accum_q_len.
// RUN: wsp-opt %s --convert-llm-kv-sharding --canonicalize | FileCheck %s

shard.grid @kvdp(shape = 4)

// Arguments: q %arg0, kv_lens %arg2, out %arg8, then the workspace.
// CHECK-LABEL: func.func @gathered(
// CHECK-SAME: %[[Q:arg0]]: memref<?x1x2x64xbf16>
// CHECK-SAME: %[[KV_LENS:arg2]]: memref<?xi32>
// CHECK-SAME: %[[OUT:arg8]]: memref<?x1x2x64xbf16>, %[[WS:arg9]]: memref<?xbf16> {llm.workspace = "gathered_kv_sharding"}, %[[ACCUM_WS:arg10]]: memref<?xi32> {llm.workspace = "gathered_kv_sharding_accum"})
// The rank's requests: c = ceil(B / 4) from r c.
// CHECK: %[[RANK:.*]] = shard.process_linear_index on @kvdp : index
// CHECK: %[[B:.*]] = memref.dim %[[KV_LENS]], %c0
// CHECK: %[[C:.*]] = arith.ceildivui %[[B]], %c4
// CHECK: %[[START:.*]] = arith.muli %[[RANK]], %[[C]]
// CHECK: %[[B0:.*]] = arith.minui %[[START]], %[[B]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[B]], %[[B0]]
// CHECK: %[[COUNT:.*]] = arith.minui %[[C]], %[[LEFT]]
// The workspace holds B + 5 c requests of 1 x 8 x 64 values.
// CHECK: %[[NEED:.*]] = arith.muli %{{.*}}, %c512
// CHECK: %[[HAVE:.*]] = memref.dim %[[WS]], %c0
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %[[NEED]], %[[HAVE]]
// CHECK: %[[READY:.*]] = arith.select %{{.*}}, %c0_i32, %c3_i32 : i32
// CHECK: %[[Q_ALL:.*]] = memref.expand_shape %{{.*}} output_shape [%[[B]], 1, 8, 64]
// CHECK: wsp.all_gather %[[Q]] into %{{.*}} on @kvdp gather_axis = 2 after(%[[READY]]) : memref<?x1x2x64xbf16> into memref<?x1x8x64xbf16
// CHECK: %[[Q_MINE:.*]] = memref.subview %[[Q_ALL]][%[[B0]], 0, 0, 0] [%[[COUNT]], 1, 8, 64]
// CHECK: %[[O_MINE:.*]] = memref.expand_shape %{{.*}} output_shape [%[[C]], 1, 8, 64]
// CHECK: %[[O_ALL:.*]] = memref.expand_shape %{{.*}} output_shape [%{{.*}}, 1, 8, 64]
// The rank's accum_q_len: 0, 1, ..., count, in its workspace (global
// memory: an argument of the attention's kernels).
// CHECK: memref.subview %[[ACCUM_WS]][0] [%{{.*}}] [1]
// CHECK: %[[O_ROWS:.*]] = memref.subview %[[O_MINE]][0, 0, 0, 0] [%[[COUNT]], 1, 8, 64]
// CHECK: llm.flash_attention_decode q(%[[Q_MINE]] : {{.*}}) kv_ids({{.*}}) kv_lens({{.*}}) q_lens({{.*}}) accum_q_len({{.*}}) block_table({{.*}}) k_cache({{.*}}) v_cache({{.*}}) -> out(%[[O_ROWS]] : {{.*}}) plan_kv_lens(%[[KV_LENS]] : memref<?xi32>) {q_seq_len = 1 : i32}
// CHECK: %[[GATHERED:.*]] = wsp.all_gather %[[O_MINE]] into %[[O_ALL]] on @kvdp gather_axis = 0 :
// CHECK: %[[ROWS:.*]] = memref.subview %[[O_ALL]][0, 0, 0, 0] [%[[B]], 1, 8, 64]
// CHECK: wsp.all_slice %[[ROWS]] into %[[OUT]] on @kvdp slice_axis = 2 after(%[[GATHERED]])
// CHECK-NOT: llm.flash_attention_decode
func.func @gathered(%q: memref<?x1x2x64xbf16>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
                    %q_lens: memref<?xi32>, %accum_q_len: memref<?xi32>,
                    %block_table: memref<?x?xi32>, %k_cache: memref<?x2x16x64xbf16>,
                    %v_cache: memref<?x2x16x64xbf16>, %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%kv_ids : memref<?xi32>)
      kv_lens(%kv_lens : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      accum_q_len(%accum_q_len : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @kvdp kv_sharding = kvdp {q_seq_len = 1 : i32}
  return
}

// On a rank group (KV data parallel along axis 1 of a 2 x 2 grid): the
// rank's index is its coordinate along the axis, and every collective
// runs on the group (grid_axes = [1]); the rest is the form above.
shard.grid @tp_kvdp(shape = 2x2)
// CHECK-LABEL: func.func @on_a_group(
// CHECK: %[[AT:.*]] = shard.process_multi_index on @tp_kvdp axes = [1] : index
// CHECK: arith.muli %[[AT]],
// CHECK: wsp.all_gather %{{.*}} into %{{.*}} on @tp_kvdp grid_axes = [1] gather_axis = 2 after(%{{.*}}) : memref<?x1x2x64xbf16> into memref<?x1x4x64xbf16
// CHECK: wsp.all_gather %{{.*}} into %{{.*}} on @tp_kvdp grid_axes = [1] gather_axis = 0 :
// CHECK: wsp.all_slice %{{.*}} into %{{.*}} on @tp_kvdp grid_axes = [1] slice_axis = 2 after(
// CHECK-NOT: process_linear_index
// CHECK-NOT: llm.flash_attention_decode
func.func @on_a_group(%q: memref<?x1x2x64xbf16>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
                      %q_lens: memref<?xi32>, %accum_q_len: memref<?xi32>,
                      %block_table: memref<?x?xi32>, %k_cache: memref<?x2x16x64xbf16>,
                      %v_cache: memref<?x2x16x64xbf16>, %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%kv_ids : memref<?xi32>)
      kv_lens(%kv_lens : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      accum_q_len(%accum_q_len : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @tp_kvdp grid_axes = [1] kv_sharding = kvdp
      {q_seq_len = 1 : i32}
  return
}

// kvdp_cp on [0, 1]: KV data parallel along axis 0 (the all_to_all form)
// around an attention of the rank's requests that is context parallel
// along axis 1 (the second round): the query heads of the rank's requests
// by all_to_all along axis 0, then gathered along axis 1; the states
// exchanged along axis 1; the outputs sent back along axis 0.
// CHECK-LABEL: func.func @kvdp_then_cp(
// CHECK-SAME: {llm.workspace = "kvdp_then_cp_kv_sharding"}
// CHECK-SAME: {llm.workspace = "kvdp_then_cp_kv_sharding_accum"}
// CHECK-SAME: {llm.workspace = "kvdp_then_cp_kv_sharding_2"}
// CHECK-SAME: {llm.workspace = "kvdp_then_cp_kv_sharding_state"}
// CHECK-SAME: {llm.workspace = "kvdp_then_cp_kv_sharding_lens"}
// CHECK: shard.process_multi_index on @tp_kvdp axes = [0] : index
// CHECK: wsp.all_to_all %{{.*}} on @tp_kvdp grid_axes = [0] split_axis = 0 concat_axis = 2 after(%{{.*}}) : memref<?x1x2x64xbf16{{.*}}> into memref<?x1x4x64xbf16
// CHECK: shard.process_multi_index on @tp_kvdp axes = [1] : index
// CHECK: wsp.all_gather %{{.*}} on @tp_kvdp grid_axes = [1] gather_axis = 2 after(%{{.*}}) : memref<?x1x4x64xbf16{{.*}}> into memref<?x1x8x64xbf16
// CHECK: llm.flash_attention_decode {{.*}} k_cache(%arg6 : memref<?x2x8x64xbf16>) {{.*}} visible_lens({{.*}} -> state_o(
// CHECK: wsp.all_to_all %{{.*}} on @tp_kvdp grid_axes = [1] split_axis = 2 concat_axis = 0
// CHECK: wsp.all_to_all %{{.*}} on @tp_kvdp grid_axes = [0] split_axis = 2 concat_axis = 0 :
// CHECK-NOT: kv_sharding =
func.func @kvdp_then_cp(%q: memref<?x1x2x64xbf16>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
                        %q_lens: memref<?xi32>, %accum_q_len: memref<?xi32>,
                        %block_table: memref<?x?xi32>, %k_cache: memref<?x2x8x64xbf16>,
                        %v_cache: memref<?x2x8x64xbf16>, %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%kv_ids : memref<?xi32>)
      kv_lens(%kv_lens : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      accum_q_len(%accum_q_len : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x8x64xbf16>) v_cache(%v_cache : memref<?x2x8x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @tp_kvdp grid_axes = [0, 1] kv_sharding = kvdp_cp
      {q_seq_len = 1 : i32}
  return
}

// With kvdp_all_to_all, q is copied into rows padded to 4 c (when the
// workspace fits) and one all_to_all sends rank r its requests' rows:
// [4 c, 1, 2, 64] cut along the batch, received along the heads; the
// outputs go back the other way ([c, 1, 8, 64] cut along the heads,
// received along the batch), and out is their first B rows, copied when
// the exchange succeeded: each rank sends only what another needs.
// CHECK-LABEL: func.func @exchanged(
// CHECK-SAME: %[[Q:arg0]]: memref<?x1x2x64xbf16>
// CHECK: %[[PADDED:.*]] = memref.expand_shape %{{.*}} output_shape [%{{.*}}, 1, 2, 64]
// CHECK: %[[MINE:.*]] = memref.expand_shape %{{.*}} output_shape [%{{.*}}, 1, 8, 64]
// CHECK: scf.if %{{.*}} {
// CHECK: memref.copy %[[Q]], %{{.*}} : memref<?x1x2x64xbf16> to memref<?x1x2x64xbf16
// CHECK: }
// CHECK: wsp.all_to_all %{{.*}} into %[[MINE]] on @kvdp split_axis = 0 concat_axis = 2 after(%{{.*}}) : memref<?x1x2x64xbf16{{.*}}> into memref<?x1x8x64xbf16
// CHECK: llm.flash_attention_decode
// CHECK: %[[BACK:.*]] = wsp.all_to_all %{{.*}} into %{{.*}} on @kvdp split_axis = 2 concat_axis = 0 : memref<?x1x8x64xbf16{{.*}}> into memref<?x1x2x64xbf16
// CHECK: %[[GO:.*]] = arith.cmpi eq, %[[BACK]], %{{.*}} : i32
// CHECK: scf.if %[[GO]] {
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<?x1x2x64xbf16{{.*}}> to memref<?x1x2x64xbf16>
// CHECK-NOT: wsp.all_gather
// CHECK-NOT: wsp.all_slice
func.func @exchanged(%q: memref<?x1x2x64xbf16>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
                     %q_lens: memref<?xi32>, %accum_q_len: memref<?xi32>,
                     %block_table: memref<?x?xi32>, %k_cache: memref<?x2x16x64xbf16>,
                     %v_cache: memref<?x2x16x64xbf16>, %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%kv_ids : memref<?xi32>)
      kv_lens(%kv_lens : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      accum_q_len(%accum_q_len : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @kvdp kv_sharding = kvdp_all_to_all {q_seq_len = 1 : i32}
  return
}

// Context parallelism: every q head gathered; the rank attends every
// request over its part of each page (positions [4 r, 4 r + 4) of 16:
// visible_lens from kv_lens), into softmax states (m prefilled with the
// lowest float for rows it holds nothing of); one all_to_all per state part
// sends each rank its heads' states; they merge in rank order once every
// exchange succeeded.
// CHECK-LABEL: func.func @sequence(
// CHECK-SAME: %[[KV_LENS:arg2]]: memref<?xi32>
// CHECK-SAME: %[[OUT:arg8]]: memref<?x1x2x64xbf16>, %{{.*}}: memref<?xbf16> {llm.workspace = "sequence_kv_sharding"}, %{{.*}}: memref<?xf32> {llm.workspace = "sequence_kv_sharding_state"}, %[[LENS:arg11]]: memref<?xi32> {llm.workspace = "sequence_kv_sharding_lens"})
// CHECK: %[[RANK:.*]] = shard.process_linear_index on @kvdp : index
// CHECK: wsp.all_gather %arg0 into %[[Q_ALL:.*]] on @kvdp gather_axis = 2 after(%{{.*}})
// The rank's positions seen by each token, L_r(kv_lens + s + 1), in the
// i32 workspace (global memory: the kernels read it).
// CHECK: %[[VIS:.*]] = memref.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [%{{.*}}, 1] : memref<?xi32, strided<[1]>> into memref<?x1xi32>
// CHECK: memref.load %[[KV_LENS]][
// CHECK: arith.divsi %{{.*}}, %c16
// CHECK: arith.remsi %{{.*}}, %c16
// CHECK: arith.muli %[[RANK]], %c4
// CHECK: memref.store %{{.*}}, %[[VIS]][
// CHECK: llm.flash_attention_decode q(%[[Q_ALL]] : {{.*}}) {{.*}} visible_lens(%{{.*}} : memref<?x1xi32{{.*}}>) -> state_o(%[[SO:[^ ]*]] : {{.*}}) state_m(%[[SM:[^ ]*]] : {{.*}}) state_l(%[[SL:[^ ]*]] : {{.*}}) {q_seq_len = 1 : i32}
// Each row's state as o / l and one log-sum-exp, m + log l (the least to
// send), where the workspace fits.
// CHECK: scf.if
// CHECK: memref.load %[[SM]][
// CHECK: memref.load %[[SL]][
// CHECK: math.log
// CHECK: memref.store %{{.*}}, %[[LSE:[^ ]*]][
// CHECK: arith.divf
// CHECK: memref.store
// CHECK: wsp.all_to_all %[[SO]] into %[[RO:.*]] on @kvdp split_axis = 2 concat_axis = 0 : memref<?x1x8x64xf32{{.*}}> into memref<?x1x2x64xf32
// CHECK: %[[LAST:.*]] = wsp.all_to_all %[[LSE]] into %[[RL:.*]] on @kvdp split_axis = 2 concat_axis = 0 : memref<?x1x8x1xf32{{.*}}> into memref<?x1x2x1xf32
// CHECK: %[[GO:.*]] = arith.cmpi eq, %[[LAST]], %c0_i32
// CHECK: scf.if %[[GO]] {
// The largest log-sum-exp over the ranks, then the weighted sums.
// CHECK: arith.cmpf ogt
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}}, %[[OUT]][
// CHECK-NOT: llm.flash_attention_decode
func.func @sequence(%q: memref<?x1x2x64xbf16>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
                    %q_lens: memref<?xi32>, %accum_q_len: memref<?xi32>,
                    %block_table: memref<?x?xi32>, %k_cache: memref<?x2x4x64xbf16>,
                    %v_cache: memref<?x2x4x64xbf16>, %out: memref<?x1x2x64xbf16>) {
  llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>) kv_ids(%kv_ids : memref<?xi32>)
      kv_lens(%kv_lens : memref<?xi32>) q_lens(%q_lens : memref<?xi32>)
      accum_q_len(%accum_q_len : memref<?xi32>) block_table(%block_table : memref<?x?xi32>)
      k_cache(%k_cache : memref<?x2x4x64xbf16>) v_cache(%v_cache : memref<?x2x4x64xbf16>)
      -> out(%out : memref<?x1x2x64xbf16>) on @kvdp kv_sharding = cp {q_seq_len = 1 : i32}
  return
}

// A KV-data-parallel store: the rank's requests (c = ceil(B / 4) from r c)
// and their tokens, packed by q_lens: the sum of the q_lens before the
// rank's first request, the sum of its own, checked to lie inside the
// tokens (else no tokens: the rank's store refuses its requests). K and V
// are head ranges of the packed QKV: the rank takes those rows of the QKV,
// then the same heads.
// CHECK-LABEL: func.func @store(
// CHECK: %[[RANK:.*]] = shard.process_linear_index on @kvdp : index
// CHECK: %[[B:.*]] = memref.dim %arg2, %c0
// CHECK: %[[C:.*]] = arith.ceildivui %[[B]], %c4
// CHECK: %[[SUMS:.*]]:3 = scf.for {{.*}} iter_args(
// CHECK: %[[FROM:.*]] = arith.select %{{.*}}, %{{.*}}, %c0 : index
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %{{.*}}, %c0 : index
// CHECK: %[[ROWS:.*]] = memref.subview %arg0[%[[FROM]], 0, 0] [%[[N]], 6, 64] [1, 1, 1]
// CHECK: %[[KEY:.*]] = memref.subview %[[ROWS]][0, 4, 0] [%[[N]], 1, 64] [1, 1, 1]
// CHECK: %[[VROWS:.*]] = memref.subview %arg0[%[[FROM]], 0, 0] [%[[N]], 6, 64] [1, 1, 1]
// CHECK: %[[VALUE:.*]] = memref.subview %[[VROWS]][0, 5, 0] [%[[N]], 1, 64] [1, 1, 1]
// CHECK: llm.store_paged_kv_cache key(%[[KEY]] : {{.*}}) value(%[[VALUE]] : {{.*}}) block_table(%arg1 : memref<?x?xi32>) kv_ids(%{{.*}}) q_lens(%{{.*}}) kv_lens(%{{.*}}) -> k_cache(%arg5 : {{.*}}) v_cache(%arg6 : {{.*}}) {max_q_len = 64 : i32}
// CHECK-NOT: on @kvdp
func.func @store(%qkv: memref<?x6x64xbf16>, %table: memref<?x?xi32>,
                 %q_lens: memref<?xi32>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
                 %k: memref<?x1x16x64xbf16>, %v: memref<?x1x16x64xbf16>) {
  %c0 = arith.constant 0 : index
  %t = memref.dim %qkv, %c0 : memref<?x6x64xbf16>
  %key = memref.subview %qkv[0, 4, 0] [%t, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>
  %value = memref.subview %qkv[0, 5, 0] [%t, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>)
      value(%value : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>)
      block_table(%table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k : memref<?x1x16x64xbf16>) v_cache(%v : memref<?x1x16x64xbf16>)
      on @kvdp kv_sharding = kvdp {max_q_len = 64 : i32}
  return
}

// A context-parallel store: rank r holds the runs of positions [k bs,
// (k + 1) bs) with k mod N = r (bs = 16, N = 4 here), so each request's
// tokens it holds are runs of consecutive tokens at consecutive local
// positions. One pass checks every request and counts the runs; the next
// writes a row per run (kv_id, length, local start, first token) into the
// i32 workspace, and the plain store takes the packed tokens (the QKV's
// head range as it is) with those rows as accum_q_len. A failed check
// gives the store a refusal of its own (length -1).
// CHECK-LABEL: func.func @store_seq(
// CHECK-SAME: %[[WS:arg7]]: memref<?xi32> {llm.workspace = "store_seq_kv_sharding_store"})
// CHECK: %[[KEY:.*]] = memref.subview %arg0[0, 4, 0]
// CHECK: %[[RANK:.*]] = shard.process_linear_index on @kvdp : index
// CHECK: %[[SURVEY:.*]]:3 = scf.for
// CHECK:   arith.addi %[[RANK]], %c4 : index
// CHECK:   arith.remui %{{.*}}, %c4 : index
// CHECK: %[[REFUSAL:.*]] = memref.alloca() : memref<5xi32>
// CHECK: memref.store %c-1_i32, %[[REFUSAL]]
// CHECK: %[[ROWS:.*]]:4 = scf.if
// CHECK:   memref.subview %[[WS]]
// CHECK:   scf.for
// CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// CHECK:       arith.muli %[[RANK]], %c16 : index
// CHECK: } else {
// CHECK:   memref.subview %[[REFUSAL]]
// CHECK: llm.store_paged_kv_cache key(%[[KEY]] : {{.*}}) {{.*}} kv_ids(%[[ROWS]]#0 : {{.*}}) q_lens(%[[ROWS]]#1 : {{.*}}) kv_lens(%[[ROWS]]#2 : {{.*}}) accum_q_len(%[[ROWS]]#3 : {{.*}}) -> k_cache(%arg5 : memref<?x1x16x64xbf16>)
// CHECK-NOT: on @kvdp
func.func @store_seq(%qkv: memref<?x6x64xbf16>, %table: memref<?x?xi32>,
                     %q_lens: memref<?xi32>, %kv_ids: memref<?xi32>, %kv_lens: memref<?xi32>,
                     %k: memref<?x1x16x64xbf16>, %v: memref<?x1x16x64xbf16>) {
  %c0 = arith.constant 0 : index
  %t = memref.dim %qkv, %c0 : memref<?x6x64xbf16>
  %key = memref.subview %qkv[0, 4, 0] [%t, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>
  %value = memref.subview %qkv[0, 5, 0] [%t, 1, 64] [1, 1, 1]
      : memref<?x6x64xbf16> to memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>
  llm.store_paged_kv_cache key(%key : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 256>>)
      value(%value : memref<?x1x64xbf16, strided<[384, 64, 1], offset: 320>>)
      block_table(%table : memref<?x?xi32>) kv_ids(%kv_ids : memref<?xi32>)
      q_lens(%q_lens : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
      -> k_cache(%k : memref<?x1x16x64xbf16>) v_cache(%v : memref<?x1x16x64xbf16>)
      on @kvdp kv_sharding = cp {max_q_len = 1 : i32}
  return
}

// A sharded op in an scf.if branch the user wrote (here, whether the step
// attends at all) becomes the rank's program there; convert-llm-to-wsp
// then chains its status out of the branch.
// CHECK-LABEL: func.func @in_branch(
// CHECK: scf.if %{{.*}} {
// CHECK: wsp.all_gather
// CHECK: llm.flash_attention_decode
// CHECK: wsp.all_slice
// CHECK: }
// CHECK-NEXT: return
func.func @in_branch(%q: memref<?x1x2x64xbf16>, %kv_ids: memref<?xi32>,
                     %kv_lens: memref<?xi32>, %q_lens: memref<?xi32>,
                     %accum_q_len: memref<?xi32>, %block_table: memref<?x?xi32>,
                     %k_cache: memref<?x2x16x64xbf16>,
                     %v_cache: memref<?x2x16x64xbf16>,
                     %out: memref<?x1x2x64xbf16>, %go: i1) {
  scf.if %go {
    llm.flash_attention_decode q(%q : memref<?x1x2x64xbf16>)
        kv_ids(%kv_ids : memref<?xi32>) kv_lens(%kv_lens : memref<?xi32>)
        q_lens(%q_lens : memref<?xi32>) accum_q_len(%accum_q_len : memref<?xi32>)
        block_table(%block_table : memref<?x?xi32>)
        k_cache(%k_cache : memref<?x2x16x64xbf16>) v_cache(%v_cache : memref<?x2x16x64xbf16>)
        -> out(%out : memref<?x1x2x64xbf16>) on @kvdp kv_sharding = kvdp {q_seq_len = 1 : i32}
  }
  return
}
