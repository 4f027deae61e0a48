//===- wsp-mask-view.cpp - draw a decode attention mask -------------------===//
//
// Prints a mask as gen_mask_tkg draws it: `#` attend, `·` masked, the cache
// slots of this core's tile then the active columns, one row per query.
//
//   wsp-mask-view --mode=sliding --window=8 --kv=flat --s-prior=16
//                 --s-active=4 --pos=3 [--shard=sequence --core=1]
//
// The values are computed by the lowering itself: the tool builds, with
// constant inputs, the same IR wsp-lower-masks builds (buildMaskShardLayout,
// buildMaskValue), and MLIR's folders evaluate it. There is no second
// implementation of the mask here.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/Transforms/Masks.h"
#include "wsp/InitAllDialects.h"
#include "wsp/Support/ToolOptions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory
    category(WSP_TOOL_CATEGORY("Drawing", "wsp-mask-view"));

/// The largest grid the tool draws (a drawing, not a computation): columns
/// (prior slots + active) and rows; positions and windows stay far from
/// index overflow.
constexpr int64_t kMaxColumns = 1024, kMaxRows = 256;
constexpr int64_t kMaxPosition = int64_t(1) << 40;

static cl::opt<std::string>
    mode("mode", cl::init("standard"),
         cl::desc("standard or sliding (default standard)"), cl::cat(category));
static cl::opt<int64_t> window(
    "window", cl::init(0),
    cl::desc("Sliding window W in tokens, with --mode=sliding (default 0)"),
    cl::cat(category));
static cl::opt<std::string>
    kv("kv", cl::init("flat"),
       cl::desc("flat (circular) or block KV (default flat)"),
       cl::cat(category));
static cl::opt<int64_t> sPrior("s-prior", cl::init(16),
                               cl::desc("Cache length incl. active slots "
                                        "(with --s-active, at most 1024 "
                                        "columns; default 16)"),
                               cl::cat(category));
static cl::opt<int64_t>
    sActive("s-active", cl::init(4),
            cl::desc("New tokens (queries), at most 256 (default 4)"),
            cl::cat(category));
static cl::opt<int64_t> posId("pos", cl::init(16),
                              cl::desc("pos_id of the batch; query i is at "
                                       "pos + i (default 16)"),
                              cl::cat(category));
static cl::opt<std::string> shardMode("shard", cl::init("none"),
                                      cl::desc("LNC2 sharding: none, batch or "
                                               "sequence (default none)"),
                                      cl::cat(category));
static cl::opt<int64_t> core("core", cl::init(0),
                             cl::desc("LNC2 core: 0 or 1 (default 0)"),
                             cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "wsp-mask-view: error: " << message << "\n";
  return 1;
}

