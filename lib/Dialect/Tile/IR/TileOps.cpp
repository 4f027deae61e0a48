//===- TileOps.cpp - tile operations --------------------------------------===//
//
// Verifiers state the A2/A3 rules a tile program can break where the IR
// shows it: which buffer each operand lives in, element-type pairs, shapes
// that must agree, storage alignment. Static facts are checked here; run-time
// extents (valid sizes, offsets) are checked by the CPU simulation.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::wsp::tile;

#include "wsp/Dialect/Tile/IR/TileInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

namespace {
/// Element-type sets, as the A2/A3 instruction implementations accept them.
enum ElementSet : unsigned {
  kI8 = 1,
  kI16 = 2,
  kI32 = 4,
  kF16 = 8,
  kBF16 = 16,
  kF32 = 32,
  /// Vector arithmetic (no bf16, no i8 on A2/A3).
  kVecArith = kI16 | kI32 | kF16 | kF32,
  /// Vector floating-point only.
  kVecFloat = kF16 | kF32,
};

constexpr int64_t kDyn = ShapedType::kDynamic;

unsigned elementBit(Type t) {
  if (t.isSignlessInteger(8))
    return kI8;
  if (t.isSignlessInteger(16))
    return kI16;
  if (t.isSignlessInteger(32))
    return kI32;
  if (t.isF16())
    return kF16;
  if (t.isBF16())
    return kBF16;
  if (t.isF32())
    return kF32;
  return 0;
}

std::string describeSet(unsigned set) {
  SmallVector<StringRef> names;
  for (auto [bit, name] : {std::pair<unsigned, StringRef>{kI8, "i8"},
                           {kI16, "i16"},
                           {kI32, "i32"},
                           {kF16, "f16"},
                           {kBF16, "bf16"},
                           {kF32, "f32"}})
    if (set & bit)
      names.push_back(name);
  return llvm::join(names, ", ");
}

TileType tileOf(Value v) { return cast<TileType>(v.getType()); }

/// `role` is a tile at `loc` (and row-major when `rowMajor`).
LogicalResult expectLoc(Operation *op, StringRef role, TileType t, TileLoc loc,
                        bool rowMajor = false) {
  if (t.getLoc() != loc)
    return op->emitOpError() << "'" << role << "' must be a "
                             << stringifyTileLoc(loc) << " tile, got "
                             << stringifyTileLoc(t.getLoc());
  if (rowMajor && t.getLayout() != TileLayout::row_major)
    return op->emitOpError() << "'" << role << "' must be row_major, got "
                             << stringifyTileLayout(t.getLayout());
  return success();
}

LogicalResult expectElement(Operation *op, StringRef role, TileType t,
                            unsigned set) {
  if (!(elementBit(t.getElementType()) & set))
    return op->emitOpError()
           << "'" << role << "' has element type " << t.getElementType()
           << "; this instruction takes " << describeSet(set);
  return success();
}

LogicalResult expectSameElement(Operation *op, StringRef a, TileType ta,
                                StringRef b, TileType tb) {
  if (ta.getElementType() != tb.getElementType())
    return op->emitOpError() << "'" << a << "' and '" << b
                             << "' must have one element type, got "
                             << ta.getElementType() << " and "
                             << tb.getElementType();
  return success();
}

/// Dimension `d` of two extents agrees where both are static.
bool agree(int64_t a, int64_t b) { return a == kDyn || b == kDyn || a == b; }

/// An extent as IR spells it: a number or `?`.
std::string dim(int64_t n) { return n == kDyn ? "?" : std::to_string(n); }
std::string extent(ArrayRef<int64_t> shape) {
  return dim(shape[0]) + "x" + dim(shape[1]);
}

/// Static and valid extents of `a` and `b` agree where known.
LogicalResult expectSameShape(Operation *op, StringRef a, TileType ta,
                              StringRef b, TileType tb) {
  for (unsigned d = 0; d < 2; ++d) {
    if (!agree(ta.getShape()[d], tb.getShape()[d]))
      return op->emitOpError()
             << "'" << a << "' and '" << b << "' must have one static extent, got "
             << extent(ta.getShape()) << " and " << extent(tb.getShape());
    if (!agree(ta.getValidShape()[d], tb.getValidShape()[d]))
      return op->emitOpError() << "'" << a << "' and '" << b
                               << "' must have one valid extent, got "
                               << dim(ta.getValidShape()[d]) << " and "
                               << dim(tb.getValidShape()[d]) << " "
                               << (d ? "cols" : "rows");
  }
  return success();
}

/// Dimension `d` of `t`'s static extent is `n` (when known).
LogicalResult expectDim(Operation *op, StringRef role, TileType t, unsigned d,
                        int64_t n, StringRef why) {
  if (!agree(t.getShape()[d], n))
    return op->emitOpError() << "'" << role << "' must have " << n << " "
                             << (d ? "column" : "row") << (n == 1 ? "" : "s")
                             << " (" << why << "), got " << t.getShape()[d];
  return success();
}

/// A [rows x 1] column of per-row scalars, pto-isa's row statistics.
LogicalResult expectRowColumn(Operation *op, StringRef role, TileType t) {
  if (failed(expectLoc(op, role, t, TileLoc::vec)))
    return failure();
  if (t.getLayout() != TileLayout::col_major)
    return op->emitOpError() << "'" << role
                             << "' holds one scalar per row: it must be a "
                                "col_major [rows x 1] tile";
  return expectDim(op, role, t, 1, 1, "one scalar per row");
}

/// A [1 x cols] row of per-column scalars.
LogicalResult expectColRow(Operation *op, StringRef role, TileType t) {
  if (failed(expectLoc(op, role, t, TileLoc::vec, /*rowMajor=*/true)))
    return failure();
  return expectDim(op, role, t, 0, 1, "one scalar per column");
}

} // namespace

