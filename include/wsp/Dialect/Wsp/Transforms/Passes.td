//===- Passes.td - wsp passes ----------------------------*- tablegen -*-===//

#ifndef WSP_DIALECT_WSP_TRANSFORMS_PASSES_TD
#define WSP_DIALECT_WSP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WspTierCoverage : Pass<"wsp-tier-coverage", "::mlir::ModuleOp"> {
  let summary = "Report the lengths each tier configuration leaves uncovered";
  let description = [{
    Gaps in a tier configuration are legal, but a length that falls in one
    is `UNSUPPORTED_SIZE` at run time. This analysis emits one remark per
    `wsp.tier_config`, at the op, naming the uncovered ranges of lengths in
    `[min-length, max-length]` (by default every positive 32-bit length),
    or saying that the range is fully covered. It changes no IR.

    With `warn-gaps`, it warns instead, and only about gaps between a
    configuration's tiers (tiers `[1, 64]` and `[100, 4096]` leave 65-99):
    lengths below the lowest tier or above the highest are the
    configuration's bounds, a gap inside them is most likely a typo.
    `wsp-pipeline` runs it so.

    ```
    $ wsp-opt --wsp-tier-coverage="max-length=200000" tiers.mlir
    remark: @DecodeAttentionTiers leaves lengths [131073, 200000] uncovered
            (UNSUPPORTED_SIZE at run time)
    ```
  }];
  let options = [
    Option<"minLength", "min-length", "int64_t", "1",
           "Smallest length of interest (default 1)">,
    Option<"maxLength", "max-length", "int64_t", "2147483647",
           "Largest length of interest (default 2147483647)">,
    Option<"warnGaps", "warn-gaps", "bool", "false",
           "Warn only about the lengths between a configuration's lowest "
           "and highest tier that no tier covers (what wsp-pipeline runs), "
           "and say nothing when none are (default false)">,
  ];
}

