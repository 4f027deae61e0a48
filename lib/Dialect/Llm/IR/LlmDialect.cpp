//===- LlmDialect.cpp - llm dialect ---------------------------------------===//

#include "wsp/Dialect/Llm/IR/LlmDialect.h"
#include "wsp/Dialect/Llm/IR/LlmOps.h"

using namespace mlir;
using namespace mlir::wsp::llm;

#include "wsp/Dialect/Llm/IR/LlmDialect.cpp.inc"

void LlmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "wsp/Dialect/Llm/IR/LlmOps.cpp.inc"
      >();
}
