#!/usr/bin/env bash
# scripts/tsan.sh: the thread-safety run (issue 45, finding 1).
#
#  1. Builds the runtime's gtests and the Python package again in
#     build-tsan/ with clang-19 and ThreadSanitizer (WSP_SANITIZE=thread;
#     no benchmarks).
#  2. Runs every runtime gtest there: the planners, the simulated cores'
#     thread pool, the tile simulation, the collectives' ranks as threads.
#  3. Runs the Python tests under /usr/bin/python3 with the ThreadSanitizer
#     runtime preloaded (an instrumented extension module cannot load
#     without it), and every program they compile built with
#     -fsanitize=thread too ($CXX, which wsp.compile reads):
#     python/test/test_threads.py calls one compiled function from 8
#     threads at once. WSP_TSAN_PYTESTS names the pytest files (default:
#     all of python/test but the two that run the command-line tools).
#
# Any report fails the run (halt_on_error: the first report ends its
# process); scripts/tsan.supp lists the upstream false positives it
# suppresses, each with its reason. Like scripts/sanitize.sh, it begins
# with scripts/bootstrap.sh (packages, and the main tree when needed).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${WSP_TSAN_BUILD_DIR:-$root/build-tsan}

"$root/scripts/bootstrap.sh"

source "$root/scripts/configure-clang.sh"
configure_clang "$build" \
  -DWSP_SANITIZE=thread \
  -DWSP_ENABLE_PYTHON=ON -DWSP_ENABLE_BENCHMARKS=OFF
# Only what this run needs: the runtime's tests and the Python package
# (its extension links the compiler's libraries).
cmake --build "$build" --target pto-runtime-tests _wsp

runtime=$(clang++-19 -print-file-name=libclang_rt.tsan-x86_64.so)
[[ -f $runtime ]] || { echo "tsan: no ThreadSanitizer runtime ($runtime)" >&2; exit 1; }
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1} suppressions=$root/scripts/tsan.supp"
export TSAN_SYMBOLIZER_PATH=${TSAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}

status=0
ctest --test-dir "$build" -L gtest --output-on-failure -j"${CTEST_PARALLEL_LEVEL:-2}" || status=1

# The Python tests: the interpreter is not instrumented, the extension and
# every compiled program are (built by clang-19 with -fsanitize=thread:
# wsp.compile reads $CXX, and its cache keys the command). pytest
# captures a test's stderr and a report ends the process before pytest
# prints it, so reports go to files, printed here.
# Left out: the tests that run the command-line tools (wsp-opt's --help,
# the README's commands), which this build does not build; they start no
# thread in the extension, and the main run (scripts/test.sh) has them.
pytests=${WSP_TSAN_PYTESTS:-$root/python/test \
  --ignore=$root/python/test/test_help_defaults.py \
  --ignore=$root/python/test/test_readme_commands.py}
reports=$build/tsan-reports
rm -rf "$reports"
mkdir -p "$reports"
# shellcheck disable=SC2086 # WSP_TSAN_PYTESTS is a list of paths
if ! LD_PRELOAD=$runtime TSAN_OPTIONS="$TSAN_OPTIONS log_path=$reports/python" \
    CXX="clang++-19 -fsanitize=thread -fno-omit-frame-pointer -gline-tables-only" \
    PYTHONPATH=$build/python_packages \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider $pytests; then
  status=1
fi
# (A file may hold other output too: print_suppressions=1's counts.)
for report in "$reports"/*; do
  [[ -e $report ]] || continue
  if grep -qE "(WARNING|ERROR|FATAL): ThreadSanitizer" "$report"; then
    echo "tsan: ThreadSanitizer report ($report):" >&2
    status=1
  fi
  cat "$report" >&2
done
exit $status
