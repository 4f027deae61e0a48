//===- WspOps.td - wsp operations ------------------------*- tablegen -*-===//

#ifndef WSP_DIALECT_WSP_IR_WSPOPS_TD
#define WSP_DIALECT_WSP_IR_WSPOPS_TD

include "wsp/Dialect/Wsp/IR/WspDialect.td"
include "wsp/Dialect/Wsp/IR/WspAttrs.td"
include "wsp/Dialect/Wsp/IR/WspTypes.td"
include "wsp/Dialect/Wsp/IR/WspInterfaces.td"
include "mlir/Dialect/Shard/IR/ShardBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Wsp_Space : Type<CPred<"::llvm::isa<::mlir::wsp::SpaceType>($_self)">,
                     "wsp iteration space", "::mlir::wsp::SpaceType">;
def Wsp_Descriptor
    : Type<CPred<"::llvm::isa<::mlir::wsp::DescriptorType>($_self)">,
           "wsp work descriptor", "::mlir::wsp::DescriptorType">;
def Wsp_LengthBuffer : MemRefRankOf<[I32], [1]>;
def Wsp_DescriptorBuffer
    : MemRefRankOf<[Wsp_Descriptor], [1]>;

//===----------------------------------------------------------------------===//
// Iteration spaces (spec §3)
//===----------------------------------------------------------------------===//

