//===- TileTypes.cpp - tile types -----------------------------------------===//

#include "wsp/Dialect/Tile/IR/TileTypes.h"
#include "wsp/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::wsp::tile;

#include "wsp/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "wsp/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "wsp/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

::pto::runtime::Buffer mlir::wsp::tile::getBuffer(TileLoc loc) {
  using ::pto::runtime::Buffer;
  switch (loc) {
  case TileLoc::vec:
    return Buffer::UB;
  case TileLoc::mat:
    return Buffer::L1;
  case TileLoc::left:
    return Buffer::L0A;
  case TileLoc::right:
    return Buffer::L0B;
  case TileLoc::acc:
    return Buffer::L0C;
  }
  llvm_unreachable("unknown tile location");
}

Unit mlir::wsp::tile::getUnit(TileLoc loc) {
  return loc == TileLoc::vec ? Unit::vector : Unit::cube;
}

std::optional<Unit> mlir::wsp::tile::getPipeUnit(Pipe p) {
  switch (p) {
  case Pipe::v:
  case Pipe::mte3:
    return Unit::vector;
  case Pipe::m:
  case Pipe::mte1:
  case Pipe::fix:
    return Unit::cube;
  default:
    return std::nullopt;
  }
}

Unit mlir::wsp::tile::getFlagUnit(Pipe a, Pipe b) {
  if (std::optional<Unit> u = getPipeUnit(a))
    return *u;
  return getPipeUnit(b).value_or(Unit::vector);
}

TileLayout TileType::getDefaultLayout(TileLoc loc) {
  switch (loc) {
  case TileLoc::vec:
    return TileLayout::row_major;
  case TileLoc::mat:
  case TileLoc::acc:
    return TileLayout::nz;
  case TileLoc::left:
    return TileLayout::zz;
  case TileLoc::right:
    return TileLayout::zn;
  }
  llvm_unreachable("unknown tile location");
}

unsigned TileType::getNumDynamicDims() const {
  return llvm::count(getShape(), kDynamic);
}

unsigned TileType::getNumDynamicValidDims() const {
  return llvm::count(getValidShape(), kDynamic);
}

unsigned TileType::getDynamicValidIndex(unsigned d) const {
  assert(d < getValidShape().size() && getValidShape()[d] == kDynamic &&
         "the index of a dynamic valid dim");
  return llvm::count(getValidShape().take_front(d), kDynamic);
}

/// Bytes of an element type tiles may hold; 0 if none.
static int64_t elementBytes(Type t) {
  if (t.isSignlessInteger(8))
    return 1;
  if (t.isSignlessInteger(16) || t.isF16() || t.isBF16())
    return 2;
  if (t.isSignlessInteger(32) || t.isF32())
    return 4;
  return 0;
}

int64_t TileType::getElementBytes() const {
  return elementBytes(getElementType());
}

int64_t TileType::getSizeInBytes() const {
  assert(hasStaticShape() && "tile size of a dynamic shape");
  return getRows() * getCols() * getElementBytes();
}

TileType TileType::withValidShape(ArrayRef<int64_t> valid) const {
  return TileType::get(getContext(), getLoc(), getShape(), getElementType(),
                       valid, getLayout());
}

TileType TileType::withShape(ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> valid) const {
  return TileType::get(getContext(), getLoc(), shape, getElementType(), valid,
                       getLayout());
}


/// The fractal box (rows x cols) a layout stores in; 1x1 for ND/DN.
static std::pair<int64_t, int64_t> fractalBox(TileLoc loc, TileLayout layout,
                                              int64_t bytes) {
  if (loc == TileLoc::acc)
    return {16, 16};
  switch (layout) {
  case TileLayout::row_major:
  case TileLayout::col_major:
    return {1, 1};
  case TileLayout::nz:
  case TileLayout::zz:
    return {16, 32 / bytes};
  case TileLayout::zn:
    return {32 / bytes, 16};
  }
  llvm_unreachable("unknown tile layout");
}

