"""The small MoE model of tiny_moe_lm.mlir from Python: its weights, and
greedy generation through the compiled @prefill and @decode.

The model is tiny_lm's (tiny_lm.py) with a sparse MoE block in layer 1:
its dense MLP (``l1_mlp_*``) is the shared expert every token runs, and a
bf16 router over EXPERTS routed experts picks the top TOPK per token, each
expert a SwiGLU MLP of W8A8 projections with its own smoothing scales
(``l1_gate_weight``, ``l1_moe_*``). Everything else, and the way the compiled
functions are driven (a ragged prefill, then @decode_table built once and
replayed token by token), is tiny_lm.py's:

    weights = tiny_moe_lm.draw_weights(seed=2043)
    prog = wsp.compile(pathlib.Path("examples/model/tiny_moe_lm.mlir"))
    model = tiny_moe_lm.Model(prog, weights, batch=3)
    tokens, logits = model.generate([[1, 2, 3], [4, 5], [6]], steps=12,
                                    replay=True)

The PyTorch reference (tiny_lm_torch.py) reads the same weights: a layer
with ``l1_gate_weight`` is an MoE layer there too.
"""

import numpy as np

import tiny_lm
import wsp
from tiny_lm import HIDDEN, INTER, load_weights, save_weights  # noqa: F401

EXPERTS, TOPK = 8, 2
MOE_LAYER = "l1_"


def draw_weights(seed):
    """tiny_lm's weights (layer 1's MLP the shared expert), and layer 1's
    router and routed experts, drawn from their own generator with the
    ranges of tiny_lm's MLP (int8 weights [in, out] with per-channel
    scales, smoothing around 1)."""
    w = tiny_lm.draw_weights(seed)
    rng = np.random.default_rng([seed, 1])

    def f32(shape, lo, hi):
        return rng.uniform(lo, hi, shape).astype(np.float32)

    def i8(shape):
        return rng.integers(-127, 128, shape, dtype=np.int8)

    p = MOE_LAYER
    w.update({
        # The router: logits of a few units, so that the top 2 vary by token.
        p + "gate_weight": wsp.to_bf16(f32((HIDDEN, EXPERTS), -0.3, 0.3)),
        p + "moe_smooth_up": f32((EXPERTS, HIDDEN), 0.5, 2),
        p + "moe_up_weight": i8((EXPERTS, HIDDEN, 2 * INTER)),
        p + "moe_up_scale": f32((EXPERTS, 2 * INTER), 1e-3, 4e-3),
        p + "moe_smooth_down": f32((EXPERTS, INTER), 0.5, 2),
        p + "moe_down_weight": i8((EXPERTS, INTER, HIDDEN)),
        p + "moe_down_scale": f32((EXPERTS, HIDDEN), 1e-3, 4e-3),
    })
    return w


class Model(tiny_lm.Model):
    """The compiled tiny_moe_lm on a batch of `batch` sequences, as
    tiny_lm.Model, with the MoE's buffers in every step: the router's
    logits and choice, and the scattered rows (TOPK per token: every
    (token, choice) once)."""

    def _buffers(self, n, decode):
        b = super()._buffers(n, decode)
        rows = n * TOPK
        b.update(
            router_logits=np.zeros((n, EXPERTS), np.uint16),
            selected_experts=np.zeros((n, TOPK), np.int32),
            expert_weights=np.zeros((n, TOPK), np.float32),
            rows=np.zeros((rows, HIDDEN), np.int8),
            row_scale=np.zeros(rows, np.float32),
            counts=np.zeros(EXPERTS, np.int32),
            token_offset=np.zeros(rows, np.int32),
            moe_gate_up=np.zeros((rows, 2 * INTER), np.uint16),
            moe_act=np.zeros((rows, INTER), np.int8),
            moe_act_scale=np.zeros(rows, np.float32),
            moe_down=np.zeros((rows, HIDDEN), np.uint16))
        return b


def main():
    """python3 examples/model/tiny_moe_lm.py [weights.npz]: draws the
    weights (seed 2043) into the file, generates 16 tokens for three
    prompts with the compiled model (the decode steps replayed from its
    table) and, when torch is installed, with the PyTorch reference
    (tiny_lm_torch.py), and prints both."""
    import sys
    tiny_lm.demo(sys.modules[__name__], "tiny_moe_lm", 2043, (20, 9, 17),
                 replay=True)


if __name__ == "__main__":
    main()
