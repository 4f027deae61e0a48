// Round trip of every tile op and of the tile type, custom and generic form.
// RUN: wsp-opt %s | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | wsp-opt | FileCheck %s

// == The tile type ==

// CHECK-LABEL: func.func private @types
// CHECK-SAME: !tile.tile<vec, 16x128xf32>
// CHECK-SAME: !tile.tile<vec, 16x1xf32, col_major>
// CHECK-SAME: !tile.tile<vec, 16x128xbf16, valid = ?x128>
// CHECK-SAME: !tile.tile<mat, 128x128xbf16, valid = 128x?, zn>
// CHECK-SAME: !tile.tile<mat, ?x128xi8, valid = ?x?>
// CHECK-SAME: !tile.tile<mat, ?x128xi8, valid = ?x128>
// CHECK-SAME: !tile.tile<left, 16x64xf16>
// CHECK-SAME: !tile.tile<right, 64x32xi8>
// CHECK-SAME: !tile.tile<acc, 16x32xi32>
// CHECK-SAME: !tile.tile<vec, 8x32xi16, valid = 0x32>
func.func private @types(!tile.tile<vec, 16x128xf32>,
                         !tile.tile<vec, 16x1xf32, col_major>,
                         !tile.tile<vec, 16x128xbf16, valid = ?x128>,
                         !tile.tile<mat, 128x128xbf16, valid = 128x?, zn>,
                         !tile.tile<mat, ?x128xi8, valid = ?x?>,
                         !tile.tile<mat, ?x128xi8>,
                         !tile.tile<left, 16x64xf16, zz>,
                         !tile.tile<right, 64x32xi8>,
                         !tile.tile<acc, 16x32xi32, nz>,
                         !tile.tile<vec, 8x32xi16, valid = 0x32, row_major>)

// == Handles ==

// CHECK-LABEL: func.func @handles
func.func @handles(%n: index, %i: index, %tk: index) {
  %c0 = arith.constant 0 : index
  // CHECK: tile.alloc : !tile.tile<acc, 16x128xf32>
  %a = tile.alloc : !tile.tile<acc, 16x128xf32>
  // CHECK: tile.alloc valid(%{{.*}}) slot(%{{.*}}) buffers(2) : !tile.tile<mat, 128x128xbf16, valid = 128x?, zn>
  %k = tile.alloc valid(%n) slot(%i) buffers(2) : !tile.tile<mat, 128x128xbf16, valid = 128x?, zn>
  // CHECK: tile.alloc shape(%{{.*}}) valid(%{{.*}}) : !tile.tile<vec, ?x128xf32, valid = ?x128>
  %t = tile.alloc shape(%tk) valid(%n) : !tile.tile<vec, ?x128xf32, valid = ?x128>
  // CHECK: tile.alloc at 4096 : !tile.tile<vec, 48x128xbf16>
  %q = tile.alloc at 4096 : !tile.tile<vec, 48x128xbf16>
  // CHECK: tile.subview %{{.*}}[%{{.*}}, %{{.*}}] valid(%{{.*}}) : !tile.tile<vec, 48x128xbf16> to !tile.tile<vec, 16x128xbf16, valid = ?x128>
  %rows = tile.subview %q[%i, %c0] valid(%n) : !tile.tile<vec, 48x128xbf16> to !tile.tile<vec, 16x128xbf16, valid = ?x128>
  // CHECK: tile.reshape %{{.*}} : !tile.tile<vec, 48x128xbf16> to !tile.tile<vec, 1x6144xbf16>
  %flat = tile.reshape %q : !tile.tile<vec, 48x128xbf16> to !tile.tile<vec, 1x6144xbf16>
  return
}

// == Global memory ==

