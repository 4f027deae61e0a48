//===- TierCoverage.cpp - report uncovered tier ranges --------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"

#include <algorithm>
#include <cstdint>

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPTIERCOVERAGE
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {
struct TierCoveragePass
    : public wsp::impl::WspTierCoverageBase<TierCoveragePass> {
  using WspTierCoverageBase::WspTierCoverageBase;

  void runOnOperation() override {
    const int64_t lo = minLength, hi = maxLength;
    if (lo < 1 || hi < lo) {
      getOperation().emitError()
          << "wsp-tier-coverage: need 1 <= min-length <= max-length, got ["
          << lo << ", " << hi << "]";
      return signalPassFailure();
    }
    if (warnGaps) {
      getOperation().walk([&](TierConfigOp config) { warnAboutGaps(config); });
      markAllAnalysesPreserved();
      return;
    }
    getOperation().walk([&](TierConfigOp config) {
      auto gaps = config.getUncoveredRanges(lo, hi);
      InFlightDiagnostic remark = config.emitRemark();
      remark << "@" << config.getSymName();
      if (gaps.empty()) {
        remark << " covers every length in [" << lo << ", " << hi << "]";
        return;
      }
      remark << " leaves lengths ";
      llvm::interleave(
          gaps, remark,
          [&](std::pair<int64_t, int64_t> gap) {
            remark << "[" << gap.first << ", " << gap.second << "]";
          },
          ", ");
      remark << " uncovered (UNSUPPORTED_SIZE at run time)";
    });
    markAllAnalysesPreserved();
  }

  /// A warning at the op naming the lengths between its lowest and highest
  /// tier that no tier covers.
  static void warnAboutGaps(TierConfigOp config) {
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (TierAttr tier : config.getTierList()) {
      first = std::min(first, tier.getMinSize());
      last = std::max(last, tier.getMaxSize());
    }
    auto gaps = config.getUncoveredRanges(first, last);
    if (gaps.empty())
      return;
    InFlightDiagnostic warning = config.emitWarning();
    warning << "@" << config.getSymName() << " leaves lengths ";
    llvm::interleave(
        gaps, warning,
        [&](std::pair<int64_t, int64_t> gap) {
          warning << "[" << gap.first << ", " << gap.second << "]";
        },
        ", ");
    warning << " between its tiers uncovered: a call with such a length "
               "returns UNSUPPORTED_SIZE";
  }
};
} // namespace
