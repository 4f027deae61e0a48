// Every verifier clause of the balanced strategy, one failing case each.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{cores must be > 0, got 0}}
func.func @f() attributes {c = #wsp.plan_config<strategy = balanced, cores = 0>}

// -----

// expected-error @+1 {{block_size must be > 0, got -16}}
func.func @f() attributes {c = #wsp.plan_config<block_size = -16>}

// -----

// expected-error @+1 {{token_cost must be > 0, got 0}}
func.func @f() attributes {c = #wsp.plan_config<token_cost = 0>}

// -----

// expected-error @+1 {{invariant_chunk must be > 0, got 0}}
func.func @f() attributes {c = #wsp.plan_config<invariant_chunk = 0>}

// -----

// expected-error @+1 {{unit_cost must be >= 0, got -1}}
func.func @f() attributes {c = #wsp.plan_config<unit_cost = -1>}

// -----

// expected-error @+1 {{merge_cost must be >= 0, got -64}}
func.func @f() attributes {c = #wsp.plan_config<merge_cost = -64>}

// -----

// expected-error @+1 {{plan config values must fit the runtime's 32-bit int}}
func.func @f() attributes {c = #wsp.plan_config<cores = 4294967296>}

// -----

// expected-error @+2 {{expected one of [spec, balanced] for how work is planned: the spec's chunk-size planner or the balanced one, got: greedy}}
// expected-error @+1 {{failed to parse Wsp_PlanConfigAttr parameter 'strategy'}}
func.func @f() attributes {c = #wsp.plan_config<strategy = greedy>}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op plans with the balanced strategy, which has no chunk operand}}
  %x, %s = wsp.generate %lens[%n] heads(%n) chunk(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %d
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op with the balanced strategy needs a 'merges' buffer (the plan materialized) or a 'cuts' buffer (the plan as cuts)}}
  %x, %s = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %d
      cores(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op with the balanced strategy needs a 'cores' buffer for the work lists}}
  %x, %s = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %d
      merges(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op takes 'merges' or 'cuts', not both: the plan as cuts writes no merge plan (the cores expand the descriptors)}}
  %x, %s = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %d
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      cuts(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>,
             %cuts: memref<35xi32>) {
  // expected-error @+1 {{'wsp.generate' op 'cuts' buffer holds 35 entries; the plan needs 36 (4 per point, config.cores + 1 points)}}
  %x, %s = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 8>) into %d
      cores(%c : memref<?xi32>) cuts(%cuts : memref<35xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index, %chunk: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op has 'cores', 'merges', 'cuts' and 'q_lens' buffers only with the balanced strategy}}
  %x, %s = wsp.generate %lens[%n] heads(%n) chunk(%chunk) tiers(@T)
      config(#wsp.plan_config<>) into %d cuts(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.plan_balanced' op with the balanced strategy needs a 'merges' buffer (the plan materialized) or a 'cuts' buffer (the plan as cuts)}}
  %x, %s = wsp.plan_balanced %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %d
      cores(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k tiers(@T) (%desc: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>,
             %cuts: memref<?xi32>) {
  %x, %s = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 8>) into %d
      cores(%c : memref<?xi32>) cuts(%cuts : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  // expected-error @+1 {{'wsp.dispatch' op expands a plan's cuts on the cores that run its work lists: 'expand' needs 'persistent'}}
  wsp.dispatch @k() descriptors(%d[%x] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) expand(%cuts : memref<?xi32>)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k tiers(@T) (%desc: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>,
             %cuts: memref<?xi32>) {
  // expected-error @+1 {{'wsp.dispatch' op expands cuts, so its count must be the result of the balanced wsp.generate or wsp.plan_balanced that wrote them, its descriptor buffer and its work lists}}
  wsp.dispatch @k() descriptors(%d[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) persistent(%c : memref<?xi32>) expand(%cuts : memref<?xi32>)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k tiers(@T) (%desc: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>,
             %cuts: memref<?xi32>) {
  %x, %s = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 8>) into %d
      cores(%c : memref<?xi32>) cuts(%cuts : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  // expected-error @+1 {{'wsp.dispatch' op expands a plan for 8 cores on 4}}
  wsp.dispatch @k() descriptors(%d[%x] : memref<?x!wsp.descriptor<attention>>)
      on vector(4) persistent(%c : memref<?xi32>) expand(%cuts : memref<?xi32>)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.tier_config @U [#wsp.tier<0, [1, 4096]>]
wsp.kernel @k tiers(@U) (%desc: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>,
             %cuts: memref<?xi32>) {
  %x, %s = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 8>) into %d
      cores(%c : memref<?xi32>) cuts(%cuts : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  // expected-error @+1 {{'wsp.dispatch' op expands descriptors tiered by @T on kernel @k, whose tiers are @U}}
  wsp.dispatch @k() descriptors(%d[%x] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) persistent(%c : memref<?xi32>) expand(%cuts : memref<?xi32>)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op plans a sliding window with the spec strategy only}}
  %x, %s = wsp.generate %lens[%n] heads(%n) window(64) queries(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %d
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<moe>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op plans balanced attention descriptors only, not pattern 'moe'}}
  %x, %s = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %d
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<48xi32>,
             %m: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op 'cores' buffer holds 48 entries; the plan needs 49 (config.cores + 1)}}
  %x, %s = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %d
      cores(%c : memref<48xi32>) merges(%m : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.generate' op with the spec strategy needs a 'chunk' operand}}
  %x, %s = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<>) into %d
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op has 'cores', 'merges', 'cuts' and 'q_lens' buffers only with the balanced strategy}}
  %x, %s = wsp.generate %lens[%n] heads(%n) chunk(%n) tiers(@T)
      config(#wsp.plan_config<>) into %d
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.plan_balanced' op runs the balanced planner; its config must say strategy = balanced}}
  %x, %s = wsp.plan_balanced %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<>) into %d
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<4xi32>) {
  // expected-error @+1 {{'wsp.plan_balanced' op 'cores' buffer holds 4 entries; the plan needs 9 (config.cores + 1)}}
  %x, %s = wsp.plan_balanced %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 8>) into %d
      cores(%c : memref<4xi32>) merges(%c : memref<4xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.plan_balanced' op 'Nope' does not reference a wsp.tier_config}}
  %x, %s = wsp.plan_balanced %lens[%n] heads(%n) tiers(@Nope)
      config(#wsp.plan_config<strategy = balanced>) into %d
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

// expected-error @+1 {{'wsp.descriptor_table' op records either the spec plan's chunk or a balanced plan's cores (and merges, unless it was planned as cuts)}}
wsp.descriptor_table @p : !wsp.descriptor<attention> chunk(16) cores([0, 1])
    merges([0, 1]) = dense<[[0, 0, 7, 0, 0, 0, 8]]> : tensor<1x7xi32>

// -----

// expected-error @+1 {{'wsp.descriptor_table' op records either the spec plan's chunk or a balanced plan's cores (and merges, unless it was planned as cuts)}}
wsp.descriptor_table @p : !wsp.descriptor<attention> merges([0, 1])
    = dense<[[0, 0, 7, 0, 0, 0, 8]]> : tensor<1x7xi32>

// -----

// expected-error @+1 {{'wsp.descriptor_table' op cores must run from 0 to the descriptor count 1 in at least 2 entries}}
wsp.descriptor_table @p : !wsp.descriptor<attention> cores([0, 0])
    merges([0, 1]) = dense<[[0, 0, 7, 0, 0, 0, 8]]> : tensor<1x7xi32>

// -----

// expected-error @+1 {{'wsp.descriptor_table' op merges decreases at entry 2}}
wsp.descriptor_table @p : !wsp.descriptor<attention> cores([0, 2])
    merges([0, 2, 1, 2]) = dense<[[0, 0, 7, 0, 0, 0, 8],
                                  [1, 0, 7, 0, 1, 0, 8]]> : tensor<2x7xi32>

// -----

wsp.descriptor_table @p : !wsp.descriptor<attention> chunk(16)
    = dense<[[0, 0, 7, 0, 0, 0, 8]]> : tensor<1x7xi32>
func.func @f(%d: memref<?x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.load_descriptors' op takes 'cores' and 'merges' buffers exactly when table @p is a balanced plan}}
  %x, %s = wsp.load_descriptors @p into %d cores(%c : memref<?xi32>)
      merges(%c : memref<?xi32>) : memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @f(%d: memref<?x!wsp.descriptor<attention>>, %n: index,
             %c: memref<?xi32>) {
  // expected-error @+1 {{'wsp.dispatch' op is either row_affine or persistent, not both}}
  wsp.dispatch @k() descriptors(%d[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) row_affine persistent(%c : memref<?xi32>)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @f(%d: memref<?x!wsp.descriptor<attention>>, %n: index,
             %c: memref<8xi32>) {
  // expected-error @+1 {{'wsp.dispatch' op persistent work lists hold 8 entries; 8 cores need 9}}
  wsp.dispatch @k() descriptors(%d[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) persistent(%c : memref<8xi32>)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>, %q: memref<?xi32>) {
  // expected-error @+1 {{'wsp.generate' op has 'cores', 'merges', 'cuts' and 'q_lens' buffers only with the balanced strategy}}
  %x, %s = wsp.generate %lens[%n] heads(%n) chunk(%n) tiers(@T)
      config(#wsp.plan_config<>) into %d q_lens(%q : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}
