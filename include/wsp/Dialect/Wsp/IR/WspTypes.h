//===- WspTypes.h - wsp types -----------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPTYPES_H
#define WSP_DIALECT_WSP_IR_WSPTYPES_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Types.h"

#include "wsp/Dialect/Wsp/IR/WspAttrs.h"

#define GET_TYPEDEF_CLASSES
#include "wsp/Dialect/Wsp/IR/WspTypes.h.inc"

#endif // WSP_DIALECT_WSP_IR_WSPTYPES_H
