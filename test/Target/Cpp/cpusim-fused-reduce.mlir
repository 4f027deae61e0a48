// Row reductions in a fused group: each keeps its row's state in a slot of
// the lanes (wsp_l.rowsum(dst, wsp_r, slot, value)), and a row's last group
// of sixteen writes its result; the reduced tile is then stored as the
// instructions store it. Over a partial extent (5 rows of 40 columns, the
// last group of each row masked), against a naive loop: the values are
// small integers, so the sums are exact in any order.
// RUN: wsp-opt --tile-mark-fusion %s | wsp-translate --wsp-to-cpusim -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp -x c++ - -o %t.exe -pthread <<< 'int main() { float x[8 * 48], s[8], m[8]; for (int i = 0; i < 384; ++i) x[i] = float(i % 23) - 11.0f; wsp_gen::stats(wsp_gen::MemRef<float, 2>{x, {8, 48}}, wsp_gen::MemRef<float, 1>{s, {8}}, wsp_gen::MemRef<float, 1>{m, {8}}, 5, 40); for (int r = 0; r < 5; ++r) { float sum = 0, max = 0; for (int c = 0; c < 40; ++c) { float v = x[r * 48 + c]; sum += v; max = __builtin_fabsf(v) > max ? __builtin_fabsf(v) : max; } if (s[r] != sum || m[r] != max) return 1; } return 0; }'
// RUN: %t.exe

// CHECK-LABEL: void stats(
// CHECK: // tile.fuse: 7 ops, computed in registers{{$}}
// CHECK: [=](auto &wsp_l, int wsp_r, int wsp_c) PTO_TILE_FUSED {
// CHECK-NEXT: auto wsp_[[X:v[0-9]+]]_0 = wsp_l.load(wsp_a0_rows_0, wsp_r, wsp_c); // tile.load
// CHECK-NEXT: wsp_l.rowsum([[S:v[0-9]+]], wsp_r, 0, wsp_[[X]]_0); // tile.rowsum
// CHECK-NEXT: auto wsp_[[A:v[0-9]+]]_1 = wsp_l.abs(wsp_[[X]]_0); // tile.abs
// CHECK-NEXT: wsp_l.rowmax([[M:v[0-9]+]], wsp_r, 1, wsp_[[A]]_1); // tile.rowmax
// CHECK-NEXT: }, wsp_a0_rows_0);
// CHECK: tl::store_t(tl::at(a1, {{.*}}), [[S]]);
// CHECK: tl::store_t(tl::at(a2, {{.*}}), [[M]]);
func.func @stats(%x: memref<8x48xf32>, %sums: memref<8xf32>, %maxes: memref<8xf32>, %rows: index, %cols: index) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc valid(%rows, %cols) at 0 : !tile.tile<vec, 8x48xf32, valid = ?x?>
  %a = tile.alloc valid(%rows, %cols) at 1536 : !tile.tile<vec, 8x48xf32, valid = ?x?>
  %s = tile.alloc valid(%rows) at 3072 : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  %m = tile.alloc valid(%rows) at 3104 : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  tile.load %t, %x[%c0, %c0] : !tile.tile<vec, 8x48xf32, valid = ?x?>, memref<8x48xf32>
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  tile.rowsum %s, %t, %a : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x48xf32, valid = ?x?>, !tile.tile<vec, 8x48xf32, valid = ?x?>
  tile.abs %a, %t : !tile.tile<vec, 8x48xf32, valid = ?x?>, !tile.tile<vec, 8x48xf32, valid = ?x?>
  tile.barrier v
  tile.rowmax %m, %a, %t : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x48xf32, valid = ?x?>, !tile.tile<vec, 8x48xf32, valid = ?x?>
  tile.set_flag v -> mte3 event(0)
  tile.wait_flag v -> mte3 event(0)
  tile.store %sums[%c0], %s transpose : memref<8xf32>, !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  tile.store %maxes[%c0], %m transpose : memref<8xf32>, !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  return
}