//===----------------------------------------------------------------------===//
// Vector op verifiers (called from the ODS-generated verify()).
//===----------------------------------------------------------------------===//

template <typename OpT>
static LogicalResult verifyBinary(OpT op, unsigned set) {
  TileType d = tileOf(op.getDst()), a = tileOf(op.getLhs()),
           b = tileOf(op.getRhs());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectLoc(o, "lhs", a, TileLoc::vec, true)) ||
      failed(expectLoc(o, "rhs", b, TileLoc::vec, true)) ||
      failed(expectElement(o, "dst", d, set)) ||
      failed(expectSameElement(o, "dst", d, "lhs", a)) ||
      failed(expectSameElement(o, "dst", d, "rhs", b)) ||
      failed(expectSameShape(o, "dst", d, "lhs", a)) ||
      failed(expectSameShape(o, "dst", d, "rhs", b)))
    return failure();
  return success();
}

template <typename OpT>
static LogicalResult verifyUnary(OpT op, unsigned set) {
  TileType d = tileOf(op.getDst()), s = tileOf(op.getSrc());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectLoc(o, "src", s, TileLoc::vec, true)) ||
      failed(expectElement(o, "dst", d, set)) ||
      failed(expectSameElement(o, "dst", d, "src", s)) ||
      failed(expectSameShape(o, "dst", d, "src", s)))
    return failure();
  return success();
}

template <typename OpT>
static LogicalResult verifyScalar(OpT op, unsigned set) {
  if (failed(verifyUnary(op, set)))
    return failure();
  Type elem = tileOf(op.getDst()).getElementType();
  if (op.getScalar().getType() != elem)
    return op.emitOpError() << "scalar has type " << op.getScalar().getType()
                            << "; it must have the tiles' element type "
                            << elem;
  return success();
}

template <typename OpT>
static LogicalResult verifyRowReduce(OpT op) {
  TileType d = tileOf(op.getDst()), s = tileOf(op.getSrc()),
           t = tileOf(op.getTmp());
  Operation *o = op.getOperation();
  if (failed(expectRowColumn(o, "dst", d)) ||
      failed(expectLoc(o, "src", s, TileLoc::vec, true)) ||
      failed(expectLoc(o, "tmp", t, TileLoc::vec)) ||
      failed(expectElement(o, "src", s, kVecArith)) ||
      failed(expectSameElement(o, "dst", d, "src", s)) ||
      failed(expectSameElement(o, "tmp", t, "src", s)) ||
      failed(expectDim(o, "dst", d, 0, s.getRows(), "one per row of src")))
    return failure();
  if (!agree(t.getRows(), s.getRows()) || !agree(t.getCols(), s.getCols()))
    return op.emitOpError("'tmp' must have the static extent of 'src'");
  return success();
}

template <typename OpT>
static LogicalResult verifyColReduce(OpT op) {
  TileType d = tileOf(op.getDst()), s = tileOf(op.getSrc());
  Operation *o = op.getOperation();
  if (failed(expectColRow(o, "dst", d)) ||
      failed(expectLoc(o, "src", s, TileLoc::vec, true)) ||
      failed(expectElement(o, "src", s, kVecArith)) ||
      failed(expectSameElement(o, "dst", d, "src", s)) ||
      failed(expectDim(o, "dst", d, 1, s.getCols(), "one per column of src")))
    return failure();
  return success();
}

template <typename OpT>
static LogicalResult verifyExpand(OpT op, bool row) {
  TileType d = tileOf(op.getDst()), s = tileOf(op.getSrc());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectSameElement(o, "dst", d, "src", s)))
    return failure();
  if (row)
    return failure(failed(expectRowColumn(o, "src", s)) ||
                   failed(expectDim(o, "src", s, 0, d.getRows(),
                                    "one per row of dst")));
  return failure(failed(expectColRow(o, "src", s)) ||
                 failed(expectDim(o, "src", s, 1, d.getCols(),
                                  "one per column of dst")));
}

template <typename OpT>
static LogicalResult verifyRowExpandBinary(OpT op, unsigned set) {
  TileType d = tileOf(op.getDst()), s = tileOf(op.getSrc()),
           r = tileOf(op.getRow()), t = tileOf(op.getTmp());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectLoc(o, "src", s, TileLoc::vec, true)) ||
      failed(expectLoc(o, "tmp", t, TileLoc::vec)) ||
      failed(expectElement(o, "dst", d, set)) ||
      failed(expectSameElement(o, "dst", d, "src", s)) ||
      failed(expectSameElement(o, "dst", d, "row", r)) ||
      failed(expectSameShape(o, "dst", d, "src", s)) ||
      failed(expectRowColumn(o, "row", r)) ||
      failed(expectDim(o, "row", r, 0, d.getRows(), "one per row of dst")))
    return failure();
  // pto-isa's broadcast scratch: ceil(rows / 8) blocks of 256 bytes.
  if (t.hasStaticShape() && d.getRows() != kDyn) {
    int64_t need = (d.getRows() + 7) / 8 * 256;
    if (t.getSizeInBytes() < need)
      return op.emitOpError() << "'tmp' holds " << t.getSizeInBytes()
                              << " bytes; the row broadcast needs " << need;
  }
  return success();
}

template <typename OpT>
static LogicalResult verifyColExpandBinary(OpT op, unsigned set) {
  TileType d = tileOf(op.getDst()), s = tileOf(op.getSrc()),
           c = tileOf(op.getCol());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectLoc(o, "src", s, TileLoc::vec, true)) ||
      failed(expectElement(o, "dst", d, set)) ||
      failed(expectSameElement(o, "dst", d, "src", s)) ||
      failed(expectSameElement(o, "dst", d, "col", c)) ||
      failed(expectSameShape(o, "dst", d, "src", s)) ||
      failed(expectColRow(o, "col", c)) ||
      failed(expectDim(o, "col", c, 1, d.getCols(), "one per column of dst")))
    return failure();
  return success();
}

