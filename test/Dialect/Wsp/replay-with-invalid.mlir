// Every verifier clause of the wsp.replay_with attribute (what
// wsp-keep-step-plans puts on a call a step table records), one failing
// case each. What the attribute names is checked where a wsp.step captures
// the call's function, with the verifier's symbol tables; the last case: a
// call no step captures is not looked at.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

func.func private @f(%x: memref<?xi32>) -> i32
func.func @g(%x: memref<?xi32>) -> i32 {
  // expected-error @+1 {{has wsp.replay_with = 3 : i64, which is not a function symbol}}
  %s = func.call @f(%x) {wsp.replay_with = 3} : (memref<?xi32>) -> i32
  return %s : i32
}

// -----

func.func @g() -> i32 {
  // expected-error @+1 {{has wsp.replay_with, which only a call carries}}
  %c = arith.constant {wsp.replay_with = @g} 0 : i32
  return %c : i32
}

// -----

func.func private @f(%x: memref<?xi32>) -> i32
func.func @g(%x: memref<?xi32>) -> i32 {
  // expected-error @+1 {{is replayed with @missing, which is not a function definition}}
  %s = func.call @f(%x) {wsp.replay_with = @missing} : (memref<?xi32>) -> i32
  return %s : i32
}
wsp.step @t captures @g patches []

// -----

func.func private @f(%x: memref<?xi32>) -> i32
func.func private @f_kept(%x: memref<?xi32>, %k: memref<4xi64>) -> i32
func.func @g(%x: memref<?xi32>) -> i32 {
  // expected-error @+1 {{is replayed with @f_kept, which is not a function definition}}
  %s = func.call @f(%x) {wsp.replay_with = @f_kept} : (memref<?xi32>) -> i32
  return %s : i32
}
wsp.step @t captures @g patches []

// -----

func.func private @f(%x: memref<?xi32>) -> i32
func.func private @f_kept(%x: memref<?xf32>, %k: memref<4xi64>) -> i32 {
  %c = arith.constant 0 : i32
  return %c : i32
}
func.func @g(%x: memref<?xi32>) -> i32 {
  // expected-error @+1 {{is replayed with @f_kept, whose leading arguments are not the call's operands ('memref<?xi32>')}}
  %s = func.call @f(%x) {wsp.replay_with = @f_kept} : (memref<?xi32>) -> i32
  return %s : i32
}
wsp.step @t captures @g patches []

// -----

func.func private @f(%x: memref<?xi32>) -> i32
func.func private @f_kept(%x: memref<?xi32>, %k: memref<4xi64>) -> i64 {
  %c = arith.constant 0 : i64
  return %c : i64
}
func.func @g(%x: memref<?xi32>) -> i32 {
  // expected-error @+1 {{is replayed with @f_kept, which returns 'i64' where the call returns 'i32'}}
  %s = func.call @f(%x) {wsp.replay_with = @f_kept} : (memref<?xi32>) -> i32
  return %s : i32
}
wsp.step @t captures @g patches []

// -----

func.func private @f(%x: memref<?xi32>) -> i32
func.func private @f_kept(%x: memref<?xi32>, %k: memref<?xi64>) -> i32 {
  %c = arith.constant 0 : i32
  return %c : i32
}
func.func @g(%x: memref<?xi32>) -> i32 {
  // expected-error @+1 {{is replayed with @f_kept, whose kept argument 1 is 'memref<?xi64>', not a static rank-1 buffer a table can hold}}
  %s = func.call @f(%x) {wsp.replay_with = @f_kept} : (memref<?xi32>) -> i32
  return %s : i32
}
wsp.step @t captures @g patches []

// -----

func.func private @f(%x: memref<?xi32>) -> i32
func.func private @f_kept(%x: memref<?xi32>, %k: i64) -> i32 {
  %c = arith.constant 0 : i32
  return %c : i32
}
func.func @g(%x: memref<?xi32>) -> i32 {
  // expected-error @+1 {{is replayed with @f_kept, whose kept argument 1 is 'i64', not a static rank-1 buffer a table can hold}}
  %s = func.call @f(%x) {wsp.replay_with = @f_kept} : (memref<?xi32>) -> i32
  return %s : i32
}
wsp.step @t captures @g patches []

// -----

func.func private @f(%x: memref<?xi32>) -> i32
func.func @g(%x: memref<?xi32>) -> i32 {
  %s = func.call @f(%x) {wsp.replay_with = @missing} : (memref<?xi32>) -> i32
  return %s : i32
}
