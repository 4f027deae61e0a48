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
    contract does (see wsp-check-planned). With `verify-nested=false` it
    verifies the module op itself and only those ops at its top level
    that a nested pass does not run on (not isolated from above): for a
    pipeline whose previous stage verified each function and kernel
    (`tile-check-planned`, nested) and that since changed nothing inside
    them (`wsp-pipeline`: `tile-check-sync` reads, `wsp-set-target` sets a
    module attribute), so that each op is verified once per stage.

    A `wsp.step` is printed as a table of its function's launches, and
    the check derives that table as the emitters do (one function,
    lib/Target/Cpp/StepCapture.h): the captured function is a `func.func`
    that returns a status, runs no collective and makes at least one
    launch (a `func.call`, each returning one status; run
    convert-llm-to-wsp first); the step patches only the token buffer's
    rows and per-request buffers, not i32 scalars; only launches use a
    patched token buffer, each through at most one operand; and each
    `wsp.replay_with` variant is a `func.func`. Each failure is named at
    the step, or at the call or op of its function that it concerns.
  }];
  let options = [
    Option<"verifyNested", "verify-nested", "bool", "true",
           "Verify the ops inside the module's functions and kernels too; "
           "false when the previous stage's contract just verified them "
           "(default true)">,
  ];
}

#endif // WSP_TARGET_CPP_PASSES_TD
