// Round trip of every wsp op, attribute and type, custom and generic form.
// RUN: wsp-opt %s | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | wsp-opt | FileCheck %s

wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
  #wsp.tier<2, [4097, 16384]>, #wsp.tier<3, [16385, 131072]>]

// == Types and attributes ==

// CHECK-LABEL: func.func @types
// CHECK-SAME: !wsp.descriptor<attention>
// CHECK-SAME: !wsp.descriptor<moe>
// CHECK-SAME: !wsp.descriptor<"rope", ["token", "position"]>
// CHECK-SAME: !wsp.space<batch: ?, head: 32, chunk: ?>
// CHECK-SAME: !wsp.space<?, 8>
// CHECK-SAME: !wsp.space<>
// CHECK-SAME: memref<?x!wsp.descriptor<attention>>
func.func @types(%a: !wsp.descriptor<attention>, %b: !wsp.descriptor<moe>,
                 %c: !wsp.descriptor<"rope", ["token", "position"]>,
                 %d: !wsp.space<batch: ?, head: 32, chunk: ?>,
                 %e: !wsp.space<?, 8>, %f: !wsp.space<>,
                 %g: memref<?x!wsp.descriptor<attention>>) {
  return
}

// CHECK-LABEL: func.func @attributes
// CHECK: pattern = #wsp.pattern<attention>
// CHECK-SAME: pattern2 = #wsp.pattern<"gemm", ["m", "n", "k"]>
// CHECK-SAME: plan = #wsp.plan_config<>
// CHECK-SAME: plan2 = #wsp.plan_config<chunk_min = 128, max_work_units = 8192, balance_chunks = false>
func.func @attributes() attributes {
    pattern = #wsp.pattern<attention>,
    pattern2 = #wsp.pattern<"gemm", ["m", "n", "k"]>,
    plan = #wsp.plan_config<>,
    plan2 = #wsp.plan_config<chunk_min = 128, max_work_units = 8192, balance_chunks = false>} {
  return
}

// == Iteration spaces ==

// CHECK-LABEL: func.func @spaces
func.func @spaces(%batch: index, %chunks: index, %i: index)
    -> (index, index, index, index, index) {
  // CHECK: %[[S:.*]] = wsp.space(%{{.*}}, %{{.*}}) : !wsp.space<batch: ?, head: 32, chunk: ?>
  %s = wsp.space(%batch, %chunks) : !wsp.space<batch: ?, head: 32, chunk: ?>
  // CHECK: %[[S1:.*]] = wsp.set_dim %[[S]][0] = %{{.*}} : !wsp.space<batch: ?, head: 32, chunk: ?>
  %s1 = wsp.set_dim %s[0] = %i : !wsp.space<batch: ?, head: 32, chunk: ?>
  // CHECK: wsp.get_dim %[[S1]][1] : !wsp.space<batch: ?, head: 32, chunk: ?>
  %h = wsp.get_dim %s1[1] : !wsp.space<batch: ?, head: 32, chunk: ?>
  // CHECK: wsp.total_work %[[S1]] : !wsp.space<batch: ?, head: 32, chunk: ?>
  %n = wsp.total_work %s1 : !wsp.space<batch: ?, head: 32, chunk: ?>
  // CHECK: wsp.index_to_coords %[[S1]][%{{.*}}] : !wsp.space<batch: ?, head: 32, chunk: ?>
  %b, %hh, %c = wsp.index_to_coords %s1[%i] : !wsp.space<batch: ?, head: 32, chunk: ?>
  return %h, %n, %b, %hh, %c : index, index, index, index, index
}

// == Tiers and planning ==

// CHECK-LABEL: func.func @planning
func.func @planning(%lens: memref<?xi32>, %batch: index, %heads: index,
                    %descs: memref<?x!wsp.descriptor<attention>>,
                    %moe: memref<?x!wsp.descriptor<moe>>, %len: i32)
    -> (i32, index, index, i32) {
  // CHECK: wsp.select_tier @DecodeAttentionTiers(%{{.*}}) : i32 -> i32
  %t = wsp.select_tier @DecodeAttentionTiers(%len) : i32 -> i32
  // CHECK: %[[C:.*]] = wsp.plan_chunk_size %{{.*}}[%{{.*}}] heads(%{{.*}}) config(#wsp.plan_config<max_work_units = 4096>) : memref<?xi32>
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<max_work_units = 4096>) : memref<?xi32>
  // CHECK: wsp.total_work_units %{{.*}}[%{{.*}}] heads(%{{.*}}) chunk(%[[C]]) : memref<?xi32>
  %cap = wsp.total_work_units %lens[%batch] heads(%heads) chunk(%chunk)
      : memref<?xi32>
  // CHECK: wsp.generate %{{.*}}[%{{.*}}] heads(%{{.*}}) chunk(%[[C]]) tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>) into %{{.*}} : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>)
      into %descs : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  // CHECK: wsp.generate {{.*}} into %{{.*}} : memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  %mcount, %mstatus = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@DecodeAttentionTiers) config(#wsp.plan_config<balance_chunks = false>)
      into %moe : memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  return %t, %cap, %count, %status : i32, index, index, i32
}