// CHECK-LABEL: func.func @memory
func.func @memory(%ws: memref<?x128xbf16>, %cache: memref<?x?x?x128xbf16>,
                  %flat: memref<?x?x128xbf16>, %table: memref<?x?xi32>,
                  %out: memref<?x?x128xf32>, %o16: memref<?x128xbf16>,
                  %row: memref<?xf32>, %h: index, %b: index, %p: index) {
  %c0 = arith.constant 0 : index
  %q = tile.alloc : !tile.tile<mat, 16x128xbf16>
  // CHECK: tile.load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !tile.tile<mat, 16x128xbf16>, memref<?x128xbf16>
  tile.load %q, %ws[%c0, %c0] : !tile.tile<mat, 16x128xbf16>, memref<?x128xbf16>
  %kt = tile.alloc : !tile.tile<mat, 128x64xbf16, zn>
  // CHECK: tile.load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] transpose : !tile.tile<mat, 128x64xbf16, zn>
  tile.load %kt, %ws[%p, %c0] transpose : !tile.tile<mat, 128x64xbf16, zn>, memref<?x128xbf16>
  // CHECK: tile.load_paged %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} transpose : !tile.tile<mat, 128x64xbf16, zn>, memref<?x?x?x128xbf16>, memref<?x?xi32>
  tile.load_paged %kt, %cache[%h], %table[%b], %p transpose : !tile.tile<mat, 128x64xbf16, zn>, memref<?x?x?x128xbf16>, memref<?x?xi32>
  %v = tile.alloc : !tile.tile<vec, 64x128xbf16>
  // CHECK: tile.load_paged %{{.*}}, %{{.*}}[], %{{.*}}[%{{.*}}], %{{.*}} : !tile.tile<vec, 64x128xbf16>, memref<?x?x128xbf16>, memref<?x?xi32>
  tile.load_paged %v, %flat[], %table[%b], %p : !tile.tile<vec, 64x128xbf16>, memref<?x?x128xbf16>, memref<?x?xi32>
  // CHECK: tile.store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<?x128xbf16>, !tile.tile<vec, 64x128xbf16>
  tile.store %o16[%c0, %c0], %v : memref<?x128xbf16>, !tile.tile<vec, 64x128xbf16>
  %acc = tile.alloc : !tile.tile<acc, 16x128xf32>
  // CHECK: tile.store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : memref<?x?x128xf32>, !tile.tile<acc, 16x128xf32>
  tile.store %out[%b, %c0, %c0], %acc : memref<?x?x128xf32>, !tile.tile<acc, 16x128xf32>
  // CHECK: tile.store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<?x128xbf16>, !tile.tile<acc, 16x128xf32>
  tile.store %o16[%c0, %c0], %acc : memref<?x128xbf16>, !tile.tile<acc, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  // CHECK: tile.load %{{.*}}, %{{.*}}[%{{.*}}] transpose : !tile.tile<vec, 16x1xf32, col_major>, memref<?xf32>
  tile.load %m, %row[%c0] transpose : !tile.tile<vec, 16x1xf32, col_major>, memref<?xf32>
  // CHECK: tile.store %{{.*}}[%{{.*}}], %{{.*}} transpose : memref<?xf32>, !tile.tile<vec, 16x1xf32, col_major>
  tile.store %row[%c0], %m transpose : memref<?xf32>, !tile.tile<vec, 16x1xf32, col_major>
  return
}

// == Moves, conversions, the cube ==

// CHECK-LABEL: func.func @cube
func.func @cube(%r: index, %c: index) {
  %qm = tile.alloc : !tile.tile<mat, 16x128xbf16>
  %km = tile.alloc : !tile.tile<mat, 128x128xbf16, zn>
  %a = tile.alloc : !tile.tile<left, 16x128xbf16>
  %b = tile.alloc : !tile.tile<right, 128x128xbf16>
  %b64 = tile.alloc : !tile.tile<right, 128x64xbf16>
  %s = tile.alloc : !tile.tile<acc, 16x128xf32>
  %s64 = tile.alloc : !tile.tile<acc, 16x64xf32>
  // CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<left, 16x128xbf16>, !tile.tile<mat, 16x128xbf16>
  tile.mov %a, %qm : !tile.tile<left, 16x128xbf16>, !tile.tile<mat, 16x128xbf16>
  // CHECK: tile.extract %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !tile.tile<right, 128x64xbf16>, !tile.tile<mat, 128x128xbf16, zn>
  tile.extract %b64, %km[%r, %c] : !tile.tile<right, 128x64xbf16>, !tile.tile<mat, 128x128xbf16, zn>
  // CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<acc, 16x128xf32>, !tile.tile<left, 16x128xbf16>, !tile.tile<right, 128x128xbf16>
  tile.matmul %s, %a, %b : !tile.tile<acc, 16x128xf32>, !tile.tile<left, 16x128xbf16>, !tile.tile<right, 128x128xbf16>
  // CHECK: tile.matmul_acc
  tile.matmul_acc %s64, %a, %b64 : !tile.tile<acc, 16x64xf32>, !tile.tile<left, 16x128xbf16>, !tile.tile<right, 128x64xbf16>
  %a1 = tile.alloc : !tile.tile<left, 16x128xbf16, valid = 1x128>
  // CHECK: tile.gemv
  tile.gemv %s, %a1, %b : !tile.tile<acc, 16x128xf32>, !tile.tile<left, 16x128xbf16, valid = 1x128>, !tile.tile<right, 128x128xbf16>
  %i8l = tile.alloc : !tile.tile<left, 16x64xi8>
  %i8r = tile.alloc : !tile.tile<right, 64x32xi8>
  %i32 = tile.alloc : !tile.tile<acc, 16x32xi32>
  // CHECK: tile.matmul %{{.*}} : !tile.tile<acc, 16x32xi32>, !tile.tile<left, 16x64xi8>, !tile.tile<right, 64x32xi8>
  tile.matmul %i32, %i8l, %i8r : !tile.tile<acc, 16x32xi32>, !tile.tile<left, 16x64xi8>, !tile.tile<right, 64x32xi8>
  %back = tile.alloc : !tile.tile<mat, 16x128xbf16>
  // CHECK: tile.mov %{{.*}}, %{{.*}} : !tile.tile<mat, 16x128xbf16>, !tile.tile<acc, 16x128xf32>
  tile.mov %back, %s : !tile.tile<mat, 16x128xbf16>, !tile.tile<acc, 16x128xf32>
  return
}

