//===- Sync.cpp - tile-insert-sync and tile-check-sync --------------------===//

#include "SyncAnalysis.h"

#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::wsp::tile {
#define GEN_PASS_DEF_TILEINSERTSYNC
#define GEN_PASS_DEF_TILECHECKSYNC
#include "wsp/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::wsp::tile

using namespace mlir;
using namespace mlir::wsp::tile;

namespace {

/// The functions and kernels that hold tile instructions.
SmallVector<FunctionOpInterface> tileFunctions(ModuleOp module) {
  SmallVector<FunctionOpInterface> fns;
  module.walk([&](FunctionOpInterface fn) {
    bool hasTiles = false;
    fn->walk([&](Operation *op) {
      hasTiles |= isa_and_present<TileDialect>(op->getDialect());
    });
    if (hasTiles)
      fns.push_back(fn);
  });
  return fns;
}

struct InsertSyncPass
    : public mlir::wsp::tile::impl::TileInsertSyncBase<InsertSyncPass> {
  using TileInsertSyncBase::TileInsertSyncBase;
  void runOnOperation() override {
    for (FunctionOpInterface fn : tileFunctions(getOperation()))
      if (failed(solveSync(fn, /*insert=*/true, prune)))
        return signalPassFailure();
  }
};

struct CheckSyncPass
    : public mlir::wsp::tile::impl::TileCheckSyncBase<CheckSyncPass> {
  using TileCheckSyncBase::TileCheckSyncBase;
  void runOnOperation() override {
    bool ok = true;
    for (FunctionOpInterface fn : tileFunctions(getOperation()))
      ok &= succeeded(solveSync(fn, /*insert=*/false, redundant));
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
