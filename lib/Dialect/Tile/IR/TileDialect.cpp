//===- TileDialect.cpp - tile dialect -------------------------------------===//

#include "wsp/Dialect/Tile/IR/TileDialect.h"
#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Tile/IR/TileTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::wsp::tile;

#include "wsp/Dialect/Tile/IR/TileDialect.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "wsp/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  registerTypes();
}
