// Every verifier clause of the tile type and the tile ops.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

// == The tile type ==

// expected-error @+1 {{unknown tile location 'ub'; expected vec, mat, left, right or acc}}
func.func private @f(!tile.tile<ub, 16x128xf32>)

// -----

// expected-error @+1 {{a tile has two dimensions (rows x cols)}}
func.func private @f(!tile.tile<vec, 16x128x2xf32>)

// -----

// expected-error @+1 {{tile element type must be i8, i16, i32, f16, bf16 or f32, got 'f64'}}
func.func private @f(!tile.tile<vec, 16x128xf64>)

// -----

// A tile larger than its buffer could never be placed; its byte size
// must not overflow either.
// expected-error @+1 {{a vec tile of 256x256xf32 is larger than UB (196608 bytes)}}
func.func private @f(!tile.tile<vec, 256x256xf32>)

// -----

// expected-error @+1 {{a vec tile of 4294967296x4294967296xi8 is larger than UB (196608 bytes)}}
func.func private @f(!tile.tile<vec, 4294967296x4294967296xi8>)

// -----

// One static extent alone can be too large.
// expected-error @+1 {{a right tile of 65536x?xbf16 is larger than L0B (65536 bytes)}}
func.func private @f(!tile.tile<right, 65536x?xbf16>)

// -----

// expected-error @+1 {{tile rows must be positive, got 0}}
func.func private @f(!tile.tile<vec, 0x128xf32>)

// -----

// expected-error @+1 {{valid cols (256) must lie in [0, 128]}}
func.func private @f(!tile.tile<vec, 16x128xf32, valid = 16x256>)

// -----

// expected-error @+1 {{a left tile cannot be row_major}}
func.func private @f(!tile.tile<left, 16x128xbf16, row_major>)

// -----

// expected-error @+1 {{a vec tile cannot be nz}}
func.func private @f(!tile.tile<vec, 16x128xbf16, nz>)

// -----

// expected-error @+1 {{unknown tile layout 'nd'}}
func.func private @f(!tile.tile<vec, 16x128xbf16, nd>)

// -----

// expected-error @+1 {{an acc tile holds f32 or i32, got 'bf16'}}
func.func private @f(!tile.tile<acc, 16x128xbf16>)

// -----

// expected-error @+1 {{the cube's operands are i8, f16, bf16 or f32, got 'i16'}}
func.func private @f(!tile.tile<mat, 16x128xi16>)

// -----

// A row-major row of one f32 is 4 bytes: row statistics are column-major.
// expected-error @+1 {{a row_major tile's rows must be whole 32-byte blocks: cols x 4 bytes = 4}}
func.func private @f(!tile.tile<vec, 16x1xf32>)

// -----

// expected-error @+1 {{a col_major tile's columns must be whole 32-byte blocks: rows x 4 bytes = 12}}
func.func private @f(!tile.tile<vec, 3x1xf32, col_major>)

// -----

// expected-error @+1 {{a mat tile in nz layout is made of 16x16 fractal boxes: its extent must be a multiple of 16 rows and 16 columns, got 24x128xbf16}}
func.func private @f(!tile.tile<mat, 24x128xbf16>)

// -----

// An int8 nz box is 32 bytes wide: 32 columns (a 48-column tile is not).
// expected-error @+1 {{a mat tile in nz layout is made of 16x32 fractal boxes: its extent must be a multiple of 16 rows and 32 columns, got 256x48xi8}}
func.func private @f(!tile.tile<mat, 256x48xi8>)

// -----

// expected-error @+1 {{a right tile in zn layout is made of 32x16 fractal boxes: its extent must be a multiple of 32 rows and 16 columns, got 16x64xi8}}
func.func private @f(!tile.tile<right, 16x64xi8>)

// -----

// expected-error @+1 {{an acc tile in nz layout is made of 16x16 fractal boxes: its extent must be a multiple of 16 rows and 16 columns, got 16x8xf32}}
func.func private @f(!tile.tile<acc, 16x8xf32>)

// -----

// == alloc ==

func.func @f(%n: index) {
  // expected-error @+1 {{takes one size per '?' of the static extent (1), got 0}}
  %t = tile.alloc valid(%n) : !tile.tile<vec, ?x128xf32, valid = ?x128>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{takes one size per '?' of the valid extent (1), got 0}}
  %t = tile.alloc : !tile.tile<vec, 16x128xf32, valid = ?x128>
  return
}

// -----

func.func @f(%i: index) {
  // expected-error @+1 {{reserves 9 buffers; expected 1 to 8}}
  %t = tile.alloc slot(%i) buffers(9) : !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%i: index) {
  // expected-error @+1 {{picks a slot of a single buffer; give buffers(N), N >= 2}}
  %t = tile.alloc slot(%i) : !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{reserves several buffers but picks none; give slot(%i)}}
  %t = tile.alloc buffers(2) : !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{offset 100 must be a non-negative multiple of 32 bytes}}
  %t = tile.alloc at 100 : !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{static extent 0 must be positive}}
  %t = tile.alloc shape(%c0) : !tile.tile<vec, ?x128xf32, valid = 16x128>
  return
}

// -----

// == subview, reshape ==

func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<mat, 32x128xbf16>
  // expected-error @+1 {{'source' must be a vec tile, got mat}}
  %s = tile.subview %t[%i, %c0] : !tile.tile<mat, 32x128xbf16> to !tile.tile<mat, 16x128xbf16>
  return
}

// -----

