// RUN: wsp-opt %s --wsp-check-planned -split-input-file -verify-diagnostics

// Planned IR passes the check.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @ok(%b: memref<?x!wsp.descriptor<attention>>) -> i32 {
  %s = arith.constant 0 : i32
  return %s : i32
}

// -----

func.func @chunk(%l: memref<?xi32>, %n: index) -> index {
  // expected-error @+1 {{'wsp.plan_chunk_size' op is unplanned after planning (run wsp-plan)}}
  %c = wsp.plan_chunk_size %l[%n] heads(%n) config(#wsp.plan_config<>) : memref<?xi32>
  return %c : index
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @generate(%l: memref<?xi32>, %n: index,
                    %b: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.generate' op is unplanned after planning (run wsp-plan)}}
  %c, %s = wsp.generate %l[%n] heads(%n) chunk(%n) tiers(@T)
      config(#wsp.plan_config<>) into %b
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @select(%x: i32) -> i32 {
  // expected-error @+1 {{'wsp.select_tier' op is unplanned after planning (run wsp-plan)}}
  %t = wsp.select_tier @T(%x) : i32 -> i32
  return %t : i32
}

// -----

// A balanced wsp.generate is a planning op too: wsp-plan turns it into a
// table load or a wsp.plan_balanced call.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @balanced(%l: memref<?xi32>, %n: index, %b: memref<?x!wsp.descriptor<attention>>,
                    %c: memref<?xi32>) -> i32 {
  // expected-error @+1 {{'wsp.generate' op is unplanned after planning (run wsp-plan)}}
  %x, %s = wsp.generate %l[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %b
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return %s : i32
}

// -----

// So is a plan update (wsp-keep-step-plans makes them; wsp-plan lowers them).
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
func.func @update(%l: memref<?xi32>, %n: index,
                  %b: memref<?x!wsp.descriptor<attention>>) -> i1 {
  // expected-error @+1 {{'wsp.update_plan' op is unplanned after planning (run wsp-plan)}}
  %u, %c = wsp.update_plan %l[%n] from %l[%n] heads(%n) chunk(%n) tiers(@T)
      config(#wsp.plan_config<>) into %b
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return %u : i1
}

// -----

func.func @unchecked(%c: i1) -> i32 {
  // expected-error @+1 {{'wsp.require' op is unchecked after planning (run wsp-lower-preconditions)}}
  wsp.require %c, "a precondition"
  %s = arith.constant 0 : i32
  return %s : i32
}
