//===- WspDialect.cpp - wsp dialect ---------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Dialect/Wsp/IR/WspAttrs.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::wsp;

#include "wsp/Dialect/Wsp/IR/WspDialect.cpp.inc"

void WspDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "wsp/Dialect/Wsp/IR/WspOps.cpp.inc"
      >();
  registerAttributes();
}
