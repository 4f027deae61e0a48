//===- WspDialect.cpp - wsp dialect ---------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Dialect/Wsp/IR/WspAttrs.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/IR/WspTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

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

/// `wsp.replay_with = @variant` on a call: a function symbol, on a call.
/// What it names is checked where a step captures the call's function
/// (StepOp::verifySymbolUses, verifyReplayWith), with the verifier's symbol
/// tables: a lookup here would scan the module once per call.
LogicalResult WspDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() != kReplayWithAttrName)
    return success();
  if (!isa<FlatSymbolRefAttr>(attr.getValue()))
    return op->emitOpError() << "has " << kReplayWithAttrName
                             << " = " << attr.getValue()
                             << ", which is not a function symbol";
  if (!isa<CallOpInterface>(op))
    return op->emitOpError() << "has " << kReplayWithAttrName
                             << ", which only a call carries";
  return success();
}

/// The variant takes the call's arguments, then the buffers a table keeps
/// for it (static rank-1 memrefs), and returns what the callee returns.
LogicalResult mlir::wsp::verifyReplayWith(CallOpInterface call,
                                          FlatSymbolRefAttr variantName,
                                          SymbolTableCollection &tables) {
  Operation *op = call.getOperation();
  auto variant =
      tables.lookupNearestSymbolFrom<FunctionOpInterface>(op, variantName);
  if (!variant || variant.isExternal())
    return op->emitOpError() << "is replayed with " << variantName
                             << ", which is not a function definition";
  ArrayRef<Type> inputs = variant.getArgumentTypes();
  TypeRange operands = call.getArgOperands().getTypes();
  if (inputs.size() < operands.size() ||
      TypeRange(inputs.take_front(operands.size())) != operands)
    return op->emitOpError()
           << "is replayed with " << variantName
           << ", whose leading arguments are not the call's operands ("
           << operands << ")";
  if (TypeRange(variant.getResultTypes()) != op->getResultTypes())
    return op->emitOpError() << "is replayed with " << variantName
                             << ", which returns " << variant.getResultTypes()
                             << " where the call returns "
                             << op->getResultTypes();
  for (auto [i, type] : llvm::enumerate(inputs.drop_front(operands.size()))) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.hasStaticShape() || memref.getRank() != 1 ||
        !memref.getLayout().isIdentity())
      return op->emitOpError()
             << "is replayed with " << variantName << ", whose kept argument "
             << operands.size() + i << " is " << type
             << ", not a static rank-1 buffer a table can hold";
  }
  return success();
}
