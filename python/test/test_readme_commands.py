"""Every shell command in README.md and docs/*.md runs as written (issue
46): each ```sh block's commands, from the repository's root, against
this build (`build/` is the build the tests run in; `/tmp/...` output
directories become a temporary directory). docs/tutorial.md's commands
are run by lit/Examples/tutorial.test, and docs/python.md's Python blocks
by test_tutorial.py.

A command this test does not run is in SKIP or COVERED below with its
reason, so a new command is run by default and a skipped one is a
visible decision:
- SKIP: CI's own steps and the runs that need what the suite cannot
  have (a pto-isa checkout), and the benchmarks, which measure and are
  never tests (their binaries must exist);
- COVERED: the `wspc --run` jobs a lit test already runs on the same
  example (the test checks that it does); here they are compiled only, so
  the suite does not run them twice.
"""

import os
import pathlib
import re
import subprocess

import pytest

import wsp

SRC = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(wsp.__file__).resolve().parents[2]
DOCS = [SRC / "README.md"] + sorted(
    p for p in (SRC / "docs").glob("*.md") if p.name != "tutorial.md")

# (pattern, reason): commands not run.
SKIP = [
    (r"^scripts/(run|test|bootstrap)\.sh", "CI's own steps: .ci/run runs the "
     "README's set-up and test commands; inside the suite they would run it "
     "again"),
    (r"^ctest ", "the suite itself"),
    (r"^scripts/check-pto-isa\.sh", "needs a pto-isa checkout (not in CI)"),
    (r"X\.mlir|model\.mlir|still-fails\.sh|chmod ", "a template: X.mlir and "
     "model.mlir are the reader's; test/Tools/wsp-reduce.mlir and "
     "test/Tools/wspc.test run the same commands on real files"),
]
# Benchmarks: the binary must be built; running it is measurement.
BENCH = r"^(mpirun .*)?(build/bench/[\w-]+|\S*bench/python/[\w.]+)"
# `wspc ... --run` on an example a lit test already runs with --run.
COVERED = r"^build/bin/wspc (\S+) .*--run"


def commands():
    """(file, command) per command of every ```sh block: continuation
    lines joined, trailing comments dropped; a block that sets variables
    (export) is one command."""
    for doc in DOCS:
        for block in re.findall(r"```sh\n(.*?)```", doc.read_text(), re.S):
            block = block.replace("\\\n", " ")
            if "export " in block or "<<" in block:
                yield doc.name, block.strip()
                continue
            for line in block.splitlines():
                line = re.sub(r"\s+#\s.*$", "", line).strip()
                if line:
                    yield doc.name, line


CASES = list(commands())


def run(command, tmp_path):
    """Runs `command` from the repository's root against this build."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    # /tmp/ first: the build itself may be under /tmp (a clone there).
    text = command.replace("/tmp/", str(tmp_path) + "/")
    text = text.replace("$PWD/build/", str(BUILD) + "/")
    text = re.sub(r"(?<![\w/])build/", str(BUILD) + "/", text)
    text = text.replace("-o decode_plan", "-o %s/decode_plan" % tmp_path)
    text = text.replace("./decode_plan", "%s/decode_plan" % tmp_path)
    return subprocess.run(["bash", "-ec", text], cwd=SRC, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("doc, command", CASES,
                         ids=["%s:%s" % (d, c[:60]) for d, c in CASES])
def test_command_runs_as_written(doc, command, tmp_path):
    for pattern, reason in SKIP:
        if re.search(pattern, command):
            pytest.skip(reason)
    bench = re.match(BENCH, command)
    if bench:
        path = bench.group(2).replace("build/", str(BUILD) + "/", 1)
        assert pathlib.Path(path if os.path.isabs(path) else SRC / path) \
            .exists(), "%s: %s is not built" % (doc, bench.group(2))
        return
    covered = re.match(COVERED, command)
    if covered:
        example = covered.group(1)
        runs = [t for t in (SRC / "test").rglob("*.test")
                if example in t.read_text() and "--run" in t.read_text()]
        assert runs, "%s: no lit test runs %s with --run" % (doc, example)
        # Compiled here, run by that test.
        command = re.sub(r" --(run|plan-svg \S+|ranks \S+)", "", command)
    result = run(command, tmp_path)
    assert result.returncode == 0, "%s: `%s` failed:\n%s%s" % (
        doc, command, result.stdout[-2000:], result.stderr[-2000:])


def test_commands_were_found():
    # The README's main job and its Python line are among them.
    assert any("decode_attention.mlir -o build/decode_attention --run" in c
               for _, c in CASES)
    assert any("registered_dialects" in c for _, c in CASES)
