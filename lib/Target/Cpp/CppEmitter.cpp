//===- CppEmitter.cpp - the printer core ----------------------------------===//

#include "CppEmitter.h"

#include "wsp/Support/Layouts.h"
#include "wsp/Support/SourceNames.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::wsp::cpp;

/// Identifiers a source name never becomes as it is: C++'s keywords and
/// what the emitted code itself declares or calls inside functions.
static bool isReservedIdentifier(llvm::StringRef s) {
  static const llvm::StringSet<> words = {
      // C++ keywords and literals.
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char16_t", "char32_t",
      "char8_t", "class", "compl", "concept", "const", "consteval",
      "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do",
      "double", "dynamic_cast", "else", "enum", "explicit", "export",
      "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "mutable", "namespace", "new", "noexcept", "not",
      "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected",
      "public", "register", "reinterpret_cast", "requires", "return",
      "short", "signed", "sizeof", "static", "static_assert", "static_cast",
      "struct", "switch", "template", "this", "thread_local", "throw",
      "true", "try", "typedef", "typeid", "typename", "union", "unsigned",
      "using", "virtual", "void", "volatile", "wchar_t", "while", "xor",
      "xor_eq", "main", "NULL",
      // The emitted code's own names in function bodies and scope.
      "count", "core", "cores", "begin", "end", "step", "i", "sizes", "data",
      "args", "desc", "descs", "status", "tl", "std", "pto", "wsp_gen",
      "MemRef", "bf16", "f16", "to_runtime_int", "maximumf", "minimumf",
      "AICORE", "AICPU", "__gm__"};
  if (words.contains(s) || s.starts_with("_") || s.starts_with("g_") ||
      s.starts_with("wsp_") || s.ends_with("_storage"))
    return true;
  // The numbered names: a<i>, v<i>, t<i>.
  return s.size() > 1 && (s[0] == 'a' || s[0] == 'v' || s[0] == 't') &&
         llvm::all_of(s.drop_front(), llvm::isDigit);
}

std::string Emitter::fromHint(llvm::StringRef hint) {
  std::string id;
  for (char c : hint)
    id += llvm::isAlnum(c) || c == '_' ? c : '_';
  if (id.empty() || llvm::isDigit(id.front()))
    return "";
  if (isReservedIdentifier(id) || reserved.contains(id) || used.contains(id)) {
    // Taken: the name with a number no other value has.
    std::string numbered;
    do
      numbered = id + "_" + std::to_string(nextValue++);
    while (used.contains(numbered) || reserved.contains(numbered));
    id = numbered;
  }
  used.insert(id);
  return id;
}

/// The source name a value carries (wsp/Support/SourceNames.h).
static llvm::StringRef sourceNameOf(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return wsp::getSourceName(arg.getLoc());
  Operation *def = v.getDefiningOp();
  return def->getNumResults() == 1 ? wsp::getSourceName(def->getLoc()) : "";
}

std::string Emitter::name(Value v) {
  auto it = names.find(v);
  if (it != names.end())
    return it->second;
  std::string fresh = fromHint(sourceNameOf(v));
  if (fresh.empty())
    fresh = "v" + std::to_string(nextValue++);
  names[v] = fresh;
  return fresh;
}

std::string Emitter::argName(BlockArgument arg, unsigned i) {
  std::string n = fromHint(sourceNameOf(arg));
  if (n.empty())
    n = "a" + std::to_string(i);
  setName(arg, n);
  return n;
}

void Emitter::startNames() {
  nextValue = 0;
  used.clear();
}

LogicalResult Emitter::beginFunction(Region &body) {
  for (Prologue &p : prologues)
    if (failed(p(body, *this)))
      return failure();
  return success();
}

FailureOr<std::string> Emitter::scalarType(Type t, Operation *at) {
  for (TypePrinter &p : typePrinters)
    if (std::optional<FailureOr<std::string>> printed = p(t, at))
      return *printed;
  if (isa<IndexType>(t))
    return std::string("int64_t");
  if (auto i = dyn_cast<IntegerType>(t)) {
    switch (i.getWidth()) {
    case 1:
      return std::string("bool");
    case 8:
      return std::string("int8_t");
    case 16:
      return std::string("int16_t");
    case 32:
      return std::string("int32_t");
    case 64:
      return std::string("int64_t");
    }
  }
  if (t.isF32())
    return std::string("float");
  if (t.isF64())
    return std::string("double");
  if (t.isBF16())
    return std::string("bf16");
  if (t.isF16())
    return std::string("f16");
  return at->emitOpError() << "has type " << t
                           << ", which the C++ emitter cannot print";
}

