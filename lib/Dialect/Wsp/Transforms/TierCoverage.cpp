//===- TierCoverage.cpp - report uncovered tier ranges --------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"

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
};
} // namespace
