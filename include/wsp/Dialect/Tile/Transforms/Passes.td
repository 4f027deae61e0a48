//===- Passes.td - tile passes ---------------------------*- tablegen -*-===//

#ifndef WSP_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define WSP_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileFoldRowReductions : Pass<"tile-fold-row-reductions"> {
  let summary = "Reduce long rows in two steps over reshaped views";
  let description = [{
    A row reduction (`tile.rowsum`, `tile.rowmax`, `tile.rowmin`) of a long
    row-major vec tile [R x C] runs in pto-isa as one vector instruction
    per 256-byte repeat of a row, each over the R rows: C / 64 instructions
    for f32. Seen as [kR x C/k] (`tile.reshape`: the same bytes, each row
    split into k consecutive pieces, k = 32 bytes / element), the same
    elements take C / (64 k) instructions over kR rows, leaving k partial
    results per row; those, seen as [R x k] (one 32-byte row each), are
    reduced by a second instruction of one repeat per row. pto-isa's own
    fast paths for static shapes ([8 x 1024] as [128 x 64] groups) do the
    same.

    Rewritten: a reduction whose `src` has a static shape, whole valid
    rows (valid columns = C), C a multiple of k x k, at least one 256-byte
    repeat per piece (C / k elements >= 256 bytes: C >= 512 for f32), and
    rows of at least `min-repeats` repeats (default 16: C >= 1024 for
    f32, the row kernels' chunks). Shorter rows gain less on the device,
    and the CPU simulation, which computes both steps in the run of
    vector instructions around them (`tile-mark-fusion`), still checks
    one more instruction for each (docs/rationale/Backend.md).

    The views, the count and the partials' tile are made before the run
    of instructions the reduction is in (at the start of its block, or
    after what they view), so that the two steps take the reduction's
    place in the run. The partial results get a `col_major` [kR x 1] tile
    of their own; a
    dynamic valid row count n of `src` becomes kn for the pieces
    (`tile.subview ... valid`, as `tile.reshape` keeps no run-time extent).
    `tmp` is reshaped like `src` (still scratch of its shape); the second
    step uses the partials as its own scratch, as a reduction may.

    A sum adds in another order (k partial sums of C/k, then their sum),
    so results may differ in the last bits; a maximum or minimum is exact.
    Runs before `tile-pipeline` and `tile-plan-memory`, which place the new
    tile, and `tile-insert-sync`, which orders the two steps.
  }];
  let options = [
    Option<"minRepeats", "min-repeats", "int64_t", "16",
           "Rewrite rows of at least this many 256-byte repeats, 16 being "
           "a row of 1024 f32 (default 16)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numFolded", "folded", "Row reductions rewritten in two steps">,
  ];
}

