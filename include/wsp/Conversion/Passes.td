//===- Passes.td - conversions between wsp's dialects ------*- tablegen -*-===//

#ifndef WSP_CONVERSION_PASSES_TD
#define WSP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLlmToWsp : Pass<"convert-llm-to-wsp", "::mlir::ModuleOp"> {
  let summary = "Lower llm operators to wsp workloads of tile kernels";
  let description = [{
    Replaces every `llm` op of a function by its workload, at the op:

    * a planning sequence in the function (run-time shape checks that
      return INVALID_PARAMS (3) before anything is written, chunk planning
      and descriptor generation into host scratch, and a `wsp.dispatch`
      that runs only on a written plan);
    * a `wsp.tier_config` and a tile-level `wsp.kernel` beside the
      function, named `<function>_<op>_<n>`.

    The function becomes a planning function: it returns the spec's
    PlanResult code as an `i32` (0 when every op ran; otherwise the first
    failing op's code, and the ops after it do not run). It must have no
    results of its own, and its `llm` ops must sit in its body's top block.

    The kernels are written as IR text with the op's static sizes filled
    in and parsed into the module (a library of kernels, as torch-mlir
    keeps its shape library); every op they contain carries the `llm` op's
    location. An op this pass cannot lower yet, or one whose shapes its
    kernel cannot take (for instance a dynamic `hidden_size`), is a
    diagnostic at the op. docs/rationale/Operators.md says which ops lower
    and how each is decomposed.
  }];
  let dependentDialects = [
    "::mlir::wsp::WspDialect", "::mlir::wsp::tile::TileDialect",
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
  let options = [
    Option<"vectorCores", "vector-cores", "int64_t", "48",
           "Vector cores a row-wise operator's work units are spread over">
  ];
}

#endif // WSP_CONVERSION_PASSES_TD
