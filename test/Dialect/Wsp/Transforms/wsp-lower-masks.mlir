// RUN: wsp-opt %s --wsp-lower-masks | FileCheck %s
// RUN: wsp-opt %s --wsp-lower-masks --canonicalize | FileCheck %s --check-prefix=FOLD

// Inline in a kernel: the element becomes branch-free arithmetic, never a
// materialized mask. Sliding flat: slot = offset + col; start = (pos - W +
// 1) mod cache; normal = ge * lt; wrap = max(ge, lt); final = normal +
// is_wrap * (wrap - normal); then prior vs active by a select.
// CHECK-LABEL: func.func @inline
// CHECK-NOT: wsp.mask_value
// CHECK-NOT: scf.if
// CHECK: %[[SLOT:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[INPRIOR:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[SLOT]], %{{.*}} : index
// CHECK: arith.remsi
// CHECK: %[[START:.*]] = arith.remsi
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[SLOT]], %[[START]]
// CHECK: %[[NORMAL:.*]] = arith.muli
// CHECK: %[[WRAP:.*]] = arith.maxui
// CHECK: %[[ISWRAP:.*]] = arith.cmpi sgt, %[[START]]
// CHECK: %[[DIFF:.*]] = arith.subi %[[WRAP]], %[[NORMAL]]
// CHECK: %[[FINAL:.*]] = arith.addi %[[NORMAL]],
// CHECK: %[[PRIOR:.*]] = arith.cmpi ne, %[[FINAL]]
// CHECK: %[[ACTIVE:.*]] = arith.cmpi sle
// CHECK: arith.select %[[INPRIOR]], %[[PRIOR]], %[[ACTIVE]] : i1
func.func @inline(%c: index, %q: index, %p: index, %sp: index, %sa: index,
                  %o: index) -> i1 {
  %m = wsp.mask_value sliding window(8) flat col(%c) query(%q) pos(%p)
      prior(%sp) active(%sa) offset(%o) cache(%sp) : i1
  return %m : i1
}

// Block KV clamps the start at 0 instead of the mod.
// CHECK-LABEL: func.func @block
// CHECK-NOT: arith.remsi
// CHECK: arith.maxsi %{{.*}}, %c0
func.func @block(%c: index, %q: index, %p: index, %sp: index, %sa: index,
                 %o: index) -> i1 {
  %m = wsp.mask_value sliding window(8) block col(%c) query(%q) pos(%p)
      prior(%sp) active(%sa) offset(%o) cache(%sp) : i1
  return %m : i1
}

// Constant inputs fold: seed grid 2B wrap-around, q0 (pos 3, W 8): slot 13
// attends (13 >= 12), slot 5 does not, active column j = 1 > q = 0 does not.
// FOLD-LABEL: func.func @folds
// FOLD-DAG: %[[T:.*]] = arith.constant true
// FOLD-DAG: %[[F:.*]] = arith.constant false
// FOLD: return %[[T]], %[[F]], %[[F]]
func.func @folds() -> (i1, i1, i1) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c13 = arith.constant 13 : index
  %c16 = arith.constant 16 : index
  %c17 = arith.constant 17 : index
  %a = wsp.mask_value sliding window(8) flat col(%c13) query(%c0) pos(%c3)
      prior(%c16) active(%c4) offset(%c0) cache(%c16) : i1
  %b = wsp.mask_value sliding window(8) flat col(%c5) query(%c0) pos(%c3)
      prior(%c16) active(%c4) offset(%c0) cache(%c16) : i1
  %c = wsp.mask_value sliding window(8) flat col(%c17) query(%c0) pos(%c3)
      prior(%c16) active(%c4) offset(%c0) cache(%c16) : i1
  return %a, %b, %c : i1, i1, i1
}

// The standalone kernel: loops over (batch, query, column); sequence
// sharding offsets the slots by core * s_prior / 2.
// CHECK-LABEL: func.func @kernel
// CHECK-NOT: wsp.gen_mask
// CHECK: %[[HALF:.*]] = arith.divui %{{.*}}, %c2
// CHECK: arith.muli %{{.*}}, %[[HALF]]
// CHECK: scf.for
// CHECK:   memref.load %{{.*}} : memref<?x?xi32>
// CHECK:   scf.for
// CHECK-NOT: scf.if
// CHECK:     arith.extui %{{.*}} : i1 to i8
// CHECK:     memref.store %{{.*}} : memref<?x?x?xi8>
func.func @kernel(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>,
                  %sp: index, %core: index) {
  wsp.gen_mask sliding window(8) flat s_prior(%sp) shard sequence core(%core)
      pos_ids(%pos : memref<?x?xi32>) into %mask : memref<?x?x?xi8>
  return
}

// wsp.mask_range, standard: every prior slot and the causal active columns,
// lo = 0 and hi = prior + query + 1, with no window arithmetic (the whole
// body is checked line by line).
// CHECK-LABEL: func.func @range_standard
// CHECK-SAME: (%[[Q:[^:]*]]: index, %[[P:[^:]*]]: index, %[[SP:[^:]*]]: index)
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[SP]], %[[Q]] : index
// CHECK-NEXT: %[[HI:.*]] = arith.addi %[[SUM]], %[[ONE]] : index
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0 : index
// CHECK-NEXT: return %[[LO]], %[[HI]] : index, index
func.func @range_standard(%q: index, %p: index, %sp: index) -> (index, index) {
  %lo, %hi = wsp.mask_range standard query(%q) pos(%p) prior(%sp)
      : index, index
  return %lo, %hi : index, index
}

