// RUN: wsp-opt %s --tile-pipeline=report=true -split-input-file -verify-diagnostics | FileCheck %s
// The first case through the tile stage: per-copy events, primed before
// the loop and drained after it, and the checker's proof that every
// producer/consumer pair is ordered.
// RUN: wsp-opt %s --tile-pipeline=report=true --tile-plan-memory --tile-insert-sync --tile-check-sync -split-input-file -verify-diagnostics 2>/dev/null | FileCheck %s --check-prefix=SYNC
// Without report=true, a loop that takes fewer stages than it asks says
// nothing (the lowering's row loops ask for 2 and take 1 where 2 do not
// fit); one where nothing overlaps still gets its remark.
// RUN: wsp-opt %s --tile-pipeline -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET
// QUIET: asks for 2 stages, but no tile of its body
// QUIET-NOT: remark: runs

// A row loop (step 16 from a run-time start): loaded, computed, stored.
// The tile MTE2 fills and the vector unit reads, and the one the vector
// unit writes and MTE3 drains, get two copies, taken by iteration number,
// (r - start) / 16. The scratch only the vector unit touches keeps one
// copy.
// CHECK-LABEL: func.func @rows
// CHECK:      scf.for %[[R:.*]] = %[[START:.*]] to %{{.*}} step %[[C16:.*]] {
// CHECK-NEXT:   %[[OFF:.*]] = arith.subi %[[R]], %[[START]] : index
// CHECK-NEXT:   %[[K:.*]] = arith.divui %[[OFF]], %[[C16]] : index
// CHECK-NEXT:   %[[X:.*]] = tile.alloc slot(%[[K]]) buffers(2) : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT:   %[[Y:.*]] = tile.alloc slot(%[[K]]) buffers(2) : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT:   %[[T:.*]] = tile.alloc : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT:   tile.load %[[X]], %{{.*}}[%[[R]], %{{.*}}]
// CHECK:        tile.store %{{.*}}[%[[R]], %{{.*}}], %[[Y]]
// CHECK-NOT: tile.stages
// SYNC-LABEL: func.func @rows
// SYNC:      tile.set_flag v -> mte2 event(0)
// SYNC-NEXT: tile.set_flag v -> mte2 event(1)
// SYNC:      scf.for
// SYNC:        tile.wait_flag v -> mte2 event(0 + %{{.*}})
// SYNC-NEXT:   tile.load
// SYNC:        tile.set_flag v -> mte2 event(0 + %{{.*}})
// SYNC:      tile.wait_flag v -> mte2 event(0)
// SYNC-NEXT: tile.wait_flag v -> mte2 event(1)
func.func @rows(%in: memref<?x128xf32>, %out: memref<?x128xf32>,
                %start: index, %end: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  scf.for %r = %start to %end step %c16 {
    %x = tile.alloc : !tile.tile<vec, 16x128xf32>
    %y = tile.alloc : !tile.tile<vec, 16x128xf32>
    %t = tile.alloc : !tile.tile<vec, 16x128xf32>
    tile.load %x, %in[%r, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.exp %t, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.add %y, %t, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.store %out[%r, %c0], %y : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  } {tile.stages = 2 : i64}
  return
}

// -----

// From 0 by 1: the induction variable is the iteration number already. Three
// stages: three copies.
// CHECK-LABEL: func.func @counted
// CHECK-NOT:  arith.divui
// CHECK:      scf.for %[[I:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK-NEXT:   tile.alloc slot(%[[I]]) buffers(3) : !tile.tile<vec, 16x128xf32>
func.func @counted(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = tile.alloc : !tile.tile<vec, 16x128xf32>
    tile.load %x, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.exp %x, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.store %out[%i, %c0], %x : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  } {tile.stages = 3 : i64}
  return
}

// -----

// What an iteration leaves for the next stays in one copy: an accumulator
// read before it is written, and a tile written only under a condition and
// read after it (an iteration that skips the write reads the last one's).
// CHECK-LABEL: func.func @carried
// CHECK:      scf.for
// CHECK-NEXT:   tile.alloc slot(%{{.*}}) buffers(2) : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT:   tile.alloc : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT:   tile.alloc : !tile.tile<vec, 16x128xf32>
func.func @carried(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = tile.alloc : !tile.tile<vec, 16x128xf32>
    %acc = tile.alloc : !tile.tile<vec, 16x128xf32>
    %maybe = tile.alloc : !tile.tile<vec, 16x128xf32>
    tile.load %x, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.add %acc, %acc, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.store %out[%i, %c0], %acc : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
    scf.if %p {
      tile.load %maybe, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    }
    tile.store %out[%i, %c0], %maybe : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  } {tile.stages = 2 : i64}
  return
}

// -----

// The first write inside an inner loop that runs at least once (constant
// bounds) happens in every iteration: the tile read after that loop is
// this iteration's, and gets its copies. Inside a loop that may not run,
// it would not be.
// CHECK-LABEL: func.func @inner_loops
// CHECK:      scf.for
// CHECK-NEXT:   tile.alloc slot(%{{.*}}) buffers(2) : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT:   tile.alloc : !tile.tile<vec, 16x128xf32>
func.func @inner_loops(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = tile.alloc : !tile.tile<vec, 16x128xf32>
    %y = tile.alloc : !tile.tile<vec, 16x128xf32>
    scf.for %j = %c0 to %c2 step %c1 {
      tile.load %x, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    }
    scf.for %j = %c0 to %m step %c1 {
      tile.load %y, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    }
    tile.store %out[%i, %c0], %x : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.store %out[%i, %c0], %y : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  } {tile.stages = 2 : i64}
  return
}

// -----

// Nothing to overlap: a remark, and the loop runs as it is (its attribute
// removed).
// CHECK-LABEL: func.func @nothing
// CHECK:      tile.alloc : !tile.tile<vec, 16x128xf32>
// CHECK-NOT:  tile.stages
func.func @nothing(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @below {{asks for 2 stages, but no tile of its body is filled or drained by another pipe afresh each iteration: it runs as it is}}
  scf.for %i = %c0 to %n step %c1 {
    %t = tile.alloc : !tile.tile<vec, 16x128xf32>
    tile.exp %t, %t : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  } {tile.stages = 2 : i64}
  return
}

// -----

// Two copies of two 64 KiB tiles take 256 KiB of UB's 192: with
// tile.min_stages = 1 the loop takes one copy, and says so. One copy needs
// no iteration number: none is computed.
// CHECK-LABEL: func.func @fewer
// CHECK:      scf.for
// CHECK-NEXT: tile.alloc : !tile.tile<vec, 128x128xf32>
// CHECK-NEXT: tile.alloc : !tile.tile<vec, 128x128xf32>
func.func @fewer(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  // expected-remark @below {{runs 1 stage of the 2 asked: the copies of more do not fit the kernel's buffers}}
  scf.for %i = %c0 to %n step %c2 {
    %x = tile.alloc : !tile.tile<vec, 128x128xf32>
    %y = tile.alloc : !tile.tile<vec, 128x128xf32>
    tile.load %x, %in[%i, %c0] : !tile.tile<vec, 128x128xf32>, memref<?x128xf32>
    tile.exp %y, %x : !tile.tile<vec, 128x128xf32>, !tile.tile<vec, 128x128xf32>
    tile.store %out[%i, %c0], %y : memref<?x128xf32>, !tile.tile<vec, 128x128xf32>
  } {tile.stages = 2 : i64, tile.min_stages = 1 : i64}
  return
}
