// Ops of the same sizes write the same workload but for its name (the
// layers of a model): the pass parses it once and copies it for the others,
// its name replaced in every symbol, reference and string. Each op gets its
// own tier configuration, kernel and planner, as if each were parsed, and
// the names follow its function and place.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s
// A copy is valid IR (the pass manager verifies after the pass), and the
// whole pipeline takes it.
// RUN: wsp-opt %s --wsp-pipeline -o /dev/null

// CHECK:       wsp.tier_config @layer0_rms_norm_0_tiers
// CHECK-NEXT:  wsp.kernel @layer0_rms_norm_0 tiers(@layer0_rms_norm_0_tiers)
// CHECK-NOT:   layer1
// CHECK:       func.func @layer0(
// CHECK-NOT:   layer1
// CHECK:       wsp.generate {{.*}} tiers(@layer0_rms_norm_0_tiers)
// CHECK:       wsp.dispatch @layer0_rms_norm_0(
// CHECK:       wsp.tier_config @layer1_rms_norm_0_tiers
// CHECK-NEXT:  wsp.kernel @layer1_rms_norm_0 tiers(@layer1_rms_norm_0_tiers)
// CHECK-NOT:   layer0
// CHECK:       func.func @layer1(
// CHECK-NOT:   layer0
// CHECK:       wsp.generate {{.*}} tiers(@layer1_rms_norm_0_tiers)
// CHECK:       wsp.dispatch @layer1_rms_norm_0(
// A different size is a workload of its own.
// CHECK:       wsp.kernel @layer2_rms_norm_0 tiers(@layer2_rms_norm_0_tiers)
// CHECK-SAME:  memref<?x512xbf16>
func.func @layer0(%x: memref<?x256xbf16>, %w: memref<256xf32>, %y: memref<?x256xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x256xbf16>) weight(%w : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {eps = 1.0e-06 : f32}
  return
}

func.func @layer1(%x: memref<?x256xbf16>, %w: memref<256xf32>, %y: memref<?x256xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x256xbf16>) weight(%w : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {eps = 1.0e-06 : f32}
  return
}

func.func @layer2(%x: memref<?x512xbf16>, %w: memref<512xf32>, %y: memref<?x512xbf16>) {
  llm.rms_norm hidden_states(%x : memref<?x512xbf16>) weight(%w : memref<512xf32>)
      -> y(%y : memref<?x512xbf16>) {eps = 1.0e-06 : f32}
  return
}
