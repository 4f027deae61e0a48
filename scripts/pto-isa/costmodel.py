#!/usr/bin/python3
"""costmodel.py PTO_ISA_DIR WORK_DIR [KERNEL...]

Every kernel of bench/costmodel/kernels.mlir under pto-isa's perf-sim cost
model (-D__COSTMODEL), at the per-core shapes of bench/costmodel/README.md,
one line per kernel and shape:

  costmodel: <kernel> <shape> cycles=<N> bound=<N> bound_kind=<gm|cube|vector> ratio=<cycles/bound>

cycles: the slowest simulated block's cycles (each block is simulated alone;
the model shares nothing between blocks). bound: the largest of the bytes
that must move over the modeled bandwidth of their path, the MACs over the
cube's peak for the dtype, and the vector cycles of the minimal instruction
sequence (docs/rationale/Backend.md, "Kernel speed under the cost model").
Under a kernel's line, "  (model: ...)" names the vector instructions the
model charged less than a cycle per 256-byte repeat (undercharged()).
Called by scripts/check-pto-isa.sh; the cost model's header fixes go to a
copy of PTO_ISA_DIR (costmodel-fixes.sh), everything else to WORK_DIR.
Given KERNEL names, only those run. Exit status 0 when every line printed.
"""

import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BENCH = os.path.join(ROOT, "bench", "costmodel")

# pto-isa 3186c381, include/pto/costmodel/arch_config.hpp (A2/A3): GB/s at
# 1.85 GHz, as bytes per cycle.
CLOCK_HZ = 1.85e9
GIB = 1024.0**3
GM_TO_L1 = 135.0 * GIB / CLOCK_HZ  # 78.35
GM_TO_UB = 100.9 * GIB / CLOCK_HZ  # 58.56
UB_TO_GM = 188.46 * GIB / CLOCK_HZ  # 109.38
L0C_TO_GM = 70.0 * GIB / CLOCK_HZ  # 40.63
# a2a3/cce_costmodel/cce_costmodel_cube.hpp: mad is one cycle per 16 x 32
# bytes x 16 box (two for f32): 8192 int8 MACs, 4096 bf16 MACs per cycle.
CUBE_MACS = {"i8": 16 * 32 * 16, "bf16": 16 * 16 * 16}
# a2a3/cce_costmodel/cce_costmodel_vector_*.hpp: cycles per repeat (one
# repeat is 256 bytes: 64 f32 lanes) of the vector instructions the bounds
# use; the per-instruction head is left out (a lower bound). A row or
# column broadcast (TROWEXPANDMUL, TCOLEXPANDMUL) is a vmul: pto-isa runs
# it in count mode, which the model charged its head only until
# costmodel-fixes.sh's fix 8, so the bounds counted it as 0 until then.
VEC_SLOPE = {
    "vadd": 2, "vsub": 2, "vmul": 2, "vmax": 2, "vexp": 2, "vconv": 2,
    "vabs": 1, "vcadd": 7,
}
BLOCKS = 24  # the examples' mix(24): 24 AICore blocks, 48 vector cores
# Decode attention's KV lengths (examples/ir/decode_attention.mlir: tiers 0-2).
DECODE_LENS = [1024, 4096, 16384]


def vec(instr, elements, lanes=64):
    """The cycles of `instr` over `elements` values, `lanes` per repeat."""
    return VEC_SLOPE[instr] * math.ceil(elements / lanes)


def row_reduce(rows, cols, fold):
    """The cycles of a row sum or max of f32 rows: halves folded (`fold`,
    vadd or vmax) down to 64 columns, then one vcadd repeat per row (the
    model's vcmax is no cheaper)."""
    cycles, width = 0, cols
    while width > 64:
        width //= 2
        cycles += vec(fold, rows * width)
    return cycles + vec("vcadd", rows * 64)


@dataclass
class Bound:
    """What one core must do: bytes per path, MACs, minimal vector cycles."""

    loads: float = 0.0  # bytes GM -> on chip
    load_rate: float = GM_TO_UB
    stores: float = 0.0  # bytes on chip -> GM
    store_rate: float = UB_TO_GM
    macs: float = 0.0
    mac_dtype: str = "bf16"
    vector: float = 0.0  # cycles of one vector core

    def kinds(self):
        gm = max(self.loads / self.load_rate, self.stores / self.store_rate)
        return {
            "gm": gm,
            "cube": self.macs / CUBE_MACS[self.mac_dtype],
            "vector": self.vector,
        }