static LogicalResult verifyTranspose(TransposeOp op) {
  TileType d = tileOf(op.getDst()), s = tileOf(op.getSrc()),
           t = tileOf(op.getTmp());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectLoc(o, "src", s, TileLoc::vec, true)) ||
      failed(expectLoc(o, "tmp", t, TileLoc::vec)) ||
      failed(expectSameElement(o, "dst", d, "src", s)))
    return failure();
  if (!agree(d.getRows(), s.getCols()) || !agree(d.getCols(), s.getRows()))
    return op.emitOpError() << "'dst' must be the transposed extent of 'src' ("
                            << dim(s.getCols()) << "x" << dim(s.getRows())
                            << "), got " << extent(d.getShape());
  return success();
}

/// A2/A3's TCVT pairs.
static bool isLegalCvt(Type from, Type to) {
  unsigned f = elementBit(from), t = elementBit(to);
  switch (f) {
  case kF32:
    return t & (kF16 | kBF16 | kI16 | kI32 | kF32);
  case kF16:
    return t & (kF32 | kI32 | kI16 | kI8);
  case kBF16:
    return t & (kF32 | kI32);
  case kI16:
    return t & (kF16 | kF32);
  case kI32:
    return t & (kF32 | kI16 | kF16);
  case kI8:
    return t & kF16;
  }
  return false;
}

static LogicalResult verifyCvt(CvtOp op) {
  TileType d = tileOf(op.getDst()), s = tileOf(op.getSrc());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectLoc(o, "src", s, TileLoc::vec, true)))
    return failure();
  if (!isLegalCvt(s.getElementType(), d.getElementType()))
    return op.emitOpError() << "converts " << s.getElementType() << " to "
                            << d.getElementType()
                            << ", which A2/A3's TCVT does not";
  if (op.getRound() != RoundMode::rint &&
      !(isa<FloatType>(s.getElementType()) &&
        isa<IntegerType>(d.getElementType())))
    return op.emitOpError() << "rounds " << stringifyRoundMode(op.getRound())
                            << " only from a float to an integer; other "
                               "conversions round to nearest even";
  for (unsigned i = 0; i < 2; ++i)
    if (!agree(d.getShape()[i], s.getShape()[i]) ||
        !agree(d.getValidShape()[i], s.getValidShape()[i]))
      return op.emitOpError("'dst' and 'src' must have one extent");
  return success();
}

static LogicalResult verifyQuant(QuantOp op) {
  TileType d = tileOf(op.getDst()), s = tileOf(op.getSrc()),
           sc = tileOf(op.getScale());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectLoc(o, "src", s, TileLoc::vec, true)) ||
      failed(expectElement(o, "dst", d, kI8)) ||
      failed(expectElement(o, "src", s, kF32)) ||
      failed(expectElement(o, "scale", sc, kF32)) ||
      failed(expectRowColumn(o, "scale", sc)) ||
      failed(expectDim(o, "scale", sc, 0, s.getRows(), "one per row")))
    return failure();
  for (unsigned i = 0; i < 2; ++i)
    if (!agree(d.getShape()[i], s.getShape()[i]))
      return op.emitOpError("'dst' and 'src' must have one static extent");
  return success();
}

static LogicalResult verifyDequant(DequantOp op) {
  TileType d = tileOf(op.getDst()), s = tileOf(op.getSrc()),
           sc = tileOf(op.getScale()), z = tileOf(op.getZero());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectLoc(o, "src", s, TileLoc::vec, true)) ||
      failed(expectElement(o, "dst", d, kF32)) ||
      failed(expectElement(o, "src", s, kI8 | kI16)) ||
      failed(expectElement(o, "scale", sc, kF32)) ||
      failed(expectElement(o, "zero", z, kF32)) ||
      failed(expectRowColumn(o, "scale", sc)) ||
      failed(expectRowColumn(o, "zero", z)) ||
      failed(expectDim(o, "scale", sc, 0, s.getRows(), "one per row")) ||
      failed(expectDim(o, "zero", z, 0, s.getRows(), "one per row")))
    return failure();
  for (unsigned i = 0; i < 2; ++i)
    if (!agree(d.getShape()[i], s.getShape()[i]))
      return op.emitOpError("'dst' and 'src' must have one static extent");
  return success();
}

template <typename OpT>
static LogicalResult verifyMatmul(OpT op) {
  TileType c = tileOf(op.getC()), a = tileOf(op.getA()), b = tileOf(op.getB());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "c", c, TileLoc::acc)) ||
      failed(expectLoc(o, "a", a, TileLoc::left)) ||
      failed(expectLoc(o, "b", b, TileLoc::right)) ||
      failed(expectSameElement(o, "a", a, "b", b)))
    return failure();
  Type in = a.getElementType(), out = c.getElementType();
  bool ok = (in.isSignlessInteger(8) && out.isSignlessInteger(32)) ||
            ((in.isF16() || in.isBF16() || in.isF32()) && out.isF32());
  if (!ok)
    return op.emitOpError() << "multiplies " << in << " into " << out
                            << "; the cube takes i8 x i8 -> i32 and f16, bf16 "
                               "or f32 -> f32";
  if (!agree(a.getRows(), c.getRows()))
    return op.emitOpError() << "'a' has " << a.getRows() << " rows, 'c' "
                            << c.getRows() << " (M must agree)";
  if (!agree(a.getCols(), b.getRows()))
    return op.emitOpError() << "'a' has " << a.getCols() << " columns, 'b' "
                            << b.getRows() << " rows (K must agree)";
  if (!agree(b.getCols(), c.getCols()))
    return op.emitOpError() << "'b' has " << b.getCols() << " columns, 'c' "
                            << c.getCols() << " (N must agree)";
  if constexpr (std::is_same_v<OpT, GemvOp>)
    if (a.getValidShape()[0] != kDyn && a.getValidShape()[0] != 1)
      return op.emitOpError() << "multiplies one row: 'a' has "
                              << a.getValidShape()[0] << " valid rows";
  return success();
}

