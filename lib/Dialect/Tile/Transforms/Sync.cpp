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

/// The functions and kernels that hold tile instructions: `root` itself, or
/// those inside it (the passes run on a module or nested on each function).
SmallVector<FunctionOpInterface> tileFunctions(Operation *root) {
  SmallVector<FunctionOpInterface> fns;
  root->walk([&](FunctionOpInterface fn) {
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
    // What tile-check-sync need not solve again (SyncProofs): kept past
    // this pass, which changes the IR it describes.
    SyncProofs &proofs = getAnalysis<SyncProofs>();
    proofs.proven.clear();
    for (FunctionOpInterface fn : tileFunctions(getOperation())) {
      FailureOr<SyncResult> result = solveSync(fn, /*insert=*/true, prune);
      if (failed(result))
        return signalPassFailure();
      if (result->proven)
        proofs.proven.insert(fn);
    }
    markAnalysesPreserved<SyncProofs>();
  }
};

struct CheckSyncPass
    : public mlir::wsp::tile::impl::TileCheckSyncBase<CheckSyncPass> {
  using TileCheckSyncBase::TileCheckSyncBase;
  void runOnOperation() override {
    // A function tile-insert-sync proved, unchanged since, holds what this
    // check establishes (all but the redundancy search): not solved again.
    std::optional<std::reference_wrapper<SyncProofs>> proofs;
    if (!redundant)
      proofs = getCachedAnalysis<SyncProofs>();
    bool ok = true;
    for (FunctionOpInterface fn : tileFunctions(getOperation())) {
      const bool proven = proofs && proofs->get().proven.contains(fn);
      if (report)
        fn->emitRemark(proven ? "ordered: proved by tile-insert-sync, not "
                                "solved again"
                              : "solved");
      if (!proven)
        ok &= succeeded(solveSync(fn, /*insert=*/false, redundant));
    }
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
