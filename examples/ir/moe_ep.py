#!/usr/bin/env python3
"""Writes examples/ir/moe_ep.mlir: the per-rank programs of expert
parallelism. Seed 002's MoE ops take a rank's part (its experts, its share
of the shared expert's tokens) as static attributes, so rank r of N runs a
function of its own; those functions differ only in those attributes and
their weights' shapes, and are written here from one template each, not by
hand. test/Examples/moe-ep-generated.test keeps the committed file equal to
this script's output.

Usage: moe_ep.py [-o FILE]   (default: stdout)
"""

import argparse
import sys

HEAD = '''// Written by examples/ir/moe_ep.py (edit that, then run it with -o this file).
// Expert parallelism of seed 002's MoE layer as emitted per-rank programs:
// the routed experts of examples/ir/moe_chain.mlir's @experts (16 experts,
// top 2, hidden 128, intermediate 64) spread over the ranks of a grid, each
// rank holding the experts [r E / N, (r + 1) E / N) and their weights, every
// rank holding every token (seed 002: the ops' expert range and the
// tokens' routing are the same on every rank). A rank's scatter picks the
// tokens routed to its experts (the dispatch: no token moves, every rank
// has them), its group GEMMs and swiglu run its experts, its gather sums
// its experts' weighted rows into out; then llm.all_reduce on the grid sums
// the ranks' outs in rank order (the combine: a reduce-scatter and an
// all_gather, docs/rationale/Sharding.md). The rank's program is its
// function: seed 002's expert range is a static attribute, so rank r of N
// calls @layer_epN_rR (@layer_shared_epN_rR with the shared expert).
//
// `wspc --run` runs the self-check (moe_ep.selfcheck.cpp) on 1, 2 and 4
// ranks as threads; `mpirun -np N` on the emitted tree as N processes.

shard.grid @ep1(shape = 1)
shard.grid @ep2(shape = 2)
shard.grid @ep4(shape = 4)
'''
ROUTED_FN = '''
func.func @{name}(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<{e}x128xf32>, %up_weight: memref<{e}x128x128xi8>,
    %up_scale: memref<{e}x128xf32>, %smooth_down: memref<{e}x64xf32>,
    %down_weight: memref<{e}x64x128xi8>, %down_scale: memref<{e}x128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<{e}xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {{
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<{e}x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<{e}xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {{expert_start_idx = {start} : i32, expert_end_idx = {end} : i32}}
  llm.moe_quant_group_gemm scatter_tokens(%rows : memref<?x128xi8>)
      per_token_scale(%row_scale : memref<?xf32>)
      experts_weight(%up_weight : memref<{e}x128x128xi8>)
      experts_scale(%up_scale : memref<{e}x128xf32>)
      experts_token_count(%counts : memref<{e}xi32>)
      -> y(%gate_up : memref<?x128xbf16>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<{e}x64xf32>)
      experts_tokens_count(%counts : memref<{e}xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
  llm.moe_quant_group_gemm scatter_tokens(%act : memref<?x64xi8>)
      per_token_scale(%act_scale : memref<?xf32>)
      experts_weight(%down_weight : memref<{e}x64x128xi8>)
      experts_scale(%down_scale : memref<{e}x128xf32>)
      experts_token_count(%counts : memref<{e}xi32>)
      -> y(%down : memref<?x128xbf16>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep{n}
  return
}}
'''

