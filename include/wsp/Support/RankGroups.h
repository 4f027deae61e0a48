//===- RankGroups.h - a collective's group of ranks on a grid ---*- C++ -*-===//
//
// A sharded op or collective names a `shard.grid` and, optionally, some of
// its axes (`grid_axes`, as shard's collectives do): it then runs among the
// ranks that differ from the calling rank only along those axes. This is
// the one home of that rule at compile time: the wsp collectives' and the
// llm ops' verifiers and the KV-sharding lowering ask it for the group's
// number of ranks; the runtime's Communicator::along forms the same groups.
// Header-only: both dialects' verifiers use it, and neither links
// lib/Support.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_SUPPORT_RANKGROUPS_H
#define WSP_SUPPORT_RANKGROUPS_H

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/InterleavedRange.h"

#include <optional>

namespace mlir {
namespace wsp {

/// The number of ranks in `op`'s group on the grid `gridName` (nullopt when
/// a size it depends on is dynamic): every rank of the grid, or with `axes`
/// the product of the grid's sizes along them. A diagnostic at `op` when
/// the name is not a shard.grid, or the axes are empty, repeated, outside
/// the grid or on a grid of dynamic shape (a rank finds its group from its
/// coordinates). `tables` may be null (a plain symbol lookup).
inline FailureOr<std::optional<int64_t>>
rankGroupSize(Operation *op, FlatSymbolRefAttr gridName, DenseI16ArrayAttr axes,
              SymbolTableCollection *tables = nullptr) {
  Operation *symbol = tables
                          ? tables->lookupNearestSymbolFrom(op, gridName)
                          : SymbolTable::lookupNearestSymbolFrom(op, gridName);
  if (!symbol)
    return op->emitOpError("names no symbol ") << gridName;
  auto grid = dyn_cast<shard::GridOp>(symbol);
  if (!grid)
    return op->emitOpError("names ")
           << gridName << ", which is not a shard.grid";
  ArrayRef<int64_t> shape = grid.getShape();
  std::optional<int64_t> ranks = 1;
  auto times = [&](int64_t d) {
    ranks = ShapedType::isDynamic(d) || !ranks ? std::nullopt
                                               : std::optional(*ranks * d);
  };
  if (!axes) {
    llvm::for_each(shape, times);
    return ranks;
  }
  if (axes.empty())
    return op->emitOpError("needs at least one grid axis (leave grid_axes "
                           "out for the whole grid)");
  if (ShapedType::isDynamicShape(shape))
    return op->emitOpError("needs a grid of static shape for grid_axes, not ")
           << gridName << " of shape ["
           << llvm::interleaved(llvm::map_range(
                  shape,
                  [](int64_t d) {
                    return ShapedType::isDynamic(d) ? std::string("?")
                                                    : std::to_string(d);
                  }))
           << "]";
  ArrayRef<int16_t> list = axes.asArrayRef();
  for (auto [i, axis] : llvm::enumerate(list)) {
    if (axis < 0 || axis >= int64_t(shape.size()))
      return op->emitOpError("grid axis ")
             << axis << " is outside " << gridName << "'s " << shape.size()
             << " dimensions";
    if (llvm::is_contained(list.take_front(i), axis))
      return op->emitOpError("names grid axis ") << axis << " twice";
    times(shape[axis]);
  }
  return ranks;
}

} // namespace wsp
} // namespace mlir

#endif // WSP_SUPPORT_RANKGROUPS_H
