//===- Moe.cpp - the MoE operators ----------------------------------------===//
//
// moe_quant_group_gemm, moe_scatter_dynamic_quant, moe_gather,
// moe_softmax_topk and moe_swiglu_dynamic_quant. Fragments:
// Templates/Moe.mlir.in (the group GEMM's kernel is the matmul family's).
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
// moe_quant_group_gemm: one work unit = (expert, range of its rows, N tile),
// planned from the experts' token counts without padding any expert to a
// block; the quant_matmul kernel with the expert's weight and scale, its M
// tile chosen by the expert's token count (the tier)
//===----------------------------------------------------------------------===//

/// An expert with at most this many rows is "small": its tier multiplies
/// M tiles of kSmallExpertRows rows, the others kMatmulRows.
constexpr int64_t kSmallExpertRows = 16;
/// The widest N tile of a group GEMM whose op does not choose one
/// (`n_tile`).
constexpr int64_t kExpertNTile = 64;
/// A group GEMM's plan: chunks of at least four M tiles of 128 rows (each
/// unit's weight panel, loaded once into L1, then serves 512 rows or
/// more), and as many units as the descriptor buffer holds where the rows
/// allow. A dense matmul's plan (one unit per cube core) made one chunk of
/// every expert whenever the experts outnumbered its limit, and the
/// dispatch deals units to cores in a grid (core c takes c, c + 24, ...):
/// 8 experts of 1536 rows in 4 N tiles were 32 units, two on 8 cores and
/// one on 16, and a hot expert of a skewed prefill was one unit. An expert
/// of a decode step's few rows is one chunk either way. Measured in
/// docs/rationale/Backend.md ("The group GEMM's plan and N tile").
constexpr int64_t kGroupGemmPlanUnits = kMatmulUnits;
constexpr int64_t kGroupGemmChunkRows = 4 * kMatmulRows;

/// The run-time checks of an op whose first argument `rows` (whose sizes
/// checks() takes, checking none of its own) has `wanted` columns, then
/// the dimensions `dims` (cols_checks, checksAnd).
std::string colsChecks(ArrayRef<NamedOperand> args, ArrayRef<DimCheck> dims,
                       StringRef wanted) {
  const NamedOperand &rows = args.front();
  return fillKeys(kColsChecks, {{"COLS_OF", rows.name},
                                {"COLS_OF_TYPE", str(rows.getType())},
                                {"COLS_WANTED", wanted.str()}}) +
         checksAnd(args, dims, "%cols_ok");
}

