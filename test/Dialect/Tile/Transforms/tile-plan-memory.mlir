// RUN: wsp-opt %s --tile-plan-memory -split-input-file -verify-diagnostics | FileCheck %s
// The error cases below make the run with the report fail as a whole; only
// the remarks of the kernels that plan are checked.
// RUN: not wsp-opt %s --tile-plan-memory=report=true -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// Sites in program order, each buffer from 0: vec in UB, mat in L1,
// left/right/acc in L0A/L0B/L0C; sites of different buffers do not move
// each other. Sizes: rows x cols x element bytes, packed without padding
// (every tile is a whole number of 32-byte blocks, so offsets stay aligned).
// CHECK-LABEL: func.func @program_order
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<mat, 128x128xbf16>
// CHECK-NEXT: tile.alloc at 8192 : !tile.tile<vec, 16x1xf32, col_major>
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<left, 16x64xf16>
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<right, 64x32xi8>
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<acc, 16x32xi32>
// CHECK-NEXT: tile.alloc at 8256 : !tile.tile<vec, 1x8xf32>
// CHECK-NEXT: tile.alloc at 32768 : !tile.tile<mat, 128x64xbf16, zn>
// CHECK-NEXT: tile.alloc at 2048 : !tile.tile<left, 16x64xf16>
// CHECK-NEXT: tile.alloc at 2048 : !tile.tile<right, 64x32xi8>
// CHECK-NEXT: tile.alloc at 2048 : !tile.tile<acc, 16x128xf32>
// CHECK-NEXT: tile.alloc at 8288 : !tile.tile<vec, 8x1xf32, col_major>
// The report gives each used buffer's end: the last site's offset + bytes.
// REPORT: tile-plan-memory.mlir:[[@LINE+1]]:1: remark: tiles use 8320 of 196608 bytes of UB, 49152 of 524288 bytes of L1, 4096 of 65536 bytes of L0A, 4096 of 65536 bytes of L0B, 10240 of 131072 bytes of L0C{{$}}
func.func @program_order() {
  %v0 = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m0 = tile.alloc : !tile.tile<mat, 128x128xbf16>
  %v1 = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  %l0 = tile.alloc : !tile.tile<left, 16x64xf16>
  %r0 = tile.alloc : !tile.tile<right, 64x32xi8>
  %a0 = tile.alloc : !tile.tile<acc, 16x32xi32>
  %v2 = tile.alloc : !tile.tile<vec, 1x8xf32>
  %m1 = tile.alloc : !tile.tile<mat, 128x64xbf16, zn>
  %l1 = tile.alloc : !tile.tile<left, 16x64xf16>
  %r1 = tile.alloc : !tile.tile<right, 64x32xi8>
  %a1 = tile.alloc : !tile.tile<acc, 16x128xf32>
  %v3 = tile.alloc : !tile.tile<vec, 8x1xf32, col_major>
  return
}

// -----

// Program order reaches into regions: a site in a loop or a branch is one
// site, placed where it appears.
// CHECK-LABEL: func.func @nested
// CHECK: tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
// CHECK: scf.for
// CHECK: tile.alloc slot(%{{.*}}) buffers(2) at 8192 : !tile.tile<vec, 16x128xbf16>
// CHECK: scf.if
// CHECK: tile.alloc at 16384 : !tile.tile<vec, 16x128xf32>
// CHECK: tile.alloc at 24576 : !tile.tile<vec, 1x8xf32>
func.func @nested(%n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    %b = tile.alloc slot(%i) buffers(2) : !tile.tile<vec, 16x128xbf16>
    scf.if %c {
      %d = tile.alloc : !tile.tile<vec, 16x128xf32>
    }
  }
  %e = tile.alloc : !tile.tile<vec, 1x8xf32>
  return
}

// -----

// buffers(N) reserves N copies: 2 x 32768 bytes of L1, then 8 x 8192 bytes
// of UB; the next site of each buffer starts after all copies.
// CHECK-LABEL: func.func @multi_buffer
// CHECK-NEXT: tile.alloc slot(%{{.*}}) buffers(2) at 0 : !tile.tile<mat, 128x128xbf16>
// CHECK-NEXT: tile.alloc at 65536 : !tile.tile<mat, 16x128xbf16>
// CHECK-NEXT: tile.alloc slot(%{{.*}}) buffers(8) at 0 : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: tile.alloc at 65536 : !tile.tile<vec, 16x128xf32>
// REPORT: tile-plan-memory.mlir:[[@LINE+1]]:1: remark: tiles use 73728 of 196608 bytes of UB, 69632 of 524288 bytes of L1{{$}}
func.func @multi_buffer(%i: index) {
  %k = tile.alloc slot(%i) buffers(2) : !tile.tile<mat, 128x128xbf16>
  %q = tile.alloc : !tile.tile<mat, 16x128xbf16>
  %s = tile.alloc slot(%i) buffers(8) : !tile.tile<vec, 16x128xf32>
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  return
}

// -----

