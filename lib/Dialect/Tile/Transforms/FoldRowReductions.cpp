//===- FoldRowReductions.cpp - long row reductions in two steps -----------===//
//
// tile.rowsum / rowmax / rowmin of a long [R x C] row-major tile becomes a
// reduction of the same bytes seen as [kR x C/k] (k pieces per row) into a
// [kR x 1] tile of partials, then a reduction of those seen as [R x k].
// See Passes.td (tile-fold-row-reductions) and docs/rationale/Backend.md.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include <pto/runtime/hardware.hpp>

namespace mlir::wsp::tile {
#define GEN_PASS_DEF_TILEFOLDROWREDUCTIONS
#include "wsp/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::wsp::tile

using namespace mlir;
using namespace mlir::wsp::tile;

namespace {

/// The bytes of one vector repeat and of one block (a row of a vec tile
/// is whole blocks).
constexpr int64_t kRepeatBytes = ::pto::runtime::kVectorRepeatBytes;
constexpr int64_t kBlockBytes = ::pto::runtime::kTileAlignBytes;

/// How many pieces each row of `src` is cut into, or 0 when the reduction
/// stays as it is (rows of fewer than `minRepeats` repeats among them).
int64_t piecesOf(TileType src, int64_t minRepeats) {
  if (src.getLoc() != TileLoc::vec ||
      src.getLayout() != TileLayout::row_major || !src.hasStaticShape())
    return 0;
  const int64_t bytes = src.getElementBytes();
  if (bytes <= 0 || kBlockBytes % bytes)
    return 0;
  const int64_t k = kBlockBytes / bytes, cols = src.getCols();
  // Whole valid rows; pieces of whole blocks, each at least one repeat.
  ArrayRef<int64_t> valid = src.getValidShape();
  if (valid[1] != cols || cols % (k * k) || (cols / k) * bytes < kRepeatBytes ||
      cols * bytes < minRepeats * kRepeatBytes)
    return 0;
  return k;
}

/// The source's name of `v` (the NameLoc the tools that parse a program
/// put on its definition, wsp/Support/SourceNames.h), or "row".
std::string nameOf(Value v) {
  Location loc = v.getDefiningOp() ? v.getDefiningOp()->getLoc() : v.getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc);
      fused && !fused.getLocations().empty())
    loc = fused.getLocations().front();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return "row";
}

