// A fused group's loads and stores of global memory are done by its lanes,
// sixteen columns of a row at a time, through rows declared before it
// (tl::GmRows); the tiles between them stay in registers. tl::fused checks
// at run time that the lanes may do so: the two halves of a row updated in
// place interleave (apart), a store into bytes that an earlier load of the
// group reads, addressed otherwise, does not (the group then runs as its
// instructions). A column broadcast's row loaded in the group is read from
// global memory too; read again after the group, it is stored on chip
// with the group's first row. The programs compile warning-free and
// compute what the instructions compute, checked against naive loops.
// RUN: wsp-opt --tile-mark-fusion %s | wsp-translate --wsp-to-cpusim -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp -x c++ - -o %t.exe -pthread <<< 'int main() { float x[8 * 64], y[8 * 64], z[8 * 64]; for (int i = 0; i < 512; ++i) x[i] = y[i] = z[i] = float(i % 97) - 40.25f; wsp_gen::halves(wsp_gen::MemRef<float, 2>{x, {8, 64}}, 0.5f, 5); for (int r = 0; r < 8; ++r) for (int c = 0; c < 32; ++c) { float *v = y + r * 64; float a = v[c], b = v[32 + c]; if (r < 5) { v[c] = a * 0.5f + b; v[32 + c] = b - a; } } for (int i = 0; i < 512; ++i) if (x[i] != y[i]) return 1; wsp_gen::shifted(wsp_gen::MemRef<float, 2>{z, {8, 64}}); for (int i = 0; i < 512; ++i) y[i] = float(i % 97) - 40.25f; for (int r = 0; r < 8; ++r) for (int c = 31; c >= 0; --c) y[r * 64 + 16 + c] = y[r * 64 + c] + 1.0f; for (int i = 0; i < 512; ++i) if (z[i] != y[i]) return 2; return 0; }'
// RUN: %t.exe
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp -x c++ - -o %t.col.exe -pthread <<< 'int main() { float x[8 * 64], w[32], y[8 * 64] = {}, wc[32] = {}; for (int i = 0; i < 512; ++i) x[i] = float(i % 89) * 0.25f - 7.0f; for (int i = 0; i < 32; ++i) w[i] = 1.5f - float(i) * 0.125f; wsp_gen::scaled(wsp_gen::MemRef<float, 2>{x, {8, 64}}, wsp_gen::MemRef<float, 1>{w, {32}}, wsp_gen::MemRef<float, 2>{y, {8, 64}}, wsp_gen::MemRef<float, 1>{wc, {32}}, 6); for (int r = 0; r < 8; ++r) for (int c = 0; c < 64; ++c) if (y[r * 64 + c] != (r < 6 && c < 32 ? x[r * 64 + c] * w[c] : 0.0f)) return 1; for (int c = 0; c < 32; ++c) if (wc[c] != w[c]) return 2; return 0; }'
// RUN: %t.col.exe

// CHECK-LABEL: void halves(
// CHECK: // tile.fuse: 11 ops, computed in registers{{$}}
// CHECK-NEXT: {
// CHECK-NEXT: const tl::GmRows<const float> [[R0:wsp_a0_rows_0]]{a0.data + {{.*}}, a0.sizes[1]}; // tile.load
// CHECK-NEXT: const tl::GmRows<const float> [[R1:wsp_a0_rows_1]]{a0.data + {{.*}}, a0.sizes[1]}; // tile.load
// CHECK-NEXT: const tl::GmRows<float> [[R2:wsp_a0_rows_2]]{a0.data + {{.*}}, a0.sizes[1]}; // tile.store
// CHECK-NEXT: const tl::GmRows<float> [[R3:wsp_a0_rows_3]]{a0.data + {{.*}}, a0.sizes[1]}; // tile.store
// CHECK-NEXT: tl::fused(
// CHECK-NEXT: [&] {
// CHECK-NEXT: tl::load([[A:v[0-9]+]], tl::at(a0,
// CHECK-NEXT: tl::load([[B:v[0-9]+]], tl::at(a0,
// CHECK:      [[A]], [=](auto &wsp_l, int wsp_r, int wsp_c) PTO_TILE_FUSED {
// CHECK-NEXT: auto wsp_[[A]]_0 = wsp_l.load([[R0]], wsp_r, wsp_c); // tile.load
// CHECK-NEXT: auto wsp_[[B]]_1 = wsp_l.load([[R1]], wsp_r, wsp_c); // tile.load
// CHECK-NEXT: auto wsp_[[T:v[0-9]+]]_2 = wsp_l.mul(wsp_[[A]]_0, wsp_l.scalar(a1)); // tile.muls
// CHECK-NEXT: auto wsp_[[T]]_3 = wsp_l.add(wsp_[[T]]_2, wsp_[[B]]_1); // tile.add
// CHECK-NEXT: auto wsp_[[B]]_4 = wsp_l.sub(wsp_[[B]]_1, wsp_[[A]]_0); // tile.sub
// CHECK-NEXT: wsp_l.store([[R2]], wsp_r, wsp_c, wsp_[[T]]_3); // tile.store
// CHECK-NEXT: wsp_l.store([[R3]], wsp_r, wsp_c, wsp_[[B]]_4); // tile.store
// CHECK-NEXT: }, [[R0]], [[R1]], [[R2]], [[R3]]);
// CHECK-NEXT: }
// CHECK-NOT: tl::fused
func.func @halves(%x: memref<8x64xf32>, %s: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %a = tile.alloc valid(%n) at 0 : !tile.tile<vec, 8x32xf32, valid = ?x32>
  %b = tile.alloc valid(%n) at 1024 : !tile.tile<vec, 8x32xf32, valid = ?x32>
  %t = tile.alloc valid(%n) at 2048 : !tile.tile<vec, 8x32xf32, valid = ?x32>
  tile.load %a, %x[%c0, %c0] : !tile.tile<vec, 8x32xf32, valid = ?x32>, memref<8x64xf32>
  tile.load %b, %x[%c0, %c32] : !tile.tile<vec, 8x32xf32, valid = ?x32>, memref<8x64xf32>
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  tile.muls %t, %a, %s : !tile.tile<vec, 8x32xf32, valid = ?x32>, !tile.tile<vec, 8x32xf32, valid = ?x32>, f32
  tile.add %t, %t, %b : !tile.tile<vec, 8x32xf32, valid = ?x32>, !tile.tile<vec, 8x32xf32, valid = ?x32>, !tile.tile<vec, 8x32xf32, valid = ?x32>
  tile.sub %b, %b, %a : !tile.tile<vec, 8x32xf32, valid = ?x32>, !tile.tile<vec, 8x32xf32, valid = ?x32>, !tile.tile<vec, 8x32xf32, valid = ?x32>
  tile.set_flag v -> mte3 event(0)
  tile.wait_flag v -> mte3 event(0)
  tile.store %x[%c0, %c0], %t : memref<8x64xf32>, !tile.tile<vec, 8x32xf32, valid = ?x32>
  tile.store %x[%c0, %c32], %b : memref<8x64xf32>, !tile.tile<vec, 8x32xf32, valid = ?x32>
  return
}

