// Every verifier clause of wsp.step and #wsp.patch, one failing case each.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{captures @missing, which is not a function in scope}}
wsp.step @t captures @missing patches []

// -----

wsp.tier_config @Tiers [#wsp.tier<0, [1, 16]>]
// expected-error @+1 {{captures @k, which is not a function in scope}}
wsp.step @t captures @k patches []
wsp.kernel @k tiers(@Tiers) (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// -----

// The table is built from the function's body.
// expected-error @+1 {{'wsp.step' op captures @f, which is not a function definition}}
wsp.step @t captures @f patches []
func.func private @f(memref<?xi32>) -> i32

// -----

// expected-error @+1 {{patch #0 (position) lands in argument 2 but @f has 2 arguments}}
wsp.step @t captures @f patches [#wsp.patch<position, 2>]
func.func @f(%a: i32, %b: i32) { return }

// -----

// expected-error @+1 {{patch #0 (kv_seq_len) lands in argument 0 of type 'i64', a 64-bit integer: the patch writes 32 bits}}
wsp.step @t captures @f patches [#wsp.patch<kv_seq_len, 0>]
func.func @f(%a: i64) { return }

// -----

// expected-error @+1 {{patch #0 (position) lands in argument 0 of type 'index', not a scalar of the step's parameter block (an i32 argument)}}
wsp.step @t captures @f patches [#wsp.patch<position, 0>]
func.func @f(%a: index) { return }

// -----

// expected-error @+1 {{patch #0 (pos_and_kv) lands in argument 1 of type 'f32', not a scalar}}
wsp.step @t captures @f patches [#wsp.patch<pos_and_kv, 0, 1>]
func.func @f(%a: i32, %b: f32) { return }

// -----

// expected-error @+1 {{patch #0 (token_offset) lands in argument 0 of type 'memref<?xi64>', not a token buffer}}
wsp.step @t captures @f patches [#wsp.patch<token_offset, 0>]
func.func @f(%a: memref<?xi64>) { return }

// -----

// expected-error @+1 {{patch #0 (request_kv_lens) lands in argument 0 of type 'memref<?x?xi32>', not one i32 per request}}
wsp.step @t captures @f patches [#wsp.patch<request_kv_lens, 0>]
func.func @f(%a: memref<?x?xi32>) { return }

// -----

// expected-error @+1 {{patch #1 (request_kv_lens) patches argument 0, which patch #0 patches too}}
wsp.step @t captures @f patches [#wsp.patch<request_positions, 0>,
                                 #wsp.patch<request_kv_lens, 0>]
func.func @f(%a: memref<?xi32>) { return }

// -----

// expected-error @+1 {{patch #1 is a second token_offset patch}}
wsp.step @t captures @f patches [#wsp.patch<token_offset, 0>,
                                 #wsp.patch<token_offset, 1>]
func.func @f(%a: memref<?xi32>, %b: memref<?xi32>) { return }

// -----

// expected-error @+1 {{argmax_output writes argument 1 of type 'memref<?x?xi32>' but token_offset reads argument 0 of type 'memref<?xi32>': the two are rows of one token buffer, of one type}}
wsp.step @t captures @f patches [#wsp.patch<token_offset, 0>,
                                 #wsp.patch<argmax_output, 1>]
func.func @f(%a: memref<?xi32>, %b: memref<?x?xi32>) { return }

// -----

// expected-error @+1 {{patch #1 (argmax_output) patches argument 0, which patch #0 patches too}}
wsp.step @t captures @f patches [#wsp.patch<token_offset, 0>,
                                 #wsp.patch<argmax_output, 0>]
func.func @f(%a: memref<?xi32>) { return }

// -----

// expected-error @+1 {{a pos_and_kv patch names two arguments (position, KV length)}}
wsp.step @t captures @f patches [#wsp.patch<pos_and_kv, 0>]
func.func @f(%a: i32) { return }

// -----

// expected-error @+1 {{a position patch names one argument}}
wsp.step @t captures @f patches [#wsp.patch<position, 0, 1>]
func.func @f(%a: i32, %b: i32) { return }

// -----

// expected-error @+1 {{pos_and_kv writes the position and the KV length to two arguments, not argument 0 twice}}
wsp.step @t captures @f patches [#wsp.patch<pos_and_kv, 0, 0>]
func.func @f(%a: i32) { return }

// -----

// expected-error @+1 {{patch argument index must be >= 0, got -1}}
wsp.step @t captures @f patches [#wsp.patch<position, -1>]
func.func @f(%a: i32) { return }