/// The group GEMM's kernel is kMatmulKernel with these pieces: the tier's
/// M_TILE (16 rows for a small expert, kMatmulRows above) sizes the cube's
/// tiles; the unit's rows are its expert's (kSegmentRows, no shared experts);
/// the expert's weight and scale row.
FailureOr<Lowered> lowerGroupGemm(llm::MoeQuantGroupGemmOp op, StringRef name) {
  SmallVector<NamedOperand> args = {
      {"scatter_tokens", op.getScatterTokens()},
      {"per_token_scale", op.getPerTokenScale()},
      {"experts_weight", op.getExpertsWeight()},
      {"experts_scale", op.getExpertsScale()},
      {"experts_token_count", op.getExpertsTokenCount()},
      {"y", op.getY()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto wType = cast<MemRefType>(op.getExpertsWeight().getType());
  if (!wType.hasStaticShape())
    return op.emitOpError("lowers with a static experts_weight shape only: "
                          "its tiles are sized at compile time");
  int64_t experts = wType.getDimSize(0), k = wType.getDimSize(1),
          n = wType.getDimSize(2);
  // By default narrower N tiles than a dense matmul's: a decode step's
  // experts hold a few rows each, so the units are few and nearly equal,
  // and more of them deal more evenly over the cores (bench-moe-plan). A
  // prefill step's op asks for wider ones (`n_tile`, which the verifier
  // checks divides N): each unit reads its rows once per N tile.
  FailureOr<std::pair<int64_t, int64_t>> tiles =
      matmulTiles(op, k, n, op.getNTile().value_or(kExpertNTile));
  if (failed(tiles))
    return failure();
  const int64_t kTile = tiles->first, nTile = tiles->second;
  MLIRContext *ctx = op.getContext();
  args.push_back({"workspace", Value(),
                  MemRefType::get({kCubeBlocks, kMatmulRows, nTile},
                                  IntegerType::get(ctx, 32))});

  Params v;
  addTypeValues(v, args);
  // The weight is read untransposed: the cube's tiles of an N tile are
  // padded to whole 32 columns, the first nTile valid (cubeNCols).
  std::string m = std::to_string(kMatmulRows), kt = std::to_string(kTile),
              nt = std::to_string(nTile),
              nc = std::to_string(cubeNCols(nTile, /*int8Nz=*/true)),
              er = std::to_string(epilogueRows(nTile));
  const std::string config =
      matmulPlanConfig(kGroupGemmPlanUnits, kGroupGemmChunkRows);
  // The cube's row tiles have the tier's M_TILE rows (a `?` the tier's constant
  // fixes).
  v.setDefaults({{"NAME", name.str()},
                 {"SIGNATURE", signature(args)},
                 {"CALL_ARGS", callArgs(args)},
                 {"UNITS", std::to_string(kMatmulUnits)},
                 {"CONFIG", config},
                 {"TIERS", kMTileTiers.str()},
                 {"SHARED_ROWS", "0"},
                 {"PLAN_CONSTANTS", kGroupGemmPlanConstants.str()},
                 {"ROWS_SOURCE", "scatter_tokens"},
                 {"ROWS_SOURCE_TYPE", "${SCATTER_TOKENS_TYPE}"},
                 {"COUNTS", "experts_token_count"},
                 {"COUNTS_TYPE", "${EXPERTS_TOKEN_COUNT_TYPE}"},
                 {"LENGTHS", ""},
                 {"LENGTHS_NAME", "experts_token_count"},
                 {"SEGMENTS", "%experts"},
                 {"LENGTHS_TYPE", "${EXPERTS_TOKEN_COUNT_TYPE}"},
                 {"HEADS", "%n_tiles"},
                 {"ROUND_CHUNK", kMTileChunks.str()},
                 {"CORES", "mix(${BLOCKS})"},
                 {"SMALL", std::to_string(kSmallExpertRows)},
                 {"SMALL_NEXT", std::to_string(kSmallExpertRows + 1)},
                 {"EXPERTS", std::to_string(experts)},
                 {"N_TILES", std::to_string(n / nTile)},
                 {"BLOCKS", std::to_string(kCubeBlocks)},
                 {"M_TILE", m},
                 {"K_TILE", kt},
                 {"N_TILE", nt},
                 {"K", std::to_string(k)},
                 {"N", std::to_string(n)},
                 {"KERNEL_CONSTANTS", kMTileKernelConstants.str()},
                 {"M_TILE_DEF", kMTileOfTier.str()},
                 {"UNIT_ROWS", kSegmentRows.str()},
                 {"SHARED", "0"},
                 {"PER_RANK", "0"},
                 {"ROW_SHAPE", "shape(%m_tile) "},
                 {"A_SOURCE", "scatter_tokens"},
                 {"A_SOURCE_TYPE", "${SCATTER_TOKENS_TYPE}"},

                 {"COL_TILES", kExpertScaleTile.str()},
                 {"EPILOGUE", kDequantEpilogue.str()},
                 {"LOAD_WEIGHT_SCALE", ""},
                 {"ADD_BIAS", ""},
                 {"ACC", rowsTileType("acc", "?", nc, "i32", /*zn=*/false, nt)},
                 {"A_MAT", rowsTileType("mat", "?", kt, "i8")},
                 {"A_LEFT", rowsTileType("left", "?", kt, "i8")},
                 {"E_ROWS", er},
                 {"ROWS_I32", rowsTileType("vec", er, nt, "i32")},
                 {"ROWS_F32", rowsTileType("vec", er, nt, "f32")},
                 {"ROWS_BF16", rowsTileType("vec", er, nt, "bf16")},
                 {"ROW_STAT", rowStatType(er)},
                 {"COL_F32", tileType("vec", "1", nt, "f32")}});
  v["A_INDICES"] = "%m, %k";
  v["A_TRANSPOSE"] = "";
  // Run time: every operand's dimensions, and the workspace's.
  SmallVector<DimCheck> dims = {{"per_token_scale", 0, "%rows"},
                                {"y", 0, "%rows"},
                                {"y", 1, "%new_hidden"},
                                {"experts_scale", 0, "%experts"},
                                {"experts_scale", 1, "%new_hidden"},
                                {"experts_token_count", 0, "%experts"},
                                {"workspace", 0, "%blocks"},
                                {"workspace", 1, "%m_tile"},
                                {"workspace", 2, "%n_tile"}};
  // (checks() takes sizes from scatter_tokens, so its own columns are
  // checked here.)
  v["CHECKS"] =
      kGroupGemmHiddenSize.str() + colsChecks(args, dims, "%hidden_size");
  v["VECTOR_CORE_ROW_SHARE"] = vectorCoreShare("%rows", "%vn", "%vr");
  addWeightPath(v, k, kTile, cubeNCols(nTile, /*int8Nz=*/true), nTile, "i8",
                /*zn=*/false, kLoadExpertPanel, kLoadExpertB);
  return instantiate(op, v, kExpertPlanner, kMatmulKernel, args);
}

//===----------------------------------------------------------------------===//
// moe_scatter_dynamic_quant: the AICPU counts this rank's routed rows,
// writes experts_token_count and token_offset, then the vector cores
// quantize the rows (the shared experts' first), one gathered row at a time
//===----------------------------------------------------------------------===//

FailureOr<Lowered> lowerScatter(llm::MoeScatterDynamicQuantOp op,
                                StringRef name, int64_t cores) {
  // scatter_tokens is `y` and its scale `scale` inside the templates (the
  // quantization piece writes those).
  SmallVector<NamedOperand> args = {
      {"hidden_states", op.getHiddenStates()},
      {"selected_experts", op.getSelectedExperts()},
      {"smooth_scale", op.getSmoothScale()},
      {"y", op.getScatterTokens()},
      {"scale", op.getScatterPerTokenScale()},
      {"experts_token_count", op.getExpertsTokenCount()},
      {"token_offset", op.getTokenOffset()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto ids = cast<MemRefType>(op.getSelectedExperts().getType());
  auto smooth = cast<MemRefType>(op.getSmoothScale().getType());
  if (ShapedType::isDynamic(ids.getDimSize(1)) || !smooth.hasStaticShape())
    return op.emitOpError("lowers with a static topk and smooth_scale shape "
                          "only (the tiles are sized at compile time)");
  const int64_t topk = ids.getDimSize(1), hidden = smooth.getDimSize(1);
  const int64_t start = int32_t(op.getExpertStartIdx());
  const int64_t end = int32_t(op.getExpertEndIdx());
  const int64_t shared = int32_t(op.getNumSharedExpertsPerRank());
  const int64_t perRank = int32_t(op.getNumTokensPerRank());
  const int64_t offset = int32_t(op.getNumTokensOffset());
  FailureOr<int64_t> cols = rowChunk(op, hidden, /*align=*/32);
  if (failed(cols))
    return failure();
  Params v;
  addTypeValues(v, args);
  addTileValues(v, *cols);
  addQuantValues(v, /*rowKept=*/false);
  v.setDefaults(
      {{"NAME", name.str()},
       {"SIGNATURE", signature(args)},
       {"CALL_ARGS", callArgs(args)},
       {"UNITS", std::to_string(cores)},
       {"CORES", "vector(" + std::to_string(cores) + ")"},
       {"CONFIG", planConfig(std::to_string(kRows), std::to_string(cores))},
       {"EXPERTS", std::to_string(end - start)},
       {"TOPK", std::to_string(topk)},
       {"HIDDEN", std::to_string(hidden)},
       {"EXPERT_ROWS", std::to_string(shared + end - start)},
       {"SHARED", std::to_string(shared)},
       {"PER_RANK", std::to_string(perRank)},
       {"TOKENS_OFFSET", std::to_string(offset)},
       {"SHARED_ROWS", std::to_string(shared * perRank)},
       {"TOKENS_END", std::to_string(offset + perRank)},
       {"START", std::to_string(start)},
       {"END", std::to_string(end)},
       {"UNIT_ROWS", kUnitRows.str()},
       {"QUANT", kQuant.str()},
       {"PLAN_RANGE", kPlanRange.str()},
       {"QUANT_INPUT", kScatterInput.str()},
       {"SCALE", "scale"}});
  SmallVector<DimCheck> dims = {{"selected_experts", 0, "%tokens"},
                                {"selected_experts", 1, "%topk"},
                                {"smooth_scale", 0, "%expert_rows"},
                                {"smooth_scale", 1, "%hidden_size"},
                                {"y", 1, "%hidden_size"},
                                {"scale", 0, "%rows"},
                                {"experts_token_count", 0, "%experts"}};
  // (checks() takes sizes from hidden_states, so its own columns are
  // checked here.)
  v["CHECKS"] = colsChecks(args, dims, "%hidden_size");
  return instantiate(op, v, kScatterPlanner, kScatterKernel, args);
}

//===----------------------------------------------------------------------===//
// moe_gather: the AICPU inverts token_offset (token, slot -> routed row)
// into a workspace; one work unit = a range of tokens, each adding its
// rows (shared experts' and routed ones, weighted) to its output row
//===----------------------------------------------------------------------===//

/// Tokens a gather may have: its inverse table is a workspace of this many
/// tokens x topk entries (more tokens is UNSUPPORTED_SIZE).
constexpr int64_t kGatherTokens = 8192;

FailureOr<Lowered> lowerGather(llm::MoeGatherOp op, StringRef name,
                               int64_t cores) {
  SmallVector<NamedOperand> args = {{"scatter_tokens", op.getScatterTokens()},
                                    {"token_offset", op.getTokenOffset()},
                                    {"expert_weights", op.getExpertWeights()},
                                    {"hidden_states", op.getHiddenStates()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto weights = cast<MemRefType>(op.getExpertWeights().getType());
  auto out = cast<MemRefType>(op.getHiddenStates().getType());
  const int64_t topk = weights.getDimSize(1), hidden = out.getDimSize(1);
  if (ShapedType::isDynamic(topk) || topk > 16)
    return op.emitOpError("lowers with a static topk of at most 16 only (its "
                          "inverse table and weight tile are sized at compile "
                          "time)");
  FailureOr<int64_t> cols = rowChunk(op, hidden, /*align=*/16);
  if (failed(cols))
    return failure();
  const int64_t shared = int32_t(op.getNumSharedExpertsPerRank());
  const int64_t perRank = int32_t(op.getNumTokensPerRank());
  const int64_t offset = int32_t(op.getNumTokensOffset());
  MLIRContext *ctx = op.getContext();
  Type inverse =
      MemRefType::get({kGatherTokens * topk}, IntegerType::get(ctx, 32));
  args.push_back({"inverse", Value(), inverse});
  Params v;
  addTypeValues(v, args);
  const std::string c = std::to_string(*cols);
  const bool bf16Weights = weights.getElementType().isBF16();
  v.setDefaults(
      {{"NAME", name.str()},
       {"SIGNATURE", signature(args)},
       {"CALL_ARGS", callArgs(args)},
       {"UNITS", std::to_string(cores)},
       {"CORES", "vector(" + std::to_string(cores) + ")"},
       {"CONFIG", planConfig(std::to_string(kRows), std::to_string(cores))},
       {"TOPK", std::to_string(topk)},
       {"HIDDEN", std::to_string(hidden)},
       {"COLS", c},
       {"SHARED", std::to_string(shared)},
       {"PER_RANK", std::to_string(perRank)},
       {"TOKENS_OFFSET", std::to_string(offset)},
       {"SHARED_ROWS", std::to_string(shared * perRank)},
       {"TOKENS_END", std::to_string(offset + perRank)},
       {"MAX_TOKENS", std::to_string(kGatherTokens)},
       {"PLAN_RANGE", kPlanRange.str()},
       {"INVERSE_SIZE", std::to_string(kGatherTokens * topk)},
       {"UNIT_ROWS", kUnitRows.str()},
       {"ROW_F32", tileType("vec", "1", c, "f32")},
       {"ROW_BF16", tileType("vec", "1", c, "bf16")},
       // Whole 32-byte rows: 8 f32 or 16 bf16 weights, topk valid.
       {"W_TILE",
        fillKeys(
            kGatherWeightsType,
            {{"TILE_COLS", std::to_string(bf16Weights ? 16 : roundUp(topk, 8))},
             {"TILE_ELEM", bf16Weights ? "bf16" : "f32"},
             {"TILE_VALID_COLS", std::to_string(topk)}})},
       {"LOAD_WEIGHT",
        (bf16Weights ? kGatherWeightBf16 : kGatherWeightF32).str()}});
  SmallVector<DimCheck> dims = {{"expert_weights", 0, "%tokens"},
                                {"expert_weights", 1, "%topk"},
                                {"hidden_states", 1, "%hidden_size"},
                                {"inverse", 0, "%inverse_size"}};
  // (checks() takes sizes from scatter_tokens, so its own columns are
  // checked here.)
  v["CHECKS"] = colsChecks(args, dims, "%hidden_size");
  return instantiate(op, v, kGatherPlanner, kGatherKernel, args);
}

//===----------------------------------------------------------------------===//
// moe_softmax_topk: one work unit = a range of tokens; per 8 tokens the
// softmax over the experts on the vector unit, then each token's top k by
// the scalar unit
//===----------------------------------------------------------------------===//

FailureOr<Lowered> lowerSoftmaxTopk(llm::MoeSoftmaxTopkOp op, StringRef name,
                                    int64_t cores) {
  SmallVector<NamedOperand> args = {
      {"hidden_states", op.getHiddenStates()},
      {"selected_experts", op.getSelectedExperts()},
      {"expert_weights", op.getExpertWeights()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto logits = cast<MemRefType>(op.getHiddenStates().getType());
  auto ids = cast<MemRefType>(op.getSelectedExperts().getType());
  const int64_t experts = logits.getDimSize(1), topk = ids.getDimSize(1);
  if (ShapedType::isDynamic(experts) || ShapedType::isDynamic(topk))
    return op.emitOpError("lowers with static num_experts and topk only: its "
                          "tiles are sized at compile time");
  // A tile row is whole 32-byte blocks: the experts' row padded to 16
  // columns (bf16 logits and, to convert column for column, their f32
  // probabilities), the experts valid. Any count from topk up (Mixtral's 8,
  // Qwen-MoE's 60).
  const int64_t expertCols = roundUp(experts, 16);
  if (expertCols > kMaxCols)
    return op.emitOpError("lowers with num_experts at most ")
           << kMaxCols << ", got " << experts;
  const bool bf16 = cast<MemRefType>(op.getExpertWeights().getType())
                        .getElementType()
                        .isBF16();
  // Whole 32-byte rows: 8 i32 or f32, 16 bf16 (the f32 weights then too,
  // to convert row for row).
  const int64_t idsCols = roundUp(topk, 8),
                wCols = roundUp(topk, bf16 ? 16 : 8);
  auto rows = [&](int64_t cols, StringRef elem, int64_t valid) {
    return rowsTileType("vec", std::to_string(kRows), std::to_string(cols),
                        elem, /*zn=*/false, std::to_string(valid));
  };
  Params v;
  addTypeValues(v, args);
  v.setDefaults({{"EXPERTS", std::to_string(experts)},
                 {"TOPK", std::to_string(topk)},
                 {"LOGITS_TILE", rows(expertCols, "bf16", experts)},
                 {"P_TILE", rows(expertCols, "f32", experts)},
                 {"IDS_TILE", rows(idsCols, "i32", topk)},
                 {"W_TILE", rows(wCols, "f32", topk)},
                 {"W_BF16_TILE", rows(wCols, "bf16", topk)},
                 {"ROW_STAT", rowStatType(std::to_string(kRows))},
                 {"PLAN_CONSTANTS", kTopkConstant.str()}});
  v["STORE_WEIGHTS"] = bf16 ? kStoreWeightsBf16 : kStoreWeightsF32;
  addPlanValues(v, name, args, cores);
  v["CHECKS"] = checks(args, {{"selected_experts", 0, "%tokens"},
                              {"selected_experts", 1, "%topk"},
                              {"expert_weights", 0, "%tokens"},
                              {"expert_weights", 1, "%topk"}});
  return instantiate(op, v, kRowPlanner, kTopkKernel, args);
}

//===----------------------------------------------------------------------===//
// moe_swiglu_dynamic_quant: one work unit = (segment, range of its rows):
// the shared experts' rows and each routed expert's, so that a unit has one
// smooth_scale row; per 8 rows silu(gate) * up * smooth, quantized
//===----------------------------------------------------------------------===//

FailureOr<Lowered> lowerSwiglu(llm::MoeSwigluDynamicQuantOp op, StringRef name,
                               int64_t cores) {
  SmallVector<NamedOperand> args = {
      {"scatter_tokens", op.getScatterTokens()},
      {"smooth_scale", op.getSmoothScale()},
      {"experts_tokens_count", op.getExpertsTokensCount()},
      {"y", op.getY()},
      {"per_token_scale", op.getPerTokenScale()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto smoothType = cast<MemRefType>(op.getSmoothScale().getType());
  auto countsType = cast<MemRefType>(op.getExpertsTokensCount().getType());
  if (!smoothType.hasStaticShape() || !countsType.hasStaticShape())
    return op.emitOpError("lowers with static smooth_scale and "
                          "experts_tokens_count shapes only (the experts and "
                          "the tiles are sized at compile time)");
  const int64_t hidden = smoothType.getDimSize(1);
  const int64_t experts = countsType.getDimSize(0);
  const int64_t shared = int32_t(op.getNumSharedExpertsPerRank());
  const int64_t perRank = int32_t(op.getNumTokensPerRank());
  FailureOr<int64_t> cols = rowChunk(op, hidden, /*align=*/32);
  if (failed(cols))
    return failure();
  const int64_t segments = shared + experts;

  Params v;
  addTypeValues(v, args);
  addTileValues(v, *cols);
  addQuantValues(v, /*rowKept=*/false);
  const std::string lengthsType =
      str(MemRefType::get({segments}, IntegerType::get(op.getContext(), 32)));
  v.setDefaults(
      {{"NAME", name.str()},
       {"SIGNATURE", signature(args)},
       {"CALL_ARGS", callArgs(args)},
       {"UNITS", std::to_string(kMatmulUnits)},
       {"CONFIG", planConfig(std::to_string(kRows),
                             std::to_string(kMatmulUnits), /*balanced=*/false)},
       {"TIERS", kOneTier.str()},
       {"EXPERTS", std::to_string(experts)},
       {"SHARED", std::to_string(shared)},
       {"PER_RANK", std::to_string(perRank)},
       {"SHARED_ROWS", std::to_string(shared * perRank)},
       {"SEGMENTS_N", std::to_string(segments)},
       {"PLAN_CONSTANTS", kSwigluPlanConstants.str()},
       {"ROWS_SOURCE", "scatter_tokens"},
       {"ROWS_SOURCE_TYPE", "${SCATTER_TOKENS_TYPE}"},
       {"COUNTS", "experts_tokens_count"},
       {"COUNTS_TYPE", "${EXPERTS_TOKENS_COUNT_TYPE}"},
       {"LENGTHS", kSegmentLengths.str()},
       {"LENGTHS_NAME", "lengths"},
       {"LENGTHS_TYPE", lengthsType},
       {"SEGMENTS", "%segments"},
       {"HEADS", "%c1"},
       {"ROUND_CHUNK", kWholeChunks.str()},
       {"CORES", "vector(" + std::to_string(cores) + ")"},
       {"ROWS", std::to_string(kRows)},
       {"HIDDEN", std::to_string(hidden)},
       {"GATE_UP", std::to_string(2 * hidden)},
       {"UNIT_ROWS", kSegmentRows.str()},
       {"VECTOR_TILES", kSwigluVectorTiles.str()},
       {"QUANT_INPUT", kSwigluInput.str()},
       {"SCALE", "per_token_scale"},
       {"SCALE_TYPE", "${PER_TOKEN_SCALE_TYPE}"}});
  // Run time: the operands' dimensions (scatter_tokens' own columns here:
  // checks() takes sizes from it).
  SmallVector<DimCheck> dims = {{"y", 0, "%rows"},
                                {"y", 1, "%hidden_size"},
                                {"per_token_scale", 0, "%rows"},
                                {"smooth_scale", 0, "%expert_rows"},
                                {"smooth_scale", 1, "%hidden_size"},
                                {"experts_tokens_count", 0, "%experts"}};
  v["CHECKS"] = colsChecks(args, dims, "%gate_up_size");
  return instantiate(op, v, kExpertPlanner,
                     (kRowKernelBegin + kQuant + kRowKernelEnd).str(), args);
}

} // namespace

void lowering::populateMoeLowerings(LoweringRegistry &registry) {
  registry.add<llm::MoeQuantGroupGemmOp>(
      [](llm::MoeQuantGroupGemmOp op, StringRef name, int64_t) {
        return lowerGroupGemm(op, name);
      });
  registry.add<llm::MoeScatterDynamicQuantOp>(lowerScatter);
  registry.add<llm::MoeGatherOp>(lowerGather);
  registry.add<llm::MoeSoftmaxTopkOp>(lowerSoftmaxTopk);
  registry.add<llm::MoeSwigluDynamicQuantOp>(lowerSwiglu);
}
