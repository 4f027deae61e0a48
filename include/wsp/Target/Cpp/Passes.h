//===- Passes.h - passes of the C++ backend ---------------------*- C++ -*-===//

#ifndef WSP_TARGET_CPP_PASSES_H
#define WSP_TARGET_CPP_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace wsp {

#define GEN_PASS_DECL
#include "wsp/Target/Cpp/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "wsp/Target/Cpp/Passes.h.inc"

/// True if the C++ emitters print `op` where it is (module level, or
/// inside a function or kernel).
bool isEmittable(Operation *op);
/// Whether `op` or an op inside it runs a collective (wsp.all_reduce): the
/// emitted code then needs pto/runtime/collectives.hpp, wspc's tree MPI.
bool hasCollectives(Operation *op);

} // namespace wsp
} // namespace mlir

#endif // WSP_TARGET_CPP_PASSES_H
