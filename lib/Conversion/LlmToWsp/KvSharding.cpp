//===- KvSharding.cpp - seed 003's KV-cache sharding, per rank ------------===//
//
// llm-select-kv-sharding picks how a sharded attention spreads its KV cache
// (seed 003's rule); convert-llm-kv-sharding rewrites it into the rank's
// program: wsp collectives around a local llm attention, which
// convert-llm-to-wsp then lowers like any other (docs/rationale/Sharding.md).
//
//===----------------------------------------------------------------------===//

#include "wsp/Conversion/Passes.h"
#include "wsp/Dialect/Llm/IR/LlmOps.h"
#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Support/Layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::wsp {
#define GEN_PASS_DEF_LLMSELECTKVSHARDING
#define GEN_PASS_DEF_CONVERTLLMKVSHARDING
#include "wsp/Conversion/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {

/// The number of ranks of the grid a sharded op names, when static.
std::optional<int64_t> gridRanks(llm::FlashAttentionDecodeOp op) {
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
      op, op.getGridAttr());
  if (!grid)
    return std::nullopt;
  int64_t ranks = 1;
  for (int64_t d : grid.getShape()) {
    if (ShapedType::isDynamic(d))
      return std::nullopt;
    ranks *= d;
  }
  return ranks;
}

struct LlmSelectKvShardingPass
    : public wsp::impl::LlmSelectKvShardingBase<LlmSelectKvShardingPass> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](llm::FlashAttentionDecodeOp op) {
      if (!op.getGrid() || op.getKvSharding())
        return;
      std::optional<int64_t> ranks = gridRanks(op);
      int64_t batch = op.getKvLens().getType().getDimSize(0);
      if (!ranks || ShapedType::isDynamic(batch)) {
        op.emitOpError("is sharded over ")
            << op.getGridAttr()
            << " with a dynamic "
            << (ranks ? "batch" : "number of ranks")
            << ": seed 003's rule compares the batch with the ranks; name "
               "the mode (kv_sharding = kvdp or cp)";
        ok = false;
        return;
      }
      // Seed 003: context parallelism when the batch is smaller than the
      // KV data parallelism degree, KV data parallelism otherwise.
      op.setKvSharding(batch < *ranks ? llm::KvSharding::cp
                                      : llm::KvSharding::kvdp);
    });
    if (!ok)
      signalPassFailure();
  }
};

/// Builds one rank's program of a KV-data-parallel decode attention in
/// place of the op (the pass's description lists the steps).
class KvdpLowering {
public:
  KvdpLowering(llm::FlashAttentionDecodeOp op, int64_t ranks, bool allToAll)
      : op(op), ranks(ranks), allToAll(allToAll), b(op), loc(op.getLoc()) {}

