//===- LlmDialect.h - llm dialect -------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_LLM_IR_LLMDIALECT_H
#define WSP_DIALECT_LLM_IR_LLMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "wsp/Dialect/Llm/IR/LlmDialect.h.inc"

#endif // WSP_DIALECT_LLM_IR_LLMDIALECT_H