func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 32x128xbf16>
  // expected-error @+1 {{a view of 256 columns of a tile of 128: a view takes whole rows}}
  %s = tile.subview %t[%i, %c0] : !tile.tile<vec, 32x128xbf16> to !tile.tile<vec, 1x256xbf16>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %c24 = arith.constant 24 : index
  %t = tile.alloc : !tile.tile<vec, 32x128xbf16>
  // expected-error @+1 {{rows [24, 40) lie outside the source's 32}}
  %s = tile.subview %t[%c24, %c0] : !tile.tile<vec, 32x128xbf16> to !tile.tile<vec, 16x128xbf16>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %t = tile.alloc : !tile.tile<vec, 32x128xbf16>
  // expected-error @+1 {{a view takes whole rows: its column offset must be the constant 0}}
  %s = tile.subview %t[%c0, %c8] : !tile.tile<vec, 32x128xbf16> to !tile.tile<vec, 1x128xbf16>
  return
}

// -----

func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 32x128xbf16>
  // expected-error @+1 {{takes one size per '?' of the valid extent (1), got 0}}
  %s = tile.subview %t[%i, %c0] : !tile.tile<vec, 32x128xbf16> to !tile.tile<vec, 16x128xbf16, valid = ?x128>
  return
}

// -----

func.func @f() {
  %t = tile.alloc : !tile.tile<vec, 32x128xbf16>
  // expected-error @+1 {{source holds 8192 bytes, result 4096}}
  %s = tile.reshape %t : !tile.tile<vec, 32x128xbf16> to !tile.tile<vec, 16x128xbf16>
  return
}

// -----

func.func @f() {
  %t = tile.alloc : !tile.tile<vec, 16x128xbf16>
  // expected-error @+1 {{reshapes within one buffer: source and result must have one location}}
  %s = tile.reshape %t : !tile.tile<vec, 16x128xbf16> to !tile.tile<mat, 16x128xbf16>
  return
}

// -----

// == load, load_paged, store ==

func.func @f(%m: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<left, 16x128xbf16>
  // expected-error @+1 {{loads global memory into vec (UB) or mat (L1) tiles, not left}}
  tile.load %t, %m[%c0, %c0] : !tile.tile<left, 16x128xbf16>, memref<?x128xbf16>
  return
}

// -----

func.func @f(%m: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<mat, 128x128xbf16>
  // expected-error @+1 {{a transposed load into a mat tile gives zn, but 'dst' is nz}}
  tile.load %t, %m[%c0, %c0] transpose : !tile.tile<mat, 128x128xbf16>, memref<?x128xbf16>
  return
}

// -----

func.func @f(%m: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 16x128xbf16, col_major>
  // expected-error @+1 {{a plain load into a vec tile gives row_major, but 'dst' is col_major}}
  tile.load %t, %m[%c0, %c0] : !tile.tile<vec, 16x128xbf16, col_major>, memref<?x128xbf16>
  return
}

// -----

func.func @f(%m: memref<?x128xi8>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{loads 'i8' into a 'f32' tile; a load does not convert}}
  tile.load %t, %m[%c0, %c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xi8>
  return
}

// -----

func.func @f(%m: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{takes one index per memref dimension (2), got 1}}
  tile.load %t, %m[%c0] : !tile.tile<vec, 16x128xf32>, memref<?x128xf32>
  return
}

// -----

// Where the IR knows the place (constant indices, static sizes and valid
// extent), a load or store outside its memref is an error at the op (the
// CPU simulation checks the rest at run time).
func.func @f(%m: memref<8x32xf32>) {
  %c100 = arith.constant 100 : index
  %t = tile.alloc : !tile.tile<vec, 16x64xf32>
  // expected-error @+1 {{'dst' (16 rows of 64) at [100, 100] of memref<8x32xf32> lies outside the memref: index 100 of dimension 0 is not in [0, 8)}}
  tile.load %t, %m[%c100, %c100] : !tile.tile<vec, 16x64xf32>, memref<8x32xf32>
  return
}

// -----

func.func @f(%m: memref<?x64xf32>, %r: index) {
  %c128 = arith.constant 128 : index
  %t = tile.alloc : !tile.tile<vec, 1x128xf32>
  // expected-error @+1 {{'dst' (1 row of 128) at [?, 128] of memref<?x64xf32> lies outside the memref: index 128 of dimension 1 is not in [0, 64)}}
  tile.load %t, %m[%r, %c128] : !tile.tile<vec, 1x128xf32>, memref<?x64xf32>
  return
}

// -----

func.func @f(%m: memref<?x64xf32>, %r: index) {
  %c32 = arith.constant 32 : index
  %t = tile.alloc : !tile.tile<vec, 4x64xf32>
  // expected-error @+1 {{'src' (4 rows of 64) at [?, 32] of memref<?x64xf32> lies outside the memref: columns [32, 96) of 64}}
  tile.store %m[%r, %c32], %t : memref<?x64xf32>, !tile.tile<vec, 4x64xf32>
  return
}

// -----

func.func @f(%m: memref<2x8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %t = tile.alloc : !tile.tile<vec, 16x32xf32>
  // expected-error @+1 {{'dst' (16 rows of 32) at [1, 6, 0] of memref<2x8x32xf32> lies outside the memref: rows [14, 30) of its 16}}
  tile.load %t, %m[%c1, %c6, %c0] : !tile.tile<vec, 16x32xf32>, memref<2x8x32xf32>
  return
}

// -----

func.func @f(%m: memref<4x8xf32>) {
  %c3 = arith.constant 3 : index
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  // expected-error @+1 {{'src' (1 column of 16) at [3, 0] of memref<4x8xf32> lies outside the memref: elements [24, 40) of its 32}}
  tile.store %m[%c3, %c0], %t transpose : memref<4x8xf32>, !tile.tile<vec, 16x1xf32, col_major>
  return
}

// -----

func.func @f(%m: memref<?x?x?x?xbf16>, %table: memref<?x?xi32>, %i: index) {
  %t = tile.alloc : !tile.tile<vec, 16x128xbf16>
  // expected-error @+1 {{a rank-4 cache takes a head index}}
  tile.load_paged %t, %m[], %table[%i], %i : !tile.tile<vec, 16x128xbf16>, memref<?x?x?x?xbf16>, memref<?x?xi32>
  return
}

// -----

