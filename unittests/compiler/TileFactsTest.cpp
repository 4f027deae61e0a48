// The tile dialect's instruction facts (PipeOpInterface), declared once per
// op in TileOps.td: every instruction states them, they agree with each
// other, each element-wise form's operands are the op's own (an op of the
// form built with them verifies), and tile-mark-fusion's reading of an op
// (getLaneOp) is the op's declared form, operation and element-wise
// operands.
#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Tile/Transforms/Fusion.h"
#include "wsp/InitAllDialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace mlir;
using namespace mlir::wsp::tile;

namespace {

class TileFacts : public ::testing::Test {
protected:
  TileFacts() {
    DialectRegistry registry;
    wsp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The tile dialect's registered ops that are instructions, with their
  /// facts.
  SmallVector<
      std::pair<RegisteredOperationName, const PipeOpInterface::Concept *>>
  instructions() {
    SmallVector<
        std::pair<RegisteredOperationName, const PipeOpInterface::Concept *>>
        result;
    for (RegisteredOperationName name : context.getRegisteredOperations())
      if (name.getDialectNamespace() == "tile")
        if (auto *facts = name.getInterface<PipeOpInterface>())
          result.push_back({name, facts});
    return result;
  }

  MLIRContext context;
};

/// The forms in which an instruction computes something (ElementwiseKind).
bool computes(LaneKind k) {
  return k == LaneKind::binary || k == LaneKind::unary ||
         k == LaneKind::scalar || k == LaneKind::row_broadcast ||
         k == LaneKind::col_broadcast || k == LaneKind::row_reduce ||
         k == LaneKind::col_reduce;
}

TEST_F(TileFacts, EveryOpIsAnInstructionWithItsFacts) {
  // The ops that are no instruction: tile handles, flags, the block.
  const std::set<std::string> others = {
      "tile.alloc",       "tile.subview",     "tile.reshape",
      "tile.set_flag",    "tile.wait_flag",   "tile.barrier",
      "tile.sync_set",    "tile.sync_wait",   "tile.block_idx",
      "tile.subblock_id", "tile.subblock_num"};
  unsigned tileOps = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "tile")
      continue;
    ++tileOps;
    std::string op = name.getStringRef().str();
    EXPECT_NE(name.hasInterface<PipeOpInterface>(), others.count(op) == 1)
        << op
        << " is an instruction exactly when it is not a handle, a flag "
           "or a query of the block";
  }
  EXPECT_EQ(instructions().size() + others.size(), tileOps);

