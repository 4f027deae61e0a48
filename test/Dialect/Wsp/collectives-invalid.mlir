// Every verifier clause of wsp.all_reduce, one failing case each.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

func.func @f(%h: memref<8xf32>) {
  // expected-error @+1 {{names no symbol @tp}}
  %s = wsp.all_reduce %h on @tp : memref<8xf32>
  return
}

// -----

func.func @g() { return }
func.func @f(%h: memref<8xf32>) {
  // expected-error @+1 {{names @g, which is not a shard.grid}}
  %s = wsp.all_reduce %h on @g : memref<8xf32>
  return
}

// -----

shard.grid @tp(shape = 2)
func.func @f(%h: memref<8xf16>) {
  // expected-error @+1 {{reduces f32, bf16 or i32 elements (the runtime's all_reduce), not 'f16'}}
  %s = wsp.all_reduce %h on @tp : memref<8xf16>
  return
}

// -----

shard.grid @tp(shape = 2)
func.func @f(%h: memref<8x8xf32, strided<[16, 1]>>) {
  // expected-error @+1 {{needs a contiguous buffer (identity layout), not 'memref<8x8xf32, strided<[16, 1]>>'}}
  %s = wsp.all_reduce %h on @tp : memref<8x8xf32, strided<[16, 1]>>
  return
}

// -----

shard.grid @tp(shape = 2)
func.func @f(%h: memref<8xf32>) {
  // expected-error @+1 {{reduces by sum, max or min, not product}}
  %s = wsp.all_reduce %h on @tp reduction = product : memref<8xf32>
  return
}

// -----

