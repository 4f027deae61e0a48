// A tile kernel: the softmax of each row of x, 16 rows at a time, on the
// vector core. The tiles live in UB; nothing here says where or in which
// order the pipes run: tile-plan-memory and tile-insert-sync decide.
func.func @softmax_rows(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %x, %c0 : memref<?x64xf32>
  %s = tile.alloc : !tile.tile<vec, 16x64xf32>
  %tmp = tile.alloc : !tile.tile<vec, 16x64xf32>
  %m = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  scf.for %r = %c0 to %rows step %c16 {
    // x[r:r+16] into UB (pto-isa TLOAD, on the MTE2 pipe).
    tile.load %s, %x[%r, %c0] : !tile.tile<vec, 16x64xf32>, memref<?x64xf32>
    // s = exp(s - max over the row), then s / sum over the row (V pipe).
    tile.rowmax %m, %s, %tmp : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x64xf32>, !tile.tile<vec, 16x64xf32>
    tile.rowexpandsub %s, %s, %m, %tmp : !tile.tile<vec, 16x64xf32>, !tile.tile<vec, 16x64xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x64xf32>
    tile.exp %s, %s : !tile.tile<vec, 16x64xf32>, !tile.tile<vec, 16x64xf32>
    tile.rowsum %m, %s, %tmp : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x64xf32>, !tile.tile<vec, 16x64xf32>
    tile.rowexpanddiv %s, %s, %m, %tmp : !tile.tile<vec, 16x64xf32>, !tile.tile<vec, 16x64xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x64xf32>
    // Back to y[r:r+16] (TSTORE, on the MTE3 pipe).
    tile.store %y[%r, %c0], %s : memref<?x64xf32>, !tile.tile<vec, 16x64xf32>
  }
  return
}
