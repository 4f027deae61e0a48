// A MoE expert layer as a wsp workload: tokens are grouped by expert (as
// vLLM's moe_align_block_size leaves them: expert e owns rows
// [offsets[e], offsets[e] + counts[e]) of x), each expert gets its own
// token count, and one work unit covers one chunk of one expert's tokens.
//
// For `moe` descriptors, wsp.generate's lengths are token counts per expert
// and heads(...) counts batch groups (one here): descriptor params are
// (batch_idx, expert_idx, token_start, token_count), the spec's MoE layout
// (runtime: params::MoEPerExpert).

wsp.tier_config @ExpertTiers [
  #wsp.tier<0, [1, 64]>,      // a few tokens: decode-time experts
  #wsp.tier<1, [65, 1024]>,
  #wsp.tier<2, [1025, 65536]> // prefill
]

// The iteration space of the spec's MoESpace<DYNAMIC, DYNAMIC>: batch groups
// by experts, with its work count.
func.func @moe_space(%groups: index, %experts: index) -> index {
  %s = wsp.space(%groups, %experts) : !wsp.space<batch: ?, expert: ?>
  %n = wsp.total_work %s : !wsp.space<batch: ?, expert: ?>
  return %n : index
}

func.func @moe_step(%counts: memref<?xi32>, %offsets: memref<?xi32>,
                    %x: memref<?x?xbf16>, %w: memref<?x?x?xbf16>,
                    %y: memref<?x?xf32>,
                    %descs: memref<?x!wsp.descriptor<moe>>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %true = arith.constant true
  %experts = memref.dim %counts, %c0 : memref<?xi32>

  // Run-time preconditions: the planner checks them before anything else
  // and returns INVALID_PARAMS, with nothing written and no kernel run,
  // unless every one holds. They keep each kernel inside its memory.
  %tokens = memref.dim %x, %c0 : memref<?x?xbf16>
  %hidden = memref.dim %x, %c1 : memref<?x?xbf16>
  %offsets_n = memref.dim %offsets, %c0 : memref<?xi32>
  %offsets_fit = arith.cmpi uge, %offsets_n, %experts : index
  wsp.require %offsets_fit, "an offset per expert"
  %w_experts = memref.dim %w, %c0 : memref<?x?x?xbf16>
  %w_hidden = memref.dim %w, %c1 : memref<?x?x?xbf16>
  %ffn = memref.dim %w, %c2 : memref<?x?x?xbf16>
  %w_per_expert = arith.cmpi uge, %w_experts, %experts : index
  %w_of_hidden = arith.cmpi eq, %w_hidden, %hidden : index
  %weights = arith.andi %w_per_expert, %w_of_hidden : i1
  wsp.require %weights, "a weight matrix per expert, of x's hidden size"
  %y_tokens = memref.dim %y, %c0 : memref<?x?xf32>
  %y_ffn = memref.dim %y, %c1 : memref<?x?xf32>
  %y_rows = arith.cmpi eq, %y_tokens, %tokens : index
  %y_cols = arith.cmpi eq, %y_ffn, %ffn : index
  %y_shape = arith.andi %y_rows, %y_cols : i1
  wsp.require %y_shape, "y holds a row of w's width per row of x"
  // Each expert's rows [offsets[e], offsets[e] + counts[e]) lie in x (the
  // offsets read only when there is one per expert).
  %checked = arith.select %offsets_fit, %experts, %c0 : index
  %rows_ok = scf.for %e = %c0 to %checked step %c1
      iter_args(%acc = %true) -> (i1) {
    %offset_i32 = memref.load %offsets[%e] : memref<?xi32>
    %offset = arith.index_cast %offset_i32 : i32 to index
    %n_i32 = memref.load %counts[%e] : memref<?xi32>
    %n = arith.index_cast %n_i32 : i32 to index
    %from = arith.cmpi sge, %offset, %c0 : index
    %some = arith.cmpi sge, %n, %c0 : index
    %end = arith.addi %offset, %n : index
    %to = arith.cmpi sle, %end, %tokens : index
    %a = arith.andi %from, %some : i1
    %b = arith.andi %a, %to : i1
    %all = arith.andi %acc, %b : i1
    scf.yield %all : i1
  }
  wsp.require %rows_ok, "every expert's rows lie in x"

  %chunk = wsp.plan_chunk_size %counts[%experts] heads(%c1)
      config(#wsp.plan_config<chunk_min = 16, chunk_max = 512,
                              max_work_units = 1024>) : memref<?xi32>
  %count, %status = wsp.generate %counts[%experts] heads(%c1) chunk(%chunk)
      tiers(@ExpertTiers) config(#wsp.plan_config<chunk_min = 16, chunk_max = 512,
                              max_work_units = 1024>)
      into %descs : memref<?xi32>, memref<?x!wsp.descriptor<moe>>
  // A grouped GEMM runs on the cube cores.
  // Run only a plan that was written: on an error the buffer is left
  // as it was (and on overflow the count exceeds it).
  %ok = arith.constant 0 : i32
  %planned = arith.cmpi eq, %status, %ok : i32
  scf.if %planned {
    wsp.dispatch @expert_gemm(%offsets, %x, %w, %y
        : memref<?xi32>, memref<?x?xbf16>, memref<?x?x?xbf16>, memref<?x?xf32>)
        descriptors(%descs[%count] : memref<?x!wsp.descriptor<moe>>)
        on cube(24)
  }
  return %status : i32
}

// y[t, :] = x[t, :] @ w[e] for the descriptor's tokens of expert e.
wsp.kernel @expert_gemm tiers(@ExpertTiers)
    constants {TILE_N = array<i64: 16, 64, 128>}
    (%desc: !wsp.descriptor<moe>, %offsets: memref<?xi32>,
     %x: memref<?x?xbf16>, %w: memref<?x?x?xbf16>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %expert = wsp.param %desc["expert_idx"] : !wsp.descriptor<moe>
  %start = wsp.param %desc["token_start"] : !wsp.descriptor<moe>
  %n_tok = wsp.param %desc["token_count"] : !wsp.descriptor<moe>
  %tile_n = wsp.tier_constant "TILE_N" : index
  %hidden = memref.dim %x, %c1 : memref<?x?xbf16>
  %ffn = memref.dim %w, %c2 : memref<?x?x?xbf16>
  %base_i32 = memref.load %offsets[%expert] : memref<?xi32>
  %base = arith.index_cast %base_i32 : i32 to index
  %first = arith.addi %base, %start : index
  %end = arith.addi %first, %n_tok : index
  scf.for %t = %first to %end step %c1 {
    scf.for %n0 = %c0 to %ffn step %tile_n {
      %n_next = arith.addi %n0, %tile_n : index
      %n_end = arith.minui %n_next, %ffn : index
      scf.for %n = %n0 to %n_end step %c1 {
        %dot = scf.for %k = %c0 to %hidden step %c1
            iter_args(%acc = %zero) -> (f32) {
          %xv = memref.load %x[%t, %k] : memref<?x?xbf16>
          %wv = memref.load %w[%expert, %k, %n] : memref<?x?x?xbf16>
          %xf = arith.extf %xv : bf16 to f32
          %wf = arith.extf %wv : bf16 to f32
          %p = arith.mulf %xf, %wf : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        memref.store %dot, %y[%t, %n] : memref<?x?xf32>
      }
    }
  }
  wsp.return
}
