"""PyTorch tensors in compiled programs.

wsp itself does not need PyTorch; this module does (Debian's
``python3-torch``, 1.13).

A compiled function takes CPU tensors wherever it takes numpy arrays,
without copies: the program reads and writes the tensor's own memory.
This needs no import of this module (the call converts the tensors it is
given, :func:`as_array`). A bf16 argument takes a ``torch.bfloat16``
tensor (its bits are what the package's ``np.uint16`` arrays hold), the
others the tensor dtype of their element type (:data:`TORCH_DTYPES`). A
tensor on another device, not contiguous, or of another dtype is a
``ValueError`` naming the argument, before any C++ runs.
"""

import numpy as np
import torch

__all__ = ["TORCH_DTYPES", "as_array"]

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
