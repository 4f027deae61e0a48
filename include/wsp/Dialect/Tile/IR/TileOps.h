//===- TileOps.h - tile operations ------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_TILE_IR_TILEOPS_H
#define WSP_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "wsp/Dialect/Tile/IR/TileDialect.h"
#include "wsp/Dialect/Tile/IR/TileTypes.h"

#include "wsp/Dialect/Tile/IR/TileInterfaces.h.inc"

#define GET_OP_CLASSES
#include "wsp/Dialect/Tile/IR/TileOps.h.inc"

#endif // WSP_DIALECT_TILE_IR_TILEOPS_H
