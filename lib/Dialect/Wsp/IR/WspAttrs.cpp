//===- WspAttrs.cpp - wsp attributes --------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspAttrs.h"
#include "wsp/Dialect/Wsp/IR/WspDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mlir::wsp;

#define GET_ATTRDEF_CLASSES
#include "wsp/Dialect/Wsp/IR/WspAttrs.cpp.inc"

void WspDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "wsp/Dialect/Wsp/IR/WspAttrs.cpp.inc"
      >();
}

/// Spec §5.1.2: TierID in 0-255, MinSize > 0, MaxSize >= MinSize; sizes are
/// the runtime's `int`, so they must fit in 32 bits.
LogicalResult TierAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t id, int64_t minSize, int64_t maxSize) {
  if (id < 0 || id > 255)
    return emitError() << "tier id must be in [0, 255], got " << id;
  if (minSize <= 0)
    return emitError() << "tier " << id << ": min size must be > 0, got "
                       << minSize;
  if (maxSize > std::numeric_limits<int32_t>::max())
    return emitError() << "tier " << id
                       << ": max size must fit the runtime's 32-bit int, got "
                       << maxSize;
  if (maxSize < minSize)
    return emitError() << "tier " << id << ": max size " << maxSize
                       << " is less than min size " << minSize;
  return success();
}
