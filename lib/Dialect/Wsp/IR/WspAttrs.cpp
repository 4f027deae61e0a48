//===- WspAttrs.cpp - wsp attributes --------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspAttrs.h"
#include "wsp/Dialect/Wsp/IR/WspDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mlir::wsp;

#include "wsp/Dialect/Wsp/IR/WspEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "wsp/Dialect/Wsp/IR/WspAttrs.cpp.inc"

void WspDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "wsp/Dialect/Wsp/IR/WspAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TierAttr
//===----------------------------------------------------------------------===//

/// Spec §5.1.2: TierID in 0-255, MinSize > 0, MaxSize >= MinSize; sizes are
/// the runtime's `int`, so they must fit in 32 bits.
LogicalResult TierAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t id, int64_t minSize, int64_t maxSize) {
  if (id < 0 || id > 255)
    return emitError() << "tier id must be in [0, 255], got " << id;
  if (minSize <= 0)
    return emitError() << "tier " << id << ": min size must be > 0, got "
                       << minSize;
  if (maxSize > std::numeric_limits<int32_t>::max())
    return emitError() << "tier " << id
                       << ": max size must fit the runtime's 32-bit int, got "
                       << maxSize;
  if (maxSize < minSize)
    return emitError() << "tier " << id << ": max size " << maxSize
                       << " is less than min size " << minSize;
  return success();
}

//===----------------------------------------------------------------------===//
// PatternAttr
//===----------------------------------------------------------------------===//

namespace {
/// The spec's two patterns (§4.2): the one place their parameters are named.
struct BuiltinPattern {
  StringLiteral name;
  StringLiteral params[4];
};
constexpr BuiltinPattern kBuiltinPatterns[] = {
    {"attention", {"request_idx", "head_idx", "kv_start", "kv_len"}},
    {"moe", {"batch_idx", "expert_idx", "token_start", "token_count"}},
};
const BuiltinPattern *lookupBuiltin(StringRef name) {
  for (const BuiltinPattern &p : kBuiltinPatterns)
    if (p.name == name)
      return &p;
  return nullptr;
}
} // namespace

PatternAttr PatternAttr::get(MLIRContext *context, StringRef name,
                             ArrayRef<StringRef> params) {
  SmallVector<StringAttr> names = llvm::map_to_vector(
      params, [&](StringRef p) { return StringAttr::get(context, p); });
  return get(context, StringAttr::get(context, name), names);
}

static PatternAttr getBuiltin(MLIRContext *context, StringRef name) {
  const BuiltinPattern *p = lookupBuiltin(name);
  SmallVector<StringRef> params(std::begin(p->params), std::end(p->params));
  return PatternAttr::get(context, name, params);
}

PatternAttr PatternAttr::getAttention(MLIRContext *context) {
  return getBuiltin(context, "attention");
}
PatternAttr PatternAttr::getMoE(MLIRContext *context) {
  return getBuiltin(context, "moe");
}

std::optional<unsigned> PatternAttr::getParamIndex(StringRef param) const {
  for (auto [i, name] : llvm::enumerate(getParams()))
    if (name.getValue() == param)
      return i;
  return std::nullopt;
}

LogicalResult PatternAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  StringAttr name,
                                  ArrayRef<StringAttr> params) {
  if (!name || name.getValue().empty())
    return emitError() << "pattern name must not be empty";
  if (params.empty() || params.size() > 4)
    return emitError() << "pattern '" << name.getValue()
                       << "' must name 1 to 4 params, got " << params.size();
  llvm::StringSet<> seen;
  for (StringAttr p : params) {
    if (!p || p.getValue().empty())
      return emitError() << "pattern '" << name.getValue()
                         << "': param names must not be empty";
    if (!seen.insert(p.getValue()).second)
      return emitError() << "pattern '" << name.getValue() << "': param '"
                         << p.getValue() << "' is repeated";
  }
  if (const BuiltinPattern *builtin = lookupBuiltin(name.getValue())) {
    bool same = params.size() == 4;
    for (unsigned i = 0; same && i < 4; ++i)
      same = params[i].getValue() == builtin->params[i];
    if (!same)
      return emitError() << "pattern name '" << name.getValue()
                         << "' is reserved for the spec's ("
                         << builtin->params[0] << ", " << builtin->params[1]
                         << ", " << builtin->params[2] << ", "
                         << builtin->params[3] << ")";
  }
  return success();
}

