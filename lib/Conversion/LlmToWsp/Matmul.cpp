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
lowering::matmulTiles(Operation *op, int64_t k, int64_t n, int64_t maxNTile) {
  if (k % 32 || n % 16)
    return op->emitOpError("lowers with hidden_size a multiple of 32 and "
                           "new_hidden_size a multiple of 16 (whole 32-byte "
                           "int8 and bf16 rows), got ")
           << k << " and " << n;
  return std::make_pair(largestDivisor(k, kMaxKTile, 32),
                        largestDivisor(n, maxNTile, 16));
}

std::string lowering::matmulPlanConfig() {
  return "#wsp.plan_config<chunk_min = " + std::to_string(kMatmulRows) +
         ", chunk_max = 2147483647, max_work_units = " +
         std::to_string(kMatmulUnits) + ", balance_chunks = false>";
}

std::string lowering::vectorCoreShare(StringRef count, StringRef n,
                                      StringRef first) {
  return llvm::formatv("    {1} = arith.ceildivui {0}, %nsb : index\n"
                       "    {2}_last = arith.subi {0}, {1} : index\n"
                       "    {2}_at = arith.muli %sb, {1} : index\n"
                       "    {2} = arith.minui {2}_at, {2}_last : index",
                       count, n, first)
      .str();
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
      matmulTiles(op, k, n, kMaxNTile);
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
  v["UNITS"] = std::to_string(kMatmulUnits);
  v["CONFIG"] = matmulPlanConfig();
  v["ROWS"] = std::to_string(kMatmulRows);
  v["CORES"] = "mix(" + std::to_string(kCubeBlocks) + ")";
  v["HEADS"] = "%n_tiles";
  v["PLAN_CONSTANTS"] = "  %n_tiles = arith.constant ${N_TILES} : index\n"
                        "  %blocks = arith.constant ${BLOCKS} : index\n"
                        "  %m_tile = arith.constant ${M_TILE} : index\n"
                        "  %n_tile = arith.constant ${N_TILE} : index\n"
                        "  %new_hidden = arith.constant ${N} : index\n"
                        "  %hidden = arith.constant ${K} : index";
  v["ROUND_CHUNK"] = "    %tiles = arith.ceildivui %chunk, %m_tile : index\n"
                     "    %rows_per_unit = arith.muli %tiles, %m_tile : index";
  addPlanValues(v, name, args, kMatmulUnits);
  std::string m = std::to_string(kMatmulRows), kt = std::to_string(kTile),
              nt = std::to_string(nTile);
  auto tile = [&](StringRef loc, const std::string &rows,
                  const std::string &cols, StringRef elem, bool validRows,
                  StringRef layout = "") {
    return "!tile.tile<" + loc.str() + ", " + rows + "x" + cols + "x" +
           elem.str() + (validRows ? ", valid = ?x" + cols : std::string()) +
           (layout.empty() ? "" : ", " + layout.str()) + ">";
  };
  v.setDefaults(
      {{"N_TILES", std::to_string(n / nTile)},
       {"BLOCKS", std::to_string(kCubeBlocks)},
       {"M_TILE", m},
       {"KERNEL_CONSTANTS", ""},
       {"M_TILE_DEF", "  %m_tile = arith.constant ${M_TILE} : index"},
       {"UNIT_ROWS", kUnitRows.str()},
       {"ROW_SHAPE", ""},
       {"A_SOURCE", "hidden_states"},
       {"A_SOURCE_TYPE", "${HIDDEN_STATES_TYPE}"},
       {"K_TILE", kt},
       {"N_TILE", nt},
       {"K", std::to_string(k)},
       {"N", std::to_string(n)},
       {"ACC", tile("acc", m, nt, acc, true)},
       {"A_MAT", tile("mat", m, kt, in, true)},
       {"A_LEFT", tile("left", m, kt, in, true)},
       {"B_MAT", tile("mat", kt, nt, in, false, tb ? "zn" : "")},
       {"B_RIGHT", tile("right", kt, nt, in, false)},
       {"ROWS_I32", tile("vec", m, nt, "i32", true)},
       {"ROWS_F32", tile("vec", m, nt, "f32", true)},
       {"ROWS_BF16", tile("vec", m, nt, "bf16", true)},
       {"ROW_STAT", "!tile.tile<vec, " + m + "x1xf32, valid = ?x1, col_major>"},
       {"COL_F32", tile("vec", "1", nt, "f32", false)},
       {"COL_BF16", tile("vec", "1", nt, "bf16", false)}});
  v["VECTOR_CORE_ROW_SHARE"] = vectorCoreShare("%rows", "%vrows", "%vr0");
  // transpose_a: hidden_states is [hidden_size, num_tokens], so an M tile
  // of token rows is read transposed (pto-isa's DN load into a zn L1 tile,
  // as the transposed weight is).
  if (ta) {
    v["TOKENS_DEF"] = "  %tokens = memref.dim %hidden_states, %c1 : "
                      "${HIDDEN_STATES_TYPE}";
    v["A_MAT"] = tile("mat", m, kt, in, true, "zn");
  }
  v["A_INDICES"] = ta ? "%k, %m] transpose" : "%m, %k]";
  v["LOAD_B"] =
      tb ? "      tile.load %b_mat, %weight[%n0, %k] transpose : ${B_MAT}, "
           "${WEIGHT_TYPE}"
         : "      tile.load %b_mat, %weight[%k, %n0] : ${B_MAT}, "
           "${WEIGHT_TYPE}";
  // Run time: every operand's dimensions, and the workspace's.
  // (checks() takes sizes from hidden_states, so its own hidden_size, the
  // rows a K tile reads, is checked here.)
  auto allChecks = [&](ArrayRef<DimCheck> dims) {
    return "  %k_size = memref.dim %hidden_states, %c" +
           std::to_string(ta ? 0 : 1) + " : " + str(mm.hiddenStates.getType()) +
           "\n  %k_ok = arith.cmpi eq, %k_size, %hidden : index\n" +
           checks(args, dims, "%dims_ok") +
           "  %shapes_ok = arith.andi %dims_ok, %k_ok : i1\n";
  };
  SmallVector<DimCheck> dims = {{"y", 0, "%tokens"},
                                {"y", 1, "%new_hidden"},
                                {"workspace", 0, "%blocks"},
                                {"workspace", 1, "%m_tile"},
                                {"workspace", 2, "%n_tile"}};
  if (!quant) {
    v["COL_TILES"] = "";
    v["EPILOGUE"] = kPlainEpilogue;
    v["CHECKS"] = allChecks(dims);
    return instantiate(op, v, kRowPlanner, kMatmulKernel, args);
  }
  v["EPILOGUE"] = kDequantEpilogue;
  bool wsBf16 =
      cast<MemRefType>(mm.weightScale.getType()).getElementType().isBF16();
  v["COL_TILES"] = "  %ws_f = tile.alloc : ${COL_F32}";
  if (wsBf16 || mm.bias)
    v["COL_TILES"] += "\n  %col_b = tile.alloc : ${COL_BF16}";
  if (mm.bias)
    v["COL_TILES"] += "\n  %bias_f = tile.alloc : ${COL_F32}";
  v["LOAD_WEIGHT_SCALE"] =
      wsBf16 ? "    tile.load %col_b, %weight_scale[%n0] : ${COL_BF16}, "
               "${WEIGHT_SCALE_TYPE}\n    tile.cvt %ws_f, %col_b : "
               "${COL_F32}, ${COL_BF16}"
             : "    tile.load %ws_f, %weight_scale[%n0] : ${COL_F32}, "
               "${WEIGHT_SCALE_TYPE}";
  v["ADD_BIAS"] =
      mm.bias ? "    tile.load %col_b, %bias[%n0] : ${COL_BF16}, ${BIAS_TYPE}\n"
                "    tile.cvt %bias_f, %col_b : ${COL_F32}, ${COL_BF16}\n"
                "    tile.colexpandadd %yf, %yf, %bias_f : ${ROWS_F32}, "
                "${ROWS_F32}, ${COL_F32}"
              : "";
  dims.push_back({"per_token_scale", 0, "%tokens"});
  dims.push_back({"weight_scale", 0, "%new_hidden"});
  if (mm.bias)
    dims.push_back({"bias", 0, "%new_hidden"});
  v["CHECKS"] = allChecks(dims);
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
