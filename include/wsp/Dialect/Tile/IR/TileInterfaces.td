//===- TileInterfaces.td - tile op interfaces ------------*- tablegen -*-===//

#ifndef WSP_DIALECT_TILE_IR_TILEINTERFACES_TD
#define WSP_DIALECT_TILE_IR_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_PipeOpInterface : OpInterface<"PipeOpInterface"> {
  let cppNamespace = "::mlir::wsp::tile";
  let description = [{
    An op that runs on one pipe of one core of an AICore block. The pipe
    orders it: ops of one pipe run in program order, ops of different pipes
    only as `tile.set_flag`/`tile.wait_flag` say. What it reads and writes
    is its memory effects on tile and memref operands.
  }];
  let methods = [
    InterfaceMethod<"The pipe the op runs on.", "::mlir::wsp::tile::Pipe",
                    "getPipe">,
    InterfaceMethod<"The core the op runs on.", "::mlir::wsp::tile::Unit",
                    "getUnit">,
  ];
}

#endif // WSP_DIALECT_TILE_IR_TILEINTERFACES_TD
