"""Element types between numpy and wsp programs.

numpy has no bfloat16: a bf16 tensor travels as its 16 bits in an
``np.uint16`` array (the upper half of the float32 with the same value).
:func:`to_bf16` rounds float arrays to those bits (to nearest, ties to
even, as the CPU simulation's conversion does); :func:`from_bf16` widens
them back to float32 exactly. Work descriptors (``!wsp.descriptor<...>``)
are the 24-byte records of :data:`DESCRIPTOR`.
"""

import numpy as np

__all__ = ["DESCRIPTOR", "to_bf16", "from_bf16", "numpy_dtype"]

#: The runtime's WorkDescriptor: 24 bytes, 8-byte aligned.
DESCRIPTOR = np.dtype([("work_id", "<u4"), ("tier", "u1"), ("flags", "u1"),
                       ("reserved", "<u2"), ("params", "<u4", (4,))],
                      align=True)
assert DESCRIPTOR.itemsize == 24

_DTYPES = {
    "bf16": np.dtype(np.uint16),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "index": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "descriptor": DESCRIPTOR,
}


def numpy_dtype(name):
    """The numpy dtype a program's element type `name` (bf16, f32, i8, ...)
    travels as."""
    try:
        return _DTYPES[name]
    except KeyError:
        raise ValueError("no numpy type for element type %r" % name) from None


def to_bf16(values):
    """float values -> bf16 bits (np.uint16), rounded to nearest even;
    NaN stays NaN."""
    f = np.ascontiguousarray(values, dtype=np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    out = rounded.astype(np.uint16)
    nan = np.isnan(f)
    out[nan] = ((bits[nan] >> 16) | 0x40).astype(np.uint16)
    return out


def from_bf16(bits):
    """bf16 bits (np.uint16) -> float32, exactly."""
    b = np.ascontiguousarray(bits, dtype=np.uint16)
    return (b.astype(np.uint32) << 16).view(np.float32)
