// convert-llm-to-wsp: each llm op becomes a planning sequence at the op and
// a tier configuration and tile kernel beside its function; the function
// returns the ops' PlanResult code.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s
// RUN: wsp-opt %s --convert-llm-to-wsp="vector-cores=16" | FileCheck %s --check-prefix=CORES
// The lowered module goes through the whole pipeline.
// RUN: wsp-opt %s --wsp-pipeline | FileCheck %s --check-prefix=PIPELINE

// CHECK: wsp.tier_config @two_norms_rms_norm_0_tiers [#wsp.tier<0, [1, 2147483647]>]
// CHECK: wsp.kernel @two_norms_rms_norm_0 tiers(@two_norms_rms_norm_0_tiers) (%[[D:.*]]: !wsp.descriptor<moe>, %[[X:.*]]: memref<?x4096xbf16>, %[[R:.*]]: memref<?x4096xbf16>, %[[W:.*]]: memref<4096xf32>, %[[Y:.*]]: memref<?x4096xbf16>, %[[A:.*]]: memref<?x4096xbf16>)
// hidden_size 4096 in column chunks of 1024, 8 token rows at a time.
// CHECK: arith.constant 1024 : index
// CHECK: wsp.param %[[D]]["token_start"]
// CHECK: wsp.param %[[D]]["token_count"]
// CHECK: tile.alloc valid(%{{.*}}) : !tile.tile<vec, 8x1024xbf16, valid = ?x1024>
// CHECK-DAG: %[[INV:.*]] = arith.constant 2.44140625E-4 : f32
// CHECK-DAG: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// Pass 1 reads x and the residual, sums the squares, checks the sums for
// overflow before it keeps them (a bit per row, read on the scalar unit),
// and writes after_res. From a chunk whose f32 sum overflows on, the
// tile's rows are summed scaled: the chunk read again in blocks of 128
// columns, once for its largest values, once for the sum.
// CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: %[[LIMIT:.*]] = arith.constant 4.2949673E+9 : f32
// CHECK: %[[BLOCK:.*]] = arith.constant 128 : index
// CHECK: %[[SCALED:.*]] = scf.for {{.*}} iter_args({{.*}}) -> (i1) {
// CHECK: tile.load %{{.*}}, %[[X]][
// CHECK: tile.load %{{.*}}, %[[R]][
// CHECK: tile.add
// CHECK: tile.rowsum
// CHECK: tile.add
// CHECK: tile.cmps %{{.*}}, %{{.*}}, %[[INF]] eq
// CHECK: tile.getval
// CHECK: scf.if
// CHECK: tile.barrier all
// CHECK: scf.for {{.*}} step %[[BLOCK]] {
// CHECK: tile.load %{{.*}}, %[[X]][
// CHECK: tile.load %{{.*}}, %[[R]][
// CHECK: tile.abs
// CHECK: tile.rowmax
// CHECK: tile.maxs %{{.*}}, %{{.*}}, %[[LIMIT]]
// CHECK: scf.for {{.*}} step %[[BLOCK]] {
// CHECK: tile.rowexpandmul
// CHECK: tile.mul
// CHECK: tile.rowsum
// CHECK: tile.barrier all
// CHECK: } else {
// CHECK: tile.mov
// CHECK: }
// CHECK: tile.store %[[A]][
// rstd, of the scaled sums or the plain ones.
// CHECK: scf.if %[[SCALED]] {
// CHECK: tile.muls %{{.*}}, %{{.*}}, %[[INV]]
// CHECK: tile.muls %{{.*}}, %{{.*}}, %[[EPS]]
// CHECK: tile.rsqrt
// CHECK: } else {
// CHECK: tile.muls %{{.*}}, %{{.*}}, %[[INV]]
// CHECK: tile.adds %{{.*}}, %{{.*}}, %[[EPS]]
// CHECK: tile.rsqrt
// Pass 2 normalizes after_res; the weight is loaded first, so that the
// arithmetic is one element-wise chain.
// CHECK: scf.for
// CHECK: tile.load %{{.*}}, %[[W]][
// CHECK: tile.load %{{.*}}, %[[A]][
// CHECK: tile.rowexpandmul
// CHECK: tile.colexpandmul
// CHECK: tile.store %[[Y]][
// CHECK: wsp.return

