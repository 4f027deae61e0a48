// Every stage contract verifies the module before its own check: the
// drivers that compile for users (wspc, the Python package) run the
// pipeline without MLIR's verification after every pass and rely on the
// contracts for it. Here the parser's and the pass manager's verification
// are both off, so only the contract can catch the invalid constant.
// RUN: wsp-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false --wsp-check-planned -verify-diagnostics -o /dev/null
// RUN: wsp-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false --wsp-check-specialized -verify-diagnostics -o /dev/null
// RUN: wsp-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false --tile-check-planned -verify-diagnostics -o /dev/null
// RUN: wsp-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false --wsp-check-emittable -verify-diagnostics -o /dev/null

func.func @f() -> i64 {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = 1 : i32}> : () -> i64
  return %0 : i64
}
