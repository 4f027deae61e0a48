//===- Attention.cpp - paged attention ------------------------------------===//
//
// Paged attention: flash_attention_decode and flash_attention_prefill.
// Fragments: Templates/Attention.mlir.in.
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

//===----------------------------------------------------------------------===//
// Attention: flash_attention_decode (flash decoding: KV chunks of one row
// in order on one block, the softmax state carried between them) and
// flash_attention_prefill (one unit = a block of query tokens of one
// sequence and KV head, its whole causal KV range)
//===----------------------------------------------------------------------===//

void lowering::addTileGeometry(Params &v, bool newToken) {
  v["VECTOR_CORE_ROW_SHARE"] = vectorCoreShare("%rows", "%vrows", "%vr0");
  v["VECTOR_CORE_ROWS"] = kVectorCoreRows;
  // This vector core's share of a page segment's %seg positions: %x_n of
  // them from %p_x (offset %off_x in the tile).
  v["VECTOR_CORE_POSITIONS"] = vectorCoreShare("%seg", "%x_n", "%x_o") +
                               "\n    %p_x = arith.addi %p, %x_o : index"
                               "\n    %off_x = arith.addi %off, %x_o : index";
  if (!newToken) {
    v["TILE_COUNT"] = "  %span = arith.subi %kv_end, %w_first : index\n"
                      "  %num_tiles = arith.ceildivui %span, %tile_k : index";
  } else {
    v["TILE_COUNT"] =
        "  %cache_end = arith.minui %kv_end, %prior : index\n"
        "  %cache_span = arith.subi %cache_end, %w_first : index\n"
        "  %cache_tiles = arith.ceildivui %cache_span, %tile_k : index\n"
        "  %has_new = arith.cmpi ugt, %kv_end, %prior : index\n"
        "  %new_tiles = arith.select %has_new, %c1, %c0 : index\n"
        "  %num_tiles = arith.addi %cache_tiles, %new_tiles : index";
  }
  auto at = [&](StringRef index) {
    std::string t = index.str();
    if (!newToken)
      return "      %t_off = arith.muli " + t +
             ", %tile_k : index\n"
             "      %w = arith.addi %w_first, %t_off : index\n"
             "      %left = arith.subi %kv_end, %w : index\n"
             "      %n = arith.minui %tile_k, %left : index\n"
             "      %w_end = arith.addi %w, %n : index";
    return "      %in_cache = arith.cmpi ult, " + t +
           ", %cache_tiles : index\n"
           "      %t_off = arith.muli " +
           t +
           ", %tile_k : index\n"
           "      %w_cached = arith.addi %w_first, %t_off : index\n"
           "      %left = arith.subi %cache_end, %w_cached : index\n"
           "      %n_cached = arith.minui %tile_k, %left : index\n"
           "      %w = arith.select %in_cache, %w_cached, %prior : index\n"
           "      %n = arith.select %in_cache, %n_cached, %c1 : index\n"
           "      %w_end = arith.addi %w, %n : index";
  };
  v["TILE_AT_A"] = at("%a_t");
  v["TILE_AT_B"] = at("%j");
  v["TILE_AT_D"] = at("%a_t");
}

LogicalResult lowering::checkAttentionTile(Operation *op, int64_t dim,
                                           int64_t group) {
  if (ShapedType::isDynamic(dim) || dim % 32 || dim > kMaxHeadDim)
    return op->emitOpError("lowers with a static head_dim, a multiple of 32 "
                           "up to ")
           << kMaxHeadDim << " (one cube tile)";
  if (group > kAttentionRows)
    return op->emitOpError("lowers with at most ")
           << kAttentionRows << " query heads per KV head (one tile of rows), "
           << "got " << group;
  return success();
}

