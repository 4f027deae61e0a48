//===- LlmOps.td - llm operations ------------------------*- tablegen -*-===//
//
// The operators of seed 002, one op each, on buffers in destination-passing
// style: the inputs, then after `->` the buffers the op writes.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_DIALECT_LLM_IR_LLMOPS_TD
#define WSP_DIALECT_LLM_IR_LLMOPS_TD

include "wsp/Dialect/Llm/IR/LlmDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"

// Operand roles. Dtypes and shapes are checked by each op's verifier, which
// names the operand and the seed's dimension in its message.
class Llm_In<string doc = ""> : Arg<AnyStridedMemRef, doc, [MemRead]>;
class Llm_Out<string doc = ""> : Arg<AnyStridedMemRef, doc, [MemWrite]>;
class Llm_InOut<string doc = ""> : Arg<AnyStridedMemRef, doc, [MemRead, MemWrite]>;
class Llm_OptIn<string doc = ""> : Arg<Optional<AnyStridedMemRef>, doc, [MemRead]>;
class Llm_OptOut<string doc = ""> : Arg<Optional<AnyStridedMemRef>, doc, [MemWrite]>;

// Assembly of one operand: `name(%value : type)`, or an optional group.
class Req<string n> {
  string f = " `" # n # "` `(` $" # n # " `:` type($" # n # ") `)` ";
}
class Opt<string n> {
  string f = " (`" # n # "` `(` $" # n # "^ `:` type($" # n # ") `)`)? ";
}

class Llm_VerifiedOp<string mnemonic, list<Trait> traits = []>
    : Llm_Op<mnemonic, traits> {
  let hasVerifier = 1;
}

def Llm_KvSharding : I32EnumAttr<"KvSharding",
    "how a sharded attention's KV cache is spread over the ranks (seed 003)", [
    I32EnumAttrCase<"kvdp", 0>, I32EnumAttrCase<"kvdp_all_to_all", 1>,
    I32EnumAttrCase<"cp", 2>, I32EnumAttrCase<"kvdp_cp", 3>]> {
  let cppNamespace = "::mlir::wsp::llm";
}

def Llm_ReduceKind : I32EnumAttr<"ReduceKind", "reduction of all_reduce", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::wsp::llm";
}

//===----------------------------------------------------------------------===//
// Norms and quantization
//===----------------------------------------------------------------------===//