// Sites placed by hand keep their offset; the others start after the end of
// the furthest one in their buffer (here the double-buffered site at 16384,
// which ends at 16384 + 2 x 8192, not the later site at 0), even when they
// come first. A hand-placed site of another buffer (L1) does not move UB
// sites, and an untouched buffer (L0A) still starts at 0.
// CHECK-LABEL: func.func @preplaced
// CHECK-NEXT: tile.alloc at 32768 : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: tile.alloc slot(%{{.*}}) buffers(2) at 16384 : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: tile.alloc at 65536 : !tile.tile<mat, 128x128xbf16>
// CHECK-NEXT: tile.alloc at 40960 : !tile.tile<vec, 1x8xf32>
// CHECK-NEXT: tile.alloc at 98304 : !tile.tile<mat, 16x128xbf16>
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<left, 16x64xf16>
// REPORT: tile-plan-memory.mlir:[[@LINE+1]]:1: remark: tiles use 40992 of 196608 bytes of UB, 102400 of 524288 bytes of L1, 2048 of 65536 bytes of L0A{{$}}
func.func @preplaced(%i: index) {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %c = tile.alloc slot(%i) buffers(2) at 16384 : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc at 65536 : !tile.tile<mat, 128x128xbf16>
  %d = tile.alloc : !tile.tile<vec, 1x8xf32>
  %n = tile.alloc : !tile.tile<mat, 16x128xbf16>
  %l = tile.alloc : !tile.tile<left, 16x64xf16>
  return
}

// -----

// Each function and each kernel is planned on its own, from offset 0; a
// function without tiles gets no report.
// CHECK-LABEL: func.func @first
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: tile.alloc at 8192 : !tile.tile<vec, 16x128xf32>
// CHECK-LABEL: func.func @second
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
// CHECK-LABEL: wsp.kernel @k_tier0
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<vec, 1x8xf32>
// CHECK-LABEL: func.func @no_tiles
// REPORT: tile-plan-memory.mlir:[[@LINE+1]]:1: remark: tiles use 16384 of 196608 bytes of UB{{$}}
func.func @first() {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  return
}
// REPORT: tile-plan-memory.mlir:[[@LINE+1]]:1: remark: tiles use 8192 of 196608 bytes of UB{{$}}
func.func @second() {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  return
}
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
// REPORT: tile-plan-memory.mlir:[[@LINE+1]]:1: remark: tiles use 32 of 196608 bytes of UB{{$}}
wsp.kernel @k_tier0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>) {
  %a = tile.alloc : !tile.tile<vec, 1x8xf32>
  wsp.return
}
// REPORT-NOT: remark
func.func @no_tiles() {
  return
}

// -----

// Exactly the A2/A3 budgets is not an overflow: UB 196608 (3 x 65536),
// L1 524288, L0A 65536 (2 x 32768), L0B 65536, L0C 131072.
// CHECK-LABEL: func.func @exact_fit
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<vec, 128x128xf32>
// CHECK-NEXT: tile.alloc at 65536 : !tile.tile<vec, 128x128xf32>
// CHECK-NEXT: tile.alloc at 131072 : !tile.tile<vec, 128x128xf32>
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<mat, 512x512xbf16>
// CHECK-NEXT: tile.alloc slot(%{{.*}}) buffers(2) at 0 : !tile.tile<left, 128x128xf16>
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<right, 128x256xf16>
// CHECK-NEXT: tile.alloc at 0 : !tile.tile<acc, 128x256xf32>
// REPORT: tile-plan-memory.mlir:[[@LINE+1]]:1: remark: tiles use 196608 of 196608 bytes of UB, 524288 of 524288 bytes of L1, 65536 of 65536 bytes of L0A, 65536 of 65536 bytes of L0B, 131072 of 131072 bytes of L0C{{$}}
func.func @exact_fit(%i: index) {
  %v0 = tile.alloc : !tile.tile<vec, 128x128xf32>
  %v1 = tile.alloc : !tile.tile<vec, 128x128xf32>
  %v2 = tile.alloc : !tile.tile<vec, 128x128xf32>
  %m = tile.alloc : !tile.tile<mat, 512x512xbf16>
  %l = tile.alloc slot(%i) buffers(2) : !tile.tile<left, 128x128xf16>
  %r = tile.alloc : !tile.tile<right, 128x256xf16>
  %a = tile.alloc : !tile.tile<acc, 128x256xf32>
  return
}

// -----

// One 32-byte block over the UB budget: the error is at the site that
// overflows (the fourth), with the bytes the kernel's UB tiles need.
func.func @over_ub() {
  %v0 = tile.alloc : !tile.tile<vec, 128x128xf32>
  %v1 = tile.alloc : !tile.tile<vec, 128x128xf32>
  %v2 = tile.alloc : !tile.tile<vec, 128x128xf32>
  // expected-error @+1 {{'tile.alloc' op does not fit: '!tile.tile<vec, 1x8xf32>' x 1 needs 32 bytes of UB at offset 196608; the kernel's UB tiles need 196640 bytes of the A2/A3 budget of 196608}}
  %v3 = tile.alloc : !tile.tile<vec, 1x8xf32>
  return
}

