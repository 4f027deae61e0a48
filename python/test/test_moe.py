"""The MoE chain from Python: moe_quant_group_gemm lowered through tiles
(experts planned from their token counts, no padding, the M tile by the
expert's count), run on numpy arrays against a numpy reference.

Programs are built at -O0: this file's time is its C++ builds (each kernel
then runs on a few tokens), which -O0 cuts to about a third, and the
numbers are -O2's (no fast-math, no FMA contraction at either); the
tutorial test builds at the default -O2."""

import numpy as np
import pytest

import wsp
from wsp.ir import Module, memref
from wsp.ops import llm

EXPERTS, HIDDEN, NEW = 4, 256, 256


def group_gemm_module(n_tile=None):
    m = Module("experts")
    with m.function("experts_up",
                    scatter_tokens=memref([None, HIDDEN], "i8"),
                    per_token_scale=memref([None], "f32"),
                    experts_weight=memref([EXPERTS, HIDDEN, NEW], "i8"),
                    experts_scale=memref([EXPERTS, NEW], "f32"),
                    experts_token_count=memref([EXPERTS], "i32"),
                    y=memref([None, NEW], "bf16")) as f:
        llm.moe_quant_group_gemm(
            scatter_tokens=f.scatter_tokens, per_token_scale=f.per_token_scale,
            experts_weight=f.experts_weight, experts_scale=f.experts_scale,
            experts_token_count=f.experts_token_count, y=f.y,
            **({"n_tile": n_tile} if n_tile else {}))
    return m


def reference(a, scale, w, w_scale, counts):
    """Expert e's rows after those of experts 0..e-1: the int8 product
    exact (in int64), times the row's and the column's scale."""
    out = np.zeros((a.shape[0], w.shape[2]))
    row = 0
    for e, n in enumerate(counts):
        acc = a[row:row + n].astype(np.int64) @ w[e].astype(np.int64)
        out[row:row + n] = acc * scale[row:row + n, None].astype(np.float64) \
            * w_scale[e].astype(np.float64)
        row += n
    return out


@pytest.mark.parametrize("n_tile", [None, 128])
def test_group_gemm_runs_against_numpy(n_tile):
    # The default N tile (64) and a prefill step's (n_tile = 128).
    prog = wsp.compile(group_gemm_module(n_tile), opt_level=0)
    assert prog.kernels[0].startswith(
        "@experts_up_moe_quant_group_gemm_0_tier0 (tier 0)")
    rng = np.random.default_rng(11)
    # An expert without tokens, a small one (tier 0: 16-row tiles), two hot
    # ones (tier 1: 32-row tiles); 100 rows allocated, 78 used.
    counts = np.array([0, 5, 40, 33], np.int32)
    allocated = 100
    a = rng.integers(-128, 128, (allocated, HIDDEN), dtype=np.int8)
    scale = rng.uniform(0.001, 0.01, allocated).astype(np.float32)
    w = rng.integers(-128, 128, (EXPERTS, HIDDEN, NEW), dtype=np.int8)
    w_scale = rng.uniform(0.001, 0.01, (EXPERTS, NEW)).astype(np.float32)
    y = np.full((allocated, NEW), 0x7FC1, np.uint16)
    result = prog.experts_up(a, scale, w, w_scale, counts, y, report=True)
    assert result.ok, result
    used = counts.sum()
    ref = reference(a, scale, w, w_scale, counts)
    # The i32 sums are exact; two float products and the bf16 rounding:
    # within 2^-8 relative (half a bf16 ulp, plus float rounding far below).
    np.testing.assert_allclose(wsp.from_bf16(y[:used]), ref[:used],
                               rtol=2**-8 * (1 + 1e-4), atol=1e-30)
    assert (y[used:] == 0x7FC1).all()  # rows past the experts' total
    # Units: N tiles of 64 columns (4; 2 of 128) per chunk of an expert's
    # rows, none for the empty expert; the small expert's units run tier 0.
    tiers = result.report.per_tier
    n_tiles = NEW // (n_tile or 64)
    # Chunks of at least one M tile of 128 rows (the plan's smallest):
    # 5 -> 1, 40 -> 1, 33 -> 1.
    assert tiers == {0: 1 * n_tiles, 1: (1 + 1) * n_tiles}
    assert sum(tiers.values()) == result.report.descriptors