/// Folds `values` (built into a function's return) to constants.
static FailureOr<std::vector<int64_t>>
evaluate(MLIRContext &context,
         function_ref<SmallVector<Value>(OpBuilder &, Location)> build) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto fn = func::FuncOp::create(b, loc, "view", b.getFunctionType({}, {}));
  b.setInsertionPointToStart(fn.addEntryBlock());
  SmallVector<Value> values = build(b, loc);
  func::ReturnOp::create(b, loc, values);
  fn.setFunctionType(b.getFunctionType({}, ValueRange(values).getTypes()));
  PassManager pm(&context, ModuleOp::getOperationName());
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(*module)))
    return failure();
  std::vector<int64_t> out;
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (Value v : ret.getOperands()) {
    APInt value;
    if (!matchPattern(v, m_ConstantInt(&value)))
      return failure();
    out.push_back(value.getZExtValue());
  }
  return out;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "draw a decode attention mask\n");
  if (mode != "standard" && mode != "sliding")
    return fail("--mode must be standard or sliding");
  if (kv != "flat" && kv != "block")
    return fail("--kv must be flat or block");
  if (mode == "sliding" && window < 1)
    return fail("--window must be > 0 for a sliding mask");
  if (mode == "standard" && window != 0)
    return fail("--window applies to sliding masks only");
  if (sPrior < 1 || sActive < 1 || posId < 0)
    return fail("--s-prior and --s-active must be > 0, --pos >= 0");
  // (Compared without adding: --s-prior may be near INT64_MAX.)
  if (sActive > kMaxRows || sPrior > kMaxColumns - sActive)
    return fail("the grid is too large to draw: --s-prior + --s-active must "
                "be at most " + llvm::Twine(kMaxColumns) +
                " columns and --s-active at most " + llvm::Twine(kMaxRows) +
                " rows");
  if (posId > kMaxPosition || window > kMaxPosition)
    return fail("--pos and --window must be at most 2^40");
  wsp::MaskShard sharding;
  if (shardMode == "none")
    sharding = wsp::MaskShard::none;
  else if (shardMode == "batch")
    sharding = wsp::MaskShard::batch;
  else if (shardMode == "sequence")
    sharding = wsp::MaskShard::sequence;
  else
    return fail("--shard must be none, batch or sequence");
  if (core < 0 || core > 1 || (sharding == wsp::MaskShard::none && core != 0))
    return fail("--core must be 0 or 1, and only with --shard");
  if (sharding == wsp::MaskShard::sequence && sPrior % 2 != 0)
    return fail("sequence sharding needs an even --s-prior");

  DialectRegistry registry;
  wsp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto idx = [](OpBuilder &b, Location loc, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };

  // This core's tile, from the lowering's layout builder.
  FailureOr<std::vector<int64_t>> layout =
      evaluate(context, [&](OpBuilder &b, Location loc) {
        wsp::MaskShardLayout l =
            wsp::buildMaskShardLayout(b, loc, sharding, idx(b, loc, core),
                                      idx(b, loc, sPrior), idx(b, loc, 1));
        return SmallVector<Value>{l.offset, l.prior};
      });
  if (failed(layout))
    return fail("the shard layout did not fold to constants");
  const int64_t offset = (*layout)[0], prior = (*layout)[1];
  const int64_t cols = prior + sActive;

  // Every element, from the lowering's element builder.
  FailureOr<std::vector<int64_t>> grid =
      evaluate(context, [&](OpBuilder &b, Location loc) {
        SmallVector<Value> values;
        for (int64_t q = 0; q < sActive; ++q)
          for (int64_t c = 0; c < cols; ++c) {
            wsp::MaskElement e{mode == "sliding" ? wsp::MaskKind::sliding
                                                 : wsp::MaskKind::standard,
                               window,
                               kv == "flat" ? wsp::KvLayout::flat
                                            : wsp::KvLayout::block,
                               idx(b, loc, c),
                               idx(b, loc, q),
                               idx(b, loc, posId + q),
                               idx(b, loc, prior),
                               idx(b, loc, sActive),
                               idx(b, loc, offset),
                               idx(b, loc, sPrior),
                               Value()};
            values.push_back(wsp::buildMaskValue(b, loc, e));
          }
        return values;
      });
  if (failed(grid))
    return fail("the mask did not fold to constants");

  // Draw it as the seed does: prior slots offset.., then active columns
  // s_prior.. (their columns in the QK matrix).
  auto &os = llvm::outs();
  std::string label = "k/v_prior (cols " + std::to_string(offset) + "\u2013" +
                      std::to_string(offset + prior - 1) + ")";
  const int64_t labelWidth = 14 + static_cast<int64_t>(label.size()) - 2;
  os.indent(14) << label;
  os.indent(std::max<int64_t>(1, 9 + 3 * prior - labelWidth))
      << "\u2502 k/v_active\n";
  os.indent(9);
  for (int64_t c = 0; c < prior; ++c) {
    std::string n = std::to_string(offset + c);
    os << n;
    os.indent(std::max<int64_t>(1, 3 - static_cast<int64_t>(n.size())));
  }
  os << "\u2502";
  for (int64_t c = 0; c < sActive; ++c)
    os << " " << sPrior + c;
  os << "\n";
  auto rule = [&](const char *left, const char *mid, const char *sep,
                  const char *right) {
    os.indent(8) << left;
    for (int64_t c = 0; c < cols; ++c) {
      os << "\u2500\u2500";
      if (c + 1 < cols)
        os << (c + 1 == prior ? sep : mid);
    }
    os << right << "\n";
  };
  rule("\u250c", "\u252c", "\u253c", "\u2510");
  for (int64_t q = 0; q < sActive; ++q) {
    std::string row = "   q" + std::to_string(q);
    os << row;
    os.indent(std::max<int64_t>(1, 8 - static_cast<int64_t>(row.size())))
        << "\u2502";
    for (int64_t c = 0; c < cols; ++c)
      os << " " << ((*grid)[q * cols + c] ? "#" : "\u00b7") << "\u2502";
    os << "\n";
  }
  rule("\u2514", "\u2534", "\u2534", "\u2518");
  os << "# attends (mask 1), \u00b7 masked (0); row q<i> is the query at "
        "position "
     << posId << " + i, a column the key/value slot it reads\n";
  return 0;
}
