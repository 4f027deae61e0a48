//===- TileDialect.td - tile dialect definition ----------*- tablegen -*-===//
//
// The tile dialect: AICore kernels as typed tiles on the A2/A3 memory
// hierarchy, one op per pto-isa instruction.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_DIALECT_TILE_IR_TILEDIALECT_TD
#define WSP_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

// The flag ids of `tile.set_flag`/`tile.wait_flag` (per pair of pipes of a
// core) and of `tile.sync_set`/`tile.sync_wait` (per direction between the
// cores of a block: pto::runtime::kCrossCoreFlags, as TileDialect.cpp
// asserts). The ops' verifiers and the sync analysis read them.
defvar Tile_NumFlagEvents = 8;
defvar Tile_NumCrossCoreEvents = 16;

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

    Each instruction's description ends with its facts, declared once on
    the op (`PipeOpInterface`) and read from it by the passes and the
    emitters: the pto-isa instruction it mirrors; the pipe it runs on (and
    the core that has it); the operands it accesses element by element
    (element (r, c) of one only with element (r, c) of the others: a V
    instruction that reads so a tile that one before it wrote so needs no
    V barrier after that one); its element-wise form (`LaneKind`) and what
    it computes (`ElementwiseKind`: `add` for `tile.add`, `tile.adds`,
    `tile.rowexpandadd` and `tile.colexpandadd`, and for `tile.rowsum`,
    which adds a row up). The forms, each with its operands in this order:

    | form | operands | element (r, c) of `dst` |
    |---|---|---|
    | `convert` | `dst`, `src` | `src[r, c]`, converted |
    | `binary` | `dst`, `lhs`, `rhs` | `f(lhs[r, c], rhs[r, c])` |
    | `unary` | `dst`, `src` | `f(src[r, c])` |
    | `scalar` | `dst`, `src`, `scalar` | `f(src[r, c], scalar)` |
    | `row_broadcast` | `dst`, `src`, `row`, `tmp` | `f(src[r, c], row[r, 0])` |
    | `col_broadcast` | `dst`, `src`, `col` | `f(src[r, c], col[0, c])` |
    | `row_reduce` | `dst`, `src`, `tmp` | (`dst[r, 0]`) `f` over row r of `src` |
    | `col_reduce` | `dst`, `src` | (`dst[0, c]`) `f` over column c of `src` |
    | `load` | `tile.load`'s | global memory |
    | `store` | `tile.store`'s | (global memory gets `src[r, c]`) |

    `none`: no such form (the cube, moves, fills and plain broadcasts,
    masks, indices, scalar access). No instruction declares the kinds
    `sync` (`tile.set_flag`, `tile.wait_flag`, `tile.barrier`, which move
    no data) and `load_column` (a `tile.load` of one f32 row that a
    `col_broadcast` reads): `tile-mark-fusion` tells them from the ops.

    A `tile.alloc` names one statically allocated buffer region (an
    allocation site); `tile-plan-memory` assigns its byte offset inside its
    buffer and checks the A2/A3 budgets.

    Discardable attributes:
    - `tile.fuse = N : i64` (N >= 2) on the first op of a run of N ops the
      CPU simulation computes in registers, set by `tile-mark-fusion`; the
      device form ignores it.
    - `tile.stages = N : i64` (2 <= N <= 8) on an `scf.for` over tiles:
      its iterations are to overlap, N in flight (`tile-pipeline` gives the
      tiles they load and store N copies); `tile.min_stages = M : i64`
      (1 <= M <= N) beside it lets the pipeline use fewer stages, down to
      M, where N copies do not fit the kernel's budgets.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    void registerTypes();
    /// The discardable attribute that marks a fused run (tile-mark-fusion).
    static constexpr ::llvm::StringLiteral kFuseAttrName = "tile.fuse";
    /// The stages a loop asks tile-pipeline for, and the fewest it takes.
    static constexpr ::llvm::StringLiteral kStagesAttrName = "tile.stages";
    static constexpr ::llvm::StringLiteral kMinStagesAttrName =
        "tile.min_stages";
    /// The most copies of a tile (tile.alloc buffers(N)).
    static constexpr int kMaxBuffers = 8;
    /// Flag ids per pair of pipes (set_flag, wait_flag) and per direction
    /// between the cores (sync_set, sync_wait).
    static constexpr int kNumFlagEvents = }] #
      !cast<string>(Tile_NumFlagEvents) # [{;
    static constexpr int kNumCrossCoreEvents = }] #
      !cast<string>(Tile_NumCrossCoreEvents) # [{;
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // WSP_DIALECT_TILE_IR_TILEDIALECT_TD
