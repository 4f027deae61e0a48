// The spec's standard decode-attention tiers (PTO-WSP §5.2.4), as wsp IR.
// A KV length selects the first tier whose inclusive range contains it; a
// length above 131072 selects none (UNSUPPORTED_SIZE at run time).
wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>,       // short:     1 - 1K
  #wsp.tier<1, [1025, 4096]>,    // medium:   1K - 4K
  #wsp.tier<2, [4097, 16384]>,   // long:     4K - 16K
  #wsp.tier<3, [16385, 131072]>  // very long: 16K - 128K
]
