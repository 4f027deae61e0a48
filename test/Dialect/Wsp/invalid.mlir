// Every verifier clause of the wsp types, attributes and ops (tier configs
// have their own file, tier-config-invalid.mlir).
// RUN: wsp-opt %s -split-input-file -verify-diagnostics

// == Patterns ==

// expected-error @+1 {{unknown pattern 'gemm'; expected 'attention', 'moe' or "name", [params]}}
func.func private @f(!wsp.descriptor<gemm>)

// -----

// expected-error @+1 {{pattern 'p' must name 1 to 4 params, got 5}}
func.func private @f(!wsp.descriptor<"p", ["a", "b", "c", "d", "e"]>)

// -----

// expected-error @+1 {{pattern 'p' must name 1 to 4 params, got 0}}
func.func private @f(!wsp.descriptor<"p", []>)

// -----

// expected-error @+1 {{pattern 'p': param 'a' is repeated}}
func.func private @f(!wsp.descriptor<"p", ["a", "b", "a"]>)

// -----

// expected-error @+1 {{pattern 'p': param names must not be empty}}
func.func private @f(!wsp.descriptor<"p", ["a", ""]>)

// -----

// expected-error @+1 {{pattern name must not be empty}}
func.func private @f(!wsp.descriptor<"", ["a"]>)

// -----

// expected-error @+1 {{pattern name 'attention' is reserved for the spec's (request_idx, head_idx, kv_start, kv_len)}}
func.func private @f(!wsp.descriptor<"attention", ["a", "b"]>)

// -----

