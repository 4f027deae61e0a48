// Tutorial step 1: three tiers for a decode kernel, written as wsp IR.
wsp.tier_config @MyTiers [
  #wsp.tier<0, [1, 2048]>,
  #wsp.tier<1, [2049, 16384]>,
  #wsp.tier<2, [16385, 65536]>
]
