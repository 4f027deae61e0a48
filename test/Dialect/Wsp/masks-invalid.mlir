// Every verifier clause of the mask ops.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

func.func @f(%i: index) -> i1 {
  // expected-error @+1 {{'wsp.mask_value' op needs a window for a sliding mask}}
  %m = wsp.mask_value sliding flat col(%i) query(%i) pos(%i) prior(%i)
      active(%i) offset(%i) cache(%i) : i1
  return %m : i1
}

// -----

func.func @f(%i: index) -> i1 {
  // expected-error @+1 {{'wsp.mask_value' op takes no window for a standard mask}}
  %m = wsp.mask_value standard window(4) flat col(%i) query(%i) pos(%i)
      prior(%i) active(%i) offset(%i) cache(%i) : i1
  return %m : i1
}

// -----

func.func @f(%i: index) -> i1 {
  // expected-error @+1 {{'wsp.mask_value' op window must be > 0, got 0}}
  %m = wsp.mask_value sliding window(0) flat col(%i) query(%i) pos(%i)
      prior(%i) active(%i) offset(%i) cache(%i) : i1
  return %m : i1
}

// -----

func.func @f(%p: memref<?x?xi32>, %m: memref<?x?x?xi8>, %i: index) {
  // expected-error @+1 {{'wsp.gen_mask' op window must be > 0, got -2}}
  wsp.gen_mask sliding window(-2) flat s_prior(%i) pos_ids(%p : memref<?x?xi32>)
      into %m : memref<?x?x?xi8>
  return
}

// -----

func.func @f(%p: memref<?x?xi32>, %m: memref<?x?x?xi8>, %i: index) {
  // expected-error @+1 {{'wsp.gen_mask' op takes a core exactly when sharded}}
  "wsp.gen_mask"(%i, %p, %m) <{kind = 0 : i32, layout = 0 : i32, shard = 2 : i32, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>}>
      : (index, memref<?x?xi32>, memref<?x?x?xi8>) -> ()
  return
}

// -----

func.func @f(%p: memref<3x4xi32>, %m: memref<3x5x20xi8>, %i: index) {
  // expected-error @+1 {{'wsp.gen_mask' op pos_ids has 4 queries per batch but the mask has 5}}
  wsp.gen_mask standard flat s_prior(%i) pos_ids(%p : memref<3x4xi32>)
      into %m : memref<3x5x20xi8>
  return
}

// -----

func.func @f(%p: memref<3x4xi32>, %m: memref<2x4x20xi8>, %i: index) {
  // expected-error @+1 {{'wsp.gen_mask' op pos_ids has 3 batches but the mask has 2}}
  wsp.gen_mask standard flat s_prior(%i) pos_ids(%p : memref<3x4xi32>)
      into %m : memref<2x4x20xi8>
  return
}

// -----

func.func @f(%p: memref<3x4xi32>, %m: memref<3x4x20xi8>, %a: memref<3x4x5xi8>, %i: index) {
  // expected-error @+1 {{'wsp.gen_mask' op active_mask must be [batch, s_active, s_active]}}
  wsp.gen_mask standard flat s_prior(%i) pos_ids(%p : memref<3x4xi32>)
      active_mask(%a : memref<3x4x5xi8>) into %m : memref<3x4x20xi8>
  return
}

// -----

func.func @f(%p: memref<?x?xi64>, %m: memref<?x?x?xi8>, %i: index) {
  // expected-error @+1 {{'wsp.gen_mask' op operand #1 must be 2D memref of 32-bit signless integer values}}
  wsp.gen_mask standard flat s_prior(%i) pos_ids(%p : memref<?x?xi64>)
      into %m : memref<?x?x?xi8>
  return
}

// -----

// wsp.mask_range: a sliding mask needs its window.
func.func @f(%i: index) -> (index, index) {
  // expected-error @+1 {{'wsp.mask_range' op needs a window for a sliding mask}}
  %lo, %hi = wsp.mask_range sliding query(%i) pos(%i) prior(%i) : index, index
  return %lo, %hi : index, index
}

// -----

// wsp.mask_range: a standard mask has no window.
func.func @f(%i: index) -> (index, index) {
  // expected-error @+1 {{'wsp.mask_range' op takes no window for a standard mask}}
  %lo, %hi = wsp.mask_range standard window(4) query(%i) pos(%i) prior(%i)
      : index, index
  return %lo, %hi : index, index
}

// -----

// wsp.mask_range: the window is positive (0 is rejected) ...
func.func @f(%i: index) -> (index, index) {
  // expected-error @+1 {{'wsp.mask_range' op window must be > 0, got 0}}
  %lo, %hi = wsp.mask_range sliding window(0) query(%i) pos(%i) prior(%i)
      : index, index
  return %lo, %hi : index, index
}

// -----

// ... and so is a negative one.
func.func @f(%i: index) -> (index, index) {
  // expected-error @+1 {{'wsp.mask_range' op window must be > 0, got -3}}
  %lo, %hi = wsp.mask_range sliding window(-3) query(%i) pos(%i) prior(%i)
      : index, index
  return %lo, %hi : index, index
}

// -----

// wsp.mask_range: the kind is standard or sliding; there is no other.
func.func @f(%i: index) -> (index, index) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [standard, sliding]}}
  %lo, %hi = wsp.mask_range causal query(%i) pos(%i) prior(%i) : index, index
  return %lo, %hi : index, index
}

// -----

// wsp.mask_range: the range bounds are index.
func.func @f(%i: index) -> (i32, index) {
  // expected-error @+1 {{'wsp.mask_range' op result #0 must be index, but got 'i32'}}
  %r:2 = "wsp.mask_range"(%i, %i, %i) <{kind = 0 : i32}>
      : (index, index, index) -> (i32, index)
  return %r#0, %r#1 : i32, index
}