def test_group_gemm_rejects_bad_counts_writing_nothing():
    prog = wsp.compile(group_gemm_module(), opt_level=0)
    a = np.zeros((20, HIDDEN), np.int8)
    scale = np.ones(20, np.float32)
    w = np.zeros((EXPERTS, HIDDEN, NEW), np.int8)
    w_scale = np.ones((EXPERTS, NEW), np.float32)
    y = np.full((20, NEW), 0x7FC1, np.uint16)
    # More rows than allocated: BUFFER_OVERFLOW.
    assert prog.experts_up(a, scale, w, w_scale,
                           np.array([10, 5, 4, 2], np.int32),
                           y).name == "BUFFER_OVERFLOW"
    # A negative count: INVALID_PARAMS.
    assert prog.experts_up(a, scale, w, w_scale,
                           np.array([10, -1, 4, 2], np.int32),
                           y).name == "INVALID_PARAMS"
    # per_token_scale of another row count: INVALID_PARAMS.
    assert prog.experts_up(a, np.ones(19, np.float32), w, w_scale,
                           np.array([1, 1, 1, 1], np.int32),
                           y).name == "INVALID_PARAMS"
    assert (y == 0x7FC1).all()
    # No tokens at all: nothing to do, nothing written.
    assert prog.experts_up(a, scale, w, w_scale, np.zeros(4, np.int32),
                           y).ok
    assert (y == 0x7FC1).all()


def test_shared_expert_matmul_runs_against_numpy():
    m = Module("shared")
    with m.function("shared_up", x=memref([None, HIDDEN], "i8"),
                    scale=memref([None], "f32"),
                    w=memref([HIDDEN, NEW], "i8"),
                    w_scale=memref([NEW], "f32"),
                    y=memref([None, NEW], "bf16")) as f:
        llm.moe_quant_matmul(hidden_states=f.x, per_token_scale=f.scale,
                             expert_weight=f.w, expert_scale=f.w_scale,
                             y=f.y)
    prog = wsp.compile(m, opt_level=0)
    rng = np.random.default_rng(12)
    for tokens in (1, 37):
        a = rng.integers(-128, 128, (tokens, HIDDEN), dtype=np.int8)
        scale = rng.uniform(0.001, 0.01, tokens).astype(np.float32)
        w = rng.integers(-128, 128, (HIDDEN, NEW), dtype=np.int8)
        w_scale = rng.uniform(0.001, 0.01, NEW).astype(np.float32)
        y = np.zeros((tokens, NEW), np.uint16)
        assert prog.shared_up(a, scale, w, w_scale, y).ok
        ref = reference(a, scale, w[None], w_scale[None], [tokens])
        np.testing.assert_allclose(wsp.from_bf16(y), ref,
                                   rtol=2**-8 * (1 + 1e-4), atol=1e-30)


@pytest.mark.parametrize("experts", [64, 8, 24])
def test_gating_gemm_runs_against_numpy(experts):
    # 64 experts; Mixtral's 8 and 24, whose N tile (8, 24) is padded to
    # whole 16 columns on the cube and in the bf16 output rows.
    m = Module("gating")
    with m.function("route", x=memref([None, HIDDEN], "bf16"),
                    w=memref([HIDDEN, experts], "bf16"),
                    logits=memref([None, experts], "bf16")) as f:
        llm.moe_gating_gemm(hidden_states=f.x, weight=f.w, y=f.logits)
    prog = wsp.compile(m, opt_level=0)
    rng = np.random.default_rng(13)
    for tokens in (1, 45):
        x = wsp.to_bf16(rng.uniform(-1, 1, (tokens, HIDDEN)))
        w = wsp.to_bf16(rng.uniform(-1, 1, (HIDDEN, experts)))
        y = np.zeros((tokens, experts), np.uint16)
        assert prog.route(x, w, y).ok
        ref = wsp.from_bf16(x).astype(np.float64) @ \
            wsp.from_bf16(w).astype(np.float64)
        # bf16 products are exact in f32, the f32 sum of 256 of them errs
        # by at most 256 2^-24 sum|x w|, and the output is rounded to bf16.
        bound = np.abs(ref) * 2**-8 + 256 * 2**-24 * (
            np.abs(wsp.from_bf16(x)) @ np.abs(wsp.from_bf16(w)))
        assert (np.abs(wsp.from_bf16(y) - ref) <= bound + 1e-30).all()


