//===- Fusion.cpp - fused groups of vector instructions -------------------===//

#include "wsp/Dialect/Tile/Transforms/Fusion.h"
#include "wsp/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::wsp::tile;

namespace {

bool isF32Tile(Value v) {
  return cast<TileType>(v.getType()).getElementType().isF32();
}

/// Whether the lanes convert `from` to `to` (bf16 <-> f32, and f32 -> i32
/// or i16 -> f16 -> i8, rounding to nearest even).
bool lanesConvert(Type to, Type from) {
  return (to.isF32() && from.isBF16()) || (to.isBF16() && from.isF32()) ||
         ((to.isInteger(32) || to.isInteger(16)) && from.isF32()) ||
         (to.isF16() && (from.isInteger(32) || from.isInteger(16))) ||
         (to.isInteger(8) && from.isF16());
}

/// Whether the lanes compute `fn` in the element-wise form `kind`: the
/// float arithmetic, the absolute value, and a row's sum, maximum or
/// minimum.
bool lanesCompute(LaneKind kind, ElementwiseKind fn) {
  using K = ElementwiseKind;
  switch (kind) {
  case LaneKind::binary:
  case LaneKind::scalar:
  case LaneKind::row_broadcast:
  case LaneKind::col_broadcast:
    return fn == K::add || fn == K::sub || fn == K::mul || fn == K::div ||
           fn == K::max || fn == K::min;
  case LaneKind::unary:
    return fn == K::abs;
  case LaneKind::row_reduce:
    return fn == K::add || fn == K::max || fn == K::min;
  default:
    return false;
  }
}

/// The valid extent of dim `d` of a placed tile: a constant or a value.
struct Extent {
  int64_t size;
  Value value;
  bool operator==(const Extent &o) const {
    return size == o.size && value == o.value;
  }
};
/// The valid rows of a view (a `tile.subview` or `tile.alloc`, or what its
/// type says when static).
std::optional<Extent> validRows(Value view) {
  const int64_t size = cast<TileType>(view.getType()).getValidShape()[0];
  if (size != TileType::kDynamic)
    return Extent{size, Value()};
  if (Value v = getDynamicValidExtent(view, 0))
    return Extent{size, v};
  return std::nullopt;
}
/// The valid extent of dim `d` of a tile made by `tile.alloc` (the tiles
/// a group computes on).
std::optional<Extent> validExtent(Value tile, unsigned d) {
  if (!tile.getDefiningOp<AllocOp>())
    return std::nullopt;
  const int64_t size = cast<TileType>(tile.getType()).getValidShape()[d];
  return Extent{size, getDynamicValidExtent(tile, d)};
}

/// `view` without a `tile.subview` that only gives its source's whole
/// tile fewer valid rows (at [0, 0], the same shape, whole valid columns).
Value stripValidRows(Value view) {
  auto sub = view.getDefiningOp<SubviewOp>();
  if (!sub)
    return view;
  auto t = cast<TileType>(view.getType());
  auto from = cast<TileType>(sub.getSource().getType());
  if (!matchPattern(sub.getRow(), m_Zero()) ||
      !matchPattern(sub.getCol(), m_Zero()) ||
      t.getShape() != from.getShape() || t.getLayout() != from.getLayout() ||
      t.getValidShape()[1] != t.getCols())
    return Value();
  return sub.getSource();
}

/// The first step of a row reduction in pieces reads the whole rows of a
/// row-major tile made by `tile.alloc` as k pieces each: `view` is its
/// `tile.reshape` to [kR x C/k] (with `tile.subview ... valid` of k times
/// the tile's valid rows). The tile and k.
std::optional<std::pair<Value, int64_t>> piecesOf(Value view) {
  Value reshaped = stripValidRows(view);
  auto reshape = reshaped ? reshaped.getDefiningOp<ReshapeOp>() : ReshapeOp();
  if (!reshape)
    return std::nullopt;
  Value tile = reshape.getSource();
  auto t = cast<TileType>(tile.getType());
  auto v = cast<TileType>(view.getType());
  if (!t.hasStaticShape() || !v.hasStaticShape() ||
      t.getLayout() != TileLayout::row_major ||
      v.getLayout() != TileLayout::row_major || v.getRows() % t.getRows())
    return std::nullopt;
  const int64_t k = v.getRows() / t.getRows();
  // (Pieces of whole groups of sixteen columns, as the lanes go.)
  if (k < 2 || v.getCols() * k != t.getCols() || v.getCols() % 16 ||
      t.getValidShape()[1] != t.getCols() ||
      v.getValidShape()[1] != v.getCols())
    return std::nullopt;
  std::optional<Extent> rows = validExtent(tile, 0), pieces = validRows(view);
  if (!rows || !pieces)
    return std::nullopt;
  if (!rows->value)
    return pieces->value || pieces->size != k * rows->size
               ? std::nullopt
               : std::optional(std::make_pair(tile, k));
  // A run-time count n: the pieces' is n * k.
  auto mul = pieces->value ? pieces->value.getDefiningOp<arith::MulIOp>()
                           : arith::MulIOp();
  APInt times;
  if (!mul ||
      !((mul.getLhs() == rows->value &&
         matchPattern(mul.getRhs(), m_ConstantInt(&times))) ||
        (mul.getRhs() == rows->value &&
         matchPattern(mul.getLhs(), m_ConstantInt(&times)))) ||
      times != k)
    return std::nullopt;
  return std::make_pair(tile, k);
}

/// The second step of a row reduction in pieces reads the partials, a
/// col_major [kR x 1] tile made by `tile.alloc`, as [R x k]: `view` is
/// reshapes of it (with `tile.subview ... valid` of its rows). The
/// partials.
Value partialsOf(Value view) {
  Value tile = stripValidRows(view);
  while (tile && tile.getDefiningOp<ReshapeOp>())
    tile = tile.getDefiningOp<ReshapeOp>().getSource();
  if (!tile || !tile.getDefiningOp<AllocOp>())
    return Value();
  auto t = cast<TileType>(tile.getType());
  auto v = cast<TileType>(view.getType());
  if (!t.hasStaticShape() || !v.hasStaticShape() ||
      t.getLayout() != TileLayout::col_major || t.getCols() != 1 ||
      t.getRows() != v.getRows() * v.getCols() ||
      v.getLayout() != TileLayout::row_major ||
      v.getValidShape()[1] != v.getCols())
    return Value();
  return tile;
}

/// An instruction of an element-wise form the lanes compute: its operands,
/// in the form's order (the dialect's LaneKind).
std::optional<LaneOp> computeLaneOp(PipeOpInterface op) {
  LaneKind kind = op.getLaneKind();
  ElementwiseKind fn = op.getElementwiseKind();
  if (!lanesCompute(kind, fn))
    return std::nullopt;
  ValueRange v = op->getOperands();
  LaneOp l{op, kind, fn, v[0], {v[1]}};
  switch (kind) {
  case LaneKind::binary: // dst, lhs, rhs
    l.sources.push_back(v[2]);
    break;
  case LaneKind::scalar: // dst, src, scalar
    if (!v[2].getType().isF32())
      return std::nullopt;
    l.scalar = v[2];
    break;
  case LaneKind::row_broadcast: // dst, src, row, tmp
    l.broadcast = v[2];
    l.scratch = v[3];
    break;
  case LaneKind::col_broadcast: // dst, src, col
    l.broadcast = v[2];
    break;
  case LaneKind::row_reduce: // dst, src, tmp
    if (!isF32Tile(v[1]) || !isF32Tile(v[0]))
      return std::nullopt;
    l.dst = Value();
    l.reduced = v[0];
    l.scratch = v[2];
    if (auto pieces = piecesOf(v[1])) { // a first step: the tile's rows
      auto scratch = piecesOf(v[2]);
      if (!scratch || scratch->second != pieces->second)
        return std::nullopt;
      l.sources = {pieces->first};
      l.scratch = scratch->first;
      l.pieces = pieces->second;
    } else if (Value partials = partialsOf(v[1])) { // a second step
      // Of the rows the result has.
      std::optional<Extent> rows = validRows(v[1]),
                            reduced = validExtent(v[0], 0);
      if (!rows || !reduced || !(*rows == *reduced) ||
          cast<TileType>(v[1].getType()).getRows() !=
              cast<TileType>(v[0].getType()).getRows())
        return std::nullopt;
      l.sources.clear();
      l.scratch = Value();
      l.partials = partials;
      l.pieces = cast<TileType>(v[1].getType()).getCols();
    }
    break;
  default: // unary: dst, src
    break;
  }
  return l;
}

/// One tile a lane op touches: its bytes (none when not placed), whether
/// the op writes it, whether it is the op's broadcast operand or reduction
/// result (a tile the lanes do not go along with the group's), and whether
/// a load_column writes it.
struct Access {
  Value tile;
  std::optional<TileBytes> bytes;
  bool write, broadcast, column = false;
  /// The partials of a row reduction in pieces: written by its first step,
  /// read by its second.
  bool partials = false;
};
SmallVector<Access> accesses(const LaneOp &l) {
  SmallVector<Access> a;
  auto add = [&](Value v, bool write, bool broadcast) {
    a.push_back({v, getTileSpan(v), write, broadcast});
  };
  if (l.kind == LaneKind::load_column) {
    add(l.dst, true, false);
    a.back().column = true;
    return a;
  }
  for (Value s : l.sources)
    add(s, false, false);
  if (l.broadcast && isa<TileType>(l.broadcast.getType()))
    add(l.broadcast, false, true);
  if (l.scratch)
    add(l.scratch, true, false);
  if (l.reduced) {
    // A reduction's result, which the lanes write through its tile, not
    // along with the group's tiles (Access::broadcast).
    add(l.reduced, true, true);
    a.back().partials = l.pieces && !l.partials;
  }
  if (l.partials) {
    add(l.partials, false, true);
    a.back().partials = true;
  }
  if (l.dst)
    add(l.dst, true, false);
  return a;
}

/// Whether `v` can be an element-wise tile of a group shaped like `like`
/// (itself when there is no group yet).
bool isRowTile(Value v, Value like) {
  auto t = cast<TileType>(v.getType());
  auto l = cast<TileType>(like.getType());
  if (t.getLoc() != TileLoc::vec || t.getLayout() != TileLayout::row_major ||
      !t.hasStaticShape() || t.getShape() != l.getShape() ||
      t.getCols() % 16 != 0 || !getTileSpan(v))
    return false;
  for (unsigned d = 0; d < 2; ++d) {
    std::optional<Extent> a = validExtent(v, d), b = validExtent(like, d);
    if (!a || !b || !(*a == *b))
      return false;
  }
  return true;
}

/// Whether `r` can be a row reduction's result in a group whose
/// element-wise tiles are shaped like `like`: an f32 [rows x 1] tile of
/// their rows, static and valid.
bool isReducedTile(Value r, Value like) {
  auto t = cast<TileType>(r.getType());
  auto shape = cast<TileType>(like.getType());
  if (t.getLoc() != TileLoc::vec || !t.getElementType().isF32() ||
      !t.hasStaticShape() || t.getCols() != 1 ||
      t.getRows() != shape.getRows() || !getTileSpan(r))
    return false;
  std::optional<Extent> a = validExtent(r, 0), b = validExtent(like, 0);
  return a && b && *a == *b;
}

/// Whether `p` can be the partials of a first step in k pieces in a group
/// whose element-wise tiles are shaped like `like`: an f32 col_major
/// [k rows x 1] tile, static.
bool isPartialsTile(Value p, int64_t k, Value like) {
  auto t = cast<TileType>(p.getType());
  auto shape = cast<TileType>(like.getType());
  return t.getLoc() == TileLoc::vec && t.getElementType().isF32() &&
         t.hasStaticShape() && t.getLayout() == TileLayout::col_major &&
         t.getCols() == 1 && t.getRows() == k * shape.getRows() &&
         getTileSpan(p);
}

/// Whether a load_column's tile `t` can be read as a column broadcast in a
/// group whose element-wise tiles are shaped like `like`: their columns,
/// static and valid.
bool isColumnOf(Value t, Value like) {
  auto a = cast<TileType>(t.getType()), b = cast<TileType>(like.getType());
  std::optional<Extent> x = validExtent(t, 1), y = validExtent(like, 1);
  return a.hasStaticShape() && a.getCols() == b.getCols() && x && y &&
         *x == *y && getTileSpan(t);
}

/// Whether `b` can be the broadcast operand of `l` in a group whose
/// element-wise tiles are shaped like `like`.
bool isBroadcastTile(const LaneOp &l, Value b, Value like) {
  auto t = cast<TileType>(b.getType());
  auto shape = cast<TileType>(like.getType());
  if (t.getLoc() != TileLoc::vec || !t.getElementType().isF32() ||
      !t.hasStaticShape() || !getTileSpan(b))
    return false;
  if (l.kind == LaneKind::col_broadcast)
    return t.getLayout() == TileLayout::row_major && t.getRows() == 1 &&
           t.getCols() == shape.getCols();
  return t.getLayout() == TileLayout::col_major && t.getCols() == 1 &&
         t.getRows() >= shape.getRows();
}

} // namespace

