#!/usr/bin/env bash
# check-pto-isa.sh PTO_ISA_DIR [--no-costmodel | --costmodel-only] [EXAMPLE...]
#
# Checks the AICore form of every example (or of the EXAMPLEs named, by
# stem: decode_attention, moe_chain, ...) against a checkout of
# hw-native-sys/pto-isa (https://github.com/hw-native-sys/pto-isa), which CI
# does not have:
#
#  1. CPU simulation (unless --costmodel-only). For each examples/ir/X.mlir
#     with a self-check X.selfcheck.cpp: `wspc --run` builds and runs the
#     CPU-sim form (our tile simulation) and dumps its outputs; the device
#     form (AICPU + AICore sources) is compiled with clang++-19 against
#     pto-isa's headers in its CPU simulation (-D__CPU_SIM), launched on 24
#     blocks by pto-isa's LaunchKernelMultiCore (the emitted launch hook; a
#     mixed kernel's block runs as three threads, the cube and two vector
#     cores, whose cross-core flags wait for each other), and every output
#     is compared with the CPU-sim form's within the example's tolerance
#     (and with the self-check's naive reference). A program with
#     collectives runs its ranks as threads of one process; the bytes of
#     each collective are pulled on the AICore by pto-isa's TGATHER
#     (wsp_comm_gather_*). A line says which example is being built before
#     each one starts.
#  2. Cost model (unless --no-costmodel, or EXAMPLEs are named): every
#     kernel of bench/costmodel/kernels.mlir and decode attention under
#     pto-isa's perf-sim cost model (-D__COSTMODEL), one line per kernel and
#     shape with its modeled cycles, its bound and their ratio
#     (scripts/pto-isa/costmodel.py; the shapes are in
#     bench/costmodel/README.md). pto-isa's cost model does not compile as
#     shipped (at 3186c381); the fixes are applied to a temporary copy by
#     scripts/pto-isa/costmodel-fixes.sh, never to the checkout.
#
# Exit status 0 only when every example matches and every kernel has its
# cost-model line. Needs clang++-19 (g++-12 and clang-14 do not compile
# pto-isa's headers) and a built tree (WSP_BUILD_DIR, default build/).
# Nothing is written outside a temporary directory, which is removed unless
# WSP_KEEP=1.
set -euo pipefail

usage() {
  echo "usage: $0 PTO_ISA_DIR [--no-costmodel | --costmodel-only] [EXAMPLE...]" >&2
  exit 2
}
if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 0
fi
[[ $# -ge 1 && $1 != -* ]] || usage
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pto_arg=$1
shift
costmodel=1
simulate=1
examples=()
for arg in "$@"; do
  case $arg in
    --no-costmodel) costmodel=0 ;;
    --costmodel-only) simulate=0 ;;
    -*) usage ;;
    *)
      [[ -f $root/examples/ir/$arg.selfcheck.cpp || -f $root/examples/model/$arg.selfcheck.cpp ]] || {
        echo "check-pto-isa: no example '$arg' with a self-check (examples/ir or examples/model)" >&2
        exit 2
      }
      examples+=("$arg") ;;
  esac
