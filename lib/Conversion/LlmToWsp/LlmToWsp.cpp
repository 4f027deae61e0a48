//===- LlmToWsp.cpp - llm operators to wsp workloads of tile kernels ------===//
//
// Each llm op becomes, at the op, a planning sequence (run-time shape
// checks, chunk planning, descriptor generation, dispatch) and, beside its
// function, a tier configuration and a tile-level wsp.kernel. Both are
// written below as IR text with the op's static sizes filled in, parsed,
// and moved into place: a kernel reads as the IR it is, and the parser
// verifies it. The function becomes a planning function returning the
// spec's PlanResult code.
//
//===----------------------------------------------------------------------===//

#include "wsp/Conversion/Passes.h"
#include "wsp/Dialect/Llm/IR/LlmOps.h"
#include "wsp/Dialect/Tile/IR/TileDialect.h"
#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace mlir::wsp {
#define GEN_PASS_DEF_CONVERTLLMTOWSP
#include "wsp/Conversion/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {

//===----------------------------------------------------------------------===//
// IR text templates
//===----------------------------------------------------------------------===//

/// Replaces every `${KEY}` of `text` by its value; a key without a value is
/// left as it is (and the parser will name it).
std::string substitute(StringRef text,
                       const std::map<std::string, std::string> &values) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    size_t at = text.find("${");
    if (at == StringRef::npos) {
      out += text;
      break;
    }
    out += text.take_front(at);
    text = text.drop_front(at);
    size_t end = text.find('}');
    auto it = end == StringRef::npos
                  ? values.end()
                  : values.find(text.slice(2, end).str());
    if (it == values.end()) {
      out += text.take_front(2);
      text = text.drop_front(2);
      continue;
    }
    out += it->second;
    text = text.drop_front(end + 1);
  }
  return out;
}

std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string str(Attribute a) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << a;
  return s;
}

/// One operand of an llm op as the kernel and the planner see it: its seed
/// name and value.
struct NamedOperand {
  std::string name;
  Value value;
};

/// `%a: T, %b: U` and `%a, %b : T, U` for a list of operands.
std::string signature(ArrayRef<NamedOperand> args) {
  return llvm::join(llvm::map_range(args,
                                    [](const NamedOperand &a) {
                                      return "%" + a.name + ": " +
                                             str(a.value.getType());
                                    }),
                    ", ");
}
std::string callArgs(ArrayRef<NamedOperand> args) {
  return llvm::join(
             llvm::map_range(args,
                             [](const NamedOperand &a) { return "%" + a.name; }),
             ", ") +
         " : " +
         llvm::join(llvm::map_range(args,
                                    [](const NamedOperand &a) {
                                      return str(a.value.getType());
                                    }),
                    ", ");
}

/// A run-time check that dimension `dim` of operand `name` equals `%expect`
/// (an index value of the planner), folded into `%shapes_ok`.
struct DimCheck {
  std::string name;
  unsigned dim;
  std::string expect;
};

