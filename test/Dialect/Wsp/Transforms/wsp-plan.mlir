// RUN: wsp-opt %s --wsp-plan -split-input-file -verify-diagnostics | FileCheck %s

// == Static: constant lengths, batch and heads ==
//
// Lengths {600, 0, 1500}, 2 heads, budget 16 units: chunk 256 needs
// 2 x (3 + 0 + 6) = 18 > 16; the smallest chunk that fits is 300
// (2 x (2 + 0 + 5) = 14; at 299, 2 x (3 + 6) = 18). Balanced chunks:
// 600 -> 300, 300; 1500 -> 5 x 300. Tiers: 600 -> 0, 1500 -> 1.
// Flags: FIRST|INIT = 5, LAST = 2, all three = 7.

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
                    #wsp.tier<2, [4097, 16384]>]
memref.global "private" constant @lens : memref<3xi32> = dense<[600, 0, 1500]>
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// CHECK-LABEL: wsp.descriptor_table @__wsp_plan_0 : !wsp.descriptor<attention> chunk(300) = dense<
// CHECK-SAME: {{\[\[}}0, 0, 5, 0, 0, 0, 300], [1, 0, 2, 0, 0, 300, 300],
// CHECK-SAME: [2, 0, 5, 0, 1, 0, 300], [3, 0, 2, 0, 1, 300, 300],
// CHECK-SAME: [4, 1, 5, 2, 0, 0, 300], [5, 1, 0, 2, 0, 300, 300], [6, 1, 0, 2, 0, 600, 300], [7, 1, 0, 2, 0, 900, 300], [8, 1, 2, 2, 0, 1200, 300],
// CHECK-SAME: [9, 1, 5, 2, 1, 0, 300], [10, 1, 0, 2, 1, 300, 300], [11, 1, 0, 2, 1, 600, 300], [12, 1, 0, 2, 1, 900, 300], [13, 1, 2, 2, 1, 1200, 300]]> : tensor<14x7xi32>
// CHECK-LABEL: func.func @static_attention
// CHECK-NOT: wsp.plan_chunk_size
// CHECK-NOT: wsp.generate
// CHECK: %[[COUNT:.*]], %[[STATUS:.*]] = wsp.load_descriptors @__wsp_plan_0 into %{{.*}}
// CHECK: wsp.dispatch @k() descriptors(%{{.*}}[%[[COUNT]]] : {{.*}}) on vector(48) {reachable_tiers = array<i64: 0, 1>}
// CHECK: return %[[STATUS]]
func.func @static_attention(%buf: memref<?x!wsp.descriptor<attention>>) -> i32 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %lens = memref.get_global @lens : memref<3xi32>
  %chunk = wsp.plan_chunk_size %lens[%c3] heads(%c2)
      config(#wsp.plan_config<max_work_units = 16>) : memref<3xi32>
  %count, %status = wsp.generate %lens[%c3] heads(%c2) chunk(%chunk) tiers(@T)
      config(#wsp.plan_config<max_work_units = 16>) into %buf
      : memref<3xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k() descriptors(%buf[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(48)
  return %status : i32
}

// -----

// MoE: token counts per expert, one batch group; unbalanced chunks of 64.
// Expert 0: 100 tokens -> 64 + 36; expert 1: none; expert 2: 10.
wsp.tier_config @E [#wsp.tier<0, [1, 4096]>]
memref.global "private" constant @counts : memref<3xi32> = dense<[100, 0, 10]>
// CHECK-LABEL: wsp.descriptor_table @__wsp_plan_0 : !wsp.descriptor<moe> chunk(64)
// CHECK-SAME: dense<{{\[\[}}0, 0, 5, 0, 0, 0, 64], [1, 0, 2, 0, 0, 64, 36], [2, 0, 7, 0, 2, 0, 10]]> : tensor<3x7xi32>
// CHECK-LABEL: func.func @static_moe
func.func @static_moe(%buf: memref<?x!wsp.descriptor<moe>>) -> (index, i32) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %counts = memref.get_global @counts : memref<3xi32>
  %count, %status = wsp.generate %counts[%c3] heads(%c1) chunk(%c64) tiers(@E)
      config(#wsp.plan_config<chunk_min = 16, balance_chunks = false>) into %buf
      : memref<3xi32>, memref<?x!wsp.descriptor<moe>>
  return %count, %status : index, i32
}

// -----

// A constant length no tier covers is an error at compile time.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
memref.global "private" constant @lens : memref<2xi32> = dense<[10, 5000]>
func.func @unsupported(%buf: memref<?x!wsp.descriptor<attention>>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %lens = memref.get_global @lens : memref<2xi32>
  // expected-error @+1 {{'wsp.generate' op length 5000 of sequence 1 is covered by no tier of @T (UNSUPPORTED_SIZE)}}
  %count, %status = wsp.generate %lens[%c2] heads(%c1) chunk(%c256) tiers(@T)
      config(#wsp.plan_config<>) into %buf
      : memref<2xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

// A static workload larger than a static buffer.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
memref.global "private" constant @lens : memref<2xi32> = dense<[1000, 1000]>
func.func @overflow(%buf: memref<7x!wsp.descriptor<attention>>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %lens = memref.get_global @lens : memref<2xi32>
  // expected-error @+1 {{'wsp.generate' op the plan has 8 descriptors but the buffer holds 7 (BUFFER_OVERFLOW)}}
  %count, %status = wsp.generate %lens[%c2] heads(%c1) chunk(%c256) tiers(@T)
      config(#wsp.plan_config<>) into %buf
      : memref<2xi32>, memref<7x!wsp.descriptor<attention>>
  return
}

// -----

// Invalid constant inputs.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
memref.global "private" constant @lens : memref<2xi32> = dense<[10, -3]>
func.func @invalid(%buf: memref<?x!wsp.descriptor<attention>>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %lens = memref.get_global @lens : memref<2xi32>
  // expected-error @+1 {{'wsp.plan_chunk_size' op cannot plan: a constant length is negative or the head count is < 1 (INVALID_PARAMS)}}
  %chunk = wsp.plan_chunk_size %lens[%c2] heads(%c1) config(#wsp.plan_config<>)
      : memref<2xi32>
  // expected-error @+1 {{'wsp.generate' op batch 3 does not fit the constant lengths buffer of 2 (INVALID_PARAMS)}}
  %count, %status = wsp.generate %lens[%c3] heads(%c1) chunk(%c1) tiers(@T)
      config(#wsp.plan_config<>) into %buf
      : memref<2xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// == Dynamic: lowered to AICPU code ==

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
                    #wsp.tier<2, [4097, 16384]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// The binary search: 0 for invalid inputs (a negative length, batch or
// heads < 1), else a while loop that counts chunks against max_work_units
// / heads, over [chunk_min, chunk_max] narrowed by the bounds one pass
// gives (the sum S, the nonzero lengths nz, the largest): [max(chunk_min,
// ceil(S / limit)), min(chunk_max, (S - nz) / (limit + 1 - nz) + 1, the
// largest)], as the runtime's planner searches.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[LENS:[^:]*]]: memref<?xi32>, %[[B:[^:]*]]: index, %[[H:[^:]*]]: index, %[[BUF:[^:]*]]: memref<?x!wsp.descriptor<attention>>)
// CHECK: %[[ONE_PASS:.*]]:4 = scf.for
// CHECK:   arith.minsi
// CHECK:   arith.maxui
// CHECK: %[[CHUNK:.*]] = scf.if %{{.*}} -> (index) {
// CHECK:   %[[LIMIT:.*]] = arith.divui %c65536, %[[H]] : index
// CHECK:   %[[LOWER:.*]] = arith.ceildivui %[[ONE_PASS]]#1,
// CHECK:   %[[LO:.*]] = arith.select %{{.*}}, %c4096, %{{.*}} : index
// CHECK:   %[[HI:.*]] = arith.select %{{.*}}, %c4096, %{{.*}} : index
// CHECK:   %[[SEARCH:.*]]:2 = scf.while (%{{.*}} = %[[LO]], %{{.*}} = %[[HI]])
// CHECK:     arith.cmpi ult
// CHECK:     scf.condition
// CHECK:   } do {
// CHECK:     scf.for
// CHECK:       arith.ceildivui
// CHECK:     arith.cmpi ugt, %{{.*}}, %[[LIMIT]]
// CHECK:   scf.yield %[[SEARCH]]#0
// CHECK: } else {
// Generation: a validating survey (negative lengths, tier chain, chunk
// count) of the rows the lengths hold (none when batch is beyond them:
// INVALID_PARAMS, never a read past the array), the status codes, then
// the write loops under status == OK.
// CHECK: memref.dim %[[BUF]]
// CHECK: %[[SIZE:.*]] = memref.dim %[[LENS]], %c0
// CHECK: %[[FITS:.*]] = arith.cmpi sle, %[[B]], %[[SIZE]] : index
// CHECK: %[[BOK:.*]] = arith.andi %{{.*}}, %[[FITS]] : i1
// CHECK: %[[ROWS:.*]] = arith.select %[[BOK]], %[[B]], %c0{{.*}} : index
// CHECK: %[[SURVEY:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %[[ROWS]]
// CHECK:   arith.cmpi sge, %{{.*}}, %c4097_i32
// CHECK:   arith.ceildivui
// CHECK: arith.select %{{.*}}, %c1_i32, %c0_i32
// CHECK: arith.select %[[SURVEY]]#1, %c2_i32
// CHECK: arith.select %{{.*}}, %c3_i32
// A request's chunk loop is outside its head loop: a chunk's place, size
// and flags are computed once for all heads, and head h's copy goes to id
// first + h n.
// CHECK: scf.if
// CHECK:   scf.for %[[REQ:[^ ]*]] = {{.*}} to %[[ROWS]] {{.*}} iter_args(%[[FIRST:[^ ]*]] =
// CHECK:     %[[N:.*]] = arith.ceildivui
// CHECK:     scf.for %[[I:[^ ]*]] = {{.*}} to %[[N]]
// CHECK:       %[[AT:.*]] = arith.addi %[[FIRST]], %[[I]] : index
// CHECK:       scf.for %[[HEAD:[^ ]*]] = {{.*}} to %[[H]]
// CHECK:         %[[ROW:.*]] = arith.muli %[[HEAD]], %[[N]] : index
// CHECK:         %[[ID:.*]] = arith.addi %[[AT]], %[[ROW]] : index
// CHECK:         %[[D:.*]] = wsp.make_descriptor id(%[[ID]]) tier(%{{.*}}) flags(%{{.*}}) params(%[[REQ]], %[[HEAD]], %{{.*}}, %{{.*}}) : !wsp.descriptor<attention>
// CHECK:         memref.store %[[D]], %[[BUF]][%[[ID]]]
// With the declared bounds [1, 3000], only tiers 0 and 1 are reachable.
// CHECK: wsp.dispatch @k() {{.*}} {reachable_tiers = array<i64: 0, 1>}
func.func @dynamic(%lens: memref<?xi32>, %b: index, %h: index,
                   %buf: memref<?x!wsp.descriptor<attention>>) -> i32 {
  %chunk = wsp.plan_chunk_size %lens[%b] heads(%h) config(#wsp.plan_config<>)
      : memref<?xi32>
  %count, %status = wsp.generate %lens[%b] lengths in [1, 3000] heads(%h)
      chunk(%chunk) tiers(@T) config(#wsp.plan_config<>) into %buf
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k() descriptors(%buf[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(48)
  return %status : i32
}

// -----

// MoE descriptors put the expert (the lengths index) second.
wsp.tier_config @E [#wsp.tier<0, [1, 4096]>]
// CHECK-LABEL: func.func @dynamic_moe
// CHECK: scf.if
// CHECK: scf.for %[[EXPERT:[^ ]*]] = {{.*}} iter_args
// CHECK:   scf.for
// CHECK:     scf.for %[[GROUP:[^ ]*]] =
// CHECK:       wsp.make_descriptor {{.*}} params(%[[GROUP]], %[[EXPERT]], %{{.*}}, %{{.*}}) : !wsp.descriptor<moe>
func.func @dynamic_moe(%counts: memref<?xi32>, %e: index, %c: index,
                       %buf: memref<?x!wsp.descriptor<moe>>) -> i32 {
  %c1 = arith.constant 1 : index
  %count, %status = wsp.generate %counts[%e] heads(%c1) chunk(%c) tiers(@E)
      config(#wsp.plan_config<>) into %buf
      : memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  return %status : i32
}

// -----

// Declared bounds that touch a gap warn; bounds inside a gap are an error.
wsp.tier_config @G [#wsp.tier<0, [1, 100]>, #wsp.tier<1, [200, 300]>]
func.func @gaps(%lens: memref<?xi32>, %n: index,
                %buf: memref<?x!wsp.descriptor<attention>>) {
  // expected-warning @+1 {{lengths in [101, 199] are covered by no tier of @G (UNSUPPORTED_SIZE at run time)}}
  %c1, %s1 = wsp.generate %lens[%n] lengths in [50, 250] heads(%n) chunk(%n)
      tiers(@G) config(#wsp.plan_config<>) into %buf
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  // expected-error @+1 {{no tier of @G covers any length in [120, 180]: generation would always fail with UNSUPPORTED_SIZE}}
  %c2, %s2 = wsp.generate %lens[%n] lengths in [120, 180] heads(%n) chunk(%n)
      tiers(@G) config(#wsp.plan_config<>) into %buf
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

// A user's wsp.select_tier becomes a first-match compare chain: later tiers
// are selected first so that earlier ones override them.
wsp.tier_config @O [#wsp.tier<7, [1, 100]>, #wsp.tier<3, [50, 200]>]
// CHECK-LABEL: func.func @select
// CHECK: %[[IN3:.*]] = arith.andi
// CHECK: %[[S3:.*]] = arith.select %[[IN3]], %c3_i32, %c-1_i32
// CHECK: %[[IN7:.*]] = arith.andi
// CHECK: %[[S7:.*]] = arith.select %[[IN7]], %c7_i32, %[[S3]]
// CHECK: return %[[S7]]
func.func @select(%len: i32) -> i32 {
  %t = wsp.select_tier @O(%len) : i32 -> i32
  return %t : i32
}

// -----

// A sliding window plans only [max(0, len - q - W + 1), len) per request.
// Worked by hand: W = 1000, q = 1, chunk 256, balanced, 1 head. Length 600:
// start 0, 3 chunks of 200. Length 5000: start 5000 - 1 - 999 = 4000,
// effective 1000 (tier 0), 4 chunks of 250 from 4000.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 8192]>]
memref.global "private" constant @lens : memref<2xi32> = dense<[600, 5000]>
// CHECK-LABEL: wsp.descriptor_table @__wsp_plan_0 : !wsp.descriptor<attention> chunk(256)
// CHECK-SAME: dense<{{\[\[}}0, 0, 5, 0, 0, 0, 200], [1, 0, 0, 0, 0, 200, 200], [2, 0, 2, 0, 0, 400, 200], [3, 0, 5, 1, 0, 4000, 250], [4, 0, 0, 1, 0, 4250, 250], [5, 0, 0, 1, 0, 4500, 250], [6, 0, 2, 1, 0, 4750, 250]]> : tensor<7x7xi32>
// CHECK-LABEL: func.func @static_window
func.func @static_window(%buf: memref<?x!wsp.descriptor<attention>>) -> i32 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %lens = memref.get_global @lens : memref<2xi32>
  %count, %status = wsp.generate %lens[%c2] heads(%c1) window(1000) queries(%c1)
      chunk(%c256) tiers(@T) config(#wsp.plan_config<>) into %buf
      : memref<2xi32>, memref<?x!wsp.descriptor<attention>>
  return %status : i32
}

// -----

// Lowered: the window start max(0, len - (q + W - 1)) is computed per
// request and added to every chunk's kv_start.
wsp.tier_config @T [#wsp.tier<0, [1, 131072]>]
// CHECK-LABEL: func.func @dynamic_window
// CHECK-SAME: (%{{[^:]*}}: memref<?xi32>, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[Q:[^:]*]]: index,
// CHECK: scf.for
// CHECK:   %[[BACK:.*]] = arith.addi %[[Q]], %c2047
// CHECK:   arith.maxsi
// CHECK: scf.for
// CHECK:   %[[BACK2:.*]] = arith.addi %[[Q]], %c2047
// CHECK:   %[[WSTART:.*]] = arith.maxsi
// CHECK:   scf.for
// CHECK:     %[[KVSTART:.*]] = arith.addi %[[WSTART]], %{{.*}} : index
// CHECK:     scf.for
// CHECK:       wsp.make_descriptor {{.*}} params(%{{.*}}, %{{.*}}, %[[KVSTART]], %{{.*}})
func.func @dynamic_window(%lens: memref<?xi32>, %b: index, %h: index,
                          %q: index, %c: index,
                          %buf: memref<?x!wsp.descriptor<attention>>) -> i32 {
  %count, %status = wsp.generate %lens[%b] heads(%h) window(2048) queries(%q)
      chunk(%c) tiers(@T) config(#wsp.plan_config<>) into %buf
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return %status : i32
}

// -----

// == Balanced strategy, static ==
//
// Lengths {600, 0, 1500}, 2 KV heads, 2 cores, block 16, cost = 64 per unit
// + 1 per token + 64 per extra piece. Rows laid end to end in base cost
// (unit + tokens): (0,0) [0, 664), (0,1) [664, 1328), (2,0) [1328, 2892),
// (2,1) [2892, 4456). Core 1 starts at the even share, 4456 / 2 = 2228:
// 900 into row (2, 0), 836 tokens past its unit, rounded to the nearest
// block: 832. So core 0 runs both 600-token rows and tokens [0, 832) of
// row (2, 0) (FIRST|INIT = 5); core 1 the rest of that row (668, LAST = 2)
// and row (2, 1) whole. Work lists [0, 3, 5]; merge plan: rows (0,0) (0,1)
// (2,0) (2,1) -> [0, 1, 2, 4, 5].
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
                    #wsp.tier<2, [4097, 16384]>]
memref.global "private" constant @lens : memref<3xi32> = dense<[600, 0, 1500]>
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// CHECK-LABEL: wsp.descriptor_table @__wsp_plan_0 : !wsp.descriptor<attention> cores([0, 3, 5]) merges([0, 1, 2, 4, 5]) = dense<
// CHECK-SAME: {{\[\[}}0, 0, 7, 0, 0, 0, 600], [1, 0, 7, 0, 1, 0, 600], [2, 1, 5, 2, 0, 0, 832], [3, 1, 2, 2, 0, 832, 668], [4, 1, 7, 2, 1, 0, 1500]]> : tensor<5x7xi32>
// CHECK-LABEL: func.func @static_balanced
// CHECK-NOT: wsp.generate
// CHECK: %[[COUNT:.*]], %[[STATUS:.*]] = wsp.load_descriptors @__wsp_plan_0 into %[[BUF:.*]] cores(%[[CORES:.*]] : memref<3xi32>) merges(%[[MERGES:.*]] : memref<?xi32>)
// CHECK: wsp.dispatch @k() descriptors(%[[BUF]][%[[COUNT]]] : {{.*}}) on vector(2) persistent(%[[CORES]] : memref<3xi32>) {reachable_tiers = array<i64: 0, 1>}
func.func @static_balanced(%buf: memref<?x!wsp.descriptor<attention>>,
                           %cores: memref<3xi32>, %merges: memref<?xi32>)
    -> i32 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %lens = memref.get_global @lens : memref<3xi32>
  %count, %status = wsp.generate %lens[%c3] heads(%c2) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 2>) into %buf
      cores(%cores : memref<3xi32>) merges(%merges : memref<?xi32>)
      : memref<3xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k() descriptors(%buf[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(2) persistent(%cores : memref<3xi32>)
  return %status : i32
}

// -----

// == Balanced strategy, dynamic: the runtime's planner, called at run time ==
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
                    #wsp.tier<2, [4097, 16384]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// CHECK-LABEL: func.func @dynamic_balanced
// CHECK-NOT: wsp.generate
// CHECK: %[[COUNT:.*]], %[[STATUS:.*]] = wsp.plan_balanced %{{.*}}[%{{.*}}] heads(%{{.*}}) tiers(@T) config(#wsp.plan_config<strategy = balanced, block_size = 32>) into %[[BUF:.*]] cores(%{{.*}} : memref<?xi32>) merges(%{{.*}} : memref<?xi32>)
// CHECK: wsp.dispatch @k() descriptors(%[[BUF]][%[[COUNT]]] : {{.*}}) on vector(48) persistent({{.*}}) {reachable_tiers = array<i64: 0, 1>}
// CHECK: return %[[STATUS]]
func.func @dynamic_balanced(%lens: memref<?xi32>, %n: index, %h: index,
                            %buf: memref<?x!wsp.descriptor<attention>>,
                            %cores: memref<?xi32>, %merges: memref<?xi32>)
    -> i32 {
  %count, %status = wsp.generate %lens[%n] lengths in [1, 2048] heads(%h)
      tiers(@T) config(#wsp.plan_config<strategy = balanced, block_size = 32>)
      into %buf cores(%cores : memref<?xi32>) merges(%merges : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k() descriptors(%buf[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(48) persistent(%cores : memref<?xi32>)
  return %status : i32
}

// -----

// == The plan as cuts ==
// Dynamic: the runtime's planner writes the cuts and the work lists; the
// dispatch keeps `expand`, its cores write the descriptors.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
                    #wsp.tier<2, [4097, 16384]>]
memref.global "private" constant @lens : memref<3xi32> = dense<[600, 0, 1500]>
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// The static case's table (below), first in the module.
// CHECK-LABEL: wsp.descriptor_table @__wsp_plan_0 : !wsp.descriptor<attention> cores([0, 3, 5]) = dense<
// CHECK-LABEL: func.func @dynamic_cuts
// CHECK: %[[COUNT:.*]], %{{.*}} = wsp.plan_balanced %{{.*}}[%{{.*}}] heads(%{{.*}}) tiers(@T) config(#wsp.plan_config<strategy = balanced, cores = 2>) into %[[BUF:.*]] cores(%[[CORES:.*]] : memref<3xi32>) cuts(%[[CUTS:.*]] : memref<12xi32>)
// CHECK: wsp.dispatch @k() descriptors(%[[BUF]][%[[COUNT]]] : {{.*}}) on vector(2) persistent(%[[CORES]] : memref<3xi32>) expand(%[[CUTS]] : memref<12xi32>)
func.func @dynamic_cuts(%lens: memref<?xi32>, %n: index, %h: index,
                        %buf: memref<?x!wsp.descriptor<attention>>,
                        %cores: memref<3xi32>, %cuts: memref<12xi32>) -> i32 {
  %count, %status = wsp.generate %lens[%n] heads(%h) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 2>) into %buf
      cores(%cores : memref<3xi32>) cuts(%cuts : memref<12xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k() descriptors(%buf[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(2) persistent(%cores : memref<3xi32>) expand(%cuts : memref<12xi32>)
  return %status : i32
}
// Static: planned here (the plan of @static_balanced above), the whole plan
// is loaded and the dispatch runs it without expanding; no merge plan.
// CHECK-LABEL: func.func @static_cuts
// CHECK: %[[COUNT:.*]], %{{.*}} = wsp.load_descriptors @__wsp_plan_0 into %[[BUF:.*]] cores(%[[CORES:.*]] : memref<3xi32>) :
// CHECK: wsp.dispatch @k() descriptors(%[[BUF]][%[[COUNT]]] : {{.*}}) on vector(2) persistent(%[[CORES]] : memref<3xi32>) {reachable_tiers = array<i64: 0, 1>}
func.func @static_cuts(%buf: memref<?x!wsp.descriptor<attention>>,
                       %cores: memref<3xi32>, %cuts: memref<12xi32>) -> i32 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %lens = memref.get_global @lens : memref<3xi32>
  %count, %status = wsp.generate %lens[%c3] heads(%c2) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 2>) into %buf
      cores(%cores : memref<3xi32>) cuts(%cuts : memref<12xi32>)
      : memref<3xi32>, memref<?x!wsp.descriptor<attention>>
  wsp.dispatch @k() descriptors(%buf[%count] : memref<?x!wsp.descriptor<attention>>)
      on vector(2) persistent(%cores : memref<3xi32>) expand(%cuts : memref<12xi32>)
  return %status : i32
}

// -----

// A balanced static plan checks constant lengths against the tiers ...
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
memref.global "private" constant @lens : memref<2xi32> = dense<[10, 5000]>
func.func @balanced_unsupported(%buf: memref<?x!wsp.descriptor<attention>>,
                                %c: memref<?xi32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lens = memref.get_global @lens : memref<2xi32>
  // expected-error @+1 {{'wsp.generate' op length 5000 of sequence 1 is covered by no tier of @T (UNSUPPORTED_SIZE)}}
  %count, %status = wsp.generate %lens[%c2] heads(%c1) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %buf
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      : memref<2xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

// ... and its buffers against the plan.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
memref.global "private" constant @lens : memref<2xi32> = dense<[10, 20]>
func.func @balanced_merges_too_small(%buf: memref<?x!wsp.descriptor<attention>>,
                                     %c: memref<?xi32>, %m: memref<4xi32>) {
  %c2 = arith.constant 2 : index
  %lens = memref.get_global @lens : memref<2xi32>
  // expected-error @+1 {{'wsp.generate' op the plan has 4 rows but the 'merges' buffer holds 4 entries, not 5 (BUFFER_OVERFLOW)}}
  %count, %status = wsp.generate %lens[%c2] heads(%c2) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %buf
      cores(%c : memref<?xi32>) merges(%m : memref<4xi32>)
      : memref<2xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
memref.global "private" constant @lens : memref<2xi32> = dense<[10, 20]>
func.func @balanced_descriptors_too_small(
    %buf: memref<3x!wsp.descriptor<attention>>, %c: memref<?xi32>) {
  %c2 = arith.constant 2 : index
  %lens = memref.get_global @lens : memref<2xi32>
  // expected-error @+1 {{'wsp.generate' op the plan has 4 descriptors but the buffer holds 3 (BUFFER_OVERFLOW)}}
  %count, %status = wsp.generate %lens[%c2] heads(%c2) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %buf
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      : memref<2xi32>, memref<3x!wsp.descriptor<attention>>
  return
}

// -----

// Every request idle: an empty balanced plan (no rows; every core's list
// empty), still a valid table.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
memref.global "private" constant @lens : memref<2xi32> = dense<[0, 0]>
// CHECK-LABEL: wsp.descriptor_table @__wsp_plan_0 : !wsp.descriptor<attention> cores([0, 0, 0]) merges([0]) = dense<> : tensor<0x7xi32>
// CHECK-LABEL: func.func @balanced_idle
// CHECK: wsp.load_descriptors @__wsp_plan_0
func.func @balanced_idle(%buf: memref<?x!wsp.descriptor<attention>>,
                         %c: memref<?xi32>, %m: memref<?xi32>) -> i32 {
  %c2 = arith.constant 2 : index
  %lens = memref.get_global @lens : memref<2xi32>
  %count, %status = wsp.generate %lens[%c2] heads(%c2) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 2>) into %buf
      cores(%c : memref<?xi32>) merges(%m : memref<?xi32>)
      : memref<2xi32>, memref<?x!wsp.descriptor<attention>>
  return %status : i32
}

// -----

// Query lengths weight the cost: the same workload as @static_balanced with
// request 2 carrying 2 query tokens (2 x 1500 weighted tokens per row).
// Base cost 2 x 600 + 2 x 3000 + 4 x 64 = 7456; core 1 starts at 3728,
// 2400 into row (2, 0) [1328, 4392): (2400 - 64) / 2 = 1168 tokens, on a
// block. Core 0 runs both 600-token rows and [0, 1168) of row (2, 0); core
// 1 the remaining 332 and row (2, 1) whole.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]
memref.global "private" constant @lens : memref<3xi32> = dense<[600, 0, 1500]>
memref.global "private" constant @q : memref<3xi32> = dense<[1, 1, 2]>
// CHECK-LABEL: wsp.descriptor_table @__wsp_plan_0 : !wsp.descriptor<attention> cores([0, 3, 5]) merges([0, 1, 2, 4, 5]) = dense<
// CHECK-SAME: {{\[\[}}0, 0, 7, 0, 0, 0, 600], [1, 0, 7, 0, 1, 0, 600], [2, 1, 5, 2, 0, 0, 1168], [3, 1, 2, 2, 0, 1168, 332], [4, 1, 7, 2, 1, 0, 1500]]> : tensor<5x7xi32>
// CHECK-LABEL: func.func @static_balanced_q
// CHECK-LABEL: func.func @dynamic_balanced_q
// CHECK: wsp.plan_balanced {{.*}} q_lens(%{{.*}} : memref<?xi32>)
func.func @static_balanced_q(%buf: memref<?x!wsp.descriptor<attention>>,
                             %cores: memref<3xi32>, %merges: memref<?xi32>)
    -> i32 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %lens = memref.get_global @lens : memref<3xi32>
  %q = memref.get_global @q : memref<3xi32>
  %count, %status = wsp.generate %lens[%c3] heads(%c2) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 2>) into %buf
      cores(%cores : memref<3xi32>) merges(%merges : memref<?xi32>)
      q_lens(%q : memref<3xi32>)
      : memref<3xi32>, memref<?x!wsp.descriptor<attention>>
  return %status : i32
}
func.func @dynamic_balanced_q(%lens: memref<?xi32>, %q: memref<?xi32>,
                              %n: index, %buf: memref<?x!wsp.descriptor<attention>>,
                              %cores: memref<?xi32>, %merges: memref<?xi32>)
    -> i32 {
  %count, %status = wsp.generate %lens[%n] heads(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %buf
      cores(%cores : memref<?xi32>) merges(%merges : memref<?xi32>)
      q_lens(%q : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return %status : i32
}

// -----

// A constant query length below 1 is invalid input.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
memref.global "private" constant @lens : memref<2xi32> = dense<[10, 20]>
memref.global "private" constant @q : memref<2xi32> = dense<[1, 0]>
func.func @balanced_bad_q(%buf: memref<?x!wsp.descriptor<attention>>,
                          %c: memref<?xi32>) {
  %c2 = arith.constant 2 : index
  %lens = memref.get_global @lens : memref<2xi32>
  %q = memref.get_global @q : memref<2xi32>
  // expected-error @+1 {{'wsp.generate' op cannot plan: a constant length is negative, a query length is < 1, or the batch or head count is < 1 (INVALID_PARAMS)}}
  %count, %status = wsp.generate %lens[%c2] heads(%c2) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %buf
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      q_lens(%q : memref<2xi32>)
      : memref<2xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

// Constant query lengths must cover the batch.
wsp.tier_config @T [#wsp.tier<0, [1, 1024]>]
memref.global "private" constant @lens : memref<3xi32> = dense<[10, 20, 30]>
memref.global "private" constant @q : memref<2xi32> = dense<[1, 1]>
func.func @balanced_short_q(%buf: memref<?x!wsp.descriptor<attention>>,
                            %c: memref<?xi32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %lens = memref.get_global @lens : memref<3xi32>
  %q = memref.get_global @q : memref<2xi32>
  // expected-error @+1 {{'wsp.generate' op q_lens holds 2 entries for a batch of 3 (INVALID_PARAMS)}}
  %count, %status = wsp.generate %lens[%c3] heads(%c2) tiers(@T)
      config(#wsp.plan_config<strategy = balanced>) into %buf
      cores(%c : memref<?xi32>) merges(%c : memref<?xi32>)
      q_lens(%q : memref<2xi32>)
      : memref<3xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

// == Updates: wsp.update_plan ==
//
// One pass over the requests decides whether every length is valid and
// covered and the chunks fit the buffer (and, searched, whether the chunk
// search picks the same chunk), and finds the first row whose chunk count
// changed; nothing is written unless all hold. Then a second pass rewrites
// every row from that one on, and the rows before it that changed: with
// unbalanced chunks, no window and the same tier from each head's last
// chunk (n - 1), else from 0.

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// CHECK-LABEL: func.func @update_last_chunks(
// CHECK-SAME: %[[LENS:[^:]*]]: memref<?xi32>, %[[PLANNED:[^:]*]]: memref<?xi32>, %[[BATCH:[^:]*]]: index, %[[HELD:[^:]*]]: index
// CHECK-NOT: wsp.update_plan
// The rows read: batch and planned_batch only when they fit their arrays.
// CHECK: %[[ROWS:.*]] = arith.select %{{.*}}, %[[BATCH]], %c0{{.*}} : index
// CHECK: %[[HELDROWS:.*]] = memref.dim %[[PLANNED]], %c0
// CHECK: arith.cmpi ule, %[[HELD]], %[[HELDROWS]] : index
// CHECK: %[[HELDREAD:.*]] = arith.select %{{.*}}, %[[HELD]], %c0{{.*}} : index
// CHECK: %[[COMMON:.*]] = arith.minsi %[[ROWS]], %[[HELDREAD]] : index
// CHECK: %[[SURVEY:.*]]:4 = scf.for %[[ROW:[^ ]*]] = %{{.*}} to %[[ROWS]] {{.*}} iter_args({{.*}}, %[[MOVED:[^ ]*]] = %[[ROWS]]) -> (i1, index, i1, index) {
// CHECK: memref.load %[[LENS]]
// CHECK: %[[N:.*]] = arith.ceildivui
// CHECK: %[[HAS:.*]] = arith.cmpi slt, %[[ROW]], %[[COMMON]] : index
// CHECK: %[[HELDN:.*]]:2 = scf.if %[[HAS]] -> (index, i1) {
// CHECK: memref.load %[[PLANNED]]
// CHECK: arith.ceildivui
// A row past the plan held joined: its count (-1) differs.
// CHECK: } else {
// CHECK: %[[JOINED:.*]] = arith.constant -1 : index
// CHECK: scf.yield %[[JOINED]]
// CHECK: %[[DIFFERS:.*]] = arith.cmpi ne, %[[N]], %[[HELDN]]#0 : index
// CHECK: %[[NONE_YET:.*]] = arith.cmpi eq, %[[MOVED]], %[[ROWS]] : index
// CHECK: %[[FIRST:.*]] = arith.andi %[[DIFFERS]], %[[NONE_YET]] : i1
// CHECK: arith.select %[[FIRST]], %[[ROW]], %[[MOVED]] : index
// The chunks fit the buffer (and the two row counts their arrays, above).
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %[[SURVEY]]#1
// CHECK: %[[OK:.*]] = arith.andi %{{.*}}, %[[FITS]] : i1
// CHECK: %[[TOTAL:.*]] = arith.muli %[[SURVEY]]#1
// CHECK: scf.if %[[OK]] {
// CHECK: scf.for %[[REQ:.*]] = %{{.*}} iter_args(%[[AT:.*]] = %{{.*}}) -> (index) {
// CHECK: %[[RN:.*]] = arith.ceildivui
// CHECK: %[[MOVES:.*]] = arith.cmpi uge, %[[REQ]], %[[SURVEY]]#3 : index
// CHECK: scf.if %[[MOVES]] {
// CHECK: scf.for %{{.*}} = %c0{{[_0-9]*}} to %[[RN]]
// CHECK: wsp.make_descriptor
// CHECK: } else {
// CHECK: %[[CHANGED:.*]] = arith.cmpi ne
// CHECK: scf.if %[[CHANGED]] {
// CHECK: %[[SAMETIER:.*]] = arith.cmpi eq
// CHECK: %[[LAST:.*]] = arith.subi %[[RN]], %{{.*}} : index
// CHECK: %[[FROM:.*]] = arith.select %[[SAMETIER]], %[[LAST]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[FROM]] to %[[RN]]
// CHECK: wsp.make_descriptor
// CHECK: memref.store
// The count: chunks x heads when updated, else 0.
// CHECK: %[[COUNT:.*]] = arith.select %[[OK]], %[[TOTAL]]
// CHECK: return %[[OK]], %[[COUNT]] : i1, index
func.func @update_last_chunks(%lens: memref<?xi32>, %planned: memref<?xi32>,
                              %batch: index, %held: index, %heads: index,
                              %chunk: index,
                              %descs: memref<?x!wsp.descriptor<attention>>)
    -> (i1, index) {
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) chunk(%chunk) tiers(@T)
      config(#wsp.plan_config<balance_chunks = false>) into %descs
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return %u, %count : i1, index
}

// CHECK-LABEL: func.func @update_balanced(
// CHECK: %[[SURVEY:.*]]:4 = scf.for
// CHECK: scf.if %{{[0-9]+}} {
// CHECK: %[[N:.*]] = arith.ceildivui
// CHECK: arith.cmpi uge, %{{.*}}, %[[SURVEY]]#3
// CHECK: } else {
// CHECK: %[[CHANGED:.*]] = arith.cmpi ne
// CHECK: scf.if %[[CHANGED]] {
// CHECK: arith.divui
// CHECK: arith.remui
// CHECK: scf.for %{{.*}} = %c0{{[_0-9]*}} to %[[N]]
// CHECK: wsp.make_descriptor
func.func @update_balanced(%lens: memref<?xi32>, %planned: memref<?xi32>,
                           %batch: index, %heads: index, %chunk: index,
                           %descs: memref<?x!wsp.descriptor<attention>>)
    -> i1 {
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%batch]
      heads(%heads) chunk(%chunk) tiers(@T) config(#wsp.plan_config<>)
      into %descs
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return %u : i1
}

// Searched: the chunk search (chunk_min 64, chunk_max 512, 1000 units over
// the heads) picks `chunk` again: in range, its chunks fit (or it is the
// maximum), and one less does not fit (or it is the minimum). One less did
// not fit the plan held, so when every planned range grew or stayed (the
// survey's third result: then <= now per row) and no request left, it
// still does not; otherwise one more pass counts at one less.
// CHECK-LABEL: func.func @update_searched(
// CHECK-SAME: %{{[^:]*}}: memref<?xi32>, %{{[^:]*}}: memref<?xi32>, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[CHUNK:[^:]*]]: index
// CHECK: %[[LESS:.*]] = arith.subi %[[CHUNK]], %c1
// CHECK: %[[SAFELESS:.*]] = arith.select %{{.*}}, %[[LESS]], %c1
// CHECK: %[[ROWS:.*]] = arith.select %{{.*}}, %{{.*}}, %c0{{.*}} : index
// CHECK: %[[HELDREAD:.*]] = arith.select %{{.*}}, %{{.*}}, %c0{{.*}} : index
// CHECK: %[[SURVEY:.*]]:4 = scf.for
// CHECK-NOT: arith.ceildivui %{{.*}}, %[[SAFELESS]] :
// CHECK: scf.if
// CHECK: %[[THENLEN:.*]] = arith.index_cast
// CHECK: arith.ceildivui %[[THENLEN]]
// CHECK: %[[GREW:.*]] = arith.cmpi ule, %[[THENLEN]], %{{.*}} : index
// CHECK: scf.yield %{{.*}}, %[[GREW]] : index, i1
// CHECK: %[[LIMIT:.*]] = arith.divui %c1000{{[_0-9]*}}, %{{.*}} : index
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %[[SURVEY]]#1, %[[LIMIT]] : index
// CHECK: %[[ATMAX:.*]] = arith.cmpi eq, %[[CHUNK]], %c512
// CHECK: %[[NONELEFT:.*]] = arith.cmpi uge, %[[ROWS]], %[[HELDREAD]] : index
// CHECK: %[[ALLGREW:.*]] = arith.andi %[[SURVEY]]#2, %[[NONELEFT]] : i1
// CHECK: %[[LESSOVER:.*]] = scf.if %[[ALLGREW]] -> (i1) {
// CHECK: scf.yield %true
// CHECK: } else {
// CHECK: %[[LESSCOUNT:.*]] = scf.for
// CHECK: arith.ceildivui %{{.*}}, %[[SAFELESS]] : index
// CHECK: %[[OVER:.*]] = arith.cmpi ugt, %[[LESSCOUNT]], %[[LIMIT]] : index
// CHECK: scf.yield %[[OVER]] : i1
// CHECK: %[[ATMIN:.*]] = arith.cmpi eq, %[[CHUNK]], %c64
// CHECK: arith.cmpi sge, %[[CHUNK]], %c64
// CHECK: arith.cmpi sle, %[[CHUNK]], %c512
// CHECK: arith.ori %[[FITS]], %[[ATMAX]] : i1
// CHECK: arith.ori %[[LESSOVER]], %[[ATMIN]] : i1
func.func @update_searched(%lens: memref<?xi32>, %planned: memref<?xi32>,
                           %batch: index, %held: index, %heads: index,
                           %chunk: index,
                           %descs: memref<?x!wsp.descriptor<attention>>)
    -> (i1, index) {
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) chunk(%chunk) searched tiers(@T)
      config(#wsp.plan_config<chunk_min = 64, chunk_max = 512,
                              max_work_units = 1000>)
      into %descs
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return %u, %count : i1, index
}

// -----

// == Plans as rows ==
//
// wsp.generate ... rows: the same survey and status, a rows buffer too
// small for the batch is INVALID_PARAMS, and the second pass writes the
// header (batch, heads, chunk, queries, window, mode, count, 0), each
// request's first work id and length, and the count after the last: no
// descriptor. wsp.update_plan ... rows writes the lengths that changed and
// the first ids from the first row whose count changed on, no descriptor.

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]

// CHECK-LABEL: func.func @generate_rows(
// CHECK-SAME: %[[LENS:[^:]*]]: memref<?xi32>, %[[BATCH:[^:]*]]: index, %[[HEADS:[^:]*]]: index, %[[CHUNK:[^:]*]]: index, %{{[^:]*}}: memref<?x!wsp.descriptor<attention>>, %[[ROWS:[^:]*]]: memref<?xi32>
// CHECK-NOT: wsp.generate
// CHECK: %[[SURVEY:.*]]:3 = scf.for
// CHECK: %[[TWICE:.*]] = arith.addi %[[READ:.*]], %[[READ]] : index
// CHECK: %[[NEEDED:.*]] = arith.addi %[[TWICE]], %c9 : index
// CHECK: %[[HELD:.*]] = memref.dim %[[ROWS]], %c0
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %[[NEEDED]], %[[HELD]] : index
// CHECK: %[[SHORT:.*]] = arith.xori %[[FITS]], %true
// CHECK: arith.ori %{{.*}}, %[[SHORT]] : i1
// CHECK: scf.if %{{.*}} {
// CHECK: %[[B32:.*]] = arith.index_cast %[[READ]] : index to i32
// CHECK: memref.store %[[B32]], %[[ROWS]][%c0{{.*}}] : memref<?xi32>
// CHECK: memref.store %{{.*}}, %[[ROWS]][%c1{{.*}}] : memref<?xi32>
// CHECK: memref.store %{{.*}}, %[[ROWS]][%c2{{.*}}] : memref<?xi32>
// CHECK: memref.store %{{.*}}, %[[ROWS]][%c6{{.*}}] : memref<?xi32>
// CHECK: %[[END:.*]] = arith.addi %{{.*}}, %c8{{.*}} : index
// CHECK: memref.store %{{.*}}, %[[ROWS]][%[[END]]] : memref<?xi32>
// CHECK: scf.for %[[REQ:.*]] = {{.*}} iter_args(%[[FIRST:.*]] = %{{.*}}) -> (index) {
// CHECK: %[[GIVEN:.*]] = memref.load %[[LENS]][%[[REQ]]]
// CHECK: %[[R2:.*]] = arith.addi %[[REQ]], %[[REQ]] : index
// CHECK: %[[AT:.*]] = arith.addi %[[R2]], %c8{{.*}} : index
// CHECK: %[[F32:.*]] = arith.index_cast %[[FIRST]] : index to i32
// CHECK: memref.store %[[F32]], %[[ROWS]][%[[AT]]] : memref<?xi32>
// CHECK: %[[AT1:.*]] = arith.addi %[[AT]], %c1{{.*}} : index
// CHECK: memref.store %[[GIVEN]], %[[ROWS]][%[[AT1]]] : memref<?xi32>
// CHECK-NOT: wsp.make_descriptor
// CHECK: return
func.func @generate_rows(%lens: memref<?xi32>, %batch: index, %heads: index,
                         %chunk: index,
                         %descs: memref<?x!wsp.descriptor<attention>>,
                         %rows: memref<?xi32>) -> (index, i32) {
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@T) config(#wsp.plan_config<>) into %descs
      rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return %count, %status : index, i32
}

// CHECK-LABEL: func.func @update_rows(
// CHECK-SAME: %[[LENS:[^:]*]]: memref<?xi32>, %[[PLANNED:[^:]*]]: memref<?xi32>, %{{.*}}, %[[ROWS:[^:]*]]: memref<?xi32>) -> (i1, index)
// CHECK: %[[SURVEY:.*]]:4 = scf.for
// CHECK: %[[RHELD:.*]] = memref.dim %[[ROWS]], %c0
// CHECK: %[[RFITS:.*]] = arith.cmpi ule, %{{.*}}, %[[RHELD]] : index
// CHECK: %[[OK:.*]] = arith.andi %{{.*}}, %[[RFITS]] : i1
// CHECK: scf.if %[[OK]] {
// The rows before the first that moved: their lengths, where changed.
// CHECK: scf.for %[[REQ:.*]] = %c0{{.*}} to %[[SURVEY]]#3
// CHECK: %[[NOW:.*]] = memref.load %[[LENS]][%[[REQ]]]
// CHECK: %[[THEN:.*]] = memref.load %[[PLANNED]][%[[REQ]]]
// CHECK: %[[CHANGED:.*]] = arith.cmpi ne, %[[NOW]], %[[THEN]] : i32
// CHECK: scf.if %[[CHANGED]] {
// CHECK-NOT: arith.ceildivui
// CHECK: memref.store %[[NOW]], %[[ROWS]]
// From it on, its first id as held, then first ids and lengths.
// CHECK: %[[FROM:.*]] = scf.if
// CHECK: %[[HELDFIRST:.*]] = memref.load %[[ROWS]]
// CHECK: scf.for %[[MREQ:.*]] = %[[SURVEY]]#3 to {{.*}} iter_args(%[[FIRST:.*]] = %[[FROM]]) -> (index) {
// CHECK: arith.ceildivui
// CHECK: arith.index_cast %[[FIRST]] : index to i32
// CHECK-NOT: wsp.make_descriptor
// CHECK: return
func.func @update_rows(%lens: memref<?xi32>, %planned: memref<?xi32>,
                       %batch: index, %held: index, %heads: index,
                       %chunk: index,
                       %descs: memref<?x!wsp.descriptor<attention>>,
                       %rows: memref<?xi32>) -> (i1, index) {
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%held]
      heads(%heads) chunk(%chunk) tiers(@T) config(#wsp.plan_config<>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return %u, %count : i1, index
}
