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
  v["VECTOR_CORE_POSITIONS"] = kVectorCorePositions;
  v["POSITIONS_SHARE"] = vectorCoreShare("%seg", "%x_n", "%x_o");
  v["TILE_COUNT"] = newToken ? kTileCountNewToken : kTileCount;
  auto at = [&](StringRef index) {
    return fillKeys(newToken ? kTileAtNewToken : kTileAt,
                    {{"TILE_INDEX", index.str()}});
  };
  v["TILE_AT_A"] = at("%a_t");
  v["TILE_AT_B"] = at("%j");
  v["TILE_AT_D"] = at("%a_t");
}

LogicalResult lowering::checkAttentionTile(Operation *op, int64_t dim,
                                           int64_t group, int64_t align,
                                           int64_t maxDim, StringRef why) {
  if (ShapedType::isDynamic(dim) || dim % align || dim > maxDim)
    return op->emitOpError("lowers with a static head_dim, a multiple of ")
           << align << " up to " << maxDim << " (" << why << ")";
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
  Value planKvLens, visibleLens, startPos, stateO;
  if constexpr (decode) {
    planKvLens = op.getPlanKvLens();
    visibleLens = op.getVisibleLens();
    startPos = op.getStartPos();
    stateO = op.getStateO();
  }
  if (planKvLens)
    args.push_back({"plan_kv_lens", planKvLens});
  if (visibleLens)
    args.push_back({"visible_lens", visibleLens});
  if (startPos)
    args.push_back({"start_pos", startPos});
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
  // A bf16 cache's rows are whole 32-byte blocks at any multiple of 16; an
  // int8 cache's (and its f32 K in the workspace) at 32.
  if (failed(int8 ? checkAttentionTile(op, dim, group, 32, kMaxHeadDim,
                                       "over an int8 cache: a KV tile's "
                                       "dequantization scratch and the row "
                                       "state fill UB")
                  : checkAttentionTile(op, dim, group, 16, kMaxBf16HeadDim)))
    return failure();
  // Heads over 128 take KV tiles of 64 (kvTileFor), and the workspaces'
  // rows hold the wider of a KV tile and a head.
  const int64_t kvTile = kvTileFor(dim), wsCols = std::max(kMaxKvTile, dim);
  int64_t qLen = 0;
  if constexpr (decode)
    qLen = int32_t(op.getQSeqLen());

  Params v;
  Builder b(op.getContext());
  auto ws = [&](StringRef part, SmallVector<int64_t> shape, Type elem) {
    args.push_back({part.str(), Value(), MemRefType::get(shape, elem)});
  };
  int64_t blocks = kAttentionBlocks, rows = kAttentionRows;
  // Per block: Q (bf16 cache) and P, in bf16; S, O_t and, decode, the
  // row's o, in f32; decode, the row's m and l; int8 cache, Q in f32 and
  // the tile's K (f32) and V (bf16).
  ws("ws_h", {blocks, int8 ? 1 : 2, rows, wsCols}, b.getBF16Type());
  ws("ws_f", {blocks, decode ? 3 : 2, rows, wsCols}, b.getF32Type());
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
  v.set("INT8_KV_TILE", kMaxInt8KvTile);
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
  // operands, out, the caches. The planner's setup is a sequence of
  // pieces, attention_plan_setup first.
  SmallVector<DimCheck> dims;
  v.set("Q_HEADS_END", qHead0 + heads);
  v.set("Q_HEADS", heads);
  v["CACHE_DIMS"] = kCacheDims;
  std::string setup = kAttentionPlanSetup.str();
  for (unsigned d = 0; d < 4; ++d)
    dims.push_back({"v_cache", d, "%cache_dim_" + std::to_string(d)});
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
    setup += kBatchPlus1;
    dims.push_back({"accum_q_len", 0, "%batch_plus_1"});
  }
  // The base's head dimension holds the range.
  v.set("Q_HEADS_DIM", rank - 2);
  setup += kQHeadsFit;
  if constexpr (decode) {
    setup += kDecodeSetup;
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
      setup += kStateRow;
      for (StringRef part : {"state_m", "state_l"}) {
        dims.push_back({part.str(), 0, "%batch"});
        dims.push_back({part.str(), 1, "%q_len"});
        dims.push_back({part.str(), 2, "%q_heads"});
        dims.push_back({part.str(), 3, "%state_row"});
      }
    }
    v["SEQ_CHECKS"] = kDecodeSeqChecks;
    v["DECODE_OK"] = "%a5";
    if (visibleLens) {
      dims.push_back({"visible_lens", 0, "%batch"});
      dims.push_back({"visible_lens", 1, "%q_len"});
      v["DECODE_OK"] = "%a5_decode";
      v["SEQ_CHECKS"] = (kDecodeSeqChecks + kVisibleChecks).str();
      v["SEEN"] = kVisibleSeen.str();
      v["ROW_RANGES"] = kVisibleRowRanges.str();
      v.set("Q_LAST", qLen - 1);
      setup += kVisibleLast;
    }
    // A sliding window: seed 001's sliding mask per row, and only the
    // chunks the windows reach planned (the last q_seq_len positions of
    // each length are the queries).
    // (The verifier refuses a window with visible_lens.)
    if (std::optional<int32_t> window = op.getSlidingWindow()) {
      v["MASK_KIND"] = "sliding window(" + std::to_string(*window) + ")";
      v["WINDOW"] = " window(" + std::to_string(*window) + ") queries(%q_len)";
      // start_pos: each row from its query's start (checked inside the
      // window, which still bounds the plan).
      if (startPos) {
        v.set("WINDOW_SIZE", *window);
        dims.push_back({"start_pos", 0, "%batch"});
        dims.push_back({"start_pos", 1, "%q_len"});
        v["DECODE_OK"] = "%a5_decode";
        v["SEQ_CHECKS"] = (kDecodeSeqChecks + kStartPosChecks).str();
        v["ROW_RANGES"] = kStartPosRowRanges.str();
      }
    }
    v["SEQ_EXTRA"] = kDecodeSeqExtra;
    v["TOTAL_CHECK"] = kDecodeTotalCheck;
    v["NONEMPTY_PLAN"] = kDecodePlanChunk;
    v["DECODE_PLAN"] = kDecodePlan;
    if (planKvLens) {
      // The chunk planned for plan_kv_lens (a sharded rank plans as the
      // whole batch), in a buffer of its own.
      v["NONEMPTY_PLAN"] = kDecodePlanFor;
      v.set("PLAN_BATCH", kMaxPlanBatch);
      setup += kPlanKvLensSetup;
    }
    // Chunks of 256 to 4096 positions (the defaults).
    v["CONFIG"] = kAttentionPlanConfig;
    v["TIERS"] = kDecodeTiers;
    v["TILE_KS"] =
        str(int8 ? b.getDenseI64ArrayAttr({32, 64, 64, 64})
                 : b.getDenseI64ArrayAttr({64, kvTile, kvTile, kvTile}));
    v["DESC"] = kAttentionDescriptorType;
    v["WHICH"] = kDecodeWhich;
    // q_seq_len x group rows over one tile's: row tiles of whole query
    // tokens, each its own row for the planner (head_idx = KV head x row
    // tiles + row tile), so that more rows are more units, not a bigger
    // tile.
    int64_t tokensPerTile = rows / group;
    int64_t rowTiles = llvm::divideCeil(qLen, tokensPerTile);
    if (rowTiles > 1) {
      v.set("ROW_TILES", rowTiles);
      v.set("TOKENS_PER_TILE", tokensPerTile);
      v["WHICH"] = kDecodeWhichRowTiles;
      v["PLAN_HEADS"] = "%plan_heads";
      setup += kDecodeRowTilesSetup;
    }
    v["TOKEN_AT"] = "";
    v["Q_IDX"] = "%req, %s";
    v["START_STATE"] = kDecodeStartState;
    v["END_STATE"] = stateO ? kDecodeEndStateToStates : kDecodeEndState;
    v["CARRY_STATE"] = kDecodeCarryState;
    // A batch over the stack buffer of lengths is a size the plan does not
    // support.
    setup += planKvLens ? kDecodeBatchFitsPlan : kDecodeBatchFits;
    // An empty batch has nothing to plan.
    v["PLAN"] = kDecodeUnlessEmpty;
  } else {
    v.set("TOKENS_PER_UNIT", rows / group);
    // The planner refuses a sequence longer than max_q_len.
    if constexpr (!decode)
      v.set("MAX_Q_LEN", int32_t(op.getMaxQLen()));
    setup += kPrefillSetup;
    dims.push_back({"q", 2, "%head_dim"});
    dims.push_back({"out", 0, "%tokens"});
    dims.push_back({"out", 1, "%q_heads"});
    dims.push_back({"out", 2, "%head_dim"});
    v["SEQ_CHECKS"] =
        op.getAccumQLen() ? kPrefillAccumChecks : kPrefillSeqChecks;
    v["SEQ_EXTRA"] = "";
    v["TOTAL_CHECK"] = kPrefillTotalCheck;
    v["PLAN"] = kPrefillPlan;
    v["CONFIG"] = kAttentionPlanConfig;
    v["TIERS"] = kOneTierConfig;
    v.set("TILE_KS", b.getDenseI64ArrayAttr({int8 ? 64 : kvTile}));
    v["DESC"] = kMoeDescriptorType;
    v["WHICH"] = kPrefillWhich;
    v["SEQ_START"] = op.getAccumQLen() ? kSeqStartAccum : kSeqStartPrefix;
    // A sliding window: each unit reads from its first token's window on,
    // each row masked to its own (a true window over the new tokens too).
    v["KV_START"] = kPrefillKvStart;
    if (std::optional<int32_t> window = op.getSlidingWindow()) {
      v.set("WINDOW_SIZE", *window);
      v["KV_START"] = kWindowKvStart;
      v["ROW_RANGES"] = kWindowRowRanges;
    }
    v["TOKEN_AT"] = kPrefillTokenAt;
    v["Q_IDX"] = "%t";
    v["START_STATE"] = kAttentionFreshState;
    v["END_STATE"] = kAttentionFinish;
  }
  // A ring cache (the verifier requires a sliding window with it): the
  // kernel reads position p at slot p mod the ring's length, and the
  // planner needs the positions a request reads, not all it has seen, to
  // fit the block-table row, whose pages it checks up to the ring's.
  if (op.getRing()) {
    v.set("RING_WINDOW_NEED", int64_t(*op.getSlidingWindow()) - 1);
    v["SEEN"] = (kPastAndLen + kRingNeed).str();
    v["CAPACITY_NEED"] = "%ring_need";
    v["KV_SOURCE"] = (kPagedSlot + kRingLength).str();
    v["PAGE_SEGMENT"] = (kPageSegment + kRingSegment).str();
    v["VECTOR_CORE_POSITIONS"] =
        (kVectorCorePositions + kRingCorePositions).str();
    v["P_AT"] = "%p_ring";
    v["P_X_AT"] = "%p_x_ring";
    v["PAGES_IN_POOL"] = (kRingPages + kPagesInPool).str();
    v["PAGES_END"] = "%pages";
    v["PAGES_TO"] = "%ring_pages";
  }
  v.setDefault("CAPACITY_NEED", "%seen");
  v.setDefault("P_AT", "%p");
  v.setDefault("P_X_AT", "%p_x");
  v.setDefault("PLAN_HEADS", "%kv_heads");
  v.setDefault("MASK_KIND", "standard");
  v.setDefault("WINDOW", "");
  v.setDefault("SEEN", kPastAndLen.str());
  v.setDefault("ROW_RANGES", kCausalRowRanges.str());
  v["PLAN_SETUP"] = setup;
  v["CHECKS"] = checksAnd(args, dims, "%heads_fit");
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
