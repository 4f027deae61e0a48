//===- WspDialect.h - wsp dialect -------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPDIALECT_H
#define WSP_DIALECT_WSP_IR_WSPDIALECT_H

#include "mlir/IR/Dialect.h"

#include "wsp/Dialect/Wsp/IR/WspDialect.h.inc"

namespace mlir {
class CallOpInterface;
class FlatSymbolRefAttr;
class SymbolTableCollection;
namespace wsp {
/// Checks the function `wsp.replay_with` names on `call` against the call
/// (WspDialect::kReplayWithAttrName): the checks that need symbols, run by
/// the wsp.step that captures the call's function.
LogicalResult verifyReplayWith(CallOpInterface call,
                               FlatSymbolRefAttr variantName,
                               SymbolTableCollection &tables);
} // namespace wsp
} // namespace mlir

#endif // WSP_DIALECT_WSP_IR_WSPDIALECT_H
