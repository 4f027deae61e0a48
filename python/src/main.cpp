//===- main.cpp - the wsp._wsp Python extension ---------------------------===//
//
// Drives the wsp compiler in-process: parse and verify, run a pass pipeline,
// run a translation. Every failure raises wsp.CompileError carrying the
// diagnostics, each with its location.
//
//===----------------------------------------------------------------------===//

#include "wsp/Conversion/Passes.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "wsp/InitAllDialects.h"
#include "wsp/InitAllPasses.h"
#include "wsp/Pipelines/Pipelines.h"
#include "wsp/Pipelines/ProgramTree.h"
#include "wsp/Support/InputFile.h"
#include "wsp/Support/SourceNames.h"
#include "wsp/Target/Cpp/Passes.h"
#include "wsp/Target/Cpp/WspToCpp.h"

#include "pto/runtime/hardware.hpp"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#if defined(__SANITIZE_THREAD__)
#define WSP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WSP_TSAN 1
#endif
#endif
#ifdef WSP_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace py = pybind11;
using namespace mlir;

namespace {

#ifdef WSP_TSAN
/// MLIR's threaded pass manager gives each worker thread a clone of the
/// pipeline, and a clone passes from one worker to the next through an
/// atomic flag in libMLIR, which Debian builds without ThreadSanitizer: TSan
/// does not see that hand-off, and reports the Pass's own execution state
/// (written by its inline members, e.g. markAnalysesPreserved, in wsp's
/// passes) as used by two threads unsynchronized. This states the hand-off
/// where the pass manager makes it: a pass released when it ends on a
/// thread, acquired when it begins on the next.
class TsanPassHandoff : public PassInstrumentation {
  void runBeforePass(Pass *pass, Operation *) override { __tsan_acquire(pass); }
  void runAfterPass(Pass *pass, Operation *) override { __tsan_release(pass); }
  void runAfterPassFailed(Pass *pass, Operation *) override {
    __tsan_release(pass);
  }
};
#endif

/// Whatever every pass manager of this module needs before it runs.
void instrument(PassManager &pm) {
#ifdef WSP_TSAN
  pm.addInstrumentation(std::make_unique<TsanPassHandoff>());
#else
  (void)pm;
#endif
}

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
    // A diagnostic names the user's line; the op's generic text after it
    // (a whole kernel for a kernel's error) only buried it.
    context.printOpOnDiagnostic(false);
  }

  /// Parses and verifies `source` (named `filename` in locations), keeping
  /// its SSA names for the emitters (wsp/Support/SourceNames.h). A program
  /// without any operation is an error.
  OwningOpRef<ModuleOp> parse(const std::string &source,
                              const std::string &filename) {
    // Refused before the parser's recursion could overflow the
    // interpreter's stack.
    std::string nesting;
    if (!wsp::checkNesting(source, nesting))
      fail(filename + ": error: " + nesting);
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, filename), llvm::SMLoc());
    // Parsed, then verified, so that the message says which went wrong
    // (a program that parses but does not verify is not a syntax error).
    OwningOpRef<ModuleOp> module = wsp::parseModuleWithNames(
        sourceMgr, ParserConfig(&context, /*verifyAfterParse=*/false));
    if (!module)
      fail(filename + ": error: the program does not parse");
    if (failed(verify(*module)))
      fail(filename + ": error: the program does not verify");
    if (module->getBody()->empty())
      fail(filename + ": error: the program is empty (no operation)");
    return module;
  }

  /// The warnings so far, each with its location.
  std::vector<std::string> warnings() const {
    std::vector<std::string> found;
    for (const std::string &d : diagnostics)
      if (d.find(": warning: ") != std::string::npos)
        found.push_back(d);
    return found;
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
std::string parseModule(const std::string &source, bool generic,
                        const std::string &filename) {
  Session session;
  OwningOpRef<ModuleOp> module = session.parse(source, filename);
  return print(*module, generic);
}

/// Parses and verifies the module of one llm operator (wsp.ops builds it
/// around each op it builds), then lowers it as the wsp pipeline would,
/// keeping nothing: a shape the lowering refuses (head_dim over one tile)
/// is an error when the op is built, not when the program is compiled.
void checkOperator(const std::string &source, const std::string &filename) {
  Session session;
  OwningOpRef<ModuleOp> module = session.parse(source, filename);
  PassManager pm(&session.context);
  instrument(pm);
  pm.addPass(wsp::createLlmSelectKvSharding());
  pm.addPass(wsp::createConvertLlmKvSharding());
  pm.addPass(wsp::createConvertLlmToWsp());
  if (failed(pm.run(*module)))
    session.fail(filename +
                 ": error: the operator verifies but does not lower");
}

/// What one pass did, for PassManager.run(record=True).
struct PassRecord {
  std::string pass;    // its command-line name
  std::string anchor;  // the op it ran on
  double seconds = 0;  // wall time
  int64_t ops = 0;     // operations under the anchor afterwards
  std::string ir;      // the anchor printed afterwards ("" unless asked)
};

/// Records every pass run: time, op count and, if asked, the IR after it.
/// (Pass statistics are compiled out of Debian's release LLVM, whose
/// llvm::Statistic is a no-op; these are the figures we can give.)
class Recorder : public PassInstrumentation {
public:
  Recorder(std::vector<PassRecord> &records, bool printIr)
      : records(records), printIr(printIr) {}
  void runBeforePass(Pass *, Operation *) override {
    starts.push_back(std::chrono::steady_clock::now());
  }
  void runAfterPass(Pass *pass, Operation *op) override { record(pass, op); }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    record(pass, op);
  }

private:
  void record(Pass *pass, Operation *op) {
    PassRecord r;
    r.pass = pass->getArgument().empty() ? pass->getName().str()
                                         : pass->getArgument().str();
    r.anchor = op->getName().getStringRef().str();
    if (!starts.empty()) {
      r.seconds = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - starts.back())
                      .count();
      starts.pop_back();
    }
    op->walk([&](Operation *) { ++r.ops; });
    if (printIr) {
      llvm::raw_string_ostream os(r.ir);
      op->print(os);
    }
    records.push_back(std::move(r));
  }

  std::vector<PassRecord> &records;
  bool printIr;
  std::vector<std::chrono::steady_clock::time_point> starts;
};

