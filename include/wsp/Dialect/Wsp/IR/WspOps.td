//===- WspOps.td - wsp operations ------------------------*- tablegen -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPOPS_TD
#define WSP_DIALECT_WSP_IR_WSPOPS_TD

include "wsp/Dialect/Wsp/IR/WspDialect.td"
include "wsp/Dialect/Wsp/IR/WspAttrs.td"
include "mlir/IR/SymbolInterfaces.td"

def Wsp_TierConfigOp : Wsp_Op<"tier_config", [Symbol]> {
  let summary = "A named tier configuration with first-match selection";
  let description = [{
    The IR form of the spec's `TierConfig<Tiers...>` (§5.2): an ordered list
    of tiers. A length selects the first tier (in list order) whose range
    contains it; a length that no tier covers selects nothing, which the
    runtime reports as `UNSUPPORTED_SIZE`.

    The verifier enforces what the spec says SHALL hold and what would make
    a configuration meaningless: at least one tier, unique tier ids, and no
    tier fully shadowed by the tiers before it (it could never be
    selected). Gaps in coverage are allowed.

    ```mlir
    wsp.tier_config @DecodeAttentionTiers [
      #wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
      #wsp.tier<2, [4097, 16384]>, #wsp.tier<3, [16385, 131072]>]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       Wsp_TierArrayAttr:$tiers);
  let assemblyFormat = "($sym_visibility^)? $sym_name $tiers attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The tiers in selection order.
    ::llvm::SmallVector<::mlir::wsp::TierAttr> getTierList();
    /// The id of the first tier matching `size`, or -1 (spec `select_tier`).
    int64_t selectTier(int64_t size);
  }];
}

#endif // WSP_DIALECT_WSP_IR_WSPOPS_TD
