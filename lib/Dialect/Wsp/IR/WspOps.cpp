//===- WspOps.cpp - wsp operations ----------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Support/RankGroups.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <pto/runtime/hardware.hpp>
#include <pto/runtime/spec_rows.hpp>

#include <algorithm>
#include <limits>
#include <tuple>

using namespace mlir;
using namespace mlir::wsp;

//===----------------------------------------------------------------------===//
// Iteration spaces
//===----------------------------------------------------------------------===//

/// What is known of dimension `dim` of `space`: its static size, the SSA
/// value that set it (through wsp.space / wsp.set_dim), or nothing.
OpFoldResult mlir::wsp::getSpaceDimSize(Value space, unsigned dim) {
  auto type = cast<SpaceType>(space.getType());
  if (!type.isDynamicDim(dim))
    return IntegerAttr::get(IndexType::get(space.getContext()),
                            type.getSizes()[dim]);
  while (true) {
    if (auto set = space.getDefiningOp<SetDimOp>()) {
      if (set.getDim() == dim)
        return set.getSize();
      space = set.getSpace();
      continue;
    }
    if (auto make = space.getDefiningOp<SpaceOp>())
      return make.getDynamicSize(dim);
    return {};
  }
}

/// The size of `dim` as a constant, if known.
static std::optional<int64_t> getConstantDim(Value space, unsigned dim) {
  OpFoldResult size = getSpaceDimSize(space, dim);
  if (!size)
    return std::nullopt;
  if (auto attr = dyn_cast<Attribute>(size))
    return cast<IntegerAttr>(attr).getInt();
  APInt value;
  if (matchPattern(cast<Value>(size), m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// All sizes of `space` as constants, if known.
static std::optional<SmallVector<int64_t>> getConstantDims(Value space) {
  SmallVector<int64_t> sizes;
  for (unsigned i = 0, e = cast<SpaceType>(space.getType()).getRank(); i < e;
       ++i) {
    std::optional<int64_t> size = getConstantDim(space, i);
    if (!size)
      return std::nullopt;
    sizes.push_back(*size);
  }
  return sizes;
}

static LogicalResult verifyDimIndex(Operation *op, SpaceType type,
                                    int64_t dim) {
  if (dim < 0 || dim >= static_cast<int64_t>(type.getRank()))
    return op->emitOpError() << "dimension " << dim << " is out of range for "
                             << type << " (rank " << type.getRank() << ")";
  return success();
}

Value SpaceOp::getDynamicSize(unsigned i) {
  return getDynamicSizes()[getType().getDynamicDimIndex(i)];
}

LogicalResult SpaceOp::verify() {
  SpaceType type = getType();
  if (getDynamicSizes().size() != type.getNumDynamicDims())
    return emitOpError() << type << " has " << type.getNumDynamicDims()
                         << " dynamic dimensions but "
                         << getDynamicSizes().size() << " sizes were given";
  return success();
}

LogicalResult SetDimOp::verify() {
  SpaceType type = getSpace().getType();
  if (failed(verifyDimIndex(*this, type, getDimAttr().getInt())))
    return failure();
  if (!type.isDynamicDim(getDim()))
    return emitOpError() << "dimension " << getDim() << " of " << type
                         << " is static; only dynamic dimensions can be set";
  return success();
}

namespace {
/// set_dim(space(a, b), d, v) -> space(a', b') with the size replaced;
/// set_dim(set_dim(s, d, u), d, v) -> set_dim(s, d, v).
struct FoldSetDim : OpRewritePattern<SetDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SetDimOp op,
                                PatternRewriter &rewriter) const override {
    unsigned dim = op.getDim();
    if (auto make = op.getSpace().getDefiningOp<SpaceOp>()) {
      SmallVector<Value> sizes(make.getDynamicSizes());
      sizes[op.getType().getDynamicDimIndex(dim)] = op.getSize();
      rewriter.replaceOpWithNewOp<SpaceOp>(op, op.getType(), sizes);
      return success();
    }
    if (auto inner = op.getSpace().getDefiningOp<SetDimOp>();
        inner && inner.getDim() == dim) {
      rewriter.modifyOpInPlace(
          op, [&] { op.getSpaceMutable().assign(inner.getSpace()); });
      return success();
    }
    return failure();
  }
};
} // namespace

void SetDimOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<FoldSetDim>(context);
}

LogicalResult GetDimOp::verify() {
  return verifyDimIndex(*this, getSpace().getType(), getDimAttr().getInt());
}

OpFoldResult GetDimOp::fold(FoldAdaptor) {
  return getSpaceDimSize(getSpace(), getDim());
}

OpFoldResult TotalWorkOp::fold(FoldAdaptor) {
  std::optional<SmallVector<int64_t>> sizes = getConstantDims(getSpace());
  if (!sizes)
    return {};
  int64_t total = 1;
  for (int64_t size : *sizes)
    total *= size;
  return IntegerAttr::get(IndexType::get(getContext()), total);
}

LogicalResult
IndexToCoordsOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                                  ValueRange operands, DictionaryAttr,
                                  OpaqueProperties, RegionRange,
                                  SmallVectorImpl<Type> &inferred) {
  auto space = dyn_cast<SpaceType>(operands[0].getType());
  if (!space)
    return failure();
  inferred.assign(space.getRank(), IndexType::get(context));
  return success();
}

LogicalResult IndexToCoordsOp::verify() {
  unsigned rank = getSpace().getType().getRank();
  if (getCoords().size() != rank)
    return emitOpError() << "expects one coordinate per dimension (" << rank
                         << "), got " << getCoords().size();
  return success();
}

