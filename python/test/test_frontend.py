"""Author programs in Python, compile them in-process and run their CPU
simulation on numpy arrays, against the numpy references of
wsp.reference (which never call into wsp).

Programs are built at -O0: this file's time is their C++ builds, and the
numbers are -O2's (no fast-math)."""

import inspect
import pathlib
import time

import numpy as np
import pytest

import wsp
from wsp.ir import Attr, Module, descriptor, memref, tile
from wsp.ops import arith, func, llm, scf
from wsp.ops import memref as mr
from wsp.ops import tile as t
from wsp.ops import wsp as w

SRC = pathlib.Path(__file__).resolve().parents[2]
HIDDEN = 256


def norm_module():
    m = Module("norms")
    with m.function("final_norm", hidden_states=memref([None, HIDDEN], "bf16"),
                    weight=memref([HIDDEN], "f32"),
                    y=memref([None, HIDDEN], "bf16")) as f:
        llm.rms_norm(hidden_states=f.hidden_states, weight=f.weight, y=f.y,
                     eps=1e-6)
    with m.function("pre_norm", x=memref([None, HIDDEN], "bf16"),
                    residual=memref([None, HIDDEN], "bf16"),
                    weight=memref([HIDDEN], "f32"),
                    y=memref([None, HIDDEN], "bf16"),
                    after_res=memref([None, HIDDEN], "bf16")) as f:
        llm.rms_norm(hidden_states=f.x, residual=f.residual, weight=f.weight,
                     y=f.y, after_res=f.after_res, eps=1e-5)
    return m


def bf16_rows(rng, shape, scale=4.0):
    return wsp.to_bf16(rng.uniform(-scale, scale, shape))


def test_rms_norm_program_runs_against_numpy():
    prog = wsp.compile(norm_module(), opt_level=0)
    rng = np.random.default_rng(0)
    for tokens in (1, 37, 200):
        x = bf16_rows(rng, (tokens, HIDDEN))
        weight = rng.uniform(-2, 2, HIDDEN).astype(np.float32)
        y = np.zeros_like(x)
        result = prog.final_norm(x, weight, y, report=True)
        assert result.ok and result.name == "OK"
        ref = wsp.reference.rms_norm(wsp.from_bf16(x), weight, 1e-6)
        # Half a bf16 ulp plus the kernel's float sums (reference.rms_norm).
        np.testing.assert_allclose(wsp.from_bf16(y), ref,
                                   rtol=2**-8 * (1 + 1e-4), atol=1e-30)
        assert result.report.descriptors >= 1
        assert sum(result.report.per_tier.values()) == \
            result.report.descriptors

        # With a residual: after_res is the bf16 sum, bit for bit.
        r = bf16_rows(rng, (tokens, HIDDEN))
        y2, after = np.zeros_like(x), np.zeros_like(x)
        assert prog.pre_norm(x, r, weight, y2, after).ok
        ref2, s = wsp.reference.add_rms_norm(wsp.from_bf16(x),
                                             wsp.from_bf16(r), weight, 1e-5)
        np.testing.assert_array_equal(after, wsp.to_bf16(s))
        np.testing.assert_allclose(wsp.from_bf16(y2), ref2,
                                   rtol=2**-8 * (1 + 1e-4), atol=1e-30)


def test_run_errors_are_status_codes_with_nothing_written():
    prog = wsp.compile(norm_module(), opt_level=0)
    x = bf16_rows(np.random.default_rng(1), (8, HIDDEN))
    y = np.full((7, HIDDEN), 0x7FC1, np.uint16)  # another token count
    result = prog.final_norm(x, np.ones(HIDDEN, np.float32), y)
    assert result.status == 3 and result.name == "INVALID_PARAMS"
    assert (y == 0x7FC1).all()