/// Runs a textual pass pipeline, e.g. "builtin.module(canonicalize)";
/// returns the module printed and, when `record`, what each pass did.
py::dict runPasses(const std::string &source, const std::string &pipeline,
                   const std::string &filename, bool record, bool printIr) {
  Session session;
  OwningOpRef<ModuleOp> module = session.parse(source, filename);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, errorStream);
  if (failed(parsed))
    session.fail("invalid pass pipeline '" + pipeline + "': " + errors);
  // Anchor the manager where the pipeline is anchored (an "any" anchor would
  // nest builtin.module(...) one level too deep and run nothing).
  PassManager pm(&session.context, parsed->getOpAnchorName());
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  instrument(pm);
  std::vector<PassRecord> records;
  if (record) {
    // One thread, so the records come in the order the passes ran (and
    // the recorder needs no lock).
    session.context.disableMultithreading();
    pm.addInstrumentation(std::make_unique<Recorder>(records, printIr));
  }
  if (failed(pm.run(*module)))
    session.fail("pass pipeline '" + pipeline + "' failed");
  py::list passes;
  for (const PassRecord &r : records) {
    py::dict d;
    d["pass"] = r.pass;
    d["anchor"] = r.anchor;
    d["seconds"] = r.seconds;
    d["ops"] = r.ops;
    if (printIr)
      d["ir"] = r.ir;
    passes.append(d);
  }
  py::dict result;
  result["ir"] = print(*module, /*generic=*/false);
  result["passes"] = passes;
  return result;
}

std::string runPipeline(const std::string &source, const std::string &pipeline,
                        const std::string &filename) {
  return runPasses(source, pipeline, filename, false, false)["ir"]
      .cast<std::string>();
}

/// Runs a wsp translation (as `wsp-translate --<name>`).
std::string translate(const std::string &source, const std::string &name,
                      const std::string &filename) {
  Session session;
  const wsp::WspTranslation *translation = nullptr;
  for (const wsp::WspTranslation &t : wsp::getWspTranslations())
    if (t.name == name)
      translation = &t;
  if (!translation)
    session.fail("unknown translation '" + name + "'");
  OwningOpRef<ModuleOp> module = session.parse(source, filename);
  std::string output;
  llvm::raw_string_ostream os(output);
  if (failed(translation->emit(*module, os)))
    session.fail("translation '" + name + "' failed");
  return output;
}