@dataclass
class Case:
    kernel: str  # the function of kernels.mlir
    shape: str  # the per-core shape, as printed
    args: list  # per argument: (sizes or None for the signature's, fill)
    bound: Bound
    blocks: list = field(default_factory=list)  # simulated; [] = all


def norm_bound(rows, cols, residual):
    """add + rms_norm (residual) or rms_norm of rows x cols bf16 on one
    vector core: x (and r) read once, the weight once, y (and after_res)
    written once; per element: convert (x2 with r), add, square, the row
    sum, the products by rstd and by the weight (broadcasts), convert back
    (x2 with after_res)."""
    n = rows * cols
    convs = 2 if residual else 1
    v = (vec("vconv", n) * 2 * convs + (vec("vadd", n) if residual else 0)
         + 3 * vec("vmul", n) + row_reduce(rows, cols, "vadd"))
    return Bound(loads=2 * n * convs + 4 * cols, stores=2 * n * convs, vector=v)


def quant_bound(rows, cols):
    """scale_dynamic_quant of rows x cols bf16 -> int8: x read once, the
    smooth scale once; per element: convert, the product by the smooth
    scale (a broadcast), |x|, the row max, the product by 127 / max (a
    broadcast), convert to int8 (through f16: two, the second from half,
    128 lanes a repeat)."""
    n = rows * cols
    v = (vec("vconv", n) + 2 * vec("vmul", n) + vec("vabs", n)
         + row_reduce(rows, cols, "vmax") + vec("vconv", n)
         + vec("vconv", n, lanes=128))
    return Bound(loads=2 * n + 4 * cols, stores=n + 4 * rows, vector=v)


def gemm_bound(m, k, n):
    """int8 M x K times K x N into bf16 with per-row and per-column scales:
    A and B read once, C written once from L0C."""
    return Bound(loads=m * k + k * n + 4 * (m + n), load_rate=GM_TO_L1,
                 stores=2 * m * n, store_rate=L0C_TO_GM, macs=m * k * n,
                 mac_dtype="i8")


