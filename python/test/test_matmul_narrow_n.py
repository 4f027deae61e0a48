"""int8 matmuls whose N is a multiple of 16 but not of 32 (issue 44,
defect 1): an untransposed int8 weight [H, N] is an nz tile of 16x32
fractal boxes on the cube, so such an N tile is held in tiles padded to 32
columns, the first N valid (cubeNCols in lib/Conversion/LlmToWsp). Each op
runs against a numpy reference written here from the ops' definitions
(LlmOps.td), not wsp.reference: the int8 product exact in int64, times the
token's and the column's scale.

Programs are built at -O0: the C++ build is this file's cost, and the
numbers are -O2's (no fast-math, no FMA contraction at either).
"""

import numpy as np
import pytest

import wsp
from wsp.ir import Module, memref
from wsp.ops import llm

HIDDEN = 256
NARROW_N = (16, 48, 80, 112, 144)


def reference(a, scale, w, w_scale):
    acc = a.astype(np.int64) @ w.astype(np.int64)
    return acc * scale[:, None].astype(np.float64) * \
        w_scale[None, :].astype(np.float64)


def check(y_bits, ref):
    # The int32 sums are exact; two float products and the bf16 rounding:
    # within half a bf16 ulp (2^-8 relative) and float rounding far below.
    np.testing.assert_allclose(wsp.from_bf16(y_bits), ref,
                               rtol=2**-8 * (1 + 1e-4), atol=1e-30)


def matmul_module():
    m = Module("narrow")
    for n in NARROW_N:
        with m.function(f"qm_{n}", a=memref([None, HIDDEN], "i8"),
                        s=memref([None], "f32"),
                        w=memref([HIDDEN, n], "i8"),
                        ws=memref([n], "f32"),
                        y=memref([None, n], "bf16")) as f:
            llm.quant_matmul(hidden_states=f.a, per_token_scale=f.s,
                             weight=f.w, weight_scale=f.ws, y=f.y)
        with m.function(f"qm_ta_{n}", a=memref([HIDDEN, None], "i8"),
                        s=memref([None], "f32"),
                        w=memref([HIDDEN, n], "i8"),
                        ws=memref([n], "f32"),
                        y=memref([None, n], "bf16")) as f:
            llm.quant_matmul(hidden_states=f.a, per_token_scale=f.s,
                             weight=f.w, weight_scale=f.ws, y=f.y,
                             transpose_a=True)
        with m.function(f"moe_{n}", a=memref([None, HIDDEN], "i8"),
                        s=memref([None], "f32"),
                        w=memref([HIDDEN, n], "i8"),
                        ws=memref([n], "f32"),
                        y=memref([None, n], "bf16")) as f:
            llm.moe_quant_matmul(hidden_states=f.a, per_token_scale=f.s,
                                 expert_weight=f.w, expert_scale=f.ws,
                                 y=f.y)
    return m


@pytest.fixture(scope="module")
def prog():
    return wsp.compile(matmul_module(), opt_level=0)


@pytest.mark.parametrize("n", NARROW_N)
@pytest.mark.parametrize("form", ["qm", "qm_ta", "moe"])
def test_narrow_n_matmul_against_numpy(prog, form, n):
    rng = np.random.default_rng(n)
    for tokens in (1, 45):
        a = rng.integers(-128, 128, (tokens, HIDDEN), dtype=np.int8)
        scale = rng.uniform(0.001, 0.01, tokens).astype(np.float32)
        w = rng.integers(-128, 128, (HIDDEN, n), dtype=np.int8)
        w_scale = rng.uniform(0.001, 0.01, n).astype(np.float32)
        y = np.full((tokens, n), 0x7FC1, np.uint16)
        a_in = np.ascontiguousarray(a.T) if form == "qm_ta" else a
        assert getattr(prog, f"{form}_{n}")(a_in, scale, w, w_scale, y).ok
        check(y, reference(a, scale, w, w_scale))


def test_group_gemm_n96_against_numpy():
    experts, n = 3, 96
    m = Module("experts")
    with m.function("up", rows=memref([None, HIDDEN], "i8"),
                    s=memref([None], "f32"),
                    w=memref([experts, HIDDEN, n], "i8"),
                    ws=memref([experts, n], "f32"),
                    counts=memref([experts], "i32"),
                    y=memref([None, n], "bf16")) as f:
        llm.moe_quant_group_gemm(
            scatter_tokens=f.rows, per_token_scale=f.s, experts_weight=f.w,
            experts_scale=f.ws, experts_token_count=f.counts, y=f.y)
    prog = wsp.compile(m, opt_level=0)
    rng = np.random.default_rng(96)
    counts = np.array([5, 0, 40], np.int32)
    allocated = 50
    a = rng.integers(-128, 128, (allocated, HIDDEN), dtype=np.int8)
    scale = rng.uniform(0.001, 0.01, allocated).astype(np.float32)
    w = rng.integers(-128, 128, (experts, HIDDEN, n), dtype=np.int8)
    w_scale = rng.uniform(0.001, 0.01, (experts, n)).astype(np.float32)
    y = np.full((allocated, n), 0x7FC1, np.uint16)
    assert prog.up(a, scale, w, w_scale, counts, y).ok
    row = 0
    for e, c in enumerate(counts):
        check(y[row:row + c], reference(a[row:row + c], scale[row:row + c],
                                        w[e], w_scale[e]))
        row += c
    assert (y[row:] == 0x7FC1).all()  # rows past the experts' total
