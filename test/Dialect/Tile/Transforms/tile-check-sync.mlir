// RUN: wsp-opt %s -split-input-file --tile-check-sync -verify-diagnostics
// The contract changes nothing: what passes it is printed as it was.
// RUN: wsp-opt %s -split-input-file --tile-check-sync -verify-diagnostics | FileCheck %s

// A RAW between MTE2 and V with no flag: an error at the consumer naming
// the producer, both pipes and the tile.
func.func @missing_flag(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-note @+1 {{the other access}}
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  // expected-error @+1 {{'tile.exp' op reads tile !tile.tile<vec, 16x128xf32> that 'tile.load' on vector mte2 wrote with nothing ordering them: needs tile.set_flag mte2 -> v after it and tile.wait_flag before this op}}
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.barrier all
  return
}

// -----

// A wait no set precedes: the device would hang.
func.func @wait_without_set(%x: f32) {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'tile.wait_flag' op waits for a flag no tile.set_flag / tile.sync_set sets before it on this path: the device would hang}}
  tile.wait_flag mte2 -> v event(2)
  tile.expands %a, %x : !tile.tile<vec, 16x128xf32>, f32
  tile.barrier all
  return
}

// -----

// A set no wait consumes before the kernel ends.
func.func @set_never_waited(%x: f32) {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.expands %a, %x : !tile.tile<vec, 16x128xf32>, f32
  // expected-error @+1 {{'tile.set_flag' op is never waited on: every set flag must be consumed before the kernel ends}}
  tile.set_flag v -> mte3 event(1)
  tile.barrier all
  return
}

// -----

// A set on one branch only: the paths leave different flags pending.
func.func @unbalanced_branch(%in: memref<?x128xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'scf.if' op sets or waits flags on one branch that the other does not match: every path must leave the same flags pending}}
  scf.if %c {
    tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.set_flag mte2 -> v event(0)
  }
  tile.wait_flag mte2 -> v event(0)
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.barrier all
  return
}

// -----

// A flag pair that orders nothing new (MTE2 did nothing since the first
// pair): a warning at its set; the function still passes and is printed.
// CHECK-LABEL: func.func @redundant
// CHECK:      tile.set_flag mte2 -> v event(0)
// CHECK:      tile.set_flag mte2 -> v event(1)
// CHECK-NEXT: tile.wait_flag mte2 -> v event(1)
func.func @redundant(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  %c = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // expected-warning @+1 {{is redundant: every pair it orders is ordered without it}}
  tile.set_flag mte2 -> v event(1)
  tile.wait_flag mte2 -> v event(1)
  tile.exp %c, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.barrier all
  return
}

// -----

// A reduction reading what another V instruction wrote, with no barrier.
func.func @missing_barrier(%x: f32) {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  // expected-note @+1 {{the other access}}
  tile.expands %a, %x : !tile.tile<vec, 16x128xf32>, f32
  // expected-error @+1 {{'tile.rowmax' op reads tile !tile.tile<vec, 16x128xf32> that 'tile.expands' on vector v wrote with nothing ordering them: a vector instruction reading what another wrote needs tile.barrier v between them (unless both are element-wise over the same tile)}}
  tile.rowmax %m, %a, %t : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.barrier all
  return
}

// -----

// The vector core reads the workspace the cube's fixpipe wrote with no
// cross-core flag between them.
func.func @missing_cross_core(%ws: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc : !tile.tile<acc, 16x128xf32>
  // expected-note @+1 {{the other access}}
  tile.store %ws[%c0, %c0], %s : memref<?x128xf32>, !tile.tile<acc, 16x128xf32>
  %v = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'tile.load' op reads global memory that 'tile.store' on cube fix wrote with nothing ordering them: the cube and the vector core need tile.sync_set / tile.sync_wait}}
  tile.load %v, %ws[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.barrier all
  tile.sync_set vector mte2 event(0)
  tile.sync_wait cube event(0)
  return
}

// -----

// Ordered within an iteration but not across iterations: the next
// iteration's load overwrites the tile the previous one's V read.
func.func @missing_loop_carried(%in: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'tile.load' op writes tile !tile.tile<vec, 16x128xf32> that 'tile.exp' on vector v read with nothing ordering them: needs tile.set_flag v -> mte2 after it and tile.wait_flag before this op}}
    tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.set_flag mte2 -> v event(0)
    tile.wait_flag mte2 -> v event(0)
    // expected-note @+1 {{the other access}}
    tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  }
  tile.barrier all
  return
}

// -----

