//===- Passes.h - conversions between wsp's dialects ------------*- C++ -*-===//

#ifndef WSP_CONVERSION_PASSES_H
#define WSP_CONVERSION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <pto/runtime/hardware.hpp>

namespace mlir {
namespace wsp {

#define GEN_PASS_DECL
#include "wsp/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "wsp/Conversion/Passes.h.inc"

} // namespace wsp
} // namespace mlir

#endif // WSP_CONVERSION_PASSES_H
