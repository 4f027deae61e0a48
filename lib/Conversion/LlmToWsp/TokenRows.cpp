//===- TokenRows.cpp - rope and the KV-cache stores -----------------------===//
//
// Token rows: rotary_embedding and store_kv_cache / store_paged_kv_cache.
// Fragments: Templates/TokenRows.mlir.in.
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
// rotary_embedding: one work unit = a range of token rows (packed) or of
// (sequence, query slot) rows (unpacked); each row finds its sequence and
// position
//===----------------------------------------------------------------------===//

/// The rows buffer of an op over token rows, its first argument, as the
/// rows_dim and unpacked_tokens fragments name it.
Params rowsOf(ArrayRef<NamedOperand> args) {
  return {{"ROWS_OF", args.front().name},
          {"ROWS_OF_TYPE", str(args.front().getType())}};
}

/// The values every op over ragged token rows shares (`rotary_embedding`,
/// the KV stores): how a row finds its sequence (`${LOCATE}`, `${IDX}`),
/// the planner's `%tokens` (`${TOKENS_DEF}`), and `${SEQ_FITS}`, which sets
/// %fits when sequence %b's tokens lie inside the rows: unpacked, q_lens[b]
/// <= the `slots` per sequence of the rows buffer (the first argument);
/// packed with accum_q_len, its start and end inside the rows (packed
/// without, the total is checked after the loop).
void addTokenRowValues(Params &v, bool packed, bool accum, int64_t slots,
                       ArrayRef<NamedOperand> args) {
  v.set("SLOTS", slots);
  v["TOKEN_RANGE"] = kTokenRange;
  if (!packed) {
    v["IDX"] = "%b, %s";
    v["LOCATE"] = kLocateUnpacked;
    v["TOKENS_DEF"] = fillKeys(kUnpackedTokens, rowsOf(args));
    v["SEQ_FITS"] = kSeqFitsUnpacked;
    return;
  }
  v["IDX"] = "%i";
  v["LOCATE"] = accum ? kLocateAccum : kLocatePrefix;
  v["FOUND"] = kLocateFound;
  v["SEQ_START_DEF"] = accum ? kSeqStartOfAccum : "";
  v["SEQ_FITS"] = accum ? kSeqFitsAccum : kSeqFitsPacked;
}

/// The run-time checks of an op over token rows, setting %shapes_ok:
/// `prelude`, the sizes of the rows buffer (its first argument) as
/// %<rows>_dim_<d>, the per-sequence validation, the op's dimension checks
/// `dims` (plus accum_q_len's batch + 1, and unpacked, the rows buffer's
/// batch), then `extra` lines setting the i1 `extraOk` when given.
std::string tokenRowChecks(ArrayRef<NamedOperand> args,
                           SmallVector<DimCheck> dims, unsigned rank,
                           bool packed, bool accum, StringRef prelude,
                           StringRef extra = "", StringRef extraOk = "") {
  std::string out = prelude.str();
  Params rows = rowsOf(args);
  for (unsigned d = 0; d < rank; ++d) {
    rows["ROWS_DIM"] = std::to_string(d);
    out += fillKeys(kRowsDim, rows);
  }
  out += kSeqValidate;
  if (accum) {
    out += kBatchPlus1;
    dims.push_back({"accum_q_len", 0, "%batch_plus_1"});
  }
  // checks() takes the rows buffer as its reference and checks nothing of
  // it: its unpacked batch is checked here.
  if (packed) {
    out += checks(args, dims, "%dims_and_batch");
  } else {
    out += checks(args, dims, "%dims_ok");
    out += fillKeys(kRowsBatchCheck, rows);
  }
  std::string ok = "%dims_and_batch";
  if (!extraOk.empty()) {
    out += extra.str() + fillKeys(kExtraOk, {{"EXTRA_OK", extraOk.str()}});
    ok = "%l0";
  }
  return out + fillKeys(kTokenRowsShapesOk, {{"ROWS_OK", ok}});
}