shard.grid @tp(shape = 2)
wsp.tier_config @Tiers [#wsp.tier<0, [1, 16]>]
wsp.kernel @k tiers(@Tiers) (%d: !wsp.descriptor<attention>, %h: memref<8xf32>) {
  // expected-error @+1 {{runs between kernels (on the host or the AICPU), not inside a wsp.kernel}}
  %s = wsp.all_reduce %h on @tp : memref<8xf32>
  wsp.return
}

// -----
// The collectives along an axis.

func.func @f(%a: memref<8xf32>, %b: memref<16xf32>) {
  // expected-error @+1 {{names no symbol @g}}
  %s = wsp.all_gather %a into %b on @g gather_axis = 0 : memref<8xf32> into memref<16xf32>
  return
}

// -----

shard.grid @g(shape = 2)
func.func @f(%a: memref<8xf32>) {
  // expected-error @+1 {{needs a destination other than its source}}
  %s = wsp.all_gather %a into %a on @g gather_axis = 0 : memref<8xf32> into memref<8xf32>
  return
}

// -----

shard.grid @g(shape = 2)
func.func @f(%a: memref<8xf32>, %b: memref<16xbf16>) {
  // expected-error @+1 {{moves elements of one type, not 'f32' into 'bf16'}}
  %s = wsp.all_gather %a into %b on @g gather_axis = 0 : memref<8xf32> into memref<16xbf16>
  return
}

// -----

shard.grid @g(shape = 2)
func.func @f(%a: memref<8xi1>, %b: memref<16xi1>) {
  // expected-error @+1 {{moves integers or floats of whole bytes, not 'i1'}}
  %s = wsp.all_gather %a into %b on @g gather_axis = 0 : memref<8xi1> into memref<16xi1>
  return
}

// -----

shard.grid @g(shape = 2)
func.func @f(%a: memref<8xf32>, %b: memref<2x8xf32>) {
  // expected-error @+1 {{needs a source and a destination of one rank (at least 1), not 1 and 2}}
  %s = wsp.all_gather %a into %b on @g gather_axis = 0 : memref<8xf32> into memref<2x8xf32>
  return
}

// -----

shard.grid @g(shape = 2)
func.func @f(%a: memref<4x8xf32, strided<[16, 1]>>, %b: memref<8x8xf32>) {
  // expected-error @+1 {{needs contiguous row-major buffers, not 'memref<4x8xf32, strided<[16, 1]>>'}}
  %s = wsp.all_gather %a into %b on @g gather_axis = 0 : memref<4x8xf32, strided<[16, 1]>> into memref<8x8xf32>
  return
}

// -----

shard.grid @g(shape = 2)
func.func @f(%a: memref<4x8xf32>, %b: memref<8x8xf32>) {
  // expected-error @+1 {{gather_axis 2 is outside the buffers' 2 dimensions}}
  %s = wsp.all_gather %a into %b on @g gather_axis = 2 : memref<4x8xf32> into memref<8x8xf32>
  return
}

// -----

shard.grid @g(shape = 2)
func.func @f(%a: memref<4x8xf32>, %b: memref<8x4xf32>) {
  // expected-error @+1 {{needs equal sizes outside the axis; dimension 1 is 8 in the source and 4 in the destination}}
  %s = wsp.all_gather %a into %b on @g gather_axis = 0 : memref<4x8xf32> into memref<8x4xf32>
  return
}

// -----

shard.grid @g(shape = 4)
func.func @f(%a: memref<4x8xf32>, %b: memref<8x8xf32>) {
  // expected-error @+1 {{needs the destination's size at the axis (8) to be the 4 ranks times the source's (4)}}
  %s = wsp.all_gather %a into %b on @g gather_axis = 0 : memref<4x8xf32> into memref<8x8xf32>
  return
}

// -----

shard.grid @g(shape = ?)
func.func @f(%a: memref<4x8xf32>, %b: memref<6x8xf32>) {
  // expected-error @+1 {{needs the destination's size at the axis (6) to be a multiple of the source's (4)}}
  %s = wsp.all_gather %a into %b on @g gather_axis = 0 : memref<4x8xf32> into memref<6x8xf32>
  return
}

// -----

shard.grid @g(shape = 4)
func.func @f(%a: memref<8x8xf32>, %b: memref<4x8xf32>) {
  // expected-error @+1 {{needs the source's size at the axis (8) to be the 4 ranks times the destination's (4)}}
  %s = wsp.all_slice %a into %b on @g slice_axis = 0 : memref<8x8xf32> into memref<4x8xf32>
  return
}

// -----

shard.grid @g(shape = 2)
func.func @f(%a: memref<8x8xf32>, %b: memref<4x8xf32>) {
  // expected-error @+1 {{slice_axis 3 is outside the buffers' 2 dimensions}}
  %s = wsp.all_slice %a into %b on @g slice_axis = 3 : memref<8x8xf32> into memref<4x8xf32>
  return
}

// -----

shard.grid @g(shape = 4)
func.func @f(%a: memref<6x8xf32>, %b: memref<2x32xf32>) {
  // expected-error @+1 {{needs the source's size at the split axis (6) to divide by the 4 ranks}}
  %s = wsp.all_to_all %a into %b on @g split_axis = 0 concat_axis = 1 : memref<6x8xf32> into memref<2x32xf32>
  return
}

// -----

shard.grid @g(shape = 4)
func.func @f(%a: memref<8x8xf32>, %b: memref<2x8xf32>) {
  // expected-error @+1 {{needs a destination of size 32 at dimension 1 (the source's 8 x ranks), not 8}}
  %s = wsp.all_to_all %a into %b on @g split_axis = 0 concat_axis = 1 : memref<8x8xf32> into memref<2x8xf32>
  return
}

// -----

shard.grid @g(shape = 2)
func.func @f(%a: memref<8x8xf32>, %b: memref<8x8xf32>) {
  // expected-error @+1 {{concat_axis 2 is outside the buffers' 2 dimensions}}
  %s = wsp.all_to_all %a into %b on @g split_axis = 0 concat_axis = 2 : memref<8x8xf32> into memref<8x8xf32>
  return
}

// -----

shard.grid @g(shape = 2)
wsp.tier_config @Tiers [#wsp.tier<0, [1, 16]>]
wsp.kernel @k tiers(@Tiers) (%d: !wsp.descriptor<attention>, %a: memref<8xf32>, %b: memref<8xf32>) {
  // expected-error @+1 {{runs between kernels (on the host or the AICPU), not inside a wsp.kernel}}
  %s = wsp.all_slice %a into %b on @g slice_axis = 0 : memref<8xf32> into memref<8xf32>
  wsp.return
}

// -----

// Rank groups: the axes must name a group of a static grid.
shard.grid @g(shape = 2x2)
func.func @no_axes(%a: memref<8xf32>) -> i32 {
  // expected-error @+1 {{needs at least one grid axis (leave grid_axes out for the whole grid)}}
  %s = wsp.all_reduce %a on @g grid_axes = [] : memref<8xf32>
  return %s : i32
}

// -----

shard.grid @g(shape = 2x2)
func.func @axis_twice(%a: memref<8xf32>) -> i32 {
  // expected-error @+1 {{names grid axis 1 twice}}
  %s = wsp.all_reduce %a on @g grid_axes = [1, 1] : memref<8xf32>
  return %s : i32
}

// -----

shard.grid @g(shape = 2x2)
func.func @axis_outside(%a: memref<8xf32>, %b: memref<16xf32>) -> i32 {
  // expected-error @+1 {{grid axis 2 is outside @g's 2 dimensions}}
  %s = wsp.all_gather %a into %b on @g grid_axes = [2] gather_axis = 0 : memref<8xf32> into memref<16xf32>
  return %s : i32
}

// -----

shard.grid @g(shape = 2x?)
func.func @dynamic_grid(%a: memref<8xf32>) -> i32 {
  // expected-error @+1 {{needs a grid of static shape for grid_axes, not @g of shape [2, ?]}}
  %s = wsp.all_reduce %a on @g grid_axes = [0] : memref<8xf32>
  return %s : i32
}

// -----

// The group's ranks (2 along axis 0), not the grid's 6, size the gather.
shard.grid @g(shape = 2x3)
func.func @group_size(%a: memref<8xf32>, %b: memref<48xf32>) -> i32 {
  // expected-error @+1 {{needs the destination's size at the axis (48) to be the 2 ranks times the source's (8)}}
  %s = wsp.all_gather %a into %b on @g grid_axes = [0] gather_axis = 0 : memref<8xf32> into memref<48xf32>
  return %s : i32
}
