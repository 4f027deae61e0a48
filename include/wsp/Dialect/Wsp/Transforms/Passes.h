//===- Passes.h - wsp passes ------------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_WSP_TRANSFORMS_PASSES_H
#define WSP_DIALECT_WSP_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace wsp {

#define GEN_PASS_DECL
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"

} // namespace wsp
} // namespace mlir

#endif // WSP_DIALECT_WSP_TRANSFORMS_PASSES_H
