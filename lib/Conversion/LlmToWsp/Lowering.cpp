//===- Lowering.cpp - the kernel families' shared lowering API ------------===//
//
// Parameters and their instantiation, the registry, and the helpers more
// than one family uses.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Support/Layouts.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <pto/runtime/hardware.hpp>

#include <algorithm>

using namespace mlir;
using namespace mlir::wsp;
using namespace mlir::wsp::lowering;

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

/// The keys that only pieces built in C++ name (no fragment does): with
/// kFragmentKeys, the keys a lowering may give.
static constexpr StringLiteral kPieceKeys[] = {
    "EXPERTS_TOKENS_COUNT_TYPE", "KEY_SCALE_TYPE", "VALUE_SCALE_TYPE"};

static bool isDeclared(StringRef key) {
  // (The generated keys are sorted.)
  return std::binary_search(std::begin(kFragmentKeys), std::end(kFragmentKeys),
                            key) ||
         llvm::is_contained(kPieceKeys, key);
}

void Params::set(const std::string &key, Type type) { values[key] = str(type); }
void Params::set(const std::string &key, Attribute attr) {
  values[key] = str(attr);
}
void Params::set(const std::string &key, int64_t number) {
  values[key] = std::to_string(number);
}

void Params::setDefaults(
    std::initializer_list<std::pair<const std::string, std::string>> defaults) {
  values.insert(defaults);
}

void Params::setDerived(const std::string &key, std::string value) {
  values[key] = std::move(value);
  derived.insert(key);
}

std::string lowering::fillKeys(StringRef text, const Params &values) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    size_t at = text.find("${");
    size_t end = at == StringRef::npos ? at : text.find('}', at);
    if (end == StringRef::npos) {
      out += text;
      break;
    }
    auto it = values.all().find(text.slice(at + 2, end).str());
    if (it == values.all().end()) {
      out += text.take_front(end + 1);
    } else {
      out += text.take_front(at);
      out += it->second;
    }
    text = text.drop_front(end + 1);
  }
  return out;
}

/// The keys every fragment may name without a lowering giving them: the
/// plan result codes, `${PLAN_<CODE>}` (PLAN_OK, PLAN_INVALID_PARAMS, ...),
/// from their one home, the dialect's PlanResult enum.
static std::optional<std::string> builtinValue(StringRef key) {
  if (!key.consume_front("PLAN_"))
    return std::nullopt;
  for (uint32_t code = 0; code <= getMaxEnumValForPlanResult(); ++code)
    if (std::optional<PlanResult> result = symbolizePlanResult(code);
        result && stringifyPlanResult(*result).upper() == key)
      return std::to_string(code);
  return std::nullopt;
}

namespace {
/// Expands a text's keys, and their values' keys in turn, into `out`.
struct Expander {
  const Params &values;
  /// The keys whose values are being expanded, outermost first.
  SmallVector<StringRef> within;
  std::string error;

  bool expand(StringRef text, std::string &out) {
    while (!text.empty()) {
      size_t at = text.find("${");
      if (at == StringRef::npos) {
        out += text;
        return true;
      }
      out += text.take_front(at);
      text = text.drop_front(at);
      size_t end = text.find('}');
      if (end == StringRef::npos)
        return fail("an unterminated '${' in " + context());
      StringRef key = text.slice(2, end);
      auto it = values.all().find(key.str());
      if (it == values.all().end()) {
        std::optional<std::string> builtin = builtinValue(key);
        if (!builtin)
          return fail("no value for ${" + key.str() + "} in " + context());
        out += *builtin;
        text = text.drop_front(end + 1);
        continue;
      }
      if (llvm::is_contained(within, key))
        return fail("the value of ${" + key.str() + "} contains itself");
      within.push_back(it->first);
      if (!expand(it->second, out))
        return false;
      within.pop_back();
      text = text.drop_front(end + 1);
    }
    return true;
  }

  std::string context() const {
    return within.empty() ? std::string("a fragment")
                          : "the value of ${" + within.back().str() + "}";
  }
  bool fail(std::string message) {
    error = std::move(message);
    return false;
  }
};
} // namespace

