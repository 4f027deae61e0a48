//===- WspDialect.td - wsp dialect definition ------------*- tablegen -*-===//
//
// The wsp dialect: the PTO-WSP runtime model (iteration spaces, tiers, plan
// configurations, work descriptors, tiered kernels) as IR.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_DIALECT_WSP_IR_WSPDIALECT_TD
#define WSP_DIALECT_WSP_IR_WSPDIALECT_TD

include "mlir/IR/OpBase.td"

def Wsp_Dialect : Dialect {
  let name = "wsp";
  let cppNamespace = "::mlir::wsp";
  let summary = "Workload-schedule programming for dynamic LLM inference";
  let description = [{
    The `wsp` dialect models the PTO-WSP runtime (spec v4.2) as IR: size
    tiers and tier configurations, plan configurations, work descriptors and
    tiered kernels. Passes plan chunk sizes and specialize kernels per tier;
    `wsp-translate` emits the AICPU planner, the AICore kernels and a CPU
    simulation build against the `pto::runtime` header library.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::shard::ShardDialect"];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes and types (defined next to their storage
    /// classes).
    void registerAttributes();
    void registerTypes();

    /// On a call a `wsp.step` table records: the variant of the callee the
    /// table calls instead, its plan kept in storage the table holds (the
    /// callee's arguments, then static buffers; wsp-keep-step-plans).
    static constexpr ::llvm::StringLiteral kReplayWithAttrName =
        "wsp.replay_with";
  }];
}

class Wsp_Op<string mnemonic, list<Trait> traits = []>
    : Op<Wsp_Dialect, mnemonic, traits>;

#endif // WSP_DIALECT_WSP_IR_WSPDIALECT_TD
