"""The small model of examples/model/tiny_lm.mlir against a reference in
plain PyTorch (examples/model/tiny_lm_torch.py), both reading one .npz of
seeded weights (issue 46).

The compiled model (examples/model/tiny_lm.py: @prefill, then the
@decode_table step built once and replayed token by token, on the file's
arrays as torch tensors) and the reference generate greedily from three
prompts; wherever the reference's top-2 logit margin exceeds the bf16
tolerance, the picks agree, and the reference generating on its own
produces the same tokens up to its first pick within the tolerance. The
replayed tokens and logits are bit-identical to calling @decode every
token (as test/Examples/tiny-model-e2e.test checks in C++).
"""

import pathlib
import sys

import numpy as np
import pytest

import wsp

SRC = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SRC / "examples" / "model"))
import model_checks  # noqa: E402
import tiny_lm  # noqa: E402
import tiny_lm_torch  # noqa: E402

SEED = 2041
PROMPT_LENS = (5, 9, 2)   # tiny_lm.selfcheck.cpp's
GENERATED = 16            # tokens per sequence: the prefill's pick + 15


def test_wsp_and_the_pytorch_reference_agree_on_greedy_tokens(tmp_path,
                                                               capsys):
    path = tmp_path / "tiny_lm.npz"
    tiny_lm.save_weights(path, tiny_lm.draw_weights(SEED))
    rng = np.random.default_rng(SEED)
    prompts = [rng.integers(0, tiny_lm.VOCAB, n).tolist()
               for n in PROMPT_LENS]

    # -O0: the test's cost is the C++ build, which -O0 cuts to a third
    # (about 8 s of CPU); the 16 steps then run in about 0.4 s, and the
    # numbers are -O2's (no fast-math, no FMA contraction at either).
    prog = wsp.compile(SRC / "examples" / "model" / "tiny_lm.mlir",
                       opt_level=0)
    # The weights as torch tensors over the file's arrays, passed as they
    # are (no copies; bf16 tensors for the bf16 arguments).
    with np.load(path) as f:
        weights = {k: tiny_lm_torch.as_tensor(f[k]) for k in f.files}
    tokens, logits = model_checks.generate_replayed_and_called(
        tiny_lm.Model, prog, weights, prompts, GENERATED - 1)

    ref = tiny_lm_torch.TinyLM.from_npz(path)
    # Teacher-forced: the reference reads the tokens wsp generated. The
    # bf16 tolerance: one ulp of the row's largest logit. Both sides round
    # at the same points (each op's bf16 output, the int8 quantizations)
    # but sum in other orders, so a rounding may land an ulp apart and move
    # what follows it. Measured over weight seeds 2041, 1 and 2, no logit
    # moved by more than 1/8 ulp of its row's largest; the premise is
    # asserted at one ulp (so a change that breaks it fails here, not as a
    # rare flipped pick). With every logit within one ulp of the
    # reference's, a margin over two ulps keeps the reference's pick on
    # top; within two, the picks may differ (ties go to the lower id on
    # both sides). Free-running: the same tokens until the first close
    # call.
    r = model_checks.compare_greedy(ref, prompts, tokens, logits,
                                    tolerance=1)
    # Enough decisive picks for the test to say something.
    assert r["decisive"] >= r["total"] // 2
    with capsys.disabled():
        print("\ntiny_lm against PyTorch: %d picks, %d with a margin over "
              "2 bf16 ulps (all agree), %d of %d agree in all; free-running "
              "%d of %d tokens the same; logits at most %.3f ulps apart; "
              "margins %.1f to %.1f ulps" % (
                  r["total"], r["decisive"], r["agree"], r["total"],
                  r["free_running"], r["total"], r["worst"],
                  min(r["margins"]), max(r["margins"])))


def test_step_table_refuses_what_it_was_not_built_for():
    # A replay past the tokens the table was built for (the runtime's
    # StepTable: BUFFER_OVERFLOW), from a negative token (INVALID_PARAMS),
    # or of a closed table runs nothing.
    prog = wsp.compile(SRC / "examples" / "model" / "tiny_lm.mlir",
                       opt_level=0)
    model = tiny_lm.Model(prog, tiny_lm.draw_weights(SEED), batch=1)
    step = model._buffers(1, decode=True)
    tokens = np.zeros((3, 1), np.int32)
    table = prog.decode_table.build(**model._args("decode", dict(
        step, tokens=tokens[0], next_tokens=tokens[1],
        position_ids=np.zeros(1, np.int32),
        kv_lens=np.zeros(1, np.int32), q_lens=np.ones(1, np.int32),
        accum_q_len=np.arange(2, dtype=np.int32))), max_tokens=2,
        kv_capacity=tiny_lm.POSITIONS)
    assert table.replay(0, 2).ok
    before = [c.copy() for c in model.caches.values()]
    assert table.replay(2).name == "BUFFER_OVERFLOW"      # past max_tokens
    assert table.replay(1, 2).name == "BUFFER_OVERFLOW"
    assert table.replay(-1).name == "INVALID_PARAMS"
    for was, now in zip(before, model.caches.values()):
        np.testing.assert_array_equal(was, now)
    table.close()
    with pytest.raises(ValueError, match="the table is closed"):
        table.replay(0)
    with pytest.raises(ValueError, match="max_tokens must be an int"):
        prog.decode_table.build(max_tokens=-1, kv_capacity=1)
    assert repr(prog.decode_table) == "Step(decode_table captures decode)"