def test_swiglu_quant_runs_against_numpy():
    # One shared expert seeing 8 tokens, 4 routed experts (one empty); the
    # rows: 8 shared, then 5, 0, 20 and 9 routed, 50 allocated.
    shared, per_rank, h = 1, 8, 512
    m = Module("act")
    with m.function("act", x=memref([None, 2 * h], "bf16"),
                    smooth=memref([shared + EXPERTS, h], "f32"),
                    counts=memref([EXPERTS], "i32"),
                    y=memref([None, h], "i8"),
                    scale=memref([None], "f32")) as f:
        llm.moe_swiglu_dynamic_quant(
            scatter_tokens=f.x, smooth_scale=f.smooth,
            experts_tokens_count=f.counts, y=f.y, per_token_scale=f.scale,
            num_shared_experts_per_rank=shared, num_tokens_per_rank=per_rank)
    prog = wsp.compile(m, opt_level=0)
    rng = np.random.default_rng(14)
    counts = np.array([5, 0, 20, 9], np.int32)
    rows = shared * per_rank + 50
    used = shared * per_rank + counts.sum()
    x = wsp.to_bf16(rng.uniform(-3, 3, (rows, 2 * h)))
    smooth = rng.uniform(0.5, 2, (shared + EXPERTS, h)).astype(np.float32)
    y = np.full((rows, h), 7, np.int8)
    scale = np.full(rows, -1, np.float32)
    assert prog.act(x, smooth, counts, y, scale).ok
    # Each row's smooth row: its segment (shared experts first).
    segment = np.repeat(np.arange(shared + EXPERTS),
                        [per_rank] * shared + list(counts))
    v = wsp.reference.swiglu(wsp.from_bf16(x[:used])) * smooth[segment]
    q_ref, s_ref = wsp.reference.scale_dynamic_quant(v)
    # Scales to float precision (the kernel's e^-g and division are f32);
    # int8 values equal except within float rounding of a half.
    np.testing.assert_allclose(scale[:used], s_ref, rtol=1e-5)
    exact = v * 127 / np.abs(v).max(axis=1, keepdims=True)
    near_half = np.abs(np.abs(exact - np.floor(exact)) - 0.5) < 1e-3
    diff = np.abs(y[:used].astype(int) - q_ref.astype(int))
    assert (diff[~near_half] == 0).all() and (diff <= 1).all()
    # Rows past the used ones are not written.
    assert (y[used:] == 7).all() and (scale[used:] == -1).all()
    # More routed rows than allocated: BUFFER_OVERFLOW, nothing written.
    y2 = np.full_like(y, 7)
    assert prog.act(x, smooth, np.array([30, 0, 20, 9], np.int32), y2,
                    scale).name == "BUFFER_OVERFLOW"
    assert (y2 == 7).all()


@pytest.mark.parametrize("weights_dtype", ["f32", "bf16"])
def test_softmax_topk_runs_against_numpy(weights_dtype):
    m = Module("router")
    with m.function("topk", logits=memref([None, 64], "bf16"),
                    ids=memref([None, 8], "i32"),
                    weights=memref([None, 8], weights_dtype)) as f:
        llm.moe_softmax_topk(hidden_states=f.logits, selected_experts=f.ids,
                             expert_weights=f.weights)
    prog = wsp.compile(m, opt_level=0)
    rng = np.random.default_rng(15)
    tokens = 37
    logits = wsp.to_bf16(rng.uniform(-4, 4, (tokens, 64)))
    logits[5] = logits[5, 0]  # a token whose experts all tie: ids 0..7
    ids = np.full((tokens, 8), -7, np.int32)
    weights = np.zeros((tokens, 8), wsp.dtypes.numpy_dtype(weights_dtype))
    assert prog.topk(logits, ids, weights).ok
    ref_ids, ref_w = wsp.reference.softmax_topk(wsp.from_bf16(logits), 8)
    np.testing.assert_array_equal(ids, ref_ids)
    assert list(ids[5]) == list(range(8))
    got = wsp.from_bf16(weights) if weights_dtype == "bf16" else weights
    # f32 softmax: 1e-5; bf16 weights: half a bf16 ulp more.
    rtol = 1e-5 if weights_dtype == "f32" else 2**-8 + 1e-5
    np.testing.assert_allclose(got, ref_w, rtol=rtol)


