//===- main.cpp - the wsp._wsp Python extension ---------------------------===//
//
// Drives the wsp compiler in-process: parse and verify, run a pass pipeline,
// run a translation. Every failure raises wsp.CompileError carrying the
// diagnostics, each with its location.
//
//===----------------------------------------------------------------------===//

#include "wsp/Conversion/Passes.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "wsp/InitAllDialects.h"
#include "wsp/Pipelines/Pipelines.h"
#include "wsp/Target/Cpp/Passes.h"
#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;

namespace {

/// Raised (as wsp.CompileError) with every diagnostic the compiler emitted.
struct CompileError {
  std::string message;
};

/// file:line:col, as compilers print it, for file locations (also under a
/// source name: NameLoc).
void printLocation(llvm::raw_ostream &os, Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    os << loc;
}

/// A context with wsp's dialects and a handler that records diagnostics.
class Session {
public:
  Session()
      : context(makeRegistry()), handler(&context, [this](Diagnostic &d) {
          std::string text;
          llvm::raw_string_ostream os(text);
          printLocation(os, d.getLocation());
          os << ": ";
          switch (d.getSeverity()) {
          case DiagnosticSeverity::Error:
            os << "error: ";
            break;
          case DiagnosticSeverity::Warning:
            os << "warning: ";
            break;
          case DiagnosticSeverity::Note:
            os << "note: ";
            break;
          case DiagnosticSeverity::Remark:
            os << "remark: ";
            break;
          }
          os << d;
          for (Diagnostic &note : d.getNotes()) {
            os << "\n  ";
            printLocation(os, note.getLocation());
            os << ": note: " << note;
          }
          diagnostics.push_back(std::move(text));
          return success();
        }) {
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(const std::string &source) {
    auto module = parseSourceString<ModuleOp>(source, &context, "<python>");
    if (!module)
      fail("failed to parse the module");
    return module;
  }

  [[noreturn]] void fail(const std::string &what) {
    std::string message = what;
    for (const std::string &d : diagnostics)
      message += "\n" + d;
    throw CompileError{message};
  }

  MLIRContext context;

private:
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    wsp::registerAllDialects(registry);
    return registry;
  }

  ScopedDiagnosticHandler handler;
  std::vector<std::string> diagnostics;
};

std::string print(ModuleOp module, bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  module->print(os, flags);
  return text;
}

/// Parses and verifies `source`; returns it printed back.
std::string parseModule(const std::string &source, bool generic) {
  Session session;
  OwningOpRef<ModuleOp> module = session.parse(source);
  return print(*module, generic);
}

/// Runs a textual pass pipeline, e.g. "builtin.module(canonicalize)".
std::string runPipeline(const std::string &source,
                        const std::string &pipeline) {
  Session session;
  OwningOpRef<ModuleOp> module = session.parse(source);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, errorStream);
  if (failed(parsed))
    session.fail("invalid pass pipeline '" + pipeline + "': " + errors);
  // Anchor the manager where the pipeline is anchored (an "any" anchor would
  // nest builtin.module(...) one level too deep and run nothing).
  PassManager pm(&session.context, parsed->getOpAnchorName());
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  if (failed(pm.run(*module)))
    session.fail("pass pipeline '" + pipeline + "' failed");
  return print(*module, /*generic=*/false);
}

/// Runs a wsp translation (as `wsp-translate --<name>`).
std::string translate(const std::string &source, const std::string &name) {
  Session session;
  const wsp::WspTranslation *translation = nullptr;
  for (const wsp::WspTranslation &t : wsp::getWspTranslations())
    if (t.name == name)
      translation = &t;
  if (!translation)
    session.fail("unknown translation '" + name + "'");
  OwningOpRef<ModuleOp> module = session.parse(source);
  std::string output;
  llvm::raw_string_ostream os(output);
  if (failed(translation->emit(*module, os)))
    session.fail("translation '" + name + "' failed");
  return output;
}

std::vector<std::string> translations() {
  std::vector<std::string> names;
  for (const wsp::WspTranslation &t : wsp::getWspTranslations())
    names.push_back(t.name.str());
  return names;
}

/// The same list `wsp-opt --show-dialects` prints.
std::vector<std::string> registeredDialects() {
  DialectRegistry registry;
  wsp::registerAllDialects(registry);
  std::vector<std::string> names;
  for (StringRef name : registry.getDialectNames())
    names.push_back(name.str());
  return names;
}

} // namespace

PYBIND11_MODULE(_wsp, m) {
  m.doc() = "wsp compiler, driven in-process";
  registerTransformsPasses();
  wsp::registerWspPasses();
  wsp::tile::registerTilePasses();
  wsp::registerWspConversionPasses();
  wsp::registerWspCppPasses();
  wsp::registerWspPipelines();

  static py::exception<CompileError> compileError(m, "CompileError");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const CompileError &e) {
      PyErr_SetString(compileError.ptr(), e.message.c_str());
    }
  });

  m.def("parse", &parseModule, py::arg("source"), py::arg("generic") = false,
        "Parse and verify a module; return it printed back.");
  m.def("run_pipeline", &runPipeline, py::arg("source"), py::arg("pipeline"),
        "Run a textual pass pipeline on a module; return the result.");
  m.def("translate", &translate, py::arg("source"), py::arg("name"),
        "Run a registered translation (e.g. 'wsp-tier-configs-to-cpp').");
  m.def("translations", &translations, "Names of the wsp translations.");
  m.def("registered_dialects", &registeredDialects,
        "Namespaces of the dialects wsp accepts.");
}
