"""One builder per operation of every dialect wsp accepts, generated from
the dialects' ODS (``_ods_spec.json``, written at build time by
python/tools/ods_spec.py from ``llvm-tblgen --dump-json``)::

    from wsp.ops import arith, llm, scf, tile, wsp as w

    n = arith.addi(a, b)                         # result typed as a
    llm.rms_norm(hidden_states=x, weight=w, y=y, eps=1e-6)
    count, status = w.generate(lengths, batch, heads, chunk, tiers="T",
                               config=Attr("#wsp.plan_config<>"),
                               buffer=descs)

Operands and attributes are taken by their ODS names (a trailing ``_``
for Python keywords), positionally in ODS order, or both. Results whose
type ODS fixes (``index``, ``i1``...) or ties to an operand are typed for
you; otherwise pass ``result_types=[...]`` (or ``type=``); a single
result takes its SSA (and emitted C++) name from ``result_name=``. Attributes take
Python values where their kind is known (numbers, strings, bools, lists for
dense arrays, case names for enums, symbol names) and :class:`wsp.ir.Attr`
text for everything else. Ops with regions return the op; enter a region
with ``with op.region(i, arg_types) as block``. Helpers for the structured
ops: :func:`scf.for_`, :func:`scf.if_`, :func:`arith.constant`.
"""

import contextlib
import json
import keyword
import re
import os
import types as _types

from . import _wsp
from .ir import Attr, Value, add_op, current_block, insertion_point, \
    _quote, _make_op

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "_ods_spec.json")) as _f:
    SPEC = json.load(_f)


def _float_text(v, type):
    text = repr(float(v))
    if text in ("inf", "-inf", "nan"):
        raise ValueError("non-finite float attributes need wsp.ir.Attr")
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        text = mantissa + ".0" + e + exponent
    return "%s : %s" % (text, type)


def _element_type(shaped):
    """The element type of a memref, tensor or vector type's text
    (``memref<?x64xf32>`` -> ``f32``), or None."""
    m = re.match(r"(memref|tensor|vector)<(.*)>$", str(shaped))
    if not m:
        return None
    body, depth, end = m.group(2), 0, len(m.group(2))
    for i, c in enumerate(body):  # the first top-level comma ends it
        depth += c in "<([{"
        depth -= c in ">)]}"
        if c == "," and depth == 0:
            end = i
            break
    return re.sub(r"^((\?|\d+)x)*", "", body[:end].strip()) or None


def _attr_text(opname, spec, value):
    if isinstance(value, Attr):
        return value.text
    kind = spec["kind"]
    name = spec["name"]
    try:
        if kind == "unit":
            return "unit" if value else None
        if kind == "bool":
            return "true" if value else "false"
        if kind == "int":
            if isinstance(value, bool) or int(value) != value:
                raise ValueError
            return "%d : %s" % (int(value), spec["type"])
        if kind == "float":
            return _float_text(value, spec["type"])
        if kind == "string":
            return _quote(value)
        if kind == "symbol":
            value = str(value)
            return value if value.startswith("@") else "@" + value
        if kind == "type":
            return str(value)
        if kind == "array":
            return "array<%s: %s>" % (spec["element"], ", ".join(
                str(int(x)) for x in value)) if len(value) else \
                "array<%s>" % spec["element"]
        if kind == "enum":
            cases = spec["cases"]
            if isinstance(value, str):
                if value not in cases:
                    raise ValueError("%s: %s must be one of %s" % (
                        opname, name, ", ".join(sorted(cases))))
                value = cases[value]
            return "%d : %s" % (int(value), spec["type"])
    except (TypeError, ValueError) as e:
        if str(e).startswith(opname):
            raise
        raise ValueError("%s: attribute %s (%s) cannot be %r" % (
            opname, name, kind, value)) from None
    # Anything else: its MLIR text.
    if isinstance(value, str):
        return value
    raise ValueError("%s: give attribute %s as wsp.ir.Attr(text)" % (
        opname, name))