  LogicalResult run(func::FuncOp f) {
    auto qType = cast<MemRefType>(op.getQ().getType());
    auto outType = cast<MemRefType>(op.getOut().getType());
    for (auto [name, type] : {std::pair("q", qType), std::pair("out", outType)})
      if (!isContiguousRowMajor(type))
        return op.emitOpError("sharded, needs a contiguous row-major '")
               << name << "' (the collectives move it as stored), not "
               << type;
    seqLen = qType.getDimSize(1);
    localHeads = qType.getDimSize(2);
    headDim = qType.getDimSize(3);
    if (ShapedType::isDynamic(localHeads) || ShapedType::isDynamic(headDim))
      return op.emitOpError("sharded, needs static q_head_num and head_dim");
    heads = localHeads * ranks;
    int64_t row = seqLen * heads * headDim; // one request, every head
    elem = qType.getElementType();

    // The workspace: one bf16 buffer the rank's views are carved from.
    auto wsType = MemRefType::get({ShapedType::kDynamic}, elem);
    unsigned at = f.getNumArguments();
    // Named for the function, numbered when it shards several ops.
    std::string label = (f.getSymName() + "_kv_sharding").str();
    unsigned earlier = 0;
    for (unsigned i = 0; i < at; ++i)
      if (auto name = f.getArgAttrOfType<StringAttr>(i, "llm.workspace"))
        earlier += name.getValue().starts_with(label);
    if (earlier)
      label += "_" + std::to_string(earlier);
    if (failed(f.insertArgument(
            at, wsType,
            b.getDictionaryAttr(b.getNamedAttr("llm.workspace",
                                               b.getStringAttr(label))),
            loc)))
      return failure();
    Value ws = f.getArgument(at);

    // This rank's requests: [b0, b0 + count), c = ceil(B / N) per rank.
    Value rank = shard::ProcessLinearIndexOp::create(b, loc, op.getGridAttr());
    Value batch = memref::DimOp::create(b, loc, op.getKvLens(), idx(0));
    Value perRank = arith::CeilDivUIOp::create(b, loc, batch, idx(ranks));
    Value start = arith::MulIOp::create(b, loc, rank, perRank);
    Value b0 = arith::MinUIOp::create(b, loc, start, batch);
    Value left = arith::SubIOp::create(b, loc, batch, b0);
    Value count = arith::MinUIOp::create(b, loc, perRank, left);

    // The workspace's parts, in requests of `row` elements.
    Value allRows = arith::MulIOp::create(b, loc, perRank, idx(ranks));
    SmallVector<Value> parts;
    if (allToAll) // q padded to N c rows, this rank's q, its output,
                  // every output
      parts = {perRank, perRank, perRank, allRows};
    else // every q, this rank's output, every output
      parts = {batch, perRank, allRows};
    Value needRows = parts.front();
    for (Value p : ArrayRef(parts).drop_front())
      needRows = arith::AddIOp::create(b, loc, needRows, p);
    Value need = arith::MulIOp::create(b, loc, needRows, idx(row));
    Value have = memref::DimOp::create(b, loc, ws, idx(0));
    Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, need,
                                       have);
    // accum_q_len of a decode batch is b x q_seq_len; checked here, as the
    // rank's attention checks only its own (rebuilt) one.
    Value accumOk = checkAccum(batch);
    Value ready = arith::AndIOp::create(b, loc, fits, accumOk);
    Value ok32 = i32(0), invalid32 = i32(3);
    Value first = arith::SelectOp::create(b, loc, ready, ok32, invalid32);

    // Views of the parts: `rows` requests of every head, cut in rows of
    // `rowHeads` heads.
    Value offset = idx(0);
    auto part = [&](Value rows, int64_t rowHeads) {
      Value elems = arith::MulIOp::create(b, loc, rows, idx(row));
      auto flatType = MemRefType::get(
          {ShapedType::kDynamic}, elem,
          StridedLayoutAttr::get(op.getContext(), ShapedType::kDynamic, {1}));
      Value flat = memref::SubViewOp::create(
          b, loc, flatType, ws, ValueRange{offset}, ValueRange{elems},
          ValueRange{}, b.getDenseI64ArrayAttr({ShapedType::kDynamic}),
          b.getDenseI64ArrayAttr({ShapedType::kDynamic}),
          b.getDenseI64ArrayAttr({1}));
      offset = arith::AddIOp::create(b, loc, offset, elems);
      // [rows x (heads / rowHeads), seq, rowHeads, dim].
      int64_t perRequest = heads / rowHeads;
      Value viewRows =
          perRequest == 1
              ? rows
              : Value(arith::MulIOp::create(b, loc, rows, idx(perRequest)));
      return expand(flat, viewRows, rowHeads);
    };
    Value status = first;
    Value qMine;
    if (allToAll) {
      Value padded = part(perRank, localHeads);  // [N c, S, Hl, D]
      Value mineAll = part(perRank, heads);      // [c, S, H, D]
      // Copy q into the padded rows (only when the workspace fits).
      Value zero = idx(0);
      auto guard = scf::IfOp::create(b, loc, fits, /*withElse=*/false);
      {
        OpBuilder in = guard.getThenBodyBuilder();
        Value rows = rowsOf(in, padded, zero, batch);
        memref::CopyOp::create(in, loc, op.getQ(), rows);
      }
      status = wsp::AllToAllOp::create(
          b, loc, b.getI32Type(), padded, mineAll, op.getGridAttr(),
          b.getI64IntegerAttr(0), b.getI64IntegerAttr(2), status);
      qMine = rowsOf(b, mineAll, idx(0), count);
    } else {
      Value qAll = part(batch, heads); // [B, S, H, D]
      status = wsp::AllGatherOp::create(
          b, loc, b.getI32Type(), op.getQ(), qAll, op.getGridAttr(),
          b.getI64IntegerAttr(2), status);
      qMine = rowsOf(b, qAll, b0, count);
    }
    Value outMine = part(perRank, heads); // [c, S, H, D]
    Value outAll = part(allRows, heads);  // [N c, S, H, D]

