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

//===----------------------------------------------------------------------===//
// Instruction facts (Tile_PipeOpInterface): plain enums, no attributes
//===----------------------------------------------------------------------===//

// The operation an element-wise instruction computes on each element, and
// the one a reduction combines a row or column with: a fact of the spec's
// model (how each target spells it is the target's business).
def Tile_FnNone : I32EnumCase<"none", 0>;
def Tile_FnAdd : I32EnumCase<"add", 1>;
def Tile_FnSub : I32EnumCase<"sub", 2>;
def Tile_FnMul : I32EnumCase<"mul", 3>;
def Tile_FnDiv : I32EnumCase<"div", 4>;
def Tile_FnMax : I32EnumCase<"max", 5>;
def Tile_FnMin : I32EnumCase<"min", 6>;
def Tile_FnAbs : I32EnumCase<"abs", 7>;
def Tile_FnExp : I32EnumCase<"exp", 8>;
def Tile_FnLog : I32EnumCase<"log", 9>;
def Tile_FnSqrt : I32EnumCase<"sqrt", 10>;
def Tile_FnRsqrt : I32EnumCase<"rsqrt", 11>;

def Tile_ElementwiseKind : I32Enum<"ElementwiseKind",
    "what an element-wise instruction or a reduction computes", [
    Tile_FnNone, Tile_FnAdd, Tile_FnSub, Tile_FnMul, Tile_FnDiv, Tile_FnMax,
    Tile_FnMin, Tile_FnAbs, Tile_FnExp, Tile_FnLog, Tile_FnSqrt,
    Tile_FnRsqrt]> {
  let cppNamespace = "::mlir::wsp::tile";
}

// The element-wise form of an instruction: which of its operands go along
// element by element, and what else each element reads. The operand order
// of each form is part of it (the ops declaring it have those operands;
// the dialect's description lists them).
def Tile_LaneNone : I32EnumCase<"none", 0>;
def Tile_LaneSync : I32EnumCase<"sync", 1>;
def Tile_LaneConvert : I32EnumCase<"convert", 2>;
def Tile_LaneBinary : I32EnumCase<"binary", 3>;
def Tile_LaneUnary : I32EnumCase<"unary", 4>;
def Tile_LaneScalar : I32EnumCase<"scalar", 5>;
def Tile_LaneRowBroadcast : I32EnumCase<"row_broadcast", 6>;
def Tile_LaneColBroadcast : I32EnumCase<"col_broadcast", 7>;
def Tile_LaneLoad : I32EnumCase<"load", 8>;
def Tile_LaneLoadColumn : I32EnumCase<"load_column", 9>;
def Tile_LaneStore : I32EnumCase<"store", 10>;
def Tile_LaneRowReduce : I32EnumCase<"row_reduce", 11>;
def Tile_LaneColReduce : I32EnumCase<"col_reduce", 12>;

def Tile_LaneKind : I32Enum<"LaneKind",
    "the element-wise form of an instruction", [
    Tile_LaneNone, Tile_LaneSync, Tile_LaneConvert, Tile_LaneBinary,
    Tile_LaneUnary, Tile_LaneScalar, Tile_LaneRowBroadcast,
    Tile_LaneColBroadcast, Tile_LaneLoad, Tile_LaneLoadColumn, Tile_LaneStore,
    Tile_LaneRowReduce, Tile_LaneColReduce]> {
  let cppNamespace = "::mlir::wsp::tile";
}

#endif // WSP_DIALECT_TILE_IR_TILEATTRS_TD
