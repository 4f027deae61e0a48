// RUN: wsp-opt %s --tile-mark-fusion -split-input-file | FileCheck %s
// A chain of 70 instructions becomes runs of 64 and 6.
// RUN: %python -c "print('func.func @long() {\n  %%a = tile.alloc at 0 : !tile.tile<vec, 8x32xf32>'); [print('  tile.abs %%a, %%a : !tile.tile<vec, 8x32xf32>, !tile.tile<vec, 8x32xf32>') for _ in range(70)]; print('  return\n}')" | wsp-opt --tile-mark-fusion | FileCheck %s --check-prefix=LONG
// LONG: tile.abs {{.*}} {tile.fuse = 64 : i64}
// LONG-COUNT-63: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
// LONG-NEXT: tile.abs {{.*}} {tile.fuse = 6 : i64}
// LONG-COUNT-5: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
// LONG-NEXT: return

// A chain of float arithmetic and conversions over tiles of one shape and
// valid extent is one group, the flags between its instructions included,
// and the load before it (the lanes load global memory); the reduction
// after it is not in it: the group reads its result as a row broadcast.
// CHECK-LABEL: func.func @chain
// CHECK: tile.load %{{.*}} {tile.fuse = 10 : i64}
// CHECK-NEXT: tile.cvt %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.colexpandmul
// CHECK-NEXT: tile.set_flag
// CHECK-NEXT: tile.barrier v
// CHECK-NEXT: tile.rowexpandmul
// CHECK-NEXT: tile.cvt
// CHECK-NEXT: tile.cvt
// CHECK-NEXT: tile.wait_flag
// CHECK-NEXT: tile.cvt
// CHECK-NEXT: tile.rowmax
// CHECK-NOT: tile.fuse
func.func @chain(%x: memref<?x1024xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %xb = tile.alloc valid(%n) at 0 : !tile.tile<vec, 8x1024xbf16, valid = ?x1024>
  %xf = tile.alloc valid(%n) at 16384 : !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  %sq = tile.alloc valid(%n) at 49152 : !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  %col = tile.alloc at 81920 : !tile.tile<vec, 1x1024xf32>
  %row = tile.alloc valid(%n) at 86016 : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  %qi = tile.alloc valid(%n) at 86048 : !tile.tile<vec, 8x1024xi32, valid = ?x1024>
  %qh = tile.alloc valid(%n) at 118816 : !tile.tile<vec, 8x1024xf16, valid = ?x1024>
  %q8 = tile.alloc valid(%n) at 135200 : !tile.tile<vec, 8x1024xi8, valid = ?x1024>
  tile.load %xb, %x[%c0, %c0] : !tile.tile<vec, 8x1024xbf16, valid = ?x1024>, memref<?x1024xbf16>
  tile.cvt %xf, %xb : !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xbf16, valid = ?x1024>
  tile.colexpandmul %xf, %xf, %col : !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 1x1024xf32>
  tile.set_flag v -> mte2 event(0)
  tile.barrier v
  tile.rowexpandmul %xf, %xf, %row, %sq : !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  tile.cvt %qi, %xf : !tile.tile<vec, 8x1024xi32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  tile.cvt %qh, %qi : !tile.tile<vec, 8x1024xf16, valid = ?x1024>, !tile.tile<vec, 8x1024xi32, valid = ?x1024>
  tile.wait_flag v -> mte2 event(0)
  tile.cvt %q8, %qh : !tile.tile<vec, 8x1024xi8, valid = ?x1024>, !tile.tile<vec, 8x1024xf16, valid = ?x1024>
  tile.rowmax %row, %xf, %sq : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  return
}

// -----

// Flags before the first and after the last instruction stay outside; a
// single instruction is no group. The scalar forms fuse.
// CHECK-LABEL: func.func @trimmed
// CHECK: tile.alloc
// CHECK-NEXT: tile.alloc
// CHECK-NEXT: tile.set_flag v -> mte2 event(0){{$}}
// CHECK-NEXT: tile.muls %{{.*}} {tile.fuse = 3 : i64}
// CHECK-NEXT: tile.wait_flag
// CHECK-NEXT: tile.adds
// CHECK-NEXT: tile.set_flag v -> mte2 event(1){{$}}
// CHECK-NEXT: tile.exp
// CHECK-NEXT: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
func.func @trimmed(%s: f32) {
  %a = tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc at 8192 : !tile.tile<vec, 16x128xf32>
  tile.set_flag v -> mte2 event(0)
  tile.muls %a, %b, %s : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
  tile.wait_flag v -> mte2 event(0)
  tile.adds %a, %a, %s : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
  tile.set_flag v -> mte2 event(1)
  tile.exp %b, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.abs %a, %b : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  tile.wait_flag v -> mte2 event(1)
  return
}

