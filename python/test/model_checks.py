"""A small model's greedy generation against its PyTorch reference
(examples/model/tiny_lm_torch.py), shared by test_tiny_lm_torch.py and
test_moe_model.py."""

import numpy as np
import torch


def bf16_ulp(x):
    """One bf16 ulp of |x| (8 significant bits): 2^(floor(log2 |x|) - 7)."""
    return 2.0 ** (torch.floor(torch.log2(x.abs())) - 7)


def generate_replayed_and_called(model_class, prog, weights, prompts,
                                 steps):
    """Generates `steps` tokens after the prompts twice, replayed from the
    program's step table and calling @decode every token, and asserts the
    two bit-identical (tokens, logits, caches). Returns the replayed run's
    (tokens, logits)."""
    model = model_class(prog, weights, batch=len(prompts))
    tokens, logits = model.generate(prompts, steps, replay=True)
    called = model_class(prog, weights, batch=len(prompts))
    tokens_c, logits_c = called.generate(prompts, steps)
    np.testing.assert_array_equal(tokens, tokens_c)
    np.testing.assert_array_equal(logits.view(np.uint32),
                                  logits_c.view(np.uint32))
    for name, cache in model.caches.items():
        np.testing.assert_array_equal(cache, called.caches[name])
    return tokens, logits


def compare_greedy(ref, prompts, tokens, logits, tolerance):
    """For each prompt b: the reference teacher-forced on wsp's tokens
    (tokens[b], logits[:, b] the logits each pick was made from) has every
    logit within `tolerance` bf16 ulps of its row's largest, so a pick
    whose reference margin (top 1 minus top 2) exceeds 2 x `tolerance`
    ulps is the reference's pick: asserted; free-running, the reference
    produces the same tokens up to its first pick within that margin.
    Returns a dict: total picks, decisive ones, picks that agree,
    free-running tokens the same, the largest logit difference in ulps,
    the margins in ulps."""
    generated = tokens.shape[1]
    out = dict(total=len(prompts) * generated, decisive=0, agree=0,
               free_running=0, worst=0.0, margins=[])
    for b, prompt in enumerate(prompts):
        forced = ref.score(prompt, tokens[b])
        got = torch.from_numpy(logits[:, b])
        peak = forced.abs().amax(-1)
        top2 = forced.topk(2, -1).values
        margin = (top2[:, 0] - top2[:, 1]) / bf16_ulp(peak)
        err = ((got - forced).abs().amax(-1) / bf16_ulp(peak)).max().item()
        out["worst"] = max(out["worst"], err)
        assert err <= tolerance, "sequence %d: logits %.3f ulps apart" % (
            b, err)
        decisive = margin > 2 * tolerance
        picks = torch.from_numpy(tokens[b]).long()
        same = picks == forced.argmax(-1)
        assert same[decisive].all(), (
            "sequence %d: picks differ at steps %s with margins %s ulps" % (
                b, torch.nonzero(decisive & ~same).flatten().tolist(),
                margin[decisive & ~same].tolist()))
        out["decisive"] += int(decisive.sum())
        out["agree"] += int(same.sum())
        out["margins"] += margin.tolist()
        own, _ = ref.generate(prompt, generated - 1)
        first_close = (int(torch.nonzero(~decisive)[0]) if
                       (~decisive).any() else generated)
        assert torch.equal(own[:first_close], picks[:first_close])
        out["free_running"] += int((own == picks).cumprod(0).sum())
    return out
