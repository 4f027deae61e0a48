// RUN: wsp-opt %s -split-input-file --tile-insert-sync | FileCheck %s
// RUN: wsp-opt %s -split-input-file --tile-insert-sync="prune=false" | FileCheck %s --check-prefix=NOPRUNE
// The pass is idempotent: a second run finds every pair ordered and the
// invocation fence in place.
// RUN: wsp-opt %s -split-input-file --tile-insert-sync | wsp-opt -split-input-file --tile-insert-sync | FileCheck %s
// What the pass inserts satisfies the contract.
// RUN: wsp-opt %s -split-input-file --tile-insert-sync | wsp-opt -split-input-file --tile-check-sync -o /dev/null

// RAW between two pipes of one core: set_flag mte2 -> v right after the
// load, wait_flag right before the V op that reads it (and V -> MTE3 likewise).
// CHECK-LABEL: func.func @raw
// CHECK:      %[[A:.*]] = tile.alloc : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: %[[B:.*]] = tile.alloc : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: tile.load %[[A]],
// CHECK-NEXT: tile.set_flag mte2 -> v event(0)
// CHECK-NEXT: tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT: tile.exp %[[B]], %[[A]]
// CHECK-NEXT: tile.set_flag v -> mte3 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte3 event(0)
// CHECK-NEXT: tile.store %{{.*}}[%{{.*}}, %{{.*}}], %[[B]]
// CHECK-NEXT: tile.barrier all
// CHECK-NEXT: return
func.func @raw(%in: memref<?x128xf32>, %out: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.store %out[%c0, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// WAR: the second load overwrites a tile V still reads, so it waits for a
// V -> MTE2 flag set after the reader.
// CHECK-LABEL: func.func @war
// CHECK:      tile.load %[[A:[^ ,]+]], %{{.*}}[%c0, %c0]
// CHECK-NEXT: tile.set_flag mte2 -> v event(0)
// CHECK-NEXT: tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT: tile.exp %{{.*}}, %[[A]]
// CHECK-NEXT: tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT: tile.load %[[A]], %{{.*}}[%c16, %c0]
// CHECK-NEXT: tile.barrier all
func.func @war(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c16, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  return
}

// -----

// WAW: a V fill and a load (MTE2) both write the tile; the later writer
// waits for the earlier one.
// CHECK-LABEL: func.func @waw
// CHECK:      tile.expands %[[A:[^ ,]+]], %{{.*}} :
// CHECK-NEXT: tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT: tile.load %[[A]],
// CHECK-NEXT: tile.barrier all
func.func @waw(%in: memref<?x128xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.expands %a, %x : !tile.tile<vec, 16x128xf32>, f32
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  return
}

// -----

// Within V: no barrier in a chain of element-wise ops over one tile; a
// reduction reading it, and a broadcast reading the reduction, need barrier v.
// CHECK-LABEL: func.func @vector_pipe
// CHECK:      tile.expands %[[A:[^ ,]+]],
// CHECK-NOT:  tile.barrier
// CHECK:      tile.muls %[[A]], %[[A]],
// CHECK-NOT:  tile.barrier
// CHECK:      tile.exp %[[A]], %[[A]]
// CHECK-NEXT: tile.barrier v
// CHECK-NEXT: tile.rowmax %[[M:[^ ,]+]], %[[A]],
// CHECK-NEXT: tile.barrier v
// CHECK-NEXT: tile.rowexpandsub %{{.*}}, %[[A]], %[[M]],
// CHECK-NEXT: tile.barrier all
func.func @vector_pipe(%x: f32) {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  tile.expands %a, %x : !tile.tile<vec, 16x128xf32>, f32
  tile.muls %a, %a, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
  tile.exp %a, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.rowmax %m, %a, %t : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.rowexpandsub %b, %a, %m, %t : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// Within V, another shape of the same bytes: an element-wise read through a
// reshape needs a barrier; element-wise ops through one view do not.
// CHECK-LABEL: func.func @vector_pipe_view
// CHECK:      %[[M:.*]] = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
// CHECK-NEXT: %[[MR:.*]] = tile.reshape %[[M]]
// CHECK:      tile.expands %[[M]],
// CHECK-NEXT: tile.barrier v
// CHECK-NEXT: tile.adds %[[O:[^ ,]+]], %[[MR]],
// CHECK-NEXT: tile.muls %[[O]], %[[O]],
// CHECK-NEXT: tile.expands %[[MR]],
// CHECK-NEXT: tile.adds %[[O]], %[[MR]],
// CHECK-NEXT: tile.barrier all
func.func @vector_pipe_view(%x: f32) {
  %m = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  %mr = tile.reshape %m : !tile.tile<vec, 16x1xf32, col_major> to !tile.tile<vec, 1x16xf32>
  %o = tile.alloc : !tile.tile<vec, 1x16xf32>
  tile.expands %m, %x : !tile.tile<vec, 16x1xf32, col_major>, f32
  tile.adds %o, %mr, %x : !tile.tile<vec, 1x16xf32>, !tile.tile<vec, 1x16xf32>, f32
  tile.muls %o, %o, %x : !tile.tile<vec, 1x16xf32>, !tile.tile<vec, 1x16xf32>, f32
  tile.expands %mr, %x : !tile.tile<vec, 1x16xf32>, f32
  tile.adds %o, %mr, %x : !tile.tile<vec, 1x16xf32>, !tile.tile<vec, 1x16xf32>, f32
  return
}

// -----

// An order implied by other flags is not repeated: the store of the loaded
// tile is already after MTE2 through MTE2 -> V -> MTE3, so no mte2 -> mte3.
// CHECK-LABEL: func.func @implied
// CHECK:      tile.set_flag mte2 -> v event(0)
// CHECK:      tile.set_flag v -> mte3 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte3 event(0)
// CHECK-NEXT: tile.store %{{.*}}[%c0, %c0],
// CHECK-NEXT: tile.store %{{.*}}[%c16, %c0],
// CHECK-NEXT: tile.barrier all
func.func @implied(%in: memref<?x128xf32>, %out: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.store %out[%c0, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.store %out[%c16, %c0], %a : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// Cube -> vector through a GM workspace: sync_set after the FIX store,
// sync_wait before the vector load; pruning keeps only half the end handshake.
// CHECK-LABEL: func.func @cube_to_vector
// CHECK:      tile.matmul
// CHECK-NEXT: tile.set_flag m -> fix event(0)
// CHECK-NEXT: tile.wait_flag m -> fix event(0)
// CHECK-NEXT: tile.store %[[WS:arg[0-9]+]][%c0, %c0], %{{.*}} : memref<?x128xf32>, !tile.tile<acc, 16x128xf32>
// CHECK-NEXT: tile.sync_set cube fix event(0)
// CHECK-NEXT: %[[V:.*]] = tile.alloc : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: tile.sync_wait vector event(0)
// CHECK-NEXT: tile.load %[[V]], %[[WS]][%c0, %c0]
// CHECK-NEXT: tile.set_flag mte2 -> mte3 event(0)
// CHECK-NEXT: tile.wait_flag mte2 -> mte3 event(0)
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.barrier all
// CHECK-NEXT: tile.sync_set vector mte3 event(0)
// CHECK-NEXT: tile.sync_wait cube event(0)
// CHECK-NEXT: return
// NOPRUNE-LABEL: func.func @cube_to_vector
// NOPRUNE:      tile.barrier all
// NOPRUNE-NEXT: tile.sync_set cube fix event(0)
// NOPRUNE-NEXT: tile.sync_wait vector event(0)
// NOPRUNE-NEXT: tile.sync_set vector mte3 event(0)
// NOPRUNE-NEXT: tile.sync_wait cube event(0)
// NOPRUNE-NEXT: return
func.func @cube_to_vector(%ws: memref<?x128xf32>, %out: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %l = tile.alloc : !tile.tile<left, 16x128xbf16>
  %r = tile.alloc : !tile.tile<right, 128x128xbf16>
  %s = tile.alloc : !tile.tile<acc, 16x128xf32>
  tile.matmul %s, %l, %r : !tile.tile<acc, 16x128xf32>, !tile.tile<left, 16x128xbf16>, !tile.tile<right, 128x128xbf16>
  tile.store %ws[%c0, %c0], %s : memref<?x128xf32>, !tile.tile<acc, 16x128xf32>
  %v = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %v, %ws[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.store %out[%c0, %c0], %v : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// Vector -> cube: sync_set after the MTE3 store, sync_wait before the cube
// load; the fence keeps cube -> vector (next store after this cube load).
// CHECK-LABEL: func.func @vector_to_cube
// CHECK:      tile.store %[[WS:arg[0-9]+]][%c0, %c0], %{{.*}} : memref<?x128xbf16>, !tile.tile<vec, 16x128xbf16>
// CHECK-NEXT: tile.sync_set vector mte3 event(0)
// CHECK-NEXT: %[[M:.*]] = tile.alloc : !tile.tile<mat, 16x128xbf16>
// CHECK-NEXT: tile.sync_wait cube event(0)
// CHECK-NEXT: tile.load %[[M]], %[[WS]][%c0, %c0]
// CHECK-NEXT: tile.barrier all
// CHECK-NEXT: tile.sync_set cube fix event(0)
// CHECK-NEXT: tile.sync_wait vector event(0)
// CHECK-NEXT: return
func.func @vector_to_cube(%in: memref<?x128xbf16>, %ws: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %v = tile.alloc : !tile.tile<vec, 16x128xbf16>
  tile.load %v, %in[%c0, %c0] : !tile.tile<vec, 16x128xbf16>, memref<?x128xbf16>
  tile.store %ws[%c0, %c0], %v : memref<?x128xbf16>, !tile.tile<vec, 16x128xbf16>
  %m = tile.alloc : !tile.tile<mat, 16x128xbf16>
  tile.load %m, %ws[%c0, %c0] : !tile.tile<mat, 16x128xbf16>, memref<?x128xbf16>
  return
}

// -----

// The invocation fence of a function on one core: `tile.barrier all` at the
// end and no cross-core handshake, pruned or not.
// CHECK-LABEL: func.func @fence_one_core
// CHECK:      tile.expands
// CHECK-NEXT: tile.barrier all
// CHECK-NOT:  tile.sync_
// CHECK:      return
// NOPRUNE-LABEL: func.func @fence_one_core
// NOPRUNE:      tile.barrier all
// NOPRUNE-NOT:  tile.sync_
// NOPRUNE:      return
func.func @fence_one_core(%x: f32) {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.expands %a, %x : !tile.tile<vec, 16x128xf32>, f32
  return
}

// -----

// Loop-carried RAW (V reads early what MTE2 loads late): set after the
// load, waited before the read, plus one set before and one wait after the loop.
// CHECK-LABEL: func.func @loop_carried
// CHECK:      tile.set_flag mte2 -> v event(0)
// CHECK-NEXT: scf.for %[[I:.*]] = %c0 to
// CHECK-NEXT:   tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT:   tile.exp %{{.*}}, %[[A:[^ ,]+]] :
// CHECK-NEXT:   tile.set_flag v -> mte2 event(0)
// CHECK-NEXT:   tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT:   tile.load %[[A]], %{{.*}}[%[[I]], %c0]
// CHECK-NEXT:   tile.set_flag mte2 -> v event(0)
// CHECK-NEXT: }
// CHECK-NEXT: tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT: tile.barrier all
func.func @loop_carried(%in: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  }
  return
}

// -----

// Nested loops: the outer loop's carried flags sit before and after it; the
// pairs with the inner loop's store are ordered around the inner loop.
// CHECK-LABEL: func.func @nested_loops
// CHECK:      tile.set_flag mte2 -> v event(0)
// CHECK-NEXT: tile.set_flag mte3 -> v event(0)
// CHECK-NEXT: scf.for
// CHECK-NEXT:   tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT:   tile.wait_flag mte3 -> v event(0)
// CHECK-NEXT:   tile.exp
// CHECK-NEXT:   tile.set_flag v -> mte2 event(0)
// CHECK-NEXT:   tile.set_flag v -> mte3 event(0)
// CHECK-NEXT:   tile.wait_flag v -> mte3 event(0)
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     tile.store
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.set_flag mte3 -> v event(0)
// CHECK-NEXT:   tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT:   tile.load
// CHECK-NEXT:   tile.set_flag mte2 -> v event(0)
// CHECK-NEXT: }
// CHECK-NEXT: tile.wait_flag mte3 -> v event(0)
// CHECK-NEXT: tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT: tile.barrier all
func.func @nested_loops(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    scf.for %j = %c0 to %m step %c1 {
      tile.store %out[%j, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
    }
    tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  }
  return
}

// -----

// Double-buffered tile with slot = induction variable: the WAR against the
// refill two iterations later uses per-slot `event(0 + %i mod 2)`.
// CHECK-LABEL: func.func @multi_buffered
// CHECK:      tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: tile.set_flag v -> mte2 event(1)
// CHECK-NEXT: scf.for %[[I:.*]] = %c0 to
// CHECK-NEXT:   %[[A:.*]] = tile.alloc slot(%[[I]]) buffers(2)
// CHECK-NEXT:   %[[N:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[SLOT:.*]] = arith.remui %[[I]], %[[N]] : index
// CHECK-NEXT:   tile.wait_flag v -> mte2 event(0 + %[[SLOT]])
// CHECK-NEXT:   tile.load %[[A]],
// CHECK-NEXT:   tile.set_flag mte2 -> v event(0)
// CHECK-NEXT:   tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT:   tile.add %{{.*}}, %{{.*}}, %[[A]]
// CHECK-NEXT:   tile.set_flag v -> mte2 event(0 + %[[SLOT]])
// CHECK-NEXT: }
// CHECK-NEXT: tile.set_flag v -> mte3 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(1)
// CHECK-NEXT: tile.wait_flag v -> mte3 event(0)
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.barrier all
func.func @multi_buffered(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = tile.alloc slot(%i) buffers(2) : !tile.tile<vec, 16x128xf32>
    tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.add %b, %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  }
  tile.store %out[%c0, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// A loop with a step names its copies by iteration number, (iv - lb) /
// step: the same per-copy events as slot = induction variable (the GEMM's
// M and K tiles do this).
// CHECK-LABEL: func.func @slot_by_iteration_number
// CHECK:      tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: tile.set_flag v -> mte2 event(1)
// CHECK-NEXT: scf.for %[[I:.*]] = %[[LB:.*]] to
// CHECK:        %[[K:.*]] = arith.divui
// CHECK-NEXT:   %[[A:.*]] = tile.alloc slot(%[[K]]) buffers(2)
// CHECK-NEXT:   %[[N:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[SLOT:.*]] = arith.remui %[[K]], %[[N]] : index
// CHECK-NEXT:   tile.wait_flag v -> mte2 event(0 + %[[SLOT]])
// CHECK-NEXT:   tile.load %[[A]],
// CHECK:        tile.set_flag v -> mte2 event(0 + %[[SLOT]])
// CHECK-NEXT: }
func.func @slot_by_iteration_number(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %lb: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %lb to %n step %c16 {
    %off = arith.subi %i, %lb : index
    %k = arith.divui %off, %c16 : index
    %a = tile.alloc slot(%k) buffers(2) : !tile.tile<vec, 16x128xf32>
    tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.add %b, %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  }
  tile.store %out[%c0, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// slot(%i) of a loop that steps by 16 does not follow its iterations (the
// copy is %i mod 2, 0 every time from an even start): its copies are
// ordered as one tile, a wait before every load.
// CHECK-LABEL: func.func @slot_not_the_iteration
// CHECK:      tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: scf.for
// CHECK-NEXT:   tile.alloc slot(%{{.*}}) buffers(2)
// CHECK-NEXT:   tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT:   tile.load
// CHECK:        tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: }
func.func @slot_not_the_iteration(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c16 {
    %a = tile.alloc slot(%i) buffers(2) : !tile.tile<vec, 16x128xf32>
    tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.add %b, %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  }
  tile.store %out[%c0, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// Copies that alternate with an outer loop (`slot(%j)`) used in an inner
// loop: each inner iteration waits on and sets again its copy's event, and
// the events are primed around the outer loop, not drained at every exit
// of the inner one (which would make each copy wait for the other).
// CHECK-LABEL: func.func @outer_loop_slot
// CHECK:      tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: tile.set_flag v -> mte2 event(1)
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     %[[A:.*]] = tile.alloc slot(%[[J]]) buffers(2)
// CHECK-NEXT:     %[[N:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[SLOT:.*]] = arith.remui %[[J]], %[[N]] : index
// CHECK-NEXT:     tile.wait_flag v -> mte2 event(0 + %[[SLOT]])
// CHECK-NEXT:     tile.load %[[A]],
// CHECK-NEXT:     tile.set_flag mte2 -> v event(0)
// CHECK-NEXT:     tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT:     tile.add %{{.*}}, %{{.*}}, %[[A]]
// CHECK-NEXT:     tile.set_flag v -> mte2 event(0 + %[[SLOT]])
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: tile.set_flag v -> mte3 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(1)
func.func @outer_loop_slot(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %j = %c0 to %n step %c1 {
    scf.for %p = %c0 to %m step %c1 {
      %a = tile.alloc slot(%j) buffers(2) : !tile.tile<vec, 16x128xf32>
      tile.load %a, %in[%p, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
      tile.add %b, %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    }
  }
  tile.store %out[%c0, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// The same copies allocated in the outer loop's body, before the inner loop
// that uses them: per-copy events too, primed around the outer loop.
// CHECK-LABEL: func.func @slot_before_inner_loop
// CHECK:      tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: tile.set_flag v -> mte2 event(1)
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to
// CHECK-NEXT:   %[[A:.*]] = tile.alloc slot(%[[J]]) buffers(2)
// CHECK-NEXT:   %[[N:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[SLOT:.*]] = arith.remui %[[J]], %[[N]] : index
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     arith.cmpi
// CHECK-NEXT:     tile.wait_flag v -> mte2 event(0 + %[[SLOT]])
// CHECK-NEXT:     scf.if
// CHECK-NEXT:       tile.load %[[A]],
// CHECK-NEXT:     }
// CHECK:          tile.add %{{.*}}, %{{.*}}, %[[A]]
// CHECK-NEXT:     tile.set_flag v -> mte2 event(0 + %[[SLOT]])
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: tile.set_flag v -> mte3 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(1)
func.func @slot_before_inner_loop(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %j = %c0 to %n step %c1 {
    %a = tile.alloc slot(%j) buffers(2) : !tile.tile<vec, 16x128xf32>
    scf.for %p = %c0 to %m step %c1 {
      %first = arith.cmpi eq, %p, %c0 : index
      scf.if %first {
        tile.load %a, %in[%j, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
      }
      tile.add %b, %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    }
  }
  tile.store %out[%c0, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// The same with the outer loop stepping by 16 and its copies named by
// iteration number, (j - lb) / 16 (what tile-pipeline writes): primed
// around the outer loop too, not drained at each exit of the inner one.
// CHECK-LABEL: func.func @numbered_slot_before_inner_loop
// CHECK:      tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: tile.set_flag v -> mte2 event(1)
// CHECK-NEXT: scf.for
// CHECK:        %[[K:.*]] = arith.divui
// CHECK-NEXT:   %[[A:.*]] = tile.alloc slot(%[[K]]) buffers(2)
// CHECK:        scf.for
// CHECK:          tile.wait_flag v -> mte2 event(0 + %{{.*}})
// CHECK:          tile.set_flag v -> mte2 event(0 + %{{.*}})
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: tile.set_flag v -> mte3 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(1)
func.func @numbered_slot_before_inner_loop(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %lb: index, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %j = %lb to %n step %c16 {
    %off = arith.subi %j, %lb : index
    %k = arith.divui %off, %c16 : index
    %a = tile.alloc slot(%k) buffers(2) : !tile.tile<vec, 16x128xf32>
    scf.for %p = %c0 to %m step %c1 {
      %first = arith.cmpi eq, %p, %c0 : index
      scf.if %first {
        tile.load %a, %in[%j, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
      }
      tile.add %b, %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    }
  }
  tile.store %out[%c0, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// Cube and vector share a workspace in a loop: RAW cube -> vector per
// iteration, and a loop-carried cross-core WAR (vector read, next cube store).
// CHECK-LABEL: func.func @cross_core_loop
// CHECK:      tile.set_flag fix -> m event(0)
// CHECK-NEXT: tile.sync_set vector mte2 event(0)
// CHECK-NEXT: tile.set_flag mte3 -> mte2 event(0)
// CHECK-NEXT: scf.for
// CHECK-NEXT:   tile.wait_flag fix -> m event(0)
// CHECK-NEXT:   tile.matmul
// CHECK-NEXT:   tile.set_flag m -> fix event(0)
// CHECK-NEXT:   tile.wait_flag m -> fix event(0)
// CHECK-NEXT:   tile.sync_wait cube event(0)
// CHECK-NEXT:   tile.store %[[WS:arg[0-9]+]][%c0, %c0], %{{.*}} : memref<?x128xf32>, !tile.tile<acc
// CHECK-NEXT:   tile.set_flag fix -> m event(0)
// CHECK-NEXT:   tile.sync_set cube fix event(0)
// CHECK-NEXT:   tile.sync_wait vector event(0)
// CHECK-NEXT:   tile.wait_flag mte3 -> mte2 event(0)
// CHECK-NEXT:   tile.load %{{.*}}, %[[WS]][%c0, %c0]
// CHECK-NEXT:   tile.sync_set vector mte2 event(0)
// CHECK-NEXT:   tile.set_flag mte2 -> mte3 event(0)
// CHECK-NEXT:   tile.wait_flag mte2 -> mte3 event(0)
// CHECK-NEXT:   tile.store
// CHECK-NEXT:   tile.set_flag mte3 -> mte2 event(0)
// CHECK-NEXT: }
// CHECK-NEXT: tile.wait_flag mte3 -> mte2 event(0)
// CHECK-NEXT: tile.sync_wait cube event(0)
// CHECK-NEXT: tile.wait_flag fix -> m event(0)
// CHECK-NEXT: tile.barrier all
// CHECK-NEXT: return
// NOPRUNE-LABEL: func.func @cross_core_loop
// NOPRUNE:      tile.barrier all
// NOPRUNE-NEXT: tile.sync_set cube fix event(0)
// NOPRUNE-NEXT: tile.sync_wait vector event(0)
// NOPRUNE-NEXT: tile.sync_set vector mte3 event(0)
// NOPRUNE-NEXT: tile.sync_wait cube event(0)
// NOPRUNE-NEXT: return
func.func @cross_core_loop(%ws: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = tile.alloc : !tile.tile<left, 16x128xbf16>
  %r = tile.alloc : !tile.tile<right, 128x128xbf16>
  %s = tile.alloc : !tile.tile<acc, 16x128xf32>
  %v = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    tile.matmul %s, %l, %r : !tile.tile<acc, 16x128xf32>, !tile.tile<left, 16x128xbf16>, !tile.tile<right, 128x128xbf16>
    tile.store %ws[%c0, %c0], %s : memref<?x128xf32>, !tile.tile<acc, 16x128xf32>
    tile.load %v, %ws[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.store %out[%i, %c0], %v : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  }
  return
}

// -----

// Producers in both branches of an scf.if, consumer after it: both flags
// are set after the scf.if (closest common block), so every path sets once.
// CHECK-LABEL: func.func @if_producers
// CHECK:      scf.if
// CHECK-NEXT:   tile.load
// CHECK-NEXT: } else {
// CHECK-NEXT:   tile.expands
// CHECK-NEXT: }
// CHECK-NEXT: tile.set_flag mte2 -> mte3 event(0)
// CHECK-NEXT: tile.set_flag v -> mte3 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte3 event(0)
// CHECK-NEXT: tile.wait_flag mte2 -> mte3 event(0)
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.barrier all
func.func @if_producers(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %c: i1, %x: f32) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.if %c {
    tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  } else {
    tile.expands %a, %x : !tile.tile<vec, 16x128xf32>, f32
  }
  tile.store %out[%c0, %c0], %a : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// Producer before an scf.if, consumer inside it: the wait goes before the
// scf.if (both paths consume it); the pair within the branch stays inside.
// CHECK-LABEL: func.func @if_consumer
// CHECK:      tile.load
// CHECK-NEXT: tile.set_flag mte2 -> v event(0)
// CHECK-NEXT: tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT: scf.if
// CHECK-NEXT:   tile.exp
// CHECK-NEXT:   tile.set_flag v -> mte3 event(0)
// CHECK-NEXT:   tile.wait_flag v -> mte3 event(0)
// CHECK-NEXT:   tile.store
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier all
func.func @if_consumer(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  scf.if %c {
    tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.store %out[%c0, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  }
  return
}

// -----

// Producer and consumer in different branches of one scf.if (they meet across
// iterations): both flags go around the scf.if, with sets before the loop.
// CHECK-LABEL: func.func @if_branches
// CHECK:      tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: tile.set_flag mte2 -> v event(0)
// CHECK-NEXT: scf.for
// CHECK-NEXT:   arith.remui
// CHECK-NEXT:   arith.cmpi
// CHECK-NEXT:   tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT:   tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT:   scf.if
// CHECK-NEXT:     tile.load
// CHECK-NEXT:   } else {
// CHECK-NEXT:     tile.exp
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.set_flag mte2 -> v event(0)
// CHECK-NEXT:   tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: }
// CHECK-NEXT: tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT: tile.barrier all
func.func @if_branches(%in: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %r, %c0 : index
    scf.if %even {
      tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    } else {
      tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    }
  }
  return
}

// -----

// A correct flag already in the input is kept as it is and not doubled;
// the pairs it does not order get new flags (event 0, free around them).
// CHECK-LABEL: func.func @existing_flag
// CHECK:      tile.load
// CHECK-NEXT: tile.set_flag mte2 -> v event(3)
// CHECK-NEXT: tile.wait_flag mte2 -> v event(3)
// CHECK-NEXT: tile.exp
// CHECK-NEXT: tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT: tile.load
// CHECK-NEXT: tile.set_flag mte2 -> v event(0)
// CHECK-NEXT: tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT: tile.exp
// CHECK-NEXT: tile.barrier all
func.func @existing_flag(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.set_flag mte2 -> v event(3)
  tile.wait_flag mte2 -> v event(3)
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// Pruning: the V -> MTE2 flag (event 1) for the load after the loop is made
// unnecessary by the loop-carried wait there; only prune=false keeps it.
// CHECK-LABEL: func.func @prune
// CHECK:      scf.for
// CHECK:        tile.set_flag v -> mte2 event(0)
// CHECK-NEXT: }
// CHECK-NEXT: tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT: tile.load %{{.*}}, %{{.*}}[%c0, %c0]
// CHECK-NEXT: tile.barrier all
// NOPRUNE-LABEL: func.func @prune
// NOPRUNE:      scf.for
// NOPRUNE:        tile.set_flag v -> mte2 event(0)
// NOPRUNE-NEXT: }
// NOPRUNE-NEXT: tile.set_flag v -> mte2 event(1)
// NOPRUNE-NEXT: tile.wait_flag v -> mte2 event(0)
// NOPRUNE-NEXT: tile.wait_flag v -> mte2 event(1)
// NOPRUNE-NEXT: tile.load %{{.*}}, %{{.*}}[%c0, %c0]
// NOPRUNE-NEXT: tile.barrier all
func.func @prune(%in: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  }
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  return
}

// -----

// A function without tile instructions is left alone: no fence.
// CHECK-LABEL: func.func @no_instructions
// CHECK-NEXT: tile.alloc
// CHECK-NEXT: return
func.func @no_instructions() {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  return
}

// -----

// An event id held by a flag pair around the new pair is not reused: the
// user's event 0 is live from before the first load to after the exp, so
// the new MTE2 -> V flag takes event 1.
// CHECK-LABEL: func.func @spanning_flag
// CHECK:      tile.set_flag mte2 -> v event(0)
// CHECK-NEXT: tile.load
// CHECK-NEXT: tile.set_flag mte2 -> v event(1)
// CHECK-NEXT: tile.wait_flag mte2 -> v event(1)
// CHECK-NEXT: tile.exp
// CHECK-NEXT: tile.wait_flag mte2 -> v event(0)
func.func @spanning_flag(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %x = tile.alloc : !tile.tile<vec, 16x128xf32>
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  %c = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %x, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.set_flag mte2 -> v event(0)
  tile.load %a, %in[%c16, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.wait_flag mte2 -> v event(0)
  tile.exp %c, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// A pair across the iterations of an scf.while, both in its "do" region:
// ordered like a for loop's (the flag set before the loop, waited after).
// CHECK-LABEL: func.func @while_loop
// CHECK:      tile.set_flag v -> mte2 event(0)
// CHECK:      scf.while
// CHECK:      } do {
// CHECK:        tile.wait_flag v -> mte2 event(0)
// CHECK-NEXT:   tile.load
// CHECK-NEXT:   tile.set_flag mte2 -> v event(0)
// CHECK-NEXT:   tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT:   tile.exp
// CHECK-NEXT:   tile.set_flag v -> mte2 event(0)
// CHECK:        scf.yield
// CHECK:      tile.wait_flag v -> mte2 event(0)
func.func @while_loop(%in: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  %r = scf.while (%i = %c0) : (index) -> index {
    %go = arith.cmpi ult, %i, %n : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    tile.load %a, %in[%j, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %k : index
  }
  return
}

// -----

// A per-slot flag `event(0 + %slot)` of a double-buffered tile holds events
// 0 and 1 only, not all eight.
// CHECK-LABEL: func.func @slot_events
// CHECK:      tile.set_flag mte3 -> mte2 event(0)
// CHECK-NEXT: tile.set_flag mte3 -> mte2 event(1)
// CHECK:      tile.wait_flag mte3 -> mte2 event(0 + %{{.*}})
// CHECK:      tile.set_flag mte2 -> mte3 event(0)
// CHECK:      tile.set_flag mte3 -> mte2 event(0 + %{{.*}})
// CHECK:      tile.wait_flag mte3 -> mte2 event(0)
// CHECK-NEXT: tile.wait_flag mte3 -> mte2 event(1)
func.func @slot_events(%in: memref<?x128xf32>, %ws: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = tile.alloc slot(%i) buffers(2) : !tile.tile<vec, 16x128xf32>
    tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.store %ws[%i, %c0], %a : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  }
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %b, %ws[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  return
}

// -----

// A kernel that already ends with `tile.barrier all` still gets the
// cross-core handshake when both cores run (here the vector core's load
// must not overtake the previous invocation's cube store).
// CHECK-LABEL: func.func @fenced_by_hand
// CHECK:      tile.barrier all
// CHECK-NOT:  tile.barrier all
// CHECK:      tile.sync_set cube fix event(0)
// CHECK-NEXT: tile.sync_wait vector event(0)
// CHECK-NEXT: return
func.func @fenced_by_hand(%ws: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %v = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %v, %ws[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  %s = tile.alloc : !tile.tile<acc, 16x128xf32>
  tile.store %ws[%c0, %c0], %s : memref<?x128xf32>, !tile.tile<acc, 16x128xf32>
  tile.barrier all
  return
}
