// The self-check of examples/ir/decode_attention_balanced.mlir: the bf16
// decode-attention check on the balanced plan (partial state per
// descriptor, per-core work lists, merge pass), plus a skewed case.
#define WSP_BALANCED 1
#include "decode_attention.selfcheck.cpp"