    // The rank's attention: its requests, every head, its pool.
    Value accum = localAccum(count);
    llm::FlashAttentionDecodeOp::create(
        b, loc, qMine, rowsOf1(op.getKvIds(), b0, count),
        rowsOf1(op.getKvLens(), b0, count), rowsOf1(op.getQLens(), b0, count),
        accum, op.getBlockTable(), op.getKCache(), op.getVCache(),
        op.getKScale(), op.getVScale(), rowsOf(b, outMine, idx(0), count),
        /*plan_kv_lens=*/op.getKvLens(), op.getQSeqLenAttr(),
        /*grid=*/nullptr, /*kv_sharding=*/nullptr);

    // Every rank's requests, then this rank's heads.
    Value gathered = wsp::AllGatherOp::create(
        b, loc, b.getI32Type(), outMine, outAll, op.getGridAttr(),
        b.getI64IntegerAttr(0), Value());
    Value outRows = rowsOf(b, outAll, idx(0), batch);
    wsp::AllSliceOp::create(b, loc, b.getI32Type(), outRows, op.getOut(),
                            op.getGridAttr(), b.getI64IntegerAttr(2),
                            gathered);
    op.erase();
    return success();
  }

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32(int32_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }

  /// A flat part as [rows, seq, rowHeads, dim].
  Value expand(Value flat, Value rows, int64_t rowHeads) {
    auto type = MemRefType::get(
        {ShapedType::kDynamic, seqLen, rowHeads, headDim}, elem,
        StridedLayoutAttr::get(op.getContext(), ShapedType::kDynamic,
                               {seqLen * rowHeads * headDim,
                                rowHeads * headDim, headDim, 1}));
    return memref::ExpandShapeOp::create(
        b, loc, type, flat, ArrayRef<ReassociationIndices>{{0, 1, 2, 3}},
        ArrayRef<OpFoldResult>{rows, b.getIndexAttr(seqLen),
                               b.getIndexAttr(rowHeads),
                               b.getIndexAttr(headDim)});
  }

  /// Rows [from, from + n) of a 4-D view.
  Value rowsOf(OpBuilder &at, Value view, Value from, Value n) {
    auto type = cast<MemRefType>(view.getType());
    SmallVector<OpFoldResult> offsets = {from, at.getIndexAttr(0),
                                         at.getIndexAttr(0),
                                         at.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {n};
    for (int64_t d = 1; d < 4; ++d)
      sizes.push_back(at.getIndexAttr(type.getDimSize(d)));
    SmallVector<OpFoldResult> strides(4, at.getIndexAttr(1));
    return memref::SubViewOp::create(at, loc, view, offsets, sizes, strides);
  }

  /// Elements [from, from + n) of a 1-D buffer.
  Value rowsOf1(Value buffer, Value from, Value n) {
    return memref::SubViewOp::create(
        b, loc, buffer, ArrayRef<OpFoldResult>{from},
        ArrayRef<OpFoldResult>{n}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  }

  /// accum_q_len[i] == i x q_seq_len for i <= batch (a decode batch's).
  Value checkAccum(Value batch) {
    Value end = arith::AddIOp::create(b, loc, batch, idx(1));
    Value have = memref::DimOp::create(b, loc, op.getAccumQLen(), idx(0));
    Value sized =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, have, end);
    Value trueV = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    auto loop = scf::ForOp::create(
        b, loc, idx(0), arith::SelectOp::create(b, loc, sized, end, idx(0)),
        idx(1), ValueRange{trueV},
        [&](OpBuilder &in, Location l, Value i, ValueRange acc) {
          Value got = memref::LoadOp::create(in, l, op.getAccumQLen(), i);
          Value iq = arith::MulIOp::create(
              in, l, i, arith::ConstantIndexOp::create(in, l, seqLen));
          Value want = arith::IndexCastOp::create(in, l, in.getI32Type(), iq);
          Value same =
              arith::CmpIOp::create(in, l, arith::CmpIPredicate::eq, got, want);
          scf::YieldOp::create(in, l,
                               ValueRange{arith::AndIOp::create(in, l, acc[0],
                                                                same)
                                              .getResult()});
        });
    return arith::AndIOp::create(b, loc, sized, loop.getResult(0));
  }

  /// The rank's accum_q_len: i x q_seq_len for i <= count, in host scratch
  /// (count beyond the attention's batch limit: the attention refuses it).
  Value localAccum(Value count) {
    int64_t capacity = kLocalAccum;
    auto type = MemRefType::get({capacity}, b.getI32Type());
    Value buffer = memref::AllocaOp::create(b, loc, type);
    Value end = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, count, idx(1)), idx(capacity));
    scf::ForOp::create(
        b, loc, idx(0), end, idx(1), ValueRange{},
        [&](OpBuilder &in, Location l, Value i, ValueRange) {
          Value iq = arith::MulIOp::create(
              in, l, i, arith::ConstantIndexOp::create(in, l, seqLen));
          Value v = arith::IndexCastOp::create(in, l, in.getI32Type(), iq);
          memref::StoreOp::create(in, l, v, buffer, i);
          scf::YieldOp::create(in, l);
        });
    return memref::SubViewOp::create(
        b, loc, buffer, ArrayRef<OpFoldResult>{b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{end}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  }

  // The decode attention's batch limit (its stack buffer of lengths) + 1.
  static constexpr int64_t kLocalAccum = 1025;

  llm::FlashAttentionDecodeOp op;
  int64_t ranks;
  bool allToAll;
  OpBuilder b;
  Location loc;
  int64_t seqLen = 0, localHeads = 0, heads = 0, headDim = 0;
  Type elem;
};

