// What the emitter cannot print is named at the op, and no partial output
// is written.
// RUN: wsp-translate --wsp-to-cpusim %s -split-input-file -verify-diagnostics
// RUN: rm -f %t.cpp
// RUN: not wsp-translate --wsp-to-cpusim %s -o %t.cpp 2>&1 | FileCheck %s
// RUN: not test -e %t.cpp
// Kernels print before functions, so the whole file fails at the kernel.
// CHECK: error: 'wsp.kernel' op is tier-generic; run wsp-specialize-tiers first

func.func @f(%n: index) -> index {
  // expected-error @+1 {{'wsp.space' op cannot be emitted as C++ (run the wsp-pipeline first; the emitter prints what wsp-check-emittable accepts)}}
  %s = wsp.space(%n) : !wsp.space<?>
  %t = wsp.total_work %s : !wsp.space<?>
  return %t : index
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
// expected-error @+1 {{'wsp.kernel' op is tier-generic; run wsp-specialize-tiers first}}
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// -----

// expected-error @+1 {{'func.func' op returns more than one value, which the C++ emitter does not print}}
func.func @two(%a: i32) -> (i32, i32) {
  return %a, %a : i32, i32
}

// -----

// expected-error @+1 {{'func.func' op has type 'i4', which the C++ emitter cannot print}}
func.func @i4(%a: i4) -> i4 {
  %b = arith.addi %a, %a : i4
  return %b : i4
}
