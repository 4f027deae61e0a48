#!/usr/bin/env python3
"""What calling a compiled program from Python costs over calling it from
C++ (issue goal: at most 20 us), measured in one run on one library:

  C++:    bench/python/call_loop.cpp calls the C entry point n times;
  Python: prog.f(...) n times on the same numpy arrays (argument checks,
          the call's own pointer and size arrays, the ctypes call; no
          copies).

    PYTHONPATH=build/python_packages /usr/bin/python3 \
        bench/python/call_overhead.py [--calls N]

Three calls: examples/ir/moe.mlir's @moe_space (two scalars, no launch:
the bare call), an rms_norm whose sizes the planner rejects (three
memrefs checked and passed, INVALID_PARAMS before any launch) and the
same rms_norm over one token row (a planned dispatch on 48 simulated
cores, whose thread launches dominate both sides and make its difference
noisy). Also checks that the arrays were not copied: the program's
output lands in the caller's array.
"""

import argparse
import ctypes
import os
import pathlib
import subprocess
import tempfile
import time

import numpy as np

import wsp
from wsp.ir import Module, memref
from wsp.ops import llm

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parents[1]


def cxx_loop(tmp):
    lib = os.path.join(tmp, "libcall_loop.so")
    subprocess.run(["c++", "-O2", "-shared", "-fPIC", "-std=c++17",
                    str(HERE / "call_loop.cpp"), "-o", lib], check=True)
    loop = ctypes.CDLL(lib).wsp_bench_call_loop
    loop.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                     ctypes.c_int64]
    loop.restype = ctypes.c_double
    return loop


def measure(loop, function, args, calls, rounds=5):
    """Best of `rounds` (seconds per call) for C++ and for Python."""
    function(*args)
    # The pointers and sizes of these arrays, as a Python call packs them.
    packed = function._pack(args, {})
    entry = ctypes.cast(function._entry, ctypes.c_void_p).value
    pointers = ctypes.addressof(packed[0])
    sizes = ctypes.addressof(packed[1])
    best_cxx = best_py = float("inf")
    for _ in range(rounds):
        best_cxx = min(best_cxx, loop(entry, pointers, sizes, calls))
        start = time.perf_counter()
        for _ in range(calls):
            function(*args)
        best_py = min(best_py, (time.perf_counter() - start) / calls)
    return best_cxx, best_py


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("WSP_CACHE_DIR", os.path.join(tmp, "cache"))
        loop = cxx_loop(tmp)
        moe = wsp.compile(SRC / "examples" / "ir" / "moe.mlir")

        m = Module("norm")
        with m.function("norm", x=memref([None, 1024], "bf16"),
                        w=memref([1024], "f32"),
                        y=memref([None, 1024], "bf16")) as f:
            llm.rms_norm(hidden_states=f.x, weight=f.w, y=f.y, eps=1e-6)
        norm = wsp.compile(m)
        x = wsp.to_bf16(np.ones((1, 1024)))
        w = np.full(1024, 2.0, np.float32)
        y = np.zeros_like(x)

        print("call overhead, best of 5 rounds of %d calls" % opts.calls)
        print("%-34s %10s %10s %10s  goal" % ("program", "C++ us",
                                               "Python us", "extra us"))
        y_bad = np.zeros((2, 1024), np.uint16)  # INVALID_PARAMS: no launch
        for label, fn, args, calls in [
                ("moe_space(3, 5): 2 scalars", moe.moe_space, (3, 5),
                 opts.calls),
                ("rms_norm, rejected: 3 memrefs", norm.norm, (x, w, y_bad),
                 opts.calls),
                ("rms_norm, 1 x 1024: 3 memrefs", norm.norm, (x, w, y),
                 max(1, opts.calls // 10))]:
            cxx, py = measure(loop, fn, args, calls)
            extra = (py - cxx) * 1e6
            print("%-34s %10.3f %10.3f %10.3f  <= 20 us: %s" % (
                label, cxx * 1e6, py * 1e6, extra,
                "met" if extra <= 20 else "MISSED"))
        # No copies: the program wrote into the caller's own array.
        print("output written in place, no copy: %s" % (
            "yes" if (y == 0x4000).all() else "NO"))


if __name__ == "__main__":
    main()
