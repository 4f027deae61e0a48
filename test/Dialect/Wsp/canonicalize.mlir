// Folders and canonicalization patterns of the wsp ops.
// RUN: wsp-opt %s --canonicalize --split-input-file | FileCheck %s

// A static dimension folds to its size; a dynamic one to the value that set
// it, through wsp.space and wsp.set_dim.
// CHECK-LABEL: func.func @get_dim
// CHECK-SAME: (%[[B:.*]]: index, %[[C:.*]]: index, %[[X:.*]]: index)
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NOT: wsp.get_dim
// CHECK: return %[[C32]], %[[X]], %[[C]]
func.func @get_dim(%b: index, %c: index, %x: index) -> (index, index, index) {
  %s = wsp.space(%b, %c) : !wsp.space<batch: ?, head: 32, chunk: ?>
  %s1 = wsp.set_dim %s[0] = %x : !wsp.space<batch: ?, head: 32, chunk: ?>
  %h = wsp.get_dim %s1[1] : !wsp.space<batch: ?, head: 32, chunk: ?>
  %bb = wsp.get_dim %s1[0] : !wsp.space<batch: ?, head: 32, chunk: ?>
  %cc = wsp.get_dim %s1[2] : !wsp.space<batch: ?, head: 32, chunk: ?>
  return %h, %bb, %cc : index, index, index
}

// -----

// A space of unknown origin keeps its dynamic get_dim.
// CHECK-LABEL: func.func @get_dim_unknown
// CHECK: wsp.get_dim %{{.*}}[0]
func.func @get_dim_unknown(%s: !wsp.space<?, 4>) -> index {
  %n = wsp.get_dim %s[0] : !wsp.space<?, 4>
  return %n : index
}

// -----

// set_dim on a freshly made space becomes a new wsp.space; two set_dims of
// the same dimension keep the last.
// CHECK-LABEL: func.func @set_dim
// CHECK-SAME: (%[[A:.*]]: index, %[[B:.*]]: index, %[[C:.*]]: index, %[[S:.*]]: !wsp.space<?, ?>)
// CHECK: %[[NEW:.*]] = wsp.space(%[[A]], %[[C]]) : !wsp.space<?, ?>
// CHECK: %[[SET:.*]] = wsp.set_dim %[[S]][1] = %[[C]] : !wsp.space<?, ?>
// CHECK: return %[[NEW]], %[[SET]]
func.func @set_dim(%a: index, %b: index, %c: index, %s: !wsp.space<?, ?>)
    -> (!wsp.space<?, ?>, !wsp.space<?, ?>) {
  %made = wsp.space(%a, %b) : !wsp.space<?, ?>
  %r1 = wsp.set_dim %made[1] = %c : !wsp.space<?, ?>
  %t = wsp.set_dim %s[1] = %a : !wsp.space<?, ?>
  %r2 = wsp.set_dim %t[1] = %c : !wsp.space<?, ?>
  return %r1, %r2 : !wsp.space<?, ?>, !wsp.space<?, ?>
}

// -----

// Statically known spaces fold: total work and coordinates (dim 0 fastest:
// 23 in <2, 3, 4> is (1, 2, 3)).
// CHECK-LABEL: func.func @static_space
// CHECK-DAG: %[[C24:.*]] = arith.constant 24 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NOT: wsp.
// CHECK: return %[[C24]], %[[C1]], %[[C2]], %[[C3]]
func.func @static_space() -> (index, index, index, index) {
  %c3 = arith.constant 3 : index
  %c23 = arith.constant 23 : index
  %s = wsp.space(%c3) : !wsp.space<2, ?, 4>
  %n = wsp.total_work %s : !wsp.space<2, ?, 4>
  %a, %b, %c = wsp.index_to_coords %s[%c23] : !wsp.space<2, ?, 4>
  return %n, %a, %b, %c : index, index, index, index
}

// -----

// An index outside the space, or unknown sizes, do not fold.
// CHECK-LABEL: func.func @no_fold
// CHECK: wsp.index_to_coords
// CHECK: wsp.total_work
func.func @no_fold(%s: !wsp.space<?, 4>) -> (index, index, index) {
  %c24 = arith.constant 24 : index
  %t = wsp.space() : !wsp.space<2, 3, 4>
  %a, %b, %c = wsp.index_to_coords %t[%c24] : !wsp.space<2, 3, 4>
  %n = wsp.total_work %s : !wsp.space<?, 4>
  return %a, %n, %c : index, index, index
}

// -----

// Tier selection on a constant folds, with first-match semantics.
wsp.tier_config @T [#wsp.tier<0, [1, 100]>, #wsp.tier<1, [200, 300]>,
                    #wsp.tier<2, [50, 250]>]
// CHECK-LABEL: func.func @select
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NONE:.*]] = arith.constant -1 : i32
// CHECK: %[[DYN:.*]] = wsp.select_tier @T(%{{.*}}) : i32 -> i32
// CHECK: return %[[Z]], %[[TWO]], %[[ONE]], %[[NONE]], %[[NONE]], %[[DYN]]
func.func @select(%len: i32) -> (i32, i32, i32, i32, i32, i32) {
  %c75 = arith.constant 75 : i32
  %c150 = arith.constant 150 : index
  %c220 = arith.constant 220 : i64
  %c0 = arith.constant 0 : i32
  %c301 = arith.constant 301 : i32
  %a = wsp.select_tier @T(%c75) : i32 -> i32
  %b = wsp.select_tier @T(%c150) : index -> i32
  %c = wsp.select_tier @T(%c220) : i64 -> i32
  %d = wsp.select_tier @T(%c0) : i32 -> i32
  %e = wsp.select_tier @T(%c301) : i32 -> i32
  %f = wsp.select_tier @T(%len) : i32 -> i32
  return %a, %b, %c, %d, %e, %f : i32, i32, i32, i32, i32, i32
}