FailureOr<Lowered> lowering::instantiate(Operation *op, const Params &values,
                                         StringRef planner, StringRef kernel,
                                         SmallVector<NamedOperand> args) {
  for (const auto &[key, value] : values.all()) {
    if (builtinValue(key))
      return op->emitOpError("cannot lower: a value for ${")
             << key
             << "}, which the dialect's PlanResult gives (a bug in "
                "convert-llm-to-wsp)";
    if (!values.isDerived(key) && !isDeclared(key))
      return op->emitOpError("cannot lower: a value for ${")
             << key
             << "}, which no fragment declares (a bug in convert-llm-to-wsp)";
  }
  Expander expander{values, {}, {}};
  std::string text;
  if (!expander.expand(planner, text) || !expander.expand(kernel, text))
    return op->emitOpError("cannot lower: ")
           << expander.error << " (a bug in convert-llm-to-wsp)";
  return Lowered{std::move(text), std::move(args)};
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

FailureOr<Lowered> LoweringRegistry::lower(Operation *op, StringRef name,
                                           int64_t cores) const {
  auto it = lowerings.find(op->getName().getTypeID());
  if (it == lowerings.end())
    return op->emitOpError(
        "has no lowering to a wsp workload yet (see "
        "docs/rationale/Operators.md for the ops that lower)");
  return it->second(op, name, cores);
}

//===----------------------------------------------------------------------===//
// Helpers the families share
//===----------------------------------------------------------------------===//

std::string lowering::str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string lowering::str(Attribute a) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << a;
  return s;
}

std::string lowering::signature(ArrayRef<NamedOperand> args) {
  return llvm::join(llvm::map_range(args,
                                    [](const NamedOperand &a) {
                                      return "%" + a.name + ": " +
                                             str(a.getType());
                                    }),
                    ", ");
}

std::string lowering::callArgs(ArrayRef<NamedOperand> args) {
  return llvm::join(
             llvm::map_range(
                 args, [](const NamedOperand &a) { return "%" + a.name; }),
             ", ") +
         " : " +
         llvm::join(
             llvm::map_range(
                 args, [](const NamedOperand &a) { return str(a.getType()); }),
             ", ");
}

std::string lowering::checks(ArrayRef<NamedOperand> args,
                             ArrayRef<DimCheck> wanted, StringRef result) {
  SmallVector<DimCheck> dims;
  for (const DimCheck &d : wanted) {
    const NamedOperand *arg = llvm::find_if(
        args, [&](const NamedOperand &a) { return a.name == d.name; });
    if (arg->value != args.front().value)
      dims.push_back(d);
  }
  if (dims.empty())
    return fillKeys(kNoDimChecks, {{"CHECK_RESULT", result.str()}});
  // Check n sets %same_n (the result itself when it is the only one) and
  // folds it into %all_n (the result, for the last).
  std::string out, all;
  for (auto [n, d] : llvm::enumerate(dims)) {
    const NamedOperand *arg = llvm::find_if(
        args, [&](const NamedOperand &a) { return a.name == d.name; });
    std::string i = std::to_string(n);
    bool last = n + 1 == dims.size();
    std::string same = last && n == 0 ? result.str() : "%same_" + i;
    out += fillKeys(kDimCheck, {{"CHECK_NUM", i},
                                {"CHECK_OPERAND", d.name},
                                {"CHECK_DIM", std::to_string(d.dim)},
                                {"CHECK_TYPE", str(arg->getType())},
                                {"CHECK_SAME", same},
                                {"CHECK_EXPECT", d.expect}});
    if (n == 0) {
      all = same;
      continue;
    }
    std::string next = last ? result.str() : "%all_" + i;
    out += fillKeys(
        kDimChecksAnd,
        {{"CHECK_RESULT", next}, {"CHECK_ALL", all}, {"CHECK_SAME", same}});
    all = next;
  }
  return out;
}

std::string lowering::checksAnd(ArrayRef<NamedOperand> args,
                                ArrayRef<DimCheck> wanted, StringRef also) {
  return checks(args, wanted, "%dims_ok") +
         fillKeys(kShapesOkAnd, {{"ALSO_OK", also.str()}});
}

int64_t lowering::largestDivisor(int64_t total, int64_t most, int64_t step) {
  for (int64_t t = std::min(total, most); t >= step; t -= step)
    if (total % t == 0)
      return t;
  return 0;
}

