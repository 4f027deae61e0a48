// A run marked by tile-mark-fusion prints as one tl::fused group: its
// instructions (run for their checks), then its lanes, one statement per
// instruction, storing only the tiles read after the run (here the result
// %o; %b lives in registers, its bytes touched by the run alone). The
// program compiles warning-free and computes |x * s + s| exactly.
// RUN: wsp-translate --wsp-to-cpusim %s -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp -x c++ - -o %t.exe -pthread <<< 'int main() { float x[8 * 32], y[8 * 32]; for (int i = 0; i < 256; ++i) x[i] = float(i) - 100.5f; wsp_gen::fused(wsp_gen::MemRef<float, 2>{x, {8, 32}}, wsp_gen::MemRef<float, 2>{y, {8, 32}}, 0.5f); for (int i = 0; i < 256; ++i) if (y[i] != __builtin_fabsf(x[i] * 0.5f + 0.5f)) return 1; return 0; }'
// RUN: %t.exe

// CHECK-LABEL: void fused(
// CHECK: tl::load([[A:v[0-9]+]],
// CHECK: // tile.fuse: 5 ops, computed in registers; stores [[O:v[0-9]+]]
// CHECK-NEXT: tl::fused(
// CHECK-NEXT: [&] {
// CHECK-NEXT: tl::muls([[B:v[0-9]+]], [[A]], a2);
// CHECK-NEXT: tl::set_flag(
// CHECK-NEXT: tl::adds([[B]], [[B]], a2);
// CHECK-NEXT: tl::barrier(
// CHECK-NEXT: tl::abs([[O]], [[B]]);
// CHECK-NEXT: },
// CHECK-NEXT: [[B]], [=](auto &wsp_l, int wsp_r, int wsp_c) PTO_TILE_FUSED {
// CHECK-NEXT: auto wsp_[[B]]_0 = wsp_l.mul(wsp_l.load([[A]], wsp_r, wsp_c), wsp_l.scalar(a2)); // tile.muls
// CHECK-NEXT: auto wsp_[[B]]_1 = wsp_l.add(wsp_[[B]]_0, wsp_l.scalar(a2)); // tile.adds
// CHECK-NEXT: auto wsp_[[O]]_2 = wsp_l.abs(wsp_[[B]]_1); // tile.abs
// CHECK-NEXT: wsp_l.store([[O]], wsp_r, wsp_c, wsp_[[O]]_2);
// CHECK-NEXT: });
// CHECK-NEXT: tl::wait_flag(
// CHECK-NEXT: tl::set_flag(
// CHECK-NOT: tl::abs
func.func @fused(%x: memref<8x32xf32>, %y: memref<8x32xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc at 0 : !tile.tile<vec, 8x32xf32>
  %b = tile.alloc at 1024 : !tile.tile<vec, 8x32xf32>
  %o = tile.alloc at 2048 : !tile.tile<vec, 8x32xf32>
  tile.load %a, %x[%c0, %c0] : !tile.tile<vec, 8x32xf32>, memref<8x32xf32>
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  tile.muls %b, %a, %s {tile.fuse = 5 : i64} : !tile.tile<vec, 8x32xf32>, !tile.tile<vec, 8x32xf32>, f32
  tile.set_flag v -> mte2 event(1)
  tile.adds %b, %b, %s : !tile.tile<vec, 8x32xf32>, !tile.tile<vec, 8x32xf32>, f32
  tile.barrier v
  tile.abs %o, %b : !tile.tile<vec, 8x32xf32>, !tile.tile<vec, 8x32xf32>
  tile.wait_flag v -> mte2 event(1)
  tile.set_flag v -> mte3 event(0)
  tile.wait_flag v -> mte3 event(0)
  tile.store %y[%c0, %c0], %o : memref<8x32xf32>, !tile.tile<vec, 8x32xf32>
  return
}