static LogicalResult verifyCi(CiOp op) {
  TileType d = tileOf(op.getDst());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectElement(o, "dst", d, kI16 | kI32)))
    return failure();
  if (op.getStart().getType() != d.getElementType())
    return op.emitOpError() << "start has type " << op.getStart().getType()
                            << "; it must be the tile's element type "
                            << d.getElementType();
  return success();
}

static LogicalResult verifyTri(TriOp op) {
  TileType d = tileOf(op.getDst());
  Operation *o = op.getOperation();
  return failure(failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
                 failed(expectElement(o, "dst", d, kVecArith)));
}

static LogicalResult verifyCmps(CmpsOp op) {
  TileType m = tileOf(op.getMask()), s = tileOf(op.getSrc());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "mask", m, TileLoc::vec, true)) ||
      failed(expectLoc(o, "src", s, TileLoc::vec, true)) ||
      failed(expectElement(o, "mask", m, kI8)) ||
      failed(expectElement(o, "src", s, kVecArith)) ||
      failed(expectDim(o, "mask", m, 0, s.getRows(), "one row per src row")))
    return failure();
  if (op.getScalar().getType() != s.getElementType())
    return op.emitOpError() << "scalar has type " << op.getScalar().getType()
                            << "; it must be the source's element type "
                            << s.getElementType();
  if (m.getCols() != kDyn && s.getCols() != kDyn &&
      m.getCols() * 8 < s.getCols())
    return op.emitOpError() << "'mask' has " << m.getCols() * 8
                            << " bits per row; 'src' has " << s.getCols()
                            << " columns";
  // (A `?` column count is checked once tier specialization fixes it.)
  if (s.getCols() != kDyn && s.getValidShape()[1] != s.getCols())
    return op.emitOpError("compares whole rows: 'src' must be valid over all "
                          "its columns");
  return success();
}

