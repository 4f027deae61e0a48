// RUN: wsp-opt %s --wsp-check-specialized -split-input-file -verify-diagnostics

// Specialized kernels, a table and dispatches of both pass.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
wsp.kernel_table @t tiers(@T) {0: @k0}
func.func @ok(%b: memref<?x!wsp.descriptor<attention>>, %n: index) {
  wsp.dispatch @t() descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(8)
  wsp.dispatch @k0() descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(8)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
// expected-error @+1 {{'wsp.kernel' op is tier-generic after tier specialization (run wsp-specialize-tiers)}}
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @generic(%b: memref<?x!wsp.descriptor<attention>>, %n: index) {
  // expected-error @+1 {{'wsp.dispatch' op runs tier-generic kernel @k instead of a wsp.kernel_table}}
  wsp.dispatch @k() descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(8)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k0 tiers(@T) tier(0) constants {X = array<i64: 3>}
    (%d: !wsp.descriptor<attention>, %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'wsp.tier_constant' op was not substituted by tier specialization}}
  %x = wsp.tier_constant "X" : index
  // expected-error @+1 {{'wsp.tier_id' op was not substituted by tier specialization}}
  %t = wsp.tier_id : index
  memref.store %x, %o[%t] : memref<?xindex>
  wsp.return
}
