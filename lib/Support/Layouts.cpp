//===- Layouts.cpp - memref layouts the backend prints --------------------===//

#include "wsp/Support/Layouts.h"

using namespace mlir;

bool mlir::wsp::isContiguousRowMajor(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expect = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    // A dimension of one index has no stride that matters.
    if (type.getDimSize(d) == 1)
      continue;
    if (strides[d] != expect)
      return false;
    if (d > 0) {
      if (type.isDynamicDim(d))
        return false;
      expect *= type.getDimSize(d);
    }
  }
  return true;
}
