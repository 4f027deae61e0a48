//===- Plan.cpp - chunk-size planning and descriptor generation -----------===//
//
// Plans every wsp.plan_chunk_size and wsp.generate: with pto::runtime's own
// WorkPlanner when the lengths are compile-time constants, otherwise by
// lowering to the explicit scf/arith/memref loops the backend emits as the
// AICPU planning function.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "wsp/Dialect/Wsp/Transforms/Planning.h"

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

#include <pto/runtime/balanced_planner.hpp>
#include <pto/runtime/spec_rows.hpp>
#include <pto/runtime/work_planner.hpp>

#include <climits>
#include <tuple>

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPPLAN
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;
namespace rt = pto::runtime;

// The plan result codes have one home, the dialect's PlanResult enum
// (WspAttrs.td), which lowerings and Python read; the runtime's enum, which
// knows nothing of MLIR, must agree with it code for code.
static_assert(static_cast<int>(rt::PlanResult::OK) ==
              static_cast<int>(wsp::PlanResult::ok));
static_assert(static_cast<int>(rt::PlanResult::BUFFER_OVERFLOW) ==
              static_cast<int>(wsp::PlanResult::buffer_overflow));
static_assert(static_cast<int>(rt::PlanResult::UNSUPPORTED_SIZE) ==
              static_cast<int>(wsp::PlanResult::unsupported_size));
static_assert(static_cast<int>(rt::PlanResult::INVALID_PARAMS) ==
              static_cast<int>(wsp::PlanResult::invalid_params));
static_assert(wsp::getMaxEnumValForPlanResult() ==
                  static_cast<uint32_t>(rt::PlanResult::INVALID_PARAMS),
              "a code the runtime does not have");

//===----------------------------------------------------------------------===//
// Shared helpers (Planning.h)
//===----------------------------------------------------------------------===//

rt::TierList mlir::wsp::toTierList(TierConfigOp config) {
  std::vector<rt::TierRange> tiers;
  for (TierAttr tier : config.getTierList())
    tiers.push_back({static_cast<int>(tier.getId()),
                     static_cast<int>(tier.getMinSize()),
                     static_cast<int>(tier.getMaxSize())});
  return rt::TierList(std::move(tiers));
}

rt::PlanConfig mlir::wsp::toPlanConfig(PlanConfigAttr config) {
  rt::PlanConfig c;
  c.chunk_min = static_cast<int>(config.getChunkMin());
  c.chunk_max = static_cast<int>(config.getChunkMax());
  c.max_work_units = static_cast<int>(config.getMaxWorkUnits());
  c.balance_chunks = config.getBalanceChunks();
  return c;
}

rt::BalancedConfig mlir::wsp::toBalancedConfig(PlanConfigAttr config) {
  rt::BalancedConfig c;
  c.num_cores = static_cast<int>(config.getCores());
  c.block_size = static_cast<int>(config.getBlockSize());
  c.cost.per_unit = config.getUnitCost();
  c.cost.per_token = config.getTokenCost();
  c.cost.per_merge = config.getMergeCost();
  c.batch_invariant = config.getBatchInvariant();
  c.invariant_chunk = static_cast<int>(config.getInvariantChunk());
  return c;
}

FailureOr<StaticPlan> mlir::wsp::planStatically(PatternAttr pattern,
                                                TierConfigOp tiers,
                                                PlanConfigAttr config,
                                                ArrayRef<int> lengths,
                                                int heads, int chunk) {
  auto run = [&](auto planner) -> FailureOr<StaticPlan> {
    StaticPlan plan;
    const int batch = static_cast<int>(lengths.size());
    const int capacity =
        planner.get_total_work(lengths.data(), batch, heads, chunk);
    plan.descriptors.resize(std::max(capacity, 0));
    int count = 0;
    plan.result = planner.generate(lengths.data(), batch, heads, chunk,
                                   plan.descriptors.data(),
                                   std::max(capacity, 0), &count);
    plan.descriptors.resize(plan.result == rt::PlanResult::OK ? count : 0);
    return plan;
  };
  if (pattern.isAttention())
    return run(rt::WorkPlanner<rt::AttentionSpace<>, rt::TierList,
                               rt::params::Attention>(toPlanConfig(config),
                                                      toTierList(tiers)));
  if (pattern.isMoE())
    return run(
        rt::WorkPlanner<rt::MoESpace<>, rt::TierList, rt::params::MoEPerExpert>(
            toPlanConfig(config), toTierList(tiers)));
  return failure();
}

int mlir::wsp::planChunkSizeStatically(PlanConfigAttr config,
                                       ArrayRef<int> lengths, int heads) {
  // The chunk size does not depend on tiers.
  rt::WorkPlanner<rt::AttentionSpace<>, rt::TierList, rt::params::Attention>
      planner(toPlanConfig(config));
  return planner.plan_chunk_size(lengths.data(),
                                 static_cast<int>(lengths.size()), heads);
}

Value mlir::wsp::buildSelectTier(OpBuilder &b, Location loc,
                                 TierConfigOp config, Value length) {
  // First match as a branch-free chain: walk the tiers backwards so that an
  // earlier tier's select wraps (and so wins over) every later one.
  Type i32 = b.getI32Type();
  Type lenType = length.getType();
  auto constLen = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, lenType,
                                     b.getIntegerAttr(lenType, v));
  };
  Value result =
      arith::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(-1));
  // (A named vector: reverse() of a temporary would dangle in the loop.)
  SmallVector<TierAttr> tiers = config.getTierList();
  for (TierAttr tier : llvm::reverse(tiers)) {
    Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, length,
                                     constLen(tier.getMinSize()));
    Value le = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, length,
                                     constLen(tier.getMaxSize()));
    Value in = arith::AndIOp::create(b, loc, ge, le);
    Value id = arith::ConstantOp::create(
        b, loc, i32, b.getI32IntegerAttr(static_cast<int32_t>(tier.getId())));
    result = arith::SelectOp::create(b, loc, in, id, result);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Compile-time knowledge
//===----------------------------------------------------------------------===//

/// The values of a constant lengths buffer: a memref.get_global (possibly
/// behind memref.cast) of a constant memref.global with a dense initializer.
static std::optional<SmallVector<int>>
getConstantLengths(Value buffer, SymbolTableCollection &symbolTables) {
  while (auto cast = buffer.getDefiningOp<memref::CastOp>())
    buffer = cast.getSource();
  auto get = buffer.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return std::nullopt;
  auto global = symbolTables.lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  if (!global || !global.getConstant())
    return std::nullopt;
  auto init =
      dyn_cast_if_present<DenseIntElementsAttr>(global.getInitialValueAttr());
  if (!init)
    return std::nullopt;
  SmallVector<int> values;
  for (const APInt &v : init.getValues<APInt>())
    values.push_back(static_cast<int>(v.getSExtValue()));
  return values;
}

