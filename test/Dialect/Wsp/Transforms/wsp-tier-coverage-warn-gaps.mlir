// RUN: wsp-opt %s --wsp-tier-coverage=warn-gaps=true -split-input-file -verify-diagnostics
// RUN: wsp-opt %s --wsp-pipeline -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE

// With warn-gaps (as wsp-pipeline runs it), a length between a
// configuration's tiers that no tier covers is a warning at the op (issue
// 46: tiers [1, 64] and [100, max] compiled, and lengths 65-99 made every
// call return UNSUPPORTED_SIZE).

// PIPELINE: warning: @Gap leaves lengths [65, 99] between its tiers uncovered: a call with such a length returns UNSUPPORTED_SIZE
// expected-warning @+1 {{@Gap leaves lengths [65, 99] between its tiers uncovered: a call with such a length returns UNSUPPORTED_SIZE}}
wsp.tier_config @Gap [#wsp.tier<0, [1, 64]>, #wsp.tier<1, [100, 2147483647]>]

// -----

// Two gaps, tiers out of order.
// PIPELINE: warning: @Two leaves lengths [11, 19], [31, 39] between
// expected-warning @+1 {{@Two leaves lengths [11, 19], [31, 39] between its tiers uncovered}}
wsp.tier_config @Two [#wsp.tier<0, [40, 50]>, #wsp.tier<1, [1, 10]>, #wsp.tier<2, [20, 30]>]

// -----

// Lengths below the lowest tier or above the highest are the
// configuration's bounds, not gaps: no warning.
// PIPELINE-NOT: warning: @Bounded
wsp.tier_config @Bounded [#wsp.tier<0, [16, 1024]>, #wsp.tier<1, [1025, 4096]>]
