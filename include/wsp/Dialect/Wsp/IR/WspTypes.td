//===- WspTypes.td - wsp types ---------------------------*- tablegen -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPTYPES_TD
#define WSP_DIALECT_WSP_IR_WSPTYPES_TD

include "wsp/Dialect/Wsp/IR/WspDialect.td"
include "wsp/Dialect/Wsp/IR/WspAttrs.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Wsp_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Wsp_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Wsp_DescriptorType : Wsp_Type<"Descriptor", "descriptor",
                                  [MemRefElementTypeInterface]> {
  let summary = "A 24-byte work descriptor of a pattern";
  let description = [{
    One unit of work: the spec's `WorkDescriptor` (§4.1): work_id, tier,
    flags (FIRST, LAST, INIT) and four 32-bit params whose meaning the
    pattern names. It is a valid memref element type, so a descriptor
    buffer is `memref<?x!wsp.descriptor<attention>>`.

    ```mlir
    !wsp.descriptor<attention>
    !wsp.descriptor<moe>
    !wsp.descriptor<"rope", ["token", "position"]>
    ```
  }];
  let parameters = (ins "PatternAttr":$pattern);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The spec's fixed layout.
    static constexpr unsigned kSizeInBytes = 24;
    static constexpr unsigned kAlignment = 8;
  }];
}

def Wsp_SpaceType : Wsp_Type<"Space", "space"> {
  let summary = "An iteration space: static or dynamic dims, optionally named";
  let description = [{
    The spec's `IterationSpace<Dims...>` (§3.2). Each dimension is static
    (a size) or dynamic (`?`, the spec's `DYNAMIC`) and may be named. Linear
    work indices enumerate the space with dimension 0 varying fastest.

    ```mlir
    !wsp.space<batch: ?, head: 32, chunk: ?>   // AttentionSpace<DYNAMIC, 32>
    !wsp.space<?, 8>                           // unnamed dims
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$sizes,
                        ArrayRefParameter<"::mlir::StringAttr">:$names);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static constexpr int64_t kDynamic = -1;
    unsigned getRank() const { return getSizes().size(); }
    bool isDynamicDim(unsigned i) const { return getSizes()[i] == kDynamic; }
    unsigned getNumDynamicDims() const;
    /// Position of dim `i` among the dynamic dims.
    unsigned getDynamicDimIndex(unsigned i) const;
  }];
}

#endif // WSP_DIALECT_WSP_IR_WSPTYPES_TD
