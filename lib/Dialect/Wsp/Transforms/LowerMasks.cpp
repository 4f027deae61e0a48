//===- LowerMasks.cpp - gen_mask_tkg semantics as branch-free arithmetic --===//
//
// One builder computes a mask element with no control flow (gen_mask_tkg §3:
// normal = ge * lt, wrap = max(ge, lt), final = normal + is_wrap * (wrap -
// normal), prior vs active columns chosen with a select); wsp.mask_value is
// replaced by it, and wsp.gen_mask becomes loops over (batch, query, column)
// that store it.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Masks.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPLOWERMASKS
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;
using P = arith::CmpIPredicate;

Value mlir::wsp::buildMaskValue(OpBuilder &b, Location loc,
                                const MaskElement &e) {
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto asIndex = [&](Value bit) -> Value { // i1 -> 0 / 1
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), bit);
  };
  Value slot = arith::AddIOp::create(b, loc, e.offset, e.col);
  Value inPrior = arith::CmpIOp::create(b, loc, P::slt, e.col, e.prior);
  Value lt = arith::CmpIOp::create(b, loc, P::slt, slot, e.pos);

  Value priorValue;
  if (e.kind == MaskKind::standard) {
    priorValue = lt; // slot < pos
  } else {
    Value start = buildWindowStart(b, loc, e.window, e.layout, e.pos, e.cache);
    Value ge = asIndex(arith::CmpIOp::create(b, loc, P::sge, slot, start));
    Value ltI = asIndex(lt);
    Value normal = arith::MulIOp::create(b, loc, ge, ltI);
    Value wrap = arith::MaxUIOp::create(b, loc, ge, ltI);
    Value isWrap = asIndex(arith::CmpIOp::create(b, loc, P::sgt, start, e.pos));
    Value final = arith::AddIOp::create(
        b, loc, normal,
        arith::MulIOp::create(b, loc, isWrap,
                              arith::SubIOp::create(b, loc, wrap, normal)));
    priorValue = arith::CmpIOp::create(b, loc, P::ne, final, idx(0));
  }
  Value activeValue = e.activeMaskValue;
  if (!activeValue) { // causal among the new tokens: j <= query
    Value j = arith::SubIOp::create(b, loc, e.col, e.prior);
    activeValue = arith::CmpIOp::create(b, loc, P::sle, j, e.query);
  }
  return arith::SelectOp::create(b, loc, inPrior, priorValue, activeValue);
}

Value mlir::wsp::buildWindowStart(OpBuilder &b, Location loc, int64_t window,
                                  KvLayout layout, Value pos, Value cache) {
  Value rawStart = arith::SubIOp::create(
      b, loc, pos, arith::ConstantIndexOp::create(b, loc, window - 1));
  if (layout == KvLayout::flat) { // Euclidean mod: (x % n + n) % n
    Value rem = arith::RemSIOp::create(b, loc, rawStart, cache);
    return arith::RemSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, rem, cache), cache);
  }
  return arith::MaxSIOp::create(b, loc, rawStart,
                                arith::ConstantIndexOp::create(b, loc, 0));
}

std::pair<Value, Value>
mlir::wsp::buildMaskRange(OpBuilder &b, Location loc, MaskKind kind,
                          int64_t window, Value query, Value pos,
                          Value prior) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // Active columns: causal, up to the query's own.
  Value hi = arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, prior, query), one);
  if (kind == MaskKind::standard)
    return {arith::ConstantIndexOp::create(b, loc, 0), hi};
  // The window admits prior slots from its start; it never cuts into the
  // active columns.
  Value start =
      buildWindowStart(b, loc, window, KvLayout::block, pos, Value());
  return {arith::MinSIOp::create(b, loc, start, prior), hi};
}

MaskShardLayout mlir::wsp::buildMaskShardLayout(OpBuilder &b, Location loc,
                                                MaskShard shard, Value core,
                                                Value sPrior,
                                                Value batchesPerCore) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  MaskShardLayout layout{zero, zero, sPrior};
  if (shard == MaskShard::batch) { // my batches, every prior column
    layout.batchStart = arith::MulIOp::create(b, loc, core, batchesPerCore);
  } else if (shard == MaskShard::sequence) { // every batch, half the slots
    layout.prior = arith::DivUIOp::create(
        b, loc, sPrior, arith::ConstantIndexOp::create(b, loc, 2));
    layout.offset = arith::MulIOp::create(b, loc, core, layout.prior);
  }
  return layout;
}