def Wsp_SpaceOp : Wsp_Op<"space", [Pure]> {
  let summary = "Make an iteration space from its dynamic sizes";
  let description = [{
    One index operand per dynamic dimension, in order. Static dimensions
    take their size from the type.

    ```mlir
    %s = wsp.space(%batch, %chunks) : !wsp.space<batch: ?, head: 32, chunk: ?>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes);
  let results = (outs Wsp_Space:$result);
  let assemblyFormat = "`(` $dynamic_sizes `)` attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The operand giving dim `i` (dynamic dims only).
    ::mlir::Value getDynamicSize(unsigned i);
  }];
}

def Wsp_SetDimOp : Wsp_Op<"set_dim", [Pure, AllTypesMatch<["space", "result"]>]> {
  let summary = "The space with one dynamic dimension set (spec set_dim)";
  let description = [{
    Setting a static dimension is an error, as the spec makes it a
    compile-time error.

    ```mlir
    %s1 = wsp.set_dim %s[0] = %batch : !wsp.space<batch: ?, head: 32>
    ```
  }];
  let arguments = (ins Wsp_Space:$space, I64Attr:$dim, Index:$size);
  let results = (outs Wsp_Space:$result);
  let assemblyFormat =
      "$space `[` $dim `]` `=` $size attr-dict `:` qualified(type($space))";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Wsp_GetDimOp : Wsp_Op<"get_dim", [Pure]> {
  let summary = "The size of one dimension (spec get_dim)";
  let description = [{
    Folds to a constant for a static dimension and to the defining size for
    a space built by `wsp.space` / `wsp.set_dim`.

    ```mlir
    %h = wsp.get_dim %s[1] : !wsp.space<batch: ?, head: 32>
    ```
  }];
  let arguments = (ins Wsp_Space:$space, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$space `[` $dim `]` attr-dict `:` qualified(type($space))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Wsp_TotalWorkOp : Wsp_Op<"total_work", [Pure]> {
  let summary = "The product of all dimension sizes (spec total_work)";
  let description = [{
    Folds to a constant when every size is known.

    ```mlir
    %n = wsp.total_work %s : !wsp.space<batch: ?, head: 32>
    ```
  }];
  let arguments = (ins Wsp_Space:$space);
  let results = (outs Index:$result);
  let assemblyFormat = "$space attr-dict `:` qualified(type($space))";
  let hasFolder = 1;
}

def Wsp_IndexToCoordsOp : Wsp_Op<"index_to_coords", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Linear work index to coordinates, dimension 0 fastest";
  let description = [{
    One index result per dimension. Folds when the sizes and the index are
    known.

    ```mlir
    %b, %h, %c = wsp.index_to_coords %s[%i] : !wsp.space<?, 32, ?>
    ```
  }];
  let arguments = (ins Wsp_Space:$space, Index:$index);
  let results = (outs Variadic<Index>:$coords);
  let assemblyFormat = "$space `[` $index `]` attr-dict `:` qualified(type($space))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Wsp_TierConfigOp : Wsp_Op<"tier_config", [Symbol]> {
  let summary = "A named tier configuration with first-match selection";
  let description = [{
    The IR form of the spec's `TierConfig<Tiers...>` (§5.2): an ordered list
    of tiers. A length selects the first tier (in list order) whose range
    contains it; a length that no tier covers selects nothing, which the
    runtime reports as `UNSUPPORTED_SIZE`.

    The verifier enforces what the spec says SHALL hold and what would make
    a configuration meaningless: at least one tier, unique tier ids, and no
    tier fully shadowed by the tiers before it (it could never be
    selected). Gaps in coverage are allowed.

    ```mlir
    wsp.tier_config @DecodeAttentionTiers [
      #wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
      #wsp.tier<2, [4097, 16384]>, #wsp.tier<3, [16385, 131072]>]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       Wsp_TierArrayAttr:$tiers);
  let assemblyFormat = "($sym_visibility^)? $sym_name $tiers attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The tiers in selection order.
    ::llvm::SmallVector<::mlir::wsp::TierAttr> getTierList();
    /// The id of the first tier matching `size`, or -1 (spec `select_tier`).
    int64_t selectTier(int64_t size);
    /// Position (in list order) of the tier with id `id`, or std::nullopt.
    std::optional<unsigned> getTierIndex(int64_t id);
    /// The inclusive ranges of lengths in [lo, hi] that no tier covers:
    /// lengths that are UNSUPPORTED_SIZE at run time.
    ::llvm::SmallVector<std::pair<int64_t, int64_t>>
    getUncoveredRanges(int64_t lo = 1, int64_t hi = 2147483647);
    /// Ids of the tiers that some length in [lo, hi] selects (first match),
    /// in list order.
    ::llvm::SmallVector<int64_t>
    getReachableTiers(int64_t lo = 1, int64_t hi = 2147483647);
  }];
}

def Wsp_SelectTierOp : Wsp_Op<"select_tier", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "First-match tier selection (spec select_tier)";
  let description = [{
    The id of the first tier of the configuration whose range contains the
    length, or -1. Folds when the length is a constant.

    ```mlir
    %t = wsp.select_tier @DecodeAttentionTiers(%len) : i32 -> i32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$config, AnySignlessIntegerOrIndex:$length);
  let results = (outs I32:$tier);
  let assemblyFormat =
      "$config `(` $length `)` attr-dict `:` type($length) `->` type($tier)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Planning (spec §6)
//===----------------------------------------------------------------------===//

def Wsp_PlanChunkSizeOp : Wsp_Op<"plan_chunk_size"> {
  let summary = "Binary-search the chunk size (spec plan_chunk_size)";
  let description = [{
    The smallest chunk in [chunk_min, chunk_max] whose work count
    `heads * sum(ceil(len_b / chunk))` fits max_work_units, else chunk_max
    (spec §6.3.4 pseudocode; see docs/rationale/Runtime.md). Reads
    `lengths[0 .. batch)`.

    ```mlir
    %chunk = wsp.plan_chunk_size %kv_lens[%batch] heads(%heads)
               config(#wsp.plan_config<>) : memref<?xi32>
    ```
  }];
  let arguments = (ins Arg<Wsp_LengthBuffer, "per-sequence lengths",
                           [MemRead]>:$lengths,
                       Index:$batch, Index:$heads,
                       Wsp_PlanConfigAttr:$config,
                       OptionalAttr<I64Attr>:$window, Optional<Index>:$queries);
  let results = (outs Index:$chunk);
  let assemblyFormat = [{
    $lengths `[` $batch `]` `heads` `(` $heads `)`
    (`window` `(` $window^ `)` `queries` `(` $queries `)`)?
    `config` `(` qualified($config) `)` attr-dict `:` type($lengths)
  }];
  let hasVerifier = 1;
}

def Wsp_TotalWorkUnitsOp : Wsp_Op<"total_work_units"> {
  let summary = "Number of descriptors a plan generates (spec get_total_work)";
  let description = [{
    `heads * sum(ceil(len_b / chunk))`: the buffer size generation needs.

    ```mlir
    %n = wsp.total_work_units %kv_lens[%batch] heads(%heads) chunk(%chunk)
           : memref<?xi32>
    ```
  }];
  let arguments = (ins Arg<Wsp_LengthBuffer, "per-sequence lengths",
                           [MemRead]>:$lengths,
                       Index:$batch, Index:$heads, Index:$chunk);
  let results = (outs Index:$count);
  let assemblyFormat = [{
    $lengths `[` $batch `]` `heads` `(` $heads `)` `chunk` `(` $chunk `)`
    attr-dict `:` type($lengths)
  }];
}

def Wsp_GenerateOp : Wsp_Op<"generate", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Generate work descriptors into a buffer (spec generate)";
  let description = [{
    Writes one descriptor per (sequence, head, chunk), in that order, into
    the buffer (its size is the capacity): work ids from 0, the sequence's
    tier from the tier configuration, FIRST|INIT on a row's first chunk,
    LAST on its last, params set by the buffer's pattern (`attention`:
    request, head, kv_start, kv_len; `moe`: batch, expert, token_start,
    token_count). Returns the number written and the spec's PlanResult code
    (0 ok, 1 buffer_overflow, 2 unsupported_size, 3 invalid_params); on an
    error nothing is written, and on buffer_overflow the count is the
    number needed.

    For `moe` descriptors the lengths are token counts per expert and
    `heads` counts batch groups (runtime: `params::MoEPerExpert`).

    `lengths in [lo, hi]` declares what the caller guarantees of every
    nonzero length (a bucket, a maximum context): planning uses it to prune
    unreachable tiers and to diagnose lengths no tier covers.

    `window(W) queries(%q)` plans a sliding-window decode: the last `q`
    tokens of each request are its queries and each attends at most W
    tokens back, so only KV positions [max(0, len - q - W + 1), len) are
    planned (no work unit for chunks the window masks out). The effective
    length selects the tier; kv_start counts from the cache's start.
    `wsp.plan_chunk_size` takes the same clause.

    ```mlir
    %count, %status = wsp.generate %kv_lens[%batch] heads(%heads)
        chunk(%chunk) tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>)
        into %descs : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
    ```

    With `#wsp.plan_config<strategy = balanced, ...>` the op plans with the
    balanced planner instead (attention only; `heads` counts KV heads, so
    one descriptor is one (request, KV head) row or a piece of one). There
    is no `chunk`: each core gets the same cost and long rows are cut at KV
    block boundaries. Descriptors keep the spec's meaning (FIRST|INIT on a
    row's first piece, LAST on its last), in row order, and two more
    buffers receive the rest of the plan: `cores` the per-core work lists
    (core c runs descriptors [cores[c], cores[c+1]); at least config.cores
    + 1 entries) for a `persistent` dispatch, and `merges` the merge plan
    (row r's pieces are descriptors [merges[r], merges[r+1]), in KV order;
    at least rows + 1 entries). The buffer must hold rows + config.cores
    descriptors (the sweep's bound); less is buffer_overflow with that
    count. `q_lens(%q)` optionally gives each request's query tokens: a
    request's KV tokens then cost token_cost x q_len (chunked prefill beside
    decode); without it every request has one.

    ```mlir
    %count, %status = wsp.generate %kv_lens[%batch] heads(%kv_heads)
        tiers(@DecodeAttentionTiers)
        config(#wsp.plan_config<strategy = balanced, cores = 48>)
        into %descs cores(%core_indptr : memref<?xi32>)
        merges(%merge_indptr : memref<?xi32>)
        : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
    ```

    `cuts(%cuts)` instead of `merges` asks for the plan as cuts: the
    planner writes where each core's share starts (request, KV head, KV
    position and its first descriptor: 4 i32 per point, config.cores + 1
    points) into `cuts`, `cores` from them and the count, in O(batch +
    cores), and no descriptor: a `persistent ... expand(%cuts)` dispatch of
    the buffer has each core write its own share of the descriptors (the
    same ones, byte for byte) before it runs them.

    `rows(%rows)` asks a spec plan (attention or moe) as rows: the same
    validation, status and count, but the planner writes no descriptor:
    `rows` receives a header (batch, heads, chunk, queries, window, mode,
    count), each request's first work id (batch + 1 entries, the last
    being the count) and each request's length, `pto::runtime::
    SpecRowsLayout`: `SpecRowsLayout::size(batch)` entries, or the plan is
    INVALID_PARAMS and writes nothing. A `wsp.dispatch ... expand_rows(%rows)`
    of the buffer has each core write its own descriptors (those
    `wsp.generate` would write, byte for byte) before it runs them. A plan
    kept as rows is updated at the cost of a compare per request
    (`wsp.update_plan ... rows`).
  }];
  let arguments = (ins Arg<Wsp_LengthBuffer, "per-sequence lengths",
                           [MemRead]>:$lengths,
                       Index:$batch, Index:$heads, Optional<Index>:$chunk,
                       FlatSymbolRefAttr:$tiers,
                       Wsp_PlanConfigAttr:$config,
                       Arg<Wsp_DescriptorBuffer, "descriptor buffer",
                           [MemWrite]>:$buffer,
                       Arg<Optional<Wsp_LengthBuffer>, "per-core work lists",
                           [MemWrite]>:$core_indptr,
                       Arg<Optional<Wsp_LengthBuffer>, "merge plan",
                           [MemWrite]>:$merge_indptr,
                       Arg<Optional<Wsp_LengthBuffer>, "the plan as cuts",
                           [MemWrite]>:$cuts,
                       Arg<Optional<Wsp_LengthBuffer>,
                           "query tokens per request", [MemRead]>:$q_lens,
                       OptionalAttr<I64Attr>:$min_length,
                       OptionalAttr<I64Attr>:$max_length,
                       OptionalAttr<I64Attr>:$window, Optional<Index>:$queries,
                       Arg<Optional<Wsp_LengthBuffer>, "the plan as rows",
                           [MemWrite]>:$rows);
  let results = (outs Index:$count, I32:$status);
  let assemblyFormat = [{
    $lengths `[` $batch `]`
    (`lengths` `in` ` ` `[` $min_length^ `,` $max_length `]`)?
    `heads` `(` $heads `)`
    (`window` `(` $window^ `)` `queries` `(` $queries `)`)?
    (`chunk` `(` $chunk^ `)`)?
    `tiers` `(` $tiers `)` `config` `(` qualified($config) `)` `into` $buffer
    (`cores` `(` $core_indptr^ `:` type($core_indptr) `)`)?
    (`merges` `(` $merge_indptr^ `:` type($merge_indptr) `)`)?
    (`cuts` `(` $cuts^ `:` type($cuts) `)`)?
    (`q_lens` `(` $q_lens^ `:` type($q_lens) `)`)?
    (`rows` `(` $rows^ `:` type($rows) `)`)?
    attr-dict `:` type($lengths) `,` type($buffer)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    PatternAttr getPattern() {
      return ::llvm::cast<DescriptorType>(getBuffer().getType().getElementType())
          .getPattern();
    }
  }];
}

def Wsp_UpdatePlanOp : Wsp_Op<"update_plan", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Re-plan a spec plan in place, rewriting only what moved";
  let description = [{
    Incremental re-planning for a decode step: `buffer` holds what
    `wsp.generate` with these operands wrote, with status ok, for the
    `planned_batch` lengths `planned`, with chunk size `chunk`. The op
    makes it hold what `wsp.generate` writes for the `batch` lengths
    `lengths` with the same chunk, writing only what differs, and returns
    true and the new descriptor count:

    - rows before the first one whose chunk count changed (or that joined)
      keep their places; of those, a row whose length changed has its
      chunks rewritten: each head's last chunk with unbalanced chunks, no
      window and the same tier (only its size moves), all of them
      otherwise (balanced sizes, a window's start or the tier move);
    - from the first row whose count changed on, every row moves, and is
      written anew (a request that joins, at the end, is such a row; one
      that leaves from the end is dropped).

    With `searched`, `chunk` is the one `wsp.plan_chunk_size` (with the
    same config) chose for `planned`, and the plan of `lengths` uses it
    only when `wsp.plan_chunk_size` chooses it again: it fits
    (`max_work_units / heads` chunks, or it is `chunk_max`) and one less
    does not (or it is `chunk_min`). One less did not fit `planned`, and
    a count only grows with its lengths, so the op counts at one less (one
    more pass) only when a planned range shrank or a request left. Without
    `searched`, `chunk` is given and kept.

    Otherwise (another chunk size, a negative length, a length no tier
    covers, more descriptors than the buffer holds, a batch < 1) the op
    writes nothing and returns false and a count of 0: the caller plans
    afresh, which reports the error.

    With `rows(%rows)` the plan is held as rows (`wsp.generate ... rows`):
    the op rewrites the lengths that changed and the first work ids from
    the first row whose chunk count changed on, and no descriptor (the
    dispatch's cores make them); `buffer` is the one the dispatch expands
    into, whose capacity bounds the plan as before. The rows buffer must
    hold `SpecRowsLayout::size(batch)` entries, or the op updates nothing.

    ```mlir
    %updated, %count = wsp.update_plan %kv_lens[%batch]
        from %planned[%planned_batch] heads(%heads) chunk(%chunk) searched
        tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>)
        into %descs : memref<?xi32>, memref<?xi32>,
                      memref<?x!wsp.descriptor<attention>>
    ```
  }];
  let arguments = (ins Arg<Wsp_LengthBuffer, "per-sequence lengths",
                           [MemRead]>:$lengths,
                       Arg<Wsp_LengthBuffer, "the lengths of the plan held",
                           [MemRead]>:$planned,
                       Index:$batch, Index:$planned_batch, Index:$heads,
                       Index:$chunk, UnitAttr:$searched,
                       FlatSymbolRefAttr:$tiers,
                       Wsp_PlanConfigAttr:$config,
                       Arg<Wsp_DescriptorBuffer, "descriptor buffer",
                           [MemRead, MemWrite]>:$buffer,
                       OptionalAttr<I64Attr>:$window, Optional<Index>:$queries,
                       Arg<Optional<Wsp_LengthBuffer>, "the plan as rows",
                           [MemRead, MemWrite]>:$rows);
  let results = (outs I1:$updated, Index:$count);
  let assemblyFormat = [{
    $lengths `[` $batch `]` `from` $planned `[` $planned_batch `]`
    `heads` `(` $heads `)`
    (`window` `(` $window^ `)` `queries` `(` $queries `)`)?
    `chunk` `(` $chunk `)` (`searched` $searched^)?
    `tiers` `(` $tiers `)` `config` `(` qualified($config) `)` `into` $buffer
    (`rows` `(` $rows^ `:` type($rows) `)`)?
    attr-dict `:` type($lengths) `,` type($planned) `,` type($buffer)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    PatternAttr getPattern() {
      return ::llvm::cast<DescriptorType>(getBuffer().getType().getElementType())
          .getPattern();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Run-time preconditions
//===----------------------------------------------------------------------===//

def Wsp_RequireOp : Wsp_Op<"require"> {
  let summary = "A run-time precondition of a planning function";
  let description = [{
    States what the function's inputs must satisfy for its kernels to stay
    inside their memory: buffer extents against bounds, ids in range, head
    counts divisible, lengths inside page tables. The planning function
    checks every precondition first and, if one does not hold, returns
    INVALID_PARAMS with nothing written and no kernel run
    (`wsp-lower-preconditions`). The message says what must hold, for a
    reader of the IR.

    ```mlir
    %fits = arith.cmpi ule, %rows, %c32 : index
    wsp.require %fits, "q_len x group fits the 32 rows of a tile"
    ```

    A precondition sits in the body of a `func.func` whose first result is
    the i32 status, and nothing before it may write memory.
  }];
  let arguments = (ins I1:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict";
  let hasVerifier = 1;
}

def Wsp_AllInRangeOp : Wsp_Op<"all_in_range"> {
  let summary = "Whether the first values of an array lie in [0, bound)";
  let description = [{
    True when `0 <= count <= size(values)` and `0 <= values[i] < bound` for
    every i < count: ids that index a dimension of size `bound` (request
    slots, experts), or lengths that must not pass a capacity
    (`bound` = capacity + 1). Reads nothing past `count`, nor past the
    array. For `wsp.require`.

    ```mlir
    %ids_ok = wsp.all_in_range %kv_ids[%batch] below %slots : memref<?xi32>
    ```
  }];
  let arguments = (ins Arg<Wsp_LengthBuffer, "the values", [MemRead]>:$values,
                       Index:$count, Index:$bound);
  let results = (outs I1:$ok);
  let assemblyFormat = [{
    $values `[` $count `]` `below` $bound attr-dict `:` type($values)
  }];
}

def Wsp_PagesInRangeOp : Wsp_Op<"pages_in_range"> {
  let summary = "Whether every request's pages lie in a paged cache";
  let description = [{
    The contract of a paged KV cache for requests [0, batch): true when
    batch fits `rows` and `lengths`, `page_size` and `pages` are positive,
    and for every request b, its page-table row `rows[b]` is a row of
    `table`, its length `lengths[b]` is in [0, cols(table) x page_size],
    and the entries `table[rows[b], j]` for j < ceil(lengths[b] /
    page_size), the pages its positions lie in, are in [0, pages). Reads
    nothing past either array or the table. For `wsp.require`.

    ```mlir
    %paged = wsp.pages_in_range %block_table rows(%kv_ids[%batch])
        lengths(%kv_lens) page_size(%block) pages(%max_blocks)
        : memref<?x?xi32>, memref<?xi32>, memref<?xi32>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[I32], [2]>, "the page table",
                           [MemRead]>:$table,
                       Arg<Wsp_LengthBuffer, "each request's table row",
                           [MemRead]>:$rows,
                       Index:$batch,
                       Arg<Wsp_LengthBuffer, "each request's length",
                           [MemRead]>:$lengths,
                       Index:$page_size, Index:$pages);
  let results = (outs I1:$ok);
  let assemblyFormat = [{
    $table `rows` `(` $rows `[` $batch `]` `)` `lengths` `(` $lengths `)`
    `page_size` `(` $page_size `)` `pages` `(` $pages `)` attr-dict `:`
    type($table) `,` type($rows) `,` type($lengths)
  }];
}