def Llm_ScaleDynamicQuantOp : Llm_VerifiedOp<"scale_dynamic_quant"> {
  let summary = "Smooth-scale each token, then quantize it to int8";
  let description = [{
    For every token t: `x = hidden_states[t] * smooth_scale` (in f32),
    `scale[t] = max|x| / 127`, `y[t] = rint(x * (127 / max|x|))`: round to
    nearest, ties to even (pto-isa's TQUANT). A token whose `x` is all
    zeros gets `scale[t] = 0` and `y[t] = 0`. `y[t] * scale[t]`
    dequantizes.

    | operand | shape | dtype |
    |---|---|---|
    | hidden_states | [num_tokens, hidden_size] | bf16 |
    | smooth_scale | [hidden_size] | f32 |
    | -> y | [num_tokens, hidden_size] | i8 |
    | -> scale | [num_tokens] | f32 |
  }];
  let arguments = (ins Llm_In<>:$hidden_states, Llm_In<>:$smooth_scale,
                       Llm_Out<>:$y, Llm_Out<>:$scale);
  let assemblyFormat = Req<"hidden_states">.f # Req<"smooth_scale">.f #
      "`->`" # Req<"y">.f # Req<"scale">.f # "attr-dict";
}

def Llm_RmsNormOp : Llm_VerifiedOp<"rms_norm", [AttrSizedOperandSegments]> {
  let summary = "Optional residual add, then RMS norm over hidden_size";
  let description = [{
    `s = hidden_states + residual` in f32 and `after_res = bf16(s)` when a
    residual is given (else `s = hidden_states`), then
    `y = bf16(a / sqrt(mean(s^2) + eps) * weight)` where `a` is `after_res`
    (`hidden_states` without a residual): the mean square is taken over the
    f32 sum, the value normalized is the stored bf16 sum, as vLLM's
    `fused_add_rms_norm` does, so `after_res` may be the residual buffer
    itself. `after_res` is present exactly when `residual` is.

    | operand | shape | dtype |
    |---|---|---|
    | hidden_states | [num_tokens, hidden_size] | bf16 |
    | residual (optional) | [num_tokens, hidden_size] | bf16 |
    | weight | [hidden_size] | f32 |
    | -> y | [num_tokens, hidden_size] | bf16 |
    | -> after_res (iff residual) | [num_tokens, hidden_size] | bf16 |
  }];
  let arguments = (ins Llm_In<>:$hidden_states, Llm_OptIn<>:$residual,
                       Llm_In<>:$weight, Llm_Out<>:$y, Llm_OptOut<>:$after_res,
                       F32Attr:$eps);
  let assemblyFormat = Req<"hidden_states">.f # Opt<"residual">.f #
      Req<"weight">.f # "`->`" # Req<"y">.f # Opt<"after_res">.f # "attr-dict";
}

def Llm_AddRmsNormDynamicQuantOp
    : Llm_VerifiedOp<"add_rms_norm_dynamic_quant", [AttrSizedOperandSegments]> {
  let summary = "Optional residual add, RMS norm, then scale_dynamic_quant";
  let description = [{
    `rms_norm` followed by `scale_dynamic_quant` in one kernel: the norm's
    output stays in f32 (it is not rounded to bf16 before the quantization)
    and is multiplied by `smooth_scale`, then quantized per token as
    `scale_dynamic_quant` does. `after_res` is present exactly when
    `residual` is.

    | operand | shape | dtype |
    |---|---|---|
    | hidden_states | [num_tokens, hidden_size] | bf16 |
    | residual (optional) | [num_tokens, hidden_size] | bf16 |
    | weight | [hidden_size] | bf16 or f32 |
    | smooth_scale | [hidden_size] | bf16 or f32 |
    | -> y | [num_tokens, hidden_size] | i8 |
    | -> per_token_scale | [num_tokens] | f32 |
    | -> after_res (iff residual) | [num_tokens, hidden_size] | bf16 |
  }];
  let arguments = (ins Llm_In<>:$hidden_states, Llm_OptIn<>:$residual,
                       Llm_In<>:$weight, Llm_In<>:$smooth_scale,
                       Llm_Out<>:$y, Llm_Out<>:$per_token_scale,
                       Llm_OptOut<>:$after_res, F32Attr:$eps);
  let assemblyFormat = Req<"hidden_states">.f # Opt<"residual">.f #
      Req<"weight">.f # Req<"smooth_scale">.f # "`->`" # Req<"y">.f #
      Req<"per_token_scale">.f # Opt<"after_res">.f # "attr-dict";
}

def Llm_QuantMatmulOp : Llm_VerifiedOp<"quant_matmul"> {
  let summary = "int8 x int8 matmul with per-token and per-channel dequant";
  let description = [{
    `y[t, n] = bf16(sum_k a[t, k] * b[k, n] (exact, in i32) * per_token_scale[t]
    * weight_scale[n] + bias[n])`, where `a` is `hidden_states` (stored
    `[hidden_size, num_tokens]` when `transpose_a`) and `b` is `weight`
    (stored `[new_hidden_size, hidden_size]` when `transpose_b`).

    | operand | shape | dtype |
    |---|---|---|
    | hidden_states | [num_tokens, hidden_size] | i8 |
    | per_token_scale | [num_tokens] | f32 |
    | weight | [hidden_size, new_hidden_size] | i8 |
    | weight_scale | [new_hidden_size] | bf16 or f32 |
    | bias (optional) | [new_hidden_size] | bf16 |
    | -> y | [num_tokens, new_hidden_size] | bf16 |
  }];
  let arguments = (ins Llm_In<>:$hidden_states, Llm_In<>:$per_token_scale,
                       Llm_In<>:$weight, Llm_In<>:$weight_scale,
                       Llm_OptIn<>:$bias, Llm_Out<>:$y,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let assemblyFormat = Req<"hidden_states">.f # Req<"per_token_scale">.f #
      Req<"weight">.f # Req<"weight_scale">.f # Opt<"bias">.f # "`->`" #
      Req<"y">.f # "attr-dict";
}

def Llm_HeadRmsNormOp : Llm_VerifiedOp<"head_rms_norm"> {
  let summary = "RMS norm over head_dim on the heads [head_offset, head_offset + head_num)";
  let description = [{
    For every token and every head h in `[head_offset, head_offset +
    head_num)`: `y[t, h] = x / sqrt(mean(x^2) + eps) * weight[h -
    head_offset]` with `x = hidden_states[t, h]`. The other heads of `y`
    are copied from `hidden_states`: `y` has the input's shape (the seed's
    `[num_tokens, q_head_num + 2 * kv_head_num, head_dim]`), so `y` may be
    the input itself (normalize Q and K of a packed QKV in place).

    | operand | shape | dtype |
    |---|---|---|
    | hidden_states | [num_tokens, total_heads, head_dim] | bf16 |
    | weight | [head_num, head_dim] | bf16 or f32 |
    | -> y | [num_tokens, total_heads, head_dim] | bf16 |
  }];
  let arguments = (ins Llm_In<>:$hidden_states, Llm_In<>:$weight,
                       Llm_Out<>:$y, F32Attr:$eps, I32Attr:$head_offset,
                       I32Attr:$head_num);
  let assemblyFormat = Req<"hidden_states">.f # Req<"weight">.f # "`->`" #
      Req<"y">.f # "attr-dict";
}

//===----------------------------------------------------------------------===//
// Rotary embedding and KV cache stores
//===----------------------------------------------------------------------===//

def Llm_RotaryEmbeddingOp
    : Llm_VerifiedOp<"rotary_embedding"> {
  let summary = "Rotary position embedding on the Q and K heads of a QKV";
  let description = [{
    Rotates, for every Q and K head (the first `q_head_num + kv_head_num`
    heads; V is copied), the `rope_dim` columns starting at `rope_offset`
    in NeoX form (the first half of the range pairs with the second):
    with `i < rope_dim / 2`, `x1 = x[rope_offset + i]`,
    `x2 = x[rope_offset + rope_dim/2 + i]`,
    `out1 = x1 * cos[p, i] - x2 * sin[p, i]`,
    `out2 = x2 * cos[p, i + rope_dim/2] + x1 * sin[p, i + rope_dim/2]`
    (`out = x * cos + rotate_half(x) * sin`, column for column), where `p`
    is the token's position: `position_ids[b] + s` for token `s` of
    sequence `b`.
    The other columns are copied. `out` has `qkv`'s shape and may be `qkv`.

    Packed form: `qkv` is `[num_tokens, heads, head_dim]`, sequence `b`'s
    tokens start at `accum_q_len[b]` (the exclusive prefix sum of `q_lens`
    when `accum_q_len` is absent). Unpacked form: `qkv` is
    `[batch_size, q_seq_len, heads, head_dim]` and sequence `b` uses its
    first `q_lens[b]` rows; `accum_q_len` is not accepted.

    | operand | shape | dtype |
    |---|---|---|
    | qkv | [batch_size, q_seq_len, heads, head_dim] or [num_tokens, heads, head_dim] | bf16 |
    | sin, cos | [max_position_embedding, rope_dim] | bf16 |
    | position_ids | [batch_size] | i32 |
    | q_lens | [batch_size] | i32 |
    | accum_q_len (optional, packed only) | [batch_size + 1] | i32 |
    | -> out | as qkv | bf16 |

    `heads` is `q_head_num + 2 * kv_head_num`.
  }];
  let arguments = (ins Llm_In<>:$qkv, Llm_In<>:$sin, Llm_In<>:$cos,
                       Llm_In<>:$position_ids, Llm_In<>:$q_lens,
                       Llm_OptIn<>:$accum_q_len, Llm_Out<>:$out,
                       I32Attr:$q_head_num, I32Attr:$kv_head_num,
                       DefaultValuedAttr<I32Attr, "0">:$rope_offset,
                       I32Attr:$rope_dim, I32Attr:$max_q_len);
  let assemblyFormat = Req<"qkv">.f # Req<"sin">.f # Req<"cos">.f #
      Req<"position_ids">.f # Req<"q_lens">.f # Opt<"accum_q_len">.f #
      "`->`" # Req<"out">.f # "attr-dict";
}

def Llm_StoreKvCacheOp
    : Llm_VerifiedOp<"store_kv_cache", [AttrSizedOperandSegments]> {
  let summary = "Append this step's keys and values to a contiguous KV cache";
  let description = [{
    For sequence `b` and its token `s < q_lens[b]`, writes key and value
    into `k_cache[kv_ids[b], :, kv_lens[b] + s, :]` (and `v_cache`
    alike), quantized to int8 with the per-channel scales when the caches
    are int8: `q = clamp(rint(x / scale), -128, 127)`, round to nearest,
    ties to even. `kv_ids` defaults to `[0, 1, ...]`, `kv_lens` (the
    tokens already in the cache) to zeros, `accum_q_len` (packed form) to
    the exclusive prefix sum of `q_lens`. Nothing else of the caches is
    written.

    | operand | shape | dtype |
    |---|---|---|
    | key, value | [batch_size, q_seq_len, kv_head_num, head_dim] or [num_tokens, kv_head_num, head_dim] | bf16 |
    | kv_ids (optional) | [batch_size] | i32 |
    | q_lens | [batch_size] | i32 |
    | kv_lens (optional) | [batch_size] | i32 |
    | accum_q_len (optional, packed only) | [batch_size + 1] | i32 |
    | key_scale, value_scale (iff int8 caches) | [kv_head_num, head_dim] | f32 |
    | -> k_cache, v_cache | [max_batch_size, kv_head_num, max_seq_len, head_dim] | bf16 or i8 |
  }];
  let arguments = (ins Llm_In<>:$key, Llm_In<>:$value, Llm_OptIn<>:$kv_ids,
                       Llm_In<>:$q_lens, Llm_OptIn<>:$kv_lens,
                       Llm_OptIn<>:$accum_q_len, Llm_OptIn<>:$key_scale,
                       Llm_OptIn<>:$value_scale, Llm_InOut<>:$k_cache,
                       Llm_InOut<>:$v_cache, I32Attr:$max_q_len);
  let assemblyFormat = Req<"key">.f # Req<"value">.f # Opt<"kv_ids">.f #
      Req<"q_lens">.f # Opt<"kv_lens">.f # Opt<"accum_q_len">.f #
      Opt<"key_scale">.f # Opt<"value_scale">.f # "`->`" # Req<"k_cache">.f #
      Req<"v_cache">.f # "attr-dict";
}

def Llm_StorePagedKvCacheOp
    : Llm_VerifiedOp<"store_paged_kv_cache", [AttrSizedOperandSegments,
        DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Append this step's keys and values to a paged KV cache";
  let description = [{
    As `store_kv_cache`, into pages: position `p = kv_lens[b] + s` of
    sequence `b` lives in page `block_table[kv_ids[b], p / block_size]`,
    row `p % block_size`.

    `ring`: the sequence's block-table row is a ring of
    `max_block_num_per_seq * block_size` slots (seed 001's circular cache,
    over pages): position `p` lives at slot `p mod` that, so a sequence of
    any length keeps its last positions (what a sliding-window attention
    with `ring` reads). A step's tokens must fit the ring (checked at run
    time).

    | operand | shape | dtype |
    |---|---|---|
    | key, value | [batch_size, q_seq_len, kv_head_num, head_dim] or [num_tokens, kv_head_num, head_dim] | bf16 |
    | block_table | [max_batch_size, max_block_num_per_seq] | i32 |
    | kv_ids (optional) | [batch_size] | i32 |
    | q_lens | [batch_size] | i32 |
    | kv_lens (optional) | [batch_size] | i32 |
    | accum_q_len (optional, packed only) | [batch_size + 1] | i32 |
    | key_scale, value_scale (iff int8 caches) | [kv_head_num, head_dim] | f32 |
    | -> k_cache, v_cache | [max_block_num, kv_head_num, block_size, head_dim] | bf16 or i8 |

    **Sharded** (seed 003): with `on @grid kv_sharding = kvdp` (or
    `kvdp_all_to_all`) the op is one rank's part of the update of a
    KV-data-parallel cache: `key`, `value` and the per-sequence operands
    describe every request (the rank computed them all), `k_cache`,
    `v_cache` and `block_table` are the rank's own, as for
    `flash_attention_decode`; the rank stores its requests' tokens only.
    The tokens are packed by `q_lens` (no `accum_q_len`) or one row per
    request. With `kv_sharding = cp` the cache holds the rank's part of
    every block (as for the attention) and the rank stores the tokens whose
    positions fall in it, packed by `q_lens`, any number per request.
    With `grid_axes` the ranks are the rank's group along those axes of the
    grid, as for the attention; `kvdp_cp` (two axes, [kvdp, cp]) stores the
    tokens of the rank's requests (first axis) whose positions fall in its
    part of each block (second axis).
  }];
  let arguments = (ins Llm_In<>:$key, Llm_In<>:$value, Llm_In<>:$block_table,
                       Llm_OptIn<>:$kv_ids, Llm_In<>:$q_lens,
                       Llm_OptIn<>:$kv_lens, Llm_OptIn<>:$accum_q_len,
                       Llm_OptIn<>:$key_scale, Llm_OptIn<>:$value_scale,
                       Llm_InOut<>:$k_cache, Llm_InOut<>:$v_cache,
                       I32Attr:$max_q_len,
                       OptionalAttr<FlatSymbolRefAttr>:$grid,
                       OptionalAttr<DenseI16ArrayAttr>:$grid_axes,
                       OptionalAttr<Llm_KvSharding>:$kv_sharding,
                       UnitAttr:$ring);
  let assemblyFormat = Req<"key">.f # Req<"value">.f # Req<"block_table">.f #
      Opt<"kv_ids">.f # Req<"q_lens">.f # Opt<"kv_lens">.f #
      Opt<"accum_q_len">.f # Opt<"key_scale">.f # Opt<"value_scale">.f #
      "`->`" # Req<"k_cache">.f # Req<"v_cache">.f #
      "(`on` $grid^ (`grid_axes` `=` $grid_axes^)? "
      "(`kv_sharding` `=` $kv_sharding^)?)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Llm_FlashAttentionOp
    : Llm_VerifiedOp<"flash_attention", [AttrSizedOperandSegments]> {
  let summary = "Benchmark attention: one sequence, no cache (seed 002)";
  let description = [{
    `out = softmax(q k^T / sqrt(head_dim) + mask) v` per query head, with
    query head `h` reading KV head `h / (q_head_num / kv_head_num)` (GQA),
    causal when `is_causal`. Either `qkv` (Q heads first, then K, then V)
    or all three of `q`, `k`, `v`. In the `qkv` form `q_head_num` is
    `out`'s head count and `kv_head_num` the rest halved.

    | operand | shape | dtype |
    |---|---|---|
    | qkv | [1, q_seq_len, q_head_num + 2 * kv_head_num, head_dim] | bf16 |
    | q | [1, q_seq_len, q_head_num, head_dim] | bf16 |
    | k, v | [1, q_seq_len, kv_head_num, head_dim] | bf16 |
    | -> out | [1, q_seq_len, q_head_num, head_dim] | bf16 |
  }];
  let arguments = (ins Llm_OptIn<>:$qkv, Llm_OptIn<>:$q, Llm_OptIn<>:$k,
                       Llm_OptIn<>:$v, Llm_Out<>:$out,
                       DefaultValuedAttr<BoolAttr, "true">:$is_causal);
  let assemblyFormat = Opt<"qkv">.f # Opt<"q">.f # Opt<"k">.f # Opt<"v">.f #
      "`->`" # Req<"out">.f # "attr-dict";
}

def Llm_FlashDecodingOp
    : Llm_VerifiedOp<"flash_decoding", [AttrSizedOperandSegments]> {
  let summary = "Benchmark decode attention: equal KV lengths, one new token";
  let description = [{
    Each sequence `b` attends with its one new query token to the first
    `kv_lens` positions of `k_cache[b]` / `v_cache[b]` (one length for
    every sequence, seed 002's `kv_lens` attribute) and then to its own new
    key and value (from `qkv` or `k`/`v`): `kv_lens + 1` positions, all
    visible. The caches are read, never written.

    | operand | shape | dtype |
    |---|---|---|
    | qkv | [batch_size, 1, q_head_num + 2 * kv_head_num, head_dim] | bf16 |
    | q | [batch_size, 1, q_head_num, head_dim] | bf16 |
    | k, v | [batch_size, 1, kv_head_num, head_dim] | bf16 |
    | k_cache, v_cache | [max_batch_size, kv_head_num, max_seq_len, head_dim] | bf16 |
    | -> out | [batch_size, 1, q_head_num, head_dim] | bf16 |
  }];
  let arguments = (ins Llm_OptIn<>:$qkv, Llm_OptIn<>:$q, Llm_OptIn<>:$k,
                       Llm_OptIn<>:$v, Llm_In<>:$k_cache, Llm_In<>:$v_cache,
                       Llm_Out<>:$out, I64Attr:$kv_lens);
  let assemblyFormat = Opt<"qkv">.f # Opt<"q">.f # Opt<"k">.f # Opt<"v">.f #
      Req<"k_cache">.f # Req<"v_cache">.f # "`->`" # Req<"out">.f # "attr-dict";
}

def Llm_FlashAttentionPrefillOp
    : Llm_VerifiedOp<"flash_attention_prefill", [AttrSizedOperandSegments]> {
  let summary = "Prefill attention over a paged cache: ragged, chunked";
  let description = [{
    Padding removed: the batch's new tokens are packed in `q`, sequence
    `b`'s `q_lens[b]` tokens starting at `accum_q_len[b]` (the exclusive
    prefix sum of `q_lens` when absent). Chunked prefill: `kv_lens[b]`
    tokens of the sequence are already in the cache, and this step's keys
    and values have been stored after them (by `store_paged_kv_cache`), so
    query token `s` sees cache positions `p <= kv_lens[b] + s` through the
    pages `block_table[kv_ids[b], p / block_size]`. int8 caches are
    dequantized with `k_scale`/`v_scale` (present exactly then).

    `sliding_window` (W, at least 1): query token `s` sees only the last W
    positions up to its own, `kv_lens[b] + s - W < p <= kv_lens[b] + s`,
    among the step's new tokens too (seed 001's sliding mask never hides a
    new token, which a prompt longer than W needs); each unit of query
    tokens reads from its first token's window on.

    `ring` (with `sliding_window`): the cache rows are rings, as
    `store_paged_kv_cache`'s `ring` writes them: position `p` lives at
    slot `p mod (max_block_num_per_seq * block_size)` of the sequence's
    block-table row. The positions a step reads, the last
    `min(kv_lens[b] + q_lens[b], W + q_lens[b] - 1)`, must fit the ring
    (checked at run time: INVALID_PARAMS).

    | operand | shape | dtype |
    |---|---|---|
    | q | [num_tokens, q_head_num, head_dim] | bf16 |
    | kv_ids, kv_lens, q_lens | [batch_size] | i32 |
    | accum_q_len (optional) | [batch_size + 1] | i32 |
    | block_table | [max_batch_size, max_block_num_per_seq] | i32 |
    | k_cache, v_cache | [max_block_num, kv_head_num, block_size, head_dim] | bf16 or i8 |
    | k_scale, v_scale (iff int8) | [kv_head_num, head_dim] | f32 |
    | -> out | [num_tokens, q_head_num, head_dim] | bf16 |
  }];
  let arguments = (ins Llm_In<>:$q, Llm_In<>:$kv_ids, Llm_In<>:$kv_lens,
                       Llm_In<>:$q_lens, Llm_OptIn<>:$accum_q_len,
                       Llm_In<>:$block_table, Llm_In<>:$k_cache,
                       Llm_In<>:$v_cache, Llm_OptIn<>:$k_scale,
                       Llm_OptIn<>:$v_scale, Llm_Out<>:$out,
                       I32Attr:$max_q_len,
                       OptionalAttr<I32Attr>:$sliding_window, UnitAttr:$ring);
  let assemblyFormat = Req<"q">.f # Req<"kv_ids">.f # Req<"kv_lens">.f #
      Req<"q_lens">.f # Opt<"accum_q_len">.f # Req<"block_table">.f #
      Req<"k_cache">.f # Req<"v_cache">.f # Opt<"k_scale">.f #
      Opt<"v_scale">.f # "`->`" # Req<"out">.f # "attr-dict";
}

