// The self-check of examples/ir/decode_attention_swa.mlir: the bf16
// decode-attention check with a 2048-token sliding window in the reference,
// and a check that planning covered only the windows.
#define WSP_WINDOW 2048
#include "decode_attention.selfcheck.cpp"
