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

// A captured step must be lowered first: its launches are the calls.
// expected-error @+1 {{'wsp.step' op captures @s1, which returns no status: run convert-llm-to-wsp first (each operator becomes a launch the table records)}}
wsp.step @t1 captures @s1 patches []
func.func @s1(%a: memref<?xi32>) {
  return
}

// -----

// A table records launches; a collective in a captured step is refused.
shard.grid @tp(shape = ?)
// expected-error @+1 {{'wsp.step' op captures @s_collective, which runs a collective (wsp.all_reduce, ...): a table records launches, and replaying collectives is not supported yet}}
wsp.step @t_collective captures @s_collective patches []
func.func @s_collective(%a: memref<?xf32>) -> i32 {
  %s = wsp.all_reduce %a on @tp : memref<?xf32>
  return %s : i32
}

// -----

// expected-error @+1 {{'wsp.step' op patches i32 scalar argument 1 (position), which the emitted table does not: operators take positions and KV lengths in per-request buffers (request_positions, request_kv_lens)}}
wsp.step @t2 captures @s2 patches [#wsp.patch<position, 1>]
func.func private @l2(%a: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func @s2(%a: memref<?xi32>, %p: i32) -> i32 {
  %r = func.call @l2(%a) : (memref<?xi32>) -> i32
  return %r : i32
}

// -----

// A token row read through a view would be token 0's every token.
wsp.step @t3 captures @s3 patches [#wsp.patch<token_offset, 0>]
func.func private @l3(%a: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func @s3(%a: memref<?xi32>) -> i32 {
  // expected-error @+1 {{'memref.subview' op uses the token_offset argument 0 of wsp.step @t3; the table patches that token row only where a launch takes the argument itself}}
  %v = memref.subview %a[1] [2] [1] : memref<?xi32> to memref<2xi32, strided<[1], offset: 1>>
  %r = func.call @l3(%a) : (memref<?xi32>) -> i32
  return %r : i32
}

// -----

// expected-error @+1 {{'wsp.step' op captures @s4, which makes no launch (no func.call of a launch function)}}
wsp.step @t4 captures @s4 patches []
func.func @s4(%a: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
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
