//===- Passes.td - passes of the C++ backend ---------------*- tablegen -*-===//
//
// The backend's own contract: it lives with the emitters, so that what it
// accepts is what they print.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_TARGET_CPP_PASSES_TD
#define WSP_TARGET_CPP_PASSES_TD

include "mlir/Pass/PassBase.td"

def WspCheckEmittable : Pass<"wsp-check-emittable", "::mlir::ModuleOp"> {
  let summary = "Contract: every op is one the C++ emitters print";
  let description = [{
    The last stage's contract. At module level the emitters print
    `wsp.tier_config`, specialized `wsp.kernel`s and `wsp.kernel_table`s,
    `func.func`, `memref.global` and `wsp.descriptor_table`; inside them,
    each op they have an emission pattern for (the func, arith, math, scf,
    memref, wsp and tile ops of lib/Target/Cpp). The check asks the
    emitters' own pattern registry, so it accepts exactly what they print.
    Fails, naming each op, on anything else (including wsp ops that belong
    to earlier stages). It first verifies the module, as every stage
    contract does (see wsp-check-planned).
  }];
}

#endif // WSP_TARGET_CPP_PASSES_TD
