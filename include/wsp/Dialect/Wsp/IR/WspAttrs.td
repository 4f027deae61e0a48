//===- WspAttrs.td - wsp attributes ----------------------*- tablegen -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPATTRS_TD
#define WSP_DIALECT_WSP_IR_WSPATTRS_TD

include "wsp/Dialect/Wsp/IR/WspDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Wsp_CoreKind : I32EnumAttr<"CoreKind",
    "kind of AICore: cube, vector, or mix (a block of one cube core and "
    "its two vector cores)", [
    I32EnumAttrCase<"cube", 0>, I32EnumAttrCase<"vector", 1>,
    I32EnumAttrCase<"mix", 2>]> {
  let cppNamespace = "::mlir::wsp";
}

def Wsp_DescriptorFlag : I32EnumAttr<"DescriptorFlag",
    "a work descriptor flag bit (spec §4.1.4)", [
    I32EnumAttrCase<"first", 1>, I32EnumAttrCase<"last", 2>,
    I32EnumAttrCase<"init", 4>]> {
  let cppNamespace = "::mlir::wsp";
}

def Wsp_MaskKind : I32EnumAttr<"MaskKind",
    "how prior KV slots are masked (gen_mask_tkg)", [
    I32EnumAttrCase<"standard", 0>, I32EnumAttrCase<"sliding", 1>]> {
  let cppNamespace = "::mlir::wsp";
}

def Wsp_KvLayout : I32EnumAttr<"KvLayout",
    "flat (circular) or block KV cache", [
    I32EnumAttrCase<"flat", 0>, I32EnumAttrCase<"block", 1>]> {
  let cppNamespace = "::mlir::wsp";
}

def Wsp_MaskShard : I32EnumAttr<"MaskShard", "LNC2 sharding of a mask", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"batch", 1>,
    I32EnumAttrCase<"sequence", 2>]> {
  let cppNamespace = "::mlir::wsp";
}

def Wsp_PlanStrategy : I32EnumAttr<"PlanStrategy",
    "how work is planned: the spec's chunk-size planner or the balanced one", [
    I32EnumAttrCase<"spec", 0>, I32EnumAttrCase<"balanced", 1>]> {
  let cppNamespace = "::mlir::wsp";
}

def Wsp_PlanResult : I32EnumAttr<"PlanResult",
    "the planner's result code (spec §6.1)", [
    I32EnumAttrCase<"ok", 0>, I32EnumAttrCase<"buffer_overflow", 1>,
    I32EnumAttrCase<"unsupported_size", 2>,
    I32EnumAttrCase<"invalid_params", 3>]> {
  let cppNamespace = "::mlir::wsp";
}

def Wsp_StepPatchKind : I32EnumAttr<"StepPatchKind",
    "what a replayed step patches per token", [
    I32EnumAttrCase<"token_offset", 0>, I32EnumAttrCase<"position", 1>,
    I32EnumAttrCase<"kv_seq_len", 2>, I32EnumAttrCase<"pos_and_kv", 3>,
    I32EnumAttrCase<"argmax_output", 4>,
    I32EnumAttrCase<"request_positions", 5>,
    I32EnumAttrCase<"request_kv_lens", 6>]> {
  let cppNamespace = "::mlir::wsp";
}

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

def Wsp_PatternAttr : Wsp_Attr<"Pattern", "pattern"> {
  let summary = "What a work descriptor's params[0..3] mean";
  let description = [{
    A pattern names the (up to four) parameters of a work descriptor, in
    order. Two are the spec's (§4.2): `attention` (request_idx, head_idx,
    kv_start, kv_len) and `moe` (batch_idx, expert_idx, token_start,
    token_count). A user pattern gives its own name and parameter names:

    ```mlir
    #wsp.pattern<attention>
    #wsp.pattern<"rope", ["token", "position"]>
    ```

    The names `attention` and `moe` are reserved for the spec's patterns.
  }];
  let parameters = (ins "::mlir::StringAttr":$name,
                        ArrayRefParameter<"::mlir::StringAttr">:$params);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$name,
                     "::llvm::ArrayRef<::llvm::StringRef>":$params)>
  ];
  let extraClassDeclaration = [{
    /// The spec's attention pattern.
    static PatternAttr getAttention(::mlir::MLIRContext *context);
    /// The spec's MoE pattern.
    static PatternAttr getMoE(::mlir::MLIRContext *context);
    /// Index of the named parameter, or std::nullopt.
    std::optional<unsigned> getParamIndex(::llvm::StringRef param) const;
    bool isAttention() const { return getName().getValue() == "attention"; }
    bool isMoE() const { return getName().getValue() == "moe"; }
    /// Prints/parses the part inside the angle brackets (shared with
    /// !wsp.descriptor).
    void printInner(::mlir::AsmPrinter &printer) const;
    static PatternAttr parseInner(::mlir::AsmParser &parser);
  }];
}