std::pair<int64_t, int64_t> TileType::getFractalBox() const {
  return fractalBox(getLoc(), getLayout(), getElementBytes());
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               TileLoc loc, ArrayRef<int64_t> shape,
                               Type elementType, ArrayRef<int64_t> validShape,
                               TileLayout layout) {
  if (shape.size() != 2 || validShape.size() != 2)
    return emitError() << "a tile has two dimensions (rows x cols)";
  int64_t bytes = elementBytes(elementType);
  if (!bytes)
    return emitError() << "tile element type must be i8, i16, i32, f16, "
                          "bf16 or f32, got "
                       << elementType;
  for (unsigned d = 0; d < 2; ++d) {
    if (shape[d] != kDynamic && shape[d] <= 0)
      return emitError() << "tile " << (d ? "cols" : "rows")
                         << " must be positive, got " << shape[d];
    if (validShape[d] != kDynamic &&
        (validShape[d] < 0 ||
         (shape[d] != kDynamic && validShape[d] > shape[d])))
      return emitError() << "valid " << (d ? "cols" : "rows") << " ("
                         << validShape[d] << ") must lie in [0, "
                         << (shape[d] == kDynamic ? std::string("?")
                                                  : std::to_string(shape[d]))
                         << "]";
  }
  // A tile larger than its buffer can never be placed (and its byte size
  // must not overflow).
  const int64_t budget = ::pto::runtime::buffer_bytes(getBuffer(loc));
  if (shape[0] != kDynamic || shape[1] != kDynamic) {
    const int64_t rows = shape[0] == kDynamic ? 1 : shape[0],
                  cols = shape[1] == kDynamic ? 1 : shape[1];
    if (rows > budget / bytes || cols > budget / bytes ||
        rows * cols > budget / bytes) {
      std::string extent;
      llvm::raw_string_ostream os(extent);
      for (unsigned d = 0; d < 2; ++d)
        os << (shape[d] == kDynamic ? std::string("?")
                                    : std::to_string(shape[d]))
           << "x";
      os << elementType;
      return emitError() << "a " << stringifyTileLoc(loc) << " tile of "
                         << extent << " is larger than "
                         << ::pto::runtime::buffer_name(getBuffer(loc)) << " ("
                         << budget << " bytes)";
    }
  }
  // Which layouts a location allows (A2/A3).
  bool layoutOk = false;
  switch (loc) {
  case TileLoc::vec:
    layoutOk = layout == TileLayout::row_major || layout == TileLayout::col_major;
    break;
  case TileLoc::mat:
    layoutOk = layout == TileLayout::nz || layout == TileLayout::zn;
    break;
  case TileLoc::left:
    layoutOk = layout == TileLayout::zz;
    break;
  case TileLoc::right:
    layoutOk = layout == TileLayout::zn;
    break;
  case TileLoc::acc:
    layoutOk = layout == TileLayout::nz;
    break;
  }
  if (!layoutOk)
    return emitError() << (loc == TileLoc::acc ? "an " : "a ")
                       << stringifyTileLoc(loc) << " tile cannot be "
                       << stringifyTileLayout(layout);
  // Element types by location.
  if (loc == TileLoc::acc && !elementType.isF32() && !elementType.isInteger(32))
    return emitError() << "an acc tile holds f32 or i32, got " << elementType;
  if ((loc == TileLoc::left || loc == TileLoc::right || loc == TileLoc::mat) &&
      (elementType.isInteger(16) || elementType.isInteger(32)))
    return emitError() << "the cube's operands are i8, f16, bf16 or f32, got "
                       << elementType;
  // 32-byte storage units.
  auto [boxRows, boxCols] = fractalBox(loc, layout, bytes);
  if (boxRows == 1) {
    bool rowMajor = layout == TileLayout::row_major;
    int64_t inner = rowMajor ? shape[1] : shape[0];
    if (inner != kDynamic && (inner * bytes) % 32 != 0)
      return emitError() << "a " << stringifyTileLayout(layout) << " tile's "
                         << (rowMajor ? "rows" : "columns")
                         << " must be whole 32-byte blocks: "
                         << (rowMajor ? "cols" : "rows") << " x " << bytes
                         << " bytes = " << inner * bytes;
    return success();
  }
  if ((shape[0] != kDynamic && shape[0] % boxRows) ||
      (shape[1] != kDynamic && shape[1] % boxCols)) {
    std::string extent;
    llvm::raw_string_ostream os(extent);
    for (unsigned d = 0; d < 2; ++d)
      os << (shape[d] == kDynamic ? std::string("?") : std::to_string(shape[d]))
         << "x";
    os << elementType;
    return emitError() << (loc == TileLoc::acc ? "an " : "a ")
                       << stringifyTileLoc(loc) << " tile in "
                       << stringifyTileLayout(layout) << " layout is made of "
                       << boxRows << "x" << boxCols
                       << " fractal boxes: its extent must be a multiple of "
                       << boxRows << " rows and " << boxCols << " columns, got "
                       << extent;
  }
  return success();
}

