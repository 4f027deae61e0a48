"""Module.planning_function: the AICPU side of a hand-written kernel,
built for you. Each descriptor's kernel run marks the (sequence, head,
token) cells it covers; every cell a plan must cover is marked exactly
once and no other (an independent count, from the lengths alone)."""

import numpy as np
import pytest

import wsp
from wsp.ir import Module, descriptor, memref
from wsp.ops import arith, scf
from wsp.ops import memref as mr
from wsp.ops import wsp as w

I32 = memref([None], "i32")
HITS = memref([None, None, None], "i32")


def build():
    m = Module("planning")
    m.tier_config("AnyLength", [(0, 1, 2**31 - 1)])
    with m.kernel("mark", "AnyLength", [("lens", I32), ("hits", HITS)],
                  descriptor_type=descriptor("attention")) as k:
        seq = w.param(k.desc, name="request_idx", result_name="seq")
        head = w.param(k.desc, name="head_idx", result_name="head")
        start = w.param(k.desc, name="kv_start", result_name="start")
        end = arith.addi(start, w.param(k.desc, name="kv_len"),
                         result_name="end")
        with scf.for_(start, end, arith.constant(1), iv_name="t") as loop:
            one = arith.constant(1, "i32")
            seen = mr.load(k.hits, [seq, head, loop.iv])
            mr.store(arith.addi(seen, one), k.hits, [seq, head, loop.iv])
    # One length per sequence, a descriptor per head (dimension 1 of hits).
    m.planning_function("per_sequence", "mark", lengths="lens", chunk=5,
                        heads=("hits", 1), num_cores=4)
    # One sequence as long as dimension 2 of hits, two heads.
    m.planning_function("one_sequence", "mark", lengths=("hits", 2),
                        chunk=7, heads=2, row_affine=True)
    m.planning_function("small_buffer", "mark", lengths="lens", chunk=5,
                        heads=("hits", 1), max_descriptors=3)
    return m


@pytest.fixture(scope="module")
def prog():
    return wsp.compile(build())


def test_each_cell_once(prog):
    lens = np.array([12, 0, 5, 1], np.int32)
    hits = np.zeros((4, 3, 12), np.int32)
    r = prog.per_sequence(lens, hits, report=True)
    assert r.ok and len(r.report.cores) == 4
    want = np.zeros_like(hits)
    for b, n in enumerate(lens):
        want[b, :, :n] = 1
    np.testing.assert_array_equal(hits, want)
    # ceil(len / 5) chunks per (sequence, head): 3 + 0 + 1 + 1, 3 heads.
    assert r.report.descriptors == 15


def test_one_sequence_and_own_buffer(prog):
    hits = np.zeros((1, 2, 20), np.int32)
    descs = np.zeros(1024, wsp.DESCRIPTOR)
    assert prog.one_sequence(lens=np.zeros(1, np.int32), hits=hits,
                             descs=descs).ok
    np.testing.assert_array_equal(hits, np.ones_like(hits))
    # Head-major, chunks of 7 in order: token_start 0, 7, 14 per head.
    starts = [int(d["params"][2]) for d in descs[:6]]
    assert starts == [0, 7, 14, 0, 7, 14]
    assert [a[0] for a in prog.one_sequence.signature()] == ["lens", "hits",
                                                             "descs"]


def test_overflow_runs_nothing(prog):
    lens = np.array([12], np.int32)
    hits = np.zeros((1, 2, 12), np.int32)  # 2 x 3 chunks, for 3 places
    assert prog.small_buffer(lens, hits).name == "BUFFER_OVERFLOW"
    assert not hits.any()


@pytest.mark.parametrize("kwargs, message", [
    (dict(kernel="nope"), "no kernel 'nope' in this module"),
    (dict(lengths="hits"), "lengths 'hits' must name an i32 memref"),
    (dict(lengths=("hits", 3)), "has no dimension 3"),
    (dict(lengths=("x", 0)), "must be (argument, dimension) of one of lens, "
                             "hits"),
    (dict(num_cores=49), "num_cores must be 1 to 48 (vector cores)"),
    (dict(core_kind="gpu"), "core_kind must be one of cube, mix, vector"),
    (dict(chunk=0), "chunk must be a positive int"),
])
def test_bad_arguments(kwargs, message):
    m = Module()
    m.tier_config("T", [(0, 1, 2**31 - 1)])
    with m.kernel("k", "T", [("lens", I32), ("hits", HITS)],
                  descriptor_type=descriptor("moe")):
        pass
    args = dict(name="f", kernel="k", lengths="lens", chunk=4)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")
                       .replace(")", r"\)")):
        m.planning_function(**args)
