// A symbol that is not a C++ identifier is diagnosed on its op, and nothing
// is written: no partial header.
// RUN: wsp-translate --wsp-tier-configs-to-cpp %s -split-input-file -verify-diagnostics
// RUN: rm -f %t.hpp
// RUN: not wsp-translate --wsp-tier-configs-to-cpp %s -o %t.hpp 2>&1 | FileCheck %s --check-prefix=MSG
// RUN: not test -e %t.hpp

// MSG: error: 'wsp.tier_config' op symbol name 'has space' is not a valid C++ identifier

wsp.tier_config @Fine [#wsp.tier<0, [1, 10]>]
// expected-error @+1 {{'wsp.tier_config' op symbol name 'has space' is not a valid C++ identifier}}
wsp.tier_config @"has space" [#wsp.tier<0, [1, 10]>]

// -----

// expected-error @+1 {{'wsp.tier_config' op symbol name 'class' is not a valid C++ identifier}}
wsp.tier_config @class [#wsp.tier<0, [1, 10]>]

// -----

// expected-error @+1 {{'wsp.tier_config' op symbol name '__reserved' is not a valid C++ identifier}}
wsp.tier_config @__reserved [#wsp.tier<0, [1, 10]>]

// -----

// expected-error @+1 {{'wsp.tier_config' op symbol name '9lives' is not a valid C++ identifier}}
wsp.tier_config @"9lives" [#wsp.tier<0, [1, 10]>]
