//===- TileOps.td - tile operations ----------------------*- tablegen -*-===//
//
// One op per pto-isa instruction, destination first. Tiles are buffers:
// ops write their destination in place and return nothing, except the ops
// that make a tile handle (alloc, subview, reshape) and those that read a
// scalar (getval, block_idx, subblock_id, subblock_num).
//
//===----------------------------------------------------------------------===//

#ifndef WSP_DIALECT_TILE_IR_TILEOPS_TD
#define WSP_DIALECT_TILE_IR_TILEOPS_TD

include "wsp/Dialect/Tile/IR/TileDialect.td"
include "wsp/Dialect/Tile/IR/TileAttrs.td"
include "wsp/Dialect/Tile/IR/TileInterfaces.td"
include "wsp/Dialect/Tile/IR/TileTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinTypes.td"

def Tile_AnyTile : Type<CPred<"::llvm::isa<::mlir::wsp::tile::TileType>($_self)">,
                        "tile", "::mlir::wsp::tile::TileType">;

// Shorthands for operand roles.
class Tile_Dst<string doc = "destination tile"> : Arg<Tile_AnyTile, doc, [MemWrite]>;
class Tile_Src<string doc = "source tile"> : Arg<Tile_AnyTile, doc, [MemRead]>;
class Tile_Tmp<string doc = "scratch tile"> : Arg<Tile_AnyTile, doc, [MemRead, MemWrite]>;

// A flag id, below `n`.
class Tile_EventAttr<int n>
    : ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<!sub(n, 1)>]>;

// One pto-isa instruction (Tile_PipeOpInterface). Its facts are the fields
// below, each declared once, by the classes and defs that follow; the
// interface reads them, and each op's description ends with them
// (`instructionFacts`).
class Tile_InstrOp<string mnemonic, string ptoName, list<Trait> traits = []>
    : Tile_Op<mnemonic, traits # [Tile_PipeOpInterface]> {
  // pto-isa's name for the instruction.
  string instruction = ptoName;
  // The pipe (Tile_Pipe) and the core (Tile_Unit) it runs on; empty when
  // the buffers of its tiles decide them (getPipe, getUnit in TileOps.cpp).
  string pipe = "";
  string unit = "";
  // How many of its operands, from the first, it accesses element by
  // element.
  int elementwiseOperands = 0;
  // Its element-wise form (Tile_LaneKind) and what it computes
  // (Tile_ElementwiseKind).
  EnumCase laneKind = Tile_LaneNone;
  EnumCase elementwiseKind = Tile_FnNone;

  let extraClassDeclaration = !if(!empty(pipe), [{
    ::mlir::wsp::tile::Pipe getPipe();
    ::mlir::wsp::tile::Unit getUnit();
  }], [{
    ::mlir::wsp::tile::Pipe getPipe() { return ::mlir::wsp::tile::Pipe::}] #
      pipe # [{; }
    ::mlir::wsp::tile::Unit getUnit() { return ::mlir::wsp::tile::Unit::}] #
      unit # [{; }
  }]) # [{
    static ::llvm::StringRef getInstructionName() { return "}] #
      instruction # [{"; }
    static unsigned getNumElementwiseOperands() { return }] #
      !cast<string>(elementwiseOperands) # [{; }
    static ::mlir::wsp::tile::LaneKind getLaneKind() {
      return ::mlir::wsp::tile::LaneKind::}] # laneKind.symbol # [{;
    }
    static ::mlir::wsp::tile::ElementwiseKind getElementwiseKind() {
      return ::mlir::wsp::tile::ElementwiseKind::}] #
        elementwiseKind.symbol # [{;
    }
  }];

  // The facts, as the op's documentation states them.
  string instructionFacts = [{
    | pto-isa | pipe | element-wise operands | element-wise form | computes |
    |---|---|---|---|---|
    | `}] # instruction # [{` | }] #
      !if(!empty(pipe), "by its tiles' buffers",
          "`" # pipe # "` (" # unit # " core)") # [{ | }] #
      !if(!eq(elementwiseOperands, 0), "none",
          !interleave(!foreach(i, !range(elementwiseOperands),
                               "`" # !getdagname(arguments, i) # "`"),
                      ", ")) # [{ | `}] # laneKind.str # [{` | `}] #
      elementwiseKind.str # [{` |
  }];
}

// An instruction on a fixed pipe of a fixed core.
class Tile_PipeOp<string mnemonic, string ptoName, string pipeName,
                  string unitName, list<Trait> traits = []>
    : Tile_InstrOp<mnemonic, ptoName, traits> {
  let pipe = pipeName;
  let unit = unitName;
}

// A vector-unit instruction (pipe v) with a verifier that calls `check`.
class Tile_VecOp<string mnemonic, string ptoName, string check,
                 list<Trait> traits = []>
    : Tile_PipeOp<mnemonic, ptoName, "v", "vector", traits> {
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() { return }] # check # [{; }
  }];
}

//===----------------------------------------------------------------------===//
// Tile handles
//===----------------------------------------------------------------------===//

