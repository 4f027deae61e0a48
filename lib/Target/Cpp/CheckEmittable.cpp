//===- CheckEmittable.cpp - the backend's contract ------------------------===//

#include "wsp/Target/Cpp/Passes.h"

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPCHECKEMITTABLE
#include "wsp/Target/Cpp/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {
struct CheckEmittablePass
    : public wsp::impl::WspCheckEmittableBase<CheckEmittablePass> {
  void runOnOperation() override {
    bool ok = true;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
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