void PatternAttr::printInner(AsmPrinter &printer) const {
  if (lookupBuiltin(getName().getValue())) {
    printer << getName().getValue();
    return;
  }
  printer << getName() << ", [";
  llvm::interleaveComma(getParams(), printer,
                        [&](StringAttr p) { printer << p; });
  printer << "]";
}

PatternAttr PatternAttr::parseInner(AsmParser &parser) {
  MLIRContext *context = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (succeeded(parser.parseOptionalKeyword(&keyword))) {
    if (!lookupBuiltin(keyword)) {
      parser.emitError(loc) << "unknown pattern '" << keyword
                            << "'; expected 'attention', 'moe' or "
                               "\"name\", [params]";
      return {};
    }
    return getBuiltin(context, keyword);
  }
  std::string name;
  if (parser.parseString(&name) || parser.parseComma())
    return {};
  SmallVector<StringAttr> params;
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            std::string param;
            if (parser.parseString(&param))
              return failure();
            params.push_back(StringAttr::get(context, param));
            return success();
          }))
    return {};
  return PatternAttr::getChecked([&] { return parser.emitError(loc); }, context,
                                 StringAttr::get(context, name), params);
}

Attribute PatternAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  PatternAttr pattern = parseInner(parser);
  if (!pattern || parser.parseGreater())
    return {};
  return pattern;
}

void PatternAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printInner(printer);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// PlanConfigAttr
//===----------------------------------------------------------------------===//

/// Spec §6.2.1.
LogicalResult
PlanConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       PlanStrategy, int64_t chunkMin, int64_t chunkMax,
                       int64_t maxWorkUnits, bool, int64_t cores,
                       int64_t blockSize, int64_t unitCost, int64_t tokenCost,
                       int64_t mergeCost, bool, int64_t invariantChunk) {
  constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
  if (chunkMin <= 0)
    return emitError() << "chunk_min must be > 0, got " << chunkMin;
  if (chunkMax < chunkMin)
    return emitError() << "chunk_max (" << chunkMax
                       << ") must be >= chunk_min (" << chunkMin << ")";
  if (maxWorkUnits <= 0)
    return emitError() << "max_work_units must be > 0, got " << maxWorkUnits;
  for (auto [name, value] : {std::pair<const char *, int64_t>{"cores", cores},
                             {"block_size", blockSize},
                             {"token_cost", tokenCost},
                             {"invariant_chunk", invariantChunk}})
    if (value <= 0)
      return emitError() << name << " must be > 0, got " << value;
  for (auto [name, value] :
       {std::pair<const char *, int64_t>{"unit_cost", unitCost},
        {"merge_cost", mergeCost}})
    if (value < 0)
      return emitError() << name << " must be >= 0, got " << value;
  if (chunkMax > kIntMax || maxWorkUnits > kIntMax || cores > kIntMax ||
      blockSize > kIntMax || invariantChunk > kIntMax || unitCost > kIntMax ||
      tokenCost > kIntMax || mergeCost > kIntMax)
    return emitError() << "plan config values must fit the runtime's 32-bit "
                          "int";
  return success();
}

LogicalResult PatchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                StepPatchKind kind, int64_t arg,
                                std::optional<int64_t> arg2) {
  if (arg < 0)
    return emitError() << "patch argument index must be >= 0, got " << arg;
  const bool pair = kind == StepPatchKind::pos_and_kv;
  if (pair != arg2.has_value())
    return emitError() << "a " << stringifyStepPatchKind(kind) << " patch "
                       << (pair ? "names two arguments (position, KV length)"
                                : "names one argument");
  if (arg2 && *arg2 < 0)
    return emitError() << "patch argument index must be >= 0, got " << *arg2;
  if (arg2 && *arg2 == arg)
    return emitError() << "pos_and_kv writes the position and the KV length "
                          "to two arguments, not argument "
                       << arg << " twice";
  return success();
}
