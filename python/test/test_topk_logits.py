"""moe_softmax_topk where softmax underflows (issue 44, defect 2): experts
are chosen by logit, not by their f32 probability, which is 0 for every
logit more than about 104 below the row's largest (so those experts tied
and the lowest ids won). The reference here is written from the op's
definition in float64, not with wsp.reference: the topk largest logits in
decreasing order, ties to the lower id (softmax is monotonic, so these are
the experts of largest probability), and their probabilities renormalized,
exp(l - l_max) / sum over the chosen of exp(l - l_max).

Programs are built at -O0: the C++ build is this file's cost, and the
numbers are -O2's (no fast-math, no FMA contraction at either).
"""

import numpy as np
import pytest

import wsp
from wsp.ir import Module, memref
from wsp.ops import llm


def topk_module(experts, topk, weights_dtype):
    m = Module("router")
    with m.function("topk", logits=memref([None, experts], "bf16"),
                    ids=memref([None, topk], "i32"),
                    weights=memref([None, topk], weights_dtype)) as f:
        llm.moe_softmax_topk(hidden_states=f.logits, selected_experts=f.ids,
                             expert_weights=f.weights)
    return wsp.compile(m, opt_level=0)


def reference(logits, topk):
    x = np.asarray(logits, np.float64)
    ids = np.argsort(-x, axis=-1, kind="stable")[:, :topk]
    chosen = np.take_along_axis(x, ids, axis=-1)
    e = np.exp(chosen - chosen[:, :1])
    return ids.astype(np.int32), e / e.sum(axis=-1, keepdims=True)


def run(prog, logits_bits, topk, weights_dtype):
    tokens = logits_bits.shape[0]
    ids = np.full((tokens, topk), -7, np.int32)
    weights = np.zeros((tokens, topk), wsp.dtypes.numpy_dtype(weights_dtype))
    assert prog.topk(logits_bits, ids, weights).ok
    got = wsp.from_bf16(weights) if weights_dtype == "bf16" else weights
    return ids, got.astype(np.float64)


# Weights: the kernel's are f32 softmax values renormalized, within a few
# f32 roundings of the reference (rtol 1e-5); a probability below f32's
# normal range (a logit 87-104 below the largest) keeps fewer bits, an
# absolute error of a few 2^-149 (atol 1e-44), and one below 2^-149 is 0
# (exp(-110) = 1.7e-48 is). bf16 weights are rounded once more: half a bf16
# ulp (2^-8 relative), half bf16's subnormal spacing (2^-134) absolute.
TOL = {"f32": dict(rtol=1e-5, atol=1e-44),
       "bf16": dict(rtol=2**-8 + 1e-5, atol=2**-133)}


@pytest.mark.parametrize("weights_dtype", ["f32", "bf16"])
def test_an_underflowed_probability_does_not_tie(weights_dtype):
    # The case: logit 0 at expert 5, -110 at expert 9, -1000
    # elsewhere; top 2 is [5, 9] (by f32 probability it was [5, 0]).
    prog = topk_module(16, 2, weights_dtype)
    logits = np.full((3, 16), -1000.0)
    logits[:, 5] = 0
    logits[:, 9] = -110
    logits[1, 12] = -110      # a tie among the underflowed: the lower id
    logits[2] = -1000
    logits[2, 3] = -900       # p of 1, every other exp(-100) (subnormal)
    ids, w = run(prog, wsp.to_bf16(logits), 2, weights_dtype)
    ref_ids, ref_w = reference(logits, 2)
    assert ids[0].tolist() == [5, 9]
    assert ids[1].tolist() == [5, 9]
    assert ids[2].tolist() == [3, 0]
    np.testing.assert_array_equal(ids, ref_ids)
    np.testing.assert_allclose(w, ref_w, **TOL[weights_dtype])


@pytest.mark.parametrize("weights_dtype", ["f32", "bf16"])
def test_256_experts_wide_logit_range_against_numpy(weights_dtype):
    prog = topk_module(256, 8, weights_dtype)
    rng = np.random.default_rng(44)
    tokens = 37
    # Each row's logits uniform over +-10^u, u uniform in [1, 4.5]: from rows
    # whose 8 largest lie within a few units to rows where they lie
    # hundreds apart, their probabilities below f32's range (and, in bf16,
    # some equal: ties to the lower id).
    scale = 10.0 ** rng.uniform(1, 4.5, (tokens, 1))
    logits = wsp.to_bf16(rng.uniform(-1, 1, (tokens, 256)) * scale)
    values = wsp.from_bf16(logits).astype(np.float64)
    ids, w = run(prog, logits, 8, weights_dtype)
    ref_ids, ref_w = reference(values, 8)
    np.testing.assert_array_equal(ids, ref_ids)
    np.testing.assert_allclose(w, ref_w, **TOL[weights_dtype])
    # In a quarter of the rows or more the 8th expert's probability is below
    # f32's range (what made the selection by probability tie).
    assert (ref_w[:, -1] < 1e-45).sum() > tokens // 4


@pytest.mark.parametrize("experts, topk", [(8, 2), (20, 3), (60, 4)])
def test_expert_counts_of_real_models_against_numpy(experts, topk):
    # Mixtral's 8 experts, top 2; Qwen1.5-MoE's 60, top 4; and 20: counts
    # that are not a multiple of 16, whose tile rows are padded (the padding
    # must take no part in the row's max, sum or selection).
    prog = topk_module(experts, topk, "f32")
    rng = np.random.default_rng(experts)
    tokens = 19
    logits = wsp.to_bf16(rng.normal(0, 3, (tokens, experts)))
    values = wsp.from_bf16(logits).astype(np.float64)
    ids, w = run(prog, logits, topk, "f32")
    ref_ids, ref_w = reference(values, topk)
    np.testing.assert_array_equal(ids, ref_ids)
    np.testing.assert_allclose(w, ref_w, **TOL["f32"])