// -----

// Memory effects: unused pure and read-only ops go away (select_tier, space,
// total_work_units); generate writes its buffer and a dispatch launches
// kernels, so they stay even with unused results or no arguments.
wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// CHECK-LABEL: func.func @effects
// CHECK-NOT: wsp.select_tier
// CHECK-NOT: wsp.space
// CHECK: wsp.plan_chunk_size
// CHECK-NEXT: wsp.generate
// CHECK-NEXT: wsp.dispatch @k
// CHECK-NEXT: return
func.func @effects(%lens: memref<?xi32>, %n: index, %len: i32,
                   %buf: memref<?x!wsp.descriptor<attention>>) {
  %unused_tier = wsp.select_tier @T(%len) : i32 -> i32
  %unused_space = wsp.space(%n) : !wsp.space<?>
  %chunk = wsp.plan_chunk_size %lens[%n] heads(%n) config(#wsp.plan_config<>)
      : memref<?xi32>
  %cap = wsp.total_work_units %lens[%n] heads(%n) chunk(%chunk) : memref<?xi32>
  %count, %status = wsp.generate %lens[%n] heads(%n) chunk(%chunk) tiers(@T)
      config(#wsp.plan_config<>) into %buf
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k() descriptors(%buf[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(48)
  return
}

// -----

// In a kernel specialized for tier 1, the tier id and the tier constants
// fold to that tier's values (TILE's second entry).
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]
// CHECK-LABEL: wsp.kernel @k_t1
// CHECK-DAG: %[[ID:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[TILE:.*]] = arith.constant 128 : index
// CHECK-NOT: wsp.tier_id
// CHECK-NOT: wsp.tier_constant
// CHECK: memref.store %[[ID]], %{{.*}}[%[[TILE]]]
wsp.kernel @k_t1 tiers(@T) tier(1) constants {TILE = array<i64: 64, 128>}
    (%d: !wsp.descriptor<attention>, %o: memref<?xindex>) {
  %id = wsp.tier_id : index
  %tile = wsp.tier_constant "TILE" : index
  memref.store %id, %o[%tile] : memref<?xindex>
  wsp.return
}

// A tier-generic kernel keeps them.
// CHECK-LABEL: wsp.kernel @generic
// CHECK: wsp.tier_id
// CHECK: wsp.tier_constant "TILE"
wsp.kernel @generic tiers(@T) constants {TILE = array<i64: 64, 128>}
    (%d: !wsp.descriptor<attention>, %o: memref<?xindex>) {
  %id = wsp.tier_id : index
  %tile = wsp.tier_constant "TILE" : index
  memref.store %id, %o[%tile] : memref<?xindex>
  wsp.return
}

// -----

// The folders look for the configuration among the few ops before the
// kernel or function first (where it is defined), then in the whole module:
// one defined after its kernel, or far before it, is found all the same.
wsp.tier_config @far [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]
wsp.tier_config @F0 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F1 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F2 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F3 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F4 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F5 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F6 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F7 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F8 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F9 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F10 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F11 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F12 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F13 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F14 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F15 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F16 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F17 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F18 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F19 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F20 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F21 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F22 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F23 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F24 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F25 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F26 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F27 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F28 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F29 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F30 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F31 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F32 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F33 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F34 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F35 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F36 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F37 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F38 [#wsp.tier<0, [1, 8]>]
wsp.tier_config @F39 [#wsp.tier<0, [1, 8]>]
// CHECK-LABEL: wsp.kernel @k_far
// CHECK-DAG: %[[TILE:.*]] = arith.constant 128 : index
// CHECK-NOT: wsp.tier_constant
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[TILE]]]
wsp.kernel @k_far tiers(@far) tier(1) constants {TILE = array<i64: 64, 128>}
    (%d: !wsp.descriptor<attention>, %o: memref<?xindex>) {
  %tile = wsp.tier_constant "TILE" : index
  memref.store %tile, %o[%tile] : memref<?xindex>
  wsp.return
}
// CHECK-LABEL: wsp.kernel @k_after
// CHECK-DAG: %[[TILE:.*]] = arith.constant 32 : index
// CHECK-NOT: wsp.tier_constant
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[TILE]]]
wsp.kernel @k_after tiers(@after) tier(0) constants {TILE = array<i64: 32, 16>}
    (%d: !wsp.descriptor<attention>, %o: memref<?xindex>) {
  %tile = wsp.tier_constant "TILE" : index
  memref.store %tile, %o[%tile] : memref<?xindex>
  wsp.return
}
// CHECK-LABEL: func.func @select_far
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: return %[[ONE]]
func.func @select_far() -> i32 {
  %c2000 = arith.constant 2000 : i32
  %t = wsp.select_tier @far(%c2000) : i32 -> i32
  return %t : i32
}
wsp.tier_config @after [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]