def WspMergeKernels : Pass<"wsp-merge-kernels", "::mlir::ModuleOp"> {
  let summary = "Keep one of each set of identical kernels, and of the "
                "private functions that launch them";
  let description = [{
    A model lowers every layer's operators to kernels of their own, and
    most of them are the same: the tiny model's 60 kernels are 16 distinct
    ones, and its 30 launch functions 15. Everything after lowering
    (planning, tier specialization, the tile stage, emission, the C++
    compiler) is paid per kernel and function, so this pass keeps the
    first of each set of identical ones and points every use at it:

    * `wsp.kernel`s whose bodies are equivalent (the same ops, attributes,
      types and block structure; locations ignored) and whose type, tier
      configuration (what it holds, not its name), tier, constants,
      argument and result attributes and other attributes are equal are
      one: the first keeps its name.
    * The tier configuration of a kernel merged away goes with it: its
      uses (the kernel's plans) name the kept kernel's configuration.
      Configurations of kernels that stay are left alone, equal or not.
    * Then private `func.func`s with bodies that have become identical
      (the layers' launch functions, which now plan and dispatch the same
      kernels), compared the same way: their type, argument, result and
      other attributes and their bodies. One round: functions that call
      functions merged here are not compared again.

    Uses are rewritten on the ops that declare symbol uses
    (`SymbolUserOpInterface`: dispatches, plans, kernel tables, steps); a
    kernel's body names no kernel or tier configuration. The merged
    symbols are erased. The result is what the module computed: two
    identical kernels run the same code on the same arguments.

    ```mlir
    wsp.tier_config @a_tiers [#wsp.tier<0, [1, 2147483647]>]
    wsp.kernel @a tiers(@a_tiers) (%d: !wsp.descriptor<moe>) { wsp.return }
    wsp.tier_config @b_tiers [#wsp.tier<0, [1, 2147483647]>]
    wsp.kernel @b tiers(@b_tiers) (%d: !wsp.descriptor<moe>) { wsp.return }
    // after: @a_tiers and @a only; `wsp.dispatch @b` is `wsp.dispatch @a`,
    // `wsp.generate ... tiers(@b_tiers)` is `... tiers(@a_tiers)`.
    ```
  }];
  let statistics = [
    Statistic<"numKernelsMerged", "kernels-merged",
              "Kernels replaced by an identical one">,
    Statistic<"numConfigsMerged", "tier-configs-merged",
              "Tier configurations that went with a merged kernel">,
    Statistic<"numFunctionsMerged", "functions-merged",
              "Private functions replaced by an identical one">,
  ];
}

def WspPlan : Pass<"wsp-plan", "::mlir::ModuleOp"> {
  let summary = "Plan every planning op: at compile time when the lengths "
                "are known, else as explicit AICPU code";
  let description = [{
    For each `wsp.plan_chunk_size` and `wsp.generate`:

    * **Static.** When the lengths are a constant global and the batch, head
      count and chunk are constants, the pass runs `pto::runtime`'s own
      `WorkPlanner` (over a `TierList` built from the IR), so the result is
      the runtime's by construction: the chunk size becomes a constant and
      the descriptors a `wsp.descriptor_table` that `wsp.load_descriptors`
      copies into the buffer.
    * **Dynamic.** Otherwise it lowers the op into `scf`/`arith`/`memref`
      IR: the binary search of spec §6.3.4 and the generation loop of
      §6.3.5 with the runtime's validation and status codes, specialized to
      what is known (config constants, the pattern's parameter order, the
      chunk balancing mode, tier bounds as a branch-free compare chain; a
      constant batch or head count folds in later canonicalization).
    * **Balanced.** A `wsp.generate` with `strategy = balanced` is planned
      by the runtime's balanced planner itself: statically into a table
      with the work lists (and the merge plan, unless the op asked for the
      plan as cuts; its dispatches' `expand` is dropped, there being
      nothing to expand), dynamically as `wsp.plan_balanced`, a call of
      the same planner from the AICPU code (`plan_sweep_into` for the plan
      as cuts).
    * **Updates.** A `wsp.update_plan` is lowered to two passes over the
      requests, with the generation's own chunk layout: one that decides
      whether the plan of the new lengths is valid and keeps the chunk
      (searched: the counts at the chunk and at one less) and finds the
      first row whose chunk count changed, then, only if so, one that
      rewrites in place every row from that one on and the changed chunks
      of the rows before it.

    It diagnoses what it can prove wrong: a constant length no tier covers,
    a static workload larger than a static buffer, invalid constant inputs;
    with declared bounds (`lengths in [lo, hi]`) a range entirely in a gap
    is an error and a range that touches a gap a warning. Every
    `wsp.dispatch` of the generated buffer gets `reachable_tiers`: the
    tiers the static table holds, or those a length in the bounds can
    select. `wsp.select_tier` ops are lowered to compare chains too.
  }];
  let options = [
    Option<"staticPlanning", "static-planning", "bool", "true",
           "Plan at compile time when the lengths are constants "
           "(default true)">,
    Option<"report", "report", "bool", "false",
           "Emit a remark summarizing what was planned (pass statistics "
           "are compiled out of release LLVM builds; default false)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numStaticPlans", "static-plans",
              "Planning ops planned at compile time">,
    Statistic<"numStaticDescriptors", "static-descriptors",
              "Descriptors planned at compile time">,
    Statistic<"numPlannersEmitted", "planners-emitted",
              "Planning ops lowered to AICPU code">,
  ];
}

def WspLowerSpaces : Pass<"wsp-lower-spaces", "::mlir::ModuleOp"> {
  let summary = "Lower iteration-space queries to index arithmetic";
  let description = [{
    Replaces `wsp.get_dim`, `wsp.total_work` and `wsp.index_to_coords` by
    the sizes that built the space (constants for static dimensions) and
    `arith` products, divisions and remainders (dimension 0 fastest), then
    erases the dead `wsp.space` / `wsp.set_dim` ops. A space whose sizes
    cannot be traced to a `wsp.space` (a function argument, say) is an
    error at the query.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def WspLowerMasks : Pass<"wsp-lower-masks", "::mlir::ModuleOp"> {
  let summary = "Lower attention masks to branch-free arithmetic";
  let description = [{
    `wsp.mask_range` becomes the range a query attends with a block cache
    (causal active columns, the window's first slot clamped at 0).
    `wsp.mask_value` becomes branch-free index arithmetic (gen_mask_tkg §3:
    `normal = ge * lt`, `wrap = max(ge, lt)`, `final = normal + is_wrap *
    (wrap - normal)`; prior vs active columns by a select), inline where the
    kernel uses it. `wsp.gen_mask` becomes the standalone mask kernel: loops
    over (batch, query, column) storing that value as uint8, with the LNC2
    batch or sequence offsets of its core. No per-element control flow.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def WspLowerPreconditions
    : Pass<"wsp-lower-preconditions", "::mlir::ModuleOp"> {
  let summary = "Check a planning function's run-time preconditions first";
  let description = [{
    `wsp.all_in_range` and `wsp.pages_in_range` become loops that read only
    what their arrays hold. In each function with `wsp.require`, the
    conditions are and-ed where the last one stands, and everything after
    it (the planning, the dispatches, the return) moves into an `scf.if`
    of the result, whose other branch returns INVALID_PARAMS (and zeros for
    any other result): nothing is written and no kernel runs unless every
    precondition holds.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def WspSpecializeTiers : Pass<"wsp-specialize-tiers", "::mlir::ModuleOp"> {
  let summary = "Clone tiered kernels per reachable tier and build their "
                "O(1) dispatch tables";
  let description = [{
    For each `wsp.dispatch` of a tier-generic `wsp.kernel`, clones the
    kernel once per tier its descriptors can carry (`reachable_tiers`, or
    every tier when nothing is known), marks each clone `tier(N)`,
    substitutes the tier id and tier constants, folds, and points the
    dispatch at a new `wsp.kernel_table` of the clones (spec §7.2-7.3).
    Unreachable tiers are pruned. Tiers whose specializations come out the
    same (tile sizes and every other tier constant equal, and nothing else
    tier-dependent) share the first one: one kernel, several table entries.
    When a kernel never reads `wsp.tier_id`, a tier whose constants equal
    an earlier tier's is given that tier's clone without being cloned and
    folded itself (the same result, made once). Each core group of a `wsp.mpmd` gets the specializations its own
    descriptors need; identical sets share a table. Generic kernels left
    without users are erased.
  }];
  let options = [
    Option<"report", "report", "bool", "false",
           "Emit a remark per table naming specialized and pruned tiers "
           "(default false)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numSpecialized", "tiers-specialized",
              "Kernel specializations created">,
    Statistic<"numFolded", "tiers-folded",
              "Tiers served by another tier's identical specialization">,
    Statistic<"numPruned", "tiers-pruned",
              "Tier specializations pruned as unreachable">,
  ];
}

def WspKeepStepPlans : Pass<"wsp-keep-step-plans", "::mlir::ModuleOp"> {
  let summary = "Give each launch a step table replays a plan kept from "
                "call to call";
  let description = [{
    A `wsp.step` table calls the same launches token after token, and most
    of them plan from lengths that do not change between tokens (a norm's
    or a matmul's token count); attention's KV lengths grow by one. For
    each launch a captured function calls, the pass makes a variant,
    `@<launch>_kept`, that the table calls instead (`wsp.replay_with` on
    the `func.call`): its descriptor buffer and a record of what it was
    planned from are arguments, storage the table keeps per command, and
    its `wsp.generate` (with the `wsp.plan_chunk_size` that feeds it) runs
    only when the lengths or the batch, head count, chunk or queries
    differ from the last call's. A plan is a function of those alone, so
    the descriptors dispatched are the ones a fresh plan would write.

    An attention plan whose lengths or batch moved (a decode step: every
    KV length one more; requests joining and leaving) is updated in place
    first: `wsp.update_plan`, from the batch and the chunk the plan used,
    rewrites only what moved (the rows that changed, and every row from
    the first whose chunk count changed) when the chunk stays the one the
    plan's `wsp.plan_chunk_size` picks; the plan runs when it does not.
    Plans of other patterns (token counts, which a step does not grow) are
    compared only.

    With `rows` (the default), an attention plan whose dispatches are grids
    or row_affine is kept as rows (`wsp.generate ... rows`, a fourth buffer
    `planned_rows`): the update then writes the lengths that changed and
    the first work ids from the first row whose chunk count changed, no
    descriptor, and the dispatches' cores make their descriptors
    (`expand_rows`). `rows=false` keeps the descriptors themselves.

    The function a user calls every token keeps calling the original
    launch, which plans every call. A launch is left alone (the table
    re-plans it) when its plan is not one `wsp.generate` into a
    descriptor buffer of its own: a static `memref.alloca` of lengths and
    of descriptors, the buffer read only by `wsp.dispatch` without
    `expand`, and no balanced-planner outputs (`cores`, `merges`, `cuts`,
    `q_lens`).

    ```mlir
    // The table's call:
    %s = func.call @rms_norm_0_launch(%x, %w, %y) {wsp.replay_with = @rms_norm_0_launch_kept}
    // The variant: the plan's storage, then the record
    // [planned, count, status, batch, heads, chunk, queries, chunk used].
    func.func private @rms_norm_0_launch_kept(%x: ..., %w: ..., %y: ...,
        %descs: memref<48x!wsp.descriptor<moe>>, %lens: memref<1xi32>,
        %record: memref<8xi64>) -> i32
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"rows", "rows", "bool", /*default=*/"true",
           "Keep attention plans as rows, which the cores expand (false: "
           "keep their descriptors) (default true)">,
  ];
  let statistics = [
    Statistic<"numKept", "plans-kept", "Launches given a kept plan">,
    Statistic<"numLeft", "plans-left",
              "Launches a table re-plans (their plan is not kept)">,
  ];
}

def WspSetTarget : Pass<"wsp-set-target", "::mlir::ModuleOp"> {
  let summary = "Record the emission target on the module";
  let description = [{
    Sets `wsp.target` on the module to `ascend` or `cpusim`, which the
    emitter reads.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"cpusim\"",
           "ascend or cpusim (default cpusim)">,
  ];
}

def WspCheckPlanned : Pass<"wsp-check-planned", "::mlir::ModuleOp"> {
  let summary = "Contract: no unplanned planning op remains";
  let description = [{
    Fails, naming each op, if a `wsp.plan_chunk_size`, `wsp.generate`,
    `wsp.select_tier` or an iteration-space op survived planning.
    Like every stage contract it first verifies the module (the op
    verifiers): the drivers that run the pipeline (wspc, the Python
    package) turn off the pass manager's verification after every pass and
    rely on the contracts to verify at each stage's end.
  }];
}

def WspCheckSpecialized : Pass<"wsp-check-specialized", "::mlir::ModuleOp"> {
  let summary = "Contract: no tier-generic kernel remains";
  let description = [{
    Fails, naming each op, on a tier-generic `wsp.kernel`, a `wsp.tier_id`
    or `wsp.tier_constant` left in a kernel, or a `wsp.dispatch` that runs
    a generic kernel instead of a specialized one or a `wsp.kernel_table`.
    It first verifies the module, as wsp-check-planned.
  }];
}

def WspCseCanonicalize : Pass<"wsp-cse-canonicalize"> {
  let summary = "Merge common subexpressions, then canonicalize only the "
                "ops that now use a merged value";
  let description = [{
    MLIR's CSE (`cse`), then the canonicalization patterns and folders
    (`canonicalize`, without region simplification) applied to the ops
    whose operands CSE replaced, and to whatever their rewriting changes in
    turn (`applyOpPatternsGreedily`), instead of to every op. For IR that
    was canonical before CSE (the default pipeline runs it after
    `canonicalize` and `wsp-specialize-tiers`, whose clones come out
    folded), that is what `cse` followed by `canonicalize` gives, at the
    cost of what CSE changed: a function CSE left as it was is not visited
    again. Runs on any op; the pipeline nests it on each top-level op.
  }];
}

#endif // WSP_DIALECT_WSP_TRANSFORMS_PASSES_TD
