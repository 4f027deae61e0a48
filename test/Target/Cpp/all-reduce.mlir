// wsp.all_reduce emitted: the rank's communicator
// (pto::runtime::comm::current(), pto/runtime/collectives.hpp, included
// only by modules with collectives), the grid's rank count checked when it
// is static, `after` joining the call not ready. The CPU-sim form compiles
// warning-free and runs on 3 ranks in one process against a loop over the
// ranks (f32 sums in rank order: exact here); the AICPU form calls the same
// interface.
// RUN: wsp-translate --wsp-to-cpusim %s -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: wsp-translate --wsp-to-aicpu %s | FileCheck %s --check-prefix=AICPU
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp -x c++ %S/Inputs/all-reduce-driver.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s --check-prefix=OUT

// CHECK: #include <pto/runtime/collectives.hpp>
// CHECK-LABEL: int32_t sum_any(MemRef<float, 2> a0) {
// CHECK: // wsp.all_reduce on @any: Sum over the ranks, in rank order
// CHECK: ::pto::runtime::comm::Communicator &comm = ::pto::runtime::comm::current();
// CHECK-NOT: comm.size()
// CHECK: [[S:v[0-9]+]] = static_cast<int32_t>(comm.all_reduce(
// CHECK-NEXT: a0.data, size_t(1) * size_t(a0.sizes[0]) * size_t(a0.sizes[1]), ::pto::runtime::comm::ElemType::F32, ::pto::runtime::comm::ReduceOp::Sum, true));
// CHECK-LABEL: int32_t max_on_3(MemRef<int32_t, 1> a0, int32_t a1) {
// CHECK: const bool ready = a1 == 0;
// CHECK-NEXT: if (comm.size() != 3)
// CHECK-NEXT: [[S:v[0-9]+]] = 3; // INVALID_PARAMS: @three has 3 ranks
// CHECK-NEXT: else
// CHECK-NEXT: [[S]] = static_cast<int32_t>(comm.all_reduce(
// CHECK-NEXT: a0.data, size_t(1) * size_t(a0.sizes[0]), ::pto::runtime::comm::ElemType::I32, ::pto::runtime::comm::ReduceOp::Max, ready));
// CHECK-NEXT: if (!ready)
// CHECK-NEXT: [[S]] = a1;

// AICPU: #include "all_reduce_abi.h"
// AICPU-NEXT: #include <pto/runtime/collectives.hpp>
// AICPU: ::pto::runtime::comm::current()

// OUT: sum_any on 3 ranks: ok
// OUT: max_on_3 on 3 ranks: ok
// OUT: max_on_3 after a failure on rank 1: ok
// OUT: max_on_3 on 2 ranks: ok

module @all_reduce {
  shard.grid @any(shape = ?)
  shard.grid @three(shape = 3)

  func.func @sum_any(%x: memref<?x4xf32>) -> i32 {
    %s = wsp.all_reduce %x on @any : memref<?x4xf32>
    return %s : i32
  }

  func.func @max_on_3(%x: memref<?xi32>, %before: i32) -> i32 {
    %s = wsp.all_reduce %x on @three reduction = max after(%before) : memref<?xi32>
    return %s : i32
  }
}