func.func @f(%m: memref<?x?xbf16>, %table: memref<?x?xi32>, %i: index) {
  %t = tile.alloc : !tile.tile<vec, 16x128xbf16>
  // expected-error @+1 {{reads a cache of rank 3 [pages, page_size, cols] or 4 [pages, heads, page_size, cols], got rank 2}}
  tile.load_paged %t, %m[], %table[%i], %i : !tile.tile<vec, 16x128xbf16>, memref<?x?xbf16>, memref<?x?xi32>
  return
}

// -----

func.func @f(%m: memref<?x?x?x?xi8>, %table: memref<?x?xi32>, %i: index) {
  %t = tile.alloc : !tile.tile<vec, 16x128xbf16>
  // expected-error @+1 {{loads 'i8' into a 'bf16' tile; a load does not convert}}
  tile.load_paged %t, %m[%i], %table[%i], %i : !tile.tile<vec, 16x128xbf16>, memref<?x?x?x?xi8>, memref<?x?xi32>
  return
}

// -----

func.func @f(%m: memref<?x?x?x?xbf16>, %table: memref<?x?xi32>, %i: index) {
  %t = tile.alloc : !tile.tile<mat, 128x128xbf16>
  // expected-error @+1 {{a transposed load into a mat tile gives zn, but 'dst' is nz}}
  tile.load_paged %t, %m[%i], %table[%i], %i transpose : !tile.tile<mat, 128x128xbf16>, memref<?x?x?x?xbf16>, memref<?x?xi32>
  return
}

// -----

func.func @f(%m: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{stores a 'f32' tile into 'bf16' memory; only the fixpipe (acc) converts}}
  tile.store %m[%c0, %c0], %t : memref<?x128xbf16>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%m: memref<?x128xi8>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<acc, 16x128xf32>
  // expected-error @+1 {{stores an 'f32' acc tile into 'i8' memory; the fixpipe writes f32 as f32, f16 or bf16 and i32 as i32}}
  tile.store %m[%c0, %c0], %t : memref<?x128xi8>, !tile.tile<acc, 16x128xf32>
  return
}

// -----

func.func @f(%m: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<left, 16x128xbf16>
  // expected-error @+1 {{stores vec or acc tiles, not left}}
  tile.store %m[%c0, %c0], %t : memref<?x128xbf16>, !tile.tile<left, 16x128xbf16>
  return
}

// -----

func.func @f(%m: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  // expected-error @+1 {{a col_major tile is stored with 'transpose'}}
  tile.store %m[%c0], %t : memref<?xf32>, !tile.tile<vec, 16x1xf32, col_major>
  return
}

// -----

func.func @f(%m: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{only a col_major tile is stored with 'transpose'}}
  tile.store %m[%c0, %c0], %t transpose : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%m: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{takes one index per memref dimension (2), got 3}}
  tile.store %m[%c0, %c0, %c0], %t : memref<?x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// == mov, extract ==

func.func @f() {
  %a = tile.alloc : !tile.tile<acc, 16x128xf32>
  %v = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{moves acc to vec, which A2/A3 cannot: the paths are mat to left/right, vec to vec and acc to mat (the cube and vector cores exchange data through global memory)}}
  tile.mov %v, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<acc, 16x128xf32>
  return
}

// -----

func.func @f() {
  %v = tile.alloc : !tile.tile<vec, 16x128xbf16>
  %l = tile.alloc : !tile.tile<left, 16x128xbf16>
  // expected-error @+1 {{moves vec to left, which A2/A3 cannot}}
  tile.mov %l, %v : !tile.tile<left, 16x128xbf16>, !tile.tile<vec, 16x128xbf16>
  return
}

// -----

func.func @f() {
  %a = tile.alloc : !tile.tile<acc, 16x128xf32>
  %m = tile.alloc : !tile.tile<mat, 16x128xf32>
  // expected-error @+1 {{moves acc to mat as f32 to f16 or bf16, got 'f32' to 'f32'}}
  tile.mov %m, %a : !tile.tile<mat, 16x128xf32>, !tile.tile<acc, 16x128xf32>
  return
}

// -----

func.func @f() {
  %m = tile.alloc : !tile.tile<mat, 16x128xbf16>
  %l = tile.alloc : !tile.tile<left, 16x128xf16>
  // expected-error @+1 {{'dst' and 'src' must have one element type, got 'f16' and 'bf16'}}
  tile.mov %l, %m : !tile.tile<left, 16x128xf16>, !tile.tile<mat, 16x128xbf16>
  return
}

// -----

func.func @f() {
  %m = tile.alloc : !tile.tile<mat, 32x128xbf16>
  %l = tile.alloc : !tile.tile<left, 16x128xbf16>
  // expected-error @+1 {{moves a 32x128 tile into a 16x128 one; static extents must match}}
  tile.mov %l, %m : !tile.tile<left, 16x128xbf16>, !tile.tile<mat, 32x128xbf16>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = tile.alloc : !tile.tile<mat, 32x128xbf16>
  %l = tile.alloc : !tile.tile<left, 16x64xbf16>
  // expected-error @+1 {{offsets must lie on the source's 16x16 fractal boxes}}
  tile.extract %l, %m[%c8, %c0] : !tile.tile<left, 16x64xbf16>, !tile.tile<mat, 32x128xbf16>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %c96 = arith.constant 96 : index
  %m = tile.alloc : !tile.tile<mat, 32x128xbf16>
  %l = tile.alloc : !tile.tile<left, 16x64xbf16>
  // expected-error @+1 {{takes columns [96, 160) of a source with 128}}
  tile.extract %l, %m[%c0, %c96] : !tile.tile<left, 16x64xbf16>, !tile.tile<mat, 32x128xbf16>
  return
}

// -----

