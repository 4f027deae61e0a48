"""PyTorch tensors in compiled programs, and programs as torch.ops
(wsp.torch, issue 46).

* CPU tensors (bf16, f32, int8, int32) are passed without copies: the
  program writes the caller's tensor (a row slice of a larger one too), and
  the result equals the call on numpy arrays bit for bit.
* A tensor on another device, not contiguous, or of another dtype is a
  ValueError naming the argument, before any C++ runs.
* wsp.torch.register makes each function torch.ops.wsp.<name>: mutable
  tensor arguments, optional workspaces, the same checks, a status other
  than OK raised as RunError with nothing written.
* wsp works, and imports no torch, where torch cannot be imported.
"""

import copy
import subprocess
import sys
import types

import numpy as np
import pytest
import torch

import wsp
import wsp.torch
from wsp.ir import Module, memref
from wsp.ops import llm

H, N, V = 256, 128, 1024


def interop_module(name="torch_interop"):
    m = Module(name)
    with m.function("norm", x=memref([None, H], "bf16"),
                    w=memref([H], "f32"), y=memref([None, H], "bf16")) as f:
        llm.rms_norm(hidden_states=f.x, weight=f.w, y=f.y, eps=1e-6)
    with m.function("mm", x=memref([None, H], "i8"),
                    pts=memref([None], "f32"), w=memref([N, H], "i8"),
                    ws=memref([N], "f32"), y=memref([None, N], "bf16")) as f:
        llm.quant_matmul(hidden_states=f.x, per_token_scale=f.pts,
                         weight=f.w, weight_scale=f.ws, y=f.y,
                         transpose_b=True)
    with m.function("pick", logits=memref([None, V], "bf16"),
                    ids=memref([None], "i32")) as f:
        llm.argmax(logits=f.logits, token_ids=f.ids)
    return m


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    # One program for the file, in the session's cache (conftest's).
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WSP_CACHE_DIR",
                  str(tmp_path_factory.getbasetemp() / "wsp-cache"))
        return wsp.compile(interop_module())


def inputs(rows=7, seed=1):
    g = torch.Generator().manual_seed(seed)
    return dict(
        x=(torch.rand(rows, H, generator=g) * 8 - 4).bfloat16(),
        w=torch.rand(H, generator=g) + 0.5,
        x8=torch.randint(-127, 128, (rows, H), generator=g,
                         dtype=torch.int8),
        pts=torch.rand(rows, generator=g) * 0.01 + 1e-3,
        w8=torch.randint(-127, 128, (N, H), generator=g, dtype=torch.int8),
        ws=torch.rand(N, generator=g) * 0.01 + 1e-3,
        logits=torch.randn(rows, V, generator=g).bfloat16())


def bits(t):
    """A bf16 tensor's bits as numpy uint16 (a copy)."""
    return t.view(torch.int16).numpy().view(np.uint16).copy()


def test_tensors_are_written_in_place_and_match_numpy(prog):
    t = inputs()
    y = torch.zeros(7, H, dtype=torch.bfloat16)
    assert prog.norm(t["x"], t["w"], y).ok
    y_np = np.zeros((7, H), np.uint16)
    assert prog.norm(bits(t["x"]), t["w"].numpy(), y_np).ok
    np.testing.assert_array_equal(bits(y), y_np)
    ref = wsp.reference.rms_norm(t["x"].double().numpy(), t["w"].numpy(),
                                 1e-6)
    np.testing.assert_allclose(y.double().numpy(), ref,
                               rtol=2**-8 * (1 + 1e-4), atol=1e-30)

    ym = torch.zeros(7, N, dtype=torch.bfloat16)
    assert prog.mm(t["x8"], t["pts"], t["w8"], t["ws"], ym).ok
    ref = (t["x8"].double() @ t["w8"].double().t()) \
        * t["pts"].double()[:, None] * t["ws"].double()
    np.testing.assert_allclose(ym.double().numpy(), ref.numpy(),
                               rtol=2**-8 * (1 + 1e-4), atol=1e-30)

    ids = torch.full((7,), -1, dtype=torch.int32)
    assert prog.pick(t["logits"], ids).ok
    assert torch.equal(ids, t["logits"].float().argmax(-1).int())


def test_a_row_slice_is_written_where_it_lies(prog):
    t = inputs()
    big = torch.full((10, H), 7.0, dtype=torch.bfloat16)
    rows = big[2:9]                      # contiguous, storage offset 2 rows
    view = wsp.torch.as_array(prog.norm, prog.norm.args[2], rows)
    assert view.ctypes.data == rows.data_ptr() and view.dtype == np.uint16
    assert prog.norm(t["x"], t["w"], rows).ok
    y = torch.zeros(7, H, dtype=torch.bfloat16)
    prog.norm(t["x"], t["w"], y)
    assert torch.equal(big[2:9], y)
    assert (big[:2] == 7).all() and (big[9:] == 7).all()


def test_autograd_tensors_are_read_as_they_are(prog):
    t = inputs()
    w = t["w"].clone().requires_grad_()
    y = torch.zeros(7, H, dtype=torch.bfloat16)
    assert prog.norm(t["x"], w, y).ok and w.grad is None
    y2 = torch.zeros(7, H, dtype=torch.bfloat16)
    prog.norm(t["x"], t["w"], y2)
    assert torch.equal(y, y2)


