//===- LowerPreconditions.cpp - run-time preconditions checked first ------===//
//
// wsp.all_in_range and wsp.pages_in_range become loops that read only what
// their arrays hold; a function's wsp.require conditions guard everything
// after the last of them, whose other branch returns INVALID_PARAMS.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPLOWERPRECONDITIONS
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;
using P = arith::CmpIPredicate;

using mlir::wsp::detail::Lowering;

/// count fits the array and 0 <= values[i] < bound for i < count.
static void lowerAllInRange(AllInRangeOp op) {
  OpBuilder b(op);
  Lowering l{b, op.getLoc()};
  auto [fits, n] = l.countWithin(op.getValues(), op.getCount());
  Value all = l.all(n, [&](Lowering &in, Value i) {
    return in.inRange(in.loadIndex(op.getValues(), i), op.getBound());
  });
  op.replaceAllUsesWith(l.both(fits, all));
  op.erase();
}

/// Every request's row, length and pages (see the op's description).
static void lowerPagesInRange(PagesInRangeOp op) {
  OpBuilder b(op);
  Lowering l{b, op.getLoc()};
  Value table = op.getTable(), rows = op.getRows(), lengths = op.getLengths();
  Value pageSize = op.getPageSize(), pages = op.getPages();
  auto [rowsFit, n] = l.countWithin(rows, op.getBatch());
  Value lengthsFit = l.cmp(P::sle, n, l.dim(lengths, 0));
  Value pageSizeOk = l.cmp(P::sgt, pageSize, l.index(0));
  Value pagesOk = l.cmp(P::sgt, pages, l.index(0));
  Value sizesOk = l.both(pageSizeOk, pagesOk);
  Value shapeOk = l.both(l.both(rowsFit, lengthsFit), sizesOk);
  // (Nothing is read unless the shapes hold.)
  Value count = l.select(shapeOk, n, l.index(0));
  Value tableRows = l.dim(table, 0), perRow = l.dim(table, 1);
  Value safePage = l.select(sizesOk, pageSize, l.index(1));
  Value capacity = arith::MulIOp::create(b, l.loc, perRow, safePage);
  Value all = l.all(count, [&](Lowering &in, Value r) {
    Value row = in.loadIndex(rows, r), len = in.loadIndex(lengths, r);
    Value rowOk = in.inRange(row, tableRows);
    Value lenLow = in.cmp(P::sge, len, in.index(0));
    Value lenHigh = in.cmp(P::sle, len, capacity);
    Value lenOk = in.both(lenLow, lenHigh);
    Value readable = in.both(rowOk, lenOk);
    // The pages of positions [0, len), read only when the row and the
    // length are good.
    Value used = arith::CeilDivUIOp::create(in.b, in.loc, len, safePage);
    Value span = in.select(readable, used, in.index(0));
    Value inCache = in.all(span, [&](Lowering &p, Value j) {
      return p.inRange(p.loadIndex(table, ValueRange{row, j}), pages);
    });
    return in.both(readable, inCache);
  });
  op.replaceAllUsesWith(l.both(shapeOk, all));
  op.erase();
}

/// Guards everything after the function's last wsp.require by the and of
/// its conditions; the other branch returns INVALID_PARAMS.
static void guardFunction(func::FuncOp function, ArrayRef<RequireOp> preconditions) {
  RequireOp last = preconditions.back();
  OpBuilder b(last);
  Lowering l{b, last.getLoc()};
  Value ok;
  for (RequireOp r : preconditions) {
    Value c = RequireOp(r).getCondition();
    ok = ok ? l.both(ok, c) : c;
  }
  Block &body = function.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  auto guard = scf::IfOp::create(b, l.loc, function.getResultTypes(), ok,
                                 /*withElseRegion=*/true);
  // Then: what followed the last precondition, returning through a yield.
  Block &then = guard.getThenRegion().front();
  while (guard->getNextNode() != ret)
    guard->getNextNode()->moveBefore(&then, then.end());
  OpBuilder tb = OpBuilder::atBlockEnd(&then);
  scf::YieldOp::create(tb, ret.getLoc(), ret.getOperands());
  // Else: INVALID_PARAMS, and zeros for any other result.
  OpBuilder eb = OpBuilder::atBlockEnd(&guard.getElseRegion().front());
  SmallVector<Value> invalid;
  for (auto [i, type] : llvm::enumerate(function.getResultTypes()))
    invalid.push_back(arith::ConstantOp::create(
        eb, last.getLoc(), type,
        i == 0 ? eb.getIntegerAttr(type, static_cast<int64_t>(
                                             PlanResult::invalid_params))
               : eb.getZeroAttr(type)));
  scf::YieldOp::create(eb, last.getLoc(), invalid);
  ret->setOperands(guard.getResults());
  for (RequireOp r : preconditions)
    RequireOp(r).erase();
}

namespace {
struct LowerPreconditionsPass
    : public wsp::impl::WspLowerPreconditionsBase<LowerPreconditionsPass> {
  void runOnOperation() override {
    SmallVector<AllInRangeOp> ranges;
    SmallVector<PagesInRangeOp> paged;
    getOperation().walk([&](Operation *op) {
      if (auto r = dyn_cast<AllInRangeOp>(op))
        ranges.push_back(r);
      else if (auto p = dyn_cast<PagesInRangeOp>(op))
        paged.push_back(p);
    });
    for (AllInRangeOp op : ranges)
      lowerAllInRange(op);
    for (PagesInRangeOp op : paged)
      lowerPagesInRange(op);
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      SmallVector<RequireOp> preconditions(function.getBody().getOps<RequireOp>());
      if (preconditions.empty())
        continue;
      // (Verified: one block, an i32 status first, preconditions at its top.)
      if (!isa<func::ReturnOp>(function.getBody().front().getTerminator())) {
        function.emitOpError("with wsp.require must end in func.return");
        return signalPassFailure();
      }
      guardFunction(function, preconditions);
    }
  }
};
} // namespace
