//===- SelfCheckSkeleton.cpp - a self-check to start from -----------------===//
//
// Writes the skeleton of a self-check for a pipeline-lowered module: the
// file `wspc --run` compiles with the emitted CPU-simulation program
// force-included (docs/selfchecks.md has the contract). Per public function
// it allocates every argument under its source name (dynamic sizes set to
// a named placeholder), calls the function through its typed wsp_gen::
// call and reports its status; the inputs, the reference and the
// comparison are left to the author, marked TODO. As written it compiles
// warning-free and runs.
//
//===----------------------------------------------------------------------===//

#include "CppEmitter.h"

#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::wsp;
using namespace mlir::wsp::cpp;

/// The placeholder for a dynamic size.
static constexpr int64_t kPlaceholderSize = 16;

LogicalResult mlir::wsp::emitSelfCheckSkeleton(ModuleOp module,
                                               raw_ostream &os) {
  std::string buffer;
  llvm::raw_string_ostream out(buffer);
  Emitter e(llvm::nulls(), Flavor::CpuSim);
  populateStdEmission(e);
  populateWspEmission(e);
  populateTileEmission(e);
  const std::string stem = getEmissionStem(module);
  out << "// The self-check of " << stem
      << " (a skeleton written by wspc --selfcheck-skeleton).\n"
         "// wspc --run compiles it as one translation unit with the "
         "emitted\n// CPU-simulation program (cpusim/"
      << stem
      << ".cpp, force-included), which\n"
         "// declares one call per function in namespace wsp_gen. Fill the "
         "inputs,\n// compute the expected outputs in a reference of your "
         "own (never the\n// code under test), compare them with a stated "
         "tolerance, print a line per\n// case and return nonzero on a "
         "mismatch. See docs/selfchecks.md.\n"
         "#include <cstdint>\n#include <cstdio>\n#include <vector>\n\n"
         "using wsp_gen::bf16;\nusing wsp_gen::MemRef;\n\nint main() {\n"
         "  bool ok = true;\n";
  // The skeleton's own names, which no argument may take.
  for (StringRef own : {"ok", "status", "main", "wsp_gen", "MemRef", "bf16"})
    e.reserve(own);
  bool any = false;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal() || f.isPrivate())
      continue;
    any = true;
    std::string name = f.getSymName().str();
    bool status = f.getNumResults() == 1;
    out << "  {\n    // func.func @" << name << "\n";
    std::string call;
    // Each argument by its source name (the emitted code's), as the
    // function's own parameters are named.
    e.startNames();
    SmallVector<std::string> argNames;
    llvm::StringSet<> taken;
    for (auto [i, arg] : llvm::enumerate(f.getArguments()))
      taken.insert(argNames.emplace_back(e.argName(arg, i)));
    for (auto [i, t] : llvm::enumerate(f.getArgumentTypes())) {
      const std::string &arg = argNames[i];
      auto memref = dyn_cast<MemRefType>(t);
      if (!memref) {
        FailureOr<std::string> ct = e.type(t, f);
        if (failed(ct))
          return failure();
        out << "    " << *ct << " " << arg << "{}; // " << t << "\n";
        call += (i ? ",\n        " : "") + arg;
        continue;
      }
      FailureOr<std::string> elem = e.scalarType(memref.getElementType(), f);
      if (failed(elem))
        return failure();
      if (memref.getRank() == 0)
        return f.emitOpError("argument ")
               << i << " is a rank-0 memref, which no self-check call takes";
      std::string sizes, count;
      for (auto [d, size] : llvm::enumerate(memref.getShape())) {
        std::string s = std::to_string(size);
        if (ShapedType::isDynamic(size)) {
          s = arg + "_dim" + std::to_string(d);
          while (!taken.insert(s).second)
            s += "_";
          out << "    const int64_t " << s << " = " << kPlaceholderSize
              << "; // TODO: a size of your own\n";
        }
        sizes += (d ? ", " : "") + s;
        count += (d ? " * " : "") + s;
      }
      out << "    std::vector<" << *elem << "> " << arg << "(static_cast<size_t>("
          << count << ")); // " << t << "\n";
      call += (i ? ",\n        " : "") + ("MemRef<" + *elem + ", " +
                                 std::to_string(memref.getRank()) + ">{" +
                                 arg + ".data(), {" + sizes + "}}");
    }
    out << "    // TODO: fill the inputs.\n"
        << "    // The case's name, for its plan charts (wspc --run "
           "--plan-svg).\n"
        << "    ::pto::runtime::sim::set_plan_case(\"" << name << "\");\n    "
        << (status ? "int32_t status = " : "") << "wsp_gen::" << name
        << "(\n        " << call << ");\n"
        << "    // TODO: compute the expected outputs and compare.\n";
    if (status)
      out << "    std::printf(\"" << name
          << ": status %d\\n\", int(status));\n    ok = ok && status == 0;\n";
    else
      out << "    std::printf(\"" << name << ": ran\\n\");\n";
    out << "  }\n";
  }
  if (!any)
    return module.emitError("has no public function for a self-check to call");
  out << "  return ok ? 0 : 1;\n}\n";
  os << buffer;
  return success();
}
