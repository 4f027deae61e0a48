//===- KeepStepPlans.cpp - plans a step table keeps between calls ---------===//
//
// A launch that a wsp.step table replays gets a variant whose plan lives in
// storage the table keeps: its wsp.generate runs again only when what the
// plan is a function of (the lengths, the batch, the head count, the chunk
// and the queries) differs from the last call's. When only an attention
// plan's lengths or batch moved, wsp.update_plan first rewrites in place
// what moved (rows that grew, and every row from the first whose chunk
// count changed); the plan runs when it cannot (the chunk size changed).
// With `rows` (the default) an attention plan is kept as rows
// (pto/runtime/spec_rows.hpp): the update writes a compare's worth per
// request, and the dispatch's cores make the descriptors.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <pto/runtime/spec_rows.hpp>

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPKEEPSTEPPLANS
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {

/// The record a kept plan carries: whether it holds a plan, the plan's
/// results, and what it was planned from (the lengths apart): the key's
/// scalars, and the chunk size the plan used (the key's, or the one
/// wsp.plan_chunk_size gave).
enum Record : int64_t {
  kPlanned,
  kCount,
  kStatus,
  kBatch,
  kHeads,
  kChunk,
  kQueries,
  kPlannedChunk,
  kRecordSize
};
/// The scalars a plan is a function of, beside its lengths, in the order
/// of the key.
constexpr Record kKeyFields[] = {kBatch, kHeads, kChunk, kQueries};

/// A launch's plan, in the form a table can keep.
struct Plan {
  GenerateOp generate;
  /// The wsp.plan_chunk_size that computes the chunk from the same
  /// lengths, used by the generate alone (it then runs only when the plan
  /// does); null when the chunk is part of the key instead.
  PlanChunkSizeOp chunkSize;
  memref::AllocaOp lengths, descriptors;
};

bool isStaticScratch(memref::AllocaOp alloca) {
  return alloca && alloca.getType().hasStaticShape() &&
         alloca.getType().getLayout().isIdentity() &&
         alloca.getType().getRank() == 1;
}

/// The launch's one plan, if a table can keep it.
std::optional<Plan> findPlan(func::FuncOp launch) {
  SmallVector<GenerateOp> generates;
  bool balanced = false;
  launch.walk([&](Operation *op) {
    if (auto g = dyn_cast<GenerateOp>(op))
      generates.push_back(g);
    else if (isa<PlanBalancedOp>(op))
      balanced = true;
  });
  if (balanced || generates.size() != 1)
    return std::nullopt;
  GenerateOp g = generates.front();
  if (g.getCoreIndptr() || g.getMergeIndptr() || g.getCuts() || g.getQLens())
    return std::nullopt;
  Plan plan{g, nullptr, g.getLengths().getDefiningOp<memref::AllocaOp>(),
            g.getBuffer().getDefiningOp<memref::AllocaOp>()};
  if (!isStaticScratch(plan.lengths) || !isStaticScratch(plan.descriptors))
    return std::nullopt;
  // The descriptors are written by the plan and read by dispatches that do
  // not write them (an `expand` dispatch does).
  for (Operation *user : plan.descriptors->getUsers()) {
    if (user == g.getOperation())
      continue;
    auto dispatch = dyn_cast<DispatchOp>(user);
    if (!dispatch || dispatch.getCuts() ||
        llvm::is_contained(dispatch.getArgs(), plan.descriptors.getResult()))
      return std::nullopt;
  }
  // The chunk size moves into the planning branch with the generate when
  // it reads the same inputs, feeds only the generate, and nothing between
  // the two writes memory (the lengths are compared where it stood).
  auto chunk =
      g.getChunk() ? g.getChunk().getDefiningOp<PlanChunkSizeOp>() : nullptr;
  if (!chunk || !chunk->hasOneUse() || chunk->getBlock() != g->getBlock() ||
      chunk.getLengths() != g.getLengths() ||
      chunk.getBatch() != g.getBatch() || chunk.getHeads() != g.getHeads() ||
      chunk.getWindowAttr() != g.getWindowAttr() ||
      chunk.getQueries() != g.getQueries())
    return plan; // the chunk is part of what the plan is compared on
  for (Operation *op = chunk->getNextNode(); op != g.getOperation();
       op = op->getNextNode())
    if (!isMemoryEffectFree(op))
      return plan;
  plan.chunkSize = chunk;
  return plan;
}

/// Whether a plan can be kept as rows: an attention plan (the one a table
/// updates) whose dispatches are grids or row_affine.
bool canKeepAsRows(Plan plan) {
  if (!plan.generate.getPattern().isAttention())
    return false;
  return llvm::all_of(plan.descriptors->getUsers(), [&](Operation *user) {
    auto dispatch = dyn_cast<DispatchOp>(user);
    return !dispatch || !dispatch.getCoreIndptr();
  });
}

/// Rewrites `plan` (in the variant) to plan only when its key changed,
/// into `descriptors` (and as rows into `rows`, when not null), keeping
/// the lengths it planned from in `lengths` and the rest in `record`.
void keepPlan(Plan plan, Value descriptors, Value rows, Value lengths,
              Value record) {
  GenerateOp g = plan.generate;
  Location loc = g.getLoc();
  OpBuilder b(plan.chunkSize ? plan.chunkSize.getOperation()
                             : g.getOperation());
  Type i64 = b.getI64Type();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto toI64 = [&](Value v) -> Value {
    return v ? arith::IndexCastOp::create(b, loc, i64, v).getResult()
             : arith::ConstantIntOp::create(b, loc, i64, 0).getResult();
  };
  auto field = [&](Record r) -> Value {
    return memref::LoadOp::create(b, loc, record, ValueRange{index(r)});
  };
  auto eq = [&](Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  };
  auto both = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(b, loc, x, y);
  };

  plan.descriptors.getResult().replaceAllUsesWith(descriptors);
  plan.descriptors.erase();
  if (rows) {
    // (Collected first: a new operand reallocates the user's operands,
    // and with them the use list being walked.)
    SmallVector<DispatchOp> dispatches;
    for (Operation *user : descriptors.getUsers())
      if (auto dispatch = dyn_cast<DispatchOp>(user))
        dispatches.push_back(dispatch);
    g.getRowsMutable().assign(rows);
    for (DispatchOp dispatch : dispatches)
      dispatch.getRowsMutable().assign(rows);
  }

  const int64_t capacity = plan.lengths.getType().getNumElements();
  Value batch = g.getBatch();
  Value key[] = {toI64(batch), toI64(g.getHeads()),
                 toI64(plan.chunkSize ? Value() : g.getChunk()),
                 toI64(g.getQueries())};
  // Same key: planned before, the same scalars, a batch the lengths hold,
  // and lengths[0 .. batch) as recorded.
  // (The batch apart: an update takes a plan of another batch.)
  Value planned = field(kPlanned);
  Value sameButBatch = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                             planned, toI64(Value()));
  for (auto [r, v] : llvm::zip_equal(kKeyFields, key))
    if (r != kBatch)
      sameButBatch = both(sameButBatch, eq(field(r), v));
  sameButBatch = both(sameButBatch,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                            batch, index(capacity)));
  Value same = both(sameButBatch, eq(field(kBatch), key[0]));
  auto compare = scf::IfOp::create(
      b, loc, same,
      [&](OpBuilder &tb, Location l) {
        Value t = arith::ConstantIntOp::create(tb, l, tb.getI1Type(), 1);
        Value zero = arith::ConstantIndexOp::create(tb, l, 0);
        Value one = arith::ConstantIndexOp::create(tb, l, 1);
        auto loop = scf::ForOp::create(
            tb, l, zero, batch, one, ValueRange{t},
            [&](OpBuilder &lb, Location ll, Value i, ValueRange acc) {
              Value now =
                  memref::LoadOp::create(lb, ll, plan.lengths, ValueRange{i});
              Value then = memref::LoadOp::create(lb, ll, lengths, ValueRange{i});
              Value eqI = arith::CmpIOp::create(
                  lb, ll, arith::CmpIPredicate::eq, now, then);
              scf::YieldOp::create(
                  lb, ll,
                  ValueRange{arith::AndIOp::create(lb, ll, acc[0], eqI)});
            });
        scf::YieldOp::create(tb, l, loop.getResults());
      },
      [&](OpBuilder &eb, Location l) {
        scf::YieldOp::create(eb, l,
                             ValueRange{arith::ConstantIntOp::create(
                                 eb, l, eb.getI1Type(), 0)});
      });

  // Lengths that moved: an attention plan held (KV lengths, which a decode
  // step grows by its tokens, and requests join and leave) is updated in
  // place when it keeps its chunk size: a plan with status ok for the same
  // key, of any batch. (Other patterns plan token counts, which a step does
  // not grow: they are compared only.)
  Type i1 = b.getI1Type();
  scf::IfOp update;
  if (g.getPattern().isAttention()) {
    Value status = field(kStatus);
    Value updatable = both(sameButBatch, eq(status, toI64(Value())));
    update = scf::IfOp::create(
        b, loc, TypeRange{i1, b.getIndexType()},
        both(updatable, arith::XOrIOp::create(
                            b, loc, compare.getResult(0),
                            arith::ConstantIntOp::create(b, loc, i1, 1))),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(update.thenBlock());
    auto toIndex = [&](Value v) -> Value {
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
    };
    // (One statement each: the ops' order must not be the host compiler's
    // order of evaluating arguments.)
    Value heldBatch = toIndex(field(kBatch));
    Value heldChunk = toIndex(field(kPlannedChunk));
    auto op = UpdatePlanOp::create(b, loc, plan.lengths, lengths, batch,
                                   heldBatch, g.getHeads(), heldChunk,
                                   /*searched=*/plan.chunkSize ? b.getUnitAttr()
                                                               : UnitAttr(),
                                   g.getTiersAttr(), g.getConfig(), descriptors,
                                   g.getWindowAttr(), g.getQueries(), rows);
    scf::YieldOp::create(b, loc, op.getResults());
    b.setInsertionPointToStart(update.elseBlock());
    scf::YieldOp::create(
        b, loc,
        ValueRange{arith::ConstantIntOp::create(b, loc, i1, 0), index(0)});
  }
  Value kept = update ? arith::OrIOp::create(b, loc, compare.getResult(0),
                                             update.getResult(0))
                            .getResult()
                      : compare.getResult(0);

  auto keep = scf::IfOp::create(b, loc, g.getResultTypes(), kept,
                                /*withElseRegion=*/true);
  g.getCount().replaceAllUsesWith(keep.getResult(0));
  g.getStatus().replaceAllUsesWith(keep.getResult(1));

  // The lengths [0, batch) into the record's.
  auto recordLengths = [&] {
    Value zero = index(0), one = index(1);
    auto copy = scf::ForOp::create(b, loc, zero, batch, one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(copy.getBody());
    Value v = memref::LoadOp::create(b, loc, plan.lengths,
                                     ValueRange{copy.getInductionVar()});
    memref::StoreOp::create(b, loc, v, lengths,
                            ValueRange{copy.getInductionVar()});
  };

  // Kept or updated: the recorded results (an update's count, with the
  // lengths and batch it planned recorded).
  auto store = [&](Value v, Record r) {
    memref::StoreOp::create(b, loc, v, record, ValueRange{index(r)});
  };
  b.setInsertionPointToStart(keep.thenBlock());
  Value count =
      arith::IndexCastOp::create(b, loc, b.getIndexType(), field(kCount));
  if (update) {
    auto moved = scf::IfOp::create(b, loc, update.getResult(0),
                                   /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(moved.thenBlock());
      recordLengths();
      store(toI64(update.getResult(1)), kCount);
      store(key[0], kBatch);
    }
    count = arith::SelectOp::create(b, loc, update.getResult(0),
                                    update.getResult(1), count);
  }
  scf::YieldOp::create(
      b, loc,
      ValueRange{count, arith::TruncIOp::create(b, loc, b.getI32Type(),
                                                field(kStatus))});

  // Changed: plan, and record what from.
  Block *changed = keep.elseBlock();
  if (plan.chunkSize)
    plan.chunkSize->moveBefore(changed, changed->end());
  g->moveBefore(changed, changed->end());
  b.setInsertionPointToEnd(changed);
  recordLengths();
  // A batch past the lengths' capacity was refused by the plan (nothing
  // planned); it is recorded as not planned.
  Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, batch,
                                     index(capacity));
  store(arith::ExtUIOp::create(b, loc, i64, fits), kPlanned);
  store(toI64(g.getCount()), kCount);
  store(arith::ExtSIOp::create(b, loc, i64, g.getStatus()), kStatus);
  for (auto [r, v] : llvm::zip_equal(kKeyFields, key))
    store(v, r);
  store(toI64(g.getChunk()), kPlannedChunk);
  scf::YieldOp::create(b, loc, g.getResults());
}