namespace {

template <typename AttentionOp>
FailureOr<Lowered> lowerAttention(AttentionOp op, StringRef name) {
  constexpr bool decode =
      std::is_same_v<AttentionOp, llm::FlashAttentionDecodeOp>;
  // Q may be a head range of a packed QKV: the kernel reads the base.
  auto [qBase, qHead0] = headRangeOf(op.getQ());
  SmallVector<NamedOperand> args;
  // The first argument gives the batch (checks() checks nothing of it).
  args.push_back(decode ? NamedOperand{"kv_lens", op.getKvLens()}
                        : NamedOperand{"q_lens", op.getQLens()});
  args.push_back({"q", qBase});
  args.push_back({"kv_ids", op.getKvIds()});
  args.push_back(decode ? NamedOperand{"q_lens", op.getQLens()}
                        : NamedOperand{"kv_lens", op.getKvLens()});
  if (op.getAccumQLen())
    args.push_back({"accum_q_len", op.getAccumQLen()});
  args.push_back({"block_table", op.getBlockTable()});
  args.push_back({"k_cache", op.getKCache()});
  args.push_back({"v_cache", op.getVCache()});
  bool int8 = bool(op.getKScale());
  if (int8) {
    args.push_back({"k_scale", op.getKScale()});
    args.push_back({"v_scale", op.getVScale()});
  }
  if (op.getOut())
    args.push_back({"out", op.getOut()});
  Value planKvLens, visibleLens, stateO;
  if constexpr (decode) {
    planKvLens = op.getPlanKvLens();
    visibleLens = op.getVisibleLens();
    stateO = op.getStateO();
  }
  if (planKvLens)
    args.push_back({"plan_kv_lens", planKvLens});
  if (visibleLens)
    args.push_back({"visible_lens", visibleLens});
  if constexpr (decode)
    if (stateO) {
      args.push_back({"state_o", stateO});
      args.push_back({"state_m", op.getStateM()});
      args.push_back({"state_l", op.getStateL()});
    }
  if (failed(requireIdentityLayouts(op, args)))
    return failure();

  auto qType = cast<MemRefType>(op.getQ().getType());
  auto cacheType = cast<MemRefType>(op.getKCache().getType());
  unsigned rank = qType.getRank();
  int64_t heads = qType.getDimSize(rank - 2), dim = qType.getDimSize(rank - 1);
  int64_t kvHeads = cacheType.getDimSize(1),
          blockSize = cacheType.getDimSize(2);
  if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads) ||
      ShapedType::isDynamic(blockSize))
    return op.emitOpError("lowers with static q_head_num, kv_head_num and "
                          "block_size only");
  const int64_t group = heads / kvHeads;
  if (failed(checkAttentionTile(op, dim, group)))
    return failure();
  int64_t qLen = 0;
  if constexpr (decode) {
    qLen = int32_t(op.getQSeqLen());
    if (qLen < 1 || qLen * group > kAttentionRows)
      return op.emitOpError("lowers with q_seq_len x (q_head_num / "
                            "kv_head_num) rows in one tile of ")
             << kAttentionRows << ", got " << qLen << " x " << group;
  }

  Params v;
  Builder b(op.getContext());
  auto ws = [&](StringRef part, SmallVector<int64_t> shape, Type elem) {
    args.push_back({part.str(), Value(), MemRefType::get(shape, elem)});
  };
  int64_t blocks = kAttentionBlocks, rows = kAttentionRows;
  // Per block: Q (bf16 cache) and P, in bf16; S, O_t and, decode, the
  // row's o, in f32; decode, the row's m and l; int8 cache, Q in f32 and
  // the tile's K (f32) and V (bf16).
  ws("ws_h", {blocks, int8 ? 1 : 2, rows, kMaxKvTile}, b.getBF16Type());
  ws("ws_f", {blocks, decode ? 3 : 2, rows, kMaxKvTile}, b.getF32Type());
  if (decode)
    ws("ws_ml", {blocks, 2, rows}, b.getF32Type());
  if (int8) {
    ws("ws_q", {blocks, rows, kMaxHeadDim}, b.getF32Type());
    ws("ws_k", {blocks, kMaxInt8KvTile, kMaxHeadDim}, b.getF32Type());
    ws("ws_v", {blocks, kMaxInt8KvTile, kMaxHeadDim}, b.getBF16Type());
  }
  v["P_SLOT"] = int8 ? "0" : "1";
  v["PAGE_SEGMENT"] = kPageSegment;
  v["KV_SOURCE"] = kPagedSlot;
  v["PRIOR"] = kPriorFromKvLens;
  addTileGeometry(v, false);
  v["PAGES_IN_POOL"] = kPagesInPool;
  v["PAGES_FROM"] = "%c0";
  v["PAGES_TO"] = "%pages";
  v["Q_PACK"] = int8 ? kAttentionQInt8 : kAttentionQBf16;
  v["S_TILE"] = int8 ? kAttentionSInt8 : kAttentionSBf16;
  v["PV_TILE"] = int8 ? kAttentionPvInt8 : kAttentionPvBf16;
  v["DEQUANT_SCRATCH"] = int8 ? kAttentionDequantScratch : "";
  v["INT8_KV_TILE"] = std::to_string(kMaxInt8KvTile);
  v["FINISH_SCALE"] = int8 ? kAttentionFinishInt8 : "";
  addTypeValues(v, args);
  v.setDefaults(
      {{"NAME", name.str()},
       {"SIGNATURE", signature(args)},
       {"CALL_ARGS", callArgs(args)},
       {"BATCH_OF", args.front().name},
       {"BATCH_OF_TYPE", str(args.front().getType())},
       {"D", std::to_string(dim)},
       {"GROUP", std::to_string(group)},
       {"KV_HEADS", std::to_string(kvHeads)},
       {"Q_HEAD0", std::to_string(qHead0)},
       {"BLOCK_SIZE", std::to_string(blockSize)},
       {"BLOCKS", std::to_string(blocks)},
       {"UNITS", std::to_string(kAttentionUnits)},
       {"MAX_BATCH", std::to_string(kMaxDecodeBatch)},
       {"Q_LEN", std::to_string(qLen)},
       {"SCALE", llvm::formatv("{0:e9}", 1.0 / std::sqrt(double(dim))).str()},
       {"FRESH_STATE", kAttentionFreshState.str()},
       {"FINISH", kAttentionFinish.str()}});

  // Run-time shapes: q (the base, its batch and heads), the per-sequence
  // operands, out, the caches.
  SmallVector<DimCheck> dims;
  std::string setup = "  %kv_heads = arith.constant ${KV_HEADS} : index\n"
                      "  %head_dim = arith.constant ${D} : index\n"
                      "  %q_heads_end = arith.constant " +
                      std::to_string(qHead0 + heads) +
                      " : index\n"
                      "  %q_heads = arith.constant " +
                      std::to_string(heads) + " : index\n";
  for (unsigned d = 0; d < 4; ++d) {
    setup += "  %cache_dim_" + std::to_string(d) +
             " = memref.dim %k_cache, %c" + std::to_string(d) +
             " : ${K_CACHE_TYPE}\n";
    dims.push_back({"v_cache", d, "%cache_dim_" + std::to_string(d)});
  }
  dims.push_back({"k_cache", 1, "%kv_heads"});
  dims.push_back({"k_cache", 3, "%head_dim"});
  dims.push_back({"kv_ids", 0, "%batch"});
  dims.push_back({decode ? "q_lens" : "kv_lens", 0, "%batch"});
  for (StringRef scale : {"k_scale", "v_scale"})
    if (int8) {
      dims.push_back({scale.str(), 0, "%kv_heads"});
      dims.push_back({scale.str(), 1, "%head_dim"});
    }
  if (op.getAccumQLen()) {
    setup += "  %batch_plus_1 = arith.addi %batch, %c1 : index\n";
    dims.push_back({"accum_q_len", 0, "%batch_plus_1"});
  }
  // The base's head dimension holds the range.
  setup += "  %base_heads = memref.dim %q, %c" + std::to_string(rank - 2) +
           " : ${Q_TYPE}\n"
           "  %heads_fit = arith.cmpi ule, %q_heads_end, %base_heads : index\n";
  if constexpr (decode) {
    setup += "  %q_len = arith.constant ${Q_LEN} : index\n"
             "  %q_len_i64 = arith.constant ${Q_LEN} : i64\n"
             "  %int32_max = arith.constant 2147483647 : i64\n"
             "  %lens = memref.alloca() : memref<${MAX_BATCH}xi32>\n"
             "  %descs = memref.alloca() : memref<${UNITS}x!wsp.descriptor<"
             "attention>>\n";
    dims.push_back({"q", 0, "%batch"});
    dims.push_back({"q", 1, "%q_len"});
    dims.push_back({"q", 3, "%head_dim"});
    for (StringRef result : {"out", "state_o"})
      if (result == "out" ? bool(op.getOut()) : bool(stateO)) {
        dims.push_back({result.str(), 0, "%batch"});
        dims.push_back({result.str(), 1, "%q_len"});
        dims.push_back({result.str(), 2, "%q_heads"});
        dims.push_back({result.str(), 3, "%head_dim"});
      }
    if (stateO) {
      setup += "  %state_row = arith.constant 8 : index\n";
      for (StringRef part : {"state_m", "state_l"}) {
        dims.push_back({part.str(), 0, "%batch"});
        dims.push_back({part.str(), 1, "%q_len"});
        dims.push_back({part.str(), 2, "%q_heads"});
        dims.push_back({part.str(), 3, "%state_row"});
      }
    }
    v["SEQ_CHECKS"] = kDecodeSeqChecks;
    if (visibleLens) {
      dims.push_back({"visible_lens", 0, "%batch"});
      dims.push_back({"visible_lens", 1, "%q_len"});
      std::string checks = kDecodeSeqChecks.str();
      size_t at = checks.rfind("%a5 = ");
      checks.replace(at, 3, "%a5_decode");
      v["SEQ_CHECKS"] = checks + kVisibleChecks.str();
      v["SEEN"] = kVisibleSeen.str();
      v["ROW_RANGES"] = kVisibleRowRanges.str();
      setup += "  %q_last = arith.constant " + std::to_string(qLen - 1) +
               " : index\n";
    }
    v["SEQ_EXTRA"] = kDecodeSeqExtra;
    v["TOTAL_CHECK"] =
        "    %batch_i64 = arith.index_cast %batch : index to i64\n"
        "    %acc_end_i32 = memref.load %accum_q_len[%batch] : "
        "${ACCUM_Q_LEN_TYPE}\n"
        "    %acc_end = arith.extsi %acc_end_i32 : i32 to i64\n"
        "    %acc_total = arith.muli %batch_i64, %q_len_i64 : i64\n"
        "    %total_ok = arith.cmpi eq, %acc_end, %acc_total : i64";
    v["PLAN"] =
        "      %chunk = wsp.plan_chunk_size %lens[%batch] "
        "heads(%kv_heads) config(${CONFIG}) : memref<${MAX_BATCH}xi32>" +
        kDecodePlan.str();
    if (planKvLens) {
      // The chunk planned for plan_kv_lens (a sharded rank plans as the
      // whole batch), in a buffer of its own.
      v["PLAN"] = kDecodePlanFor.str();
      v["PLAN_BATCH"] = std::to_string(kMaxPlanBatch);
      v["DECODE_PLAN"] = kDecodePlan.str();
      setup += "  %plan_batch = memref.dim %plan_kv_lens, %c0 : "
               "${PLAN_KV_LENS_TYPE}\n"
               "  %plan_max = arith.constant ${PLAN_BATCH} : index\n"
               "  %plan_fits = arith.cmpi ule, %plan_batch, %plan_max : index\n"
               "  %plan_lens = memref.alloca() : memref<${PLAN_BATCH}xi32>\n";
    }
    // Chunks of 256 to 4096 positions (the defaults).
    v["CONFIG"] = "#wsp.plan_config<max_work_units = ${UNITS}>";
    v["TIERS"] = kDecodeTiers;
    v["TILE_KS"] =
        int8 ? "array<i64: 32, 64, 64, 64>" : "array<i64: 64, 128, 128, 128>";
    v["DESC"] = "!wsp.descriptor<attention>";
    v["WHICH"] = kDecodeWhich;
    v["TOKEN_AT"] = "";
    v["Q_IDX"] = "%req, %s";
    v["START_STATE"] = kDecodeStartState;
    v["END_STATE"] = stateO ? kDecodeEndStateToStates : kDecodeEndState;
    v["CARRY_STATE"] = kDecodeCarryState;
    // A batch over the stack buffer of lengths is a size the plan does not
    // support.
    setup += "  %max_batch = arith.constant ${MAX_BATCH} : index\n";
    setup += planKvLens
                 ? "  %local_fits = arith.cmpi ule, %batch, %max_batch : "
                   "index\n"
                   "  %batch_fits = arith.andi %local_fits, %plan_fits : i1\n"
                 : "  %batch_fits = arith.cmpi ule, %batch, %max_batch : "
                   "index\n";
  } else {
    setup += "  %tokens = memref.dim %q, %c0 : ${Q_TYPE}\n"
             "  %tokens_i64 = arith.index_cast %tokens : index to i64\n"
             "  %tokens_per_unit = arith.constant " +
             std::to_string(rows / group) +
             " : index\n"
             "  %descs = memref.alloca() : memref<${UNITS}x!wsp.descriptor<"
             "moe>>\n";
    dims.push_back({"q", 2, "%head_dim"});
    dims.push_back({"out", 0, "%tokens"});
    dims.push_back({"out", 1, "%q_heads"});
    dims.push_back({"out", 2, "%head_dim"});
    v["SEQ_CHECKS"] = op.getAccumQLen()
                          ? kPrefillAccumChecks
                          : "      %a5 = arith.andi %a4, %true : i1";
    v["SEQ_EXTRA"] = "";
    v["TOTAL_CHECK"] =
        "    %total_ok = arith.cmpi sle, %total, %tokens_i64 : i64";
    v["PLAN"] = kPrefillPlan;
    v["CONFIG"] = "#wsp.plan_config<max_work_units = ${UNITS}>";
    v["TIERS"] =
        "wsp.tier_config @${NAME}_tiers [#wsp.tier<0, [1, 2147483647]>]";
    v["TILE_KS"] = int8 ? "array<i64: 64>" : "array<i64: 128>";
    v["DESC"] = "!wsp.descriptor<moe>";
    v["WHICH"] = kPrefillWhich;
    v["SEQ_START"] = op.getAccumQLen() ? kSeqStartAccum : kSeqStartPrefix;
    v["TOKEN_AT"] = "    %t = arith.addi %seq_start, %s : index";
    v["Q_IDX"] = "%t";
    v["START_STATE"] = kAttentionFreshState;
    v["END_STATE"] = kAttentionFinish;
    setup += "  %batch_fits = arith.constant true\n";
  }
  // Decode of an empty batch (a KV-sharded rank whose range of requests is
  // empty) has nothing to plan: 0, nothing written. The runtime planner
  // itself refuses a batch of 0.
  if constexpr (decode)
    v["PLAN"] = "      %no_requests = arith.cmpi eq, %batch, %c0 : index\n"
                "      %decoded = scf.if %no_requests -> i32 {\n"
                "        scf.yield %ok : i32\n"
                "      } else {\n" +
                v["PLAN"] +
                "\n      }\n"
                "      scf.yield %decoded : i32";
  v.setDefault("SEEN", "      %seen = arith.addi %past, %len : i64");
  v.setDefault("ROW_RANGES", kCausalRowRanges.str());
  v["PLAN_SETUP"] = setup;
  v["CHECKS"] = checks(args, dims, "%dims_ok") +
                "  %shapes_ok = arith.andi %dims_ok, %heads_fit : i1\n";
  return instantiate(op, v, kAttentionPlanner, kAttentionKernel, args);
}

} // namespace

void lowering::populateAttentionLowerings(LoweringRegistry &registry) {
  registry.add<llm::FlashAttentionDecodeOp>([](llm::FlashAttentionDecodeOp op,
                                               StringRef name,
                                               int64_t) -> FailureOr<Lowered> {
    if (op.getGrid())
      return op->emitOpError("is sharded over ")
             << op.getGridAttr()
             << ": convert-llm-kv-sharding lowers it to this rank's "
                "program first";
    return lowerAttention(op, name);
  });
  registry.add<llm::FlashAttentionPrefillOp>(
      [](llm::FlashAttentionPrefillOp op, StringRef name, int64_t) {
        return lowerAttention(op, name);
      });
}
