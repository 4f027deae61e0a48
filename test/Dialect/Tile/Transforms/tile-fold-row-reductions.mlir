// RUN: wsp-opt %s -split-input-file --tile-fold-row-reductions="min-repeats=2" | FileCheck %s
// RUN: wsp-opt %s -split-input-file --tile-fold-row-reductions | FileCheck %s --check-prefix=DEFAULT

// By default only rows of 16 repeats or more (1024 f32, 2048 f16) are
// rewritten:
// DEFAULT-LABEL: func.func @sum_dynamic_rows
// DEFAULT: tile.reshape %{{.*}} : !tile.tile<vec, 8x2048xf32, valid = ?x2048> to !tile.tile<vec, 64x256xf32>
// DEFAULT-LABEL: func.func @max_min_static
// DEFAULT: tile.reshape %{{.*}} : !tile.tile<vec, 8x1024xf32> to !tile.tile<vec, 64x128xf32>
// DEFAULT-LABEL: func.func @some_rows_static
// DEFAULT: tile.reshape
// DEFAULT-LABEL: func.func @f16_subview_rows
// DEFAULT: tile.reshape %{{.*}} : !tile.tile<vec, 16x2048xf16, valid = ?x2048> to !tile.tile<vec, 256x128xf16>
// DEFAULT-LABEL: func.func @kept
// DEFAULT-NOT: tile.reshape
// DEFAULT-LABEL: func.func @short_rows
// DEFAULT-NOT: tile.reshape

// A sum of squares over rows of 2048 f32 with a run-time row count n (the
// row kernels' form): the rows as 8 pieces of 256 each (8n valid rows),
// reduced into 8n partials, then each row's 8 partials (n valid rows).
// The views, the count and the partials are made right after what they
// view (here the squares' tile), ahead of the instructions around the
// reduction; the two steps take its place.

// CHECK-LABEL: func.func @sum_dynamic_rows
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: %[[SQ:.*]] = tile.alloc valid(%[[N]]) : !tile.tile<vec, 8x2048xf32, valid = ?x2048>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[N8:.*]] = arith.muli %[[N]], %[[C8]] : index
// CHECK: %[[PIECES:.*]] = tile.reshape %[[SQ]] : !tile.tile<vec, 8x2048xf32, valid = ?x2048> to !tile.tile<vec, 64x256xf32>
// CHECK: %[[VALID:.*]] = tile.subview %[[PIECES]][%[[C0]], %[[C0]]] valid(%[[N8]]) : !tile.tile<vec, 64x256xf32> to !tile.tile<vec, 64x256xf32, valid = ?x256>
// CHECK: %[[P:.*]] = tile.alloc valid(%[[N8]]) : !tile.tile<vec, 64x1xf32, valid = ?x1, col_major>
// CHECK: %[[FLAT:.*]] = tile.reshape %[[P]] : !tile.tile<vec, 64x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x64xf32>
// CHECK: %[[BYROW:.*]] = tile.reshape %[[FLAT]] : !tile.tile<vec, 1x64xf32> to !tile.tile<vec, 8x8xf32>
// CHECK: %[[ROWS:.*]] = tile.subview %[[BYROW]][%[[C0]], %[[C0]]] valid(%[[N]]) : !tile.tile<vec, 8x8xf32> to !tile.tile<vec, 8x8xf32, valid = ?x8>
// CHECK: %[[PART:.*]] = tile.alloc valid(%[[N]]) : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
// CHECK: tile.mul %[[SQ]], %[[SQ]], %[[SQ]]
// CHECK-NEXT: tile.rowsum %[[P]], %[[VALID]], %[[VALID]] : !tile.tile<vec, 64x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 64x256xf32, valid = ?x256>, !tile.tile<vec, 64x256xf32, valid = ?x256>
// CHECK-NEXT: tile.rowsum %[[PART]], %[[ROWS]], %[[ROWS]] : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x8xf32, valid = ?x8>, !tile.tile<vec, 8x8xf32, valid = ?x8>
// CHECK-NEXT: tile.rowexpandmul
// CHECK-NOT: tile.rowsum
// CHECK: return
func.func @sum_dynamic_rows(%n: index) {
  %sq = tile.alloc valid(%n) : !tile.tile<vec, 8x2048xf32, valid = ?x2048>
  %part = tile.alloc valid(%n) : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  tile.mul %sq, %sq, %sq : !tile.tile<vec, 8x2048xf32, valid = ?x2048>, !tile.tile<vec, 8x2048xf32, valid = ?x2048>, !tile.tile<vec, 8x2048xf32, valid = ?x2048>
  tile.rowsum %part, %sq, %sq : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x2048xf32, valid = ?x2048>, !tile.tile<vec, 8x2048xf32, valid = ?x2048>
  tile.rowexpandmul %sq, %sq, %part, %sq : !tile.tile<vec, 8x2048xf32, valid = ?x2048>, !tile.tile<vec, 8x2048xf32, valid = ?x2048>, !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x2048xf32, valid = ?x2048>
  return
}