// CHECK-LABEL: func.func @conversions
func.func @conversions() {
  %f = tile.alloc : !tile.tile<vec, 16x128xf32>
  %h = tile.alloc : !tile.tile<vec, 16x128xbf16>
  %i8 = tile.alloc : !tile.tile<vec, 16x128xi8>
  %f16 = tile.alloc : !tile.tile<vec, 16x128xf16>
  %t = tile.alloc : !tile.tile<vec, 128x16xf32>
  %s = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  // CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xbf16>
  tile.cvt %f, %h : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xbf16>
  // CHECK: tile.cvt %{{.*}}, %{{.*}} round trunc : !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 16x128xf16>
  tile.cvt %i8, %f16 round trunc : !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 16x128xf16>
  // CHECK: tile.transpose
  tile.transpose %t, %f, %f : !tile.tile<vec, 128x16xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.quant
  tile.quant %i8, %f, %s : !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>
  // CHECK: tile.dequant
  tile.dequant %f, %i8, %s, %s : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x1xf32, col_major>
  return
}

// == Vector instructions ==

// CHECK-LABEL: func.func @vector
func.func @vector(%x: f32, %i: i32, %r: index) {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  %v = tile.alloc : !tile.tile<vec, 1x128xf32>
  // CHECK: tile.add %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.add %d, %a, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.sub
  tile.sub %d, %a, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.mul
  tile.mul %d, %a, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.div
  tile.div %d, %a, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.max
  tile.max %d, %a, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.min
  tile.min %d, %a, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.exp %{{.*}}, %{{.*}} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.exp %d, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.log
  tile.log %d, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.sqrt
  tile.sqrt %d, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.rsqrt
  tile.rsqrt %d, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.abs
  tile.abs %d, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.adds %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
  tile.adds %d, %a, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
  // CHECK: tile.subs
  tile.subs %d, %a, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
  // CHECK: tile.muls
  tile.muls %d, %a, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
  // CHECK: tile.divs
  tile.divs %d, %a, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
  // CHECK: tile.maxs
  tile.maxs %d, %a, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
  // CHECK: tile.mins
  tile.mins %d, %a, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
  // CHECK: tile.expands %{{.*}}, %{{.*}} : !tile.tile<vec, 16x1xf32, col_major>, f32
  tile.expands %m, %x : !tile.tile<vec, 16x1xf32, col_major>, f32
  // CHECK: tile.rowmax %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.rowmax %m, %a, %d : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.rowsum
  tile.rowsum %m, %a, %d : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.rowmin
  tile.rowmin %m, %a, %d : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.colmax %{{.*}}, %{{.*}} : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.colmax %v, %a : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.colsum
  tile.colsum %v, %a : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.colmin
  tile.colmin %v, %a : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.rowexpand %{{.*}}, %{{.*}} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>
  tile.rowexpand %d, %m : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>
  // CHECK: tile.colexpand %{{.*}}, %{{.*}} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  tile.colexpand %d, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  // CHECK: tile.rowexpandadd %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>
  tile.rowexpandadd %d, %a, %m, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.rowexpandsub
  tile.rowexpandsub %d, %a, %m, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.rowexpandmul
  tile.rowexpandmul %d, %a, %m, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.rowexpanddiv
  tile.rowexpanddiv %d, %a, %m, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.rowexpandmax
  tile.rowexpandmax %d, %a, %m, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.rowexpandmin
  tile.rowexpandmin %d, %a, %m, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>
  // CHECK: tile.colexpandadd %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  tile.colexpandadd %d, %a, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  // CHECK: tile.colexpandsub
  tile.colexpandsub %d, %a, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  // CHECK: tile.colexpandmul
  tile.colexpandmul %d, %a, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  // CHECK: tile.colexpanddiv
  tile.colexpanddiv %d, %a, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  // CHECK: tile.colexpandmax
  tile.colexpandmax %d, %a, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  // CHECK: tile.colexpandmin
  tile.colexpandmin %d, %a, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
  %idx = tile.alloc : !tile.tile<vec, 1x128xi32>
  // CHECK: tile.ci %{{.*}}, %{{.*}} : !tile.tile<vec, 1x128xi32>, i32
  tile.ci %idx, %i : !tile.tile<vec, 1x128xi32>, i32
  // CHECK: tile.ci %{{.*}}, %{{.*}} descending : !tile.tile<vec, 1x128xi32>, i32
  tile.ci %idx, %i descending : !tile.tile<vec, 1x128xi32>, i32
  // CHECK: tile.tri %{{.*}}, %{{.*}} : !tile.tile<vec, 16x128xf32>, i32
  tile.tri %d, %i : !tile.tile<vec, 16x128xf32>, i32
  // CHECK: tile.tri %{{.*}}, %{{.*}} upper : !tile.tile<vec, 16x128xf32>, i32
  tile.tri %d, %i upper : !tile.tile<vec, 16x128xf32>, i32
  %mask = tile.alloc : !tile.tile<vec, 16x32xi8>
  %tmp = tile.alloc : !tile.tile<vec, 1x16xi32>
  // CHECK: tile.cmps %{{.*}}, %{{.*}}, %{{.*}} lt : !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x128xf32>, f32
  tile.cmps %mask, %a, %x lt : !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x128xf32>, f32
  // CHECK: tile.sel %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x32xi8>
  tile.sel %d, %mask, %a, %d, %tmp : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x16xi32>
  %c0 = arith.constant 0 : index
  // CHECK: tile.getval %{{.*}}[%{{.*}}, %{{.*}}] : !tile.tile<vec, 16x1xf32, col_major>, f32
  %e = tile.getval %m[%r, %c0] : !tile.tile<vec, 16x1xf32, col_major>, f32
  // CHECK: tile.setval %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.tile<vec, 16x1xf32, col_major>, f32
  tile.setval %m[%r, %c0], %e : !tile.tile<vec, 16x1xf32, col_major>, f32
  return
}

