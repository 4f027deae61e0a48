//===- TileTypes.td - tile types -------------------------*- tablegen -*-===//

#ifndef WSP_DIALECT_TILE_IR_TILETYPES_TD
#define WSP_DIALECT_TILE_IR_TILETYPES_TD

include "wsp/Dialect/Tile/IR/TileDialect.td"
include "wsp/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_TileType : TypeDef<Tile_Dialect, "Tile"> {
  let mnemonic = "tile";
  let summary = "A rows x cols tile of one element type in one on-chip buffer";
  let description = [{
    pto-isa's `Tile<TileType, T, Rows, Cols, ...>`: where the tile lives,
    its static extent (storage) and element type, its valid extent (the
    part instructions read and write; `?` is a run-time value given at
    `tile.alloc`) and its layout.

    ```mlir
    !tile.tile<vec, 16x128xf32>                   // fully valid, row-major
    !tile.tile<vec, 16x1xf32, col_major>          // row statistics
    !tile.tile<mat, 128x128xbf16, valid = 128x?, zn>
    !tile.tile<mat, ?x128xbf16, valid = ?x128>    // rows set per tier
    ```

    The static extent may be `?` only in a tier-generic kernel, before tier
    specialization makes it a constant; emitters require static extents.
    Omitted, the valid extent is the static one; with a `?` in the static
    extent it is always spelled out, since each `?` of it is an operand of
    its own.
    The layout defaults to the one pto-isa requires on A2/A3 for the
    location: `row_major` (ND) for `vec`, `nz` for `mat` and `acc`, `zz`
    for `left`, `zn` for `right`. A `vec` tile may be `col_major` (DN), a
    `mat` tile `zn` (what a transposed load produces). Storage rules
    checked here: a row-major row, a column-major column and every fractal
    box is a whole number of 32-byte blocks; `acc` holds f32 or i32; the
    cube's operands are i8, f16, bf16 or f32; the valid extent lies inside
    the static extent.
  }];
  let parameters = (ins
    EnumParameter<Tile_Loc>:$loc,
    ArrayRefParameter<"int64_t">:$shape,
    "::mlir::Type":$elementType,
    ArrayRefParameter<"int64_t">:$validShape,
    EnumParameter<Tile_Layout>:$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "TileLoc":$loc,
        "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), loc, shape, elementType, shape,
                   getDefaultLayout(loc));
    }]>
  ];
  let extraClassDeclaration = [{
    static constexpr int64_t kDynamic = ::mlir::ShapedType::kDynamic;
    /// pto-isa's layout for a location on A2/A3.
    static TileLayout getDefaultLayout(TileLoc loc);
    int64_t getRows() const { return getShape()[0]; }
    int64_t getCols() const { return getShape()[1]; }
    bool hasStaticShape() const {
      return !::mlir::ShapedType::isDynamicShape(getShape());
    }
    unsigned getNumDynamicDims() const;
    unsigned getNumDynamicValidDims() const;
    /// Where dynamic valid dim `d` is among the `?` valid dims: the index
    /// of its operand in the `valid` operands of the op that makes the
    /// tile (tile.alloc, tile.subview).
    unsigned getDynamicValidIndex(unsigned d) const;
    /// Bytes of one element.
    int64_t getElementBytes() const;
    /// Bytes of the static extent (requires a static shape).
    int64_t getSizeInBytes() const;
    /// The same tile with another valid extent / shape.
    TileType withValidShape(::llvm::ArrayRef<int64_t> valid) const;
    TileType withShape(::llvm::ArrayRef<int64_t> shape,
                       ::llvm::ArrayRef<int64_t> valid) const;
    /// The storage unit as (rows, cols): a 16-row fractal box of 32 bytes
    /// per row or column for the cube's layouts (16x16 for acc), 1x1 for
    /// the plain row- and column-major ones.
    std::pair<int64_t, int64_t> getFractalBox() const;
  }];
}

#endif // WSP_DIALECT_TILE_IR_TILETYPES_TD