// No invocation fence: the next invocation's load (the check runs the
// function twice) overwrites the tile this one's V still reads.
func.func @missing_fence(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'tile.load' op writes tile !tile.tile<vec, 16x128xf32> that 'tile.exp' on vector v read with nothing ordering them: needs tile.set_flag v -> mte2 after it and tile.wait_flag before this op}}
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  // expected-note @+1 {{the other access}}
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// A synchronized kernel (cross-core and loop-carried flags, per-slot events,
// V barriers, the fence) passes without a diagnostic and is left unchanged.
// CHECK-LABEL: func.func @correct
// CHECK:      tile.load %[[QM:[^ ,]+]], %{{.*}}[%c0, %c0] : !tile.tile<mat, 16x128xbf16>
// CHECK-NEXT: tile.set_flag mte2 -> mte1 event(0)
// CHECK-NEXT: %[[QL:.*]] = tile.alloc : !tile.tile<left, 16x128xbf16>
// CHECK-NEXT: tile.wait_flag mte2 -> mte1 event(0)
// CHECK-NEXT: tile.mov %[[QL]], %[[QM]]
// CHECK-NEXT: tile.set_flag mte1 -> m event(0)
// CHECK-NEXT: %[[KR:.*]] = tile.alloc : !tile.tile<right, 128x128xbf16>
// CHECK-NEXT: %[[S:.*]] = tile.alloc : !tile.tile<acc, 16x128xf32>
// CHECK-NEXT: %[[M:.*]] = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
// CHECK-NEXT: %[[T:.*]] = tile.alloc : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT: tile.wait_flag mte1 -> m event(0)
// CHECK-NEXT: tile.set_flag fix -> m event(0)
// CHECK-NEXT: tile.sync_set vector mte2 event(0)
// CHECK-NEXT: tile.set_flag mte3 -> mte2 event(0)
// CHECK-NEXT: tile.set_flag mte3 -> mte2 event(1)
// CHECK-NEXT: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK-NEXT:   %[[SV:.*]] = tile.alloc slot(%[[I]]) buffers(2) : !tile.tile<vec, 16x128xf32>
// CHECK-NEXT:   %[[SLOT:.*]] = arith.remui %[[I]], %c2 : index
// CHECK-NEXT:   tile.wait_flag fix -> m event(0)
// CHECK-NEXT:   tile.matmul %[[S]], %[[QL]], %[[KR]]
// CHECK-NEXT:   tile.set_flag m -> fix event(0)
// CHECK-NEXT:   tile.wait_flag m -> fix event(0)
// CHECK-NEXT:   tile.sync_wait cube event(0)
// CHECK-NEXT:   tile.store %[[WS:arg[0-9]+]][%[[I]], %c0], %[[S]]
// CHECK-NEXT:   tile.set_flag fix -> m event(0)
// CHECK-NEXT:   tile.sync_set cube fix event(0)
// CHECK-NEXT:   tile.sync_wait vector event(0)
// CHECK-NEXT:   tile.wait_flag mte3 -> mte2 event(0 + %[[SLOT]])
// CHECK-NEXT:   tile.load %[[SV]], %[[WS]][%[[I]], %c0]
// CHECK-NEXT:   tile.sync_set vector mte2 event(0)
// CHECK-NEXT:   tile.set_flag mte2 -> v event(0)
// CHECK-NEXT:   tile.wait_flag mte2 -> v event(0)
// CHECK-NEXT:   tile.barrier v
// CHECK-NEXT:   tile.rowmax %[[M]], %[[SV]], %[[T]]
// CHECK-NEXT:   tile.barrier v
// CHECK-NEXT:   tile.rowexpandsub %[[SV]], %[[SV]], %[[M]], %[[T]]
// CHECK-NEXT:   tile.set_flag v -> mte3 event(0)
// CHECK-NEXT:   tile.wait_flag v -> mte3 event(0)
// CHECK-NEXT:   tile.store %{{.*}}[%[[I]], %c0], %[[SV]]
// CHECK-NEXT:   tile.set_flag mte3 -> mte2 event(0 + %[[SLOT]])
// CHECK-NEXT: }
// CHECK-NEXT: tile.wait_flag mte3 -> mte2 event(0)
// CHECK-NEXT: tile.wait_flag mte3 -> mte2 event(1)
// CHECK-NEXT: tile.sync_wait cube event(0)
// CHECK-NEXT: tile.wait_flag fix -> m event(0)
// CHECK-NEXT: tile.barrier all
// CHECK-NEXT: return
func.func @correct(%q: memref<?x128xbf16>, %ws: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %qm = tile.alloc : !tile.tile<mat, 16x128xbf16>
  tile.load %qm, %q[%c0, %c0] : !tile.tile<mat, 16x128xbf16>, memref<?x128xbf16>
  tile.set_flag mte2 -> mte1 event(0)
  %ql = tile.alloc : !tile.tile<left, 16x128xbf16>
  tile.wait_flag mte2 -> mte1 event(0)
  tile.mov %ql, %qm : !tile.tile<left, 16x128xbf16>, !tile.tile<mat, 16x128xbf16>
  tile.set_flag mte1 -> m event(0)
  %kr = tile.alloc : !tile.tile<right, 128x128xbf16>
  %s = tile.alloc : !tile.tile<acc, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.wait_flag mte1 -> m event(0)
  tile.set_flag fix -> m event(0)
  tile.sync_set vector mte2 event(0)
  tile.set_flag mte3 -> mte2 event(0)
  tile.set_flag mte3 -> mte2 event(1)
  scf.for %i = %c0 to %n step %c1 {
    %sv = tile.alloc slot(%i) buffers(2) : !tile.tile<vec, 16x128xf32>
    %slot = arith.remui %i, %c2 : index
    tile.wait_flag fix -> m event(0)
    tile.matmul %s, %ql, %kr : !tile.tile<acc, 16x128xf32>, !tile.tile<left, 16x128xbf16>, !tile.tile<right, 128x128xbf16>
    tile.set_flag m -> fix event(0)
    tile.wait_flag m -> fix event(0)
    tile.sync_wait cube event(0)
    tile.store %ws[%i, %c0], %s : memref<?x128xf32>, !tile.tile<acc, 16x128xf32>
    tile.set_flag fix -> m event(0)
    tile.sync_set cube fix event(0)
    tile.sync_wait vector event(0)
    tile.wait_flag mte3 -> mte2 event(0 + %slot)
    tile.load %sv, %ws[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.sync_set vector mte2 event(0)
    tile.set_flag mte2 -> v event(0)
    tile.wait_flag mte2 -> v event(0)
    tile.barrier v
    tile.rowmax %m, %sv, %t : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.barrier v
    tile.rowexpandsub %sv, %sv, %m, %t : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>
    tile.set_flag v -> mte3 event(0)
    tile.wait_flag v -> mte3 event(0)
    tile.store %out[%i, %c0], %sv : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.set_flag mte3 -> mte2 event(0 + %slot)
  }
  tile.wait_flag mte3 -> mte2 event(0)
  tile.wait_flag mte3 -> mte2 event(1)
  tile.sync_wait cube event(0)
  tile.wait_flag fix -> m event(0)
  tile.barrier all
  return
}

// -----

// A set never waited on is reported once, though each of the two
// invocations the check runs leaves it unwaited.
func.func @unwaited_once(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  // expected-error @+1 {{'tile.set_flag' op is never waited on: every set flag must be consumed before the kernel ends}}
  tile.set_flag mte2 -> v event(2)
  tile.barrier all
  return
}

// -----

// Two flag pairs that order the same pair: one is redundant, not both
// (removing both would leave the exp unordered).
func.func @one_of_two(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  // expected-warning @+1 {{is redundant: every pair it orders is ordered without it}}
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  tile.set_flag mte2 -> v event(1)
  tile.wait_flag mte2 -> v event(1)
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.barrier all
  return
}

// -----

// A loop-carried flag is needed although it gives more than its pair
// needs (each load waits for the last iteration's read of its tile, the
// set placed after more vector work than that read); of two flags that
// order each load before its read, one is redundant. The search for
// redundant flags is told the first by the probe (its waits by
// threshold), the second it finds; either way only the second warns.
func.func @carried(%in: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  %c = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.set_flag v -> mte2 event(2)
  scf.for %i = %c0 to %n step %c1 {
    tile.wait_flag v -> mte2 event(2)
    tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    // expected-warning @+1 {{is redundant: every pair it orders is ordered without it}}
    tile.set_flag mte2 -> v event(0)
    tile.wait_flag mte2 -> v event(0)
    tile.set_flag mte2 -> v event(1)
    tile.wait_flag mte2 -> v event(1)
    tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.exp %c, %c : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.set_flag v -> mte2 event(2)
  }
  tile.wait_flag v -> mte2 event(2)
  tile.barrier all
  return
}

// -----

// A vector core's cross-core flag under a branch on the sub-block index
// (the kernel is otherwise ordered): the other vector core never sets it.
func.func @divergent_flag(%ws: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{the sub-block index}}
  %sb = tile.subblock_id : index
  %first = arith.cmpi eq, %sb, %c0 : index
  %v = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<mat, 16x128xf32>
  // expected-note @+1 {{the branch or loop}}
  scf.if %first {
    tile.store %ws[%c0, %c0], %v : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
    // expected-error @+1 {{'tile.sync_set' op is under a 'scf.if' whose condition or bounds depend on tile.subblock_id: the block's two vector cores may pass it a different number of times, and the cube's tile.sync_wait takes one set from each}}
    tile.sync_set vector mte3 event(0)
    tile.sync_wait cube event(0)
    tile.load %m, %ws[%c0, %c0] : !tile.tile<mat, 16x128xf32>, memref<?x128xf32>
  }
  tile.barrier all
  tile.sync_set cube fix event(0)
  tile.sync_wait vector event(0)
  return
}

