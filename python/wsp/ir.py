"""Building wsp programs from Python.

A :class:`Module` collects functions, kernels and tier configurations; the
op builders of :mod:`wsp.ops` (generated from the dialects' ODS) add
operations at the current insertion point. Every operation carries the
Python line that built it as its location, so a verifier error names the
user's file and line, and every value carries its Python-side name, so the
emitted C++ reads with the same names::

    import wsp
    from wsp.ir import Module, memref
    from wsp.ops import llm

    m = Module("norms")
    with m.function("final_norm", hidden_states=memref([None, 2048], "bf16"),
                    weight=memref([2048], "f32"),
                    y=memref([None, 2048], "bf16")) as f:
        llm.rms_norm(hidden_states=f.hidden_states, weight=f.weight,
                     y=f.y, eps=1e-6)
    text = m.verify()        # the module, parsed and verified by wsp

The builder writes MLIR's generic form and lets wsp's own parser and
verifiers check it: the rules have one home, the C++ verifiers. Operator
ops (``llm``) are checked as soon as they are built, so the error is
raised at the call; everything else when the module is verified.
"""

import contextlib
import os
import re
import sys

from . import _wsp

__all__ = [
    "Attr", "Block", "Module", "Value", "memref", "tile", "descriptor",
    "current_block", "insertion_point",
]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class Attr:
    """An attribute given as its MLIR text, e.g.
    ``Attr("#wsp.plan_config<chunk_min = 256>")``."""

    def __init__(self, text):
        self.text = str(text)

    def __str__(self):
        return self.text

    def __repr__(self):
        return "Attr(%r)" % self.text


def _dims(shape):
    return "x".join("?" if d is None or d == -1 else str(int(d))
                    for d in shape)


def memref(shape, dtype):
    """``memref<?x2048xbf16>`` for ``memref([None, 2048], "bf16")``."""
    if not shape:
        return "memref<%s>" % dtype
    return "memref<%sx%s>" % (_dims(shape), dtype)


def tile(loc, shape, dtype, valid=None, layout=None):
    """``!tile.tile<vec, 8x1024xf32, valid = ?x?>`` and its kin: ``loc`` is
    the buffer (gm, mat, left, right, acc, vec); ``valid`` the valid extent
    (None for the whole tile; None entries for dynamic)."""
    text = "!tile.tile<%s, %sx%s" % (loc, _dims(shape), dtype)
    if valid is not None:
        text += ", valid = %s" % _dims(valid)
    if layout:
        text += ", " + layout
    return text + ">"


def descriptor(pattern="attention"):
    """``!wsp.descriptor<attention>`` (or ``moe``)."""
    return "!wsp.descriptor<%s>" % pattern


