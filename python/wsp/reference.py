"""Numpy references of the operators, written from the seeds' formulas and
the choices in docs/rationale/Operators.md, independent of the C++ (no
call into wsp): compare a compiled op with them in a few lines::

    ref = wsp.reference.rms_norm(wsp.from_bf16(x), w, eps=1e-6)
    np.testing.assert_allclose(wsp.from_bf16(y), ref, rtol=2**-8, atol=1e-30)

Every function computes in float64 and returns float64 (round to bf16
with :func:`wsp.to_bf16` where the operator stores bf16), so the only
differences from a correct kernel are its own roundings: the tolerance to
use is stated per function.
"""

import numpy as np

__all__ = ["rms_norm", "add_rms_norm", "scale_dynamic_quant", "swiglu",
           "softmax_rows", "softmax_topk", "moe_scatter", "moe_gather",
           "rotary_embedding", "paged_decode_attention"]


def rms_norm(x, weight, eps):
    """y = x / sqrt(mean(x^2) + eps) * weight, per row (seed 002's
    rms_norm). A bf16 output is within half a bf16 ulp of this plus the
    kernel's float sums: ``rtol = 2**-8 * (1 + 1e-4)``."""
    x = np.asarray(x, np.float64)
    rstd = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return x * rstd * np.asarray(weight, np.float64)


def add_rms_norm(x, residual, weight, eps):
    """rms_norm with a residual, as vLLM's fused_add_rms_norm and our
    lowering (docs/rationale/Operators.md): s = x + residual; after_res =
    s rounded to bf16; y = after_res * weight / sqrt(mean(s^2) + eps).
    Returns (y, s): round s to bf16 to compare after_res bit for bit."""
    s = np.asarray(x, np.float64) + np.asarray(residual, np.float64)
    rstd = 1.0 / np.sqrt(np.mean(s * s, axis=-1, keepdims=True) + eps)
    from .dtypes import from_bf16, to_bf16
    after = from_bf16(to_bf16(s)).astype(np.float64)
    return after * rstd * np.asarray(weight, np.float64), s


def scale_dynamic_quant(x, smooth_scale=None):
    """Symmetric per-token int8 quantization: v = x * smooth; scale =
    max|v| / 127; q = rint(v * 127 / max|v|) (ties to even), 0 for a zero
    row. Returns (q as int8, scale as float64). The kernel's q equals this
    except where v * 127 / max lies within float rounding of a .5."""
    v = np.asarray(x, np.float64)
    if smooth_scale is not None:
        v = v * np.asarray(smooth_scale, np.float64)
    m = np.max(np.abs(v), axis=-1, keepdims=True)
    mult = 127.0 / np.maximum(m, 1e-30)
    q = np.clip(np.rint(v * mult), -128, 127).astype(np.int8)
    return q, (m / 127.0)[..., 0]


def swiglu(x):
    """silu(gate) * up for rows holding gate and up side by side
    ([..., 2 H] -> [..., H]), silu(g) = g / (1 + e^-g)."""
    x = np.asarray(x, np.float64)
    h = x.shape[-1] // 2
    g, u = x[..., :h], x[..., h:]
    return g / (1.0 + np.exp(-g)) * u


def softmax_rows(x):
    """exp(x - max) / sum(exp(x - max)) per row. In float32 arithmetic a
    kernel stays within ``rtol = 1e-5`` of it for rows of 64."""
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_topk(logits, topk):
    """moe_softmax_topk: per token the `topk` experts of largest logit, in
    decreasing order, ties to the lower expert id (the experts of largest
    softmax probability: the same order, which the probabilities keep only
    where they do not underflow), and their probabilities renormalized to
    sum 1, exp(l - l_max) / sum over the chosen. Returns (ids as int32,
    weights as float64). A float32 kernel gives the same ids, and weights
    within ``rtol = 1e-5`` plus ``atol = 1e-44`` (a probability below
    float32's normal range keeps fewer bits; one below 2^-149 is 0)."""
    x = np.asarray(logits, np.float64)
    ids = np.argsort(-x, axis=-1, kind="stable")[..., :topk]
    chosen = np.take_along_axis(x, ids, axis=-1)
    w = np.exp(chosen - chosen[..., :1])
    return ids.astype(np.int32), w / w.sum(axis=-1, keepdims=True)


def moe_scatter(x, ids, smooth, expert_start, expert_end, allocated,
                shared=0, tokens_offset=0, tokens_per_rank=0):
    """moe_scatter_dynamic_quant's rows before quantization, on one
    expert-parallel rank (docs/rationale/Operators.md): the shared experts'
    rows first (shared expert s, token t of [tokens_offset, tokens_offset +
    tokens_per_rank)), then every (token t, slot k) whose expert is in
    [expert_start, expert_end), grouped by expert in increasing id, (t, k)
    order within; each row x[t] * smooth[its expert's row] (shared experts'
    smooth rows first). Returns (rows [used, H] float64, counts per routed
    expert, token_offset [allocated]: t * topk + k per routed row, -1
    after). Quantize the rows with scale_dynamic_quant."""
    x = np.asarray(x, np.float64)
    smooth = np.asarray(smooth, np.float64)
    ids = np.asarray(ids)
    topk = ids.shape[1]
    rows = [x[tokens_offset + i] * smooth[s] for s in range(shared)
            for i in range(tokens_per_rank)]
    counts = np.zeros(expert_end - expert_start, np.int32)
    offsets = []
    for e in range(expert_start, expert_end):
        for t in range(ids.shape[0]):
            for k in range(topk):
                if ids[t, k] == e:
                    rows.append(x[t] * smooth[shared + e - expert_start])
                    offsets.append(t * topk + k)
                    counts[e - expert_start] += 1
    token_offset = np.full(allocated, -1, np.int32)
    token_offset[:len(offsets)] = offsets
    return np.array(rows).reshape(-1, x.shape[1]), counts, token_offset


