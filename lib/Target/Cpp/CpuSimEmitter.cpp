//===- CpuSimEmitter.cpp - the pipeline's output as CPU-simulation C++ ----===//
//
// A read-only printer: it walks verified, planned and tier-specialized IR
// (what wsp-check-emittable accepts) and prints one C++17 source against
// pto::runtime. Values get stable names (arguments a<i>, results v<i> in
// program order); comments name the op each construct comes from. Output is
// rendered into a buffer and written only when the whole module printed, so
// an unsupported op leaves nothing behind.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdio>
#include <string>

using namespace mlir;
using namespace mlir::wsp;

namespace {

/// The fixed part of every emitted source: memref views and bf16.
constexpr const char *kPrelude = R"cpp(#include <pto/runtime/runtime.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace wsp_gen {

/// A row-major view of a memref: the data and the size of each dimension.
template <typename T, int Rank>
struct MemRef {
  __gm__ T *data;
  int64_t sizes[Rank];
};

/// bf16 is stored as its 16 bits and computed in fp32.
struct bf16 {
  uint16_t bits;
};
inline float bf16_to_f32(bf16 x) {
  uint32_t u = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline bf16 f32_to_bf16(float f) { // round to nearest even; NaN stays NaN
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return bf16{static_cast<uint16_t>((u >> 16) | 0x40u)};
  u += 0x7fffu + ((u >> 16) & 1u);
  return bf16{static_cast<uint16_t>(u >> 16)};
}
/// arith.maximumf: NaN if either operand is NaN.
inline float maximumf(float a, float b) {
  return (a != a || b != b) ? std::numeric_limits<float>::quiet_NaN()
                            : (a > b ? a : b);
}
/// A size as the runtime's int, saturated at INT32_MAX.
inline int to_runtime_int(int64_t n) {
  return n > INT32_MAX ? INT32_MAX : static_cast<int>(n);
}

)cpp";

/// What one emitted file is: the CPU-simulation program, or one of the
/// three device files (ABI header, AICPU planning source, AICore kernels).
enum class Flavor { CpuSim, Abi, Aicpu, Aicore };

class Emitter {
public:
  Emitter(raw_ostream &os, Flavor flavor, StringRef stem)
      : os(os), flavor(flavor), stem(stem.str()) {}

  LogicalResult emitModule(ModuleOp module);

private:
  // Names and types.
  std::string name(Value v) {
    auto it = names.find(v);
    if (it != names.end())
      return it->second;
    std::string fresh = "v" + std::to_string(nextValue++);
    names[v] = fresh;
    return fresh;
  }
  FailureOr<std::string> type(Type t, Operation *at);
  FailureOr<std::string> scalarType(Type t, Operation *at);

  // Declarations.
  LogicalResult emitGlobal(memref::GlobalOp op);
  LogicalResult emitTable(DescriptorTableOp op);
  LogicalResult emitKernel(KernelOp op);
  LogicalResult emitKernelTable(KernelTableOp op);
  LogicalResult emitFunc(func::FuncOp op);
  // Device flavors.
  LogicalResult emitTableArgs(KernelTableOp op);
  LogicalResult emitTableEntry(KernelTableOp op);
  LogicalResult emitFuncArgs(func::FuncOp op);
  LogicalResult emitFuncEntry(func::FuncOp op);
  FailureOr<std::string> tableParams(KernelTableOp op);

  // Statements.
  LogicalResult emitBlock(Block &block);
  LogicalResult emitOp(Operation &op);
  LogicalResult emitOps(Block &block); // all but the terminator
  LogicalResult declare(Value v, StringRef init);      // `T name = init;`
  LogicalResult declareResult(Value v, Operation *op); // `T name{};`
  LogicalResult emitFor(scf::ForOp op);
  LogicalResult emitWhile(scf::WhileOp op);
  LogicalResult emitIf(scf::IfOp op);
  LogicalResult emitDispatch(DispatchOp op);
  LogicalResult emitPlanBalanced(PlanBalancedOp op);
  LogicalResult emitLoadDescriptors(LoadDescriptorsOp op);
  LogicalResult assign(ValueRange to, ValueRange from);
  std::string offset(Value memref, ValueRange indices);
  std::string constant(Attribute value, Type type);
  std::string kernelArgs(ValueRange args);

