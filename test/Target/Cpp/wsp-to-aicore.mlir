// The device form's AICore source where pto-isa's types or its cost model
// ask for more than the op's name (it needs pto-isa to compile:
// scripts/check-pto-isa.sh builds and runs it; here it is checked as text).
// RUN: wsp-opt %s --wsp-pipeline="target=ascend" -o %t.mlir
// RUN: wsp-translate --wsp-to-aicore %t.mlir | FileCheck %s

// Scalar reads and writes of bf16 tile elements: a tile's element is
// pto-isa's own bfloat16_t, a scalar of the program our 16-bit storage, so
// both go through float (moe_softmax_topk scans its bf16 logits on the
// scalar unit and marks the taken ones in the tile); f32 elements are read
// and written as they are.
// CHECK-LABEL: route_moe_softmax_topk_0_tier0(
// CHECK: bf16 [[V:v[0-9]+]]{};
// CHECK-NEXT: WSP_VEC([[V]] = f32_to_bf16_storage(static_cast<float>([[T:v[0-9]+]].GetValue(
// CHECK: WSP_VEC([[T]].SetValue({{.*}}, static_cast<typename decltype([[T]])::DType>(bf16_storage_to_f32(v{{[0-9]+}}))));
// CHECK: float [[P:v[0-9]+]]{};
// CHECK-NEXT: WSP_VEC([[P]] = v{{[0-9]+}}.GetValue({{[^()]*}}));
func.func @route(%logits: memref<?x64xbf16>, %ids: memref<?x2xi32>,
                 %weights: memref<?x2xf32>) {
  llm.moe_softmax_topk hidden_states(%logits : memref<?x64xbf16>)
      -> selected_experts(%ids : memref<?x2xi32>) expert_weights(%weights : memref<?x2xf32>)
  return
}

// An i8 compare mask: pto-isa's a2a3 TCMPS writes through a uint8_t tile,
// so the mask is given as an unsigned view of its bytes (rms_norm's
// overflow check of its sums of squares).
// CHECK-LABEL: norm_rms_norm_0_tier0(
// CHECK: WSP_VEC({ pto::Tile<pto::TileType::Vec, uint8_t, 1, 32, {{.*}}> bits([[M:v[0-9]+]].GetValidRow(), [[M]].GetValidCol()); TASSIGN(bits, reinterpret_cast<uint64_t>([[M]].data())); TCMPS(bits, v{{[0-9]+}}, v{{[0-9]+}}, pto::CmpMode::EQ); });

// A reshape to another element type is the source's address assigned
// (pto-isa's TRESHAPE takes element types of one kind only): rms_norm's
// normalized rows in the bytes of its f32 squares, as bf16.
// CHECK: WSP_VEC(TCOLEXPANDMUL([[XF:v[0-9]+]], [[XF]], v{{[0-9]+}}));
// CHECK-NEXT: WSP_VEC_TILE(VecBf16_16x256 [[HALVES:v[0-9]+]](16, 256));
// CHECK-NEXT: WSP_VEC(TASSIGN([[HALVES]], reinterpret_cast<uint64_t>(v{{[0-9]+}}.data())));
// CHECK-NEXT: WSP_VEC_TILE(VecBf16_8x256 [[YB:v[0-9]+]](
// CHECK-NEXT: WSP_VEC(TASSIGN([[YB]], reinterpret_cast<uint64_t>([[HALVES]].data())
// CHECK-NEXT: WSP_VEC(TCVT([[YB]], [[XF]], pto::RoundMode::CAST_RINT));

// Under pto-isa's cost model a vector-only kernel's block is one vector
// core: the model's second vector core of the block stays idle.
// CHECK-LABEL: static void norm_rms_norm_0_table() {
// CHECK-NEXT: wsp_aicore::CostmodelBlock block;
// CHECK-NEXT: if (block.idle())
// CHECK-NEXT: return;
// CHECK: wsp_aicore::costmodel_launch("norm_rms_norm_0_table", num_cores, [] {
// CHECK-NEXT: LAUNCH_KERNEL(norm_rms_norm_0_table, , (1, nullptr, nullptr));
// CHECK-NEXT: }, /*vector_only=*/true);
func.func @norm(%x: memref<?x256xbf16>, %w: memref<256xf32>, %y: memref<?x256xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x256xbf16>) weight(%w : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {eps = 1.0e-06 : f32}
  return
}
