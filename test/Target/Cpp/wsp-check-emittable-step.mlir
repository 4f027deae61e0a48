// RUN: wsp-opt %s --wsp-check-emittable -split-input-file -verify-diagnostics

// The contract's checks of a wsp.step: what the emitters need to print its
// table (lib/Target/Cpp/StepCapture.h), one failing case each, named at
// the step or at the op of its function that it concerns. A lowered step
// passes: launches that return a status, the token buffer's rows patched
// where a launch takes them, per-request buffers, a variant whose plan
// the table keeps.
wsp.step @decode captures @step patches [
  #wsp.patch<token_offset, 0>, #wsp.patch<argmax_output, 3>,
  #wsp.patch<request_positions, 1>, #wsp.patch<request_kv_lens, 2>]
func.func private @embed(%tokens: memref<?xi32>, %positions: memref<?xi32>,
                         %kv_lens: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func private @pick(%next: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func private @pick_kept(%next: memref<?xi32>, %plan: memref<4xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func @step(%tokens: memref<?xi32>, %positions: memref<?xi32>,
                %kv_lens: memref<?xi32>, %next: memref<?xi32>) -> i32 {
  %a = func.call @embed(%tokens, %positions, %kv_lens)
      : (memref<?xi32>, memref<?xi32>, memref<?xi32>) -> i32
  %b = func.call @pick(%next) {wsp.replay_with = @pick_kept}
      : (memref<?xi32>) -> i32
  %s = arith.addi %a, %b : i32
  return %s : i32
}

// -----

// The table records a func.func's launches. (A declaration fails the
// verifier: step-invalid.mlir.)
// expected-error @+1 {{'wsp.step' op captures @s, which is not a func.func definition: the emitters print the table of a func.func's launches}}
wsp.step @t captures @s patches []
// expected-error @+1 {{'emitc.func' op cannot be emitted as C++: no emitter prints it at module level}}
emitc.func @s() {
  emitc.return
}

// -----

// A captured step must be lowered first: its launches are the calls.
// expected-error @+1 {{'wsp.step' op captures @s, which returns no status: run convert-llm-to-wsp first (each operator becomes a launch the table records)}}
wsp.step @t captures @s patches []
func.func private @l(%a: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func @s(%a: memref<?xi32>) {
  %r = func.call @l(%a) : (memref<?xi32>) -> i32
  return
}

// -----

// A table records launches; a collective in a captured step is refused.
shard.grid @tp(shape = ?)
// expected-error @+1 {{'wsp.step' op captures @s, which runs a collective (wsp.all_reduce, ...): a table records launches, and replaying collectives is not supported yet}}
wsp.step @t captures @s patches []
func.func private @l(%a: memref<?xf32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func @s(%a: memref<?xf32>) -> i32 {
  %r = func.call @l(%a) : (memref<?xf32>) -> i32
  %s = wsp.all_reduce %a on @tp : memref<?xf32>
  return %s : i32
}

// -----

// A single sequence's position and KV length (seed 004's scalar patches)
// are patched where a launch takes them: a second position patch, another
// use of the patched scalar, a launch that takes it twice or with a token
// row are each named.
// expected-error @+1 {{'wsp.step' op patches the position twice (arguments 1 and 2); the table counts one sequence's}}
wsp.step @t captures @s patches [#wsp.patch<position, 1>, #wsp.patch<pos_and_kv, 2, 3>]
func.func private @l(%a: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func @s(%a: memref<?xi32>, %p: i32, %q: i32, %k: i32) -> i32 {
  %r = func.call @l(%a) : (memref<?xi32>) -> i32
  return %r : i32
}

// -----

wsp.step @t captures @s patches [#wsp.patch<token_offset, 0>, #wsp.patch<pos_and_kv, 1, 2>]
func.func private @l(%a: memref<?xi32>, %p: i32) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func @s(%a: memref<?xi32>, %p: i32, %k: i32) -> i32 {
  // expected-error @+1 {{'arith.addi' op uses the patched scalar argument 1 of wsp.step @t; the table patches it only where a launch takes the argument itself}}
  %next = arith.addi %p, %p : i32
  // expected-error @+1 {{'func.call' op takes the patched position of wsp.step @t as two operands (0 and 1); a launch the table records reads it once}}
  %r = func.call @m(%p, %p) : (i32, i32) -> i32
  // expected-error @+1 {{'func.call' op takes both a token row and a patched scalar of wsp.step @t; a launch the table records carries one patch (seed 004's commands patch one thing each)}}
  %s = func.call @l(%a, %k) : (memref<?xi32>, i32) -> i32
  return %s : i32
}
func.func private @m(%p: i32, %q: i32) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}

// -----

// A token row read through a view would be token 0's every token.
wsp.step @t captures @s patches [#wsp.patch<token_offset, 0>]
func.func private @l(%a: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func @s(%a: memref<?xi32>) -> i32 {
  // expected-error @+1 {{'memref.subview' op uses the token_offset argument 0 of wsp.step @t; the table patches that token row only where a launch takes the argument itself}}
  %v = memref.subview %a[1] [2] [1] : memref<?xi32> to memref<2xi32, strided<[1], offset: 1>>
  %r = func.call @l(%a) : (memref<?xi32>) -> i32
  return %r : i32
}

// -----

// expected-error @+1 {{'wsp.step' op captures @s, which makes no launch (no func.call of a launch function)}}
wsp.step @t captures @s patches []
func.func @s(%a: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}

// -----

// Each launch's status is what the table records of it.
wsp.step @t captures @s patches []
func.func private @l(%a: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func private @quiet(%a: memref<?xi32>) {
  return
}
func.func @s(%a: memref<?xi32>) -> i32 {
  %r = func.call @l(%a) : (memref<?xi32>) -> i32
  // expected-error @+1 {{'func.call' op is launch 1 of wsp.step @t but returns 0 values; the table records each launch's status}}
  func.call @quiet(%a) : (memref<?xi32>) -> ()
  return %r : i32
}

// -----

// The table calls a variant in its launch's place as a function; a
// wsp.kernel that takes the call's operands is no such variant.
wsp.tier_config @T [#wsp.tier<0, [1, 16]>]
wsp.kernel @k tiers(@T) tier(0) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func private @l(%d: !wsp.descriptor<attention>) {
  return
}
wsp.step @t captures @s patches []
func.func @s(%d: !wsp.descriptor<attention>) -> i32 {
  // expected-error @+2 {{'func.call' op is replayed with @k, which is not a func.func: the table of wsp.step @t calls the variant in the launch's place}}
  // expected-error @+1 {{'func.call' op is launch 0 of wsp.step @t but returns 0 values}}
  func.call @l(%d) {wsp.replay_with = @k} : (!wsp.descriptor<attention>) -> ()
  %ok = arith.constant 0 : i32
  return %ok : i32
}

// -----

// A launch gets this token's row through one operand: the table patches
// one pointer per launch.
wsp.step @t captures @s patches [#wsp.patch<token_offset, 0>]
func.func private @l(%a: memref<?xi32>, %b: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func @s(%a: memref<?xi32>) -> i32 {
  // expected-error @+1 {{'func.call' op reads or writes the patched token buffer of wsp.step @t through two operands (0 and 1); a launch the table records patches one}}
  %r = func.call @l(%a, %a) : (memref<?xi32>, memref<?xi32>) -> i32
  return %r : i32
}