func.func @f(%i: index) {
  %a = tile.alloc : !tile.tile<acc, 16x128xf32>
  %m = tile.alloc : !tile.tile<mat, 16x128xbf16>
  // expected-error @+1 {{extracts from mat or vec tiles}}
  tile.extract %m, %a[%i, %i] : !tile.tile<mat, 16x128xbf16>, !tile.tile<acc, 16x128xf32>
  return
}

// -----

// == The cube ==

func.func @f() {
  %c = tile.alloc : !tile.tile<acc, 16x128xf32>
  %a = tile.alloc : !tile.tile<mat, 16x128xbf16>
  %b = tile.alloc : !tile.tile<right, 128x128xbf16>
  // expected-error @+1 {{'a' must be a left tile, got mat}}
  tile.matmul %c, %a, %b : !tile.tile<acc, 16x128xf32>, !tile.tile<mat, 16x128xbf16>, !tile.tile<right, 128x128xbf16>
  return
}

// -----

func.func @f() {
  %c = tile.alloc : !tile.tile<acc, 16x128xf32>
  %a = tile.alloc : !tile.tile<left, 16x128xbf16>
  %b = tile.alloc : !tile.tile<right, 128x128xf16>
  // expected-error @+1 {{'a' and 'b' must have one element type, got 'bf16' and 'f16'}}
  tile.matmul %c, %a, %b : !tile.tile<acc, 16x128xf32>, !tile.tile<left, 16x128xbf16>, !tile.tile<right, 128x128xf16>
  return
}

// -----

func.func @f() {
  %c = tile.alloc : !tile.tile<acc, 16x128xf32>
  %a = tile.alloc : !tile.tile<left, 16x128xi8>
  %b = tile.alloc : !tile.tile<right, 128x128xi8>
  // expected-error @+1 {{multiplies 'i8' into 'f32'; the cube takes i8 x i8 -> i32 and f16, bf16 or f32 -> f32}}
  tile.matmul %c, %a, %b : !tile.tile<acc, 16x128xf32>, !tile.tile<left, 16x128xi8>, !tile.tile<right, 128x128xi8>
  return
}

// -----

func.func @f() {
  %c = tile.alloc : !tile.tile<acc, 32x128xf32>
  %a = tile.alloc : !tile.tile<left, 16x128xbf16>
  %b = tile.alloc : !tile.tile<right, 128x128xbf16>
  // expected-error @+1 {{'a' has 16 rows, 'c' 32 (M must agree)}}
  tile.matmul %c, %a, %b : !tile.tile<acc, 32x128xf32>, !tile.tile<left, 16x128xbf16>, !tile.tile<right, 128x128xbf16>
  return
}

// -----

func.func @f() {
  %c = tile.alloc : !tile.tile<acc, 16x128xf32>
  %a = tile.alloc : !tile.tile<left, 16x64xbf16>
  %b = tile.alloc : !tile.tile<right, 128x128xbf16>
  // expected-error @+1 {{'a' has 64 columns, 'b' 128 rows (K must agree)}}
  tile.matmul_acc %c, %a, %b : !tile.tile<acc, 16x128xf32>, !tile.tile<left, 16x64xbf16>, !tile.tile<right, 128x128xbf16>
  return
}

// -----

func.func @f() {
  %c = tile.alloc : !tile.tile<acc, 16x64xf32>
  %a = tile.alloc : !tile.tile<left, 16x128xbf16>
  %b = tile.alloc : !tile.tile<right, 128x128xbf16>
  // expected-error @+1 {{'b' has 128 columns, 'c' 64 (N must agree)}}
  tile.gemv %c, %a, %b : !tile.tile<acc, 16x64xf32>, !tile.tile<left, 16x128xbf16>, !tile.tile<right, 128x128xbf16>
  return
}

// -----

// == Vector instructions ==

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xbf16>
  // expected-error @+1 {{'dst' has element type 'bf16'; this instruction takes i16, i32, f16, f32}}
  tile.add %d, %d, %d : !tile.tile<vec, 16x128xbf16>, !tile.tile<vec, 16x128xbf16>, !tile.tile<vec, 16x128xbf16>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xi32>
  // expected-error @+1 {{'dst' has element type 'i32'; this instruction takes f16, f32}}
  tile.div %d, %d, %d : !tile.tile<vec, 16x128xi32>, !tile.tile<vec, 16x128xi32>, !tile.tile<vec, 16x128xi32>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %a = tile.alloc : !tile.tile<acc, 16x128xf32>
  // expected-error @+1 {{'lhs' must be a vec tile, got acc}}
  tile.sub %d, %a, %d : !tile.tile<vec, 16x128xf32>, !tile.tile<acc, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %a = tile.alloc : !tile.tile<vec, 16x128xf16>
  // expected-error @+1 {{'dst' and 'rhs' must have one element type, got 'f32' and 'f16'}}
  tile.mul %d, %d, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf16>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %a = tile.alloc : !tile.tile<vec, 32x128xf32>
  // expected-error @+1 {{'dst' and 'lhs' must have one static extent, got 16x128 and 32x128}}
  tile.max %d, %a, %d : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 32x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %a = tile.alloc : !tile.tile<vec, 16x128xf32, valid = 16x100>
  // expected-error @+1 {{'dst' and 'rhs' must have one valid extent, got 128 and 100 cols}}
  tile.min %d, %d, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32, valid = 16x100>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32, col_major>
  // expected-error @+1 {{'dst' must be row_major, got col_major}}
  tile.exp %d, %d : !tile.tile<vec, 16x128xf32, col_major>, !tile.tile<vec, 16x128xf32, col_major>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xi32>
  // expected-error @+1 {{'dst' has element type 'i32'; this instruction takes f16, f32}}
  tile.rsqrt %d, %d : !tile.tile<vec, 16x128xi32>, !tile.tile<vec, 16x128xi32>
  return
}

// -----

