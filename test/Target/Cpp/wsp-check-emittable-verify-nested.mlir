// wsp-check-emittable with verify-nested=false (as wsp-pipeline runs it,
// after tile-check-planned verified each function and kernel): it verifies
// the module op and the module's ops that are not isolated from above (no
// nested pass runs on them), not what is inside functions and kernels.
// Parsing and the pass manager's verification are off, so only the
// contract can catch an invalid op.
// RUN: wsp-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false --wsp-check-emittable=verify-nested=false -split-input-file -verify-diagnostics -o /dev/null
// The default verifies all of it.
// RUN: not wsp-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false --wsp-check-emittable -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALL
// ALL: 'arith.constant' op failed to verify that all of {value, result} have same type
// ALL: 'memref.global' op initial value shape expected to be 2 but was 3
// ALL: 'tile.fuse' must be an i64 of at least 2

// An invalid op inside a function: the nested contract's to find.
func.func @f() -> i64 {
  %0 = "arith.constant"() <{value = 1 : i32}> : () -> i64
  return %0 : i64
}

// -----

// An invalid global at module level: found.
// expected-error @+1 {{'memref.global' op initial value shape expected to be 2 but was 3}}
"memref.global"() <{sym_name = "g", sym_visibility = "private", type = memref<2xf32>, initial_value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>, constant}> : () -> ()

// -----

// An attribute of the module op itself: verified.
// expected-error @+1 {{'tile.fuse' must be an i64 of at least 2 (the ops of the fused run it starts), got 1 : i64}}
module attributes {tile.fuse = 1 : i64} {
}