// -----

// What stays unfused: another valid extent, another shape, columns that are
// not whole groups of 16, integer arithmetic, a conversion the lanes do not
// have or that rounds otherwise, a broadcast tile written in the run, tiles
// that overlap without being the same, an unplanned tile.
// Each pair below would be a group but for the one difference.
// CHECK-LABEL: func.func @apart
// CHECK-NOT: tile.fuse
func.func @apart(%n: index, %m: index, %i: index) {
  %a = tile.alloc valid(%n) at 0 : !tile.tile<vec, 8x128xf32, valid = ?x128>
  %b = tile.alloc valid(%m) at 4096 : !tile.tile<vec, 8x128xf32, valid = ?x128>
  tile.abs %a, %a : !tile.tile<vec, 8x128xf32, valid = ?x128>, !tile.tile<vec, 8x128xf32, valid = ?x128>
  tile.abs %b, %b : !tile.tile<vec, 8x128xf32, valid = ?x128>, !tile.tile<vec, 8x128xf32, valid = ?x128>
  %c = tile.alloc at 8192 : !tile.tile<vec, 16x64xf32>
  %d = tile.alloc at 12288 : !tile.tile<vec, 8x128xf32>
  tile.abs %c, %c : !tile.tile<vec, 16x64xf32>, !tile.tile<vec, 16x64xf32>
  tile.abs %d, %d : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  %e = tile.alloc at 16384 : !tile.tile<vec, 8x40xf32>
  tile.abs %e, %e : !tile.tile<vec, 8x40xf32>, !tile.tile<vec, 8x40xf32>
  tile.abs %e, %e : !tile.tile<vec, 8x40xf32>, !tile.tile<vec, 8x40xf32>
  %f = tile.alloc at 17664 : !tile.tile<vec, 8x128xi32>
  tile.add %f, %f, %f : !tile.tile<vec, 8x128xi32>, !tile.tile<vec, 8x128xi32>, !tile.tile<vec, 8x128xi32>
  tile.add %f, %f, %f : !tile.tile<vec, 8x128xi32>, !tile.tile<vec, 8x128xi32>, !tile.tile<vec, 8x128xi32>
  %g = tile.alloc at 21760 : !tile.tile<vec, 8x128xf16>
  tile.cvt %g, %d : !tile.tile<vec, 8x128xf16>, !tile.tile<vec, 8x128xf32>
  tile.cvt %f, %d round floor : !tile.tile<vec, 8x128xi32>, !tile.tile<vec, 8x128xf32>
  %col = tile.alloc at 23808 : !tile.tile<vec, 1x128xf32>
  %h = tile.alloc at 24320 : !tile.tile<vec, 1x128xf32>
  tile.colexpandmul %h, %h, %col : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 1x128xf32>
  tile.abs %col, %col : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 1x128xf32>
  %o = tile.alloc at 14336 : !tile.tile<vec, 8x128xf32>
  tile.abs %d, %d : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.abs %o, %o : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  %p = tile.alloc : !tile.tile<vec, 8x128xf32>
  tile.abs %p, %p : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.abs %d, %d : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  return
}

// -----

// One copy of a multi-buffered tile (a pipelined loop's) joins a group as
// any tile does: the lanes reach it through its handle, and the group
// counts all its copies' bytes, so a tile overlapping the other copy
// stays out.
// CHECK-LABEL: func.func @slotted_rows
// CHECK: tile.cvt %{{.*}}, %{{.*}} {tile.fuse = 3 : i64}
// CHECK-NEXT: tile.abs
// CHECK-NEXT: tile.cvt
// CHECK-NEXT: tile.alloc at 2048
// CHECK-NEXT: tile.cvt %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NOT: tile.fuse
func.func @slotted_rows(%i: index) {
  %xb = tile.alloc slot(%i) buffers(2) at 0 : !tile.tile<vec, 8x128xbf16>
  %xf = tile.alloc at 4096 : !tile.tile<vec, 8x128xf32>
  %q = tile.alloc slot(%i) buffers(2) at 8192 : !tile.tile<vec, 8x128xi16>
  tile.cvt %xf, %xb : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xbf16>
  tile.abs %xf, %xf : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.cvt %q, %xf : !tile.tile<vec, 8x128xi16>, !tile.tile<vec, 8x128xf32>
  // The second copy of %xb's bytes, as another tile.
  %o = tile.alloc at 2048 : !tile.tile<vec, 8x128xbf16>
  tile.cvt %xf, %o : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xbf16>
  return
}

