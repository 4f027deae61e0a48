//===- Contracts.cpp - stage contracts of the wsp pipeline ----------------===//
//
// Each pipeline stage ends with a check that its output is the promised form
// (torch-mlir's backend contracts): a violation is an error at the op, and
// the pipeline fails.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPCHECKPLANNED
#define GEN_PASS_DEF_WSPCHECKSPECIALIZED
#define GEN_PASS_DEF_WSPSETTARGET
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {
struct CheckPlannedPass
    : public wsp::impl::WspCheckPlannedBase<CheckPlannedPass> {
  void runOnOperation() override {
    // A stage's output verifies: the drivers that run the pipeline
    // verify at the stage contracts, not after every pass.
    if (failed(verify(getOperation())))
      return signalPassFailure();
    WalkResult result = getOperation().walk([&](Operation *op) {
      if (isa<PlanChunkSizeOp, GenerateOp, UpdatePlanOp, SelectTierOp, SpaceOp,
              SetDimOp, GetDimOp, TotalWorkOp, IndexToCoordsOp, MaskValueOp,
              MaskRangeOp, GenMaskOp>(op)) {
        op->emitOpError("is unplanned after planning (run wsp-plan)");
        return WalkResult::interrupt();
      }
      if (isa<RequireOp, AllInRangeOp, PagesInRangeOp>(op)) {
        op->emitOpError("is unchecked after planning (run "
                        "wsp-lower-preconditions)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

struct CheckSpecializedPass
    : public wsp::impl::WspCheckSpecializedBase<CheckSpecializedPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verify(module)))
      return signalPassFailure();
    SymbolTableCollection symbols; // (a lookup per dispatch: cached)
    bool failed_ = false;
    module.walk([&](Operation *op) {
      if (auto kernel = dyn_cast<KernelOp>(op)) {
        if (!kernel.isSpecialized()) {
          kernel.emitOpError("is tier-generic after tier specialization (run "
                             "wsp-specialize-tiers)");
          failed_ = true;
        }
      } else if (isa<TierIdOp, TierConstantOp>(op)) {
        op->emitOpError("was not substituted by tier specialization");
        failed_ = true;
      } else if (auto dispatch = dyn_cast<DispatchOp>(op)) {
        Operation *target =
            symbols.lookupNearestSymbolFrom(op, dispatch.getKernelAttr());
        auto kernel = dyn_cast_if_present<KernelOp>(target);
        if (kernel && !kernel.isSpecialized()) {
          dispatch.emitOpError()
              << "runs tier-generic kernel @" << kernel.getSymName()
              << " instead of a wsp.kernel_table";
          failed_ = true;
        }
      }
    });
    if (failed_)
      signalPassFailure();
  }
};

struct SetTargetPass : public wsp::impl::WspSetTargetBase<SetTargetPass> {
  using WspSetTargetBase::WspSetTargetBase;
  void runOnOperation() override {
    if (target != "ascend" && target != "cpusim") {
      // At the module's location, not the module (whose diagnostic would
      // print the whole program after the one line that matters).
      mlir::emitError(getOperation().getLoc())
          << "unknown wsp target '" << target << "'; expected ascend or cpusim";
      return signalPassFailure();
    }
    getOperation()->setAttr("wsp.target",
                            StringAttr::get(&getContext(), target));
  }
};
} // namespace
