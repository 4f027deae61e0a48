// What the plan as rows refuses, each with its message.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
func.func @balanced(%lens: memref<?xi32>, %n: index, %h: index,
                    %d: memref<?x!wsp.descriptor<attention>>,
                    %cores: memref<9xi32>, %m: memref<?xi32>,
                    %rows: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op plans as rows with the spec strategy only (a balanced plan's cores expand its 'cuts')}}
  %count, %status = wsp.generate %lens[%n] heads(%h) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 8>)
      into %d cores(%cores : memref<9xi32>) merges(%m : memref<?xi32>)
      rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

// 4 requests need 8 + 2 x 4 + 1 = 17 entries.
wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
func.func @short(%lens: memref<?xi32>, %h: index, %c: index,
                 %d: memref<?x!wsp.descriptor<attention>>,
                 %rows: memref<16xi32>) {
  %n = arith.constant 4 : index
  // expected-error @+1 {{'wsp.generate' op 'rows' buffer holds 16 entries; a plan of 4 requests as rows needs 17 (a header of 8, then 2 per request and 1)}}
  %count, %status = wsp.generate %lens[%n] heads(%h) chunk(%c) tiers(@T)
      config(#wsp.plan_config<>) into %d rows(%rows : memref<16xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
func.func @short_update(%lens: memref<?xi32>, %n: index, %h: index,
                        %c: index, %d: memref<?x!wsp.descriptor<attention>>,
                        %rows: memref<10xi32>) {
  // expected-error @+1 {{'wsp.update_plan' op 'rows' buffer holds 10 entries; a plan of 1 requests as rows needs 11}}
  %u, %un = wsp.update_plan %lens[%n] from %lens[%n] heads(%h) chunk(%c)
      tiers(@T) config(#wsp.plan_config<>) into %d rows(%rows : memref<10xi32>)
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @persistent(%d: memref<?x!wsp.descriptor<attention>>, %n: index,
                      %cores: memref<9xi32>, %rows: memref<?xi32>) {
  // expected-error @+1 {{'wsp.dispatch' op expands a plan as rows on a grid or row_affine dispatch, not a persistent one (a balanced plan's work lists come with its 'cuts')}}
  wsp.dispatch @k() descriptors(%d[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) persistent(%cores : memref<9xi32>)
      expand_rows(%rows : memref<?xi32>)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @both(%d: memref<?x!wsp.descriptor<attention>>, %n: index,
                %cores: memref<9xi32>, %cuts: memref<36xi32>,
                %rows: memref<?xi32>) {
  // expected-error @+1 {{'wsp.dispatch' op expands cuts or rows, not both}}
  wsp.dispatch @k() descriptors(%d[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) persistent(%cores : memref<9xi32>)
      expand(%cuts : memref<36xi32>) expand_rows(%rows : memref<?xi32>)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @tiny(%d: memref<?x!wsp.descriptor<attention>>, %n: index,
                %rows: memref<4xi32>) {
  // expected-error @+1 {{'wsp.dispatch' op 'rows' buffer holds 4 entries; a plan of 1 requests as rows needs 11}}
  wsp.dispatch @k() descriptors(%d[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) expand_rows(%rows : memref<4xi32>)
  return
}