std::optional<TileBytes> mlir::wsp::tile::getTileSpan(Value tile) {
  if (auto reshape = tile.getDefiningOp<ReshapeOp>())
    return getTileSpan(reshape.getSource());
  auto alloc = tile.getDefiningOp<AllocOp>();
  if (!alloc || !alloc.getOffsetAttr() || !alloc.getType().hasStaticShape())
    return std::nullopt;
  int64_t lo = alloc.getOffsetAttr().getInt();
  return TileBytes{static_cast<int64_t>(alloc.getType().getLoc()), lo,
                   lo + alloc.getNumBuffers() *
                            alloc.getType().getSizeInBytes()};
}

std::optional<LaneOp> mlir::wsp::tile::getLaneOp(Operation *op) {
  std::optional<LaneOp> l =
      llvm::TypeSwitch<Operation *, std::optional<LaneOp>>(op)
          .Case([](SetFlagOp op) { return LaneOp{op}; })
          .Case([](WaitFlagOp op) { return LaneOp{op}; })
          .Case([](BarrierOp op) -> std::optional<LaneOp> {
            if (op.getPipe() != Pipe::v)
              return std::nullopt;
            return LaneOp{op};
          })
          .Case([](CvtOp op) -> std::optional<LaneOp> {
            if (!lanesConvert(
                    cast<TileType>(op.getDst().getType()).getElementType(),
                    cast<TileType>(op.getSrc().getType()).getElementType()) ||
                op.getRound() != RoundMode::rint)
              return std::nullopt;
            LaneOp l{op, LaneKind::convert};
            l.dst = op.getDst();
            l.sources = {op.getSrc()};
            return l;
          })
          .Case([](LoadOp op) -> std::optional<LaneOp> {
            auto t = cast<TileType>(op.getDst().getType());
            if (op.getTranspose() || t.getLoc() != TileLoc::vec)
              return std::nullopt;
            bool column = t.getElementType().isF32() && t.getRows() == 1 &&
                          t.getValidShape()[0] == 1 &&
                          t.getLayout() == TileLayout::row_major;
            return LaneOp{op, column ? LaneKind::load_column : LaneKind::load,
                          ElementwiseKind::none, op.getDst()};
          })
          .Case([](StoreOp op) -> std::optional<LaneOp> {
            auto src = cast<TileType>(op.getSrc().getType());
            if (op.getTranspose() || src.getLoc() != TileLoc::vec ||
                cast<MemRefType>(op.getDest().getType()).getElementType() !=
                    src.getElementType())
              return std::nullopt;
            LaneOp l{op, LaneKind::store};
            l.sources = {op.getSrc()};
            return l;
          })
          .Case([](PipeOpInterface op) { return computeLaneOp(op); })
          .Default([](Operation *) { return std::nullopt; });
  if (!l || l->kind == LaneKind::sync || l->kind == LaneKind::convert ||
      l->kind == LaneKind::load || l->kind == LaneKind::load_column ||
      l->kind == LaneKind::store || l->kind == LaneKind::row_reduce)
    return l;
  // The arithmetic is float's: every element-wise tile f32.
  if (!isF32Tile(l->dst) || !llvm::all_of(l->sources, isF32Tile))
    return std::nullopt;
  return l;
}

