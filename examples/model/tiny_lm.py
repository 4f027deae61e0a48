"""The small model of tiny_lm.mlir from Python: its weights in one .npz
file, and greedy generation through the compiled @prefill and @decode.

tiny_lm.hpp is the C++ side of the same model (the self-check draws its
weights with std::mt19937); this file draws them with numpy, saves them to
a file the PyTorch reference (tiny_lm_torch.py) reads too, and drives the
compiled program on the arrays it loads:

    weights = tiny_lm.draw_weights(seed=2041)
    tiny_lm.save_weights("tiny_lm.npz", weights)
    prog = wsp.compile(pathlib.Path("examples/model/tiny_lm.mlir"))
    model = tiny_lm.Model(prog, tiny_lm.load_weights("tiny_lm.npz"), batch=2)
    tokens, logits = model.generate([[1, 2, 3], [4, 5]], steps=12)

or ``python3 examples/model/tiny_lm.py [weights.npz]``, which does that and
prints the PyTorch reference's tokens beside the compiled model's.

The file's arrays are named as @decode's arguments (``embedding``,
``l0_qkv_weight``, ``sin``...), each in the element type the program
takes; bf16 ones are their bits in ``uint16`` (wsp.to_bf16): every
``uint16`` array of the file is bf16.
"""

import numpy as np

import wsp

VOCAB, HIDDEN, LAYERS = 1024, 256, 2
Q_HEADS, KV_HEADS, HEAD_DIM = 4, 1, 64
QKV = (Q_HEADS + 2 * KV_HEADS) * HEAD_DIM  # 384: Q, K and V heads packed
INTER = 64                                  # the MLP's gate and up: 2 x 64
BLOCK = 16                                  # positions per KV cache page
PAGES = 4                                   # pages per sequence
POSITIONS = PAGES * BLOCK                   # a sequence's capacity: 64
EPS = 1e-6