int64_t lowering::roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

FailureOr<int64_t> lowering::rowChunk(Operation *op, int64_t hidden,
                                      int64_t align, int64_t maxCols) {
  if (ShapedType::isDynamic(hidden))
    return op->emitOpError("lowers with a static hidden_size only: its tiles "
                           "are sized at compile time");
  if (hidden % align)
    return op->emitOpError("lowers with hidden_size a multiple of ")
           << align << " (" << (align == 16 ? "a bf16" : "an int8")
           << " tile row is whole 32-byte blocks), got " << hidden;
  if (int64_t cols = largestDivisor(hidden, maxCols, align))
    return cols;
  return op->emitOpError("found no column chunk for hidden_size ") << hidden;
}

FailureOr<int64_t> lowering::rowChunk(Operation *op, Value hiddenStates,
                                      int64_t align, int64_t maxCols) {
  return rowChunk(op, cast<MemRefType>(hiddenStates.getType()).getDimSize(1),
                  align, maxCols);
}

LogicalResult lowering::requireIdentityLayouts(Operation *op,
                                               ArrayRef<NamedOperand> args) {
  for (const NamedOperand &a : args)
    if (!isContiguousRowMajor(cast<MemRefType>(a.value.getType())))
      return op->emitOpError("lowers with row-major buffers only; '")
             << a.name << "' is a strided view " << a.value.getType();
  return success();
}

void lowering::addTypeValues(Params &v, ArrayRef<NamedOperand> args) {
  for (const NamedOperand &a : args)
    v.setDerived(StringRef(a.name).upper() + "_TYPE", str(a.getType()));
}

std::string lowering::planConfig(StringRef chunkMin, StringRef units,
                                 bool balanced) {
  return fillKeys(balanced ? kPlanConfig : kUnbalancedPlanConfig,
                  {{"CHUNK_MIN", chunkMin.str()}, {"MAX_UNITS", units.str()}});
}

void lowering::addPlanValues(Params &v, StringRef name,
                             ArrayRef<NamedOperand> args, int64_t cores) {
  // An op may set its own rows per unit (the plan's chunk_min) and units.
  std::string r = v.has("ROWS") ? v.get("ROWS") : std::to_string(kRows);
  std::string units = v.has("UNITS") ? v.get("UNITS") : std::to_string(cores);
  v.setDefaults({{"NAME", name.str()},
                 {"SIGNATURE", signature(args)},
                 {"CALL_ARGS", callArgs(args)},
                 {"TOKENS_DEF",
                  fillKeys(kTokensDef, {{"TOKENS_OF", args.front().name},
                                        {"TOKENS_OF_TYPE",
                                         str(args.front().value.getType())}})},
                 {"UNITS", units},
                 {"TIERS", kOneTier.str()},
                 {"CORES", "vector(" + units + ")"},
                 {"HEADS", "%c1"},
                 {"PLAN_CONSTANTS", kHiddenConstant.str()},
                 {"ROUND_CHUNK", kWholeChunks.str()},
                 {"ROWS", r},
                 {"UNIT_ROWS", kUnitRows.str()},
                 {"CONFIG", planConfig(r, units)}});
}

std::string lowering::tileType(StringRef loc, StringRef rows, StringRef cols,
                               StringRef elem, bool zn, StringRef validCols) {
  const bool part = !validCols.empty() && validCols != cols;
  assert(!(part && zn) && "a zn tile with fewer valid columns");
  return fillKeys(part ? kTileTypeValidCols
                  : zn ? kTileTypeZn
                       : kTileType,
                  {{"TILE_LOC", loc.str()},
                   {"TILE_ROWS", rows.str()},
                   {"TILE_COLS", cols.str()},
                   {"TILE_ELEM", elem.str()},
                   {"TILE_VALID_COLS", validCols.str()}});
}

std::string lowering::rowsTileType(StringRef loc, StringRef rows,
                                   StringRef cols, StringRef elem, bool zn,
                                   StringRef validCols) {
  return fillKeys(
      zn ? kRowsTileTypeZn : kRowsTileType,
      {{"TILE_LOC", loc.str()},
       {"TILE_ROWS", rows.str()},
       {"TILE_COLS", cols.str()},
       {"TILE_ELEM", elem.str()},
       {"TILE_VALID_COLS", validCols.empty() ? cols.str() : validCols.str()}});
}

