//===- CheckEmittable.cpp - the backend's contract ------------------------===//

#include "StepCapture.h"

#include "wsp/Target/Cpp/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPCHECKEMITTABLE
#include "wsp/Target/Cpp/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {
struct CheckEmittablePass
    : public wsp::impl::WspCheckEmittableBase<CheckEmittablePass> {
  using WspCheckEmittableBase::WspCheckEmittableBase;

  /// A stage's output verifies (see wsp-check-planned): all of it, or
  /// (verify-nested=false) the module and what a nested contract did not
  /// run on.
  LogicalResult verifyOutput() {
    ModuleOp module = getOperation();
    if (verifyNested)
      return verify(module);
    if (failed(verify(module, /*verifyRecursively=*/false)))
      return failure();
    for (Operation &op : *module.getBody())
      if (!op.hasTrait<OpTrait::IsIsolatedFromAbove>() && failed(verify(&op)))
        return failure();
    return success();
  }

  void runOnOperation() override {
    if (failed(verifyOutput()))
      return signalPassFailure();
    bool ok = true;
    SymbolTableCollection symbols;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Steps: the table the emitters print of what the step captures
      // (named at the step, or at the call or use in its function).
      if (auto step = dyn_cast<StepOp>(op))
        if (failed(cpp::getStepCapture(step, symbols, /*diagnose=*/true)))
          ok = false;
      // Functions: a C++ function returns one value, and has a body.
      if (auto f = dyn_cast<func::FuncOp>(op)) {
        if (f.isExternal() || f.getNumResults() > 1) {
          f.emitOpError() << (f.isExternal()
                                  ? "is a declaration; the emitters print "
                                    "definitions"
                                  : "returns more than one value, which the "
                                    "emitters do not print");
          ok = false;
          return WalkResult::skip();
        }
      }
      if (isEmittable(op))
        return WalkResult::advance();
      Operation *parent = op->getParentOp();
      op->emitOpError() << "cannot be emitted as C++: no emitter prints it"
                        << (parent && isa<ModuleOp>(parent) ? " at module level"
                                                            : "");
      ok = false;
      return WalkResult::skip(); // not its body too
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