FailureOr<Lowered> lowerRotaryEmbedding(llm::RotaryEmbeddingOp op,
                                        StringRef name, int64_t cores) {
  SmallVector<NamedOperand> args = {{"qkv", op.getQkv()},
                                    {"sin", op.getSin()},
                                    {"cos", op.getCos()},
                                    {"position_ids", op.getPositionIds()},
                                    {"q_lens", op.getQLens()}};
  if (op.getAccumQLen())
    args.push_back({"accum_q_len", op.getAccumQLen()});
  args.push_back({"out", op.getOut()});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto qkvType = cast<MemRefType>(op.getQkv().getType());
  bool packed = qkvType.getRank() == 3;
  int64_t dim = qkvType.getDimSize(qkvType.getRank() - 1);
  int64_t offset = int32_t(op.getRopeOffset()),
          ropeDim = int32_t(op.getRopeDim());
  int64_t qHeads = int32_t(op.getQHeadNum()),
          kvHeads = int32_t(op.getKvHeadNum());
  if (ShapedType::isDynamic(dim) || dim % 16 || dim > kMaxCols)
    return op.emitOpError("lowers with a static head_dim, a multiple of 16 up "
                          "to ")
           << kMaxCols << " (one bf16 tile row per head)";
  if (ropeDim % 32 || offset % 16)
    return op.emitOpError("lowers with rope_dim a multiple of 32 and "
                          "rope_offset a multiple of 16 (each half of the "
                          "rotated range is whole 32-byte bf16 rows), got "
                          "rope_dim ")
           << ropeDim << " and rope_offset " << offset;
  int64_t slots = packed ? 1 : qkvType.getDimSize(1);
  if (!packed && ShapedType::isDynamic(slots))
    return op.emitOpError("lowers the unpacked form with a static q_seq_len "
                          "only");

  Params v;
  // The planner refuses a sequence longer than max_q_len (seq_validate).
  v.set("MAX_Q_LEN", int32_t(op.getMaxQLen()));
  addTypeValues(v, args);
  addPlanValues(v, name, args, cores);
  int64_t half = ropeDim / 2;
  const std::string h = std::to_string(half);
  v.set("HIDDEN", dim);
  v.set("OFF1", offset);
  v.set("OFF2", offset + half);
  v.set("ROPE_HEADS", qHeads + kvHeads);
  v.set("ALL_HEADS", qHeads + 2 * kvHeads);
  // cos and sin: a [2 x rope_dim] tile, its f32 form seen as [4 x half].
  const std::string rd = std::to_string(ropeDim);
  v["TABLES_BF16"] = tileType("vec", "2", rd, "bf16");
  v["TABLES_F32"] = tileType("vec", "2", rd, "f32");
  v["TABLE_BF16"] = tileType("vec", "1", rd, "bf16");
  v["HALVES_F32"] = tileType("vec", "4", h, "f32");
  v["HALF_F32"] = tileType("vec", "1", h, "f32");
  // Eight [rows x half] tiles (four bf16, four f32) and the copy's
  // [rows x dim] bf16 one.
  const int64_t headRows =
      headTileRows(qHeads + kvHeads, half * (4 * 2 + 4 * 4) + dim * 2);
  const std::string r = std::to_string(headRows);
  v["HEAD_ROWS"] = r;
  v["ROWS_BF16"] = rowsTileType("vec", r, h, "bf16");
  v["ROWS_F32"] = rowsTileType("vec", r, h, "f32");
  v["FULL_BF16"] = rowsTileType("vec", r, std::to_string(dim), "bf16");
  v.set("SLOTS", slots);
  v["COPY"] = op.getOut() == op.getQkv() ? "" : kRopeCopy;
  v["FIRST_OF_SEQ"] = kFirstOfPositionIds;
  addTokenRowValues(v, packed, bool(op.getAccumQLen()), slots, args);
  // Every position of the step inside the tables.
  v["VALIDATE_SETUP"] = kRopeValidateSetup;
  v["SEQ_CHECKS"] = kRopeSeqChecks;
  // Shapes: out is qkv's shape; one batch for the per-sequence operands;
  // the tables agree; then the lengths.
  SmallVector<DimCheck> dims;
  for (unsigned d = 0; d < qkvType.getRank(); ++d)
    dims.push_back({"out", d, "%qkv_dim_" + std::to_string(d)});
  dims.push_back({"position_ids", 0, "%batch"});
  dims.push_back({"cos", 0, "%table"});
  dims.push_back({"sin", 1, "%rope_dim"});
  dims.push_back({"cos", 1, "%rope_dim"});
  v.set("ROPE_DIM", ropeDim);
  v["CHECKS"] = tokenRowChecks(args, dims, qkvType.getRank(), packed,
                               bool(op.getAccumQLen()), kRopeDimConstant);
  return instantiate(op, v, kRowPlanner, kRopeKernel, args);
}

