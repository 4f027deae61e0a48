//===- Masks.h - gen_mask_tkg as IR builders --------------------*- C++ -*-===//
//
// The one home of the mask semantics: wsp-lower-masks builds every mask
// element and every LNC2 shard layout with these, and wsp-mask-view builds
// the same IR with constant inputs and lets the folders evaluate it.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_DIALECT_WSP_TRANSFORMS_MASKS_H
#define WSP_DIALECT_WSP_TRANSFORMS_MASKS_H

#include "wsp/Dialect/Wsp/IR/WspOps.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace wsp {

/// The inputs of one mask element (index values; see wsp.mask_value).
struct MaskElement {
  MaskKind kind;
  int64_t window; // sliding only
  KvLayout layout;
  Value col, query, pos, prior, active, offset, cache;
  Value activeMaskValue; // i1 from a caller-provided active mask, or null
};

/// The element as i1, branch-free (gen_mask_tkg §3).
Value buildMaskValue(OpBuilder &b, Location loc, const MaskElement &e);

/// The first slot a sliding window of `window` admits for a query at `pos`:
/// pos - window + 1, taken mod `cache` for a flat (circular) cache and
/// clamped at 0 for a block cache.
Value buildWindowStart(OpBuilder &b, Location loc, int64_t window,
                       KvLayout layout, Value pos, Value cache);

/// The range [lo, hi) of columns a query attends with a block cache (see
/// wsp.mask_range).
std::pair<Value, Value> buildMaskRange(OpBuilder &b, Location loc,
                                       MaskKind kind, int64_t window,
                                       Value query, Value pos, Value prior);

/// Where a core's tile sits (LNC2): its first batch, the slot of its first
/// prior column (the iota offset), and its number of prior columns.
struct MaskShardLayout {
  Value batchStart, offset, prior;
};
MaskShardLayout buildMaskShardLayout(OpBuilder &b, Location loc,
                                     MaskShard shard, Value core, Value sPrior,
                                     Value batchesPerCore);

} // namespace wsp
} // namespace mlir

#endif // WSP_DIALECT_WSP_TRANSFORMS_MASKS_H
