//===- TileTypes.h - tile types and enums -----------------------*- C++ -*-===//

#ifndef WSP_DIALECT_TILE_IR_TILETYPES_H
#define WSP_DIALECT_TILE_IR_TILETYPES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Types.h"

#include "wsp/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "wsp/Dialect/Tile/IR/TileTypes.h.inc"

#include <pto/runtime/hardware.hpp>

#include <optional>

namespace mlir::wsp::tile {
/// The on-chip buffer a location lives in (the runtime's hardware table).
::pto::runtime::Buffer getBuffer(TileLoc loc);
/// The core that owns a location's buffer.
Unit getUnit(TileLoc loc);
/// The core that owns a pipe, if only one has it (m, mte1, fix: the cube;
/// v, mte3: the vector core).
std::optional<Unit> getPipeUnit(Pipe p);
/// The core a flag between two pipes of one core belongs to: the owner of
/// either pipe, else the vector core.
Unit getFlagUnit(Pipe a, Pipe b);
} // namespace mlir::wsp::tile

#endif // WSP_DIALECT_TILE_IR_TILETYPES_H