def _check_alone(op):
    """Verifies one operator op on its own, in a function whose arguments
    are its operands, and lowers it as the wsp pipeline would (keeping
    nothing), so a shape the lowering refuses (a head_dim over one tile) is
    refused here. Raises wsp.CompileError at the op's Python line."""
    seen = {}
    for o in op.operands:
        seen.setdefault(o.name, o.type)
    args = ", ".join("%%%s: %s" % kv for kv in seen.items())
    # A device grid the op names (all_reduce ... on @grid) is the module's:
    # here a grid of any size stands in, so the op's own rules are checked.
    # Its grid_axes name axes of the real grid (checked with the module):
    # against the stand-in the op is checked on the whole grid.
    grid = op.props.get("grid")
    grids = ('  "shard.grid"() <{shape = array<i64: -9223372036854775808>, '
             'sym_name = "%s"}> : () -> ()\n' % grid[1:]) if grid else ""
    props = op.props
    op.props = {k: v for k, v in props.items() if k != "grid_axes"}
    try:
        body = "\n".join(op.render(2))
    finally:
        op.props = props
    text = ('"builtin.module"() ({\n^bb0:\n%s  "func.func"() <{function_type = '
            '(%s) -> (), sym_name = "wsp_check"}> ({\n  ^bb0(%s):\n%s\n'
            '    "func.return"() : () -> ()\n  }) : () -> ()\n}) : () -> ()\n'
            ) % (grids, ", ".join(seen.values()), args, body)
    _wsp.check_operator(text, filename="<wsp.ops>")


def _make_builder(dialect, opname, spec):
    full = "%s.%s" % (dialect, opname)
    # Positional arguments follow the ODS `ins` order (arith.cmpi: the
    # predicate first).
    params = list(spec["order"])
    py_names = {(p + "_" if keyword.iskeyword(p) else p): p for p in params}

    def build(*args, result_types=None, type=None, result_name=None,
              attrs=None, **kwargs):
        bound = {}
        if len(args) > len(params):
            raise TypeError("%s takes at most %d arguments (%s)" % (
                full, len(params), ", ".join(params)))
        for p, v in zip(params, args):
            bound[p] = v
        for k, v in kwargs.items():
            p = py_names.get(k)
            if p is None:
                raise TypeError("%s has no operand or attribute %r (it has "
                                "%s)" % (full, k, ", ".join(params)))
            if p in bound:
                raise TypeError("%s: %s given twice" % (full, p))
            bound[p] = v
        operands, segments = [], []
        for o in spec["operands"]:
            v = bound.get(o["name"])
            if o["kind"] == "variadic":
                vs = list(v or [])
            elif v is None:
                if o["kind"] != "optional":
                    raise TypeError("%s: missing operand %s" % (full,
                                                                o["name"]))
                vs = []
            else:
                vs = [v]
            for x in vs:
                if not isinstance(x, Value):
                    raise TypeError("%s: operand %s is %r, not a wsp.ir.Value"
                                    % (full, o["name"], x))
            operands += vs
            segments.append(len(vs))
        props = {}
        for a in spec["attributes"]:
            if a["name"] not in bound or bound[a["name"]] is None:
                if not a["optional"]:
                    raise TypeError("%s: missing attribute %s" % (full,
                                                                  a["name"]))
                continue
            text = _attr_text(full, a, bound[a["name"]])
            if text is not None:
                props[a["name"]] = text
        if "AttrSizedOperandSegments" in spec["traits"]:
            props["operandSegmentSizes"] = "array<i32: %s>" % ", ".join(
                str(n) for n in segments)
        if type is not None:
            result_types = [type]
        if result_types is None:
            result_types = []
            for r in spec["results"]:
                t = r["type"]
                if t is None and r["name"] in spec["result_same_as"]:
                    src = bound.get(spec["result_same_as"][r["name"]])
                    t = src.type if isinstance(src, Value) else None
                if t is None and r["name"] in spec.get("result_element_of",
                                                       {}):
                    src = bound.get(spec["result_element_of"][r["name"]])
                    t = _element_type(src.type) \
                        if isinstance(src, Value) else None
                if t is None and "SameOperandsAndResultType" in \
                        spec["traits"] and operands:
                    t = operands[0].type
                if t is None or r["kind"] != "single":
                    raise TypeError("%s: give its result type (type=, or "
                                    "result_types=): neither ODS nor the "
                                    "operands fix the type of result %r" % (
                                        full, r["name"]))
                result_types.append(t)
        result_types = [str(t) for t in result_types]
        names = [result_name] if result_name and len(result_types) == 1 \
            else None
        op = add_op(full, operands, result_types, props, attrs,
                    len(spec["regions"]), names)
        if dialect == "llm":
            try:
                _check_alone(op)
            except Exception:
                current_block().ops.remove(op)  # nothing invalid stays
                raise
        if spec["regions"]:
            return op
        if not op.results:
            return None
        return op.results[0] if len(op.results) == 1 else tuple(op.results)

    build.__name__ = opname
    build.__qualname__ = full
    build.__doc__ = _doc(full, opname, py_names, spec)
    return build


