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
