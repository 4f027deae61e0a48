// A contiguous subview (a range of leading rows, whole trailing
// dimensions) is the buffer's row-major view from an offset: the emitter
// prints its data pointer moved by the offsets and its sizes, and any
// function may take such a view. A view that is not contiguous (a range of
// columns) is diagnosed at the op. (python/test/test_moe.py runs a
// lowered operator on such views.)
// RUN: wsp-translate --wsp-to-cpusim %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: float first(MemRef<float, 2> a0)
// CHECK-LABEL: float tail(
// CHECK: MemRef<float, 2> [[ROWS:v[0-9]+]] = MemRef<float, 2>{a0.data + (a2 * a0.sizes[1] + 0), {a3, 64}};
// CHECK: MemRef<float, 1> [[S:v[0-9]+]] = MemRef<float, 1>{a1.data + (3), {5}};
// CHECK: [[ROWS]].data[(v0) * [[ROWS]].sizes[1] + v0]
func.func @first(%m: memref<?x64xf32, strided<[64, 1], offset: ?>>) -> f32 {
  %c0 = arith.constant 0 : index
  %x = memref.load %m[%c0, %c0] : memref<?x64xf32, strided<[64, 1], offset: ?>>
  return %x : f32
}
func.func @tail(%x: memref<?x64xf32>, %v: memref<16xf32>, %first: index, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %rows = memref.subview %x[%first, 0] [%n, 64] [1, 1]
      : memref<?x64xf32> to memref<?x64xf32, strided<[64, 1], offset: ?>>
  %s = memref.subview %v[3] [5] [1] : memref<16xf32> to memref<5xf32, strided<[1], offset: 3>>
  %a = memref.load %rows[%c0, %c0] : memref<?x64xf32, strided<[64, 1], offset: ?>>
  %b = memref.load %s[%c0] : memref<5xf32, strided<[1], offset: 3>>
  %sum = arith.addf %a, %b : f32
  return %sum : f32
}

// -----

func.func @columns(%x: memref<?x64xf32>, %n: index) {
  // expected-error @below {{is not a contiguous range of rows of a row-major buffer, which the C++ emitter cannot print}}
  %cols = memref.subview %x[0, 0] [%n, 32] [1, 1]
      : memref<?x64xf32> to memref<?x32xf32, strided<[64, 1]>>
  return
}