// The second op has no residual: its scaled sum reads hidden_states
// again, and so does pass 2.
// CHECK: wsp.kernel @two_norms_rms_norm_1 tiers(@two_norms_rms_norm_1_tiers) (%{{.*}}: !wsp.descriptor<moe>, %[[X1:.*]]: memref<?x4096xbf16>, %{{.*}}: memref<4096xf32>, %{{.*}}: memref<?x4096xbf16>)
// CHECK-NOT: tile.store
// CHECK: tile.load %{{.*}}, %[[X1]][
// CHECK-NOT: tile.store
// CHECK: tile.barrier all
// CHECK: tile.load %{{.*}}, %[[X1]][
// CHECK-NOT: tile.store
// CHECK: tile.load %{{.*}}, %[[X1]][
// CHECK-NOT: tile.store
// CHECK: tile.rsqrt
// CHECK-NOT: tile.store
// CHECK: tile.load %{{.*}}, %[[X1]][

// The function now returns i32. The first op checks num_tokens and
// hidden_size of every operand (3, INVALID_PARAMS), refuses more than
// INT32_MAX tokens (2, UNSUPPORTED_SIZE), plans one "expert" of num_tokens
// rows into at most 48 units in host scratch, and dispatches on the vector
// cores only a written plan.
// CHECK-LABEL: func.func @two_norms(
// CHECK-SAME: -> i32
// CHECK: %[[TOKENS:.*]] = memref.dim %arg0, %c0
// CHECK: %[[DIM:.*]] = memref.dim %arg1, %c0
// CHECK: arith.cmpi eq, %[[DIM]], %[[TOKENS]] : index
// CHECK: arith.cmpi ule, %[[TOKENS]], %c2147483647 : index
// CHECK: %[[CHECK:.*]] = arith.select %{{.*}}, %{{.*}}, %c2_i32 : i32
// CHECK: %[[CHECKED:.*]] = arith.cmpi eq, %[[CHECK]], %c0_i32 : i32
// CHECK: %[[S1:.*]] = scf.if %[[CHECKED]] -> (i32) {
// CHECK: memref.alloca() : memref<1xi32>
// CHECK: memref.alloca() : memref<48x!wsp.descriptor<moe>>
// CHECK: wsp.plan_chunk_size %{{.*}}[%{{.*}}] heads(%{{.*}}) config(#wsp.plan_config<chunk_min = 8, chunk_max = 2147483647, max_work_units = 48>)
// CHECK: %{{.*}}, %[[PLANNED:.*]] = wsp.generate {{.*}} tiers(@two_norms_rms_norm_0_tiers)
// CHECK: %[[WRITTEN:.*]] = arith.cmpi eq, %[[PLANNED]], %c0_i32
// CHECK: scf.if %[[WRITTEN]] {
// CHECK: wsp.dispatch @two_norms_rms_norm_0({{.*}}) descriptors({{.*}}) on vector(48)
// CHECK: scf.yield %[[PLANNED]] : i32
// CHECK: } else {
// CHECK: scf.yield %[[CHECK]] : i32
// The second op runs only if the first returned 0.
// CHECK: %[[GO:.*]] = arith.cmpi eq, %[[S1]], %{{.*}} : i32
// CHECK: %[[S2:.*]] = scf.if %[[GO]] -> (i32) {
// CHECK: wsp.dispatch @two_norms_rms_norm_1(
// CHECK: } else {
// CHECK: scf.yield %[[S1]] : i32
// CHECK: return %[[S2]] : i32

// CORES: memref.alloca() : memref<16x!wsp.descriptor<moe>>
// CORES: max_work_units = 16
// CORES: on vector(16)

// PIPELINE-NOT: llm.
// PIPELINE: wsp.kernel_table
// PIPELINE: func.func @two_norms({{.*}}) -> i32
func.func @two_norms(%x: memref<?x4096xbf16>, %r: memref<?x4096xbf16>,
                     %w: memref<4096xf32>, %y: memref<?x4096xbf16>,
                     %after: memref<?x4096xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x4096xbf16>)
      residual(%r : memref<?x4096xbf16>) weight(%w : memref<4096xf32>)
      -> y(%y : memref<?x4096xbf16>) after_res(%after : memref<?x4096xbf16>)
      {eps = 1.0e-05 : f32}
  llm.rms_norm hidden_states(%after : memref<?x4096xbf16>)
      weight(%w : memref<4096xf32>) -> y(%x : memref<?x4096xbf16>)
      {eps = 1.0e-05 : f32}
  return
}

// A function without llm ops is left as it is.
// CHECK-LABEL: func.func @untouched(
// CHECK-SAME: ) {
func.func @untouched(%x: memref<?xf32>) {
  return
}
