"""wsp: workload-schedule programming for dynamic LLM inference.

The compiler runs in-process through the ``_wsp`` extension::

    import wsp
    text = wsp.parse(source)                       # parse + verify
    text = wsp.run_pipeline(source, "builtin.module(canonicalize)")
    header = wsp.translate(source, "wsp-tier-configs-to-cpp")

Every failure raises :class:`wsp.CompileError` with the compiler's
diagnostics (locations included) in its message.
"""

from ._wsp import (  # noqa: F401
    CompileError,
    parse,
    registered_dialects,
    run_pipeline,
    translate,
    translations,
)

__all__ = [
    "CompileError",
    "parse",
    "registered_dialects",
    "run_pipeline",
    "translate",
    "translations",
]