/// What `wspc` does up to writing files: the wsp pipeline, then every file
/// of the emitted tree in memory (wsp/Pipelines/ProgramTree.h), with the
/// C entry points' signatures.
py::dict compileProgram(const std::string &source, const std::string &filename,
                        const std::string &target, bool staticPlanning,
                        const std::string &stem) {
  Session session;
  if (target != "cpusim" && target != "ascend")
    session.fail("unknown target '" + target + "'; expected cpusim or ascend");
  OwningOpRef<ModuleOp> module = session.parse(source, filename);
  // The stage contracts verify the IR, so not after every pass (as wspc).
  PassManager pm(&session.context, ModuleOp::getOperationName());
  instrument(pm);
  pm.enableVerifier(false);
  std::string pipeline = "wsp-pipeline{target=" + target +
                         " static-planning=" +
                         (staticPlanning ? "true" : "false") + "}";
  if (failed(parsePassPipeline(pipeline, pm)))
    session.fail("cannot build the pipeline '" + pipeline + "'");
  if (failed(pm.run(*module)))
    session.fail("the wsp pipeline failed");
  if (!module->getSymName() && !stem.empty()) {
    if (!wsp::isValidCppIdentifier(stem))
      session.fail("'" + stem + "' is not a C++ identifier");
    module->setSymName(stem);
  }
  wsp::ProgramTreeOptions options;
  options.deviceOnly = target == "ascend";
  FailureOr<wsp::ProgramTree> tree = wsp::emitProgramTree(*module, options);
  if (failed(tree))
    session.fail("cannot emit the program");
  if (options.deviceOnly && !tree->noAicoreReason.empty())
    session.fail("no AICore form for the ascend target: " +
                 tree->noAicoreReason);
  std::string signatures;
  if (!options.deviceOnly) {
    llvm::raw_string_ostream os(signatures);
    if (failed(wsp::emitCallSignatures(*module, os)))
      session.fail("cannot describe the program's entry points");
  }
  py::dict files;
  for (const wsp::EmittedFile &f : tree->files)
    files[py::str(f.path)] = f.text;
  py::dict result;
  result["stem"] = tree->stem;
  result["lowered"] = print(*module, /*generic=*/false);
  result["files"] = files;
  result["kernels"] = tree->kernels;
  result["no_aicore_reason"] = tree->noAicoreReason;
  result["signatures"] = signatures;
  result["warnings"] = session.warnings();
  return result;
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
  wsp::registerAllPasses();

  static py::exception<CompileError> compileError(m, "CompileError");
  compileError.doc() =
      "The compiler rejected a program: the message holds every diagnostic, "
      "each at its source location (file:line:col).";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const CompileError &e) {
      PyErr_SetString(compileError.ptr(), e.message.c_str());
    }
  });

  m.def("parse", &parseModule, py::arg("source"), py::arg("generic") = false,
        py::arg("filename") = "<string>",
        "Parse and verify a module; return it printed back.");
  m.def("check_operator", &checkOperator, py::arg("source"),
        py::arg("filename") = "<string>",
        "Parse, verify and lower (keeping nothing) one operator's module.");
  m.def("run_pipeline", &runPipeline, py::arg("source"), py::arg("pipeline"),
        py::arg("filename") = "<string>",
        "Run a textual pass pipeline on a module; return the result.");
  m.def("run_passes", &runPasses, py::arg("source"), py::arg("pipeline"),
        py::arg("filename") = "<string>", py::arg("record") = false,
        py::arg("print_ir") = false,
        "Run a pipeline; return {'ir', 'passes': [{'pass', 'anchor', "
        "'seconds', 'ops', 'ir'?}]}.");
  m.def("translate", &translate, py::arg("source"), py::arg("name"),
        py::arg("filename") = "<string>",
        "Run a registered translation (e.g. 'wsp-tier-configs-to-cpp').");
  m.def("compile_program", &compileProgram, py::arg("source"),
        py::arg("filename") = "<string>", py::arg("target") = "cpusim",
        py::arg("static_planning") = true, py::arg("stem") = "",
        "The wsp pipeline and every emitted file, in memory: {'stem', "
        "'lowered', 'files', 'kernels', 'no_aicore_reason', 'signatures', 'warnings'}.");
  m.def("translations", &translations, "Names of the wsp translations.");
  // The cores a dispatch may use, by kind (one home: the runtime's
  // hardware budget; a mixed block is one cube and two vector cores).
  py::dict cores;
  cores["vector"] = pto::runtime::kNumVectorCores;
  cores["cube"] = pto::runtime::kNumCubeCores;
  cores["mix"] = pto::runtime::kNumCubeCores;
  m.attr("CORES") = cores;
  m.def(
      "plan_result_names",
      [] {
        std::vector<std::string> names;
        for (uint32_t code = 0; code <= wsp::getMaxEnumValForPlanResult();
             ++code)
          names.push_back(
              wsp::stringifyPlanResult(*wsp::symbolizePlanResult(code))
                  .upper());
        return names;
      },
      "The spec's PlanResult names, by code, from the dialect's enum.");
  m.def("registered_dialects", &registeredDialects,
        "Namespaces of the dialects wsp accepts.");
}
