// What the emitter cannot print is named at the op, and no partial output
// is written.
// RUN: wsp-translate --wsp-to-cpusim %s -split-input-file -verify-diagnostics
// RUN: rm -f %t.cpp
// RUN: not wsp-translate --wsp-to-cpusim %s -o %t.cpp 2>&1 | FileCheck %s
// RUN: not test -e %t.cpp
// Kernels print before functions, so the whole file fails at the kernel.
// CHECK: error: 'wsp.kernel' op is tier-generic; run wsp-specialize-tiers first

func.func @f(%n: index) -> index {
  // expected-error @+1 {{'wsp.space' op cannot be emitted as C++ (run the wsp-pipeline first; the emitter prints what wsp-check-emittable accepts)}}
  %s = wsp.space(%n) : !wsp.space<?>
  %t = wsp.total_work %s : !wsp.space<?>
  return %t : index
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
// expected-error @+1 {{'wsp.kernel' op is tier-generic; run wsp-specialize-tiers first}}
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// -----

// expected-error @+1 {{'func.func' op returns more than one value, which the C++ emitter does not print}}
func.func @two(%a: i32) -> (i32, i32) {
  return %a, %a : i32, i32
}

// -----

// expected-error @+1 {{'func.func' op has type 'i4', which the C++ emitter cannot print}}
func.func @i4(%a: i4) -> i4 {
  %b = arith.addi %a, %a : i4
  return %b : i4
}

// -----

// What the contract refuses of a wsp.step it names
// (wsp-check-emittable-step.mlir); the printer, run on it, names the step
// and sends the reader there.
// expected-error @+1 {{'wsp.step' op cannot be emitted as C++ (run the wsp-pipeline first; the emitter prints what wsp-check-emittable accepts)}}
wsp.step @t1 captures @s1 patches []
func.func @s1(%a: memref<?xi32>) {
  return
}

// -----

// A fused-run mark the run does not match: more ops than follow it that
// the lanes compute, or ops that cannot share the run.
func.func @fuse_count() {
  %a = tile.alloc at 0 : !tile.tile<vec, 8x32xf32>
  // expected-error @+1 {{'tile.abs' op starts a fused group (tile.fuse = 3 : i64) that does not have that many ops the lanes compute after it}}
  tile.abs %a, %a {tile.fuse = 3 : i64} : !tile.tile<vec, 8x32xf32>, !tile.tile<vec, 8x32xf32>
  tile.abs %a, %a : !tile.tile<vec, 8x32xf32>, !tile.tile<vec, 8x32xf32>
  tile.barrier all
  return
}

// -----

func.func @fuse_shapes() {
  %a = tile.alloc at 0 : !tile.tile<vec, 8x32xf32>
  %b = tile.alloc at 1024 : !tile.tile<vec, 16x32xf32>
  // expected-error @+1 {{'tile.abs' op starts a fused group (tile.fuse = 2 : i64) that cannot include 'tile.abs': its tiles do not share the group's shape and valid extent, or overlap another's bytes}}
  tile.abs %a, %a {tile.fuse = 2 : i64} : !tile.tile<vec, 8x32xf32>, !tile.tile<vec, 8x32xf32>
  tile.abs %b, %b : !tile.tile<vec, 16x32xf32>, !tile.tile<vec, 16x32xf32>
  return
}

// -----

func.func @fuse_long() {
  %a = tile.alloc at 0 : !tile.tile<vec, 8x32xf32>
  // expected-error @+1 {{'tile.abs' op starts a fused group (tile.fuse = 65 : i64) that is longer than 64 ops}}
  tile.abs %a, %a {tile.fuse = 65 : i64} : !tile.tile<vec, 8x32xf32>, !tile.tile<vec, 8x32xf32>
  tile.abs %a, %a : !tile.tile<vec, 8x32xf32>, !tile.tile<vec, 8x32xf32>
  return
}

// -----

// Loads of columns alone are no group: the lanes have no tile to run over.
func.func @fuse_columns_only(%w: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc at 0 : !tile.tile<vec, 1x32xf32>
  %b = tile.alloc at 128 : !tile.tile<vec, 1x32xf32>
  // expected-error @+1 {{'tile.load' op starts a fused group (tile.fuse = 2 : i64) that has no tile of a group's shape, only loads of a column}}
  tile.load %a, %w[%c0] {tile.fuse = 2 : i64} : !tile.tile<vec, 1x32xf32>, memref<32xf32>
  tile.load %b, %w[%c0] : !tile.tile<vec, 1x32xf32>, memref<32xf32>
  return
}
