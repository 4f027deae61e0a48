// A step table whose launches plan (wsp-keep-step-plans): each recorded
// launch calls its `_kept` variant with the plan's buffers, which the
// launch's struct holds on the heap, zeroed at build (nothing planned).
// The driver replays tokens whose KV lengths grow (@mark's plan changes
// every token, so it must be made again) beside a launch whose plan does
// not change (@fill's, kept from the first token on), against @step called
// every token.
// RUN: wsp-opt %s --wsp-pipeline | wsp-translate --wsp-to-cpusim -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.cpp %S/Inputs/step-table-kept-plan-main.cpp -o %t.exe -pthread
// RUN: %t.exe | FileCheck %s --check-prefix=OUT
// RUN: wsp-opt %s --wsp-pipeline="target=ascend" | wsp-translate --wsp-to-abi | FileCheck %s --check-prefix=ABI
// RUN: wsp-opt %s --wsp-pipeline="target=ascend" | wsp-translate --wsp-to-aicpu | FileCheck %s --check-prefix=AICPU

// CHECK: #include <memory>
// CHECK-LABEL: struct table_launch0 {
// CHECK-NEXT: MemRef<int32_t, 1> a0;
// CHECK-NEXT: MemRef<int32_t, 2> a1;
// CHECK-NEXT: MemRef<int32_t, 1> a2;
// CHECK-NEXT: /// The plan @mark_launch_kept keeps from call to call.
// CHECK-NEXT: struct Kept {
// CHECK-NEXT: ::pto::runtime::WorkDescriptor k3[64];
// CHECK-NEXT: int32_t k4[16];
// CHECK-NEXT: int64_t k5[8];
// The plan as rows (pto/runtime/spec_rows.hpp): 8 + 2 x 16 + 1 entries.
// CHECK-NEXT: int32_t k6[41];
// CHECK-NEXT: };
// CHECK-NEXT: std::unique_ptr<Kept> kept;
// CHECK-NEXT: };
// CHECK: static int32_t table_launch0_run(
// CHECK-NEXT: const auto &b = *static_cast<const table_launch0 *>(buffers[0]);
// CHECK-NEXT: auto &kept = *b.kept;
// CHECK-NEXT: return mark_launch_kept(b.a0, b.a1, b.a2, MemRef<::pto::runtime::WorkDescriptor, 1>{kept.k3, {64}}, MemRef<int32_t, 1>{kept.k4, {16}}, MemRef<int64_t, 1>{kept.k5, {8}}, MemRef<int32_t, 1>{kept.k6, {41}});
// CHECK-LABEL: struct table_launch1 {
// CHECK: return fill_launch_kept(
// CHECK: captured.launch0 = table_launch0{{[{]}}{{.*}}, std::make_unique<table_launch0::Kept>()};
// CHECK: captured.steps.add_launch(table_launch0_run, &captured.launch0, "mark_launch")

// ABI: #include <memory>
// ABI: std::unique_ptr<Kept> kept;
// AICPU: return mark_launch_kept_impl(b.a0, b.a1, b.a2, MemRef<::pto::runtime::WorkDescriptor, 1>{kept.k3, {64}}

// OUT: replayed 6 tokens: marks equal to calling @step every token: yes, filled equal: yes
// OUT: each request marked up to its last KV length: yes
// OUT: tokens 6 to 11 from the same table: equal: yes

