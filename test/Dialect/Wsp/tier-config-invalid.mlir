// Every verifier clause of #wsp.tier and wsp.tier_config.
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{tier id must be in [0, 255], got 256}}
wsp.tier_config @C [#wsp.tier<256, [1, 10]>]

// -----

// expected-error @+1 {{tier id must be in [0, 255], got -1}}
wsp.tier_config @C [#wsp.tier<-1, [1, 10]>]

// -----

// expected-error @+1 {{tier 0: min size must be > 0, got 0}}
wsp.tier_config @C [#wsp.tier<0, [0, 10]>]

// -----

// expected-error @+1 {{tier 3: min size must be > 0, got -5}}
wsp.tier_config @C [#wsp.tier<3, [-5, 10]>]

// -----

// expected-error @+1 {{tier 1: max size 9 is less than min size 10}}
wsp.tier_config @C [#wsp.tier<1, [10, 9]>]

// -----

// expected-error @+1 {{tier 2: max size must fit the runtime's 32-bit int, got 2147483648}}
wsp.tier_config @C [#wsp.tier<2, [1, 2147483648]>]

// -----

// expected-error @+1 {{'wsp.tier_config' op must have at least one tier}}
wsp.tier_config @C []

// -----

// expected-error @+1 {{'wsp.tier_config' op tier id 1 is used by tiers #0 and #2}}
wsp.tier_config @C [#wsp.tier<1, [1, 10]>, #wsp.tier<2, [11, 20]>,
                    #wsp.tier<1, [21, 30]>]

// -----

// A tier inside one earlier tier.
// expected-error @+1 {{'wsp.tier_config' op tier 1 (#1, sizes [5, 8]) is fully shadowed by earlier tiers and can never be selected}}
wsp.tier_config @C [#wsp.tier<0, [1, 10]>, #wsp.tier<1, [5, 8]>]

// -----

// A tier covered only by the union of several earlier tiers.
// expected-error @+1 {{'wsp.tier_config' op tier 9 (#3, sizes [50, 250]) is fully shadowed by earlier tiers}}
wsp.tier_config @C [#wsp.tier<0, [1, 100]>, #wsp.tier<1, [200, 300]>,
                    #wsp.tier<2, [101, 199]>, #wsp.tier<9, [50, 250]>]

// -----

// A list entry that is not a tier.
// expected-error @+1 {{'wsp.tier_config' op attribute 'tiers' failed to satisfy constraint: array of wsp tiers}}
wsp.tier_config @C [#wsp.tier<0, [1, 10]>, 5 : i64]

// -----

// expected-error @+1 {{expected valid '@'-identifier for symbol name}}
wsp.tier_config [#wsp.tier<0, [1, 10]>]
