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
#include "wsp/Support/RankGroups.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include <limits>

namespace mlir::wsp {
#define GEN_PASS_DEF_LLMSELECTKVSHARDING
#define GEN_PASS_DEF_CONVERTLLMKVSHARDING
#include "wsp/Conversion/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {

/// The number of ranks of a sharded op's group (its grid, or with
/// `grid_axes` the ranks along them; wsp/Support/RankGroups.h), when
/// static. The verifier has reported a grid or axes that are not a group.
std::optional<int64_t> groupRanks(Operation *op) {
  auto grid = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  auto axes = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes");
  if (!grid)
    return std::nullopt;
  FailureOr<std::optional<int64_t>> ranks = rankGroupSize(op, grid, axes);
  return succeeded(ranks) ? *ranks : std::nullopt;
}

/// This rank's index in a sharded op's group: the grid's linear index, or
/// with `grid_axes` its coordinates along them, linear in the order given
/// (as Communicator::along ranks the group).
Value groupRank(OpBuilder &b, Location loc, Operation *op) {
  auto grid = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  auto axes = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes");
  if (!axes)
    return shard::ProcessLinearIndexOp::create(b, loc, grid);
  auto gridOp = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, grid);
  auto at = shard::ProcessMultiIndexOp::create(b, loc, grid.getValue(),
                                               axes.asArrayRef());
  Value rank;
  for (auto [axis, coordinate] :
       llvm::zip_equal(axes.asArrayRef(), at.getResult())) {
    if (!rank) {
      rank = coordinate;
      continue;
    }
    Value size =
        arith::ConstantIndexOp::create(b, loc, gridOp.getShape()[axis]);
    rank = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, rank, size), coordinate);
  }
  return rank;
}

struct LlmSelectKvShardingPass
    : public wsp::impl::LlmSelectKvShardingBase<LlmSelectKvShardingPass> {
  using LlmSelectKvShardingBase::LlmSelectKvShardingBase;
  void runOnOperation() override {
    bool ok = true;
    auto select = [&](auto op, int64_t batch) {
      if (!op.getGrid() || op.getKvSharding())
        return;
      std::optional<int64_t> ranks = groupRanks(op);
      if (!ranks || ShapedType::isDynamic(batch)) {
        op.emitOpError("is sharded over ")
            << op.getGridAttr() << " with a dynamic "
            << (ranks ? "batch" : "number of ranks")
            << ": seed 003's rule compares the batch with the ranks; name "
               "the mode (kv_sharding = kvdp or cp)";
        ok = false;
        return;
      }
      // Seed 003: context parallelism when the batch is smaller than the
      // KV data parallelism degree, KV data parallelism otherwise; on a
      // group of two axes, both when the batch fills the first
      // (TP8-KVDP2-CP4 for B = 2 of 8 ranks).
      // KV data parallelism in its all_to_all form: the same bits as the
      // all_gather form, and the least bytes (Sharding.md, "The least
      // bytes").
      llm::KvSharding mode = batch < *ranks ? llm::KvSharding::cp
                                            : llm::KvSharding::kvdp_all_to_all;
      DenseI16ArrayAttr axes = op.getGridAxesAttr();
      std::optional<int64_t> first;
      if (axes && axes.size() == 2)
        first = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
                    op, op.getGridAttr())
                    .getShape()[axes[0]];
      if (mode == llm::KvSharding::cp && first && batch >= *first)
        mode = llm::KvSharding::kvdp_cp;
      op.setKvSharding(mode);
      if (report) {
        InFlightDiagnostic remark =
            op.emitRemark()
            << "kv_sharding = " << llm::stringifyKvSharding(mode)
            << " by seed 003's rule: batch " << batch
            << (batch < *ranks ? " < " : " >= ") << *ranks
            << " ranks of the group";
        if (first)
          remark << ", " << (batch < *first ? "< " : ">= ") << *first
                 << " along its first axis";
      }
    };
    getOperation().walk([&](Operation *op) {
      if (auto attention = dyn_cast<llm::FlashAttentionDecodeOp>(op))
        select(attention, attention.getKvLens().getType().getDimSize(0));
      else if (auto store = dyn_cast<llm::StorePagedKvCacheOp>(op))
        select(store, store.getQLens().getType().getDimSize(0));
    });
    if (!ok)
      signalPassFailure();
  }
};

/// A workspace argument of `elem` values added to `f`, named for it
/// (`<f>_kv_sharding<suffix>`, numbered when it shards several ops).
Value addWorkspace(func::FuncOp f, Type elem, StringRef suffix, Location loc) {
  Builder b(f.getContext());
  auto type = MemRefType::get({ShapedType::kDynamic}, elem);
  unsigned at = f.getNumArguments();
  std::string label = (f.getSymName() + "_kv_sharding" + suffix).str();
  unsigned earlier = 0;
  for (unsigned i = 0; i < at; ++i)
    if (auto name = f.getArgAttrOfType<StringAttr>(i, "llm.workspace"))
      earlier +=
          name.getValue() == label || name.getValue().starts_with(label + "_");
  if (earlier)
    label += "_" + std::to_string(earlier);
  (void)f.insertArgument(at, type,
                         b.getDictionaryAttr(b.getNamedAttr(
                             "llm.workspace", b.getStringAttr(label))),
                         loc);
  return f.getArgument(at);
}

/// Context parallelism's element-level sharding: of the positions [0, x)
/// of a sequence, rank r holds L_r(x) = (x / (N bs)) bs + clamp(x mod (N
/// bs) - r bs, 0, bs), bs the rank's block size. Returns L_r(x) and
/// whether the rank holds position x itself.
std::pair<Value, Value> rankPositions(OpBuilder &at, Location loc, Value x,
                                      Value rank, int64_t ranks,
                                      int64_t blockSize) {
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(at, loc, v).getResult();
  };
  Value whole = idx(ranks * blockSize);
  Value blocks = arith::DivSIOp::create(at, loc, x, whole);
  Value inBlock = arith::RemSIOp::create(at, loc, x, whole);
  Value mine = arith::SubIOp::create(
      at, loc, inBlock, arith::MulIOp::create(at, loc, rank, idx(blockSize)));
  Value lo =
      arith::CmpIOp::create(at, loc, arith::CmpIPredicate::sge, mine, idx(0));
  Value hi = arith::CmpIOp::create(at, loc, arith::CmpIPredicate::slt, mine,
                                   idx(blockSize));
  Value owned = arith::AndIOp::create(at, loc, lo, hi);
  Value zero = idx(0), block = idx(blockSize);
  Value clamped = arith::MinSIOp::create(
      at, loc, arith::MaxSIOp::create(at, loc, mine, zero), block);
  Value count = arith::AddIOp::create(
      at, loc, arith::MulIOp::create(at, loc, blocks, block), clamped);
  return {count, owned};
}

/// Builds one rank's program of a sharded decode attention in place of the
/// op (the pass's description lists the steps of each mode).
class KvShardingLowering {
public:
  /// With `innerCp`, the op is kvdp_cp's KV data parallel part (its
  /// grid_axes the first axis): the rank's attention is context parallel
  /// along innerCp, lowered in turn.
  KvShardingLowering(llm::FlashAttentionDecodeOp op, int64_t ranks,
                     DenseI16ArrayAttr innerCp = {})
      : op(op), ranks(ranks), innerCp(innerCp), b(op), loc(op.getLoc()) {}

