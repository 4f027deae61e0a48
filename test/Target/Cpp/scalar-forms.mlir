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

// CHECK: static const bf16 g_table[2] = {f32_to_bf16_storage(0x1.8p+0f), f32_to_bf16_storage(-0x1p+1f)};
memref.global "private" constant @table : memref<2xbf16> = dense<[1.5, -2.0]>

// CHECK-LABEL: float scalars(
// CHECK: (void)a1;
// CHECK: bf16 [[H:v[0-9]+]] = f32_to_bf16_storage(0x1.4p+1f);
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

// arith.cmpf: ordered predicates are false on NaN, unordered true; the
// result bits, predicate by predicate (ogt, oge, olt, one, ord, ugt, ule,
// une, uno), make one number.
// CHECK-LABEL: int32_t fcmp(
// CHECK: bool {{.*}} = a0 > a1;
// CHECK: bool {{.*}} = !(a0 <= a1);
func.func @fcmp(%a: f32, %b: f32) -> i32 {
  %p0 = arith.cmpf ogt, %a, %b : f32
  %p1 = arith.cmpf oge, %a, %b : f32
  %p2 = arith.cmpf olt, %a, %b : f32
  %p3 = arith.cmpf one, %a, %b : f32
  %p4 = arith.cmpf ord, %a, %b : f32
  %p5 = arith.cmpf ugt, %a, %b : f32
  %p6 = arith.cmpf ule, %a, %b : f32
  %p7 = arith.cmpf une, %a, %b : f32
  %p8 = arith.cmpf uno, %a, %b : f32
  %r0 = arith.extui %p0 : i1 to i32
  %r1 = arith.extui %p1 : i1 to i32
  %r2 = arith.extui %p2 : i1 to i32
  %r3 = arith.extui %p3 : i1 to i32
  %r4 = arith.extui %p4 : i1 to i32
  %r5 = arith.extui %p5 : i1 to i32
  %r6 = arith.extui %p6 : i1 to i32
  %r7 = arith.extui %p7 : i1 to i32
  %r8 = arith.extui %p8 : i1 to i32
  %w0 = arith.constant 1 : i32
  %w1 = arith.constant 2 : i32
  %w2 = arith.constant 4 : i32
  %w3 = arith.constant 8 : i32
  %w4 = arith.constant 16 : i32
  %w5 = arith.constant 32 : i32
  %w6 = arith.constant 64 : i32
  %w7 = arith.constant 128 : i32
  %w8 = arith.constant 256 : i32
  %m0 = arith.muli %r0, %w0 : i32
  %m1 = arith.muli %r1, %w1 : i32
  %m2 = arith.muli %r2, %w2 : i32
  %m3 = arith.muli %r3, %w3 : i32
  %m4 = arith.muli %r4, %w4 : i32
  %m5 = arith.muli %r5, %w5 : i32
  %m6 = arith.muli %r6, %w6 : i32
  %m7 = arith.muli %r7, %w7 : i32
  %m8 = arith.muli %r8, %w8 : i32
  %a0 = arith.addi %m0, %m1 : i32
  %a1 = arith.addi %a0, %m2 : i32
  %a2 = arith.addi %a1, %m3 : i32
  %a3 = arith.addi %a2, %m4 : i32
  %a4 = arith.addi %a3, %m5 : i32
  %a5 = arith.addi %a4, %m6 : i32
  %a6 = arith.addi %a5, %m7 : i32
  %a7 = arith.addi %a6, %m8 : i32
  return %a7 : i32
}

// 2.5 + 1.5 + 1 (false < true, unsigned) + 0.25 (x, carried unchanged).
// OUT: scalars 5.25
// OUT-NEXT: maximumf(+0, -0) = +0, maximumf(1 + 1e-12, 1) - 1 = 1e-12
// OUT-NEXT: f16 adds: ok
// 2 > 1: ogt oge one ord ugt une = 1 + 2 + 8 + 16 + 32 + 128 = 187.
// 1 < 2: olt one ord ule une = 4 + 8 + 16 + 64 + 128 = 220.
// NaN vs 1: ugt ule une uno = 32 + 64 + 128 + 256 = 480.
// OUT-NEXT: fcmp 187 220 480
