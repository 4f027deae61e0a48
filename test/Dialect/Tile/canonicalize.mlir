// tile.alloc's canonicalization: constant sizes become static extents, in
// place (tier specialization relies on it to fix tile shapes per tier).
// RUN: wsp-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @static_shape
func.func @static_shape(%n: index, %x: f32) {
  %c128 = arith.constant 128 : index
  // CHECK: %[[T:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 128x128xf32, valid = ?x128>
  %t = tile.alloc shape(%c128) valid(%n) : !tile.tile<vec, ?x128xf32, valid = ?x128>
  // CHECK: tile.muls %[[T]], %[[T]], %{{.*}} : !tile.tile<vec, 128x128xf32, valid = ?x128>, !tile.tile<vec, 128x128xf32, valid = ?x128>, f32
  tile.muls %t, %t, %x : !tile.tile<vec, ?x128xf32, valid = ?x128>, !tile.tile<vec, ?x128xf32, valid = ?x128>, f32
  return
}

// -----

// A constant valid extent equal to the static one prints as the plain type.
// CHECK-LABEL: func.func @static_valid
func.func @static_valid(%x: f32) {
  %c64 = arith.constant 64 : index
  %c16 = arith.constant 16 : index
  // CHECK: tile.alloc : !tile.tile<vec, 16x64xf32>
  %t = tile.alloc shape(%c64) valid(%c16, %c64) : !tile.tile<vec, 16x?xf32, valid = ?x?>
  tile.expands %t, %x : !tile.tile<vec, 16x?xf32, valid = ?x?>, f32
  return
}

// -----

// A size no user accepts stays dynamic: the view takes rows [32, 48), so
// the 16 rows the constant gives would not hold it.
// CHECK-LABEL: func.func @view_outside
func.func @view_outside(%x: f32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  // CHECK: tile.alloc shape(%{{.*}}) valid(%{{.*}}) : !tile.tile<vec, ?x128xf32, valid = ?x128>
  %t = tile.alloc shape(%c16) valid(%c16) : !tile.tile<vec, ?x128xf32, valid = ?x128>
  %v = tile.subview %t[%c32, %c0] : !tile.tile<vec, ?x128xf32, valid = ?x128> to !tile.tile<vec, 16x128xf32>
  tile.expands %v, %x : !tile.tile<vec, 16x128xf32>, f32
  return
}

// -----

// Unused tiles are dead; a used one stays.
// CHECK-LABEL: func.func @dead
func.func @dead(%x: f32) {
  // CHECK-NOT: tile.alloc : !tile.tile<vec, 8x64xf32>
  %dead = tile.alloc : !tile.tile<vec, 8x64xf32>
  // CHECK: tile.alloc : !tile.tile<vec, 16x64xf32>
  %t = tile.alloc : !tile.tile<vec, 16x64xf32>
  tile.expands %t, %x : !tile.tile<vec, 16x64xf32>, f32
  return
}
