//===- SoftwarePipeline.cpp - tile-pipeline: loop iterations in flight ----===//
//
// On an AICore each pipe (MTE2 loading, the vector or cube unit computing,
// MTE3 storing) runs its own instruction queue; flags order them. A loop
// whose every iteration fills, computes and drains the same tiles runs its
// pipes one after another: iteration k + 1's load waits until iteration
// k's last reader of the tile is done. With N copies of those tiles, taken
// in turn, it waits only for iteration k + 1 - N: the pipes overlap. This
// pass makes the copies (tile.alloc buffers(N) slot(%k)); the order of
// each copy, the priming before the loop and the draining after it are
// tile-insert-sync's, which knows slots already, and the bytes
// tile-plan-memory's.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallSet.h"

#include <pto/runtime/hardware.hpp>

namespace mlir::wsp::tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "wsp/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::wsp::tile

using namespace mlir;
using namespace mlir::wsp::tile;

namespace {

/// The ops that touch `tile`'s bytes: its users and its views' (subview,
/// reshape) users. False when a user is not a tile instruction (the tile
/// escapes: yielded, passed on).
bool collectAccesses(Value tile, SmallVectorImpl<Operation *> &ops) {
  for (Operation *user : tile.getUsers()) {
    if (isa<SubviewOp, ReshapeOp>(user)) {
      if (!collectAccesses(user->getResult(0), ops))
        return false;
      continue;
    }
    if (!isa<PipeOpInterface>(user))
      return false;
    ops.push_back(user);
  }
  return true;
}

/// Whether `op` writes `tile` and does not read it.
bool writesWithoutReading(Operation *op, Value tile) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  bool writes = false;
  for (const MemoryEffects::EffectInstance &e : list) {
    if (e.getValue() != tile)
      continue;
    if (isa<MemoryEffects::Read>(e.getEffect()))
      return false;
    writes |= isa<MemoryEffects::Write>(e.getEffect());
  }
  return writes;
}

/// Whether `op` runs whenever an iteration of `loop` (an ancestor) does:
/// every op between them is an scf.for that runs at least once (constant
/// bounds), none a branch.
bool runsEveryIteration(Operation *op, scf::ForOp loop) {
  for (Operation *p = op->getParentOp(); p != loop; p = p->getParentOp()) {
    auto inner = dyn_cast<scf::ForOp>(p);
    if (!inner)
      return false;
    std::optional<int64_t> lb = getConstantIntValue(inner.getLowerBound()),
                           ub = getConstantIntValue(inner.getUpperBound());
    if (!lb || !ub || *ub <= *lb)
      return false;
  }
  return true;
}

/// Whether `alloc`, in `loop`'s body, is worth copies and can have them:
/// single, a transfer and another pipe touch it, and its contents stay in one
/// iteration: the first access in program order writes it without reading
/// and runs in every iteration, so every other access, after it, sees what
/// this iteration wrote.
bool pipelines(AllocOp alloc, scf::ForOp loop) {
  if (alloc.getSlot() || alloc.getNumBuffers() != 1 ||
      !alloc.getType().hasStaticShape())
    return false;
  SmallVector<Operation *> accesses;
  if (!collectAccesses(alloc.getResult(), accesses) || accesses.empty())
    return false;
  llvm::SmallPtrSet<Operation *, 8> touching(accesses.begin(),
                                             accesses.end());
  // A copy pays where a transfer (a load, a store, a move between
  // buffers) and another pipe share the tile.
  llvm::SmallSet<Pipe, 4> pipes;
  bool transfer = false;
  for (Operation *op : accesses) {
    Pipe p = cast<PipeOpInterface>(op).getPipe();
    pipes.insert(p);
    transfer |= p == Pipe::mte1 || p == Pipe::mte2 || p == Pipe::mte3 ||
                p == Pipe::fix;
  }
  if (!transfer || pipes.size() < 2)
    return false;
  Operation *first = nullptr;
  loop.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!touching.contains(op))
      return WalkResult::advance();
    first = op;
    return WalkResult::interrupt();
  });
  return first && writesWithoutReading(first, alloc.getResult()) &&
         runsEveryIteration(first, loop);
}

