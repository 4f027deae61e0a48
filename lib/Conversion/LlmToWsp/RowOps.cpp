//===- RowOps.cpp - the row operators -------------------------------------===//
//
// The row operators: rms_norm, scale_dynamic_quant, add_rms_norm_dynamic_quant
// (one work unit = a range of token rows) and head_rms_norm (a range of
// tokens, each token's heads in blocks of kRows). Fragments:
// Templates/RowOps.mlir.in.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "wsp/Dialect/Llm/IR/LlmOps.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Support/Layouts.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <pto/runtime/hardware.hpp>

using namespace mlir;
using namespace mlir::wsp;
using namespace mlir::wsp::lowering;

namespace {

//===----------------------------------------------------------------------===//
// Row-wise operators: one work unit = a range of token rows
//===----------------------------------------------------------------------===//

/// What a row-wise operand is, for its run-time checks: rows
/// [num_tokens, hidden_size], one value per token [num_tokens], or one per
/// channel [hidden_size].
enum class RowRole { Rows, PerToken, PerChannel };

/// A row-wise op's operands (null optional ones left out) and roles.
struct RowOperand {
  std::string name;
  Value value;
  RowRole role;
};

/// The widest column block of the scaled sum of squares (its tiles are the
/// rare path's own, so they are kept small).
constexpr int64_t kSumsqBlock = 128;

/// What the scaled sum of squares reads a chunk again from: the rows, the
/// rows plus the residual, or a token's heads.
enum class SumsqSource { Rows, RowsAddResidual, Heads };

/// The sum of squares and rstd of a kernel whose tiles have `rows` rows of
/// `cols` columns (the sumsq_* fragments and rstd_of_sum, the recipe's one
/// home): its check looks at the sums in `%<sum>_row` and sets `overflow`.
void addSumOfSquares(Params &v, int64_t rows, int64_t cols, StringRef sum,
                     StringRef overflow, SumsqSource source) {
  v["SUMSQ_CONSTANTS"] = kSumsqConstants;
  v["SUMSQ_TILES"] = kSumsqTiles;
  v["SUMSQ_CHECK"] =
      fillKeys(kSumsqCheck, {{"SUM", sum.str()}, {"OVERFLOW", overflow.str()}});
  v["SUMSQ_SCALED"] = kSumsqScaled;
  v["SUMSQ_LOAD"] = source == SumsqSource::Rows    ? kSumsqLoadRows
                    : source == SumsqSource::Heads ? kSumsqLoadHeads
                                                   : kSumsqLoadRowsAddResidual;
  v["SUMSQ_LOAD_TILES"] =
      source == SumsqSource::RowsAddResidual ? kSumsqResidualTiles : "";
  v["RSTD_OF_SUM"] = kRstdOfSum;
  // The scaled sum's blocks of at most 128 columns; the check's bit per
  // row, in whole 32-byte rows of bytes; the row broadcast's scratch, 256
  // bytes per 8 rows (pto-isa's).
  const int64_t block = largestDivisor(cols, kSumsqBlock, 16);
  std::string r = std::to_string(rows), b = std::to_string(block);
  v.set("SUMSQ_BLOCK", block);
  v["SUMSQ_F32"] = rowsTileType("vec", r, b, "f32");
  v["SUMSQ_BF16"] = rowsTileType("vec", r, b, "bf16");
  v["MASK_ROW"] =
      tileType("vec", "1", std::to_string(roundUp((rows + 7) / 8, 32)), "i8");
  v["BCAST_TILE"] =
      tileType("vec", std::to_string((rows + 7) / 8), "64", "f32");
}

/// Lowers a row-wise op: the planner over its token rows and the kernel
/// `body` (a sequence of the row_ops fragments, closed by row_kernel_end).
/// Per-channel operands get a [1 x COLS] f32 tile `%<name>_f`, loaded by
/// `${LOAD_<name>}` (through a bf16 tile when they are bf16): the
/// channel_tile and load_channel_* fragments. An op with RMS statistics
/// (rstd) gives what its scaled sum of squares reads again, `sumsq`.
FailureOr<Lowered> lowerRowOp(Operation *op, StringRef name, int64_t cores,
                              ArrayRef<RowOperand> operands, int64_t align,
                              StringRef body, Params v,
                              std::optional<SumsqSource> sumsq = {},
                              int64_t maxCols = kMaxCols) {
  SmallVector<NamedOperand> args;
  for (const RowOperand &o : operands)
    if (o.value)
      args.push_back({o.name, o.value});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  Value x = args.front().value; // hidden_states
  FailureOr<int64_t> cols = rowChunk(op, x, align, maxCols);
  if (failed(cols))
    return failure();
  int64_t hidden = cast<MemRefType>(x.getType()).getDimSize(1);
  // A row of one chunk: the per-channel operands are loaded once, before
  // the rows, not per chunk.
  const bool wholeRow = *cols == hidden;

  // Every operand's num_tokens and hidden_size, checked at run time; the
  // per-channel operands' tiles.
  SmallVector<DimCheck> dims;
  std::string vectorTiles;
  for (const RowOperand &o : operands) {
    if (!o.value)
      continue;
    std::string type = str(o.value.getType());
    v.setDerived(o.name == "hidden_states"
                     ? "X_TYPE"
                     : llvm::StringRef(o.name).upper() + "_TYPE",
                 type);
    switch (o.role) {
    case RowRole::Rows:
      if (o.name != "hidden_states") {
        dims.push_back({o.name, 0, "%tokens"});
        dims.push_back({o.name, 1, "%hidden"});
      }
      break;
    case RowRole::PerToken:
      dims.push_back({o.name, 0, "%tokens"});
      break;
    case RowRole::PerChannel: {
      dims.push_back({o.name, 0, "%hidden"});
      bool bf16 = cast<MemRefType>(o.value.getType()).getElementType().isBF16();
      Params channel = {{"CHANNEL", o.name},
                        {"CHANNEL_TYPE", type},
                        {"CHANNEL_COL", wholeRow ? "%c0" : "%c"}};
      vectorTiles += fillKeys(kChannelTile, channel);
      if (bf16)
        vectorTiles += fillKeys(kChannelBf16Tile, channel);
      std::string load =
          fillKeys(bf16 ? kLoadChannelBf16 : kLoadChannelF32, channel);
      if (wholeRow)
        vectorTiles += load;
      v.setDerived("LOAD_" + o.name, wholeRow ? "" : load);
      break;
    }
    }
  }

  Builder b(op->getContext());
  v.setDefaults({{"HIDDEN", std::to_string(hidden)},
                 {"INV_HIDDEN", str(b.getF32FloatAttr(1.0f / float(hidden)))},
                 {"VECTOR_TILES", vectorTiles}});
  addPlanValues(v, name, args, cores);
  addTileValues(v, *cols);
  if (sumsq) {
    // Without a residual the chunks can be read again after pass 1: one
    // check per tile. With one, each chunk's sum is checked before its
    // after_res is stored (an in-place after_res overwrites the residual).
    bool perChunk = *sumsq == SumsqSource::RowsAddResidual;
    v["PASS1"] = perChunk ? kPass1CheckedPerChunk : kPass1CheckedPerTile;
    addSumOfSquares(v, kRows, *cols, perChunk ? "sum" : "ss",
                    perChunk ? "%overflow" : "%scaled", *sumsq);
  }
  v["CHECKS"] = checks(args, dims);
  return instantiate(op, v, kRowPlanner, body, args);
}

/// The pieces of the rms statistics for an op with an optional residual;
/// what its scaled sum of squares reads again.
SumsqSource addRstd(Params &v, Value residual, FloatAttr eps) {
  v.set("EPS", eps);
  v["PASS1_LOAD"] = residual ? kLoadRowsAddResidual : kLoadRows;
  v["PASS1_STORE"] = residual ? kStoreAfterRes : "";
  v["SOURCE"] = residual ? "after_res" : "hidden_states";
  v["SOURCE_TYPE"] = residual ? "${AFTER_RES_TYPE}" : "${X_TYPE}";
  v["NORMED"] = kNormed;
  return residual ? SumsqSource::RowsAddResidual : SumsqSource::Rows;
}

/// The widest row rms_norm without a residual normalizes in one pass, and
/// scale_dynamic_quant quantizes: their bf16 and two f32 [kRows x 2048]
/// tiles (the quantization's conversion tiles in the second f32's bytes),
/// the per-channel operand's and the statistics fit in UB.
constexpr int64_t kOnePassCols = 2048;

/// Whether a row of `hidden` columns (a multiple of `align`) is one chunk
/// of a one-pass kernel.
bool isOnePassRow(Value hiddenStates, int64_t align) {
  int64_t hidden = cast<MemRefType>(hiddenStates.getType()).getDimSize(1);
  return !ShapedType::isDynamic(hidden) && hidden % align == 0 &&
         hidden <= kOnePassCols;
}

FailureOr<Lowered> lowerRmsNorm(llm::RmsNormOp op, StringRef name,
                                int64_t cores) {
  Params v;
  SumsqSource sumsq = addRstd(v, op.getResidual(), op.getEpsAttr());
  // Without a residual, a row of at most kOnePassCols is one chunk: pass 2
  // normalizes what pass 1 loaded (normed_in_place), each row read once.
  const bool onePass =
      !op.getResidual() && isOnePassRow(op.getHiddenStates(), 16);
  v["NORMED_TILE"] = "%xb";
  if (onePass) {
    v["NORMED"] = kNormedInPlace;
    v["NORMED_TILE"] = "%yb";
  }
  return lowerRowOp(
      op, name, cores,
      {{"hidden_states", op.getHiddenStates(), RowRole::Rows},
       {"residual", op.getResidual(), RowRole::Rows},
       {"weight", op.getWeight(), RowRole::PerChannel},
       {"y", op.getY(), RowRole::Rows},
       {"after_res", op.getAfterRes(), RowRole::Rows}},
      /*align=*/16,
      (kRowKernelBegin + kRstd + kStoreNormed + kRowKernelEnd).str(), v, sumsq,
      onePass ? kOnePassCols : kMaxCols);
}

FailureOr<Lowered> lowerScaleDynamicQuant(llm::ScaleDynamicQuantOp op,
                                          StringRef name, int64_t cores) {
  Params v;
  v["QUANT_INPUT"] = kSmoothInput;
  v["SMOOTHED"] = kLoadRows;
  v["SCALE"] = "scale";
  v.set("SCALE_TYPE", op.getScale().getType());
  // A row of at most kOnePassCols is one chunk, smoothed once into %xf and
  // quantized from there: each row read from global memory once.
  const bool onePass = isOnePassRow(op.getHiddenStates(), 32);
  addQuantValues(v, onePass);
  return lowerRowOp(op, name, cores,
                    {{"hidden_states", op.getHiddenStates(), RowRole::Rows},
                     {"smooth_scale", op.getSmoothScale(), RowRole::PerChannel},
                     {"y", op.getY(), RowRole::Rows},
                     {"scale", op.getScale(), RowRole::PerToken}},
                    /*align=*/32,
                    (kRowKernelBegin + kQuant + kRowKernelEnd).str(), v,
                    /*sumsq=*/{}, onePass ? kOnePassCols : kMaxCols);
}

FailureOr<Lowered> lowerAddRmsNormDynamicQuant(llm::AddRmsNormDynamicQuantOp op,
                                               StringRef name, int64_t cores) {
  Params v;
  SumsqSource sumsq = addRstd(v, op.getResidual(), op.getEpsAttr());
  v["QUANT_INPUT"] = kSmoothInput;
  v["SMOOTHED"] = kNormed;
  v["SCALE"] = "per_token_scale";
  v.set("SCALE_TYPE", op.getPerTokenScale().getType());
  addQuantValues(v, /*rowKept=*/false);
  return lowerRowOp(
      op, name, cores,
      {{"hidden_states", op.getHiddenStates(), RowRole::Rows},
       {"residual", op.getResidual(), RowRole::Rows},
       {"weight", op.getWeight(), RowRole::PerChannel},
       {"smooth_scale", op.getSmoothScale(), RowRole::PerChannel},
       {"y", op.getY(), RowRole::Rows},
       {"per_token_scale", op.getPerTokenScale(), RowRole::PerToken},
       {"after_res", op.getAfterRes(), RowRole::Rows}},
      /*align=*/32, (kRowKernelBegin + kRstd + kQuant + kRowKernelEnd).str(), v,
      sumsq);
}

//===----------------------------------------------------------------------===//
// head_rms_norm: one work unit = a range of tokens, each token's heads in
// blocks of kRows
//===----------------------------------------------------------------------===//

FailureOr<Lowered> lowerHeadRmsNorm(llm::HeadRmsNormOp op, StringRef name,
                                    int64_t cores) {
  SmallVector<NamedOperand> args = {{"hidden_states", op.getHiddenStates()},
                                    {"weight", op.getWeight()},
                                    {"y", op.getY()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto xType = cast<MemRefType>(op.getHiddenStates().getType());
  int64_t dim = xType.getDimSize(2);
  if (ShapedType::isDynamic(dim))
    return op.emitOpError("lowers with a static head_dim only: its tiles are "
                          "sized at compile time");
  if (dim % 16 || dim > kMaxCols)
    return op.emitOpError("lowers with head_dim a multiple of 16 up to ")
           << kMaxCols << " (one bf16 tile row per head), got " << dim;
  int64_t lo = int32_t(op.getHeadOffset()), num = int32_t(op.getHeadNum());

  Params v;
  Builder b(op.getContext());
  v.set("HIDDEN", dim);
  v.set("INV_HIDDEN", b.getF32FloatAttr(1.0f / float(dim)));
  v.set("EPS", op.getEpsAttr());
  v.set("HEAD_LO", lo);
  v.set("HEAD_HI", lo + num);
  v.set("X_TYPE", xType);
  v.set("Y_TYPE", op.getY().getType());
  v.set("WEIGHT_TYPE", op.getWeight().getType());
  addPlanValues(v, name, args, cores);
  // The range's heads in one tile where UB allows: the bf16 and two f32
  // [rows x head_dim] tiles, the scaled sum of squares' bf16 and f32
  // blocks, and four row statistics per row (the sum of squares, the
  // scale, the largest value and a block's).
  const int64_t headRows = headTileRows(
      num, dim * (2 + 4 + 4) + largestDivisor(dim, kSumsqBlock, 16) * (2 + 4) +
               4 * 4);
  v.set("HEAD_ROWS", headRows);
  addTileValues(v, dim, headRows);
  addSumOfSquares(v, headRows, dim, "ss", "%scaled", SumsqSource::Heads);
  // The weight rows as f32 in %sq (through %xb when they are bf16).
  v["LOAD_WEIGHT_ROWS"] =
      cast<MemRefType>(op.getWeight().getType()).getElementType().isBF16()
          ? kLoadWeightRowsBf16
          : kLoadWeightRowsF32;
  // In place (y is hidden_states) the other heads are already there.
  if (op.getY() == op.getHiddenStates()) {
    v["COPY"] = "";
  } else {
    v["COPY"] = kCopyOtherHeads;
    v["HEADS_BELOW"] =
        fillKeys(kCopyHeads, {{"LO", "%c0"}, {"HI", "%head_lo"}});
    v["HEADS_ABOVE"] =
        fillKeys(kCopyHeads, {{"LO", "%head_hi"}, {"HI", "%total_heads"}});
  }
  // Run time: y has hidden_states' shape, weight is [head_num, head_dim],
  // and the head range fits.
  v.set("HEAD_NUM", num);
  v["CHECKS"] = kHeadRmsNormChecks;
  v["DIM_CHECKS"] = checksAnd(args,
                              {{"y", 0, "%tokens"},
                               {"y", 1, "%total_heads"},
                               {"y", 2, "%hidden"},
                               {"weight", 0, "%head_num"},
                               {"weight", 1, "%hidden"}},
                              "%heads_fit");
  return instantiate(op, v, kRowPlanner, kHeadRmsNormKernel, args);
}

} // namespace

void lowering::populateRowOpLowerings(LoweringRegistry &registry) {
  registry.add<llm::RmsNormOp>(lowerRmsNorm);
  registry.add<llm::ScaleDynamicQuantOp>(lowerScaleDynamicQuant);
  registry.add<llm::AddRmsNormDynamicQuantOp>(lowerAddRmsNormDynamicQuant);
  registry.add<llm::HeadRmsNormOp>(lowerHeadRmsNorm);
}