def TilePipeline : Pass<"tile-pipeline"> {
  let summary = "Overlap the iterations of loops over tiles that ask for it";
  let description = [{
    Software pipelining on tiles. An `scf.for` marked `tile.stages = N`
    runs N iterations in flight: each tile allocated in its body whose
    contents stay in one iteration, and that a transfer (a load fills it, a
    store drains it, a move hands it on) and another pipe touch, gets N
    copies
    (`buffers(N)`) and takes copy k mod N in iteration k (`slot(%k)`).
    Iteration k + 1's loads then fill another copy while iteration k's
    instructions still read theirs: `tile-insert-sync` orders each copy
    with its own event id (`event(e + %slot)`), primes the copies' events
    before the loop and drains them after it (the prologue and the
    epilogue of the pipeline), and `tile-plan-memory` reserves the N
    copies against the budgets. In a loop that does not count from 0 by
    1, the iteration number is `(iv - lb) / step`, computed at the body's
    start.

    A tile's contents stay in one iteration when the first instruction
    that touches it in the loop body (in program order) writes it without
    reading it and runs in every iteration (inside no branch, and inside
    inner loops only where they run at least once: constant bounds): every
    other access comes after it, so no iteration reads what an earlier one
    left. Other tiles (accumulators
    carried from iteration to iteration, scratch only the vector pipe
    uses, tiles already multi-buffered) keep one copy.

    `tile.min_stages = M` beside it: where N copies would not fit the
    kernel's on-chip buffers, the loop takes the most stages from N - 1
    down to M that fit (`report=true`: a remark says which); without it,
    or if even M
    does not fit, N stay and `tile-plan-memory` reports the tile, the
    buffer and the bytes. The attributes are removed once applied.
  }];
  let options = [
    Option<"report", "report", "bool", "false",
           "Emit a remark per loop that takes fewer stages than it asks for "
           "(default false)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TilePlanMemory : Pass<"tile-plan-memory"> {
  let summary = "Place every tile in its on-chip buffer and check the budgets";
  let description = [{
    For each function or kernel, gives every `tile.alloc` without an offset
    a byte offset in its buffer (UB for `vec`, L1 for `mat`, L0A/L0B/L0C for
    `left`/`right`/`acc`): sites in program order, 32-byte aligned, each
    reserving `buffers x bytes` (double buffering counts twice). Sites that
    already have an offset keep it (two of them sharing bytes is an error);
    the others start after them. Sites do not share bytes: a site's
    contents persist across the executions of its op, so two sites are
    live at once whenever both are used.

    A kernel whose tiles do not fit a buffer is an error at the first site
    that overflows, naming the tile, the buffer, the bytes the kernel needs
    and the A2/A3 budget (UB 192 KiB, L1 512 KiB, L0A/L0B 64 KiB, L0C
    128 KiB: pto::runtime's hardware table). A tile with a dynamic static
    extent is an error (tier specialization fixes extents first).
    `report=true` adds a remark per function with tiles, with the bytes
    used per buffer.

    Like every tile pass, it runs on any op, on the functions and kernels
    in it (the op itself included): on a module, or nested on each
    function, as the default pipeline runs the tile stage.
  }];
  let options = [
    Option<"report", "report", "bool", "false",
           "Emit a remark per function with tiles: its bytes per buffer "
           "(default false)">,
  ];
}

def TileInsertSync : Pass<"tile-insert-sync"> {
  let summary = "Order the pipes and cores of tile kernels with flags";
  let description = [{
    Inserts the synchronization a tile kernel needs on A2/A3, found from the
    producer/consumer pairs of its tiles and global-memory buffers (read
    after write, write after read, write after write):

    * between two pipes of one core, `tile.set_flag` after the producer and
      `tile.wait_flag` before the consumer;
    * within the vector pipe, `tile.barrier v` before an instruction that
      reads what an earlier one wrote unless both are element-wise over the
      same tile (a reduction, a broadcast or another shape needs it);
    * between the cube and the vector core of a block (through a global
      workspace), `tile.sync_set` after the producer and `tile.sync_wait`
      before the consumer.

    The model follows a function's body and `scf.for`, `scf.while` and
    `scf.if` (one block per region), and tiles traced to their `tile.alloc`
    or an argument; other control flow around tile instructions, a tile
    yielded by a region, or a pair between the two regions of one
    `scf.while` iteration is an error at the op.

    Pairs in different blocks are synchronized at their closest common
    block, so every path sets and waits once. A pair across loop iterations
    gets its flag set right after the producer (or after the loop or branch
    around it) and waited before the consumer in the next iteration, with
    one flag set before the loop and waited after it;
    for a multi-buffered tile whose slot is a loop's induction variable
    the flag is per slot (`event(e + %slot)`), so iteration i only waits
    for iteration i - buffers, and is primed before and waited after the
    loop that picks the slot (also for a pair carried by a loop nested in
    it). A synchronization already implied (by
    another flag, or by program order on one pipe) is not repeated. Event
    ids are allocated per pipe pair (8) and per block (16 cross-core),
    keeping clear of every id live between the new set and its wait (an
    existing pair around them included); more live at once than there are
    ids is an error. Existing flags are kept and taken into account. Every path out of a
    function ends with `tile.barrier all` and, when the function uses both
    cores, a cross-core handshake: a kernel runs once per work descriptor
    on the same core, and one invocation must not overtake the previous.
    Flags placed early can be made unnecessary by flags placed later;
    `prune` (default) then removes the inserted flags the final program
    does not need (a set of them that is redundant together).

    A block's two vector cores run the same vector code and the cube's
    `tile.sync_wait` takes one set from each, so a vector-side cross-core
    flag must not land under an `scf.if`, `scf.for` or `scf.while` whose
    condition or bounds depend on `tile.subblock_id`: that is an error at
    the access the flag was for (exchange with the cube outside it).

    Like every tile pass, it runs on any op, on the functions and kernels
    in it (the op itself included): on a module, or nested on each
    function, as the default pipeline runs the tile stage.
  }];
  let options = [
    Option<"prune", "prune", "bool", "true",
           "Remove inserted flags the result does not need (default true)">,
  ];
}

def TileCheckSync : Pass<"tile-check-sync"> {
  let summary = "Contract: every producer/consumer pair of a tile kernel is "
                "ordered, and no flag is redundant";
  let description = [{
    Checks, without changing IR, what `tile-insert-sync` establishes, over
    two consecutive invocations of each function (a kernel runs once per
    work descriptor on the same core): each conflicting pair of tile
    accesses on different pipes or cores is ordered by flags (an error at
    the consumer naming the producer, the pipes and the buffer otherwise),
    every `tile.wait_flag` has a matching `tile.set_flag` on every path
    and no set is left unwaited (errors), and, with `redundant` (default),
    no flag could be removed without breaking an order (a warning at the
    redundant pair's set; of several that order the same pairs, all but
    one). A vector-side `tile.sync_set`/`tile.sync_wait` under a branch or
    loop whose condition or bounds depend on `tile.subblock_id` is an
    error: the block's two vector cores could pass it a different number
    of times, and the cube's wait takes one set from each. The redundancy search solves the kernel once per flag; the
    default pipeline turns it off, since `tile-insert-sync` has just run
    the same search and removed what it found.

    Without the redundancy search, a function that `tile-insert-sync`
    proved (its pruning's last solve is this check, on the program it
    left) and that no pass changed since is not solved again: the
    insertion keeps its proofs as an analysis, which any pass that changes
    IR drops. `report` says, in a remark per function, which of the two it
    was.

    Like every tile pass, it runs on any op, on the functions and kernels
    in it (the op itself included): on a module, or nested on each
    function, as the default pipeline runs the tile stage.
  }];
  let options = [
    Option<"redundant", "redundant", "bool", "true",
           "Warn at flags the kernel does not need (default true)">,
    Option<"report", "report", "bool", "false",
           "Emit a remark per function: solved, or proved by "
           "tile-insert-sync (default false)">,
  ];
}

def TileCheckPlanned : Pass<"tile-check-planned"> {
  let summary = "Contract: tile kernels have static tiles placed in their "
                "buffers";
  let description = [{
    Fails, naming the op, on a tile with a `?` static extent (a result or
    an argument), a `tile.alloc` without an offset, or one placed past its
    buffer's end: what the emitters need. It first verifies the op it runs
    on (the module, or nested, a function), as every stage contract does
    (see wsp-check-planned).

    Like every tile pass, it runs on any op, on the functions and kernels
    in it (the op itself included): on a module, or nested on each
    function, as the default pipeline runs the tile stage.
  }];
}

def TileMarkFusion : Pass<"tile-mark-fusion"> {
  let summary = "Mark runs of element-wise vector instructions the CPU "
                "simulation computes in registers";
  let description = [{
    A preparation for the CPU-simulation emitter (as CIRCT's
    PrepareForEmission is for ExportVerilog): marks each maximal run of
    vector instructions in one block that the simulation can compute
    sixteen columns of a row at a time, its intermediate values in
    registers, with `tile.fuse = N` on the run's first op (N ops, the
    first included). The device runs the instructions as they are and
    ignores the mark; the simulation runs them for their checks, so the
    synchronization checker still sees every instruction.

    A run holds f32 arithmetic (`add`, `sub`, `mul`, `div`, `max`, `min`,
    `abs`, their scalar forms, `rowexpand*` and `colexpand*` with a float
    row or column), conversions with `rint` rounding between bf16 and f32
    and along f32 -> i32 or i16 -> f16 -> i8, the row reductions `rowsum`,
    `rowmax` and `rowmin` (at most four; also the two steps of one in
    pieces that tile-fold-row-reductions makes, the second after the
    first), `load` and `store` of its tiles'
    rows (not transposed, not paged), the `load` of a column broadcast's
    f32 row that it then reads only as that broadcast, and between them
    `set_flag`, `wait_flag` and `barrier v`, which move no data; at least
    two instructions and at most 64 ops (a longer chain becomes several
    runs), neither end a synchronization op. Its element-wise tiles are
    placed row-major vec tiles of one static shape, whose columns are whole
    groups of 16, and one valid extent (the same constants or values); a
    reduction's result is an f32 [rows x 1] tile of those rows; any of
    them may be one copy of a multi-buffered tile, whose copies' bytes all
    count; any two of its tiles are the same bytes with the same type or
    disjoint; no
    broadcast tile or reduction result is written and otherwise touched in
    it. Loads of columns left at the end of a run start the next one.
    Existing marks are replaced.

    What the emitter stores at the end of a run follows from the marks
    (wsp/Dialect/Tile/Transforms/Fusion.h): a tile the run writes is left
    in registers when every access to its bytes is in some run and each
    run reads it only after writing exactly its bytes. The run's loads and
    stores of global memory are the lanes', which the simulation checks
    at run time for blocks that overlap (else it runs the instructions).

    Like every tile pass, it runs on any op, on the functions and kernels
    in it (the op itself included): on a module, or nested on each
    function, as the default pipeline runs the tile stage.
  }];
}

#endif // WSP_DIALECT_TILE_TRANSFORMS_PASSES_TD
