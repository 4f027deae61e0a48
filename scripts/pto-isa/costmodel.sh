#!/usr/bin/env bash
# costmodel.sh PTO_ISA_DIR WORK_DIR
#
# Decode attention's AICore form under pto-isa's perf-sim cost model
# (called by scripts/check-pto-isa.sh): the cost model's header fixes on a
# copy of PTO_ISA_DIR (costmodel-fixes.sh), the device form of
# examples/ir/decode_attention.mlir, its AICore source built with the cost
# model's flags (its launch hook runs each block under LAUNCH_KERNEL), and
# decode_attention_costmodel.cpp, which runs one step per tier and prints
# the modeled cycles, the busy cycles per pipe and the ratio to the K/V
# bandwidth bound. Everything goes to WORK_DIR.
set -euo pipefail

[[ $# -eq 2 ]] || {
  echo "usage: $0 PTO_ISA_DIR WORK_DIR" >&2
  exit 2
}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${WSP_BUILD_DIR:-$root/build}/bin
cxx=${CLANGXX:-clang++-19}
work=$2
mkdir -p "$work"
work=$(cd "$work" && pwd)
log=$work/log.txt
: >"$log"

"$here/costmodel-fixes.sh" "$1" "$work/pto-isa" >>"$log" 2>&1 || {
  echo "costmodel: the cost model's fixes do not apply to $1:"
  tail -3 "$log"
  exit 1
}
pto=$work/pto-isa

dev=$work/dev
mkdir -p "$dev"
"$bin/wsp-opt" "$root/examples/ir/decode_attention.mlir" \
  --wsp-pipeline="target=ascend" -o "$dev/planned.mlir"
"$bin/wsp-translate" --wsp-to-abi "$dev/planned.mlir" -o "$dev/wsp_module_abi.h"
"$bin/wsp-translate" --wsp-to-aicpu "$dev/planned.mlir" -o "$dev/wsp_module_aicpu.cpp"
"$bin/wsp-translate" --wsp-to-aicore "$dev/planned.mlir" -o "$dev/wsp_module_aicore.cpp"

# The cost model's flags, as pto-isa's tests/costmodel build them; the host
# side (AICPU source, driver) without pto-isa.
cm_flags=(-std=c++23 -O1 -D__COSTMODEL -D__NPU_ARCH__=2201 -DPTO_COMM_NOT_SUPPORTED
  -D__DAV_C220_CUBE__ -D__DAV_CUBE__ -D__DAV_VEC__ -DPTO_RUNTIME_NO_GLOBAL_BLOCK_IDX
  -Wno-switch -Wno-deprecated-declarations -include stdint.h -include stddef.h
  -I "$pto/include/pto/costmodel/stubs" -I "$pto/include" -I "$root/include" -I "$dev")
host_flags=(-std=c++17 -O1 -DWSP_DEVICE_FORM -DPTO_RUNTIME_NO_GLOBAL_BLOCK_IDX
  -I "$root/include" -I "$dev")
if ! { "$cxx" "${cm_flags[@]}" -c "$dev/wsp_module_aicore.cpp" -o "$dev/aicore.o" &&
       "$cxx" "${host_flags[@]}" -c "$dev/wsp_module_aicpu.cpp" -o "$dev/aicpu.o" &&
       "$cxx" "${host_flags[@]}" -c "$here/decode_attention_costmodel.cpp" -o "$dev/driver.o" &&
       "$cxx" "$dev/aicore.o" "$dev/aicpu.o" "$dev/driver.o" -o "$dev/run"; } >>"$log" 2>&1; then
  echo "costmodel: the AICore form does not build under pto-isa's cost model:"
  grep -m 20 -E "error" "$log" || tail -20 "$log"
  exit 1
fi

# pto-isa prints a report per launch and a warning per instruction; the
# driver's summary is what counts.
if ! (cd "$work" && "$dev/run" >"$work/run.txt" 2>"$work/run.err"); then
  echo "costmodel: the run failed:"
  grep -E "^tier|^  block" "$work/run.txt" || tail -5 "$work/run.err"
  exit 1
fi
echo "decode_attention under pto-isa's cost model (24 blocks, 24 requests per step):"
grep -E "^tier|^  block" "$work/run.txt" || {
  echo "costmodel: the run printed no summary"
  exit 1
}
