//===- LlmDialect.td - llm dialect definition ------------*- tablegen -*-===//
//
// The llm dialect: the operators of an LLM inference engine (seed 002), one
// op per operator, on buffers.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_DIALECT_LLM_IR_LLMDIALECT_TD
#define WSP_DIALECT_LLM_IR_LLMDIALECT_TD

include "mlir/IR/OpBase.td"

def Llm_Dialect : Dialect {
  let name = "llm";
  let cppNamespace = "::mlir::wsp::llm";
  let summary = "The operators of LLM inference (seed 002), one op each";
  let description = [{
    The `llm` dialect is where a model author writes: one op per operator of
    the operator set (seed 002), named as the seed names them, with the
    seed's operands, attributes and rules. It sits above `wsp`: each op
    lowers to a `wsp` workload (its iteration space, chunk plan and tiers)
    whose kernels are `tile` kernels.

    Ops work on buffers (`memref`s, static or dynamic dimensions, any
    strided layout so that a head range of a packed `qkv` can be passed as a
    `memref.subview`) in destination-passing style: inputs come first, then,
    after `->`, the buffers the op writes. Caches that an op appends to are
    outputs too. Every operand is spelled with its seed name:

    ```mlir
    llm.rms_norm hidden_states(%x : memref<?x4096xbf16>)
        weight(%w : memref<4096xf32>) -> y(%y : memref<?x4096xbf16>)
        {eps = 1.0e-06 : f32}
    ```

    Shapes are checked symbolically: every dimension the seed names (for
    instance `hidden_size`) must have one static size across all operands
    that carry it; dynamic sizes are checked at run time by the planning
    function. docs/rationale/Operators.md lists what the seed left open and
    what each op chose.
  }];
}

class Llm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Llm_Dialect, mnemonic, traits>;

#endif // WSP_DIALECT_LLM_IR_LLMDIALECT_TD
