// Row reductions in two steps (tile-fold-row-reductions) in a fused group:
// the first step reduces each piece of a row in its slot of the lanes and
// writes the piece's partial (wsp_l.rowsum_pieces(partials, wsp_r, slot,
// value, pieces, piece columns)), the second reduces a row's partials at
// its last group (wsp_l.rowsum_of_pieces(dst, wsp_r, partials, pieces)).
// Over 5 valid rows of 8 with 512 columns, against a naive loop: the
// values are small integers, so the sums are exact in any order.
// RUN: wsp-opt --tile-fold-row-reductions="min-repeats=2" --tile-plan-memory --tile-insert-sync --tile-mark-fusion %s | wsp-translate --wsp-to-cpusim -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp -x c++ - -o %t.exe -pthread <<< 'int main() { static float x[8 * 512], s[8], m[8]; for (int i = 0; i < 8 * 512; ++i) x[i] = float(i % 29) - 14.0f; wsp_gen::stats(wsp_gen::MemRef<float, 2>{x, {8, 512}}, wsp_gen::MemRef<float, 1>{s, {8}}, wsp_gen::MemRef<float, 1>{m, {8}}, 5); for (int r = 0; r < 5; ++r) { float sum = 0, max = 0; for (int c = 0; c < 512; ++c) { float v = x[r * 512 + c]; sum += v * v; max = __builtin_fabsf(v) > max ? __builtin_fabsf(v) : max; } if (s[r] != sum || m[r] != max) return 1; } return 0; }'
// RUN: %t.exe

// CHECK-LABEL: void stats(
// CHECK: // tile.fuse: {{[0-9]+}} ops, computed in registers{{$}}
// CHECK: [=](auto &wsp_l, int wsp_r, int wsp_c) PTO_TILE_FUSED {
// CHECK: wsp_l.rowsum_pieces([[SP:v[0-9]+]], wsp_r, 0, wsp_{{.*}}, 8, 64); // tile.rowsum
// CHECK-NEXT: wsp_l.rowsum_of_pieces([[S:v[0-9]+]], wsp_r, [[SP]], 8); // tile.rowsum
// CHECK: wsp_l.rowmax_pieces([[MP:v[0-9]+]], wsp_r, 1, wsp_{{.*}}, 8, 64); // tile.rowmax
// CHECK-NEXT: wsp_l.rowmax_of_pieces([[M:v[0-9]+]], wsp_r, [[MP]], 8); // tile.rowmax
// CHECK-NEXT: }, wsp_a0_rows_0);
func.func @stats(%x: memref<8x512xf32>, %sums: memref<8xf32>, %maxes: memref<8xf32>, %rows: index) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc valid(%rows) : !tile.tile<vec, 8x512xf32, valid = ?x512>
  %sq = tile.alloc valid(%rows) : !tile.tile<vec, 8x512xf32, valid = ?x512>
  %s = tile.alloc valid(%rows) : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  %m = tile.alloc valid(%rows) : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  tile.load %t, %x[%c0, %c0] : !tile.tile<vec, 8x512xf32, valid = ?x512>, memref<8x512xf32>
  tile.mul %sq, %t, %t : !tile.tile<vec, 8x512xf32, valid = ?x512>, !tile.tile<vec, 8x512xf32, valid = ?x512>, !tile.tile<vec, 8x512xf32, valid = ?x512>
  tile.rowsum %s, %sq, %sq : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x512xf32, valid = ?x512>, !tile.tile<vec, 8x512xf32, valid = ?x512>
  tile.abs %t, %t : !tile.tile<vec, 8x512xf32, valid = ?x512>, !tile.tile<vec, 8x512xf32, valid = ?x512>
  tile.rowmax %m, %t, %t : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x512xf32, valid = ?x512>, !tile.tile<vec, 8x512xf32, valid = ?x512>
  tile.store %sums[%c0], %s transpose : memref<8xf32>, !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  tile.store %maxes[%c0], %m transpose : memref<8xf32>, !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  return
}