/// The iteration number of `loop` (0, 1, ...): its induction variable
/// where it counts from 0 by 1, else (iv - lb) / step computed at the
/// body's start (what tile-insert-sync reads as the iteration number).
Value iterationNumber(scf::ForOp loop) {
  Value iv = loop.getInductionVar();
  if (matchPattern(loop.getLowerBound(), m_Zero()) &&
      matchPattern(loop.getStep(), m_One()))
    return iv;
  OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
  Location loc = loop.getLoc();
  Value offset = arith::SubIOp::create(b, loc, iv, loop.getLowerBound());
  return arith::DivUIOp::create(b, loc, offset, loop.getStep());
}

/// Whether the function's tiles fit every on-chip buffer.
bool fits(FunctionOpInterface fn) {
  std::array<int64_t, ::pto::runtime::kNumBuffers> need = getBufferNeeds(fn);
  for (int b = 0; b < ::pto::runtime::kNumBuffers; ++b)
    if (need[b] >
        ::pto::runtime::buffer_bytes(static_cast<::pto::runtime::Buffer>(b)))
      return false;
  return true;
}

struct PipelinePass
    : public mlir::wsp::tile::impl::TilePipelineBase<PipelinePass> {
  using TilePipelineBase::TilePipelineBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(TileDialect::kStagesAttrName))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(pipeline(loop)))
        return signalPassFailure();
  }

  LogicalResult pipeline(scf::ForOp loop) {
    auto stagesAttr =
        loop->getAttrOfType<IntegerAttr>(TileDialect::kStagesAttrName);
    auto minAttr =
        loop->getAttrOfType<IntegerAttr>(TileDialect::kMinStagesAttrName);
    const int64_t stages = stagesAttr.getInt();
    const int64_t fewest = minAttr ? minAttr.getInt() : stages;
    loop->removeAttr(TileDialect::kStagesAttrName);
    loop->removeAttr(TileDialect::kMinStagesAttrName);
    auto fn = loop->getParentOfType<FunctionOpInterface>();
    if (!fn)
      return success();
    SmallVector<AllocOp> sites;
    for (auto alloc : loop.getBody()->getOps<AllocOp>())
      if (pipelines(alloc, loop))
        sites.push_back(alloc);
    if (sites.empty()) {
      loop.emitRemark("asks for ")
          << stages
          << " stages, but no tile of its body is filled or drained by "
             "another pipe afresh each iteration: it runs as it is";
      return success();
    }
    // The stages first (the budgets count buffers(N) alone), then the
    // iteration number the copies are taken by, made only for more than
    // one copy.
    Builder b(loop.getContext());
    auto setCopies = [&](int64_t n) {
      for (AllocOp alloc : sites) {
        if (n == 1)
          alloc.removeBuffersAttr();
        else
          alloc.setBuffersAttr(b.getI64IntegerAttr(n));
      }
    };
    int64_t taken = stages;
    setCopies(stages);
    if (fewest < stages && !fits(fn)) {
      for (int64_t n = stages - 1; n >= fewest && taken == stages; --n) {
        setCopies(n);
        if (fits(fn))
          taken = n;
      }
      if (taken != stages && report)
        loop.emitRemark("runs ")
            << taken << (taken == 1 ? " stage" : " stages") << " of the "
            << stages
            << " asked: the copies of more do not fit the kernel's buffers";
      // Even the fewest do not fit: the most asked for stay, and
      // tile-plan-memory names the tile, the buffer and the bytes.
      if (taken == stages)
        setCopies(stages);
    }
    if (taken == 1)
      return success();
    Value k = iterationNumber(loop);
    for (AllocOp alloc : sites)
      alloc.getSlotMutable().assign(k);
    return success();
  }
};

} // namespace
