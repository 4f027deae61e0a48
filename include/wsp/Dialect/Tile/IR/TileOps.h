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

namespace mlir::wsp::tile {
/// The run-time valid extent of dim `d` of `tile` where its type leaves it
/// dynamic: the `valid` operand of the `tile.alloc` or `tile.subview` that
/// made it. Null for a static extent or any other definition.
Value getDynamicValidExtent(Value tile, unsigned d);
} // namespace mlir::wsp::tile

#endif // WSP_DIALECT_TILE_IR_TILEOPS_H
