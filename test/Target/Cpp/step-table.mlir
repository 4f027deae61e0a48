// wsp.step as C++: each launch of the captured function (its func.call
// ops) gets a struct of its bound arguments and a trampoline; <step>_build
// records the calls once into a pto::runtime::StepTable (the body printed
// with each call recorded, not run) and <step>_replay runs tokens from it,
// patching this token's row of the token buffer into the launches that
// read (token_offset) or write (argmax_output) it and advancing the
// per-request positions and KV lengths. The driver replays a toy model for
// 32 tokens and compares it with calling @step every token and with a
// plain C++ reference; then the bad replays.
// RUN: wsp-translate --wsp-to-cpusim %s -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp %S/Inputs/step-table-main.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s --check-prefix=OUT
// The device form: the launch functions are AICPU code the table calls
// (their `_impl`), not AICPU entries; the step function is one. The
// table's types and its build and replay declarations are in the ABI
// header, their code in the AICPU file.
// RUN: wsp-translate --wsp-to-aicpu %s | FileCheck %s --check-prefix=AICPU
// RUN: wsp-translate --wsp-to-abi %s | FileCheck %s --check-prefix=ABI
// The C entry points of the table (Python's wsp Step calls them:
// python/test/test_tiny_lm_torch.py builds and replays tiny_lm's), taking
// @step's arguments as wsp_capi_step does, and the table in the JSON.
// RUN: wsp-translate --wsp-to-cpusim-capi %s | FileCheck %s --check-prefix=CAPI
// RUN: wsp-translate --wsp-to-call-signatures %s | FileCheck %s --check-prefix=JSON

// CAPI: int32_t wsp_capi_step(void *const *args, const int64_t *sizes,
// CAPI-LABEL: /// wsp.step @decode: @step's launches built once into a table (its
// CAPI: void *wsp_capi_step_decode_new(void) {
// CAPI-NEXT:   return new (std::nothrow) wsp_gen::decode();
// CAPI: void wsp_capi_step_decode_free(void *table) {
// CAPI-NEXT:   delete static_cast<wsp_gen::decode *>(table);
// CAPI: int32_t wsp_capi_step_decode_build(void *table, int32_t max_tokens,
// CAPI-NEXT:     int32_t kv_capacity, void *const *args, const int64_t *sizes,
// CAPI-NEXT:     ::wsp_capi_call *call) {
// CAPI-NEXT:   ::wsp_capi_detail::Scope scope(call);
// CAPI-NEXT:   ::pto::runtime::sim::clear_fault();
// CAPI-NEXT:   const int32_t status = wsp_gen::decode_build(*static_cast<wsp_gen::decode *>(table), max_tokens,
// CAPI-NEXT:       kv_capacity,
// CAPI-NEXT:       MemRef<int32_t, 1>{static_cast<int32_t *>(args[0]), {sizes[0]}},
// CAPI: int32_t wsp_capi_step_decode_replay(void *table, int32_t first_token,
// CAPI: const int32_t status = wsp_gen::decode_replay(*static_cast<wsp_gen::decode *>(table), first_token,
// CAPI-NEXT:       num_tokens,
// CAPI: } // extern "C"
// JSON: "steps": [
// JSON-NEXT: {
// JSON-NEXT: "function": "step",
// JSON-NEXT: "name": "decode"

// AICPU: static int32_t embed_impl(
// AICPU: static int32_t pick_impl(
// AICPU: return embed_impl(a0, b.a1, b.a2, b.a3);
// AICPU-NOT: struct decode
// AICPU: int32_t decode_build(decode &captured,
// AICPU: int32_t decode_replay(decode &captured,
// AICPU: extern "C" AICPU int step(void *args_ptr) {
// AICPU-NOT: AICPU int embed
// AICPU-NOT: AICPU int pick
// ABI: #include <pto/runtime/step_table.hpp>
// ABI-NOT: embed(
// ABI: struct decode_launch0 {
// ABI: struct decode {
// ABI: int32_t decode_build(decode &captured, int32_t max_tokens, int32_t kv_capacity, {{.*}});
// ABI: int32_t decode_replay(decode &captured, int32_t first_token, int32_t num_tokens, {{.*}});
// ABI: extern "C" int step(void *args_ptr);
// ABI-NOT: pick(

