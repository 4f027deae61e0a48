//===- WspTypes.cpp - wsp types -------------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspTypes.h"
#include "wsp/Dialect/Wsp/IR/WspDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::wsp;

#define GET_TYPEDEF_CLASSES
#include "wsp/Dialect/Wsp/IR/WspTypes.cpp.inc"

void WspDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "wsp/Dialect/Wsp/IR/WspTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// DescriptorType
//===----------------------------------------------------------------------===//

Type DescriptorType::parse(AsmParser &parser) {
  if (parser.parseLess())
    return {};
  PatternAttr pattern = PatternAttr::parseInner(parser);
  if (!pattern || parser.parseGreater())
    return {};
  return DescriptorType::get(parser.getContext(), pattern);
}

void DescriptorType::print(AsmPrinter &printer) const {
  printer << "<";
  getPattern().printInner(printer);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// SpaceType
//===----------------------------------------------------------------------===//

unsigned SpaceType::getNumDynamicDims() const {
  return llvm::count(getSizes(), kDynamic);
}

unsigned SpaceType::getDynamicDimIndex(unsigned i) const {
  return llvm::count(getSizes().take_front(i), kDynamic);
}

LogicalResult SpaceType::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<int64_t> sizes,
                                ArrayRef<StringAttr> names) {
  if (names.size() != sizes.size())
    return emitError() << "space has " << sizes.size() << " sizes but "
                       << names.size() << " names";
  llvm::StringSet<> seen;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    if (size < 0 && size != kDynamic)
      return emitError() << "dimension " << i
                         << " must be >= 0 or dynamic ('?'), got " << size;
    if (size > std::numeric_limits<int32_t>::max())
      return emitError() << "dimension " << i
                         << " must fit the runtime's 32-bit int";
    StringRef name = names[i] ? names[i].getValue() : "";
    if (!name.empty() && !seen.insert(name).second)
      return emitError() << "dimension name '" << name << "' is repeated";
  }
  return success();
}

/// `<` (name `:`)? (`?` | int) (`,` ...)* `>`
Type SpaceType::parse(AsmParser &parser) {
  MLIRContext *context = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> sizes;
  SmallVector<StringAttr> names;
  auto parseDim = [&]() -> ParseResult {
    StringRef name;
    if (succeeded(parser.parseOptionalKeyword(&name))) {
      if (parser.parseColon())
        return failure();
    }
    names.push_back(StringAttr::get(context, name));
    if (succeeded(parser.parseOptionalQuestion())) {
      sizes.push_back(kDynamic);
      return success();
    }
    int64_t size = 0;
    if (parser.parseInteger(size))
      return failure();
    sizes.push_back(size);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseDim))
    return {};
  return getChecked([&] { return parser.emitError(loc); }, context, sizes,
                    names);
}

void SpaceType::print(AsmPrinter &printer) const {
  printer << "<";
  for (unsigned i = 0, e = getRank(); i < e; ++i) {
    if (i)
      printer << ", ";
    if (!getNames()[i].getValue().empty())
      printer << getNames()[i].getValue() << ": ";
    if (isDynamicDim(i))
      printer << "?";
    else
      printer << getSizes()[i];
  }
  printer << ">";
}
