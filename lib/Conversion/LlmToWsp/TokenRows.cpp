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

/// The values every op over ragged token rows shares (`rotary_embedding`,
/// the KV stores): how a row finds its sequence (`${LOCATE}`, `${IDX}`),
/// the planner's `%tokens` (`${TOKENS_DEF}`), and `${SEQ_FITS}`, which sets
/// %fits when sequence %b's tokens lie inside the rows: unpacked, q_lens[b]
/// <= the `slots` per sequence of buffer `rows`; packed with accum_q_len,
/// its start and end inside the rows (packed without, the total is checked
/// after the loop).
void addTokenRowValues(Params &v, bool packed, bool accum, int64_t slots,
                       StringRef rows) {
  v["SLOTS"] = std::to_string(slots);
  // The kernel's opening: its descriptor's rows [start, end).
  v["TOKEN_RANGE"] =
      "  %c0 = arith.constant 0 : index\n"
      "  %c1 = arith.constant 1 : index\n"
      "  %false = arith.constant false\n"
      "  %batch = memref.dim %q_lens, %c0 : ${Q_LENS_TYPE}\n"
      "  %start = wsp.param %desc[\"token_start\"] : !wsp.descriptor<moe>\n"
      "  %count = wsp.param %desc[\"token_count\"] : !wsp.descriptor<moe>\n"
      "  %end = arith.addi %start, %count : index";
  if (!packed) {
    v["IDX"] = "%b, %s";
    v["LOCATE"] = kLocateUnpacked;
    v["TOKENS_DEF"] =
        ("  %seqs = memref.dim %" + rows + ", %c0 : ${" + rows.upper() +
         "_TYPE}\n"
         "  %slots_per_seq = arith.constant ${SLOTS} : index\n"
         "  %tokens = arith.muli %seqs, %slots_per_seq : index")
            .str();
    v["SEQ_FITS"] = "    %slots_i64_u = arith.constant ${SLOTS} : i64\n"
                    "    %fits = arith.cmpi sle, %len, %slots_i64_u : i64";
    return;
  }
  v["IDX"] = "%i";
  v["LOCATE"] = accum ? kLocateAccum : kLocatePrefix;
  v["FOUND"] = kLocateFound;
  v["SEQ_START_DEF"] =
      accum ? "%start_i32 = memref.load %accum_q_len[%b] : "
              "${ACCUM_Q_LEN_TYPE}\n      %seq_start = arith.index_cast "
              "%start_i32 : i32 to index"
            : "";
  v["SEQ_FITS"] =
      accum ? "    %acc_i32 = memref.load %accum_q_len[%b] : "
              "${ACCUM_Q_LEN_TYPE}\n"
              "    %acc_i64 = arith.extsi %acc_i32 : i32 to i64\n"
              "    %acc_ok = arith.cmpi sge, %acc_i64, %zero_i64 : i64\n"
              "    %acc_end = arith.addi %acc_i64, %len : i64\n"
              "    %tok_i64 = arith.index_cast %tokens : index to i64\n"
              "    %end_ok = arith.cmpi sle, %acc_end, %tok_i64 : i64\n"
              "    %fits = arith.andi %acc_ok, %end_ok : i1"
            : "    %fits = arith.constant true";
}