// CHECK-LABEL: func.func @update_plan(
func.func @update_plan(%lens: memref<?xi32>, %planned: memref<8xi32>,
                       %batch: index, %held: index, %heads: index,
                       %chunk: index,
                       %descs: memref<?x!wsp.descriptor<attention>>,
                       %moe: memref<?x!wsp.descriptor<moe>>)
    -> (i1, i1, i1, index) {
  // CHECK: %{{.*}}, %{{.*}} = wsp.update_plan %{{.*}}[%{{.*}}] from %{{.*}}[%{{.*}}] heads(%{{.*}}) chunk(%{{.*}}) tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>) into %{{.*}} : memref<?xi32>, memref<8xi32>, memref<?x!wsp.descriptor<attention>>
  %a, %n = wsp.update_plan %lens[%batch] from %planned[%held] heads(%heads)
      chunk(%chunk) tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>)
      into %descs
      : memref<?xi32>, memref<8xi32>, memref<?x!wsp.descriptor<attention>>
  // CHECK: wsp.update_plan {{.*}} heads(%{{.*}}) window(128) queries(%{{.*}}) chunk(%{{.*}}) searched tiers
  %w, %wn = wsp.update_plan %lens[%batch] from %planned[%held] heads(%heads)
      window(128) queries(%heads) chunk(%chunk) searched
      tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>) into %descs
      : memref<?xi32>, memref<8xi32>, memref<?x!wsp.descriptor<attention>>
  // CHECK: wsp.update_plan {{.*}} into %{{.*}} : memref<?xi32>, memref<8xi32>, memref<?x!wsp.descriptor<moe>>
  %m, %mn = wsp.update_plan %lens[%batch] from %planned[%held] heads(%heads)
      chunk(%chunk) tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<balance_chunks = false>) into %moe
      : memref<?xi32>, memref<8xi32>, memref<?x!wsp.descriptor<moe>>
  return %a, %w, %m, %n : i1, i1, i1, index
}

// == Kernels, accessors and dispatch ==

// CHECK-LABEL: wsp.kernel @k tiers(@DecodeAttentionTiers) constants {TILE_K = array<i64: 256, 512, 1024, 2048>} (%{{.*}}: !wsp.descriptor<attention>, %{{.*}}: memref<?xf32>)
wsp.kernel @k tiers(@DecodeAttentionTiers)
    constants {TILE_K = array<i64: 256, 512, 1024, 2048>}
    (%desc: !wsp.descriptor<attention>, %out: memref<?xf32>) {
  // CHECK: wsp.tier_id : index
  %tier = wsp.tier_id : index
  // CHECK: wsp.tier_constant "TILE_K" : index
  %tile = wsp.tier_constant "TILE_K" : index
  // CHECK: wsp.param %{{.*}}["kv_start"] : !wsp.descriptor<attention>
  %start = wsp.param %desc["kv_start"] : !wsp.descriptor<attention>
  // CHECK: wsp.kv_end %{{.*}} : !wsp.descriptor<attention>
  %end = wsp.kv_end %desc : !wsp.descriptor<attention>
  // CHECK: wsp.has_flag %{{.*}}, first : !wsp.descriptor<attention>
  %first = wsp.has_flag %desc, first : !wsp.descriptor<attention>
  // CHECK: wsp.work_id %{{.*}} : !wsp.descriptor<attention>
  %id = wsp.work_id %desc : !wsp.descriptor<attention>
  // CHECK: wsp.return
  wsp.return
}

// A kernel with no tier constants and an argument attribute.
// CHECK-LABEL: wsp.kernel @plain tiers(@DecodeAttentionTiers) (%{{.*}}: !wsp.descriptor<attention>, %{{.*}}: memref<?xf32> {wsp.note = "out"})
wsp.kernel @plain tiers(@DecodeAttentionTiers)
    (%desc: !wsp.descriptor<attention>, %out: memref<?xf32> {wsp.note = "out"}) {
  wsp.return
}

// CHECK-LABEL: func.func @dispatch
func.func @dispatch(%descs: memref<?x!wsp.descriptor<attention>>, %n: index,
                    %out: memref<?xf32>) {
  // CHECK: wsp.dispatch @k(%{{.*}} : memref<?xf32>) descriptors(%{{.*}}[%{{.*}}] : memref<?x!wsp.descriptor<attention>>) on vector(48)
  wsp.dispatch @k(%out : memref<?xf32>)
        descriptors(%descs[%n] : memref<?x!wsp.descriptor<attention>>) on vector(48)
  // CHECK: wsp.mpmd {
  // CHECK-NEXT: wsp.dispatch @k({{.*}}) on vector(32)
  // CHECK-NEXT: wsp.dispatch @plain({{.*}}) on vector(16)
  // CHECK-NEXT: wsp.dispatch @k({{.*}}) on cube(24)
  // CHECK-NEXT: }
  wsp.mpmd {
    wsp.dispatch @k(%out : memref<?xf32>)
        descriptors(%descs[%n] : memref<?x!wsp.descriptor<attention>>) on vector(32)
    wsp.dispatch @plain(%out : memref<?xf32>)
        descriptors(%descs[%n] : memref<?x!wsp.descriptor<attention>>) on vector(16)
    wsp.dispatch @k(%out : memref<?xf32>)
        descriptors(%descs[%n] : memref<?x!wsp.descriptor<attention>>) on cube(24)
  }
  return
}

// CHECK-LABEL: func.func @row_affine
// CHECK: wsp.dispatch @k(%{{.*}} : memref<?xf32>) descriptors(%{{.*}} : memref<?x!wsp.descriptor<attention>>) on vector(48) row_affine
func.func @row_affine(%descs: memref<?x!wsp.descriptor<attention>>, %n: index,
                      %out: memref<?xf32>) {
  wsp.dispatch @k(%out : memref<?xf32>)
      descriptors(%descs[%n] : memref<?x!wsp.descriptor<attention>>) on vector(48) row_affine
  return
}