struct KeepStepPlansPass
    : public wsp::impl::WspKeepStepPlansBase<KeepStepPlansPass> {
  using WspKeepStepPlansBase::WspKeepStepPlansBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // One variant per launch, however many tables call it.
    llvm::DenseMap<func::FuncOp, func::FuncOp> kept;
    llvm::DenseSet<func::FuncOp> left;
    for (StepOp step : module.getOps<StepOp>()) {
      auto captured = symbols.lookup<func::FuncOp>(step.getFunction());
      if (!captured || captured.isExternal())
        continue; // the step's verifier says why
      captured.walk([&](func::CallOp call) {
        auto launch = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!launch || launch.isExternal() || left.contains(launch))
          return;
        func::FuncOp variant = kept.lookup(launch);
        if (!variant) {
          variant = makeVariant(launch, symbols);
          if (!variant) {
            left.insert(launch);
            ++numLeft;
            return;
          }
          kept[launch] = variant;
          ++numKept;
        }
        call->setAttr(WspDialect::kReplayWithAttrName,
                      FlatSymbolRefAttr::get(variant.getSymNameAttr()));
      });
    }
  }

  /// `@<launch>_kept`, or null when the launch's plan is not kept.
  func::FuncOp makeVariant(func::FuncOp launch, SymbolTable &symbols) {
    std::optional<Plan> found = findPlan(launch);
    if (!found)
      return nullptr;
    IRMapping clones;
    auto variant = cast<func::FuncOp>(launch->clone(clones));
    variant.setSymName((launch.getSymName() + "_kept").str());
    variant.setPrivate();
    symbols.insert(variant, std::next(Block::iterator(launch)));
    // The plan's ops, as cloned into the variant.
    auto cloned = [&](Operation *op) {
      return op ? clones.lookup(op) : nullptr;
    };
    Plan plan{cast<GenerateOp>(cloned(found->generate)),
              cast_if_present<PlanChunkSizeOp>(cloned(found->chunkSize)),
              cast<memref::AllocaOp>(cloned(found->lengths)),
              cast<memref::AllocaOp>(cloned(found->descriptors))};
    Block &entry = variant.getBody().front();
    // Named (the emitters print these names for the table's storage).
    auto named = [&](StringRef name) -> Location {
      return NameLoc::get(StringAttr::get(&getContext(), name),
                          variant.getLoc());
    };
    Value descriptors = entry.addArgument(plan.descriptors.getType(),
                                          named("planned_descriptors"));
    Value lengths =
        entry.addArgument(plan.lengths.getType(), named("planned_lengths"));
    Value record = entry.addArgument(
        MemRefType::get({kRecordSize}, IntegerType::get(&getContext(), 64)),
        named("plan_record"));
    // The plan as rows, for as many requests as the lengths hold.
    Value rowsArg;
    if (rows && canKeepAsRows(plan))
      rowsArg = entry.addArgument(
          MemRefType::get({pto::runtime::SpecRowsLayout::size(
                              plan.lengths.getType().getNumElements())},
                          IntegerType::get(&getContext(), 32)),
          named("planned_rows"));
    variant.setType(FunctionType::get(&getContext(), entry.getArgumentTypes(),
                                      variant.getResultTypes()));
    keepPlan(plan, descriptors, rowsArg, lengths, record);
    return variant;
  }
};

} // namespace