// -----

// The same under a loop whose trip count follows from the sub-block index
// (through arithmetic): the vector cores take different numbers of trips.
// One error per loop, at its first vector-side flag.
func.func @divergent_loop(%ws: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{the sub-block index}}
  %sb = tile.subblock_id : index
  %rows = arith.muli %sb, %n : index
  %v = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<mat, 16x128xf32>
  tile.sync_set cube mte2 event(0)
  // expected-note @+1 {{the branch or loop}}
  scf.for %i = %c0 to %rows step %c1 {
    // expected-error @+1 {{'tile.sync_wait' op is under a 'scf.for' whose condition or bounds depend on tile.subblock_id}}
    tile.sync_wait vector event(0)
    tile.store %ws[%i, %c0], %v : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.sync_set vector mte3 event(0)
    tile.sync_wait cube event(0)
    tile.load %m, %ws[%i, %c0] : !tile.tile<mat, 16x128xf32>, memref<?x128xf32>
    tile.sync_set cube mte2 event(0)
  }
  tile.sync_wait vector event(0)
  tile.barrier all
  return
}

// -----

// Bounds from the sub-block count are the same on both vector cores: the
// flags under them are fine (tile-insert-sync's output for this loop).
// CHECK-LABEL: func.func @uniform_loop
// CHECK: scf.for
// CHECK-NEXT: tile.sync_wait vector event(0)
func.func @uniform_loop(%ws: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nsb = tile.subblock_num : index
  %rows = arith.ceildivui %n, %nsb : index
  %v = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<mat, 16x128xf32>
  tile.sync_set cube mte2 event(0)
  scf.for %i = %c0 to %rows step %c1 {
    tile.sync_wait vector event(0)
    tile.store %ws[%i, %c0], %v : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.sync_set vector mte3 event(0)
    tile.sync_wait cube event(0)
    tile.load %m, %ws[%i, %c0] : !tile.tile<mat, 16x128xf32>, memref<?x128xf32>
    tile.sync_set cube mte2 event(0)
  }
  tile.sync_wait vector event(0)
  tile.barrier all
  return
}

