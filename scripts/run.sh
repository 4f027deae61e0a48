#!/usr/bin/env bash
# scripts/run.sh [WORKLOAD.mlir]: sets up when needed (scripts/bootstrap.sh:
# packages, configure, and a build of the driver wspc and what it needs,
# not the tests and benches; idempotent, seconds when nothing changed),
# then the main job: wspc compiles the workload (decode attention by
# default) and runs its CPU-simulation self-check. The tree goes to
# build/<workload name>.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
workload=${1:-$root/examples/ir/decode_attention.mlir}
[[ -f $workload ]] || { echo "run: no workload '$workload'" >&2; exit 2; }
"$root/scripts/bootstrap.sh" wspc
build=${WSP_BUILD_DIR:-$root/build}
name=$(basename "$workload" .mlir)
"$build/bin/wspc" "$workload" -o "$build/$name" --run
