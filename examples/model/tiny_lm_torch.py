"""A reference of tiny_lm.mlir in plain PyTorch (torch.nn; nothing of wsp).

The architecture is tiny_lm's: a bf16 embedding, two decoder layers (a
fused residual add and RMSNorm, a W8A8 QKV projection, RMSNorm of the
query and key heads, NeoX RoPE, GQA attention of 4 query heads on 1 KV
head over a KV cache, a W8A8 output projection, a residual RMSNorm, a
SwiGLU MLP of W8A8 projections), a final RMSNorm, a bf16 LM head and the
greedy pick. tiny_moe_lm's layer 1 is an MoE layer (``MoE``: the SwiGLU
MLP as a shared expert plus routed experts), chosen by its weights. The weights are the .npz file tiny_lm.py writes, read with
numpy alone (every uint16 array of the file is bf16 bits).

Activations travel between the modules in bf16, as a bf16 PyTorch model's
do and as the compiled model stores them; each module computes in float32.
The W8A8 projections (``QuantLinear``) are SmoothQuant's: the input times
a per-channel smoothing scale, quantized per token to int8 (scale =
max|v| / 127, round half to even), an exact integer product with the int8
weight, then the per-token and per-channel scales. Attention is a
softmax over the cached positions with P rounded to bf16 before P V, as a
bf16 flash attention does.

    model = TinyLM.from_npz("tiny_lm.npz")
    tokens, logits = model.generate(prompt, steps=12)   # one sequence
"""

import numpy as np
import torch
from torch import nn

EPS = 1e-6


def as_tensor(array):
    """An array of the file as a tensor sharing its memory (uint16: bf16
    bits, viewed as torch.bfloat16)."""
    array = np.ascontiguousarray(array)
    if array.dtype == np.uint16:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def _rstd(s, eps=EPS):
    """1 / sqrt(mean(s^2) + eps) per row of float32 s."""
    return 1.0 / torch.sqrt((s * s).mean(-1, keepdim=True) + eps)


class RMSNorm(nn.Module):
    """y = x / rms(x) * weight, with an optional residual added first: s =
    x + residual in float32; the stored sum is bf16(s) and is what is
    normalized, by the rms of s (vLLM's fused_add_rms_norm). Returns (y in
    float32, bf16(s))."""

    def __init__(self, weight):
        super().__init__()
        self.register_buffer("weight", weight.float())

    def forward(self, x, residual=None):
        s = x.float() if residual is None else x.float() + residual.float()
        stored = s.bfloat16()
        return stored.float() * _rstd(s) * self.weight, stored


class QuantLinear(nn.Module):
    """A W8A8 linear layer: y = (q(x * smooth) @ W^T) * token scale *
    channel scale, rounded to bf16; W int8 [out, in]."""

    def __init__(self, weight, weight_scale, smooth):
        super().__init__()
        self.register_buffer("weight", weight)
        self.register_buffer("weight_scale", weight_scale.float())
        self.register_buffer("smooth", smooth.float().reshape(-1))

    def forward(self, x):
        v = x.float() * self.smooth
        amax = v.abs().amax(-1, keepdim=True)
        scale = amax / 127.0
        q = torch.round(v * (127.0 / amax.clamp_min(1e-30))).clamp(-128, 127)
        # Integer sums: exact in float64 (|sum| < 2^24 here).
        acc = (q.double() @ self.weight.double().t()).float()
        return (acc * scale * self.weight_scale).bfloat16()


