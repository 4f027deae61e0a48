//===- WspOps.h - wsp operations --------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPOPS_H
#define WSP_DIALECT_WSP_IR_WSPOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "wsp/Dialect/Wsp/IR/WspAttrs.h"
#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Dialect/Wsp/IR/WspTypes.h"

#include "wsp/Dialect/Wsp/IR/WspInterfaces.h.inc"

#define GET_OP_CLASSES
#include "wsp/Dialect/Wsp/IR/WspOps.h.inc"

namespace mlir {
namespace wsp {
/// What is known of dimension `dim` of the iteration space `space`: its
/// static size (an index attribute), the SSA value that set it (through
/// wsp.space / wsp.set_dim), or null. The folders and the space lowering
/// share it.
OpFoldResult getSpaceDimSize(Value space, unsigned dim);
} // namespace wsp
} // namespace mlir

#endif // WSP_DIALECT_WSP_IR_WSPOPS_H
