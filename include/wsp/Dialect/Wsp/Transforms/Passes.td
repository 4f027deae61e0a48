//===- Passes.td - wsp passes ----------------------------*- tablegen -*-===//

#ifndef WSP_DIALECT_WSP_TRANSFORMS_PASSES_TD
#define WSP_DIALECT_WSP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WspTierCoverage : Pass<"wsp-tier-coverage", "::mlir::ModuleOp"> {
  let summary = "Report the lengths each tier configuration leaves uncovered";
  let description = [{
    Gaps in a tier configuration are legal, but a length that falls in one
    is `UNSUPPORTED_SIZE` at run time. This analysis emits one remark per
    `wsp.tier_config`, at the op, naming the uncovered ranges of lengths in
    `[min-length, max-length]` (by default every positive 32-bit length),
    or saying that the range is fully covered. It changes no IR.

    ```
    $ wsp-opt --wsp-tier-coverage="max-length=200000" tiers.mlir
    remark: @DecodeAttentionTiers leaves lengths [131073, 200000] uncovered
            (UNSUPPORTED_SIZE at run time)
    ```
  }];
  let options = [
    Option<"minLength", "min-length", "int64_t", "1",
           "Smallest length of interest">,
    Option<"maxLength", "max-length", "int64_t", "2147483647",
           "Largest length of interest">,
  ];
}

#endif // WSP_DIALECT_WSP_TRANSFORMS_PASSES_TD
