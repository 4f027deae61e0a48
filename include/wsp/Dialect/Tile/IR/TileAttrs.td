//===- TileAttrs.td - tile enums -------------------------*- tablegen -*-===//

#ifndef WSP_DIALECT_TILE_IR_TILEATTRS_TD
#define WSP_DIALECT_TILE_IR_TILEATTRS_TD

include "wsp/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/EnumAttr.td"

def Tile_Loc : I32EnumAttr<"TileLoc",
    "where a tile lives (pto-isa's TileType)", [
    I32EnumAttrCase<"vec", 0>, I32EnumAttrCase<"mat", 1>,
    I32EnumAttrCase<"left", 2>, I32EnumAttrCase<"right", 3>,
    I32EnumAttrCase<"acc", 4>]> {
  let cppNamespace = "::mlir::wsp::tile";
}

def Tile_Layout : I32EnumAttr<"TileLayout",
    "the storage layout of a tile: ND/DN for vector tiles, the cube's "
    "fractal layouts (16-row boxes) for L1/L0 tiles", [
    I32EnumAttrCase<"row_major", 0>, I32EnumAttrCase<"col_major", 1>,
    I32EnumAttrCase<"nz", 2>, I32EnumAttrCase<"zn", 3>,
    I32EnumAttrCase<"zz", 4>]> {
  let cppNamespace = "::mlir::wsp::tile";
}

def Tile_Pipe : I32EnumAttr<"Pipe", "an AICore pipe", [
    I32EnumAttrCase<"s", 0>, I32EnumAttrCase<"v", 1>,
    I32EnumAttrCase<"m", 2>, I32EnumAttrCase<"mte1", 3>,
    I32EnumAttrCase<"mte2", 4>, I32EnumAttrCase<"mte3", 5>,
    I32EnumAttrCase<"fix", 6>, I32EnumAttrCase<"all", 7>]> {
  let cppNamespace = "::mlir::wsp::tile";
}

def Tile_Unit : I32EnumAttr<"Unit", "the core of a block an op runs on", [
    I32EnumAttrCase<"cube", 0>, I32EnumAttrCase<"vector", 1>]> {
  let cppNamespace = "::mlir::wsp::tile";
}

def Tile_CmpMode : I32EnumAttr<"CmpMode", "an element comparison", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::wsp::tile";
}

def Tile_RoundMode : I32EnumAttr<"RoundMode",
    "how a conversion rounds (pto-isa's RoundMode)", [
    I32EnumAttrCase<"rint", 0>, I32EnumAttrCase<"round", 1>,
    I32EnumAttrCase<"floor", 2>, I32EnumAttrCase<"ceil", 3>,
    I32EnumAttrCase<"trunc", 4>]> {
  let cppNamespace = "::mlir::wsp::tile";
}

#endif // WSP_DIALECT_TILE_IR_TILEATTRS_TD
