// The default pipeline takes the decode-attention workload from the form
// users write to the form the emitter takes. The named pipeline and the
// same pipeline spelled with --pass-pipeline give the same output.
// RUN: wsp-opt %wsp_src_root/examples/ir/decode_attention.mlir --wsp-pipeline > %t.named.mlir
// RUN: wsp-opt %wsp_src_root/examples/ir/decode_attention.mlir --pass-pipeline="builtin.module(wsp-pipeline{target=cpusim static-planning=true fuse=true})" > %t.spelled.mlir
// RUN: diff %t.named.mlir %t.spelled.mlir
// RUN: FileCheck %s < %t.named.mlir
// Spelled as it is built: identical kernels merged, the tile stage nested
// on each top-level op (its marks before its contract, which verifies each
// function and kernel once, for the last contract too), CSE with the
// canonicalization of what it changed.
// RUN: wsp-opt %wsp_src_root/examples/ir/decode_attention.mlir --pass-pipeline="builtin.module(llm-select-kv-sharding,convert-llm-kv-sharding,convert-llm-to-wsp,wsp-merge-kernels,any(canonicalize),wsp-tier-coverage{warn-gaps=true},wsp-keep-step-plans,wsp-lower-spaces,wsp-lower-masks,wsp-plan,wsp-lower-preconditions,any(canonicalize{region-simplify=disabled}),wsp-check-planned,wsp-specialize-tiers,any(wsp-cse-canonicalize),wsp-check-specialized,any(tile-fold-row-reductions,tile-pipeline,tile-plan-memory,tile-insert-sync,tile-mark-fusion,tile-check-planned,tile-check-sync{redundant=false}),wsp-set-target,wsp-check-emittable{verify-nested=false})" | diff %t.named.mlir -
// Spelled as it was before (compile speed, issue 42): CSE then a whole
// canonicalization, the tile passes on the module; the same output.
// RUN: wsp-opt %wsp_src_root/examples/ir/decode_attention.mlir --pass-pipeline="builtin.module(llm-select-kv-sharding,convert-llm-kv-sharding,convert-llm-to-wsp,any(canonicalize),wsp-tier-coverage{warn-gaps=true},wsp-keep-step-plans,wsp-lower-spaces,wsp-lower-masks,wsp-plan,wsp-lower-preconditions,any(canonicalize),wsp-check-planned,wsp-specialize-tiers,any(cse,canonicalize),wsp-check-specialized,tile-fold-row-reductions,tile-pipeline,tile-plan-memory,tile-insert-sync,tile-check-planned,tile-check-sync,tile-mark-fusion,wsp-set-target,wsp-check-emittable)" | diff %t.named.mlir -
// The same for an operator program, whose first stage lowers the llm ops.
// RUN: wsp-opt %wsp_src_root/examples/ir/rms_norm.mlir --wsp-pipeline > %t.llm.mlir
// RUN: wsp-opt %wsp_src_root/examples/ir/rms_norm.mlir --pass-pipeline="builtin.module(llm-select-kv-sharding,convert-llm-kv-sharding,convert-llm-to-wsp,any(canonicalize),wsp-tier-coverage{warn-gaps=true},wsp-keep-step-plans,wsp-lower-spaces,wsp-lower-masks,wsp-plan,wsp-lower-preconditions,any(canonicalize),wsp-check-planned,wsp-specialize-tiers,any(cse,canonicalize),wsp-check-specialized,tile-fold-row-reductions,tile-pipeline,tile-plan-memory,tile-insert-sync,tile-check-planned,tile-check-sync,tile-mark-fusion,wsp-set-target,wsp-check-emittable)" | diff %t.llm.mlir -
// RUN: wsp-opt %wsp_src_root/examples/ir/decode_attention.mlir --wsp-pipeline="target=ascend" | FileCheck %s --check-prefix=ASCEND
// RUN: wsp-opt %wsp_src_root/examples/ir/moe.mlir --wsp-pipeline | FileCheck %s --check-prefix=MOE
// Contracts fail loudly: a stage that skips its work is caught.
// RUN: not wsp-opt %wsp_src_root/examples/ir/decode_attention.mlir --pass-pipeline="builtin.module(wsp-check-planned)" 2>&1 | FileCheck %s --check-prefix=UNPLANNED
// RUN: not wsp-opt %wsp_src_root/examples/ir/decode_attention.mlir --pass-pipeline="builtin.module(wsp-plan,wsp-check-specialized)" 2>&1 | FileCheck %s --check-prefix=GENERIC
// merge-kernels: on by default, the attention block's decode kernels that
// equal its prefill ones are gone (its decode launches dispatch the
// prefill kernels); off, both stay.
// RUN: wsp-opt %wsp_src_root/examples/ir/attention_block.mlir --wsp-pipeline | FileCheck %s --check-prefix=MERGED --implicit-check-not="wsp.kernel @decode_block_quant_matmul_1_tier0"
// RUN: wsp-opt %wsp_src_root/examples/ir/attention_block.mlir --wsp-pipeline="merge-kernels=false" | FileCheck %s --check-prefix=UNMERGED
// MERGED: wsp.kernel @prefill_block_quant_matmul_1_tier0
// UNMERGED-DAG: wsp.kernel @prefill_block_quant_matmul_1_tier0
// UNMERGED-DAG: wsp.kernel @decode_block_quant_matmul_1_tier0

