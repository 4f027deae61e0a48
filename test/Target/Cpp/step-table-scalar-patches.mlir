// Seed 004's scalar patches in the emitted table: a single sequence's
// position and KV length (position + 1) are i32 arguments of the step that
// launches take as operands; each such launch reads them from its
// command's parameter bytes, which the table patches per token (Position,
// KvSeqLen, PosAndKv). The driver replays 12 tokens and compares with the
// step called every token (position p, KV length p + 1), then the refusals:
// a KV length that is not the position's + 1, a KV length of 0 (position
// -1), a replay past the KV capacity.
// RUN: wsp-translate --wsp-to-cpusim %s -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp %S/Inputs/step-table-scalar-patches-main.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: static int32_t by_pos_launch0_run(void *const *buffers, const uint8_t *params,
// CHECK: return write_pos(b.a0, ::pto::runtime::patched_i32(params, 0));
// CHECK-LABEL: static int32_t by_pos_launch1_run(
// CHECK: return write_both(b.a0, ::pto::runtime::patched_i32(params, 0), ::pto::runtime::patched_i32(params, 4));
// CHECK-LABEL: static int32_t by_pos_launch2_run(
// CHECK: return write_kv(b.a0, ::pto::runtime::patched_i32(params, 0));
// CHECK-LABEL: static int32_t by_pos_record(
// CHECK: captured.steps.add_launch_patching(by_pos_launch0_run, &captured.launch0, "write_pos", ::pto::runtime::StepPatch::Position)
// CHECK: captured.steps.add_launch_patching(by_pos_launch1_run, &captured.launch1, "write_both", ::pto::runtime::StepPatch::PosAndKv)
// CHECK: captured.steps.add_launch_patching(by_pos_launch2_run, &captured.launch2, "write_kv", ::pto::runtime::StepPatch::KvSeqLen)
// CHECK-LABEL: int32_t by_pos_build(
// CHECK: captured.steps = ::pto::runtime::StepTable(max_tokens, kv_capacity, [[P:a[0-9]+|[a-z_]+]]);
// CHECK-NEXT: if ([[K:a[0-9]+|[a-z_]+]] != static_cast<int64_t>([[P]]) + 1) { // KV length = position + 1
// CHECK-NEXT: captured.steps.clear();
// CHECK-NEXT: return 3;
// CHECK-LABEL: int32_t by_kv_build(
// CHECK: captured.steps = ::pto::runtime::StepTable(max_tokens, kv_capacity, {{.*}} - 1);

// OUT: replayed 12 tokens: equal to the step called every token
// OUT: KV length not the position's + 1: 3
// OUT: KV length 0: 3
// OUT: past the KV capacity: 1
// OUT: KV length alone: equal

wsp.step @by_pos captures @step patches [#wsp.patch<pos_and_kv, 1, 2>]
wsp.step @by_kv captures @step_kv patches [#wsp.patch<kv_seq_len, 1>]

// out[p] = 10 p + 1
func.func private @write_pos(%out: memref<?xi32>, %p: i32) -> i32 {
  %ok = arith.constant 0 : i32
  %c10 = arith.constant 10 : i32
  %c1 = arith.constant 1 : i32
  %i = arith.index_cast %p : i32 to index
  %t = arith.muli %p, %c10 : i32
  %v = arith.addi %t, %c1 : i32
  memref.store %v, %out[%i] : memref<?xi32>
  return %ok : i32
}

// out[100 + p] = 1000 k + p
func.func private @write_both(%out: memref<?xi32>, %p: i32, %k: i32) -> i32 {
  %ok = arith.constant 0 : i32
  %c100 = arith.constant 100 : index
  %c1000 = arith.constant 1000 : i32
  %i = arith.index_cast %p : i32 to index
  %at = arith.addi %i, %c100 : index
  %t = arith.muli %k, %c1000 : i32
  %v = arith.addi %t, %p : i32
  memref.store %v, %out[%at] : memref<?xi32>
  return %ok : i32
}

// out[200 + k] = k
func.func private @write_kv(%out: memref<?xi32>, %k: i32) -> i32 {
  %ok = arith.constant 0 : i32
  %c200 = arith.constant 200 : index
  %i = arith.index_cast %k : i32 to index
  %at = arith.addi %i, %c200 : index
  memref.store %k, %out[%at] : memref<?xi32>
  return %ok : i32
}

func.func @step(%out: memref<?xi32>, %p: i32, %k: i32) -> i32 {
  %a = func.call @write_pos(%out, %p) : (memref<?xi32>, i32) -> i32
  %b = func.call @write_both(%out, %p, %k) : (memref<?xi32>, i32, i32) -> i32
  %c = func.call @write_kv(%out, %k) : (memref<?xi32>, i32) -> i32
  return %c : i32
}

func.func @step_kv(%out: memref<?xi32>, %k: i32) -> i32 {
  %c = func.call @write_kv(%out, %k) : (memref<?xi32>, i32) -> i32
  return %c : i32
}
