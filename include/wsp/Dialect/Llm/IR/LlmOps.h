//===- LlmOps.h - llm operations --------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_LLM_IR_LLMOPS_H
#define WSP_DIALECT_LLM_IR_LLMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "wsp/Dialect/Llm/IR/LlmDialect.h"

#include "wsp/Dialect/Llm/IR/LlmEnums.h.inc"

#define GET_OP_CLASSES
#include "wsp/Dialect/Llm/IR/LlmOps.h.inc"

#endif // WSP_DIALECT_LLM_IR_LLMOPS_H