// expected-error @+1 {{pattern name 'moe' is reserved for the spec's (batch_idx, expert_idx, token_start, token_count)}}
func.func private @f() attributes {p = #wsp.pattern<"moe", ["x"]>}

// == Plan configurations ==

// -----

// expected-error @+1 {{chunk_min must be > 0, got 0}}
func.func private @f() attributes {c = #wsp.plan_config<chunk_min = 0>}

// -----

// expected-error @+1 {{chunk_min must be > 0, got -4}}
func.func private @f() attributes {c = #wsp.plan_config<chunk_min = -4>}

// -----

// expected-error @+1 {{chunk_max (128) must be >= chunk_min (256)}}
func.func private @f() attributes {c = #wsp.plan_config<chunk_max = 128>}

// -----

// expected-error @+1 {{max_work_units must be > 0, got 0}}
func.func private @f() attributes {c = #wsp.plan_config<max_work_units = 0>}

// -----

// expected-error @+1 {{plan config values must fit the runtime's 32-bit int}}
func.func private @f() attributes {c = #wsp.plan_config<chunk_max = 4294967296>}

// == Spaces ==

// -----

// expected-error @+1 {{dimension 1 must be >= 0 or dynamic ('?'), got -3}}
func.func private @f(!wsp.space<4, -3>)

// -----

// expected-error @+1 {{dimension 0 must fit the runtime's 32-bit int}}
func.func private @f(!wsp.space<4294967296>)

// -----

// expected-error @+1 {{dimension name 'batch' is repeated}}
func.func private @f(!wsp.space<batch: ?, batch: 4>)

// -----

func.func @f(%a: index) {
  // expected-error @+1 {{'wsp.space' op '!wsp.space<?, 4, ?>' has 2 dynamic dimensions but 1 sizes were given}}
  %s = wsp.space(%a) : !wsp.space<?, 4, ?>
  return
}

// -----

func.func @f(%s: !wsp.space<?, 4>, %a: index) {
  // expected-error @+1 {{'wsp.set_dim' op dimension 1 of '!wsp.space<?, 4>' is static; only dynamic dimensions can be set}}
  %t = wsp.set_dim %s[1] = %a : !wsp.space<?, 4>
  return
}

// -----

func.func @f(%s: !wsp.space<?, 4>, %a: index) {
  // expected-error @+1 {{'wsp.set_dim' op dimension 2 is out of range for '!wsp.space<?, 4>' (rank 2)}}
  %t = wsp.set_dim %s[2] = %a : !wsp.space<?, 4>
  return
}

// -----

func.func @f(%s: !wsp.space<?, 4>) {
  // expected-error @+1 {{'wsp.get_dim' op dimension -1 is out of range for '!wsp.space<?, 4>' (rank 2)}}
  %t = wsp.get_dim %s[-1] : !wsp.space<?, 4>
  return
}

// -----

func.func @f(%s: !wsp.space<?, 4>, %i: index) {
  // expected-error @+1 {{'wsp.index_to_coords' op expects one coordinate per dimension (2), got 1}}
  %c = "wsp.index_to_coords"(%s, %i) : (!wsp.space<?, 4>, index) -> index
  return
}

// -----

func.func @f(%x: index) {
  // expected-error @+1 {{'wsp.total_work' op operand #0 must be wsp iteration space, but got 'index'}}
  %n = "wsp.total_work"(%x) : (index) -> index
  return
}

// == Tier selection and planning ==

// -----

func.func @f(%l: i32) {
  // expected-error @+1 {{'wsp.select_tier' op 'Missing' does not reference a wsp.tier_config}}
  %t = wsp.select_tier @Missing(%l) : i32 -> i32
  return
}

// -----

func.func private @NotTiers()
func.func @f(%l: i32) {
  // expected-error @+1 {{'wsp.select_tier' op 'NotTiers' does not reference a wsp.tier_config}}
  %t = wsp.select_tier @NotTiers(%l) : i32 -> i32
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<"rope", ["token"]>>) {
  // expected-error @+1 {{'wsp.generate' op generates the spec's attention or moe descriptors, not pattern 'rope'}}
  %c, %s = wsp.generate %lens[%n] heads(%n) chunk(%n) tiers(@T)
      config(#wsp.plan_config<>) into %d
      : memref<?xi32>, memref<?x!wsp.descriptor<"rope", ["token"]>>
  return
}

// -----

func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.generate' op 'Nope' does not reference a wsp.tier_config}}
  %c, %s = wsp.generate %lens[%n] heads(%n) chunk(%n) tiers(@Nope)
      config(#wsp.plan_config<>) into %d
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

func.func @f(%lens: memref<?xi64>, %n: index) {
  // expected-error @+1 {{'wsp.plan_chunk_size' op operand #0 must be 1D memref of 32-bit signless integer values}}
  %c = wsp.plan_chunk_size %lens[%n] heads(%n) config(#wsp.plan_config<>)
      : memref<?xi64>
  return
}

// -----

func.func @f(%lens: memref<?x?xi32>, %n: index) {
  // expected-error @+1 {{'wsp.total_work_units' op operand #0 must be 1D memref of 32-bit signless integer values}}
  %c = wsp.total_work_units %lens[%n] heads(%n) chunk(%n) : memref<?x?xi32>
  return
}

// == Kernels ==

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
// expected-error @+1 {{'wsp.kernel' op first argument must be a !wsp.descriptor}}
wsp.kernel @k tiers(@T) (%a: memref<?xf32>) {
  wsp.return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
// expected-error @+1 {{'wsp.kernel' op first argument must be a !wsp.descriptor}}
wsp.kernel @k tiers(@T) () {
  wsp.return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
// expected-error @+1 {{'wsp.kernel' op must not return values; kernels write their buffers}}
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) -> i32 {
  wsp.return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
// expected-error @+1 {{'wsp.kernel' op tier constant 'TILE' must be an array of integers, one per tier}}
wsp.kernel @k tiers(@T) constants {TILE = 4 : i64} (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>, #wsp.tier<1, [11, 20]>]
// expected-error @+1 {{'wsp.kernel' op tier constant 'TILE' has 3 values but @T has 2 tiers}}
wsp.kernel @k tiers(@T) constants {TILE = array<i64: 1, 2, 3>} (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// -----

// expected-error @+1 {{'wsp.kernel' op 'Gone' does not reference a wsp.tier_config}}
wsp.kernel @k tiers(@Gone) (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// -----

func.func @f() {
  // expected-error @+1 {{'wsp.tier_id' op must be inside a wsp.kernel}}
  %t = wsp.tier_id : index
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'wsp.tier_constant' op must be inside a wsp.kernel}}
  %t = wsp.tier_constant "TILE" : index
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k tiers(@T) constants {TILE = array<i64: 4>} (%d: !wsp.descriptor<attention>) {
  // expected-error @+1 {{'wsp.tier_constant' op kernel @k has no tier constant 'TILE_K'}}
  %t = wsp.tier_constant "TILE_K" : index
  wsp.return
}

// -----

func.func @f() {
  // expected-error @+1 {{'wsp.return' op expects parent op 'wsp.kernel'}}
  wsp.return
}

// == Descriptor accessors ==

// -----

func.func @f(%d: !wsp.descriptor<moe>) {
  // expected-error @+1 {{'wsp.param' op pattern 'moe' has no param 'kv_start'; it has 'batch_idx', 'expert_idx', 'token_start', 'token_count'}}
  %p = wsp.param %d["kv_start"] : !wsp.descriptor<moe>
  return
}

// -----

func.func @f(%d: !wsp.descriptor<moe>) {
  // expected-error @+1 {{'wsp.kv_end' op needs an attention descriptor, got pattern 'moe'}}
  %p = wsp.kv_end %d : !wsp.descriptor<moe>
  return
}

// -----

func.func @f(%d: !wsp.descriptor<attention>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'flag' [first, last, init]}}
  %p = wsp.has_flag %d, middle : !wsp.descriptor<attention>
  return
}

// -----

func.func @f(%x: index) {
  // expected-error @+1 {{'wsp.work_id' op operand #0 must be wsp work descriptor, but got 'index'}}
  %w = "wsp.work_id"(%x) : (index) -> index
  return
}

// == Dispatch ==

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>, %o: memref<?xf32>) {
  wsp.return
}
func.func @f(%b: memref<?x!wsp.descriptor<attention>>, %n: index, %o: memref<?xf32>) {
  // expected-error @+1 {{'wsp.dispatch' op needs 1 to 48 vector cores, got 49}}
  wsp.dispatch @k(%o : memref<?xf32>)
        descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(49)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>, %o: memref<?xf32>) {
  wsp.return
}
func.func @f(%b: memref<?x!wsp.descriptor<attention>>, %n: index, %o: memref<?xf32>) {
  // expected-error @+1 {{'wsp.dispatch' op needs 1 to 24 cube cores, got 25}}
  wsp.dispatch @k(%o : memref<?xf32>)
        descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on cube(25)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>, %o: memref<?xf32>) {
  wsp.return
}
func.func @f(%b: memref<?x!wsp.descriptor<attention>>, %n: index, %o: memref<?xf32>) {
  // expected-error @+1 {{'wsp.dispatch' op needs 1 to 24 cube cores, got -1}}
  wsp.dispatch @k(%o : memref<?xf32>)
        descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on cube(-1)
  return
}

// -----

func.func @f(%b: memref<?x!wsp.descriptor<attention>>, %n: index, %o: memref<?xf32>) {
  // expected-error @+1 {{'wsp.dispatch' op 'k' does not reference a wsp.kernel or wsp.kernel_table}}
  wsp.dispatch @k(%o : memref<?xf32>)
        descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(8)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>, %o: memref<?xf32>) {
  wsp.return
}
func.func @f(%b: memref<?x!wsp.descriptor<attention>>, %n: index) {
  // expected-error @+1 {{'wsp.dispatch' op kernel @k takes 1 arguments after the descriptor, got 0}}
  wsp.dispatch @k()
        descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(8)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>, %o: memref<?xf32>) {
  wsp.return
}
func.func @f(%b: memref<?x!wsp.descriptor<attention>>, %n: index, %o: memref<?xf16>) {
  // expected-error @+1 {{'wsp.dispatch' op argument 0 has type 'memref<?xf16>' but kernel @k expects 'memref<?xf32>'}}
  wsp.dispatch @k(%o : memref<?xf16>)
        descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(8)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @f(%b: memref<?x!wsp.descriptor<moe>>, %n: index) {
  // expected-error @+1 {{'wsp.dispatch' op descriptors of pattern 'moe' cannot run kernel @k of pattern 'attention'}}
  wsp.dispatch @k()
        descriptors(%b[%n] : memref<?x!wsp.descriptor<moe>>) on vector(8)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @f(%b: memref<?x!wsp.descriptor<attention>>, %n: index) {
  // expected-error @+1 {{'wsp.mpmd' op needs at least two core groups; a single group is a plain wsp.dispatch (SPMD)}}
  wsp.mpmd {
    wsp.dispatch @k()
        descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(8)
  }
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @f(%b: memref<?x!wsp.descriptor<attention>>, %n: index) {
  // expected-error @+1 {{'wsp.mpmd' op core groups use 50 vector cores; the device has 48}}
  wsp.mpmd {
    wsp.dispatch @k()
        descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(40)
    wsp.dispatch @k()
        descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>) on vector(10)
  }
  return
}

// -----

func.func @f(%a: index) {
  wsp.mpmd {
    // expected-error @+1 {{'arith.addi' op is not allowed in wsp.mpmd; its body holds one wsp.dispatch per core group}}
    %x = arith.addi %a, %a : index
  }
  return
}

// == Kernel bodies in generic form (FunctionOpInterface's checks) ==

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
// expected-error @+1 {{'wsp.kernel' op entry block must have 2 arguments to match function signature}}
"wsp.kernel"() <{sym_name = "k", tiers = @T,
                 function_type = (!wsp.descriptor<attention>, index) -> ()}> ({
^bb0(%d: !wsp.descriptor<attention>):
  wsp.return
}) : () -> ()

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
// expected-error @+1 {{'wsp.kernel' op type of entry block argument #1('i32') must match the type of the corresponding argument in function signature('index')}}
"wsp.kernel"() <{sym_name = "k", tiers = @T,
                 function_type = (!wsp.descriptor<attention>, index) -> ()}> ({
^bb0(%d: !wsp.descriptor<attention>, %x: i32):
  wsp.return
}) : () -> ()

// == Planned forms ==

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.generate' op length bounds must satisfy 1 <= lo <= hi <= 2147483647, got [0, 10]}}
  %c, %s = wsp.generate %lens[%n] lengths in [0, 10] heads(%n) chunk(%n)
      tiers(@T) config(#wsp.plan_config<>) into %d
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.generate' op length bounds must satisfy 1 <= lo <= hi <= 2147483647, got [10, 5]}}
  %c, %s = wsp.generate %lens[%n] lengths in [10, 5] heads(%n) chunk(%n)
      tiers(@T) config(#wsp.plan_config<>) into %d
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
// expected-error @+1 {{'wsp.kernel' op is specialized for tier 3, which @T does not have}}
wsp.kernel @k tiers(@T) tier(3) (%d: !wsp.descriptor<attention>) {
  wsp.return
}

// -----

func.func @f(%i: index, %t: i32) {
  // expected-error @+1 {{'wsp.make_descriptor' op pattern 'attention' has 4 params, got 2}}
  %d = wsp.make_descriptor id(%i) tier(%t) flags(%t) params(%i, %i)
      : !wsp.descriptor<attention>
  return
}

// -----

// expected-error @+1 {{'wsp.descriptor_table' op table must be Nx7 (work_id, tier, flags, params[0..3]), got 'tensor<1x6xi32>'}}
wsp.descriptor_table @p : !wsp.descriptor<attention> chunk(1)
    = dense<[[0, 0, 0, 0, 0, 0]]> : tensor<1x6xi32>

// -----

// expected-error @+1 {{'wsp.descriptor_table' op chunk must be >= 1, got 0}}
wsp.descriptor_table @p : !wsp.descriptor<attention> chunk(0)
    = dense<[[0, 0, 7, 0, 0, 0, 1]]> : tensor<1x7xi32>

// -----

// expected-error @+1 {{'wsp.descriptor_table' op row 1 has work id 5; work ids are the row numbers}}
wsp.descriptor_table @p : !wsp.descriptor<attention> chunk(1)
    = dense<[[0, 0, 7, 0, 0, 0, 1], [5, 0, 7, 1, 0, 0, 1]]> : tensor<2x7xi32>

// -----

// expected-error @+1 {{'wsp.descriptor_table' op row 0: tier 256 is not in [0, 255]}}
wsp.descriptor_table @p : !wsp.descriptor<attention> chunk(1)
    = dense<[[0, 256, 7, 0, 0, 0, 1]]> : tensor<1x7xi32>

// -----

// expected-error @+1 {{'wsp.descriptor_table' op row 0: flags 8 has bits other than FIRST|LAST|INIT}}
wsp.descriptor_table @p : !wsp.descriptor<attention> chunk(1)
    = dense<[[0, 0, 8, 0, 0, 0, 1]]> : tensor<1x7xi32>

// -----

func.func @f(%b: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.load_descriptors' op 'nope' does not reference a wsp.descriptor_table}}
  %c, %s = wsp.load_descriptors @nope into %b : memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.descriptor_table @p : !wsp.descriptor<moe> chunk(1)
    = dense<[[0, 0, 7, 0, 0, 0, 1]]> : tensor<1x7xi32>
func.func @f(%b: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.load_descriptors' op table of '!wsp.descriptor<moe>' cannot fill a buffer of '!wsp.descriptor<attention>'}}
  %c, %s = wsp.load_descriptors @p into %b : memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
// expected-error @+1 {{'wsp.kernel_table' op must have at least one entry}}
wsp.kernel_table @t tiers(@T) {}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// expected-error @+1 {{'wsp.kernel_table' op tier 0 has two entries}}
wsp.kernel_table @t tiers(@T) {0: @k0, 0: @k0}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
// expected-error @+1 {{'wsp.kernel_table' op entry for tier 0: 'gone' does not reference a wsp.kernel}}
wsp.kernel_table @t tiers(@T) {0: @gone}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>, #wsp.tier<1, [11, 20]>]
wsp.kernel @k0 tiers(@T) tier(0) constants {TILE = array<i64: 64, 128>}
    (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// expected-error @+1 {{'wsp.kernel_table' op entry for tier 1: @k0 is specialized for tier 0, whose constants differ from tier 1's}}
wsp.kernel_table @t tiers(@T) {1: @k0}

// -----

// A kernel made for another tier serves this one when their constants agree.
wsp.tier_config @T [#wsp.tier<0, [1, 10]>, #wsp.tier<1, [11, 20]>]
wsp.kernel @k0 tiers(@T) tier(0) constants {TILE = array<i64: 64, 64>}
    (%d: !wsp.descriptor<attention>) {
  wsp.return
}
wsp.kernel_table @shared tiers(@T) {0: @k0, 1: @k0}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>, #wsp.tier<1, [11, 20]>]
wsp.tier_config @U [#wsp.tier<0, [1, 10]>, #wsp.tier<1, [11, 20]>]
wsp.kernel @k0 tiers(@U) tier(0) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
// expected-error @+1 {{'wsp.kernel_table' op entry for tier 0: @k0 is not specialized for a tier of @T}}
wsp.kernel_table @t tiers(@T) {0: @k0}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>, #wsp.tier<1, [11, 20]>]
wsp.kernel @k0 tiers(@T) tier(0) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
wsp.kernel @k1 tiers(@T) tier(1) (%d: !wsp.descriptor<attention>, %x: index) {
  wsp.return
}
// expected-error @+1 {{'wsp.kernel_table' op entries have different signatures: '(!wsp.descriptor<attention>) -> ()' and '(!wsp.descriptor<attention>, index) -> ()'}}
wsp.kernel_table @t tiers(@T) {0: @k0, 1: @k1}

// -----

// expected-error @+1 {{'wsp.kernel_table' op 'T' does not reference a wsp.tier_config}}
wsp.kernel_table @t tiers(@T) {0: @k0}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>) {
  wsp.return
}
func.func @f(%b: memref<?x!wsp.descriptor<attention>>, %n: index) {
  // expected-error @+1 {{'wsp.dispatch' op reachable tier 4 is not a tier of @T}}
  wsp.dispatch @k() descriptors(%b[%n] : memref<?x!wsp.descriptor<attention>>)
      on vector(8) {reachable_tiers = array<i64: 0, 4>}
  return
}

// == Sliding-window planning ==

// -----

func.func @f(%lens: memref<?xi32>, %n: index) {
  // expected-error @+1 {{'wsp.plan_chunk_size' op window must be >= 1, got 0}}
  %c = wsp.plan_chunk_size %lens[%n] heads(%n) window(0) queries(%n)
      config(#wsp.plan_config<>) : memref<?xi32>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<moe>>) {
  // expected-error @+1 {{'wsp.generate' op plans a sliding window for attention descriptors only}}
  %c, %s = wsp.generate %lens[%n] heads(%n) window(8) queries(%n) chunk(%n)
      tiers(@T) config(#wsp.plan_config<>) into %d
      : memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  return
}

// == Plan updates ==

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.update_plan' op updates plans of the spec strategy only (a balanced plan is planned again whole)}}
  %u, %c = wsp.update_plan %lens[%n] from %lens[%n] heads(%n) chunk(%n) tiers(@T)
      config(#wsp.plan_config<strategy = balanced, cores = 8>) into %d
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.update_plan' op window must be >= 1, got 0}}
  %u, %c = wsp.update_plan %lens[%n] from %lens[%n] heads(%n) window(0) queries(%n)
      chunk(%n) tiers(@T) config(#wsp.plan_config<>) into %d
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<moe>>) {
  // expected-error @+1 {{'wsp.update_plan' op plans a sliding window for attention descriptors only}}
  %u, %c = wsp.update_plan %lens[%n] from %lens[%n] heads(%n) window(8) queries(%n)
      chunk(%n) tiers(@T) config(#wsp.plan_config<>) into %d
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.update_plan' op takes 'window' and 'queries' together}}
  %u:2 = "wsp.update_plan"(%lens, %lens, %n, %n, %n, %n, %d, %n)
      {tiers = @T, config = #wsp.plan_config<>,
       operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0>}
      : (memref<?xi32>, memref<?xi32>, index, index, index, index,
         memref<?x!wsp.descriptor<attention>>, index) -> (i1, index)
  return
}

// -----

wsp.tier_config @T [#wsp.tier<0, [1, 10]>]
func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<"rows", ["row", "len"]>>) {
  // expected-error @+1 {{'wsp.update_plan' op updates the spec's attention or moe descriptors, not pattern 'rows'}}
  %u, %c = wsp.update_plan %lens[%n] from %lens[%n] heads(%n) chunk(%n) tiers(@T)
      config(#wsp.plan_config<>) into %d
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<"rows", ["row", "len"]>>
  return
}

// -----

func.func @f(%lens: memref<?xi32>, %n: index,
             %d: memref<?x!wsp.descriptor<attention>>) {
  // expected-error @+1 {{'wsp.update_plan' op 'Missing' does not reference a wsp.tier_config}}
  %u, %c = wsp.update_plan %lens[%n] from %lens[%n] heads(%n) chunk(%n) tiers(@Missing)
      config(#wsp.plan_config<>) into %d
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}
