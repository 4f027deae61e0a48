//===- LlmToWsp.cpp - llm operators to wsp workloads of tile kernels ------===//
//
// Each llm op becomes, at the op, a planning sequence (run-time shape
// checks, chunk planning, descriptor generation, dispatch) and, beside its
// function, a tier configuration and a tile-level wsp.kernel. The kernel
// family that owns the op (Lowering.h lists them) writes both as IR text,
// its fragments with the op's static sizes filled in; this pass parses
// that text and moves it into place: a kernel reads as the IR it is, and
// the parser verifies it. A text met again but for the op's name (the
// layers of a model) is not parsed again: the first parse is copied, the
// name replaced throughout. The function becomes a planning function
// returning the spec's PlanResult code.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "wsp/Conversion/Passes.h"
#include "wsp/Dialect/Llm/IR/LlmOps.h"
#include "wsp/Dialect/Tile/IR/TileDialect.h"
#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Support/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::wsp {
#define GEN_PASS_DEF_CONVERTLLMTOWSP
#include "wsp/Conversion/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;
using namespace mlir::wsp::lowering;

namespace {

/// The status of a function whose ops all succeeded.
constexpr int32_t kPlanOk = static_cast<int32_t>(PlanResult::ok);

struct ConvertLlmToWspPass
    : public wsp::impl::ConvertLlmToWspBase<ConvertLlmToWspPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *) override {
    registry = LoweringRegistry();
    populateRowOpLowerings(registry);
    populateTokenRowLowerings(registry);
    populateMatmulLowerings(registry);
    populateMoeLowerings(registry);
    populateModelEndLowerings(registry);
    populateAttentionLowerings(registry);
    populateBenchmarkAttentionLowerings(registry);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal() && hasLlmOps(f))
        funcs.push_back(f);
    SymbolTable symbols(module);
    // A function a wsp.step captures keeps each op's workload in a launch
    // function of its own, which the step table records once and replays.
    llvm::StringSet<> captured;
    for (auto step : module.getOps<StepOp>())
      captured.insert(step.getFunction());
    for (func::FuncOp f : funcs)
      if (failed(
              lowerFunction(f, symbols, captured.contains(f.getSymName())))) {
        dropParsedWorkloads();
        return signalPassFailure();
      }
    dropParsedWorkloads();
  }

  /// The workloads parsed in this run, by their text with the name they
  /// were written for taken out (`\x01` in its place): ops with the same
  /// sizes (the layers of a model, its prefill and its decode) write the
  /// same workload but for its name. Each holds the name it was parsed with.
  /// (Owned by the pass while it runs; a pass is copied when it is
  /// cloned, so not an OwningOpRef.)
  struct ParsedWorkload {
    std::string name;
    ModuleOp module;
  };
  llvm::StringMap<ParsedWorkload> parsedWorkloads;
  void dropParsedWorkloads() {
    for (auto &entry : parsedWorkloads)
      entry.second.module->erase();
    parsedWorkloads.clear();
  }

  /// `text` (written for `name`) parsed: once per distinct text, then
  /// copies of it with the name replaced in every string, symbol and
  /// source name (the only place the name is in). Parsing verifies; a copy
  /// of verified IR with its names changed throughout needs no verifying.
  OwningOpRef<ModuleOp> parseWorkload(const std::string &text, StringRef name,
                                      MLIRContext *context) {
    std::string key = text;
    if (!name.empty())
      for (size_t at = key.find(name.data(), 0, name.size());
           at != std::string::npos;
           at = key.find(name.data(), at + 1, name.size()))
        key.replace(at, name.size(), "\x01");
    auto it = parsedWorkloads.find(key);
    if (it == parsedWorkloads.end()) {
      // Parsed with the templates' SSA names kept (the emitters print them).
      ParserConfig config(context);
      llvm::SourceMgr sourceMgr;
      sourceMgr.AddNewSourceBuffer(
          llvm::MemoryBuffer::getMemBuffer(text, "llm-to-wsp"), llvm::SMLoc());
      OwningOpRef<ModuleOp> parsed = parseModuleWithNames(sourceMgr, config);
      if (!parsed)
        return parsed;
      OwningOpRef<ModuleOp> copy = parsed->clone();
      parsedWorkloads.try_emplace(key,
                                  ParsedWorkload{name.str(), parsed.release()});
      return copy;
    }
    OwningOpRef<ModuleOp> copy = it->second.module.clone();
    const std::string &from = it->second.name;
    if (from == name)
      return copy;
    AttrTypeReplacer renamer;
    renamer.addReplacement([&](StringAttr s) -> std::optional<Attribute> {
      StringRef value = s.getValue();
      if (!value.contains(from))
        return std::nullopt;
      std::string renamed;
      for (size_t at = 0;;) {
        size_t next = value.find(from, at);
        renamed += value.substr(at, next - at).str();
        if (next == StringRef::npos)
          break;
        renamed += name.str();
        at = next + from.size();
      }
      return StringAttr::get(renamed, s.getType());
    });
    renamer.recursivelyReplaceElementsIn(copy.get(), /*replaceAttrs=*/true,
                                         /*replaceLocs=*/true,
                                         /*replaceTypes=*/true);
    return copy;
  }

  /// Each llm op's lowering, registered by its family.
  LoweringRegistry registry;

  static bool hasLlmOps(func::FuncOp f) {
    return f
        .walk([](Operation *op) {
          return isa<llm::LlmDialect>(op->getDialect())
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  }

  LogicalResult lowerFunction(func::FuncOp f, SymbolTable &symbols,
                              bool outlineLaunches) {
    if (f.getNumResults() != 0)
      return f.emitOpError("holds llm ops and returns values; lowered, it "
                           "returns the ops' PlanResult code (i32) instead, "
                           "so it must return nothing itself");
    if (!f.getBody().hasOneBlock())
      return f.emitOpError("holds llm ops in a body of several blocks; "
                           "write it with structured control flow");
    Block &body = f.getBody().front();
    unsigned next = 0;
    FailureOr<Value> lowered =
        lowerBlock(body, Value(), f, symbols, outlineLaunches, next);
    if (failed(lowered))
      return failure();
    Value status = *lowered;
    // The function returns the status of its llm ops (0 when none had
    // one).
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    OpBuilder builder(ret);
    if (!status)
      status = arith::ConstantOp::create(builder, f.getLoc(),
                                         builder.getI32IntegerAttr(kPlanOk));
    f.setType(FunctionType::get(f.getContext(), f.getArgumentTypes(),
                                {builder.getI32Type()}));
    ret->setOperands(status);
    return success();
  }

  /// Whether `op` is an llm op or a collective of a sharded program (what
  /// joins the status chain).
  static bool joinsChain(Operation *op) {
    return isa<llm::LlmDialect>(op->getDialect()) ||
           isa<wsp::CollectiveOpInterface>(op);
  }

  /// Lowers the llm ops of `block` in order, each guarded by `status` (the
  /// ops before it succeeded), and of the scf.if branches in it. Returns
  /// the status after them (null when there was none and none came in).
  /// `next` numbers the ops of the function in program order.
  FailureOr<Value> lowerBlock(Block &block, Value status, func::FuncOp f,
                              SymbolTable &symbols, bool outline,
                              unsigned &next) {
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (joinsChain(op)) {
        FailureOr<Value> after =
            lowerOne(op, status, f, symbols, outline, next);
        if (failed(after))
          return failure();
        status = *after;
        continue;
      }
      // Regions without llm ops are left as they are (a collective in a
      // loop of its own is not chained).
      if (!op->walk([](Operation *inner) {
               return isa<llm::LlmDialect>(inner->getDialect())
                          ? WalkResult::interrupt()
                          : WalkResult::advance();
             }).wasInterrupted())
        continue;
      auto branch = dyn_cast<scf::IfOp>(op);
      if (!branch) {
        op->walk([](Operation *inner) {
          if (isa<llm::LlmDialect>(inner->getDialect()))
            inner->emitOpError(
                "lowers only in its function's top block or an scf.if's "
                "branches, where its status can end the function");
        });
        return failure();
      }
      FailureOr<Value> after =
          lowerIf(branch, status, f, symbols, outline, next);
      if (failed(after))
        return failure();
      status = *after;
    }
    return status;
  }

  /// An scf.if whose branches hold llm ops: each branch runs its ops after
  /// the ones before the if, and the if yields the branch's status as one
  /// more result, which the ops after it are guarded by.
  FailureOr<Value> lowerIf(scf::IfOp branch, Value status, func::FuncOp f,
                           SymbolTable &symbols, bool outline, unsigned &next) {
    FailureOr<Value> thenStatus =
        lowerBlock(*branch.thenBlock(), status, f, symbols, outline, next);
    if (failed(thenStatus))
      return failure();
    FailureOr<Value> elseStatus = status;
    if (branch.elseBlock())
      elseStatus =
          lowerBlock(*branch.elseBlock(), status, f, symbols, outline, next);
    if (failed(elseStatus))
      return failure();
    OpBuilder b(branch);
    Location loc = branch.getLoc();
    Value before =
        status ? status
               : arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(kPlanOk))
                     .getResult();
    SmallVector<Type> types(branch.getResultTypes());
    types.push_back(b.getI32Type());
    auto withStatus = scf::IfOp::create(b, loc, types, branch.getCondition(),
                                        /*withElseRegion=*/true);
    withStatus.getThenRegion().takeBody(branch.getThenRegion());
    auto yieldStatus = [&](Block *block, Value value) {
      auto yield = cast<scf::YieldOp>(block->getTerminator());
      SmallVector<Value> operands(yield.getOperands());
      operands.push_back(value ? value : before);
      OpBuilder yb(yield);
      scf::YieldOp::create(yb, yield.getLoc(), operands);
      yield.erase();
    };
    yieldStatus(withStatus.thenBlock(), *thenStatus);
    if (branch.elseBlock()) {
      withStatus.getElseRegion().takeBody(branch.getElseRegion());
      yieldStatus(withStatus.elseBlock(), *elseStatus);
    } else {
      Region &otherwise = withStatus.getElseRegion();
      if (otherwise.empty())
        otherwise.emplaceBlock();
      OpBuilder eb = OpBuilder::atBlockEnd(&otherwise.front());
      scf::YieldOp::create(eb, loc, before);
    }
    for (auto [old, kept] :
         llvm::zip(branch.getResults(), withStatus.getResults()))
      old.replaceAllUsesWith(kept);
    branch.erase();
    return withStatus.getResults().back();
  }

  /// Lowers one llm op or collective guarded by `status`; returns the
  /// status after it.
  FailureOr<Value> lowerOne(Operation *op, Value status, func::FuncOp f,
                            SymbolTable &symbols, bool outlineLaunches,
                            unsigned &next) {
    // (Collectives take a number too: the ops are named by their place.)
    const unsigned i = next++;
    if (!isa<llm::LlmDialect>(op->getDialect()))
      return joinCollective(op, status);
    // all_reduce without a device grid runs on the one rank this program
    // runs on, where it leaves the buffer as it is; over a grid, it is
    // the collective.
    if (auto reduce = dyn_cast<llm::AllReduceOp>(op)) {
      if (reduce.getGrid())
        status = lowerAllReduce(reduce, status);
      op->erase();
      return status;
    }
    std::string name =
        (f.getSymName() + "_" + op->getName().stripDialect() + "_" + Twine(i))
            .str();
    FailureOr<Lowered> lowered = registry.lower(op, name, vectorCores);
    if (failed(lowered))
      return failure();
    // Workspaces become arguments of the function, after the user's,
    // named for the op (and the part, when it has several) in their
    // `llm.workspace` attribute.
    unsigned parts = llvm::count_if(
        lowered->args, [](const NamedOperand &a) { return !a.value; });
    for (NamedOperand &a : lowered->args) {
      if (a.value)
        continue;
      unsigned at = f.getNumArguments();
      Builder b(f.getContext());
      std::string label = parts == 1 ? name : name + "." + a.name;
      if (failed(f.insertArgument(at, a.type,
                                  b.getDictionaryAttr(b.getNamedAttr(
                                      "llm.workspace", b.getStringAttr(label))),
                                  op->getLoc())))
        return failure();
      a.value = f.getArgument(at);
    }
    FailureOr<Value> after =
        inlineWorkload(op, *lowered, status, f, symbols, name, outlineLaunches);
    if (failed(after))
      return failure();
    op->erase();
    return *after;
  }

  /// Parses the op's workload, moves its tier configuration and kernel
  /// before `f`, and inlines its planner at the op, guarded by `status`
  /// (it runs only while every earlier op succeeded; the first op has no
  /// guard). With `outline`, the planner stays a private function,
  /// `@<kernel>_launch`, which the guard calls: one launch of a captured
  /// step. Returns the new status.
  FailureOr<Value> inlineWorkload(Operation *op, const Lowered &lowered,
                                  Value status, func::FuncOp f,
                                  SymbolTable &symbols, StringRef name,
                                  bool outline) {
    OwningOpRef<ModuleOp> parsed =
        parseWorkload(lowered.text, name, op->getContext());
    if (!parsed)
      return op->emitOpError("produced a workload that does not parse "
                             "(a bug in convert-llm-to-wsp)");
    // Everything the op became points back at it, under its template name.
    auto atOp = [&](Location old) -> Location {
      StringRef name = getSourceName(old);
      if (name.empty())
        return op->getLoc();
      return NameLoc::get(StringAttr::get(op->getContext(), name),
                          op->getLoc());
    };
    parsed->walk([&](Operation *inner) {
      inner->setLoc(atOp(inner->getLoc()));
      for (Region &region : inner->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setLoc(atOp(arg.getLoc()));
    });
    func::FuncOp plan;
    for (Operation &inner :
         llvm::make_early_inc_range(parsed->getBody()->getOperations())) {
      if (auto p = dyn_cast<func::FuncOp>(inner)) {
        plan = p;
        continue;
      }
      if (auto sym = dyn_cast<SymbolOpInterface>(inner);
          sym && symbols.lookup(sym.getName()))
        return op->emitOpError("would define @")
               << sym.getName() << ", which the module already has";
      inner.remove();
      symbols.insert(&inner, Block::iterator(f));
    }

    if (outline) {
      // The planner as the launch function, named for its kernel.
      std::string launch = (name + "_launch").str();
      if (symbols.lookup(launch))
        return op->emitOpError("would define @")
               << launch << ", which the module already has";
      plan.setSymName(launch);
      plan.setPrivate();
      plan->remove();
      symbols.insert(plan, Block::iterator(f));
    }
    // The planner's body, its arguments bound to the op's operands; its
    // returned status. Outlined, a call of it.
    auto plannerStatus = [&](OpBuilder &b) -> Value {
      if (outline) {
        SmallVector<Value> operands;
        for (const NamedOperand &a : lowered.args)
          operands.push_back(a.value);
        return func::CallOp::create(b, op->getLoc(), plan, operands)
            .getResult(0);
      }
      IRMapping map;
      for (auto [arg, operand] : llvm::zip(plan.getArguments(), lowered.args))
        map.map(arg, operand.value);
      for (Operation &inner : plan.getBody().front().without_terminator())
        b.clone(inner, map);
      auto ret = cast<func::ReturnOp>(plan.getBody().front().getTerminator());
      return map.lookup(ret.getOperand(0));
    };
    OpBuilder builder(op);
    return guarded(builder, op->getLoc(), status, plannerStatus);
  }

  /// The status of running `run` (built by it) only while `status` is 0,
  /// else `status`; with no status yet, `run`'s own.
  static Value guarded(OpBuilder &builder, Location loc, Value status,
                       function_ref<Value(OpBuilder &)> run) {
    if (!status)
      return run(builder);
    Value zero = arith::ConstantOp::create(builder, loc,
                                           builder.getI32IntegerAttr(kPlanOk));
    Value go = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                     status, zero);
    auto guard = scf::IfOp::create(builder, loc, builder.getI32Type(), go,
                                   /*withElseRegion=*/true);
    OpBuilder then = guard.getThenBodyBuilder();
    scf::YieldOp::create(then, loc, run(then));
    // Else: an earlier op failed; keep its status.
    OpBuilder otherwise = guard.getElseBodyBuilder();
    scf::YieldOp::create(otherwise, loc, status);
    return guard.getResult(0);
  }

  /// A wsp collective already in the function (a sharded program's): it
  /// runs after the ops before it, joining the call not ready when one of
  /// them failed (its own `after`, if any, counts too: the first failure
  /// wins). Returns the new status.
  static Value joinCollective(Operation *op, Value status) {
    MutableOperandRange after =
        cast<wsp::CollectiveOpInterface>(op).getAfterMutable();
    if (status) {
      Value joined = status;
      if (!after.empty()) {
        OpBuilder b(op);
        Value zero = arith::ConstantOp::create(b, op->getLoc(),
                                               b.getI32IntegerAttr(kPlanOk));
        Value failed = arith::CmpIOp::create(
            b, op->getLoc(), arith::CmpIPredicate::ne, status, zero);
        joined = arith::SelectOp::create(b, op->getLoc(), failed, status,
                                         after[0].get());
      }
      after.assign(joined);
    }
    return op->getResult(0);
  }

  /// llm.all_reduce over a device grid: wsp.all_reduce on the buffer, in
  /// place. Not guarded like an op's planner: a rank whose earlier ops
  /// failed still joins the collective (`after`), so no rank waits for it.
  static Value lowerAllReduce(llm::AllReduceOp op, Value status) {
    shard::ReductionKind kind = shard::ReductionKind::Sum;
    if (op.getKind() == llm::ReduceKind::max)
      kind = shard::ReductionKind::Max;
    else if (op.getKind() == llm::ReduceKind::min)
      kind = shard::ReductionKind::Min;
    OpBuilder b(op);
    return wsp::AllReduceOp::create(
        b, op.getLoc(), b.getI32Type(), op.getHiddenStates(), op.getGridAttr(),
        op.getGridAxesAttr(),
        shard::ReductionKindAttr::get(b.getContext(), kind), status);
  }
};

} // namespace