def scatter_module(tokens, h, topk, start, end, shared, offset, per_rank):
    m = Module("scatter")
    with m.function("scatter", x=memref([tokens, h], "bf16"),
                    ids=memref([tokens, topk], "i32"),
                    smooth=memref([shared + end - start, h], "f32"),
                    rows=memref([None, h], "i8"),
                    row_scale=memref([None], "f32"),
                    counts=memref([end - start], "i32"),
                    token_offset=memref([None], "i32")) as f:
        llm.moe_scatter_dynamic_quant(
            hidden_states=f.x, selected_experts=f.ids, smooth_scale=f.smooth,
            scatter_tokens=f.rows, scatter_per_token_scale=f.row_scale,
            experts_token_count=f.counts, token_offset=f.token_offset,
            expert_start_idx=start, expert_end_idx=end,
            num_shared_experts_per_rank=shared, num_tokens_offset=offset,
            num_tokens_per_rank=per_rank)
    return m


def test_scatter_quant_runs_against_numpy():
    # 16 tokens, top 2 of 16 experts; this rank: experts [4, 8) and one
    # shared expert for tokens [8, 16); 40 rows allocated.
    tokens, h, topk = 16, 256, 2
    start, end, shared, offset, per_rank, allocated = 4, 8, 1, 8, 8, 40
    prog = wsp.compile(scatter_module(tokens, h, topk, start, end, shared,
                                      offset, per_rank), opt_level=0)
    rng = np.random.default_rng(16)
    x = wsp.to_bf16(rng.uniform(-3, 3, (tokens, h)))
    ids = np.stack([rng.permutation(16)[:topk] for _ in range(tokens)])
    ids = ids.astype(np.int32)
    smooth = rng.uniform(0.5, 2, (shared + end - start, h)).astype(np.float32)
    rows = np.full((shared * per_rank + allocated, h), 7, np.int8)
    row_scale = np.full(len(rows), -1, np.float32)
    counts = np.full(end - start, -5, np.int32)
    token_offset = np.full(allocated, -9, np.int32)
    assert prog.scatter(x, ids, smooth, rows, row_scale, counts,
                        token_offset).ok
    ref_rows, ref_counts, ref_offset = wsp.reference.moe_scatter(
        wsp.from_bf16(x), ids, smooth, start, end, allocated, shared, offset,
        per_rank)
    np.testing.assert_array_equal(counts, ref_counts)
    np.testing.assert_array_equal(token_offset, ref_offset)
    used = len(ref_rows)
    q_ref, s_ref = wsp.reference.scale_dynamic_quant(ref_rows)
    np.testing.assert_allclose(row_scale[:used], s_ref, rtol=1e-6)
    exact = ref_rows * 127 / np.abs(ref_rows).max(axis=1, keepdims=True)
    near_half = np.abs(np.abs(exact - np.floor(exact)) - 0.5) < 1e-4
    diff = np.abs(rows[:used].astype(int) - q_ref.astype(int))
    assert (diff[~near_half] == 0).all() and (diff <= 1).all()
    assert (rows[used:] == 7).all() and (row_scale[used:] == -1).all()

    # A negative expert id: INVALID_PARAMS; more routed rows than
    # allocated (every token on this rank's experts: 32 rows for 20):
    # BUFFER_OVERFLOW; a row buffer that is not shared + allocated rows:
    # INVALID_PARAMS. Nothing written in any case.
    negative = ids.copy()
    negative[3, 1] = -1
    mine = np.tile(np.array([4, 5], np.int32), (tokens, 1))
    small = shared * per_rank + 20
    for bad_ids, n_rows, n_alloc, name in [
            (negative, len(rows), allocated, "INVALID_PARAMS"),
            (mine, small, 20, "BUFFER_OVERFLOW"),
            (ids, len(rows) - 1, allocated, "INVALID_PARAMS")]:
        out = np.full((n_rows, h), 7, np.int8)
        out_scale = np.full(n_rows, -1, np.float32)
        c2 = np.full_like(counts, -5)
        o2 = np.full(n_alloc, -9, np.int32)
        result = prog.scatter(x, bad_ids, smooth, out, out_scale, c2, o2)
        assert result.name == name
        assert (out == 7).all() and (out_scale == -1).all()
        assert (c2 == -5).all() and (o2 == -9).all()


