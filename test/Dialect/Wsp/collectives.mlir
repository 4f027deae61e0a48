// wsp.all_reduce round trip, custom and generic forms.
// RUN: wsp-opt %s | FileCheck %s
// RUN: wsp-opt %s -mlir-print-op-generic | wsp-opt | FileCheck %s

shard.grid @tp(shape = 4)
shard.grid @any(shape = ?)

// CHECK-LABEL: func.func @partials
// CHECK: %{{.*}} = wsp.all_reduce %{{.*}} on @tp : memref<?x256xbf16>
// CHECK: %[[S1:.*]] = wsp.all_reduce %{{.*}} on @any reduction = {{ *}}max : memref<16xf32>
// CHECK: %{{.*}} = wsp.all_reduce %{{.*}} on @tp reduction = {{ *}}min after(%[[S1]]) : memref<?xi32>
func.func @partials(%h: memref<?x256xbf16>, %m: memref<16xf32>,
                    %i: memref<?xi32>) -> i32 {
  %s0 = wsp.all_reduce %h on @tp reduction = sum : memref<?x256xbf16>
  %s1 = wsp.all_reduce %m on @any reduction = max : memref<16xf32>
  %s2 = wsp.all_reduce %i on @tp reduction = min after(%s1) : memref<?xi32>
  return %s2 : i32
}

// The collectives along an axis (shard's all_gather, all_to_all and
// all_slice on memrefs, in place).
shard.grid @kvdp(shape = 4)

// CHECK-LABEL: func.func @along_axes
// CHECK: %[[G:.*]] = wsp.all_gather %{{.*}} into %{{.*}} on @kvdp gather_axis = 2 : memref<?x1x2x64xbf16> into memref<?x1x8x64xbf16>
// CHECK: %[[A:.*]] = wsp.all_to_all %{{.*}} into %{{.*}} on @kvdp split_axis = 0 concat_axis = 2 after(%[[G]]) : memref<8x1x2x64xbf16> into memref<2x1x8x64xbf16>
// CHECK: %{{.*}} = wsp.all_slice %{{.*}} into %{{.*}} on @any slice_axis = 2 after(%[[A]]) : memref<?x1x8x64xbf16> into memref<?x1x2x64xbf16>
func.func @along_axes(%q: memref<?x1x2x64xbf16>, %q_all: memref<?x1x8x64xbf16>,
                      %padded: memref<8x1x2x64xbf16>, %mine: memref<2x1x8x64xbf16>,
                      %out: memref<?x1x2x64xbf16>) -> i32 {
  %g = wsp.all_gather %q into %q_all on @kvdp gather_axis = 2
      : memref<?x1x2x64xbf16> into memref<?x1x8x64xbf16>
  %a = wsp.all_to_all %padded into %mine on @kvdp split_axis = 0 concat_axis = 2
      after(%g) : memref<8x1x2x64xbf16> into memref<2x1x8x64xbf16>
  %s = wsp.all_slice %q_all into %out on @any slice_axis = 2 after(%a)
      : memref<?x1x8x64xbf16> into memref<?x1x2x64xbf16>
  return %s : i32
}

// Rank groups (shard's grid_axes): the ranks that differ only along the
// named axes of a grid; the static sizes are checked against the group's
// number of ranks (3 along axis 1, 6 along both).
shard.grid @tp_kvdp(shape = 2x3)

// CHECK-LABEL: func.func @rank_groups
// CHECK: %[[R:.*]] = wsp.all_reduce %{{.*}} on @tp_kvdp grid_axes = [1] : memref<16xf32>
// CHECK: %[[G:.*]] = wsp.all_gather %{{.*}} into %{{.*}} on @tp_kvdp grid_axes = [1] gather_axis = 0 after(%[[R]]) : memref<2x4xf32> into memref<6x4xf32>
// CHECK: %[[A:.*]] = wsp.all_to_all %{{.*}} into %{{.*}} on @tp_kvdp grid_axes = [0] split_axis = 0 concat_axis = 1 : memref<4x4xf32> into memref<2x8xf32>
// CHECK: %{{.*}} = wsp.all_slice %{{.*}} into %{{.*}} on @tp_kvdp grid_axes = [1, 0] slice_axis = 0 after(%[[A]]) : memref<12x4xf32> into memref<2x4xf32>
func.func @rank_groups(%m: memref<16xf32>, %x: memref<2x4xf32>,
                       %rows: memref<6x4xf32>, %y: memref<4x4xf32>,
                       %z: memref<2x8xf32>, %all: memref<12x4xf32>) -> i32 {
  %r = wsp.all_reduce %m on @tp_kvdp grid_axes = [1] : memref<16xf32>
  %g = wsp.all_gather %x into %rows on @tp_kvdp grid_axes = [1] gather_axis = 0
      after(%r) : memref<2x4xf32> into memref<6x4xf32>
  %a = wsp.all_to_all %y into %z on @tp_kvdp grid_axes = [0] split_axis = 0
      concat_axis = 1 : memref<4x4xf32> into memref<2x8xf32>
  %s = wsp.all_slice %all into %x on @tp_kvdp grid_axes = [1, 0] slice_axis = 0
      after(%a) : memref<12x4xf32> into memref<2x4xf32>
  return %s : i32
}
