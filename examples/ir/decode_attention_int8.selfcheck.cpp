// The self-check of examples/ir/decode_attention_int8.mlir: the bf16
// decode-attention check over an int8 cache with per-(kv_head, head_dim)
// scales.
#define WSP_INT8_KV 1
#include "decode_attention.selfcheck.cpp"
