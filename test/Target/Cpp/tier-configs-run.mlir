// Compile-and-run: the emitted header builds warning-free against the
// runtime, and the emitted configuration selects exactly what the IR says
// (each expectation below is the IR's first-match rule worked by hand).
// RUN: wsp-translate --wsp-tier-configs-to-cpp %s > %t.hpp
// RUN: %cxx_strict -D__CPU_SIM -include %t.hpp %S/Inputs/tier-configs-main.cpp -o %t.exe
// RUN: %t.exe | FileCheck %s

// CHECK: DecodeAttentionTiers 4: 1->0 1024->0 1025->1 4096->1 4097->2 16384->2 16385->3 131072->3 131073->-1 0->-1
// CHECK: Overlapping 3: 50->0 100->0 150->2 250->1 300->1 301->-1
// CHECK: spec-equivalent: yes

wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
  #wsp.tier<2, [4097, 16384]>, #wsp.tier<3, [16385, 131072]>]
wsp.tier_config @Overlapping [#wsp.tier<0, [1, 100]>, #wsp.tier<1, [200, 300]>,
                              #wsp.tier<2, [50, 250]>]
