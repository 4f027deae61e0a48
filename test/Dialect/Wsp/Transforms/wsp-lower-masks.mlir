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
