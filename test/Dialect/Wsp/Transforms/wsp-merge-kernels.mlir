// RUN: wsp-opt %s --wsp-merge-kernels -split-input-file | FileCheck %s

// Two layers' kernels, equal but for their names and locations: the first
// of each (kernel and tier configuration) stays, and every use names it.
wsp.tier_config @l0_tiers [#wsp.tier<0, [1, 64]>, #wsp.tier<1, [65, 4096]>]
wsp.kernel @l0 tiers(@l0_tiers) constants {TILE = array<i64: 32, 64>}
    (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index loc("layer0")
  %tile = wsp.tier_constant "TILE" : index
  memref.store %tile, %o[%c0] : memref<?xindex>
  wsp.return
}
wsp.tier_config @l1_tiers [#wsp.tier<0, [1, 64]>, #wsp.tier<1, [65, 4096]>]
wsp.kernel @l1 tiers(@l1_tiers) constants {TILE = array<i64: 32, 64>}
    (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index loc("layer1")
  %tile = wsp.tier_constant "TILE" : index
  memref.store %tile, %o[%c0] : memref<?xindex>
  wsp.return
}
// CHECK: wsp.tier_config @l0_tiers
// CHECK-NEXT: wsp.kernel @l0 tiers(@l0_tiers)
// CHECK-NOT: @l1
// CHECK-LABEL: func.func @layers
// CHECK: wsp.generate {{.*}} tiers(@l0_tiers)
// CHECK: wsp.dispatch @l0(
// CHECK: wsp.generate {{.*}} tiers(@l0_tiers)
// CHECK: wsp.dispatch @l0(
// CHECK-NOT: @l1
func.func @layers(%lens: memref<2xi32>, %buf: memref<?x!wsp.descriptor<moe>>,
                  %o: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %n0, %s0 = wsp.generate %lens[%c2] heads(%c1) chunk(%c64) tiers(@l0_tiers)
      config(#wsp.plan_config<>) into %buf : memref<2xi32>, memref<?x!wsp.descriptor<moe>>
  wsp.dispatch @l0(%o : memref<?xindex>)
      descriptors(%buf[%n0] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  %n1, %s1 = wsp.generate %lens[%c2] heads(%c1) chunk(%c64) tiers(@l1_tiers)
      config(#wsp.plan_config<>) into %buf : memref<2xi32>, memref<?x!wsp.descriptor<moe>>
  wsp.dispatch @l1(%o : memref<?xindex>)
      descriptors(%buf[%n1] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  return
}

// -----

// Kernels that differ are all kept: in a constant of the body, in their
// tier constants, in their tier configuration's tiers, in an attribute.
// Their configurations stay, equal or not.
wsp.tier_config @a_tiers [#wsp.tier<0, [1, 4096]>]
wsp.kernel @a tiers(@a_tiers) constants {TILE = array<i64: 32>}
    (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  memref.store %c0, %o[%c0] : memref<?xindex>
  wsp.return
}
wsp.tier_config @b_tiers [#wsp.tier<0, [1, 4096]>]
wsp.kernel @b tiers(@b_tiers) constants {TILE = array<i64: 32>}
    (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  memref.store %c1, %o[%c1] : memref<?xindex>
  wsp.return
}
wsp.kernel @c tiers(@a_tiers) constants {TILE = array<i64: 64>}
    (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  memref.store %c0, %o[%c0] : memref<?xindex>
  wsp.return
}
wsp.tier_config @d_tiers [#wsp.tier<0, [1, 2048]>]
wsp.kernel @d tiers(@d_tiers) constants {TILE = array<i64: 32>}
    (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  memref.store %c0, %o[%c0] : memref<?xindex>
  wsp.return
}
wsp.kernel @e tiers(@a_tiers) constants {TILE = array<i64: 32>}
    (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) attributes {note = "e"} {
  %c0 = arith.constant 0 : index
  memref.store %c0, %o[%c0] : memref<?xindex>
  wsp.return
}
// CHECK-LABEL: wsp.tier_config @a_tiers
// CHECK-NEXT: wsp.kernel @a tiers(@a_tiers)
// CHECK: wsp.tier_config @b_tiers
// CHECK-NEXT: wsp.kernel @b tiers(@b_tiers)
// CHECK: wsp.kernel @c tiers(@a_tiers)
// CHECK: wsp.tier_config @d_tiers
// CHECK: wsp.kernel @d tiers(@d_tiers)
// CHECK: wsp.kernel @e tiers(@a_tiers)
// CHECK-LABEL: func.func @differ
// CHECK-COUNT-5: wsp.dispatch @{{[a-e]}}(
func.func @differ(%buf: memref<?x!wsp.descriptor<moe>>, %n: index,
                  %o: memref<?xindex>) {
  wsp.dispatch @a(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  wsp.dispatch @b(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  wsp.dispatch @c(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  wsp.dispatch @d(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  wsp.dispatch @e(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  return
}

// -----

// Specialized kernels and their tables: equal tier kernels are one, and
// the tables then name the same kernels (and are themselves kept: a table
// is not a kernel). Bodies with regions compare as regions.
wsp.tier_config @T [#wsp.tier<0, [1, 64]>, #wsp.tier<1, [65, 4096]>]
wsp.kernel @x_tier0 tiers(@T) tier(0)
    (%d: !wsp.descriptor<moe>, %o: memref<?xindex>, %f: i1) {
  %c0 = arith.constant 0 : index
  scf.if %f {
    memref.store %c0, %o[%c0] : memref<?xindex>
  }
  wsp.return
}
wsp.kernel @y_tier0 tiers(@T) tier(0)
    (%d: !wsp.descriptor<moe>, %o: memref<?xindex>, %f: i1) {
  %c0 = arith.constant 0 : index
  scf.if %f {
    memref.store %c0, %o[%c0] : memref<?xindex>
  }
  wsp.return
}
wsp.kernel @z_tier0 tiers(@T) tier(0)
    (%d: !wsp.descriptor<moe>, %o: memref<?xindex>, %f: i1) {
  %c0 = arith.constant 0 : index
  scf.if %f {
  } else {
    memref.store %c0, %o[%c0] : memref<?xindex>
  }
  wsp.return
}
wsp.kernel_table @x_table tiers(@T) {0: @x_tier0}
wsp.kernel_table @y_table tiers(@T) {0: @y_tier0}
wsp.kernel_table @z_table tiers(@T) {0: @z_tier0}
// CHECK-LABEL: wsp.kernel @x_tier0
// CHECK-NOT: @y_tier0
// CHECK: wsp.kernel @z_tier0
// CHECK: wsp.kernel_table @x_table tiers(@T) {0: @x_tier0}
// CHECK: wsp.kernel_table @y_table tiers(@T) {0: @x_tier0}
// CHECK: wsp.kernel_table @z_table tiers(@T) {0: @z_tier0}

// -----

// A configuration two kernels share goes with the one merged away (@p2's
// @q_tiers, to @p_tiers), and the kernel that stays (@q) names the kept
// kernel's configuration. @q2 then merges into @q, whose configuration is
// already its own (@p_tiers): nothing more goes, and no name goes in a
// circle.
wsp.tier_config @p_tiers [#wsp.tier<0, [1, 4096]>]
wsp.kernel @p tiers(@p_tiers) (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  memref.store %c0, %o[%c0] : memref<?xindex>
  wsp.return
}
wsp.tier_config @q_tiers [#wsp.tier<0, [1, 4096]>]
wsp.kernel @q tiers(@q_tiers) (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  memref.store %c1, %o[%c1] : memref<?xindex>
  wsp.return
}
wsp.kernel @p2 tiers(@q_tiers) (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  memref.store %c0, %o[%c0] : memref<?xindex>
  wsp.return
}
wsp.kernel @q2 tiers(@p_tiers) (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  memref.store %c1, %o[%c1] : memref<?xindex>
  wsp.return
}
// CHECK-LABEL: wsp.tier_config @p_tiers
// CHECK-NOT: wsp.tier_config
// CHECK: wsp.kernel @p tiers(@p_tiers)
// CHECK: wsp.kernel @q tiers(@p_tiers)
// CHECK-NOT: wsp.kernel
// CHECK-LABEL: func.func @shared
// CHECK: wsp.dispatch @p(
// CHECK: wsp.dispatch @q(
// CHECK: wsp.dispatch @p(
// CHECK: wsp.dispatch @q(
func.func @shared(%buf: memref<?x!wsp.descriptor<moe>>, %n: index,
                  %o: memref<?xindex>) {
  wsp.dispatch @p(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  wsp.dispatch @q(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  wsp.dispatch @p2(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  wsp.dispatch @q2(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  return
}

// -----

// Launch functions that dispatch merged kernels are then equal: the private
// ones merge and their calls name the first; a public function, one with
// another body and a declaration stay.
wsp.tier_config @f0_tiers [#wsp.tier<0, [1, 4096]>]
wsp.kernel @f0 tiers(@f0_tiers) (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  wsp.return
}
wsp.tier_config @f1_tiers [#wsp.tier<0, [1, 4096]>]
wsp.kernel @f1 tiers(@f1_tiers) (%d: !wsp.descriptor<moe>, %o: memref<?xindex>) {
  wsp.return
}
func.func private @launch0(%buf: memref<?x!wsp.descriptor<moe>>, %n: index,
                           %o: memref<?xindex>) {
  wsp.dispatch @f0(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  return
}
func.func private @launch1(%buf: memref<?x!wsp.descriptor<moe>>, %n: index,
                           %o: memref<?xindex>) {
  wsp.dispatch @f1(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(48)
  return
}
func.func @public1(%buf: memref<?x!wsp.descriptor<moe>>, %n: index,
                   %o: memref<?xindex>) {
  wsp.dispatch @f1(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(24)
  return
}
func.func private @launch2(%buf: memref<?x!wsp.descriptor<moe>>, %n: index,
                           %o: memref<?xindex>) {
  wsp.dispatch @f1(%o : memref<?xindex>)
      descriptors(%buf[%n] : memref<?x!wsp.descriptor<moe>>) on vector(24)
  return
}
func.func private @external(%buf: memref<?x!wsp.descriptor<moe>>, %n: index,
                            %o: memref<?xindex>)
func.func private @external2(%buf: memref<?x!wsp.descriptor<moe>>, %n: index,
                             %o: memref<?xindex>)
// CHECK-LABEL: wsp.kernel @f0
// CHECK-NOT: wsp.kernel
// CHECK: func.func private @launch0(
// CHECK: wsp.dispatch @f0(
// CHECK: func.func @public1(
// CHECK: wsp.dispatch @f0(
// CHECK: func.func private @launch2(
// CHECK: func.func private @external(
// CHECK: func.func private @external2(
// CHECK-LABEL: func.func @calls
// CHECK-NEXT: call @launch0(
// CHECK-NEXT: call @launch0(
// CHECK-NEXT: call @public1(
// CHECK-NEXT: call @launch2(
// CHECK-NEXT: call @external(
// CHECK-NEXT: call @external2(
func.func @calls(%buf: memref<?x!wsp.descriptor<moe>>, %n: index,
                 %o: memref<?xindex>) {
  call @launch0(%buf, %n, %o)
      : (memref<?x!wsp.descriptor<moe>>, index, memref<?xindex>) -> ()
  call @launch1(%buf, %n, %o)
      : (memref<?x!wsp.descriptor<moe>>, index, memref<?xindex>) -> ()
  call @public1(%buf, %n, %o)
      : (memref<?x!wsp.descriptor<moe>>, index, memref<?xindex>) -> ()
  call @launch2(%buf, %n, %o)
      : (memref<?x!wsp.descriptor<moe>>, index, memref<?xindex>) -> ()
  call @external(%buf, %n, %o)
      : (memref<?x!wsp.descriptor<moe>>, index, memref<?xindex>) -> ()
  call @external2(%buf, %n, %o)
      : (memref<?x!wsp.descriptor<moe>>, index, memref<?xindex>) -> ()
  return
}