def Tile_AllocOp : Tile_Op<"alloc", [AttrSizedOperandSegments]> {
  let summary = "A tile buffer: one statically allocated region (TASSIGN)";
  let description = [{
    Names one region of the tile's buffer, fixed for the whole kernel (an
    allocation site), and returns a handle to it with the given valid
    extent. Executing the op again (in a loop) returns the same region:
    its contents persist, as a TASSIGN to the same address does.

    `buffers(N)` reserves N copies of the region (double buffering for
    N = 2); `slot(%i)` picks copy `%i mod N`. `tile-plan-memory` sets the
    byte `offset` of copy 0 in the buffer; copy k starts at
    `offset + k * bytes`.

    ```mlir
    %acc = tile.alloc : !tile.tile<acc, 16x128xf32>
    %k = tile.alloc valid(%n) slot(%j) buffers(2)
        : !tile.tile<mat, 128x128xbf16, valid = 128x?, zn>
    %t = tile.alloc shape(%tile_k) valid(%n) : !tile.tile<vec, ?x128xf32, valid = ?x128>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_shape,
                       Variadic<Index>:$dynamic_valid,
                       Optional<Index>:$slot,
                       OptionalAttr<I64Attr>:$buffers,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs Res<Tile_AnyTile, "the tile", [MemAlloc]>:$result);
  let assemblyFormat = [{
    (`shape` `(` $dynamic_shape^ `)`)? (`valid` `(` $dynamic_valid^ `)`)?
    (`slot` `(` $slot^ `)`)? (`buffers` `(` $buffers^ `)`)?
    (`at` $offset^)? attr-dict `:` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    TileType getType() { return ::llvm::cast<TileType>(getResult().getType()); }
    /// Copies reserved (buffers, default 1).
    int64_t getNumBuffers() {
      return getBuffersAttr() ? getBuffersAttr().getInt() : 1;
    }
  }];
}

def Tile_SubviewOp : Tile_Op<"subview", [Pure]> {
  let summary = "Whole rows of a vec tile, from a row offset (TASSIGN)";
  let description = [{
    A handle to the rows of `source` that start at `row`, sharing its
    storage, with the result type's static extent and a valid extent
    (operands for the `?` valid dims). Row-major vec tiles only, and whole
    rows: the result has the source's columns and `col` is the constant 0,
    so the result is a tile of its own at an address inside the source (a
    TASSIGN at `source + row * cols * bytes`) with the source's row
    stride.

    ```mlir
    %rows = tile.subview %q[%r0, %c0] valid(%g)
        : !tile.tile<vec, 48x128xbf16> to !tile.tile<vec, 16x128xbf16, valid = ?x128>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$source, Index:$row, Index:$col,
                       Variadic<Index>:$dynamic_valid);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $source `[` $row `,` $col `]` (`valid` `(` $dynamic_valid^ `)`)?
    attr-dict `:` qualified(type($source)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "The same bytes as a tile of another shape (TRESHAPE)";
  let description = [{
    Reinterprets the storage of `source` as a tile of the result type:
    same location, same layout family, same number of bytes, any element
    type. No data moves. The result is valid in whole (its valid extent is
    its static extent, as pto-isa's TRESHAPE keeps the result type's): a
    `tile.subview` of it takes fewer valid rows.

    ```mlir
    %flat = tile.reshape %t : !tile.tile<vec, 16x128xf32> to !tile.tile<vec, 1x2048xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$source);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $source attr-dict `:` qualified(type($source)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Global memory <-> tiles
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_InstrOp<"load", "TLOAD"> {
  let laneKind = Tile_LaneLoad;
  let summary = "Load a block of global memory into a tile (" # instruction # ")";
  let description = [{
    Copies the valid extent of `dst` from the memref `source`: tile row r,
    column c is `source[i_0, ..., i_{n-2} + r, i_{n-1} + c]` (the last two
    dims of a rank-n memref; rank 1 is a single row). With `transpose` the
    block is read transposed, `dst[r, c] = source[..., i_{n-2} + c,
    i_{n-1} + r]`: pto-isa's DN load, which gives a `col_major` vec tile or
    a `zn` mat tile (`K^T` for a matmul). No conversion: element types
    match. Runs on MTE2 of the vector core (vec) or the cube core (mat).

    ```mlir
    tile.load %q, %ws[%c0, %c0] : !tile.tile<mat, 16x128xbf16>, memref<?x128xbf16>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst,
                       Arg<AnyMemRef, "global memory", [MemRead]>:$source,
                       Variadic<Index>:$indices, UnitAttr:$transpose);
  let assemblyFormat = [{
    $dst `,` $source `[` $indices `]` (`transpose` $transpose^)? attr-dict
    `:` qualified(type($dst)) `,` type($source)
  }];
  let hasVerifier = 1;
}

def Tile_LoadPagedOp : Tile_InstrOp<"load_paged", "TLOAD"> {
  let summary = "Gather a tile's rows from the pages of a paged KV cache";
  let description = [{
    Loads consecutive sequence positions `pos + r` (r over the valid rows,
    or the valid columns with `transpose`) from a paged cache. Position p
    lives in page `table[row, p / page_size]` at offset `p % page_size`;
    the cache is `[pages, heads, page_size, cols]` with `head` selecting
    the head, or `[pages, page_size, cols]` without it:

      dst[r, c] = cache[table[row, (pos + r) / ps], head, (pos + r) % ps, c]

    With `transpose`, position j is column j: `dst[c, j] = cache[...,
    (pos + j) % ps, c]` (the `zn` K^T operand of QK^T). One TLOAD per page
    segment; on the cube each segment must start at a fractal boundary
    (16 rows, or 16 columns transposed) of the tile, which holds when
    `pos` and the page size are multiples of 16.

    ```mlir
    tile.load_paged %kt, %k_cache[%kv_head], %block_table[%kv_id], %pos transpose
        : !tile.tile<mat, 128x128xbf16, valid = 128x?, zn>, memref<?x?x?x?xbf16>, memref<?x?xi32>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst,
                       Arg<AnyMemRef, "paged cache", [MemRead]>:$cache,
                       Optional<Index>:$head,
                       Arg<MemRefRankOf<[I32], [2]>, "page table", [MemRead]>:$table,
                       Index:$table_row, Index:$pos, UnitAttr:$transpose);
  let assemblyFormat = [{
    $dst `,` $cache `[` ($head^)? `]` `,` $table `[` $table_row `]` `,` $pos
    (`transpose` $transpose^)? attr-dict
    `:` qualified(type($dst)) `,` type($cache) `,` type($table)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_InstrOp<"store", "TSTORE"> {
  let laneKind = Tile_LaneStore;
  let summary = "Store a tile's valid extent to global memory (" # instruction # ")";
  let description = [{
    Writes the valid extent of `src` to `dest` at the indices, laid out as
    `tile.load` reads it (`transpose` for a `col_major` vec tile). From
    `vec` (MTE3) element types match; from `acc` the fixpipe (FIX) may
    convert: f32 to f32, f16 or bf16 (round to nearest even), i32 to i32.

    ```mlir
    tile.store %out[%r, %c0], %o : memref<?x128xbf16>, !tile.tile<vec, 16x128xbf16>
    tile.store %ws[%c0, %c0], %s : memref<?x128xf32>, !tile.tile<acc, 16x128xf32>
    ```
  }] # instructionFacts;
  let arguments = (ins Arg<AnyMemRef, "global memory", [MemWrite]>:$dest,
                       Variadic<Index>:$indices, Tile_Src<>:$src,
                       UnitAttr:$transpose);
  let assemblyFormat = [{
    $dest `[` $indices `]` `,` $src (`transpose` $transpose^)? attr-dict
    `:` type($dest) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// On-chip moves and conversions
//===----------------------------------------------------------------------===//

def Tile_MovOp : Tile_InstrOp<"mov", "TMOV"> {
  let summary = "Move a tile between buffers (" # instruction # ")";
  let description = [{
    The A2/A3 paths: `mat` to `left` or `right` (MTE1, the cube's operand
    fetch, which also changes the fractal layout), `vec` to `vec` (V) and
    `acc` to `mat` (FIX, f32 to f16/bf16). There is no path from `acc` or
    `vec` to the other core: data crosses through global memory. Static
    extents match.

    ```mlir
    tile.mov %left, %q : !tile.tile<left, 16x128xbf16>, !tile.tile<mat, 16x128xbf16>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def Tile_ExtractOp : Tile_InstrOp<"extract", "TEXTRACT"> {
  let summary = "Move a block of a mat tile into a cube operand (" # instruction # ")";
  let description = [{
    `dst` takes the block of `src` at (`row`, `col`) of `dst`'s extent:
    `mat` to `left`/`right` on MTE1 (a K or N slice of a staged operand),
    or `vec` to `vec` on V. Offsets must be fractal-aligned on the cube
    (checked when constant).

    ```mlir
    tile.extract %b, %kt[%c0, %n0] : !tile.tile<right, 128x64xbf16>, !tile.tile<mat, 128x128xbf16, zn>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src, Index:$row,
                       Index:$col);
  let assemblyFormat = [{
    $dst `,` $src `[` $row `,` $col `]` attr-dict
    `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_VecOp<"transpose", "TTRANS", "verifyTranspose(*this)"> {
  let summary = "Transpose a vec tile (" # instruction # ")";
  let description = [{
    `dst[c, r] = src[r, c]` over the valid extent, through `tmp`.

    ```mlir
    tile.transpose %t, %s, %tmp : !tile.tile<vec, 16x16xf32>, !tile.tile<vec, 16x16xf32>, !tile.tile<vec, 16x16xf32>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src, Tile_Tmp<>:$tmp);
  let assemblyFormat = [{
    $dst `,` $src `,` $tmp attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($tmp))
  }];
}

def Tile_CvtOp : Tile_VecOp<"cvt", "TCVT", "verifyCvt(*this)"> {
  let elementwiseOperands = 2;
  let laneKind = Tile_LaneConvert;
  let summary = "Convert the element type of a vec tile (" # instruction # ")";
  let description = [{
    `dst = convert(src)` element by element, saturating when narrowing to an
    integer. From a float to an integer it rounds by the rounding mode
    (`rint`, nearest even, by default; `round`, nearest away from zero;
    `floor`; `ceil`; `trunc`); every other pair rounds to nearest even.
    The A2/A3 pairs: f32 to f16, bf16, i16, i32, f32; f16 to f32, i32,
    i16, i8; bf16 to f32, i32; i16 to f16, f32; i32 to f32, i16, f16;
    i8 to f16.

    ```mlir
    tile.cvt %f, %h : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xbf16>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src,
                       DefaultValuedAttr<Tile_RoundMode,
                           "::mlir::wsp::tile::RoundMode::rint">:$round);
  let assemblyFormat = [{
    $dst `,` $src (`round` $round^)? attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src))
  }];
}

def Tile_QuantOp : Tile_VecOp<"quant", "TQUANT", "verifyQuant(*this)"> {
  let elementwiseOperands = 2;
  let summary = "Quantize rows of a vec tile to int8 (" # instruction #
                ", symmetric)";
  let description = [{
    `dst[r, c] = saturate_i8(rint(src[r, c] * scale[r]))`: f32 to i8 with
    a per-row multiplier (a `col_major` [rows x 1] f32 tile, usually
    127 / max|row|). On A2/A3 it scales `src` in place, so `src` is
    clobbered.

    ```mlir
    tile.quant %q8, %x, %inv_scale : !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Tmp<>:$src, Tile_Src<>:$scale);
  let assemblyFormat = [{
    $dst `,` $src `,` $scale attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($scale))
  }];
}

def Tile_DequantOp : Tile_VecOp<"dequant", "TDEQUANT", "verifyDequant(*this)"> {
  let elementwiseOperands = 2;
  let summary = "Dequantize rows of an int8 vec tile (" # instruction # ")";
  let description = [{
    `dst[r, c] = (src[r, c] - offset[r]) * scale[r]`: i8 or i16 to f32
    with per-row f32 scale and offset tiles (`col_major` [rows x 1]).

    ```mlir
    tile.dequant %x, %q8, %scale, %zero : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xi8>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x1xf32, col_major>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src, Tile_Src<>:$scale,
                       Tile_Src<>:$zero);
  let assemblyFormat = [{
    $dst `,` $src `,` $scale `,` $zero attr-dict `:` qualified(type($dst))
    `,` qualified(type($src)) `,` qualified(type($scale)) `,`
    qualified(type($zero))
  }];
}

//===----------------------------------------------------------------------===//
// The cube
//===----------------------------------------------------------------------===//

class Tile_CubeOp<string mnemonic, string ptoName, string what, string doc>
    : Tile_PipeOp<mnemonic, ptoName, "m", "cube"> {
  let summary = what # " (" # ptoName # ")";
  let description = doc # instructionFacts;
  let arguments = (ins Arg<Tile_AnyTile, "accumulator", [MemRead, MemWrite]>:$c,
                       Tile_Src<"left operand">:$a,
                       Tile_Src<"right operand">:$b);
  let assemblyFormat = [{
    $c `,` $a `,` $b attr-dict `:` qualified(type($c)) `,`
    qualified(type($a)) `,` qualified(type($b))
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() { return verifyMatmul(*this); }
  }];
}

def Tile_MatmulOp : Tile_CubeOp<"matmul", "TMATMUL", "Matrix product on the cube", [{
    `c[m, n] = sum_k a[m, k] * b[k, n]` over a's valid rows (m), a's valid
    columns (k) and b's valid columns (n): `left` x `right` into `acc`.
    The A2/A3 element types: i8 x i8 -> i32, f16 x f16, bf16 x bf16 and
    f32 x f32 -> f32.

    ```mlir
    tile.matmul %s, %q, %kt : !tile.tile<acc, 16x128xf32>, !tile.tile<left, 16x128xbf16>, !tile.tile<right, 128x128xbf16>
    ```
  }]>;

def Tile_MatmulAccOp : Tile_CubeOp<"matmul_acc", "TMATMUL_ACC",
    "Accumulating matrix product on the cube", [{
    As `tile.matmul`, accumulating into `c`.

    ```mlir
    tile.matmul_acc %c, %a, %b : !tile.tile<acc, 16x64xf32>, !tile.tile<left, 16x64xf16>, !tile.tile<right, 64x64xf16>
    ```
  }]>;

def Tile_GemvOp : Tile_CubeOp<"gemv", "TGEMV", "Vector-matrix product on the cube", [{
    As `tile.matmul` with one valid row in `a`.

    ```mlir
    tile.gemv %c, %a, %b : !tile.tile<acc, 16x64xf32, valid = 1x64>, !tile.tile<left, 16x64xf16, valid = 1x64>, !tile.tile<right, 64x64xf16>
    ```
  }]>;

//===----------------------------------------------------------------------===//
// Vector element-wise
//===----------------------------------------------------------------------===//

// dst = lhs op rhs, element by element.
class Tile_BinaryOp<string mnemonic, string pto, string dtypes, string math,
                    EnumCase fn>
    : Tile_VecOp<mnemonic, pto, "verifyBinary(*this, " # dtypes # ")"> {
  let elementwiseOperands = 3;
  let laneKind = Tile_LaneBinary;
  let elementwiseKind = fn;
  let summary = "Element-wise " # math # " (" # pto # ")";
  let description = [{
    Over the valid extent of `dst`, which the sources share. Vec tiles,
    row-major, one element type.

    ```mlir
    tile.}] # mnemonic # [{ %d, %a, %b : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$lhs, Tile_Src<>:$rhs);
  let assemblyFormat = [{
    $dst `,` $lhs `,` $rhs attr-dict `:` qualified(type($dst)) `,`
    qualified(type($lhs)) `,` qualified(type($rhs))
  }];
}

def Tile_AddOp : Tile_BinaryOp<"add", "TADD", "kVecArith", "lhs + rhs", Tile_FnAdd>;
def Tile_SubOp : Tile_BinaryOp<"sub", "TSUB", "kVecArith", "lhs - rhs", Tile_FnSub>;
def Tile_MulOp : Tile_BinaryOp<"mul", "TMUL", "kVecArith", "lhs * rhs", Tile_FnMul>;
def Tile_DivOp : Tile_BinaryOp<"div", "TDIV", "kVecFloat", "lhs / rhs", Tile_FnDiv>;
def Tile_MaxOp : Tile_BinaryOp<"max", "TMAX", "kVecArith", "max(lhs, rhs)", Tile_FnMax>;
def Tile_MinOp : Tile_BinaryOp<"min", "TMIN", "kVecArith", "min(lhs, rhs)", Tile_FnMin>;

// dst = op(src).
class Tile_UnaryOp<string mnemonic, string pto, string math, EnumCase fn>
    : Tile_VecOp<mnemonic, pto, "verifyUnary(*this, kVecFloat)"> {
  let elementwiseOperands = 2;
  let laneKind = Tile_LaneUnary;
  let elementwiseKind = fn;
  let summary = "Element-wise " # math # " (" # pto # ")";
  let description = [{
    Over the valid extent of `dst`. f16 or f32 vec tiles.

    ```mlir
    tile.}] # mnemonic # [{ %d, %s : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
}

def Tile_ExpOp : Tile_UnaryOp<"exp", "TEXP", "e^src", Tile_FnExp>;
def Tile_LogOp : Tile_UnaryOp<"log", "TLOG", "ln(src)", Tile_FnLog>;
def Tile_SqrtOp : Tile_UnaryOp<"sqrt", "TSQRT", "sqrt(src)", Tile_FnSqrt>;
def Tile_RsqrtOp : Tile_UnaryOp<"rsqrt", "TRSQRT", "1 / sqrt(src)", Tile_FnRsqrt>;
def Tile_AbsOp : Tile_UnaryOp<"abs", "TABS", "|src|", Tile_FnAbs>;

// dst = src op scalar.
class Tile_ScalarOp<string mnemonic, string pto, string math, EnumCase fn,
                    string set = "kVecArith", string types = "i16, i32, f16 or f32">
    : Tile_VecOp<mnemonic, pto, "verifyScalar(*this, " # set # ")"> {
  let elementwiseOperands = 2;
  let laneKind = Tile_LaneScalar;
  let elementwiseKind = fn;
  let summary = "Element-wise " # math # " (" # pto # ")";
  let description = [{
    Over the valid extent of `dst`; the scalar has the tiles' element
    type (}] # types # [{).

    ```mlir
    tile.}] # mnemonic # [{ %d, %s, %x : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, f32
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src, AnyType:$scalar);
  let assemblyFormat = [{
    $dst `,` $src `,` $scalar attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` type($scalar)
  }];
}

def Tile_AddsOp : Tile_ScalarOp<"adds", "TADDS", "src + scalar", Tile_FnAdd>;
def Tile_SubsOp : Tile_ScalarOp<"subs", "TSUBS", "src - scalar", Tile_FnSub>;
def Tile_MulsOp : Tile_ScalarOp<"muls", "TMULS", "src * scalar", Tile_FnMul>;
def Tile_DivsOp : Tile_ScalarOp<"divs", "TDIVS", "src / scalar", Tile_FnDiv,
                                "kVecFloat", "f16 or f32">;
def Tile_MaxsOp : Tile_ScalarOp<"maxs", "TMAXS", "max(src, scalar)", Tile_FnMax>;
def Tile_MinsOp : Tile_ScalarOp<"mins", "TMINS", "min(src, scalar)", Tile_FnMin>;

def Tile_ExpandsOp : Tile_InstrOp<"expands", "TEXPANDS"> {
  let elementwiseOperands = 1;
  let summary = "Fill a tile with a scalar (" # instruction # ")";
  let description = [{
    Every element of the valid extent of a `vec` tile (on V), or the whole
    static extent of a `mat` tile (on MTE2), becomes `scalar`.

    ```mlir
    tile.expands %m, %neg_inf : !tile.tile<vec, 16x1xf32, col_major>, f32
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, AnyType:$scalar);
  let assemblyFormat = [{
    $dst `,` $scalar attr-dict `:` qualified(type($dst)) `,` type($scalar)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and broadcasts
//===----------------------------------------------------------------------===//

// dst[r, 0] = reduce over c of src[r, c].
class Tile_RowReduceOp<string mnemonic, string pto, string what, EnumCase fn>
    : Tile_VecOp<mnemonic, pto, "verifyRowReduce(*this)"> {
  let laneKind = Tile_LaneRowReduce;
  let elementwiseKind = fn;
  let summary = "Per-row " # what # " (" # pto # ")";
  let description = [{
    `dst[r, 0]` is the }] # what # [{ of row r of `src` over its valid
    columns. `dst` is a `col_major` [rows x 1] tile (pto-isa's row
    statistics); `tmp` is scratch with `src`'s type.

    ```mlir
    tile.}] # mnemonic # [{ %m, %s, %tmp : !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src, Tile_Tmp<>:$tmp);
  let assemblyFormat = [{
    $dst `,` $src `,` $tmp attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($tmp))
  }];
}

def Tile_RowMaxOp : Tile_RowReduceOp<"rowmax", "TROWMAX", "maximum", Tile_FnMax>;
def Tile_RowSumOp : Tile_RowReduceOp<"rowsum", "TROWSUM", "sum", Tile_FnAdd>;
def Tile_RowMinOp : Tile_RowReduceOp<"rowmin", "TROWMIN", "minimum", Tile_FnMin>;

// dst[0, c] = reduce over r of src[r, c].
class Tile_ColReduceOp<string mnemonic, string pto, string what, EnumCase fn>
    : Tile_VecOp<mnemonic, pto, "verifyColReduce(*this)"> {
  let laneKind = Tile_LaneColReduce;
  let elementwiseKind = fn;
  let summary = "Per-column " # what # " (" # pto # ")";
  let description = [{
    `dst[0, c]` is the }] # what # [{ of column c of `src` over its valid
    rows; `dst` is a row-major [1 x cols] tile.

    ```mlir
    tile.}] # mnemonic # [{ %m, %s : !tile.tile<vec, 1x128xf32>, !tile.tile<vec, 16x128xf32>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
}

def Tile_ColMaxOp : Tile_ColReduceOp<"colmax", "TCOLMAX", "maximum", Tile_FnMax>;
def Tile_ColSumOp : Tile_ColReduceOp<"colsum", "TCOLSUM", "sum", Tile_FnAdd>;
def Tile_ColMinOp : Tile_ColReduceOp<"colmin", "TCOLMIN", "minimum", Tile_FnMin>;

def Tile_RowExpandOp : Tile_VecOp<"rowexpand", "TROWEXPAND",
                                  "verifyExpand(*this, /*row=*/true)"> {
  let summary = "Broadcast a column across each row (" # instruction # ")";
  let description = [{
    `dst[r, c] = src[r, 0]` for a `col_major` [rows x 1] `src`.

    ```mlir
    tile.rowexpand %d, %m : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
}

def Tile_ColExpandOp : Tile_VecOp<"colexpand", "TCOLEXPAND",
                                  "verifyExpand(*this, /*row=*/false)"> {
  let summary = "Broadcast a row down each column (" # instruction # ")";
  let description = [{
    `dst[r, c] = src[0, c]` for a row-major [1 x cols] `src`.

    ```mlir
    tile.colexpand %d, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
}

// dst[r, c] = src[r, c] op bcast[r, 0], through tmp.
class Tile_RowExpandBinaryOp<string mnemonic, string pto, string dtypes,
                             string math, EnumCase fn>
    : Tile_VecOp<mnemonic, pto, "verifyRowExpandBinary(*this, " # dtypes # ")"> {
  let elementwiseOperands = 2;
  let laneKind = Tile_LaneRowBroadcast;
  let elementwiseKind = fn;
  let summary = "Row-wise " # math # " with one scalar per row (" # pto # ")";
  let description = [{
    `dst[r, c] = src[r, c] op row[r, 0]` with `row` a `col_major`
    [rows x 1] tile (pto-isa's four-operand form: `tmp` is the broadcast
    scratch, at least ceil(rows / 8) * 256 bytes).

    ```mlir
    tile.}] # mnemonic # [{ %d, %s, %m, %tmp : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x1xf32, col_major>, !tile.tile<vec, 16x128xf32>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src, Tile_Src<>:$row,
                       Tile_Tmp<>:$tmp);
  let assemblyFormat = [{
    $dst `,` $src `,` $row `,` $tmp attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($row)) `,` qualified(type($tmp))
  }];
}

def Tile_RowExpandAddOp : Tile_RowExpandBinaryOp<"rowexpandadd", "TROWEXPANDADD", "kVecArith", "src[r, c] + x", Tile_FnAdd>;
def Tile_RowExpandSubOp : Tile_RowExpandBinaryOp<"rowexpandsub", "TROWEXPANDSUB", "kVecArith", "src[r, c] - x", Tile_FnSub>;
def Tile_RowExpandMulOp : Tile_RowExpandBinaryOp<"rowexpandmul", "TROWEXPANDMUL", "kVecArith", "src[r, c] * x", Tile_FnMul>;
def Tile_RowExpandDivOp : Tile_RowExpandBinaryOp<"rowexpanddiv", "TROWEXPANDDIV", "kVecFloat", "src[r, c] / x", Tile_FnDiv>;
def Tile_RowExpandMaxOp : Tile_RowExpandBinaryOp<"rowexpandmax", "TROWEXPANDMAX", "kVecArith", "max(src[r, c], x)", Tile_FnMax>;
def Tile_RowExpandMinOp : Tile_RowExpandBinaryOp<"rowexpandmin", "TROWEXPANDMIN", "kVecArith", "min(src[r, c], x)", Tile_FnMin>;

// dst[r, c] = src[r, c] op bcast[0, c].
class Tile_ColExpandBinaryOp<string mnemonic, string pto, string dtypes,
                             string math, EnumCase fn>
    : Tile_VecOp<mnemonic, pto, "verifyColExpandBinary(*this, " # dtypes # ")"> {
  let elementwiseOperands = 2;
  let laneKind = Tile_LaneColBroadcast;
  let elementwiseKind = fn;
  let summary = "Column-wise " # math # " with one scalar per column (" # pto #
                ")";
  let description = [{
    `dst[r, c] = src[r, c] op col[0, c]` with `col` a row-major
    [1 x cols] tile.

    ```mlir
    tile.}] # mnemonic # [{ %d, %s, %v : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x128xf32>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<>:$src, Tile_Src<>:$col);
  let assemblyFormat = [{
    $dst `,` $src `,` $col attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($col))
  }];
}

def Tile_ColExpandAddOp : Tile_ColExpandBinaryOp<"colexpandadd", "TCOLEXPANDADD", "kVecArith", "src[r, c] + x", Tile_FnAdd>;
def Tile_ColExpandSubOp : Tile_ColExpandBinaryOp<"colexpandsub", "TCOLEXPANDSUB", "kVecArith", "src[r, c] - x", Tile_FnSub>;
def Tile_ColExpandMulOp : Tile_ColExpandBinaryOp<"colexpandmul", "TCOLEXPANDMUL", "kVecArith", "src[r, c] * x", Tile_FnMul>;
def Tile_ColExpandDivOp : Tile_ColExpandBinaryOp<"colexpanddiv", "TCOLEXPANDDIV", "kVecFloat", "src[r, c] / x", Tile_FnDiv>;
def Tile_ColExpandMaxOp : Tile_ColExpandBinaryOp<"colexpandmax", "TCOLEXPANDMAX", "kVecArith", "max(src[r, c], x)", Tile_FnMax>;
def Tile_ColExpandMinOp : Tile_ColExpandBinaryOp<"colexpandmin", "TCOLEXPANDMIN", "kVecArith", "min(src[r, c], x)", Tile_FnMin>;

//===----------------------------------------------------------------------===//
// Masks, indices, selection
//===----------------------------------------------------------------------===//

def Tile_CiOp : Tile_VecOp<"ci", "TCI", "verifyCi(*this)"> {
  let summary = "An index sequence from a start value (" # instruction # ")";
  let description = [{
    Fills the valid extent of an i16 or i32 row-major vec tile with
    consecutive integers from `start` (row-major order; `descending`
    counts down).

    ```mlir
    tile.ci %idx, %start : !tile.tile<vec, 1x128xi32>, i32
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, AnyInteger:$start,
                       UnitAttr:$descending);
  let assemblyFormat = [{
    $dst `,` $start (`descending` $descending^)? attr-dict
    `:` qualified(type($dst)) `,` type($start)
  }];
}

def Tile_TriOp : Tile_VecOp<"tri", "TTRI", "verifyTri(*this)"> {
  let summary = "A triangular 0/1 tile (" # instruction # ")";
  let description = [{
    Lower: `dst[r, c] = c <= r + diagonal ? 1 : 0`; `upper`:
    `dst[r, c] = c < r + diagonal ? 0 : 1`.

    ```mlir
    tile.tri %t, %d : !tile.tile<vec, 16x128xf32>, i32
    tile.tri %t, %d upper : !tile.tile<vec, 16x128xf32>, i32
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, I32:$diagonal, UnitAttr:$upper);
  let assemblyFormat = [{
    $dst `,` $diagonal (`upper` $upper^)? attr-dict `:` qualified(type($dst))
    `,` type($diagonal)
  }];
}

def Tile_CmpsOp : Tile_VecOp<"cmps", "TCMPS", "verifyCmps(*this)"> {
  let summary = "Compare with a scalar into a bit mask (" # instruction # ")";
  let description = [{
    Bit c of row r of `mask` is `src[r, c] <mode> scalar`. The mask is an
    i8 vec tile with at least cols / 8 columns; only `tile.sel` reads it.
    The whole row is compared: `src`'s valid columns must be its static
    columns (pto-isa packs masks by the tile's width).

    ```mlir
    tile.cmps %mask, %s, %x lt : !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x128xf32>, f32
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<"bit mask">:$mask, Tile_Src<>:$src,
                       AnyType:$scalar, Tile_CmpMode:$mode);
  let assemblyFormat = [{
    $mask `,` $src `,` $scalar $mode attr-dict `:` qualified(type($mask))
    `,` qualified(type($src)) `,` type($scalar)
  }];
}

def Tile_SelOp : Tile_VecOp<"sel", "TSEL", "verifySel(*this)"> {
  let summary = "Select by a bit mask (" # instruction # ")";
  let description = [{
    `dst[r, c] = bit(mask, r, c) ? lhs[r, c] : rhs[r, c]`, through `tmp`
    (a small u32 scratch tile). 16- or 32-bit elements.

    ```mlir
    tile.sel %d, %mask, %a, %b, %tmp : !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x32xi8>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 16x128xf32>, !tile.tile<vec, 1x16xi32>
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$dst, Tile_Src<"bit mask">:$mask,
                       Tile_Src<>:$lhs, Tile_Src<>:$rhs, Tile_Tmp<>:$tmp);
  let assemblyFormat = [{
    $dst `,` $mask `,` $lhs `,` $rhs `,` $tmp attr-dict `:`
    qualified(type($dst)) `,` qualified(type($mask)) `,` qualified(type($lhs))
    `,` qualified(type($rhs)) `,` qualified(type($tmp))
  }];
}

def Tile_GetValOp : Tile_PipeOp<"getval", "GetValue", "s", "vector"> {
  let summary = "Read one element of a vec tile on the scalar unit (" # instruction # ")";
  let description = [{
    ```mlir
    %x = tile.getval %m[%r, %c0] : !tile.tile<vec, 16x1xf32, col_major>, f32
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Src<>:$tile, Index:$row, Index:$col);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $tile `[` $row `,` $col `]` attr-dict `:` qualified(type($tile)) `,`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tile_SetValOp : Tile_PipeOp<"setval", "SetValue", "s", "vector"> {
  let summary = "Write one element of a vec tile on the scalar unit (" # instruction # ")";
  let description = [{
    ```mlir
    tile.setval %m[%r, %c0], %x : !tile.tile<vec, 16x1xf32, col_major>, f32
    ```
  }] # instructionFacts;
  let arguments = (ins Tile_Dst<>:$tile, Index:$row, Index:$col,
                       AnyType:$value);
  let assemblyFormat = [{
    $tile `[` $row `,` $col `]` `,` $value attr-dict `:`
    qualified(type($tile)) `,` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Synchronization
//===----------------------------------------------------------------------===//

def Tile_SetFlagOp : Tile_Op<"set_flag"> {
  let summary = "Signal from one pipe to another (set_flag)";
  let description = [{
    When everything issued on `src` before it has finished, sets event
    flag `event` (+ `slot`, for multi-buffered tiles) from `src` to `dst`.
    Pipes of one core; events 0-7.

    ```mlir
    tile.set_flag mte2 -> v event(0)
    tile.set_flag mte2 -> v event(2 + %slot)
    ```
  }];
  let arguments = (ins Tile_Pipe:$src, Tile_Pipe:$dst,
                       Tile_EventAttr<Tile_NumFlagEvents>:$event,
                       Optional<Index>:$slot);
  let assemblyFormat = [{
    $src `->` $dst `event` `(` $event (`+` $slot^)? `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_WaitFlagOp : Tile_Op<"wait_flag"> {
  let summary = "Wait on a flag another pipe sets (wait_flag)";
  let description = [{
    `dst` waits until `src` set event flag `event` (+ `slot`), consuming
    it: what `dst` issues after the wait runs after what `src` had issued
    before the matching `tile.set_flag`.

    ```mlir
    tile.wait_flag mte2 -> v event(0)
    ```
  }];
  let arguments = (ins Tile_Pipe:$src, Tile_Pipe:$dst,
                       Tile_EventAttr<Tile_NumFlagEvents>:$event,
                       Optional<Index>:$slot);
  let assemblyFormat = [{
    $src `->` $dst `event` `(` $event (`+` $slot^)? `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "Wait until a pipe (or all) drained (pipe_barrier)";
  let description = [{
    ```mlir
    tile.barrier v
    tile.barrier all
    ```
  }];
  let arguments = (ins Tile_Pipe:$pipe);
  let assemblyFormat = "$pipe attr-dict";
}

def Tile_SyncSetOp : Tile_Op<"sync_set"> {
  let summary = "Signal the block's other core (cross-core flag set)";
  let description = [{
    When everything `unit` issued on `pipe` before it has finished, sets
    cross-core flag `event` (0-15) for the other core of the block (the
    cube signals its two vector cores, a vector core the cube):
    `ffts_cross_core_sync` on A2/A3. With a GM workspace between them this
    is how the cube and the vector cores exchange data.

    ```mlir
    tile.sync_set cube fix event(0)
    ```
  }];
  let arguments = (ins Tile_Unit:$unit, Tile_Pipe:$pipe,
                       Tile_EventAttr<Tile_NumCrossCoreEvents>:$event);
  let assemblyFormat = "$unit $pipe `event` `(` $event `)` attr-dict";
  let hasVerifier = 1;
}

def Tile_SyncWaitOp : Tile_Op<"sync_wait"> {
  let summary = "Wait on the other core's flag (cross-core flag wait)";
  let description = [{
    `unit` waits until the other core set cross-core flag `event`
    (`wait_flag_dev` on A2/A3).

    ```mlir
    tile.sync_wait vector event(0)
    ```
  }];
  let arguments = (ins Tile_Unit:$unit,
                       Tile_EventAttr<Tile_NumCrossCoreEvents>:$event);
  let assemblyFormat = "$unit `event` `(` $event `)` attr-dict";
}

def Tile_BlockIdxOp : Tile_Op<"block_idx", [Pure]> {
  let summary = "This core's (block's) index in the launch (get_block_idx)";
  let description = [{
    Which of the launch's cores (blocks, in a cube-and-vector launch) runs
    the kernel: a kernel indexes its per-core global workspace by it.

    ```mlir
    %core = tile.block_idx : index
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_SubblockIdOp : Tile_Op<"subblock_id", [Pure]> {
  let summary = "This vector core's index within its block (get_subblockid)";
  let description = [{
    0 or 1 on the two vector cores of an A2/A3 block; 0 where the block
    runs its vector work on one core (the CPU simulation). Vector work is
    split by it, `tile.subblock_num` ways.

    ```mlir
    %sb = tile.subblock_id : index
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_SubblockNumOp : Tile_Op<"subblock_num", [Pure]> {
  let summary = "Vector cores sharing a block's vector work (get_subblockdim)";
  let description = [{
    ```mlir
    %n = tile.subblock_num : index
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

#endif // WSP_DIALECT_TILE_IR_TILEOPS_TD
