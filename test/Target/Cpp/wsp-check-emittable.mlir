// RUN: wsp-opt %s --wsp-check-emittable -split-input-file -verify-diagnostics

// The emitter's vocabulary passes.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wsp.descriptor_table @p : !wsp.descriptor<attention> chunk(256)
    = dense<[[0, 0, 7, 0, 0, 0, 1]]> : tensor<1x7xi32>
wsp.kernel @k0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>, %o: memref<?xf32>) {
  %s = wsp.param %d["kv_start"] : !wsp.descriptor<attention>
  %e = wsp.kv_end %d : !wsp.descriptor<attention>
  %f = wsp.has_flag %d, last : !wsp.descriptor<attention>
  %w = wsp.work_id %d : !wsp.descriptor<attention>
  %x = memref.load %o[%s] : memref<?xf32>
  %y = math.exp %x : f32
  scf.if %f {
    memref.store %y, %o[%e] : memref<?xf32>
  }
  wsp.return
}
wsp.kernel_table @t tiers(@T) {0: @k0}
func.func @ok(%b: memref<?x!wsp.descriptor<attention>>, %o: memref<?xf32>, %i: index, %t: i32) -> i32 {
  %d = wsp.make_descriptor id(%i) tier(%t) flags(%t) params(%i, %i, %i, %i) : !wsp.descriptor<attention>
  memref.store %d, %b[%i] : memref<?x!wsp.descriptor<attention>>
  %n, %s = wsp.load_descriptors @p into %b : memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @t(%o : memref<?xf32>) descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(48)
  return %s : i32
}
// The balanced strategy's planned forms pass too: the runtime planner's
// call and a persistent dispatch over its work lists.
func.func @balanced(%l: memref<?xi32>, %i: index, %b: memref<?x!wsp.descriptor<attention>>,
                    %c: memref<?xi32>, %m: memref<?xi32>, %o: memref<?xf32>) -> i32 {
  %n, %s = wsp.plan_balanced %l[%i] heads(%i) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %b
      cores(%c : memref<?xi32>) merges(%m : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @t(%o : memref<?xf32>) descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(48) persistent(%c : memref<?xi32>)
  return %s : i32
}

// -----

func.func @space(%n: index) -> index {
  // expected-error @+1 {{'wsp.space' op cannot be emitted as C++: the backend takes func, arith, math, scf, memref and planned wsp ops}}
  %s = wsp.space(%n) : !wsp.space<?>
  // expected-error @+1 {{'wsp.total_work' op cannot be emitted as C++}}
  %t = wsp.total_work %s : !wsp.space<?>
  return %t : index
}

// -----

func.func @other(%x: f32) -> f32 {
  // expected-error @+1 {{'emitc.constant' op cannot be emitted as C++}}
  %c = "emitc.constant"() <{value = 1.0 : f32}> : () -> f32
  return %c : f32
}
