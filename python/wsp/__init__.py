"""wsp: workload-schedule programming for dynamic LLM inference.

Write a program (:mod:`wsp.ir`, :mod:`wsp.ops`), compile it
(:func:`compile`, :class:`PassManager`, :func:`emit`) and run its CPU
simulation on numpy arrays; compare with the numpy references of
:mod:`wsp.reference`::

    import numpy as np
    import wsp
    from wsp.ir import Module, memref
    from wsp.ops import llm

    m = Module("norms")
    with m.function("final_norm", x=memref([None, 256], "bf16"),
                    w=memref([256], "f32"), y=memref([None, 256], "bf16")) as f:
        llm.rms_norm(hidden_states=f.x, weight=f.w, y=f.y, eps=1e-6)
    prog = wsp.compile(m)
    x = wsp.to_bf16(np.random.randn(8, 256))
    w = np.ones(256, np.float32)
    y = np.zeros_like(x)
    assert prog.final_norm(x, w, y).ok

The compiler runs in-process through the ``_wsp`` extension; every
failure raises :class:`CompileError` with the diagnostics, each at its
source location (for programs built in Python: the Python line).
docs/python.md is the tutorial.
"""


def _python_this_package_needs():
    """What an import failure says: the Python the extension was built for
    (its file's tag) and the Python running."""
    import glob
    import os
    import sys

    built = sorted(os.path.basename(p) for p in glob.glob(
        os.path.join(os.path.dirname(__file__), "_wsp.*.so")))
    tag = built[0].split(".")[1] if built else "an unknown Python"
    return ("wsp is built for %s, with Debian's numpy, under /usr/bin/python3; "
            "this is %s (%s). Run it with /usr/bin/python3 "
            "(scripts/bootstrap.sh installs what it needs)"
            % (tag, sys.executable, sys.version.split()[0]))


try:
    import numpy as _numpy  # noqa: F401
    from ._wsp import (  # noqa: F401
        CompileError,
        parse,
        registered_dialects,
        run_pipeline,
        translate,
        translations,
    )
except ImportError as _error:
    raise ImportError("%s: %s" % (_python_this_package_needs(), _error)) \
        from _error
from . import dtypes, ir, ops, reference  # noqa: F401
from .compiler import (  # noqa: F401
    BuildError,
    CompileWarning,
    CompiledProgram,
    PassManager,
    PlanResult,
    RunResult,
    STATUS_NAMES,
    cache_dir,
    compile,
    emit,
)
from .dtypes import DESCRIPTOR, from_bf16, to_bf16  # noqa: F401

__all__ = [
    "BuildError",
    "CompileWarning",
    "CompileError",
    "CompiledProgram",
    "DESCRIPTOR",
    "PassManager",
    "PlanResult",
    "RunResult",
    "STATUS_NAMES",
    "cache_dir",
    "compile",
    "dtypes",
    "emit",
    "from_bf16",
    "ir",
    "ops",
    "parse",
    "reference",
    "registered_dialects",
    "run_pipeline",
    "to_bf16",
    "translate",
    "translations",
]