// -----

// Loads and stores of the group's tiles join it, with the flags between
// the pipes, and so does the load of a column broadcast's row read after
// it; a transposed load and a paged load do not.
// CHECK-LABEL: func.func @memory
// CHECK: tile.load %{{.*}} {tile.fuse = 8 : i64}
// CHECK-NEXT: tile.set_flag mte2 -> v
// CHECK-NEXT: tile.wait_flag mte2 -> v
// CHECK-NEXT: tile.cvt
// CHECK-NEXT: tile.cvt
// CHECK-NEXT: tile.set_flag v -> mte3
// CHECK-NEXT: tile.wait_flag v -> mte3
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.load %{{.*}} {tile.fuse = 2 : i64}
// CHECK-NEXT: tile.colexpandmul %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.load %{{.*}} transpose :
// CHECK-NEXT: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.load_paged
// CHECK-NEXT: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: return
func.func @memory(%x: memref<?x128xbf16>, %w: memref<128xf32>, %t: memref<128x8xf32>, %cache: memref<?x16x128xf32>, %table: memref<1x4xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %xb = tile.alloc valid(%n) at 0 : !tile.tile<vec, 8x128xbf16, valid = ?x128>
  %xf = tile.alloc valid(%n) at 2048 : !tile.tile<vec, 8x128xf32, valid = ?x128>
  %col = tile.alloc at 6144 : !tile.tile<vec, 1x128xf32>
  %cm = tile.alloc at 6656 : !tile.tile<vec, 8x128xf32, col_major>
  %rm = tile.alloc at 10752 : !tile.tile<vec, 8x128xf32>
  tile.load %xb, %x[%c0, %c0] : !tile.tile<vec, 8x128xbf16, valid = ?x128>, memref<?x128xbf16>
  tile.set_flag mte2 -> v event(0)
  tile.wait_flag mte2 -> v event(0)
  tile.cvt %xf, %xb : !tile.tile<vec, 8x128xf32, valid = ?x128>, !tile.tile<vec, 8x128xbf16, valid = ?x128>
  tile.cvt %xb, %xf : !tile.tile<vec, 8x128xbf16, valid = ?x128>, !tile.tile<vec, 8x128xf32, valid = ?x128>
  tile.set_flag v -> mte3 event(0)
  tile.wait_flag v -> mte3 event(0)
  tile.store %x[%c0, %c0], %xb : memref<?x128xbf16>, !tile.tile<vec, 8x128xbf16, valid = ?x128>
  tile.load %col, %w[%c0] : !tile.tile<vec, 1x128xf32>, memref<128xf32>
  tile.colexpandmul %rm, %rm, %col : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 1x128xf32>
  tile.load %cm, %t[%c0, %c0] transpose : !tile.tile<vec, 8x128xf32, col_major>, memref<128x8xf32>
  tile.abs %rm, %rm : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.load_paged %rm, %cache[], %table[%c0], %c0 : !tile.tile<vec, 8x128xf32>, memref<?x16x128xf32>, memref<1x4xi32>
  tile.abs %rm, %rm : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  return
}

// -----

// A column's row is read in the group as a column broadcast and nothing
// else: used element-wise, or loaded after the broadcast that reads it, its
// load stays out; loads of columns alone are no group; a column of other
// valid columns does not join (the broadcast that reads it, from the
// buffer, does). Loads of columns at the end of a run start the next one
// (here after a run of one-row tiles, which they would fit).
// CHECK-LABEL: func.func @columns
// CHECK-NOT: tile.fuse
// CHECK: tile.load %{{[^ ]*}}, %{{[^ ]*}} : !tile.tile<vec, 1x128xf32, valid = 1x?>
// CHECK-NEXT: tile.colexpandmul %{{.*}} {tile.fuse = 4 : i64}
// CHECK-NEXT: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.load %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.colexpandmul %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.load %{{.*}} {tile.fuse = 2 : i64}
// CHECK-NEXT: tile.colexpandmul %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: return
func.func @columns(%w: memref<128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %x = tile.alloc at 0 : !tile.tile<vec, 1x128xf32>
  %col = tile.alloc at 512 : !tile.tile<vec, 1x128xf32>
  %rm = tile.alloc at 1024 : !tile.tile<vec, 8x128xf32>
  %part = tile.alloc valid(%n) at 5120 : !tile.tile<vec, 1x128xf32, valid = 1x?>
  tile.load %x, %w[%c0] : !tile.tile<vec, 1x128xf32>, memref<128xf32>
  tile.abs %x, %x : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 1x128xf32>
  tile.colexpandmul %rm, %rm, %col : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 1x128xf32>
  tile.load %col, %w[%c0] : !tile.tile<vec, 1x128xf32>, memref<128xf32>
  tile.load %col, %w[%c0] : !tile.tile<vec, 1x128xf32>, memref<128xf32>
  tile.load %part, %w[%c0] : !tile.tile<vec, 1x128xf32, valid = 1x?>, memref<128xf32>
  tile.colexpandmul %rm, %rm, %part : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 1x128xf32, valid = 1x?>
  tile.abs %rm, %rm : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.load %col, %w[%c0] : !tile.tile<vec, 1x128xf32>, memref<128xf32>
  tile.colexpandmul %rm, %rm, %col : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 1x128xf32>
  tile.abs %x, %x : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 1x128xf32>
  tile.load %col, %w[%c0] : !tile.tile<vec, 1x128xf32>, memref<128xf32>
  tile.colexpandmul %rm, %rm, %col : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 1x128xf32>
  return
}