// -----

// Static rows and a scratch tile of its own: no subview, the scratch is
// seen as pieces too; a maximum and a minimum the same way. The views of
// two reductions come in the reductions' order.

// CHECK-LABEL: func.func @max_min_static
// CHECK: %[[X:.*]] = tile.alloc : !tile.tile<vec, 8x1024xf32>
// CHECK: %[[T:.*]] = tile.alloc : !tile.tile<vec, 8x1024xf32>
// CHECK-NOT: tile.subview
// CHECK: %[[XP:.*]] = tile.reshape %[[X]] : !tile.tile<vec, 8x1024xf32> to !tile.tile<vec, 64x128xf32>
// CHECK: %[[TP:.*]] = tile.reshape %[[T]] : !tile.tile<vec, 8x1024xf32> to !tile.tile<vec, 64x128xf32>
// CHECK: %[[P:.*]] = tile.alloc : !tile.tile<vec, 64x1xf32, col_major>
// CHECK: %[[F:.*]] = tile.reshape %[[P]] : !tile.tile<vec, 64x1xf32, col_major> to !tile.tile<vec, 1x64xf32>
// CHECK: %[[R:.*]] = tile.reshape %[[F]] : !tile.tile<vec, 1x64xf32> to !tile.tile<vec, 8x8xf32>
// CHECK: %[[XP2:.*]] = tile.reshape %[[X]] : !tile.tile<vec, 8x1024xf32> to !tile.tile<vec, 64x128xf32>
// CHECK: %[[P2:.*]] = tile.alloc : !tile.tile<vec, 64x1xf32, col_major>
// CHECK: %[[M:.*]] = tile.alloc : !tile.tile<vec, 8x1xf32, col_major>
// CHECK: tile.rowmax %[[P]], %[[XP]], %[[TP]]
// CHECK: tile.rowmax %[[M]], %[[R]], %[[R]] : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x8xf32>, !tile.tile<vec, 8x8xf32>
// CHECK: tile.rowmin %[[P2]], %[[XP2]], {{.*}} : !tile.tile<vec, 64x1xf32, col_major>, !tile.tile<vec, 64x128xf32>, !tile.tile<vec, 64x128xf32>
// CHECK: tile.rowmin %[[M]], {{.*}} : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x8xf32>, !tile.tile<vec, 8x8xf32>
func.func @max_min_static() {
  %x = tile.alloc : !tile.tile<vec, 8x1024xf32>
  %t = tile.alloc : !tile.tile<vec, 8x1024xf32>
  %m = tile.alloc : !tile.tile<vec, 8x1xf32, col_major>
  tile.rowmax %m, %x, %t : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x1024xf32>, !tile.tile<vec, 8x1024xf32>
  tile.rowmin %m, %x, %t : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x1024xf32>, !tile.tile<vec, 8x1024xf32>
  return
}

// -----

// A static valid row count below the tile's: the pieces of those rows
// only, in views whose types carry the counts (3 rows, 24 pieces).

// CHECK-LABEL: func.func @some_rows_static
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[P:.*]] = tile.reshape %{{.*}} : !tile.tile<vec, 8x1024xf32, valid = 3x1024> to !tile.tile<vec, 64x128xf32>
// CHECK: %[[V:.*]] = tile.subview %[[P]][%[[C0]], %[[C0]]] : !tile.tile<vec, 64x128xf32> to !tile.tile<vec, 64x128xf32, valid = 24x128>
// CHECK: %[[PART:.*]] = tile.alloc : !tile.tile<vec, 64x1xf32, valid = 24x1, col_major>
// CHECK: tile.subview %{{.*}}[%[[C0]], %[[C0]]] : !tile.tile<vec, 8x8xf32> to !tile.tile<vec, 8x8xf32, valid = 3x8>
// CHECK: tile.rowsum %[[PART]], %[[V]], %[[V]]
func.func @some_rows_static() {
  %x = tile.alloc : !tile.tile<vec, 8x1024xf32, valid = 3x1024>
  %m = tile.alloc : !tile.tile<vec, 8x1xf32, valid = 3x1, col_major>
  tile.rowsum %m, %x, %x : !tile.tile<vec, 8x1xf32, valid = 3x1, col_major>, !tile.tile<vec, 8x1024xf32, valid = 3x1024>, !tile.tile<vec, 8x1024xf32, valid = 3x1024>
  return
}

