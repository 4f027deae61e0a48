// wsp.all_gather, wsp.all_to_all and wsp.all_slice emitted: the communicator's
// *_axis forms over both views' data and sizes, inside the frame
// wsp.all_reduce uses (the grid's rank count checked when static, `after`
// joining the call not ready), on the rank's group with grid_axes;
// shard.process_linear_index as the rank, shard.process_multi_index as its
// coordinates;
// memref.copy between contiguous views as std::copy_n. The CPU-sim form
// compiles warning-free and runs on 1 to 4 ranks in one process against
// index loops in the driver (Inputs/axis-collectives-driver.cpp).
// RUN: wsp-translate --wsp-to-cpusim %s -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp -x c++ %S/Inputs/axis-collectives-driver.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s --check-prefix=OUT

// CHECK: #include <pto/runtime/collectives.hpp>
// CHECK-LABEL: int32_t gather_heads(
// CHECK: // wsp.all_gather on @any: every rank's buffer, concatenated along axis 1
// CHECK: = static_cast<int32_t>(comm.all_gather_axis(
// CHECK-NEXT: a0.data, a0.sizes, a1.data, a1.sizes, 3, 1, sizeof(float), true));
// CHECK-LABEL: int32_t exchange(
// CHECK: // wsp.all_to_all on @any: pieces along axis 0 to every rank, received along axis 1
// CHECK: comm.all_to_all_axes(
// CHECK-NEXT: a0.data, a0.sizes, a1.data, a1.sizes, 3, 0, 1, sizeof(int32_t), ready));
// CHECK-LABEL: int32_t my_rows(
// CHECK: = static_cast<int64_t>(::pto::runtime::comm::current().rank());
// CHECK: std::copy_n(
// CHECK: // wsp.all_slice on @two: this rank's piece along axis 0
// CHECK: if (comm.size() != 2)
// CHECK: comm.all_slice_axis(
// CHECK-LABEL: int32_t rows_and_columns(
// CHECK: // wsp.all_reduce on @grid: Sum over the ranks, in rank order
// CHECK: if (comm.size() != 6)
// CHECK-NEXT: = 3; // INVALID_PARAMS: @grid has 6 ranks
// CHECK-NEXT: else {
// CHECK-NEXT: // This rank's group: the ranks of @grid that differ from it along axes [1] only.
// CHECK-NEXT: static constexpr int64_t kGrid[] = {2, 3};
// CHECK-NEXT: static constexpr int16_t kAxes[] = {1};
// CHECK-NEXT: ::pto::runtime::comm::Communicator *group = nullptr;
// CHECK-NEXT: = static_cast<int32_t>(comm.along(kGrid, 2, kAxes, 1, group));
// CHECK-NEXT: if ([[S:.*]] == 0)
// CHECK-NEXT: [[S]] = static_cast<int32_t>(group->all_reduce(
// CHECK: = static_cast<int64_t>(::pto::runtime::comm::current().rank()) / 1 % 3;
// CHECK: = static_cast<int64_t>(::pto::runtime::comm::current().rank()) / 3 % 2;
// CHECK: // wsp.all_gather on @grid: every rank's buffer, concatenated along axis 0
// CHECK: static constexpr int16_t kAxes[] = {0};
// CHECK: group->all_gather_axis(

// OUT: gather_heads on 1 ranks: ok
// OUT: gather_heads on 4 ranks: ok
// OUT: exchange on 3 ranks: ok
// OUT: exchange after a failure on rank 0: ok
// OUT: my_rows on 2 ranks: ok
// OUT: my_rows on 3 ranks: ok
// OUT: rows_and_columns on 6 ranks: ok
// OUT: rows_and_columns on 4 ranks: ok

module @axis_collectives {
  shard.grid @any(shape = ?)
  shard.grid @two(shape = 2)
  shard.grid @grid(shape = 2x3)

  // [2, h, 3] per rank -> [2, ranks x h, 3].
  func.func @gather_heads(%x: memref<2x?x3xf32>, %all: memref<2x?x3xf32>) -> i32 {
    %s = wsp.all_gather %x into %all on @any gather_axis = 1
        : memref<2x?x3xf32> into memref<2x?x3xf32>
    return %s : i32
  }

  // [ranks x 2, 2, 3] per rank -> [2, ranks x 2, 3].
  func.func @exchange(%x: memref<?x2x3xi32>, %y: memref<2x?x3xi32>, %before: i32) -> i32 {
    %s = wsp.all_to_all %x into %y on @any split_axis = 0 concat_axis = 1
        after(%before) : memref<?x2x3xi32> into memref<2x?x3xi32>
    return %s : i32
  }

  // Copies its rank index into row 0 of %staging, then takes its half.
  func.func @my_rows(%staging: memref<4x2xi32>, %half: memref<2x2xi32>,
                     %rank_out: memref<1xi32>) -> i32 {
    %r = shard.process_linear_index on @two : index
    %r32 = arith.index_cast %r : index to i32
    %c0 = arith.constant 0 : index
    memref.store %r32, %rank_out[%c0] : memref<1xi32>
    %row = memref.subview %staging[3, 0] [1, 2] [1, 1]
        : memref<4x2xi32> to memref<1x2xi32, strided<[2, 1], offset: 6>>
    %first = memref.subview %staging[0, 0] [1, 2] [1, 1]
        : memref<4x2xi32> to memref<1x2xi32, strided<[2, 1]>>
    memref.copy %row, %first : memref<1x2xi32, strided<[2, 1], offset: 6>>
        to memref<1x2xi32, strided<[2, 1]>>
    %s = wsp.all_slice %staging into %half on @two slice_axis = 0
        : memref<4x2xi32> into memref<2x2xi32>
    return %s : i32
  }

  // Rank groups on a 2 x 3 grid: the sum over each row of 3 ranks (axis 1),
  // the rank's coordinates (axis 1, then 0), then every rank's index
  // gathered down each column of 2 (axis 0).
  func.func @rows_and_columns(%x: memref<2xf32>, %at: memref<2xi32>,
                              %me: memref<1xi32>, %column: memref<2xi32>) -> i32 {
    %s = wsp.all_reduce %x on @grid grid_axes = [1] : memref<2xf32>
    %j, %i = shard.process_multi_index on @grid axes = [1, 0] : index, index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %j32 = arith.index_cast %j : index to i32
    %i32 = arith.index_cast %i : index to i32
    memref.store %j32, %at[%c0] : memref<2xi32>
    memref.store %i32, %at[%c1] : memref<2xi32>
    %r = shard.process_linear_index on @grid : index
    %r32 = arith.index_cast %r : index to i32
    memref.store %r32, %me[%c0] : memref<1xi32>
    %g = wsp.all_gather %me into %column on @grid grid_axes = [0] gather_axis = 0
        after(%s) : memref<1xi32> into memref<2xi32>
    return %g : i32
  }
}