def cases():
    """The measured kernels and shapes (bench/costmodel/README.md)."""
    v = 2 * BLOCKS  # vector cores
    rows = 64
    m = BLOCKS * 512
    out = [
        Case("quant_matmul_prefill", "m512_k2048_n512",
             [([m, 2048], None), ([m], None), None, None, ([m, 512], None), None],
             gemm_bound(512, 2048, 512)),
        Case("quant_matmul_decode", "m16_k2048_n256",
             [([16, 2048], None), ([16], None), None, None, ([16, 6144], None), None],
             gemm_bound(16, 2048, 256)),
        Case("moe_group_gemm", "e8x1536_k2048_n512",
             [([8 * 1536, 2048], None), ([8 * 1536], None), None, None,
              (None, ("const", 1536)), ([8 * 1536, 512], None), None],
             gemm_bound(512, 2048, 512)),
        Case("moe_group_gemm_prefill", "e8x1536_k2048_n512",
             [([8 * 1536, 2048], None), ([8 * 1536], None), None, None,
              (None, ("const", 1536)), ([8 * 1536, 512], None), None],
             gemm_bound(512, 2048, 512)),
        Case("pre_attention_norm", "r64_h2048",
             [([v * rows, 2048], None)] * 2 + [None] + [([v * rows, 2048], None)] * 2,
             norm_bound(rows, 2048, True)),
        Case("final_norm", "r64_h2048",
             [([v * rows, 2048], None), None, ([v * rows, 2048], None)],
             norm_bound(rows, 2048, False)),
        Case("scale_dynamic_quant", "r64_h2048",
             [([v * rows, 2048], None), None, ([v * rows, 2048], None), ([v * rows], None)],
             quant_bound(rows, 2048)),
    ]
    # rope: 64 tokens per vector core of 32 query + 8 key heads of 128, in
    # place: each rotated head read and written once, sin and cos once per
    # token; per element a convert each way, the products by cos and by
    # sin (column broadcasts) and one add or subtract.
    tokens = v * 64
    heads = 40 * 128 * 64
    out.append(Case(
        "rope", "t64_h40_d128",
        [([tokens, 48, 128], None), ([tokens, 128], None), ([tokens, 128], None),
         ([1], ("const", 0)), ([1], ("const", tokens))],
        Bound(loads=2 * heads + 2 * 2 * 128 * 64, stores=2 * heads,
              vector=2 * vec("vconv", heads) + 2 * vec("vmul", heads)
              + vec("vadd", heads))))
    # kv_store: 64 new tokens per vector core, 8 KV heads of 128, K and V:
    # read once and written once; no arithmetic.
    seqs = v
    per_tok = 2 * 8 * 128 * 2
    out.append(Case(
        "kv_store", "t64_kvh8_d128",
        [([seqs * 64, 8, 128], None), ([seqs * 64, 8, 128], None),
         ([seqs, 8], ("table", 8)), ([seqs], ("iota", 0)), ([seqs], ("const", 64)),
         ([seqs], ("const", 512)), ([seqs * 8, 8, 128, 128], None),
         ([seqs * 8, 8, 128, 128], None)],
        Bound(loads=64 * per_tok, stores=64 * per_tok)))
    # prefill attention: 24 sequences of 128 new tokens after 1024 cached,
    # 16 query heads on 2 KV heads of 128.
    seqs, q_len, cached = BLOCKS, 128, 1024
    kv = cached + q_len
    pages = (kv + 127) // 128
    # Causal: query token s sees cached + s + 1 positions.
    seen = sum(cached + s + 1 for s in range(q_len))
    scores = 16 * seen  # per sequence: one per block
    b = Bound(loads=2 * q_len * 16 * 128 + 2 * 2 * 2 * kv * 128,
              load_rate=GM_TO_L1, stores=2 * q_len * 16 * 128,
              store_rate=UB_TO_GM, macs=2 * scores * 128,
              vector=(vec("vexp", scores) + vec("vmax", scores)
                      + vec("vadd", scores)) / 2)
    out.append(Case(
        "prefill_attention", "q128_kv1152_h16_kvh2_d128",
        [([seqs * q_len, 16, 128], None), ([seqs], ("iota", 0)),
         ([seqs], ("const", cached)), ([seqs], ("const", q_len)),
         ([seqs, pages], ("table", pages)), ([seqs * pages, 2, 128, 128], None),
         ([seqs * pages, 2, 128, 128], None), ([seqs * q_len, 16, 128], None),
         None, None],
        b))
    return out


CTYPE = {"i8": "int8_t", "i32": "int32_t", "f32": "float", "bf16": "wsp_gen::bf16",
         "f16": "wsp_gen::f16", "i64": "int64_t"}


def driver_source(signatures, chosen):
    """A host program that runs one case (argv[1]) of `chosen`: its
    arguments in mapped zero pages (the model moves no data; only sizes,
    ids and tables are written), its AICPU entry called once."""
    sig = {f["name"]: f for f in signatures["functions"]}
    lines = [
        "// Generated by scripts/pto-isa/costmodel.py from the module's call",
        "// signatures: each case's arguments at its sizes, its AICPU entry",
        "// called once under pto-isa's cost model.",
        '#include "wsp_module_abi.h"',
        '#include "harness.hpp"',
        "",
        "#include <cstdio>",
        "#include <cstring>",
        "",
    ]
    for c in chosen:
        lines.append(f'extern "C" int {c.kernel}(void *args);')
    lines += ["", "int main(int argc, char **argv) {",
              "  if (argc != 2) {",
              '    std::fprintf(stderr, "usage: %s CASE\\n", argv[0]);',
              "    return 2;", "  }"]
    for c in chosen:
        f = sig[c.kernel]
        if len(f["args"]) != len(c.args):
            raise SystemExit(f"costmodel: {c.kernel} has {len(f['args'])} "
                             f"arguments, the case gives {len(c.args)}")
        lines.append(f'  if (std::strcmp(argv[1], "{c.kernel}") == 0) {{')
        fields = []
        for i, (a, spec) in enumerate(zip(f["args"], c.args)):
            sizes = a["shape"] if spec is None or spec[0] is None else spec[0]
            fill = None if spec is None else spec[1]
            if len(sizes) != len(a["shape"]) or any(
                    s != d and d >= 0 for s, d in zip(sizes, a["shape"])):
                raise SystemExit(f"costmodel: {c.kernel} argument {i}: sizes "
                                 f"{sizes} do not fit {a['type']}")
            t = CTYPE[a["dtype"]]
            rank = len(sizes)
            dims = ", ".join(str(s) for s in sizes)
            lines.append(f"    auto a{i} = harness::view<{t}, {rank}>({{{dims}}});")
            if fill:
                kind, value = fill
                lines.append(f'    harness::fill_{kind}(a{i}, {value});')
            fields.append(f"a{i}")
        lines.append(f"    wsp_gen::{c.kernel}_args args{{{', '.join(fields)}}};")
        lines.append(f"    return harness::report_status(\"{c.kernel}\", {c.kernel}(&args));")
        lines.append("  }")
    lines += ['  std::fprintf(stderr, "no case %s\\n", argv[1]);', "  return 2;", "}"]
    return "\n".join(lines) + "\n"


