// // RUN: wsp-opt %s --wsp-check-emittable -split-input-file -verify-diagnostics

// The emitter's vocabulary passes.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
wtilsp.descripte.