# The layer with seed 002's shared expert: every rank runs it for its share
# of the 24 tokens, its rows the first of the scattered buffers.
SHARED_FN = '''
func.func @{name}(%hidden_states: memref<?x128xbf16>,
    %selected_experts: memref<?x2xi32>, %expert_weights: memref<?x2xf32>,
    %smooth_up: memref<{e1}x128xf32>, %up_weight: memref<{e}x128x128xi8>,
    %up_scale: memref<{e}x128xf32>, %shared_up_weight: memref<128x128xi8>,
    %shared_up_scale: memref<128xf32>, %smooth_down: memref<{e1}x64xf32>,
    %down_weight: memref<{e}x64x128xi8>, %down_scale: memref<{e}x128xf32>,
    %shared_down_weight: memref<64x128xi8>, %shared_down_scale: memref<128xf32>,
    %rows: memref<?x128xi8>, %row_scale: memref<?xf32>,
    %counts: memref<{e}xi32>, %token_offset: memref<?xi32>,
    %gate_up: memref<?x128xbf16>, %act: memref<?x64xi8>,
    %act_scale: memref<?xf32>, %down: memref<?x128xbf16>,
    %out: memref<?x128xbf16>) {{
  %c0 = arith.constant 0 : index
  %shared = arith.constant {pr} : index
  %all = memref.dim %rows, %c0 : memref<?x128xi8>
  %allocated = arith.subi %all, %shared : index
  llm.moe_scatter_dynamic_quant hidden_states(%hidden_states : memref<?x128xbf16>)
      selected_experts(%selected_experts : memref<?x2xi32>)
      smooth_scale(%smooth_up : memref<{e1}x128xf32>)
      -> scatter_tokens(%rows : memref<?x128xi8>)
         scatter_per_token_scale(%row_scale : memref<?xf32>)
         experts_token_count(%counts : memref<{e}xi32>)
         token_offset(%token_offset : memref<?xi32>)
      {{expert_start_idx = {start} : i32, expert_end_idx = {end} : i32,
       num_shared_experts_per_rank = 1 : i32, num_tokens_offset = {off} : i32,
       num_tokens_per_rank = {pr} : i32}}
  // The shared expert's rows [0, {pr}), the routed rows after them.
  %shared_rows = memref.subview %rows[0, 0] [{pr}, 128] [1, 1]
      : memref<?x128xi8> to memref<{pr}x128xi8, strided<[128, 1]>>
  %shared_scale = memref.subview %row_scale[0] [{pr}] [1]
      : memref<?xf32> to memref<{pr}xf32, strided<[1]>>
  %routed_rows = memref.subview %rows[{pr}, 0] [%allocated, 128] [1, 1]
      : memref<?x128xi8> to memref<?x128xi8, strided<[128, 1], offset: {o128}>>
  %routed_scale = memref.subview %row_scale[{pr}] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: {pr}>>
  %shared_gate_up = memref.subview %gate_up[0, 0] [{pr}, 128] [1, 1]
      : memref<?x128xbf16> to memref<{pr}x128xbf16, strided<[128, 1]>>
  %routed_gate_up = memref.subview %gate_up[{pr}, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: {o128}>>
  llm.moe_quant_matmul hidden_states(%shared_rows : memref<{pr}x128xi8, strided<[128, 1]>>)
      per_token_scale(%shared_scale : memref<{pr}xf32, strided<[1]>>)
      expert_weight(%shared_up_weight : memref<128x128xi8>)
      expert_scale(%shared_up_scale : memref<128xf32>)
      -> y(%shared_gate_up : memref<{pr}x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_rows : memref<?x128xi8, strided<[128, 1], offset: {o128}>>)
      per_token_scale(%routed_scale : memref<?xf32, strided<[1], offset: {pr}>>)
      experts_weight(%up_weight : memref<{e}x128x128xi8>)
      experts_scale(%up_scale : memref<{e}x128xf32>)
      experts_token_count(%counts : memref<{e}xi32>)
      -> y(%routed_gate_up : memref<?x128xbf16, strided<[128, 1], offset: {o128}>>)
  llm.moe_swiglu_dynamic_quant scatter_tokens(%gate_up : memref<?x128xbf16>)
      smooth_scale(%smooth_down : memref<{e1}x64xf32>)
      experts_tokens_count(%counts : memref<{e}xi32>)
      -> y(%act : memref<?x64xi8>) per_token_scale(%act_scale : memref<?xf32>)
      {{num_shared_experts_per_rank = 1 : i32, num_tokens_offset = {off} : i32,
       num_tokens_per_rank = {pr} : i32}}
  %shared_act = memref.subview %act[0, 0] [{pr}, 64] [1, 1]
      : memref<?x64xi8> to memref<{pr}x64xi8, strided<[64, 1]>>
  %shared_act_scale = memref.subview %act_scale[0] [{pr}] [1]
      : memref<?xf32> to memref<{pr}xf32, strided<[1]>>
  %routed_act = memref.subview %act[{pr}, 0] [%allocated, 64] [1, 1]
      : memref<?x64xi8> to memref<?x64xi8, strided<[64, 1], offset: {o64}>>
  %routed_act_scale = memref.subview %act_scale[{pr}] [%allocated] [1]
      : memref<?xf32> to memref<?xf32, strided<[1], offset: {pr}>>
  %shared_down = memref.subview %down[0, 0] [{pr}, 128] [1, 1]
      : memref<?x128xbf16> to memref<{pr}x128xbf16, strided<[128, 1]>>
  %routed_down = memref.subview %down[{pr}, 0] [%allocated, 128] [1, 1]
      : memref<?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: {o128}>>
  llm.moe_quant_matmul hidden_states(%shared_act : memref<{pr}x64xi8, strided<[64, 1]>>)
      per_token_scale(%shared_act_scale : memref<{pr}xf32, strided<[1]>>)
      expert_weight(%shared_down_weight : memref<64x128xi8>)
      expert_scale(%shared_down_scale : memref<128xf32>)
      -> y(%shared_down : memref<{pr}x128xbf16, strided<[128, 1]>>)
  llm.moe_quant_group_gemm
      scatter_tokens(%routed_act : memref<?x64xi8, strided<[64, 1], offset: {o64}>>)
      per_token_scale(%routed_act_scale : memref<?xf32, strided<[1], offset: {pr}>>)
      experts_weight(%down_weight : memref<{e}x64x128xi8>)
      experts_scale(%down_scale : memref<{e}x128xf32>)
      experts_token_count(%counts : memref<{e}xi32>)
      -> y(%routed_down : memref<?x128xbf16, strided<[128, 1], offset: {o128}>>)
  llm.moe_gather scatter_tokens(%down : memref<?x128xbf16>)
      token_offset(%token_offset : memref<?xi32>)
      expert_weights(%expert_weights : memref<?x2xf32>)
      -> hidden_states(%out : memref<?x128xbf16>)
      {{num_shared_experts_per_rank = 1 : i32, num_tokens_offset = {off} : i32,
       num_tokens_per_rank = {pr} : i32}}
  llm.all_reduce hidden_states(%out : memref<?x128xbf16>) on @ep{n}
  return
}}
'''