std::string checks(ArrayRef<NamedOperand> args, ArrayRef<DimCheck> dims) {
  if (dims.empty())
    return "  %shapes_ok = arith.constant true\n";
  std::string out, all;
  for (auto [n, d] : llvm::enumerate(dims)) {
    const NamedOperand *arg = llvm::find_if(
        args, [&](const NamedOperand &a) { return a.name == d.name; });
    std::string i = std::to_string(n);
    out += "  %dim_" + i + " = memref.dim %" + d.name + ", %c" +
           std::to_string(d.dim) + " : " + str(arg->value.getType()) + "\n";
    std::string same = n + 1 == dims.size() && n == 0 ? "%shapes_ok"
                                                       : "%same_" + i;
    out += "  " + same + " = arith.cmpi eq, %dim_" + i + ", " + d.expect +
           " : index\n";
    if (n == 0) {
      all = same;
      continue;
    }
    std::string next = n + 1 == dims.size() ? "%shapes_ok" : "%all_" + i;
    out += "  " + next + " = arith.andi " + all + ", " + same + " : i1\n";
    all = next;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Row-wise operators: one work unit = a range of token rows
//===----------------------------------------------------------------------===//

/// The planner of a row-wise operator: `tokens` rows cut into at most
/// `UNITS` contiguous ranges (moe descriptors of one "expert", the token
/// range in token_start/token_count), one tier, dispatched on the vector
/// cores. `${CHECKS}` sets %shapes_ok from the run-time shapes.
constexpr StringLiteral kRowPlanner = R"mlir(
wsp.tier_config @${NAME}_tiers [#wsp.tier<0, [1, 2147483647]>]

func.func @plan(${SIGNATURE}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ok = arith.constant 0 : i32
  %unsupported = arith.constant 2 : i32
  %invalid = arith.constant 3 : i32
  %int32_max = arith.constant 2147483647 : index
  %tokens = memref.dim %${TOKENS_OF}, %c0 : ${TOKENS_TYPE}
  %hidden = arith.constant ${HIDDEN} : index
${CHECKS}
  %fits = arith.cmpi ule, %tokens, %int32_max : index
  %shape_status = arith.select %shapes_ok, %ok, %invalid : i32
  %check = arith.select %fits, %shape_status, %unsupported : i32
  %checked = arith.cmpi eq, %check, %ok : i32
  %status = scf.if %checked -> i32 {
    // One "expert" of `tokens` rows; chunks of at least ${ROWS} rows, at
    // most ${UNITS} of them.
    %lens = memref.alloca() : memref<1xi32>
    %descs = memref.alloca() : memref<${UNITS}x!wsp.descriptor<moe>>
    %tokens_i32 = arith.index_cast %tokens : index to i32
    memref.store %tokens_i32, %lens[%c0] : memref<1xi32>
    %chunk = wsp.plan_chunk_size %lens[%c1] heads(%c1) config(${CONFIG})
        : memref<1xi32>
    %count, %planned = wsp.generate %lens[%c1] heads(%c1) chunk(%chunk)
        tiers(@${NAME}_tiers) config(${CONFIG}) into %descs
        : memref<1xi32>, memref<${UNITS}x!wsp.descriptor<moe>>
    %run = arith.cmpi eq, %planned, %ok : i32
    scf.if %run {
      wsp.dispatch @${NAME}(${CALL_ARGS})
          descriptors(%descs[%count] : memref<${UNITS}x!wsp.descriptor<moe>>)
          on vector(${UNITS})
    }
    scf.yield %planned : i32
  } else {
    scf.yield %check : i32
  }
  return %status : i32
}
)mlir";

/// rms_norm: two passes over column chunks of ROWS token rows. Pass 1
/// sums the squares (and writes after_res = hidden_states + residual);
/// pass 2 scales by rstd and the weight. `${PASS1_LOAD}` leaves the f32
/// row chunk in %xf; `${SOURCE}` is what pass 2 normalizes.
constexpr StringLiteral kRmsNormKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
  %c0 = arith.constant 0 : index
  %rows = arith.constant ${ROWS} : index
  %cols = arith.constant ${COLS} : index
  %hidden = arith.constant ${HIDDEN} : index
  %zero = arith.constant 0.0 : f32
  %inv_hidden = arith.constant ${INV_HIDDEN}
  %eps = arith.constant ${EPS}
  %start = wsp.param %desc["token_start"] : !wsp.descriptor<moe>
  %count = wsp.param %desc["token_count"] : !wsp.descriptor<moe>
  %end = arith.addi %start, %count : index
  %w = tile.alloc : !tile.tile<vec, 1x${COLS}xf32>
  scf.for %r = %start to %end step %rows {
    %left = arith.subi %end, %r : index
    %n = arith.minui %left, %rows : index
    %xb = tile.alloc valid(%n) : ${BF16_TILE}
    %xf = tile.alloc valid(%n) : ${F32_TILE}
    %sq = tile.alloc valid(%n) : ${F32_TILE}
    %part = tile.alloc valid(%n) : ${ROW_STAT}
    %ss = tile.alloc valid(%n) : ${ROW_STAT}
    %part_row = tile.reshape %part : ${ROW_STAT} to ${STAT_ROW}
    %ss_row = tile.reshape %ss : ${ROW_STAT} to ${STAT_ROW}
    tile.expands %ss_row, %zero : ${STAT_ROW}, f32
    // Pass 1: sum of squares per row, chunk by chunk.
    scf.for %c = %c0 to %hidden step %cols {
${PASS1_LOAD}
      tile.mul %sq, %xf, %xf : ${F32_TILE}, ${F32_TILE}, ${F32_TILE}
      tile.rowsum %part, %sq, %sq : ${ROW_STAT}, ${F32_TILE}, ${F32_TILE}
      tile.add %ss_row, %ss_row, %part_row : ${STAT_ROW}, ${STAT_ROW}, ${STAT_ROW}
    }
    // rstd = 1 / sqrt(sum / hidden_size + eps), one per row.
    tile.muls %ss_row, %ss_row, %inv_hidden : ${STAT_ROW}, ${STAT_ROW}, f32
    tile.adds %ss_row, %ss_row, %eps : ${STAT_ROW}, ${STAT_ROW}, f32
    tile.rsqrt %ss_row, %ss_row : ${STAT_ROW}, ${STAT_ROW}
    // Pass 2: y = source * rstd * weight.
    scf.for %c = %c0 to %hidden step %cols {
      tile.load %xb, %${SOURCE}[%r, %c] : ${BF16_TILE}, ${SOURCE_TYPE}
      tile.load %w, %weight[%c] : !tile.tile<vec, 1x${COLS}xf32>, ${WEIGHT_TYPE}
      tile.cvt %xf, %xb : ${F32_TILE}, ${BF16_TILE}
      tile.rowexpandmul %xf, %xf, %ss, %sq : ${F32_TILE}, ${F32_TILE}, ${ROW_STAT}, ${F32_TILE}
      tile.colexpandmul %xf, %xf, %w : ${F32_TILE}, ${F32_TILE}, !tile.tile<vec, 1x${COLS}xf32>
      tile.cvt %xb, %xf : ${BF16_TILE}, ${F32_TILE}
      tile.store %y[%r, %c], %xb : ${Y_TYPE}, ${BF16_TILE}
    }
  }
  wsp.return
}
)mlir";

