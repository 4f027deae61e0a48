//===- Fusion.h - fused groups of vector instructions -----------*- C++ -*-===//
//
// What tile-mark-fusion marks and the CPU-simulation emitter prints: a run of
// element-wise vector instructions of one block over tiles of one valid
// extent, which the simulation computes sixteen columns of a row at a time
// with its intermediate values in registers (pto::runtime::tile::fused).
// The device runs the instructions as they are; the mark changes nothing
// there. One home for the rules, so that the pass decides and the emitter
// prints by the same ones.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_DIALECT_TILE_TRANSFORMS_FUSION_H
#define WSP_DIALECT_TILE_TRANSFORMS_FUSION_H

#include "wsp/Dialect/Tile/IR/TileDialect.h"
#include "wsp/Dialect/Tile/IR/TileTypes.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir {
namespace wsp {
namespace tile {

/// The discardable attribute on the first op of a fused group: the number
/// of ops in the group (it and the ops after it in its block).
constexpr llvm::StringLiteral kFuseAttrName = TileDialect::kFuseAttrName;

/// The most ops a run holds (the checks of a run are quadratic in its
/// length; longer chains become several runs).
constexpr int64_t kMaxFusedOps = 64;

/// The most row reductions a group holds (each keeps a row's state in the
/// lanes' registers: the slots of pto::runtime::tile::detail::Row16, which
/// has as many).
constexpr int kMaxFusedReductions = 4;

/// One op of a fused group.
struct LaneOp {
  Operation *op = nullptr;
  /// What the lanes do for it: the op's element-wise form (the dialect's
  /// LaneKind, PipeOpInterface::getLaneKind), or `sync` for a flag op (no
  /// data) or `load_column` for a load the group reads as a column.
  LaneKind kind = LaneKind::sync;
  /// What it computes (PipeOpInterface::getElementwiseKind): `none` for a
  /// conversion (its element types say which), a load, a store and sync.
  ElementwiseKind fn = ElementwiseKind::none;
  Value dst;
  /// The element-wise sources, in the form's operand order.
  llvm::SmallVector<Value, 2> sources;
  /// The broadcast tile (row_broadcast, col_broadcast) or the scalar.
  Value broadcast, scalar;
  /// rowexpand*'s and the row reductions' scratch tile (the simulation
  /// does not write it).
  Value scratch;
  /// A row reduction's [rows x 1] result.
  Value reduced;
  /// A row reduction in k pieces per row (tile-fold-row-reductions' two
  /// steps), k > 0: the first step reduces `sources` (the tile the pieces
  /// view) piece by piece into `reduced`, the [kR x 1] col_major partials;
  /// the second (`partials` set: those partials) reduces each row's k
  /// partials into `reduced`. 0 for a whole row.
  int64_t pieces = 0;
  Value partials;
};

/// `op` as an op of a fused group, or std::nullopt when it cannot be one:
/// a vector instruction the lanes compute (float arithmetic, the
/// conversions bf16 <-> f32 and f32 -> i32 -> f16 -> i8, broadcasts of a
/// float row or column, a float row's sum, maximum or minimum, or either
/// step of one in pieces: of a tile's whole rows seen as k pieces each by
/// `tile.reshape` (and `tile.subview ... valid` of k times its valid rows),
/// or of the partials seen as [rows x k]), a load or
/// store of a vec tile's rows (not transposed, no conversion), which the
/// lanes do a row's sixteen columns at a time, or a synchronization op. A
/// load into an f32 tile of one row (static and valid) is a load_column: the
/// lanes read it from global memory where the group uses it as a column
/// broadcast, and the group may use it no other way. The lanes' C++ is
/// the emitter's (lib/Target/Cpp), by the op's kind and what it computes.
std::optional<LaneOp> getLaneOp(Operation *op);

/// Bytes [lo, hi) of a tile's buffer.
struct TileBytes {
  int64_t buffer, lo, hi;
  bool overlaps(const TileBytes &o) const {
    return buffer == o.buffer && lo < o.hi && o.lo < hi;
  }
  bool operator==(const TileBytes &o) const {
    return buffer == o.buffer && lo == o.lo && hi == o.hi;
  }
  bool operator!=(const TileBytes &o) const { return !(*this == o); }
};
/// Bytes [lo, hi) a placed tile may occupy: those of a `tile.alloc` (or a
/// reshape of one), and for one copy of a multi-buffered alloc (its `slot`
/// chosen at run time) every copy's; std::nullopt for anything else. A
/// group knows its tiles by these bytes: the lanes reach a copy through
/// the tile's handle, which holds the slot's copy, and the checks count
/// all of them, so two copies never pass for two tiles.
std::optional<TileBytes> getTileSpan(Value tile);

/// Whether `next` may follow the compute ops of `group` (possibly none) in a
/// fused group: its element-wise tiles (a load's destination and a store's
/// source among them) are placed row-major vec tiles of the group's static
/// shape (columns a multiple of 16) and valid extent, a reduction's result
/// is an f32 [rows x 1] tile of those rows (any of them may be one copy of
/// a multi-buffered tile: getTileSpan; the partials of a first step in
/// k pieces a col_major [k rows x 1] one, which only its second step, after
/// it in the group, reads), a load_column's a [1 x cols] one
/// of those columns, read after it only as a column broadcast, any two
/// tiles of the group are the same bytes with the same type or disjoint, no
/// broadcast tile or reduction result is written and touched otherwise in
/// the group, and it holds at most kMaxFusedReductions reductions. `group`
/// is one that grew by canJoin, op by op: only the pairs `next` adds are
/// checked.
bool canJoin(llvm::ArrayRef<LaneOp> group, const LaneOp &next);

/// A marked group, checked, with what its lanes must store.
struct FusionGroup {
  llvm::SmallVector<LaneOp> ops;
  /// A tile with the group's valid extent (the lanes run over it).
  Value extent;
  /// For each tile the group writes whose value the program may read
  /// afterwards, its last write (an index into ops), in program order of
  /// the tiles' first writes.
  llvm::SmallVector<unsigned> stores;
};

/// The fused groups of one function or kernel, from their marks.
class FusionAnalysis {
public:
  explicit FusionAnalysis(Operation *function);

  /// The group `first` (which carries kFuseAttrName) starts, or a failure
  /// diagnosed at `first` when the mark does not describe a legal group.
  FailureOr<FusionGroup> getGroup(Operation *first) const;

private:
  /// Whether the value a group leaves in `bytes` is never read: every
  /// access to those bytes is in some group, and each group reads them only
  /// after it wrote exactly them.
  bool isLocal(const TileBytes &bytes) const;

  /// The marked groups' ops (op -> index of its group).
  llvm::DenseMap<Operation *, unsigned> grouped;
  llvm::SmallVector<llvm::SmallVector<LaneOp>> groups;
  /// Tile accesses outside groups: their bytes, or unknown.
  llvm::SmallVector<TileBytes> outside;
  bool outsideUnknown = false;
};

} // namespace tile
} // namespace wsp
} // namespace mlir

#endif // WSP_DIALECT_TILE_TRANSFORMS_FUSION_H
