//===- LowerSpaces.cpp - iteration-space queries to index arithmetic ------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPLOWERSPACES
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

/// Dimension `dim` of `space` as an index value, or null (with an error at
/// `user`) when its size cannot be traced.
static Value materializeDim(OpBuilder &b, Operation *user, Value space,
                            unsigned dim) {
  OpFoldResult size = getSpaceDimSize(space, dim);
  if (!size) {
    user->emitOpError() << "cannot be lowered: the size of dimension " << dim
                        << " of its space is not traceable to a wsp.space";
    return {};
  }
  if (auto value = dyn_cast<Value>(size))
    return value;
  return arith::ConstantIndexOp::create(
      b, user->getLoc(), cast<IntegerAttr>(cast<Attribute>(size)).getInt());
}

namespace {
struct LowerSpacesPass : public wsp::impl::WspLowerSpacesBase<LowerSpacesPass> {
  void runOnOperation() override {
    bool failed_ = false;
    SmallVector<Operation *> queries;
    getOperation().walk([&](Operation *op) {
      if (isa<GetDimOp, TotalWorkOp, IndexToCoordsOp>(op))
        queries.push_back(op);
    });
    for (Operation *op : queries) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value space = op->getOperand(0);
      unsigned rank = cast<SpaceType>(space.getType()).getRank();
      SmallVector<Value> sizes;
      auto dims = [&](ArrayRef<unsigned> which) {
        for (unsigned d : which) {
          Value size = materializeDim(b, op, space, d);
          if (!size)
            return false;
          sizes.push_back(size);
        }
        return true;
      };
      if (auto get = dyn_cast<GetDimOp>(op)) {
        if (!dims({static_cast<unsigned>(get.getDim())})) {
          failed_ = true;
          continue;
        }
        get.replaceAllUsesWith(sizes[0]);
      } else {
        SmallVector<unsigned> all;
        for (unsigned d = 0; d < rank; ++d)
          all.push_back(d);
        if (!dims(all)) {
          failed_ = true;
          continue;
        }
        if (auto total = dyn_cast<TotalWorkOp>(op)) {
          Value product = arith::ConstantIndexOp::create(b, loc, 1);
          for (Value size : sizes)
            product = arith::MulIOp::create(b, loc, product, size);
          total.replaceAllUsesWith(product);
        } else {
          auto coords = cast<IndexToCoordsOp>(op);
          Value rest = coords.getIndex();
          for (unsigned d = 0; d < rank; ++d) { // dimension 0 fastest
            coords.getResult(d).replaceAllUsesWith(
                arith::RemUIOp::create(b, loc, rest, sizes[d]).getResult());
            rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
          }
        }
      }
      op->erase();
    }
    if (failed_)
      return signalPassFailure();
    // The spaces are dead now (or were never queried).
    SmallVector<Operation *> dead;
    getOperation().walk([&](Operation *op) {
      if (isa<SpaceOp, SetDimOp>(op))
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty())
        op->erase();
  }
};
} // namespace
