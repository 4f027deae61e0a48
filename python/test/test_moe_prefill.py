"""The MoE decoder layer in chunked prefill (issue 44): layer 1 of
examples/model/tiny_moe_lm.mlir (the attention block, the shared expert,
the router, top 2 of 8 routed experts, the weighted gather), run by the
model's @prefill on a ragged batch, its routing planned per step from the
router's counts.

* The layer's MoE stage against a PyTorch reference of the block
  (examples/model/tiny_lm_torch.py's MoE, written from the ops'
  definitions) fed the kernel's own input: the router's logits, the
  chosen experts, their weights, each expert's token count and the
  scattered rows' order, and the layer's output.
* Chunked prefill: the prompts cut into two steps (the second reading
  the first's tokens from the KV cache, at their positions) give every
  token the same logits, bit for bit, as one step.
"""

import pathlib
import sys

import numpy as np
import pytest
import torch

import wsp

SRC = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SRC / "examples" / "model"))
import tiny_lm  # noqa: E402
import tiny_lm_torch  # noqa: E402
import tiny_moe_lm  # noqa: E402

SEED = 2047
PROMPT_LENS = (20, 9, 17, 1)
TOPK, EXPERTS = tiny_moe_lm.TOPK, tiny_moe_lm.EXPERTS


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    path = tmp_path_factory.mktemp("moe") / "tiny_moe_lm.npz"
    tiny_moe_lm.save_weights(path, tiny_moe_lm.draw_weights(SEED))
    rng = np.random.default_rng(SEED)
    prompts = [rng.integers(0, tiny_lm.VOCAB, n).astype(np.int32)
               for n in PROMPT_LENS]
    # -O0: the test's cost is the C++ build.
    prog = wsp.compile(SRC / "examples" / "model" / "tiny_moe_lm.mlir",
                       opt_level=0)
    with np.load(path) as f:
        weights = {k: f[k] for k in f.files}
    return prog, weights, path, prompts


def prefill(model, prompts, done):
    """One @prefill step of the prompts' tokens after the first done[b]
    (already cached); returns the step's buffers."""
    chunks = [p[d:] for p, d in zip(prompts, done)]
    flat = np.concatenate(chunks).astype(np.int32)
    buffers = model._buffers(len(flat), decode=False)
    done = np.asarray(done, np.int32)
    model._run("prefill", dict(
        buffers, tokens=flat, next_tokens=np.zeros(len(flat), np.int32),
        position_ids=done.copy(), kv_lens=done.copy(),
        q_lens=np.array([len(c) for c in chunks], np.int32)))
    return buffers


def test_the_moe_layer_routes_and_combines_as_the_reference(setup):
    prog, weights, path, prompts = setup
    model = tiny_moe_lm.Model(prog, weights, batch=len(prompts))
    step = prefill(model, prompts, [0] * len(prompts))
    moe = tiny_lm_torch.TinyLM.from_npz(path).layers[1].mlp
    n = sum(PROMPT_LENS)

    # The reference fed the kernel's normed input of the layer's MoE (h):
    # top-k is a discontinuous choice, so a reference fed its own h could
    # route a token elsewhere where two logits nearly tie.
    h = torch.from_numpy(step["h"].view(np.int16)).view(torch.bfloat16)
    ids, w, logits = moe.route(h)
    # The router's logits: bf16 of float32 sums of bf16 products, both
    # sides summing 256 products in float32 (orders differ: at most one
    # bf16 rounding apart; measured identical on this draw).
    np.testing.assert_array_equal(wsp.from_bf16(step["router_logits"]),
                                  logits.numpy())
    # The same experts (ties to the lower id), weights within float32's
    # rounding of the softmax over two.
    np.testing.assert_array_equal(step["selected_experts"], ids.numpy())
    np.testing.assert_allclose(step["expert_weights"], w.numpy(), rtol=1e-6)
    # Each expert's count, and the scattered rows grouped by expert in
    # increasing id, (token, choice) order within (token_offset = t * 2 +
    # k); every expert of the 8 gets tokens in this batch.
    counts = np.bincount(ids.numpy().ravel(), minlength=EXPERTS)
    np.testing.assert_array_equal(step["counts"], counts)
    assert (counts > 0).all()
    order = sorted(range(n * TOPK), key=lambda c: (ids.numpy().ravel()[c], c))
    np.testing.assert_array_equal(step["token_offset"], order)
    # The layer's output: the shared expert's plus the chosen experts'
    # weighted, rounded to bf16 once. Every expert row is exact on both
    # sides (integer GEMMs, then the same float32 epilogue); the float32
    # sum of three terms in another order may round to the other bf16
    # neighbour: at most one ulp of the token's largest value.
    out = moe(h).float().numpy()
    got = wsp.from_bf16(step["out"])
    ulp = 2.0 ** (np.floor(np.log2(np.abs(out).max(1))) - 7)
    err = (np.abs(got - out).max(1) / ulp).max()
    assert err <= 1, "the MoE's output %.3f ulps from the reference" % err


def test_a_prefill_in_two_chunks_equals_one_step(setup):
    prog, weights, _, prompts = setup
    whole = tiny_moe_lm.Model(prog, weights, batch=len(prompts))
    one = prefill(whole, prompts, [0] * len(prompts))
    # Chunks of the prompts: a prefix of each (none of the one-token
    # prompt's) first, the rest with the prefix cached.
    chunked = tiny_moe_lm.Model(prog, weights, batch=len(prompts))
    first = [7, 4, 16, 0]
    a = prefill(chunked, [p[:d] for p, d in zip(prompts, first)],
                [0] * len(prompts))
    b = prefill(chunked, prompts, first)
    starts = np.cumsum([0] + list(PROMPT_LENS))
    a_starts = np.cumsum([0] + first)
    b_starts = np.cumsum([0] + [n - d for n, d in zip(PROMPT_LENS, first)])
    for s, d in enumerate(first):
        whole_rows = one["logits"][starts[s]:starts[s + 1]]
        np.testing.assert_array_equal(
            a["logits"][a_starts[s]:a_starts[s + 1]], whole_rows[:d])
        np.testing.assert_array_equal(
            b["logits"][b_starts[s]:b_starts[s + 1]], whole_rows[d:])
    for name, cache in whole.caches.items():
        np.testing.assert_array_equal(cache, chunked.caches[name])