// CHECK: #include <pto/runtime/step_table.hpp>
// CHECK-LABEL: struct decode_launch0 {
// CHECK-NEXT: MemRef<int32_t, 1> a0;
// CHECK: static int32_t decode_launch0_run(void *const *buffers,
// CHECK: auto a0 = b.a0;
// CHECK-NEXT: a0.data = static_cast<decltype(a0.data)>(buffers[1]);
// CHECK-NEXT: return embed(a0, b.a1, b.a2, b.a3);
// CHECK-LABEL: struct decode_launch1 {
// CHECK: return pick(b.a0, a1);
// CHECK-LABEL: struct decode {
// CHECK-NEXT: ::pto::runtime::StepTable steps{0, 0};
// CHECK-NEXT: decode_launch0 launch0;
// CHECK-NEXT: decode_launch1 launch1;
// (wsp-translate numbers the arguments: tokens a0, positions a1, kv_lens
// a2, next_tokens a3, acc a4; wspc keeps the source's names.)
// CHECK-LABEL: static int32_t decode_record(decode &captured, MemRef<int32_t, 1> a0,
// CHECK: captured.launch0 = decode_launch0{a0, a1, a2, a4};
// CHECK-NEXT: int32_t {{.*}} = captured.steps.add_launch(decode_launch0_run, &captured.launch0, "embed", ::pto::runtime::StepPatch::TokenOffset, a0.data, static_cast<uint32_t>(4 * a0.sizes[0])) ? 0 : 3;
// CHECK: captured.steps.add_launch(decode_launch1_run, &captured.launch1, "pick", ::pto::runtime::StepPatch::ArgmaxOutput, a3.data,
// CHECK-LABEL: inline int32_t decode_build(decode &captured, int32_t max_tokens, int32_t kv_capacity,
// CHECK: captured.steps.bind_arguments(&bound, sizeof bound);
// CHECK-NEXT: captured.steps.bind_requests(a1.data, a2.data, to_runtime_int(a2.sizes[0]));
// CHECK: if (status != 0)
// CHECK-NEXT: captured.steps.clear();
// CHECK-LABEL: inline int32_t decode_replay(decode &captured, int32_t first_token, int32_t num_tokens,
// CHECK: if (!captured.steps.matches(&bound, sizeof bound))
// CHECK-NEXT: return 3;
// CHECK-NEXT: return captured.steps.replay_chain(first_token, num_tokens);

// OUT: replayed 32 tokens: equal to calling @step every token: yes, to the reference: yes
// OUT: past the last token: 1, nothing written: yes
// OUT: past the KV capacity: 1, nothing written: yes
// OUT: on other arguments: 3
// OUT: build without launches: 3

wsp.step @decode captures @step patches [
  #wsp.patch<token_offset, 0>, #wsp.patch<argmax_output, 3>,
  #wsp.patch<request_positions, 1>, #wsp.patch<request_kv_lens, 2>]

// The "embedding": acc = tokens * 7 + 3 + position + 2 kv_len, per request.
func.func private @embed(%tokens: memref<?xi32>, %positions: memref<?xi32>,
                         %kv_lens: memref<?xi32>, %acc: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c7 = arith.constant 7 : i32
  %ok = arith.constant 0 : i32
  %batch = memref.dim %tokens, %c0 : memref<?xi32>
  scf.for %b = %c0 to %batch step %c1 {
    %t = memref.load %tokens[%b] : memref<?xi32>
    %p = memref.load %positions[%b] : memref<?xi32>
    %k = memref.load %kv_lens[%b] : memref<?xi32>
    %t7 = arith.muli %t, %c7 : i32
    %e = arith.addi %t7, %c3 : i32
    %ep = arith.addi %e, %p : i32
    %k2 = arith.muli %k, %c2 : i32
    %v = arith.addi %ep, %k2 : i32
    memref.store %v, %acc[%b] : memref<?xi32>
  }
  return %ok : i32
}

// The "argmax": next = acc mod 1000.
func.func private @pick(%acc: memref<?xi32>, %next_tokens: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : i32
  %ok = arith.constant 0 : i32
  %batch = memref.dim %acc, %c0 : memref<?xi32>
  scf.for %b = %c0 to %batch step %c1 {
    %v = memref.load %acc[%b] : memref<?xi32>
    %r = arith.remui %v, %c1000 : i32
    memref.store %r, %next_tokens[%b] : memref<?xi32>
  }
  return %ok : i32
}

func.func @step(%tokens: memref<?xi32>, %positions: memref<?xi32>,
                %kv_lens: memref<?xi32>, %next_tokens: memref<?xi32>,
                %acc: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  %s = func.call @embed(%tokens, %positions, %kv_lens, %acc)
      : (memref<?xi32>, memref<?xi32>, memref<?xi32>, memref<?xi32>) -> i32
  %go = arith.cmpi eq, %s, %ok : i32
  %r = scf.if %go -> i32 {
    %s2 = func.call @pick(%acc, %next_tokens) : (memref<?xi32>, memref<?xi32>) -> i32
    scf.yield %s2 : i32
  } else {
    scf.yield %s : i32
  }
  return %r : i32
}
