#!/usr/bin/env bash
# scripts/sanitize.sh [FUZZ_SECONDS]: the reliability run (issue 18).
#
#  1. Builds the tree again in build-san/ with clang-19, AddressSanitizer
#     and UndefinedBehaviorSanitizer (any undefined behaviour is fatal) and
#     the libFuzzer targets (WSP_SANITIZE, WSP_ENABLE_FUZZ; no Python, no
#     benchmarks).
#  2. Runs the gtest and lit suites there: every tool, planner and
#     compile-and-run test under the sanitizers.
#  3. Runs each fuzz target for FUZZ_SECONDS (default 60) from its seed
#     corpus (the examples and lit inputs for the IR target, fuzz/regressions
#     for both); a crash, sanitizer report, contract violation or hang (over
#     20 s per input) fails the run and leaves the input in
#     build-san/fuzz-findings/. A long run is one command:
#       scripts/sanitize.sh 3600
#  4. Checks that the compiler's output does not depend on the compiler
#     that built it: every example through --wsp-pipeline and
#     --wsp-to-cpusim with build/'s tools (g++) and build-san/'s (clang)
#     must be the same text. (C++
#     leaves the order of evaluating a call's arguments open, and the two
#     compilers differ: ops created in a call's arguments come out in
#     different orders.)
#
# CI runs it after scripts/test.sh. It begins with scripts/bootstrap.sh,
# which installs clang-19 and libclang-rt-19-dev when they are missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${WSP_SAN_BUILD_DIR:-$root/build-san}
seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "sanitize: FUZZ_SECONDS must be a number" >&2; exit 2; }

# Packages (clang-19, its sanitizer runtimes) and the main tree, when
# needed (idempotent).
"$root/scripts/bootstrap.sh"

source "$root/scripts/configure-clang.sh"
configure_clang "$build" \
  -DWSP_SANITIZE=ON -DWSP_ENABLE_FUZZ=ON \
  -DWSP_ENABLE_PYTHON=OFF -DWSP_ENABLE_BENCHMARKS=OFF
cmake --build "$build"

# allow_user_poisoning=0: Debian's MLIR (the static archives every binary
# links) is not instrumented, but LLVM's BumpPtrAllocator poisons its slabs
# by hand in code compiled here and not in code compiled there; mixed, the
# two report use-after-poison on memory the allocator handed out correctly. Every other check stays on (heap,
# stack, use-after-scope, leaks, undefined behaviour).
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}
ctest --test-dir "$build" -L 'gtest|lit' --output-on-failure -j2

findings=$build/fuzz-findings
mkdir -p "$findings"
status=0
fuzz() { # fuzz TARGET SEED_DIR...
  local target=$1
  shift
  local corpus=$build/fuzz-corpus/$target
  mkdir -p "$corpus"
  echo "sanitize: fuzzing $target for ${seconds}s"
  if ! "$build/bin/$target" -max_total_time="$seconds" -timeout=20 \
      -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$findings/$target-" "$corpus" "$@" \
      > "$build/$target.log" 2>&1; then
    echo "sanitize: $target found a problem (input in $findings):" >&2
    tail -40 "$build/$target.log" >&2
    status=1
  fi
  grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$build/$target.log" || true
}
# Seeds: every example and lit input for the IR target (copied: libFuzzer
# writes new inputs into its first directory only), and the regressions.
seeds=$build/fuzz-seeds/wsp-fuzz-ir
rm -rf "$seeds" && mkdir -p "$seeds"
i=0
while IFS= read -r f; do
  cp "$f" "$seeds/$i.mlir"
  i=$((i + 1))
done < <(find "$root/examples" "$root/test" -name '*.mlir' | sort)
fuzz wsp-fuzz-ir "$seeds" "$root/fuzz/regressions/ir"
fuzz wsp-fuzz-planners "$root/fuzz/regressions/planners"

# The same IR, and the same CPU-simulation C++, from either compiler's
# build.
main_bin=${WSP_BUILD_DIR:-$root/build}/bin
compile() { # compile BIN_DIR FILE: the pipeline's IR, then its C++
  local ir
  ir=$("$1/wsp-opt" "$2" --wsp-pipeline 2>&1) || true
  printf '%s\n' "$ir"
  printf '%s\n' "$ir" | "$1/wsp-translate" --wsp-to-cpusim 2>&1
}
compared=0
while IFS= read -r f; do
  if ! cmp -s <(compile "$main_bin" "$f") <(compile "$build/bin" "$f"); then
    echo "sanitize: $f: the tools built by g++ and by clang print different IR or C++" >&2
    status=1
  fi
  compared=$((compared + 1))
done < <(find "$root/examples" "$root/bench" -name '*.mlir' | sort)
echo "sanitize: the IR and C++ of $compared programs compared between the g++ and clang builds"
exit $status
