// memref.expand_shape and memref.collapse_shape of row-major buffers are
// views of the same data with other sizes; compiles warning-free and runs.
// RUN: wsp-translate --wsp-to-cpusim %s -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp -x c++ - -o %t.exe -pthread <<< 'int main() { float d[3 * 12]; for (int i = 0; i < 36; ++i) d[i] = float(i); return wsp_gen::reshaped(wsp_gen::MemRef<float, 2>{d, {3, 12}}) == 7.f + 26.f ? 0 : 1; }'
// RUN: %t.exe

// CHECK-LABEL: float reshaped(MemRef<float, 2> a0) {
// CHECK: MemRef<float, 3> [[E:v[0-9]+]] = MemRef<float, 3>{a0.data, {v{{[0-9]+}}, 4, 3}};
// CHECK: MemRef<float, 1> {{v[0-9]+}} = MemRef<float, 1>{[[E]].data, {[[E]].sizes[0] * [[E]].sizes[1] * [[E]].sizes[2]}};
func.func @reshaped(%m: memref<?x12xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c26 = arith.constant 26 : index
  %rows = memref.dim %m, %c0 : memref<?x12xf32>
  // [rows, 12] as [rows, 4, 3]: element (0, 2, 1) is 7.
  %e = memref.expand_shape %m [[0], [1, 2]] output_shape [%rows, 4, 3]
      : memref<?x12xf32> into memref<?x4x3xf32>
  %a = memref.load %e[%c0, %c2, %c1] : memref<?x4x3xf32>
  // ... and flat: element 26 is 26.
  %f = memref.collapse_shape %e [[0, 1, 2]] : memref<?x4x3xf32> into memref<?xf32>
  %b = memref.load %f[%c26] : memref<?xf32>
  %s = arith.addf %a, %b : f32
  return %s : f32
}