// -----

// Row reductions of the group's tiles join it, at most four: a fifth
// starts the next group.
// CHECK-LABEL: func.func @reductions
// CHECK: tile.abs %{{.*}} {tile.fuse = 5 : i64}
// CHECK-NEXT: tile.rowsum %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.rowmax %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.rowmin %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.rowsum %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.rowsum %{{.*}} {tile.fuse = 2 : i64}
// CHECK-NEXT: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: return
func.func @reductions() {
  %x = tile.alloc at 0 : !tile.tile<vec, 8x128xf32>
  %t = tile.alloc at 4096 : !tile.tile<vec, 8x128xf32>
  %r0 = tile.alloc at 8192 : !tile.tile<vec, 8x1xf32, col_major>
  %r1 = tile.alloc at 8224 : !tile.tile<vec, 8x1xf32, col_major>
  %r2 = tile.alloc at 8256 : !tile.tile<vec, 8x1xf32, col_major>
  %r3 = tile.alloc at 8288 : !tile.tile<vec, 8x1xf32, col_major>
  %r4 = tile.alloc at 8320 : !tile.tile<vec, 8x1xf32, col_major>
  tile.abs %x, %x : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.rowsum %r0, %x, %t : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.rowmax %r1, %x, %t : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.rowmin %r2, %x, %t : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.rowsum %r3, %x, %t : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.rowsum %r4, %x, %t : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.abs %x, %x : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  return
}

// -----

// Groups form in every block (a loop body here), never across it; marks
// already there are replaced.
// CHECK-LABEL: func.func @blocks
// CHECK: tile.abs %{{.*}} {tile.fuse = 2 : i64}
// CHECK-NEXT: tile.abs
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.abs %{{.*}} {tile.fuse = 2 : i64}
// CHECK-NEXT: tile.abs
// CHECK-NEXT: }
// CHECK-NEXT: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
func.func @blocks(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc at 0 : !tile.tile<vec, 8x128xf32>
  tile.abs %a, %a {tile.fuse = 7 : i64} : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.abs %a, %a : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    tile.abs %a, %a : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
    tile.abs %a, %a : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  }
  tile.abs %a, %a : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  return
}

// -----

// A row reduction in two steps (tile-fold-row-reductions) joins the run:
// the first step reads the squares' rows as 8 pieces (8n valid pieces),
// the second the partials as [8 x 8] (n valid rows). The views sit before
// the run.
// CHECK-LABEL: func.func @pieces
// CHECK: tile.mul {{.*}} {tile.fuse = 5 : i64}
// CHECK-NEXT: tile.rowsum %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : !tile.tile<vec, 64x1xf32
// CHECK-NEXT: tile.barrier v
// CHECK-NEXT: tile.rowsum %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : !tile.tile<vec, 8x1xf32
// CHECK-NEXT: tile.abs
// CHECK-NEXT: return
func.func @pieces(%n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %x = tile.alloc valid(%n) at 0 : !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  %sq = tile.alloc valid(%n) at 32768 : !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  %sum = tile.alloc valid(%n) at 65536 : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  %n8 = arith.muli %n, %c8 : index
  %pieces = tile.reshape %sq : !tile.tile<vec, 8x1024xf32, valid = ?x1024> to !tile.tile<vec, 64x128xf32>
  %valid = tile.subview %pieces[%c0, %c0] valid(%n8) : !tile.tile<vec, 64x128xf32> to !tile.tile<vec, 64x128xf32, valid = ?x128>
  %part = tile.alloc valid(%n8) at 65568 : !tile.tile<vec, 64x1xf32, valid = ?x1, col_major>
  %flat = tile.reshape %part : !tile.tile<vec, 64x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x64xf32>
  %byrow = tile.reshape %flat : !tile.tile<vec, 1x64xf32> to !tile.tile<vec, 8x8xf32>
  %rows = tile.subview %byrow[%c0, %c0] valid(%n) : !tile.tile<vec, 8x8xf32> to !tile.tile<vec, 8x8xf32, valid = ?x8>
  tile.mul %sq, %x, %x : !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  tile.rowsum %part, %valid, %valid : !tile.tile<vec, 64x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 64x128xf32, valid = ?x128>, !tile.tile<vec, 64x128xf32, valid = ?x128>
  tile.barrier v
  tile.rowsum %sum, %rows, %rows : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x8xf32, valid = ?x8>, !tile.tile<vec, 8x8xf32, valid = ?x8>
  tile.abs %x, %x : !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  return
}