LogicalResult IndexToCoordsOp::fold(FoldAdaptor adaptor,
                                    SmallVectorImpl<OpFoldResult> &results) {
  auto index = dyn_cast_if_present<IntegerAttr>(adaptor.getIndex());
  std::optional<SmallVector<int64_t>> sizes = getConstantDims(getSpace());
  if (!index || !sizes)
    return failure();
  int64_t total = 1;
  for (int64_t size : *sizes)
    total *= size;
  int64_t linear = index.getInt();
  if (linear < 0 || linear >= total) // out of the space: leave it alone
    return failure();
  Type indexType = IndexType::get(getContext());
  for (int64_t size : *sizes) { // dimension 0 varies fastest
    results.push_back(IntegerAttr::get(indexType, linear % size));
    linear /= size;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Tiers
//===----------------------------------------------------------------------===//

SmallVector<TierAttr> TierConfigOp::getTierList() {
  return llvm::to_vector(getTiers().getAsRange<TierAttr>());
}

int64_t TierConfigOp::selectTier(int64_t size) {
  for (TierAttr tier : getTiers().getAsRange<TierAttr>())
    if (tier.matches(size))
      return tier.getId();
  return -1;
}

std::optional<unsigned> TierConfigOp::getTierIndex(int64_t id) {
  for (auto [index, tier] : llvm::enumerate(getTierList()))
    if (tier.getId() == id)
      return index;
  return std::nullopt;
}

using Range = std::pair<int64_t, int64_t>;

/// The parts of [lo, hi] not covered by the union of `ranges` (inclusive).
static SmallVector<Range> uncovered(int64_t lo, int64_t hi,
                                    SmallVector<Range> ranges) {
  llvm::sort(ranges);
  SmallVector<Range> gaps;
  int64_t next = lo; // smallest value of [lo, hi] not yet accounted for
  for (auto [rlo, rhi] : ranges) {
    if (next > hi)
      break;
    if (rlo > next)
      gaps.emplace_back(next, std::min(rlo - 1, hi));
    next = std::max(next, rhi + 1);
  }
  if (next <= hi)
    gaps.emplace_back(next, hi);
  return gaps;
}

SmallVector<Range> TierConfigOp::getUncoveredRanges(int64_t lo, int64_t hi) {
  SmallVector<Range> ranges =
      llvm::map_to_vector(getTierList(), [](TierAttr t) {
        return Range(t.getMinSize(), t.getMaxSize());
      });
  return uncovered(lo, hi, ranges);
}

SmallVector<int64_t> TierConfigOp::getReachableTiers(int64_t lo, int64_t hi) {
  SmallVector<int64_t> reachable;
  SmallVector<Range> earlier;
  for (TierAttr tier : getTierList()) {
    // The lengths this tier selects are its range within [lo, hi] minus
    // everything the tiers before it already took.
    int64_t tlo = std::max(lo, tier.getMinSize());
    int64_t thi = std::min(hi, tier.getMaxSize());
    if (tlo <= thi && !uncovered(tlo, thi, earlier).empty())
      reachable.push_back(tier.getId());
    earlier.emplace_back(tier.getMinSize(), tier.getMaxSize());
  }
  return reachable;
}

LogicalResult TierConfigOp::verify() {
  SmallVector<TierAttr> tiers = getTierList();
  if (tiers.empty())
    return emitOpError("must have at least one tier");

  llvm::DenseMap<int64_t, unsigned> firstIndexOfId;
  SmallVector<Range> earlier;
  for (auto [index, tier] : llvm::enumerate(tiers)) {
    auto [it, inserted] = firstIndexOfId.try_emplace(tier.getId(), index);
    if (!inserted)
      return emitOpError() << "tier id " << tier.getId()
                           << " is used by tiers #" << it->second << " and #"
                           << index;
    if (uncovered(tier.getMinSize(), tier.getMaxSize(), earlier).empty())
      return emitOpError() << "tier " << tier.getId() << " (#" << index
                           << ", sizes [" << tier.getMinSize() << ", "
                           << tier.getMaxSize()
                           << "]) is fully shadowed by earlier tiers and can "
                              "never be selected";
    earlier.emplace_back(tier.getMinSize(), tier.getMaxSize());
  }
  return success();
}

/// The tier configuration `name` as seen from `from`, for the folders,
/// which have no symbol table at hand: a lookup in a module scans its ops
/// from the start, once per fold, which made folding the kernels of a large
/// module quadratic. A configuration is defined a few ops before the
/// kernels and functions that use it (a kernel's tier clones follow the
/// kernel), so the ops just before `from`'s own are looked at first;
/// symbol names are unique, so what is found there is what the lookup
/// finds.
static TierConfigOp lookupTierConfigNear(Operation *from,
                                         FlatSymbolRefAttr name) {
  constexpr int kNear = 32;
  if (Operation *table = SymbolTable::getNearestSymbolTable(from);
      table && table != from && table->getNumRegions() == 1 &&
      table->getRegion(0).hasOneBlock()) {
    Block *body = &table->getRegion(0).front();
    if (Operation *top = body->findAncestorOpInBlock(*from)) {
      int looked = 0;
      for (Operation *op = top; op && looked < kNear;
           op = op->getPrevNode(), ++looked)
        if (auto sym =
                op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
            sym && sym == name.getAttr())
          return dyn_cast<TierConfigOp>(op);
    }
  }
  return SymbolTable::lookupNearestSymbolFrom<TierConfigOp>(from, name);
}

/// Resolves `name` from `op` to a wsp.tier_config, or emits an error.
static FailureOr<TierConfigOp> lookupTierConfig(Operation *op,
                                                SymbolTableCollection &tables,
                                                FlatSymbolRefAttr name) {
  auto config = tables.lookupNearestSymbolFrom<TierConfigOp>(op, name);
  if (!config)
    return op->emitOpError() << "'" << name.getValue()
                             << "' does not reference a wsp.tier_config";
  return config;
}

LogicalResult SelectTierOp::verifySymbolUses(SymbolTableCollection &tables) {
  return lookupTierConfig(*this, tables, getConfigAttr());
}

OpFoldResult SelectTierOp::fold(FoldAdaptor adaptor) {
  auto length = dyn_cast_if_present<IntegerAttr>(adaptor.getLength());
  if (!length)
    return {};
  auto config = lookupTierConfigNear(*this, getConfigAttr());
  if (!config)
    return {};
  int64_t value = isa<IndexType>(getLength().getType())
                      ? length.getInt()
                      : length.getValue().getSExtValue();
  return IntegerAttr::get(getType(), config.selectTier(value));
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

/// The sliding-window planning clause: W >= 1.
static LogicalResult verifyPlanWindow(Operation *op, IntegerAttr window) {
  if (window && window.getInt() < 1)
    return op->emitOpError() << "window must be >= 1, got " << window.getInt();
  return success();
}

//===----------------------------------------------------------------------===//
// Run-time preconditions
//===----------------------------------------------------------------------===//

LogicalResult RequireOp::verify() {
  auto function = dyn_cast<FunctionOpInterface>((*this)->getParentOp());
  if (!function)
    return emitOpError("states a precondition of a planning function: it "
                       "belongs in the body of a func.func, not nested in ")
           << "'" << (*this)->getParentOp()->getName() << "'";
  ArrayRef<Type> results = function.getResultTypes();
  if (results.empty() || !results.front().isInteger(32))
    return emitOpError("belongs to a function whose first result is the i32 "
                       "status it returns INVALID_PARAMS in");
  if (!function.getFunctionBody().hasOneBlock())
    return emitOpError("belongs to a function of one block");
  // Checked first: nothing before it writes memory.
  for (Operation *op = (*this)->getPrevNode(); op; op = op->getPrevNode()) {
    if (isa<RequireOp>(op))
      continue;
    std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
        getEffectsRecursively(op);
    bool writes = !effects;
    for (const MemoryEffects::EffectInstance &e : effects ? *effects
                                                          : ArrayRef<MemoryEffects::EffectInstance>{})
      writes |= isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect());
    if (writes)
      return (emitOpError("is checked before anything is written, but '")
              << op->getName() << "' before it may write memory")
                 .attachNote(op->getLoc())
             << "here";
  }
  return success();
}

LogicalResult PlanChunkSizeOp::verify() {
  return verifyPlanWindow(*this, getWindowAttr());
}

/// A buffer of at least `needed` entries (when its size is static).
static LogicalResult verifyIndptrSize(Operation *op, Value buffer,
                                      StringRef what, int64_t needed) {
  int64_t size = cast<MemRefType>(buffer.getType()).getDimSize(0);
  if (!ShapedType::isDynamic(size) && size < needed)
    return op->emitOpError()
           << what << " buffer holds " << size << " entries; the plan needs "
           << needed << " (config.cores + 1)";
  return success();
}

/// What the balanced strategy asks of a planning op: attention descriptors,
/// a work-list buffer for config.cores + 1 entries, and either the merge
/// plan's buffer (the plan materialized) or the cuts' (4 i32 per core's
/// start, config.cores + 1 of them).
static LogicalResult verifyBalanced(Operation *op, PlanConfigAttr config,
                                    PatternAttr pattern, Value coreIndptr,
                                    Value mergeIndptr, Value cuts) {
  if (!pattern.isAttention())
    return op->emitOpError() << "plans balanced attention descriptors only, "
                                "not pattern '"
                             << pattern.getName().getValue() << "'";
  if (mergeIndptr && cuts)
    return op->emitOpError("takes 'merges' or 'cuts', not both: the plan as "
                           "cuts writes no merge plan (the cores expand the "
                           "descriptors)");
  if (!mergeIndptr && !cuts)
    return op->emitOpError("with the balanced strategy needs a 'merges' "
                           "buffer (the plan materialized) or a 'cuts' "
                           "buffer (the plan as cuts)");
  if (cuts) {
    int64_t size = cast<MemRefType>(cuts.getType()).getDimSize(0);
    int64_t needed = 4 * (config.getCores() + 1);
    if (!ShapedType::isDynamic(size) && size < needed)
      return op->emitOpError()
             << "'cuts' buffer holds " << size << " entries; the plan needs "
             << needed << " (4 per point, config.cores + 1 points)";
  }
  return verifyIndptrSize(op, coreIndptr, "'cores'", config.getCores() + 1);
}

/// The descriptors a plan of the spec strategy writes (`verb` them): the
/// spec's attention or moe ones, a sliding window for attention only.
static LogicalResult verifySpecDescriptors(Operation *op, PatternAttr pattern,
                                           IntegerAttr window, StringRef verb) {
  if (window && !pattern.isAttention())
    return op->emitOpError("plans a sliding window for attention descriptors "
                           "only");
  if (!pattern.isAttention() && !pattern.isMoE())
    return op->emitOpError()
           << verb << " the spec's attention or moe descriptors, not pattern '"
           << pattern.getName().getValue() << "'";
  return success();
}

/// A rows buffer (`wsp.generate ... rows`, `wsp.update_plan ... rows`) of a
/// static size holds the plan of `batch` requests when that is constant,
/// and of one at least.
static LogicalResult verifyRowsSize(Operation *op, Value rows, Value batch) {
  if (!rows)
    return success();
  int64_t size = cast<MemRefType>(rows.getType()).getDimSize(0);
  std::optional<int64_t> requests;
  APInt constant;
  if (batch && matchPattern(batch, m_ConstantInt(&constant)))
    requests = constant.getSExtValue();
  int64_t needed = pto::runtime::SpecRowsLayout::size(
      requests && *requests > 0 ? *requests : 1);
  if (!ShapedType::isDynamic(size) && size < needed)
    return op->emitOpError()
           << "'rows' buffer holds " << size << " entries; a plan of "
           << (requests && *requests > 0 ? *requests : 1)
           << " requests as rows needs " << needed << " (a header of "
           << static_cast<int64_t>(pto::runtime::SpecRowsLayout::kHeader)
           << ", then 2 per request and 1)";
  return success();
}

LogicalResult GenerateOp::verify() {
  if (failed(verifyPlanWindow(*this, getWindowAttr())))
    return failure();
  if (getConfig().isBalanced()) {
    if (getChunk())
      return emitOpError("plans with the balanced strategy, which has no "
                         "chunk operand");
    if (!getCoreIndptr())
      return emitOpError("with the balanced strategy needs a 'cores' buffer "
                         "for the work lists");
    if (getWindowAttr())
      return emitOpError("plans a sliding window with the spec strategy only");
    if (getRows())
      return emitOpError("plans as rows with the spec strategy only (a "
                         "balanced plan's cores expand its 'cuts')");
    return verifyBalanced(*this, getConfig(), getPattern(), getCoreIndptr(),
                          getMergeIndptr(), getCuts());
  }
  if (!getChunk())
    return emitOpError("with the spec strategy needs a 'chunk' operand");
  if (getCoreIndptr() || getMergeIndptr() || getCuts() || getQLens())
    return emitOpError("has 'cores', 'merges', 'cuts' and 'q_lens' buffers "
                       "only with the balanced strategy");
  if (failed(verifySpecDescriptors(*this, getPattern(), getWindowAttr(),
                                   "generates")))
    return failure();
  if (failed(verifyRowsSize(*this, getRows(), getBatch())))
    return failure();
  if (getMinLengthAttr() && getMaxLengthAttr()) {
    int64_t lo = getMinLengthAttr().getInt(), hi = getMaxLengthAttr().getInt();
    if (lo < 1 || hi < lo || hi > std::numeric_limits<int32_t>::max())
      return emitOpError() << "length bounds must satisfy 1 <= lo <= hi <= "
                              "2147483647, got ["
                           << lo << ", " << hi << "]";
  }
  return success();
}

LogicalResult GenerateOp::verifySymbolUses(SymbolTableCollection &tables) {
  return lookupTierConfig(*this, tables, getTiersAttr());
}

LogicalResult UpdatePlanOp::verify() {
  if (failed(verifyPlanWindow(*this, getWindowAttr())))
    return failure();
  if (getConfig().isBalanced())
    return emitOpError("updates plans of the spec strategy only (a balanced "
                       "plan is planned again whole)");
  if (static_cast<bool>(getWindowAttr()) != static_cast<bool>(getQueries()))
    return emitOpError("takes 'window' and 'queries' together");
  if (failed(verifyRowsSize(*this, getRows(), getBatch())))
    return failure();
  return verifySpecDescriptors(*this, getPattern(), getWindowAttr(), "updates");
}

LogicalResult UpdatePlanOp::verifySymbolUses(SymbolTableCollection &tables) {
  return lookupTierConfig(*this, tables, getTiersAttr());
}

LogicalResult PlanBalancedOp::verify() {
  if (!getConfig().isBalanced())
    return emitOpError("runs the balanced planner; its config must say "
                       "strategy = balanced");
  return verifyBalanced(
      *this, getConfig(),
      cast<DescriptorType>(getBuffer().getType().getElementType()).getPattern(),
      getCoreIndptr(), getMergeIndptr(), getCuts());
}

LogicalResult PlanBalancedOp::verifySymbolUses(SymbolTableCollection &tables) {
  return lookupTierConfig(*this, tables, getTiersAttr());
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::verify() {
  if ((*this)->getParentOfType<KernelOp>())
    return emitOpError("runs between kernels (on the host or the AICPU), "
                       "not inside a wsp.kernel");
  auto type = cast<MemRefType>(getBuffer().getType());
  Type elem = type.getElementType();
  if (!elem.isF32() && !elem.isBF16() && !elem.isSignlessInteger(32))
    return emitOpError("reduces f32, bf16 or i32 elements (the runtime's "
                       "all_reduce), not ")
           << elem;
  if (!type.getLayout().isIdentity())
    return emitOpError("needs a contiguous buffer (identity layout), not ")
           << type;
  switch (getReduction()) {
  case shard::ReductionKind::Sum:
  case shard::ReductionKind::Max:
  case shard::ReductionKind::Min:
    return success();
  default:
    return emitOpError("reduces by sum, max or min, not ")
           << shard::stringifyReductionKind(getReduction());
  }
}

/// The clauses the collectives along an axis share: outside kernels, two
/// distinct contiguous row-major buffers of one element type (whole bytes)
/// and one rank, and axes inside it.
static LogicalResult verifyAxisCollective(Operation *op, Value source,
                                          Value dest,
                                          ArrayRef<std::pair<StringRef, int64_t>>
                                              axes) {
  if (op->getParentOfType<KernelOp>())
    return op->emitOpError("runs between kernels (on the host or the "
                           "AICPU), not inside a wsp.kernel");
  if (source == dest)
    return op->emitOpError("needs a destination other than its source");
  auto from = cast<MemRefType>(source.getType());
  auto to = cast<MemRefType>(dest.getType());
  if (from.getElementType() != to.getElementType())
    return op->emitOpError("moves elements of one type, not ")
           << from.getElementType() << " into " << to.getElementType();
  Type elem = from.getElementType();
  if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8)
    return op->emitOpError("moves integers or floats of whole bytes, not ")
           << elem;
  if (from.getRank() != to.getRank() || from.getRank() == 0)
    return op->emitOpError("needs a source and a destination of one rank "
                           "(at least 1), not ")
           << from.getRank() << " and " << to.getRank();
  for (MemRefType t : {from, to})
    if (!t.areTrailingDimsContiguous(t.getRank()))
      return op->emitOpError("needs contiguous row-major buffers, not ") << t;
  for (auto [name, axis] : axes)
    if (axis >= from.getRank())
      return op->emitOpError() << name << " " << axis
                               << " is outside the buffers' " << from.getRank()
                               << " dimensions";
  return success();
}

/// The number of ranks of a collective's group (wsp/Support/RankGroups.h).
static FailureOr<std::optional<int64_t>>
groupRanks(CollectiveOpInterface collective, SymbolTableCollection &tables) {
  return rankGroupSize(collective, collective.getGridAttr(),
                       collective.getGridAxesAttr(), &tables);
}

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &tables) {
  return failure(failed(groupRanks(*this, tables)));
}

/// `big`'s size at `axis` against `small`'s (big = ranks x small), and the
/// other dimensions equal, where the sizes are static. `what` names the
/// relation in the message.
static LogicalResult verifyScaledAxis(Operation *op, MemRefType small,
                                      MemRefType big, int64_t axis,
                                      std::optional<int64_t> ranks,
                                      StringRef smallName, StringRef bigName) {
  for (int64_t d = 0; d < small.getRank(); ++d) {
    int64_t a = small.getDimSize(d), b = big.getDimSize(d);
    if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
      continue;
    if (d != axis && a != b)
      return op->emitOpError("needs equal sizes outside the axis; dimension ")
             << d << " is " << a << " in the " << smallName << " and " << b
             << " in the " << bigName;
    if (d == axis && ranks && a * *ranks != b)
      return op->emitOpError("needs the ")
             << bigName << "'s size at the axis (" << b << ") to be the "
             << *ranks << " ranks times the " << smallName << "'s (" << a
             << ")";
    if (d == axis && !ranks && (a == 0 ? b != 0 : b % a != 0))
      return op->emitOpError("needs the ")
             << bigName << "'s size at the axis (" << b
             << ") to be a multiple of the " << smallName << "'s (" << a
             << ")";
  }
  return success();
}

LogicalResult AllGatherOp::verify() {
  return verifyAxisCollective(*this, getSource(), getDest(),
                              {{"gather_axis", getGatherAxis()}});
}
LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<std::optional<int64_t>> ranks = groupRanks(*this, tables);
  if (failed(ranks))
    return failure();
  return verifyScaledAxis(*this, getSource().getType(), getDest().getType(),
                          getGatherAxis(), *ranks, "source", "destination");
}