def _location():
    """``loc("file.py":line:col)`` of the innermost caller outside wsp."""
    frame = sys._getframe(1)
    while frame is not None and (
            os.path.dirname(os.path.abspath(frame.f_code.co_filename))
            == _PACKAGE_DIR or frame.f_code.co_filename == contextlib.__file__):
        frame = frame.f_back
    if frame is None:
        return 'loc(unknown)'
    line, col = frame.f_lineno, 1
    positions = getattr(frame.f_code, "co_positions", None)
    if positions is not None:
        try:
            pos = list(positions())[frame.f_lasti // 2]
            if pos[0] == line and pos[2] is not None:
                col = pos[2] + 1
        except (IndexError, TypeError):
            pass
    path = frame.f_code.co_filename.replace("\\", "\\\\").replace('"', '\\"')
    return 'loc("%s":%d:%d)' % (path, line, col)


class Value:
    """An SSA value: its name (without ``%``) and its MLIR type."""

    def __init__(self, name, type):
        self.name = name
        self.type = str(type)

    def __str__(self):
        return "%" + self.name

    def __repr__(self):
        return "<wsp.ir.Value %%%s : %s>" % (self.name, self.type)


class _Op:
    """One operation, rendered in generic form."""

    def __init__(self, module, name, operands, result_types, props, attrs,
                 regions, loc, result_names):
        self._module = module
        self.name = name
        self.operands = operands
        self.props = props
        self.attrs = attrs
        self.regions = [[] for _ in range(regions)]
        self.loc = loc
        self.results = [Value(n, t) for n, t in zip(result_names,
                                                    result_types)]

    def region(self, index=0, args=(), names=None):
        """Enters region `index` of the op with block arguments of types
        `args`; yields the block."""
        block = Block(self._module, args, names)
        self.regions[index] = [block]
        return insertion_point(block)

    def render(self, indent):
        pad = "  " * indent
        head = ""
        if self.results:
            head = ", ".join(str(r) for r in self.results) + " = "
        text = '%s%s"%s"(%s)' % (pad, head, self.name,
                                 ", ".join(str(o) for o in self.operands))
        # Generic form: operands, properties, regions, attributes, type.
        if self.props:
            text += " <{" + ", ".join("%s = %s" % kv for kv in
                                      sorted(self.props.items())) + "}>"
        if self.regions:
            regions = []
            for blocks in self.regions:
                body = []
                for block in blocks:
                    body.extend(block.render(indent + 1))
                regions.append("{\n" + "\n".join(body) + "\n" + pad + "}")
            text += " (" + ", ".join(regions) + ")"
        if self.attrs:
            text += " {" + ", ".join("%s = %s" % kv for kv in
                                     sorted(self.attrs.items())) + "}"
        text += " : (%s) -> (%s) %s" % (
            ", ".join(o.type for o in self.operands),
            ", ".join(r.type for r in self.results), self.loc)
        return [text]


class Block:
    """A block: its arguments (Values) and its operations."""

    def __init__(self, module, arg_types=(), names=None):
        self._module = module
        names = list(names) if names else [None] * len(arg_types)
        self.args = [Value(module._fresh(n or "arg"), t)
                     for n, t in zip(names, arg_types)]
        self.ops = []
        self.locs = [_location()] * len(self.args)

    def render(self, indent):
        """The block's lines in generic form, at `indent` levels."""
        pad = "  " * (indent - 1)
        lines = []
        if self.args:
            lines.append("%s^bb0(%s):" % (pad, ", ".join(
                "%s: %s %s" % (a, a.type, loc)
                for a, loc in zip(self.args, self.locs))))
        else:
            lines.append("%s^bb0:" % pad)
        for op in self.ops:
            lines.extend(op.render(indent))
        return lines


_STACK = []

#: The name generated module text goes by in diagnostics.
GENERATED = "<wsp.ir>"
_GENERATED_AT = re.compile(r"<wsp\.ir>:(\d+):(\d+)")
_LOC = re.compile(r'loc\(("(?:[^"\\]|\\.)*":\d+:\d+)\)')


@contextlib.contextmanager
def at_user_lines(text):
    """Diagnostics raised inside at the lines of the Python program that
    built `text`: a place in the generated text (an error the parser finds
    in a type, say a tile larger than its buffer) becomes the location of
    the op on that line."""
    try:
        yield
    except _wsp.CompileError as e:
        lines = text.splitlines()

        def user(m):
            row = int(m.group(1))
            found = _LOC.findall(lines[row - 1]) if row <= len(lines) else []
            return found[-1].replace('"', "", 2) if found else m.group(0)
        message = _GENERATED_AT.sub(user, str(e))
        if message == str(e):
            raise
        raise _wsp.CompileError(message) from None


def current_block():
    """The block new operations go into (inside a ``with`` of a function,
    kernel or region)."""
    if not _STACK:
        raise RuntimeError("no insertion point: build operations inside "
                           "`with module.function(...)` or a region")
    return _STACK[-1]


@contextlib.contextmanager
def insertion_point(block):
    """Adds operations to `block` inside the ``with``."""
    _STACK.append(block)
    try:
        yield block
    finally:
        _STACK.pop()


class _Function:
    """The handle of a function or kernel being built: its arguments by
    name (``f.q``, ``f["q"]``, ``f.args``)."""

    def __init__(self, block, names):
        self.block = block
        self.args = block.args
        self._by_name = dict(zip(names, block.args))

    def __getattr__(self, name):
        try:
            return self.__dict__["_by_name"][name]
        except KeyError:
            raise AttributeError("no argument named %r" % name) from None

    def __getitem__(self, name):
        return self._by_name[name]


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*$")


class Module:
    """A module being built. ``str(module)`` is its generic text;
    :meth:`verify` parses and verifies it with wsp and returns it in the
    dialects' own syntax."""

    def __init__(self, name=None):
        if name is not None and not _NAME.match(name):
            raise ValueError("module name %r is not an identifier" % name)
        self.name = name
        self._ops = []
        self._names = {}
        self._kernels = {}  # name -> (args, tiers, descriptor type)
        self.loc = _location()

    def _fresh(self, hint):
        hint = re.sub(r"[^A-Za-z0-9_$.]", "_", hint or "v")
        if not re.match(r"[A-Za-z_]", hint):
            hint = "v" + hint
        n = self._names.get(hint, 0)
        self._names[hint] = n + 1
        return hint if n == 0 else "%s_%d" % (hint, n)

    def _top(self, op):
        self._ops.append(op)
        return op

    @contextlib.contextmanager
    def _scope(self):
        # A function or kernel is isolated from above: its names (its SSA
        # values', and so the emitted C++'s and the Python call's argument
        # names) are its own, whatever other functions call theirs.
        outer, self._names = self._names, {}
        try:
            yield
        finally:
            self._names = outer

    def _body(self, op, types, names):
        block = Block(self, types, names)
        op.regions[0] = [block]
        return block

    @contextlib.contextmanager
    def function(self, name, results=(), private=False, arg_attrs=None,
                 **args):
        """Builds ``func.func @name``: its arguments as keywords
        (``q=memref([None, 128], "bf16")``), in order; `results` the result
        types. Without results the ``return`` is added for you."""
        names = list(args)
        fn_type = "(%s) -> (%s)" % (", ".join(args.values()),
                                    ", ".join(results))
        props = {"sym_name": _quote(name), "function_type": fn_type}
        if private:
            props["sym_visibility"] = '"private"'
        if arg_attrs:
            props["arg_attrs"] = "[%s]" % ", ".join(
                "{%s}" % ", ".join("%s = %s" % kv for kv in
                                  arg_attrs.get(n, {}).items())
                for n in names)
        op = _Op(self, "func.func", [], [], props, {}, 1, _location(), [])
        self._top(op)
        with self._scope(), insertion_point(
                self._body(op, list(args.values()), names)) as block:
            yield _Function(block, names)
            if not results and not (block.ops and block.ops[-1].name
                                    == "func.return"):
                block.ops.append(_make_op(self, "func.return", [], [], {},
                                          {}, 0, []))

    @contextlib.contextmanager
    def kernel(self, name, tiers, args, constants=None, descriptor_type=None):
        """Builds ``wsp.kernel @name tiers(@tiers)``: `args` an ordered
        list of (name, type) after the descriptor (named ``desc``);
        `constants` the per-tier constants, ``{"TILE_K": [64, 128]}``.
        The ``wsp.return`` is added for you."""
        names = ["desc"] + [n for n, _ in args]
        types = [descriptor_type or descriptor()] + [t for _, t in args]
        self._kernels[name] = (list(args), tiers, types[0])
        props = {"sym_name": _quote(name),
                 "function_type": "(%s) -> ()" % ", ".join(types),
                 "tiers": "@" + tiers}
        if constants:
            props["constants"] = "{%s}" % ", ".join(
                "%s = array<i64: %s>" % (k, ", ".join(str(int(x)) for x in v))
                for k, v in constants.items())
        op = _Op(self, "wsp.kernel", [], [], props, {}, 1, _location(), [])
        self._top(op)
        with self._scope(), insertion_point(
                self._body(op, types, names)) as block:
            yield _Function(block, names)
            if not (block.ops and block.ops[-1].name == "wsp.return"):
                block.ops.append(_make_op(self, "wsp.return", [], [], {}, {},
                                          0, []))

    def planning_function(self, name, kernel, lengths, chunk,
                          core_kind="vector", num_cores=None, heads=1,
                          max_descriptors=1024, row_affine=False):
        """Builds the planning function of a hand-written workload, the
        AICPU side of `kernel` (made with :meth:`kernel` in this module):
        ``func.func @name`` takes the kernel's arguments (same names and
        types, in order) and a descriptor buffer ``descs``, and returns the
        spec's PlanResult code (i32). It cuts every sequence into
        descriptors of at most `chunk` tokens, one per head
        (``wsp.generate`` with the kernel's tier configuration), and, when
        that succeeded, runs them on `num_cores` cores of `core_kind`
        (``wsp.dispatch``; default: every core of that kind).

        `lengths`: ``("x", d)``, one sequence as long as dimension d of
        argument x; or the name of an i32 memref argument holding one
        length per sequence. `heads`: an int, or ``("q", d)`` the size of
        dimension d of argument q. ``descs`` is a workspace of
        `max_descriptors` descriptors: a call may leave it out (each thread
        gets its own) or pass its own ``np.zeros(max_descriptors,
        wsp.DESCRIPTOR)`` to read the plan back; a plan that needs more
        returns BUFFER_OVERFLOW with nothing run.
        `row_affine`: a row's chunks run in order on one core (for a kernel
        that carries state from chunk to chunk)."""
        from .ops import arith, func, scf
        from .ops import memref as mr
        from .ops import wsp as w
        from . import _wsp
        if kernel not in self._kernels:
            raise ValueError("planning_function %s: no kernel %r in this "
                             "module (build it with Module.kernel first)" % (
                                 name, kernel))
        args, tiers, desc_type = self._kernels[kernel]
        arg_types = dict(args)
        if "descs" in arg_types:
            raise ValueError("planning_function %s: kernel %s has an "
                             "argument named descs, the descriptor buffer's "
                             "name" % (name, kernel))
        if core_kind not in _wsp.CORES:
            raise ValueError("planning_function %s: core_kind must be one of "
                             "%s, not %r" % (name, ", ".join(
                                 sorted(_wsp.CORES)), core_kind))
        cores = _wsp.CORES[core_kind]
        num_cores = cores if num_cores is None else int(num_cores)
        if not 1 <= num_cores <= cores:
            raise ValueError("planning_function %s: num_cores must be 1 to "
                             "%d (%s cores), not %d" % (
                                 name, cores, core_kind, num_cores))
        for what, v in (("chunk", chunk),
                        ("max_descriptors", max_descriptors)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError("planning_function %s: %s must be a "
                                 "positive int, not %r" % (name, what, v))

        def dim_of(spec, what):
            if not (isinstance(spec, tuple) and len(spec) == 2 and
                    spec[0] in arg_types and isinstance(spec[1], int)):
                raise ValueError(
                    "planning_function %s: %s must be (argument, dimension) "
                    "of one of %s, not %r" % (name, what, ", ".join(
                        arg_types), spec))
            rank = arg_types[spec[0]].count("x") if \
                arg_types[spec[0]].startswith("memref<") else 0
            if not 0 <= spec[1] < rank:
                raise ValueError("planning_function %s: %s: %s (%s) has no "
                                 "dimension %d" % (name, what, spec[0],
                                                   arg_types[spec[0]],
                                                   spec[1]))
            return spec

        if isinstance(lengths, str):
            if arg_types.get(lengths) != "memref<?xi32>" and not re.match(
                    r"memref<\d+xi32>$", arg_types.get(lengths, "")):
                raise ValueError("planning_function %s: lengths %r must name "
                                 "an i32 memref argument (one length per "
                                 "sequence), or be (argument, dimension)" % (
                                     name, lengths))
        else:
            dim_of(lengths, "lengths")
        if not isinstance(heads, int):
            dim_of(heads, "heads")
        elif heads < 1 or isinstance(heads, bool):
            raise ValueError("planning_function %s: heads must be positive, "
                             "not %r" % (name, heads))
        buffer = "memref<%dx%s>" % (max_descriptors, desc_type)
        params = dict(args, descs=buffer)
        attrs = {"descs": {"llm.workspace": _quote(name + ".descs")}}
        with self.function(name, results=["i32"], arg_attrs=attrs,
                           **params) as f:
            c0 = arith.constant(0)
            c1 = arith.constant(1)
            if isinstance(lengths, str):
                lens = f[lengths]
                batch = mr.dim(lens, c0, result_name="batch")
            else:
                # One sequence: its length, the size of a dimension.
                lens = mr.alloca(type=memref([1], "i32"),
                                 result_name="lens")
                size = mr.dim(f[lengths[0]], arith.constant(lengths[1]),
                              result_name="length")
                mr.store(arith.index_cast(size, type="i32"), lens, [c0])
                batch = c1
            if not isinstance(heads, int):
                n_heads = mr.dim(f[heads[0]], arith.constant(heads[1]),
                                 result_name="heads")
            else:
                n_heads = c1 if heads == 1 else arith.constant(heads)
            count, status = w.generate(
                lengths=lens, batch=batch, heads=n_heads,
                chunk=arith.constant(chunk, name="chunk"), tiers=tiers,
                config=Attr("#wsp.plan_config<>"), buffer=f.descs,
                result_types=["index", "i32"])
            planned = scf.if_(arith.cmpi("eq", status,
                                         arith.constant(0, "i32")))
            with planned.then():
                w.dispatch(kernel=kernel, args=[f[n] for n, _ in args],
                           descriptors=f.descs, count=count,
                           core_kind=core_kind, num_cores=num_cores,
                           row_affine=row_affine or None)
            func.return_([status])
        return "@" + name

    def grid(self, name, shape):
        """``shard.grid @name(shape = ...)``: the device grid a program's
        collectives run on (``llm.all_reduce(..., grid=m.grid("tp",
        [None]))``); None for a size known only at run time."""
        dims = ", ".join("-9223372036854775808" if d is None else str(int(d))
                         for d in shape)
        self._top(_Op(self, "shard.grid", [], [],
                      {"sym_name": _quote(name),
                       "shape": "array<i64: %s>" % dims}, {}, 0,
                      _location(), []))
        return "@" + name

    def tier_config(self, name, tiers):
        """``wsp.tier_config @name``: `tiers` a list of (id, min, max)."""
        text = "[%s]" % ", ".join("#wsp.tier<%d, [%d, %d]>" % tuple(t)
                                  for t in tiers)
        self._top(_Op(self, "wsp.tier_config", [], [],
                      {"sym_name": _quote(name), "tiers": text}, {}, 0,
                      _location(), []))
        return "@" + name

    def __str__(self):
        body = []
        for op in self._ops:
            body.extend(op.render(2))
        name = ""
        if self.name:
            name = " <{sym_name = %s}>" % _quote(self.name)
        return '"builtin.module"()%s ({\n^bb0:\n%s\n}) : () -> () %s\n' % (
            name, "\n".join(body), self.loc)

    def verify(self):
        """Parses and verifies the module with wsp; returns its text in the
        dialects' syntax. Raises wsp.CompileError with every diagnostic,
        each at the Python line that built the op."""
        text = str(self)
        with at_user_lines(text):
            return _wsp.parse(text, filename=GENERATED)


def _quote(s):
    return '"%s"' % str(s).replace("\\", "\\\\").replace('"', '\\"')


def _make_op(module, name, operands, result_types, props, attrs, regions,
             result_names):
    return _Op(module, name, operands, result_types, props, attrs, regions,
               _location(), [module._fresh(n) for n in result_names])


def add_op(name, operands=(), result_types=(), props=None, attrs=None,
           regions=0, result_names=None):
    """Adds the generic operation `name` at the insertion point and returns
    it (``op.results``, ``op.region(i, arg_types)``). The named builders of
    :mod:`wsp.ops` are the friendlier way in."""
    block = current_block()
    for o in operands:
        if not isinstance(o, Value):
            raise TypeError("%s: operand %r is not a wsp.ir.Value" % (name, o))
    names = result_names or [name.split(".")[-1]] * len(result_types)
    op = _make_op(block._module, name, list(operands), list(result_types),
                  dict(props or {}), dict(attrs or {}), regions, names)
    block.ops.append(op)
    return op
