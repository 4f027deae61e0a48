// A tier configuration is a symbol: upstream symbol-dce drops an unused
// private one and keeps public ones.
// RUN: wsp-opt %s --symbol-dce | FileCheck %s

// CHECK-NOT: @Unused
// CHECK: wsp.tier_config @Kept
wsp.tier_config "private" @Unused [#wsp.tier<0, [1, 8]>]
wsp.tier_config @Kept [#wsp.tier<0, [1, 8]>]
