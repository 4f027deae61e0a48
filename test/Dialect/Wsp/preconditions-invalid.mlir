// RUN: wsp-opt %s -split-input-file -verify-diagnostics

func.func @nested(%c: i1) -> i32 {
  scf.if %c {
    // expected-error @+1 {{states a precondition of a planning function: it belongs in the body of a func.func, not nested in 'scf.if'}}
    wsp.require %c, "nested"
  }
  %ok = arith.constant 0 : i32
  return %ok : i32
}

// -----

func.func @no_status(%c: i1) {
  // expected-error @+1 {{belongs to a function whose first result is the i32 status it returns INVALID_PARAMS in}}
  wsp.require %c, "no status"
  return
}

// -----

func.func @after_a_write(%c: i1, %m: memref<4xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %ok = arith.constant 0 : i32
  // expected-note @+1 {{here}}
  memref.store %ok, %m[%c0] : memref<4xi32>
  // expected-error @+1 {{is checked before anything is written, but 'memref.store' before it may write memory}}
  wsp.require %c, "too late"
  return %ok : i32
}

// -----

func.func @after_a_loop_that_writes(%c: i1, %m: memref<4xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %ok = arith.constant 0 : i32
  // expected-note @+1 {{here}}
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %ok, %m[%i] : memref<4xi32>
  }
  // expected-error @+1 {{is checked before anything is written, but 'scf.for' before it may write memory}}
  wsp.require %c, "too late"
  return %ok : i32
}

// -----

func.func @bad_values(%m: memref<?xf32>, %n: index) -> i1 {
  // expected-error @+1 {{operand #0 must be 1D memref of 32-bit signless integer values}}
  %ok = wsp.all_in_range %m[%n] below %n : memref<?xf32>
  return %ok : i1
}

// -----

func.func @bad_table(%t: memref<?xi32>, %ids: memref<?xi32>, %n: index) -> i1 {
  // expected-error @+1 {{operand #0 must be 2D memref of 32-bit signless integer values}}
  %ok = wsp.pages_in_range %t rows(%ids[%n]) lengths(%ids) page_size(%n) pages(%n) : memref<?xi32>, memref<?xi32>, memref<?xi32>
  return %ok : i1
}
