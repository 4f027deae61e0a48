//===- CseCanonicalize.cpp - CSE, then canonicalize what it changed -------===//
//
// The canonicalization after CSE only has CSE's merges to fold (a size
// checked against itself): the IR was canonical before. A greedy rewrite of
// the whole function would visit every op again (and in MLIR's driver a
// second time to confirm the fixpoint); this visits the ops CSE modified,
// found by a listener on its rewriter.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "Canonicalization.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/FoldUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPCSECANONICALIZE
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;

namespace {

/// The ops a rewrite modified in place (CSE: the users of a merged value),
/// in the order it met them, less those it erased.
struct ModifiedOps : public RewriterBase::Listener {
  llvm::SetVector<Operation *> ops;
  void notifyOperationModified(Operation *op) override { ops.insert(op); }
  void notifyOperationErased(Operation *op) override { ops.remove(op); }
};

/// The constants a rewrite created, in order, less those it erased.
struct NewConstants : public RewriterBase::Listener {
  llvm::SetVector<Operation *> ops;
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    if (!previous.isSet() && op->hasTrait<OpTrait::ConstantLike>())
      ops.insert(op);
  }
  void notifyOperationErased(Operation *op) override { ops.remove(op); }
};

struct CseCanonicalizePass
    : public wsp::impl::WspCseCanonicalizeBase<CseCanonicalizePass> {
  FrozenRewritePatternSet patterns;

  /// The patterns `canonicalize` uses: every loaded dialect's and every
  /// registered op's.
  LogicalResult initialize(MLIRContext *context) override {
    patterns = wsp::detail::canonicalizationPatterns(context);
    return success();
  }

  void runOnOperation() override {
    ModifiedOps modified;
    IRRewriter rewriter(&getContext(), &modified);
    bool changed = false;
    eliminateCommonSubExpressions(rewriter, getAnalysis<DominanceInfo>(),
                                  getOperation(), &changed);
    // The greedy driver over a whole region first takes every constant in
    // pre-order into its folder, which moves one that is not among the
    // constants at the front of its block there (specialize-tiers folds
    // tier constants where they were read), CSE or not: the same here.
    OperationFolder folder(&getContext());
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op->hasTrait<OpTrait::ConstantLike>())
        (void)folder.insertKnownConstant(op);
    });
    if (modified.ops.empty())
      return;
    // As the pipeline's canonicalizations after the first: structured
    // control flow, nothing for region simplification to find.
    NewConstants created;
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    config.setListener(&created);
    (void)applyOpPatternsGreedily(modified.ops.takeVector(), patterns, config);
    // The driver's own folder starts empty: a fold to a value the function
    // already has a constant for made a new one, where the whole-region
    // driver reuses the old one. Reuse it here too.
    for (Operation *constant : created.ops.takeVector())
      (void)folder.insertKnownConstant(constant);
  }
};

} // namespace
