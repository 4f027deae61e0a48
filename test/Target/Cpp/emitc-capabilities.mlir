// What MLIR 22's EmitC prints for the AICore form, the evidence behind
// docs/rationale/Backend.md ("Our own printer, not EmitC"). These runs test
// upstream MLIR, not wsp: when a release changes an answer, revisit the
// decision.
//
// RUN: mlir-translate --mlir-to-cpp %s | FileCheck %s
// RUN: mlir-opt --convert-to-emitc %S/Inputs/emitc-scalar.mlir | FileCheck %s --check-prefix=CONVERT
// RUN: not mlir-opt --convert-to-emitc %S/Inputs/emitc-dynamic-memref.mlir 2>&1 | FileCheck %s --check-prefix=MEMREF
// RUN: not mlir-opt %S/Inputs/emitc-switch-no-default.mlir 2>&1 | FileCheck %s --check-prefix=SWITCH

// What it can print: pto-isa calls with template arguments and opaque
// enumerators, entry specifiers, a tile alias (only as verbatim text), a
// constructor (as copy-initialization), a switch over tiers.
// CHECK: #include "pto/pto-inst.hpp"
// CHECK: extern "C" __global__ AICORE void entry(__gm__ uint8_t* v1, int32_t v2, int32_t v3) {
// CHECK-NEXT: using VecF32_32x128 = pto::Tile<
// CHECK-NEXT: VecF32_32x128 v4 = VecF32_32x128(v2, 128);
// CHECK-NEXT: TASSIGN(v4, 8192);
// CHECK-NEXT: set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
// CHECK-NEXT: TEXP<VecF32_32x128, VecF32_32x128>(v4, v4);
// What it cannot: names from the IR (the locations "rows" and "q" are
// ignored: v2, v4), and tiers that share a kernel sharing its case (one case
// per tier, the call repeated).
// CHECK: case 1: {
// CHECK-NEXT: decode_attention_tier1();
// CHECK: case 2: {
// CHECK-NEXT: decode_attention_tier1();

emitc.include "pto/pto-inst.hpp"
emitc.func @decode_attention_tier0() attributes {specifiers = ["static", "AICORE"]} {
  emitc.return
}
emitc.func @decode_attention_tier1() attributes {specifiers = ["static", "AICORE"]} {
  emitc.return
}
emitc.func @entry(%args: !emitc.ptr<!emitc.opaque<"__gm__ uint8_t">>, %rows: i32 loc("rows"), %tier: i32)
    attributes {specifiers = ["extern \"C\"", "__global__", "AICORE"]} {
  emitc.verbatim "using VecF32_32x128 = pto::Tile<pto::TileType::Vec, float, 32, 128, pto::BLayout::RowMajor, pto::DYNAMIC, pto::DYNAMIC>;"
  %q = emitc.call_opaque "VecF32_32x128"(%rows) {args = [0 : index, 128 : i32]} : (i32) -> !emitc.opaque<"VecF32_32x128"> loc("q")
  emitc.call_opaque "TASSIGN"(%q) {args = [0 : index, 8192 : i64]} : (!emitc.opaque<"VecF32_32x128">) -> ()
  emitc.call_opaque "set_flag"() {args = [#emitc.opaque<"PIPE_MTE2">, #emitc.opaque<"PIPE_V">, #emitc.opaque<"EVENT_ID0">]} : () -> ()
  emitc.call_opaque "TEXP"(%q, %q) {template_args = [!emitc.opaque<"VecF32_32x128">, !emitc.opaque<"VecF32_32x128">]} : (!emitc.opaque<"VecF32_32x128">, !emitc.opaque<"VecF32_32x128">) -> ()
  emitc.switch %tier : i32
  case 0 {
    emitc.call @decode_attention_tier0() : () -> ()
    emitc.yield
  }
  case 1 {
    emitc.call @decode_attention_tier1() : () -> ()
    emitc.yield
  }
  case 2 {
    emitc.call @decode_attention_tier1() : () -> ()
    emitc.yield
  }
  default {
  }
  emitc.return
}

// The scalar half of a kernel does not convert: math ops and the unsigned
// min/max/ceildiv that the kernels use stay as they are; a function over a
// dynamically shaped memref, as every kernel argument is, is left half
// converted and fails to verify.
// CONVERT: emitc.func @scalar(
// CONVERT: math.rsqrt
// CONVERT: arith.maxui
// CONVERT: arith.ceildivui

// MEMREF: error: 'emitc.return' op expects parent op 'emitc.func'

// A switch must have a default.
// SWITCH: error: custom op 'emitc.switch' expected 'default'