static LogicalResult verifySel(SelOp op) {
  TileType d = tileOf(op.getDst()), m = tileOf(op.getMask()),
           a = tileOf(op.getLhs()), b = tileOf(op.getRhs()),
           t = tileOf(op.getTmp());
  Operation *o = op.getOperation();
  if (failed(expectLoc(o, "dst", d, TileLoc::vec, true)) ||
      failed(expectLoc(o, "mask", m, TileLoc::vec, true)) ||
      failed(expectLoc(o, "lhs", a, TileLoc::vec, true)) ||
      failed(expectLoc(o, "rhs", b, TileLoc::vec, true)) ||
      failed(expectLoc(o, "tmp", t, TileLoc::vec)) ||
      failed(expectElement(o, "mask", m, kI8)) ||
      failed(expectElement(o, "dst", d, kI16 | kI32 | kF16 | kF32)) ||
      failed(expectSameElement(o, "dst", d, "lhs", a)) ||
      failed(expectSameElement(o, "dst", d, "rhs", b)) ||
      failed(expectSameShape(o, "dst", d, "lhs", a)) ||
      failed(expectSameShape(o, "dst", d, "rhs", b)) ||
      failed(expectDim(o, "mask", m, 0, d.getRows(), "one row per dst row")) ||
      failed(expectElement(o, "tmp", t, kI32)))
    return failure();
  if (m.getCols() != kDyn && d.getCols() != kDyn &&
      m.getCols() * 8 < d.getCols())
    return op.emitOpError() << "'mask' has " << m.getCols() * 8
                            << " bits per row; 'dst' has " << d.getCols()
                            << " columns";
  return success();
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "wsp/Dialect/Tile/IR/TileOps.cpp.inc"

/// The constant value of `v`, if any.
static std::optional<int64_t> constantIndex(Value v) {
  APInt value;
  if (v && matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// AllocOp
//===----------------------------------------------------------------------===//

Value mlir::wsp::tile::getDynamicValidExtent(Value tile, unsigned d) {
  auto t = dyn_cast<TileType>(tile.getType());
  if (!t || t.getValidShape()[d] != TileType::kDynamic)
    return Value();
  const unsigned index = t.getDynamicValidIndex(d);
  if (auto alloc = tile.getDefiningOp<AllocOp>())
    return alloc.getDynamicValid()[index];
  if (auto view = tile.getDefiningOp<SubviewOp>())
    return view.getDynamicValid()[index];
  return Value();
}

LogicalResult AllocOp::verify() {
  TileType t = getType();
  if (getDynamicShape().size() != t.getNumDynamicDims())
    return emitOpError() << "takes one size per '?' of the static extent ("
                         << t.getNumDynamicDims() << "), got "
                         << getDynamicShape().size();
  if (getDynamicValid().size() != t.getNumDynamicValidDims())
    return emitOpError() << "takes one size per '?' of the valid extent ("
                         << t.getNumDynamicValidDims() << "), got "
                         << getDynamicValid().size();
  if (getBuffersAttr() &&
      (getNumBuffers() < 1 || getNumBuffers() > TileDialect::kMaxBuffers))
    return emitOpError() << "reserves " << getNumBuffers()
                         << " buffers; expected 1 to "
                         << TileDialect::kMaxBuffers;
  if (getSlot() && getNumBuffers() < 2)
    return emitOpError("picks a slot of a single buffer; give buffers(N), "
                       "N >= 2");
  if (!getSlot() && getNumBuffers() > 1)
    return emitOpError("reserves several buffers but picks none; give "
                       "slot(%i)");
  if (auto offset = getOffsetAttr()) {
    int64_t o = offset.getInt();
    if (o < 0 || o % ::pto::runtime::kTileAlignBytes)
      return emitOpError() << "offset " << o
                           << " must be a non-negative multiple of "
                           << ::pto::runtime::kTileAlignBytes << " bytes";
  }
  // Constant sizes obey the rules their static forms do (they become
  // static when canonicalized).
  SmallVector<int64_t> shape(t.getShape());
  for (unsigned d = 0, next = 0; d < 2; ++d) {
    if (shape[d] != kDyn)
      continue;
    std::optional<int64_t> c = constantIndex(getDynamicShape()[next++]);
    if (c && *c <= 0)
      return emitOpError() << "static extent " << *c << " must be positive";
    if (c)
      shape[d] = *c;
  }
  unsigned next = 0;
  for (unsigned d = 0; d < 2; ++d) {
    if (t.getValidShape()[d] != kDyn) {
      if (shape[d] != kDyn && t.getValidShape()[d] > shape[d])
        return emitOpError() << "valid " << (d ? "cols" : "rows") << " ("
                             << t.getValidShape()[d]
                             << ") exceed the static extent " << shape[d];
      continue;
    }
    std::optional<int64_t> c = constantIndex(getDynamicValid()[next++]);
    if (c && (*c < 0 || (shape[d] != kDyn && *c > shape[d])))
      return emitOpError() << "valid " << (d ? "cols" : "rows") << " (" << *c
                           << ") must lie in [0, " << dim(shape[d]) << "]";
  }
  if (ArrayRef<int64_t>(shape) != t.getShape())
    return TileType::verify(
        [&] {
          return emitOpError() << "with its constant sizes ("
                               << extent(shape) << "): ";
        },
        t.getLoc(), shape, t.getElementType(), t.getValidShape(),
        t.getLayout());
  return success();
}

namespace {
/// Constant sizes become static: `tile.alloc shape(%c128)` of `?x128` is a
/// 128x128 tile, `valid(%c7)` a valid extent of 7. Tier specialization
/// relies on it to turn a tier's tile constants into tile types. The type
/// changes in place: tile ops accept any tile whose storage agrees.
struct StaticAllocSizes : public OpRewritePattern<AllocOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllocOp op,
                                PatternRewriter &rewriter) const override {
    for (Operation *user : op->getUsers())
      if (!isa_and_present<TileDialect>(user->getDialect()))
        return failure();
    TileType t = op.getType();
    SmallVector<int64_t> shape(t.getShape()), valid(t.getValidShape());
    SmallVector<Value> keepShape, keepValid;
    bool changed = false;
    unsigned next = 0;
    for (int64_t &d : shape) {
      if (d != kDyn)
        continue;
      Value v = op.getDynamicShape()[next++];
      if (std::optional<int64_t> c = constantIndex(v); c && *c > 0) {
        d = *c;
        changed = true;
      } else {
        keepShape.push_back(v);
      }
    }
    next = 0;
    for (unsigned i = 0; i < 2; ++i) {
      if (valid[i] != kDyn)
        continue;
      Value v = op.getDynamicValid()[next++];
      std::optional<int64_t> c = constantIndex(v);
      if (c && *c >= 0 && (shape[i] == kDyn || *c <= shape[i])) {
        valid[i] = *c;
        changed = true;
      } else {
        keepValid.push_back(v);
      }
    }
    if (!changed)
      return failure();
    // Only to a valid tile that every user still accepts (a view must fit
    // in it); what does not fold is AllocOp::verify's to report.
    MLIRContext *ctx = op.getContext();
    ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
    if (failed(TileType::verify([&] { return emitError(op.getLoc()); },
                                t.getLoc(), shape, t.getElementType(), valid,
                                t.getLayout())))
      return failure();
    TileType newType = t.withShape(shape, valid);
    op.getResult().setType(newType);
    bool accepted = llvm::all_of(op->getUsers(), [](Operation *user) {
      return succeeded(verify(user, /*verifyRecursively=*/false));
    });
    op.getResult().setType(t);
    if (!accepted)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getDynamicShapeMutable().assign(keepShape);
      op.getDynamicValidMutable().assign(keepValid);
      op.getResult().setType(newType);
    });
    return success();
  }
};
} // namespace

void AllocOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<StaticAllocSizes>(context);
}

//===----------------------------------------------------------------------===//
// SubviewOp, ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult SubviewOp::verify() {
  TileType s = tileOf(getSource()), r = tileOf(getResult());
  Operation *o = getOperation();
  if (failed(expectLoc(o, "source", s, TileLoc::vec, true)) ||
      failed(expectLoc(o, "result", r, TileLoc::vec, true)) ||
      failed(expectSameElement(o, "source", s, "result", r)))
    return failure();
  if (!r.hasStaticShape())
    return emitOpError("result must have a static extent");
  if (getDynamicValid().size() != r.getNumDynamicValidDims())
    return emitOpError() << "takes one size per '?' of the valid extent ("
                         << r.getNumDynamicValidDims() << "), got "
                         << getDynamicValid().size();
  std::optional<int64_t> row = constantIndex(getRow()),
                         col = constantIndex(getCol());
  // A view is whole rows of the source: its tile keeps the source's row
  // stride (as TASSIGN does on device), so it has the source's width.
  if (s.getCols() != kDyn && r.getCols() != s.getCols())
    return emitOpError() << "a view of " << r.getCols()
                         << " columns of a tile of " << s.getCols()
                         << ": a view takes whole rows";
  if (s.getRows() != kDyn && r.getRows() > s.getRows())
    return emitOpError() << "result has " << r.getRows()
                         << " rows, more than the source's " << s.getRows();
  if (!col || *col != 0)
    return emitOpError("a view takes whole rows: its column offset must be "
                       "the constant 0");
  if (s.getRows() != kDyn && row && *row + r.getRows() > s.getRows())
    return emitOpError() << "rows [" << *row << ", " << *row + r.getRows()
                         << ") lie outside the source's " << s.getRows();
  if (row && *row < 0)
    return emitOpError("row offset must be non-negative");
  return success();
}

