//===- CppEmitter.h - the printer core every dialect's emission shares ----===//
//
// A read-only printer: it walks verified IR and prints C++. The core knows
// names, scalar and memref types, declarations and blocks; each dialect
// registers one pattern per op it prints (as CIRCT's ExportSystemC does),
// and may register type printers and a per-function prologue. Output goes
// to a buffer that is written only when the whole module printed, so an
// unsupported op leaves nothing behind.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_LIB_TARGET_CPP_CPPEMITTER_H
#define WSP_LIB_TARGET_CPP_CPPEMITTER_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Block;
class Region;
namespace wsp {
namespace cpp {

/// What one emitted file is: the CPU-simulation program, or one of the
/// three device files (ABI header, AICPU planning source, AICore kernels).
enum class Flavor { CpuSim, Abi, Aicpu, Aicore };

class Emitter;
using OpPattern = std::function<LogicalResult(Operation *, Emitter &)>;
/// Prints a type, or returns std::nullopt if it is not the printer's.
using TypePrinter =
    std::function<std::optional<FailureOr<std::string>>(Type, Operation *)>;
/// Runs before a function body is printed (declarations it needs).
using Prologue = std::function<LogicalResult(Region &, Emitter &)>;

class Emitter {
public:
  Emitter(raw_ostream &os, Flavor flavor) : os(os), flavor(flavor) {}

  raw_indented_ostream os;
  const Flavor flavor;
  /// The module's symbol tables, built once per emission: a lookup through
  /// SymbolTable scans the module, once per dispatch, kernel table and
  /// step (quadratic in a module of many programs).
  SymbolTableCollection symbols;

  // Patterns.
  template <typename OpTy, typename F> void add(F &&f) {
    patterns[TypeID::get<OpTy>()] = [f](Operation *op, Emitter &e) {
      return f(cast<OpTy>(op), e);
    };
  }
  /// Prints an op that carries the discardable attribute `name` in place
  /// of the op's own pattern (a mark that groups it with the ops after it).
  void addAttributePattern(StringRef name, OpPattern p) {
    attributePatterns.push_back({name.str(), std::move(p)});
  }
  /// Marks an op printed already, by a pattern that printed it with
  /// another: emitOp passes over it.
  void markPrinted(Operation *op) { printed.insert(op); }
  /// Prints `op` with its op pattern, whatever attribute it carries.
  LogicalResult emitOpItself(Operation &op);
  void addTypePrinter(TypePrinter p) { typePrinters.push_back(std::move(p)); }
  void addPrologue(Prologue p) { prologues.push_back(std::move(p)); }
  bool hasPattern(Operation *op) const {
    return patterns.count(op->getName().getTypeID());
  }
  /// Prints ops of type OpTy with `f` until the returned guard is gone (a
  /// function printed another way: a captured step's build function).
  template <typename OpTy, typename F> auto override(F &&f) {
    struct Guard {
      Emitter &e;
      TypeID id;
      OpPattern saved;
      ~Guard() { e.patterns[id] = std::move(saved); }
    };
    TypeID id = TypeID::get<OpTy>();
    OpPattern saved = patterns[id];
    add<OpTy>(std::forward<F>(f));
    return Guard{*this, id, std::move(saved)};
  }

  // Names: a value's source name when it has one (wsp/Support/SourceNames.h)
  // and it is free in its function, else numbered (arguments a<i>, results
  // v<i> in program order per function).
  std::string name(Value v);
  void setName(Value v, std::string n) { names[v] = std::move(n); }
  /// Names argument `i` of the function being started.
  std::string argName(BlockArgument arg, unsigned i);
  /// Starts naming a function's values: numbering restarts, no name used.
  void startNames();
  /// A name no value may take (an identifier the emitted code declares).
  void reserve(llvm::StringRef identifier) { reserved.insert(identifier); }
  /// Starts a function's body: prologues run.
  LogicalResult beginFunction(Region &body);

  // Types.
  FailureOr<std::string> type(Type t, Operation *at);
  FailureOr<std::string> scalarType(Type t, Operation *at);

  // Statements.
  LogicalResult emitOp(Operation &op);
  LogicalResult emitBlock(Block &block);
  LogicalResult emitOps(Block &block);                 // all but the terminator
  LogicalResult declare(Value v, StringRef init);      // `T name = init;`
  LogicalResult declareResult(Value v, Operation *op); // `T name{};`
  LogicalResult assign(ValueRange to, ValueRange from);
  /// The row-major element offset of `indices` in `memref`.
  std::string offset(Value memref, ValueRange indices);
  std::string constant(Attribute value, Type type);
  std::string join(ValueRange values);

private:
  llvm::DenseMap<TypeID, OpPattern> patterns;
  std::vector<std::pair<std::string, OpPattern>> attributePatterns;
  llvm::DenseSet<Operation *> printed;
  std::vector<TypePrinter> typePrinters;
  std::vector<Prologue> prologues;
  llvm::DenseMap<Value, std::string> names;
  unsigned nextValue = 0;
  llvm::StringSet<> used, reserved;
  /// `hint` made a valid, free identifier (or "" when it cannot be).
  std::string fromHint(llvm::StringRef hint);
};

/// The printer's answer to an op that wsp-check-emittable does not accept
/// (the contract names what is wrong): an error that names the op and
/// sends the reader to the pipeline and its contract.
LogicalResult emitNotAccepted(Operation *op);

/// func, arith, math, memref and scf.
void populateStdEmission(Emitter &e);
/// The wsp dialect: its types, kernels' parameters, planning ops.
void populateWspEmission(Emitter &e);
/// The tile dialect, for the flavor's target (the simulation's tiles or
/// pto-isa).
void populateTileEmission(Emitter &e);

} // namespace cpp
} // namespace wsp
} // namespace mlir

#endif // WSP_LIB_TARGET_CPP_CPPEMITTER_H