def test_bad_arguments_raise_value_error_naming_the_argument():
    prog = wsp.compile(norm_module(), opt_level=0)
    x = np.zeros((4, HIDDEN), np.uint16)
    weight = np.ones(HIDDEN, np.float32)
    y = np.zeros_like(x)
    cases = [
        ((x.astype(np.float32), weight, y), "hidden_states.*dtype uint16"),
        ((x, weight.astype(np.float64), y), "weight.*dtype float32"),
        ((x[None], weight, y), "hidden_states.*2 dimensions"),
        ((x, np.ones(128, np.float32), y), "weight.*size 128 in dimension 0"),
        ((np.zeros((4, 2 * HIDDEN), np.uint16)[:, ::2], weight, y),
         "hidden_states.*C-contiguous"),
        ((x, weight, [0] * 4), "y.*numpy array"),
    ]
    for args, message in cases:
        with pytest.raises(ValueError, match=message):
            prog.final_norm(*args)
    frozen = y.copy()
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="y is read-only"):
        prog.final_norm(x, weight, frozen)
    with pytest.raises(TypeError, match="missing argument y"):
        prog.final_norm(x, weight)
    with pytest.raises(TypeError, match="no argument 'out'"):
        prog.final_norm(x, weight, out=y)
    with pytest.raises(AttributeError, match="no function 'nope'"):
        prog.nope


def test_verifier_errors_point_at_the_python_line():
    m = Module()
    with m.function("bad", x=memref([None, HIDDEN], "bf16"),
                    w=memref([128], "f32")) as f:
        line = 1 + pathlib.Path(__file__).read_text().splitlines().index(
            "        with pytest.raises(wsp.CompileError) as info:")
        with pytest.raises(wsp.CompileError) as info:
            llm.rms_norm(hidden_states=f.x, weight=f.w, y=f.x, eps=1e-6)
    message = str(info.value)
    assert "%s:%d:" % (__file__, line + 1) in message
    assert "'weight' has hidden_size = 128 but 'hidden_states' has " \
        "hidden_size = 256" in message


def test_empty_and_malformed_programs_are_errors():
    with pytest.raises(wsp.CompileError, match="the program is empty"):
        wsp.parse("")
    with pytest.raises(wsp.CompileError, match="the program is empty"):
        wsp.compile(Module())
    with pytest.raises(wsp.CompileError, match="expected"):
        wsp.compile("func.func @f(")


def test_compiled_programs_are_cached(cache):
    first = wsp.compile(norm_module(), opt_level=0)
    start = time.perf_counter()
    again = wsp.compile(norm_module(), opt_level=0)
    elapsed = time.perf_counter() - start
    assert again.cached and again.directory == first.directory
    assert elapsed < 1.0  # loaded, not rebuilt (a build takes seconds)
    other = Module("norms")
    with other.function("final_norm", hidden_states=memref([None, HIDDEN],
                                                          "bf16"),
                        weight=memref([HIDDEN], "f32"),
                        y=memref([None, HIDDEN], "bf16")) as f:
        llm.rms_norm(hidden_states=f.hidden_states, weight=f.weight, y=f.y,
                     eps=1e-5)
    assert wsp.compile(other, opt_level=0).directory != first.directory


def test_pass_manager_records_each_pass():
    pm = wsp.PassManager("convert-llm-to-wsp").add("canonicalize")
    assert pm.pipeline == "builtin.module(convert-llm-to-wsp,canonicalize)"
    out = pm.run(norm_module(), print_ir_after_each=True)
    assert [p["pass"] for p in out.passes] == ["convert-llm-to-wsp",
                                               "canonicalize"]
    assert "wsp.kernel @final_norm_rms_norm_0" in out.passes[0]["ir"]
    assert all(p["seconds"] >= 0 and p["ops"] > 0 for p in out.passes)
    assert set(out.timing()) == {"convert-llm-to-wsp", "canonicalize"}
    assert "wsp.dispatch" in out.ir
    with pytest.raises(wsp.CompileError, match="invalid pass pipeline"):
        wsp.PassManager("no-such-pass").run(norm_module())


def test_emit_writes_the_wspc_tree(tmp_path):
    files = wsp.emit(norm_module(), tmp_path)
    assert sorted(files) == ["aicore/norms_aicore.cpp", "aicpu/norms_aicpu.cpp",
                             "cpusim/norms.cpp", "cpusim/norms_capi.cpp",
                             "include/norms_abi.h"]
    for path in files:
        assert (tmp_path / path).read_text() == files[path]
    # Names from the Python program reach the emitted C++.
    assert "MemRef<bf16, 2> hidden_states" in files["cpusim/norms.cpp"]