/// The run-time checks of an op over token rows, setting %shapes_ok:
/// `prelude`, the sizes of the rows buffer `rows` (its first argument) as
/// %<rows>_dim_<d>, the per-sequence validation, the op's dimension checks
/// `dims` (plus accum_q_len's batch + 1, and unpacked, the rows buffer's
/// batch), then `extra` lines setting the i1 `extraOk` when given.
std::string tokenRowChecks(ArrayRef<NamedOperand> args,
                           SmallVector<DimCheck> dims, StringRef rows,
                           unsigned rank, bool packed, bool accum,
                           StringRef prelude, StringRef extra = "",
                           StringRef extraOk = "") {
  std::string out = prelude.str();
  for (unsigned d = 0; d < rank; ++d)
    out += ("  %" + rows + "_dim_" + Twine(d) + " = memref.dim %" + rows +
            ", %c" + Twine(d) + " : ${" + rows.upper() + "_TYPE}\n")
               .str();
  out += kSeqValidate;
  if (accum) {
    out += "  %batch_plus_1 = arith.addi %batch, %c1 : index\n";
    dims.push_back({"accum_q_len", 0, "%batch_plus_1"});
  }
  // checks() takes the rows buffer as its reference and checks nothing of
  // it: its unpacked batch is checked here.
  if (packed) {
    out += checks(args, dims, "%dims_and_batch");
  } else {
    out += checks(args, dims, "%dims_ok");
    out += ("  %rows_batch = arith.cmpi eq, %" + rows +
            "_dim_0, %batch : index\n"
            "  %dims_and_batch = arith.andi %dims_ok, %rows_batch : i1\n")
               .str();
  }
  std::string ok = "%dims_and_batch";
  if (!extraOk.empty()) {
    out += extra.str() + "  %l0 = arith.andi %dims_and_batch, " +
           extraOk.str() + " : i1\n";
    ok = "%l0";
  }
  return out + "  %l1 = arith.andi " + ok + ", %lengths_ok : i1\n" +
         "  %shapes_ok = arith.andi %l1, %total_fits : i1\n";
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
  addTypeValues(v, args);
  addPlanValues(v, name, args, cores);
  int64_t half = ropeDim / 2;
  auto tile = [&](int64_t rows, int64_t cols, StringRef elem, bool valid) {
    std::string t = "!tile.tile<vec, " + std::to_string(rows) + "x" +
                    std::to_string(cols) + "x" + elem.str();
    return t + (valid ? ", valid = ?x" + std::to_string(cols) + ">" : ">");
  };
  v["HIDDEN"] = std::to_string(dim);
  v["HALF"] = std::to_string(half);
  v["OFF1"] = std::to_string(offset);
  v["OFF2"] = std::to_string(offset + half);
  v["ROPE_HEADS"] = std::to_string(qHeads + kvHeads);
  v["ALL_HEADS"] = std::to_string(qHeads + 2 * kvHeads);
  v["HALF_BF16"] = tile(1, half, "bf16", false);
  v["HALF_F32"] = tile(1, half, "f32", false);
  // Six [rows x half] tiles (two bf16, four f32) and the copy's
  // [rows x dim] bf16 one.
  const int64_t headRows =
      headTileRows(qHeads + kvHeads, half * (2 * 2 + 4 * 4) + dim * 2);
  v["HEAD_ROWS"] = std::to_string(headRows);
  v["ROWS_BF16"] = tile(headRows, half, "bf16", true);
  v["ROWS_F32"] = tile(headRows, half, "f32", true);
  v["FULL_BF16"] = tile(headRows, dim, "bf16", true);
  v["SLOTS"] = std::to_string(slots);
  v["COPY"] = op.getOut() == op.getQkv() ? "" : kRopeCopy;
  v["FIRST_OF_SEQ"] =
      "    %first_i32 = memref.load %position_ids[%b] : ${POSITION_IDS_TYPE}\n"
      "    %first = arith.index_cast %first_i32 : i32 to index";
  addTokenRowValues(v, packed, bool(op.getAccumQLen()), slots, "qkv");
  // Every position of the step inside the tables.
  v["VALIDATE_SETUP"] = "  %table = memref.dim %sin, %c0 : ${SIN_TYPE}\n"
                        "  %table_i64 = arith.index_cast %table : index to i64";
  v["SEQ_CHECKS"] =
      "    %first_i32 = memref.load %position_ids[%b] : ${POSITION_IDS_TYPE}\n"
      "    %first = arith.extsi %first_i32 : i32 to i64\n"
      "    %first_ok = arith.cmpi sge, %first, %zero_i64 : i64\n"
      "    %last = arith.addi %first, %len : i64\n"
      "    %in_table = arith.cmpi sle, %last, %table_i64 : i64\n"
      "    %c1_ok = arith.andi %len_ok, %first_ok : i1\n"
      "    %c2_ok = arith.andi %c1_ok, %in_table : i1\n"
      "    %seq_ok = arith.andi %c2_ok, %fits : i1";
  // Shapes: out is qkv's shape; one batch for the per-sequence operands;
  // the tables agree; then the lengths.
  SmallVector<DimCheck> dims;
  for (unsigned d = 0; d < qkvType.getRank(); ++d)
    dims.push_back({"out", d, "%qkv_dim_" + std::to_string(d)});
  dims.push_back({"position_ids", 0, "%batch"});
  dims.push_back({"cos", 0, "%table"});
  dims.push_back({"sin", 1, "%rope_dim"});
  dims.push_back({"cos", 1, "%rope_dim"});
  v["CHECKS"] = tokenRowChecks(
      args, dims, "qkv", qkvType.getRank(), packed, bool(op.getAccumQLen()),
      "  %rope_dim = arith.constant " + std::to_string(ropeDim) + " : index\n");
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
  addTypeValues(v, args);
  addPlanValues(v, name, args, cores);
  auto row = [&](StringRef elem) {
    return "!tile.tile<vec, 1x" + std::to_string(dim) + "x" + elem.str() + ">";
  };
  auto rows = [&](StringRef elem) {
    return "!tile.tile<vec, 8x" + std::to_string(dim) + "x" + elem.str() +
           ", valid = ?x" + std::to_string(dim) + ">";
  };
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
  v["HIDDEN"] = std::to_string(dim);
  v["KV_HEADS"] = std::to_string(kvHeads);
  v["KEY_HEAD0"] = std::to_string(keyHead0);
  v["VALUE_HEAD0"] = std::to_string(valueHead0);
  v["SLOTS"] = std::to_string(slots);
  v["BLOCK_SIZE"] = std::to_string(blockSize);
  v["ROW_F32"] = row("f32");
  v["ROWS_BF16"] = rows("bf16");
  v["ROWS_F32"] = rows("f32");
  v["ROWS_I32"] = rows("i32");
  v["ROWS_F16"] = rows("f16");
  v["ROWS_I8"] = rows("i8");
  if (int8) {
    v["CONVERT_TILES"] = "  %int8_max = arith.constant 1.270000e+02 : f32\n"
                         "  %int8_min = arith.constant -1.280000e+02 : f32\n"
                         "  %scale_row = tile.alloc : ${ROW_F32}";
    v["CONVERT_TILES_N"] =
        "      %rows_f = tile.alloc valid(%n) : ${ROWS_F32}\n"
        "      %rows_i = tile.alloc valid(%n) : ${ROWS_I32}\n"
        "      %rows_h = tile.alloc valid(%n) : ${ROWS_F16}\n"
        "      %rows_8 = tile.alloc valid(%n) : ${ROWS_I8}";
    Params k = {{"SCALE", "key_scale"}, {"SCALE_TYPE", "${KEY_SCALE_TYPE}"}};
    Params vv = {{"SCALE", "value_scale"},
                 {"SCALE_TYPE", "${VALUE_SCALE_TYPE}"}};
    v["CONVERT_KEY"] = fillKeys(kStoreQuantize, k);
    v["CONVERT_VALUE"] = fillKeys(kStoreQuantize, vv);
    v["STORED"] = "%rows_8";
    v["STORED_TILE"] = "${ROWS_I8}";
  } else {
    v["CONVERT_TILES"] = v["CONVERT_TILES_N"] = v["CONVERT_KEY"] =
        v["CONVERT_VALUE"] = "";
    v["STORED"] = "%rows";
    v["STORED_TILE"] = "${ROWS_BF16}";
  }
  // The tokens of the located sequence from row %i on.
  if (!packed)
    v["SEQ_LEFT"] = "      %left_in_seq = arith.subi %q_len, %s : index\n"
                    "      scf.yield %left_in_seq : index";
  else
    v["SEQ_LEFT"] =
        std::string(op.getAccumQLen()
                        ? "      %run_start_i32 = memref.load %accum_q_len[%b] "
                          ": ${ACCUM_Q_LEN_TYPE}\n      %run_start = "
                          "arith.index_cast %run_start_i32 : i32 to index\n"
                        : "      %run_start = arith.addi %seq_start, %c0 : "
                          "index\n") +
        "      %run_len_i32 = memref.load %q_lens[%b] : ${Q_LENS_TYPE}\n"
        "      %run_len = arith.index_cast %run_len_i32 : i32 to index\n"
        "      %run_end = arith.addi %run_start, %run_len : index\n"
        "      %left_in_seq = arith.subi %run_end, %i : index\n"
        "      scf.yield %left_in_seq : index";
  // A run stays in its page (paged) or is whole (a contiguous cache row).
  v["RUN_IN_PAGE"] =
      blockTable ? "    %page_size = arith.constant ${BLOCK_SIZE} : index\n"
                   "    %in_page = arith.remui %pos, %page_size : index\n"
                   "    %page_left = arith.subi %page_size, %in_page : index\n"
                   "    %n = arith.minui %n_run, %page_left : index"
                 : "    %n = arith.addi %n_run, %c0 : index";
  // Where %pos of sequence %b lives.
  v["SLOT"] = op.getKvIds() ? "      %slot_i32 = memref.load %kv_ids[%b] : "
                              "${KV_IDS_TYPE}\n      %slot = arith.index_cast "
                              "%slot_i32 : i32 to index"
                            : "      %slot = arith.addi %b, %c0 : index";
  if (blockTable)
    v["WHERE"] = "      %block = arith.constant ${BLOCK_SIZE} : index\n"
                 "      %page_idx = arith.divui %pos, %block : index\n"
                 "      %page_i32 = memref.load %block_table[%slot, "
                 "%page_idx] : ${BLOCK_TABLE_TYPE}\n"
                 "      %cache_row = arith.index_cast %page_i32 : i32 to "
                 "index\n"
                 "      %cache_pos = arith.remui %pos, %block : index";
  else
    v["WHERE"] = "      %cache_row = arith.addi %slot, %c0 : index\n"
                 "      %cache_pos = arith.addi %pos, %c0 : index";
  v["FIRST_OF_SEQ"] =
      op.getKvLens()
          ? "    %first_i32 = memref.load %kv_lens[%b] : ${KV_LENS_TYPE}\n"
            "    %first = arith.index_cast %first_i32 : i32 to index"
          : "    %first = arith.addi %c0, %c0 : index";
  addTokenRowValues(v, packed, bool(op.getAccumQLen()), slots, "key");
  // Validation of the lengths, slots and pages.
  v["PAST_OF_SEQ"] =
      op.getKvLens()
          ? "    %past_i32 = memref.load %kv_lens[%b] : ${KV_LENS_TYPE}\n"
            "    %past = arith.extsi %past_i32 : i32 to i64"
          : "    %past = arith.constant 0 : i64";
  v["SLOT_OF_SEQ"] =
      op.getKvIds()
          ? "    %slot_i32 = memref.load %kv_ids[%b] : ${KV_IDS_TYPE}\n"
            "    %slot = arith.extsi %slot_i32 : i32 to i64"
          : "    %slot = arith.index_cast %b : index to i64";
  v["SEQ_CHECKS"] = kStoreSeqChecks;
  v["VALIDATE_SETUP"] = "  %slots = memref.dim ${SLOTS_OF}, %c0 : "
                        "${SLOTS_TYPE}\n  %slots_i64 = arith.index_cast "
                        "%slots : index to i64\n${CAPACITY}";
  if (blockTable) {
    v["SLOTS_OF"] = "%block_table";
    v["SLOTS_TYPE"] = "${BLOCK_TABLE_TYPE}";
    v["CAPACITY"] =
        "  %per_seq = memref.dim %block_table, %c1 : ${BLOCK_TABLE_TYPE}\n"
        "  %per_seq_i64 = arith.index_cast %per_seq : index to i64\n"
        "  %block_cap = arith.constant ${BLOCK_SIZE} : i64\n"
        "  %capacity_i64 = arith.muli %per_seq_i64, %block_cap : i64";
    v["PAGES_OK"] = kStorePagesOk;
    v["PAGES_IN_POOL"] = kPagesInPool;
    v["PAGES_FROM"] = "%first_idx";
    v["PAGES_TO"] = "%end_idx";
  } else {
    v["SLOTS_OF"] = "%k_cache";
    v["SLOTS_TYPE"] = "${K_CACHE_TYPE}";
    v["CAPACITY"] = "  %cap = memref.dim %k_cache, %c2 : ${K_CACHE_TYPE}\n"
                    "  %capacity_i64 = arith.index_cast %cap : index to i64";
    v["PAGES_OK"] = "    %pages_ok = arith.constant true";
  }
  // Shapes: value as key, both caches one shape, the per-sequence operands
  // one batch, the scales [kv_head_num, head_dim].
  SmallVector<DimCheck> dims;
  std::string prelude = "  %kv_heads = arith.constant ${KV_HEADS} : index\n";
  // key and value may be head ranges of larger buffers: their other
  // dimensions agree, and each range fits its buffer's heads.
  unsigned headDim = keyType.getRank() - 2;
  std::string headsFit;
  for (unsigned d = 0; d < keyType.getRank(); ++d)
    if (d != headDim)
      dims.push_back({"value", d, "%key_dim_" + std::to_string(d)});
  for (auto [arg, head0] : {std::pair<StringRef, int64_t>("key", keyHead0),
                            std::pair<StringRef, int64_t>("value", valueHead0)})
    headsFit += ("  %" + arg + "_heads = memref.dim %" + arg + ", %c" +
                 Twine(headDim) + " : ${" + arg.upper() + "_TYPE}\n  %" + arg +
                 "_head_end = arith.constant " + Twine(head0 + kvHeads) +
                 " : index\n  %" + arg + "_fits = arith.cmpi ule, %" + arg +
                 "_head_end, %" + arg + "_heads : index\n")
                    .str();
  headsFit += "  %heads_fit = arith.andi %key_fits, %value_fits : i1\n";
  for (unsigned d = 0; d < 4; ++d) {
    prelude += "  %cache_dim_" + std::to_string(d) +
               " = memref.dim %k_cache, %c" + std::to_string(d) +
               " : ${K_CACHE_TYPE}\n";
    dims.push_back({"v_cache", d, "%cache_dim_" + std::to_string(d)});
  }
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
  v["CHECKS"] =
      tokenRowChecks(args, dims, "key", keyType.getRank(), packed,
                     bool(op.getAccumQLen()), prelude, headsFit, "%heads_fit");
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