//===----------------------------------------------------------------------===//
// Tiered kernels (spec §7)
//===----------------------------------------------------------------------===//

def Wsp_KernelOp : Wsp_Op<"kernel", [
    IsolatedFromAbove, FunctionOpInterface, Symbol,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    AutomaticAllocationScope]> {
  let summary = "A tiered AICore kernel: one body, specialized per tier";
  let description = [{
    The spec's `template <int Tier> AICORE void kernel_impl(const
    WorkDescriptor&, ...)` (§7.1). The first argument is the descriptor;
    its pattern is the kernel's pattern. The rest are the kernel's buffers
    and scalars. `tiers` names the tier configuration the kernel is
    specialized over; `constants` gives tier-dependent values, one per tier
    in the configuration's order (the spec's `TILE_K` example), read in the
    body with `wsp.tier_constant`; `wsp.tier_id` reads the tier id.

    A kernel with `tier(N)` is specialized for tier N (tier specialization
    makes these): its `wsp.tier_id` and `wsp.tier_constant` fold to
    constants. One without is tier-generic.

    ```mlir
    wsp.kernel @decode_attention tiers(@DecodeAttentionTiers)
        constants {TILE_K = array<i64: 256, 512, 1024, 2048>}
        (%desc: !wsp.descriptor<attention>, %q: memref<?xbf16>) {
      %tile = wsp.tier_constant "TILE_K" : index
      wsp.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       FlatSymbolRefAttr:$tiers,
                       OptionalAttr<I64Attr>:$tier,
                       DefaultValuedAttr<DictionaryAttr, "{}">:$constants,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// FunctionOpInterface.
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }

    /// The descriptor argument's pattern.
    PatternAttr getPattern();
    /// True for a kernel specialized to one tier.
    bool isSpecialized() { return getTierAttr() != nullptr; }
    /// The values of tier constant `name`, one per tier in list order, or
    /// nullptr.
    ::mlir::DenseI64ArrayAttr getTierConstant(::llvm::StringRef name);
  }];
}