func.func @f(%x: f16) {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{scalar has type 'f16'; it must have the tiles' element type 'f32'}}
  tile.muls %d, %d, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f16
  return
}

// -----

func.func @f(%x: f32) {
  %d = tile.alloc : !tile.tile<left, 16x128xf32>
  // expected-error @+1 {{fills vec or mat tiles, not left}}
  tile.expands %d, %x : !tile.tile<left, 16x128xf32>, f32
  return
}

// -----

func.func @f(%x: i32) {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{scalar has type 'i32'; it must be the tile's element type 'f32'}}
  tile.expands %d, %x : !tile.tile<vec, 16x128xf32>, i32
  return
}

// -----

func.func @f() {
  %s = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 16x8xf32>
  // expected-error @+1 {{'dst' holds one scalar per row: it must be a col_major [rows x 1] tile}}
  tile.rowmax %m, %s, %s : !tile.tile<vec, 16x8xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  %s = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 8x1xf32, col_major>
  // expected-error @+1 {{'dst' must have 16 rows (one per row of src), got 8}}
  tile.rowsum %m, %s, %s : !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  %s = tile.alloc : !tile.tile<vec, 16x128xf32>
  %t = tile.alloc : !tile.tile<vec, 16x64xf32>
  %m = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  // expected-error @+1 {{'tmp' must have the static extent of 'src'}}
  tile.rowmin %m, %s, %t : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f() {
  %s = tile.alloc : !tile.tile<vec, 16x128xf32>
  %v = tile.alloc : !tile.tile<vec, 1x64xf32>
  // expected-error @+1 {{'dst' must have 128 columns (one per column of src), got 64}}
  tile.colsum %v, %s : !tile.tile<vec, 1x64xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  %s = tile.alloc : !tile.tile<vec, 16x128xf32>
  %v = tile.alloc : !tile.tile<vec, 2x128xf32>
  // expected-error @+1 {{'dst' must have 1 row (one scalar per column), got 2}}
  tile.colmax %v, %s : !tile.tile<vec, 2x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 32x1xf32, col_major>
  // expected-error @+1 {{'src' must have 16 rows (one per row of dst), got 32}}
  tile.rowexpand %d, %m : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 32x1xf32, col_major>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %v = tile.alloc : !tile.tile<vec, 1x64xf32>
  // expected-error @+1 {{'src' must have 128 columns (one per column of dst), got 64}}
  tile.colexpand %d, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x64xf32>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  %t = tile.alloc : !tile.tile<vec, 1x8xf32>
  // expected-error @+1 {{'tmp' holds 32 bytes; the row broadcast needs 512}}
  tile.rowexpandsub %d, %d, %m, %t : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 1x8xf32>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 16x8xf32>
  // expected-error @+1 {{'row' holds one scalar per row: it must be a col_major [rows x 1] tile}}
  tile.rowexpandmul %d, %d, %m, %d : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x8xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xi32>
  %m = tile.alloc : !tile.tile<vec, 16x8xi32, col_major>
  // expected-error @+1 {{'dst' has element type 'i32'; this instruction takes f16, f32}}
  tile.rowexpanddiv %d, %d, %m, %d : !tile.tile<vec, 16x128xi32>, !tile.tile<vec, 16x128xi32>, !tile.tile<vec, 16x8xi32, col_major>, !tile.tile<vec, 16x128xi32>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %v = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'col' must have 1 row (one scalar per column), got 16}}
  tile.colexpandmul %d, %d, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  %a = tile.alloc : !tile.tile<vec, 16x128xf32>
  %b = tile.alloc : !tile.tile<vec, 128x32xf32>
  // expected-error @+1 {{'dst' must be the transposed extent of 'src' (128x16), got 128x32}}
  tile.transpose %b, %a, %a : !tile.tile<vec, 128x32xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f() {
  %a = tile.alloc : !tile.tile<vec, 16x128xbf16>
  %b = tile.alloc : !tile.tile<vec, 16x128xi8>
  // expected-error @+1 {{converts 'bf16' to 'i8', which A2/A3's TCVT does not}}
  tile.cvt %b, %a : !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 16x128xbf16>
  return
}

// -----

func.func @f() {
  %a = tile.alloc : !tile.tile<vec, 16x128xbf16>
  %b = tile.alloc : !tile.tile<vec, 16x64xf32>
  // expected-error @+1 {{'dst' and 'src' must have one extent}}
  tile.cvt %b, %a : !tile.tile<vec, 16x64xf32>, !tile.tile<vec, 16x128xbf16>
  return
}

// -----

func.func @f() {
  %x = tile.alloc : !tile.tile<vec, 16x128xf32>
  %q = tile.alloc : !tile.tile<vec, 16x128xi16>
  %s = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  // expected-error @+1 {{'dst' has element type 'i16'; this instruction takes i8}}
  tile.quant %q, %x, %s : !tile.tile<vec, 16x128xi16>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>
  return
}

// -----

func.func @f() {
  %x = tile.alloc : !tile.tile<vec, 16x128xf32>
  %q = tile.alloc : !tile.tile<vec, 16x128xi8>
  %s = tile.alloc : !tile.tile<vec, 8x1xf32, col_major>
  // expected-error @+1 {{'scale' must have 16 rows (one per row), got 8}}
  tile.dequant %x, %q, %s, %s : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 8x1xf32, col_major>, !tile.tile<vec, 8x1xf32, col_major>
  return
}

// -----

func.func @f(%x: i32) {
  %d = tile.alloc : !tile.tile<vec, 1x128xf32>
  // expected-error @+1 {{'dst' has element type 'f32'; this instruction takes i16, i32}}
  tile.ci %d, %x : !tile.tile<vec, 1x128xf32>, i32
  return
}

// -----

func.func @f(%x: i16) {
  %d = tile.alloc : !tile.tile<vec, 1x128xi32>
  // expected-error @+1 {{start has type 'i16'; it must be the tile's element type 'i32'}}
  tile.ci %d, %x : !tile.tile<vec, 1x128xi32>, i16
  return
}

// -----

func.func @f(%x: i32) {
  %d = tile.alloc : !tile.tile<vec, 16x128xbf16>
  // expected-error @+1 {{'dst' has element type 'bf16'; this instruction takes i16, i32, f16, f32}}
  tile.tri %d, %x : !tile.tile<vec, 16x128xbf16>, i32
  return
}

// -----

func.func @f(%x: f32) {
  %s = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m16 = tile.alloc : !tile.tile<vec, 16x32xi16>
  // expected-error @+1 {{'mask' has element type 'i16'; this instruction takes i8}}
  tile.cmps %m16, %s, %x lt : !tile.tile<vec, 16x32xi16>, !tile.tile<vec, 16x128xf32>, f32
  return
}

// -----

func.func @f(%x: f32) {
  %s = tile.alloc : !tile.tile<vec, 16x512xf32>
  %m = tile.alloc : !tile.tile<vec, 16x32xi8>
  // expected-error @+1 {{'mask' has 256 bits per row; 'src' has 512 columns}}
  tile.cmps %m, %s, %x ge : !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x512xf32>, f32
  return
}

// -----

func.func @f(%x: f32) {
  %s = tile.alloc : !tile.tile<vec, 16x128xf32, valid = 16x100>
  %m = tile.alloc : !tile.tile<vec, 16x32xi8>
  // expected-error @+1 {{compares whole rows: 'src' must be valid over all its columns}}
  tile.cmps %m, %s, %x ge : !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x128xf32, valid = 16x100>, f32
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xi8>
  %m = tile.alloc : !tile.tile<vec, 16x32xi8>
  %t = tile.alloc : !tile.tile<vec, 1x16xi32>
  // expected-error @+1 {{'dst' has element type 'i8'; this instruction takes i16, i32, f16, f32}}
  tile.sel %d, %m, %d, %d, %t : !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 1x16xi32>
  return
}

// -----

func.func @f(%i: index) {
  %t = tile.alloc : !tile.tile<mat, 16x128xf32>
  // expected-error @+1 {{'tile' must be a vec tile, got mat}}
  %x = tile.getval %t[%i, %i] : !tile.tile<mat, 16x128xf32>, f32
  return
}

// -----

func.func @f(%i: index, %x: i32) {
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{accesses a 'f32' tile as 'i32'}}
  tile.setval %t[%i, %i], %x : !tile.tile<vec, 16x128xf32>, i32
  return
}

// -----

// == Synchronization ==

func.func @f() {
  // expected-error @+1 {{connects pipe v with itself; a pipe runs in order}}
  tile.set_flag v -> v event(0)
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{flags connect two pipes; 'all' is for tile.barrier}}
  tile.wait_flag all -> v event(0)
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{fix and v are pipes of different cores; use tile.sync_set / tile.sync_wait}}
  tile.set_flag fix -> v event(0)
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'tile.set_flag' op attribute 'event' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 7}}
  tile.set_flag mte2 -> v event(8)
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{the vector core has no fix pipe}}
  tile.sync_set vector fix event(0)
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{signals after one pipe, not 'all'}}
  tile.sync_set cube all event(0)
  return
}

