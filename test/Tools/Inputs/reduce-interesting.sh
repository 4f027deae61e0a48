#!/bin/sh
# wsp-reduce's interestingness test for wsp-reduce.mlir: the candidate is
# "interesting" (exit 1) while convert-llm-to-wsp still refuses an
# rms_norm whose hidden_size is not a multiple of 16. $1: wsp-opt (the
# pass's test-arg), $2: the candidate (mlir-reduce passes it last).
if "$1" --convert-llm-to-wsp "$2" 2>&1 | grep -q "lowers with hidden_size a multiple of 16"; then
  exit 1
fi
exit 0