bool mlir::wsp::tile::canJoin(ArrayRef<LaneOp> group, const LaneOp &next) {
  if (next.kind == LaneKind::sync)
    return true;
  // The second step of a reduction in pieces reads the partials of a first
  // step before it in the group.
  if (next.partials && llvm::none_of(group, [&](const LaneOp &l) {
        return l.pieces == next.pieces && !l.partials &&
               l.reduced == next.partials;
      }))
    return false;
  // A tile of the group's shape: the first one an op of it touches (a
  // load_column's row has the group's columns only).
  auto first = [](const LaneOp &l) {
    return l.dst ? l.dst : l.sources.front();
  };
  auto shaped = [](const LaneOp &l) {
    return l.kind != LaneKind::sync && l.kind != LaneKind::load_column &&
           (l.dst || !l.sources.empty());
  };
  const LaneOp *shape = llvm::find_if(group, shaped);
  Value like = shape != group.end() ? first(*shape)
               : shaped(next)       ? first(next)
                                    : Value();
  if (!like) { // only loads of columns so far: checked when a tile joins
    if (!getTileSpan(next.dst))
      return false;
  } else if (shape == group.end() && !llvm::all_of(group, [&](const LaneOp &l) {
               return l.kind != LaneKind::load_column ||
                      isColumnOf(l.dst, like);
             })) {
    return false;
  } else if (next.kind == LaneKind::load_column) {
    if (!isColumnOf(next.dst, like))
      return false;
  } else if ((next.dst && !isRowTile(next.dst, like)) ||
             !llvm::all_of(next.sources,
                           [&](Value s) { return isRowTile(s, like); }))
    return false;
  if (next.broadcast && isa<TileType>(next.broadcast.getType()) &&
      !isBroadcastTile(next, next.broadcast, like))
    return false;
  if (next.scratch && !getTileSpan(next.scratch))
    return false;
  // A first step in pieces writes partials (each whole row or first step
  // keeps its state in a slot of the lanes).
  const bool firstStep = next.pieces && !next.partials;
  if (next.reduced &&
      (!(firstStep ? isPartialsTile(next.reduced, next.pieces, like)
                   : isReducedTile(next.reduced, like)) ||
       (!next.partials && llvm::count_if(group, [](const LaneOp &l) {
                            return l.reduced && !l.partials;
                          }) >= kMaxFusedReductions)))
    return false;

  // Each tile `next` touches against the others it touches and those the
  // group touches (the group's own pairs were checked as it grew): the same
  // bytes with the same type, or disjoint; no broadcast tile written; a
  // load_column's row read after it as a column broadcast only.
  auto conflict = [](const Access &a, const Access &b) {
    if (a.partials && b.partials && a.write != b.write && a.tile == b.tile)
      return false; // the two steps of a reduction in pieces
    if (a.column || b.column)
      return a.bytes->overlaps(*b.bytes) &&
             !(b.column && !a.write && a.broadcast && *a.bytes == *b.bytes &&
               a.tile.getType() == b.tile.getType());
    if (*a.bytes == *b.bytes ? a.tile.getType() != b.tile.getType()
                             : a.bytes->overlaps(*b.bytes))
      return true;
    return ((a.write && b.broadcast) || (b.write && a.broadcast)) &&
           a.bytes->overlaps(*b.bytes);
  };
  SmallVector<Access> mine = accesses(next), theirs;
  for (const LaneOp &l : group)
    llvm::append_range(theirs, accesses(l));
  for (auto [i, a] : llvm::enumerate(mine))
    for (const Access &b :
         llvm::concat<const Access>(ArrayRef(mine).drop_front(i + 1), theirs))
      if (conflict(a, b))
        return false;
  return true;
}