// -----

// The check runs a second invocation unless the first ends settled (no flag
// pending, every pipe that runs instructions knowing every other's last
// one, a V barrier after the last V one). This one does not end settled
// (no barrier), and only the second invocation meets the pair: its
// colexpandmul reads %v as a broadcast, which the first invocation's abs
// wrote last, on the same V pipe with no barrier between.
func.func @barrier_across_invocations(%in: memref<?x128xf32>) {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %c = tile.alloc : !tile.tile<vec, 16x128xf32>
  %v = tile.alloc : !tile.tile<vec, 1x128xf32>
  %w = tile.alloc : !tile.tile<vec, 1x128xf32>
  // expected-error @+1 {{'tile.colexpandmul' op reads tile !tile.tile<vec, 1x128xf32> that 'tile.abs' on vector v wrote with nothing ordering them: a vector instruction reading what another wrote needs tile.barrier v between them}}
  tile.colexpandmul %c, %a, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  // expected-note @+1 {{the other access}}
  tile.abs %v, %w : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 1x128xf32>
  return
}

// -----

// The same kernel with the fence's barrier: the first invocation ends
// settled, and the check passes.
// CHECK-LABEL: func.func @barrier_across_invocations_fenced
func.func @barrier_across_invocations_fenced(%in: memref<?x128xf32>) {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %c = tile.alloc : !tile.tile<vec, 16x128xf32>
  %v = tile.alloc : !tile.tile<vec, 1x128xf32>
  %w = tile.alloc : !tile.tile<vec, 1x128xf32>
  tile.colexpandmul %c, %a, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  tile.abs %v, %w : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 1x128xf32>
  tile.barrier all
  return
}
