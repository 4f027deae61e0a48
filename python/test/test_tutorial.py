"""docs/python.md runs as written: its Python blocks, in order, as one
script (their own asserts check the results)."""

import contextlib
import io
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_tutorial_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.setenv("WSP_CACHE_DIR", str(tmp_path / "cache"))
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 6
    scope = {"__name__": "tutorial"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for i, block in enumerate(blocks):
            exec(compile(block, "%s block %d" % (DOC.name, i + 1), "exec"),
                 scope)
    text = out.getvalue()
    # What the text says the blocks print.
    assert "llm.rms_norm hidden_states(" in text
    assert "'weight' has hidden_size = 128" in text
    assert "CompiledProgram(norms: pre_attention_norm)" in text
    assert "RunResult(OK, Report(48 cores" in text
    assert "rms_norm matches its reference" in text
    assert "must have dtype uint16 (bf16 bits), not float32" in text
    assert "INVALID_PARAMS" in text
    assert "convert-llm-to-wsp" in text
    assert "['@softmax_rows_tier0 (tier 0): on chip UB 8256/196608']" in text
    assert "RunResult(OK, Report(8 cores, 19 descriptors" in text
    assert "softmax matches its reference" in text
    assert "must be a torch.bfloat16 tensor, not torch.float32" in text
    assert "wsp::pre_attention_norm(Tensor(a0!) hidden_states" in text
    assert "wsp::pre_attention_norm returned INVALID_PARAMS" in text