LogicalResult ReshapeOp::verify() {
  TileType s = tileOf(getSource()), r = tileOf(getResult());
  if (s.getLoc() != r.getLoc())
    return emitOpError("reshapes within one buffer: source and result must "
                       "have one location");
  if (s.hasStaticShape() && r.hasStaticShape() &&
      s.getSizeInBytes() != r.getSizeInBytes())
    return emitOpError() << "source holds " << s.getSizeInBytes()
                         << " bytes, result " << r.getSizeInBytes();
  // The result is valid where it is stored: the op has no valid extent to
  // give (pto-isa's TRESHAPE keeps the result's own).
  if (r.hasStaticShape() && r.getValidShape() != r.getShape())
    return emitOpError() << "yields " << r
                         << ", valid in part: a reshape's result is valid in "
                            "whole (a tile.subview of it takes fewer rows)";
  // The storage stays as it is: one layout, or a single row or column seen
  // as the other (a 32x1 column of row statistics as a 1x32 row).
  auto isVector = [](TileType t) { return t.getRows() == 1 || t.getCols() == 1; };
  if (s.getLayout() != r.getLayout() && !(isVector(s) && isVector(r)))
    return emitOpError() << "reshapes a " << stringifyTileLayout(s.getLayout())
                         << " tile as " << stringifyTileLayout(r.getLayout())
                         << "; only a single row or column changes layout";
  return success();
}

//===----------------------------------------------------------------------===//
// Load, LoadPaged, Store
//===----------------------------------------------------------------------===//

/// `dst` may be filled by a (transposed) load from GM.
static LogicalResult verifyLoadTarget(Operation *op, TileType d,
                                      bool transpose) {
  if (d.getLoc() != TileLoc::vec && d.getLoc() != TileLoc::mat)
    return op->emitOpError()
           << "loads global memory into vec (UB) or mat (L1) tiles, not "
           << stringifyTileLoc(d.getLoc());
  TileLayout want = d.getLoc() == TileLoc::vec
                        ? (transpose ? TileLayout::col_major
                                     : TileLayout::row_major)
                        : (transpose ? TileLayout::zn : TileLayout::nz);
  if (d.getLayout() != want)
    return op->emitOpError() << "a " << (transpose ? "transposed" : "plain")
                             << " load into a " << stringifyTileLoc(d.getLoc())
                             << " tile gives " << stringifyTileLayout(want)
                             << ", but 'dst' is "
                             << stringifyTileLayout(d.getLayout());
  return success();
}

/// A rank-1 memref is one row of global memory: the tile holds one line of
/// it (one row, or transposed one column), known statically.
static LogicalResult verifyOneRow(Operation *op, MemRefType m, TileType t,
                                  bool transpose, StringRef role) {
  if (m.getRank() != 1)
    return success();
  unsigned d = transpose ? 1 : 0;
  if (t.getShape()[d] == 1 || t.getValidShape()[d] == 1)
    return success();
  return op->emitOpError() << "moves one row of a rank-1 memref: '" << role
                           << "' must have one valid "
                           << (transpose ? "column" : "row") << ", got "
                           << dim(t.getValidShape()[d]);
}

/// Whether a tile's valid extent at `indices` of `m` lies inside the memref,
/// as far as the IR knows it (constant indices, static sizes and extents):
/// the rule the CPU simulation checks at run time (tile::detail::check_gm).
/// Every index names an element; several rows keep their columns inside
/// the last dimension and run over the memref's rows (the product of every
/// size but the last); one row is a contiguous run inside the memref.
static LogicalResult verifyGmPlace(Operation *op, MemRefType m,
                                   ValueRange indices, TileType t,
                                   bool transpose, StringRef role) {
  ArrayRef<int64_t> valid = t.getValidShape();
  int64_t lines = transpose ? valid[1] : valid[0];
  int64_t width = transpose ? valid[0] : valid[1];
  // An extent that may be empty touches nothing.
  if (lines == kDyn || width == kDyn || lines == 0 || width == 0)
    return success();
  const int64_t rank = m.getRank();
  SmallVector<std::optional<int64_t>> at;
  for (Value v : indices)
    at.push_back(constantIndex(v));
  ArrayRef<int64_t> sizes = m.getShape();
  auto place = [&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "'" << role << "' (" << lines
       << (transpose ? " column" : " row") << (lines == 1 ? "" : "s")
       << " of " << width << ") at [";
    llvm::interleaveComma(at, os, [&](std::optional<int64_t> i) {
      if (i)
        os << *i;
      else
        os << "?";
    });
    os << "] of " << m;
    return text;
  };
  for (int64_t d = 0; d < rank; ++d)
    if (at[d] && (*at[d] < 0 || (sizes[d] != kDyn && *at[d] >= sizes[d])))
      return op->emitOpError()
             << place() << " lies outside the memref: index " << *at[d]
             << " of dimension " << d << " is not in [0, "
             << dim(sizes[d]) << ")";
  // The first row and the memref's rows, when known.
  std::optional<int64_t> row = 0, rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d) {
    row = row && at[d] && sizes[d] != kDyn
              ? std::optional(*row * sizes[d] + *at[d])
              : std::nullopt;
    rows = rows && sizes[d] != kDyn ? std::optional(*rows * sizes[d])
                                    : std::nullopt;
  }
  int64_t last = sizes[rank - 1];
  std::optional<int64_t> col = at[rank - 1];
  if (lines > 1 && rank >= 2) {
    if (col && last != kDyn && *col + width > last)
      return op->emitOpError()
             << place() << " lies outside the memref: columns [" << *col
             << ", " << *col + width << ") of " << last;
    if (row && rows && *row + lines > *rows)
      return op->emitOpError()
             << place() << " lies outside the memref: rows [" << *row << ", "
             << *row + lines << ") of its " << *rows;
  } else if (row && rows && col && last != kDyn &&
             *row * last + *col + width > *rows * last) {
    return op->emitOpError()
           << place() << " lies outside the memref: elements ["
           << *row * last + *col << ", " << *row * last + *col + width
           << ") of its " << *rows * last;
  }
  return success();
}

