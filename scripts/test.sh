#!/usr/bin/env bash
# scripts/test.sh: sets up when needed (scripts/bootstrap.sh), then every
# test: ctest (lit, gtest, pytest, examples) and the main job
# (scripts/run.sh's). CI (.ci/run) runs exactly this on a clean clone.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/bootstrap.sh"
build=${WSP_BUILD_DIR:-$root/build}
ctest --test-dir "$build" --output-on-failure -j2
"$build/bin/wspc" "$root/examples/ir/decode_attention.mlir" \
  -o "$build/decode_attention" --run