def rope_tables(positions=POSITIONS, dim=HEAD_DIM):
    """NeoX rotary tables [positions, dim] as bf16 bits (sin, cos): the
    angle of column i at position p is p * 10000^(-2 (i mod dim/2) / dim),
    as attention_block.hpp's ropeTables."""
    p = np.arange(positions, dtype=np.float64)[:, None]
    i = np.arange(dim) % (dim // 2)
    theta = p * 10000.0 ** (-2.0 * i / dim)
    return (wsp.to_bf16(np.sin(theta).astype(np.float32)),
            wsp.to_bf16(np.cos(theta).astype(np.float32)))


def draw_weights(seed):
    """The model's weights from a seeded generator, with the ranges
    tiny_lm.hpp draws from (int8 weights in [-127, 127] with per-channel
    scales, smoothing and norm weights around 1), and the rope tables."""
    rng = np.random.default_rng(seed)

    def f32(shape, lo, hi):
        return rng.uniform(lo, hi, shape).astype(np.float32)

    def bf16(shape, lo, hi):
        return wsp.to_bf16(f32(shape, lo, hi))

    def i8(shape):
        return rng.integers(-127, 128, shape, dtype=np.int8)

    w = {"embedding": bf16((VOCAB, HIDDEN), -2, 2),
         "lm_head": bf16((HIDDEN, VOCAB), -0.25, 0.25),
         "final_norm_weight": f32(HIDDEN, 0.5, 1.5)}
    for layer in range(LAYERS):
        p = "l%d_" % layer
        w.update({
            p + "norm_weight": bf16(HIDDEN, 0.5, 1.5),
            p + "smooth_scale": f32(HIDDEN, 0.5, 1.5),
            p + "qkv_weight": i8((QKV, HIDDEN)),          # [out, in]
            p + "qkv_scale": f32(QKV, 0.002, 0.01),
            p + "qk_norm_weight": f32((Q_HEADS + KV_HEADS, HEAD_DIM), 0.5,
                                      1.5),
            p + "o_smooth": f32(Q_HEADS * HEAD_DIM, 0.5, 1.5),
            p + "o_weight": i8((HIDDEN, Q_HEADS * HEAD_DIM)),  # [out, in]
            p + "o_scale": f32(HIDDEN, 0.002, 0.01),
            p + "post_norm_weight": f32(HIDDEN, 0.5, 1.5),
            p + "mlp_smooth_up": f32(HIDDEN, 0.5, 2),
            p + "mlp_up_weight": i8((HIDDEN, 2 * INTER)),     # [in, out]
            p + "mlp_up_scale": f32(2 * INTER, 1e-3, 4e-3),
            p + "mlp_smooth_down": f32((1, INTER), 0.5, 2),
            p + "mlp_down_weight": i8((INTER, HIDDEN)),       # [in, out]
            p + "mlp_down_scale": f32(HIDDEN, 1e-3, 4e-3),
        })
    w["sin"], w["cos"] = rope_tables()
    return w


def save_weights(path, weights):
    """One uncompressed .npz: every array by its argument name."""
    np.savez(path, **weights)


def load_weights(path):
    with np.load(path) as f:
        return {name: f[name] for name in f.files}


class Model:
    """The compiled tiny_lm (wsp.compile of tiny_lm.mlir) on a batch of
    `batch` sequences: the weights it is given (numpy arrays or CPU
    tensors, passed as they are), a paged KV cache per layer whose pages
    are dealt to the sequences at random, and greedy generation."""

    def __init__(self, program, weights, batch, seed=0):
        self.program = program
        self.weights = weights
        self.batch = batch
        pool = batch * PAGES
        self.caches = {
            "l%d_%s_cache" % (layer, kv): np.zeros(
                (pool, KV_HEADS, BLOCK, HEAD_DIM), np.uint16)
            for layer in range(LAYERS) for kv in "kv"}
        pages = np.random.default_rng(seed).permutation(pool)
        self.block_table = pages.reshape(batch, PAGES).astype(np.int32)
        self.kv_ids = np.arange(batch, dtype=np.int32)

    def _buffers(self, n, decode):
        """A step's buffers for n token rows."""
        def bf16(*shape):
            return np.zeros(shape, np.uint16)

        b = {name: bf16(n, HIDDEN) for name in (
            "zeros", "x", "after_res", "y", "h", "layer_residual", "out",
            "final_h", "final_res")}
        b.update(
            qkv=bf16(n, QKV),
            attn=bf16(n, 1, Q_HEADS, HEAD_DIM) if decode
            else bf16(n, Q_HEADS, HEAD_DIM),
            gate_up=bf16(n, 2 * INTER), logits=bf16(n, VOCAB),
            x8=np.zeros((n, HIDDEN), np.int8),
            attn8=np.zeros((n, Q_HEADS * HEAD_DIM), np.int8),
            h8=np.zeros((n, HIDDEN), np.int8),
            act=np.zeros((n, INTER), np.int8),
            all_tokens=np.array([n], np.int32))
        for name in ("per_token_scale", "attn_scale", "h_scale", "act_scale"):
            b[name] = np.zeros(n, np.float32)
        return b

    def _args(self, function, values):
        """The function's arguments by name: the weights, the caches and
        the step's values."""
        names = {a.name for a in self.program[function].args
                 if a.workspace is None}
        args = {k: v for k, v in self.weights.items() if k in names}
        args.update(self.caches, block_table=self.block_table,
                    kv_ids=self.kv_ids)
        args.update(values)
        return args

    def _run(self, function, values):
        result = self.program[function](**self._args(function, values))
        if not result.ok:
            raise RuntimeError("%s: %r" % (function, result))

    def generate(self, prompts, steps, replay=False):
        """Greedy generation: the prompts (one list of token ids per
        sequence) prefilled in one step, then `steps` tokens decoded one
        step at a time: by calling @decode every token, or, with `replay`,
        by building @decode_table once and replaying it token by token
        (seed 004: the table patches each token's row of the token buffer
        and advances the positions and KV lengths itself). Returns
        (tokens [batch, steps + 1]: each sequence's generated tokens, the
        prefill's pick first; logits [steps + 1, batch, VOCAB] as float32:
        the logits each pick was made from)."""
        assert len(prompts) == self.batch
        lens = np.array([len(p) for p in prompts], np.int32)
        assert lens.min() >= 1 and lens.max() + steps <= POSITIONS
        flat = np.concatenate([np.asarray(p, np.int32) for p in prompts])
        n = len(flat)
        picks = np.zeros(n, np.int32)
        pre = self._buffers(n, decode=False)
        self._run("prefill", dict(
            pre, tokens=flat, next_tokens=picks,
            position_ids=np.zeros(self.batch, np.int32),
            kv_lens=np.zeros(self.batch, np.int32), q_lens=lens))
        last = np.cumsum(lens) - 1
        tokens = np.zeros((steps + 1, self.batch), np.int32)
        tokens[0] = picks[last]
        logits = [wsp.from_bf16(pre["logits"][last])]
        step = self._buffers(self.batch, decode=True)
        kv_lens = lens.copy()
        if replay and steps:
            # Built on row 0 of the token buffer (and its picks on row 1);
            # replay t reads row t and writes row t + 1.
            table = self.program.decode_table.build(**self._args(
                "decode", dict(
                    step, tokens=tokens[0], next_tokens=tokens[1],
                    position_ids=kv_lens.copy(), kv_lens=kv_lens,
                    q_lens=np.ones(self.batch, np.int32),
                    accum_q_len=np.arange(self.batch + 1, dtype=np.int32))),
                max_tokens=steps, kv_capacity=POSITIONS)
            with table:
                for t in range(steps):
                    result = table.replay(t)
                    if not result.ok:
                        raise RuntimeError("decode_table: %r" % result)
                    logits.append(wsp.from_bf16(step["logits"]))
            return tokens.T.copy(), np.stack(logits)
        for t in range(steps):
            self._run("decode", dict(
                step, tokens=tokens[t], next_tokens=tokens[t + 1],
                position_ids=kv_lens.copy(), kv_lens=kv_lens,
                q_lens=np.ones(self.batch, np.int32),
                accum_q_len=np.arange(self.batch + 1, dtype=np.int32)))
            logits.append(wsp.from_bf16(step["logits"]))
            kv_lens += 1
        return tokens.T.copy(), np.stack(logits)


def demo(model, name, seed, prompt_lens, replay=False):
    """The examples' main: draws `model`'s weights (its draw_weights, from
    `seed`) into the file named on the command line (default <name>.npz),
    generates 16 tokens for prompts of `prompt_lens` tokens with the
    compiled <name>.mlir (its Model; the decode steps replayed from the
    table with `replay`) and, when torch is installed, with the PyTorch
    reference (tiny_lm_torch.py), and prints both."""
    import os
    import pathlib
    import sys
    here = pathlib.Path(__file__).resolve().parent
    path = sys.argv[1] if len(sys.argv) > 1 else name + ".npz"
    save_weights(path, model.draw_weights(seed))
    rng = np.random.default_rng(seed)
    prompts = [rng.integers(0, VOCAB, n).tolist() for n in prompt_lens]
    prog = wsp.compile(here / (name + ".mlir"))
    tokens, _ = model.Model(prog, load_weights(path), len(prompts)).generate(
        prompts, 15, replay=replay)
    try:
        sys.path.insert(0, str(here))
        import tiny_lm_torch
        ref = tiny_lm_torch.TinyLM.from_npz(path)
    except ImportError:
        ref = None
    for b, prompt in enumerate(prompts):
        print("prompt %s\n  wsp     %s" % (prompt, tokens[b].tolist()))
        if ref is not None:
            print("  PyTorch %s" % ref.generate(prompt, 15)[0].tolist())
    print("weights: %s" % os.path.abspath(path))


def main():
    """python3 examples/model/tiny_lm.py [weights.npz]: draws the weights
    (seed 2041) into the file, generates 16 tokens for three prompts with
    the compiled model and, when torch is installed, with the PyTorch
    reference (tiny_lm_torch.py), and prints both."""
    import sys
    demo(sys.modules[__name__], "tiny_lm", 2041, (5, 9, 2))


if __name__ == "__main__":
    main()