LogicalResult AllSliceOp::verify() {
  return verifyAxisCollective(*this, getSource(), getDest(),
                              {{"slice_axis", getSliceAxis()}});
}
LogicalResult AllSliceOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<std::optional<int64_t>> ranks = groupRanks(*this, tables);
  if (failed(ranks))
    return failure();
  return verifyScaledAxis(*this, getDest().getType(), getSource().getType(),
                          getSliceAxis(), *ranks, "destination", "source");
}

LogicalResult AllToAllOp::verify() {
  return verifyAxisCollective(*this, getSource(), getDest(),
                              {{"split_axis", getSplitAxis()},
                               {"concat_axis", getConcatAxis()}});
}
LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<std::optional<int64_t>> ranks = groupRanks(*this, tables);
  if (failed(ranks))
    return failure();
  auto from = cast<MemRefType>(getSource().getType());
  auto to = cast<MemRefType>(getDest().getType());
  int64_t split = getSplitAxis(), concat = getConcatAxis();
  for (int64_t d = 0; d < from.getRank(); ++d) {
    int64_t a = from.getDimSize(d), b = to.getDimSize(d);
    if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
      continue;
    // The size a piece has on this dimension, on each side.
    bool isSplit = d == split, isConcat = d == concat;
    if (isSplit && *ranks && a % **ranks)
      return emitOpError("needs the source's size at the split axis (")
             << a << ") to divide by the " << **ranks << " ranks";
    int64_t want = a;
    if (*ranks) {
      want = isSplit ? a / **ranks : a;
      want = isConcat ? want * **ranks : want;
    } else if (isSplit != isConcat) {
      continue; // the ranks decide; the runtime checks
    }
    if (b != want)
      return emitOpError("needs a destination of size ")
             << want << " at dimension " << d << " (the source's " << a
             << (isSplit && !isConcat ? " / ranks"
                 : isConcat && !isSplit ? " x ranks"
                                        : "")
             << "), not " << b;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Step capture
//===----------------------------------------------------------------------===//

SmallVector<PatchAttr> StepOp::getPatchList() {
  return llvm::to_vector(getPatches().getAsRange<PatchAttr>());
}

/// What argument `arg` of `function` must be for a patch of `kind`, or a
/// description of why it is not.
static std::optional<std::string> patchTargetError(StepPatchKind kind,
                                                   Type type) {
  auto isI32 = [](Type t) { return t.isSignlessInteger(32); };
  switch (kind) {
  case StepPatchKind::position:
  case StepPatchKind::kv_seq_len:
  case StepPatchKind::pos_and_kv:
    if (auto integer = dyn_cast<IntegerType>(type); integer && !isI32(type))
      return "a " + std::to_string(integer.getWidth()) +
             "-bit integer: the patch writes 32 bits";
    if (!isI32(type))
      return std::string("not a scalar of the step's parameter block (an "
                         "i32 argument)");
    return std::nullopt;
  case StepPatchKind::token_offset:
  case StepPatchKind::argmax_output: {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || (memref.getRank() != 1 && memref.getRank() != 2) ||
        !isI32(memref.getElementType()))
      return std::string("not a token buffer (a memref of i32 token rows, "
                         "rank 1 or 2)");
    return std::nullopt;
  }
  case StepPatchKind::request_positions:
  case StepPatchKind::request_kv_lens: {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || memref.getRank() != 1 || !isI32(memref.getElementType()))
      return std::string("not one i32 per request (memref<?xi32>)");
    return std::nullopt;
  }
  }
  return std::string("not patchable");
}