SHARED_NOTE = """
// With seed 002's shared expert, on steps of 24 tokens: rank r of N also
// runs the shared expert for its share of the tokens, [r 24 / N,
// (r + 1) 24 / N) (a static attribute, as the experts' range), its rows
// the first of the scattered buffers.
"""
EXPERTS = 16  # the layer's routed experts, split evenly over the ranks
TOKENS = 24  # the steps of the shared-expert functions


def render():
    """The file's text: the routed-only functions, then those with the
    shared expert, for 1, 2 and 4 ranks."""
    out = HEAD
    for n in (1, 2, 4):
        e = EXPERTS // n
        for r in range(n):
            out += "\n// Rank %d of %d: experts [%d, %d)." % (
                r, n, r * e, (r + 1) * e)
            out += ROUTED_FN.format(name="layer_ep%d_r%d" % (n, r), e=e,
                                    start=r * e, end=(r + 1) * e, n=n)
    out += SHARED_NOTE
    for n in (1, 2, 4):
        e, pr = EXPERTS // n, TOKENS // n
        for r in range(n):
            out += ("\n// Rank %d of %d with the shared expert: experts "
                    "[%d, %d), tokens [%d, %d)." % (
                        r, n, r * e, (r + 1) * e, r * pr, (r + 1) * pr))
            out += SHARED_FN.format(
                name="layer_shared_ep%d_r%d" % (n, r), e=e, e1=e + 1,
                start=r * e, end=(r + 1) * e, n=n, pr=pr, off=r * pr,
                o128=pr * 128, o64=pr * 64)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", help="the file to write")
    args = parser.parse_args()
    if args.output:
        with open(args.output, "w") as f:
            f.write(render())
    else:
        sys.stdout.write(render())


if __name__ == "__main__":
    main()