def moe_gather(rows, token_offset, weights, tokens, shared=0,
               tokens_offset=0, tokens_per_rank=0):
    """moe_gather: for every routed row i (token_offset[i] = t * topk + k
    >= 0), rows[shared rows + i] * weights[t, k] added to token t; every
    shared expert's row added to its token with weight 1. Returns
    [tokens, H] float64 (the kernel rounds each token to bf16 once)."""
    rows = np.asarray(rows, np.float64)
    weights = np.asarray(weights, np.float64)
    topk = weights.shape[1]
    out = np.zeros((tokens, rows.shape[1]))
    base = shared * tokens_per_rank
    for s in range(shared):
        for i in range(tokens_per_rank):
            out[tokens_offset + i] += rows[s * tokens_per_rank + i]
    for i, code in enumerate(np.asarray(token_offset)):
        if code >= 0:
            t, k = divmod(int(code), topk)
            out[t] += rows[base + i] * weights[t, k]
    return out


def rotary_embedding(x, positions, cos, sin, rope_offset=0, rope_dim=None):
    """NeoX rotary embedding of columns [rope_offset, rope_offset +
    rope_dim) of each head of x ([tokens, heads, head_dim]): with half =
    rope_dim / 2, o = rope_offset and p = positions[token],
        x1 = x[o + i], x2 = x[o + half + i]  (i < half)
        out1 = x1 cos[p, i] - x2 sin[p, i]
        out2 = x2 cos[p, half + i] + x1 sin[p, half + i]
    (cos, sin: [positions, rope_dim] tables). Every head given is rotated:
    pass the query and key heads. A bf16 output is within half a bf16 ulp
    plus float rounding: ``rtol = 2**-8 * (1 + 1e-4)``."""
    x = np.array(x, np.float64)
    d = rope_dim or x.shape[-1]
    half = d // 2
    positions = np.asarray(positions)
    c = np.asarray(cos, np.float64)[positions][:, None, :]
    s = np.asarray(sin, np.float64)[positions][:, None, :]
    x1 = x[..., rope_offset:rope_offset + half].copy()
    x2 = x[..., rope_offset + half:rope_offset + d].copy()
    x[..., rope_offset:rope_offset + half] = x1 * c[..., :half] - \
        x2 * s[..., :half]
    x[..., rope_offset + half:rope_offset + d] = x2 * c[..., half:d] + \
        x1 * s[..., half:d]
    return x


def paged_decode_attention(q, k_cache, v_cache, block_table, kv_ids, kv_lens,
                           scale=None, window=None):
    """Decode attention over a paged KV cache, as the decode attention
    workload (examples/ir/decode_attention.mlir) defines it.

    q: [batch, q_len, heads, head_dim]; caches: [pages, kv_heads,
    block_size, head_dim]; block_table: [slots, pages per sequence];
    kv_ids[b] the request's slot; kv_lens[b] counts the new tokens too, so
    query token s sees positions p <= kv_lens[b] - q_len + s (and, with a
    sliding `window`, p > that bound - window). Query head h reads KV head
    h // (heads // kv_heads). scale defaults to 1 / sqrt(head_dim).

    Returns [batch, q_len, heads, head_dim] in float64. A bf16 kernel that
    rounds P to bf16 before P V (half an ulp, a relative error of at most
    2^-8 per weight, moves a weighted mean of v by at most 2^-8 max|v|) and
    rounds the output to bf16 (2^-8 |o| <= 2^-8 max|v| more), with float
    sums over n positions, stays within ``max|v| * (2**-7 + n * 2**-22)``
    for a row of n positions, max|v| the largest value the row attends
    to."""
    q = np.asarray(q, np.float64)
    k_cache = np.asarray(k_cache, np.float64)
    v_cache = np.asarray(v_cache, np.float64)
    batch, q_len, heads, dim = q.shape
    kv_heads, block = k_cache.shape[1], k_cache.shape[2]
    group = heads // kv_heads
    scale = 1.0 / np.sqrt(dim) if scale is None else scale
    out = np.zeros(q.shape)
    for b in range(batch):
        n = int(kv_lens[b])
        pages = block_table[int(kv_ids[b])]
        pos = np.arange(n)
        page_of = pages[pos // block]
        for kh in range(kv_heads):
            keys = k_cache[page_of, kh, pos % block]      # [n, dim]
            values = v_cache[page_of, kh, pos % block]
            for s in range(q_len):
                last = n - q_len + s
                seen = pos <= last
                if window is not None:
                    seen &= pos > last - window
                for h in range(kh * group, (kh + 1) * group):
                    logits = keys @ q[b, s, h] * scale
                    logits[~seen] = -np.inf
                    p = np.exp(logits - logits[seen].max())
                    p[~seen] = 0
                    out[b, s, h] = p @ values / p.sum()
    return out
