// Round trip of the balanced strategy: the plan config's balanced fields,
// wsp.generate planning balanced (no chunk; work lists and merge plan, or
// the plan as cuts expanded by a dispatch), its
// planned forms (wsp.plan_balanced, a balanced wsp.descriptor_table and its
// load) and a persistent wsp.dispatch.
// RUN: wsp-opt %s | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | wsp-opt | FileCheck %s

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]

wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>, %o: memref<?xf32>) {
  wsp.return
}

// Defaults are elided; only the fields that differ print.
// CHECK-LABEL: func.func @configs
// CHECK-SAME: a = #wsp.plan_config<strategy = balanced>
// CHECK-SAME: b = #wsp.plan_config<strategy = balanced, cores = 24, block_size = 128, unit_cost = 0, token_cost = 2, merge_cost = 10, batch_invariant = true, invariant_chunk = 4096>
// CHECK-SAME: c = #wsp.plan_config<>
func.func @configs() attributes {
    a = #wsp.plan_config<strategy = balanced>,
    b = #wsp.plan_config<invariant_chunk = 4096, strategy = balanced,
                         cores = 24, block_size = 128, unit_cost = 0,
                         token_cost = 2, merge_cost = 10,
                         batch_invariant = true>,
    c = #wsp.plan_config<strategy = spec, cores = 48>} {
  return
}

// CHECK-LABEL: func.func @plan_and_run
// CHECK: %{{.*}}, %{{.*}} = wsp.generate %{{.*}}[%{{.*}}] heads(%{{.*}}) tiers(@T) config(#wsp.plan_config<strategy = balanced, cores = 8>) into %{{.*}} cores(%{{.*}} : memref<9xi32>) merges(%{{.*}} : memref<?xi32>) : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
// CHECK: wsp.dispatch @k(%{{.*}} : memref<?xf32>) descriptors(%{{.*}}[%{{.*}}] : memref<?x!wsp.descriptor<attention>>) on vector(8) persistent(%{{.*}} : memref<9xi32>)
func.func @plan_and_run(%lens: memref<?xi32>, %n: index, %h: index,
                        %descs: memref<?x!wsp.descriptor<attention>>,
                        %cores: memref<9xi32>, %merges: memref<?xi32>,
                        %o: memref<?xf32>) -> i32 {
  %count, %status = wsp.generate %lens[%n] heads(%h) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 8>)
      into %descs cores(%cores : memref<9xi32>)
      merges(%merges : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k(%o : memref<?xf32>)
      descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) persistent(%cores : memref<9xi32>)
  return %status : i32
}

// The plan as cuts: the planner writes the cuts and the work lists, the
// first dispatch's cores expand the descriptors.
// CHECK-LABEL: func.func @plan_as_cuts
// CHECK: %[[COUNT:.*]], %{{.*}} = wsp.generate %{{.*}}[%{{.*}}] heads(%{{.*}}) tiers(@T) config(#wsp.plan_config<strategy = balanced, cores = 8>) into %[[D:.*]] cores(%[[C:.*]] : memref<9xi32>) cuts(%[[X:.*]] : memref<36xi32>) : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
// CHECK: wsp.dispatch @k(%{{.*}} : memref<?xf32>) descriptors(%[[D]][%[[COUNT]]] : memref<?x!wsp.descriptor<attention>>) on vector(8) persistent(%[[C]] : memref<9xi32>) expand(%[[X]] : memref<36xi32>)
// CHECK: wsp.plan_balanced %{{.*}}[%{{.*}}] heads(%{{.*}}) tiers(@T) config(#wsp.plan_config<strategy = balanced, cores = 8>) into %[[D]] cores(%[[C]] : memref<9xi32>) cuts(%[[X]] : memref<36xi32>) : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
func.func @plan_as_cuts(%lens: memref<?xi32>, %n: index, %h: index,
                        %descs: memref<?x!wsp.descriptor<attention>>,
                        %cores: memref<9xi32>, %cuts: memref<36xi32>,
                        %o: memref<?xf32>) -> (i32, i32) {
  %count, %status = wsp.generate %lens[%n] heads(%h) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 8>)
      into %descs cores(%cores : memref<9xi32>) cuts(%cuts : memref<36xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k(%o : memref<?xf32>)
      descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) persistent(%cores : memref<9xi32>)
      expand(%cuts : memref<36xi32>)
  %c1, %s1 = wsp.plan_balanced %lens[%n] heads(%h) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 8>)
      into %descs cores(%cores : memref<9xi32>) cuts(%cuts : memref<36xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return %status, %s1 : i32, i32
}

// CHECK-LABEL: func.func @planned
// CHECK: wsp.plan_balanced %{{.*}}[%{{.*}}] heads(%{{.*}}) tiers(@T) config(#wsp.plan_config<strategy = balanced>) into %{{.*}} cores(%{{.*}} : memref<?xi32>) merges(%{{.*}} : memref<?xi32>) q_lens(%{{.*}} : memref<?xi32>) : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
// CHECK: wsp.load_descriptors @balanced_plan into %{{.*}} cores(%{{.*}} : memref<?xi32>) merges(%{{.*}} : memref<?xi32>) : memref<?x!wsp.descriptor<attention>>
func.func @planned(%lens: memref<?xi32>, %n: index, %h: index,
                   %descs: memref<?x!wsp.descriptor<attention>>,
                   %cores: memref<?xi32>, %merges: memref<?xi32>)
    -> (index, i32, index, i32) {
  %c0, %s0 = wsp.plan_balanced %lens[%n] heads(%h) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>)
      into %descs cores(%cores : memref<?xi32>)
      merges(%merges : memref<?xi32>) q_lens(%lens : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  %c1, %s1 = wsp.load_descriptors @balanced_plan into %descs
      cores(%cores : memref<?xi32>) merges(%merges : memref<?xi32>)
      : memref<?x!wsp.descriptor<attention>>
  return %c0, %s0, %c1, %s1 : index, i32, index, i32
}

// Two rows on two cores: row 0 cut in two pieces, row 1 whole.
// CHECK: wsp.descriptor_table @balanced_plan : !wsp.descriptor<attention> cores([0, 1, 3]) merges([0, 2, 3]) = dense<
wsp.descriptor_table @balanced_plan : !wsp.descriptor<attention>
    cores([0, 1, 3]) merges([0, 2, 3])
    = dense<[[0, 0, 5, 0, 0, 0, 16], [1, 0, 2, 0, 0, 16, 4],
             [2, 0, 7, 1, 0, 0, 8]]> : tensor<3x7xi32>
