//===- TileDialect.cpp - tile dialect -------------------------------------===//

#include "wsp/Dialect/Tile/IR/TileDialect.h"
#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Tile/IR/TileTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include <pto/runtime/hardware.hpp>

using namespace mlir;
using namespace mlir::wsp::tile;

#include "wsp/Dialect/Tile/IR/TileDialect.cpp.inc"

static_assert(TileDialect::kNumCrossCoreEvents ==
                  ::pto::runtime::kCrossCoreFlags,
              "tile.sync_set/tile.sync_wait's flag ids are the hardware's");
static_assert(TileDialect::kNumFlagEvents ==
                  ::pto::runtime::kFlagEventsPerPipePair,
              "tile.set_flag/tile.wait_flag's event ids are the hardware's");
static_assert(static_cast<int>(Pipe::all) == ::pto::runtime::kNumPipes,
              "the Pipe enum is the hardware's pipes, then `all`");

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "wsp/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  registerTypes();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == kStagesAttrName ||
      attr.getName() == kMinStagesAttrName) {
    const bool min = attr.getName() == kMinStagesAttrName;
    if (!isa<scf::ForOp>(op))
      return op->emitError("'")
             << attr.getName().getValue()
             << "' belongs on an scf.for (the loop to pipeline)";
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    const int64_t lo = min ? 1 : 2;
    if (!n || !n.getType().isInteger(64) || n.getInt() < lo ||
        n.getInt() > kMaxBuffers)
      return op->emitError("'")
             << attr.getName().getValue() << "' must be an i64 from " << lo
             << " to " << kMaxBuffers << " ("
             << (min ? "the fewest stages the loop takes"
                     : "the iterations in flight")
             << "), got " << attr.getValue();
    if (min) {
      auto stages = op->getAttrOfType<IntegerAttr>(kStagesAttrName);
      if (!stages)
        return op->emitError("'") << kMinStagesAttrName << "' needs '"
                                  << kStagesAttrName << "' beside it";
      if (n.getInt() > stages.getInt())
        return op->emitError("'") << kMinStagesAttrName << "' (" << n.getInt()
                                  << ") is more than '" << kStagesAttrName
                                  << "' (" << stages.getInt() << ")";
    }
    return success();
  }
  if (attr.getName() != kFuseAttrName)
    return op->emitError("unknown tile dialect attribute '")
           << attr.getName().getValue() << "'";
  auto size = dyn_cast<IntegerAttr>(attr.getValue());
  if (!size || !size.getType().isInteger(64) || size.getInt() < 2)
    return op->emitError("'")
           << kFuseAttrName
           << "' must be an i64 of at least 2 (the ops of the fused run it "
              "starts), got "
           << attr.getValue();
  return success();
}