FusionAnalysis::FusionAnalysis(Operation *function) {
  function->walk([&](Operation *op) {
    auto size = op->getAttrOfType<IntegerAttr>(kFuseAttrName);
    if (!size || grouped.count(op))
      return;
    SmallVector<LaneOp> group;
    Operation *at = op;
    for (int64_t i = 0; i < std::min(size.getInt(), kMaxFusedOps + 1) && at;
         ++i, at = at->getNextNode()) {
      std::optional<LaneOp> l = getLaneOp(at);
      if (!l)
        break;
      grouped[at] = groups.size();
      group.push_back(*l);
    }
    groups.push_back(std::move(group));
  });
  function->walk([&](Operation *op) {
    if (grouped.count(op) || isa<AllocOp, ReshapeOp, SubviewOp>(op))
      return;
    for (Value v : op->getOperands()) {
      if (!isa<TileType>(v.getType()))
        continue;
      if (std::optional<TileBytes> b = getTileSpan(v))
        outside.push_back(*b);
      else
        outsideUnknown = true;
    }
  });
}

bool FusionAnalysis::isLocal(const TileBytes &bytes) const {
  if (outsideUnknown || llvm::any_of(outside, [&](const TileBytes &b) {
        return b.overlaps(bytes);
      }))
    return false;
  // In each group, the bytes are read only after an op wrote exactly them
  // (its destination; a scratch operand, which the simulation leaves as it
  // was, writes nothing), and never written otherwise.
  for (const SmallVector<LaneOp> &group : groups) {
    bool written = false;
    for (const LaneOp &l : group) {
      bool writes = false;
      for (const Access &a : accesses(l)) {
        if (!a.bytes)
          return false;
        if (!a.bytes->overlaps(bytes))
          continue;
        if (!a.write ? !written : a.broadcast || *a.bytes != bytes)
          return false;
        writes |= a.write && a.tile == l.dst;
      }
      written |= writes;
    }
  }
  return true;
}

