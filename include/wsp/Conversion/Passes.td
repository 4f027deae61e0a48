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
    results of its own, and its `llm` ops must sit in its body's top block
    or in the branches of an `scf.if` there (nested ifs too): a program
    that chooses between two forms at run time. The ops of a branch run
    after those before the `if`, guarded the same way, and the `if` gains
    one more result, its branch's status, which the ops after it are
    guarded by (a branch without ops yields the status before it). The
    ops are named `<n>` in program order across the branches.

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
    Option<"vectorCores", "vector-cores", "int64_t",
           "::pto::runtime::kNumVectorCores",
           "Vector cores a row-wise operator's work units are spread over "
           "(default 48, the A2/A3 vector cores)">
  ];
}

def LlmSelectKvSharding : Pass<"llm-select-kv-sharding", "::mlir::ModuleOp"> {
  let summary = "Choose how each sharded attention spreads its KV cache "
                "(seed 003's rule)";
  let description = [{
    For every `llm.flash_attention_decode ... on @grid` without a
    `kv_sharding` attribute, sets it by seed 003's rule: context
    parallelism (`cp`) when the batch is smaller than the group's number of
    ranks (the grid's, or along its `grid_axes`), KV data parallelism
    (`kvdp_all_to_all`: its all_to_all form, the least bytes) otherwise;
    on a group of two axes, a batch smaller than the group but at least
    the first axis's size combines them (`kvdp_cp`: KV
    data parallel along the first, context parallel along the second, the
    seed's TP8-KVDP2-CP4 for B = 2). An attribute already there is the
    user's choice and stays. The rule needs both sizes: a dynamic batch or
    grid is a diagnostic asking for the attribute
    (docs/rationale/Sharding.md). With `report=true` a remark at each op
    it sets gives the rule's inputs (the batch, the group's ranks, the
    first axis's) and its choice.
  }];
  let options = [
    Option<"report", "report", "bool", "false",
           "Emit a remark per op with the rule's inputs and its choice "
           "(default false)">,
  ];
}

def ConvertLlmKvSharding
    : Pass<"convert-llm-kv-sharding", "::mlir::ModuleOp"> {
  let summary = "Lower sharded attention to each rank's program of "
                "collectives and local attention";
  let description = [{
    Replaces every `llm.flash_attention_decode ... on @grid kv_sharding =
    <mode>` by the rank's program of seed 003, on a grid of static size N
    (rank r, batch B). KV data parallelism (`kvdp`, c = ceil(B / N)):

    1. the query heads of every rank: `wsp.all_gather` of `q` along its
       head axis (or, with `kv_sharding = kvdp_all_to_all`, one
       `wsp.all_to_all` that sends each rank the rows of its requests, the
       seed's future optimization: the same result, 1/N of the bytes);
    2. attention of this rank's requests [r c, min(B, (r + 1) c)) with
       every head, against the rank's own pool and block table, the chunk
       size planned for the whole batch (`plan_kv_lens`);
    3. the requests of every rank: `wsp.all_gather` of the outputs along
       the batch (each rank's c rows, the last ones padding);
    4. this rank's heads: `wsp.all_slice` into `out`.

    Context parallelism (`cp`; the rank's cache holds positions
    [r bs, (r + 1) bs) of every block of N bs, bs its block size, with the
    whole table):

    1. `wsp.all_gather` of the query heads;
    2. attention of every request with every head over the rank's
       positions (`visible_lens`: how many of them each token sees) into
       softmax states (`state_o`, `state_m`, `state_l`);
    3. each state as its normalized output o / l and one log-sum-exp
       m + log l (the least to send), then one `wsp.all_to_all` for each:
       each rank gets its heads' states from every rank;
    4. their merge into `out` (m = max lse_r, weights e^(lse_r - m), in
       rank order, f32, rounded once), on the host, once every exchange
       succeeded.

    With `grid_axes` every collective runs on the rank's group and N is
    the group's size. `kvdp_cp` on two axes lowers in two rounds: the kvdp
    program along the first axis, whose attention of the rank's requests
    is the cp program along the second (its chunks are cp's, not planned
    for the whole batch); the group's heads are ordered by (cp, kvdp)
    coordinate. Its store is the kvdp store whose store of the rank's
    requests is the cp store.

    A sharded `llm.store_paged_kv_cache` stores the rank's tokens: kvdp,
    its requests' (their rows of the tokens); cp (any number per request),
    those whose positions fall in the rank's part of their block, at their
    place in it (one row of the plain store per run of such tokens).

    The buffers come from workspace arguments (`llm.workspace`), checked
    at run time (with `accum_q_len`): a smaller one is INVALID_PARAMS (3)
    on every rank. kvdp: one of bf16, (B + (N + 1) c) x q_seq_len x H x
    head_dim values, H = N x q_head_num (kvdp_all_to_all: 4 c x ...), and
    one of i32, c + 1 (the rank's accum_q_len); cp: one of bf16, B x q_seq_len x H x head_dim, one of f32,
    2 B x q_seq_len x H x (head_dim + 16), and one of i32 (visible_lens,
    which the kernels read), B x q_seq_len. When q is a head range of a
    packed QKV, the bf16 one holds B x q_seq_len x (H / N) x head_dim more
    (q packed). A cp store: one of i32, 4 R +
    1 values for the rank's R runs of tokens, R <= 2 B + T / (N bs) (T
    tokens, bs the rank's part of a block).
  }];
  let dependentDialects = [
    "::mlir::wsp::WspDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::shard::ShardDialect", "::mlir::math::MathDialect"
  ];
}

#endif // WSP_CONVERSION_PASSES_TD