LogicalResult StepOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto function = tables.lookupNearestSymbolFrom<FunctionOpInterface>(
      *this, getFunctionAttr());
  if (!function || isa<KernelOp>(function.getOperation()))
    return emitOpError() << "captures " << getFunctionAttr()
                         << ", which is not a function in scope";
  // The table is built from the function's body, at every stage.
  if (function.isExternal())
    return emitOpError() << "captures " << getFunctionAttr()
                         << ", which is not a function definition";
  ArrayRef<Type> inputs = function.getArgumentTypes();
  llvm::DenseMap<int64_t, unsigned> patchedBy;
  std::optional<int64_t> tokenRead, tokenWrite;
  for (auto [index, patch] : llvm::enumerate(getPatchList())) {
    SmallVector<int64_t, 2> args = {patch.getArg()};
    if (patch.getArg2())
      args.push_back(*patch.getArg2());
    for (int64_t arg : args) {
      auto diag = [&]() {
        return emitOpError() << "patch #" << index << " ("
                             << stringifyStepPatchKind(patch.getKind()) << ") ";
      };
      if (arg >= static_cast<int64_t>(inputs.size()))
        return diag() << "lands in argument " << arg << " but "
                      << getFunctionAttr() << " has " << inputs.size()
                      << " arguments";
      if (std::optional<std::string> error =
              patchTargetError(patch.getKind(), inputs[arg]))
        return diag() << "lands in argument " << arg << " of type "
                      << inputs[arg] << ", " << *error;
      auto [it, inserted] = patchedBy.try_emplace(arg, index);
      if (!inserted)
        return diag() << "patches argument " << arg << ", which patch #"
                      << it->second << " patches too";
    }
  }
  for (auto [index, patch] : llvm::enumerate(getPatchList())) {
    std::optional<int64_t> *slot =
        patch.getKind() == StepPatchKind::token_offset    ? &tokenRead
        : patch.getKind() == StepPatchKind::argmax_output ? &tokenWrite
                                                          : nullptr;
    if (!slot)
      continue;
    if (*slot)
      return emitOpError() << "patch #" << index << " is a second "
                           << stringifyStepPatchKind(patch.getKind())
                           << " patch";
    *slot = patch.getArg();
  }
  // A chained replay feeds each token's argmax into the next token's
  // embedding read: the caller binds the two one row apart in one token
  // buffer, so they are rows of one shape.
  if (tokenRead && tokenWrite && inputs[*tokenRead] != inputs[*tokenWrite])
    return emitOpError() << "argmax_output writes argument " << *tokenWrite
                         << " of type " << inputs[*tokenWrite]
                         << " but token_offset reads argument " << *tokenRead
                         << " of type " << inputs[*tokenRead]
                         << ": the two are rows of one token buffer, of one "
                            "type";
  // The calls the table replays with a variant (wsp.replay_with).
  WalkResult replayed = function->walk([&](CallOpInterface call) {
    auto variant =
        call->getAttrOfType<FlatSymbolRefAttr>(WspDialect::kReplayWithAttrName);
    return variant && failed(verifyReplayWith(call, variant, tables))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(replayed.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes))
    return failure();
  FlatSymbolRefAttr tiers;
  if (parser.parseKeyword("tiers") || parser.parseLParen() ||
      parser.parseAttribute(tiers, getTiersAttrName(result.name),
                            result.attributes) ||
      parser.parseRParen())
    return failure();
  if (succeeded(parser.parseOptionalKeyword("tier"))) {
    IntegerAttr tier;
    if (parser.parseLParen() ||
        parser.parseAttribute(tier, parser.getBuilder().getI64Type(),
                              getTierAttrName(result.name),
                              result.attributes) ||
        parser.parseRParen())
      return failure();
  }
  if (succeeded(parser.parseOptionalKeyword("constants"))) {
    DictionaryAttr constants;
    if (parser.parseAttribute(constants, getConstantsAttrName(result.name),
                              result.attributes))
      return failure();
  }
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  bool isVariadic = false;
  if (function_interface_impl::parseFunctionSignatureWithArguments(
          parser, /*allowVariadic=*/false, args, isVariadic, resultTypes,
          resultAttrs))
    return failure();
  SmallVector<Type> argTypes =
      llvm::map_to_vector(args, [](auto &arg) { return arg.type; });
  Builder &builder = parser.getBuilder();
  result.addAttribute(
      getFunctionTypeAttrName(result.name),
      TypeAttr::get(builder.getFunctionType(argTypes, resultTypes)));
  call_interface_impl::addArgAndResultAttrs(builder, result, args, resultAttrs,
                                            getArgAttrsAttrName(result.name),
                                            getResAttrsAttrName(result.name));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parser.parseRegion(*result.addRegion(), args);
}

void KernelOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << " tiers(" << getTiersAttr() << ")";
  if (isSpecialized())
    p << " tier(" << getTierAttr().getInt() << ")";
  if (!getConstants().empty()) {
    p << " constants ";
    p.printAttributeWithoutType(getConstants());
  }
  p << ' ';
  function_interface_impl::printFunctionSignature(
      p, *this, getArgumentTypes(), /*isVariadic=*/false, getResultTypes());
  function_interface_impl::printFunctionAttributes(
      p, *this,
      {getSymNameAttrName(), getTiersAttrName(), getTierAttrName(),
       getConstantsAttrName(), getFunctionTypeAttrName(), getArgAttrsAttrName(),
       getResAttrsAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

PatternAttr KernelOp::getPattern() {
  return cast<DescriptorType>(getArgumentTypes().front()).getPattern();
}

DenseI64ArrayAttr KernelOp::getTierConstant(StringRef name) {
  return dyn_cast_if_present<DenseI64ArrayAttr>(getConstants().get(name));
}

LogicalResult KernelOp::verify() {
  if (getArgumentTypes().empty() ||
      !isa<DescriptorType>(getArgumentTypes().front()))
    return emitOpError("first argument must be a !wsp.descriptor");
  if (!getResultTypes().empty())
    return emitOpError("must not return values; kernels write their buffers");
  for (NamedAttribute constant : getConstants())
    if (!isa<DenseI64ArrayAttr>(constant.getValue()))
      return emitOpError() << "tier constant '" << constant.getName().getValue()
                           << "' must be an array of integers, one per tier";
  return success();
}

LogicalResult KernelOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<TierConfigOp> config =
      lookupTierConfig(*this, tables, getTiersAttr());
  if (failed(config))
    return failure();
  if (isSpecialized() && !config->getTierIndex(getTierAttr().getInt()))
    return emitOpError() << "is specialized for tier " << getTierAttr().getInt()
                         << ", which @" << config->getSymName()
                         << " does not have";
  size_t numTiers = config->getTiers().size();
  for (NamedAttribute constant : getConstants()) {
    auto values = cast<DenseI64ArrayAttr>(constant.getValue());
    if (static_cast<size_t>(values.size()) != numTiers)
      return emitOpError() << "tier constant '" << constant.getName().getValue()
                           << "' has " << values.size() << " values but @"
                           << config->getSymName() << " has " << numTiers
                           << " tiers";
  }
  return success();
}

LogicalResult TierIdOp::verify() {
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError("must be inside a wsp.kernel");
  return success();
}

OpFoldResult TierIdOp::fold(FoldAdaptor) {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel || !kernel.isSpecialized())
    return {};
  return IntegerAttr::get(getType(), kernel.getTierAttr().getInt());
}