  LogicalResult run(func::FuncOp f) {
    auto qType = cast<MemRefType>(op.getQ().getType());
    auto outType = cast<MemRefType>(op.getOut().getType());
    if (!isContiguousRowMajor(outType))
      return op.emitOpError("sharded, needs a contiguous row-major 'out' (the "
                            "collectives write it as stored), not ")
             << outType;
    // q may be a head range of a contiguous buffer (a packed QKV): the
    // program packs it first.
    if (!isContiguousRowMajor(qType)) {
      qRange = op.getQ().getDefiningOp<memref::SubViewOp>();
      if (!qRange || !isContiguousRowMajor(qRange.getSourceType()) ||
          qRange.getSourceType().getRank() != 4 ||
          !llvm::all_of(qRange.getStaticStrides(),
                        [](int64_t s) { return s == 1; }) ||
          !llvm::equal(ArrayRef(qRange.getStaticOffsets()).take_front(2),
                       ArrayRef<int64_t>{0, 0}) ||
          qRange.getStaticOffsets()[3] != 0 ||
          ShapedType::isDynamic(qRange.getStaticOffsets()[2]))
        return op.emitOpError("sharded, needs 'q' contiguous row-major or a "
                              "head range of a contiguous buffer, not ")
               << qType;
    }
    seqLen = qType.getDimSize(1);
    localHeads = qType.getDimSize(2);
    headDim = qType.getDimSize(3);
    if (ShapedType::isDynamic(localHeads) || ShapedType::isDynamic(headDim))
      return op.emitOpError("sharded, needs static q_head_num and head_dim");
    heads = localHeads * ranks;
    row = seqLen * heads * headDim; // one request, every head
    elem = qType.getElementType();
    llm::KvSharding mode = *op.getKvSharding();
    if (mode == llm::KvSharding::cp || innerCp) {
      blockSize = op.getKCache().getType().getDimSize(2);
      if (ShapedType::isDynamic(blockSize))
        return op.emitOpError("sharded by sequence, needs a static "
                              "block_size (each rank's part of a block)");
    }

    ws = workspace(f, elem, "");
    rank = groupRank(b, loc, op);
    batch = memref::DimOp::create(b, loc, op.getKvLens(), idx(0));
    if (mode == llm::KvSharding::cp)
      return contextParallel(f);
    return dataParallel(f, mode == llm::KvSharding::kvdp_all_to_all);
  }

private:
  /// KV data parallelism: the rank attends its requests with every head.
  LogicalResult dataParallel(func::FuncOp f, bool allToAll) {
    // This rank's requests: [b0, b0 + count), c = ceil(B / N) per rank.
    Value perRank = arith::CeilDivUIOp::create(b, loc, batch, idx(ranks));
    Value start = arith::MulIOp::create(b, loc, rank, perRank);
    Value b0 = arith::MinUIOp::create(b, loc, start, batch);
    Value left = arith::SubIOp::create(b, loc, batch, b0);
    Value count = arith::MinUIOp::create(b, loc, perRank, left);

    // The workspace's parts, in requests of `row` elements.
    Value allRows = arith::MulIOp::create(b, loc, perRank, idx(ranks));
    SmallVector<Value> parts;
    if (allToAll) // q padded to N c rows, this rank's q, its output,
                  // this rank's heads of every output (N c rows of Hl)
      parts = {perRank, perRank, perRank, perRank};
    else // every q, this rank's output, every output
      parts = {batch, perRank, allRows};
    Value packAt;
    Value qFits = holds(ws, parts, row, &packAt);
    // The rank's accum_q_len (c + 1 values), in global memory: it is an
    // argument of the attention's kernels.
    Value accumWs = workspace(f, b.getI32Type(), "_accum");
    Value accumRows = arith::AddIOp::create(b, loc, perRank, idx(1));
    Value accumFits = holds(accumWs, {accumRows}, 1);
    Value fits = arith::AndIOp::create(b, loc, qFits, accumFits);
    Value status = readiness(fits);
    Value q = contiguousQ(packAt, fits);

    Value offset = idx(0);
    Value qMine;
    if (allToAll) {
      Value padded = part(ws, offset, perRank, localHeads); // [N c, S, Hl, D]
      Value mineAll = part(ws, offset, perRank, heads);     // [c, S, H, D]
      // Copy q into the padded rows (only when the workspace fits).
      Value zero = idx(0);
      auto guard = scf::IfOp::create(b, loc, fits, /*withElse=*/false);
      {
        OpBuilder in = guard.getThenBodyBuilder();
        Value rows = rowsOf(in, padded, zero, batch);
        memref::CopyOp::create(in, loc, q, rows);
      }
      status = wsp::AllToAllOp::create(b, loc, b.getI32Type(), padded, mineAll,
                                       op.getGridAttr(), op.getGridAxesAttr(),
                                       b.getI64IntegerAttr(0),
                                       b.getI64IntegerAttr(2), status);
      qMine = rowsOf(b, mineAll, idx(0), count);
    } else {
      Value qAll = part(ws, offset, batch, heads); // [B, S, H, D]
      status = wsp::AllGatherOp::create(b, loc, b.getI32Type(), q, qAll,
                                        op.getGridAttr(), op.getGridAxesAttr(),
                                        b.getI64IntegerAttr(2), status);
      qMine = rowsOf(b, qAll, b0, count);
    }
    Value outMine = part(ws, offset, perRank, heads); // [c, S, H, D]
    // kvdp_all_to_all: this rank's heads of every rank's outputs,
    // [N c, S, Hl, D]; else every rank's outputs, [N c, S, H, D].
    Value outAll = allToAll ? part(ws, offset, perRank, localHeads)
                            : part(ws, offset, allRows, heads);

    // The rank's attention: its requests, every head, its pool, the chunk
    // planned for the whole batch (its operands built in this order). In
    // kvdp_cp it is itself context parallel along the inner axis (the
    // chunks are the context-parallel lowering's).
    Value accum = localAccum(accumWs, count, fits);
    Value outRowsMine = rowsOf(b, outMine, idx(0), count);
    Value kvIds = rowsOf1(op.getKvIds(), b0, count);
    Value kvLens = rowsOf1(op.getKvLens(), b0, count);
    Value qLens = rowsOf1(op.getQLens(), b0, count);
    llm::FlashAttentionDecodeOp::create(
        b, loc, qMine, kvIds, kvLens, qLens, accum, op.getBlockTable(),
        op.getKCache(), op.getVCache(), op.getKScale(), op.getVScale(),
        outRowsMine,
        /*plan_kv_lens=*/innerCp ? Value() : op.getKvLens(),
        /*visible_lens=*/Value(), /*start_pos=*/Value(),
        /*state_o=*/Value(), /*state_m=*/Value(), /*state_l=*/Value(),
        op.getQSeqLenAttr(), /*sliding_window=*/nullptr,
        /*grid=*/innerCp ? op.getGridAttr() : nullptr, /*grid_axes=*/innerCp,
        /*kv_sharding=*/
        innerCp ? llm::KvShardingAttr::get(b.getContext(), llm::KvSharding::cp)
                : nullptr);

    if (allToAll) {
      // Rank r's heads of this rank's requests to rank r: the outputs cut
      // along the heads, received along the batch (every rank's requests
      // in order, padded to N c rows); out is the first B rows, copied
      // when the exchange succeeded (else nothing is written).
      Value exchanged = wsp::AllToAllOp::create(
          b, loc, b.getI32Type(), outMine, outAll, op.getGridAttr(),
          op.getGridAxesAttr(), b.getI64IntegerAttr(2), b.getI64IntegerAttr(0),
          Value());
      Value outRows = rowsOf(b, outAll, idx(0), batch);
      Value go = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       exchanged, planCode(PlanResult::ok));
      auto guard = scf::IfOp::create(b, loc, go, /*withElse=*/false);
      OpBuilder in = guard.getThenBodyBuilder();
      memref::CopyOp::create(in, loc, outRows, op.getOut());
    } else {
      // Every rank's requests, then this rank's heads.
      Value gathered = wsp::AllGatherOp::create(
          b, loc, b.getI32Type(), outMine, outAll, op.getGridAttr(),
          op.getGridAxesAttr(), b.getI64IntegerAttr(0), Value());
      Value outRows = rowsOf(b, outAll, idx(0), batch);
      wsp::AllSliceOp::create(b, loc, b.getI32Type(), outRows, op.getOut(),
                              op.getGridAttr(), op.getGridAxesAttr(),
                              b.getI64IntegerAttr(2), gathered);
    }
    op.erase();
    return success();
  }

  /// Context parallelism: the rank attends its part of every block of
  /// every request with every head; the ranks' softmax states merge.
  LogicalResult contextParallel(func::FuncOp f) {
    Type f32 = b.getF32Type();
    Value states = workspace(f, f32, "_state");
    Value lens = workspace(f, b.getI32Type(), "_lens");
    // bf16: every q. f32: the rank's states (o, m, l), the states of its
    // heads from every rank (o, m, l). i32: visible_lens (the kernels read
    // it: global memory, not the host's scratch).
    int64_t stateRow = seqLen * heads * kStateRow; // m or l of one request
    Value packAt;
    Value qFits = holds(ws, {batch}, row, &packAt);
    Value statesFit = holds(states, {batch, batch}, row + 2 * stateRow);
    Value lensFit = holds(lens, {batch}, seqLen);
    Value fits = arith::AndIOp::create(
        b, loc, arith::AndIOp::create(b, loc, qFits, statesFit), lensFit);
    Value status = readiness(fits);
    Value q = contiguousQ(packAt, fits);

    Value offset = idx(0);
    Value qAll = part(ws, offset, batch, heads); // [B, S, H, D]
    status = wsp::AllGatherOp::create(b, loc, b.getI32Type(), q, qAll,
                                      op.getGridAttr(), op.getGridAxesAttr(),
                                      b.getI64IntegerAttr(2), status);
    Value stateOffset = idx(0);
    Value stateO = part(states, stateOffset, batch, heads); // [B, S, H, D]
    Value stateM = rowState(states, stateOffset, batch, heads);
    Value stateL = rowState(states, stateOffset, batch, heads);
    Value allRows = arith::MulIOp::create(b, loc, batch, idx(ranks));
    Value recvO = part(states, stateOffset, batch, localHeads); // [N B,S,Hl,D]
    // One log-sum-exp per row (m + log l) in place of m and l, the rank's
    // and its heads' from every rank: [B, S, H, 1], [N B, S, Hl, 1].
    Value stateLse = rowState(states, stateOffset, batch, heads, 1);
    Value recvLse = rowState(states, stateOffset, allRows, localHeads, 1);

    // How many of its cached positions each query token sees: rank r holds
    // positions [r bs, (r + 1) bs) of every block of N bs.
    Value visible = visibleLens(lens, fits);
    // A row the rank has no position of gets no descriptor: its state
    // starts as "nothing seen" (m = the lowest float).
    {
      auto guard = scf::IfOp::create(b, loc, fits, /*withElse=*/false);
      OpBuilder in = guard.getThenBodyBuilder();
      Value lowest = arith::ConstantOp::create(
          in, loc, in.getF32FloatAttr(-std::numeric_limits<float>::max()));
      Value dims[3] = {batch, idx(in, seqLen), idx(in, heads)};
      nest(in, dims, [&](OpBuilder &at, ValueRange i) {
        memref::StoreOp::create(at, loc, lowest, stateM,
                                ValueRange{i[0], i[1], i[2], idx(at, 0)});
      });
    }

    // The rank's attention: every request, every head, its part of the
    // sequence; its softmax state out.
    llm::FlashAttentionDecodeOp::create(
        b, loc, qAll, op.getKvIds(), op.getKvLens(), op.getQLens(),
        op.getAccumQLen(), op.getBlockTable(), op.getKCache(), op.getVCache(),
        op.getKScale(), op.getVScale(), /*out=*/Value(),
        /*plan_kv_lens=*/Value(), visible, /*start_pos=*/Value(), stateO,
        stateM, stateL, op.getQSeqLenAttr(), /*sliding_window=*/nullptr,
        /*grid=*/nullptr, /*grid_axes=*/nullptr,
        /*kv_sharding=*/nullptr);

    // Each row's state as its normalized output o / l and one
    // log-sum-exp: what the merge needs, the least bytes to send.
    {
      auto guard = scf::IfOp::create(b, loc, fits, /*withElse=*/false);
      OpBuilder in = guard.getThenBodyBuilder();
      normalize(in, stateO, stateM, stateL, stateLse);
    }

    // The states of this rank's heads from every rank, in rank order.
    Value exchanged;
    for (auto [from, to] :
         {std::pair(stateO, recvO), std::pair(stateLse, recvLse)})
      exchanged = wsp::AllToAllOp::create(
          b, loc, b.getI32Type(), from, to, op.getGridAttr(),
          op.getGridAxesAttr(), b.getI64IntegerAttr(2), b.getI64IntegerAttr(0),
          Value());

    // The merge, on this rank's heads, once every exchange succeeded.
    Value go = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     exchanged, planCode(PlanResult::ok));
    auto guard = scf::IfOp::create(b, loc, go, /*withElse=*/false);
    OpBuilder in = guard.getThenBodyBuilder();
    merge(in, recvO, recvLse);
    op.erase();
    return success();
  }

  /// Per (b, s, h) of the rank's states: o = o / l and lse = m + log l in
  /// f32; a row that saw nothing (m the lowest float) keeps lse = the
  /// lowest float and o = 0.
  void normalize(OpBuilder &in, Value stateO, Value stateM, Value stateL,
                 Value stateLse) {
    Value lowest = arith::ConstantOp::create(
        in, loc, in.getF32FloatAttr(-std::numeric_limits<float>::max()));
    Value zero = arith::ConstantOp::create(in, loc, in.getF32FloatAttr(0));
    Value dims[3] = {batch, idx(in, seqLen), idx(in, heads)};
    nest(in, dims, [&](OpBuilder &at, ValueRange i) {
      Value c0 = idx(at, 0);
      Value m = memref::LoadOp::create(at, loc, stateM,
                                       ValueRange{i[0], i[1], i[2], c0});
      Value l = memref::LoadOp::create(at, loc, stateL,
                                       ValueRange{i[0], i[1], i[2], c0});
      Value saw =
          arith::CmpFOp::create(at, loc, arith::CmpFPredicate::OGT, m, lowest);
      Value lse = arith::SelectOp::create(
          at, loc, saw,
          arith::AddFOp::create(at, loc, m, math::LogOp::create(at, loc, l)),
          lowest);
      memref::StoreOp::create(at, loc, lse, stateLse,
                              ValueRange{i[0], i[1], i[2], c0});
      Value dimV = idx(at, headDim), c1 = idx(at, 1);
      scf::ForOp::create(
          at, loc, c0, dimV, c1, ValueRange{},
          [&](OpBuilder &bb, Location l2, Value d, ValueRange) {
            Value o = memref::LoadOp::create(bb, l2, stateO,
                                             ValueRange{i[0], i[1], i[2], d});
            Value scaled = arith::SelectOp::create(
                bb, l2, saw, arith::DivFOp::create(bb, l2, o, l), zero);
            memref::StoreOp::create(bb, l2, scaled, stateO,
                                    ValueRange{i[0], i[1], i[2], d});
            scf::YieldOp::create(bb, l2);
          });
    });
  }

  /// out[b, s, h] = the merge of the ranks' states (o_r normalized, lse_r)
  /// of (b, s, h), in rank order: m = max lse_r, w_r = e^(lse_r - m), out =
  /// (sum w_r o_r) / (sum w_r), in f32, rounded to bf16 once. A rank that
  /// saw nothing (lse_r the lowest float) adds nothing.
  void merge(OpBuilder &in, Value recvO, Value recvLse) {
    Type f32 = in.getF32Type();
    Value lowest = arith::ConstantOp::create(
        in, loc, in.getF32FloatAttr(-std::numeric_limits<float>::max()));
    Value zero = arith::ConstantOp::create(in, loc, in.getF32FloatAttr(0));
    Value c0 = arith::ConstantIndexOp::create(in, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(in, loc, 1);
    Value acc =
        memref::AllocaOp::create(in, loc, MemRefType::get({headDim}, f32));
    Value dims[3] = {batch, idx(in, seqLen), idx(in, localHeads)};
    nest(in, dims, [&](OpBuilder &at, ValueRange i) {
      Value req = i[0], s = i[1], h = i[2];
      auto stateAt = [&](OpBuilder &bb, Value r) {
        // Rank r's state of (req, s, h): row r B + req.
        Value rowIdx = arith::AddIOp::create(
            bb, loc, arith::MulIOp::create(bb, loc, r, batch), req);
        return rowIdx;
      };
      Value ranksV = idx(at, ranks);
      auto maxLoop = scf::ForOp::create(
          at, loc, c0, ranksV, c1, ValueRange{lowest},
          [&](OpBuilder &bb, Location l, Value r, ValueRange m) {
            Value mr = memref::LoadOp::create(
                bb, l, recvLse, ValueRange{stateAt(bb, r), s, h, idx(bb, 0)});
            Value larger = arith::CmpFOp::create(
                bb, l, arith::CmpFPredicate::OGT, mr, m[0]);
            scf::YieldOp::create(
                bb, l,
                ValueRange{arith::SelectOp::create(bb, l, larger, mr, m[0])
                               .getResult()});
          });
      Value mMax = maxLoop.getResult(0);
      Value dimV = idx(at, headDim);
      scf::ForOp::create(at, loc, c0, dimV, c1, ValueRange{},
                         [&](OpBuilder &bb, Location l, Value d, ValueRange) {
                           memref::StoreOp::create(bb, l, zero, acc, d);
                           scf::YieldOp::create(bb, l);
                         });
      auto sumLoop = scf::ForOp::create(
          at, loc, c0, ranksV, c1, ValueRange{zero},
          [&](OpBuilder &bb, Location l, Value r, ValueRange sum) {
            Value rowIdx = stateAt(bb, r);
            Value mr = memref::LoadOp::create(
                bb, l, recvLse, ValueRange{rowIdx, s, h, idx(bb, 0)});
            Value saw = arith::CmpFOp::create(bb, l, arith::CmpFPredicate::OGT,
                                              mr, lowest);
            auto ifSaw = scf::IfOp::create(bb, l, f32, saw, /*withElse=*/true);
            {
              OpBuilder t = ifSaw.getThenBodyBuilder();
              Value w = math::ExpOp::create(
                  t, l, arith::SubFOp::create(t, l, mr, mMax));
              Value dimT = arith::ConstantIndexOp::create(t, l, headDim);
              Value c0t = arith::ConstantIndexOp::create(t, l, 0);
              Value c1t = arith::ConstantIndexOp::create(t, l, 1);
              scf::ForOp::create(
                  t, l, c0t, dimT, c1t, ValueRange{},
                  [&](OpBuilder &dd, Location ll, Value d, ValueRange) {
                    Value o = memref::LoadOp::create(
                        dd, ll, recvO, ValueRange{rowIdx, s, h, d});
                    Value a = memref::LoadOp::create(dd, ll, acc, d);
                    Value sumD = arith::AddFOp::create(
                        dd, ll, a, arith::MulFOp::create(dd, ll, w, o));
                    memref::StoreOp::create(dd, ll, sumD, acc, d);
                    scf::YieldOp::create(dd, ll);
                  });
              scf::YieldOp::create(
                  t, l,
                  ValueRange{
                      arith::AddFOp::create(t, l, sum[0], w).getResult()});
            }
            {
              OpBuilder e = ifSaw.getElseBodyBuilder();
              scf::YieldOp::create(e, l, ValueRange{sum[0]});
            }
            scf::YieldOp::create(bb, l, ValueRange{ifSaw.getResult(0)});
          });
      Value total = sumLoop.getResult(0);
      scf::ForOp::create(at, loc, c0, dimV, c1, ValueRange{},
                         [&](OpBuilder &bb, Location l, Value d, ValueRange) {
                           Value a = memref::LoadOp::create(bb, l, acc, d);
                           Value o = arith::DivFOp::create(bb, l, a, total);
                           Value v = arith::TruncFOp::create(bb, l, elem, o);
                           memref::StoreOp::create(bb, l, v, op.getOut(),
                                                   ValueRange{req, s, h, d});
                           scf::YieldOp::create(bb, l);
                         });
    });
  }

  /// visible_lens of the rank's part of the sequence: query token s of
  /// request b sees positions [0, kv_lens[b] + s + 1), of which rank r
  /// holds L_r(x) = (x / (N bs)) bs + clamp(x mod (N bs) - r bs, 0, bs), in
  /// the workspace `lens` ([B, S], written when the workspaces `fit`).
  Value visibleLens(Value lens, Value fits) {
    Value offset = idx(0);
    Value flat =
        carve(lens, offset, arith::MulIOp::create(b, loc, batch, idx(seqLen)));
    auto type = MemRefType::get({ShapedType::kDynamic, seqLen}, b.getI32Type(),
                                StridedLayoutAttr::get(op.getContext(),
                                                       ShapedType::kDynamic,
                                                       {seqLen, 1}));
    Value buffer = memref::ExpandShapeOp::create(
        b, loc, type, flat, ArrayRef<ReassociationIndices>{{0, 1}},
        ArrayRef<OpFoldResult>{batch, b.getIndexAttr(seqLen)});
    auto guard = scf::IfOp::create(b, loc, fits, /*withElse=*/false);
    OpBuilder in = guard.getThenBodyBuilder();
    Value dims[2] = {batch, idx(in, seqLen)};
    nest(in, dims, [&](OpBuilder &at, ValueRange i) {
      Value past = memref::LoadOp::create(at, loc, op.getKvLens(), i[0]);
      Value pastIdx =
          arith::IndexCastOp::create(at, loc, at.getIndexType(), past);
      Value upTo = arith::AddIOp::create(at, loc, pastIdx, i[1]);
      Value x = arith::AddIOp::create(at, loc, upTo, idx(at, 1));
      Value count = rankPositions(at, loc, x, rank, ranks, blockSize).first;
      Value v = arith::IndexCastOp::create(at, loc, at.getI32Type(), count);
      memref::StoreOp::create(at, loc, v, buffer, i);
    });
    return buffer;
  }

  /// A loop nest over `dims` (indices from 0) calling body(indices).
  void nest(OpBuilder &at, ArrayRef<Value> dims,
            function_ref<void(OpBuilder &, ValueRange)> body,
            SmallVector<Value> outer = {}) {
    if (outer.size() == dims.size()) {
      body(at, outer);
      return;
    }
    Value c0 = arith::ConstantIndexOp::create(at, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(at, loc, 1);
    scf::ForOp::create(at, loc, c0, dims[outer.size()], c1, ValueRange{},
                       [&](OpBuilder &in, Location, Value i, ValueRange) {
                         SmallVector<Value> next = outer;
                         next.push_back(i);
                         nest(in, dims, body, next);
                         scf::YieldOp::create(in, loc);
                       });
  }

  /// A workspace argument of `elem` values, named for the function.
  Value workspace(func::FuncOp f, Type elemType, StringRef suffix) {
    return addWorkspace(f, elemType, suffix, loc);
  }

  /// Whether `buffer` holds sum(parts) x perPart elements, and, when q
  /// must be packed (`packAt` given), B x S x Hl x D more after them, from
  /// *packAt.
  Value holds(Value buffer, ArrayRef<Value> parts, int64_t perPart,
              Value *packAt = nullptr) {
    Value rows = parts.front();
    for (Value p : parts.drop_front())
      rows = arith::AddIOp::create(b, loc, rows, p);
    Value need = arith::MulIOp::create(b, loc, rows, idx(perPart));
    if (packAt && qRange) {
      *packAt = need;
      Value packed = arith::MulIOp::create(b, loc, batch, idx(row / ranks));
      need = arith::AddIOp::create(b, loc, need, packed);
    }
    Value have = memref::DimOp::create(b, loc, buffer, idx(0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, need, have);
  }

  /// q as a contiguous [B, S, Hl, D] buffer: q itself, or (a head range)
  /// its rows copied from the buffer it is a range of into the workspace
  /// from `at`, when the workspace `fits`.
  Value contiguousQ(Value at, Value fits) {
    if (!qRange)
      return op.getQ();
    Value offset = at;
    Value flat = carve(ws, offset,
                       arith::MulIOp::create(b, loc, batch, idx(row / ranks)));
    auto type = MemRefType::get(
        {ShapedType::kDynamic, seqLen, localHeads, headDim}, elem,
        StridedLayoutAttr::get(
            op.getContext(), ShapedType::kDynamic,
            {seqLen * localHeads * headDim, localHeads * headDim, headDim, 1}));
    Value packed = memref::ExpandShapeOp::create(
        b, loc, type, flat, ArrayRef<ReassociationIndices>{{0, 1, 2, 3}},
        ArrayRef<OpFoldResult>{batch, b.getIndexAttr(seqLen),
                               b.getIndexAttr(localHeads),
                               b.getIndexAttr(headDim)});
    int64_t head0 = qRange.getStaticOffsets()[2];
    auto guard = scf::IfOp::create(b, loc, fits, /*withElse=*/false);
    OpBuilder in = guard.getThenBodyBuilder();
    Value dims[2] = {batch, idx(in, seqLen)};
    nest(in, dims, [&](OpBuilder &at, ValueRange i) {
      // One token's heads: contiguous in both buffers.
      SmallVector<OpFoldResult> ones(4, at.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes = {at.getIndexAttr(1), at.getIndexAttr(1),
                                         at.getIndexAttr(localHeads),
                                         at.getIndexAttr(headDim)};
      Value from = memref::SubViewOp::create(
          at, loc, qRange.getSource(),
          ArrayRef<OpFoldResult>{i[0], i[1], at.getIndexAttr(head0),
                                 at.getIndexAttr(0)},
          sizes, ones);
      Value to = memref::SubViewOp::create(
          at, loc, packed,
          ArrayRef<OpFoldResult>{i[0], i[1], at.getIndexAttr(0),
                                 at.getIndexAttr(0)},
          sizes, ones);
      memref::CopyOp::create(at, loc, from, to);
    });
    return packed;
  }

  /// The next part of a flat workspace from `offset` on: `rows` requests
  /// of every head, as [rows x (heads / rowHeads), seq, rowHeads, dim].
  Value part(Value buffer, Value &offset, Value rows, int64_t rowHeads) {
    Value flat =
        carve(buffer, offset, arith::MulIOp::create(b, loc, rows, idx(row)));
    int64_t perRequest = heads / rowHeads;
    Value viewRows =
        perRequest == 1
            ? rows
            : Value(arith::MulIOp::create(b, loc, rows, idx(perRequest)));
    Type elemType = cast<MemRefType>(buffer.getType()).getElementType();
    auto type = MemRefType::get(
        {ShapedType::kDynamic, seqLen, rowHeads, headDim}, elemType,
        StridedLayoutAttr::get(
            op.getContext(), ShapedType::kDynamic,
            {seqLen * rowHeads * headDim, rowHeads * headDim, headDim, 1}));
    return memref::ExpandShapeOp::create(
        b, loc, type, flat, ArrayRef<ReassociationIndices>{{0, 1, 2, 3}},
        ArrayRef<OpFoldResult>{viewRows, b.getIndexAttr(seqLen),
                               b.getIndexAttr(rowHeads),
                               b.getIndexAttr(headDim)});
  }

  /// The next [rows, seq, rowHeads, width] part of a flat f32 workspace (a
  /// state's m or l, over a row of 8; or one log-sum-exp, width 1).
  Value rowState(Value buffer, Value &offset, Value rows, int64_t rowHeads,
                 int64_t width = kStateRow) {
    Value flat = carve(
        buffer, offset,
        arith::MulIOp::create(b, loc, rows, idx(seqLen * rowHeads * width)));
    auto type = MemRefType::get(
        {ShapedType::kDynamic, seqLen, rowHeads, width}, b.getF32Type(),
        StridedLayoutAttr::get(
            op.getContext(), ShapedType::kDynamic,
            {seqLen * rowHeads * width, rowHeads * width, width, 1}));
    return memref::ExpandShapeOp::create(
        b, loc, type, flat, ArrayRef<ReassociationIndices>{{0, 1, 2, 3}},
        ArrayRef<OpFoldResult>{rows, b.getIndexAttr(seqLen),
                               b.getIndexAttr(rowHeads),
                               b.getIndexAttr(width)});
  }

  /// Elements [offset, offset + n) of a flat buffer; advances offset.
  Value carve(Value buffer, Value &offset, Value n) {
    Type elemType = cast<MemRefType>(buffer.getType()).getElementType();
    auto flatType = MemRefType::get(
        {ShapedType::kDynamic}, elemType,
        StridedLayoutAttr::get(op.getContext(), ShapedType::kDynamic, {1}));
    Value flat = memref::SubViewOp::create(
        b, loc, flatType, buffer, ValueRange{offset}, ValueRange{n},
        ValueRange{}, b.getDenseI64ArrayAttr({ShapedType::kDynamic}),
        b.getDenseI64ArrayAttr({ShapedType::kDynamic}),
        b.getDenseI64ArrayAttr({1}));
    offset = arith::AddIOp::create(b, loc, offset, n);
    return flat;
  }

  Value idx(int64_t v) { return idx(b, v); }
  Value idx(OpBuilder &at, int64_t v) {
    return arith::ConstantIndexOp::create(at, loc, v);
  }
  Value i32(int32_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  /// A plan result code, an i32 constant.
  Value planCode(PlanResult code) { return i32(static_cast<int32_t>(code)); }

  /// The status this rank joins its first collective with: OK when `fits`
  /// (its workspaces hold the sizes) and accum_q_len checks out, else
  /// INVALID_PARAMS.
  Value readiness(Value fits) {
    Value ready = arith::AndIOp::create(b, loc, fits, checkAccum());
    Value okCode = planCode(PlanResult::ok);
    Value invalidCode = planCode(PlanResult::invalid_params);
    return arith::SelectOp::create(b, loc, ready, okCode, invalidCode);
  }

  /// Rows [from, from + n) of a 4-D view.
  Value rowsOf(OpBuilder &at, Value view, Value from, Value n) {
    auto type = cast<MemRefType>(view.getType());
    SmallVector<OpFoldResult> offsets = {
        from, at.getIndexAttr(0), at.getIndexAttr(0), at.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {n};
    for (int64_t d = 1; d < 4; ++d)
      sizes.push_back(at.getIndexAttr(type.getDimSize(d)));
    SmallVector<OpFoldResult> strides(4, at.getIndexAttr(1));
    return memref::SubViewOp::create(at, loc, view, offsets, sizes, strides);
  }

  /// Elements [from, from + n) of a 1-D buffer.
  Value rowsOf1(Value buffer, Value from, Value n) {
    return memref::SubViewOp::create(
        b, loc, buffer, ArrayRef<OpFoldResult>{from}, ArrayRef<OpFoldResult>{n},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  }

  /// accum_q_len[i] == i x q_seq_len for i <= batch (a decode batch's).
  Value checkAccum() {
    Value end = arith::AddIOp::create(b, loc, batch, idx(1));
    Value have = memref::DimOp::create(b, loc, op.getAccumQLen(), idx(0));
    Value sized =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, have, end);
    Value trueV = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value zero = idx(0), one = idx(1);
    Value checked = arith::SelectOp::create(b, loc, sized, end, zero);
    auto loop = scf::ForOp::create(
        b, loc, zero, checked, one, ValueRange{trueV},
        [&](OpBuilder &in, Location l, Value i, ValueRange acc) {
          Value got = memref::LoadOp::create(in, l, op.getAccumQLen(), i);
          Value iq = arith::MulIOp::create(
              in, l, i, arith::ConstantIndexOp::create(in, l, seqLen));
          Value want = arith::IndexCastOp::create(in, l, in.getI32Type(), iq);
          Value same =
              arith::CmpIOp::create(in, l, arith::CmpIPredicate::eq, got, want);
          scf::YieldOp::create(
              in, l,
              ValueRange{
                  arith::AndIOp::create(in, l, acc[0], same).getResult()});
        });
    return arith::AndIOp::create(b, loc, sized, loop.getResult(0));
  }

  /// The rank's accum_q_len: i x q_seq_len for i <= count, in the
  /// workspace `buffer` (written when the workspaces `fit`).
  Value localAccum(Value buffer, Value count, Value fits) {
    Value offset = idx(0);
    Value end = arith::AddIOp::create(b, loc, count, idx(1));
    Value accum = carve(buffer, offset, end);
    auto guard = scf::IfOp::create(b, loc, fits, /*withElse=*/false);
    OpBuilder in = guard.getThenBodyBuilder();
    Value dims[1] = {end};
    nest(in, dims, [&](OpBuilder &at, ValueRange i) {
      Value iq = arith::MulIOp::create(at, loc, i[0], idx(at, seqLen));
      Value v = arith::IndexCastOp::create(at, loc, at.getI32Type(), iq);
      memref::StoreOp::create(at, loc, v, accum, i);
    });
    return accum;
  }

  // A state's m or l per (request, token, head): a 32-byte row of f32.
  static constexpr int64_t kStateRow = 8;

  llm::FlashAttentionDecodeOp op;
  int64_t ranks;
  DenseI16ArrayAttr innerCp;
  OpBuilder b;
  Location loc;
  int64_t seqLen = 0, localHeads = 0, heads = 0, headDim = 0, row = 0,
          blockSize = 0;
  Type elem;
  Value ws, rank, batch;
  memref::SubViewOp qRange; // q's view of a packed buffer, when it is one
};

/// Rows [from, from + n) of `v` along its first dimension, as a view the
/// lowerings take: of `v` itself when it is contiguous, else of the
/// contiguous buffer `v` is a head range of (`memref.subview %base[0, h0,
/// 0]`, whole in every other dimension), the head range taken again from
/// those rows. Null when `v` is neither.
Value leadingRows(OpBuilder &b, Location loc, Value v, Value from, Value n) {
  auto rowsOf = [&](Value of) {
    auto type = cast<MemRefType>(of.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)), sizes,
        strides(type.getRank(), b.getIndexAttr(1));
    offsets[0] = from;
    sizes.push_back(n);
    for (int64_t d = 1; d < type.getRank(); ++d)
      sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
    return memref::SubViewOp::create(b, loc, of, offsets, sizes, strides)
        .getResult();
  };
  auto type = cast<MemRefType>(v.getType());
  if (isContiguousRowMajor(type))
    return rowsOf(v);
  auto view = v.getDefiningOp<memref::SubViewOp>();
  if (!view || !isContiguousRowMajor(view.getSourceType()) ||
      view.getSourceType().getRank() != type.getRank())
    return {};
  int64_t rank = type.getRank();
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<int64_t> offset =
        getConstantIntValue(view.getMixedOffsets()[d]);
    std::optional<int64_t> stride =
        getConstantIntValue(view.getMixedStrides()[d]);
    if (!stride || *stride != 1 || !offset || (d != rank - 2 && *offset))
      return {};
    if (d != 0 && d != rank - 2 &&
        type.getDimSize(d) != view.getSourceType().getDimSize(d))
      return {};
  }
  Value rows = rowsOf(view.getSource());
  SmallVector<OpFoldResult> offsets = view.getMixedOffsets(),
                            sizes = view.getMixedSizes();
  sizes[0] = n;
  return memref::SubViewOp::create(b, loc, rows, offsets, sizes,
                                   view.getMixedStrides())
      .getResult();
}

/// A context-parallel store of the step's tokens, any number per request
/// (decode or prefill). Position p of a sequence lives on the rank whose
/// part of its block holds it: rank r holds the runs [k bs, (k + 1) bs) of
/// positions with k mod N = r (bs the rank's part of a block), at local
/// positions that run on from one held run to the next (L_r). So a
/// request's tokens held by rank r are a few runs of consecutive tokens,
/// each stored at consecutive local positions: the plain store does it with
/// one row per run (its request's kv_id, its length, its local start
/// L_r(p), its first token's place in the packed tokens as accum_q_len).
/// Those four arrays go to an i32 workspace of 4 R + 1 values, R the rank's
/// runs: at most 2 B + T / (N bs) for B requests and T tokens. Lengths that
/// do not fit the tokens, a negative length or position, a kv_id outside
/// the block table, a sequence past the table's N x its pages of positions,
/// or a workspace too small make the rank's store refuse (one row of length
/// -1: INVALID_PARAMS); the checks see every request, so every rank
/// decides alike.
LogicalResult lowerSequenceStore(llm::StorePagedKvCacheOp op, int64_t ranks) {
  auto keyType = cast<MemRefType>(op.getKey().getType());
  auto cacheType = cast<MemRefType>(op.getKCache().getType());
  int64_t blockSize = cacheType.getDimSize(2);
  if (keyType.getRank() != 3 || op.getAccumQLen() || !op.getKvLens())
    return op.emitOpError("sharded by sequence, takes the tokens packed by "
                          "q_lens (no accum_q_len) and their positions "
                          "(kv_lens)");
  if (ShapedType::isDynamic(blockSize))
    return op.emitOpError("sharded by sequence, needs a static block_size "
                          "(each rank's part of a block)");
  auto f = op->getParentOfType<func::FuncOp>();
  OpBuilder b(op);
  Location loc = op.getLoc();
  using P = arith::CmpIPredicate;
  auto idx = [&](OpBuilder &at, int64_t v) {
    return arith::ConstantIndexOp::create(at, loc, v).getResult();
  };
  auto i32 = [&](OpBuilder &at, int64_t v) {
    return arith::ConstantOp::create(at, loc, at.getI32IntegerAttr(v))
        .getResult();
  };
  auto toIndex = [&](OpBuilder &at, Value v) {
    return arith::IndexCastOp::create(at, loc, at.getIndexType(), v)
        .getResult();
  };
  auto toI32 = [&](OpBuilder &at, Value v) {
    return arith::IndexCastOp::create(at, loc, at.getI32Type(), v).getResult();
  };
  Value ws = addWorkspace(f, b.getI32Type(), "_store", loc);
  Value rank = groupRank(b, loc, op);
  Value batch = memref::DimOp::create(b, loc, op.getQLens(), idx(b, 0));
  Value tokens = memref::DimOp::create(b, loc, op.getKey(), idx(b, 0));
  Value n = idx(b, ranks), bs = idx(b, blockSize);
  // The positions a sequence can have: the table's pages of N parts each.
  Value pages = memref::DimOp::create(b, loc, op.getBlockTable(), idx(b, 1));
  Value capacity =
      arith::MulIOp::create(b, loc, pages, idx(b, ranks * blockSize));
  Value tableRows =
      memref::DimOp::create(b, loc, op.getBlockTable(), idx(b, 0));

  // Request i's tokens [a, a + q) at positions [p, p + q): the runs k =
  // p / bs ... (p + q - 1) / bs it spans, of which rank r holds those with
  // k mod N = r, from k0 (the first such k) by N.
  struct Span {
    Value q, p, first, last, k0;
  };
  auto spanOf = [&](OpBuilder &at, Value i) {
    Span sp;
    Value q32 = memref::LoadOp::create(at, loc, op.getQLens(), i);
    Value p32 = memref::LoadOp::create(at, loc, op.getKvLens(), i);
    sp.q = toIndex(at, arith::MaxSIOp::create(at, loc, q32, i32(at, 0)));
    sp.p = toIndex(at, arith::MaxSIOp::create(at, loc, p32, i32(at, 0)));
    sp.first = arith::DivUIOp::create(at, loc, sp.p, bs);
    Value end = arith::AddIOp::create(at, loc, sp.p, sp.q);
    // (the last run; unused for an empty request)
    Value one = idx(at, 1);
    Value lastPos = arith::SubIOp::create(
        at, loc, arith::MaxUIOp::create(at, loc, end, one), one);
    sp.last = arith::DivUIOp::create(at, loc, lastPos, bs);
    // k0 = first + ((r - first) mod N), in [first, first + N).
    Value rankPlusN = arith::AddIOp::create(at, loc, rank, n);
    Value firstModN = arith::RemUIOp::create(at, loc, sp.first, n);
    Value behind = arith::RemUIOp::create(
        at, loc, arith::SubIOp::create(at, loc, rankPlusN, firstModN), n);
    sp.k0 = arith::AddIOp::create(at, loc, sp.first, behind);
    return sp;
  };

  // Pass 1: every length and position valid, the tokens they use, and the
  // rank's runs.
  Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  Value zero = idx(b, 0), one = idx(b, 1);
  auto survey = scf::ForOp::create(
      b, loc, zero, batch, one, ValueRange{yes, zero, zero},
      [&](OpBuilder &at, Location l, Value i, ValueRange acc) {
        Value q32 = memref::LoadOp::create(at, l, op.getQLens(), i);
        Value p32 = memref::LoadOp::create(at, l, op.getKvLens(), i);
        Value zero32 = i32(at, 0);
        Value qOk = arith::CmpIOp::create(at, l, P::sge, q32, zero32);
        Value pOk = arith::CmpIOp::create(at, l, P::sge, p32, zero32);
        Value ok = arith::AndIOp::create(at, l, qOk, pOk);
        Span sp = spanOf(at, i);
        Value reach = arith::AddIOp::create(at, l, sp.p, sp.q);
        ok = arith::AndIOp::create(
            at, l, ok, arith::CmpIOp::create(at, l, P::ule, reach, capacity));
        if (op.getKvIds()) {
          Value id32 = memref::LoadOp::create(at, l, op.getKvIds(), i);
          Value id = toIndex(at, arith::MaxSIOp::create(at, l, id32, zero32));
          Value idOk = arith::CmpIOp::create(at, l, P::sge, id32, zero32);
          Value inTable = arith::CmpIOp::create(at, l, P::ult, id, tableRows);
          ok = arith::AndIOp::create(
              at, l, ok, arith::AndIOp::create(at, l, idOk, inTable));
        }
        Value held = arith::CmpIOp::create(at, l, P::ule, sp.k0, sp.last);
        Value some = arith::CmpIOp::create(at, l, P::ugt, sp.q, zero);
        Value holds = arith::AndIOp::create(at, l, held, some);
        Value span = arith::SubIOp::create(at, l, sp.last, sp.k0);
        Value mine = arith::AddIOp::create(
            at, l, arith::DivUIOp::create(at, l, span, n), one);
        Value runs = arith::SelectOp::create(at, l, holds, mine, zero);
        scf::YieldOp::create(
            at, l,
            ValueRange{arith::AndIOp::create(at, l, acc[0], ok),
                       arith::AddIOp::create(at, l, acc[1], sp.q),
                       arith::AddIOp::create(at, l, acc[2], runs)});
      });
  Value lengthsOk = arith::AndIOp::create(
      b, loc, survey.getResult(0),
      arith::CmpIOp::create(b, loc, P::ule, survey.getResult(1), tokens));
  // At least one row (of length 0 when the rank holds none of the tokens).
  Value runs = arith::MaxUIOp::create(b, loc, survey.getResult(2), one);
  Value need = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, runs, idx(b, 4)), one);
  Value have = memref::DimOp::create(b, loc, ws, zero);
  Value ok = arith::AndIOp::create(
      b, loc, lengthsOk, arith::CmpIOp::create(b, loc, P::ule, need, have));

  // The rows: in the workspace, or a refusal of their own.
  auto flatType = MemRefType::get(
      {ShapedType::kDynamic}, b.getI32Type(),
      StridedLayoutAttr::get(op.getContext(), ShapedType::kDynamic, {1}));
  auto part = [&](OpBuilder &at, Value of, Value offset, Value size) {
    return memref::SubViewOp::create(
               at, loc, flatType, of, ValueRange{offset}, ValueRange{size},
               ValueRange{}, at.getDenseI64ArrayAttr({ShapedType::kDynamic}),
               at.getDenseI64ArrayAttr({ShapedType::kDynamic}),
               at.getDenseI64ArrayAttr({1}))
        .getResult();
  };
  auto views = [&](OpBuilder &at, Value of, Value rows) {
    Value twice = arith::MulIOp::create(at, loc, rows, idx(at, 2));
    Value thrice = arith::MulIOp::create(at, loc, rows, idx(at, 3));
    Value rowsPlusOne = arith::AddIOp::create(at, loc, rows, idx(at, 1));
    return SmallVector<Value>{
        part(at, of, idx(at, 0), rows), part(at, of, rows, rows),
        part(at, of, twice, rows), part(at, of, thrice, rowsPlusOne)};
  };
  // kv_id 0, q_len -1 (the store's INVALID_PARAMS), kv_len 0, accum 0, 0.
  Value refusal =
      memref::AllocaOp::create(b, loc, MemRefType::get({5}, b.getI32Type()));
  for (int64_t i = 0; i < 5; ++i) {
    Value v = i32(b, i == 1 ? -1 : 0);
    memref::StoreOp::create(b, loc, v, refusal, ValueRange{idx(b, i)});
  }
  auto rowsIf = scf::IfOp::create(
      b, loc, TypeRange{flatType, flatType, flatType, flatType}, ok,
      /*withElse=*/true);
  {
    OpBuilder in = rowsIf.getThenBodyBuilder();
    SmallVector<Value> v = views(in, ws, runs);
    // Pass 2: the rows, request by request, run by run.
    Value zeroRow =
        arith::CmpIOp::create(in, loc, P::eq, survey.getResult(2), idx(in, 0));
    auto none = scf::IfOp::create(in, loc, zeroRow, /*withElse=*/false);
    {
      OpBuilder z = none.getThenBodyBuilder();
      // The rank holds none of the tokens: one empty row (of the table's
      // first sequence, which a 0-length row reads nothing of).
      Value zero32 = i32(z, 0), first = idx(z, 0);
      for (int k = 0; k < 4; ++k)
        memref::StoreOp::create(z, loc, zero32, v[k], ValueRange{first});
    }
    Value inZero = idx(in, 0), inOne = idx(in, 1);
    scf::ForOp::create(
        in, loc, inZero, batch, inOne, ValueRange{inZero, inZero},
        [&](OpBuilder &at, Location l, Value i, ValueRange acc) {
          Span sp = spanOf(at, i);
          Value id =
              op.getKvIds()
                  ? memref::LoadOp::create(at, l, op.getKvIds(), i).getResult()
                  : toI32(at, i);
          Value end = arith::AddIOp::create(at, l, sp.p, sp.q);
          Value some = arith::CmpIOp::create(at, l, P::ugt, sp.q, inZero);
          Value pastLast = arith::AddIOp::create(at, l, sp.last, inOne);
          Value stop = arith::SelectOp::create(at, l, some, pastLast, sp.k0);
          auto rowLoop = scf::ForOp::create(
              at, l, sp.k0, arith::MaxUIOp::create(at, l, stop, sp.k0), n,
              ValueRange{acc[1]},
              [&](OpBuilder &rb, Location rl, Value k, ValueRange row) {
                Value from = arith::MaxUIOp::create(
                    rb, rl, sp.p, arith::MulIOp::create(rb, rl, k, bs));
                Value next = arith::AddIOp::create(rb, rl, k, inOne);
                Value to = arith::MinUIOp::create(
                    rb, rl, end, arith::MulIOp::create(rb, rl, next, bs));
                Value local =
                    rankPositions(rb, rl, from, rank, ranks, blockSize).first;
                Value token = arith::AddIOp::create(
                    rb, rl, acc[0], arith::SubIOp::create(rb, rl, from, sp.p));
                memref::StoreOp::create(rb, rl, id, v[0], row[0]);
                memref::StoreOp::create(
                    rb, rl, toI32(rb, arith::SubIOp::create(rb, rl, to, from)),
                    v[1], row[0]);
                memref::StoreOp::create(rb, rl, toI32(rb, local), v[2], row[0]);
                memref::StoreOp::create(rb, rl, toI32(rb, token), v[3], row[0]);
                scf::YieldOp::create(rb, rl,
                                     ValueRange{arith::AddIOp::create(
                                         rb, rl, row[0], idx(rb, 1))});
              });
          scf::YieldOp::create(
              at, l,
              ValueRange{arith::AddIOp::create(at, l, acc[0], sp.q),
                         rowLoop.getResult(0)});
        });
    // accum_q_len's last entry: the tokens' end.
    memref::StoreOp::create(in, loc, toI32(in, survey.getResult(1)), v[3],
                            ValueRange{runs});
    scf::YieldOp::create(in, loc, v);
  }
  {
    OpBuilder in = rowsIf.getElseBodyBuilder();
    scf::YieldOp::create(in, loc, views(in, refusal, idx(in, 1)));
  }
  llm::StorePagedKvCacheOp::create(
      b, loc, op.getKey(), op.getValue(), op.getBlockTable(),
      rowsIf.getResult(0), rowsIf.getResult(1), rowsIf.getResult(2),
      rowsIf.getResult(3), op.getKeyScale(), op.getValueScale(), op.getKCache(),
      op.getVCache(), op.getMaxQLenAttr(), /*grid=*/nullptr,
      /*grid_axes=*/nullptr,
      /*kv_sharding=*/nullptr);
  op.erase();
  return success();
}

/// A sharded store. Context-parallel goes to lowerSequenceStore; a
/// KV-data-parallel one stores the rank's requests [b0, b0 + count) (as its
/// attention: c = ceil(B / N) each) and their tokens, into its own pool.
/// Tokens packed by q_lens start at the sum of the q_lens before b0; when
/// the lengths before do not add up inside the tokens (a negative one, too
/// many), the rank's store gets no tokens and refuses its requests itself.
/// With `innerCp`, the op is kvdp_cp's KV data parallel part: the store
/// of the rank's requests is context parallel along innerCp, lowered in
/// turn.
LogicalResult lowerShardedStore(llm::StorePagedKvCacheOp op, int64_t ranks,
                                DenseI16ArrayAttr innerCp) {
  llm::KvSharding mode = *op.getKvSharding();
  if (mode == llm::KvSharding::cp)
    return lowerSequenceStore(op, ranks);
  if (op.getAccumQLen())
    return op.emitOpError("sharded, takes its tokens packed by q_lens (no "
                          "accum_q_len) or one row per request");
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value rank = groupRank(b, loc, op);
  Value batch = memref::DimOp::create(b, loc, op.getQLens(), idx(0));
  Value perRank = arith::CeilDivUIOp::create(b, loc, batch, idx(ranks));
  Value start = arith::MulIOp::create(b, loc, rank, perRank);
  Value b0 = arith::MinUIOp::create(b, loc, start, batch);
  Value left = arith::SubIOp::create(b, loc, batch, b0);
  Value count = arith::MinUIOp::create(b, loc, perRank, left);
  Value end = arith::AddIOp::create(b, loc, b0, count);

  auto keyType = cast<MemRefType>(op.getKey().getType());
  Value from = b0, n = count;
  if (keyType.getRank() == 3) {
    // The tokens before b0 and the rank's: sums of q_lens, in i64.
    Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
    Value trueV = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value lb = idx(0), step = idx(1);
    auto sums = scf::ForOp::create(
        b, loc, lb, batch, step, ValueRange{zero, zero, trueV},
        [&](OpBuilder &in, Location l, Value i, ValueRange acc) {
          Value len32 = memref::LoadOp::create(in, l, op.getQLens(), i);
          Value len = arith::ExtSIOp::create(in, l, in.getI64Type(), len32);
          Value before =
              arith::CmpIOp::create(in, l, arith::CmpIPredicate::ult, i, b0);
          Value atOrAfter =
              arith::CmpIOp::create(in, l, arith::CmpIPredicate::uge, i, b0);
          Value beforeEnd =
              arith::CmpIOp::create(in, l, arith::CmpIPredicate::ult, i, end);
          Value mine = arith::AndIOp::create(in, l, atOrAfter, beforeEnd);
          Value z = arith::ConstantOp::create(in, l, in.getI64IntegerAttr(0));
          Value lenBefore = arith::SelectOp::create(in, l, before, len, z);
          Value lenMine = arith::SelectOp::create(in, l, mine, len, z);
          Value nonneg =
              arith::CmpIOp::create(in, l, arith::CmpIPredicate::sge, len, z);
          scf::YieldOp::create(
              in, l,
              ValueRange{arith::AddIOp::create(in, l, acc[0], lenBefore),
                         arith::AddIOp::create(in, l, acc[1], lenMine),
                         arith::AndIOp::create(in, l, acc[2], nonneg)});
        });
    Value tokens = memref::DimOp::create(b, loc, op.getKey(), idx(0));
    Value tokens64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), tokens);
    Value upTo =
        arith::AddIOp::create(b, loc, sums.getResult(0), sums.getResult(1));
    Value inside = arith::AndIOp::create(
        b, loc, sums.getResult(2),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, upTo,
                              tokens64));
    Value first =
        arith::IndexCastOp::create(b, loc, b.getIndexType(), sums.getResult(0));
    Value mine =
        arith::IndexCastOp::create(b, loc, b.getIndexType(), sums.getResult(1));
    from = arith::SelectOp::create(b, loc, inside, first, idx(0));
    n = arith::SelectOp::create(b, loc, inside, mine, idx(0));
  }
  Value key = leadingRows(b, loc, op.getKey(), from, n);
  Value value = leadingRows(b, loc, op.getValue(), from, n);
  if (!key || !value)
    return op.emitOpError("sharded, needs key and value contiguous or head "
                          "ranges of a contiguous buffer (the rank takes "
                          "their rows)");
  auto requests = [&](Value v) -> Value {
    if (!v)
      return {};
    return memref::SubViewOp::create(b, loc, v, ArrayRef<OpFoldResult>{b0},
                                     ArrayRef<OpFoldResult>{count},
                                     ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  };
  Value kvIds = requests(op.getKvIds());
  Value qLens = requests(op.getQLens());
  Value kvLens = requests(op.getKvLens());
  llm::StorePagedKvCacheOp::create(
      b, loc, key, value, op.getBlockTable(), kvIds, qLens, kvLens,
      /*accum_q_len=*/Value(), op.getKeyScale(), op.getValueScale(),
      op.getKCache(), op.getVCache(), op.getMaxQLenAttr(),
      /*grid=*/innerCp ? op.getGridAttr() : nullptr, /*grid_axes=*/innerCp,
      /*kv_sharding=*/
      innerCp ? llm::KvShardingAttr::get(b.getContext(), llm::KvSharding::cp)
              : nullptr);
  op.erase();
  return success();
}