LogicalResult LoadOp::verify() {
  TileType d = tileOf(getDst());
  auto m = cast<MemRefType>(getSource().getType());
  if (failed(verifyLoadTarget(*this, d, getTranspose())))
    return failure();
  if (m.getElementType() != d.getElementType())
    return emitOpError() << "loads " << m.getElementType() << " into a "
                         << d.getElementType()
                         << " tile; a load does not convert";
  if (getIndices().size() != static_cast<size_t>(m.getRank()))
    return emitOpError() << "takes one index per memref dimension ("
                         << m.getRank() << "), got " << getIndices().size();
  if (m.getRank() < 1)
    return emitOpError("loads from a memref of rank >= 1");
  if (failed(verifyOneRow(*this, m, d, getTranspose(), "dst")))
    return failure();
  return verifyGmPlace(*this, m, getIndices(), d, getTranspose(), "dst");
}

Pipe LoadOp::getPipe() { return Pipe::mte2; }
Unit LoadOp::getUnit() { return wsp::tile::getUnit(tileOf(getDst()).getLoc()); }

LogicalResult LoadPagedOp::verify() {
  TileType d = tileOf(getDst());
  auto m = cast<MemRefType>(getCache().getType());
  if (failed(verifyLoadTarget(*this, d, getTranspose())))
    return failure();
  if (m.getElementType() != d.getElementType())
    return emitOpError() << "loads " << m.getElementType() << " into a "
                         << d.getElementType()
                         << " tile; a load does not convert";
  if (m.getRank() != 3 && m.getRank() != 4)
    return emitOpError() << "reads a cache of rank 3 [pages, page_size, cols] "
                            "or 4 [pages, heads, page_size, cols], got rank "
                         << m.getRank();
  if ((m.getRank() == 4) != static_cast<bool>(getHead()))
    return emitOpError() << "a rank-" << m.getRank() << " cache takes "
                         << (m.getRank() == 4 ? "a" : "no") << " head index";
  return success();
}

Pipe LoadPagedOp::getPipe() { return Pipe::mte2; }
Unit LoadPagedOp::getUnit() {
  return wsp::tile::getUnit(tileOf(getDst()).getLoc());
}

LogicalResult StoreOp::verify() {
  TileType s = tileOf(getSrc());
  auto m = cast<MemRefType>(getDest().getType());
  if (getIndices().size() != static_cast<size_t>(m.getRank()))
    return emitOpError() << "takes one index per memref dimension ("
                         << m.getRank() << "), got " << getIndices().size();
  if (m.getRank() < 1)
    return emitOpError("stores to a memref of rank >= 1");
  Type from = s.getElementType(), to = m.getElementType();
  switch (s.getLoc()) {
  case TileLoc::vec:
    if (from != to)
      return emitOpError() << "stores a " << from << " tile into " << to
                           << " memory; only the fixpipe (acc) converts";
    break;
  case TileLoc::acc:
    if (!((from.isF32() && (to.isF32() || to.isF16() || to.isBF16())) ||
          (from.isInteger(32) && to.isInteger(32))))
      return emitOpError() << "stores an " << from << " acc tile into " << to
                           << " memory; the fixpipe writes f32 as f32, f16 "
                              "or bf16 and i32 as i32";
    break;
  default:
    return emitOpError() << "stores vec or acc tiles, not "
                         << stringifyTileLoc(s.getLoc());
  }
  bool colMajor = s.getLayout() == TileLayout::col_major;
  if (getTranspose() != colMajor)
    return emitOpError() << (colMajor ? "a col_major tile is stored with "
                                        "'transpose'"
                                      : "only a col_major tile is stored "
                                        "with 'transpose'");
  if (failed(verifyOneRow(*this, m, s, getTranspose(), "src")))
    return failure();
  return verifyGmPlace(*this, m, getIndices(), s, getTranspose(), "src");
}

Pipe StoreOp::getPipe() {
  return tileOf(getSrc()).getLoc() == TileLoc::acc ? Pipe::fix : Pipe::mte3;
}
Unit StoreOp::getUnit() { return wsp::tile::getUnit(tileOf(getSrc()).getLoc()); }

//===----------------------------------------------------------------------===//
// Mov, Extract
//===----------------------------------------------------------------------===//

/// The A2/A3 on-chip paths (pto-isa TMOV / TEXTRACT).
static LogicalResult verifyOnChipPath(Operation *op, TileType d, TileType s) {
  TileLoc from = s.getLoc(), to = d.getLoc();
  bool ok = (from == TileLoc::mat &&
             (to == TileLoc::left || to == TileLoc::right)) ||
            (from == TileLoc::vec && to == TileLoc::vec) ||
            (from == TileLoc::acc && to == TileLoc::mat);
  if (!ok)
    return op->emitOpError()
           << "moves " << stringifyTileLoc(from) << " to "
           << stringifyTileLoc(to)
           << ", which A2/A3 cannot: the paths are mat to left/right, vec to "
              "vec and acc to mat (the cube and vector cores exchange data "
              "through global memory)";
  if (from == TileLoc::acc) {
    if (!s.getElementType().isF32() ||
        !(d.getElementType().isF16() || d.getElementType().isBF16()))
      return op->emitOpError() << "moves acc to mat as f32 to f16 or bf16, "
                                  "got "
                               << s.getElementType() << " to "
                               << d.getElementType();
  } else if (failed(expectSameElement(op, "dst", d, "src", s))) {
    return failure();
  }
  return success();
}