def softmax_module(rows=16, cols=64, cores=8, tiers=((0, 1, 2**31 - 1),)):
    """A tile kernel and the wsp workload that runs it: descriptors of 16
    rows each (wsp.generate, moe pattern), dispatched on vector cores."""
    m = Module("softmax")
    m.tier_config("RowTiers", tiers)
    vec = tile("vec", [rows, cols], "f32", valid=[None, cols])
    col = tile("vec", [rows, 1], "f32", valid=[None, 1], layout="col_major")
    with m.kernel("softmax_rows", "RowTiers",
                  [("x", memref([None, cols], "f32")),
                   ("y", memref([None, cols], "f32"))],
                  descriptor_type=descriptor("moe")) as k:
        c0 = arith.constant(0)
        step = arith.constant(rows)
        start = w.param(k.desc, name="token_start", result_name="start")
        count = w.param(k.desc, name="token_count", result_name="count")
        end = arith.addi(start, count, result_name="end")
        with scf.for_(start, end, step, iv_name="r") as loop:
            n = arith.minui(arith.subi(end, loop.iv), step, result_name="n")
            s = t.alloc(dynamic_valid=[n], type=vec, result_name="s")
            tmp = t.alloc(dynamic_valid=[n], type=vec, result_name="tmp")
            mx = t.alloc(dynamic_valid=[n], type=col, result_name="m")
            t.load(s, k.x, [loop.iv, c0])
            t.rowmax(mx, s, tmp)
            t.rowexpandsub(s, s, mx, tmp)
            t.exp(s, s)
            t.rowsum(mx, s, tmp)
            t.rowexpanddiv(s, s, mx, tmp)
            t.store(k.y, [loop.iv, c0], s)
    with m.function("softmax", results=["i32"], x=memref([None, cols], "f32"),
                    y=memref([None, cols], "f32"),
                    descs=memref([64], descriptor("moe"))) as f:
        c0 = arith.constant(0)
        c1 = arith.constant(1)
        step = arith.constant(rows)
        lens = mr.alloca(type=memref([1], "i32"), result_name="lens")
        mr.store(arith.index_cast(mr.dim(f.x, c0), type="i32"), lens, [c0])
        count, status = w.generate(
            lengths=lens, batch=c1, heads=c1, chunk=step, tiers="RowTiers",
            config=Attr("#wsp.plan_config<>"), buffer=f.descs)
        branch = scf.if_(arith.cmpi("eq", status, arith.constant(0, "i32")))
        with branch.then():
            w.dispatch(kernel="softmax_rows", args=[f.x, f.y],
                       descriptors=f.descs, count=count, core_kind="vector",
                       num_cores=cores)
        func.return_([status])
    return m


