//===- WspInterfaces.td - wsp op interfaces --------------*- tablegen -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPINTERFACES_TD
#define WSP_DIALECT_WSP_IR_WSPINTERFACES_TD

include "mlir/IR/OpBase.td"

def Wsp_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::mlir::wsp";
  let description = [{
    A collective between the ranks of a device grid (`wsp.all_reduce`,
    `wsp.all_gather`, `wsp.all_to_all`, `wsp.all_slice`): every rank calls
    it, it returns the runtime's status (an `i32`), and its optional `after`
    operand is the status of the work before it on this rank, with which a
    rank joins the call not ready. The one list of the collectives: the
    llm lowering chains them into a function's status, the emitters ask
    whether a program has any.
  }];
  let methods = [
    InterfaceMethod<"The status of the work before the call, if any.",
                    "::mlir::MutableOperandRange", "getAfterMutable">,
    InterfaceMethod<"The shard.grid the call runs on.",
                    "::mlir::FlatSymbolRefAttr", "getGridAttr">,
    InterfaceMethod<"The grid axes of the call's rank groups (null: the "
                    "whole grid).",
                    "::mlir::DenseI16ArrayAttr", "getGridAxesAttr">,
  ];
}

#endif // WSP_DIALECT_WSP_IR_WSPINTERFACES_TD