def rotate(x, cos, sin):
    """NeoX RoPE of bf16 x [..., tokens, heads, dim] with bf16 tables
    [tokens, dim]: column i pairs with i + dim / 2."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half].float(), x[..., half:].float()
    c, s = cos.float()[:, None, :], sin.float()[:, None, :]
    out1 = x1 * c[..., :half] - x2 * s[..., :half]
    out2 = x2 * c[..., half:] + x1 * s[..., half:]
    return torch.cat([out1, out2], -1).bfloat16()


class Attention(nn.Module):
    """QKV projection, RMSNorm of each query and key head, RoPE, the keys
    and values stored in the cache, causal GQA attention over it, output
    projection."""

    def __init__(self, w, p, q_heads, kv_heads, head_dim):
        super().__init__()
        self.q_heads, self.kv_heads, self.head_dim = q_heads, kv_heads, \
            head_dim
        self.qkv = QuantLinear(w[p + "qkv_weight"], w[p + "qkv_scale"],
                               w[p + "smooth_scale"])
        self.register_buffer("head_norm", w[p + "qk_norm_weight"].float())
        self.o = QuantLinear(w[p + "o_weight"], w[p + "o_scale"],
                             w[p + "o_smooth"])

    def forward(self, x, cache, start, cos, sin):
        """x: float32 [tokens, hidden], the tokens at positions start,
        start + 1, ...; cache: (k, v) bf16 [positions, kv_heads, dim],
        written at those positions."""
        n, d = x.shape[0], self.head_dim
        heads = self.qkv(x).view(n, -1, d)
        qk = self.q_heads + self.kv_heads
        h = heads[:, :qk].float()
        h = (h * (1.0 / torch.sqrt((h * h).mean(-1, keepdim=True) + EPS))
             * self.head_norm).bfloat16()
        positions = torch.arange(start, start + n)
        h = rotate(h, cos[positions], sin[positions])
        q, k, v = h[:, :self.q_heads], h[:, self.q_heads:], heads[:, qk:]
        cache_k, cache_v = cache
        cache_k[start:start + n] = k
        cache_v[start:start + n] = v
        keys = cache_k[:start + n].float()      # [positions, kv_heads, dim]
        values = cache_v[:start + n].float()
        group = self.q_heads // self.kv_heads
        kh = torch.arange(self.q_heads) // group
        # scores [heads, tokens, positions]
        s = torch.einsum("thd,phd->htp", q.float(), keys[:, kh]) * d ** -0.5
        visible = torch.arange(start + n)[None, :] <= positions[:, None]
        s = s.masked_fill(~visible, float("-inf"))
        p = torch.exp(s - s.amax(-1, keepdim=True))
        o = torch.einsum("htp,phd->thd", p.bfloat16().float(), values[:, kh])
        o = (o / p.sum(-1).t()[:, :, None]).bfloat16()
        return self.o(o.reshape(n, -1))


class SwiGLU(nn.Module):
    """up: W8A8 to gate and up side by side; silu(gate) * up; down:
    W8A8."""

    def __init__(self, w, p):
        super().__init__()
        # The file holds the MLP's weights [in, out]; a layer's are [out, in].
        self.up = QuantLinear(w[p + "mlp_up_weight"].t().contiguous(),
                              w[p + "mlp_up_scale"], w[p + "mlp_smooth_up"])
        self.down = QuantLinear(w[p + "mlp_down_weight"].t().contiguous(),
                                w[p + "mlp_down_scale"],
                                w[p + "mlp_smooth_down"])

    def forward(self, x):
        gate, up = self.up(x).float().chunk(2, -1)
        return self.down(gate / (1.0 + torch.exp(-gate)) * up)


class Expert(nn.Module):
    """One expert of an MoE layer: SwiGLU's chain with expert e's weights
    ([experts, in, out] in the file) and smoothing scales."""

    def __init__(self, w, p, e):
        super().__init__()
        self.up = QuantLinear(w[p + "moe_up_weight"][e].t().contiguous(),
                              w[p + "moe_up_scale"][e],
                              w[p + "moe_smooth_up"][e])
        self.down = QuantLinear(w[p + "moe_down_weight"][e].t().contiguous(),
                                w[p + "moe_down_scale"][e],
                                w[p + "moe_smooth_down"][e])

    def forward(self, x):
        gate, up = self.up(x).float().chunk(2, -1)
        return self.down(gate / (1.0 + torch.exp(-gate)) * up)


class MoE(nn.Module):
    """A sparse MoE block with a shared expert (the layer's SwiGLU MLP,
    which every token runs) and routed experts: the router's logits (a
    bf16 linear layer, summed in float32), per token the `topk` experts of
    largest logit (ties to the lower expert id) with their softmax
    renormalized over the chosen; the shared expert's output (bf16) plus
    each chosen expert's output (bf16) times its weight, summed in float32
    and rounded to bf16 once."""

    def __init__(self, w, p, topk=2):
        super().__init__()
        self.topk = topk
        self.shared = SwiGLU(w, p)
        self.register_buffer("gate", w[p + "gate_weight"])  # [hidden, E]
        self.experts = nn.ModuleList(
            Expert(w, p, e) for e in range(self.gate.shape[1]))

    def route(self, x):
        """(ids [tokens, topk], weights [tokens, topk] float32, logits
        [tokens, experts] float32: the bf16 logits)."""
        logits = (x.float() @ self.gate.float()).bfloat16().float()
        ids = torch.argsort(-logits, dim=-1, stable=True)[:, :self.topk]
        chosen = logits.gather(-1, ids)
        return ids, torch.softmax(chosen, -1), logits

    def forward(self, x):
        ids, weights, _ = self.route(x)
        out = self.shared(x).float()
        for e, expert in enumerate(self.experts):
            t, k = torch.nonzero(ids == e, as_tuple=True)
            if len(t):
                out.index_add_(0, t, expert(x[t]).float() *
                               weights[t, k][:, None])
        return out.bfloat16()


class DecoderLayer(nn.Module):
    def __init__(self, w, p, q_heads, kv_heads, head_dim):
        super().__init__()
        self.attn_norm = RMSNorm(w[p + "norm_weight"])
        self.attn = Attention(w, p, q_heads, kv_heads, head_dim)
        self.mlp_norm = RMSNorm(w[p + "post_norm_weight"])
        # A layer with a router is an MoE layer (tiny_moe_lm.py's layer 1).
        self.mlp = MoE(w, p) if p + "gate_weight" in w else SwiGLU(w, p)

    def forward(self, x, residual, cache, start, cos, sin):
        a, residual = self.attn_norm(x, residual)
        y = self.attn(a, cache, start, cos, sin)
        h, residual = self.mlp_norm(y, residual)
        return self.mlp(h.bfloat16()), residual


class TinyLM(nn.Module):
    def __init__(self, w, q_heads=4, kv_heads=1):
        super().__init__()
        self.embedding = nn.Embedding.from_pretrained(w["embedding"])
        head_dim = w["cos"].shape[1]
        self.head_dim, self.kv_heads = head_dim, kv_heads
        layers = sorted({k.split("_")[0] for k in w if k[0] == "l"
                         and k.split("_")[0][1:].isdigit()})
        self.layers = nn.ModuleList(
            DecoderLayer(w, name + "_", q_heads, kv_heads, head_dim)
            for name in layers)
        self.norm = RMSNorm(w["final_norm_weight"])
        self.register_buffer("lm_head", w["lm_head"])   # [hidden, vocab]
        self.register_buffer("cos", w["cos"])
        self.register_buffer("sin", w["sin"])

    @classmethod
    def from_npz(cls, path, **kwargs):
        with np.load(path) as f:
            return cls({name: as_tensor(f[name]) for name in f.files},
                       **kwargs)

    def new_cache(self):
        """Each layer's (k, v) cache, bf16 [positions, kv_heads, dim]."""
        shape = (self.cos.shape[0], self.kv_heads, self.head_dim)
        return [(torch.zeros(shape, dtype=torch.bfloat16),
                 torch.zeros(shape, dtype=torch.bfloat16))
                for _ in self.layers]

    @torch.no_grad()
    def forward(self, tokens, cache, start):
        """The logits (bf16 [tokens, vocab]) of `tokens`, at positions
        start, start + 1, ..., after the `start` positions `cache` holds;
        their keys and values are added to it."""
        x = self.embedding(tokens)
        residual = torch.zeros_like(x)
        for layer, c in zip(self.layers, cache):
            x, residual = layer(x, residual, c, start, self.cos, self.sin)
        h, _ = self.norm(x, residual)
        return (h.bfloat16().float() @ self.lm_head.float()).bfloat16()

    @torch.no_grad()
    def generate(self, prompt, steps):
        """Greedy generation for one sequence: the prompt in one step,
        then `steps` tokens one at a time. Returns (tokens [steps + 1],
        logits [steps + 1, vocab] float32: the logits each pick was made
        from)."""
        cache = self.new_cache()
        prompt = torch.as_tensor(prompt)
        logits = [self(prompt, cache, 0)[-1]]
        tokens = [int(logits[0].float().argmax())]
        for t in range(steps):
            start = len(prompt) + t
            logits.append(self(torch.tensor(tokens[-1:]), cache, start)[-1])
            tokens.append(int(logits[-1].float().argmax()))
        return torch.tensor(tokens), torch.stack(logits).float()

    @torch.no_grad()
    def score(self, prompt, generated):
        """Teacher-forced: the logits of every pick of `generated` (the
        tokens after the prompt) given the tokens before it, [len,
        vocab] float32."""
        cache = self.new_cache()
        seq = torch.cat([torch.as_tensor(prompt),
                         torch.as_tensor(generated)[:-1]])
        logits = self(seq, cache, 0)
        return logits[len(prompt) - 1:].float()
