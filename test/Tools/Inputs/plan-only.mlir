// A function that plans with the spec's planner and dispatches nothing: no
// core runs its plan, so wspc --run --plan-svg draws no chart
// (wspc-plan-svg.test runs it with its skeleton self-check).
wsp.tier_config @Tiers [#wsp.tier<0, [1, 4096]>]
func.func @plan(%lens: memref<?xi32>, %b: index, %h: index,
                %buf: memref<?x!wsp.descriptor<attention>>) {
  %chunk = wsp.plan_chunk_size %lens[%b] heads(%h) config(#wsp.plan_config<>)
      : memref<?xi32>
  %n, %s = wsp.generate %lens[%b] heads(%h) chunk(%chunk)
      tiers(@Tiers) config(#wsp.plan_config<>) into %buf
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  return
}
