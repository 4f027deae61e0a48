// The AICore form takes tile kernels: a wsp.kernel that moves global-memory
// data element by element (any memref.store, a floating-point memref.load)
// is named at the op; integer metadata loads and the host functions are
// fine. The CPU simulation prints every one of these kernels.
// RUN: wsp-translate --wsp-to-aicore %s -split-input-file -verify-diagnostics
// RUN: wsp-translate --wsp-to-cpusim %s -split-input-file | FileCheck %s --check-prefix=SIM

// A scalar store of f32 data (the result of a scalar GEMM, as moe.mlir's
// kernel writes it).
// SIM: static void k_tier0(
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k_tier0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>, %x: memref<?x128xf32>, %y: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %row = wsp.param %d["kv_start"] : !wsp.descriptor<attention>
  %a = tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
  tile.load %a, %x[%row, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  tile.set_flag mte2 -> s event(0)
  tile.wait_flag mte2 -> s event(0)
  %v = tile.getval %a[%c0, %c0] : !tile.tile<vec, 16x128xf32>, f32
  // expected-error @+1 {{'memref.store' op moves global-memory data element by element in wsp.kernel @k_tier0; the AICore form takes tile kernels (tile.load / tile.store), the CPU simulation runs this one}}
  memref.store %v, %y[%row, %c0] : memref<?x128xf32>
  wsp.return
}
wsp.kernel_table @k_table tiers(@T) {0: @k_tier0}

// -----

// A scalar load of bf16 data, named in the kernel it is in (the second).
// SIM: static void k_tier0(
// SIM: static void k_tier1(
wsp.tier_config @T [#wsp.tier<0, [1, 64]>, #wsp.tier<1, [65, 1024]>]
wsp.kernel @k_tier0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>, %x: memref<?x128xbf16>, %y: memref<?x128xf32>) {
  wsp.return
}
wsp.kernel @k_tier1 tiers(@T) tier(1) (%d: !wsp.descriptor<attention>, %x: memref<?x128xbf16>, %y: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %row = wsp.param %d["kv_start"] : !wsp.descriptor<attention>
  // expected-error @+1 {{'memref.load' op moves global-memory data element by element in wsp.kernel @k_tier1; the AICore form takes tile kernels (tile.load / tile.store), the CPU simulation runs this one}}
  %v = memref.load %x[%row, %c0] : memref<?x128xbf16>
  %f = arith.extf %v : bf16 to f32
  %a = tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
  tile.expands %a, %f : !tile.tile<vec, 16x128xf32>, f32
  tile.set_flag v -> mte3 event(0)
  tile.wait_flag v -> mte3 event(0)
  tile.store %y[%row, %c0], %a : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.barrier all
  wsp.return
}
wsp.kernel_table @k_table tiers(@T) {0: @k_tier0, 1: @k_tier1}

// -----

// Any scalar store counts, integer data too.
// SIM: static void k_tier0(
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k_tier0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>, %ids: memref<?xi32>) {
  %row = wsp.param %d["kv_start"] : !wsp.descriptor<attention>
  %id = arith.index_cast %row : index to i32
  // expected-error @+1 {{'memref.store' op moves global-memory data element by element in wsp.kernel @k_tier0}}
  memref.store %id, %ids[%row] : memref<?xi32>
  wsp.return
}
wsp.kernel_table @k_table tiers(@T) {0: @k_tier0}

// -----

// Accepted: a tile kernel that reads integer metadata (a length) element
// by element and moves its data with tile.load / tile.store, and a host
// function that stores scalars (host code is not part of the AICore form).
// SIM: static void k_tier0(
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k_tier0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>, %lens: memref<?xi32>, %x: memref<?x128xf32>, %y: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %req = wsp.param %d["request_idx"] : !wsp.descriptor<attention>
  %len_i32 = memref.load %lens[%req] : memref<?xi32>
  %len = arith.index_cast %len_i32 : i32 to index
  %a = tile.alloc valid(%len) at 0 : !tile.tile<vec, 16x128xf32, valid = ?x128>
  %b = tile.alloc valid(%len) at 8192 : !tile.tile<vec, 16x128xf32, valid = ?x128>
  tile.load %a, %x[%req, %c0] : !tile.tile<vec, 16x128xf32, valid = ?x128>, memref<?x128xf32>
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32, valid = ?x128>, !tile.tile<vec, 16x128xf32, valid = ?x128>
  tile.set_flag v -> mte3 event(0)
  tile.wait_flag v -> mte3 event(0)
  tile.store %y[%req, %c0], %b : memref<?x128xf32>, !tile.tile<vec, 16x128xf32, valid = ?x128>
  tile.barrier all
  wsp.return
}
wsp.kernel_table @k_table tiers(@T) {0: @k_tier0}
func.func @step(%out: memref<?xf32>, %i: index, %v: f32) {
  memref.store %v, %out[%i] : memref<?xf32>
  return
}

// -----

// An int8 cache read element by element is data, not a scalar a kernel
// reads: only 32/64-bit integers, index and descriptors pass.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k_tier0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>, %cache: memref<?x128xi8>, %y: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %row = wsp.param %d["kv_start"] : !wsp.descriptor<attention>
  %a = tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'memref.load' op moves global-memory data element by element in wsp.kernel @k_tier0}}
  %q = memref.load %cache[%row, %c0] : memref<?x128xi8>
  %f = arith.sitofp %q : i8 to f32
  tile.setval %a[%c0, %c0], %f : !tile.tile<vec, 16x128xf32>, f32
  tile.set_flag s -> mte3 event(0)
  tile.wait_flag s -> mte3 event(0)
  tile.store %y[%row, %c0], %a : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  wsp.return
}
wsp.kernel_table @k_table tiers(@T) {0: @k_tier0}
