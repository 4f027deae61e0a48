// Round trip of wsp.tier_config and #wsp.tier, in custom and generic form.
// RUN: wsp-opt %s | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | wsp-opt | FileCheck %s
// RUN: wsp-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: wsp.tier_config @DecodeAttentionTiers
// CHECK-SAME: [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>, #wsp.tier<2, [4097, 16384]>, #wsp.tier<3, [16385, 131072]>]
// GENERIC: "wsp.tier_config"() <{sym_name = "DecodeAttentionTiers", tiers = [#wsp.tier<0, [1, 1024]>,
wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>,      // short
  #wsp.tier<1, [1025, 4096]>,   // medium
  #wsp.tier<2, [4097, 16384]>,  // long
  #wsp.tier<3, [16385, 131072]> // very long
]

// Ids need not be dense or ordered; gaps in coverage are allowed; an
// overlapping tier is fine as long as part of it is still reachable.
// CHECK-LABEL: wsp.tier_config @Sparse
// CHECK-SAME: [#wsp.tier<7, [1, 100]>, #wsp.tier<200, [50, 300]>, #wsp.tier<255, [1000, 2147483647]>]
wsp.tier_config @Sparse [#wsp.tier<7, [1, 100]>, #wsp.tier<200, [50, 300]>,
                         #wsp.tier<255, [1000, 2147483647]>]

// A single-length tier, and a discardable attribute.
// CHECK-LABEL: wsp.tier_config @One
// CHECK-SAME: [#wsp.tier<0, [1, 1]>] {note = "decode"}
wsp.tier_config @One [#wsp.tier<0, [1, 1]>] {note = "decode"}

// Overlap with the union of earlier tiers is fine while part of the tier is
// still reachable: here [101, 199].
// CHECK-LABEL: wsp.tier_config @Overlap
wsp.tier_config @Overlap [#wsp.tier<0, [1, 100]>, #wsp.tier<1, [200, 300]>,
                          #wsp.tier<2, [50, 250]>]

// Symbol visibility, so that symbol-dce can drop an unused private config.
// CHECK-LABEL: wsp.tier_config "private" @Hidden
wsp.tier_config "private" @Hidden [#wsp.tier<0, [1, 8]>]