//===----------------------------------------------------------------------===//
// store_kv_cache / store_paged_kv_cache: token rows as rotary_embedding's;
// each (token, KV head) row of key and value to its cache position
//===----------------------------------------------------------------------===//

template <typename StoreOp>
FailureOr<Lowered> lowerStore(StoreOp op, StringRef name, int64_t cores,
                              Value blockTable) {
  auto [keyBase, keyHead0] = headRangeOf(op.getKey());
  auto [valueBase, valueHead0] = headRangeOf(op.getValue());
  SmallVector<NamedOperand> args = {{"key", keyBase}, {"value", valueBase}};
  if (blockTable)
    args.push_back({"block_table", blockTable});
  if (op.getKvIds())
    args.push_back({"kv_ids", op.getKvIds()});
  args.push_back({"q_lens", op.getQLens()});
  if (op.getKvLens())
    args.push_back({"kv_lens", op.getKvLens()});
  if (op.getAccumQLen())
    args.push_back({"accum_q_len", op.getAccumQLen()});
  if (op.getKeyScale())
    args.push_back({"key_scale", op.getKeyScale()});
  if (op.getValueScale())
    args.push_back({"value_scale", op.getValueScale()});
  args.push_back({"k_cache", op.getKCache()});
  args.push_back({"v_cache", op.getVCache()});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  // Shapes are the op's (a head range's), buffers the bases.
  auto keyType = cast<MemRefType>(op.getKey().getType());
  auto cacheType = cast<MemRefType>(op.getKCache().getType());
  bool packed = keyType.getRank() == 3;
  bool int8 = cacheType.getElementType().isSignlessInteger(8);
  int64_t dim = keyType.getDimSize(keyType.getRank() - 1);
  int64_t kvHeads = keyType.getDimSize(keyType.getRank() - 2);
  if (ShapedType::isDynamic(dim) || dim % 32 || dim > kMaxCols)
    return op.emitOpError("lowers with a static head_dim, a multiple of 32 "
                          "up to ")
           << kMaxCols << " (one bf16 or int8 tile row per head)";
  if (ShapedType::isDynamic(kvHeads))
    return op.emitOpError("lowers with a static kv_head_num only");
  int64_t slots = packed ? 1 : keyType.getDimSize(1);
  if (!packed && ShapedType::isDynamic(slots))
    return op.emitOpError("lowers the unpacked form with a static q_seq_len "
                          "only");
  int64_t blockSize = cacheType.getDimSize(2);
  if (blockTable && ShapedType::isDynamic(blockSize))
    return op.emitOpError("lowers with a static block_size only");

  Params v;
  // The planner refuses a sequence longer than max_q_len (seq_validate).
  v.set("MAX_Q_LEN", int32_t(op.getMaxQLen()));
  addTypeValues(v, args);
  addPlanValues(v, name, args, cores);
  const std::string d = std::to_string(dim);
  auto rows = [&](StringRef elem) { return rowsTileType("vec", "8", d, elem); };
  // key and value as [token rows, heads x head_dim] (unpacked: the batch
  // and q_seq_len dimensions make the token rows).
  SmallVector<ReassociationIndices> tokenRows =
      packed ? SmallVector<ReassociationIndices>{{0}, {1, 2}}
             : SmallVector<ReassociationIndices>{{0, 1}, {2, 3}};
  v["TOKEN_ROWS"] = packed ? "[[0], [1, 2]]" : "[[0, 1], [2, 3]]";
  v["KEY_ROWS_TYPE"] = str(memref::CollapseShapeOp::computeCollapsedType(
      cast<MemRefType>(keyBase.getType()), tokenRows));
  v["VALUE_ROWS_TYPE"] = str(memref::CollapseShapeOp::computeCollapsedType(
      cast<MemRefType>(valueBase.getType()), tokenRows));
  v.set("HIDDEN", dim);
  v.set("KV_HEADS", kvHeads);
  v.set("KEY_HEAD0", keyHead0);
  v.set("VALUE_HEAD0", valueHead0);
  v.set("SLOTS", slots);
  v.set("BLOCK_SIZE", blockSize);
  v["ROW_F32"] = tileType("vec", "1", d, "f32");
  v["ROWS_BF16"] = rows("bf16");
  v["ROWS_F32"] = rows("f32");
  v["ROWS_I16"] = rows("i16");
  v["ROWS_F16"] = rows("f16");
  v["ROWS_I8"] = rows("i8");
  if (int8) {
    v["CONVERT_TILES"] = kStoreInt8Constants;
    v["CONVERT_TILES_N"] = kStoreInt8Tiles;
    Params k = {{"SCALE", "key_scale"},
                {"SCALE_TYPE", "${KEY_SCALE_TYPE}"},
                {"SOURCE", "%krows"}};
    Params vv = {{"SCALE", "value_scale"},
                 {"SCALE_TYPE", "${VALUE_SCALE_TYPE}"},
                 {"SOURCE", "%vrows"}};
    v["CONVERT_KEY"] = fillKeys(kStoreQuantize, k);
    v["CONVERT_VALUE"] = fillKeys(kStoreQuantize, vv);
    v["STORED_KEY"] = v["STORED_VALUE"] = "%rows_8";
    v["STORED_TILE"] = "${ROWS_I8}";
  } else {
    v["CONVERT_TILES"] = v["CONVERT_TILES_N"] = v["CONVERT_KEY"] =
        v["CONVERT_VALUE"] = "";
    v["STORED_KEY"] = "%krows";
    v["STORED_VALUE"] = "%vrows";
    v["STORED_TILE"] = "${ROWS_BF16}";
  }
  // The tokens of the located sequence from row %i on.
  if (!packed) {
    v["SEQ_LEFT"] = kSeqLeftUnpacked;
  } else {
    v["SEQ_LEFT"] = kSeqLeftPacked;
    v["RUN_START"] = op.getAccumQLen() ? kRunStartAccum : kRunStartPrefix;
  }
  // A run stays in its page (paged) or is whole (a contiguous cache row).
  v["RUN_IN_PAGE"] = blockTable ? kRunInPage : kRunWhole;
  // Where %pos of sequence %b lives.
  v["SLOT"] = op.getKvIds() ? kSlotOfKvIds : kSlotOfBatch;
  v["WHERE"] = blockTable ? kWherePaged : kWhereContiguous;
  // A ring cache: each position at its slot of the ring; the step's tokens
  // must fit the ring (the row need not hold the whole sequence).
  bool ring = false;
  if constexpr (std::is_same_v<StoreOp, llm::StorePagedKvCacheOp>)
    ring = op.getRing();
  if (ring)
    v["WHERE"] = kWherePagedRing;
  v["STORE_NEED"] = ring ? "%len" : "%last";
  v["FIRST_OF_SEQ"] = op.getKvLens() ? kFirstOfKvLens : kFirstAtZero;
  addTokenRowValues(v, packed, bool(op.getAccumQLen()), slots, args);
  // Validation of the lengths, slots and pages.
  v["PAST_OF_SEQ"] = op.getKvLens() ? kPastOfKvLens : kPastZero;
  v["SLOT_OF_SEQ"] = op.getKvIds() ? kSlotOfSeqKvIds : kSlotOfSeqBatch;
  v["SEQ_CHECKS"] = kStoreSeqChecks;
  v["VALIDATE_SETUP"] = kStoreValidateSetup;
  if (blockTable) {
    v["SLOTS_OF"] = "%block_table";
    v["SLOTS_TYPE"] = "${BLOCK_TABLE_TYPE}";
    v["CAPACITY"] = kPagedCapacity;
    v["PAGES_OK"] = kStorePagesOk;
    v["PAGES_IN_POOL"] = kPagesInPool;
    v["PAGES_FROM"] = "%first_idx";
    v["PAGES_TO"] = "%end_idx";
    if (ring) {
      v["PAGES_IN_POOL"] = (kRingPages + kPagesInPool).str();
      v["PAGES_END"] = "%end_idx";
      v["PAGES_FROM"] = "%c0";
      v["PAGES_TO"] = "%ring_pages";
    }
  } else {
    v["SLOTS_OF"] = "%k_cache";
    v["SLOTS_TYPE"] = "${K_CACHE_TYPE}";
    v["CAPACITY"] = kCacheCapacity;
    v["PAGES_OK"] = kNoPages;
  }
  // Shapes: value as key, both caches one shape, the per-sequence operands
  // one batch, the scales [kv_head_num, head_dim].
  SmallVector<DimCheck> dims;
  v["CACHE_DIMS"] = kCacheDims;
  // key and value may be head ranges of larger buffers: their other
  // dimensions agree, and each range fits its buffer's heads.
  unsigned headDim = keyType.getRank() - 2;
  for (unsigned d = 0; d < keyType.getRank(); ++d)
    if (d != headDim)
      dims.push_back({"value", d, "%key_dim_" + std::to_string(d)});
  v.set("HEADS_DIM", headDim);
  v.set("KEY_HEAD_END", keyHead0 + kvHeads);
  v.set("VALUE_HEAD_END", valueHead0 + kvHeads);
  for (unsigned d = 0; d < 4; ++d)
    dims.push_back({"v_cache", d, "%cache_dim_" + std::to_string(d)});
  dims.push_back({"k_cache", 1, "%kv_heads"});
  dims.push_back({"k_cache", 3, "%hidden"});
  for (StringRef perSeq : {"kv_ids", "kv_lens"})
    if (llvm::any_of(args,
                     [&](const NamedOperand &a) { return a.name == perSeq; }))
      dims.push_back({perSeq.str(), 0, "%batch"});
  for (StringRef scale : {"key_scale", "value_scale"})
    if (llvm::any_of(args,
                     [&](const NamedOperand &a) { return a.name == scale; })) {
      dims.push_back({scale.str(), 0, "%kv_heads"});
      dims.push_back({scale.str(), 1, "%hidden"});
    }
  v["CHECKS"] = tokenRowChecks(args, dims, keyType.getRank(), packed,
                               bool(op.getAccumQLen()), kStoreChecksPrelude,
                               kStoreHeadsFit, "%heads_fit");
  return instantiate(op, v, kRowPlanner, kStoreKernel, args);
}

} // namespace

void lowering::populateTokenRowLowerings(LoweringRegistry &registry) {
  registry.add<llm::RotaryEmbeddingOp>(lowerRotaryEmbedding);
  registry.add<llm::StoreKvCacheOp>(
      [](llm::StoreKvCacheOp op, StringRef name, int64_t cores) {
        return lowerStore(op, name, cores, Value());
      });
  registry.add<llm::StorePagedKvCacheOp>(
      [](llm::StorePagedKvCacheOp op, StringRef name,
         int64_t cores) -> FailureOr<Lowered> {
        if (op.getGrid())
          return op->emitOpError("is sharded over ")
                 << op.getGridAttr()
                 << ": convert-llm-kv-sharding lowers it to this rank's "
                    "program first";
        return lowerStore(op, name, cores, op.getBlockTable());
      });
}