def gather_module(tokens, h, topk, shared, offset, per_rank, weights_dtype):
    m = Module("gather")
    with m.function("gather", rows=memref([None, h], "bf16"),
                    token_offset=memref([None], "i32"),
                    weights=memref([tokens, topk], weights_dtype),
                    out=memref([tokens, h], "bf16")) as f:
        llm.moe_gather(scatter_tokens=f.rows, token_offset=f.token_offset,
                       expert_weights=f.weights, hidden_states=f.out,
                       num_shared_experts_per_rank=shared,
                       num_tokens_offset=offset, num_tokens_per_rank=per_rank)
    return m


@pytest.mark.parametrize("weights_dtype", ["f32", "bf16"])
def test_gather_runs_against_numpy(weights_dtype):
    tokens, h, topk, shared, offset, per_rank, allocated = 16, 256, 2, 1, 8, \
        8, 40
    prog = wsp.compile(gather_module(tokens, h, topk, shared, offset,
                                     per_rank, weights_dtype), opt_level=0)
    rng = np.random.default_rng(17)
    rows = wsp.to_bf16(rng.uniform(-2, 2, (shared * per_rank + allocated, h)))
    # 25 routed rows for a random subset of the (token, slot) pairs.
    codes = rng.permutation(tokens * topk)[:25].astype(np.int32)
    token_offset = np.full(allocated, -1, np.int32)
    token_offset[:25] = codes
    w = rng.uniform(0, 1, (tokens, topk))
    weights = (wsp.to_bf16(w) if weights_dtype == "bf16"
               else w.astype(np.float32))
    start = wsp.to_bf16(rng.uniform(-1, 1, (tokens, h)))  # accumulated onto
    out = start.copy()
    assert prog.gather(rows, token_offset, weights, out).ok
    wf = wsp.from_bf16(weights) if weights_dtype == "bf16" else weights
    ref = wsp.from_bf16(start) + wsp.reference.moe_gather(
        wsp.from_bf16(rows), token_offset, wf, tokens, shared, offset,
        per_rank)
    # f32 sums of at most 4 terms, rounded to bf16 once: half a bf16 ulp of
    # the result plus 4 2^-24 of the terms' magnitudes.
    bound = np.abs(ref) * 2**-8 + 4 * 2**-24 * 8
    assert (np.abs(wsp.from_bf16(out) - ref) <= bound).all()

    # A code outside the tokens' pairs, or the same pair twice:
    # INVALID_PARAMS, nothing written.
    for bad in (np.where(token_offset == codes[0], tokens * topk,
                         token_offset),
                np.where(token_offset == codes[1], codes[0], token_offset)):
        out2 = start.copy()
        assert prog.gather(rows, np.ascontiguousarray(bad, np.int32),
                           weights, out2).name == "INVALID_PARAMS"
        assert (out2 == start).all()