// -----

// == Clauses added with the review of the dialect ==

// A view keeps the source's row stride: it takes whole rows.
func.func @f() {
  %c0 = arith.constant 0 : index
  %q = tile.alloc : !tile.tile<vec, 48x128xf32>
  // expected-error @+1 {{a view of 64 columns of a tile of 128: a view takes whole rows}}
  %v = tile.subview %q[%c0, %c0] : !tile.tile<vec, 48x128xf32> to !tile.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %cm8 = arith.constant -8 : index
  %q = tile.alloc : !tile.tile<vec, 48x128xf32>
  // expected-error @+1 {{a view takes whole rows: its column offset must be the constant 0}}
  %v = tile.subview %q[%c0, %cm8] : !tile.tile<vec, 48x128xf32> to !tile.tile<vec, 1x128xf32>
  return
}

// -----

func.func @f(%i: index) {
  %c0 = arith.constant 0 : index
  %q = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{result has 64 rows, more than the source's 16}}
  %v = tile.subview %q[%i, %c0] : !tile.tile<vec, 16x128xf32> to !tile.tile<vec, 64x128xf32>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %q = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'result' must be row_major, got col_major}}
  %v = tile.subview %q[%c0, %c0] : !tile.tile<vec, 16x128xf32> to !tile.tile<vec, 16x128xf32, col_major>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %q = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'source' and 'result' must have one element type, got 'f32' and 'i32'}}
  %v = tile.subview %q[%c0, %c0] : !tile.tile<vec, 16x128xf32> to !tile.tile<vec, 16x128xi32>
  return
}

// -----

func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %q = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{result must have a static extent}}
  %v = "tile.subview"(%q, %c0, %c0) : (!tile.tile<vec, 16x128xf32>, index, index) -> !tile.tile<vec, ?x128xf32>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %cm1 = arith.constant -1 : index
  %q = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{row offset must be non-negative}}
  %v = tile.subview %q[%cm1, %c0] : !tile.tile<vec, 16x128xf32> to !tile.tile<vec, 1x128xf32>
  return
}

// -----

// A reshape's result is valid in whole: fewer valid rows are a subview's.
func.func @f(%n: index) {
  %q = tile.alloc valid(%n) : !tile.tile<vec, 8x2048xf32, valid = ?x2048>
  // expected-error @+1 {{yields '!tile.tile<vec, 16x2048xf16, valid = ?x2048>', valid in part: a reshape's result is valid in whole (a tile.subview of it takes fewer rows)}}
  %r = tile.reshape %q : !tile.tile<vec, 8x2048xf32, valid = ?x2048> to !tile.tile<vec, 16x2048xf16, valid = ?x2048>
  return
}

// -----

// Only a single row or column changes layout when reshaped.
func.func @f() {
  %q = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{reshapes a row_major tile as col_major; only a single row or column changes layout}}
  %r = tile.reshape %q : !tile.tile<vec, 16x128xf32> to !tile.tile<vec, 128x16xf32, col_major>
  return
}