static std::optional<int64_t> getConstantInt(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// The first KV position a sliding-window decode plans for a request (the
/// constant form of windowed()).
static int windowStart(int len, int64_t queries, int64_t window) {
  return static_cast<int>(std::max<int64_t>(0, len - queries - window + 1));
}

/// The first `batch` constant lengths, or a diagnostic when batch does not
/// fit the buffer.
static FailureOr<SmallVector<int>>
takeLengths(Operation *op, ArrayRef<int> lengths, int64_t batch) {
  if (batch < 1 || batch > static_cast<int64_t>(lengths.size()))
    return op->emitOpError()
           << "batch " << batch << " does not fit the constant lengths buffer "
           << "of " << lengths.size() << " (INVALID_PARAMS)";
  return SmallVector<int>(lengths.take_front(batch));
}

/// Records on every dispatch of `buffer` which tier ids its descriptors can
/// carry (united with what an earlier generation into it recorded).
static void recordReachableTiers(Value buffer, ArrayRef<int64_t> tiers) {
  for (Operation *user : buffer.getUsers()) {
    auto dispatch = dyn_cast<DispatchOp>(user);
    if (!dispatch || dispatch.getDescriptors() != buffer)
      continue;
    llvm::SmallSetVector<int64_t, 8> ids;
    if (auto known = dispatch.getReachableTiersAttr())
      ids.insert(known.asArrayRef().begin(), known.asArrayRef().end());
    ids.insert(tiers.begin(), tiers.end());
    SmallVector<int64_t> sorted(ids.begin(), ids.end());
    llvm::sort(sorted);
    dispatch.setReachableTiersAttr(
        DenseI64ArrayAttr::get(buffer.getContext(), sorted));
  }
}

//===----------------------------------------------------------------------===//
// Dynamic lowering
//===----------------------------------------------------------------------===//

using mlir::wsp::detail::Lowering;

/// A sliding-window decode plans only [start, len) of each request:
/// start = max(0, len - queries - W + 1) (its queries are its last tokens and
/// attend at most W tokens back). Returns {start, effective length}.
static std::pair<Value, Value> windowed(Lowering &l, Value len, Value queries,
                                        int64_t window) {
  Value back = arith::AddIOp::create(l.b, l.loc, queries, l.index(window - 1));
  Value reach = arith::SubIOp::create(l.b, l.loc, len, back);
  Value start = arith::MaxSIOp::create(l.b, l.loc, reach, l.index(0));
  return {start, arith::SubIOp::create(l.b, l.loc, len, start)};
}

/// Spec §6.3.4, the runtime's contract included: 0 for invalid inputs
/// (batch or heads < 1, a negative length), else the smallest chunk in
/// [chunk_min, chunk_max] whose count fits max_work_units, else chunk_max.
/// The search is the runtime's (WorkPlanner::plan_chunk_size): one pass for
/// the bounds max(nz, ceil(S/c)) <= count(c) <= (S + nz (c - 1)) / c, which
/// narrow the range the binary search counts over (or decide it alone).
static Value lowerPlanChunkSize(PlanChunkSizeOp op) {
  OpBuilder b(op);
  Lowering l{b, op.getLoc()};
  Value lengths = op.getLengths(), batch = op.getBatch(), heads = op.getHeads();
  PlanConfigAttr config = op.getConfig();
  using P = arith::CmpIPredicate;

  // What a chunk size is planned for: the length, or a sliding window's
  // part of it.
  auto planned = [&](Lowering &n, Value len) {
    if (op.getWindowAttr())
      len = windowed(n, len, op.getQueries(), op.getWindowAttr().getInt())
                .second;
    return len;
  };

  // One pass: the smallest length (to reject negative ones), and over the
  // planned lengths their sum, how many are not 0, and the largest.
  Value zero = l.index(0), one = l.index(1), zero32 = l.i32(0);
  auto [batchOk, rowsRead] = l.batchWithin(lengths, batch);
  auto survey = scf::ForOp::create(
      b, l.loc, zero, rowsRead, one, ValueRange{zero32, zero, zero, zero},
      [&](OpBuilder &nb, Location loc, Value i, ValueRange acc) {
        Lowering n{nb, loc};
        Value len32 = n.load(lengths, i);
        Value len = planned(
            n, n.toIndex(arith::MaxSIOp::create(nb, loc, len32, zero32)));
        Value nonzero = n.select(n.cmp(P::ne, len, zero), one, zero);
        scf::YieldOp::create(
            nb, loc,
            ValueRange{arith::MinSIOp::create(nb, loc, acc[0], len32),
                       arith::AddIOp::create(nb, loc, acc[1], len),
                       arith::AddIOp::create(nb, loc, acc[2], nonzero),
                       arith::MaxUIOp::create(nb, loc, acc[3], len)});
      });
  Value minLen = survey.getResult(0), sum = survey.getResult(1),
        nonzero = survey.getResult(2), maxLen = survey.getResult(3);
  Value headsOk = l.cmp(P::sgt, heads, zero);
  Value shapeOk = arith::AndIOp::create(b, l.loc, batchOk, headsOk);
  Value valid =
      arith::AndIOp::create(b, l.loc, shapeOk, l.cmp(P::sge, minLen, zero32));

  auto ifOp = scf::IfOp::create(
      b, l.loc, valid,
      [&](OpBuilder &tb, Location loc) {
        Lowering t{tb, loc};
        Value chunkMin = t.index(config.getChunkMin()),
              chunkMax = t.index(config.getChunkMax());
        // count(c) * heads <= max_work_units  <=>  count(c) <= limit.
        Value limit = arith::DivUIOp::create(
            tb, loc, t.index(config.getMaxWorkUnits()), heads);
        // Every fitting c is >= first_lower (ceil(S / c) <= limit), and
        // first_upper fits ((S + nz (c - 1)) / c <= limit, or c >= the
        // largest length). Decided without a count: more nonzero lengths
        // than the limit (nothing fits: chunk_max), none (everything fits:
        // chunk_min), first_lower past chunk_max, first_upper at or below
        // chunk_min; otherwise the search runs over [max(chunk_min,
        // first_lower), min(chunk_max, first_upper)].
        Value tooMany = t.cmp(P::ugt, nonzero, limit);
        Value none = t.cmp(P::eq, nonzero, zero);
        Value safeLimit = t.select(t.cmp(P::eq, limit, zero), one, limit);
        Value firstLower = arith::CeilDivUIOp::create(tb, loc, sum, safeLimit);
        // limit + 1 - nz > 0 where it is used (nz <= limit).
        Value limitPlusOne = arith::AddIOp::create(tb, loc, limit, one);
        Value room =
            t.select(tooMany, one,
                     arith::SubIOp::create(tb, loc, limitPlusOne, nonzero));
        Value spare = arith::SubIOp::create(tb, loc, sum, nonzero);
        Value perRoom = arith::DivUIOp::create(tb, loc, spare, room);
        Value firstUpper = arith::MinUIOp::create(
            tb, loc, arith::AddIOp::create(tb, loc, perRoom, one), maxLen);
        Value atMax = arith::OrIOp::create(
            tb, loc, tooMany, t.cmp(P::ugt, firstLower, chunkMax));
        Value atMin = arith::OrIOp::create(
            tb, loc, none, t.cmp(P::ule, firstUpper, chunkMin));
        Value lower = arith::MaxUIOp::create(tb, loc, chunkMin, firstLower);
        Value lo0 = t.select(atMax, chunkMax, t.select(atMin, chunkMin, lower));
        Value upper = arith::MinUIOp::create(tb, loc, chunkMax, firstUpper);
        Value hi0 = t.select(atMax, chunkMax, t.select(atMin, chunkMin, upper));
        auto search = scf::WhileOp::create(
            tb, loc, TypeRange{tb.getIndexType(), tb.getIndexType()},
            ValueRange{lo0, hi0},
            [&](OpBuilder &cb, Location loc, ValueRange args) {
              Lowering c{cb, loc};
              scf::ConditionOp::create(cb, loc, c.cmp(P::ult, args[0], args[1]),
                                       args);
            },
            [&](OpBuilder &bb, Location loc, ValueRange args) {
              Lowering w{bb, loc};
              Value lo = args[0], hi = args[1];
              Value width = arith::SubIOp::create(bb, loc, hi, lo);
              Value half = arith::DivUIOp::create(bb, loc, width, w.index(2));
              Value mid = arith::AddIOp::create(bb, loc, lo, half);
              Value count =
                  scf::ForOp::create(
                      bb, loc, zero, batch, one, ValueRange{zero},
                      [&](OpBuilder &fb, Location loc, Value i,
                          ValueRange acc) {
                        Lowering f{fb, loc};
                        Value len = planned(f, f.toIndex(f.load(lengths, i)));
                        Value chunks =
                            arith::CeilDivUIOp::create(fb, loc, len, mid);
                        scf::YieldOp::create(fb, loc,
                                             ValueRange{arith::AddIOp::create(
                                                 fb, loc, acc[0], chunks)});
                      })
                      .getResult(0);
              Value over = w.cmp(P::ugt, count, limit);
              Value next = arith::AddIOp::create(bb, loc, mid, one);
              scf::YieldOp::create(bb, loc,
                                   ValueRange{w.select(over, next, lo),
                                              w.select(over, hi, mid)});
            });
        scf::YieldOp::create(tb, loc, ValueRange{search.getResult(0)});
      },
      [&](OpBuilder &eb, Location loc) {
        Lowering e{eb, loc};
        scf::YieldOp::create(eb, loc, ValueRange{e.index(0)});
      });
  return ifOp.getResult(0);
}

namespace {
/// A spec plan's rows as wsp.generate writes them (and wsp.update_plan
/// rewrites them): one home for the chunk layout of both.
struct SpecRows {
  Value buffer, heads, chunk, queries;
  bool balanced, moe;
  int64_t window;

  /// A request's planned range from its length: {first KV position,
  /// effective length (index), effective length (i32)}. A sliding window
  /// plans only the window. `clamp`: a negative length counts as 0 in the
  /// index length (where it is not yet known to be valid; the i32 one
  /// stays negative, which no tier covers).
  std::tuple<Value, Value, Value> effective(OpBuilder &b, Location loc,
                                            Value len32, bool clamp) const {
    Lowering l{b, loc};
    Value len = l.toIndex(
        clamp ? arith::MaxSIOp::create(b, loc, len32, l.i32(0)) : len32);
    Value start = l.index(0);
    if (window) {
      std::tie(start, len) = windowed(l, len, queries, window);
      len32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), len);
    }
    return {start, len, len32};
  }
  /// effective()'s length (index) alone.
  Value plannedLength(OpBuilder &b, Location loc, Value len32,
                      bool clamp) const {
    return std::get<1>(effective(b, loc, len32, clamp));
  }

  /// What a plan's validation asks of one given length: whether it is
  /// negative, whether it is positive with no tier (`tiers`) covering its
  /// planned range, and that range's length (index) and chunk count at
  /// `safeChunk` (>= 1).
  struct RowCheck {
    Value negative, unsupported, len, chunks;
  };
  RowCheck check(OpBuilder &b, Location loc, Value raw, TierConfigOp tiers,
                 Value safeChunk) const {
    using P = arith::CmpIPredicate;
    Lowering n{b, loc};
    Value negative = n.cmp(P::slt, raw, n.i32(0));
    auto [start, len, len32] = effective(b, loc, raw, /*clamp=*/true);
    (void)start;
    Value tier = buildSelectTier(b, loc, tiers, len32);
    Value positive = n.cmp(P::sgt, len32, n.i32(0));
    Value uncovered = n.cmp(P::slt, tier, n.i32(0));
    Value unsupported = arith::AndIOp::create(b, loc, positive, uncovered);
    return {negative, unsupported, len,
            arith::CeilDivUIOp::create(b, loc, len, safeChunk)};
  }

  /// Writes chunks [from, n) of request `req` for every head: its planned
  /// range starts at `start` and holds `len` positions in n chunks, its
  /// tier is `tier`, and its first descriptor is `reqFirst`.
  void writeChunks(OpBuilder &b, Location loc, Value req, Value start,
                   Value len, Value tier, Value n, Value reqFirst,
                   Value from) const {
    using P = arith::CmpIPredicate;
    Lowering r{b, loc};
    Value flagFirstInit =
        r.i32(rt::WorkDescriptor::FLAG_FIRST | rt::WorkDescriptor::FLAG_INIT);
    Value flagLast = r.i32(rt::WorkDescriptor::FLAG_LAST);
    Value zero = r.index(0), one = r.index(1), none32 = r.i32(0);
    // Chunk shape (detail::Chunking in the runtime): balanced sizes differ
    // by at most one; unbalanced ones are `chunk` but the last.
    Value safeN = r.select(r.cmp(P::eq, n, zero), one, n);
    Value base = balanced ? arith::DivUIOp::create(b, loc, len, safeN) : chunk;
    Value extra =
        balanced ? Value(arith::RemUIOp::create(b, loc, len, safeN)) : zero;
    Value nMinus1 = arith::SubIOp::create(b, loc, safeN, one);
    Value lastSize = arith::SubIOp::create(
        b, loc, len, arith::MulIOp::create(b, loc, nMinus1, chunk));
    // The request's descriptors are its heads' rows of n chunks, head after
    // head: id = reqFirst + head n + i. A chunk's place, size and flags are
    // the same for every head, so the chunk loop is the outer one and
    // computes them once for all heads.
    scf::ForOp::create(
        b, loc, from, n, one, ValueRange{},
        [&](OpBuilder &cb, Location loc, Value i, ValueRange) {
          Lowering c{cb, loc};
          Value isFirst = c.cmp(P::eq, i, zero);
          Value isLast = c.cmp(P::eq, i, nMinus1);
          Value kvStart, size;
          if (balanced) {
            Value longer = c.cmp(P::ult, i, extra);
            size = arith::AddIOp::create(cb, loc, base,
                                         c.select(longer, one, zero));
            Value whole = arith::MulIOp::create(cb, loc, i, base);
            kvStart = arith::AddIOp::create(
                cb, loc, whole, arith::MinUIOp::create(cb, loc, i, extra));
          } else {
            size = c.select(isLast, lastSize, chunk);
            kvStart = arith::MulIOp::create(cb, loc, i, chunk);
          }
          if (window)
            kvStart = arith::AddIOp::create(cb, loc, start, kvStart);
          Value firstFlags = c.select(isFirst, flagFirstInit, none32);
          Value lastFlags = c.select(isLast, flagLast, none32);
          Value flags = arith::OrIOp::create(cb, loc, firstFlags, lastFlags);
          Value first = arith::AddIOp::create(cb, loc, reqFirst, i);
          scf::ForOp::create(
              cb, loc, zero, heads, one, ValueRange{},
              [&](OpBuilder &hb, Location loc, Value head, ValueRange) {
                Value id = arith::AddIOp::create(
                    hb, loc, first, arith::MulIOp::create(hb, loc, head, n));
                // attention: (request, head, start, len); moe per expert:
                // (batch group, expert, start, count).
                SmallVector<Value> params =
                    moe ? SmallVector<Value>{head, req, kvStart, size}
                        : SmallVector<Value>{req, head, kvStart, size};
                Value desc = MakeDescriptorOp::create(
                    hb, loc,
                    cast<MemRefType>(buffer.getType()).getElementType(), id,
                    tier, flags, params);
                memref::StoreOp::create(hb, loc, desc, buffer, ValueRange{id});
                scf::YieldOp::create(hb, loc);
              });
          scf::YieldOp::create(cb, loc);
        });
  }

  /// Whether a rows buffer holds the plan of `batch` requests as rows
  /// (pto::runtime::SpecRowsLayout::size(batch) entries).
  static Value rowsFit(OpBuilder &b, Location loc, Value rowsBuffer,
                       Value batch) {
    using L = rt::SpecRowsLayout;
    Lowering r{b, loc};
    Value twice = arith::AddIOp::create(b, loc, batch, batch);
    Value needed =
        arith::AddIOp::create(b, loc, twice, r.index(L::kHeader + 1));
    Value held = memref::DimOp::create(b, loc, rowsBuffer, 0);
    return r.cmp(arith::CmpIPredicate::ule, needed, held);
  }

  /// The plan as rows: the header, for `batch` requests and `count`
  /// descriptors, and the count after the last request.
  void writeRowsHeader(OpBuilder &b, Location loc, Value rowsBuffer,
                       Value batch, Value count) const {
    using L = rt::SpecRowsLayout;
    Lowering r{b, loc};
    auto i32 = [&](Value v) -> Value {
      return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
    };
    // (One op per statement: the order ops are created in must not be the
    // host compiler's order of evaluating a call's arguments.)
    auto put = [&](int64_t field, Value v) {
      Value at = r.index(field);
      memref::StoreOp::create(b, loc, v, rowsBuffer, ValueRange{at});
    };
    const int32_t flags = (balanced ? L::kBalanced : 0) | (moe ? L::kMoE : 0);
    put(L::kBatch, i32(batch));
    put(L::kHeads, i32(heads));
    put(L::kChunk, i32(chunk));
    put(L::kQueries, queries ? i32(queries) : r.i32(0));
    put(L::kWindow, r.i32(window));
    put(L::kFlags, r.i32(flags));
    Value count32 = i32(count);
    put(L::kCount, count32);
    put(L::kReserved, r.i32(0));
    Value twice = arith::AddIOp::create(b, loc, batch, batch);
    Value end = arith::AddIOp::create(b, loc, twice, r.index(L::kHeader));
    memref::StoreOp::create(b, loc, count32, rowsBuffer, ValueRange{end});
  }

  /// Request `req`'s row of the plan as rows: its first descriptor and
  /// its length as given (i32), or only the length (`first` null).
  static void writeRow(OpBuilder &b, Location loc, Value rowsBuffer, Value req,
                       Value first, Value given) {
    using L = rt::SpecRowsLayout;
    Lowering r{b, loc};
    Value twice = arith::AddIOp::create(b, loc, req, req);
    Value at = arith::AddIOp::create(b, loc, twice, r.index(L::kHeader));
    if (first)
      memref::StoreOp::create(
          b, loc, arith::IndexCastOp::create(b, loc, b.getI32Type(), first),
          rowsBuffer, ValueRange{at});
    memref::StoreOp::create(
        b, loc, given, rowsBuffer,
        ValueRange{arith::AddIOp::create(b, loc, at, r.index(1))});
  }

  /// A loop over requests [0, batch) of `lengths` that calls `body` with
  /// each request, its length as given, its planned range (start, index
  /// and i32 lengths: effective() of a valid length), its tier (with
  /// `tiers`, else null), its chunk count n and its first descriptor (the
  /// chunks of the requests before it, times the heads). With `from` and
  /// `fromFirst`, over requests [from, batch), request `from`'s first
  /// descriptor being `fromFirst`.
  void forEachRequest(
      OpBuilder &b, Location loc, Value lengths, Value batch,
      TierConfigOp tiers,
      function_ref<void(OpBuilder &, Location, Value req, Value given,
                        Value start, Value len, Value len32, Value tier,
                        Value n, Value first)>
          body,
      Value from = {}, Value fromFirst = {}) const {
    Lowering l{b, loc};
    Value zero = from && fromFirst ? Value() : l.index(0);
    Value one = l.index(1);
    scf::ForOp::create(
        b, loc, from ? from : zero, batch, one,
        ValueRange{fromFirst ? fromFirst : zero},
        [&](OpBuilder &rb, Location loc, Value req, ValueRange acc) {
          Lowering r{rb, loc};
          Value given = r.load(lengths, req);
          auto [start, len, len32] = effective(rb, loc, given, /*clamp=*/false);
          Value tier = tiers ? buildSelectTier(rb, loc, tiers, len32) : Value();
          Value n = arith::CeilDivUIOp::create(rb, loc, len, chunk);
          body(rb, loc, req, given, start, len, len32, tier, n, acc[0]);
          scf::YieldOp::create(
              rb, loc,
              ValueRange{arith::AddIOp::create(
                  rb, loc, acc[0], arith::MulIOp::create(rb, loc, heads, n))});
        });
  }
};
} // namespace

