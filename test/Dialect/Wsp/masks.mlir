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
