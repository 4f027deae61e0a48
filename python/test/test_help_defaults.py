"""`wsp-opt --help` gives every wsp pass option's default (issue 46), and
the default it gives is the one the pass has: each option line of a wsp
pass must end its description with "(default X)", and X must be what
`--dump-pass-pipeline` prints for the pass built with no options. A
default changed in Passes.td without its description fails here."""

import pathlib
import re
import subprocess

import wsp

BUILD = pathlib.Path(wsp.__file__).resolve().parents[2]
WSP_OPT = BUILD / "bin" / "wsp-opt"
# The passes wsp registers (MLIR's own are not checked).
OURS = re.compile(r"^(wsp-|tile-|llm-|convert-llm-)")


def help_options():
    """{pass: {option: stated default or None}} from --help."""
    text = subprocess.run([str(WSP_OPT), "--help"], capture_output=True,
                          text=True, check=True).stdout
    passes, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^      --([\w-]+)\s+-   ", line)
        if m:
            current = m.group(1) if OURS.match(m.group(1)) else None
            if current:
                passes[current] = {}
            continue
        m = re.match(r"^        --([\w-]+)(=<\w+>)?\s+- (.*)$", line)
        if m and current:
            d = re.search(r"\(default ([^,;)\s]+)", m.group(3)) or \
                re.search(r"; default ([^,;)\s]+)\)$", m.group(3))
            passes[current][m.group(1)] = d.group(1) if d else None
    return passes


def actual_defaults(name):
    """{option: value} of pass `name` built with no options."""
    out = subprocess.run(
        [str(WSP_OPT), "--pass-pipeline=builtin.module(%s)" % name,
         "--dump-pass-pipeline", "-o", "/dev/null"], input="module {}",
        capture_output=True, text=True, check=True)
    text = out.stdout + out.stderr
    m = re.search(re.escape(name) + r"\{([^}]*)\}", text)
    return dict(kv.split("=", 1) for kv in m.group(1).split()) if m else {}


def test_every_wsp_pass_option_states_its_true_default():
    passes = help_options()
    assert "tile-pipeline" in passes and "wsp-tier-coverage" in passes
    checked = 0
    for name, options in sorted(passes.items()):
        if not options or name == "wsp-pipeline":
            continue  # a pipeline: its options are not a pass's
        actual = actual_defaults(name)
        for option, stated in options.items():
            assert stated is not None, (
                "%s --%s: its --help line gives no default" % (name, option))
            assert actual.get(option) == stated, (
                "%s --%s: --help says %s, the pass has %s" % (
                    name, option, stated, actual.get(option)))
            checked += 1
    assert checked >= 12, checked