std::string lowering::rowStatType(StringRef rows, StringRef elem) {
  return fillKeys(kRowStatType,
                  {{"TILE_ROWS", rows.str()}, {"TILE_ELEM", elem.str()}});
}

void lowering::addTileValues(Params &v, int64_t cols, int64_t rows) {
  std::string c = std::to_string(cols), r = std::to_string(rows);
  v.setDefaults(
      {{"COLS", c},
       {"BF16_TILE", rowsTileType("vec", r, c, "bf16")},
       {"F32_TILE", rowsTileType("vec", r, c, "f32")},
       {"I8_TILE", rowsTileType("vec", r, c, "i8")},
       {"I16_TILE", rowsTileType("vec", r, c, "i16")},
       {"F16_TILE", rowsTileType("vec", r, c, "f16")},
       {"F16_PAIR", tileType("vec", std::to_string(2 * rows), c, "f16")},
       {"I16_PAIR", tileType("vec", std::to_string(2 * rows), c, "i16")},
       {"BF16_PAIR", tileType("vec", std::to_string(2 * rows), c, "bf16")},
       {"ROW_STAT", rowStatType(r)},
       {"STAT_ROW", tileType("vec", "1", r, "f32")},
       {"VEC_F32", tileType("vec", "1", c, "f32")},
       {"VEC_BF16", tileType("vec", "1", c, "bf16")}});
}

void lowering::addQuantValues(Params &v, bool rowKept) {
  v["QUANT_INPUT_AGAIN"] = rowKept ? kQuantInputKept : "${QUANT_INPUT}";
  v["QUANT_TILES"] = rowKept ? kQuantTilesInSquares : kQuantTiles;
}

int64_t lowering::headTileRows(int64_t heads, int64_t bytesPerRow) {
  const int64_t fit = pto::runtime::kUbBytes / 2 / bytesPerRow / kRows * kRows;
  const int64_t all = (heads + kRows - 1) / kRows * kRows;
  return std::max(kRows, std::min(all, fit));
}

/// Whether a dynamic leading size of `view` is its source's whole: the
/// source a whole buffer (what the head ranges of a packed QKV are views
/// of), or a view made with that same size (a KV-sharded rank's rows).
static bool coversLeadingSize(memref::SubViewOp view, OpFoldResult size) {
  Value source = view.getSource();
  if (cast<MemRefType>(source.getType()).getLayout().isIdentity())
    return true;
  if (auto rows = source.getDefiningOp<memref::SubViewOp>())
    return rows.getMixedSizes()[0] == size;
  if (auto expanded = source.getDefiningOp<memref::ExpandShapeOp>())
    return expanded.getMixedOutputShape()[0] == size;
  return false;
}

std::pair<Value, int64_t> lowering::headRangeOf(Value v) {
  auto view = v.getDefiningOp<memref::SubViewOp>();
  // The source: a whole buffer, or a contiguous range of its rows (a
  // KV-sharded rank's tokens).
  if (!view || !isContiguousRowMajor(view.getSourceType()) ||
      view.getSourceType().getRank() != view.getType().getRank())
    return {v, 0};
  int64_t rank = view.getType().getRank();
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<int64_t> stride =
        getConstantIntValue(view.getMixedStrides()[d]);
    std::optional<int64_t> offset =
        getConstantIntValue(view.getMixedOffsets()[d]);
    if (!stride || *stride != 1 || !offset || (d != rank - 2 && *offset != 0))
      return {v, 0};
    if (d == rank - 2)
      continue;
    int64_t whole = view.getSourceType().getDimSize(d);
    OpFoldResult size = view.getMixedSizes()[d];
    if (std::optional<int64_t> known = getConstantIntValue(size)) {
      if (*known != whole)
        return {v, 0};
      continue;
    }
    if (!ShapedType::isDynamic(whole) || !coversLeadingSize(view, size))
      return {v, 0};
  }
  return {view.getSource(),
          *getConstantIntValue(view.getMixedOffsets()[rank - 2])};
}