// -----

func.func @f() {
  %c = tile.alloc : !tile.tile<acc, 16x64xf32>
  %a = tile.alloc : !tile.tile<left, 16x64xf16>
  %b = tile.alloc : !tile.tile<right, 64x64xf16>
  // expected-error @+1 {{multiplies one row: 'a' has 16 valid rows}}
  tile.gemv %c, %a, %b : !tile.tile<acc, 16x64xf32>, !tile.tile<left, 16x64xf16>, !tile.tile<right, 64x64xf16>
  return
}

// -----

func.func @f() {
  %c = tile.alloc : !tile.tile<acc, 16x64xf32>
  %a = tile.alloc : !tile.tile<left, 16x64xf16>
  %b = tile.alloc : !tile.tile<left, 64x64xf16>
  // expected-error @+1 {{'b' must be a right tile, got left}}
  tile.matmul %c, %a, %b : !tile.tile<acc, 16x64xf32>, !tile.tile<left, 16x64xf16>, !tile.tile<left, 64x64xf16>
  return
}

// -----

func.func @f() {
  %c = tile.alloc : !tile.tile<vec, 16x64xf32>
  %a = tile.alloc : !tile.tile<left, 16x64xf16>
  %b = tile.alloc : !tile.tile<right, 64x64xf16>
  // expected-error @+1 {{'c' must be a acc tile, got vec}}
  tile.matmul %c, %a, %b : !tile.tile<vec, 16x64xf32>, !tile.tile<left, 16x64xf16>, !tile.tile<right, 64x64xf16>
  return
}

// -----

// The cube's buffers hold i8, f16, bf16 or f32.
// expected-error @+1 {{the cube's operands are i8, f16, bf16 or f32, got 'i32'}}
func.func private @f(!tile.tile<left, 16x16xi32>)

// -----

// Integers are signless.
// expected-error @+1 {{tile element type must be i8, i16, i32, f16, bf16 or f32, got 'ui8'}}
func.func private @f(!tile.tile<vec, 16x32xui8>)

// -----

// One valid extent and one layout per type.
// expected-error @+1 {{a tile type has one valid extent}}
func.func private @f(!tile.tile<vec, 16x128xf32, valid = 8x128, valid = 16x128>)

// -----

// expected-error @+1 {{a tile type has one layout}}
func.func private @f(!tile.tile<vec, 16x128xf32, col_major, row_major>)

// -----

// A mask has a bit per column of the tile it selects.
func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x512xf32>
  %m = tile.alloc : !tile.tile<vec, 16x32xi8>
  %t = tile.alloc : !tile.tile<vec, 1x16xi32>
  // expected-error @+1 {{'mask' has 256 bits per row; 'dst' has 512 columns}}
  tile.sel %d, %m, %d, %d, %t : !tile.tile<vec, 16x512xf32>, !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x512xf32>, !tile.tile<vec, 16x512xf32>, !tile.tile<vec, 1x16xi32>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 16x32xi8>
  %t = tile.alloc : !tile.tile<vec, 1x8xf32>
  // expected-error @+1 {{'tmp' has element type 'f32'; this instruction takes i32}}
  tile.sel %d, %m, %d, %d, %t : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x8xf32>
  return
}

// -----

func.func @f() {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 8x32xi8>
  %t = tile.alloc : !tile.tile<vec, 1x16xi32>
  // expected-error @+1 {{'mask' must have 16 rows (one row per dst row), got 8}}
  tile.sel %d, %m, %d, %d, %t : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 8x32xi8>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x16xi32>
  return
}

// -----

func.func @f(%x: f16) {
  %s = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 16x32xi8>
  // expected-error @+1 {{scalar has type 'f16'; it must be the source's element type 'f32'}}
  tile.cmps %m, %s, %x lt : !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x128xf32>, f16
  return
}

// -----

func.func @f(%x: f32) {
  %s = tile.alloc : !tile.tile<vec, 16x128xf32>
  %m = tile.alloc : !tile.tile<vec, 8x32xi8>
  // expected-error @+1 {{'mask' must have 16 rows (one row per src row), got 8}}
  tile.cmps %m, %s, %x lt : !tile.tile<vec, 8x32xi8>, !tile.tile<vec, 16x128xf32>, f32
  return
}

// -----

// A rank-1 memref is one row of global memory.
func.func @f(%row: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{moves one row of a rank-1 memref: 'dst' must have one valid row, got 16}}
  tile.load %t, %row[%c0] : !tile.tile<vec, 16x128xf32>, memref<?xf32>
  return
}

// -----

func.func @f(%row: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{moves one row of a rank-1 memref: 'src' must have one valid row, got 16}}
  tile.store %row[%c0], %t : memref<?xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%m: memref<f32>) {
  %t = tile.alloc : !tile.tile<vec, 1x8xf32>
  // expected-error @+1 {{loads from a memref of rank >= 1}}
  tile.load %t, %m[] : !tile.tile<vec, 1x8xf32>, memref<f32>
  return
}

// -----

func.func @f(%m: memref<f32>) {
  %t = tile.alloc : !tile.tile<vec, 1x8xf32>
  // expected-error @+1 {{stores to a memref of rank >= 1}}
  tile.store %m[], %t : memref<f32>, !tile.tile<vec, 1x8xf32>
  return
}

// -----

// L1 has no store path in the dialect: mat tiles go to L0 or through the
// cube.
func.func @f(%m: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : !tile.tile<mat, 16x128xbf16>
  // expected-error @+1 {{stores vec or acc tiles, not mat}}
  tile.store %m[%c0, %c0], %t : memref<?x128xbf16>, !tile.tile<mat, 16x128xbf16>
  return
}

// -----

