//===- WspOps.h - wsp operations --------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPOPS_H
#define WSP_DIALECT_WSP_IR_WSPOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
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

#define GET_OP_CLASSES
#include "wsp/Dialect/Wsp/IR/WspOps.h.inc"

#endif // WSP_DIALECT_WSP_IR_WSPOPS_H