// wsp.mask_range, sliding window(8): the same hi (the window never cuts the
// active columns); lo = min(max(pos - (W - 1), 0), prior), the block-cache
// start (clamped at 0, never the flat cache's mod), branch-free: the whole
// body is checked line by line.
// CHECK-LABEL: func.func @range_sliding
// CHECK-SAME: (%[[Q:[^:]*]]: index, %[[P:[^:]*]]: index, %[[SP:[^:]*]]: index)
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[SP]], %[[Q]] : index
// CHECK-NEXT: %[[HI:.*]] = arith.addi %[[SUM]], %[[ONE]] : index
// CHECK-NEXT: %[[WM1:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[RAW:.*]] = arith.subi %[[P]], %[[WM1]] : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[START:.*]] = arith.maxsi %[[RAW]], %[[ZERO]] : index
// CHECK-NEXT: %[[LO:.*]] = arith.minsi %[[START]], %[[SP]] : index
// CHECK-NEXT: return %[[LO]], %[[HI]] : index, index
func.func @range_sliding(%q: index, %p: index, %sp: index) -> (index, index) {
  %lo, %hi = wsp.mask_range sliding window(8) query(%q) pos(%p) prior(%sp)
      : index, index
  return %lo, %hi : index, index
}

// A range inside a loop (as a tile kernel computes one per query row) is
// lowered in place, from the loop's own values, and the op is gone.
// CHECK-LABEL: func.func @range_in_loop
// CHECK: scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[POS:.*]] = arith.addi %[[PRIOR:[^,]*]], %[[S]] : index
// CHECK: arith.addi %[[PRIOR]], %[[S]] : index
// CHECK: arith.subi %[[POS]], %{{.*}} : index
// CHECK: arith.maxsi
// CHECK: %[[LO:.*]] = arith.minsi %{{.*}}, %[[PRIOR]] : index
// CHECK-NOT: wsp.mask_range
// CHECK: memref.store %[[LO]]
// CHECK: }
func.func @range_in_loop(%prior: index, %n: index, %out: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %s = %c0 to %n step %c1 {
    %pos = arith.addi %prior, %s : index
    %lo, %hi = wsp.mask_range sliding window(2048) query(%s) pos(%pos)
        prior(%prior) : index, index
    memref.store %lo, %out[%s] : memref<?xindex>
    memref.store %hi, %out[%pos] : memref<?xindex>
  }
  return
}

// Constant inputs fold (query s of a request with `prior` cached tokens,
// at pos = prior + s, attends columns [lo, hi)):
//  a) standard, prior 10, s 2, pos 12: every prior slot, [0, 13);
//  b) window 4, prior 10, s 2, pos 12: start 12 - 3 = 9, [9, 13), the 4
//     positions 9..12;
//  c) window 2048, prior 5, s 1, pos 6: 6 - 2047 < 0 clamps to 0, [0, 7);
//  d) window 2, prior 10, s 3, pos 13: start 12 is past the prior slots, so
//     lo = prior = 10 and the active columns stay causal: [10, 14);
//  e) window 1, no cache, s 0, pos 0: only the query itself, [0, 1).
// FOLD-LABEL: func.func @range_folds
// FOLD-DAG: %[[C0:.*]] = arith.constant 0 : index
// FOLD-DAG: %[[C1:.*]] = arith.constant 1 : index
// FOLD-DAG: %[[C7:.*]] = arith.constant 7 : index
// FOLD-DAG: %[[C9:.*]] = arith.constant 9 : index
// FOLD-DAG: %[[C10:.*]] = arith.constant 10 : index
// FOLD-DAG: %[[C13:.*]] = arith.constant 13 : index
// FOLD-DAG: %[[C14:.*]] = arith.constant 14 : index
// FOLD: return %[[C0]], %[[C13]], %[[C9]], %[[C13]], %[[C0]], %[[C7]], %[[C10]], %[[C14]], %[[C0]], %[[C1]] :
func.func @range_folds() -> (index, index, index, index, index, index,
                             index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  %c12 = arith.constant 12 : index
  %c13 = arith.constant 13 : index
  %lo_a, %hi_a = wsp.mask_range standard query(%c2) pos(%c12) prior(%c10)
      : index, index
  %lo_b, %hi_b = wsp.mask_range sliding window(4) query(%c2) pos(%c12)
      prior(%c10) : index, index
  %lo_c, %hi_c = wsp.mask_range sliding window(2048) query(%c1) pos(%c6)
      prior(%c5) : index, index
  %lo_d, %hi_d = wsp.mask_range sliding window(2) query(%c3) pos(%c13)
      prior(%c10) : index, index
  %lo_e, %hi_e = wsp.mask_range sliding window(1) query(%c0) pos(%c0)
      prior(%c0) : index, index
  return %lo_a, %hi_a, %lo_b, %hi_b, %lo_c, %hi_c, %lo_d, %hi_d, %lo_e, %hi_e
      : index, index, index, index, index, index, index, index, index, index
}
