#!/usr/bin/env bash
# Writes what wsp emits for every example, and compares it with a reference
# written the same way before a change: a refactoring of the lowering or
# the emitters must leave every emitted file byte-identical.
#
#   scripts/compare-emitted.sh write REF      # the reference tree, into REF
#   scripts/compare-emitted.sh check REF      # write a new tree, diff it
#
# The tree holds, for each examples/**/*.mlir, the `wspc X -o DIR` tree
# (no --run: the emitted sources, not their build) and wspc's messages; and
# for each test/Conversion/LlmToWsp/*.mlir, the output and diagnostics of
# `wsp-opt -split-input-file --convert-llm-to-wsp` on it. `check` exits 1
# and prints the diff when anything differs. WSP_BUILD_DIR names the build
# whose tools run (default build/).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${WSP_BUILD_DIR:-$root/build}/bin

usage() {
  echo "usage: $0 write|check DIR" >&2
  exit 2
}
[[ $# -eq 2 ]] || usage
mode=$1
ref=$2
[[ $mode == write || $mode == check ]] || usage
for tool in wspc wsp-opt; do
  [[ -x $bin/$tool ]] || { echo "$0: no $bin/$tool (build first)" >&2; exit 2; }
done

# write_tree OUT: every example's emitted tree and the conversion tests'
# output, under OUT.
write_tree() {
  local out=$1 f rel rc
  mkdir -p "$out"
  cd "$root"
  while IFS= read -r f; do
    rel=${f%.mlir}
    mkdir -p "$out/wspc/$rel"
    # wspc's own messages (and its status) are part of the comparison,
    # with the tree's place spelled OUT.
    { rc=0; "$bin/wspc" "$f" -o "$out/wspc/$rel/tree" 2>&1 || rc=$?; echo "exit $rc"; } |
      sed "s|$out/|OUT/|g" > "$out/wspc/$rel/wspc.log"
  done < <(find examples -name '*.mlir' | sort)
  mkdir -p "$out/llm-to-wsp"
  while IFS= read -r f; do
    { rc=0; "$bin/wsp-opt" -split-input-file --convert-llm-to-wsp "$f" 2>&1 || rc=$?
      echo "exit $rc"; } > "$out/llm-to-wsp/$(basename "$f").out"
  done < <(find test/Conversion/LlmToWsp -maxdepth 1 -name '*.mlir' | sort)
}

if [[ $mode == write ]]; then
  [[ ! -e $ref ]] || { echo "$0: $ref exists; remove it first" >&2; exit 2; }
  write_tree "$ref"
  echo "wrote $(find "$ref" -type f | wc -l) files under $ref"
  exit 0
fi

[[ -d $ref ]] || { echo "$0: no reference tree at $ref (write it first)" >&2; exit 2; }
new=$(mktemp -d)
trap 'rm -rf "$new"' EXIT
write_tree "$new"
if diff -r "$ref" "$new"; then
  echo "identical: $(find "$new" -type f | wc -l) files"
else
  echo "$0: the emitted files differ from $ref (above)" >&2
  exit 1
fi