constexpr StringLiteral kRmsNormLoad = R"mlir(
      tile.load %xb, %hidden_states[%r, %c] : ${BF16_TILE}, ${X_TYPE}
      tile.cvt %xf, %xb : ${F32_TILE}, ${BF16_TILE})mlir";

/// With a residual: x + residual in f32 (its bf16 rounding is after_res),
/// the squares of the f32 sum.
constexpr StringLiteral kRmsNormLoadResidual = R"mlir(
      tile.load %xb, %hidden_states[%r, %c] : ${BF16_TILE}, ${X_TYPE}
      tile.cvt %xf, %xb : ${F32_TILE}, ${BF16_TILE}
      tile.load %xb, %residual[%r, %c] : ${BF16_TILE}, ${RESIDUAL_TYPE}
      tile.cvt %sq, %xb : ${F32_TILE}, ${BF16_TILE}
      tile.add %xf, %xf, %sq : ${F32_TILE}, ${F32_TILE}, ${F32_TILE}
      tile.cvt %xb, %xf : ${BF16_TILE}, ${F32_TILE}
      tile.store %after_res[%r, %c], %xb : ${AFTER_RES_TYPE}, ${BF16_TILE})mlir";

/// Rows of a row-wise kernel's tiles: 8 f32 row statistics make one
/// 32-byte row when reshaped to [1 x 8].
constexpr int64_t kRows = 8;
/// The widest column chunk of a row-wise kernel.
constexpr int64_t kMaxCols = 1024;

/// The kernel's column chunk: all of hidden_size up to kMaxCols, else its
/// largest divisor below that is a multiple of 16.
FailureOr<int64_t> rowChunk(Operation *op, Value hiddenStates) {
  int64_t hidden = cast<MemRefType>(hiddenStates.getType()).getDimSize(1);
  if (ShapedType::isDynamic(hidden))
    return op->emitOpError("lowers with a static hidden_size only: its tiles "
                           "are sized at compile time");
  if (hidden % 16)
    return op->emitOpError("lowers with hidden_size a multiple of 16 (a bf16 "
                           "tile row is whole 32-byte blocks), got ")
           << hidden;
  for (int64_t cols = std::min(hidden, kMaxCols); cols >= 16; cols -= 16)
    if (hidden % cols == 0)
      return cols;
  return op->emitOpError("found no column chunk for hidden_size ") << hidden;
}

/// The emitters take row-major buffers: views of another layout are
/// diagnosed at the op.
LogicalResult requireIdentityLayouts(Operation *op,
                                     ArrayRef<NamedOperand> args) {
  for (const NamedOperand &a : args)
    if (!cast<MemRefType>(a.value.getType()).getLayout().isIdentity())
      return op->emitOpError("lowers with row-major buffers only; '")
             << a.name << "' is a strided view " << a.value.getType();
  return success();
}