def Wsp_PlanConfigAttr : Wsp_Attr<"PlanConfig", "plan_config"> {
  let summary = "Planning parameters: the spec's PlanConfig or the balanced planner's";
  let description = [{
    `strategy` selects the planner. `spec` (the default) is the spec's
    `PlanConfig` (§6.2) with its defaults: one chunk size for the whole
    batch, found by binary search on `max_work_units`. `balanced` is
    pto::runtime's cost-aware planner (`plan_balanced`,
    docs/rationale/BalancedPlanner.md): every core gets the same cost, rows
    are cut only at KV block boundaries, and the plan comes with per-core
    work lists and a merge plan. Its fields: `cores` (the core count it
    balances over), `block_size` (the KV block, never split), the cost
    model `unit_cost` + `token_cost` per KV token + `merge_cost` per extra
    piece of a split row, and `batch_invariant` with `invariant_chunk`
    (piece boundaries that depend only on a request's own length).

    Omitted fields take their defaults; each field belongs to one strategy
    and is ignored by the other. The verifier enforces chunk_min > 0,
    chunk_max >= chunk_min, max_work_units > 0, cores, block_size,
    token_cost and invariant_chunk > 0, unit_cost and merge_cost >= 0, and
    that every value fits the runtime's 32-bit int.

    ```mlir
    #wsp.plan_config<>                                   // all defaults
    #wsp.plan_config<max_work_units = 8192, balance_chunks = false>
    #wsp.plan_config<strategy = balanced, cores = 48, block_size = 16>
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"::mlir::wsp::PlanStrategy",
                           "::mlir::wsp::PlanStrategy::spec">:$strategy,
    DefaultValuedParameter<"int64_t", "256">:$chunk_min,
    DefaultValuedParameter<"int64_t", "4096">:$chunk_max,
    DefaultValuedParameter<"int64_t", "65536">:$max_work_units,
    DefaultValuedParameter<"bool", "true">:$balance_chunks,
    DefaultValuedParameter<"int64_t", "48">:$cores,
    DefaultValuedParameter<"int64_t", "16">:$block_size,
    DefaultValuedParameter<"int64_t", "64">:$unit_cost,
    DefaultValuedParameter<"int64_t", "1">:$token_cost,
    DefaultValuedParameter<"int64_t", "64">:$merge_cost,
    DefaultValuedParameter<"bool", "false">:$batch_invariant,
    DefaultValuedParameter<"int64_t", "2048">:$invariant_chunk);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isBalanced() const {
      return getStrategy() == ::mlir::wsp::PlanStrategy::balanced;
    }
  }];
}

def Wsp_PatchAttr : Wsp_Attr<"Patch", "patch"> {
  let summary = "A patch point of a replayed step: what moves per token, and where";
  let description = [{
    One value of a captured step (`wsp.step`) that changes from token to
    token, named by the captured function's argument it lands in. The five
    kinds of seed 004 (akunu's dispatch table), and two for a batch:

    | kind | argument | per token t (position p = base + t) |
    |---|---|---|
    | `token_offset` | `memref<?xi32>` or `memref<?x?xi32>`: token 0's row | the embedding reads row t |
    | `argmax_output` | the same type: token 0's output row | the argmax writes row t |
    | `position` | an `i32` scalar | p |
    | `kv_seq_len` | an `i32` scalar | p + 1 |
    | `pos_and_kv` | two `i32` scalars | p, then p + 1 |
    | `request_positions` | `memref<?xi32>`, one per request | each + 1 after the token |
    | `request_kv_lens` | `memref<?xi32>`, one per request | each + 1 after the token |

    The scalars are the step's parameter block: a patch writes 32 bits, so
    its argument must be a 32-bit integer (`wsp.step` checks it).

    ```mlir
    #wsp.patch<token_offset, 0>
    #wsp.patch<pos_and_kv, 5, 6>
    ```
  }];
  let parameters = (ins EnumParameter<Wsp_StepPatchKind>:$kind,
                        "int64_t":$arg,
                        OptionalParameter<"std::optional<int64_t>">:$arg2);
  let assemblyFormat = "`<` $kind `,` $arg (`,` $arg2^)? `>`";
  let genVerifyDecl = 1;
}

def Wsp_PatchArrayAttr : TypedArrayAttrBase<Wsp_PatchAttr, "array of wsp patches">;

#endif // WSP_DIALECT_WSP_IR_WSPATTRS_TD
