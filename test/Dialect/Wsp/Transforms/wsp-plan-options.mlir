// wsp-plan's options: static planning can be turned off (everything becomes
// AICPU code), and a remark reports what was planned (LLVM's release build
// compiles pass statistics out).
// RUN: wsp-opt %s --wsp-plan="static-planning=false" | FileCheck %s --check-prefix=NOSTATIC
// RUN: wsp-opt %s --wsp-plan="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: wsp-opt %s --wsp-plan="static-planning=false report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT-DYN

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
                    #wsp.tier<2, [4097, 16384]>]
memref.global "private" constant @lens : memref<3xi32> = dense<[600, 0, 1500]>
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// NOSTATIC-NOT: wsp.descriptor_table
// NOSTATIC-LABEL: func.func @step
// NOSTATIC: scf.while
// NOSTATIC: wsp.make_descriptor
// Without a static table or bounds, every tier is reachable.
// NOSTATIC: wsp.dispatch @k() {{.*}} {reachable_tiers = array<i64: 0, 1, 2>}

// REPORT: remark: wsp-plan: 2 planning ops planned at compile time (14 descriptors), 0 lowered to AICPU code
// REPORT-DYN: remark: wsp-plan: 0 planning ops planned at compile time (0 descriptors), 2 lowered to AICPU code

func.func @step(%buf: memref<?x!wsp.descriptor<attention>>) -> i32 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %lens = memref.get_global @lens : memref<3xi32>
  %chunk = wsp.plan_chunk_size %lens[%c3] heads(%c2)
      config(#wsp.plan_config<max_work_units = 16>) : memref<3xi32>
  %count, %status = wsp.generate %lens[%c3] heads(%c2) chunk(%chunk) tiers(@T)
      config(#wsp.plan_config<max_work_units = 16>) into %buf
      : memref<3xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k() descriptors(%buf[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(48)
  return %status : i32
}