func.func @f(%cache: memref<?x?x128xbf16>, %table: memref<?x?xi32>, %h: index, %b: index, %p: index) {
  %t = tile.alloc : !tile.tile<vec, 64x128xbf16>
  // expected-error @+1 {{a rank-3 cache takes no head index}}
  tile.load_paged %t, %cache[%h], %table[%b], %p : !tile.tile<vec, 64x128xbf16>, memref<?x?x128xbf16>, memref<?x?xi32>
  return
}

// -----

// Extract offsets: non-negative, on the source's fractal boxes (a zn box
// of f32 is 8 rows of 16 columns).
func.func @f(%s: !tile.tile<mat, ?x128xbf16, valid = ?x128>) {
  %c0 = arith.constant 0 : index
  %cm16 = arith.constant -16 : index
  %b = tile.alloc : !tile.tile<left, 16x128xbf16>
  // expected-error @+1 {{row offset -16 is negative}}
  tile.extract %b, %s[%cm16, %c0] : !tile.tile<left, 16x128xbf16>, !tile.tile<mat, ?x128xbf16, valid = ?x128>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %s = tile.alloc : !tile.tile<mat, 64x64xf32, zn>
  %d = tile.alloc : !tile.tile<right, 32x32xf32>
  // expected-error @+1 {{offsets must lie on the source's 8x16 fractal boxes}}
  tile.extract %d, %s[%c0, %c8] : !tile.tile<right, 32x32xf32>, !tile.tile<mat, 64x64xf32, zn>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %s = tile.alloc : !tile.tile<mat, 64x128xbf16>
  %d = tile.alloc : !tile.tile<left, 32x128xbf16>
  // expected-error @+1 {{takes rows [48, 80) of a source with 64}}
  tile.extract %d, %s[%c48, %c0] : !tile.tile<left, 32x128xbf16>, !tile.tile<mat, 64x128xbf16>
  return
}

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %s = tile.alloc : !tile.tile<acc, 16x128xf32>
  %d = tile.alloc : !tile.tile<mat, 16x128xf32>
  // expected-error @+1 {{extracts from mat or vec tiles}}
  tile.extract %d, %s[%c0, %c0] : !tile.tile<mat, 16x128xf32>, !tile.tile<acc, 16x128xf32>
  return
}

// -----

// Scalar access inside the tile.
func.func @f() {
  %c0 = arith.constant 0 : index
  %c100 = arith.constant 100 : index
  %m = tile.alloc : !tile.tile<vec, 16x1xf32, col_major>
  // expected-error @+1 {{row 100 lies outside the tile's 16}}
  %x = tile.getval %m[%c100, %c0] : !tile.tile<vec, 16x1xf32, col_major>, f32
  return
}

// -----

// Constant sizes obey the rules of the static forms they become.
func.func @f() {
  %c99 = arith.constant 99 : index
  // expected-error @+1 {{valid rows (99) must lie in [0, 16]}}
  %t = tile.alloc valid(%c99) : !tile.tile<vec, 16x128xf32, valid = ?x128>
  return
}

// -----

func.func @f() {
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{valid rows (32) exceed the static extent 16}}
  %t = tile.alloc shape(%c16) : !tile.tile<vec, ?x128xf32, valid = 32x128>
  return
}

// -----

func.func @f() {
  %c3 = arith.constant 3 : index
  // expected-error @+1 {{'tile.alloc' op with its constant sizes (16x3): a row_major tile's rows must be whole 32-byte blocks: cols x 4 bytes = 12}}
  %t = tile.alloc shape(%c3) valid(%c3) : !tile.tile<vec, 16x?xf32, valid = 16x?>
  return
}

// -----

// Extents print as IR spells them.
func.func @f(%a: !tile.tile<vec, ?x64xf32, valid = ?x64>) {
  %d = tile.alloc : !tile.tile<vec, 16x128xf32>
  // expected-error @+1 {{'dst' and 'lhs' must have one static extent, got 16x128 and ?x64}}
  tile.add %d, %a, %a : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, ?x64xf32, valid = ?x64>, !tile.tile<vec, ?x64xf32, valid = ?x64>
  return
}

// -----

// The fused-run mark counts the run's ops (two at least) as an i64.
func.func @f(%a: !tile.tile<vec, 16x128xf32>) {
  // expected-error @+1 {{'tile.fuse' must be an i64 of at least 2 (the ops of the fused run it starts), got 1 : i64}}
  tile.abs %a, %a {tile.fuse = 1 : i64} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%a: !tile.tile<vec, 16x128xf32>) {
  // expected-error @+1 {{'tile.fuse' must be an i64 of at least 2 (the ops of the fused run it starts), got "all"}}
  tile.abs %a, %a {tile.fuse = "all"} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%a: !tile.tile<vec, 16x128xf32>) {
  // expected-error @+1 {{unknown tile dialect attribute 'tile.fused'}}
  tile.abs %a, %a {tile.fused} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

// The stages a loop asks tile-pipeline for: on an scf.for, 2 to 8
// iterations in flight, and the fewest it takes (1 to the stages) only
// beside them.
func.func @f(%a: !tile.tile<vec, 16x128xf32>) {
  // expected-error @+1 {{'tile.stages' belongs on an scf.for (the loop to pipeline)}}
  tile.abs %a, %a {tile.stages = 2 : i64} : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.stages' must be an i64 from 2 to 8 (the iterations in flight), got 1 : i64}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.stages = 1 : i64}
  return
}

// -----

func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.stages' must be an i64 from 2 to 8 (the iterations in flight), got 9 : i64}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.stages = 9 : i64}
  return
}

// -----

func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.min_stages' needs 'tile.stages' beside it}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.min_stages = 1 : i64}
  return
}

// -----

func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.min_stages' (3) is more than 'tile.stages' (2)}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.stages = 2 : i64, tile.min_stages = 3 : i64}
  return
}

// -----

func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.min_stages' must be an i64 from 1 to 8 (the fewest stages the loop takes), got 0 : i64}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.stages = 2 : i64, tile.min_stages = 0 : i64}
  return
}
