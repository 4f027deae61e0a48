// RUN: wsp-opt %s -split-input-file --tile-insert-sync -verify-diagnostics

// What tile-insert-sync cannot order is a diagnostic at the consumer, never
// a crash: a pair across scf.while iterations from its "do" region to its
// "before" region (which runs once more than the body).
func.func @across_regions(%in: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %r = scf.while (%i = %c0) : (index) -> index {
    // expected-error @+1 {{'tile.getval' op conflicts with vector mte2's 'tile.load' in another region of the loop's iterations; cannot place a flag between them (synchronize by hand)}}
    %x = tile.getval %a[%c0, %c0] : !tile.tile<vec, 16x128xf32>, f32
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %x, %zero : f32
    %lt = arith.cmpi ult, %i, %n : index
    %go = arith.andi %pos, %lt : i1
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    tile.load %a, %in[%j, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %k : index
  }
  return
}
