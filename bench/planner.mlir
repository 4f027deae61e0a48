// The planner bench-emitted-planner times: the lowered AICPU planner for
// the spec's AttentionPlanner configuration.
wsp.tier_config @DecodeAttentionTiers [
  #wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>,
  #wsp.tier<2, [4097, 16384]>, #wsp.tier<3, [16385, 131072]>]

func.func @plan(%lens: memref<?xi32>, %batch: index, %heads: index,
                %descs: memref<?x!wsp.descriptor<attention>>,
                %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<>) : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>) into %descs
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

// The same plan kept from step to step (what a replayed table does):
// wsp.update_plan rewrites what moved when the chunk size stays, and
// writes the new count to %out[1]. Balanced chunks (the configuration
// above) and unbalanced ones.
func.func @update(%lens: memref<?xi32>, %planned: memref<?xi32>,
                  %batch: index, %heads: index, %chunk: index,
                  %descs: memref<?x!wsp.descriptor<attention>>,
                  %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%batch]
      heads(%heads) chunk(%chunk) searched tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<>) into %descs
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

func.func @plan_unbalanced(%lens: memref<?xi32>, %batch: index, %heads: index,
                           %descs: memref<?x!wsp.descriptor<attention>>,
                           %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<balance_chunks = false>) : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<balance_chunks = false>) into %descs
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_unbalanced(%lens: memref<?xi32>, %planned: memref<?xi32>,
                             %batch: index, %heads: index, %chunk: index,
                             %descs: memref<?x!wsp.descriptor<attention>>,
                             %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%batch]
      heads(%heads) chunk(%chunk) searched tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<balance_chunks = false>) into %descs
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

// The same plans kept as rows (pto/runtime/spec_rows.hpp): generated and
// updated as rows; the dispatch's cores would make the descriptors.
func.func @plan_rows(%lens: memref<?xi32>, %batch: index, %heads: index,
                     %descs: memref<?x!wsp.descriptor<attention>>,
                     %rows: memref<?xi32>,
                     %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<>) : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@DecodeAttentionTiers) config(#wsp.plan_config<>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_rows(%lens: memref<?xi32>, %planned: memref<?xi32>,
                       %batch: index, %heads: index, %chunk: index,
                       %descs: memref<?x!wsp.descriptor<attention>>,
                       %rows: memref<?xi32>,
                       %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%batch]
      heads(%heads) chunk(%chunk) searched tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<>) into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}

func.func @plan_rows_unbalanced(%lens: memref<?xi32>, %batch: index, %heads: index,
                                %descs: memref<?x!wsp.descriptor<attention>>,
                                %rows: memref<?xi32>,
                                %out: memref<?xindex>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = wsp.plan_chunk_size %lens[%batch] heads(%heads)
      config(#wsp.plan_config<balance_chunks = false>) : memref<?xi32>
  %count, %status = wsp.generate %lens[%batch] heads(%heads) chunk(%chunk)
      tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<balance_chunks = false>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %chunk, %out[%c0] : memref<?xindex>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %status : i32
}

func.func @update_rows_unbalanced(%lens: memref<?xi32>, %planned: memref<?xi32>,
                                  %batch: index, %heads: index, %chunk: index,
                                  %descs: memref<?x!wsp.descriptor<attention>>,
                                  %rows: memref<?xi32>,
                                  %out: memref<?xindex>) -> i1 {
  %c1 = arith.constant 1 : index
  %u, %count = wsp.update_plan %lens[%batch] from %planned[%batch]
      heads(%heads) chunk(%chunk) searched tiers(@DecodeAttentionTiers)
      config(#wsp.plan_config<balance_chunks = false>)
      into %descs rows(%rows : memref<?xi32>)
      : memref<?xi32>, memref<?xi32>, memref<?x!wsp.descriptor<attention>>
  memref.store %count, %out[%c1] : memref<?xindex>
  return %u : i1
}