def Wsp_ReturnOp : Wsp_Op<"return", [Pure, HasParent<"KernelOp">,
                                     ReturnLike, Terminator]> {
  let summary = "Ends a kernel body";
  let assemblyFormat = "attr-dict";
}

def Wsp_TierIdOp : Wsp_Op<"tier_id", [Pure]> {
  let summary = "The tier id the enclosing kernel runs as";
  let description = [{
    Inside a tier-generic kernel, the tier being executed; tier
    specialization replaces it by a constant.

    ```mlir
    %t = wsp.tier_id : index
    ```
  }];
  let results = (outs AnySignlessIntegerOrIndex:$tier);
  let assemblyFormat = "attr-dict `:` type($tier)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Wsp_TierConstantOp : Wsp_Op<"tier_constant", [Pure]> {
  let summary = "A tier-dependent constant of the enclosing kernel";
  let description = [{
    The value the enclosing kernel's `constants` give `name` for the tier
    being executed (the spec's `constexpr int TILE_K = (Tier == 0) ? ...`).

    ```mlir
    %tile = wsp.tier_constant "TILE_K" : index
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs AnySignlessIntegerOrIndex:$value);
  let assemblyFormat = "$name attr-dict `:` type($value)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Work descriptor accessors (spec §4.2)
//===----------------------------------------------------------------------===//

def Wsp_ParamOp : Wsp_Op<"param", [Pure]> {
  let summary = "Read a named descriptor parameter";
  let description = [{
    The parameter must be one the descriptor's pattern names.

    ```mlir
    %start = wsp.param %desc["kv_start"] : !wsp.descriptor<attention>
    ```
  }];
  let arguments = (ins Wsp_Descriptor:$descriptor, StrAttr:$name);
  let results = (outs Index:$value);
  let assemblyFormat =
      "$descriptor `[` $name `]` attr-dict `:` qualified(type($descriptor))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// params[i] that `name` denotes.
    unsigned getParamIndex();
  }];
}

def Wsp_KvEndOp : Wsp_Op<"kv_end", [Pure]> {
  let summary = "One past the chunk's last KV position (attention only)";
  let description = [{
    `kv_start + kv_len` (spec `params::Attention::kv_end`).

    ```mlir
    %end = wsp.kv_end %desc : !wsp.descriptor<attention>
    ```
  }];
  let arguments = (ins Wsp_Descriptor:$descriptor);
  let results = (outs Index:$value);
  let assemblyFormat = "$descriptor attr-dict `:` qualified(type($descriptor))";
  let hasVerifier = 1;
}

def Wsp_HasFlagOp : Wsp_Op<"has_flag", [Pure]> {
  let summary = "Test a descriptor flag (FIRST, LAST, INIT)";
  let description = [{
    ```mlir
    %is_last = wsp.has_flag %desc, last : !wsp.descriptor<attention>
    ```
  }];
  let arguments = (ins Wsp_Descriptor:$descriptor,
                       Wsp_DescriptorFlag:$flag);
  let results = (outs I1:$value);
  let assemblyFormat =
      "$descriptor `,` $flag attr-dict `:` qualified(type($descriptor))";
}

def Wsp_WorkIdOp : Wsp_Op<"work_id", [Pure]> {
  let summary = "The descriptor's work id";
  let arguments = (ins Wsp_Descriptor:$descriptor);
  let results = (outs Index:$value);
  let assemblyFormat = "$descriptor attr-dict `:` qualified(type($descriptor))";
}

//===----------------------------------------------------------------------===//
// Dispatch (spec §2.5, §7.3)
//===----------------------------------------------------------------------===//

def Wsp_DispatchOp : Wsp_Op<"dispatch", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Run a descriptor buffer on a group of cores (SPMD)";
  let description = [{
    Runs `kernel` once per descriptor in `descriptors[0 .. count)` on
    `num_cores` cores of one kind; each descriptor's tier selects the
    kernel's specialization in O(1). The kernel's pattern must be the
    buffer's, and `args` match the kernel's arguments after the descriptor.
    Inside `wsp.mpmd`, each dispatch is one core group.

    `kernel` names a `wsp.kernel` or, after tier specialization, a
    `wsp.kernel_table`. `reachable_tiers`, set by planning, lists the only
    tier ids the descriptors can carry.

    By default core c of N takes descriptors c, c+N, ... (a grid).
    `row_affine` asks instead that the chunks of one row (FIRST .. LAST,
    contiguous in the planner's output) run in order on one core, for
    kernels that carry a row's accumulators from chunk to chunk: each core
    takes a contiguous range cut only before FIRST descriptors.
    `persistent(%cores)` runs a balanced plan's work lists: core c walks
    descriptors [cores[c], cores[c+1]) in order (the buffer holds at least
    num_cores + 1 entries). `expand(%cuts)` runs a plan made as cuts
    (`count` is the result of the balanced `wsp.generate` or
    `wsp.plan_balanced` that wrote `cuts`, the descriptor buffer and the
    work lists): core c first writes its own descriptors [cores[c],
    cores[c+1]) from cuts c and c + 1 and the lengths (what
    `pto::runtime::for_each_sweep_piece` expands), then runs them; after
    the dispatch the buffer holds the whole plan, for the dispatches that
    follow. `expand_rows(%rows)` runs a spec plan made as rows (`wsp.generate
    ... rows`, `wsp.update_plan ... rows`; `count` is its count) on a grid
    or row_affine dispatch: each core first writes its own descriptors
    (those it runs) from the rows and the kernel's tiers, then runs them.

    ```mlir
    wsp.dispatch @decode_attention(%q, %out : memref<?xbf16>, memref<?xf32>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<attention>>)
        on vector(48)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, Variadic<AnyType>:$args,
                       Wsp_DescriptorBuffer:$descriptors, Index:$count,
                       Wsp_CoreKind:$core_kind, I64Attr:$num_cores,
                       OptionalAttr<DenseI64ArrayAttr>:$reachable_tiers,
                       UnitAttr:$row_affine,
                       Optional<Wsp_LengthBuffer>:$core_indptr,
                       Optional<Wsp_LengthBuffer>:$cuts,
                       Optional<Wsp_LengthBuffer>:$rows);
  let assemblyFormat = [{
    $kernel `(` ($args^ `:` type($args))? `)`
    `descriptors` `(` $descriptors `[` $count `]` `:` type($descriptors) `)`
    `on` $core_kind `(` $num_cores `)` (`row_affine` $row_affine^)?
    (`persistent` `(` $core_indptr^ `:` type($core_indptr) `)`)?
    (`expand` `(` $cuts^ `:` type($cuts) `)`)?
    (`expand_rows` `(` $rows^ `:` type($rows) `)`)?
    attr-dict
  }];
  let extraClassDeclaration = [{
    /// With `expand`: the balanced planning op (wsp.generate or
    /// wsp.plan_balanced) whose cuts the cores expand, or null.
    Operation *getSweepPlan();
  }];
  let hasVerifier = 1;
}

def Wsp_MpmdOp : Wsp_Op<"mpmd", [SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "Different kernels on disjoint core groups, at once (MPMD)";
  let description = [{
    Every op in the body is a `wsp.dispatch`: one core group each, all
    running concurrently (spec §2.5: multi-tier, MoE, pipelines). The
    groups' cores of each kind add up to at most the device's (24 cube,
    48 vector).

    ```mlir
    wsp.mpmd {
      wsp.dispatch @short(...) descriptors(%a[%na] : ...) on vector(32)
      wsp.dispatch @long(...) descriptors(%b[%nb] : ...) on vector(16)
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$body attr-dict";
  let hasRegionVerifier = 1;
}


//===----------------------------------------------------------------------===//
// Planned forms (produced by wsp-plan and wsp-specialize-tiers)
//===----------------------------------------------------------------------===//

def Wsp_MakeDescriptorOp : Wsp_Op<"make_descriptor", [Pure]> {
  let summary = "Build one work descriptor";
  let description = [{
    The descriptor with the given work id, tier, flags (a FIRST/LAST/INIT
    bit set) and params, one per pattern param, in order. Lowered planning
    builds descriptors with it and stores them with `memref.store`.

    ```mlir
    %d = wsp.make_descriptor id(%id) tier(%t) flags(%f)
           params(%req, %head, %start, %len) : !wsp.descriptor<attention>
    ```
  }];
  let arguments = (ins Index:$work_id, I32:$tier, I32:$flags,
                       Variadic<Index>:$params);
  let results = (outs Wsp_Descriptor:$result);
  let assemblyFormat = [{
    `id` `(` $work_id `)` `tier` `(` $tier `)` `flags` `(` $flags `)`
    `params` `(` $params `)` attr-dict `:` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Wsp_PlanBalancedOp : Wsp_Op<"plan_balanced", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Run pto::runtime's balanced planner (a planned wsp.generate)";
  let description = [{
    What a balanced `wsp.generate` becomes when its lengths are known only
    at run time: a call of the runtime's allocation-free balanced planner
    (`pto::runtime::plan_balanced_into`) from the AICPU planning function.
    The algorithm has one home, the runtime header; `wsp-plan` calls the
    same function at compile time for static lengths. Operands, results and
    buffer contracts are the balanced `wsp.generate`'s. With `cuts` it
    calls `pto::runtime::plan_sweep_into` instead: the cuts, the work lists
    and the count, no descriptor (an `expand` dispatch writes them).

    ```mlir
    %count, %status = wsp.plan_balanced %kv_lens[%batch] heads(%kv_heads)
        tiers(@DecodeAttentionTiers)
        config(#wsp.plan_config<strategy = balanced>)
        into %descs cores(%core_indptr : memref<?xi32>)
        merges(%merge_indptr : memref<?xi32>)
        : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
    ```
  }];
  let arguments = (ins Arg<Wsp_LengthBuffer, "per-sequence lengths",
                           [MemRead]>:$lengths,
                       Index:$batch, Index:$heads,
                       FlatSymbolRefAttr:$tiers,
                       Wsp_PlanConfigAttr:$config,
                       Arg<Wsp_DescriptorBuffer, "descriptor buffer",
                           [MemWrite]>:$buffer,
                       Arg<Wsp_LengthBuffer, "per-core work lists",
                           [MemWrite]>:$core_indptr,
                       Arg<Optional<Wsp_LengthBuffer>, "merge plan",
                           [MemWrite]>:$merge_indptr,
                       Arg<Optional<Wsp_LengthBuffer>, "the plan as cuts",
                           [MemWrite]>:$cuts,
                       Arg<Optional<Wsp_LengthBuffer>,
                           "query tokens per request", [MemRead]>:$q_lens);
  let results = (outs Index:$count, I32:$status);
  let assemblyFormat = [{
    $lengths `[` $batch `]` `heads` `(` $heads `)`
    `tiers` `(` $tiers `)` `config` `(` qualified($config) `)` `into` $buffer
    `cores` `(` $core_indptr `:` type($core_indptr) `)`
    (`merges` `(` $merge_indptr^ `:` type($merge_indptr) `)`)?
    (`cuts` `(` $cuts^ `:` type($cuts) `)`)?
    (`q_lens` `(` $q_lens^ `:` type($q_lens) `)`)?
    attr-dict `:` type($lengths) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def Wsp_DescriptorTableOp : Wsp_Op<"descriptor_table", [Symbol]> {
  let summary = "A descriptor table planned at compile time";
  let description = [{
    The descriptors of a fully static workload, one row per descriptor:
    (work_id, tier, flags, params[0..3]). A plan of the spec's planner
    records the chunk size it used (`chunk`); a balanced plan instead
    carries its per-core work lists (`cores`: core c runs descriptors
    [cores[c], cores[c+1])) and its merge plan (`merges`: row r's pieces
    are descriptors [merges[r], merges[r+1])), except when it was asked for
    as cuts (which write no merge plan).

    ```mlir
    wsp.descriptor_table @plan : !wsp.descriptor<attention> chunk(256)
        = dense<[[0, 0, 7, 0, 0, 0, 100]]> : tensor<1x7xi32>
    wsp.descriptor_table @balanced : !wsp.descriptor<attention>
        cores([0, 1, 1]) merges([0, 1])
        = dense<[[0, 0, 7, 0, 0, 0, 100]]> : tensor<1x7xi32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<Wsp_Descriptor>:$descriptor_type,
                       OptionalAttr<I64Attr>:$chunk,
                       OptionalAttr<DenseI32ArrayAttr>:$core_indptr,
                       OptionalAttr<DenseI32ArrayAttr>:$merge_indptr,
                       I32ElementsAttr:$table);
  let assemblyFormat = [{
    $sym_name `:` $descriptor_type (`chunk` `(` $chunk^ `)`)?
    (`cores` `(` $core_indptr^ `)`)? (`merges` `(` $merge_indptr^ `)`)?
    `=` $table attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static constexpr unsigned kColumns = 7;
    int64_t getNumDescriptors() {
      return ::llvm::cast<::mlir::ShapedType>(getTable().getType()).getDimSize(0);
    }
  }];
}

def Wsp_LoadDescriptorsOp : Wsp_Op<"load_descriptors", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Copy a static descriptor table into a buffer";
  let description = [{
    What `wsp.generate` becomes when planning ran at compile time: copies the
    table into the buffer when it fits (status 0) and otherwise writes
    nothing (status 1, buffer_overflow). The count is the table's size in
    both cases, as `wsp.generate` reports it. A balanced table also copies
    its work lists into `cores` and its merge plan into `merges` (both
    given exactly when the table has them); any buffer too small is
    buffer_overflow.

    ```mlir
    %count, %status = wsp.load_descriptors @plan into %descs
        : memref<?x!wsp.descriptor<attention>>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$table,
                       Arg<Wsp_DescriptorBuffer, "descriptor buffer",
                           [MemWrite]>:$buffer,
                       Arg<Optional<Wsp_LengthBuffer>, "per-core work lists",
                           [MemWrite]>:$core_indptr,
                       Arg<Optional<Wsp_LengthBuffer>, "merge plan",
                           [MemWrite]>:$merge_indptr);
  let results = (outs Index:$count, I32:$status);
  let assemblyFormat = [{
    $table `into` $buffer
    (`cores` `(` $core_indptr^ `:` type($core_indptr) `)`)?
    (`merges` `(` $merge_indptr^ `:` type($merge_indptr) `)`)?
    attr-dict `:` type($buffer)
  }];
}

def Wsp_KernelTableOp : Wsp_Op<"kernel_table", [Symbol,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The O(1) tier dispatch table of specialized kernels";
  let description = [{
    The spec's `dispatch_table[tier]` (§7.2-7.3): for each reachable tier
    id, the kernel specialized for it. Tiers left out were proven
    unreachable. A `wsp.dispatch` naming the table runs, for each
    descriptor, the entry of its tier.

    ```mlir
    wsp.kernel_table @attn_table tiers(@DecodeAttentionTiers)
        {0: @attn_tier0, 1: @attn_tier1}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$tiers,
                       DenseI64ArrayAttr:$tier_ids,
                       TypedArrayAttrBase<FlatSymbolRefAttr,
                                          "kernel symbols">:$kernels);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The kernel of entry `i`.
    ::mlir::FlatSymbolRefAttr getKernel(unsigned i) {
      return ::llvm::cast<::mlir::FlatSymbolRefAttr>(getKernels()[i]);
    }
  }];
}


//===----------------------------------------------------------------------===//
// Attention masks (gen_mask_tkg)
//===----------------------------------------------------------------------===//

def Wsp_MaskValueOp : Wsp_Op<"mask_value", [Pure]> {
  let summary = "Whether one query attends one KV column (gen_mask_tkg)";
  let description = [{
    One element of the decode attention mask, for inline use in a kernel.
    The columns of a tile are `prior` cache slots (slot = `offset` + column)
    followed by `active` columns for the new tokens. `query` is the query's
    index among the new tokens and `pos` its position (`pos_ids[b, i]`,
    i.e. `pos_id[b] + i`); `cache` is the whole cache length (s_prior).

    * prior column, standard: attend iff slot < pos;
    * prior column, sliding window W: start = pos - W + 1, taken mod `cache`
      for a flat (circular) cache and clamped at 0 for a block cache; attend
      iff start <= slot < pos, or, when start > pos (a flat window that
      wraps), iff slot >= start or slot < pos;
    * active column j: causal, attend iff j <= query.

    `wsp-lower-masks` turns it into branch-free arithmetic.

    ```mlir
    %m = wsp.mask_value sliding window(8) flat col(%c) query(%i) pos(%p)
           prior(%sp) active(%sa) offset(%off) cache(%cl) : i1
    ```
  }];
  let arguments = (ins Wsp_MaskKind:$kind, OptionalAttr<I64Attr>:$window,
                       Wsp_KvLayout:$layout, Index:$col, Index:$query,
                       Index:$pos, Index:$prior, Index:$active, Index:$offset,
                       Index:$cache);
  let results = (outs I1:$attend);
  let assemblyFormat = [{
    $kind (`window` `(` $window^ `)`)? $layout `col` `(` $col `)`
    `query` `(` $query `)` `pos` `(` $pos `)` `prior` `(` $prior `)`
    `active` `(` $active `)` `offset` `(` $offset `)` `cache` `(` $cache `)`
    attr-dict `:` type($attend)
  }];
  let hasVerifier = 1;
}

def Wsp_MaskRangeOp : Wsp_Op<"mask_range", [Pure]> {
  let summary = "The KV positions one query attends, as one range (block KV)";
  let description = [{
    The columns `[lo, hi)` a query attends in gen_mask_tkg's block-cache
    layout, where the active (new) tokens follow the `prior` cached ones:
    the query's causal active columns (`hi = prior + query + 1`) and the
    prior slots the mask lets through, standard (all: `lo = 0`) or a
    sliding window of W (`lo = min(max(0, pos - W + 1), prior)`, the window
    not restricting the active columns, as `wsp.mask_value`). With a
    block cache that set is one range, which a tile kernel applies to a
    whole tile at once. A flat (circular) cache's window wraps and is not
    a range: use `wsp.mask_value`.

    The query is an active token: `pos >= prior` (in gen_mask_tkg's layout
    `pos = prior + query`). For `pos < prior` the set `wsp.mask_value`
    attends is not one range, and the result is not that set.
    `wsp-lower-masks` lowers the op to index arithmetic without branches.

    ```mlir
    %lo, %hi = wsp.mask_range sliding window(2048) query(%s) pos(%p)
                 prior(%prior) : index, index
    ```
  }];
  let arguments = (ins Wsp_MaskKind:$kind, OptionalAttr<I64Attr>:$window,
                       Index:$query, Index:$pos, Index:$prior);
  let results = (outs Index:$lo, Index:$hi);
  let assemblyFormat = [{
    $kind (`window` `(` $window^ `)`)? `query` `(` $query `)`
    `pos` `(` $pos `)` `prior` `(` $prior `)` attr-dict `:` type($lo) `,`
    type($hi)
  }];
  let hasVerifier = 1;
}

def Wsp_GenMaskOp : Wsp_Op<"gen_mask", [AttrSizedOperandSegments]> {
  let summary = "Write the uint8 decode attention mask (gen_mask_tkg)";
  let description = [{
    The standalone mask kernel: for every batch b, query i and column of
    this core's tile, `mask[b, i, col]` = 1 (attend) or 0 (masked), by the
    rule of `wsp.mask_value`. `pos_ids` is [batch, s_active] (i32, each
    query's position); `mask` is [batch, s_active, cols] (i8). An optional
    `active_mask` [batch, s_active, s_active] replaces the causal triangle
    of the active columns.

    LNC2 sharding, one call per core (`core` 0 or 1, no communication):
    `batch` — this core's mask holds batches [core * B, (core + 1) * B) of
    `pos_ids`, all s_prior columns; `sequence` — all batches, prior columns
    [core * s_prior / 2, (core + 1) * s_prior / 2) (the iota offset), and
    each core places the active columns at the end of its own tile.

    ```mlir
    wsp.gen_mask standard flat s_prior(%sp) pos_ids(%pos : memref<?x?xi32>)
        into %mask : memref<?x?x?xi8>
    wsp.gen_mask sliding window(8) flat s_prior(%sp) shard sequence core(%c)
        pos_ids(%pos : memref<?x?xi32>) into %mask : memref<?x?x?xi8>
    ```
  }];
  let arguments = (ins Wsp_MaskKind:$kind, OptionalAttr<I64Attr>:$window,
                       Wsp_KvLayout:$layout, Index:$s_prior,
                       DefaultValuedAttr<Wsp_MaskShard,
                                         "::mlir::wsp::MaskShard::none">:$shard,
                       Optional<Index>:$core,
                       Arg<MemRefRankOf<[I32], [2]>, "query positions",
                           [MemRead]>:$pos_ids,
                       Arg<Optional<MemRefRankOf<[I8], [3]>>, "active mask",
                           [MemRead]>:$active_mask,
                       Arg<MemRefRankOf<[I8], [3]>, "the mask",
                           [MemWrite]>:$mask);
  let assemblyFormat = [{
    $kind (`window` `(` $window^ `)`)? $layout `s_prior` `(` $s_prior `)`
    (`shard` $shard^ `core` `(` $core `)`)?
    `pos_ids` `(` $pos_ids `:` type($pos_ids) `)`
    (`active_mask` `(` $active_mask^ `:` type($active_mask) `)`)?
    `into` $mask attr-dict `:` type($mask)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Step capture (seed 004)
//===----------------------------------------------------------------------===//

def Wsp_StepOp : Wsp_Op<"step", [Symbol,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "One decode step of a function, built once and replayed per token";
  let description = [{
    Captures the function `@function` (one decode step: a program of
    operator ops, or the workloads they lower to) as a replayable table:
    the ordered launches with their bound buffers, constant parameters,
    dispatch geometry and plans are built once, and each token replays them
    (pto/runtime/step_table.hpp), patching only the values its patch points
    name. Every other argument of the function is bound once, at build:
    replaying the table on other buffers is an error at run time.

    The verifier checks that `@function` is a function definition (the
    table is built from its body), that every patch lands in an argument
    of the function of the kind its patch writes (`#wsp.patch`), with the
    width it writes (32-bit integers), that no argument is patched twice,
    that a `pos_and_kv` patch names two distinct scalars, and that the
    `token_offset` and `argmax_output` arguments have one type: the caller
    binds them one row apart in one token buffer (token 0 reads row 0 and
    writes row 1), so that replaying N tokens in one call feeds each
    token's argmax into the next one's embedding read.

    Lowered (`convert-llm-to-wsp`), each operator of the captured function
    becomes a launch function it calls; the C++ emitters print the table
    as `<step>_build` (records each call once) and `<step>_replay` (runs
    tokens [first, first + n) from the table). What the printed table
    needs of the lowered step (a `func.func` that returns a status and
    makes launches that each return one, no collective, only the batch's
    patches, a token buffer reached only through launches, one patched
    operand per launch, `wsp.replay_with` variants that are `func.func`s)
    is the backend's contract, `wsp-check-emittable`.

    ```mlir
    wsp.step @decode_table captures @decode_step patches [
      #wsp.patch<token_offset, 0>, #wsp.patch<argmax_output, 1>,
      #wsp.patch<request_positions, 3>, #wsp.patch<request_kv_lens, 4>]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefAttr:$function,
                       Wsp_PatchArrayAttr:$patches);
  let assemblyFormat = [{
    $sym_name `captures` $function `patches` $patches attr-dict
  }];
  let extraClassDeclaration = [{
    /// The patches in order.
    ::llvm::SmallVector<::mlir::wsp::PatchAttr> getPatchList();
  }];
}

//===----------------------------------------------------------------------===//
// Collectives between ranks (seed 002's all_reduce, seed 003)
//===----------------------------------------------------------------------===//

def Wsp_AllReduceOp : Wsp_Op<"all_reduce", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    Wsp_CollectiveOpInterface]> {
  let summary = "Reduce a buffer in place across the ranks of a device grid";
  let description = [{
    Every rank of the `shard.grid` named by `grid` calls it with a buffer of
    the same shape; afterwards each rank's buffer holds the element-wise
    `reduction` of its group's buffers (every rank's, or with `grid_axes`
    the ranks that differ from it only along those axes of the grid, as in
    shard's collectives), combined in rank order 0, 1, ...
    (bf16 in float, rounded once), so the result is the same bits on every
    rank, backend and run (pto/runtime/collectives.hpp). `status` is 0, or
    the runtime's error code with the buffer unchanged: 3 (INVALID_PARAMS)
    when the ranks' calls disagree or the program runs on a group whose
    size is not the grid's, 16 (PEER_LOST) when a rank is gone.

    With `after`, the status of the work before it on this rank: when that
    is not 0 the rank still joins the call, not ready, so that no rank
    waits for it; every rank's call then fails (INVALID_PARAMS, nothing
    written) and this rank's op returns `after`.

    The buffer is updated in place (destination passing, as every operator
    of the llm dialect): `shard.all_reduce` is a pure op whose result is a
    new value, which a memref program would have to copy back; the device
    grid itself is MLIR's `shard.grid` (docs/rationale/Sharding.md).

    ```mlir
    shard.grid @tp(shape = 4)
    %status = wsp.all_reduce %partial on @tp reduction = sum
        after(%matmul_status) : memref<?x256xbf16>
    // On a 2 x 4 grid, the sum over each row of 4 ranks (axis 1).
    shard.grid @tp_kvdp(shape = 2x4)
    %s = wsp.all_reduce %partial on @tp_kvdp grid_axes = [1]
        : memref<?x256xbf16>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "the buffer, reduced in place",
                           [MemRead, MemWrite]>:$buffer,
                       FlatSymbolRefAttr:$grid,
                       OptionalAttr<Shard_GridAxesAttr>:$grid_axes,
                       DefaultValuedAttr<Shard_ReductionKindAttr,
                           "::mlir::shard::ReductionKind::Sum">:$reduction,
                       Optional<I32>:$after);
  let results = (outs I32:$status);
  let assemblyFormat = [{
    $buffer `on` $grid (`grid_axes` `=` $grid_axes^)? (`reduction` `=` $reduction^)? (`after` `(` $after^ `)`)?
    attr-dict `:` type($buffer)
  }];
  let hasVerifier = 1;
}

// The collectives along an axis keep shard's names and attributes
// (`gather_axis`, `split_axis`/`concat_axis`, `slice_axis`), in place:
// each writes `dest` from `source` and returns the runtime's status.
class Wsp_AxisCollectiveOp<string mnemonic> : Wsp_Op<mnemonic, [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    Wsp_CollectiveOpInterface]> {
  let results = (outs I32:$status);
  let hasVerifier = 1;
  code commonDescription = [{
    Every rank of the `shard.grid` named by `grid` (all of its ranks, in
    linear order) calls it. It runs among the rank's group: every rank of
    the grid, or with `grid_axes` the ranks that differ from it only along
    those axes (shard's rank groups), ranked by their index along them,
    linear in the order given; "ranks" below is the group's size. `source` and `dest` are contiguous row-major
    buffers of one element type and rank; `status` is 0, or the runtime's
    error code with `dest` unchanged on every rank: 3 (INVALID_PARAMS) when
    the sizes do not fit the operation on some rank, the ranks' calls
    disagree, or the program runs on a group whose size is not the grid's;
    16 (PEER_LOST) when a rank is gone. `after` is the status of the work
    before it on this rank, as for `wsp.all_reduce`: when it is not 0 the
    rank joins the call not ready, every rank's call fails, and this rank's
    op returns `after`. The verifier checks what the static sizes show;
    the runtime checks the rest.
  }];
}

def Wsp_AllGatherOp : Wsp_AxisCollectiveOp<"all_gather"> {
  let summary = "Concatenate every rank's buffer along an axis";
  let description = [{
    `dest` = the ranks' `source` buffers concatenated along `gather_axis`
    in rank order, on every rank (shard.all_gather on memrefs, in place):
    `dest` has `source`'s sizes but ranks x at the axis.
  }] # commonDescription # [{
    ```mlir
    shard.grid @kvdp(shape = 4)
    // Q heads of every rank: [B, 1, 2, 64] -> [B, 1, 8, 64].
    %s = wsp.all_gather %q into %q_all on @kvdp gather_axis = 2
        : memref<?x1x2x64xbf16> into memref<?x1x8x64xbf16>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "this rank's part", [MemRead]>:$source,
                       Arg<AnyMemRef, "the gathered buffer", [MemWrite]>:$dest,
                       FlatSymbolRefAttr:$grid,
                       OptionalAttr<Shard_GridAxesAttr>:$grid_axes,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$gather_axis,
                       Optional<I32>:$after);
  let assemblyFormat = [{
    $source `into` $dest `on` $grid (`grid_axes` `=` $grid_axes^)? `gather_axis` `=` $gather_axis
    (`after` `(` $after^ `)`)? attr-dict `:` type($source) `into` type($dest)
  }];
}

def Wsp_AllToAllOp : Wsp_AxisCollectiveOp<"all_to_all"> {
  let summary = "Send a piece of a buffer to every rank, concatenate the "
                "pieces received";
  let description = [{
    `source` is cut along `split_axis` into ranks equal pieces; piece r goes
    to rank r; `dest` = the pieces this rank received, concatenated along
    `concat_axis` in rank order (shard.all_to_all on memrefs, in place).
    `dest` has `source`'s sizes with the split axis / ranks and the concat
    axis x ranks.
  }] # commonDescription # [{
    ```mlir
    shard.grid @kvdp(shape = 4)
    // This rank's requests with every rank's Q heads:
    // [4 x c, 1, 2, 64] -> [c, 1, 8, 64].
    %s = wsp.all_to_all %q_padded into %q_mine on @kvdp split_axis = 0
        concat_axis = 2 : memref<?x1x2x64xbf16> into memref<?x1x8x64xbf16>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "the pieces to send", [MemRead]>:$source,
                       Arg<AnyMemRef, "the pieces received", [MemWrite]>:$dest,
                       FlatSymbolRefAttr:$grid,
                       OptionalAttr<Shard_GridAxesAttr>:$grid_axes,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$split_axis,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$concat_axis,
                       Optional<I32>:$after);
  let assemblyFormat = [{
    $source `into` $dest `on` $grid (`grid_axes` `=` $grid_axes^)? `split_axis` `=` $split_axis
    `concat_axis` `=` $concat_axis (`after` `(` $after^ `)`)? attr-dict `:`
    type($source) `into` type($dest)
  }];
}

def Wsp_AllSliceOp : Wsp_AxisCollectiveOp<"all_slice"> {
  let summary = "This rank's piece of a buffer along an axis";
  let description = [{
    `dest` = this rank's piece of `source` cut along `slice_axis` into
    ranks equal pieces (shard.all_slice on memrefs, in place): `source` has
    `dest`'s sizes but ranks x at the axis. No data moves between ranks:
    a rank whose sizes do not fit, or that is not ready, fails alone.
  }] # commonDescription # [{
    ```mlir
    shard.grid @kvdp(shape = 4)
    // This rank's heads of every request: [B, 1, 8, 64] -> [B, 1, 2, 64].
    %s = wsp.all_slice %out_all into %out on @kvdp slice_axis = 2
        : memref<?x1x8x64xbf16> into memref<?x1x2x64xbf16>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "every rank's pieces", [MemRead]>:$source,
                       Arg<AnyMemRef, "this rank's piece", [MemWrite]>:$dest,
                       FlatSymbolRefAttr:$grid,
                       OptionalAttr<Shard_GridAxesAttr>:$grid_axes,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$slice_axis,
                       Optional<I32>:$after);
  let assemblyFormat = [{
    $source `into` $dest `on` $grid (`grid_axes` `=` $grid_axes^)? `slice_axis` `=` $slice_axis
    (`after` `(` $after^ `)`)? attr-dict `:` type($source) `into` type($dest)
  }];
}

#endif // WSP_DIALECT_WSP_IR_WSPOPS_TD