namespace {
int64_t windowOf(IntegerAttr window) { return window ? window.getInt() : 0; }

void lowerGenMask(GenMaskOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value mask = op.getMask();
  Value batches = memref::DimOp::create(b, loc, mask, 0);
  Value queries = memref::DimOp::create(b, loc, mask, 1);
  Value cols = memref::DimOp::create(b, loc, mask, 2);
  Value sPrior = op.getSPrior();
  // This core's share (LNC2): batch offset, iota offset, prior columns.
  MaskShardLayout shard = buildMaskShardLayout(
      b, loc, op.getShard(), op.getCore() ? op.getCore() : idx(0), sPrior,
      batches);
  Value batchStart = shard.batchStart, offset = shard.offset,
        prior = shard.prior;
  Value active = arith::SubIOp::create(b, loc, cols, prior);
  auto loop = [&](OpBuilder &ob, Value ub,
                  function_ref<void(OpBuilder &, Value)> body) {
    Value zero = idx(0), one = idx(1);
    scf::ForOp::create(ob, loc, zero, ub, one, ValueRange{},
                       [&](OpBuilder &nb, Location, Value iv, ValueRange) {
                         body(nb, iv);
                         scf::YieldOp::create(nb, loc);
                       });
  };
  loop(b, batches, [&](OpBuilder &bb, Value batch) {
    Value global = arith::AddIOp::create(bb, loc, batchStart, batch);
    loop(bb, queries, [&](OpBuilder &qb, Value query) {
      Value pos32 = memref::LoadOp::create(qb, loc, op.getPosIds(),
                                           ValueRange{global, query});
      Value pos = arith::IndexCastOp::create(qb, loc, qb.getIndexType(), pos32);
      loop(qb, cols, [&](OpBuilder &cb, Value col) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(cb.getInsertionBlock(), cb.getInsertionPoint());
        MaskElement e{op.getKind(),   windowOf(op.getWindowAttr()),
                      op.getLayout(), col,
                      query,          pos,
                      prior,          active,
                      offset,         sPrior,
                      Value()};
        if (Value am = op.getActiveMask()) {
          // A safe index for prior columns too: no load outside the active
          // block, and still no branch.
          Value j = arith::SubIOp::create(b, loc, col, prior);
          Value safe = arith::MaxSIOp::create(b, loc, j, idx(0));
          Value v = memref::LoadOp::create(b, loc, am,
                                           ValueRange{global, query, safe});
          e.activeMaskValue = arith::CmpIOp::create(
              b, loc, P::ne, v,
              arith::ConstantOp::create(b, loc, b.getI8Type(),
                                        b.getI8IntegerAttr(0)));
        }
        Value attend = buildMaskValue(b, loc, e);
        Value byte = arith::ExtUIOp::create(b, loc, b.getI8Type(), attend);
        memref::StoreOp::create(b, loc, byte, mask,
                                ValueRange{batch, query, col});
      });
    });
  });
  op.erase();
}

struct LowerMasksPass : public wsp::impl::WspLowerMasksBase<LowerMasksPass> {
  void runOnOperation() override {
    SmallVector<MaskValueOp> values;
    SmallVector<MaskRangeOp> ranges;
    SmallVector<GenMaskOp> kernels;
    getOperation().walk([&](Operation *op) {
      if (auto v = dyn_cast<MaskValueOp>(op))
        values.push_back(v);
      else if (auto r = dyn_cast<MaskRangeOp>(op))
        ranges.push_back(r);
      else if (auto g = dyn_cast<GenMaskOp>(op))
        kernels.push_back(g);
    });
    for (MaskRangeOp op : ranges) {
      OpBuilder b(op);
      auto [lo, hi] =
          buildMaskRange(b, op.getLoc(), op.getKind(),
                         windowOf(op.getWindowAttr()), op.getQuery(),
                         op.getPos(), op.getPrior());
      op.getLo().replaceAllUsesWith(lo);
      op.getHi().replaceAllUsesWith(hi);
      op.erase();
    }
    for (MaskValueOp op : values) {
      OpBuilder b(op);
      MaskElement e{op.getKind(),   windowOf(op.getWindowAttr()),
                    op.getLayout(), op.getCol(),
                    op.getQuery(),  op.getPos(),
                    op.getPrior(),  op.getActive(),
                    op.getOffset(), op.getCache(),
                    Value()};
      op.replaceAllUsesWith(buildMaskValue(b, op.getLoc(), e));
      op.erase();
    }
    for (GenMaskOp op : kernels)
      lowerGenMask(op);
  }
};
} // namespace
