"""The RMS norms at the ends of bf16's range (issue 45, finding 14): every
kernel that sums squares (rms_norm with and without a residual, the fused
add_rms_norm_dynamic_quant, head_rms_norm) against a float64 reference
written here from the ops' definitions (LlmOps.td), not wsp.reference.

bf16 reaches 3.39e38, so a row's f32 sum of squares overflows from
|x| ~ 1.3e18 on (2048 columns); the kernels then scale the row
(docs/rationale/Lowering.md, "Sums of squares"). The rows below cover
|x| = 1e18, 1e30 and bf16's largest, tiny (eps-dominated) and subnormal
rows, a zero row, and rows whose overflow starts in the first or the
second of two column chunks, or only when the chunks' sums are added,
next to ordinary rows in the same 8-row tile.

Programs are built at -O0: the C++ build is this file's cost, and the
numbers are -O2's (no fast-math, no FMA contraction at either).
"""

import numpy as np

import wsp
from wsp.ir import Module, memref
from wsp.ops import llm

HIDDEN = 2048      # two column chunks of 1024 (one for rms_norm without a residual)
BF16_MAX = 3.3895313892515355e38   # 0x7F7F
EPS = 1e-6

# Tolerance of a bf16 output against the float64 value: half a bf16 ulp
# (2^-8 relative) for the output rounding, plus the kernel's f32
# arithmetic: the sum of 2048 squares in the simulation's eight lanes (256
# terms a lane: below 2^-24 (256 + 8) ~ 1.6e-5 relative on the sum, half
# that on rstd), a few products, and for the rows near bf16's largest an
# rstd that is an f32 subnormal (2^-128: 21 bits, 2^-22 relative).
RTOL = 2**-8 + 1e-5


def extreme_rows(rng, cols=HIDDEN):
    """[20, cols] float64 values, each exactly a bf16, row by row as the
    module docstring lists them."""
    half = cols // 2

    def signed(scale, n=cols):
        return scale * rng.uniform(0.5, 1.5, n) * rng.choice([-1, 1], n)

    rows = [
        signed(1e18),                                   # 0
        signed(1e30),                                   # 1
        BF16_MAX * rng.choice([-1, 1], cols),           # 2: bf16's largest
        signed(1e-30),                                  # 3: eps-dominated
        rng.integers(-127, 128, cols) * 2.0**-133,      # 4: bf16 subnormals
        np.zeros(cols),                                 # 5
        np.concatenate([signed(1, half), signed(1e30, half)]),   # 6
        np.concatenate([signed(1e30, half), signed(1, half)]),   # 7
        # 8: each chunk's sum finite (2.1e38), their sum not.
        4.5e17 * rng.choice([-1, 1], cols),
        np.concatenate([[3e38], signed(1, cols - 1)]),  # 9: one huge value
    ]
    rows += [signed(4) for _ in range(6)]               # 10..15
    rows += [signed(1e-38), signed(1e-20), signed(2), signed(1e19)]  # 16..19
    x = np.array(rows)
    return wsp.from_bf16(wsp.to_bf16(x)).astype(np.float64)


def rms(s, eps):
    """sqrt(mean(s^2) + eps) per row, in float64 (no overflow: bf16's
    largest squared is 1.1e77)."""
    return np.sqrt(np.mean(s * s, axis=-1, keepdims=True) + eps)


def norm_module(eps):
    m = Module("norm_extremes")
    with m.function("final_norm", x=memref([None, HIDDEN], "bf16"),
                    w=memref([HIDDEN], "f32"),
                    y=memref([None, HIDDEN], "bf16")) as f:
        llm.rms_norm(hidden_states=f.x, weight=f.w, y=f.y, eps=eps)
    with m.function("pre_norm", x=memref([None, HIDDEN], "bf16"),
                    r=memref([None, HIDDEN], "bf16"),
                    w=memref([HIDDEN], "f32"),
                    y=memref([None, HIDDEN], "bf16"),
                    after=memref([None, HIDDEN], "bf16")) as f:
        llm.rms_norm(hidden_states=f.x, residual=f.r, weight=f.w, y=f.y,
                     after_res=f.after, eps=eps)
    with m.function("norm_quant", x=memref([None, HIDDEN], "bf16"),
                    r=memref([None, HIDDEN], "bf16"),
                    w=memref([HIDDEN], "f32"),
                    smooth=memref([HIDDEN], "f32"),
                    y=memref([None, HIDDEN], "i8"),
                    scale=memref([None], "f32"),
                    after=memref([None, HIDDEN], "bf16")) as f:
        llm.add_rms_norm_dynamic_quant(
            hidden_states=f.x, residual=f.r, weight=f.w,
            smooth_scale=f.smooth, y=f.y, per_token_scale=f.scale,
            after_res=f.after, eps=eps)
    return m


def check_bf16(got_bits, want):
    got = wsp.from_bf16(got_bits).astype(np.float64)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=0)


def residual_pair(rng):
    """hidden_states and residual whose f32 sum is the extreme rows up to
    the rounding of the residual (x a share of 50-70% of the row, the
    residual the rest rounded to bf16: a binade below the row's, so that
    no sum rounds past bf16's largest), as bf16 bits, and that sum in f32
    as the op computes it."""
    v = extreme_rows(rng)
    x = wsp.to_bf16(v * rng.uniform(0.5, 0.7, v.shape))
    r = wsp.to_bf16(v - wsp.from_bf16(x))
    s = (wsp.from_bf16(x) + wsp.from_bf16(r)).astype(np.float64)  # f32 add
    return x, r, s


