//===- WspDialect.cpp - wsp dialect ---------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Dialect/Wsp/IR/WspAttrs.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/IR/WspTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::wsp;

#include "wsp/Dialect/Wsp/IR/WspDialect.cpp.inc"

void WspDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "wsp/Dialect/Wsp/IR/WspOps.cpp.inc"
      >();
  registerAttributes();
  registerTypes();
}

/// Folded sizes, coordinates and tier ids become arith.constant.
Operation *WspDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  if (auto integer = dyn_cast<IntegerAttr>(value))
    if (integer.getType() == type)
      return arith::ConstantOp::create(builder, loc, type, integer);
  return nullptr;
}