FailureOr<std::string> Emitter::type(Type t, Operation *at) {
  if (auto m = dyn_cast<MemRefType>(t)) {
    FailureOr<std::string> element = scalarType(m.getElementType(), at);
    if (failed(element))
      return failure();
    // Row-major data and sizes: contiguous views print as their buffer's.
    if (!isContiguousRowMajor(m))
      return at->emitOpError() << "has non-contiguous layout " << m
                               << ", which the C++ emitter cannot print";
    return llvm::formatv("MemRef<{0}, {1}>", *element, m.getRank()).str();
  }
  return scalarType(t, at);
}

std::string Emitter::constant(Attribute value, Type type) {
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    if (type.isInteger(1))
      return i.getValue().isZero() ? "false" : "true";
    int64_t v = isa<IndexType>(type) ? i.getInt() : i.getValue().getSExtValue();
    if (v == std::numeric_limits<int64_t>::min())
      return "std::numeric_limits<int64_t>::min()";
    std::string text = std::to_string(v);
    return type.isInteger(64) || isa<IndexType>(type) ? "int64_t(" + text + ")"
                                                      : text;
  }
  auto f = cast<FloatAttr>(value);
  double d = f.getValueAsDouble();
  // bf16 and f16 are 16-bit structs, made from a float (exactly: every
  // value they hold is a float).
  if (type.isBF16() || type.isF16())
    return std::string(type.isBF16() ? "f32_to_bf16_storage("
                                     : "f32_to_f16(") +
           constant(FloatAttr::get(Float32Type::get(type.getContext()), d),
                    Float32Type::get(type.getContext())) +
           ")";
  std::string suffix = type.isF32() ? "f" : "";
  std::string cType = type.isF32() ? "float" : "double";
  if (std::isnan(d))
    return "std::numeric_limits<" + cType + ">::quiet_NaN()";
  if (std::isinf(d))
    return std::string(d < 0 ? "-" : "") + "std::numeric_limits<" + cType +
           ">::infinity()";
  // Hex floats are exact.
  char text[64];
  std::snprintf(text, sizeof text, "%a", d);
  return std::string(text) + suffix;
}

LogicalResult Emitter::declare(Value v, StringRef init) {
  FailureOr<std::string> t =
      type(v.getType(), v.getDefiningOp() ? v.getDefiningOp()
                                          : v.getParentBlock()->getParentOp());
  if (failed(t))
    return failure();
  if (v.use_empty())
    os << "[[maybe_unused]] ";
  os << *t << " " << name(v) << " = " << init << ";\n";
  return success();
}

LogicalResult Emitter::declareResult(Value v, Operation *op) {
  FailureOr<std::string> t = type(v.getType(), op);
  if (failed(t))
    return failure();
  if (v.use_empty())
    os << "[[maybe_unused]] ";
  os << *t << " " << name(v) << "{};\n";
  return success();
}

LogicalResult Emitter::assign(ValueRange to, ValueRange from) {
  // Through temporaries: a yield may read what it overwrites.
  if (to.size() == 1) {
    if (name(to[0]) != name(from[0])) // a value carried unchanged
      os << name(to[0]) << " = " << name(from[0]) << ";\n";
    return success();
  }
  os << "{\n";
  os.indent();
  for (auto [i, v] : llvm::enumerate(from))
    os << "auto t" << i << " = " << name(v) << ";\n";
  for (auto [i, v] : llvm::enumerate(to))
    os << name(v) << " = t" << i << ";\n";
  os.unindent();
  os << "}\n";
  return success();
}

std::string Emitter::offset(Value memref, ValueRange indices) {
  std::string m = name(memref), expr;
  for (auto [d, index] : llvm::enumerate(indices)) {
    if (d == 0)
      expr = name(index);
    else
      expr =
          llvm::formatv("({0}) * {1}.sizes[{2}] + {3}", expr, m, d, name(index))
              .str();
  }
  return expr.empty() ? "0" : expr;
}

std::string Emitter::join(ValueRange values) {
  return llvm::join(llvm::map_range(values, [&](Value v) { return name(v); }),
                    ", ");
}

LogicalResult Emitter::emitBlock(Block &block) {
  for (Operation &op : block)
    if (failed(emitOp(op)))
      return failure();
  return success();
}

LogicalResult Emitter::emitOps(Block &block) {
  for (Operation &inner : block.without_terminator())
    if (failed(emitOp(inner)))
      return failure();
  return success();
}

LogicalResult Emitter::emitOp(Operation &op) {
  if (printed.contains(&op))
    return success();
  for (auto &[attr, pattern] : attributePatterns)
    if (op.hasAttr(attr))
      return pattern(&op, *this);
  return emitOpItself(op);
}

LogicalResult Emitter::emitOpItself(Operation &op) {
  auto it = patterns.find(op.getName().getTypeID());
  if (it == patterns.end())
    return emitNotAccepted(&op);
  return it->second(&op, *this);
}

LogicalResult mlir::wsp::cpp::emitNotAccepted(Operation *op) {
  return op->emitOpError("cannot be emitted as C++ (run the wsp-pipeline "
                         "first; the emitter prints what wsp-check-emittable "
                         "accepts)");
}