// CHECK: module attributes {wsp.target = "cpusim"}
// CHECK-NOT: wsp.plan_chunk_size
// CHECK-NOT: wsp.generate
// CHECK-LABEL: func.func @decode_step
// CHECK: scf.while
// CHECK: wsp.make_descriptor
// CHECK: wsp.dispatch @decode_attention_table(
// CHECK-SAME: on mix(24) row_affine {reachable_tiers = array<i64: 0, 1, 2, 3>}
// Tier 0 loads K^T tiles of TILE_K = 64 positions, the others of 128; the
// tiles have their on-chip offsets and the pipes their flags.
// CHECK: wsp.kernel @decode_attention_tier0 tiers(@DecodeAttentionTiers) tier(0)
// CHECK: tile.alloc valid({{.*}}) at {{[0-9]+}} : !tile.tile<vec, 32x128xbf16, valid = ?x?>
// CHECK: tile.set_flag mte3 -> mte2 event(0)
// CHECK: tile.alloc valid({{.*}}) at {{[0-9]+}} : !tile.tile<mat, 128x64xbf16, valid = ?x?, zn>
// CHECK: wsp.kernel @decode_attention_tier1 tiers(@DecodeAttentionTiers) tier(1)
// CHECK: tile.alloc valid({{.*}}) at {{[0-9]+}} : !tile.tile<mat, 128x128xbf16, valid = ?x?, zn>
// Tiers 2 and 3 have tier 1's constants: one kernel serves the three.
// CHECK-NOT: wsp.kernel @decode_attention_tier
// CHECK: wsp.kernel_table @decode_attention_table tiers(@DecodeAttentionTiers) {0: @decode_attention_tier0, 1: @decode_attention_tier1, 2: @decode_attention_tier1, 3: @decode_attention_tier1}
// CHECK-NOT: wsp.tier_id
// CHECK-NOT: wsp.tier_constant

// ASCEND: module attributes {wsp.target = "ascend"}

// MOE: wsp.dispatch @expert_gemm_table({{.*}}) on cube(24)
// MOE: wsp.kernel_table @expert_gemm_table tiers(@ExpertTiers) {0: @expert_gemm_tier0, 1: @expert_gemm_tier1, 2: @expert_gemm_tier2}

// (Its first precondition comes before its first planning op.)
// UNPLANNED: error: 'wsp.require' op is unchecked after planning (run wsp-lower-preconditions)
// GENERIC: error: 'wsp.kernel' op is tier-generic after tier specialization (run wsp-specialize-tiers)
