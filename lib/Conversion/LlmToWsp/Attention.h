//===- Attention.h - what the attention families share ----------*- C++ -*-===//
//
// The paged attention family (Attention.cpp) and the benchmark attention
// operators (BenchmarkAttention.cpp) lower to one kernel: its tile sizes,
// its geometry's pieces and its checks live here. Private to
// lib/Conversion/LlmToWsp.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_LIB_CONVERSION_LLMTOWSP_ATTENTION_H
#define WSP_LIB_CONVERSION_LLMTOWSP_ATTENTION_H

#include "Lowering.h"

namespace mlir::wsp::lowering {

/// Blocks attention runs on (a cube core and its two vector cores): every
/// cube core; each has its slots of the workspaces.
constexpr int64_t kAttentionBlocks = pto::runtime::kNumCubeCores;
/// Rows of the cube's Q and S tiles (query tokens x GQA group), and the
/// widest KV tile and head (of a head up to kMaxHeadDim; kvTileFor).
constexpr int64_t kAttentionRows = 32, kMaxKvTile = 128, kMaxHeadDim = 128;
/// The widest head over a bf16 cache: K^T and V tiles of 64 positions at
/// head_dim 256 fill L0B as tiles of 128 do at 128. An int8 cache keeps
/// kMaxHeadDim (its dequantization scratch of a KV tile, in i8, f16, f32
/// and bf16, with the row state would pass UB at 256).
constexpr int64_t kMaxBf16HeadDim = 256;
/// The widest KV tile at head_dim `dim`: K^T and V of one tile in L0B
/// hold at most kMaxKvTile x kMaxHeadDim elements each.
constexpr int64_t kvTileFor(int64_t dim) {
  return dim > kMaxHeadDim ? kMaxKvTile * kMaxHeadDim / kMaxBf16HeadDim
                           : kMaxKvTile;
}
/// The widest KV tile over an int8 cache (f32 K^T of 64 positions fills
/// half of L0B).
constexpr int64_t kMaxInt8KvTile = 64;
/// Requests a decode plan holds (its lengths live in a stack buffer), and
/// descriptors an attention plan may write.
constexpr int64_t kMaxDecodeBatch = 1024, kAttentionUnits = 4096;
/// Lengths a decode plan over plan_kv_lens holds (a stack buffer).
constexpr int64_t kMaxPlanBatch = 4096;

/// The kernel's tile geometry: this vector core's rows and positions, and
/// the KV tiles of a unit (with `newToken`, the cached ones and then the
/// step's own key and value).
void addTileGeometry(Params &v, bool newToken);

/// What the attention kernel's tiles hold: a head_dim of one cube tile's
/// columns (a static multiple of `align`, at most `maxDim`) and a GQA
/// group within one tile of rows. A bf16 cache's rows are whole 32-byte
/// blocks at a multiple of 16 (head_dim 80 or 112); an int8 cache's at 32.
LogicalResult checkAttentionTile(Operation *op, int64_t dim, int64_t group,
                                 int64_t align = 32,
                                 int64_t maxDim = kMaxHeadDim,
                                 StringRef why = "one cube tile");

} // namespace mlir::wsp::lowering

#endif // WSP_LIB_CONVERSION_LLMTOWSP_ATTENTION_H
