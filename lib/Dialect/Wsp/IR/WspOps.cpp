//===- WspOps.cpp - wsp operations ----------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::wsp;

//===----------------------------------------------------------------------===//
// TierConfigOp
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

/// True if [lo, hi] is contained in the union of `ranges` (inclusive ranges).
static bool isCovered(int64_t lo, int64_t hi,
                      SmallVector<std::pair<int64_t, int64_t>> ranges) {
  llvm::sort(ranges);
  int64_t next = lo; // smallest value of [lo, hi] not yet known covered
  for (auto [rlo, rhi] : ranges) {
    if (rlo > next)
      break;
    if (rhi >= hi)
      return true;
    next = std::max(next, rhi + 1);
  }
  return next > hi;
}

LogicalResult TierConfigOp::verify() {
  SmallVector<TierAttr> tiers = getTierList();
  if (tiers.empty())
    return emitOpError("must have at least one tier");

  llvm::DenseMap<int64_t, unsigned> firstIndexOfId;
  SmallVector<std::pair<int64_t, int64_t>> earlier;
  for (auto [index, tier] : llvm::enumerate(tiers)) {
    auto [it, inserted] = firstIndexOfId.try_emplace(tier.getId(), index);
    if (!inserted)
      return emitOpError() << "tier id " << tier.getId()
                           << " is used by tiers #" << it->second << " and #"
                           << index;
    if (isCovered(tier.getMinSize(), tier.getMaxSize(), earlier))
      return emitOpError() << "tier " << tier.getId() << " (#" << index
                           << ", sizes [" << tier.getMinSize() << ", "
                           << tier.getMaxSize()
                           << "]) is fully shadowed by earlier tiers and can "
                              "never be selected";
    earlier.emplace_back(tier.getMinSize(), tier.getMaxSize());
  }
  return success();
}

#define GET_OP_CLASSES
#include "wsp/Dialect/Wsp/IR/WspOps.cpp.inc"
