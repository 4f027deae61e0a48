// wsp-to-selfcheck-skeleton: per public function, every argument allocated
// under its source name, as the emitted function names it (a<i> without
// one; never a name the skeleton declares itself, such as status), dynamic
// sizes as named placeholders, the typed wsp_gen:: call, its status
// reported; private functions are left out. A module without a public
// function is an error.
// RUN: wsp-translate --wsp-to-selfcheck-skeleton %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: using wsp_gen::MemRef;
// CHECK: int main() {
// CHECK: // func.func @step
// CHECK-NEXT: const int64_t x_dim0 = 16; // TODO: a size of your own
// CHECK-NEXT: std::vector<float> x(static_cast<size_t>(x_dim0 * 64)); // memref<?x64xf32>
// CHECK-NEXT: std::vector<int32_t> a1(static_cast<size_t>(8)); // memref<8xi32>
// CHECK-NEXT: const int64_t descs_0_dim0 = 16;
// CHECK-NEXT: std::vector<::pto::runtime::WorkDescriptor> descs_0(static_cast<size_t>(descs_0_dim0)); // memref<?x!wsp.descriptor<attention>>
// CHECK-NEXT: int32_t status_1{}; // i32
// CHECK-NEXT: // TODO: fill the inputs.
// CHECK-NEXT: // The case's name, for its plan charts (wspc --run --plan-svg).
// CHECK-NEXT: ::pto::runtime::sim::set_plan_case("step");
// CHECK-NEXT: int32_t status = wsp_gen::step(
// CHECK-NEXT: MemRef<float, 2>{x.data(), {x_dim0, 64}},
// CHECK-NEXT: MemRef<int32_t, 1>{a1.data(), {8}},
// CHECK-NEXT: MemRef<::pto::runtime::WorkDescriptor, 1>{descs_0.data(), {descs_0_dim0}},
// CHECK-NEXT: status_1);
// CHECK: ok = ok && status == 0;
// CHECK: // func.func @fill
// CHECK: wsp_gen::fill(
// CHECK: std::printf("fill: ran\n");
// CHECK-NOT: helper
// CHECK: return ok ? 0 : 1;
func.func @step(%x: memref<?x64xf32> loc("x"("f.mlir":1:1)),
                %lens: memref<8xi32>,
                %descs: memref<?x!wsp.descriptor<attention>> loc("descs"("f.mlir":1:3)),
                %n: i32 loc("status"("f.mlir":1:4))) -> i32 {
  return %n : i32
}
func.func @fill(%x: memref<4xf32>) {
  return
}
func.func private @helper(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{has no public function for a self-check to call}}
module {
  func.func private @helper(%x: memref<4xf32>) {
    return
  }
}