struct ConvertLlmKvShardingPass
    : public wsp::impl::ConvertLlmKvShardingBase<ConvertLlmKvShardingPass> {

  void runOnOperation() override {
    SmallVector<llm::FlashAttentionDecodeOp> sharded;
    getOperation().walk([&](llm::FlashAttentionDecodeOp op) {
      if (op.getGrid())
        sharded.push_back(op);
    });
    for (llm::FlashAttentionDecodeOp op : sharded) {
      if (!op.getKvSharding()) {
        op.emitOpError("is sharded over ")
            << op.getGridAttr()
            << " without a mode: llm-select-kv-sharding (or the "
               "kv_sharding attribute) chooses it";
        return signalPassFailure();
      }
      if (*op.getKvSharding() == llm::KvSharding::cp) {
        op.emitOpError("context parallelism (kv_sharding = cp) does not "
                       "lower yet; kvdp does");
        return signalPassFailure();
      }
      std::optional<int64_t> ranks = gridRanks(op);
      if (!ranks) {
        op.emitOpError("shards over ")
            << op.getGridAttr()
            << ", whose number of ranks is dynamic: the rank's attention "
               "takes every head of the group, a static count";
        return signalPassFailure();
      }
      auto f = op->getParentOfType<func::FuncOp>();
      if (!f || op->getBlock() != &f.getBody().front()) {
        op.emitOpError("sharded, lowers only in its function's top block");
        return signalPassFailure();
      }
      if (failed(KvdpLowering(op, *ranks,
                               *op.getKvSharding() ==
                                   llm::KvSharding::kvdp_all_to_all)
                      .run(f)))
        return signalPassFailure();
    }
  }
};

} // namespace