// -----

// Double buffering counts twice against L1: 2 x 262144 bytes after a
// 4096-byte site. Only the first overflow is reported (the L0A site after
// it would not fit either).
func.func @over_l1(%i: index) {
  %q = tile.alloc : !tile.tile<mat, 16x128xbf16>
  // expected-error @+1 {{'tile.alloc' op does not fit: '!tile.tile<mat, 256x512xbf16>' x 2 needs 524288 bytes of L1 at offset 4096; the kernel's L1 tiles need 528384 bytes of the A2/A3 budget of 524288}}
  %k = tile.alloc slot(%i) buffers(2) : !tile.tile<mat, 256x512xbf16>
  %l = tile.alloc slot(%i) buffers(3) : !tile.tile<left, 128x128xf16>
  return
}

// -----

// L0B and L0C budgets, one function each: a failing function does not stop
// the others from being checked.
func.func @over_l0b() {
  %r0 = tile.alloc : !tile.tile<right, 128x256xf16>
  // expected-error @+1 {{'tile.alloc' op does not fit: '!tile.tile<right, 64x32xi8>' x 1 needs 2048 bytes of L0B at offset 65536; the kernel's L0B tiles need 67584 bytes of the A2/A3 budget of 65536}}
  %r1 = tile.alloc : !tile.tile<right, 64x32xi8>
  return
}
func.func @over_l0c() {
  %a0 = tile.alloc : !tile.tile<acc, 128x256xf32>
  // expected-error @+1 {{'tile.alloc' op does not fit: '!tile.tile<acc, 16x16xf32>' x 1 needs 1024 bytes of L0C at offset 131072; the kernel's L0C tiles need 132096 bytes of the A2/A3 budget of 131072}}
  %a1 = tile.alloc : !tile.tile<acc, 16x16xf32>
  return
}

// -----

// In a tier-specialized kernel the error names the tier: 3 x 32768 bytes
// of L0A.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]
wsp.kernel @k_tier1 tiers(@T) tier(1) (%d: !wsp.descriptor<attention>, %i: index) {
  // expected-error @+1 {{'tile.alloc' op does not fit: '!tile.tile<left, 128x128xf16>' x 3 needs 98304 bytes of L0A at offset 0; the kernel's L0A tiles need 98304 bytes of the A2/A3 budget of 65536 (tier 1)}}
  %l = tile.alloc slot(%i) buffers(3) : !tile.tile<left, 128x128xf16>
  wsp.return
}

// -----

// A site placed by hand past the budget is an error at that site too.
func.func @over_preplaced() {
  // expected-error @+1 {{'tile.alloc' op does not fit: '!tile.tile<vec, 64x128xf32>' x 1 needs 32768 bytes of UB at offset 180224; the kernel's UB tiles need 212992 bytes of the A2/A3 budget of 196608}}
  %b = tile.alloc at 180224 : !tile.tile<vec, 64x128xf32>
  %c = tile.alloc : !tile.tile<vec, 1x8xf32>
  return
}

// -----

// A tile whose static extent is still `?` has no size: tiers must be
// specialized first. No other site is an error.
func.func @dynamic(%n: index) {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'tile.alloc' op has a dynamic static extent ('!tile.tile<vec, 128x?xf32, valid = 128x?>'); specialize tiers before planning memory}}
  %t = tile.alloc shape(%n) valid(%n) : !tile.tile<vec, 128x?xf32, valid = 128x?>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  return
}

// -----

// The error is at the first site that overflows and says what the
// kernel's tiles need in all: five 64 KiB UB sites, 327680 bytes.
func.func @kernel_total() {
  %v0 = tile.alloc : !tile.tile<vec, 128x128xf32>
  %v1 = tile.alloc : !tile.tile<vec, 128x128xf32>
  %v2 = tile.alloc : !tile.tile<vec, 128x128xf32>
  // expected-error @+1 {{'tile.alloc' op does not fit: '!tile.tile<vec, 128x128xf32>' x 1 needs 65536 bytes of UB at offset 196608; the kernel's UB tiles need 327680 bytes of the A2/A3 budget of 196608}}
  %v3 = tile.alloc : !tile.tile<vec, 128x128xf32>
  %v4 = tile.alloc : !tile.tile<vec, 128x128xf32>
  return
}

// -----

// A site placed by hand past the budget is named, not a site the planner
// then pushes past it.
func.func @blame_preplaced() {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'tile.alloc' op does not fit: '!tile.tile<vec, 64x128xf32>' x 1 needs 32768 bytes of UB at offset 180224; the kernel's UB tiles need 212992 bytes of the A2/A3 budget of 196608}}
  %b = tile.alloc at 180224 : !tile.tile<vec, 64x128xf32>
  return
}

// -----

// Sites placed by hand share no bytes.
func.func @overlap() {
  // expected-note @+1 {{the other site}}
  %a = tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'tile.alloc' op shares bytes [4096, 8192) of UB with another site placed by hand}}
  %b = tile.alloc at 4096 : !tile.tile<vec, 16x128xf32>
  return
}
