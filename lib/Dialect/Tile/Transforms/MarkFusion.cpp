//===- MarkFusion.cpp - mark the runs the CPU simulation fuses ------------===//

#include "SyncAnalysis.h"

#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Tile/Transforms/Fusion.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::wsp::tile {
#define GEN_PASS_DEF_TILEMARKFUSION
#include "wsp/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::wsp::tile

using namespace mlir;
using namespace mlir::wsp::tile;

namespace {

struct MarkFusionPass
    : public mlir::wsp::tile::impl::TileMarkFusionBase<MarkFusionPass> {
  using TileMarkFusionBase::TileMarkFusionBase;

  /// Marks `run` (trailing synchronization ops dropped) when it holds two
  /// instructions or more, one of them on tiles of the group's shape (not
  /// only loads of a column), and empties it.
  static void close(SmallVectorImpl<LaneOp> &run) {
    while (!run.empty() && run.back().kind == LaneKind::sync)
      run.pop_back();
    if (llvm::count_if(
            run, [](const LaneOp &l) { return l.kind != LaneKind::sync; }) >=
            2 &&
        llvm::any_of(run, [](const LaneOp &l) {
          return l.kind != LaneKind::sync && l.kind != LaneKind::load_column;
        })) {
      Operation *first = run.front().op;
      first->setAttr(
          kFuseAttrName,
          Builder(first->getContext()).getI64IntegerAttr(run.size()));
    }
    run.clear();
  }

  void runOnOperation() override {
    getOperation()->walk([](Operation *op) { op->removeAttr(kFuseAttrName); });
    getOperation()->walk([](Block *block) {
      SmallVector<LaneOp> run;
      for (Operation &op : *block) {
        std::optional<LaneOp> l = getLaneOp(&op);
        if (!l) {
          close(run);
          continue;
        }
        if (l->kind == LaneKind::sync) {
          if (!run.empty() && static_cast<int64_t>(run.size()) < kMaxFusedOps)
            run.push_back(*l);
          else
            close(run);
          continue;
        }
        if (static_cast<int64_t>(run.size()) == kMaxFusedOps ||
            !canJoin(run, *l)) {
          // Loads of columns at the run's end (and the flags among them)
          // are for what follows: they start the next run.
          size_t keep = run.size();
          while (keep > 0 && (run[keep - 1].kind == LaneKind::load_column ||
                              run[keep - 1].kind == LaneKind::sync))
            --keep;
          SmallVector<LaneOp> next(run.begin() + keep, run.end());
          run.truncate(keep);
          close(run);
          while (!next.empty() && next.front().kind == LaneKind::sync)
            next.erase(next.begin());
          run = std::move(next);
          if (!canJoin(run, *l)) {
            close(run);
            if (!canJoin(run, *l))
              continue;
          }
        }
        run.push_back(*l);
      }
      close(run);
    });
    // Marks change no instruction or flag: what tile-insert-sync proved
    // still holds for tile-check-sync.
    markAnalysesPreserved<SyncProofs>();
  }
};

} // namespace
