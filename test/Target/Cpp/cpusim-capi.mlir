// wsp-to-cpusim-capi: one C entry point per public function, taking every
// argument through one array of pointers and every memref size through
// one array of int64 (in argument order); scalars by pointer; void
// functions return 0, a scalar result other than the i32 status is
// written through one more pointer; private functions are left out. Each
// entry takes the caller's call handle last (its launch report; nothing of
// a call is kept elsewhere), and the handle's functions come first.
// wsp-to-call-signatures describes the same entry points as JSON (names
// from the source, element types, shapes with -1 where dynamic,
// workspaces). What a C entry point cannot take is an error at the
// function, and so is a name the C API's own functions take.
// RUN: wsp-translate --wsp-to-cpusim-capi %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: wsp-translate --wsp-to-call-signatures %s -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=JSON

// cpusim-capi-run.test builds and calls the entry points of an example.

// CHECK: #include "capi.cpp"
// CHECK: using namespace wsp_gen;
// CHECK: struct wsp_capi_call {
// CHECK-NEXT:   ::pto::runtime::sim::LaunchReport report;
// CHECK-NEXT: };
// CHECK: class Scope {
// CHECK: wsp_gen::wsp_launch_report = call ? &call->report : nullptr;
// CHECK: ~Scope() { wsp_gen::wsp_launch_report = saved_; }
// CHECK: int32_t wsp_capi_version(void) { return 2; }
// CHECK: ::wsp_capi_call *wsp_capi_call_new(void) {
// CHECK: void wsp_capi_call_free(::wsp_capi_call *call) { delete call; }
// CHECK: int64_t wsp_capi_report_cores(const ::wsp_capi_call *call) {
// CHECK: int32_t wsp_capi_report_core(const ::wsp_capi_call *call, int64_t core,
// CHECK: const char *wsp_capi_fault(void) { return ::pto::runtime::sim::fault(); }
// CHECK-NOT: wsp_capi_call_draw_plans
// CHECK-LABEL: /// func.func @step
// CHECK-NEXT: ///   args[0] x: memref<?x64xf32>
// CHECK-NEXT: ///   args[1] lens: memref<8xi32>
// CHECK-NEXT: ///   args[2] descs: memref<?x!wsp.descriptor<attention>>
// CHECK-NEXT: ///   args[3] n: i32
// CHECK-NEXT: ///   args[4] ws: memref<24x32xf32> (workspace step.ws)
// CHECK-NEXT: int32_t wsp_capi_step(void *const *args, const int64_t *sizes,
// CHECK-NEXT:     ::wsp_capi_call *call) {
// CHECK-NEXT:   ::wsp_capi_detail::Scope scope(call);
// CHECK-NEXT:   ::pto::runtime::sim::clear_fault();
// CHECK-NEXT:   const int32_t status = wsp_gen::step(
// CHECK-NEXT:       MemRef<float, 2>{static_cast<float *>(args[0]), {sizes[0], sizes[1]}},
// CHECK-NEXT:       MemRef<int32_t, 1>{static_cast<int32_t *>(args[1]), {sizes[2]}},
// CHECK-NEXT:       MemRef<::pto::runtime::WorkDescriptor, 1>{static_cast<::pto::runtime::WorkDescriptor *>(args[2]), {sizes[3]}},
// CHECK-NEXT:       *static_cast<const int32_t *>(args[3]),
// CHECK-NEXT:       MemRef<float, 2>{static_cast<float *>(args[4]), {sizes[4], sizes[5]}});
// CHECK-NEXT:   return ::pto::runtime::sim::fault() ? 3 : status;
// CHECK-NEXT: }
// CHECK-LABEL: /// func.func @fill
// CHECK: int32_t wsp_capi_fill(void *const *args, const int64_t *sizes,
// CHECK-NEXT:     ::wsp_capi_call *call) {
// CHECK-NEXT:   ::wsp_capi_detail::Scope scope(call);
// CHECK-NEXT:   ::pto::runtime::sim::clear_fault();
// CHECK-NEXT:   wsp_gen::fill(
// CHECK-NEXT:       MemRef<bf16, 1>{static_cast<bf16 *>(args[0]), {sizes[0]}});
// CHECK-NEXT:   const int32_t status = 0;
// CHECK-NEXT:   return ::pto::runtime::sim::fault() ? 3 : status;
// CHECK-NEXT: }
// CHECK-LABEL: /// func.func @scale
// CHECK-NEXT: ///   args[0] arg0: f32
// CHECK-NEXT: ///   args[1] receives the result: f32
// CHECK-NEXT: int32_t wsp_capi_scale(void *const *args, const int64_t *sizes,
// CHECK-NEXT:     ::wsp_capi_call *call) {
// CHECK-NEXT:   ::wsp_capi_detail::Scope scope(call);
// CHECK-NEXT:   (void)sizes;
// CHECK-NEXT:   ::pto::runtime::sim::clear_fault();
// CHECK-NEXT:   *static_cast<float *>(args[1]) = wsp_gen::scale(
// CHECK-NEXT:       *static_cast<const float *>(args[0]));
// CHECK-NEXT:   const int32_t status = 0;
// CHECK-LABEL: /// func.func @nothing
// CHECK-NEXT: int32_t wsp_capi_nothing(void *const *args, const int64_t *sizes,
// CHECK-NEXT:     ::wsp_capi_call *call) {
// CHECK-NEXT:   ::wsp_capi_detail::Scope scope(call);
// CHECK-NEXT:   (void)args;
// CHECK-NEXT:   (void)sizes;
// CHECK-NOT: helper
// CHECK: } // extern "C"

