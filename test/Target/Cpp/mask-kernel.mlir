// The standalone mask kernel (wsp.gen_mask through the pipeline and the
// emitter), compiled and compared exactly with an independent if/else
// reference written from gen_mask_tkg; see Inputs/mask-check.cpp.
// RUN: wsp-opt %s --wsp-pipeline | wsp-translate --wsp-to-cpusim -o %t.cpp
// RUN: %cxx_strict -O2 -D__CPU_SIM -include %t.cpp %S/Inputs/mask-check.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s
// The lowered kernel has no per-element control flow: its loops only.
// RUN: wsp-opt %s --wsp-lower-masks | FileCheck %s --check-prefix=LOWERED
// LOWERED-LABEL: func.func @swa_flat_w8
// LOWERED-NOT: scf.if
// LOWERED: arith.remsi
// LOWERED: arith.maxui
// LOWERED: arith.select
// LOWERED: memref.store
// LOWERED-NOT: scf.if
// LOWERED-LABEL: func.func @swa_block_w8

// CHECK: unsharded: all equal
// CHECK: batch-sharded: all equal
// CHECK: sequence-sharded: all equal
// CHECK: active-mask: all equal

func.func @swa_flat_w1(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index) {
  wsp.gen_mask sliding window(1) flat s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_block_w1(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index) {
  wsp.gen_mask sliding window(1) block s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_flat_w3(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index) {
  wsp.gen_mask sliding window(3) flat s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_block_w3(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index) {
  wsp.gen_mask sliding window(3) block s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_flat_w8(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index) {
  wsp.gen_mask sliding window(8) flat s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_block_w8(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index) {
  wsp.gen_mask sliding window(8) block s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_flat_w40(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index) {
  wsp.gen_mask sliding window(40) flat s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_block_w40(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index) {
  wsp.gen_mask sliding window(40) block s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @std_flat(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index) {
  wsp.gen_mask standard flat s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @std_batch(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index, %core: index) {
  wsp.gen_mask standard flat s_prior(%sp) shard batch core(%core) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_flat_w8_batch(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index, %core: index) {
  wsp.gen_mask sliding window(8) flat s_prior(%sp) shard batch core(%core) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_block_w3_batch(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index, %core: index) {
  wsp.gen_mask sliding window(3) block s_prior(%sp) shard batch core(%core) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @std_sequence(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index, %core: index) {
  wsp.gen_mask standard flat s_prior(%sp) shard sequence core(%core) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_flat_w8_sequence(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index, %core: index) {
  wsp.gen_mask sliding window(8) flat s_prior(%sp) shard sequence core(%core) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_block_w3_sequence(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index, %core: index) {
  wsp.gen_mask sliding window(3) block s_prior(%sp) shard sequence core(%core) pos_ids(%pos : memref<?x?xi32>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @swa_flat_w8_active(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index, %am: memref<?x?x?xi8>) {
  wsp.gen_mask sliding window(8) flat s_prior(%sp) pos_ids(%pos : memref<?x?xi32>) active_mask(%am : memref<?x?x?xi8>)
      into %mask : memref<?x?x?xi8>
  return
}

func.func @std_active(%pos: memref<?x?xi32>, %mask: memref<?x?x?xi8>, %sp: index, %am: memref<?x?x?xi8>) {
  wsp.gen_mask standard flat s_prior(%sp) pos_ids(%pos : memref<?x?xi32>) active_mask(%am : memref<?x?x?xi8>)
      into %mask : memref<?x?x?xi8>
  return
}
