// RUN: wsp-opt %s -split-input-file --tile-insert-sync -verify-diagnostics --allow-unregistered-dialect

// What tile-insert-sync cannot order is a diagnostic at the op, never a
// crash or a silent guess.

// A pair between the two regions of an scf.while in one iteration: no one
// place before the consumer and after the producer holds both flags.
func.func @across_regions(%in: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %r = scf.while (%i = %c0) : (index) -> index {
    %x = tile.getval %a[%c0, %c0] : !tile.tile<vec, 16x128xf32>, f32
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %x, %zero : f32
    %lt = arith.cmpi ult, %i, %n : index
    %go = arith.andi %pos, %lt : i1
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    // expected-error @+1 {{'tile.load' op conflicts with vector s's 'tile.getval' in another region of the same 'scf.while'; cannot place a flag between them (synchronize by hand)}}
    tile.load %a, %in[%j, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %k : index
  }
  return
}

// -----

// Control flow the model does not follow holds tile instructions.
func.func @switch(%in: memref<?x128xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'scf.index_switch' op holds tile instructions; tile synchronization follows scf.for, scf.while and scf.if only}}
  scf.index_switch %k
  case 0 {
    tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    scf.yield
  }
  default {
    tile.exp %a, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  }
  return
}

// -----

// A tile that is not traced to its tile.alloc (here one of two, picked by
// an scf.if) could alias either.
func.func @picked(%in: memref<?x128xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  // expected-error @+1 {{'scf.if' op yields a tile; tile synchronization needs each tile traced to its tile.alloc}}
  %t = scf.if %c -> !tile.tile<vec, 16x128xf32> {
    scf.yield %a : !tile.tile<vec, 16x128xf32>
  } else {
    scf.yield %b : !tile.tile<vec, 16x128xf32>
  }
  tile.exp %b, %t : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// Unstructured control flow around tile instructions.
// expected-error @+1 {{'func.func' op has 2 blocks; tile synchronization follows structured control flow (one block)}}
func.func @blocks(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  "test.br"() [^next] : () -> ()
^next:
  tile.exp %a, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// An exchange between a vector core and the cube under a branch on the
// sub-block index: its flag would be passed by one vector core only, and
// the cube's wait takes a set from each.
func.func @divergent_exchange(%ws: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{the sub-block index}}
  %sb = tile.subblock_id : index
  %first = arith.cmpi eq, %sb, %c0 : index
  %v = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<mat, 16x128xf32>
  // expected-note @+1 {{the branch or loop}}
  scf.if %first {
    tile.store %ws[%c0, %c0], %v : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
    // expected-error @+1 {{the cross-core flag this access needs ('tile.sync_set') would be under a 'scf.if' whose condition or bounds depend on tile.subblock_id: the block's two vector cores may pass it a different number of times, and the cube's tile.sync_wait takes one set from each; exchange with the cube outside it}}
    tile.load %m, %ws[%c0, %c0] : !tile.tile<mat, 16x128xf32>, memref<?x128xf32>
  }
  return
}