// == Synchronization and the block ==

// CHECK-LABEL: func.func @sync
func.func @sync(%slot: index) {
  // CHECK: tile.set_flag mte2 -> v event(0)
  tile.set_flag mte2 -> v event(0)
  // CHECK: tile.wait_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  // CHECK: tile.set_flag mte1 -> mte2 event(2 + %{{.*}})
  tile.set_flag mte1 -> mte2 event(2 + %slot)
  // CHECK: tile.wait_flag mte1 -> mte2 event(2 + %{{.*}})
  tile.wait_flag mte1 -> mte2 event(2 + %slot)
  // CHECK: tile.barrier v
  tile.barrier v
  // CHECK: tile.barrier all
  tile.barrier all
  // CHECK: tile.sync_set cube fix event(3)
  tile.sync_set cube fix event(3)
  // CHECK: tile.sync_wait vector event(3)
  tile.sync_wait vector event(3)
  // CHECK: tile.subblock_id : index
  %sb = tile.subblock_id : index
  // CHECK: tile.subblock_num : index
  %sn = tile.subblock_num : index
  return
}

// The loop attributes tile-pipeline reads.
// CHECK-LABEL: func.func @pipelined_loop
// CHECK: } {tile.min_stages = 1 : i64, tile.stages = 2 : i64}
func.func @pipelined_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
  } {tile.stages = 2 : i64, tile.min_stages = 1 : i64}
  return
}