struct ConvertLlmKvShardingPass
    : public wsp::impl::ConvertLlmKvShardingBase<ConvertLlmKvShardingPass> {

  void runOnOperation() override {
    // kvdp_cp lowers in two rounds: its KV data parallel part, whose
    // rank's op is context parallel, then that op.
    for (int round = 0; round < 2; ++round)
      if (failed(lowerSharded()))
        return signalPassFailure();
  }

  LogicalResult lowerSharded() {
    SmallVector<Operation *> sharded;
    getOperation().walk([&](Operation *op) {
      if (auto attention = dyn_cast<llm::FlashAttentionDecodeOp>(op);
          attention && attention.getGrid())
        sharded.push_back(op);
      if (auto store = dyn_cast<llm::StorePagedKvCacheOp>(op);
          store && store.getGrid())
        sharded.push_back(op);
    });
    for (Operation *op : sharded) {
      auto grid = op->getAttrOfType<FlatSymbolRefAttr>("grid");
      auto mode = op->getAttrOfType<llm::KvShardingAttr>("kv_sharding");
      if (!mode) {
        op->emitOpError("is sharded over ")
            << grid
            << " without a mode: llm-select-kv-sharding (or the "
               "kv_sharding attribute) chooses it";
        return failure();
      }
      // kvdp_cp: KV data parallel along the first axis (its all_to_all
      // form, the least bytes), around a rank's op context parallel along
      // the second.
      DenseI16ArrayAttr innerCp;
      if (mode.getValue() == llm::KvSharding::kvdp_cp) {
        ArrayRef<int16_t> axes =
            op->getAttrOfType<DenseI16ArrayAttr>("grid_axes").asArrayRef();
        Builder attrs(op->getContext());
        innerCp = attrs.getDenseI16ArrayAttr(axes.drop_front());
        op->setAttr("grid_axes", attrs.getDenseI16ArrayAttr(axes.take_front()));
        op->setAttr("kv_sharding",
                    llm::KvShardingAttr::get(op->getContext(),
                                             llm::KvSharding::kvdp_all_to_all));
      }
      std::optional<int64_t> ranks = groupRanks(op);
      if (!ranks) {
        op->emitOpError("shards over ")
            << grid
            << ", whose number of ranks is dynamic: a rank's part of the "
               "batch and of the heads needs a static count";
        return failure();
      }
      // In the function's top block or in scf.if branches there (the
      // run-time choice between two modes), where convert-llm-to-wsp
      // chains each op's status.
      auto f = op->getParentOfType<func::FuncOp>();
      Operation *parent = op->getParentOp();
      while (parent && parent != f.getOperation() && isa<scf::IfOp>(parent))
        parent = parent->getParentOp();
      if (!f || parent != f.getOperation() || !f.getBody().hasOneBlock()) {
        op->emitOpError("sharded, lowers only in its function's top block or "
                        "in scf.if branches there");
        return failure();
      }
      LogicalResult lowered =
          isa<llm::StorePagedKvCacheOp>(op)
              ? lowerShardedStore(cast<llm::StorePagedKvCacheOp>(op), *ranks,
                                  innerCp)
              : KvShardingLowering(cast<llm::FlashAttentionDecodeOp>(op),
                                   *ranks, innerCp)
                    .run(f);
      if (failed(lowered))
        return failure();
    }
    return success();
  }
};

} // namespace
