"""PyTorch tensors in compiled programs, and programs as ``torch.ops``.

wsp itself does not need PyTorch; this module does (Debian's
``python3-torch``, 1.13). Two things:

* A compiled function takes CPU tensors wherever it takes numpy arrays,
  without copies: the program reads and writes the tensor's own memory.
  This needs no import of this module (the call converts the tensors it
  is given, :func:`as_array`). A bf16 argument takes a ``torch.bfloat16``
  tensor (its bits are what the package's ``np.uint16`` arrays hold), the
  others the tensor dtype of their element type (:data:`TORCH_DTYPES`).
  A tensor on another device, not contiguous, or of another dtype is a
  ``ValueError`` naming the argument, before any C++ runs.

* :func:`register` makes each public function of a program a PyTorch
  operator, ``torch.ops.<namespace>.<function>``, through
  ``torch.library`` (1.13's ``Library(ns, "DEF")``, ``define`` and a CPU
  ``impl``)::

      import wsp.torch
      wsp.torch.register(prog)                 # namespace "wsp"
      torch.ops.wsp.final_norm(x, w, y)        # y written in place

  Every memref argument is a mutable tensor in the schema
  (``Tensor(a0!) x``: a program may write any memref it takes), a
  workspace an optional one (``Tensor(a3!)? ws=None``: left out, the
  function's own is used), a scalar ``int``, ``float`` or ``bool``. The op
  returns nothing, or the function's scalar result; a status other than
  OK raises :class:`RunError` (its ``result`` is the
  :class:`wsp.RunResult`). Shapes and dtypes are checked as for a direct
  call. PyTorch's dispatcher takes at most 64 arguments per op
  (:data:`MAX_OP_ARGS`): a larger function (tiny_lm's @decode has 84) is
  called directly, with tensors.
"""

import numpy as np
import torch

from .compiler import PlanResult

__all__ = ["TORCH_DTYPES", "MAX_OP_ARGS", "as_array", "register", "schema",
           "RunError"]

#: The tensor dtype each element type takes.
TORCH_DTYPES = {
    "bf16": torch.bfloat16,
    "f16": torch.float16,
    "f32": torch.float32,
    "f64": torch.float64,
    "i1": torch.bool,
    "i8": torch.int8,
    "i16": torch.int16,
    "i32": torch.int32,
    "i64": torch.int64,
    "index": torch.int64,
    "u8": torch.uint8,
}


def as_array(function, arg, tensor):
    """The numpy view of `tensor` that `function` (a wsp Function) passes
    for its argument `arg`: the tensor's memory, never a copy. Raises
    ValueError for a tensor the argument cannot take."""
    where = "%s: argument %s (%s)" % (function.name, arg.name, arg.type)
    if not arg.memref:
        raise ValueError("%s takes a Python scalar, not a tensor" % where)
    if tensor.device.type != "cpu":
        raise ValueError("%s is a tensor on %s; compiled programs run on the "
                         "CPU (tensor.cpu())" % (where, tensor.device))
    want = TORCH_DTYPES.get(arg.dtype_name)
    if want is None:
        raise ValueError("%s has no torch dtype; pass a numpy array"
                         % where)
    if tensor.dtype != want:
        raise ValueError("%s must be a %s tensor, not %s" % (
            where, want, tensor.dtype))
    if not tensor.is_contiguous():
        raise ValueError("%s must be a contiguous tensor "
                         "(tensor.contiguous())" % where)
    # detach(): the same storage without autograd's record (a program's
    # writes are not differentiable).
    t = tensor.detach()
    if want == torch.bfloat16:
        # numpy has no bfloat16: the bits, as the package carries them.
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def _as_arrays(function, values):
    """The values of one call with every tensor replaced by its view."""
    return [as_array(function, a, v) if isinstance(v, torch.Tensor) else v
            for a, v in zip(function.args, values)]


