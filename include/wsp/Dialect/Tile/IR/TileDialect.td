//===- TileDialect.td - tile dialect definition ----------*- tablegen -*-===//
//
// The tile dialect: AICore kernels as typed tiles on the A2/A3 memory
// hierarchy, one op per pto-isa instruction.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_DIALECT_TILE_IR_TILEDIALECT_TD
#define WSP_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::wsp::tile";
  let summary = "Tiles on the AICore memory hierarchy (pto-isa's model)";
  let description = [{
    The `tile` dialect sits below `wsp`: it writes the body of an AICore
    kernel as operations on tiles, two-dimensional blocks of elements that
    live in one on-chip buffer of an A2/A3 AICore:

    | location | buffer | unit | holds |
    |---|---|---|---|
    | `vec` | UB (192 KiB) | vector core | operands of vector instructions |
    | `mat` | L1 (512 KiB) | cube core | matmul operands staged from GM |
    | `left` | L0A (64 KiB) | cube core | the left matmul operand |
    | `right` | L0B (64 KiB) | cube core | the right matmul operand |
    | `acc` | L0C (128 KiB) | cube core | the matmul accumulator |

    Global memory (GM) is plain `memref`s. Every op mirrors one instruction
    of pto-isa (hw-native-sys/pto-isa) in name, operand order (destination
    first) and semantics, and runs on one pipe of its core (`mte2` loads,
    `mte1` moves into L0, `m` the cube, `v` the vector unit, `mte3` stores
    from UB, `fix` stores from L0C). Ops on different pipes run in parallel
    and are ordered only by `tile.set_flag`/`tile.wait_flag`; the cube and
    vector cores of a block only by `tile.sync_set`/`tile.sync_wait`.

    A `tile.alloc` names one statically allocated buffer region (an
    allocation site); `tile-plan-memory` assigns its byte offset inside its
    buffer and checks the A2/A3 budgets.

    One discardable attribute: `tile.fuse = N : i64` (N >= 2) on the first
    op of a run of N ops the CPU simulation computes in registers, set by
    `tile-mark-fusion`; the device form ignores it.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    void registerTypes();
    /// The discardable attribute that marks a fused run (tile-mark-fusion).
    static constexpr ::llvm::StringLiteral kFuseAttrName = "tile.fuse";
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // WSP_DIALECT_TILE_IR_TILEDIALECT_TD
