//===- Matmul.cpp - matmuls of token rows ---------------------------------===//
//
// quant_matmul, moe_quant_matmul and moe_gating_gemm: one work unit = (N
// tile, range of token rows). Fragments: Templates/Matmul.mlir.in.
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

//===----------------------------------------------------------------------===//
// quant_matmul: one work unit = (N tile, range of token rows); the cube
// multiplies int8 into i32, the vector cores dequantize
//===----------------------------------------------------------------------===//

FailureOr<std::pair<int64_t, int64_t>>
lowering::matmulTiles(Operation *op, int64_t k, int64_t n, int64_t maxNTile,
                      int64_t elemBytes) {
  // A bf16 matmul takes N a multiple of 8 (a gating GEMM over Mixtral's 8
  // experts): its f32 rows are whole 32-byte blocks, and its cube tiles and
  // bf16 output rows are padded to 16 columns. N tiles are multiples of 16
  // where N is.
  const int64_t nAlign = elemBytes == 2 ? 8 : 16;
  if (k % 32 || n % nAlign)
    return op->emitOpError("lowers with hidden_size a multiple of 32 and "
                           "new_hidden_size a multiple of ")
           << nAlign << " (whole 32-byte "
           << (elemBytes == 2 ? "f32" : "int8 and bf16") << " rows), got " << k
           << " and " << n;
  return std::make_pair(largestDivisor(k, kMaxKTile / elemBytes, 32),
                        largestDivisor(n, maxNTile, n % 16 ? 8 : 16));
}

int64_t lowering::cubeNCols(int64_t nTile, bool int8Nz) {
  return roundUp(nTile, int8Nz ? 32 : 16);
}

void lowering::addWeightPath(Params &v, int64_t k, int64_t kTile, int64_t nCols,
                             int64_t nTile, StringRef elem, bool zn,
                             StringRef loadPanel, StringRef loadB) {
  const int64_t bytes = elem == "i8" ? 1 : 2;
  std::string nc = std::to_string(nCols), nt = std::to_string(nTile);
  v["B_MAT"] = tileType("mat", std::to_string(kTile), nc, elem, zn, nt);
  v["B_RIGHT"] =
      tileType("right", std::to_string(kTile), nc, elem, /*zn=*/false, nt);
  if (k * nCols * bytes <= pto::runtime::kL1Bytes / 2) {
    v["B_PANEL_TYPE"] = tileType("mat", std::to_string(k), nc, elem, zn, nt);
    v["B_PANEL"] = fillKeys(kBPanel, {{"LOAD_PANEL", loadPanel.str()}});
    v["MOVE_B"] = fillKeys(kExtractB, {{"LOAD_B", loadB.str()}});
    v["LOAD_B"] = "";
    return;
  }
  v["B_PANEL"] = "";
  v["LOAD_B"] = loadB;
  v["MOVE_B"] = kMoveB;
}

int64_t lowering::epilogueRows(int64_t nTile) {
  // Whole 16 rows: a column of row statistics is whole 32-byte blocks.
  return std::min<int64_t>(kMatmulRows, 8192 / nTile / 16 * 16);
}

std::string lowering::matmulPlanConfig(int64_t units, int64_t chunkMin) {
  return planConfig(std::to_string(chunkMin), std::to_string(units),
                    /*balanced=*/false);
}

std::string lowering::vectorCoreShare(StringRef count, StringRef n,
                                      StringRef first) {
  return fillKeys(kVectorCoreShare, {{"SHARE_COUNT", count.str()},
                                     {"SHARE_N", n.str()},
                                     {"SHARE_FIRST", first.str()}});
}

