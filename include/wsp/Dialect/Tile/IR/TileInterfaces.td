//===- TileInterfaces.td - tile op interfaces ------------*- tablegen -*-===//

#ifndef WSP_DIALECT_TILE_IR_TILEINTERFACES_TD
#define WSP_DIALECT_TILE_IR_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_PipeOpInterface : OpInterface<"PipeOpInterface"> {
  let cppNamespace = "::mlir::wsp::tile";
  let description = [{
    An instruction: an op that mirrors one pto-isa instruction and runs on
    one pipe of one core of an AICore block. The pipe orders it: ops of one
    pipe run in program order, ops of different pipes only as
    `tile.set_flag`/`tile.wait_flag` say. What it reads and writes is its
    memory effects on tile and memref operands.

    Its facts are declared once, on the op (`Tile_InstrOp` in TileOps.td,
    stated in each op's documentation), and read here: by the sync
    analysis (pipes, element-wise operands), `tile-mark-fusion` (the
    element-wise form and operation) and the emitters (the instruction).
  }];
  let methods = [
    InterfaceMethod<"The pipe the op runs on.", "::mlir::wsp::tile::Pipe",
                    "getPipe">,
    InterfaceMethod<"The core the op runs on.", "::mlir::wsp::tile::Unit",
                    "getUnit">,
    StaticInterfaceMethod<[{
      pto-isa's name for the instruction (`TADD`, `TROWSUM`; `GetValue` and
      `SetValue`, a tile's scalar access).
    }], "::llvm::StringRef", "getInstructionName">,
    StaticInterfaceMethod<[{
      How many of the op's operands, from the first, it accesses element by
      element: element (r, c) of one only with element (r, c) of the others
      (its `dst` and `src` among them). 0 for an instruction that is not
      element-wise.
    }], "unsigned", "getNumElementwiseOperands">,
    StaticInterfaceMethod<"The op's element-wise form (none if it has none).",
                          "::mlir::wsp::tile::LaneKind", "getLaneKind">,
    StaticInterfaceMethod<[{
      What the op computes on each element, or combines a reduced row or
      column with (none if neither).
    }], "::mlir::wsp::tile::ElementwiseKind", "getElementwiseKind">,
  ];
  let extraClassDeclaration = [{
    /// Whether the op accesses operand `index` element by element.
    bool isElementwiseOperand(unsigned index) {
      return index < getNumElementwiseOperands();
    }
  }];
}

#endif // WSP_DIALECT_TILE_IR_TILEINTERFACES_TD