/// Spec §6.3.5 with the runtime's validation, error precedence and counts
/// (see docs/rationale/Runtime.md), specialized to the op's pattern and
/// chunk balancing.
static void lowerGenerate(GenerateOp op, TierConfigOp tiers) {
  OpBuilder b(op);
  Lowering l{b, op.getLoc()};
  using P = arith::CmpIPredicate;
  Value lengths = op.getLengths(), batch = op.getBatch(), heads = op.getHeads(),
        chunk = op.getChunk(), buffer = op.getBuffer();
  const int64_t window = op.getWindowAttr() ? op.getWindowAttr().getInt() : 0;
  const SpecRows rows{buffer,
                      heads,
                      chunk,
                      op.getQueries(),
                      op.getConfig().getBalanceChunks(),
                      op.getPattern().isMoE(),
                      window};

  Value zero = l.index(0), one = l.index(1);
  Value capacity = memref::DimOp::create(b, l.loc, buffer, 0);
  auto [batchOk, rowsRead] = l.batchWithin(lengths, batch);
  Value headsOk = l.cmp(P::sgt, heads, zero);
  Value chunkOk = l.cmp(P::sgt, chunk, zero);
  Value shapeOk = arith::AndIOp::create(
      b, l.loc, arith::AndIOp::create(b, l.loc, batchOk, headsOk), chunkOk);
  Value safeChunk = l.select(chunkOk, chunk, one);

  // Pass 1: validate every length and count the chunks.
  auto survey = scf::ForOp::create(
      b, l.loc, zero, rowsRead, one, ValueRange{l.i1(false), l.i1(false), zero},
      [&](OpBuilder &nb, Location loc, Value i, ValueRange acc) {
        Lowering n{nb, loc};
        SpecRows::RowCheck row =
            rows.check(nb, loc, n.load(lengths, i), tiers, safeChunk);
        scf::YieldOp::create(
            nb, loc,
            ValueRange{arith::OrIOp::create(nb, loc, acc[0], row.negative),
                       arith::OrIOp::create(nb, loc, acc[1], row.unsupported),
                       arith::AddIOp::create(nb, loc, acc[2], row.chunks)});
      });
  Value anyNegative = survey.getResult(0);
  Value anyUnsupported = survey.getResult(1);
  Value chunks = survey.getResult(2);

  // Status, without overflowing: chunks * heads > capacity <=> chunks >
  // capacity / heads.
  Value safeHeads = l.select(l.cmp(P::sgt, heads, zero), heads, one);
  Value invalid = arith::OrIOp::create(
      b, l.loc, arith::XOrIOp::create(b, l.loc, shapeOk, l.i1(true)),
      anyNegative);
  // The plan as rows: a rows buffer too small for the batch is the
  // caller's error.
  Value rowsBuffer = op.getRows();
  if (rowsBuffer) {
    Value fits = SpecRows::rowsFit(b, l.loc, rowsBuffer, rowsRead);
    Value short_ = arith::XOrIOp::create(b, l.loc, fits, l.i1(true));
    invalid = arith::OrIOp::create(b, l.loc, invalid, short_);
  }
  Value overflow = l.cmp(P::ugt, chunks,
                         arith::DivUIOp::create(b, l.loc, capacity, safeHeads));
  // (The codes of spec §6.3.5: OK, BUFFER_OVERFLOW, UNSUPPORTED_SIZE,
  // INVALID_PARAMS.)
  Value okCode = l.i32(0), overflowCode = l.i32(1), unsupportedCode = l.i32(2),
        invalidCode = l.i32(3);
  Value status = l.select(invalid, invalidCode,
                          l.select(anyUnsupported, unsupportedCode,
                                   l.select(overflow, overflowCode, okCode)));
  // Count: the number written on OK, the number needed (saturated at
  // INT_MAX) on BUFFER_OVERFLOW, else 0.
  Value intMax = l.index(INT_MAX);
  Value saturates = l.cmp(P::ugt, chunks,
                          arith::DivUIOp::create(b, l.loc, intMax, safeHeads));
  Value total = l.select(saturates, intMax,
                         arith::MulIOp::create(b, l.loc, chunks, safeHeads));
  Value ok = l.cmp(P::eq, status, okCode);
  Value overflowed = l.cmp(P::eq, status, overflowCode);
  Value reported = arith::OrIOp::create(b, l.loc, ok, overflowed);
  Value count = l.select(reported, total, zero);

  // Pass 2: write, only when everything is valid and fits: the rows, or
  // the descriptors.
  scf::IfOp::create(b, l.loc, ok, [&](OpBuilder &tb, Location loc) {
    if (rowsBuffer) {
      rows.writeRowsHeader(tb, loc, rowsBuffer, rowsRead, total);
      rows.forEachRequest(
          tb, loc, lengths, rowsRead, /*tiers=*/nullptr,
          [&](OpBuilder &rb, Location loc, Value req, Value given, Value, Value,
              Value, Value, Value, Value first) {
            SpecRows::writeRow(rb, loc, rowsBuffer, req, first, given);
          });
      scf::YieldOp::create(tb, loc);
      return;
    }
    rows.forEachRequest(tb, loc, lengths, rowsRead, tiers,
                        [&](OpBuilder &rb, Location loc, Value req, Value,
                            Value start, Value len, Value, Value tier, Value n,
                            Value first) {
                          rows.writeChunks(rb, loc, req, start, len, tier, n,
                                           first, Lowering{rb, loc}.index(0));
                        });
    scf::YieldOp::create(tb, loc);
  });
  op.getCount().replaceAllUsesWith(count);
  op.getStatus().replaceAllUsesWith(status);
  op.erase();
}

