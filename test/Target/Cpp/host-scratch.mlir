// memref.alloca in a planning function: stack storage and a view of it,
// uninitialized as memref.alloca's memory is (the function writes every
// element it reads); compiles warning-free and runs.
// RUN: wsp-translate --wsp-to-cpusim %s -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp -x c++ - -o %t.exe -pthread <<< 'int main() { return wsp_gen::sum_scratch(5) == 15 ? 0 : 1; }'
// RUN: %t.exe

// CHECK-LABEL: int32_t sum_scratch(int64_t a0) {
// CHECK: int32_t [[S:v[0-9]+]]_storage[8];
// CHECK-NEXT: MemRef<int32_t, 1> [[S]] = MemRef<int32_t, 1>{[[S]]_storage, {8}};
func.func @sum_scratch(%n: i64) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %scratch = memref.alloca() : memref<8xi32>
  %k = arith.index_cast %n : i64 to index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = arith.index_cast %i : index to i32
    %one = arith.constant 1 : i32
    %w = arith.addi %v, %one : i32
    %in = arith.cmpi ult, %i, %k : index
    %x = arith.select %in, %w, %zero : i32
    memref.store %x, %scratch[%i] : memref<8xi32>
  }
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> i32 {
    %v = memref.load %scratch[%i] : memref<8xi32>
    %next = arith.addi %acc, %v : i32
    scf.yield %next : i32
  }
  return %sum : i32
}