// -----

// Not in pieces, so each reduction ends the run: pieces of the wrong count
// of valid rows (n, not 8n); a second step whose first is not in the run
// (here after an abs that is then no run).
// CHECK-LABEL: func.func @not_pieces
// CHECK: tile.mul {{.*}} {tile.fuse = 2 : i64}
// CHECK-NEXT: tile.abs
// CHECK-NEXT: tile.rowmax %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : !tile.tile<vec, 64x1xf32
// CHECK-NEXT: tile.rowmax %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : !tile.tile<vec, 8x1xf32
// CHECK-NEXT: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.rowmax %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} : !tile.tile<vec, 8x1xf32
// CHECK-NOT: tile.fuse
// CHECK: return
func.func @not_pieces(%n: index) {
  %c0 = arith.constant 0 : index
  %x = tile.alloc valid(%n) at 0 : !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  %m = tile.alloc valid(%n) at 65536 : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  %pieces = tile.reshape %x : !tile.tile<vec, 8x1024xf32, valid = ?x1024> to !tile.tile<vec, 64x128xf32>
  %few = tile.subview %pieces[%c0, %c0] valid(%n) : !tile.tile<vec, 64x128xf32> to !tile.tile<vec, 64x128xf32, valid = ?x128>
  %part = tile.alloc valid(%n) at 65568 : !tile.tile<vec, 64x1xf32, valid = ?x1, col_major>
  %flat = tile.reshape %part : !tile.tile<vec, 64x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x64xf32>
  %byrow = tile.reshape %flat : !tile.tile<vec, 1x64xf32> to !tile.tile<vec, 8x8xf32>
  %rows = tile.subview %byrow[%c0, %c0] valid(%n) : !tile.tile<vec, 8x8xf32> to !tile.tile<vec, 8x8xf32, valid = ?x8>
  tile.mul %x, %x, %x : !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  tile.abs %x, %x : !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  tile.rowmax %part, %few, %few : !tile.tile<vec, 64x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 64x128xf32, valid = ?x128>, !tile.tile<vec, 64x128xf32, valid = ?x128>
  tile.rowmax %m, %rows, %rows : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x8xf32, valid = ?x8>, !tile.tile<vec, 8x8xf32, valid = ?x8>
  tile.abs %x, %x : !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  tile.rowmax %m, %rows, %rows : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x8xf32, valid = ?x8>, !tile.tile<vec, 8x8xf32, valid = ?x8>
  return
}

// -----

// A reduction's result may be one copy of a multi-buffered tile (the lanes
// write it through the tile, and all its copies' bytes count against the
// run's other tiles): the run takes it. A copy whose bytes the run's tiles
// overlap ends the run.
// CHECK-LABEL: func.func @slotted_result
// CHECK: tile.abs {{.*}} {tile.fuse = 2 : i64}
// CHECK-NEXT: tile.rowmax
// CHECK-NEXT: tile.abs %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.rowmax
// CHECK-NOT: tile.fuse
func.func @slotted_result(%i: index) {
  %x = tile.alloc at 0 : !tile.tile<vec, 8x128xf32>
  %m = tile.alloc slot(%i) buffers(2) at 4096 : !tile.tile<vec, 8x1xf32, col_major>
  // Its second copy, [4128, 4160), lies inside %y.
  %y = tile.alloc at 4128 : !tile.tile<vec, 8x128xf32>
  tile.abs %x, %x : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.rowmax %m, %x, %x : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.abs %y, %y : !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  tile.rowmax %m, %y, %y : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x128xf32>, !tile.tile<vec, 8x128xf32>
  return
}