// CHECK-LABEL: void shifted(
// CHECK: // tile.fuse: 7 ops, computed in registers{{$}}
// CHECK: }, wsp_a0_rows_0, wsp_a0_rows_1);
func.func @shifted(%x: memref<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %a = tile.alloc at 0 : !tile.tile<vec, 8x32xf32>
  tile.load %a, %x[%c0, %c0] : !tile.tile<vec, 8x32xf32>, memref<8x64xf32>
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  tile.adds %a, %a, %one : !tile.tile<vec, 8x32xf32>, !tile.tile<vec, 8x32xf32>, f32
  tile.set_flag v -> mte3 event(0)
  tile.wait_flag v -> mte3 event(0)
  tile.store %x[%c0, %c16], %a : memref<8x64xf32>, !tile.tile<vec, 8x32xf32>
  return
}

// CHECK-LABEL: void scaled(
// CHECK: // tile.fuse: 8 ops, computed in registers; stores [[W:v[0-9]+]]
// CHECK: const tl::GmRows<const float> wsp_a1_rows_0{a1.data + (v0), int64_t(0)}; // tile.load
// CHECK: auto wsp_[[W]]_0 = wsp_l.load(wsp_a1_rows_0, 0, wsp_c); // tile.load
// CHECK-NEXT: auto wsp_[[X:v[0-9]+]]_1 = wsp_l.load(wsp_a0_rows_1, wsp_r, wsp_c); // tile.load
// CHECK-NEXT: auto wsp_[[X]]_2 = wsp_l.mul(wsp_[[X]]_1, wsp_[[W]]_0); // tile.colexpandmul
// CHECK-NEXT: wsp_l.store(wsp_a2_rows_2, wsp_r, wsp_c, wsp_[[X]]_2); // tile.store
// CHECK-NEXT: if (wsp_r == 0) wsp_l.store([[W]], 0, wsp_c, wsp_[[W]]_0);
func.func @scaled(%x: memref<8x64xf32>, %w: memref<32xf32>, %y: memref<8x64xf32>, %wc: memref<32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %wt = tile.alloc at 0 : !tile.tile<vec, 1x32xf32>
  %a = tile.alloc valid(%n) at 128 : !tile.tile<vec, 8x32xf32, valid = ?x32>
  tile.load %wt, %w[%c0] : !tile.tile<vec, 1x32xf32>, memref<32xf32>
  tile.load %a, %x[%c0, %c0] : !tile.tile<vec, 8x32xf32, valid = ?x32>, memref<8x64xf32>
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  tile.colexpandmul %a, %a, %wt : !tile.tile<vec, 8x32xf32, valid = ?x32>, !tile.tile<vec, 8x32xf32, valid = ?x32>, !tile.tile<vec, 1x32xf32>
  tile.set_flag v -> mte3 event(0)
  tile.wait_flag v -> mte3 event(0)
  tile.store %y[%c0, %c0], %a : memref<8x64xf32>, !tile.tile<vec, 8x32xf32, valid = ?x32>
  tile.store %wc[%c0], %wt : memref<32xf32>, !tile.tile<vec, 1x32xf32>
  return
}