def Llm_FlashAttentionDecodeOp
    : Llm_VerifiedOp<"flash_attention_decode", [AttrSizedOperandSegments,
        DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Decode attention over a paged cache: per-request KV lengths";
  let description = [{
    Every request has `q_seq_len` new tokens (1 to 3 in practice), already
    stored in the cache after the `kv_lens[b]` earlier ones; query token `s`
    sees positions `p <= kv_lens[b] + s`. Pages, GQA and int8 caches as in
    `flash_attention_prefill`. `q_lens` must all equal `q_seq_len` (checked
    at run time by the planning function).

    | operand | shape | dtype |
    |---|---|---|
    | q | [batch_size, q_seq_len, q_head_num, head_dim] | bf16 |
    | kv_ids, kv_lens, q_lens | [batch_size] | i32 |
    | accum_q_len | [batch_size + 1] | i32 |
    | block_table | [max_batch_size, max_block_num_per_seq] | i32 |
    | k_cache, v_cache | [max_block_num, kv_head_num, block_size, head_dim] | bf16 or i8 |
    | k_scale, v_scale (iff int8) | [kv_head_num, head_dim] | f32 |
    | -> out | [batch_size, q_seq_len, q_head_num, head_dim] | bf16 |
    | plan_kv_lens (optional) | [plan_batch] | i32 |
    | visible_lens (optional) | [batch_size, q_seq_len] | i32 |
    | start_pos (optional, with sliding_window) | [batch_size, q_seq_len] | i32 |
    | -> state_o (instead of out) | [batch_size, q_seq_len, q_head_num, head_dim] | f32 |
    | -> state_m, state_l (with state_o) | [batch_size, q_seq_len, q_head_num, 8] | f32 |

    `visible_lens`: how many cached positions each query token sees, from
    the first (default `kv_lens[b] + s + 1`: causal); each between 0 and
    the request's last entry, not decreasing, which is the range the
    request reads. With it, the cache holds any sequence the caller chooses
    (a rank's shard of it).

    `state_o`, `state_m`, `state_l` (all three, instead of `out`): the
    softmax state of each (request, token, head) rather than its output:
    the unnormalized sum o = sum_p e^(s_p - m) v_p, the running max m of
    the scores s_p and the sum l = sum_p e^(s_p - m), in f32, over the
    positions the token sees (none: m is the lowest float); m and l fill
    a row of 8 (the 32 bytes a vector store writes at least). States over
    disjoint positions merge as the chunks of a row do: m = max m_i,
    weights e^(m_i - m), o / l at the end.

    `sliding_window` (W, at least `q_seq_len`): query token `s` sees only
    the last W positions up to its own,
    `kv_lens[b] + s - W < p <= kv_lens[b] + s` (the local layers of Mistral
    and Gemma). It is seed 001's sliding mask over a block cache
    (`wsp.mask_range sliding`, which never hides the step's new tokens: with
    W >= q_seq_len that is the same set), and only the chunks the windows
    reach are planned. Not with `visible_lens` (which gives each token's
    range itself) nor sharded.

    `ring` (with `sliding_window`): the cache rows are rings, as
    `flash_attention_prefill`'s `ring` reads them (seed 001's circular
    cache: a window that wraps the ring's end reads its slots from the
    start again).

    `start_pos` (with `sliding_window`): seed 001's caller-provided start
    of each query's window, as a run-time tensor: query token `s` sees
    `start_pos[b, s] <= p <= kv_lens[b] + s`. Positions are absolute (the
    seed's block-KV form; over a `ring` the slots wrap, the positions do
    not). Each start must lie in the W-window, `max(0, kv_lens[b] + s - W
    + 1) <= start_pos[b, s] <= kv_lens[b] + s` (checked at run time:
    INVALID_PARAMS), so W still bounds what is planned.

    `plan_kv_lens`: the KV lengths the chunk size is planned for (default
    `kv_lens`). A rank of a KV-sharded batch plans as the whole batch, so
    each of its requests is cut into the chunks the unsharded op would cut
    it into (and gives the same bits).

    **Sharded** (seed 003): with `on @grid` the op is one rank's part of an
    attention whose KV cache is spread over the ranks of a `shard.grid`, by
    `kv_sharding` (`llm-select-kv-sharding` chooses it when absent;
    `convert-llm-kv-sharding` lowers it to the rank's program). `q` and `out`
    hold this rank's `q_head_num` query heads of every request (tensor
    parallel: the heads of all ranks in rank order are the attention's
    heads); `kv_ids`, `kv_lens`, `q_lens` and `accum_q_len` describe every
    request. `kvdp`: the ranks hold contiguous ranges of ceil(batch /
    ranks) requests (rank r: [r c, min(batch, (r + 1) c))), each in its own
    pool (`k_cache`, `v_cache`) with its own `block_table`, whose rows the
    requests' `kv_ids` name; `kvdp_all_to_all`: the same, the query heads
    exchanged by one all_to_all instead of an all_gather (seed 003's future
    optimization). With `grid_axes` the ranks above are the rank's group:
    those that differ from it only along the named axes of the grid (KV
    data parallel along one axis of a TP x KVDP grid, whose other axes
    hold other query heads). `kvdp_cp` (with two `grid_axes`, [kvdp, cp]):
    KV data parallel along the first axis and, inside each rank's part of
    the batch, context parallel along the second (seed 003's TP8-KVDP2-CP4):
    the rank holds its requests' part of every page, the softmax states of
    its requests merge over the second axis; the group's query heads are
    ordered by (cp coordinate, kvdp coordinate). docs/rationale/Sharding.md.
  }];
  let arguments = (ins Llm_In<>:$q, Llm_In<>:$kv_ids, Llm_In<>:$kv_lens,
                       Llm_In<>:$q_lens, Llm_In<>:$accum_q_len,
                       Llm_In<>:$block_table, Llm_In<>:$k_cache,
                       Llm_In<>:$v_cache, Llm_OptIn<>:$k_scale,
                       Llm_OptIn<>:$v_scale, Llm_OptOut<>:$out,
                       Llm_OptIn<>:$plan_kv_lens,
                       Llm_OptIn<>:$visible_lens,
                       Llm_OptIn<>:$start_pos,
                       Llm_OptOut<>:$state_o, Llm_OptOut<>:$state_m,
                       Llm_OptOut<>:$state_l,
                       I32Attr:$q_seq_len,
                       OptionalAttr<I32Attr>:$sliding_window,
                       OptionalAttr<FlatSymbolRefAttr>:$grid,
                       OptionalAttr<DenseI16ArrayAttr>:$grid_axes,
                       OptionalAttr<Llm_KvSharding>:$kv_sharding,
                       UnitAttr:$ring);
  let assemblyFormat = Req<"q">.f # Req<"kv_ids">.f # Req<"kv_lens">.f #
      Req<"q_lens">.f # Req<"accum_q_len">.f # Req<"block_table">.f #
      Req<"k_cache">.f # Req<"v_cache">.f # Opt<"k_scale">.f #
      Opt<"v_scale">.f # Opt<"visible_lens">.f # Opt<"start_pos">.f #
      "`->`" # Opt<"out">.f #
      Opt<"state_o">.f # Opt<"state_m">.f # Opt<"state_l">.f #
      Opt<"plan_kv_lens">.f #
      "(`on` $grid^ (`grid_axes` `=` $grid_axes^)? "
      "(`kv_sharding` `=` $kv_sharding^)?)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

// Expert parallelism (the seed's attributes of the scatter, swiglu and
// gather ops): this rank holds routed experts [expert_start_idx,
// expert_end_idx) and `num_shared_experts_per_rank` shared experts, which
// see tokens [num_tokens_offset, num_tokens_offset + num_tokens_per_rank).
// The scattered rows are the shared experts' rows first (shared expert s,
// token t at row s * num_tokens_per_rank + t - num_tokens_offset), then the
// routed rows grouped by expert (allocated_tokens rows; the first
// sum(experts_token_count) are used).
defvar Llm_SharedExpertAttrs =
    (ins DefaultValuedAttr<I32Attr, "0">:$num_shared_experts_per_rank,
         DefaultValuedAttr<I32Attr, "0">:$num_tokens_offset,
         DefaultValuedAttr<I32Attr, "0">:$num_tokens_per_rank);

def Llm_MoeGatingGemmOp : Llm_VerifiedOp<"moe_gating_gemm"> {
  let summary = "The router's logits: hidden_states x weight";
  let description = [{
    `y[t, e] = bf16(sum_h hidden_states[t, h] * weight[h, e])`, summed in
    f32.

    | operand | shape | dtype |
    |---|---|---|
    | hidden_states | [num_tokens, hidden_size] | bf16 |
    | weight | [hidden_size, num_experts] | bf16 |
    | -> y | [num_tokens, num_experts] | bf16 |
  }];
  let arguments = (ins Llm_In<>:$hidden_states, Llm_In<>:$weight,
                       Llm_Out<>:$y);
  let assemblyFormat = Req<"hidden_states">.f # Req<"weight">.f # "`->`" #
      Req<"y">.f # "attr-dict";
}

def Llm_MoeSoftmaxTopkOp : Llm_VerifiedOp<"moe_softmax_topk"> {
  let summary = "Each token's top-k experts and their normalized weights";
  let description = [{
    Per token: `p = softmax(hidden_states[t])` over the experts (in f32);
    `selected_experts[t]` the `topk` experts of largest logit, in
    decreasing order, ties (equal logits) to the lower expert id: the
    experts of largest `p`, whose order f32 keeps only where `p` does not
    underflow (a logit more than about 104 below the largest has `p = 0`);
    `expert_weights[t, k] = p[e_k] / sum_k p[e_k]` (normalized over the
    selected experts). `topk` is the outputs' second dimension and at most
    `num_experts`.

    | operand | shape | dtype |
    |---|---|---|
    | hidden_states | [num_tokens, num_experts] | bf16 |
    | -> selected_experts | [num_tokens, topk] | i32 |
    | -> expert_weights | [num_tokens, topk] | bf16 or f32 |
  }];
  let arguments = (ins Llm_In<>:$hidden_states, Llm_Out<>:$selected_experts,
                       Llm_Out<>:$expert_weights);
  let assemblyFormat = Req<"hidden_states">.f # "`->`" #
      Req<"selected_experts">.f # Req<"expert_weights">.f # "attr-dict";
}

def Llm_MoeScatterDynamicQuantOp
    : Llm_VerifiedOp<"moe_scatter_dynamic_quant"> {
  let summary = "Group this rank's tokens by expert, quantizing each row";
  let description = [{
    Writes, for the rank's shared experts, every token of its token range,
    and for each (token t, slot k) whose expert `e = selected_experts[t, k]`
    lies in `[expert_start_idx, expert_end_idx)`, one routed row, grouped by
    expert in increasing id and, within an expert, by (t, k); each row is
    `hidden_states[t] * smooth_scale[expert row]` quantized per row as
    `scale_dynamic_quant` does (`scatter_tokens` int8,
    `scatter_per_token_scale` its scale; smooth_scale rows: the shared
    experts first, then the routed experts of the rank).
    `experts_token_count[e - expert_start_idx]` counts each routed expert's
    rows; `token_offset[i] = t * topk + k` for the routed row i (the row's
    token and slot, what `moe_gather` adds it back with), -1 for rows past
    the used ones. Expert ids outside every rank's range are an error of the
    planning function (INVALID_PARAMS); ids of other ranks are skipped. More
    routed rows than `allocated_tokens` is BUFFER_OVERFLOW, nothing written.

    | operand | shape | dtype |
    |---|---|---|
    | hidden_states | [num_tokens, hidden_size] | bf16 |
    | selected_experts | [num_tokens, topk] | i32 |
    | smooth_scale | [num_shared_experts_per_rank + num_experts_per_rank, hidden_size] | f32 |
    | -> scatter_tokens | [num_shared_experts_per_rank * num_tokens_per_rank + allocated_tokens, hidden_size] | i8 |
    | -> scatter_per_token_scale | [same rows] | f32 |
    | -> experts_token_count | [num_experts_per_rank] | i32 |
    | -> token_offset | [allocated_tokens] | i32 |

    num_experts_per_rank = expert_end_idx - expert_start_idx.
  }];
  let arguments = !con((ins Llm_In<>:$hidden_states,
                            Llm_In<>:$selected_experts,
                            Llm_In<>:$smooth_scale, Llm_Out<>:$scatter_tokens,
                            Llm_Out<>:$scatter_per_token_scale,
                            Llm_Out<>:$experts_token_count,
                            Llm_Out<>:$token_offset,
                            I32Attr:$expert_start_idx,
                            I32Attr:$expert_end_idx),
                       Llm_SharedExpertAttrs);
  let assemblyFormat = Req<"hidden_states">.f # Req<"selected_experts">.f #
      Req<"smooth_scale">.f # "`->`" # Req<"scatter_tokens">.f #
      Req<"scatter_per_token_scale">.f # Req<"experts_token_count">.f #
      Req<"token_offset">.f # "attr-dict";
}

def Llm_MoeQuantMatmulOp : Llm_VerifiedOp<"moe_quant_matmul"> {
  let summary = "A shared expert's int8 matmul with dequantization";
  let description = [{
    `y[t, n] = bf16(sum_h a[t, h] * w[h, n] (exact, in i32) *
    per_token_scale[t] * expert_scale[n])`.

    | operand | shape | dtype |
    |---|---|---|
    | hidden_states | [num_tokens_per_rank, hidden_size] | i8 |
    | per_token_scale | [num_tokens_per_rank] | f32 |
    | expert_weight | [hidden_size, new_hidden_size] | i8 |
    | expert_scale | [new_hidden_size] | f32 |
    | -> y | [num_tokens_per_rank, new_hidden_size] | bf16 |
  }];
  let arguments = (ins Llm_In<>:$hidden_states, Llm_In<>:$per_token_scale,
                       Llm_In<>:$expert_weight, Llm_In<>:$expert_scale,
                       Llm_Out<>:$y);
  let assemblyFormat = Req<"hidden_states">.f # Req<"per_token_scale">.f #
      Req<"expert_weight">.f # Req<"expert_scale">.f # "`->`" # Req<"y">.f #
      "attr-dict";
}

def Llm_MoeQuantGroupGemmOp : Llm_VerifiedOp<"moe_quant_group_gemm"> {
  let summary = "Each expert's rows times its own int8 weight, dequantized";
  let description = [{
    The rows of expert e are the `experts_token_count[e]` rows after those
    of experts 0..e-1; each is `moe_quant_matmul` with expert e's weight and
    scale. Rows past the experts' total are not written.

    | operand | shape | dtype |
    |---|---|---|
    | scatter_tokens | [allocated_tokens, hidden_size] | i8 |
    | per_token_scale | [allocated_tokens] | f32 |
    | experts_weight | [num_experts_per_rank, hidden_size, new_hidden_size] | i8 |
    | experts_scale | [num_experts_per_rank, new_hidden_size] | f32 |
    | experts_token_count | [num_experts_per_rank] | i32 |
    | -> y | [allocated_tokens, new_hidden_size] | bf16 |

    `n_tile` (optional, default 64) is the columns of y one work unit
    computes: a multiple of 16 from 16 to 128 that divides
    new_hidden_size. A unit reads its expert's rows once per N tile, so
    wide tiles suit a prefill step, where each expert has many rows (128
    reads them half as often); narrow ones a decode step, where each has
    a few and more units deal more evenly over the cores.
  }];
  let arguments = (ins Llm_In<>:$scatter_tokens, Llm_In<>:$per_token_scale,
                       Llm_In<>:$experts_weight, Llm_In<>:$experts_scale,
                       Llm_In<>:$experts_token_count, Llm_Out<>:$y,
                       OptionalAttr<I32Attr>:$n_tile);
  let assemblyFormat = Req<"scatter_tokens">.f # Req<"per_token_scale">.f #
      Req<"experts_weight">.f # Req<"experts_scale">.f #
      Req<"experts_token_count">.f # "`->`" # Req<"y">.f # "attr-dict";
}

def Llm_MoeSwigluDynamicQuantOp
    : Llm_VerifiedOp<"moe_swiglu_dynamic_quant"> {
  let summary = "SwiGLU of each scattered row, smoothed and quantized to int8";
  let description = [{
    Per row: `g = x[:hidden_size]`, `u = x[hidden_size:]` (the gate and up
    projections side by side), `v = silu(g) * u * smooth_scale[row's
    expert]` in f32, then quantized as `scale_dynamic_quant` does. The rows
    are laid out as `moe_scatter_dynamic_quant` writes them (shared experts'
    rows first); rows past the used ones are not written.

    | operand | shape | dtype |
    |---|---|---|
    | scatter_tokens | [rows, 2 * hidden_size] | bf16 |
    | smooth_scale | [num_shared_experts_per_rank + num_experts_per_rank, hidden_size] | f32 |
    | experts_tokens_count | [num_experts_per_rank] | i32 |
    | -> y | [rows, hidden_size] | i8 |
    | -> per_token_scale | [rows] | f32 |

    rows = num_shared_experts_per_rank * num_tokens_per_rank + allocated_tokens.
  }];
  let arguments = !con((ins Llm_In<>:$scatter_tokens, Llm_In<>:$smooth_scale,
                            Llm_In<>:$experts_tokens_count, Llm_Out<>:$y,
                            Llm_Out<>:$per_token_scale),
                       Llm_SharedExpertAttrs);
  let assemblyFormat = Req<"scatter_tokens">.f # Req<"smooth_scale">.f #
      Req<"experts_tokens_count">.f # "`->`" # Req<"y">.f #
      Req<"per_token_scale">.f # "attr-dict";
}

def Llm_MoeGatherOp : Llm_VerifiedOp<"moe_gather"> {
  let summary = "Add each expert row back to its token, weighted";
  let description = [{
    `hidden_states` (zeroed by the caller) accumulates, for every routed
    row i with `token_offset[i] = t * topk + k >= 0`,
    `scatter_tokens[shared rows + i] * expert_weights[t, k]`, and for every
    shared expert s and token t of the rank's range, `scatter_tokens[s *
    num_tokens_per_rank + t - num_tokens_offset]` (weight 1), in f32, then
    rounded to bf16 once per token.

    | operand | shape | dtype |
    |---|---|---|
    | scatter_tokens | [num_shared_experts_per_rank * num_tokens_per_rank + allocated_tokens, hidden_size] | bf16 |
    | token_offset | [allocated_tokens] | i32 |
    | expert_weights | [num_tokens, topk] | bf16 or f32 |
    | -> hidden_states (read and written) | [num_tokens, hidden_size] | bf16 |
  }];
  let arguments = !con((ins Llm_In<>:$scatter_tokens, Llm_In<>:$token_offset,
                            Llm_In<>:$expert_weights,
                            Llm_InOut<>:$hidden_states),
                       Llm_SharedExpertAttrs);
  let assemblyFormat = Req<"scatter_tokens">.f # Req<"token_offset">.f #
      Req<"expert_weights">.f # "`->`" # Req<"hidden_states">.f # "attr-dict";
}

//===----------------------------------------------------------------------===//
// A model's ends: the embedding read and the greedy pick (not in seed 002;
// the step replay issue's small model needs them)
//===----------------------------------------------------------------------===//

def Llm_EmbeddingOp : Llm_VerifiedOp<"embedding"> {
  let summary = "Each token's row of the embedding table";
  let description = [{
    `y[t] = weight[token_ids[t]]`. A token id outside `[0, vocab_size)` is
    invalid input: lowered, the op returns INVALID_PARAMS (3) before it
    writes anything.

    | operand | shape | dtype |
    |---|---|---|
    | token_ids | [num_tokens] | i32 |
    | weight | [vocab_size, hidden_size] | bf16 |
    | -> y | [num_tokens, hidden_size] | bf16 |
  }];
  let arguments = (ins Llm_In<>:$token_ids, Llm_In<>:$weight, Llm_Out<>:$y);
  let assemblyFormat = Req<"token_ids">.f # Req<"weight">.f # "`->`" #
      Req<"y">.f # "attr-dict";
}

def Llm_ArgmaxOp : Llm_VerifiedOp<"argmax"> {
  let summary = "Each token's greedy pick: the id of its largest logit";
  let description = [{
    `token_ids[t] = argmax_v logits[t, v]`, ties to the lower id (as
    `moe_softmax_topk`'s); a NaN logit is never picked over a number (a row
    of NaNs picks 0).

    | operand | shape | dtype |
    |---|---|---|
    | logits | [num_tokens, vocab_size] | bf16 or f32 |
    | -> token_ids | [num_tokens] | i32 |
  }];
  let arguments = (ins Llm_In<>:$logits, Llm_Out<>:$token_ids);
  let assemblyFormat = Req<"logits">.f # "`->`" # Req<"token_ids">.f #
      "attr-dict";
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def Llm_AllReduceOp : Llm_VerifiedOp<"all_reduce", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reduce hidden_states across the ranks of a tensor-parallel group";
  let description = [{
    In place: every rank's `hidden_states` becomes the element-wise `kind`
    (sum by default) of all ranks' `hidden_states`. Without `on @grid`, the
    program runs on one rank and the op leaves the buffer as it is. With it,
    the program is one rank's program of a `shard.grid` (a tensor-parallel
    group) and the op lowers to the collective (`wsp.all_reduce`: ranks
    combined in rank order, the same bits on every rank). With `grid_axes`
    the group is the ranks that differ from this one only along those axes
    of the grid (tensor parallel along one axis of a TP x KVDP grid).

    | operand | shape | dtype |
    |---|---|---|
    | hidden_states (read and written) | [num_tokens, hidden_size] | bf16 or f32 |
  }];
  let arguments = (ins Llm_InOut<>:$hidden_states,
                       DefaultValuedAttr<Llm_ReduceKind,
                                         "::mlir::wsp::llm::ReduceKind::sum">:$kind,
                       OptionalAttr<FlatSymbolRefAttr>:$grid,
                       OptionalAttr<DenseI16ArrayAttr>:$grid_axes);
  let assemblyFormat = Req<"hidden_states">.f #
      "(`kind` $kind^)? (`on` $grid^ (`grid_axes` `=` $grid_axes^)?)? "
      "attr-dict";
}

#endif // WSP_DIALECT_LLM_IR_LLMOPS_TD
