"""Compiling wsp programs and running their CPU simulation on numpy arrays.

    prog = wsp.compile(module)             # a wsp.ir.Module or IR text
    result = prog.final_norm(x, w, y)       # numpy arrays (or CPU torch
                                            # tensors), no copies
    result.status, result.report            # PlanResult, the launch report

:func:`compile` runs the wsp pipeline in-process, emits the tree `wspc`
writes, and builds the CPU-simulation program with its C entry points into
a shared library with the host C++ compiler. Libraries are cached under
``$WSP_CACHE_DIR`` (default ``~/.cache/wsp``), keyed by the program text,
the options, the compiler command and the wsp build, so an unchanged
program is loaded, not rebuilt.

Element types: f32, f64, i8, i16, i32, i64 and f16 are numpy's own; bf16
has no numpy type and travels as its 16 bits in ``np.uint16`` (see
:mod:`wsp.dtypes`); work descriptors are :data:`wsp.dtypes.DESCRIPTOR`.
"""

import ctypes
import enum
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings

import numpy as np

from . import _wsp
from .ir import at_user_lines
from .dtypes import numpy_dtype

__all__ = ["PassManager", "compile", "emit", "CompiledProgram", "Function",
           "RunResult", "Report", "CoreReport", "PlanResult", "STATUS_NAMES"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
#: The layout of the C entry points this package calls
#: (lib/Target/Cpp/CApi.cpp): each call takes its own handle.
_CAPI_VERSION = 2
RUNTIME_INCLUDE = os.path.join(_PACKAGE_DIR, "include")

#: The spec's PlanResult codes (OK, BUFFER_OVERFLOW, UNSUPPORTED_SIZE,
#: INVALID_PARAMS), as the dialect's PlanResult enum declares them.
PlanResult = enum.IntEnum(
    "PlanResult", [(name, code) for code, name in
                   enumerate(_wsp.plan_result_names())])
PlanResult.__doc__ = "The spec's PlanResult codes: a planning function's status."
#: The name of each PlanResult code.
STATUS_NAMES = {int(code): code.name for code in PlanResult}


def _source(program):
    """(text, filename) of a Module, IR text, or a path to a .mlir file."""
    from .ir import GENERATED, Module
    if isinstance(program, Module):
        return str(program), GENERATED
    if isinstance(program, os.PathLike):
        with open(program) as f:
            return f.read(), os.fspath(program)
    if not isinstance(program, str):
        raise TypeError("expected a wsp.ir.Module, IR text or a path, got %r"
                        % type(program).__name__)
    return program, "<string>"


class PassManager:
    """A pass pipeline as an object: add passes (or a whole named
    pipeline), run it on a program, and look at what each pass did.

        pm = wsp.PassManager()
        pm.add("convert-llm-to-wsp").add("canonicalize")
        out = pm.run(module, print_ir_after_each=True)
        for p in out.passes: print(p["pass"], p["seconds"], p["ops"])

    Passes are given as wsp-opt spells them, options included
    (``"wsp-pipeline{target=cpusim}"``); nested anchors too
    (``"func.func(cse)"``)."""

    def __init__(self, *passes):
        self.passes = []
        for p in passes:
            self.add(p)

    def add(self, pass_text):
        """Appends a pass; returns the manager."""
        if not isinstance(pass_text, str) or not pass_text.strip():
            raise ValueError("a pass is its wsp-opt name, e.g. 'canonicalize'")
        self.passes.append(pass_text.strip())
        return self

    @property
    def pipeline(self):
        """The textual pipeline, ``builtin.module(...)``."""
        return "builtin.module(%s)" % ",".join(self.passes)

    def run(self, program, record=True, print_ir_after_each=False):
        """Runs the pipeline; returns a :class:`PipelineResult` (``.ir``,
        ``.passes``: per pass its name, anchor, seconds, op count and, when
        asked, the IR after it). Recording runs the passes on one thread,
        so the records come in the order the passes ran; ``record=False``
        runs them as ``wsp-opt`` does, nested ones in parallel."""
        text, filename = _source(program)
        out = _wsp.run_passes(text, self.pipeline, filename=filename,
                              record=record or print_ir_after_each,
                              print_ir=print_ir_after_each)
        return PipelineResult(out["ir"], out["passes"])

    def __repr__(self):
        return "PassManager(%s)" % self.pipeline


class PipelineResult:
    """What :meth:`PassManager.run` returns."""

    def __init__(self, ir, passes):
        self.ir = ir
        self.passes = passes

    def timing(self):
        """Seconds per pass name, summed over the anchors it ran on."""
        total = {}
        for p in self.passes:
            total[p["pass"]] = total.get(p["pass"], 0.0) + p["seconds"]
        return total

    def __str__(self):
        return self.ir


def emit(program, directory=None, target="cpusim", static_planning=True,
         name=None):
    """Compiles `program` to the emitted tree (`wspc -o DIR` without the
    CMake project): returns {relative path: text}, and writes the files
    under `directory` when given (nothing is written when compilation
    fails)."""
    text, filename = _source(program)
    with at_user_lines(text):
        out = _wsp.compile_program(text, filename=filename, target=target,
                                   static_planning=static_planning,
                                   stem=name or "")
    if directory is not None:
        for path, body in out["files"].items():
            full = os.path.join(directory, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(body)
    return dict(out["files"])


def _cxx():
    return shlex.split(os.environ.get("CXX", "") or "c++")


_BUILD_FINGERPRINT = None


def _build_fingerprint():
    """What else a compiled library depends on: the extension (the
    compiler) and the runtime headers."""
    global _BUILD_FINGERPRINT
    if _BUILD_FINGERPRINT is None:
        h = hashlib.sha256()
        h.update(open(_wsp.__file__, "rb").read())
        for root, _, files in sorted(os.walk(RUNTIME_INCLUDE)):
            for name in sorted(files):
                with open(os.path.join(root, name), "rb") as f:
                    h.update(name.encode() + f.read())
        _BUILD_FINGERPRINT = h.hexdigest()
    return _BUILD_FINGERPRINT


def cache_dir():
    """Where compiled programs are kept (``$WSP_CACHE_DIR`` or
    ``~/.cache/wsp``)."""
    return os.environ.get("WSP_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "wsp")


#: A cache entry's file of checksums: the sha256 of each of its files,
#: written last, checked before anything of the entry is loaded.
_CHECKSUMS = "checksums.json"


def _digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _seal(directory):
    """Writes `directory`'s checksums (its last file)."""
    sums = {name: _digest(os.path.join(directory, name))
            for name in sorted(os.listdir(directory))
            if os.path.isfile(os.path.join(directory, name))}
    with open(os.path.join(directory, _CHECKSUMS), "w") as f:
        json.dump(sums, f, indent=1)


def _intact(directory):
    """Whether a cache entry is whole: its checksums file parses and each
    file it lists has its digest (a truncated library or a corrupt
    program.json does not)."""
    try:
        with open(os.path.join(directory, _CHECKSUMS)) as f:
            sums = json.load(f)
        return (isinstance(sums, dict) and "program.json" in sums and
                all(_digest(os.path.join(directory, name)) == digest
                    for name, digest in sums.items()))
    except (OSError, ValueError):
        return False


def _discard(directory):
    """Removes a damaged cache entry: renamed aside first (atomic), so that
    no other process loads it while it is being deleted."""
    aside = directory + ".damaged-%d" % os.getpid()
    try:
        os.replace(directory, aside)
    except OSError:
        return
    shutil.rmtree(aside, ignore_errors=True)


def compile(program, name=None, static_planning=True, opt_level=2,
            cache=True):
    """Compiles `program` (a :class:`wsp.ir.Module`, IR text or a path)
    for the CPU simulation and loads it: returns a
    :class:`CompiledProgram` whose functions take numpy arrays.

    Raises wsp.CompileError with the compiler's diagnostics (each at its
    source location) when the program (or `name`) is invalid, and
    wsp.BuildError when the emitted code cannot be built: the C++
    compiler's output, a compiler that is missing (``$CXX``), a cache
    directory that cannot be written. A cached build is checked against
    its checksums before it is loaded, and built again when it is damaged."""
    text, filename = _source(program)
    flags = ["-std=c++17", "-O%d" % opt_level, "-shared", "-fPIC",
             "-D__CPU_SIM", "-Wall", "-Wextra", "-pthread"]
    key = hashlib.sha256(json.dumps(
        [text, name, static_planning, _cxx() + flags,
         _build_fingerprint()]).encode()).hexdigest()[:32]
    root = cache_dir()
    final = os.path.join(root, key)
    if cache and os.path.isdir(final):
        if _intact(final):
            return CompiledProgram(final, cached=True)
        _discard(final)
    with at_user_lines(text):
        out = _wsp.compile_program(text, filename=filename, target="cpusim",
                                   static_planning=static_planning,
                                   stem=name or "")
    try:
        os.makedirs(root, exist_ok=True)
        work = tempfile.mkdtemp(prefix="build-", dir=root)
    except OSError as e:
        raise BuildError("cannot use the cache directory %s (set "
                         "WSP_CACHE_DIR): %s" % (root, e)) from None
    try:
        for path, body in out["files"].items():
            full = os.path.join(work, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(body)
        stem = out["stem"]
        lib = os.path.join(work, "lib%s.so" % stem)
        command = _cxx() + flags + [
            "-I", RUNTIME_INCLUDE, "-I", os.path.join(work, "include"),
            os.path.join(work, "cpusim", stem + "_capi.cpp"), "-o", lib]
        try:
            proc = subprocess.run(command, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        except OSError as e:
            raise BuildError("cannot run the C++ compiler %r (set CXX): %s"
                             % (" ".join(_cxx()), e)) from None
        if proc.returncode != 0:
            raise BuildError("building %s failed (%s):\n%s" % (
                stem, " ".join(shlex.quote(c) for c in command),
                proc.stdout))
        meta = json.loads(out["signatures"])
        meta["library"] = os.path.basename(lib)
        meta["kernels"] = out["kernels"]
        meta["warnings"] = proc.stdout
        meta["compile_warnings"] = list(out["warnings"])
        with open(os.path.join(work, "lowered.mlir"), "w") as f:
            f.write(out["lowered"])
        with open(os.path.join(work, "program.json"), "w") as f:
            json.dump(meta, f, indent=1)
        _seal(work)
        if not cache:
            return CompiledProgram(work, cached=False, owned=True)
        try:
            os.replace(work, final)
        except OSError:
            # Another process got there first: use its copy.
            shutil.rmtree(work, ignore_errors=True)
        return CompiledProgram(final, cached=False)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


class BuildError(RuntimeError):
    """The emitted C++ did not build (the message has the compiler's
    output)."""


class CompileWarning(UserWarning):
    """What the compiler warns about, at its location (a gap between a
    tier configuration's tiers: lengths every call refuses)."""


class CoreReport:
    """What one simulated core did in a dispatch."""

    KINDS = {0: "cube", 1: "vector", 2: "mix"}

    def __init__(self, values, tiers):
        self.group = int(values[0])
        self.kind = self.KINDS.get(int(values[1]), "unknown")
        self.block_idx = int(values[2])
        self.descriptors = int(values[3])
        self.cost = int(values[4])
        self.busy_us = values[5] / 1000.0
        self.per_tier = {t: int(n) for t, n in enumerate(values[6:6 + tiers])
                         if n}

    def __repr__(self):
        return ("CoreReport(block %d, %s, %d descriptors, cost %d, tiers %s)"
                % (self.block_idx, self.kind, self.descriptors, self.cost,
                   self.per_tier))


class Report:
    """The launch report of the last dispatch of a call: per core, the
    descriptors it ran, their modeled cost and the tiers they took."""

    def __init__(self, cores):
        self.cores = cores

    @property
    def descriptors(self):
        return sum(c.descriptors for c in self.cores)

    @property
    def per_tier(self):
        """Descriptors per tier id, over all cores."""
        total = {}
        for c in self.cores:
            for t, n in c.per_tier.items():
                total[t] = total.get(t, 0) + n
        return dict(sorted(total.items()))

    @property
    def load(self):
        """Modeled cost per core, in core order."""
        return [c.cost for c in self.cores]

    def balance(self):
        """The busiest core's cost over the mean (1.0 is perfect)."""
        total = sum(self.load)
        if not self.cores or total == 0:
            return 1.0
        return max(self.load) * len(self.cores) / total

    def __repr__(self):
        return "Report(%d cores, %d descriptors, tiers %s, balance %.3f)" % (
            len(self.cores), self.descriptors, self.per_tier, self.balance())


#: A plan chart's file name: plan_<n>.svg or plan_<n>-<call>.svg.
_CHART_NAME = re.compile(r"plan_(\d+)(?:-.*)?\.svg$")


class RunResult:
    """What a call returns: the PlanResult code (a function's i32 result;
    0 for functions without one), its name, the report when one was asked
    for, `value`, a function's other scalar result (else None), and
    `plan_charts`, when asked for: the SVG Gantt chart of each plan the
    call made or dispatched, in order (pto/runtime/plan_svg.hpp: a
    balanced plan in the planner's modeled cost, a dispatch of the spec's
    or the MoE planner's descriptors in tokens, each titled by the function
    and its call), and `fault`: when a
    kernel stopped the call (a tile load or store, or a page, outside its
    memory; the status is then INVALID_PARAMS), what it would have touched,
    else None."""

    def __init__(self, status, report, value=None, plan_charts=None,
                 fault=None):
        self.status = status
        self.name = STATUS_NAMES.get(status, "UNKNOWN")
        self.report = report
        self.value = value
        self.plan_charts = plan_charts
        self.fault = fault

    @property
    def ok(self):
        return self.status == PlanResult.OK

    def __repr__(self):
        return "RunResult(%s%s%s%s)" % (
            self.name, "" if self.value is None else ", value %r" % self.value,
            ", %r" % self.report if self.report else "",
            "" if self.fault is None else ", fault %r" % self.fault)


class _Arg:
    def __init__(self, spec):
        self.name = spec["name"]
        self.type = spec["type"]
        self.memref = spec["memref"]
        self.dtype = numpy_dtype(spec["dtype"])
        self.dtype_name = spec["dtype"]
        self.shape = spec.get("shape")
        self.workspace = spec.get("workspace")
        self.ctype = {np.dtype(np.int64): ctypes.c_int64,
                      np.dtype(np.int32): ctypes.c_int32,
                      np.dtype(np.int16): ctypes.c_int16,
                      np.dtype(np.int8): ctypes.c_int8,
                      np.dtype(np.float32): ctypes.c_float,
                      np.dtype(np.float64): ctypes.c_double,
                      np.dtype(np.bool_): ctypes.c_bool}.get(self.dtype)


def _from_torch(function, values):
    """A call's values with each torch tensor replaced by the numpy view
    of its memory (wsp.torch.as_array). torch stays optional: in a process
    that never imported it, no value is a tensor."""
    torch = sys.modules.get("torch")
    if torch is None or not any(isinstance(v, torch.Tensor) for v in values):
        return values
    from .torch import _as_arrays
    return _as_arrays(function, values)


class Function:
    """One public function of a compiled program. Call it with numpy arrays
    or CPU torch tensors (positionally or by argument name; see wsp.torch);
    workspaces (``llm.workspace``) may be left out and are then allocated
    once per thread and reused by that thread's calls.

    Calls from several threads at once are safe: a call's argument arrays,
    workspaces, launch report and plan charts are its own (the arrays it is
    given are the caller's to keep apart)."""

    def __init__(self, program, spec):
        self.program = program
        self.name = spec["name"]
        self.args = [_Arg(a) for a in spec["args"]]
        self._index = {a.name: i for i, a in enumerate(self.args)}
        self._entry = getattr(program._lib, "wsp_capi_" + self.name)
        self._entry.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                ctypes.POINTER(ctypes.c_int64),
                                ctypes.c_void_p]
        self._entry.restype = ctypes.c_int32
        # Each thread's workspaces (a thread runs one call at a time).
        self._local = threading.local()
        # A scalar result other than the i32 status comes back through one
        # more pointer after the arguments.
        self.result = _Arg(dict(spec["result"], name="result",
                                memref=False)) if "result" in spec else None
        # The types of a call's pointer and size arrays; each call makes
        # its own.
        self._pointers_type = ctypes.c_void_p * (len(self.args) + 1)
        rank = sum(len(a.shape) for a in self.args if a.memref)
        self._sizes_type = ctypes.c_int64 * max(1, rank)
        self.__doc__ = "%s(%s) -> RunResult" % (self.name, ", ".join(
            "%s: %s" % (a.name, a.type) for a in self.args))

    def signature(self):
        """(name, MLIR type, workspace or None) per argument."""
        return [(a.name, a.type, a.workspace) for a in self.args]

    def _bind(self, args, kwargs):
        if len(args) > len(self.args):
            raise TypeError("%s takes %d arguments, got %d" % (
                self.name, len(self.args), len(args)))
        values = list(args) + [None] * (len(self.args) - len(args))
        for k, v in kwargs.items():
            i = self._index.get(k)
            if i is None:
                raise TypeError("%s has no argument %r (it has %s)" % (
                    self.name, k, ", ".join(a.name for a in self.args)))
            if i < len(args):
                raise TypeError("%s: argument %s given twice" % (self.name,
                                                                  k))
            values[i] = v
        return _from_torch(self, values)

    def _workspace(self, a):
        """The calling thread's workspace `a`, made on its first call."""
        spaces = self._local.__dict__.setdefault("workspaces", {})
        if a.name not in spaces:
            if any(d < 0 for d in a.shape):
                raise ValueError("%s: workspace %s (%s) has a dynamic size; "
                                 "pass it" % (self.name, a.name, a.type))
            spaces[a.name] = np.zeros(a.shape, a.dtype)
        return spaces[a.name]

    def _pack(self, args, kwargs):
        """A call's own arguments as the C entry point takes them: its
        pointer and size arrays, the objects they point into (kept alive
        until the call returns) and the scalar result's place (or None).
        Each call packs its own: another thread's call may be packing or
        running at the same time."""
        values = self._bind(args, kwargs)
        pointers = self._pointers_type()
        sizes = self._sizes_type()
        keep = []  # scalars' ctypes objects live until the call returns
        s = 0
        for i, (a, v) in enumerate(zip(self.args, values)):
            if v is None:
                if a.workspace is None:
                    raise TypeError("%s: missing argument %s (%s)" % (
                        self.name, a.name, a.type))
                v = self._workspace(a)
            if not a.memref:
                if isinstance(v, np.ndarray) or a.ctype is None:
                    raise ValueError("%s: argument %s (%s) takes a Python "
                                     "scalar" % (self.name, a.name, a.type))
                c = a.ctype(v)
                if isinstance(c.value, int) and c.value != v:
                    raise ValueError("%s: argument %s (%s) cannot hold %r" % (
                        self.name, a.name, a.type, v))
                keep.append(c)
                pointers[i] = ctypes.addressof(c)
                continue
            if not isinstance(v, np.ndarray):
                raise ValueError("%s: argument %s (%s) must be a numpy array, "
                                 "not %s" % (self.name, a.name, a.type,
                                             type(v).__name__))
            if v.dtype != a.dtype:
                raise ValueError(
                    "%s: argument %s (%s) must have dtype %s%s, not %s" % (
                        self.name, a.name, a.type, a.dtype,
                        " (bf16 bits)" if a.dtype_name == "bf16" else "",
                        v.dtype))
            if v.ndim != len(a.shape):
                raise ValueError("%s: argument %s (%s) must have %d "
                                 "dimensions, not %d" % (
                                     self.name, a.name, a.type, len(a.shape),
                                     v.ndim))
            for d, (want, got) in enumerate(zip(a.shape, v.shape)):
                if want >= 0 and want != got:
                    raise ValueError("%s: argument %s (%s) has size %d in "
                                     "dimension %d, not %d" % (
                                         self.name, a.name, a.type, got, d,
                                         want))
            flags = v.flags
            if not (flags.c_contiguous and flags.aligned):
                raise ValueError("%s: argument %s must be C-contiguous and "
                                 "aligned (np.ascontiguousarray)" % (
                                     self.name, a.name))
            if not flags.writeable:
                raise ValueError("%s: argument %s is read-only; a program "
                                 "may write any memref it takes" % (
                                     self.name, a.name))
            pointers[i] = v.ctypes.data
            for n in v.shape:
                sizes[s] = n
                s += 1
        value = None
        if self.result is not None:
            value = self.result.ctype()
            pointers[len(self.args)] = ctypes.addressof(value)
        return pointers, sizes, (values, keep), value

    def __call__(self, *args, report=False, plan_charts=False, **kwargs):
        lib = self.program._lib
        draw = getattr(lib, "wsp_capi_call_draw_plans", None)
        if plan_charts and draw is None:
            raise ValueError("%s: plan_charts draws the plans a program makes "
                             "or dispatches, and %s makes and dispatches "
                             "none" % (self.name, self.program.stem))
        # `alive`: what the pointers point into, held until the call returns.
        pointers, sizes, alive, value = self._pack(args, kwargs)
        if not (report or plan_charts):
            status = int(self._entry(pointers, sizes, None))
            return RunResult(status, None,
                             None if value is None else value.value,
                             fault=self._fault(status))
        # The call's handle receives its launch report, and says where the
        # simulation draws its plans (plan_<n>-<function>-call1[-plan<p>].svg,
        # n from 0 for this call).
        call = lib.wsp_capi_call_new()
        if not call:
            raise MemoryError("%s: no memory for the call's report"
                              % self.name)
        charts_dir = None
        try:
            if plan_charts:
                charts_dir = tempfile.mkdtemp(prefix="wsp-plans-")
                draw(call, os.fsencode(charts_dir))
            status = self._entry(pointers, sizes, call)
            fault = self._fault(status)
            rep = self.program._read_report(call) if report else None
            charts = None
            if plan_charts:
                numbered = [(int(m.group(1)), n)
                            for n in os.listdir(charts_dir)
                            for m in [_CHART_NAME.match(n)] if m]
                names = [n for _, n in sorted(numbered)]
                charts = []
                for n in names:
                    with open(os.path.join(charts_dir, n)) as f:
                        charts.append(f.read())
        finally:
            lib.wsp_capi_call_free(call)
            if charts_dir is not None:
                shutil.rmtree(charts_dir, ignore_errors=True)
        return RunResult(int(status), rep,
                         None if value is None else value.value, charts,
                         fault)

    def _fault(self, status):
        """The kernel fault that stopped this thread's last call (its
        status is then INVALID_PARAMS), or None."""
        if status != PlanResult.INVALID_PARAMS:
            return None
        message = self.program._lib.wsp_capi_fault()
        return message.decode() if message else None


class Step:
    """A ``wsp.step`` of a compiled program (``prog.decode_table``,
    ``prog.steps``): its function's launches, recorded once by
    :meth:`build` on a set of arguments and replayed token by token
    (seed 004; docs/rationale/Replay.md)."""

    def __init__(self, program, spec):
        self.program = program
        self.name = spec["name"]
        #: The function the step captures; :meth:`build` takes its arguments.
        self.function = program.functions[spec["function"]]
        lib = program._lib
        entry = "wsp_capi_step_" + self.name
        self._new = getattr(lib, entry + "_new")
        self._new.restype = ctypes.c_void_p
        self._new.argtypes = []
        self._free = getattr(lib, entry + "_free")
        self._free.restype = None
        self._free.argtypes = [ctypes.c_void_p]
        self._build = getattr(lib, entry + "_build")
        self._replay = getattr(lib, entry + "_replay")
        for f in (self._build, self._replay):
            f.restype = ctypes.c_int32
            f.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32,
                          ctypes.POINTER(ctypes.c_void_p),
                          ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p]

    def build(self, *args, max_tokens, kv_capacity, **kwargs):
        """Records the step on these arguments (those of
        ``prog.<function>``, positionally or by name; workspaces may be
        left out), without running it: `max_tokens` the tokens a replay may
        run (the token buffer, the array given as the function's token
        argument, holds one row more), `kv_capacity` the KV positions of
        one request. Returns the :class:`StepTable`; a status other than
        OK raises ValueError naming it, with nothing recorded."""
        for what, v in (("max_tokens", max_tokens),
                        ("kv_capacity", kv_capacity)):
            if isinstance(v, bool) or not isinstance(v, int) or \
                    not 0 <= v < 2**31:
                raise ValueError("%s.build: %s must be an int from 0 to "
                                 "2^31 - 1, not %r" % (self.name, what, v))
        pointers, sizes, alive, _ = self.function._pack(args, kwargs)
        handle = self._new()
        if not handle:
            raise MemoryError("%s: no memory for the table" % self.name)
        status = int(self._build(handle, max_tokens, kv_capacity, pointers,
                                 sizes, None))
        if status != PlanResult.OK:
            self._free(handle)
            fault = self.function._fault(status)
            raise ValueError("%s.build returned %s%s" % (
                self.name, STATUS_NAMES.get(status, str(status)),
                "" if fault is None else " (%s)" % fault))
        return StepTable(self, handle, (pointers, sizes, alive))

    def __repr__(self):
        return "Step(%s captures %s)" % (self.name, self.function.name)


class StepTable:
    """A built step table: :meth:`replay` runs its tokens on the arguments
    it was built on (it holds them, so they live as long as it does). One
    replay at a time: calls from several threads take turns."""

    def __init__(self, step, handle, packed):
        self.step = step
        self._handle = handle
        self._packed = packed
        self._lock = threading.Lock()

    def replay(self, first_token, num_tokens=1, report=False):
        """Runs tokens [first_token, first_token + num_tokens): each reads
        its row of the token buffer and writes its pick to the next row,
        and the requests' positions and KV lengths advance after it.
        Returns a :class:`RunResult`: BUFFER_OVERFLOW past the table's
        max_tokens or a request's kv_capacity, INVALID_PARAMS for a
        negative token or count, each with nothing run."""
        for what, v in (("first_token", first_token),
                        ("num_tokens", num_tokens)):
            if isinstance(v, bool) or not isinstance(v, int) or \
                    not -2**31 <= v < 2**31:
                raise ValueError("%s.replay: %s must be an int32, not %r" % (
                    self.step.name, what, v))
        lib = self.step.program._lib
        with self._lock:
            if self._handle is None:
                raise ValueError("%s: the table is closed" % self.step.name)
            pointers, sizes, _ = self._packed
            call = lib.wsp_capi_call_new() if report else None
            if report and not call:
                raise MemoryError("%s: no memory for the call's report"
                                  % self.step.name)
            try:
                status = int(self.step._replay(self._handle, first_token,
                                               num_tokens, pointers, sizes,
                                               call))
                fault = self.step.function._fault(status)
                rep = self.step.program._read_report(call) if report \
                    else None
            finally:
                if call:
                    lib.wsp_capi_call_free(call)
        return RunResult(status, rep, fault=fault)

    def close(self):
        """Frees the table (and lets go of its arguments)."""
        with self._lock:
            if self._handle is not None:
                self.step._free(self._handle)
                self._handle = None
                self._packed = None

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            self.step._free(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class CompiledProgram:
    """A compiled, loaded program: one :class:`Function` per public
    function (``prog.f(...)``, ``prog["f"]``, ``prog.functions``) and one
    :class:`Step` per ``wsp.step`` table (``prog.t``, ``prog.steps``)."""

    def __init__(self, directory, cached=False, owned=False):
        self.directory = directory
        self.cached = cached
        with open(os.path.join(directory, "program.json")) as f:
            self.meta = json.load(f)
        self.stem = self.meta["stem"]
        # The compiler's warnings, on every load (a cached program's too).
        for w in self.meta.get("compile_warnings", []):
            warnings.warn(w, CompileWarning, stacklevel=3)
        #: One line per emitted kernel: tiers, tier constants, on-chip bytes.
        self.kernels = self.meta["kernels"]
        with open(os.path.join(directory, "lowered.mlir")) as f:
            #: The program after the wsp pipeline, as text.
            self.lowered = f.read()
        self._lib = ctypes.CDLL(os.path.join(directory, self.meta["library"]))
        version = self._lib.wsp_capi_version()
        if not version == self.meta["capi_version"] == _CAPI_VERSION:
            raise RuntimeError("%s: C entry points of version %d, this "
                               "package calls version %d" % (
                                   directory, version, _CAPI_VERSION))
        lib = self._lib
        lib.wsp_capi_call_new.restype = ctypes.c_void_p
        lib.wsp_capi_call_new.argtypes = []
        lib.wsp_capi_call_free.restype = None
        lib.wsp_capi_call_free.argtypes = [ctypes.c_void_p]
        lib.wsp_capi_report_cores.restype = ctypes.c_int64
        lib.wsp_capi_report_cores.argtypes = [ctypes.c_void_p]
        lib.wsp_capi_report_core.restype = ctypes.c_int32
        lib.wsp_capi_report_core.argtypes = [
            ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)]
        lib.wsp_capi_fault.restype = ctypes.c_char_p
        lib.wsp_capi_fault.argtypes = []
        draw = getattr(lib, "wsp_capi_call_draw_plans", None)
        if draw is not None:
            draw.restype = ctypes.c_int32
            draw.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        self.functions = {f["name"]: Function(self, f)
                          for f in self.meta["functions"]}
        self.steps = {t["name"]: Step(self, t)
                      for t in self.meta.get("steps", [])}
        if owned:
            # An uncached build is removed once loaded.
            shutil.rmtree(directory, ignore_errors=True)

    def _read_report(self, call):
        """The launch report in the call handle `call`."""
        fields = self.meta["report_fields"] + self.meta["report_tiers"]
        buf = (ctypes.c_int64 * fields)()
        cores = []
        for c in range(self._lib.wsp_capi_report_cores(call)):
            self._lib.wsp_capi_report_core(call, c, buf)
            cores.append(CoreReport(list(buf), self.meta["report_tiers"]))
        return Report(cores)

    def __getattr__(self, name):
        functions = self.__dict__.get("functions", {})
        if name in functions:
            return functions[name]
        steps = self.__dict__.get("steps", {})
        if name in steps:
            return steps[name]
        raise AttributeError("%s has no function %s%r (it has %s)" % (
            self.__dict__.get("stem"), "or step " if steps else "", name,
            ", ".join(list(functions) + list(steps))))

    def __getitem__(self, name):
        return self.functions[name]

    def __repr__(self):
        return "CompiledProgram(%s: %s)" % (self.stem,
                                            ", ".join(self.functions))
