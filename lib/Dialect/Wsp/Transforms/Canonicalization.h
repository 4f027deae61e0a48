//===- Canonicalization.h - the canonicalize pass's patterns ------*- C++ -*-===//
//
// Private to lib/Dialect/Wsp/Transforms: the pattern set `canonicalize`
// uses, for the passes that fold what they changed without running it over
// the whole module (wsp-cse-canonicalize, wsp-specialize-tiers).
//
//===----------------------------------------------------------------------===//

#ifndef WSP_LIB_DIALECT_WSP_TRANSFORMS_CANONICALIZATION_H
#define WSP_LIB_DIALECT_WSP_TRANSFORMS_CANONICALIZATION_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace mlir::wsp::detail {

/// Every loaded dialect's and every registered op's canonicalization
/// patterns, as `canonicalize` collects them.
inline FrozenRewritePatternSet canonicalizationPatterns(MLIRContext *context) {
  RewritePatternSet set(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(set);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(set, context);
  return FrozenRewritePatternSet(std::move(set));
}

} // namespace mlir::wsp::detail

#endif // WSP_LIB_DIALECT_WSP_TRANSFORMS_CANONICALIZATION_H
