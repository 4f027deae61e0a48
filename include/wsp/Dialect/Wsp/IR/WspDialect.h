//===- WspDialect.h - wsp dialect -------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPDIALECT_H
#define WSP_DIALECT_WSP_IR_WSPDIALECT_H

#include "mlir/IR/Dialect.h"

#include "wsp/Dialect/Wsp/IR/WspDialect.h.inc"

#endif // WSP_DIALECT_WSP_IR_WSPDIALECT_H