// JSON: "capi_version": 2,
// JSON: "name": "step",
// JSON: "status": true
// JSON: "name": "fill",
// JSON: "status": false
// JSON: "name": "scale",
// JSON: "result": {
// JSON-NEXT: "dtype": "f32",
// JSON: "report_fields": 6,
// JSON: "report_tiers": 256,
// JSON: "stem": "capi"
module @capi {
func.func @step(%x: memref<?x64xf32> loc("x"("f.mlir":1:1)),
                %lens: memref<8xi32> loc("lens"("f.mlir":1:2)),
                %descs: memref<?x!wsp.descriptor<attention>> loc("descs"("f.mlir":1:3)),
                %n: i32 loc("n"("f.mlir":1:4)),
                %ws: memref<24x32xf32> {llm.workspace = "step.ws"} loc("ws"("f.mlir":1:5))) -> i32 {
  return %n : i32
}
func.func @fill(%x: memref<4xbf16>) {
  return
}
func.func @scale(%x: f32) -> f32 {
  return %x : f32
}
func.func @nothing() {
  return
}
func.func private @helper(%x: memref<4xf32>) {
  return
}
}

// -----

// expected-error @below {{'func.func' op returns 'memref<4xf32>'; a C entry point returns one scalar at most}}
func.func @view(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}

// -----

// expected-error @below {{'func.func' op argument 0 ('memref<f32>'): a C entry point takes ranked row-major memrefs}}
func.func @scalar_memref(%x: memref<f32>) {
  return
}

// -----

// wsp_capi_<f> may not take a name the C API gives its own functions.
// expected-error @below {{'func.func' op is named like a C API function of its own: wsp_capi_call_new is taken}}
func.func @call_new(%x: memref<4xf32>) {
  return
}

// -----

// A step table's entry points (wsp_capi_step_<t>_new, _free, _build,
// _replay) may not be a function's.
func.func @f(%x: memref<4xi32>) {
  return
}
func.func @step_t_new(%x: memref<4xi32>) {
  return
}
// expected-error @below {{'wsp.step' op has C entry points wsp_capi_step_t_*, and a function is named @step_t_new}}
wsp.step @t captures @f patches [#wsp.patch<token_offset, 0>]
