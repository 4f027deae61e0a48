//===- TileDialect.h - tile dialect -----------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_TILE_IR_TILEDIALECT_H
#define WSP_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "wsp/Dialect/Tile/IR/TileDialect.h.inc"

#endif // WSP_DIALECT_TILE_IR_TILEDIALECT_H