OpFoldResult TierConstantOp::fold(FoldAdaptor) {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel || !kernel.isSpecialized())
    return {};
  auto config = lookupTierConfigNear(kernel, kernel.getTiersAttr());
  DenseI64ArrayAttr values = kernel.getTierConstant(getName());
  if (!config || !values)
    return {};
  std::optional<unsigned> index =
      config.getTierIndex(kernel.getTierAttr().getInt());
  if (!index || *index >= values.size())
    return {};
  return IntegerAttr::get(getType(), values[*index]);
}

LogicalResult TierConstantOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return emitOpError("must be inside a wsp.kernel");
  if (!kernel.getTierConstant(getName()))
    return emitOpError() << "kernel @" << kernel.getSymName()
                         << " has no tier constant '" << getName() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Descriptor accessors
//===----------------------------------------------------------------------===//

static PatternAttr getPatternOf(Value descriptor) {
  return cast<DescriptorType>(descriptor.getType()).getPattern();
}

unsigned ParamOp::getParamIndex() {
  return *getPatternOf(getDescriptor()).getParamIndex(getName());
}

LogicalResult ParamOp::verify() {
  PatternAttr pattern = getPatternOf(getDescriptor());
  if (!pattern.getParamIndex(getName())) {
    InFlightDiagnostic diag =
        emitOpError() << "pattern '" << pattern.getName().getValue()
                      << "' has no param '" << getName() << "'; it has ";
    llvm::interleaveComma(pattern.getParams(), diag, [&](StringAttr p) {
      diag << "'" << p.getValue() << "'";
    });
    return diag;
  }
  return success();
}

LogicalResult KvEndOp::verify() {
  PatternAttr pattern = getPatternOf(getDescriptor());
  if (!pattern.isAttention())
    return emitOpError() << "needs an attention descriptor, got pattern '"
                         << pattern.getName().getValue() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

/// Cores (blocks, for mix) of a kind on the device.
static int64_t getDeviceCores(CoreKind kind) {
  return kind == CoreKind::vector ? pto::runtime::kNumVectorCores
                                  : pto::runtime::kNumCubeCores;
}

LogicalResult DispatchOp::verify() {
  int64_t available = getDeviceCores(getCoreKind());
  int64_t cores = getNumCoresAttr().getInt(); // the getter is unsigned
  if (cores < 1 || cores > available)
    return emitOpError() << "needs 1 to " << available << " "
                         << stringifyCoreKind(getCoreKind()) << " cores, got "
                         << cores;
  if (getCoreIndptr()) {
    if (getRowAffine())
      return emitOpError("is either row_affine or persistent, not both");
    int64_t size = getCoreIndptr().getType().getDimSize(0);
    if (!ShapedType::isDynamic(size) && size < cores + 1)
      return emitOpError() << "persistent work lists hold " << size
                           << " entries; " << cores << " cores need "
                           << cores + 1;
  }
  if (getRows()) {
    if (getCuts())
      return emitOpError("expands cuts or rows, not both");
    if (getCoreIndptr())
      return emitOpError("expands a plan as rows on a grid or row_affine "
                         "dispatch, not a persistent one (a balanced plan's "
                         "work lists come with its 'cuts')");
    if (failed(verifyRowsSize(*this, getRows(), Value())))
      return failure();
  }
  if (getCuts()) {
    if (!getCoreIndptr())
      return emitOpError("expands a plan's cuts on the cores that run its "
                         "work lists: 'expand' needs 'persistent'");
    Operation *plan = getSweepPlan();
    if (!plan)
      return emitOpError("expands cuts, so its count must be the result of "
                         "the balanced wsp.generate or wsp.plan_balanced "
                         "that wrote them, its descriptor buffer and its "
                         "work lists");
    int64_t planned = isa<GenerateOp>(plan)
                          ? cast<GenerateOp>(plan).getConfig().getCores()
                          : cast<PlanBalancedOp>(plan).getConfig().getCores();
    if (planned != cores)
      return emitOpError() << "expands a plan for " << planned
                           << " cores on " << cores;
  }
  return success();
}

Operation *DispatchOp::getSweepPlan() {
  if (!getCuts())
    return nullptr;
  Operation *def = getCount().getDefiningOp();
  if (auto generate = dyn_cast_if_present<GenerateOp>(def))
    if (generate.getCuts() == getCuts() &&
        generate.getCoreIndptr() == getCoreIndptr() &&
        generate.getBuffer() == getDescriptors())
      return def;
  if (auto plan = dyn_cast_if_present<PlanBalancedOp>(def))
    if (plan.getCuts() == getCuts() &&
        plan.getCoreIndptr() == getCoreIndptr() &&
        plan.getBuffer() == getDescriptors())
      return def;
  return nullptr;
}

LogicalResult DispatchOp::verifySymbolUses(SymbolTableCollection &tables) {
  Operation *target = tables.lookupNearestSymbolFrom(*this, getKernelAttr());
  KernelOp kernel = dyn_cast_if_present<KernelOp>(target);
  if (auto table = dyn_cast_if_present<KernelTableOp>(target))
    kernel =
        tables.lookupNearestSymbolFrom<KernelOp>(table, table.getKernel(0));
  if (!kernel)
    return emitOpError() << "'" << getKernel()
                         << "' does not reference a wsp.kernel or "
                            "wsp.kernel_table";
  if (getReachableTiersAttr()) {
    auto config = tables.lookupNearestSymbolFrom<TierConfigOp>(
        kernel, kernel.getTiersAttr());
    for (int64_t id : getReachableTiersAttr().asArrayRef())
      if (config && !config.getTierIndex(id))
        return emitOpError() << "reachable tier " << id << " is not a tier of @"
                             << config.getSymName();
  }
  ArrayRef<Type> params = kernel.getArgumentTypes().drop_front();
  if (params.size() != getArgs().size())
    return emitOpError() << "kernel @" << getKernel() << " takes "
                         << params.size()
                         << " arguments after the descriptor, got "
                         << getArgs().size();
  for (auto [i, param, arg] : llvm::enumerate(params, getArgs()))
    if (param != arg.getType())
      return emitOpError() << "argument " << i << " has type " << arg.getType()
                           << " but kernel @" << getKernel() << " expects "
                           << param;
  if (Operation *plan = getSweepPlan()) {
    FlatSymbolRefAttr tiers = isa<GenerateOp>(plan)
                                  ? cast<GenerateOp>(plan).getTiersAttr()
                                  : cast<PlanBalancedOp>(plan).getTiersAttr();
    if (tiers != kernel.getTiersAttr())
      return emitOpError() << "expands descriptors tiered by " << tiers
                           << " on kernel @" << getKernel()
                           << ", whose tiers are " << kernel.getTiersAttr();
  }
  PatternAttr bufferPattern =
      cast<DescriptorType>(getDescriptors().getType().getElementType())
          .getPattern();
  if (bufferPattern != kernel.getPattern())
    return emitOpError() << "descriptors of pattern '"
                         << bufferPattern.getName().getValue()
                         << "' cannot run kernel @" << getKernel()
                         << " of pattern '"
                         << kernel.getPattern().getName().getValue() << "'";
  return success();
}

void DispatchOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getDescriptorsMutable());
  for (OpOperand &lists : getCoreIndptrMutable())
    effects.emplace_back(MemoryEffects::Read::get(), &lists);
  // Expanding cuts: the cores write the descriptors first.
  for (OpOperand &cuts : getCutsMutable()) {
    effects.emplace_back(MemoryEffects::Read::get(), &cuts);
    effects.emplace_back(MemoryEffects::Write::get(), &getDescriptorsMutable());
  }
  // Expanding rows: likewise.
  for (OpOperand &rows : getRowsMutable()) {
    effects.emplace_back(MemoryEffects::Read::get(), &rows);
    effects.emplace_back(MemoryEffects::Write::get(), &getDescriptorsMutable());
  }
  // A launch is never dead code, whatever its arguments.
  effects.emplace_back(MemoryEffects::Write::get());
  // A kernel may read and write any buffer it is given.
  for (OpOperand &arg : getArgsMutable())
    if (isa<BaseMemRefType>(arg.get().getType())) {
      effects.emplace_back(MemoryEffects::Read::get(), &arg);
      effects.emplace_back(MemoryEffects::Write::get(), &arg);
    }
}