wsp.step @table captures @step patches [#wsp.patch<request_kv_lens, 0>]

wsp.tier_config @T [#wsp.tier<0, [1, 2147483647]>]

// Marks KV positions [kv_start, kv_start + kv_len) of its request with the
// tag.
wsp.kernel @mark tiers(@T) (%d: !wsp.descriptor<attention>,
                            %marks: memref<?x?xi32>, %tag: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %req = wsp.param %d["request_idx"] : !wsp.descriptor<attention>
  %start = wsp.param %d["kv_start"] : !wsp.descriptor<attention>
  %len = wsp.param %d["kv_len"] : !wsp.descriptor<attention>
  %end = arith.addi %start, %len : index
  %t = memref.load %tag[%c0] : memref<?xi32>
  scf.for %i = %start to %end step %c1 {
    memref.store %t, %marks[%req, %i] : memref<?x?xi32>
  }
  wsp.return
}

// Writes the tag to tokens [token_start, token_start + token_count).
wsp.kernel @fill tiers(@T) (%d: !wsp.descriptor<moe>, %out: memref<?xi32>,
                            %tag: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %start = wsp.param %d["token_start"] : !wsp.descriptor<moe>
  %count = wsp.param %d["token_count"] : !wsp.descriptor<moe>
  %end = arith.addi %start, %count : index
  %t = memref.load %tag[%c0] : memref<?xi32>
  scf.for %i = %start to %end step %c1 {
    memref.store %t, %out[%i] : memref<?xi32>
  }
  wsp.return
}

// Plans over each request's KV length + 1 (the token's own position): a
// plan that changes every token.
func.func private @mark_launch(%kv_lens: memref<?xi32>, %marks: memref<?x?xi32>,
                               %tag: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c0_i32 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %invalid = arith.constant 3 : i32
  %batch = memref.dim %kv_lens, %c0 : memref<?xi32>
  %fits = arith.cmpi ule, %batch, %c16 : index
  %r = scf.if %fits -> i32 {
    %lens = memref.alloca() : memref<16xi32>
    scf.for %b = %c0 to %batch step %c1 {
      %k = memref.load %kv_lens[%b] : memref<?xi32>
      %k1 = arith.addi %k, %one : i32
      memref.store %k1, %lens[%b] : memref<16xi32>
    }
    %descs = memref.alloca() : memref<64x!wsp.descriptor<attention>>
    %chunk = wsp.plan_chunk_size %lens[%batch] heads(%c1)
        config(#wsp.plan_config<chunk_min = 4, chunk_max = 64, max_work_units = 64>)
        : memref<16xi32>
    %count, %status = wsp.generate %lens[%batch] heads(%c1) chunk(%chunk)
        tiers(@T)
        config(#wsp.plan_config<chunk_min = 4, chunk_max = 64, max_work_units = 64>)
        into %descs : memref<16xi32>, memref<64x!wsp.descriptor<attention>>
    %ok = arith.cmpi eq, %status, %c0_i32 : i32
    scf.if %ok {
      wsp.dispatch @mark(%marks, %tag : memref<?x?xi32>, memref<?xi32>)
          descriptors(%descs[%count] : memref<64x!wsp.descriptor<attention>>)
          on vector(8)
    }
    scf.yield %status : i32
  } else {
    scf.yield %invalid : i32
  }
  return %r : i32
}

// Plans over the batch alone: the same plan every token.
func.func private @fill_launch(%kv_lens: memref<?xi32>, %out: memref<?xi32>,
                               %tag: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i32 = arith.constant 0 : i32
  %batch = memref.dim %out, %c0 : memref<?xi32>
  %n = arith.index_cast %batch : index to i32
  %lens = memref.alloca() : memref<1xi32>
  memref.store %n, %lens[%c0] : memref<1xi32>
  %descs = memref.alloca() : memref<8x!wsp.descriptor<moe>>
  %chunk = wsp.plan_chunk_size %lens[%c1] heads(%c1)
      config(#wsp.plan_config<chunk_min = 2, chunk_max = 1024, max_work_units = 8>)
      : memref<1xi32>
  %count, %status = wsp.generate %lens[%c1] heads(%c1) chunk(%chunk) tiers(@T)
      config(#wsp.plan_config<chunk_min = 2, chunk_max = 1024, max_work_units = 8>)
      into %descs : memref<1xi32>, memref<8x!wsp.descriptor<moe>>
  %ok = arith.cmpi eq, %status, %c0_i32 : i32
  scf.if %ok {
    wsp.dispatch @fill(%out, %tag : memref<?xi32>, memref<?xi32>)
        descriptors(%descs[%count] : memref<8x!wsp.descriptor<moe>>) on vector(8)
  }
  return %status : i32
}

func.func @step(%kv_lens: memref<?xi32>, %marks: memref<?x?xi32>,
                %filled: memref<?xi32>, %tag: memref<?xi32>) -> i32 {
  %ok = arith.constant 0 : i32
  %s = func.call @mark_launch(%kv_lens, %marks, %tag)
      : (memref<?xi32>, memref<?x?xi32>, memref<?xi32>) -> i32
  %go = arith.cmpi eq, %s, %ok : i32
  %r = scf.if %go -> i32 {
    %s2 = func.call @fill_launch(%kv_lens, %filled, %tag)
        : (memref<?xi32>, memref<?xi32>, memref<?xi32>) -> i32
    scf.yield %s2 : i32
  } else {
    scf.yield %s : i32
  }
  return %r : i32
}