def read_summary(path):
    """{unit: {column: int}} of a block's perf-sim pipeline summary."""
    units = {}
    with open(path) as f:
        header = f.readline().strip().split(",")
        for line in f:
            cells = line.strip().split(",")
            row = dict(zip(header, cells))
            units[row.get("unit", "")] = {
                k: int(v) for k, v in row.items()
                if k not in ("unit", "op_name") and re.fullmatch(r"-?\d+", v)}
    return units


# A vector instruction's tile, as the model's trace names it:
# "TMUL(8x2048,fp32):<id>" (the destination's shape and type).
TRACE_NAME = re.compile(r"T(\w+)\((\d+)x(\d+),(\w+)\)")
TRACE_BYTES = {"fp32": 4, "int32": 4, "fp16": 2, "bf16": 2, "int16": 2,
               "int8": 1, "uint8": 1}


def undercharged(trace_path):
    """(count, {instruction: count}, cycles) of the vector instructions the
    model charged less than one cycle per 256-byte repeat of their
    destination, and the cycles they would add at 2 a repeat (vadd's and
    vmul's slope). pto-isa dispatches an element-wise instruction of more
    than 255 repeats (a [8 x 2048] f32 tile), and the broadcasts, in count
    mode, with the count in the vector mask and a repeat field of 0; the
    model charged such an instruction its head only until
    costmodel-fixes.sh's fix 8, so this finds none unless pto-isa moved
    on. Row reductions name their [rows x 1] destination and are never
    counted."""
    with open(trace_path) as f:
        events = json.load(f)
    count, kinds, missing = 0, {}, 0
    for e in events:
        if e.get("ph") != "X" or not str(e.get("tid", "")).endswith("VEC"):
            continue
        m = TRACE_NAME.match(e.get("name", ""))
        if not m or m.group(4) not in TRACE_BYTES:
            continue
        rows, cols = int(m.group(2)), int(m.group(3))
        repeats = math.ceil(rows * cols * TRACE_BYTES[m.group(4)] / 256)
        if e.get("dur", 0) >= repeats:
            continue
        count += 1
        kinds["T" + m.group(1)] = kinds.get("T" + m.group(1), 0) + 1
        missing += 2 * repeats - e.get("dur", 0)
    return count, kinds, missing


def slowest_block(out_dir):
    """(cycles, table, block) of the slowest simulated block of any table
    the run launched, or an error string."""
    best = None
    tables = sorted(d for d in os.listdir(out_dir)
                    if os.path.isdir(os.path.join(out_dir, d)))
    if not tables:
        return "no kernel was launched"
    for table in tables:
        for block in sorted(os.listdir(os.path.join(out_dir, table))):
            path = os.path.join(out_dir, table, block,
                                f"{table}_pipeline_summary.csv")
            if not os.path.exists(path):
                return f"no report for {table}/{block}"
            units = read_summary(path)
            for name, row in units.items():
                if row.get("busy_cycles", 0) > 0 and row.get("active_cycles", 0) == 0:
                    return f"{table}/{block}: {name} never became active"
            cycles = max((r.get("total_cycles", 0) for r in units.values()),
                         default=0)
            if best is None or cycles > best[0]:
                best = (cycles, table, block)
    return best


