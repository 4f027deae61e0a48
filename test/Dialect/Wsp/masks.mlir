// Round trip of the mask ops, custom and generic form.
// RUN: wsp-opt %s | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | wsp-opt | FileCheck %s

// CHECK-LABEL: func.func @mask_value
// CHECK: wsp.mask_value standard flat col(%{{.*}}) query(%{{.*}}) pos(%{{.*}}) prior(%{{.*}}) active(%{{.*}}) offset(%{{.*}}) cache(%{{.*}}) : i1
// CHECK: wsp.mask_value sliding window(8) block col(
func.func @mask_value(%c: index, %q: index, %p: index, %sp: index,
                      %sa: index, %o: index) -> (i1, i1) {
  %a = wsp.mask_value standard flat col(%c) query(%q) pos(%p) prior(%sp)
      active(%sa) offset(%o) cache(%sp) : i1
  %b = wsp.mask_value sliding window(8) block col(%c) query(%q) pos(%p)
      prior(%sp) active(%sa) offset(%o) cache(%sp) : i1
  return %a, %b : i1, i1
}

// CHECK-LABEL: func.func @gen_mask
// CHECK: wsp.gen_mask standard flat s_prior(%{{.*}}) pos_ids(%{{.*}} : memref<?x?xi32>) into %{{.*}} : memref<?x?x?xi8>
// CHECK: wsp.gen_mask sliding window(8) flat s_prior(%{{.*}}) shard sequence core(%{{.*}}) pos_ids(
// CHECK: wsp.gen_mask sliding window(3) block s_prior(%{{.*}}) shard batch core(%{{.*}}) pos_ids(%{{.*}} : memref<4x2xi32>) active_mask(%{{.*}} : memref<?x?x?xi8>) into %{{.*}} : memref<2x2x18xi8>
func.func @gen_mask(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>,
                    %sp: index, %core: index, %spos: memref<4x2xi32>,
                    %am: memref<?x?x?xi8>, %smask: memref<2x2x18xi8>) {
  wsp.gen_mask standard flat s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  wsp.gen_mask sliding window(8) flat s_prior(%sp) shard sequence core(%core)
      pos_ids(%pos : memref<?x?xi32>) into %mask : memref<?x?x?xi8>
  wsp.gen_mask sliding window(3) block s_prior(%sp) shard batch core(%core)
      pos_ids(%spos : memref<4x2xi32>) active_mask(%am : memref<?x?x?xi8>)
      into %smask : memref<2x2x18xi8>
  return
}

// wsp.mask_range in both kinds the op accepts: standard (no window) and
// sliding with its window; both results are index.
// CHECK-LABEL: func.func @mask_range
// CHECK-SAME: (%[[Q:.*]]: index, %[[P:.*]]: index, %[[SP:.*]]: index)
// CHECK: %[[LO0:.*]], %[[HI0:.*]] = wsp.mask_range standard query(%[[Q]]) pos(%[[P]]) prior(%[[SP]]) : index, index
// CHECK: %[[LO1:.*]], %[[HI1:.*]] = wsp.mask_range sliding window(2048) query(%[[Q]]) pos(%[[P]]) prior(%[[SP]]) : index, index
// CHECK: return %[[LO0]], %[[HI0]], %[[LO1]], %[[HI1]]
func.func @mask_range(%q: index, %p: index, %sp: index)
    -> (index, index, index, index) {
  %lo0, %hi0 = wsp.mask_range standard query(%q) pos(%p) prior(%sp)
      : index, index
  %lo1, %hi1 = wsp.mask_range sliding window(2048) query(%q) pos(%p)
      prior(%sp) : index, index
  return %lo0, %hi0, %lo1, %hi1 : index, index, index, index
}

// The smallest window, 1, round-trips (the verifier takes window >= 1), and
// the operands keep their roles (query, pos, prior are not interchangeable).
// CHECK-LABEL: func.func @mask_range_window1
// CHECK-SAME: (%[[Q:.*]]: index, %[[P:.*]]: index, %[[SP:.*]]: index)
// CHECK: wsp.mask_range sliding window(1) query(%[[SP]]) pos(%[[Q]]) prior(%[[P]]) : index, index
func.func @mask_range_window1(%q: index, %p: index, %sp: index)
    -> (index, index) {
  %lo, %hi = wsp.mask_range sliding window(1) query(%sp) pos(%q) prior(%p)
      : index, index
  return %lo, %hi : index, index
}