namespace {

/// The operands of a matmul of token rows: quant_matmul and
/// moe_quant_matmul (a shared expert: no bias, no transposes), int8 with
/// dequantization; moe_gating_gemm, bf16 without scales. One kernel.
struct MatmulOperands {
  Operation *op;
  Value hiddenStates, perTokenScale, weight, weightScale, bias, y;
  StringRef weightName;
  bool transposeA = false, transposeB = false;
};

FailureOr<Lowered> lowerMatmul(const MatmulOperands &mm, StringRef name) {
  Operation *op = mm.op;
  const bool quant = bool(mm.perTokenScale);
  SmallVector<NamedOperand> args = {{"hidden_states", mm.hiddenStates}};
  if (quant)
    args.push_back({"per_token_scale", mm.perTokenScale});
  args.push_back({"weight", mm.weight});
  if (quant)
    args.push_back({"weight_scale", mm.weightScale});
  if (mm.bias)
    args.push_back({"bias", mm.bias});
  args.push_back({"y", mm.y});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto wType = cast<MemRefType>(mm.weight.getType());
  bool ta = mm.transposeA, tb = mm.transposeB;
  int64_t k = wType.getDimSize(tb ? 1 : 0), n = wType.getDimSize(tb ? 0 : 1);
  if (ShapedType::isDynamic(k) || ShapedType::isDynamic(n))
    return op->emitOpError("lowers with a static ")
           << mm.weightName
           << " shape only: its tiles are sized at compile time";
  FailureOr<std::pair<int64_t, int64_t>> tiles =
      matmulTiles(op, k, n, kMaxNTile, quant ? 1 : 2);
  if (failed(tiles))
    return failure();
  const int64_t kTile = tiles->first, nTile = tiles->second;

  MLIRContext *ctx = op->getContext();
  Type accType =
      quant ? Type(IntegerType::get(ctx, 32)) : Float32Type::get(ctx);
  Type workspace = MemRefType::get({kCubeBlocks, kMatmulRows, nTile}, accType);
  args.push_back({"workspace", Value(), workspace});
  const StringRef in = quant ? "i8" : "bf16", acc = quant ? "i32" : "f32";

  Params v;
  addTypeValues(v, args);
  // The row planner with one "head" per N tile, units of whole M tiles, on
  // the cube and vector cores.
  v.set("UNITS", kMatmulUnits);
  v["CONFIG"] = matmulPlanConfig();
  v.set("ROWS", kMatmulRows);
  v["CORES"] = "mix(" + std::to_string(kCubeBlocks) + ")";
  v["HEADS"] = "%n_tiles";
  v["PLAN_CONSTANTS"] = kMatmulPlanConstants;
  // Two tiers by the token count: a decode step's few rows multiply M
  // tiles of kSmallMatmulRows.
  v["TIERS"] = kMTileTiers;
  v["ROUND_CHUNK"] = kMTileChunks;
  addPlanValues(v, name, args, kMatmulUnits);
  // The cube's tiles of an untransposed int8 weight's N tile: padded to
  // whole 32 columns, the first nTile valid (N a multiple of 16, not 32).
  std::string m = std::to_string(kMatmulRows), kt = std::to_string(kTile),
              nt = std::to_string(nTile),
              nc = std::to_string(cubeNCols(nTile, quant && !tb)),
              er = std::to_string(epilogueRows(nTile));
  // The epilogue's rows: whole 16 columns (converted column for column to
  // bf16), the N tile valid.
  const std::string rc = std::to_string(roundUp(nTile, 16));
  v.setDefaults({{"N_TILES", std::to_string(n / nTile)},
                 {"BLOCKS", std::to_string(kCubeBlocks)},
                 {"M_TILE", m},
                 {"SMALL", std::to_string(kSmallMatmulRows)},
                 {"SMALL_NEXT", std::to_string(kSmallMatmulRows + 1)},
                 {"KERNEL_CONSTANTS", kMTileKernelConstants.str()},
                 {"M_TILE_DEF", kMTileOfTier.str()},
                 {"UNIT_ROWS", kUnitRows.str()},
                 {"ROW_SHAPE", "shape(%m_tile) "},
                 {"A_SOURCE", "hidden_states"},
                 {"A_SOURCE_TYPE", "${HIDDEN_STATES_TYPE}"},
                 {"K_TILE", kt},
                 {"N_TILE", nt},
                 {"K", std::to_string(k)},
                 {"N", std::to_string(n)},
                 {"ACC", rowsTileType("acc", "?", nc, acc, /*zn=*/false, nt)},
                 {"A_MAT", rowsTileType("mat", "?", kt, in)},
                 {"A_LEFT", rowsTileType("left", "?", kt, in)},
                 {"E_ROWS", er},
                 {"ROWS_I32", rowsTileType("vec", er, rc, "i32", false, nt)},
                 {"ROWS_F32", rowsTileType("vec", er, rc, "f32", false, nt)},
                 {"ROWS_BF16", rowsTileType("vec", er, rc, "bf16", false, nt)},
                 {"ROW_STAT", rowStatType(er)},
                 {"COL_F32", tileType("vec", "1", nt, "f32")},
                 {"COL_BF16", tileType("vec", "1", nt, "bf16")}});
  v["VECTOR_CORE_ROW_SHARE"] = vectorCoreShare("%rows", "%vn", "%vr");
  // transpose_a: hidden_states is [hidden_size, num_tokens], so an M tile
  // of token rows is read transposed (pto-isa's DN load into a zn L1 tile,
  // as the transposed weight is).
  if (ta) {
    v["TOKENS_DEF"] = kTokensOfTransposed;
    v["A_MAT"] = rowsTileType("mat", "?", kt, in, /*zn=*/true);
  }
  v["A_INDICES"] = ta ? "%k, %m" : "%m, %k";
  v["A_TRANSPOSE"] = ta ? " transpose" : "";
  addWeightPath(v, k, kTile, cubeNCols(nTile, quant && !tb), nTile, in, tb,
                tb ? kLoadPanelTransposed : kLoadPanel,
                tb ? kLoadBTransposed : kLoadB);
  // Run time: every operand's dimensions, and the workspace's
  // (matmul_checks: hidden_states' own hidden_size, the rows a K tile
  // reads, in dimension K_DIM).
  v.set("K_DIM", ta ? 0 : 1);
  v["CHECKS"] = kMatmulChecks;
  SmallVector<DimCheck> dims = {{"y", 0, "%tokens"},
                                {"y", 1, "%new_hidden"},
                                {"workspace", 0, "%blocks"},
                                {"workspace", 1, "%m_tile"},
                                {"workspace", 2, "%n_tile"}};
  if (!quant) {
    v["COL_TILES"] = "";
    v["EPILOGUE"] = kPlainEpilogue;
    v["DIM_CHECKS"] = checksAnd(args, dims, "%k_ok");
    return instantiate(op, v, kRowPlanner, kMatmulKernel, args);
  }
  v["EPILOGUE"] = kDequantEpilogue;
  bool wsBf16 =
      cast<MemRefType>(mm.weightScale.getType()).getElementType().isBF16();
  v["COL_TILES"] = kWeightScaleTile;
  if (wsBf16 || mm.bias)
    v["COL_TILES"] += kColBf16Tile;
  if (mm.bias)
    v["COL_TILES"] += kBiasTile;
  v["LOAD_WEIGHT_SCALE"] = wsBf16 ? kLoadWeightScaleBf16 : kLoadWeightScaleF32;
  v["ADD_BIAS"] = mm.bias ? kAddBias : "";
  dims.push_back({"per_token_scale", 0, "%tokens"});
  dims.push_back({"weight_scale", 0, "%new_hidden"});
  if (mm.bias)
    dims.push_back({"bias", 0, "%new_hidden"});
  v["DIM_CHECKS"] = checksAnd(args, dims, "%k_ok");
  return instantiate(op, v, kRowPlanner, kMatmulKernel, args);
}

} // namespace

void lowering::populateMatmulLowerings(LoweringRegistry &registry) {
  registry.add<llm::QuantMatmulOp>(
      [](llm::QuantMatmulOp op, StringRef name, int64_t) {
        return lowerMatmul({op, op.getHiddenStates(), op.getPerTokenScale(),
                            op.getWeight(), op.getWeightScale(), op.getBias(),
                            op.getY(), "weight", op.getTransposeA(),
                            op.getTransposeB()},
                           name);
      });
  registry.add<llm::MoeQuantMatmulOp>(
      [](llm::MoeQuantMatmulOp op, StringRef name, int64_t) {
        return lowerMatmul({op, op.getHiddenStates(), op.getPerTokenScale(),
                            op.getExpertWeight(), op.getExpertScale(), Value(),
                            op.getY(), "expert_weight"},
                           name);
      });
  registry.add<llm::MoeGatingGemmOp>(
      [](llm::MoeGatingGemmOp op, StringRef name, int64_t) {
        return lowerMatmul({op, op.getHiddenStates(), Value(), op.getWeight(),
                            Value(), Value(), op.getY(), "weight"},
                           name);
      });
}
