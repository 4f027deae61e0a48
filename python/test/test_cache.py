"""The compile cache survives damage and reports the documented errors: a
truncated library or a corrupt program.json in the cache is built again
(never loaded: a truncated library would kill the process), and a missing
compiler, an unusable cache directory or an overlong name raise BuildError
or CompileError."""

import os
import subprocess
import sys

import numpy as np
import pytest

import wsp

# Each test compiles its own variant (the eps differs), so that their
# cache entries are their own; at -O0 (O0), since the builds are these
# tests' cost and the cache is what they check.
NORM = """
func.func @norm(%x: memref<?x256xbf16>, %w: memref<256xf32>, %y: memref<?x256xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x256xbf16>) weight(%w : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {eps = %s : f32}
  return
}
"""


O0 = dict(opt_level=0)


def norm(eps):
    return NORM.replace("%s", eps)


def run(prog):
    x = wsp.to_bf16(np.full((3, 256), 2.0))
    y = np.zeros_like(x)
    result = prog.norm(x, np.ones(256, np.float32), y)
    assert result.ok
    # rms of a row of 2s is 2: every output is 1.
    assert np.all(wsp.from_bf16(y) == 1.0)


def compile_elsewhere(program):
    """Compiles `program` into the cache in another process (which loads
    it, not this one: a library this process has mapped must not be
    truncated under it) and returns the cache entry's directory."""
    return subprocess.run(
        [sys.executable, "-c",
         "import sys, wsp; "
         "print(wsp.compile(sys.stdin.read(), opt_level=0).directory)"],
        input=program, stdout=subprocess.PIPE, text=True,
        check=True).stdout.strip()


def test_a_damaged_entry_is_built_again():
    program = norm("1.0e-06")
    # A truncated library (a full disk, a killed writer): loading it would
    # kill the process with SIGBUS.
    directory = compile_elsewhere(program)
    lib = os.path.join(directory, [n for n in os.listdir(directory)
                                   if n.endswith(".so")][0])
    with open(lib, "r+b") as f:
        f.truncate(os.path.getsize(lib) // 2)
    again = wsp.compile(program, **O0)
    assert not again.cached
    run(again)
    # Whole again: the next compile loads it.
    assert wsp.compile(program, **O0).cached
    # A corrupt program.json.
    with open(os.path.join(directory, "program.json"), "w") as f:
        f.write("{not json")
    again = wsp.compile(program, **O0)
    assert not again.cached
    run(again)
    # An entry without checksums (another version's, or one whose writer
    # died before sealing it).
    os.remove(os.path.join(directory, "checksums.json"))
    assert not wsp.compile(program, **O0).cached


def test_a_missing_compiler_is_a_build_error(monkeypatch):
    monkeypatch.setenv("CXX", "/nonexistent/c++")
    with pytest.raises(wsp.BuildError, match="cannot run the C\\+\\+ compiler"):
        wsp.compile(norm("2.0e-06"))


def test_a_cache_directory_that_is_a_file_is_a_build_error(tmp_path,
                                                           monkeypatch):
    blocker = tmp_path / "cache"
    blocker.write_text("not a directory")
    monkeypatch.setenv("WSP_CACHE_DIR", str(blocker))
    with pytest.raises(wsp.BuildError, match="cannot use the cache directory"):
        wsp.compile(norm("3.0e-06"))


def test_an_overlong_name_is_a_compile_error():
    with pytest.raises(wsp.CompileError, match="at most 128"):
        wsp.compile(norm("4.0e-06"), name="n" * 10000)