done
[[ $costmodel == 1 || $simulate == 1 ]] || usage
# Named examples check the CPU simulation only.
[[ ${#examples[@]} -eq 0 ]] || costmodel=0
set -- "$pto_arg"

pto=$(CDPATH= cd -- "$1" 2>/dev/null && pwd) || {
  echo "check-pto-isa: no directory '$1'" >&2
  exit 2
}
[[ -f $pto/include/pto/pto-inst.hpp ]] || {
  echo "check-pto-isa: '$1' is not a pto-isa checkout (no include/pto/pto-inst.hpp)" >&2
  exit 2
}
build=${WSP_BUILD_DIR:-$root/build}
bin=$build/bin
for tool in wspc wsp-opt wsp-translate; do
  [[ -x $bin/$tool ]] || {
    echo "check-pto-isa: no $bin/$tool (build wsp first, or set WSP_BUILD_DIR)" >&2
    exit 2
  }
done
cxx=${CLANGXX:-clang++-19}
command -v "$cxx" >/dev/null || {
  echo "check-pto-isa: no $cxx (apt install clang-19; pto-isa needs C++20 and clang >= 15)" >&2
  exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/check-pto-isa.XXXXXX")
if [[ ${WSP_KEEP:-0} == 1 ]]; then
  echo "check-pto-isa: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi

commit=$(git -C "$pto" rev-parse --short=8 HEAD 2>/dev/null || echo "unknown commit")
echo "check-pto-isa: pto-isa $commit at $pto, $("$cxx" --version | head -1)"

# pto-isa's CPU simulation as its own tests build it (tests/cpu/st).
sim_flags=(-std=c++20 -O1 -D__CPU_SIM -Wno-macro-redefined -Wno-ignored-attributes
  -include stdint.h -include stddef.h -I "$pto/include" -I "$root/include")
# The host side of the device form: no pto-isa, so our runtime leaves
# get_block_idx() to it.
host_flags=(-std=c++20 -O1 -D__CPU_SIM -DWSP_DEVICE_FORM
  -DPTO_RUNTIME_NO_GLOBAL_BLOCK_IDX -I "$root/include")

# Without std::bfloat16_t (libstdc++ 12), pto-isa's CPU simulation stores
# bfloat16_t as IEEE half: the host side then fills bf16 tensors with half
# bits (the self-checks' values are exact in both).
cat >"$work/probe.cpp" <<'EOF'
#include <pto/pto-inst.hpp>
#include <type_traits>
int main() { return std::is_same_v<bfloat16_t, half> ? 0 : 1; }
EOF
"$cxx" "${sim_flags[@]}" -w "$work/probe.cpp" -o "$work/probe" -pthread || {
  echo "check-pto-isa: $cxx cannot compile $pto's headers (see above)" >&2
  exit 2
}
if "$work/probe"; then
  host_flags+=(-DWSP_BF16_STORAGE_IS_F16)
  echo "check-pto-isa: pto-isa's CPU simulation holds bfloat16_t as half"
fi

status=0
checks=()
if [[ $simulate == 1 ]]; then
  for check in "$root"/examples/ir/*.selfcheck.cpp "$root"/examples/model/*.selfcheck.cpp; do
    stem=$(basename "$check" .selfcheck.cpp)
    if [[ ${#examples[@]} -eq 0 || " ${examples[*]} " == *" $stem "* ]]; then
      checks+=("$check")
    fi
  done
fi
index=0
for check in "${checks[@]}"; do
  stem=$(basename "$check" .selfcheck.cpp)
  index=$((index + 1))
  echo "check-pto-isa: [$index/${#checks[@]}] $stem: building both forms ..."
  source_dir=$(dirname "$check")
  dir=$work/$stem
  mkdir -p "$dir/sim-out" "$dir/dev"
  log=$dir/log.txt
  # 1. The CPU-sim form, its outputs dumped.
  if ! WSP_DUMP_DIR=$dir/sim-out "$bin/wspc" "$source_dir/$stem.mlir" \
      -o "$dir/sim" --run >"$log" 2>&1; then
    echo "$stem: the CPU-sim form fails its self-check:"
    tail -20 "$log"
    status=1
    continue
  fi
  # 2. The device form over pto-isa.
  if ! { "$bin/wsp-opt" "$source_dir/$stem.mlir" --wsp-pipeline="target=ascend" \
           -o "$dir/dev/planned.mlir" &&
         "$bin/wsp-translate" --wsp-to-abi "$dir/dev/planned.mlir" -o "$dir/dev/wsp_module_abi.h" &&
         "$bin/wsp-translate" --wsp-to-aicpu "$dir/dev/planned.mlir" -o "$dir/dev/wsp_module_aicpu.cpp" &&
         "$bin/wsp-translate" --wsp-to-aicore "$dir/dev/planned.mlir" -o "$dir/dev/wsp_module_aicore.cpp"; } \
       >>"$log" 2>&1; then
    echo "$stem: the device form cannot be emitted:"
    tail -5 "$log"
    status=1
    continue
  fi
  if ! { "$cxx" "${sim_flags[@]}" -I "$dir/dev" -c "$dir/dev/wsp_module_aicore.cpp" \
           -o "$dir/dev/aicore.o" &&
         "$cxx" "${host_flags[@]}" -I "$dir/dev" -c "$dir/dev/wsp_module_aicpu.cpp" \
           -o "$dir/dev/aicpu.o" &&
         "$cxx" "${host_flags[@]}" -I "$dir/dev" -c "$check" -o "$dir/dev/selfcheck.o" &&
         "$cxx" "$dir/dev/aicore.o" "$dir/dev/aicpu.o" "$dir/dev/selfcheck.o" \
           -o "$dir/dev/run" -pthread; } >>"$log" 2>&1; then
    echo "$stem: the AICore form does not build against pto-isa:"
    grep -m 20 -E "error|undefined" "$log" || tail -20 "$log"
    status=1
    continue
  fi
  if WSP_COMPARE_DIR=$dir/sim-out "$dir/dev/run" >"$dir/dev/run.txt" 2>&1; then
    cases=$(grep -c ": ok" "$dir/dev/run.txt" || true)
    worst=$(grep -o "max |diff| [0-9.e+-]*" "$dir/dev/run.txt" | awk '{print $3}' |
      sort -g | tail -1 || true)
    if [[ -n $worst ]]; then
      echo "$stem: AICore form over pto-isa's CPU simulation: $cases cases ok," \
        "outputs match the CPU-sim form (max |diff| $worst)"
    else
      # The operator self-checks compare each form with their own
      # reference instead of through dump files.
      echo "$stem: AICore form over pto-isa's CPU simulation: $cases cases ok" \
        "against the self-check's reference"
    fi
  else
    echo "$stem: the AICore form over pto-isa MISMATCHES:"
    grep -E "MISMATCH|DIFFERENT|status|no output|: ok" "$dir/dev/run.txt" | head -20
    status=1
  fi
done
if [[ $simulate == 1 && ${#examples[@]} -eq 0 ]]; then
  for ir in "$root"/examples/ir/*.mlir; do
    stem=$(basename "$ir" .mlir)
    [[ -f $root/examples/ir/$stem.selfcheck.cpp ]] ||
      echo "$stem: no self-check, not compared"
  done
fi

if [[ $costmodel == 1 ]]; then
  echo "check-pto-isa: the kernels under pto-isa's cost model (building them takes a few minutes) ..."
  /usr/bin/python3 "$root/scripts/pto-isa/costmodel.py" "$pto" "$work/costmodel" || status=1
fi

if [[ $status == 0 && $simulate == 0 ]]; then
  echo "check-pto-isa: every kernel modeled"
elif [[ $status == 0 && ${#examples[@]} -gt 0 ]]; then
  echo "check-pto-isa: the examples named match"
elif [[ $status == 0 ]]; then
  echo "check-pto-isa: all examples match"
else
  echo "check-pto-isa: FAILED"
fi
exit $status
