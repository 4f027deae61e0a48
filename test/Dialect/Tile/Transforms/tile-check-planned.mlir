// RUN: wsp-opt %s --tile-check-planned -split-input-file -verify-diagnostics | FileCheck %s

// Planned kernels (every site placed, every extent static, in a function
// and in a specialized kernel) pass unchanged.
// CHECK-LABEL: func.func @planned
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[V:.*]] = tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: %[[K:.*]] = tile.alloc slot(%{{.*}}) buffers(2) at 0 : !tile.tile<mat, 128x128xbf16>
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[V]] : !tile.tile<vec, 16x128xf32> to !tile.tile<vec, 1x2048xf32>
// CHECK-NEXT: tile.load %[[V]], %{{.*}}[%[[C0]], %[[C0]]] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
// CHECK-NEXT: return
// CHECK-LABEL: wsp.kernel @k_tier0
// CHECK-NEXT: tile.alloc at 8192 : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: wsp.return
func.func @planned(%m: memref<?x128xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %v = tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
  %k = tile.alloc slot(%i) buffers(2) at 0 : !tile.tile<mat, 128x128xbf16>
  %r = tile.reshape %v : !tile.tile<vec, 16x128xf32> to !tile.tile<vec, 1x2048xf32>
  tile.load %v, %m[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  return
}
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k_tier0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>) {
  %a = tile.alloc at 8192 : !tile.tile<vec, 16x128xf32>
  wsp.return
}

// -----

// A site without an offset is unplanned, even next to planned ones.
func.func @unplanned() {
  %a = tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'tile.alloc' op is not placed in its buffer (run tile-plan-memory)}}
  %b = tile.alloc : !tile.tile<acc, 16x128xf32>
  return
}

// -----

// Every unplanned site is named, also one inside a loop.
func.func @unplanned_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.alloc' op is not placed in its buffer (run tile-plan-memory)}}
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'tile.alloc' op is not placed in its buffer (run tile-plan-memory)}}
    %b = tile.alloc slot(%i) buffers(2) : !tile.tile<mat, 128x128xbf16>
  }
  return
}

// -----

// A placed site whose static extent is still `?` (tiers not specialized).
func.func @dynamic(%n: index) {
  // expected-error @+1 {{'tile.alloc' op yields '!tile.tile<vec, 128x?xf32, valid = 128x?>' with a dynamic static extent after tier specialization}}
  %t = tile.alloc shape(%n) valid(%n) at 0 : !tile.tile<vec, 128x?xf32, valid = 128x?>
  return
}

// -----

// An unplanned site with a `?` extent gets both errors.
func.func @dynamic_unplanned(%n: index) {
  // expected-error @+2 {{'tile.alloc' op yields '!tile.tile<mat, ?x128xbf16, valid = ?x128>' with a dynamic static extent after tier specialization}}
  // expected-error @+1 {{'tile.alloc' op is not placed in its buffer (run tile-plan-memory)}}
  %t = tile.alloc shape(%n) valid(%n) : !tile.tile<mat, ?x128xbf16, valid = ?x128>
  return
}

// -----

// Any op yielding a tile with a `?` static extent is named, not only
// tile.alloc: here a reshape of a planned static site.
func.func @dynamic_reshape() {
  %q = tile.alloc at 0 : !tile.tile<vec, 48x128xbf16>
  // expected-error @+1 {{'tile.reshape' op yields '!tile.tile<vec, ?x128xbf16, valid = ?x128>' with a dynamic static extent after tier specialization}}
  %r = tile.reshape %q : !tile.tile<vec, 48x128xbf16> to !tile.tile<vec, ?x128xbf16, valid = ?x128>
  return
}

// -----

// A tile argument's extent must be static too.
// expected-error @+1 {{'func.func' op has an argument of type '!tile.tile<vec, ?x128xf32, valid = ?x128>' with a dynamic static extent after tier specialization}}
func.func @dynamic_argument(%t: !tile.tile<vec, ?x128xf32, valid = ?x128>) {
  return
}

// -----

// A placed site lies inside its buffer.
func.func @past_budget() {
  // expected-error @+1 {{'tile.alloc' op ends at byte 1056768 of UB, past its 196608 bytes}}
  %a = tile.alloc at 1048576 : !tile.tile<vec, 16x128xf32>
  return
}
