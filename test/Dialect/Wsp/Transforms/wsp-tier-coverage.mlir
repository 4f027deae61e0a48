// RUN: wsp-opt %s --wsp-tier-coverage -split-input-file -verify-diagnostics | FileCheck %s
// RUN: wsp-opt %s --wsp-tier-coverage="max-length=131072" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOUNDED
// RUN: not wsp-opt %s --wsp-tier-coverage="min-length=0" 2>&1 | FileCheck %s --check-prefix=BADOPT

// The analysis changes no IR.
// CHECK: wsp.tier_config @DecodeAttentionTiers

// expected-remark @+1 {{@DecodeAttentionTiers leaves lengths [131073, 2147483647] uncovered (UNSUPPORTED_SIZE at run time)}}
wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
  #wsp.tier<2, [4097, 16384]>, #wsp.tier<3, [16385, 131072]>]

// -----

// Gaps between and around tiers; overlap does not hide a gap.
// expected-remark @+1 {{@Gappy leaves lengths [1, 9], [101, 199], [321, 2147483647] uncovered (UNSUPPORTED_SIZE at run time)}}
wsp.tier_config @Gappy [#wsp.tier<0, [10, 100]>, #wsp.tier<1, [200, 300]>,
                        #wsp.tier<2, [250, 320]>]

// -----

// expected-remark @+1 {{@Everything covers every length in [1, 2147483647]}}
wsp.tier_config @Everything [#wsp.tier<0, [1, 1000]>,
                             #wsp.tier<1, [900, 2147483647]>]

// Within a declared maximum, the decode tiers cover everything.
// BOUNDED: remark: @DecodeAttentionTiers covers every length in [1, 131072]
// BOUNDED: remark: @Gappy leaves lengths [1, 9], [101, 199], [321, 131072] uncovered

// BADOPT: error: wsp-tier-coverage: need 1 <= min-length <= max-length, got [0, 2147483647]
