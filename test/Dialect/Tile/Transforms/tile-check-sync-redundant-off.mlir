// tile-check-sync with redundant=false (as the default pipeline runs it,
// right after tile-insert-sync has removed the flags its program does not
// need): every pair is still checked, but a redundant flag gets no warning.
// RUN: wsp-opt %s -split-input-file --tile-check-sync="redundant=false" -verify-diagnostics
// RUN: not wsp-opt %s -split-input-file --tile-check-sync 2>&1 | FileCheck %s --check-prefix=DEFAULT

// The second flag pair orders nothing new; by default it is a warning
// (tile-check-sync.mlir), here it passes silently.
// DEFAULT: :[[@LINE+10]]:3: warning: {{.*}}is redundant
func.func @redundant(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  %c = tile.alloc : !tile.tile<vec, 16x128xf32>
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.set_flag mte2 -> v event(1)
  tile.wait_flag mte2 -> v event(1)
  tile.exp %c, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.barrier all
  return
}

// -----

// A missing flag is still an error.
func.func @missing_flag(%in: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-note @+1 {{the other access}}
  tile.load %a, %in[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  // expected-error @+1 {{reads tile}}
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.barrier all
  return
}
