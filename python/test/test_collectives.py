"""Collectives from Python: a device grid (Module.grid) and llm.all_reduce
on it, built, verified at the user's line, compiled and run. A program
called from Python runs as one rank (no group is set up around the call:
pto::runtime::comm::current() is a rank alone), where a sum over a grid of
any size leaves the buffer as it is and a grid of 2 refuses to run."""

import numpy as np
import pytest

import wsp
from wsp.ir import Module, memref
from wsp.ops import llm

K, N = 128, 256


def projection():
    """The row-parallel projection twice: on a grid of any size and on a
    grid of 2."""
    m = Module("tp")
    for name, shape in (("tp", [None]), ("tp2", [2])):
        grid = m.grid(name, shape)
        with m.function("row_parallel_" + name, x=memref([None, K], "i8"),
                        pts=memref([None], "f32"), w=memref([N, K], "i8"),
                        ws=memref([N], "f32"),
                        y=memref([None, N], "bf16")) as f:
            llm.quant_matmul(hidden_states=f.x, per_token_scale=f.pts,
                             weight=f.w, weight_scale=f.ws, y=f.y,
                             transpose_b=True)
            llm.all_reduce(hidden_states=f.y, grid=grid)
    return m


def test_grid_and_all_reduce_round_trip():
    text = projection().verify()
    assert "shard.grid @tp(shape = ?)" in text
    assert "shard.grid @tp2(shape = 2)" in text
    assert "llm.all_reduce hidden_states(%arg4 : memref<?x256xbf16>) on @tp\n" \
        in text


def test_one_rank_keeps_its_partial_and_a_grid_of_two_refuses():
    rng = np.random.default_rng(5)
    x = rng.integers(-127, 128, (9, K), dtype=np.int8)
    w = rng.integers(-127, 128, (N, K), dtype=np.int8)
    pts = rng.uniform(1e-4, 2e-2, 9).astype(np.float32)
    ws = rng.uniform(1e-4, 2e-2, N).astype(np.float32)
    prog = wsp.compile(projection())
    y = np.zeros((9, N), dtype=np.uint16)
    assert prog.row_parallel_tp(x, pts, w, ws, y).ok
    # The partial alone: the exact int sums, dequantized, rounded to bf16
    # once (half an ulp, as quant_matmul's self-check states).
    ref = (x.astype(np.int64) @ w.T.astype(np.int64)) * \
        pts[:, None].astype(np.float64) * ws[None, :].astype(np.float64)
    np.testing.assert_allclose(wsp.from_bf16(y), ref,
                               rtol=2**-8 * (1 + 1e-4), atol=1e-30)
    y2 = np.zeros_like(y)
    result = prog.row_parallel_tp2(x, pts, w, ws, y2, report=True)
    assert not result.ok and result.status == 3
    # The collective wrote nothing: y2 holds the partial quant_matmul wrote.
    np.testing.assert_array_equal(y2, y)


def test_a_missing_grid_is_an_error_at_the_users_line():
    m = Module("bad")
    with m.function("f", y=memref([None, N], "bf16")) as f:
        # The op's own rules are checked at the call, a grid of any size
        # standing in for the module's; the module's check finds none.
        llm.all_reduce(hidden_states=f.y, grid="@nowhere")
    with pytest.raises(wsp.CompileError,
                       match=r"test_collectives.py:\d+:\d+: error: "
                             r"'llm.all_reduce' op names no symbol @nowhere"):
        m.verify()


def test_the_ops_own_rules_hold_over_a_grid_at_the_call():
    m = Module("bad")
    grid = m.grid("tp", [2])
    with m.function("f", y=memref([None, N], "i8")) as f:
        with pytest.raises(wsp.CompileError,
                           match="'hidden_states' must hold bf16 or f32"):
            llm.all_reduce(hidden_states=f.y, grid=grid)


def test_a_rank_group_from_python():
    """grid_axes names a rank group (the ranks along some axes of the grid):
    built and verified with the module's grid; on a 1 x 1 grid the one rank
    is its own group and keeps its buffer, on a 2 x 2 grid one rank alone
    refuses (status 3) and writes nothing; an axis outside the grid is an
    error at the user's line."""
    m = Module("groups")
    for name, shape in (("one", [1, 1]), ("four", [2, 2])):
        grid = m.grid(name, shape)
        with m.function("along_" + name, y=memref([None, 64], "f32")) as f:
            llm.all_reduce(hidden_states=f.y, grid=grid, grid_axes=[1])
    text = m.verify()
    assert "llm.all_reduce hidden_states(%arg0 : memref<?x64xf32>) on @one " \
        "grid_axes = [1]" in text
    prog = wsp.compile(m)
    y = np.arange(3 * 64, dtype=np.float32).reshape(3, 64)
    y0 = y.copy()
    assert prog.along_one(y).ok
    np.testing.assert_array_equal(y, y0)
    result = prog.along_four(y, report=True)
    assert not result.ok and result.status == 3
    np.testing.assert_array_equal(y, y0)

    bad = Module("bad")
    grid = bad.grid("g", [2, 2])
    with bad.function("f", y=memref([None, 64], "f32")) as f:
        llm.all_reduce(hidden_states=f.y, grid=grid, grid_axes=[2])
    with pytest.raises(wsp.CompileError, match="grid axis 2 is outside @g's 2 "
                       "dimensions"):
        bad.verify()