def test_row_range_views_lower_and_run():
    # A contiguous range of rows (memref.subview of leading rows) is a
    # row-major view the lowering takes and the emitter prints: the shared
    # expert's matmul on rows [8, n) of the scattered buffers.
    prog = wsp.compile("""
func.func @rows_from_8(%rows: memref<?x128xi8>, %scale: memref<?xf32>,
                       %w: memref<128x128xi8>, %ws: memref<128xf32>,
                       %y: memref<?x128xbf16>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %rows, %c0 : memref<?x128xi8>
  %rest = arith.subi %n, %c8 : index
  %r = memref.subview %rows[8, 0] [%rest, 128] [1, 1]
      : memref<?x128xi8> to memref<?x128xi8, strided<[128, 1], offset: 1024>>
  %s = memref.subview %scale[8] [%rest] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: 8>>
  %o = memref.subview %y[8, 0] [%rest, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: 1024>>
  llm.moe_quant_matmul
      hidden_states(%r : memref<?x128xi8, strided<[128, 1], offset: 1024>>)
      per_token_scale(%s : memref<?xf32, strided<[1], offset: 8>>)
      expert_weight(%w : memref<128x128xi8>) expert_scale(%ws : memref<128xf32>)
      -> y(%o : memref<?x128xbf16, strided<[128, 1], offset: 1024>>)
  return
}
""", opt_level=0)
    rng = np.random.default_rng(18)
    a = rng.integers(-128, 128, (29, 128), dtype=np.int8)
    scale = rng.uniform(0.001, 0.01, 29).astype(np.float32)
    w = rng.integers(-128, 128, (128, 128), dtype=np.int8)
    ws = rng.uniform(0.001, 0.01, 128).astype(np.float32)
    y = np.full((29, 128), 0x7FC1, np.uint16)
    assert prog.rows_from_8(a, scale, w, ws, y).ok
    ref = reference(a[8:], scale[8:], w[None], ws[None], [21])
    np.testing.assert_allclose(wsp.from_bf16(y[8:]), ref,
                               rtol=2**-8 * (1 + 1e-4), atol=1e-30)
    assert (y[:8] == 0x7FC1).all()


MOE_IR = (__import__("pathlib").Path(__file__).resolve().parents[2] /
          "examples" / "ir" / "moe.mlir")


def moe_inputs(counts=(3, 0, 5), hidden=8, ffn=16):
    rng = np.random.default_rng(4)
    counts = np.array(counts, np.int32)
    tokens = int(counts.sum())
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
    return dict(
        counts=counts, offsets=offsets,
        x=wsp.to_bf16(rng.uniform(-1, 1, (tokens, hidden))),
        w=wsp.to_bf16(rng.uniform(-1, 1, (len(counts), hidden, ffn))),
        y=np.zeros((tokens, ffn), np.float32),
        descs=np.zeros(64, wsp.DESCRIPTOR))


def test_moe_example_runs_against_numpy():
    prog = wsp.compile(MOE_IR, opt_level=0)
    a = moe_inputs()
    assert prog.moe_step(**a).ok
    x, w = wsp.from_bf16(a["x"]), wsp.from_bf16(a["w"])
    expert = np.repeat(np.arange(len(a["counts"])), a["counts"])
    ref = np.einsum("th,thn->tn", x.astype(np.float64),
                    w[expert].astype(np.float64))
    # bf16 products summed in f32 over 8 terms: well within 1e-5.
    np.testing.assert_allclose(a["y"], ref, rtol=1e-5, atol=1e-6)


# Issue 45, finding 4, for the README's moe.mlir: each bad input is refused
# by the planner's preconditions (wsp.require) with nothing written.
@pytest.mark.parametrize("name,change", [
    ("an offset short", lambda a: a.update(offsets=a["offsets"][:2].copy())),
    ("rows past x", lambda a: a["offsets"].__setitem__(2, 4)),
    ("a negative offset", lambda a: a["offsets"].__setitem__(0, -1)),
    ("a weight short", lambda a: a.update(w=a["w"][:2].copy())),
    ("weights of another hidden size", lambda a: a.update(
        w=a["w"][:, :7].copy())),
    ("y of another width", lambda a: a.update(y=np.zeros((8, 15),
                                                          np.float32))),
    ("y with fewer rows", lambda a: a.update(y=np.zeros((7, 16),
                                                         np.float32))),
])
def test_moe_example_checks_its_preconditions(name, change):
    prog = wsp.compile(MOE_IR, opt_level=0)
    a = moe_inputs()
    change(a)
    a["y"][...] = 7
    result = prog.moe_step(**a)
    assert result.name == "INVALID_PARAMS", name
    assert (a["y"] == 7).all()
    assert not a["descs"].view(np.uint8).any()