def _doc(full, opname, py_names, spec):
    """The builder's help(): its call, what it builds, the op's summary and
    ODS description (for the llm ops, each operand's shape and dtype)."""
    optional = {o["name"] for o in spec["operands"]
                if o["kind"] != "single"}
    optional |= {a["name"] for a in spec["attributes"] if a["optional"]}
    call = ", ".join("[%s]" % p if v in optional else p
                     for p, v in py_names.items())
    lines = ["%s(%s): builds `%s` at the insertion point." % (opname, call,
                                                              full)]
    if spec.get("summary"):
        lines += ["", spec["summary"].strip().rstrip(".") + "."]
    if spec.get("description"):
        lines += ["", spec["description"]]
    return "\n".join(lines)


def _make_dialect(dialect):
    mod = _types.ModuleType("wsp.ops." + dialect,
                            "Builders of the %s dialect's operations." %
                            dialect)
    for opname, spec in SPEC[dialect].items():
        pyname = opname.replace(".", "_")
        if keyword.iskeyword(pyname) or pyname in ("return", "yield"):
            pyname += "_"
        setattr(mod, pyname, _make_builder(dialect, opname, spec))
    return mod


arith = _make_dialect("arith")
func = _make_dialect("func")
llm = _make_dialect("llm")
math = _make_dialect("math")
memref = _make_dialect("memref")
scf = _make_dialect("scf")
shard = _make_dialect("shard")
tile = _make_dialect("tile")
wsp = _make_dialect("wsp")


def _constant(value, type="index", name=None):
    """``arith.constant value : type`` (ints, floats, bools)."""
    if isinstance(value, bool):
        text = "%s" % ("true" if value else "false")
    elif type.startswith("f") or type == "bf16":
        text = _float_text(value, type)
    else:
        text = "%d : %s" % (int(value), type)
    op = add_op("arith.constant", [], [type], {"value": text}, None, 0,
                [name or "c"])
    return op.results[0]


arith.constant = _constant


class _Loop:
    def __init__(self, op, block):
        self.op = op
        self.iv = block.args[0]
        self.iter_args = block.args[1:]
        self.results = op.results


@contextlib.contextmanager
def _for(lower, upper, step, iter_args=(), iv_name="i", result_types=None):
    """``scf.for``: yields the loop (``.iv``, ``.iter_args``, after the
    ``with``: ``.results``). Without iter_args the ``scf.yield`` is added
    for you; with them, end the body with ``scf.yield_(...)``."""
    iter_args = list(iter_args)
    types = result_types or [v.type for v in iter_args]
    op = add_op("scf.for", [lower, upper, step] + iter_args, types, {}, None,
                1, ["r"] * len(types))
    with op.region(0, [lower.type] + types,
                   [iv_name] + ["acc"] * len(types)) as block:
        loop = _Loop(op, block)
        yield loop
        if not iter_args and not (block.ops and block.ops[-1].name ==
                                  "scf.yield"):
            block.ops.append(_make_op(block._module, "scf.yield", [], [], {},
                                      {}, 0, []))


class _If:
    def __init__(self, op, has_results):
        self.op = op
        self.results = op.results
        self._has_results = has_results

    @contextlib.contextmanager
    def _branch(self, index):
        with self.op.region(index) as block:
            yield block
            if not self._has_results and not (
                    block.ops and block.ops[-1].name == "scf.yield"):
                block.ops.append(_make_op(block._module, "scf.yield", [], [],
                                          {}, {}, 0, []))

    def then(self):
        """The then-branch (end it with ``scf.yield_(...)`` when the if has
        results)."""
        return self._branch(0)

    def else_(self):
        """The else-branch."""
        return self._branch(1)


def _if(condition, result_types=(), name=None):
    """``scf.if``: returns the if; build its branches with ``with
    i.then():`` and ``with i.else_():``; ``i.results`` after."""
    op = add_op("scf.if", [condition], list(result_types), {}, None, 2,
                [name or "r"] * len(result_types))
    return _If(op, bool(result_types))


scf.for_ = _for
scf.if_ = _if

__all__ = ["SPEC", "arith", "func", "llm", "math", "memref", "scf", "shard",
           "tile",
           "wsp", "current_block", "insertion_point"]