LogicalResult MpmdOp::verifyRegions() {
  int64_t used[2] = {0, 0};
  unsigned groups = 0;
  for (Operation &op : getBody().front()) {
    auto dispatch = dyn_cast<DispatchOp>(op);
    if (!dispatch)
      return op.emitOpError("is not allowed in wsp.mpmd; its body holds one "
                            "wsp.dispatch per core group");
    int64_t n = dispatch.getNumCoresAttr().getInt();
    switch (dispatch.getCoreKind()) {
    case CoreKind::cube:
      used[0] += n;
      break;
    case CoreKind::vector:
      used[1] += n;
      break;
    case CoreKind::mix: // a block takes a cube core and its vector cores
      used[0] += n;
      used[1] += n * pto::runtime::kVectorCoresPerBlock;
      break;
    }
    ++groups;
  }
  if (groups < 2)
    return emitOpError("needs at least two core groups; a single group is a "
                       "plain wsp.dispatch (SPMD)");
  for (CoreKind kind : {CoreKind::cube, CoreKind::vector}) {
    int64_t n = used[static_cast<int>(kind)];
    if (n > getDeviceCores(kind))
      return emitOpError() << "core groups use " << n << " "
                           << stringifyCoreKind(kind)
                           << " cores; the device has " << getDeviceCores(kind);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Planned forms
//===----------------------------------------------------------------------===//

LogicalResult MakeDescriptorOp::verify() {
  PatternAttr pattern = getType().getPattern();
  if (getParams().size() != pattern.getParams().size())
    return emitOpError() << "pattern '" << pattern.getName().getValue()
                         << "' has " << pattern.getParams().size()
                         << " params, got " << getParams().size();
  return success();
}

LogicalResult DescriptorTableOp::verify() {
  auto type = cast<ShapedType>(getTable().getType());
  if (type.getRank() != 2 || type.getDimSize(1) != kColumns)
    return emitOpError() << "table must be Nx" << kColumns
                         << " (work_id, tier, flags, params[0..3]), got "
                         << type;
  if (!getChunkAttr() == !getCoreIndptrAttr() ||
      (getMergeIndptrAttr() && !getCoreIndptrAttr()))
    return emitOpError("records either the spec plan's chunk or a balanced "
                       "plan's cores (and merges, unless it was planned as "
                       "cuts)");
  if (getChunkAttr() && getChunkAttr().getInt() < 1)
    return emitOpError() << "chunk must be >= 1, got "
                         << getChunkAttr().getInt();
  int64_t count = type.getDimSize(0);
  // Each index list starts at 0, never decreases and ends at the count:
  // cores has an entry per core plus one (at least one core), merges one
  // per row plus one (no rows when every request is idle).
  for (auto [what, list, least] :
       {std::tuple<StringRef, DenseI32ArrayAttr, size_t>{
            "cores", getCoreIndptrAttr(), 2},
        {"merges", getMergeIndptrAttr(), 1}}) {
    if (!list)
      continue;
    ArrayRef<int32_t> v = list.asArrayRef();
    if (v.size() < least || v.front() != 0 || v.back() != count)
      return emitOpError() << what << " must run from 0 to the descriptor "
                           << "count " << count << " in at least " << least
                           << (least == 1 ? " entry" : " entries");
    for (size_t i = 1; i < v.size(); ++i)
      if (v[i] < v[i - 1])
        return emitOpError() << what << " decreases at entry " << i;
  }
  auto values = llvm::to_vector(getTable().getValues<int32_t>());
  for (int64_t row = 0, rows = type.getDimSize(0); row < rows; ++row) {
    const int32_t *r = &values[row * kColumns];
    if (r[0] != row)
      return emitOpError() << "row " << row << " has work id " << r[0]
                           << "; work ids are the row numbers";
    if (r[1] < 0 || r[1] > 255)
      return emitOpError() << "row " << row << ": tier " << r[1]
                           << " is not in [0, 255]";
    if (r[2] & ~0x7)
      return emitOpError() << "row " << row << ": flags " << r[2]
                           << " has bits other than FIRST|LAST|INIT";
  }
  return success();
}

LogicalResult
LoadDescriptorsOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto table =
      tables.lookupNearestSymbolFrom<DescriptorTableOp>(*this, getTableAttr());
  if (!table)
    return emitOpError() << "'" << getTable()
                         << "' does not reference a wsp.descriptor_table";
  if (table.getDescriptorType() != getBuffer().getType().getElementType())
    return emitOpError() << "table of " << table.getDescriptorType()
                         << " cannot fill a buffer of "
                         << getBuffer().getType().getElementType();
  if (!table.getCoreIndptrAttr() != !getCoreIndptr() ||
      !table.getMergeIndptrAttr() != !getMergeIndptr())
    return emitOpError() << "takes 'cores' and 'merges' buffers exactly when "
                            "table @"
                         << getTable() << " is a balanced plan";
  return success();
}

ParseResult KernelTableOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  FlatSymbolRefAttr tiers;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      parser.parseKeyword("tiers") || parser.parseLParen() ||
      parser.parseAttribute(tiers, getTiersAttrName(result.name),
                            result.attributes) ||
      parser.parseRParen())
    return failure();
  SmallVector<int64_t> ids;
  SmallVector<Attribute> kernels;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Braces, [&]() -> ParseResult {
            int64_t id;
            FlatSymbolRefAttr kernel;
            if (parser.parseInteger(id) || parser.parseColon() ||
                parser.parseAttribute(kernel))
              return failure();
            ids.push_back(id);
            kernels.push_back(kernel);
            return success();
          }))
    return failure();
  Builder &b = parser.getBuilder();
  result.addAttribute(getTierIdsAttrName(result.name),
                      b.getDenseI64ArrayAttr(ids));
  result.addAttribute(getKernelsAttrName(result.name), b.getArrayAttr(kernels));
  return parser.parseOptionalAttrDict(result.attributes);
}

void KernelTableOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << " tiers(" << getTiersAttr() << ") {";
  for (unsigned i = 0, e = getTierIds().size(); i < e; ++i)
    p << (i ? ", " : "") << getTierIds()[i] << ": " << getKernel(i);
  p << "}";
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getSymNameAttrName(), getTiersAttrName(),
                           getTierIdsAttrName(), getKernelsAttrName()});
}

LogicalResult KernelTableOp::verify() {
  if (getTierIds().empty())
    return emitOpError("must have at least one entry");
  if (getTierIds().size() != getKernels().size())
    return emitOpError() << getTierIds().size() << " tier ids but "
                         << getKernels().size() << " kernels";
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t id : getTierIds())
    if (!seen.insert(id).second)
      return emitOpError() << "tier " << id << " has two entries";
  return success();
}

LogicalResult KernelTableOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<TierConfigOp> config =
      lookupTierConfig(*this, tables, getTiersAttr());
  if (failed(config))
    return failure();
  FunctionType signature;
  for (auto [i, id] : llvm::enumerate(getTierIds())) {
    auto kernel = tables.lookupNearestSymbolFrom<KernelOp>(*this, getKernel(i));
    if (!kernel)
      return emitOpError() << "entry for tier " << id << ": '"
                           << getKernel(i).getValue()
                           << "' does not reference a wsp.kernel";
    if (!kernel.isSpecialized() || kernel.getTiersAttr() != getTiersAttr())
      return emitOpError() << "entry for tier " << id << ": @"
                           << kernel.getSymName()
                           << " is not specialized for a tier of "
                           << getTiersAttr();
    // A specialization serves another tier when that tier has the same
    // constants (tier specialization folds such tiers into one kernel).
    int64_t made = kernel.getTierAttr().getInt();
    if (made != id) {
      std::optional<unsigned> a = config->getTierIndex(made),
                              b = config->getTierIndex(id);
      bool same = a && b;
      for (NamedAttribute c : kernel.getConstants())
        if (auto values = dyn_cast<DenseI64ArrayAttr>(c.getValue());
            !values || !a || !b ||
            values.asArrayRef()[*a] != values.asArrayRef()[*b])
          same = false;
      if (!same)
        return emitOpError()
               << "entry for tier " << id << ": @" << kernel.getSymName()
               << " is specialized for tier " << made
               << ", whose constants differ from tier " << id << "'s";
    }
    if (!signature)
      signature = kernel.getFunctionType();
    else if (signature != kernel.getFunctionType())
      return emitOpError() << "entries have different signatures: " << signature
                           << " and " << kernel.getFunctionType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Attention masks
//===----------------------------------------------------------------------===//

static LogicalResult verifyWindow(Operation *op, MaskKind kind,
                                  IntegerAttr window) {
  if (kind == MaskKind::sliding && !window)
    return op->emitOpError("needs a window for a sliding mask");
  if (kind == MaskKind::standard && window)
    return op->emitOpError("takes no window for a standard mask");
  if (window && window.getInt() < 1)
    return op->emitOpError() << "window must be > 0, got " << window.getInt();
  return success();
}

LogicalResult MaskValueOp::verify() {
  return verifyWindow(*this, getKind(), getWindowAttr());
}

LogicalResult MaskRangeOp::verify() {
  return verifyWindow(*this, getKind(), getWindowAttr());
}

LogicalResult GenMaskOp::verify() {
  if (failed(verifyWindow(*this, getKind(), getWindowAttr())))
    return failure();
  if ((getShard() != MaskShard::none) != static_cast<bool>(getCore()))
    return emitOpError("takes a core exactly when sharded");
  auto pos = cast<MemRefType>(getPosIds().getType());
  auto mask = cast<MemRefType>(getMask().getType());
  auto equalOrDynamic = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
  };
  if (!equalOrDynamic(pos.getDimSize(1), mask.getDimSize(1)))
    return emitOpError() << "pos_ids has " << pos.getDimSize(1)
                         << " queries per batch but the mask has "
                         << mask.getDimSize(1);
  if (getShard() != MaskShard::batch &&
      !equalOrDynamic(pos.getDimSize(0), mask.getDimSize(0)))
    return emitOpError() << "pos_ids has " << pos.getDimSize(0)
                         << " batches but the mask has " << mask.getDimSize(0);
  if (auto active = getActiveMask()) {
    auto am = cast<MemRefType>(active.getType());
    if (!equalOrDynamic(am.getDimSize(1), mask.getDimSize(1)) ||
        !equalOrDynamic(am.getDimSize(2), mask.getDimSize(1)))
      return emitOpError("active_mask must be [batch, s_active, s_active]");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TableGen'd op definitions
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "wsp/Dialect/Wsp/IR/WspOps.cpp.inc"