struct Lowered {
  std::string text;              // the module of templates, substituted
  SmallVector<NamedOperand> args; // the planner's arguments, in order
};

FailureOr<Lowered> lowerRmsNorm(llm::RmsNormOp op, StringRef name,
                                int64_t cores) {
  SmallVector<NamedOperand> args = {{"hidden_states", op.getHiddenStates()}};
  if (op.getResidual())
    args.push_back({"residual", op.getResidual()});
  args.push_back({"weight", op.getWeight()});
  args.push_back({"y", op.getY()});
  if (op.getAfterRes())
    args.push_back({"after_res", op.getAfterRes()});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  FailureOr<int64_t> cols = rowChunk(op, op.getHiddenStates());
  if (failed(cols))
    return failure();
  int64_t hidden = cast<MemRefType>(op.getHiddenStates().getType()).getDimSize(1);

  // Every operand's num_tokens and hidden_size, checked at run time.
  SmallVector<DimCheck> dims;
  for (const NamedOperand &a : args) {
    if (a.name == "hidden_states")
      continue;
    if (a.name == "weight") {
      dims.push_back({a.name, 0, "%hidden"});
      continue;
    }
    dims.push_back({a.name, 0, "%tokens"});
    dims.push_back({a.name, 1, "%hidden"});
  }

  Builder b(op.getContext());
  std::string c = std::to_string(*cols), r = std::to_string(kRows);
  std::map<std::string, std::string> v = {
      {"NAME", name.str()},
      {"SIGNATURE", signature(args)},
      {"CALL_ARGS", callArgs(args)},
      {"TOKENS_OF", "hidden_states"},
      {"TOKENS_TYPE", str(op.getHiddenStates().getType())},
      {"HIDDEN", std::to_string(hidden)},
      {"UNITS", std::to_string(cores)},
      {"ROWS", r},
      {"COLS", c},
      {"CONFIG", "#wsp.plan_config<chunk_min = " + r +
                     ", chunk_max = 2147483647, max_work_units = " +
                     std::to_string(cores) + ">"},
      {"EPS", str(op.getEpsAttr())},
      {"INV_HIDDEN", str(b.getF32FloatAttr(1.0f / float(hidden)))},
      {"BF16_TILE", "!tile.tile<vec, " + r + "x" + c + "xbf16, valid = ?x" +
                        c + ">"},
      {"F32_TILE",
       "!tile.tile<vec, " + r + "x" + c + "xf32, valid = ?x" + c + ">"},
      {"ROW_STAT", "!tile.tile<vec, " + r + "x1xf32, valid = ?x1, col_major>"},
      {"STAT_ROW", "!tile.tile<vec, 1x" + r + "xf32>"},
      {"X_TYPE", str(op.getHiddenStates().getType())},
      {"WEIGHT_TYPE", str(op.getWeight().getType())},
      {"Y_TYPE", str(op.getY().getType())},
  };
  if (op.getResidual()) {
    v["RESIDUAL_TYPE"] = str(op.getResidual().getType());
    v["AFTER_RES_TYPE"] = str(op.getAfterRes().getType());
    v["SOURCE"] = "after_res";
    v["SOURCE_TYPE"] = v["AFTER_RES_TYPE"];
  } else {
    v["SOURCE"] = "hidden_states";
    v["SOURCE_TYPE"] = v["X_TYPE"];
  }
  v["PASS1_LOAD"] = substitute(
      op.getResidual() ? kRmsNormLoadResidual : kRmsNormLoad, v);
  v["CHECKS"] = checks(args, dims);
  return Lowered{substitute(kRowPlanner, v) + substitute(kRmsNormKernel, v),
                 args};
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The op's lowering, or a diagnostic.
FailureOr<Lowered> lower(Operation *op, StringRef name, int64_t cores) {
  if (auto norm = dyn_cast<llm::RmsNormOp>(op))
    return lowerRmsNorm(norm, name, cores);
  return op->emitOpError("has no lowering to a wsp workload yet (see "
                         "docs/rationale/Operators.md for the ops that lower)");
}

struct ConvertLlmToWspPass
    : public wsp::impl::ConvertLlmToWspBase<ConvertLlmToWspPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal() && hasLlmOps(f))
        funcs.push_back(f);
    SymbolTable symbols(module);
    for (func::FuncOp f : funcs)
      if (failed(lowerFunction(f, symbols)))
        return signalPassFailure();
  }

  static bool hasLlmOps(func::FuncOp f) {
    return f.walk([](Operation *op) {
              return isa<llm::LlmDialect>(op->getDialect())
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
        .wasInterrupted();
  }

  LogicalResult lowerFunction(func::FuncOp f, SymbolTable &symbols) {
    if (f.getNumResults() != 0)
      return f.emitOpError("holds llm ops and returns values; lowered, it "
                           "returns the ops' PlanResult code (i32) instead, "
                           "so it must return nothing itself");
    if (!f.getBody().hasOneBlock())
      return f.emitOpError("holds llm ops in a body of several blocks; "
                           "write it with structured control flow");
    Block &body = f.getBody().front();
    SmallVector<Operation *> ops;
    bool ok = true;
    f.walk([&](Operation *op) {
      if (!isa<llm::LlmDialect>(op->getDialect()))
        return;
      if (op->getBlock() != &body) {
        op->emitOpError("lowers only in its function's top block, where its "
                        "status can end the function");
        ok = false;
      }
      ops.push_back(op);
    });
    if (!ok)
      return failure();

    OpBuilder builder(f.getContext());
    builder.setInsertionPointToStart(&body);
    Value status;
    for (auto [i, op] : llvm::enumerate(ops)) {
      std::string name =
          (f.getSymName() + "_" + op->getName().stripDialect() + "_" +
           Twine(i))
              .str();
      FailureOr<Lowered> lowered = lower(op, name, vectorCores);
      if (failed(lowered))
        return failure();
      FailureOr<Value> next = inlineWorkload(op, *lowered, i == 0 ? Value() : status, f, symbols);
      if (failed(next))
        return failure();
      status = *next;
      op->erase();
    }
    // The function returns the status of its llm ops.
    f.setType(FunctionType::get(f.getContext(), f.getArgumentTypes(),
                                {builder.getI32Type()}));
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    ret->setOperands(status);
    return success();
  }

  /// Parses the op's workload, moves its tier configuration and kernel
  /// before `f`, and inlines its planner at the op, guarded by `status`
  /// (it runs only while every earlier op succeeded; the first op has no
  /// guard). Returns the new status.
  FailureOr<Value> inlineWorkload(Operation *op, const Lowered &lowered,
                                  Value status, func::FuncOp f,
                                  SymbolTable &symbols) {
    ParserConfig config(op->getContext());
    OwningOpRef<ModuleOp> parsed =
        parseSourceString<ModuleOp>(lowered.text, config, "llm-to-wsp");
    if (!parsed)
      return op->emitOpError("produced a workload that does not parse "
                             "(a bug in convert-llm-to-wsp)");
    // Everything the op became points back at it.
    parsed->walk([&](Operation *inner) { inner->setLoc(op->getLoc()); });
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

    // The planner's body, its arguments bound to the op's operands; its
    // returned status.
    auto clonePlanner = [&](OpBuilder &b) {
      IRMapping map;
      for (auto [arg, operand] : llvm::zip(plan.getArguments(), lowered.args))
        map.map(arg, operand.value);
      for (Operation &inner : plan.getBody().front().without_terminator())
        b.clone(inner, map);
      auto ret = cast<func::ReturnOp>(plan.getBody().front().getTerminator());
      return map.lookup(ret.getOperand(0));
    };
    OpBuilder builder(op);
    if (!status)
      return clonePlanner(builder);
    Location loc = op->getLoc();
    Value zero =
        arith::ConstantOp::create(builder, loc, builder.getI32IntegerAttr(0));
    Value go = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                     status, zero);
    auto guard = scf::IfOp::create(builder, loc, builder.getI32Type(), go,
                                   /*withElseRegion=*/true);
    OpBuilder then = guard.getThenBodyBuilder();
    scf::YieldOp::create(then, loc, clonePlanner(then));
    // Else: an earlier op failed; keep its status.
    OpBuilder otherwise = guard.getElseBodyBuilder();
    scf::YieldOp::create(otherwise, loc, status);
    return guard.getResult(0);
  }
};

} // namespace