  for (auto [name, facts] : instructions()) {
    std::string op = name.getStringRef().str();
    StringRef pto = facts->getInstructionName();
    EXPECT_FALSE(pto.empty()) << op;
    EXPECT_TRUE(
        llvm::all_of(pto, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
        << op << ": " << pto.str() << " is a C++ name";
    LaneKind form = facts->getLaneKind();
    ElementwiseKind fn = facts->getElementwiseKind();
    unsigned elementwise = facts->getNumElementwiseOperands();
    // sync and load_column are tile-mark-fusion's readings of ops, not
    // forms an instruction declares.
    EXPECT_NE(form, LaneKind::sync) << op;
    EXPECT_NE(form, LaneKind::load_column) << op;
    // An operation exactly for the forms that compute one.
    EXPECT_EQ(fn != ElementwiseKind::none, computes(form))
        << op << ": form " << stringifyLaneKind(form).str() << ", computes "
        << stringifyElementwiseKind(fn).str();
    // The element-wise forms go along dst and src (and rhs) element by
    // element; reductions, loads and stores do not.
    switch (form) {
    case LaneKind::binary:
      EXPECT_EQ(elementwise, 3u) << op;
      break;
    case LaneKind::unary:
    case LaneKind::scalar:
    case LaneKind::convert:
    case LaneKind::row_broadcast:
    case LaneKind::col_broadcast:
      EXPECT_EQ(elementwise, 2u) << op;
      break;
    case LaneKind::row_reduce:
    case LaneKind::col_reduce:
    case LaneKind::load:
    case LaneKind::store:
      EXPECT_EQ(elementwise, 0u) << op;
      break;
    default:
      break;
    }
  }
}

TEST_F(TileFacts, FormsAreTheOpsOperandsAndFusionReadsThem) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      R"mlir(
func.func @forms(%x: f32) {
  %t = tile.alloc at 0 : !tile.tile<vec, 16x128xf32>
  %h = tile.alloc at 8192 : !tile.tile<vec, 16x128xbf16>
  %r = tile.alloc at 12288 : !tile.tile<vec, 16x1xf32, col_major>
  %c = tile.alloc at 12800 : !tile.tile<vec, 1x128xf32>
  return
}
)mlir",
      &context);
  ASSERT_TRUE(module);
  auto fn = cast<func::FuncOp>(module->getBody()->front());
  Block &body = fn.getBody().front();
  auto allocs = llvm::to_vector(body.getOps<AllocOp>());
  Value t = allocs[0], h = allocs[1], r = allocs[2], c = allocs[3];
  Value x = fn.getArgument(0);
  OpBuilder builder(body.getTerminator());

  unsigned built = 0, fused = 0;
  for (auto [name, facts] : instructions()) {
    std::string op = name.getStringRef().str();
    LaneKind form = facts->getLaneKind();
    // An op of the form, with the form's operands (in its order).
    SmallVector<Value> operands;
    switch (form) {
    case LaneKind::convert:
      operands = {t, h};
      break;
    case LaneKind::binary:
      operands = {t, t, t};
      break;
    case LaneKind::unary:
      operands = {t, t};
      break;
    case LaneKind::scalar:
      operands = {t, t, x};
      break;
    case LaneKind::row_broadcast:
      operands = {t, t, r, t};
      break;
    case LaneKind::col_broadcast:
      operands = {t, t, c};
      break;
    case LaneKind::row_reduce:
      operands = {r, t, t};
      break;
    case LaneKind::col_reduce:
      operands = {c, t};
      break;
    default:
      continue; // none, load, store: no operands of a form
    }
    OperationState state(builder.getUnknownLoc(), name);
    state.addOperands(operands);
    Operation *instr = builder.create(state);
    ++built;
    EXPECT_TRUE(succeeded(verify(instr)))
        << op << " has the operands of the form "
        << stringifyLaneKind(form).str();

    // What tile-mark-fusion reads from it: the op's own facts.
    std::optional<LaneOp> l = getLaneOp(instr);
    if (!l)
      continue; // a form or an operation the lanes do not compute
    ++fused;
    EXPECT_EQ(l->kind, form) << op;
    EXPECT_EQ(l->fn, facts->getElementwiseKind()) << op;
    if (form == LaneKind::row_reduce) {
      // A reduction's result is no element-wise tile of the group's.
      EXPECT_EQ(l->reduced, instr->getOperand(0)) << op;
      EXPECT_FALSE(l->dst) << op;
      continue;
    }
    // The lanes go along exactly the element-wise operands.
    SmallVector<Value> along;
    if (l->dst)
      along.push_back(l->dst);
    llvm::append_range(along, l->sources);
    EXPECT_EQ(along.size(), facts->getNumElementwiseOperands()) << op;
    ASSERT_LE(along.size(), instr->getNumOperands()) << op;
    for (auto [i, v] : llvm::enumerate(along)) {
      EXPECT_EQ(v, instr->getOperand(i)) << op << " operand " << i;
    }
  }
  // The ops of a form today: cvt, 6 binary, 5 unary, 6 scalar, 6 + 6
  // broadcasts, 3 + 3 reductions; the lanes compute all but exp, log,
  // sqrt, rsqrt and the column reductions.
  EXPECT_GE(built, 36u);
  EXPECT_GE(fused, 29u);
}

} // namespace