/// `<` loc `,` dims `x` type (`,` `valid` `=` dims)? (`,` layout)? `>`
Type TileType::parse(AsmParser &parser) {
  SMLoc start = parser.getCurrentLocation();
  StringRef locName;
  SmallVector<int64_t> shape, valid;
  Type elementType;
  if (parser.parseLess() || parser.parseKeyword(&locName) ||
      parser.parseComma() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  std::optional<TileLoc> loc = symbolizeTileLoc(locName);
  if (!loc) {
    parser.emitError(start) << "unknown tile location '" << locName
                            << "'; expected vec, mat, left, right or acc";
    return {};
  }
  valid.assign(shape.begin(), shape.end());
  TileLayout layout = getDefaultLayout(*loc);
  bool seenValid = false, seenLayout = false;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc at = parser.getCurrentLocation();
    if (succeeded(parser.parseOptionalKeyword("valid"))) {
      if (seenValid) {
        parser.emitError(at) << "a tile type has one valid extent";
        return {};
      }
      seenValid = true;
      valid.clear();
      if (parser.parseEqual() ||
          parser.parseDimensionList(valid, /*allowDynamic=*/true,
                                    /*withTrailingX=*/false))
        return {};
      continue;
    }
    StringRef layoutName;
    if (parser.parseKeyword(&layoutName))
      return {};
    std::optional<TileLayout> l = symbolizeTileLayout(layoutName);
    if (!l) {
      parser.emitError(at) << "unknown tile layout '" << layoutName << "'";
      return {};
    }
    if (seenLayout) {
      parser.emitError(at) << "a tile type has one layout";
      return {};
    }
    seenLayout = true;
    layout = *l;
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(start); },
                    parser.getContext(), *loc, shape, elementType, valid,
                    layout);
}

static void printDims(AsmPrinter &printer, ArrayRef<int64_t> dims) {
  llvm::interleave(
      dims, printer,
      [&](int64_t d) {
        if (d == ShapedType::kDynamic)
          printer << "?";
        else
          printer << d;
      },
      "x");
}

void TileType::print(AsmPrinter &printer) const {
  printer << "<" << stringifyTileLoc(getLoc()) << ", ";
  printDims(printer, getShape());
  printer << "x" << getElementType();
  // With a `?` in the static extent the valid extent is always spelled out:
  // each `?` of it is an operand of its own.
  if (getValidShape() != getShape() || !hasStaticShape()) {
    printer << ", valid = ";
    printDims(printer, getValidShape());
  }
  if (getLayout() != getDefaultLayout(getLoc()))
    printer << ", " << stringifyTileLayout(getLayout());
  printer << ">";
}