// -----

// A row of a whole subview (the rows of a larger tile) is contiguous too;
// f16 rows are cut into 16 pieces (256 bytes each).

// CHECK-LABEL: func.func @f16_subview_rows
// CHECK: tile.reshape %{{.*}} : !tile.tile<vec, 16x2048xf16, valid = ?x2048> to !tile.tile<vec, 256x128xf16>
// CHECK: tile.reshape %{{.*}} : !tile.tile<vec, 256x1xf16, valid = ?x1, col_major> to !tile.tile<vec, 1x256xf16>
// CHECK: tile.reshape %{{.*}} : !tile.tile<vec, 1x256xf16> to !tile.tile<vec, 16x16xf16>
// CHECK: tile.rowsum %{{.*}} : !tile.tile<vec, 256x1xf16, valid = ?x1, col_major>, !tile.tile<vec, 256x128xf16, valid = ?x128>, !tile.tile<vec, 256x128xf16, valid = ?x128>
// CHECK: tile.rowsum %{{.*}} : !tile.tile<vec, 16x1xf16, valid = ?x1, col_major>, !tile.tile<vec, 16x16xf16, valid = ?x16>, !tile.tile<vec, 16x16xf16, valid = ?x16>
func.func @f16_subview_rows(%r: index, %n: index) {
  %c0 = arith.constant 0 : index
  %all = tile.alloc : !tile.tile<vec, 32x2048xf16>
  %rows = tile.subview %all[%r, %c0] valid(%n) : !tile.tile<vec, 32x2048xf16> to !tile.tile<vec, 16x2048xf16, valid = ?x2048>
  %s = tile.alloc valid(%n) : !tile.tile<vec, 16x1xf16, valid = ?x1, col_major>
  tile.rowsum %s, %rows, %rows : !tile.tile<vec, 16x1xf16, valid = ?x1, col_major>, !tile.tile<vec, 16x2048xf16, valid = ?x2048>, !tile.tile<vec, 16x2048xf16, valid = ?x2048>
  return
}

// -----

// Left as they are: rows too short for a piece of one repeat (256 f32 in
// 8 pieces of 32), part of a row valid (the pieces would mix valid and
// padding columns), a row count the type leaves open but no alloc or
// subview gives (a kernel argument), and columns that do not cut into 8
// pieces of whole 32-byte blocks (528 f32: pieces of 66).

// CHECK-LABEL: func.func @kept
// CHECK-NOT: tile.reshape
// CHECK-COUNT-4: tile.rowsum
// CHECK-NOT: tile.rowsum
func.func @kept(%n: index, %arg: !tile.tile<vec, 8x1024xf32, valid = ?x1024>) {
  %short = tile.alloc : !tile.tile<vec, 8x256xf32>
  %s1 = tile.alloc : !tile.tile<vec, 8x1xf32, col_major>
  tile.rowsum %s1, %short, %short : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x256xf32>, !tile.tile<vec, 8x256xf32>
  %part = tile.alloc valid(%n, %n) : !tile.tile<vec, 8x1024xf32, valid = ?x?>
  %s2 = tile.alloc valid(%n) : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>
  tile.rowsum %s2, %part, %part : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x1024xf32, valid = ?x?>, !tile.tile<vec, 8x1024xf32, valid = ?x?>
  tile.rowsum %s2, %arg, %arg : !tile.tile<vec, 8x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>, !tile.tile<vec, 8x1024xf32, valid = ?x1024>
  %odd = tile.alloc : !tile.tile<vec, 8x528xf32>
  tile.rowsum %s1, %odd, %odd : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x528xf32>, !tile.tile<vec, 8x528xf32>
  return
}

// -----

// A row of 8 repeats (512 f32): folded at min-repeats=2, not by default.
// CHECK-LABEL: func.func @short_rows
// CHECK: tile.reshape %{{.*}} : !tile.tile<vec, 8x512xf32> to !tile.tile<vec, 64x64xf32>
func.func @short_rows() {
  %x = tile.alloc : !tile.tile<vec, 8x512xf32>
  %s = tile.alloc : !tile.tile<vec, 8x1xf32, col_major>
  tile.rowsum %s, %x, %x : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x512xf32>, !tile.tile<vec, 8x512xf32>
  return
}