template <typename ReduceOp> bool fold(ReduceOp op, int64_t minRepeats) {
  TileType src = cast<TileType>(op.getSrc().getType());
  TileType dst = cast<TileType>(op.getDst().getType());
  const int64_t k = piecesOf(src, minRepeats);
  if (!k)
    return false;
  // The valid rows: all R, a static count below R, or a run-time one (the
  // `valid` operand of the alloc or subview that made `src`).
  const int64_t validRows = src.getValidShape()[0];
  const bool dynamicRows = ShapedType::isDynamic(validRows);
  Value rows = dynamicRows ? getDynamicValidExtent(op.getSrc(), 0) : Value();
  if (dynamicRows && !rows)
    return false;
  // The partials' statistics tile must be able to hold the destination's
  // rows: the destination is a [R x 1] column (the verifier's rule).
  if (dst.getRows() != src.getRows())
    return false;

  MLIRContext *ctx = op.getContext();
  // The views, the count and the partials' tile are made before the run
  // of instructions the reduction is in: at the start of its block, or
  // after what they view where that is in the block. The two steps then
  // sit where the reduction was, among those instructions, which the CPU
  // simulation computes together (tile-mark-fusion).
  OpBuilder b(op->getBlock(), op->getBlock()->begin());
  for (Value v : {Value(op.getSrc()), Value(op.getTmp()), rows}) {
    Operation *def = v ? v.getDefiningOp() : nullptr;
    if (def && def->getBlock() == op->getBlock() &&
        (b.getInsertionPoint() == op->getBlock()->begin() ||
         std::prev(b.getInsertionPoint())->isBeforeInBlock(def)))
      b.setInsertionPointAfter(def);
  }
  OpBuilder steps(op);
  Location loc = op.getLoc();
  const int64_t r = src.getRows(), c = src.getCols();
  const bool someRows = dynamicRows || validRows < r;
  Type elem = src.getElementType();
  auto tileOf = [&](int64_t rows, int64_t cols, TileLayout layout,
                    int64_t valid) {
    return TileType::get(ctx, TileLoc::vec, {rows, cols}, elem, {valid, cols},
                         layout);
  };
  // Step 1: [kR x C/k] pieces (k a row; those of the valid rows valid),
  // each reduced into a partial.
  const int64_t pieceRows = dynamicRows ? ShapedType::kDynamic : k * validRows;
  TileType pieces = tileOf(k * r, c / k, TileLayout::row_major, k * r);
  TileType validPieces = tileOf(k * r, c / k, TileLayout::row_major, pieceRows);
  TileType partials = tileOf(k * r, 1, TileLayout::col_major, pieceRows);
  // The new values are named after `src` for the emitted code.
  const std::string base = nameOf(op.getSrc());
  auto named = [&](StringRef suffix) {
    return NameLoc::get(StringAttr::get(ctx, base + suffix), loc);
  };
  Value zero = someRows ? arith::ConstantIndexOp::create(b, loc, 0) : Value();
  SmallVector<Value, 1> pieceCount;
  if (dynamicRows)
    pieceCount.push_back(arith::MulIOp::create(
        b, named("_piece_rows"), rows,
        arith::ConstantIndexOp::create(b, named("_pieces_per_row"), k)));
  auto view = [&](Value tile) -> Value {
    Location at = named(tile == op.getSrc() ? "_pieces" : "_tmp_pieces");
    Value v = ReshapeOp::create(b, at, pieces, tile);
    if (!someRows)
      return v;
    return SubviewOp::create(b, at, validPieces, v, zero, zero, pieceCount);
  };
  Value piecesSrc = view(op.getSrc());
  Value piecesTmp = op.getTmp() == op.getSrc() ? piecesSrc : view(op.getTmp());
  Value part =
      AllocOp::create(b, named("_partials"), partials,
                      /*dynamic_shape=*/ValueRange{},
                      /*dynamic_valid=*/pieceCount, /*slot=*/Value(),
                      /*buffers=*/IntegerAttr(), /*offset=*/IntegerAttr())
          .getResult();
  // Step 2's view: the k partials of each row, one [1 x k] row each.
  TileType flat = tileOf(1, k * r, TileLayout::row_major, 1);
  TileType byRow = tileOf(r, k, TileLayout::row_major, r);
  Location byRowLoc = named("_partials_by_row");
  Value flatPart = ReshapeOp::create(b, named("_partials_flat"), flat, part);
  Value rowsOfParts = ReshapeOp::create(b, byRowLoc, byRow, flatPart);
  if (someRows)
    rowsOfParts = SubviewOp::create(
        b, byRowLoc, tileOf(r, k, TileLayout::row_major, validRows),
        rowsOfParts, zero, zero, dynamicRows ? ValueRange{rows} : ValueRange{});
  ReduceOp::create(steps, loc, part, piecesSrc, piecesTmp);
  ReduceOp::create(steps, loc, op.getDst(), rowsOfParts, rowsOfParts);
  op.erase();
  return true;
}

struct FoldRowReductionsPass
    : public mlir::wsp::tile::impl::TileFoldRowReductionsBase<
          FoldRowReductionsPass> {
  using TileFoldRowReductionsBase::TileFoldRowReductionsBase;
  void runOnOperation() override {
    SmallVector<Operation *> reductions;
    getOperation()->walk([&](Operation *op) {
      if (isa<RowSumOp, RowMaxOp, RowMinOp>(op))
        reductions.push_back(op);
    });
    // Last first: each puts its views before the run it is in, so the
    // views of a block's reductions come in the reductions' order.
    for (Operation *op : llvm::reverse(reductions)) {
      bool folded = false;
      if (auto sum = dyn_cast<RowSumOp>(op))
        folded = fold(sum, minRepeats);
      else if (auto max = dyn_cast<RowMaxOp>(op))
        folded = fold(max, minRepeats);
      else if (auto min = dyn_cast<RowMinOp>(op))
        folded = fold(min, minRepeats);
      numFolded += folded;
    }
  }
};

} // namespace