LogicalResult MovOp::verify() {
  TileType d = tileOf(getDst()), s = tileOf(getSrc());
  if (failed(verifyOnChipPath(*this, d, s)))
    return failure();
  if (!agree(d.getRows(), s.getRows()) || !agree(d.getCols(), s.getCols()))
    return emitOpError() << "moves a " << extent(s.getShape())
                         << " tile into a " << extent(d.getShape())
                         << " one; static extents must match";
  return success();
}

static std::pair<Pipe, Unit> onChipPipe(TileType src) {
  switch (src.getLoc()) {
  case TileLoc::vec:
    return {Pipe::v, Unit::vector};
  case TileLoc::acc:
    return {Pipe::fix, Unit::cube};
  default:
    return {Pipe::mte1, Unit::cube};
  }
}

Pipe MovOp::getPipe() { return onChipPipe(tileOf(getSrc())).first; }
Unit MovOp::getUnit() { return onChipPipe(tileOf(getSrc())).second; }

LogicalResult ExtractOp::verify() {
  TileType d = tileOf(getDst()), s = tileOf(getSrc());
  if (s.getLoc() == TileLoc::acc)
    return emitOpError("extracts from mat or vec tiles");
  if (failed(verifyOnChipPath(*this, d, s)))
    return failure();
  std::optional<int64_t> row = constantIndex(getRow()),
                         col = constantIndex(getCol());
  std::optional<int64_t> offsets[] = {row, col};
  for (unsigned i = 0; i < 2; ++i) {
    std::optional<int64_t> off = offsets[i];
    int64_t dd = d.getShape()[i], sd = s.getShape()[i];
    if (off && *off < 0)
      return emitOpError() << (i ? "column" : "row") << " offset " << *off
                           << " is negative";
    if (off && dd != kDyn && sd != kDyn && *off + dd > sd)
      return emitOpError() << "takes " << (i ? "columns" : "rows") << " ["
                           << *off << ", " << *off + dd
                           << ") of a source with " << sd;
  }
  // On the cube, offsets lie on the source's fractal boxes.
  auto [boxRows, boxCols] = s.getFractalBox();
  if ((row && *row % boxRows) || (col && *col % boxCols))
    return emitOpError() << "offsets must lie on the source's "
                         << boxRows << "x" << boxCols << " fractal boxes";
  return success();
}

Pipe ExtractOp::getPipe() { return onChipPipe(tileOf(getSrc())).first; }
Unit ExtractOp::getUnit() { return onChipPipe(tileOf(getSrc())).second; }

//===----------------------------------------------------------------------===//
// Expands, GetVal, SetVal
//===----------------------------------------------------------------------===//

LogicalResult ExpandsOp::verify() {
  TileType d = tileOf(getDst());
  if (d.getLoc() != TileLoc::vec && d.getLoc() != TileLoc::mat)
    return emitOpError() << "fills vec or mat tiles, not "
                         << stringifyTileLoc(d.getLoc());
  if (getScalar().getType() != d.getElementType())
    return emitOpError() << "scalar has type " << getScalar().getType()
                         << "; it must be the tile's element type "
                         << d.getElementType();
  return success();
}

Pipe ExpandsOp::getPipe() {
  return tileOf(getDst()).getLoc() == TileLoc::vec ? Pipe::v : Pipe::mte2;
}
Unit ExpandsOp::getUnit() { return wsp::tile::getUnit(tileOf(getDst()).getLoc()); }

template <typename OpT>
static LogicalResult verifyScalarAccess(OpT op, Type value) {
  TileType t = tileOf(op.getTile());
  if (failed(expectLoc(op, "tile", t, TileLoc::vec)))
    return failure();
  if (value != t.getElementType())
    return op.emitOpError() << "accesses a " << t.getElementType()
                            << " tile as " << value;
  std::optional<int64_t> at[] = {constantIndex(op.getRow()),
                                 constantIndex(op.getCol())};
  for (unsigned d = 0; d < 2; ++d)
    if (at[d] && (*at[d] < 0 || (t.getShape()[d] != kDyn &&
                                 *at[d] >= t.getShape()[d])))
      return op.emitOpError() << (d ? "column " : "row ") << *at[d]
                              << " lies outside the tile's "
                              << t.getShape()[d];
  return success();
}

LogicalResult GetValOp::verify() {
  return verifyScalarAccess(*this, getResult().getType());
}
LogicalResult SetValOp::verify() {
  return verifyScalarAccess(*this, getValue().getType());
}

//===----------------------------------------------------------------------===//
// Synchronization
//===----------------------------------------------------------------------===//

template <typename OpT>
static LogicalResult verifyFlag(OpT op) {
  if (op.getSrc() == Pipe::all || op.getDst() == Pipe::all)
    return op.emitOpError("flags connect two pipes; 'all' is for "
                          "tile.barrier");
  if (op.getSrc() == op.getDst())
    return op.emitOpError() << "connects pipe " << stringifyPipe(op.getSrc())
                            << " with itself; a pipe runs in order";
  std::optional<Unit> a = getPipeUnit(op.getSrc()), b = getPipeUnit(op.getDst());
  if (a && b && *a != *b)
    return op.emitOpError() << stringifyPipe(op.getSrc()) << " and "
                            << stringifyPipe(op.getDst())
                            << " are pipes of different cores; use "
                               "tile.sync_set / tile.sync_wait";
  return success();
}

LogicalResult SetFlagOp::verify() { return verifyFlag(*this); }
LogicalResult WaitFlagOp::verify() { return verifyFlag(*this); }

LogicalResult SyncSetOp::verify() {
  if (getPipe() == Pipe::all)
    return emitOpError("signals after one pipe, not 'all'");
  std::optional<Unit> u = getPipeUnit(getPipe());
  if (u && *u != getUnit())
    return emitOpError() << "the " << stringifyUnit(getUnit())
                         << " core has no " << stringifyPipe(getPipe())
                         << " pipe";
  return success();
}
