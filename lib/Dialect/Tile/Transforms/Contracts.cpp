//===- Contracts.cpp - the tile stage's output contract -------------------===//

#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

namespace mlir::wsp::tile {
#define GEN_PASS_DEF_TILECHECKPLANNED
#include "wsp/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::wsp::tile

using namespace mlir;
using namespace mlir::wsp::tile;

namespace {
struct CheckPlannedPass
    : public mlir::wsp::tile::impl::TileCheckPlannedBase<CheckPlannedPass> {
  void runOnOperation() override {
    // A stage's output verifies (see wsp-check-planned).
    if (failed(verify(getOperation())))
      return signalPassFailure();
    bool ok = true;
    getOperation()->walk([&](Operation *op) {
      // Tile arguments of a kernel are placed by their caller; their extent
      // must be static all the same.
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (auto t = dyn_cast<TileType>(arg.getType());
                t && !t.hasStaticShape()) {
              op->emitOpError() << "has an argument of type " << t
                                << " with a dynamic static extent after tier "
                                   "specialization";
              ok = false;
            }
      for (Value v : op->getResults())
        if (auto t = dyn_cast<TileType>(v.getType()); t && !t.hasStaticShape()) {
          op->emitOpError() << "yields " << t
                            << " with a dynamic static extent after tier "
                               "specialization";
          ok = false;
        }
      if (auto alloc = dyn_cast<AllocOp>(op); alloc && !alloc.getOffsetAttr()) {
        alloc.emitOpError("is not placed in its buffer (run tile-plan-memory)");
        ok = false;
      } else if (alloc && alloc.getType().hasStaticShape()) {
        ::pto::runtime::Buffer b = getBuffer(alloc.getType().getLoc());
        int64_t end = alloc.getOffsetAttr().getInt() +
                      alloc.getNumBuffers() * alloc.getType().getSizeInBytes();
        if (end > ::pto::runtime::buffer_bytes(b)) {
          alloc.emitOpError() << "ends at byte " << end << " of "
                              << ::pto::runtime::buffer_name(b)
                              << ", past its " << ::pto::runtime::buffer_bytes(b)
                              << " bytes";
          ok = false;
        }
      }
    });
    if (!ok)
      signalPassFailure();
    // A check: what earlier passes proved (tile-insert-sync's SyncProofs)
    // still holds.
    markAllAnalysesPreserved();
  }
};
} // namespace
