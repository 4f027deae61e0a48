"""The decode attention workload authored in Python
(examples/python/decode_attention.py): it is the module
examples/ir/decode_attention.mlir spells in IR, op for op, and compiled
from Python it runs against the numpy reference (which never calls wsp)."""

import pathlib
import sys

import numpy as np
import pytest

import wsp

SRC = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SRC / "examples" / "python"))
from decode_attention import decode_attention_module  # noqa: E402


def test_python_workload_is_the_ir_workload():
    built = decode_attention_module().verify()
    written = wsp.parse((SRC / "examples" / "ir" /
                         "decode_attention.mlir").read_text())
    assert built == written


def run_step(prog, rng, kv_lens, q_len, heads, kv_heads, dim, block=16):
    batch = len(kv_lens)
    per_seq = max(-(-n // block) for n in kv_lens)
    pages = batch * per_seq + 3
    # q from [-8, 8]: peaked attention, which near-uniform attention over
    # long rows would not show scale or mask errors through.
    q = wsp.to_bf16(rng.uniform(-8, 8, (batch, q_len, heads, dim)))
    k_cache = wsp.to_bf16(rng.uniform(-1, 1, (pages, kv_heads, block, dim)))
    v_cache = wsp.to_bf16(rng.uniform(-1, 1, (pages, kv_heads, block, dim)))
    # Requests in reversed slots, pages shuffled over the pool.
    kv_ids = np.arange(batch, dtype=np.int32)[::-1].copy()
    table = rng.permutation(pages)[:batch * per_seq].astype(np.int32)
    table = table.reshape(batch, per_seq)
    lens = np.array(kv_lens, np.int32)
    acc_o = np.zeros((batch, kv_heads, 32, 128), np.float32)
    acc_m = np.zeros((batch, kv_heads, 32), np.float32)
    acc_l = np.zeros((batch, kv_heads, 32), np.float32)
    out = np.zeros_like(q)
    descs = np.zeros(4096, wsp.DESCRIPTOR)
    ws = [np.zeros((24, 32, 128), t) for t in (np.uint16, np.float32,
                                               np.uint16, np.float32)]
    result = prog.decode_step(q, kv_ids, lens, table, k_cache, v_cache,
                              acc_o, acc_m, acc_l, out, descs, *ws,
                              report=True)
    ref = wsp.reference.paged_decode_attention(
        wsp.from_bf16(q), wsp.from_bf16(k_cache), wsp.from_bf16(v_cache),
        table, kv_ids, lens)
    return result, wsp.from_bf16(out), ref, descs


@pytest.mark.parametrize("kv_lens,q_len,heads,kv_heads,dim", [
    ([1, 7, 300, 1030, 4100], 1, 8, 2, 128),   # GQA 4, 1 to 5 chunks
    ([2, 33, 600], 2, 8, 1, 64),               # two new tokens, GQA 8
])
def test_python_workload_runs_against_numpy(kv_lens, q_len, heads, kv_heads,
                                            dim):
    prog = wsp.compile(decode_attention_module())
    rng = np.random.default_rng(len(kv_lens))
    result, got, ref, descs = run_step(prog, rng, kv_lens, q_len, heads,
                                       kv_heads, dim)
    assert result.ok, result
    # Per row of n positions: max|v| (2^-7 + n 2^-22)
    # (wsp.reference.paged_decode_attention); here |v| <= 1.
    n = np.array(kv_lens)[:, None, None, None]
    bound = 2**-7 + n * 2**-22
    assert (np.abs(got - ref) <= bound).all()
    # One descriptor per (request, KV head, chunk): each row's chunks
    # cover its positions [0, n) in order, and the cores ran each once.
    count = result.report.descriptors
    params = descs["params"][:count]
    for b, n in enumerate(kv_lens):
        for h in range(kv_heads):
            mine = params[(params[:, 0] == b) & (params[:, 1] == h)]
            assert mine[0, 2] == 0 and mine[:, 3].sum() == n
            assert (mine[1:, 2] == mine[:-1, 2] + mine[:-1, 3]).all()
    assert (descs["params"][count:] == 0).all()
    # Tiers by row length (the tier config): short rows tier 0, long ones
    # above.
    tiers = descs["tier"][:count]
    assert sorted(result.report.per_tier) == sorted(set(tiers.tolist()))


def valid_inputs(batch=2, q_len=1, heads=8, kv_heads=2, dim=128, block=16,
                 kv_len=40):
    """A small valid decode step's arguments, by name."""
    per_seq = -(-kv_len // block)
    pages = batch * per_seq
    return dict(
        q=np.zeros((batch, q_len, heads, dim), np.uint16),
        kv_ids=np.arange(batch, dtype=np.int32),
        kv_lens=np.full(batch, kv_len, np.int32),
        block_table=np.arange(pages, dtype=np.int32).reshape(batch, per_seq),
        k_cache=np.zeros((pages, kv_heads, block, dim), np.uint16),
        v_cache=np.zeros((pages, kv_heads, block, dim), np.uint16),
        acc_o=np.zeros((batch, kv_heads, 32, 128), np.float32),
        acc_m=np.zeros((batch, kv_heads, 32), np.float32),
        acc_l=np.zeros((batch, kv_heads, 32), np.float32),
        out=np.zeros((batch, q_len, heads, dim), np.uint16),
        descs=np.zeros(64, wsp.DESCRIPTOR),
        ws_q=np.zeros((24, 32, 128), np.uint16),
        ws_s=np.zeros((24, 32, 128), np.float32),
        ws_p=np.zeros((24, 32, 128), np.uint16),
        ws_o=np.zeros((24, 32, 128), np.float32))


def shrink(name, axis=0):
    def f(a):
        shape = list(a[name].shape)
        shape[axis] -= 1
        a[name] = np.zeros(shape, a[name].dtype)
    return f


def setitem(name, index, value):
    def f(a):
        a[name][index] = value
    return f


def replace(name, value):
    def f(a):
        a[name] = value
    return f


# Issue 45, finding 4: each class of bad input the wsp-level program used to
# run its kernels on (a heap overflow, a segfault, SIGFPE, an abort in the
# tile simulation, SUCCESS after an out-of-bounds read or with heads never
# written). The planner's preconditions (wsp.require) refuse each first:
# INVALID_PARAMS, nothing written, no kernel run (so no kernel fault).
@pytest.mark.parametrize("name,change", [
    ("out too small", shrink("out")),
    ("out with fewer heads", shrink("out", 2)),
    ("q too small", shrink("q")),
    ("v_cache too small", shrink("v_cache")),
    ("k_cache of another head_dim", shrink("k_cache", 3)),
    ("kv id past the table", setitem("kv_ids", 1, 2)),
    ("negative kv id", setitem("kv_ids", 0, -1)),
    ("block id past the cache", setitem("block_table", (1, 2), 6)),
    ("negative block id", setitem("block_table", (0, 0), -1)),
    ("kv length past the page table", setitem("kv_lens", 0, 49)),
    ("negative kv length", setitem("kv_lens", 1, -1)),
    ("zero kv heads", lambda a: [replace(n, np.zeros(
        (6, 0, 16, 128), np.uint16))(a) for n in ("k_cache", "v_cache")]),
    ("8 heads over 3 kv heads", lambda a: [replace(n, np.zeros(
        (6, 3, 16, 128), np.uint16))(a) for n in ("k_cache", "v_cache")]),
    ("too many rows for a tile", lambda a: [replace(n, np.zeros(
        (2, 9, 8, 128), np.uint16))(a) for n in ("q", "out")]),
    ("accumulators too small", shrink("acc_l", 1)),
    ("a workspace too small", shrink("ws_s")),
])
def test_python_workload_checks_its_preconditions(name, change):
    prog = wsp.compile(decode_attention_module())
    args = valid_inputs()
    assert prog.decode_step(**args).ok
    args = valid_inputs()
    change(args)
    args["out"][...] = 0x7FC1
    result = prog.decode_step(**args)
    assert result.name == "INVALID_PARAMS", name
    assert result.fault is None  # caught by the planner, before any kernel
    assert (args["out"] == 0x7FC1).all()
    assert not args["descs"].view(np.uint8).any()
