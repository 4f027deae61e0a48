//===- WspAttrs.td - wsp attributes ----------------------*- tablegen -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPATTRS_TD
#define WSP_DIALECT_WSP_IR_WSPATTRS_TD

include "wsp/Dialect/Wsp/IR/WspDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Wsp_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Wsp_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Wsp_TierAttr : Wsp_Attr<"Tier", "tier"> {
  let summary = "A size tier: an id and an inclusive size range";
  let description = [{
    The IR form of the spec's `Tier<TierID, MinSize, MaxSize>` (§5.1): a
    length `n` matches the tier when `min <= n <= max`. The id (0-255) is
    what a work descriptor's `tier` byte carries and what indexes the
    kernel dispatch table.

    ```mlir
    #wsp.tier<0, [1, 1024]>   // Tier<0, 1, 1024>
    ```
  }];
  let parameters = (ins "int64_t":$id, "int64_t":$minSize, "int64_t":$maxSize);
  let assemblyFormat = "`<` $id `,` `[` $minSize `,` $maxSize `]` `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True if `size` lies in [minSize, maxSize] (spec `Tier::matches`).
    bool matches(int64_t size) const {
      return getMinSize() <= size && size <= getMaxSize();
    }
  }];
}

def Wsp_TierArrayAttr : TypedArrayAttrBase<Wsp_TierAttr, "array of wsp tiers">;

#endif // WSP_DIALECT_WSP_IR_WSPATTRS_TD
