//===- BenchmarkAttention.cpp - the benchmark attention operators ---------===//
//
// flash_attention and flash_decoding: contiguous K/V, no page table; the
// attention family's kernel. Fragments: Templates/BenchmarkAttention.mlir.in.
//
//===----------------------------------------------------------------------===//

#include "Attention.h"

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
// The two benchmark attention operators: contiguous K/V, no page table
//===----------------------------------------------------------------------===//

/// flash_attention and flash_decoding. Their K and V are contiguous: the
/// kernel reads them without a page table. flash_attention is prefill's
/// kernel over one sequence with nothing cached (its units read every
/// position they see, causal or not); flash_decoding is decode's (KV
/// chunks of a request in order on one block), over each request's
/// cache row of kv_len positions and then its own new key and value.
template <typename BenchmarkOp>
FailureOr<Lowered> lowerBenchmarkAttention(BenchmarkOp op, StringRef name) {
  constexpr bool decode = std::is_same_v<BenchmarkOp, llm::FlashDecodingOp>;
  auto outType = cast<MemRefType>(op.getOut().getType());
  int64_t heads = outType.getDimSize(2), dim = outType.getDimSize(3);
  // The three inputs: q, k and v, or three head ranges of qkv.
  Value q = op.getQkv() ? op.getQkv() : op.getQ();
  Value k = op.getQkv() ? op.getQkv() : op.getK();
  Value v = op.getQkv() ? op.getQkv() : op.getV();
  int64_t kvHeads;
  int64_t kHead0 = 0, vHead0 = 0;
  if (op.getQkv()) {
    int64_t all = cast<MemRefType>(q.getType()).getDimSize(2);
    kvHeads = ShapedType::isDynamic(all) || ShapedType::isDynamic(heads)
                  ? ShapedType::kDynamic
                  : (all - heads) / 2;
    kHead0 = heads;
    vHead0 = heads + kvHeads;
  } else {
    kvHeads = cast<MemRefType>(k.getType()).getDimSize(2);
  }
  // Heads and head_dim are static in every operand: the run-time checks
  // are of the batch and sequence dimensions only.
  SmallVector<std::pair<Value, SmallVector<unsigned>>> fixed = {
      {q, {2, 3}}, {k, {2, 3}}, {v, {2, 3}}, {op.getOut(), {2, 3}}};
  if constexpr (decode) {
    fixed.push_back({op.getKCache(), {1, 3}});
    fixed.push_back({op.getVCache(), {1, 3}});
  }
  for (auto &[value, fixedDims] : fixed)
    for (unsigned d : fixedDims)
      if (cast<MemRefType>(value.getType()).isDynamicDim(d))
        return op.emitOpError("lowers with static head counts and head_dim "
                              "only");
  const int64_t group = heads / kvHeads;
  if (failed(checkAttentionTile(op, dim, group)))
    return failure();
  int64_t kvLen = 0;
  if constexpr (decode) {
    kvLen = int64_t(op.getKvLens());
    if (kvLen + 1 > std::numeric_limits<int32_t>::max())
      return op.emitOpError("lowers with kv_len + 1 inside int32, got kv_len ")
             << kvLen;
  }

  SmallVector<NamedOperand> args = {{"q", q}, {"k", k}, {"v", v}};
  if constexpr (decode) {
    args.push_back({"k_cache", op.getKCache()});
    args.push_back({"v_cache", op.getVCache()});
  }
  args.push_back({"out", op.getOut()});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  Builder b(op.getContext());
  int64_t blocks = kAttentionBlocks, rows = kAttentionRows;
  auto ws = [&](StringRef part, SmallVector<int64_t> shape, Type elem) {
    args.push_back({part.str(), Value(), MemRefType::get(shape, elem)});
  };
  // As prefill's and decode's bf16 kernels: Q and P in bf16; S, O_t and,
  // decode, the request's o in f32; decode, its m and l.
  ws("ws_h", {blocks, 2, rows, kMaxKvTile}, b.getBF16Type());
  ws("ws_f", {blocks, decode ? 3 : 2, rows, kMaxKvTile}, b.getF32Type());
  if (decode)
    ws("ws_ml", {blocks, 2, rows}, b.getF32Type());

  Params vals;
  addTypeValues(vals, args);
  addTileGeometry(vals, decode);
  vals.setDefaults(
      {{"NAME", name.str()},
       {"SIGNATURE", signature(args)},
       {"CALL_ARGS", callArgs(args)},
       {"D", std::to_string(dim)},
       {"GROUP", std::to_string(group)},
       {"KV_HEADS", std::to_string(kvHeads)},
       {"Q_HEAD0", "0"},
       {"K_HEAD0", std::to_string(kHead0)},
       {"V_HEAD0", std::to_string(vHead0)},
       {"BLOCKS", std::to_string(blocks)},
       {"UNITS", std::to_string(kAttentionUnits)},
       {"MAX_BATCH", std::to_string(kMaxDecodeBatch)},
       {"SCALE", llvm::formatv("{0:e9}", 1.0 / std::sqrt(double(dim))).str()},
       {"P_SLOT", "1"},
       {"Q_PACK", kAttentionQBf16.str()},
       {"S_TILE", kAttentionSRows.str()},
       {"PV_TILE", kAttentionPvRows.str()},
       {"DEQUANT_SCRATCH", ""},
       {"FINISH_SCALE", ""},
       {"FRESH_STATE", kAttentionFreshState.str()},
       {"FINISH", kAttentionFinish.str()},
       {"TOKEN_AT", ""},
       {"CONFIG", kAttentionPlanConfig.str()}});

  SmallVector<DimCheck> dims;
  // The checks before and after the operands' dimensions.
  StringRef extraChecks, shapesOk;
  if constexpr (decode) {
    // A request's cache row is its index; its length kv_len + 1.
    vals.set("KV_LEN", kvLen);
    vals.set("SEEN", kvLen + 1);
    vals["KV_SOURCE"] = kKvHeads;
    vals["K_LOAD"] = kNewTokenKLoad;
    vals["V_LOAD"] = kNewTokenVLoad;
    vals["PLAN_SETUP"] = kBenchmarkDecodeSetup;
    vals["PLAN"] = kBenchmarkDecodePlan;
    vals["DECODE_PLAN"] = kDecodePlan;
    vals["PLAN_HEADS"] = "%kv_heads";
    vals["TIERS"] = kDecodeTiers;
    vals.set("TILE_KS", b.getDenseI64ArrayAttr({64, 128, 128, 128}));
    vals["DESC"] = kAttentionDescriptorType;
    vals["WHICH"] = kDecodeWhich;
    vals["PRIOR"] = kPriorOfKvLen;
    vals["Q_LEN"] = "1";
    vals["Q_IDX"] = "%req, %s";
    vals["ROW_RANGES"] = kCausalRowRanges;
    vals["START_STATE"] = kDecodeStartState;
    vals["END_STATE"] = kDecodeEndState;
    vals["CARRY_STATE"] = kDecodeCarryState;
    for (StringRef part : {"k", "v", "out"}) {
      dims.push_back({part.str(), 0, "%batch"});
      dims.push_back({part.str(), 1, "%c1"});
    }
    extraChecks = kBenchmarkDecodeChecks;
    vals["CACHE_DIMS"] = kCacheDims;
    for (unsigned d = 0; d < 4; ++d)
      dims.push_back({"v_cache", d, "%cache_dim_" + std::to_string(d)});
    shapesOk = kBenchmarkDecodeShapesOk;
  } else {
    vals.set("TOKENS_PER_UNIT", rows / group);
    MemRefType kType = cast<MemRefType>(k.getType()),
               vType = cast<MemRefType>(v.getType());
    vals["K_ROWS_TYPE"] = str(
        memref::CollapseShapeOp::computeCollapsedType(kType, {{0, 1}, {2, 3}}));
    vals["V_ROWS_TYPE"] = str(
        memref::CollapseShapeOp::computeCollapsedType(vType, {{0, 1}, {2, 3}}));
    vals["KV_SOURCE"] = (kKvHeads + kKvRows).str();
    vals["K_LOAD"] = kKRowsLoad;
    vals["V_LOAD"] = kVRowsLoad;
    vals["PLAN_SETUP"] = kBenchmarkPrefillSetup;
    vals["PLAN"] = kBenchmarkPrefillPlan;
    vals["PREFILL_PLAN"] = kPrefillPlan;
    vals.set("Q_LENS_TYPE", MemRefType::get({1}, b.getI32Type()));
    vals["TIERS"] = kOneTierConfig;
    vals.set("TILE_KS", b.getDenseI64ArrayAttr({128}));
    vals["DESC"] = kMoeDescriptorType;
    vals["WHICH"] = kBenchmarkPrefillWhich;
    vals["KV_END"] = op.getIsCausal() ? kKvEndCausal : kKvEndAll;
    vals["Q_IDX"] = "%c0, %s";
    vals["ROW_RANGES"] = op.getIsCausal() ? kCausalRowRanges : kAllRowRanges;
    vals["START_STATE"] = kAttentionFreshState;
    vals["END_STATE"] = kAttentionFinish;
    for (StringRef part : {"k", "v", "out"}) {
      dims.push_back({part.str(), 0, "%c1"});
      dims.push_back({part.str(), 1, "%tokens"});
    }
    shapesOk = kBenchmarkPrefillShapesOk;
  }
  // Causal, no window.
  vals["MASK_KIND"] = "standard";
  vals["WINDOW"] = "";
  vals["CHECKS"] =
      (extraChecks + checks(args, dims, "%dims_ok") + shapesOk).str();
  return instantiate(op, vals, kBenchmarkAttentionPlanner, kAttentionKernel,
                     args);
}

} // namespace

void lowering::populateBenchmarkAttentionLowerings(LoweringRegistry &registry) {
  registry.add<llm::FlashAttentionOp>(
      [](llm::FlashAttentionOp op, StringRef name, int64_t) {
        return lowerBenchmarkAttention(op, name);
      });
  registry.add<llm::FlashDecodingOp>(
      [](llm::FlashDecodingOp op, StringRef name, int64_t) {
        return lowerBenchmarkAttention(op, name);
      });
}