class RunError(RuntimeError):
    """A registered op's call returned a status other than OK; ``result``
    is its RunResult. A planner's refusal wrote nothing; a kernel's fault
    (``result.fault``) stopped the call where it was, as for a direct
    call."""

    def __init__(self, op, result):
        self.result = result
        message = "%s returned %s" % (op, result.name)
        if result.fault is not None:
            message += ": " + result.fault
        super().__init__(message)


_SCALARS = {"i1": "bool", "f16": "float", "bf16": "float", "f32": "float",
            "f64": "float"}


def _schema_type(dtype_name):
    return _SCALARS.get(dtype_name, "int")


def schema(function):
    """The torch.library schema of a wsp Function (without the
    namespace)."""
    args = []
    # A workspace is optional only where every argument after it is:
    # a schema gives no default before one without.
    optional_from = len(function.args)
    while (optional_from and
           function.args[optional_from - 1].workspace is not None):
        optional_from -= 1
    alias = 0
    for i, a in enumerate(function.args):
        if a.memref:
            text = "Tensor(a%d!)" % alias
            alias += 1
            if a.workspace is not None:
                text += "?"
        else:
            text = _schema_type(a.dtype_name)
        text += " " + a.name
        if i >= optional_from:
            text += "=None"
        args.append(text)
    result = "()" if function.result is None else _schema_type(
        function.result.dtype_name)
    return "%s(%s) -> %s" % (function.name, ", ".join(args), result)


#: The most arguments a torch op takes (c10's dispatcher, 1.13).
MAX_OP_ARGS = 64

# torch 1.13 lets one Library define a namespace ("DEF" once per
# namespace, no "FRAGMENT"), and an op is defined once per process: one
# Library per namespace, kept alive here (its ops go when it goes), and
# per op the function its kernel calls, so that registering a program
# again (the same program loaded anew) points the op at it.
_libraries = {}
_targets = {}


def register(program, namespace="wsp", functions=None):
    """Defines ``torch.ops.<namespace>.<name>`` for each public function of
    `program` (or those named in `functions`), implemented on the CPU by
    calling it. Returns ``{name: torch.ops.<namespace>.<name>}``.

    A function already registered under that name with the same schema is
    re-pointed at `program`; with another schema it is a ValueError (pick
    another `namespace`)."""
    from torch.library import Library
    names = list(program.functions) if functions is None else list(functions)
    schemas = {}
    for name in names:
        if name not in program.functions:
            raise ValueError("%s has no function %r (it has %s)" % (
                program.stem, name, ", ".join(program.functions)))
        function = program.functions[name]
        if len(function.args) > MAX_OP_ARGS:
            raise ValueError(
                "%s.%s takes %d arguments, and a torch op at most %d "
                "(PyTorch's dispatcher): register the others (functions=)"
                % (program.stem, name, len(function.args), MAX_OP_ARGS))
        schemas[name] = schema(function)
        known = _targets.get((namespace, name))
        if known is not None and known[0] != schemas[name]:
            raise ValueError(
                "torch.ops.%s.%s is registered already as %s; %s.%s is %s: "
                "register it under another namespace" % (
                    namespace, name, known[0], program.stem, name,
                    schemas[name]))
    lib = _libraries.get(namespace)
    if lib is None:
        lib = _libraries[namespace] = Library(namespace, "DEF")
    ops = {}
    for name in names:
        key = (namespace, name)
        if key not in _targets:
            lib.define(schemas[name])
            lib.impl(name, _kernel(namespace, name), "CPU")
        _targets[key] = (schemas[name], program.functions[name])
        ops[name] = getattr(getattr(torch.ops, namespace), name)
    return ops


def _kernel(namespace, name):
    op = "%s::%s" % (namespace, name)

    def kernel(*args, **kwargs):
        function = _targets[(namespace, name)][1]
        result = function(*args, **kwargs)
        if result.status != PlanResult.OK:
            raise RunError(op, result)
        return result.value

    kernel.__name__ = name
    kernel.__qualname__ = op
    return kernel

