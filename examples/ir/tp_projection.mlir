// The output projection of an attention block under tensor parallelism
// (seed 002's all_reduce; seed 003's "vanilla TP"): each rank holds the
// heads it attends, so its slice of the attention output (hidden_states:
// 128 of the K input features) and the matching 128 rows of W_out, and
// computes a partial y; llm.all_reduce on the device grid @tp sums the
// partials, in rank order, on every rank. This file is one rank's program:
// every rank runs it on its own slices. `wspc --run` lowers, plans, emits
// and runs the self-check (tp_projection.selfcheck.cpp), which runs it on
// 1, 2 and 4 ranks in one process (pto::runtime::comm::ThreadGroup), and
// under `mpirun -np N` on N processes.
//
// @tp has a dynamic size: the program runs on any number of ranks. @tp2
// has 2: its function refuses to run on another number (INVALID_PARAMS).
//
// @extremes: all_reduce's other kinds, the element-wise max and min over
// the ranks (f32, exact).

shard.grid @tp(shape = ?)
shard.grid @tp2(shape = 2)

func.func @row_parallel(%hidden_states: memref<?x128xi8>, %per_token_scale: memref<?xf32>,
                        %weight: memref<256x128xi8>, %weight_scale: memref<256xf32>,
                        %y: memref<?x256xbf16>) {
  llm.quant_matmul hidden_states(%hidden_states : memref<?x128xi8>)
      per_token_scale(%per_token_scale : memref<?xf32>)
      weight(%weight : memref<256x128xi8>) weight_scale(%weight_scale : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.all_reduce hidden_states(%y : memref<?x256xbf16>) on @tp
  return
}

func.func @row_parallel_tp2(%hidden_states: memref<?x128xi8>, %per_token_scale: memref<?xf32>,
                            %weight: memref<256x128xi8>, %weight_scale: memref<256xf32>,
                            %y: memref<?x256xbf16>) {
  llm.quant_matmul hidden_states(%hidden_states : memref<?x128xi8>)
      per_token_scale(%per_token_scale : memref<?xf32>)
      weight(%weight : memref<256x128xi8>) weight_scale(%weight_scale : memref<256xf32>)
      -> y(%y : memref<?x256xbf16>) {transpose_b = true}
  llm.all_reduce hidden_states(%y : memref<?x256xbf16>) on @tp2
  return
}

func.func @extremes(%high: memref<?x64xf32>, %low: memref<?x64xf32>) {
  llm.all_reduce hidden_states(%high : memref<?x64xf32>) kind max on @tp
  llm.all_reduce hidden_states(%low : memref<?x64xf32>) kind min on @tp
  return
}
