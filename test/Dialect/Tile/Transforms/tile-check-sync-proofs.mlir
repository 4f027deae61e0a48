// tile-check-sync without its redundancy search does not solve again a
// function tile-insert-sync proved, as long as no pass changed the IR since
// (the proofs are an analysis the pass manager drops when a pass changes
// IR); `report` says which it was.
// Right after insertion (and after a contract that changes nothing):
// RUN: wsp-opt %s --tile-insert-sync --tile-check-sync="redundant=false report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: wsp-opt %s --tile-plan-memory --tile-insert-sync --tile-check-planned --tile-check-sync="redundant=false report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// A pass that changed the IR in between: solved.
// RUN: wsp-opt %s --tile-insert-sync --strip-debuginfo --tile-check-sync="redundant=false report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SOLVED
// Insertion without pruning runs no check-mode solve: nothing proved.
// RUN: wsp-opt %s --tile-insert-sync="prune=false" --tile-check-sync="redundant=false report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SOLVED
// The redundancy search is not what insertion proved: solved.
// RUN: wsp-opt %s --tile-insert-sync --tile-check-sync="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SOLVED
// In a separate process nothing is carried over: solved.
// RUN: wsp-opt %s --tile-insert-sync | wsp-opt --tile-check-sync="redundant=false report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SOLVED

// PROVED: remark: ordered: proved by tile-insert-sync, not solved again
// PROVED: func.func @pipelined
// PROVED: remark: ordered: proved by tile-insert-sync, not solved again
// PROVED: func.func @cube_to_vector
// PROVED-NOT: remark
// SOLVED: remark: solved
// SOLVED: func.func @pipelined
// SOLVED: remark: solved
// SOLVED: func.func @cube_to_vector
// SOLVED-NOT: remark
func.func @pipelined(%in: memref<?x128xf32>, %out: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = tile.alloc slot(%i) buffers(2) : !tile.tile<vec, 16x128xf32>
    tile.load %a, %in[%i, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
    tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    tile.store %out[%i, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  }
  return
}

// Cube -> vector through a workspace: pruning drops half of the handshake
// that ends the kernel (tile-insert-sync.mlir); what is proved is the
// program without it.
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