FailureOr<FusionGroup> FusionAnalysis::getGroup(Operation *first) const {
  auto size = first->getAttrOfType<IntegerAttr>(kFuseAttrName);
  auto it = grouped.find(first);
  auto fail = [&](const Twine &why) {
    return first->emitOpError("starts a fused group (")
           << kFuseAttrName << " = " << size << ") that " << why;
  };
  if (!size || it == grouped.end())
    return fail("is not marked");
  const SmallVector<LaneOp> &ops = groups[it->second];
  if (size.getInt() > kMaxFusedOps)
    return fail(Twine("is longer than ") + Twine(kMaxFusedOps) + " ops");
  if (size.getInt() < 2 || static_cast<int64_t>(ops.size()) != size.getInt())
    return fail("does not have that many ops the lanes compute after it");
  FusionGroup g;
  for (const LaneOp &l : ops) {
    if (!canJoin(g.ops, l))
      return fail(Twine("cannot include '") + l.op->getName().getStringRef() +
                  "': its tiles do not share the group's shape and valid "
                  "extent, or overlap another's bytes");
    g.ops.push_back(l);
    if (!g.extent && l.kind != LaneKind::sync &&
        l.kind != LaneKind::load_column && (l.dst || !l.sources.empty()))
      g.extent = l.dst ? l.dst : l.sources.front();
  }
  if (ops.front().kind == LaneKind::sync || ops.back().kind == LaneKind::sync)
    return fail("starts or ends with a synchronization op");
  if (!g.extent)
    return fail("has no tile of a group's shape, only loads of a column");
  // The last write of each tile, unless nothing reads what it leaves.
  SmallVector<std::pair<TileBytes, unsigned>> last;
  for (auto [i, l] : llvm::enumerate(ops)) {
    if (!l.dst)
      continue;
    TileBytes b = *getTileSpan(l.dst);
    auto *known = llvm::find_if(last, [&](auto &p) { return p.first == b; });
    if (known == last.end())
      last.push_back({b, i});
    else
      known->second = i;
  }
  for (auto &[bytes, writer] : last)
    if (!isLocal(bytes))
      g.stores.push_back(writer);
  return g;
}