/// wsp.update_plan: one pass decides whether the plan of the lengths keeps
/// the chunk size and is valid, and finds the first row whose chunk count
/// changed; a second rewrites the rows before it that changed and every row
/// from it on, only when the first said yes. Nothing is written otherwise.
static void lowerUpdatePlan(UpdatePlanOp op, TierConfigOp tiers) {
  OpBuilder b(op);
  Lowering l{b, op.getLoc()};
  using P = arith::CmpIPredicate;
  Value lengths = op.getLengths(), planned = op.getPlanned(),
        batch = op.getBatch(), plannedBatch = op.getPlannedBatch(),
        heads = op.getHeads(), chunk = op.getChunk();
  const int64_t window = op.getWindowAttr() ? op.getWindowAttr().getInt() : 0;
  PlanConfigAttr config = op.getConfig();
  const bool balanced = config.getBalanceChunks();
  const bool searched = op.getSearched();
  const SpecRows rows{op.getBuffer(),  heads,    chunk,
                      op.getQueries(), balanced, op.getPattern().isMoE(),
                      window};
  Value zero = l.index(0), one = l.index(1);
  // (A chunk < 1 never planned anything: refused here as by generate.)
  Value chunkOk = l.cmp(P::sgt, chunk, zero);
  Value safeChunk = l.select(chunkOk, chunk, one);
  // One less, for the search's other side (>= 1: a chunk of 1 is
  // chunk_min or refused). (Here and below, an op's operands are built one
  // statement each: the order ops are created in must not be the host
  // compiler's order of evaluating a call's arguments.)
  Value chunkAboveOne = l.cmp(P::sgt, chunk, one);
  Value lessChunk =
      l.select(chunkAboveOne, arith::SubIOp::create(b, l.loc, chunk, one), one);
  // The rows read: none unless 1 <= batch <= the lengths' size and 0 <=
  // planned_batch <= the plan held's (INVALID_PARAMS is never a read past
  // either array).
  auto [batchOk, rowsRead] = l.batchWithin(lengths, batch);
  Value heldRows = memref::DimOp::create(b, l.loc, planned, 0);
  Value plannedNonNegative = l.cmp(P::sge, plannedBatch, zero);
  Value plannedFits = l.cmp(P::ule, plannedBatch, heldRows);
  Value plannedOk =
      arith::AndIOp::create(b, l.loc, plannedNonNegative, plannedFits);
  batch = rowsRead;
  plannedBatch = l.select(plannedOk, plannedBatch, zero);
  // The planned rows a row can be compared with.
  Value common = arith::MinSIOp::create(b, l.loc, batch, plannedBatch);

  // Pass 1: every length valid and covered; the chunks at `chunk`; the
  // first row whose count differs from the plan held (a row past
  // planned_batch joined: its count differs); whether every planned range
  // grew or stayed (for the search, below).
  auto survey = scf::ForOp::create(
      b, l.loc, zero, batch, one,
      ValueRange{l.i1(false), zero, l.i1(true), batch},
      [&](OpBuilder &nb, Location loc, Value i, ValueRange acc) {
        Lowering n{nb, loc};
        SpecRows::RowCheck row =
            rows.check(nb, loc, n.load(lengths, i), tiers, safeChunk);
        Value len = row.len, chunks = row.chunks;
        auto held = scf::IfOp::create(
            nb, loc, n.cmp(P::slt, i, common),
            [&](OpBuilder &tb, Location loc) {
              Lowering t{tb, loc};
              Value thenLen = rows.plannedLength(tb, loc, t.load(planned, i),
                                                 /*clamp=*/true);
              Value thenChunks =
                  arith::CeilDivUIOp::create(tb, loc, thenLen, safeChunk);
              Value grew = t.cmp(P::ule, thenLen, len);
              scf::YieldOp::create(tb, loc, ValueRange{thenChunks, grew});
            },
            [&](OpBuilder &eb, Location loc) {
              // (Never equal to a count: a joined row moves.)
              Lowering e{eb, loc};
              Value joined = e.index(-1);
              scf::YieldOp::create(eb, loc, ValueRange{joined, e.i1(true)});
            });
        Value differs = n.cmp(P::ne, chunks, held.getResult(0));
        Value noneYet = n.cmp(P::eq, acc[3], batch);
        Value moved = arith::AndIOp::create(nb, loc, differs, noneYet);
        scf::YieldOp::create(
            nb, loc,
            ValueRange{
                arith::OrIOp::create(nb, loc, acc[0],
                                     arith::OrIOp::create(nb, loc, row.negative,
                                                          row.unsupported)),
                arith::AddIOp::create(nb, loc, acc[1], chunks),
                arith::AndIOp::create(nb, loc, acc[2], held.getResult(1)),
                n.select(moved, i, acc[3])});
      });
  Value invalid = survey.getResult(0), chunks = survey.getResult(1),
        firstMoved = survey.getResult(3);
  // A shape generate accepts, a plan held of a size its lengths have, and
  // chunks x heads <= capacity, without overflowing.
  Value headsOk = l.cmp(P::sgt, heads, zero);
  Value safeHeads = l.select(headsOk, heads, one);
  Value capacity = memref::DimOp::create(b, l.loc, op.getBuffer(), 0);
  SmallVector<Value> conditions = {
      arith::XOrIOp::create(b, l.loc, invalid, l.i1(true)),
      batchOk,
      headsOk,
      chunkOk,
      plannedOk,
      l.cmp(P::ule, chunks,
            arith::DivUIOp::create(b, l.loc, capacity, safeHeads))};
  if (searched) {
    // wsp.plan_chunk_size's choice (the smallest chunk in [chunk_min,
    // chunk_max] whose count fits max_work_units / heads, else chunk_max)
    // is `chunk` again: it fits or is chunk_max, and one less does not fit
    // or it is chunk_min (fitting is monotone in the chunk).
    Value limit = arith::DivUIOp::create(
        b, l.loc, l.index(config.getMaxWorkUnits()), safeHeads);
    Value chunkMin = l.index(config.getChunkMin()),
          chunkMax = l.index(config.getChunkMax());
    Value fits = l.cmp(P::ule, chunks, limit);
    Value atMax = l.cmp(P::eq, chunk, chunkMax);
    // One less did not fit the plan held (the search chose `chunk` for it,
    // or it is chunk_min), and a count only grows with its lengths: when
    // every planned range grew or stayed and no request left, one less
    // still does not fit. Otherwise one more pass counts at one less.
    Value noneLeft = l.cmp(P::uge, batch, plannedBatch);
    Value grew = arith::AndIOp::create(b, l.loc, survey.getResult(2), noneLeft);
    auto lessCount = scf::IfOp::create(
        b, l.loc, grew,
        [&](OpBuilder &tb, Location loc) {
          scf::YieldOp::create(tb, loc, ValueRange{Lowering{tb, loc}.i1(true)});
        },
        [&](OpBuilder &eb, Location loc) {
          Lowering e{eb, loc};
          auto count = scf::ForOp::create(
              eb, loc, zero, batch, one, ValueRange{zero},
              [&](OpBuilder &cb, Location loc, Value i, ValueRange acc) {
                Lowering c{cb, loc};
                Value len = rows.plannedLength(cb, loc, c.load(lengths, i),
                                               /*clamp=*/true);
                Value less =
                    arith::CeilDivUIOp::create(cb, loc, len, lessChunk);
                scf::YieldOp::create(
                    cb, loc,
                    ValueRange{arith::AddIOp::create(cb, loc, acc[0], less)});
              });
          Value over = e.cmp(P::ugt, count.getResult(0), limit);
          scf::YieldOp::create(eb, loc, ValueRange{over});
        });
    Value lessOver = lessCount.getResult(0);
    Value atMin = l.cmp(P::eq, chunk, chunkMin);
    conditions.append({l.cmp(P::sge, chunk, chunkMin),
                       l.cmp(P::sle, chunk, chunkMax),
                       arith::OrIOp::create(b, l.loc, fits, atMax),
                       arith::OrIOp::create(b, l.loc, lessOver, atMin)});
  }
  Value rowsBuffer = op.getRows();
  if (rowsBuffer)
    conditions.push_back(SpecRows::rowsFit(b, l.loc, rowsBuffer, batch));
  Value updatable = conditions.front();
  for (Value c : ArrayRef(conditions).drop_front())
    updatable = arith::AndIOp::create(b, l.loc, updatable, c);
  Value total = arith::MulIOp::create(b, l.loc, chunks, safeHeads);

  // The plan as rows: the lengths that changed, and the first ids from the
  // first row whose count changed on; no descriptor. The rows before it
  // keep their counts, so their first ids, and the first moved row's.
  if (rowsBuffer) {
    scf::IfOp::create(b, l.loc, updatable, [&](OpBuilder &tb, Location loc) {
      Lowering t{tb, loc};
      rows.writeRowsHeader(tb, loc, rowsBuffer, batch, total);
      scf::ForOp::create(
          tb, loc, zero, firstMoved, one, ValueRange{},
          [&](OpBuilder &sb, Location loc, Value req, ValueRange) {
            Lowering s{sb, loc};
            Value now = s.load(lengths, req);
            Value then = s.load(planned, req);
            scf::IfOp::create(sb, loc, s.cmp(P::ne, now, then),
                              [&](OpBuilder &cb, Location loc) {
                                SpecRows::writeRow(cb, loc, rowsBuffer, req,
                                                   Value(), now);
                                scf::YieldOp::create(cb, loc);
                              });
            scf::YieldOp::create(sb, loc);
          });
      // (Row firstMoved's first id as held: the one after the rows before
      // it, or the held count after the last.)
      auto from = scf::IfOp::create(
          tb, loc, t.cmp(P::ult, firstMoved, batch),
          [&](OpBuilder &fb, Location loc) {
            Lowering f{fb, loc};
            Value twice =
                arith::AddIOp::create(fb, loc, firstMoved, firstMoved);
            Value at = arith::AddIOp::create(
                fb, loc, twice, f.index(rt::SpecRowsLayout::kHeader));
            Value held = f.load(rowsBuffer, at);
            scf::YieldOp::create(fb, loc, ValueRange{f.toIndex(held)});
          },
          [&](OpBuilder &eb, Location loc) {
            scf::YieldOp::create(eb, loc,
                                 ValueRange{Lowering{eb, loc}.index(0)});
          });
      rows.forEachRequest(
          tb, loc, lengths, batch, /*tiers=*/nullptr,
          [&](OpBuilder &mb, Location loc, Value req, Value given, Value,
              Value, Value, Value, Value, Value first) {
            SpecRows::writeRow(mb, loc, rowsBuffer, req, first, given);
          },
          firstMoved, from.getResult(0));
      scf::YieldOp::create(tb, loc);
    });
    op.getUpdated().replaceAllUsesWith(updatable);
    op.getCount().replaceAllUsesWith(l.select(updatable, total, zero));
    op.erase();
    return;
  }

  // Pass 2: rewrite the rows that changed before the first move, and every
  // row from it on. With unbalanced chunks, no window and the same tier,
  // a row whose count stayed changes only in its last chunk (its size).
  const bool lastOnly = !balanced && !window;
  scf::IfOp::create(b, l.loc, updatable, [&](OpBuilder &tb, Location loc) {
    // (The tier only where a row is written.)
    rows.forEachRequest(
        tb, loc, lengths, batch, /*tiers=*/nullptr,
        [&](OpBuilder &rb, Location loc, Value req, Value now, Value start,
            Value len, Value len32, Value, Value n, Value first) {
          Lowering r{rb, loc};
          scf::IfOp::create(
              rb, loc, r.cmp(P::uge, req, firstMoved),
              [&](OpBuilder &mb, Location loc) {
                Lowering m{mb, loc};
                Value tier = buildSelectTier(mb, loc, tiers, len32);
                rows.writeChunks(mb, loc, req, start, len, tier, n, first,
                                 m.index(0));
                scf::YieldOp::create(mb, loc);
              },
              [&](OpBuilder &sb, Location loc) {
                Lowering s{sb, loc};
                Value then = s.load(planned, req);
                scf::IfOp::create(
                    sb, loc, s.cmp(P::ne, now, then),
                    [&](OpBuilder &cb, Location loc) {
                      Lowering c{cb, loc};
                      Value tier = buildSelectTier(cb, loc, tiers, len32);
                      Value from = c.index(0);
                      if (lastOnly) {
                        auto [ts, tl, thenLen32] =
                            rows.effective(cb, loc, then, /*clamp=*/true);
                        (void)ts;
                        (void)tl;
                        // (A row whose count stayed and length changed has
                        // n >= 1.)
                        Value sameTier =
                            c.cmp(P::eq, tier,
                                  buildSelectTier(cb, loc, tiers, thenLen32));
                        from = c.select(
                            sameTier,
                            arith::SubIOp::create(cb, loc, n, c.index(1)),
                            from);
                      }
                      rows.writeChunks(cb, loc, req, start, len, tier, n, first,
                                       from);
                      scf::YieldOp::create(cb, loc);
                    });
                scf::YieldOp::create(sb, loc);
              });
        });
    scf::YieldOp::create(tb, loc);
  });
  Value count = l.select(updatable, total, zero);
  op.getUpdated().replaceAllUsesWith(updatable);
  op.getCount().replaceAllUsesWith(count);
  op.erase();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The error for a static plan that failed with UNSUPPORTED_SIZE: names the
/// first constant length no tier covers.
static LogicalResult diagnoseUncoveredLength(GenerateOp op, TierConfigOp tiers,
                                             ArrayRef<int> lengths) {
  rt::TierList list = toTierList(tiers);
  for (auto [i, len] : llvm::enumerate(lengths))
    if (len > 0 && list.select_tier(len) < 0)
      return op.emitOpError()
             << "length " << len << " of sequence " << i
             << " is covered by no tier of @" << tiers.getSymName()
             << " (UNSUPPORTED_SIZE)";
  return op.emitOpError("UNSUPPORTED_SIZE");
}

namespace {
struct PlanPass : public wsp::impl::WspPlanBase<PlanPass> {
  using WspPlanBase::WspPlanBase;

  void runOnOperation() override;

private:
  LogicalResult planChunkSize(PlanChunkSizeOp op);
  LogicalResult planGenerate(GenerateOp op, SymbolTable &symbols);
  LogicalResult planBalancedStatically(GenerateOp op, TierConfigOp tiers,
                                       ArrayRef<int> lengths,
                                       ArrayRef<int> qLens, int heads,
                                       SymbolTable &symbols);
  LogicalResult loadStaticPlan(GenerateOp op,
                               ArrayRef<rt::WorkDescriptor> descriptors,
                               IntegerAttr chunk, DenseI32ArrayAttr cores,
                               DenseI32ArrayAttr merges, SymbolTable &symbols);
  unsigned tables = 0;
  uint64_t staticPlans = 0, staticDescriptors = 0, emitted = 0;
  /// Symbol lookups, cached for the run (runOnOperation's): one per plan
  /// op, without the cache a scan of the module each (quadratic in the
  /// number of workloads).
  SymbolTableCollection *symbolTables = nullptr;
};
} // namespace

LogicalResult PlanPass::planChunkSize(PlanChunkSizeOp op) {
  std::optional<SmallVector<int>> lengths =
      getConstantLengths(op.getLengths(), *symbolTables);
  std::optional<int64_t> batch = getConstantInt(op.getBatch());
  std::optional<int64_t> heads = getConstantInt(op.getHeads());
  std::optional<int64_t> queries =
      op.getQueries() ? getConstantInt(op.getQueries()) : 0;
  if (staticPlanning && lengths && batch && heads && queries) {
    FailureOr<SmallVector<int>> used = takeLengths(op, *lengths, *batch);
    if (failed(used))
      return failure();
    if (op.getWindowAttr())
      for (int &len : *used)
        len -= windowStart(len, *queries, op.getWindowAttr().getInt());
    const int chunk = planChunkSizeStatically(op.getConfig(), *used,
                                              static_cast<int>(*heads));
    if (chunk == 0)
      return op.emitOpError()
             << "cannot plan: a constant length is negative or the head "
                "count is < 1 (INVALID_PARAMS)";
    OpBuilder b(op);
    op.replaceAllUsesWith(
        arith::ConstantIndexOp::create(b, op.getLoc(), chunk).getResult());
    op.erase();
    ++staticPlans;
    return success();
  }
  Value chunk = lowerPlanChunkSize(op);
  op.replaceAllUsesWith(chunk);
  op.erase();
  ++emitted;
  return success();
}

LogicalResult PlanPass::planGenerate(GenerateOp op, SymbolTable &symbols) {
  auto tiers = symbolTables->lookupNearestSymbolFrom<TierConfigOp>(
      op, op.getTiersAttr());
  std::optional<SmallVector<int>> lengths =
      getConstantLengths(op.getLengths(), *symbolTables);
  std::optional<int64_t> batch = getConstantInt(op.getBatch());
  std::optional<int64_t> heads = getConstantInt(op.getHeads());
  const bool balanced = op.getConfig().isBalanced();
  std::optional<int64_t> chunk =
      balanced ? std::optional<int64_t>(0) : getConstantInt(op.getChunk());
  std::optional<int64_t> queries =
      op.getQueries() ? getConstantInt(op.getQueries()) : 0;

  // Balanced query lengths, when given, must be constants too.
  std::optional<SmallVector<int>> qLens =
      op.getQLens() ? getConstantLengths(op.getQLens(), *symbolTables)
                    : std::optional<SmallVector<int>>(SmallVector<int>());
  // (A plan as rows is for a plan kept and updated at run time: it is
  // always lowered.)
  if (staticPlanning && lengths && batch && heads && chunk && queries &&
      qLens && !op.getRows()) {
    FailureOr<SmallVector<int>> used = takeLengths(op, *lengths, *batch);
    if (failed(used))
      return failure();
    if (balanced) {
      if (!qLens->empty() && static_cast<int64_t>(qLens->size()) < *batch)
        return op.emitOpError()
               << "q_lens holds " << qLens->size() << " entries for a batch "
               << "of " << *batch << " (INVALID_PARAMS)";
      return planBalancedStatically(op, tiers, *used, *qLens,
                                    static_cast<int>(*heads), symbols);
    }
    // A sliding window plans each request's window only: the runtime's plan
    // of the effective lengths, shifted to the window's start.
    SmallVector<int> starts(used->size(), 0);
    if (op.getWindowAttr())
      for (auto [len, start] : llvm::zip(*used, starts)) {
        start = windowStart(len, *queries, op.getWindowAttr().getInt());
        len -= start;
      }
    FailureOr<StaticPlan> plan =
        planStatically(op.getPattern(), tiers, op.getConfig(), *used,
                       static_cast<int>(*heads), static_cast<int>(*chunk));
    if (failed(plan))
      return op.emitOpError("has no static planner for its pattern");
    switch (plan->result) {
    case rt::PlanResult::OK:
      break;
    case rt::PlanResult::UNSUPPORTED_SIZE:
      return diagnoseUncoveredLength(op, tiers, *used);
    default:
      return op.emitOpError()
             << "cannot plan: a constant length is negative, or the head "
                "count or chunk is < 1 (INVALID_PARAMS)";
    }
    for (pto::runtime::WorkDescriptor &d : plan->descriptors)
      d.params[2] += starts[d.params[0]]; // attention: params[0] = request
    return loadStaticPlan(op, plan->descriptors,
                          Builder(op.getContext()).getI64IntegerAttr(*chunk),
                          {}, {}, symbols);
  }

  // Dynamic: check the declared bounds, record reachable tiers, lower.
  int64_t lo = 1, hi = INT32_MAX;
  if (op.getMinLengthAttr()) {
    lo = op.getMinLengthAttr().getInt();
    hi = op.getMaxLengthAttr().getInt();
    auto gaps = tiers.getUncoveredRanges(lo, hi);
    if (gaps.size() == 1 && gaps[0] == std::make_pair(lo, hi))
      return op.emitOpError()
             << "no tier of @" << tiers.getSymName()
             << " covers any length in [" << lo << ", " << hi
             << "]: generation would always fail with UNSUPPORTED_SIZE";
    for (auto [glo, ghi] : gaps)
      op.emitWarning() << "lengths in [" << glo << ", " << ghi
                       << "] are covered by no tier of @" << tiers.getSymName()
                       << " (UNSUPPORTED_SIZE at run "
                       << "time)";
  }
  recordReachableTiers(op.getBuffer(), tiers.getReachableTiers(lo, hi));
  if (balanced) {
    // The runtime's balanced planner, called from the AICPU function.
    OpBuilder b(op);
    auto call = PlanBalancedOp::create(
        b, op.getLoc(), op.getLengths(), op.getBatch(), op.getHeads(),
        op.getTiersAttr(), op.getConfig(), op.getBuffer(), op.getCoreIndptr(),
        op.getMergeIndptr(), op.getCuts(), op.getQLens());
    op.replaceAllUsesWith(call.getResults());
    op.erase();
  } else {
    lowerGenerate(op, tiers);
  }
  ++emitted;
  return success();
}

LogicalResult PlanPass::planBalancedStatically(GenerateOp op,
                                               TierConfigOp tiers,
                                               ArrayRef<int> lengths,
                                               ArrayRef<int> qLens, int heads,
                                               SymbolTable &symbols) {
  rt::BalancedPlan plan;
  rt::PlanResult result = rt::plan_balanced(
      lengths.data(), static_cast<int>(lengths.size()), heads,
      toBalancedConfig(op.getConfig()), toTierList(tiers), &plan,
      qLens.empty() ? nullptr : qLens.data());
  if (result == rt::PlanResult::UNSUPPORTED_SIZE)
    return diagnoseUncoveredLength(op, tiers, lengths);
  if (result != rt::PlanResult::OK)
    return op.emitOpError()
           << "cannot plan: a constant length is negative, a query length "
              "is < 1, or the batch or head count is < 1 (INVALID_PARAMS)";
  plan.descriptors.resize(plan.count);
  Builder b(op.getContext());
  if (!op.getMergeIndptr()) {
    // The plan as cuts, planned here: the whole plan is loaded, so the
    // dispatches that would expand it on the cores run it as it is (the
    // cuts are not written).
    for (OpOperand &use : llvm::make_early_inc_range(op.getCount().getUses()))
      if (auto dispatch = dyn_cast<DispatchOp>(use.getOwner()))
        if (dispatch.getCuts() == op.getCuts())
          dispatch.getCutsMutable().clear();
    return loadStaticPlan(op, plan.descriptors, {},
                          b.getDenseI32ArrayAttr(plan.core_indptr), {},
                          symbols);
  }
  auto mergeType = cast<MemRefType>(op.getMergeIndptr().getType());
  if (!mergeType.isDynamicDim(0) && mergeType.getDimSize(0) < plan.rows + 1)
    return op.emitOpError()
           << "the plan has " << plan.rows << " rows but the 'merges' buffer "
           << "holds " << mergeType.getDimSize(0) << " entries, not "
           << plan.rows + 1 << " (BUFFER_OVERFLOW)";
  return loadStaticPlan(op, plan.descriptors, {},
                        b.getDenseI32ArrayAttr(plan.core_indptr),
                        b.getDenseI32ArrayAttr(plan.merge_indptr), symbols);
}

/// Replaces `op` by a load of its compile-time plan, kept in a new
/// wsp.descriptor_table.
LogicalResult PlanPass::loadStaticPlan(GenerateOp op,
                                       ArrayRef<rt::WorkDescriptor> descriptors,
                                       IntegerAttr chunk,
                                       DenseI32ArrayAttr cores,
                                       DenseI32ArrayAttr merges,
                                       SymbolTable &symbols) {
  const int64_t count = descriptors.size();
  auto bufferType = cast<MemRefType>(op.getBuffer().getType());
  if (!bufferType.isDynamicDim(0) && bufferType.getDimSize(0) < count)
    return op.emitOpError()
           << "the plan has " << count << " descriptors but the buffer "
           << "holds " << bufferType.getDimSize(0) << " (BUFFER_OVERFLOW)";

  // The table, one row per descriptor.
  SmallVector<int32_t> rows;
  llvm::SmallSetVector<int64_t, 8> used_tiers;
  for (const rt::WorkDescriptor &d : descriptors) {
    rows.append({static_cast<int32_t>(d.work_id), d.tier, d.flags,
                 static_cast<int32_t>(d.params[0]),
                 static_cast<int32_t>(d.params[1]),
                 static_cast<int32_t>(d.params[2]),
                 static_cast<int32_t>(d.params[3])});
    used_tiers.insert(d.tier);
  }
  MLIRContext *ctx = op.getContext();
  auto tableType = RankedTensorType::get({count, DescriptorTableOp::kColumns},
                                         IntegerType::get(ctx, 32));
  OpBuilder b(ctx);
  b.setInsertionPointToStart(getOperation().getBody());
  auto table = DescriptorTableOp::create(
      b, op.getLoc(), b.getStringAttr("__wsp_plan_" + std::to_string(tables++)),
      TypeAttr::get(bufferType.getElementType()), chunk, cores, merges,
      DenseIntElementsAttr::get(tableType, ArrayRef<int32_t>(rows)));
  symbols.insert(table); // renames on a clash
  b.setInsertionPoint(op);
  auto load = LoadDescriptorsOp::create(
      b, op.getLoc(), FlatSymbolRefAttr::get(table.getSymNameAttr()),
      op.getBuffer(), op.getCoreIndptr(), op.getMergeIndptr());
  SmallVector<int64_t> reachable(used_tiers.begin(), used_tiers.end());
  llvm::sort(reachable);
  recordReachableTiers(op.getBuffer(), reachable);
  op.replaceAllUsesWith(load.getResults());
  op.erase();
  ++staticPlans;
  staticDescriptors += count;
  return success();
}

void PlanPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  SymbolTableCollection lookups;
  symbolTables = &lookups;
  llvm::scope_exit forget([&] { symbolTables = nullptr; });
  bool failed_ = false;
  // Chunk sizes first: a static chunk lets the generation it feeds be static.
  SmallVector<PlanChunkSizeOp> chunkOps;
  module.walk([&](PlanChunkSizeOp op) { chunkOps.push_back(op); });
  for (PlanChunkSizeOp op : chunkOps)
    failed_ |= failed(planChunkSize(op));
  SmallVector<GenerateOp> generateOps;
  module.walk([&](GenerateOp op) { generateOps.push_back(op); });
  for (GenerateOp op : generateOps)
    failed_ |= failed(planGenerate(op, symbols));
  SmallVector<UpdatePlanOp> updateOps;
  module.walk([&](UpdatePlanOp op) { updateOps.push_back(op); });
  for (UpdatePlanOp op : updateOps) {
    lowerUpdatePlan(op, symbolTables->lookupNearestSymbolFrom<TierConfigOp>(
                            op, op.getTiersAttr()));
    ++emitted;
  }
  // User-written tier selections become compare chains too.
  SmallVector<SelectTierOp> selects;
  module.walk([&](SelectTierOp op) { selects.push_back(op); });
  for (SelectTierOp op : selects) {
    auto config = symbolTables->lookupNearestSymbolFrom<TierConfigOp>(
        op, op.getConfigAttr());
    OpBuilder b(op);
    Value length = op.getLength();
    if (isa<IndexType>(length.getType()))
      length =
          arith::IndexCastOp::create(b, op.getLoc(), b.getI64Type(), length);
    op.replaceAllUsesWith(buildSelectTier(b, op.getLoc(), config, length));
    op.erase();
  }
  if (failed_)
    return signalPassFailure();
  numStaticPlans += staticPlans;
  numStaticDescriptors += staticDescriptors;
  numPlannersEmitted += emitted;
  if (report)
    module.emitRemark() << "wsp-plan: " << staticPlans
                        << " planning ops planned at compile time ("
                        << staticDescriptors << " descriptors), " << emitted
                        << " lowered to AICPU code";
}
