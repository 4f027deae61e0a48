// Scalar forms the CPU-sim emitter must print as C++ that compiles
// warning-free and computes what the ops mean: 16-bit float constants and
// globals (built from an exact float), scalars of f16 tile ops, unsigned
// compares of i1, a loop-carried value that does not change, an unused
// argument, arith.maximumf on f64 and on signed zeros. The driver
// (Inputs/scalar-forms-main.cpp) checks the values.
// RUN: wsp-translate --wsp-to-cpusim %s -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp %S/Inputs/scalar-forms-main.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s --check-prefix=OUT

// CHECK: static const bf16 g_table[2] = {f32_to_bf16(0x1.8p+0f), f32_to_bf16(-0x1p+1f)};
memref.global "private" constant @table : memref<2xbf16> = dense<[1.5, -2.0]>

// CHECK-LABEL: float scalars(
// CHECK: (void)a1;
// CHECK: bf16 [[H:v[0-9]+]] = f32_to_bf16(0x1.4p+1f);
// CHECK-NOT: make_unsigned_t<bool>
func.func @scalars(%x: f32, %unused: i32, %b: i1, %c: i1, %n: index) -> f32 {
  %h = arith.constant 2.5 : bf16
  %hx = arith.extf %h : bf16 to f32
  %t = memref.get_global @table : memref<2xbf16>
  %c0 = arith.constant 0 : index
  %g = memref.load %t[%c0] : memref<2xbf16>
  %gx = arith.extf %g : bf16 to f32
  %sum = arith.addf %hx, %gx : f32
  %lt = arith.cmpi ult, %b, %c : i1
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %bias = arith.select %lt, %one, %zero : f32
  %c1 = arith.constant 1 : index
  // CHECK: for (
  // CHECK-NOT: [[ACC:v[0-9]+]] = [[ACC]];
  // CHECK: }
  %kept = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> f32 {
    scf.yield %acc : f32
  }
  %r0 = arith.addf %sum, %bias : f32
  %r = arith.addf %r0, %kept : f32
  return %r : f32
}

// arith.maximumf on f64 keeps f64, and +0 wins over -0.
func.func @maxf(%a: f64, %b: f64) -> f64 {
  %m = arith.maximumf %a, %b : f64
  return %m : f64
}

// f16 widens through the runtime; f64 narrows by a cast.
// CHECK-LABEL: float widen(
// CHECK: f16_to_f32(a0)
// CHECK: static_cast<float>(a1)
func.func @widen(%h: f16, %d: f64) -> f32 {
  %x = arith.extf %h : f16 to f32
  %y = arith.truncf %d : f64 to f32
  %s = arith.addf %x, %y : f32
  return %s : f32
}

// An f16 scalar for an f16 tile.
func.func @f16_adds(%in: memref<?x?xf16>, %out: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc at 0 : !tile.tile<vec, 16x128xf16>
  %d = tile.alloc at 4096 : !tile.tile<vec, 16x128xf16>
  tile.load %t, %in[%c0, %c0] : !tile.tile<vec, 16x128xf16>, memref<?x?xf16>
  tile.set_flag mte2 -> s event(0)
  tile.wait_flag mte2 -> s event(0)
  %x = tile.getval %t[%c0, %c0] : !tile.tile<vec, 16x128xf16>, f16
  tile.set_flag s -> v event(0)
  tile.wait_flag s -> v event(0)
  tile.adds %d, %t, %x : !tile.tile<vec, 16x128xf16>, !tile.tile<vec, 16x128xf16>, f16
  tile.set_flag v -> mte3 event(0)
  tile.wait_flag v -> mte3 event(0)
  tile.store %out[%c0, %c0], %d : memref<?x?xf16>, !tile.tile<vec, 16x128xf16>
  tile.barrier all
  return
}

// 2.5 + 1.5 + 1 (false < true, unsigned) + 0.25 (x, carried unchanged).
// OUT: scalars 5.25
// OUT-NEXT: maximumf(+0, -0) = +0, maximumf(1 + 1e-12, 1) - 1 = 1e-12
// OUT-NEXT: f16 adds: ok