# The cost model's flags as pto-isa's tests/costmodel build them; the host
# side (AICPU source, driver) without pto-isa.
def cm_flags(pto, dev):
    return ["-std=c++23", "-O1", "-D__COSTMODEL", "-D__NPU_ARCH__=2201",
            "-DPTO_COMM_NOT_SUPPORTED", "-D__DAV_C220_CUBE__", "-D__DAV_CUBE__",
            "-D__DAV_VEC__", "-DPTO_RUNTIME_NO_GLOBAL_BLOCK_IDX", "-Wno-switch",
            "-Wno-deprecated-declarations", "-include", "stdint.h", "-include",
            "stddef.h", "-I", os.path.join(pto, "include/pto/costmodel/stubs"),
            "-I", os.path.join(pto, "include"), "-I", os.path.join(ROOT, "include"),
            "-I", dev]


def host_flags(dev):
    return ["-std=c++17", "-O1", "-DWSP_DEVICE_FORM",
            "-DPTO_RUNTIME_NO_GLOBAL_BLOCK_IDX", "-I", os.path.join(ROOT, "include"),
            "-I", dev, "-I", BENCH]


class Module:
    """One module's device form, built with a driver into WORK/<name>/run."""

    def __init__(self, work, name, mlir, log):
        self.dir = os.path.join(work, name)
        self.mlir, self.log = mlir, log
        os.makedirs(self.dir, exist_ok=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def emit(self, bindir):
        planned = self.path("planned.mlir")
        steps = [[os.path.join(bindir, "wsp-opt"), self.mlir,
                  "--wsp-pipeline=target=ascend", "-o", planned]]
        for flag, name in [("abi", "wsp_module_abi.h"), ("aicpu", "wsp_module_aicpu.cpp"),
                           ("aicore", "wsp_module_aicore.cpp"),
                           ("call-signatures", "signatures.json")]:
            steps.append([os.path.join(bindir, "wsp-translate"), "--wsp-to-" + flag,
                          planned, "-o", self.path(name)])
        for s in steps:
            if not run(s, self.log):
                print(f"costmodel: {os.path.basename(s[0])} failed on "
                      f"{self.mlir} (see {self.log})")
                return False
        return True

    def start_aicore(self, cxx, pto):
        return subprocess.Popen(
            [cxx, *cm_flags(pto, self.dir), "-c", self.path("wsp_module_aicore.cpp"),
             "-o", self.path("aicore.o")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def finish(self, cxx, job):
        """The host side, then the link, once `job` (the AICore source) is
        done."""
        h = host_flags(self.dir)
        ok = run([cxx, *h, "-c", self.path("wsp_module_aicpu.cpp"), "-o",
                  self.path("aicpu.o")], self.log) and \
            run([cxx, *h, "-c", self.path("driver.cpp"), "-o", self.path("driver.o")],
                self.log)
        text, _ = job.communicate()
        with open(self.log, "a") as f:
            f.write(text)
        return job.returncode == 0 and ok and run(
            [cxx, self.path("aicore.o"), self.path("aicpu.o"), self.path("driver.o"),
             "-o", self.path("run")], self.log)


def run(cmd, log, **kw):
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, **kw).returncode == 0


def main(argv):
    if len(argv) < 3 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    src, work = argv[1], os.path.abspath(argv[2])
    known = cases()
    wanted = argv[3:]
    unknown = [w for w in wanted
               if w not in {c.kernel for c in known} | {"decode_attention"}]
    if unknown:
        print(f"costmodel: no kernel {', '.join(unknown)} (kernels: "
              f"{', '.join(c.kernel for c in known)}, decode_attention)", file=sys.stderr)
        return 2
    chosen = [c for c in known if not wanted or c.kernel in wanted]
    decode_lens = DECODE_LENS if not wanted or "decode_attention" in wanted else []
    bindir = os.path.join(os.environ.get("WSP_BUILD_DIR", os.path.join(ROOT, "build")), "bin")
    cxx = os.environ.get("CLANGXX", "clang++-19")
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "log.txt")
    open(log, "w").close()

    # The fixed copy is kept for the next run in the same WORK_DIR, and made
    # again when the fixes or the checkout it came from changed (a stale
    # copy would model the old fixes).
    pto = os.path.join(work, "pto-isa")
    fixes = os.path.join(HERE, "costmodel-fixes.sh")
    with open(fixes, "rb") as f:
        stamp = hashlib.sha256(f.read()).hexdigest() + " " + os.path.abspath(src)
    stamp_path = os.path.join(work, "pto-isa.stamp")
    kept = (os.path.isdir(pto) and os.path.exists(stamp_path)
            and open(stamp_path).read() == stamp)
    if not kept:
        shutil.rmtree(pto, ignore_errors=True)
        if not run([fixes, src, pto], log):
            print("costmodel: the cost model's fixes do not apply (see " + log + ")")
            return 1
        with open(stamp_path, "w") as f:
            f.write(stamp)

    kernels = Module(work, "kernels", os.path.join(BENCH, "kernels.mlir"), log)
    attention = Module(work, "decode_attention",
                       os.path.join(ROOT, "examples", "ir", "decode_attention.mlir"), log)
    modules = ([kernels] if chosen else []) + ([attention] if decode_lens else [])
    for m in modules:
        if not m.emit(bindir):
            return 1
    if chosen:
        with open(kernels.path("signatures.json")) as f:
            signatures = json.load(f)
        with open(kernels.path("driver.cpp"), "w") as f:
            f.write(driver_source(signatures, chosen))
    if decode_lens:
        shutil.copy(os.path.join(BENCH, "decode_attention.cpp"),
                    attention.path("driver.cpp"))
    # The AICore sources (the slow ones) build side by side.
    started = [m.start_aicore(cxx, pto) for m in modules]
    built = [m.finish(cxx, job) for m, job in zip(modules, started)]
    if not all(built):
        print("costmodel: the kernels do not build under pto-isa's cost model:")
        with open(log) as f:
            errors = [l.rstrip() for l in f if "error" in l]
        print("\n".join(errors[:20]) or f"(see {log})")
        return 1

    status = 0
    for c in chosen:
        out = os.path.join(work, "out", c.kernel)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        env = dict(os.environ, WSP_COSTMODEL_OUT=out)
        if c.blocks:
            env["WSP_COSTMODEL_BLOCKS"] = ",".join(str(b) for b in c.blocks)
        ran = subprocess.run([kernels.path("run"), c.kernel], cwd=work, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if ran.returncode != 0:
            why = (ran.stdout + ran.stderr).strip().splitlines()
            print(f"costmodel: {c.kernel} {c.shape} not modeled: the run failed "
                  f"({why[-1] if why else 'status %d' % ran.returncode})")
            status = 1
            continue
        found = slowest_block(out)
        if isinstance(found, str):
            print(f"costmodel: {c.kernel} {c.shape} not modeled: {found}")
            status = 1
            continue
        cycles = found[0]
        kind, bound = max(c.bound.kinds().items(), key=lambda kv: kv[1])
        print(f"costmodel: {c.kernel} {c.shape} cycles={cycles} bound={bound:.0f} "
              f"bound_kind={kind} ratio={cycles / bound:.2f}", flush=True)
        _, table, block = found
        trace = os.path.join(out, table, block, f"{table}.json")
        if os.path.exists(trace):
            n, kinds, missing = undercharged(trace)
            if n:
                what = ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items()))
                print(f"  (model: {n} vector instructions charged under a cycle "
                      f"per 256-byte repeat ({what}): count mode or a broadcast, "
                      f"head only; at 2 a repeat, {missing} more vector cycles)",
                      flush=True)
    for n in decode_lens:
        out = os.path.join(work, "out", f"decode_attention_kv{n}")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        ran = subprocess.run([attention.path("run"), str(n), out], cwd=work,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # pto-isa prints a report per launch and warnings; the driver's
        # line and the busy cycles under it are what count.
        lines = [l for l in ran.stdout.splitlines()
                 if l.startswith("costmodel: ") or l.startswith("  (")]
        if ran.returncode != 0 or not lines:
            why = (ran.stdout + ran.stderr).strip().splitlines()
            print(f"costmodel: decode_attention kv{n} not modeled: the run failed "
                  f"({why[-1] if why else 'status %d' % ran.returncode})")
            status = 1
            continue
        print("\n".join(lines), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