def test_bad_tensors_name_the_argument(prog):
    t = inputs()
    y = torch.zeros(7, H, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=r"norm: argument x \(memref<\?x256x"
                       r"bf16>\) must be a torch.bfloat16 tensor, not "
                       r"torch.float32"):
        prog.norm(t["x"].float(), t["w"], y)
    with pytest.raises(ValueError, match="argument w .* must be a "
                       "torch.float32 tensor, not torch.float64"):
        prog.norm(t["x"], t["w"].double(), y)
    wide = torch.zeros(7, 2 * H, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=r"argument y .* must be a contiguous"
                       r" tensor \(tensor.contiguous\(\)\)"):
        prog.norm(t["x"], t["w"], wide[:, ::2])
    with pytest.raises(ValueError, match="argument x .* is a tensor on meta; "
                       "compiled programs run on the CPU"):
        prog.norm(torch.empty(7, H, dtype=torch.bfloat16, device="meta"),
                  t["w"], y)
    # The program's own checks, as for numpy arrays.
    with pytest.raises(ValueError, match="argument w .* has size 255 in "
                       "dimension 0, not 256"):
        prog.norm(t["x"], t["w"][:255], y)
    assert (y == 0).all()


def test_functions_as_torch_ops(prog):
    ops = wsp.torch.register(prog)
    assert set(ops) == {"norm", "mm", "pick"}
    assert str(torch.ops.wsp.norm.default._schema) == (
        "wsp::norm(Tensor(a0!) x, Tensor(a1!) w, Tensor(a2!) y) -> ()")
    # quant_matmul's workspace: an optional argument, left out here.
    assert str(torch.ops.wsp.mm.default._schema).endswith(
        "Tensor(a4!) y, Tensor(a5!)? arg5=None) -> ()")
    t = inputs()
    y = torch.zeros(7, H, dtype=torch.bfloat16)
    assert torch.ops.wsp.norm(t["x"], t["w"], y) is None
    y2 = torch.zeros(7, H, dtype=torch.bfloat16)
    prog.norm(t["x"], t["w"], y2)
    assert torch.equal(y, y2)
    ym = torch.zeros(7, N, dtype=torch.bfloat16)
    torch.ops.wsp.mm(t["x8"], t["pts"], t["w8"], t["ws"], ym)
    ym2 = torch.zeros(7, N, dtype=torch.bfloat16)
    prog.mm(t["x8"], t["pts"], t["w8"], t["ws"], ym2)
    assert torch.equal(ym, ym2) and (ym != 0).any()
    ids = torch.zeros(7, dtype=torch.int32)
    ops["pick"](t["logits"], ids)
    assert torch.equal(ids, t["logits"].float().argmax(-1).int())

    # The same checks as a call.
    with pytest.raises(ValueError, match="norm: argument x .* must be a "
                       "torch.bfloat16 tensor, not torch.float32"):
        torch.ops.wsp.norm(t["x"].float(), t["w"], y)
    with pytest.raises(ValueError, match="argument w .* has size 128 in "
                       "dimension 0, not 256"):
        torch.ops.wsp.norm(t["x"], t["w"][:128], y)
    # A status other than OK raises, nothing written: y of other rows
    # than x (the planner's check).
    short = torch.full((6, H), 3.0, dtype=torch.bfloat16)
    with pytest.raises(wsp.torch.RunError,
                       match="wsp::norm returned INVALID_PARAMS") as e:
        torch.ops.wsp.norm(t["x"], t["w"], short)
    assert e.value.result.status == wsp.PlanResult.INVALID_PARAMS
    assert (short == 3).all()


def test_registering_again(prog):
    wsp.torch.register(prog)
    # The same program loaded anew: the ops call it.
    again = wsp.compile(interop_module())
    assert again is not prog
    ops = wsp.torch.register(again, functions=["norm"])
    assert list(ops) == ["norm"]
    t = inputs()
    y = torch.zeros(7, H, dtype=torch.bfloat16)
    ops["norm"](t["x"], t["w"], y)
    assert (y != 0).any()
    # Another function of the same name: refused, pointing elsewhere.
    other = copy.copy(prog.functions["norm"])
    other.args = other.args[:1] + other.args[2:]
    fake = types.SimpleNamespace(stem="other", functions={"norm": other})
    with pytest.raises(ValueError, match=r"torch.ops.wsp.norm is registered "
                       r"already as norm\(Tensor\(a0!\) x, Tensor\(a1!\) "
                       r"w, Tensor\(a2!\) y\) -> \(\); other.norm is .*: "
                       r"register it under another namespace"):
        wsp.torch.register(fake)
    # More arguments than a torch op takes.
    big = copy.copy(prog.functions["norm"])
    big.args = big.args * 22
    with pytest.raises(ValueError, match="big.norm takes 66 arguments, and a "
                       "torch op at most 64"):
        wsp.torch.register(types.SimpleNamespace(stem="big",
                                                 functions={"norm": big}))
    with pytest.raises(ValueError, match="no function 'nope'"):
        wsp.torch.register(prog, functions=["nope"])


def test_wsp_needs_no_torch(prog):
    # In a process where torch cannot be imported, wsp loads and runs a
    # compiled program on numpy arrays, and only wsp.torch needs torch.
    script = """
import sys
sys.modules["torch"] = None       # import torch now raises ImportError
import numpy as np
import wsp
prog = wsp.CompiledProgram(sys.argv[1])
y = np.zeros((2, 256), np.uint16)
assert prog.norm(wsp.to_bf16(np.ones((2, 256))), np.ones(256, np.float32),
                 y).ok
assert (wsp.from_bf16(y) == 1).all()
try:
    import wsp.torch
except ImportError:
    print("ok")
"""
    out = subprocess.run([sys.executable, "-c", script, prog.directory],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