  raw_indented_ostream os;
  Flavor flavor;
  std::string stem;
  llvm::DenseMap<Value, std::string> names;
  unsigned nextValue = 0;
};

FailureOr<std::string> Emitter::scalarType(Type t, Operation *at) {
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
  if (isa<DescriptorType>(t))
    return std::string("::pto::runtime::WorkDescriptor");
  return at->emitOpError() << "has type " << t
                           << ", which the C++ emitter cannot print";
}

FailureOr<std::string> Emitter::type(Type t, Operation *at) {
  if (auto m = dyn_cast<MemRefType>(t)) {
    FailureOr<std::string> element = scalarType(m.getElementType(), at);
    if (failed(element))
      return failure();
    if (!m.getLayout().isIdentity())
      return at->emitOpError() << "has non-identity layout " << m
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

LogicalResult Emitter::emitBlock(Block &block) {
  for (Operation &op : block)
    if (failed(emitOp(op)))
      return failure();
  return success();
}

LogicalResult Emitter::emitFor(scf::ForOp op) {
  // Loop-carried values live in the result variables.
  os << "// scf.for\n";
  for (auto [result, init] : llvm::zip(op.getResults(), op.getInitArgs()))
    if (failed(declare(result, name(init))))
      return failure();
  for (auto [arg, result] : llvm::zip(op.getRegionIterArgs(), op.getResults()))
    names[arg] = name(result);
  std::string iv = name(op.getInductionVar());
  os << "for (int64_t " << iv << " = " << name(op.getLowerBound()) << "; " << iv
     << " < " << name(op.getUpperBound()) << "; " << iv
     << " += " << name(op.getStep()) << ") {\n";
  os.indent();
  Block &body = *op.getBody();
  if (failed(emitOps(body)))
    return failure();
  auto yield = cast<scf::YieldOp>(body.getTerminator());
  if (!yield.getResults().empty() &&
      failed(assign(op.getResults(), yield.getResults())))
    return failure();
  os.unindent();
  os << "}\n";
  return success();
}

LogicalResult Emitter::emitWhile(scf::WhileOp op) {
  os << "// scf.while\n";
  // before-block arguments carry the loop state; results are the state the
  // condition passed on when it stopped.
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  for (auto [arg, init] : llvm::zip(before.getArguments(), op.getInits()))
    if (failed(declare(arg, name(init))))
      return failure();
  for (Value result : op.getResults())
    if (failed(declareResult(result, op)))
      return failure();
  os << "while (true) {\n";
  os.indent();
  if (failed(emitOps(before)))
    return failure();
  auto cond = cast<scf::ConditionOp>(before.getTerminator());
  os << "if (!" << name(cond.getCondition()) << ") {\n";
  os.indent();
  if (failed(assign(op.getResults(), cond.getArgs())))
    return failure();
  os << "break;\n";
  os.unindent();
  os << "}\n";
  for (auto [arg, value] : llvm::zip(after.getArguments(), cond.getArgs()))
    if (failed(declare(arg, name(value))))
      return failure();
  if (failed(emitOps(after)))
    return failure();
  auto yield = cast<scf::YieldOp>(after.getTerminator());
  if (failed(assign(before.getArguments(), yield.getResults())))
    return failure();
  os.unindent();
  os << "}\n";
  return success();
}

LogicalResult Emitter::emitIf(scf::IfOp op) {
  os << "// scf.if\n";
  for (Value result : op.getResults())
    if (failed(declareResult(result, op)))
      return failure();
  auto branch = [&](Region &region) -> LogicalResult {
    Block &block = region.front();
    if (failed(emitOps(block)))
      return failure();
    auto yield = cast<scf::YieldOp>(block.getTerminator());
    if (!yield.getResults().empty())
      return assign(op.getResults(), yield.getResults());
    return success();
  };
  os << "if (" << name(op.getCondition()) << ") {\n";
  os.indent();
  if (failed(branch(op.getThenRegion())))
    return failure();
  os.unindent();
  if (!op.getElseRegion().empty()) {
    os << "} else {\n";
    os.indent();
    if (failed(branch(op.getElseRegion())))
      return failure();
    os.unindent();
  }
  os << "}\n";
  return success();
}

std::string Emitter::kernelArgs(ValueRange args) {
  return llvm::join(llvm::map_range(args, [&](Value v) { return name(v); }),
                    ", ");
}

LogicalResult Emitter::emitDispatch(DispatchOp op) {
  if (flavor == Flavor::Aicpu) {
    // AICPU -> AICore: fill the table's argument block and launch its entry
    // on the dispatch's cores (spec §6.5.1); the hook is the integration's.
    if (!SymbolTable::lookupNearestSymbolFrom<KernelTableOp>(
            op, op.getKernelAttr()))
      return op.emitOpError("dispatches a single kernel; device emission "
                            "launches wsp.kernel_table entries");
    std::string t = op.getKernel().str();
    os << "// wsp.dispatch @" << t << " on "
       << stringifyCoreKind(op.getCoreKind()) << "("
       << op.getNumCoresAttr().getInt() << ")"
       << (op.getRowAffine() ? " row_affine" : "")
       << (op.getCoreIndptr() ? " persistent" : "") << "\n";
    os << "{\n";
    os.indent();
    os << t << "_args launch{" << name(op.getDescriptors()) << ".data, "
       << name(op.getCount()) << ", "
       << (op.getCoreIndptr() ? 2 : op.getRowAffine() ? 1 : 0) << ", "
       << (op.getCoreIndptr() ? name(op.getCoreIndptr()) + ".data"
                              : std::string("nullptr"));
    for (Value arg : op.getArgs())
      os << ", " << name(arg);
    os << "};\n";
    os << "wsp_launch_" << t << "(&launch, " << op.getNumCoresAttr().getInt()
       << ");\n";
    os.unindent();
    os << "}\n";
    return success();
  }
  // The O(1) tier table (or one specialized kernel) per descriptor, on the
  // simulated cores of the dispatch's kind.
  auto table = SymbolTable::lookupNearestSymbolFrom<KernelTableOp>(
      op, op.getKernelAttr());
  std::string call =
      table ? (op.getKernel() + "_dispatch[d.tier](d" +
               (op.getArgs().empty() ? "" : ", ") + kernelArgs(op.getArgs()) +
               ")")
                  .str()
            : (op.getKernel() + "(d" + (op.getArgs().empty() ? "" : ", ") +
               kernelArgs(op.getArgs()) + ")")
                  .str();
  std::string kind = op.getCoreKind() == CoreKind::cube
                         ? "::pto::runtime::sim::CoreKind::Cube"
                         : "::pto::runtime::sim::CoreKind::Vector";
  os << "// wsp.dispatch @" << op.getKernel() << " on "
     << stringifyCoreKind(op.getCoreKind()) << "("
     << op.getNumCoresAttr().getInt() << ")"
     << (op.getCoreIndptr() ? " persistent" : "") << "\n";
  // Persistent: core c walks descriptors [lists[c], lists[c+1]); otherwise
  // a grid, or whole rows per core (row_affine).
  Value lists = op.getCoreIndptr();
  os << "::pto::runtime::sim::" << (lists ? "run_persistent(" : "run_spmd(")
     << kind << ", " << op.getNumCoresAttr().getInt() << ", "
     << name(op.getDescriptors()) << ".data, static_cast<int>("
     << name(op.getCount()) << ")";
  if (lists)
    os << ", " << name(lists) << ".data, nullptr";
  os << ",\n    [&](const ::pto::runtime::WorkDescriptor &d) { " << call
     << "; }, wsp_launch_report"
     << (op.getRowAffine() ? ", wsp_rows_options()" : "") << ");\n";
  return success();
}

LogicalResult Emitter::emitLoadDescriptors(LoadDescriptorsOp op) {
  // The compile-time plan: copied if every part fits, BUFFER_OVERFLOW (and
  // nothing written) if not.
  std::string table = "g_" + op.getTable().str();
  auto size = [](const std::string &array) {
    return "static_cast<int64_t>(sizeof " + array + " / sizeof " + array +
           "[0])";
  };
  std::string fits = name(op.getBuffer()) + ".sizes[0] >= " + name(op.getCount());
  SmallVector<std::pair<std::string, Value>> lists;
  if (op.getCoreIndptr())
    lists.push_back({table + "_cores", op.getCoreIndptr()});
  if (op.getMergeIndptr())
    lists.push_back({table + "_merges", op.getMergeIndptr()});
  for (auto &[array, buffer] : lists)
    fits += " && " + name(buffer) + ".sizes[0] >= " + size(array);
  if (failed(declare(op.getCount(), table + "_count")) ||
      failed(declare(op.getStatus(), fits + " ? 0 : 1")))
    return failure();
  os << "if (" << name(op.getStatus()) << " == 0) {\n";
  os << "  std::copy(" << table << ", " << table << " + "
     << name(op.getCount()) << ", " << name(op.getBuffer()) << ".data);\n";
  for (auto &[array, buffer] : lists)
    os << "  std::copy(" << array << ", " << array << " + " << size(array)
       << ", " << name(buffer) << ".data);\n";
  os << "}\n";
  return success();
}

LogicalResult Emitter::emitPlanBalanced(PlanBalancedOp op) {
  auto tiers =
      SymbolTable::lookupNearestSymbolFrom<TierConfigOp>(op, op.getTiersAttr());
  if (!tiers)
    return op.emitOpError("names no wsp.tier_config");
  PlanConfigAttr c = op.getConfig();
  if (failed(declareResult(op.getCount(), op)) ||
      failed(declareResult(op.getStatus(), op)))
    return failure();
  std::string lengths = name(op.getLengths()), batch = name(op.getBatch());
  os << "// wsp.plan_balanced over @" << op.getTiers()
     << ": pto::runtime's balanced planner\n";
  os << "{\n";
  os.indent();
  os << "::pto::runtime::BalancedConfig config;\n";
  os << "config.num_cores = " << c.getCores() << ";\n";
  os << "config.block_size = " << c.getBlockSize() << ";\n";
  os << "config.cost.per_unit = " << c.getUnitCost() << ";\n";
  os << "config.cost.per_token = " << c.getTokenCost() << ";\n";
  os << "config.cost.per_merge = " << c.getMergeCost() << ";\n";
  os << "config.batch_invariant = "
     << (c.getBatchInvariant() ? "true" : "false") << ";\n";
  os << "config.invariant_chunk = " << c.getInvariantChunk() << ";\n";
  os << "int count = 0;\n";
  os << "if (" << batch << " > " << lengths << ".sizes[0]";
  if (op.getQLens())
    os << " || " << batch << " > " << name(op.getQLens()) << ".sizes[0]";
  os << ") {\n";
  os << "  " << name(op.getStatus())
     << " = 3; // INVALID_PARAMS: batch beyond the lengths\n";
  os << "} else {\n";
  os.indent();
  auto buffer = [&](Value v) {
    return name(v) + ".data, to_runtime_int(" + name(v) + ".sizes[0])";
  };
  os << name(op.getStatus())
     << " = static_cast<int32_t>(::pto::runtime::plan_balanced_into(\n";
  os << "    " << lengths << ".data, to_runtime_int(" << batch
     << "), to_runtime_int(" << name(op.getHeads()) << "), config,\n";
  os << "    " << getTierConfigCppType(tiers) << "{},\n";
  os << "    " << buffer(op.getBuffer()) << ",\n";
  os << "    " << buffer(op.getCoreIndptr()) << ", "
     << buffer(op.getMergeIndptr()) << ", &count, nullptr, nullptr, "
     << (op.getQLens() ? name(op.getQLens()) + ".data" : "nullptr")
     << "));\n";
  os.unindent();
  os << "}\n";
  os << name(op.getCount()) << " = count;\n";
  os.unindent();
  os << "}\n";
  return success();
}

LogicalResult Emitter::emitOps(Block &block) {
  for (Operation &inner : block.without_terminator())
    if (failed(emitOp(inner)))
      return failure();
  return success();
}

LogicalResult Emitter::emitOp(Operation &op) {
  auto binary = [&](StringRef symbol) -> LogicalResult {
    return declare(op.getResult(0), (name(op.getOperand(0)) + " " + symbol +
                                     " " + name(op.getOperand(1)))
                                        .str());
  };
  auto unsignedBinary = [&](StringRef symbol) -> LogicalResult {
    FailureOr<std::string> t = scalarType(op.getResult(0).getType(), &op);
    if (failed(t))
      return failure();
    std::string u = "static_cast<std::make_unsigned_t<" + *t + ">>";
    return declare(op.getResult(0),
                   llvm::formatv("static_cast<{0}>({1}({2}) {3} {1}({4}))", *t,
                                 u, name(op.getOperand(0)), symbol,
                                 name(op.getOperand(1)))
                       .str());
  };
  auto call = [&](StringRef fn) -> LogicalResult {
    return declare(op.getResult(0),
                   (fn + "(" + name(op.getOperand(0)) + ")").str());
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      // arith
      .Case([&](arith::ConstantOp c) {
        return declare(c.getResult(), constant(c.getValue(), c.getType()));
      })
      .Case([&](arith::AddIOp) { return binary("+"); })
      .Case([&](arith::SubIOp) { return binary("-"); })
      .Case([&](arith::MulIOp) { return binary("*"); })
      .Case([&](arith::DivSIOp) { return binary("/"); })
      .Case([&](arith::RemSIOp) { return binary("%"); })
      .Case([&](arith::DivUIOp) { return unsignedBinary("/"); })
      .Case([&](arith::RemUIOp) { return unsignedBinary("%"); })
      .Case([&](arith::CeilDivUIOp o) {
        std::string a = name(o.getLhs()), b = name(o.getRhs());
        return declare(o.getResult(),
                       llvm::formatv("static_cast<int64_t>((static_cast<"
                                     "uint64_t>({0}) + static_cast<uint64_t>("
                                     "{1}) - 1) / static_cast<uint64_t>({1}))",
                                     a, b)
                           .str());
      })
      .Case([&](arith::AndIOp) { return binary("&"); })
      .Case([&](arith::OrIOp) { return binary("|"); })
      .Case([&](arith::XOrIOp) { return binary("^"); })
      .Case([&](arith::AddFOp) { return binary("+"); })
      .Case([&](arith::SubFOp) { return binary("-"); })
      .Case([&](arith::MulFOp) { return binary("*"); })
      .Case([&](arith::DivFOp) { return binary("/"); })
      .Case([&](arith::MaximumFOp o) {
        return declare(o.getResult(), "maximumf(" + name(o.getLhs()) + ", " +
                                          name(o.getRhs()) + ")");
      })
      .Case([&](arith::MinSIOp o) {
        return declare(o.getResult(), "std::min(" + name(o.getLhs()) + ", " +
                                          name(o.getRhs()) + ")");
      })
      .Case([&](arith::MaxSIOp o) {
        return declare(o.getResult(), "std::max(" + name(o.getLhs()) + ", " +
                                          name(o.getRhs()) + ")");
      })
      .Case<arith::MinUIOp, arith::MaxUIOp>([&](Operation *o) {
        FailureOr<std::string> t = scalarType(o->getResult(0).getType(), &op);
        if (failed(t))
          return failure();
        const char *fn = isa<arith::MinUIOp>(o) ? "std::min" : "std::max";
        return declare(
            o->getResult(0),
            llvm::formatv("static_cast<{0}>({1}(static_cast<std::make_"
                          "unsigned_t<{0}>>({2}), static_cast<std::make_"
                          "unsigned_t<{0}>>({3})))",
                          *t, fn, name(o->getOperand(0)),
                          name(o->getOperand(1)))
                .str());
      })
      .Case([&](arith::CmpIOp o) {
        static const char *symbols[] = {"==", "!=", "<",  "<=", ">",
                                        ">=", "<",  "<=", ">",  ">="};
        int p = static_cast<int>(o.getPredicate());
        bool isUnsigned = p >= static_cast<int>(arith::CmpIPredicate::ult);
        std::string a = name(o.getLhs()), b = name(o.getRhs());
        if (isUnsigned) {
          FailureOr<std::string> t = scalarType(o.getLhs().getType(), &op);
          if (failed(t))
            return failure();
          std::string u = "static_cast<std::make_unsigned_t<" + *t + ">>";
          a = u + "(" + a + ")";
          b = u + "(" + b + ")";
        }
        return declare(o.getResult(), a + " " + symbols[p] + " " + b);
      })
      .Case([&](arith::SelectOp o) {
        return declare(o.getResult(), name(o.getCondition()) + " ? " +
                                          name(o.getTrueValue()) + " : " +
                                          name(o.getFalseValue()));
      })
      .Case([&](arith::IndexCastOp o) {
        FailureOr<std::string> t = scalarType(o.getType(), &op);
        if (failed(t))
          return failure();
        return declare(o.getResult(),
                       "static_cast<" + *t + ">(" + name(o.getIn()) + ")");
      })
      .Case<arith::ExtSIOp, arith::TruncIOp>([&](Operation *o) {
        FailureOr<std::string> t = scalarType(o->getResult(0).getType(), &op);
        if (failed(t))
          return failure();
        return declare(o->getResult(0), "static_cast<" + *t + ">(" +
                                            name(o->getOperand(0)) + ")");
      })
      .Case<arith::ExtUIOp, arith::IndexCastUIOp>([&](Operation *o) {
        // Zero-extend: widen through the unsigned type of the source.
        Value src = o->getOperand(0);
        FailureOr<std::string> t = scalarType(o->getResult(0).getType(), &op);
        FailureOr<std::string> from = scalarType(src.getType(), &op);
        if (failed(t) || failed(from))
          return failure();
        std::string in = *from == "bool"
                             ? name(src)
                             : "static_cast<std::make_unsigned_t<" + *from +
                                   ">>(" + name(src) + ")";
        return declare(o->getResult(0), "static_cast<" + *t + ">(" + in + ")");
      })
      .Case([&](arith::SIToFPOp o) {
        FailureOr<std::string> t = scalarType(o.getType(), &op);
        if (failed(t))
          return failure();
        return declare(o.getResult(),
                       "static_cast<" + *t + ">(" + name(o.getIn()) + ")");
      })
      .Case([&](arith::ExtFOp o) -> LogicalResult {
        if (!o.getIn().getType().isBF16() || !o.getType().isF32())
          return op.emitOpError("is only emitted for bf16 -> f32");
        return call("bf16_to_f32");
      })
      .Case([&](arith::TruncFOp o) -> LogicalResult {
        if (!o.getIn().getType().isF32() || !o.getType().isBF16())
          return op.emitOpError("is only emitted for f32 -> bf16");
        return call("f32_to_bf16");
      })
      // math
      .Case([&](math::ExpOp) { return call("std::exp"); })
      .Case([&](math::RsqrtOp o) {
        return declare(o.getResult(),
                       "1.0f / std::sqrt(" + name(o.getOperand()) + ")");
      })
      // memref
      .Case([&](memref::LoadOp o) {
        return declare(o.getResult(),
                       name(o.getMemRef()) + ".data[" +
                           offset(o.getMemRef(), o.getIndices()) + "]");
      })
      .Case([&](memref::StoreOp o) {
        os << name(o.getMemRef()) << ".data["
           << offset(o.getMemRef(), o.getIndices())
           << "] = " << name(o.getValueToStore()) << ";\n";
        return success();
      })
      .Case([&](memref::DimOp o) {
        return declare(o.getResult(), name(o.getSource()) + ".sizes[" +
                                          name(o.getIndex()) + "]");
      })
      .Case([&](memref::CastOp o) {
        return declare(o.getResult(), name(o.getSource()));
      })
      .Case([&](memref::GetGlobalOp o) {
        FailureOr<std::string> t = type(o.getType(), &op);
        if (failed(t))
          return failure();
        std::string sizes = llvm::join(
            llvm::map_range(o.getType().getShape(),
                            [](int64_t s) { return std::to_string(s); }),
            ", ");
        return declare(o.getResult(),
                       *t + "{const_cast<" +
                           *scalarType(o.getType().getElementType(), &op) +
                           " *>(g_" + o.getName().str() + "), {" + sizes +
                           "}}");
      })
      // scf
      .Case([&](scf::ForOp o) { return emitFor(o); })
      .Case([&](scf::WhileOp o) { return emitWhile(o); })
      .Case([&](scf::IfOp o) { return emitIf(o); })
      // func
      .Case([&](func::ReturnOp o) {
        if (o.getNumOperands() == 0)
          os << "return;\n";
        else
          os << "return " << name(o.getOperand(0)) << ";\n";
        return success();
      })
      // wsp
      .Case([&](MakeDescriptorOp o) {
        std::string params;
        for (unsigned i = 0; i < 4; ++i)
          params += (i ? ", " : "") + (i < o.getParams().size()
                                           ? "static_cast<uint32_t>(" +
                                                 name(o.getParams()[i]) + ")"
                                           : std::string("0u"));
        return declare(
            o.getResult(),
            llvm::formatv("::pto::runtime::WorkDescriptor{{static_cast<uint32_"
                          "t>({0}), static_cast<uint8_t>({1}), static_cast<"
                          "uint8_t>({2}), 0, {{{3}}}",
                          name(o.getWorkId()), name(o.getTier()),
                          name(o.getFlags()), params)
                .str());
      })
      .Case([&](LoadDescriptorsOp o) { return emitLoadDescriptors(o); })
      .Case([&](PlanBalancedOp o) { return emitPlanBalanced(o); })
      .Case([&](ParamOp o) {
        return declare(o.getResult(),
                       llvm::formatv("static_cast<int64_t>({0}.params[{1}])",
                                     name(o.getDescriptor()), o.getParamIndex())
                           .str());
      })
      .Case([&](KvEndOp o) {
        return declare(
            o.getResult(),
            "static_cast<int64_t>(::pto::runtime::params::Attention::kv_end(" +
                name(o.getDescriptor()) + "))");
      })
      .Case([&](HasFlagOp o) {
        return declare(o.getResult(),
                       llvm::formatv("({0}.flags & {1}) != 0",
                                     name(o.getDescriptor()),
                                     static_cast<int>(o.getFlag()))
                           .str());
      })
      .Case([&](WorkIdOp o) {
        return declare(o.getResult(), "static_cast<int64_t>(" +
                                          name(o.getDescriptor()) +
                                          ".work_id)");
      })
      .Case([&](DispatchOp o) { return emitDispatch(o); })
      .Case([&](ReturnOp) {
        os << "return;\n";
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitOpError("cannot be emitted as C++ (run the "
                                  "wsp-pipeline first; the emitter prints "
                                  "what wsp-check-emittable accepts)");
      });
}

LogicalResult Emitter::emitGlobal(memref::GlobalOp op) {
  auto init = dyn_cast_if_present<DenseElementsAttr>(op.getInitialValueAttr());
  if (!init || !op.getConstant())
    return op.emitOpError("is emitted only as a constant with a dense value");
  FailureOr<std::string> t = scalarType(op.getType().getElementType(), op);
  if (failed(t))
    return failure();
  os << "// memref.global @" << op.getSymName() << "\n";
  os << "static const " << *t << " g_" << op.getSymName() << "["
     << init.getNumElements() << "] = {";
  llvm::interleaveComma(init.getValues<Attribute>(), os, [&](Attribute a) {
    os << constant(a, op.getType().getElementType());
  });
  os << "};\n\n";
  return success();
}

LogicalResult Emitter::emitTable(DescriptorTableOp op) {
  os << "// wsp.descriptor_table @" << op.getSymName() << ": "
     << op.getNumDescriptors() << " descriptors planned at compile time ";
  if (op.getChunkAttr())
    os << "(chunk " << op.getChunkAttr().getInt() << ")\n";
  else
    os << "(balanced)\n";
  // The count is its own constant: an empty plan (every request idle) still
  // needs a one-element array, C++ having no zero-length ones.
  os << "static constexpr int64_t g_" << op.getSymName()
     << "_count = " << op.getNumDescriptors() << ";\n";
  os << "static const ::pto::runtime::WorkDescriptor g_" << op.getSymName()
     << "[" << std::max<int64_t>(op.getNumDescriptors(), 1) << "] = {\n";
  auto values = llvm::to_vector(op.getTable().getValues<int32_t>());
  for (int64_t row = 0; row < op.getNumDescriptors(); ++row) {
    const int32_t *r = &values[row * DescriptorTableOp::kColumns];
    os << llvm::formatv(
        "    {{{0}u, {1}, {2}, 0, {{{3}u, {4}u, {5}u, {6}u}},\n", r[0], r[1],
        r[2], r[3], r[4], r[5], r[6]);
  }
  os << "};\n";
  // A balanced plan's work lists and merge plan.
  for (auto [suffix, list] :
       {std::pair<StringRef, DenseI32ArrayAttr>{"cores", op.getCoreIndptrAttr()},
        {"merges", op.getMergeIndptrAttr()}}) {
    if (!list)
      continue;
    os << "static const int32_t g_" << op.getSymName() << "_" << suffix
       << "[] = {";
    llvm::interleaveComma(list.asArrayRef(), os);
    os << "};\n";
  }
  os << "\n";
  return success();
}

LogicalResult Emitter::emitKernel(KernelOp op) {
  if (!op.isSpecialized())
    return op.emitOpError("is tier-generic; run wsp-specialize-tiers first");
  Block &entry = op.getBody().front();
  os << "// wsp.kernel @" << op.getSymName() << ", tier "
     << op.getTierAttr().getInt() << " of @" << op.getTiers() << "\n";
  nextValue = 0;
  os << (flavor == Flavor::Aicore ? "static AICORE void " : "static void ")
     << op.getSymName() << "(";
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    names[arg] = "a" + std::to_string(i);
    if (i == 0) {
      os << "const ::pto::runtime::WorkDescriptor &a0";
      continue;
    }
    FailureOr<std::string> t = type(arg.getType(), op);
    if (failed(t))
      return failure();
    os << ", " << *t << " a" << i;
  }
  os << ") {\n";
  os.indent();
  for (BlockArgument arg : entry.getArguments())
    if (arg.use_empty())
      os << "(void)" << name(arg) << ";\n";
  if (failed(emitBlock(entry)))
    return failure();
  os.unindent();
  os << "}\n\n";
  return success();
}

LogicalResult Emitter::emitKernelTable(KernelTableOp op) {
  // The spec's dispatch_table[tier] (§7.2): one entry per tier id up to the
  // largest reachable one; unreachable tiers hold a trap.
  int64_t size = 0;
  for (int64_t id : op.getTierIds())
    size = std::max(size, id + 1);
  auto first =
      SymbolTable::lookupNearestSymbolFrom<KernelOp>(op, op.getKernel(0));
  std::string params = "const ::pto::runtime::WorkDescriptor &";
  for (Type t : first.getArgumentTypes().drop_front()) {
    FailureOr<std::string> ct = type(t, op);
    if (failed(ct))
      return failure();
    params += ", " + *ct;
  }
  os << "// wsp.kernel_table @" << op.getSymName() << "\n";
  if (size != static_cast<int64_t>(op.getTierIds().size()))
    os << "static void " << op.getSymName() << "_unreachable(" << params
       << ") { std::abort(); }\n";
  os << "using " << op.getSymName() << "_fn = void (*)(" << params << ");\n";
  os << "static constexpr " << op.getSymName() << "_fn " << op.getSymName()
     << "_dispatch[" << size << "] = {";
  for (int64_t id = 0; id < size; ++id) {
    auto it = llvm::find(op.getTierIds(), id);
    os << (id ? ", " : "") << "&"
       << (it == op.getTierIds().end()
               ? (op.getSymName() + "_unreachable").str()
               : op.getKernel(it - op.getTierIds().begin()).getValue().str());
  }
  os << "};\n\n";
  return success();
}

LogicalResult Emitter::emitFunc(func::FuncOp op) {
  if (op.isExternal())
    return op.emitOpError("is a declaration; the emitter prints definitions");
  if (op.getNumResults() > 1)
    return op.emitOpError("returns more than one value, which the C++ "
                          "emitter does not print");
  std::string result = "void";
  if (op.getNumResults() == 1) {
    FailureOr<std::string> t = type(op.getResultTypes()[0], op);
    if (failed(t))
      return failure();
    result = *t;
  }
  Block &entry = op.getBody().front();
  nextValue = 0;
  os << "// func.func @" << op.getSymName() << "\n";
  os << (flavor == Flavor::Aicpu ? "static " : "") << result << " "
     << op.getSymName() << (flavor == Flavor::Aicpu ? "_impl" : "") << "(";
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    names[arg] = "a" + std::to_string(i);
    FailureOr<std::string> t = type(arg.getType(), op);
    if (failed(t))
      return failure();
    os << (i ? ", " : "") << *t << " a" << i;
  }
  os << ") {\n";
  os.indent();
  if (failed(emitBlock(entry)))
    return failure();
  os.unindent();
  os << "}\n\n";
  return success();
}

FailureOr<std::string> Emitter::tableParams(KernelTableOp op) {
  auto first =
      SymbolTable::lookupNearestSymbolFrom<KernelOp>(op, op.getKernel(0));
  std::string params;
  for (auto [i, t] : llvm::enumerate(first.getArgumentTypes().drop_front())) {
    FailureOr<std::string> ct = type(t, op);
    if (failed(ct))
      return failure();
    params += "  " + *ct + " a" + std::to_string(i + 1) + ";\n";
  }
  return params;
}

LogicalResult Emitter::emitTableArgs(KernelTableOp op) {
  FailureOr<std::string> params = tableParams(op);
  if (failed(params))
    return failure();
  os << "/// The argument block of wsp.kernel_table @" << op.getSymName()
     << ", in global memory.\n";
  os << "struct " << op.getSymName() << "_args {\n";
  os << "  __gm__ const ::pto::runtime::WorkDescriptor *descs;\n";
  os << "  int64_t count;\n";
  os << "  int32_t schedule; // 0 grid, 1 row_affine, 2 persistent\n";
  os << "  __gm__ const int32_t *core_indptr; // persistent: core c runs "
        "[core_indptr[c], core_indptr[c+1])\n";
  os << *params << "};\n\n";
  return success();
}

LogicalResult Emitter::emitTableEntry(KernelTableOp op) {
  // Which core kind: the first dispatch of the table decides.
  std::string kind = "KERNEL_TYPE_AIV_ONLY";
  if (auto module = op->getParentOfType<ModuleOp>())
    module.walk([&](DispatchOp d) {
      if (d.getKernel() == op.getSymName() && d.getCoreKind() == CoreKind::cube)
        kind = "KERNEL_TYPE_AIC_ONLY";
    });
  auto first =
      SymbolTable::lookupNearestSymbolFrom<KernelOp>(op, op.getKernel(0));
  std::string args;
  for (unsigned i = 1, e = first.getArgumentTypes().size(); i < e; ++i)
    args += ", args.a" + std::to_string(i);
  std::string t = op.getSymName().str();
  os << "// wsp.kernel_table @" << t
     << ": the AICore entry. Each core runs its share of the descriptors\n"
     << "// and selects the tier's specialization with a switch.\n";
  os << "extern \"C\" __global__ AICORE void " << t
     << "_entry(__gm__ uint8_t *args_gm) {\n";
  os.indent();
  os << "#if !defined(__CPU_SIM) && defined(KERNEL_TASK_TYPE_DEFAULT)\n";
  os << "KERNEL_TASK_TYPE_DEFAULT(" << kind << ");\n";
  os << "#endif\n";
  os << "const wsp_gen::" << t << "_args &args =\n"
     << "    *reinterpret_cast<__gm__ const wsp_gen::" << t
     << "_args *>(args_gm);\n";
  os << "const int count = static_cast<int>(args.count);\n";
  os << "const int core = static_cast<int>(get_block_idx());\n";
  os << "const int cores = static_cast<int>(get_block_num());\n";
  os << "int begin = core, end = count, step = cores; // grid\n";
  os << "if (args.schedule == 1) { // row_affine: whole rows per core\n";
  os << "  begin = ::pto::runtime::row_range_begin(args.descs, count, core, "
        "cores);\n";
  os << "  end = ::pto::runtime::row_range_begin(args.descs, count, core + 1, "
        "cores);\n";
  os << "  step = 1;\n";
  os << "} else if (args.schedule == 2) { // persistent: the core's work "
        "list\n";
  os << "  begin = std::max(static_cast<int>(args.core_indptr[core]), 0);\n";
  os << "  end = std::min(static_cast<int>(args.core_indptr[core + 1]), "
        "count);\n";
  os << "  step = 1;\n";
  os << "}\n";
  os << "for (int i = begin; i < end; i += step) {\n";
  os.indent();
  os << "const ::pto::runtime::WorkDescriptor d = args.descs[i];\n";
  os << "switch (d.tier) {\n";
  for (auto [i, id] : llvm::enumerate(op.getTierIds()))
    os << "case " << id << ":\n  wsp_gen::" << op.getKernel(i).getValue()
       << "(d" << args << ");\n  break;\n";
  os << "default: // a tier planning proved unreachable\n  break;\n";
  os << "}\n";
  os.unindent();
  os << "}\n";
  os.unindent();
  os << "}\n\n";
  // The simulation's stand-in for the AICPU -> AICore launch.
  os << "#ifdef __CPU_SIM\n";
  os << "extern \"C\" void wsp_launch_" << t << "(wsp_gen::" << t
     << "_args *args, int num_cores) {\n";
  os << "  ::pto::runtime::sim::launch(num_cores, [&] { " << t
     << "_entry(reinterpret_cast<uint8_t *>(args)); });\n";
  os << "}\n";
  os << "#endif\n\n";
  return success();
}

LogicalResult Emitter::emitFuncArgs(func::FuncOp op) {
  os << "/// The argument block of the AICPU entry " << op.getSymName()
     << ".\n";
  os << "struct " << op.getSymName() << "_args {\n";
  for (auto [i, t] : llvm::enumerate(op.getArgumentTypes())) {
    FailureOr<std::string> ct = type(t, op);
    if (failed(ct))
      return failure();
    os << "  " << *ct << " a" << i << ";\n";
  }
  os << "};\n\n";
  return success();
}

LogicalResult Emitter::emitFuncEntry(func::FuncOp op) {
  std::string f = op.getSymName().str();
  os << "// The AICPU entry of func.func @" << f
     << ": plans, fills the descriptor\n// buffer and launches the AICore "
        "kernels; returns the planner's status.\n";
  os << "extern \"C\" AICPU int " << f << "(void *args_ptr) {\n";
  os.indent();
  os << "auto *args = static_cast<wsp_gen::" << f << "_args *>(args_ptr);\n";
  std::string call = "wsp_gen::" + f + "_impl(";
  for (unsigned i = 0; i < op.getNumArguments(); ++i)
    call += (i ? ", args->a" : "args->a") + std::to_string(i);
  call += ")";
  if (op.getNumResults() == 1)
    os << "return static_cast<int>(" << call << ");\n";
  else
    os << call << ";\nreturn 0;\n";
  os.unindent();
  os << "}\n\n";
  return success();
}

LogicalResult Emitter::emitModule(ModuleOp module) {
  if (flavor != Flavor::CpuSim) {
    SmallVector<KernelTableOp> tables;
    SmallVector<func::FuncOp> funcs;
    for (Operation &op : module.getBody()->getOperations()) {
      if (auto t = dyn_cast<KernelTableOp>(op))
        tables.push_back(t);
      else if (auto f = dyn_cast<func::FuncOp>(op))
        funcs.push_back(f);
      else if (!isa<KernelOp, DescriptorTableOp, memref::GlobalOp,
                    TierConfigOp>(op))
        return op.emitOpError("cannot be emitted as C++ at module level");
    }
    if (flavor == Flavor::Abi) {
      os << "// Generated by wsp-translate --wsp-to-abi. Do not edit.\n";
      os << "// The interface between " << stem << "_aicpu.cpp and " << stem
         << "_aicore.cpp: memref views and argument blocks.\n";
      os << "#pragma once\n\n" << kPrelude;
      for (KernelTableOp t : tables)
        if (failed(emitTableArgs(t)))
          return failure();
      for (func::FuncOp f : funcs)
        if (failed(emitFuncArgs(f)))
          return failure();
      os << "} // namespace wsp_gen\n\n";
      os << "// AICPU -> AICore launches: provided by the device integration "
            "on NPU,\n// by "
         << stem << "_aicore.cpp under __CPU_SIM.\n";
      for (KernelTableOp t : tables)
        os << "extern \"C\" void wsp_launch_" << t.getSymName()
           << "(wsp_gen::" << t.getSymName()
           << "_args *args, int num_cores);\n";
      return success();
    }
    os << "// Generated by wsp-translate --wsp-to-"
       << (flavor == Flavor::Aicpu ? "aicpu" : "aicore") << ". Do not edit.\n";
    os << "#include \"" << stem << "_abi.h\"\n\n";
    os << "namespace wsp_gen {\n\n";
    for (Operation &op : module.getBody()->getOperations()) {
      LogicalResult r = success();
      if (flavor == Flavor::Aicpu) {
        if (auto g = dyn_cast<memref::GlobalOp>(op))
          r = emitGlobal(g);
        else if (auto t = dyn_cast<DescriptorTableOp>(op))
          r = emitTable(t);
      } else if (auto k = dyn_cast<KernelOp>(op)) {
        r = emitKernel(k);
      }
      if (failed(r))
        return failure();
    }
    if (flavor == Flavor::Aicpu)
      for (func::FuncOp f : funcs)
        if (failed(emitFunc(f)))
          return failure();
    os << "} // namespace wsp_gen\n\n";
    if (flavor == Flavor::Aicpu) {
      for (func::FuncOp f : funcs)
        if (failed(emitFuncEntry(f)))
          return failure();
    } else {
      for (KernelTableOp t : tables)
        if (failed(emitTableEntry(t)))
          return failure();
    }
    return success();
  }
  os << "// Generated by wsp-translate --wsp-to-cpusim. Do not edit.\n";
  os << kPrelude;
  os << "/// Where wsp.dispatch records per-core statistics (may be null).\n";
  os << "inline ::pto::runtime::sim::LaunchReport *wsp_launch_report = "
        "nullptr;\n";
  os << "/// The simulation options of row_affine dispatches.\n";
  os << "inline ::pto::runtime::sim::Options wsp_rows_options() {\n";
  os << "  ::pto::runtime::sim::Options options;\n";
  os << "  options.schedule = ::pto::runtime::sim::Schedule::Rows;\n";
  os << "  return options;\n";
  os << "}\n\n";
  // Dependency order: data, kernels, their tables, then the functions
  // that dispatch them; module order within each group.
  for (int group = 0; group < 4; ++group) {
    for (Operation &op : module.getBody()->getOperations()) {
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case([&](memref::GlobalOp g) {
                return group == 0 ? emitGlobal(g) : success();
              })
              .Case([&](DescriptorTableOp t) {
                return group == 0 ? emitTable(t) : success();
              })
              .Case([&](KernelOp k) {
                return group == 1 ? emitKernel(k) : success();
              })
              .Case([&](KernelTableOp t) {
                return group == 2 ? emitKernelTable(t) : success();
              })
              .Case([&](func::FuncOp f) {
                return group == 3 ? emitFunc(f) : success();
              })
              .Case([&](TierConfigOp) { return success(); }) // folded in
              .Default([&](Operation *other) {
                return other->emitOpError(
                    "cannot be emitted as C++ at module level");
              });
      if (failed(result))
        return failure();
    }
  }
  os << "} // namespace wsp_gen\n";
  return success();
}

} // namespace

static LogicalResult emitFlavor(ModuleOp module, raw_ostream &os,
                                Flavor flavor) {
  std::string buffer;
  llvm::raw_string_ostream out(buffer);
  Emitter emitter(out, flavor, getEmissionStem(module));
  if (failed(emitter.emitModule(module)))
    return failure();
  os << buffer;
  return success();
}

std::string mlir::wsp::getEmissionStem(ModuleOp module) {
  if (std::optional<StringRef> name = module.getSymName())
    if (isValidCppIdentifier(*name))
      return name->str();
  return "wsp_module";
}

LogicalResult mlir::wsp::emitCpuSim(ModuleOp module, raw_ostream &os) {
  return emitFlavor(module, os, Flavor::CpuSim);
}
LogicalResult mlir::wsp::emitAbiHeader(ModuleOp module, raw_ostream &os) {
  return emitFlavor(module, os, Flavor::Abi);
}
LogicalResult mlir::wsp::emitAicpu(ModuleOp module, raw_ostream &os) {
  return emitFlavor(module, os, Flavor::Aicpu);
}
LogicalResult mlir::wsp::emitAicore(ModuleOp module, raw_ostream &os) {
  return emitFlavor(module, os, Flavor::Aicore);
}