def test_tile_kernel_workload_runs_against_numpy():
    prog = wsp.compile(softmax_module(), opt_level=0)
    assert prog.kernels == [
        "@softmax_rows_tier0 (tier 0): on chip UB 8256/196608"]
    rng = np.random.default_rng(2)
    for n in (1, 16, 100, 1000):
        x = rng.standard_normal((n, 64)).astype(np.float32) * 4
        y = np.zeros_like(x)
        descs = np.zeros(64, wsp.DESCRIPTOR)
        result = prog.softmax(x, y, descs, report=True)
        assert result.ok
        # Float arithmetic on rows of 64: within 1e-5 relative (reference).
        np.testing.assert_allclose(y, wsp.reference.softmax_rows(x),
                                   rtol=1e-5, atol=1e-7)
        units = -(-n // 16)
        assert result.report.descriptors == units
        assert result.report.per_tier == {0: units}
        assert len(result.report.cores) == 8
        # The descriptors the planner wrote cover the rows in order, at
        # most 16 each.
        starts, counts = descs["params"][:units, 2], descs["params"][:units, 3]
        assert starts[0] == 0 and (starts[1:] == starts[:-1] + counts[:-1]).all()
        assert counts.sum() == n and counts.max() <= 16
    # 64 descriptors hold 1024 rows: more is the spec's BUFFER_OVERFLOW.
    x = np.zeros((1025, 64), np.float32)
    y = np.full_like(x, 7)
    assert prog.softmax(x, y, np.zeros(64, wsp.DESCRIPTOR)).name == \
        "BUFFER_OVERFLOW"
    assert (y == 7).all()


def test_functions_keep_their_argument_names():
    # Issue 46: a function and the kernel it dispatches, or two functions,
    # that name their arguments alike each keep the names (they were
    # numbered module-wide: softmax(x=...) failed, "it has x_1, y_1").
    m = softmax_module()
    with m.function("softmax_again", results=["i32"],
                    x=memref([None, 64], "f32")) as f:
        func.return_([arith.constant(0, "i32")])
    prog = wsp.compile(m, opt_level=0)
    assert [a for a, _, _ in prog.softmax.signature()] == ["x", "y", "descs"]
    assert [a for a, _, _ in prog.softmax_again.signature()] == ["x"]
    x = np.ones((4, 64), np.float32)
    y = np.zeros_like(x)
    assert prog.softmax(x=x, y=y, descs=np.zeros(64, wsp.DESCRIPTOR)).ok
    np.testing.assert_allclose(y, 1 / 64, rtol=1e-6)
    assert prog.softmax_again(x=x).ok


def test_a_load_is_typed_by_its_memref():
    # Issue 46: memref.load needed type= although the memref fixes it (the
    # error said "result result has no type ODS fixes"). ODS's
    # TypesMatchWith (the element type of an operand) types it now.
    m = Module("loads")
    with m.function("first", results=["i32"],
                    x=memref([None], "i32")) as f:
        func.return_([mr.load(f.x, [arith.constant(0)])])
    prog = wsp.compile(m, opt_level=0)
    assert prog.first(np.array([41], np.int32)).status == 41
    # A result nothing fixes still says what to give.
    with pytest.raises(TypeError, match="give its result type"):
        with Module("m").function("g", x=memref([4], "f32")):
            arith.index_cast(arith.constant(0))


def test_a_gap_between_tiers_is_a_warning(tmp_path, monkeypatch):
    # Issue 46: tiers [1, 64] and [100, max] compiled silently, and lengths
    # 65-99 made every call return UNSUPPORTED_SIZE. The compiler warns,
    # at the tier configuration's line, on every load (a cached one's too).
    monkeypatch.setenv("WSP_CACHE_DIR", str(tmp_path))
    m = softmax_module(tiers=[(0, 1, 64), (1, 100, 2**31 - 1)])
    for _ in range(2):  # built, then from the cache
        with pytest.warns(wsp.CompileWarning) as caught:
            prog = wsp.compile(m, opt_level=0)
        assert len(caught) == 1
        text = str(caught[0].message)
        assert ("@RowTiers leaves lengths [65, 99] between its tiers "
                "uncovered: a call with such a length returns "
                "UNSUPPORTED_SIZE") in text
        assert "test_frontend.py:" in text  # the Python line that built it
    x = np.zeros((70, 64), np.float32)
    y = np.zeros_like(x)
    assert prog.softmax(x, y, np.zeros(64, wsp.DESCRIPTOR)).name == \
        "UNSUPPORTED_SIZE"


def test_tile_access_outside_a_memref_is_a_fault():
    # Issue 45, finding 0: with y one row shorter than x, the kernel's last
    # store went past y (SUCCESS, then an abort in free()). The simulation
    # checks each tile load and store against its memref's sizes: the core
    # stops before the access and the call returns INVALID_PARAMS, saying
    # where, and the process lives on.
    prog = wsp.compile(softmax_module(), opt_level=0)
    x = np.ones((20, 64), np.float32)
    y = np.zeros((19, 64), np.float32)
    result = prog.softmax(x, y, np.zeros(64, wsp.DESCRIPTOR))
    assert result.name == "INVALID_PARAMS"
    assert result.fault == ("TSTORE of a 10x64 tile at [10, 0] of a memref of "
                            "sizes [19, 64]: out of bounds")
    # The rows before the faulting store were written; none past y.
    np.testing.assert_allclose(y[:10], wsp.reference.softmax_rows(x)[:10],
                               rtol=1e-5)
    # The next call on the thread starts afresh.
    y = np.zeros((20, 64), np.float32)
    result = prog.softmax(x, y, np.zeros(64, wsp.DESCRIPTOR))
    assert result.ok and result.fault is None
    np.testing.assert_allclose(y, wsp.reference.softmax_rows(x), rtol=1e-5)


def test_tile_load_past_the_columns_is_a_fault():
    # A load of 128 columns at column 128 of a 64-column memref stays
    # inside the buffer (the rows after it) and returned SUCCESS with
    # garbage: each dimension is checked, not only the buffer's end.
    m = Module("cols")
    m.tier_config("T", [(0, 1, 2**31 - 1)])
    vec = tile("vec", [1, 128], "f32")
    with m.kernel("copy", "T", [("x", memref([None, 64], "f32")),
                                ("y", memref([None, 128], "f32")),
                                ("col", "index")],
                  descriptor_type=descriptor("moe")) as k:
        c0 = arith.constant(0)
        s = t.alloc(type=vec, result_name="s")
        t.load(s, k.x, [c0, k.col])
        t.store(k.y, [c0, c0], s)
    with m.function("run", results=["i32"], x=memref([None, 64], "f32"),
                    y=memref([None, 128], "f32"), col="index",
                    descs=memref([4], descriptor("moe"))) as f:
        c1 = arith.constant(1)
        lens = mr.alloca(type=memref([1], "i32"), result_name="lens")
        mr.store(arith.constant(1, "i32"), lens, [arith.constant(0)])
        count, status = w.generate(
            lengths=lens, batch=c1, heads=c1, chunk=c1, tiers="T",
            config=Attr("#wsp.plan_config<>"), buffer=f.descs)
        w.dispatch(kernel="copy", args=[f.x, f.y, f.col], descriptors=f.descs,
                   count=count, core_kind="vector", num_cores=1)
        func.return_([status])
    prog = wsp.compile(m, opt_level=0)
    x = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
    y = np.zeros((1, 128), np.float32)
    result = prog.run(x, y, 128, np.zeros(4, wsp.DESCRIPTOR))
    assert result.name == "INVALID_PARAMS"
    assert "TLOAD of a 1x128 tile at [0, 128]" in result.fault
    assert not y.any()


def decode_module(group=4, kv_heads=2, dim=128, block=16):
    heads = group * kv_heads
    m = Module("decode")
    with m.function(
            "decode", q=memref([None, 1, heads, dim], "bf16"),
            kv_ids=memref([None], "i32"), kv_lens=memref([None], "i32"),
            q_lens=memref([None], "i32"), accum_q_len=memref([None], "i32"),
            block_table=memref([None, None], "i32"),
            k_cache=memref([None, kv_heads, block, dim], "bf16"),
            v_cache=memref([None, kv_heads, block, dim], "bf16"),
            out=memref([None, 1, heads, dim], "bf16")) as f:
        llm.flash_attention_decode(
            q=f.q, kv_ids=f.kv_ids, kv_lens=f.kv_lens, q_lens=f.q_lens,
            accum_q_len=f.accum_q_len, block_table=f.block_table,
            k_cache=f.k_cache, v_cache=f.v_cache, out=f.out, q_seq_len=1)
    return m


def test_decode_attention_program_runs_against_numpy():
    # -O0: the build is this test's cost; the numbers are -O2's.
    prog = wsp.compile(decode_module(), opt_level=0)
    decode = prog.decode
    assert [a for a in decode.signature() if a[2]], "workspaces are listed"
    rng = np.random.default_rng(3)
    batch, pages_per_seq, block = 5, 40, 16
    cached = np.array([0, 1, 17, 300, 630], np.int32)  # before the step
    pages = batch * pages_per_seq
    q = bf16_rows(rng, (batch, 1, 8, 128), 1.0)
    k_cache = bf16_rows(rng, (pages, 2, block, 128), 1.0)
    v_cache = bf16_rows(rng, (pages, 2, block, 128), 1.0)
    block_table = rng.permutation(pages).astype(np.int32).reshape(
        batch, pages_per_seq)
    kv_ids = np.arange(batch, dtype=np.int32)
    ones = np.ones(batch, np.int32)
    out = np.zeros_like(q)
    result = decode(q, kv_ids, cached, ones, np.arange(batch + 1, dtype=np.int32),
                    block_table, k_cache, v_cache, out, report=True)
    assert result.ok, result
    ref = wsp.reference.paged_decode_attention(
        wsp.from_bf16(q), wsp.from_bf16(k_cache), wsp.from_bf16(v_cache),
        block_table, kv_ids, cached + 1)
    got = wsp.from_bf16(out)
    # Per row of n positions: max|v| (2^-7 + n 2^-22) (reference docstring).
    n = (cached + 1)[:, None, None, None]
    bound = np.abs(wsp.from_bf16(v_cache)).max() * (2**-7 + n * 2**-22)
    assert (np.abs(got - ref) <= bound).all()
    # Chunks of 256 positions (the planner's smallest): rows of 1, 2, 18,
    # 301 and 631 positions take 1 + 1 + 1 + 2 + 3 chunks, per KV head.
    assert result.report.descriptors == 8 * 2
    # A page outside the pool: INVALID_PARAMS, the output untouched.
    bad = block_table.copy()
    bad[4, 0] = pages
    out2 = np.full_like(q, 0x7FC1)
    assert decode(q, kv_ids, cached, ones, np.arange(batch + 1, dtype=np.int32),
                  bad, k_cache, v_cache, out2).name == "INVALID_PARAMS"
    assert (out2 == 0x7FC1).all()


def test_hand_written_workload_compiles_from_a_path():
    prog = wsp.compile(SRC / "examples" / "ir" / "decode_attention.mlir",
                       opt_level=0)
    names = [a[0] for a in prog.decode_step.signature()]
    assert names[:4] == ["q", "kv_ids", "kv_lens", "block_table"]
    assert any(k.startswith("@decode_attention") for k in prog.kernels)


def test_ops_builders_check_their_arguments():
    m = Module()
    with m.function("f", x=memref([4], "f32")) as f:
        with pytest.raises(TypeError, match="has no operand or attribute"):
            llm.rms_norm(hidden_states=f.x, wight=f.x)
        with pytest.raises(TypeError, match="missing operand weight"):
            llm.rms_norm(hidden_states=f.x, y=f.x, eps=1e-6)
        with pytest.raises(ValueError, match="predicate must be one of"):
            arith.cmpi("less", f.x, f.x)
        with pytest.raises(TypeError, match="give its result type"):
            arith.index_cast(f.x)
    assert "arith" in dir(wsp.ops) and callable(wsp.ops.tile.matmul)
    assert "tile.matmul" in wsp.ops.tile.matmul.__doc__


def test_ops_builders_help_gives_shapes_and_dtypes():
    # help() on a builder shows the op's ODS summary and description: for
    # an llm op, its table of operand shapes and dtypes; optional operands
    # and attributes in brackets.
    doc = llm.rms_norm.__doc__
    assert doc.startswith("rms_norm(hidden_states, [residual], weight, y, "
                          "[after_res], eps): builds `llm.rms_norm`")
    assert "| weight | [hidden_size] | f32 |" in doc
    doc = llm.flash_attention_decode.__doc__
    assert "| q | [batch_size, q_seq_len, q_head_num, head_dim] | bf16 |" \
        in doc
    assert "integer addition" in arith.addi.__doc__


def test_ops_builders_refuse_what_does_not_lower():
    # head_dim 272 verifies (the seed allows it) but the lowering takes
    # heads of at most 256 columns: refused when the op is built, at this
    # line, and nothing is left in the function.
    m = Module()
    q = memref([None, 1, 8, 272], "bf16")
    cache = memref([None, 2, 128, 272], "bf16")
    i32 = memref([None], "i32")
    with m.function("f", q=q, ids=i32, lens=i32, q_lens=i32, acc=i32,
                    table=memref([None, None], "i32"), k=cache, v=cache,
                    out=q) as f:
        with pytest.raises(wsp.CompileError) as e:
            here = inspect.currentframe().f_lineno
            llm.flash_attention_decode(
                q=f.q, kv_ids=f.ids, kv_lens=f.lens, q_lens=f.q_lens,
                accum_q_len=f.acc, block_table=f.table, k_cache=f.k,
                v_cache=f.v, out=f.out, q_seq_len=1)
    assert "verifies but does not lower" in str(e.value)
    assert "test_frontend.py:%d:" % (here + 1) in str(e.value)
    assert "head_dim, a multiple of 16 up to 256" in str(e.value)
    assert "flash_attention_decode" not in m.verify()


def test_scalar_arguments_and_results():
    # examples/ir/moe.mlir's @moe_space(groups, experts) returns the work
    # count of its iteration space, an index (not a status): it comes back
    # as RunResult.value.
    prog = wsp.compile(SRC / "examples" / "ir" / "moe.mlir", opt_level=0)
    assert prog.moe_space.result.type == "index"
    result = prog.moe_space(3, 5)
    assert result.ok and result.value == 15
    assert prog.moe_space(groups=7, experts=64).value == 448
    with pytest.raises(ValueError, match="groups .index. takes a Python "
                                         "scalar"):
        prog.moe_space(np.zeros(1), 5)
    with pytest.raises(ValueError, match="cannot hold"):
        prog.moe_space(2**70, 5)


def test_quant_and_rope_programs_run_against_numpy():
    m = Module("quant_rope")
    with m.function("smooth_quant", hidden_states=memref([None, HIDDEN],
                                                         "bf16"),
                    smooth_scale=memref([HIDDEN], "f32"),
                    y=memref([None, HIDDEN], "i8"),
                    scale=memref([None], "f32")) as f:
        llm.scale_dynamic_quant(hidden_states=f.hidden_states,
                                smooth_scale=f.smooth_scale, y=f.y,
                                scale=f.scale)
    with m.function("rope", qkv=memref([None, 12, 128], "bf16"),
                    sin=memref([None, 128], "bf16"),
                    cos=memref([None, 128], "bf16"),
                    position_ids=memref([None], "i32"),
                    q_lens=memref([None], "i32")) as f:
        llm.rotary_embedding(qkv=f.qkv, sin=f.sin, cos=f.cos,
                             position_ids=f.position_ids, q_lens=f.q_lens,
                             out=f.qkv, q_head_num=8, kv_head_num=2,
                             rope_dim=128, max_q_len=512)
    prog = wsp.compile(m, opt_level=0)
    rng = np.random.default_rng(5)

    # Quantization: int8 equal to the reference except where v * 127 / max
    # lies within float rounding of a half (then off by one), scales to
    # float precision.
    x = bf16_rows(rng, (33, HIDDEN))
    x[3] = 0  # a zero row: scale 0, y 0
    smooth = rng.uniform(0.5, 2, HIDDEN).astype(np.float32)
    y = np.zeros((33, HIDDEN), np.int8)
    scale = np.zeros(33, np.float32)
    assert prog.smooth_quant(x, smooth, y, scale).ok
    q_ref, s_ref = wsp.reference.scale_dynamic_quant(wsp.from_bf16(x), smooth)
    np.testing.assert_allclose(scale, s_ref, rtol=1e-6)
    v = wsp.from_bf16(x).astype(np.float64) * smooth
    exact = v * 127 / np.maximum(np.abs(v).max(axis=1, keepdims=True), 1e-30)
    near_half = np.abs(np.abs(exact - np.floor(exact)) - 0.5) < 1e-4
    diff = np.abs(y.astype(int) - q_ref.astype(int))
    assert (diff[~near_half] == 0).all() and (diff <= 1).all()
    assert (y[3] == 0).all() and scale[3] == 0

    # Rope: sequences of 3, 1 and 5 tokens at positions 0, 40 and 7; the
    # 8 query and 2 key heads rotate, the 2 value heads stay.
    q_lens = np.array([3, 1, 5], np.int32)
    starts = np.array([0, 40, 7], np.int32)
    positions = np.concatenate([s + np.arange(n)
                                for s, n in zip(starts, q_lens)])
    # Tables of 64 positions, each half with the same frequencies.
    theta = np.arange(64)[:, None] * \
        (10000.0 ** (-(np.arange(128) % 64) / 64))[None, :]
    cos, sin = wsp.to_bf16(np.cos(theta)), wsp.to_bf16(np.sin(theta))
    qkv = bf16_rows(rng, (9, 12, 128), 2.0)
    before = qkv.copy()
    assert prog.rope(qkv, sin, cos, starts, q_lens).ok
    ref = wsp.reference.rotary_embedding(
        wsp.from_bf16(before[:, :10]), positions, wsp.from_bf16(cos),
        wsp.from_bf16(sin))
    np.testing.assert_allclose(wsp.from_bf16(qkv[:, :10]), ref,
                               rtol=2**-8 * (1 + 1e-4), atol=2**-133)
    np.testing.assert_array_equal(qkv[:, 10:], before[:, 10:])

    # A sequence longer than max_q_len (512) is INVALID_PARAMS, nothing
    # written (the planner checks every q_lens[b] against it).
    long_qkv = bf16_rows(rng, (513, 12, 128), 2.0)
    long_before = long_qkv.copy()
    table = np.zeros((600, 128), np.uint16)
    result = prog.rope(long_qkv, table, table, np.array([0], np.int32),
                       np.array([513], np.int32))
    assert result.status == 3, result
    np.testing.assert_array_equal(long_qkv, long_before)
    # 512 tokens, the most max_q_len allows, run.
    assert prog.rope(long_qkv[:512], table, table, np.array([0], np.int32),
                     np.array([512], np.int32)).ok
