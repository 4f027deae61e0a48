//===- WspAttrs.h - wsp attributes ------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPATTRS_H
#define WSP_DIALECT_WSP_IR_WSPATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

#include <optional>

#include "wsp/Dialect/Wsp/IR/WspEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "wsp/Dialect/Wsp/IR/WspAttrs.h.inc"

#endif // WSP_DIALECT_WSP_IR_WSPATTRS_H