def test_rms_norm_extremes_against_float64():
    prog = wsp.compile(norm_module(EPS), opt_level=0)
    rng = np.random.default_rng(45)
    x = extreme_rows(rng)
    w = rng.uniform(0.5, 2, HIDDEN).astype(np.float32)
    y = np.full(x.shape, 0x7FC1, np.uint16)
    assert prog.final_norm(wsp.to_bf16(x), w, y).ok
    want = x / rms(x, np.float32(EPS)) * w
    check_bf16(y, want)
    # What the rows are, by the reference: bf16's largest normalizes to
    # +-w, the zero row to 0, the eps-dominated rows to x / sqrt(eps).
    got = wsp.from_bf16(y).astype(np.float64)
    np.testing.assert_allclose(np.abs(got[2]), w, rtol=RTOL)
    assert (got[5] == 0).all()
    np.testing.assert_allclose(got[3], x[3] / np.sqrt(np.float32(EPS)) * w,
                               rtol=RTOL)


def test_rms_norm_with_residual_extremes_against_float64():
    prog = wsp.compile(norm_module(EPS), opt_level=0)
    rng = np.random.default_rng(46)
    x, r, s = residual_pair(rng)
    w = rng.uniform(0.5, 2, HIDDEN).astype(np.float32)
    y = np.full(x.shape, 0x7FC1, np.uint16)
    after = np.full(x.shape, 0x7FC1, np.uint16)
    assert prog.pre_norm(x, r, w, y, after).ok
    # after_res is the f32 sum rounded to bf16, bit for bit.
    np.testing.assert_array_equal(after, wsp.to_bf16(s))
    a = wsp.from_bf16(after).astype(np.float64)
    check_bf16(y, a / rms(s, np.float32(EPS)) * w)

    # In place (after_res is the residual buffer): the same bits.
    y2 = np.full(x.shape, 0x7FC1, np.uint16)
    r2 = r.copy()
    assert prog.pre_norm(x, r2, w, y2, r2).ok
    np.testing.assert_array_equal(r2, after)
    np.testing.assert_array_equal(y2, y)


def test_norm_quant_extremes_against_float64():
    prog = wsp.compile(norm_module(EPS), opt_level=0)
    rng = np.random.default_rng(47)
    x, r, s = residual_pair(rng)
    w = rng.uniform(0.5, 2, HIDDEN).astype(np.float32)
    smooth = rng.uniform(0.5, 2, HIDDEN).astype(np.float32)
    y = np.full(x.shape, 7, np.int8)
    scale = np.full(x.shape[0], -1, np.float32)
    after = np.zeros_like(x)
    assert prog.norm_quant(x, r, w, smooth, y, scale, after).ok
    a = wsp.from_bf16(wsp.to_bf16(s)).astype(np.float64)
    v = a / rms(s, np.float32(EPS)) * w * smooth
    amax = np.abs(v).max(axis=1)
    # The scale: max|v| / 127 within the f32 error of v (RTOL less the
    # bf16 rounding: v stays f32).
    np.testing.assert_allclose(scale, amax / 127, rtol=2e-5, atol=0)
    assert scale[5] == 0 and (y[5] == 0).all()
    # y = rint(v * 127 / max(max|v|, 1e-30)) (the quantization's floor,
    # RowOps.mlir.in's quant fragment: a row whose largest |v| is below
    # 1e-30, the subnormal rows here, quantizes to 0): equal except where
    # that lies within the f32 error (2e-5 * 127) of a rounding boundary,
    # there off by one.
    exact = v * 127 / np.maximum(amax, 1e-30)[:, None]
    near_half = np.abs(np.abs(exact - np.floor(exact)) - 0.5) < 5e-3
    diff = np.abs(y.astype(int) - np.rint(exact).astype(int))
    assert (diff[~near_half] == 0).all() and (diff <= 1).all()


def test_head_rms_norm_extremes_against_float64():
    tokens, heads, dim, lo, num = 5, 6, 128, 1, 4
    m = Module("qk_norm_extremes")
    with m.function("qk_norm", x=memref([None, heads, dim], "bf16"),
                    w=memref([num, dim], "f32"),
                    y=memref([None, heads, dim], "bf16")) as f:
        llm.head_rms_norm(hidden_states=f.x, weight=f.w, y=f.y, eps=EPS,
                          head_offset=lo, head_num=num)
    prog = wsp.compile(m, opt_level=0)
    rng = np.random.default_rng(48)
    # The 20 extreme rows as the normalized heads of 5 tokens (each token's
    # 4 heads one tile): overflowing heads next to ordinary ones.
    rows = extreme_rows(rng, dim)
    x = wsp.from_bf16(wsp.to_bf16(rng.uniform(-4, 4, (tokens, heads, dim))))
    x = x.astype(np.float64)
    x[:, lo:lo + num] = rows.reshape(tokens, num, dim)
    w = rng.uniform(0.5, 2, (num, dim)).astype(np.float32)
    y = np.full(x.shape, 0x7FC1, np.uint16)
    xb = wsp.to_bf16(x)
    assert prog.qk_norm(xb, w, y).ok
    h = x[:, lo:lo + num]
    check_bf16(y[:, lo:lo + num], h / rms(h, np.float32(EPS)) * w)
    np.testing.assert_array_equal(y[:, :lo], xb[:, :lo])
    np.testing.assert_array_equal(y[:, lo + num:], xb[:, lo + num:])
