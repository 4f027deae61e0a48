//===- wspc.cpp - the wsp compiler driver ---------------------------------===//
//
//   wspc workload.mlir -o out/ [--target=cpusim|ascend]
//        [--static-planning=true|false]
//        [--run [--check selfcheck.cpp] [--ranks N] [--plan-svg DIR]]
//
// Runs the whole compiler in-process (parse -> wsp-pipeline -> emission) and
// writes the emitted tree (--target=ascend: the device form only, the first
// three files; a program without an AICore form is then an error):
//
//   out/include/<stem>_abi.h      the device form's shared interface
//   out/aicpu/<stem>_aicpu.cpp    AICPU planning entries
//   out/aicore/<stem>_aicore.cpp  per-tier AICore kernels and entries
//   out/cpusim/<stem>.cpp         the CPU-simulation program
//   out/cpusim/<stem>_capi.cpp    its C entry points (ctypes, C)
//   out/CMakeLists.txt            builds the CPU-simulation self-check
//
// --run configures and builds that CMake project with the host compiler and
// runs its self-check (by default <input>.selfcheck.cpp next to the input):
// random inputs, the planned tiered run against a naive reference, and a
// report. With --ranks N, a program with collectives runs its self-check on
// N ranks as threads of one process (the self-check reads WSP_RANKS). With
// --plan-svg DIR the run draws each plan it makes (balanced) or dispatches
// (the spec's and the MoE planner's) into
// DIR/plan_<n>-<case>-<function>-call<k>.svg, a Gantt chart of the
// simulated cores titled by the self-check's case and the call. Every
// failure ends with a message and a nonzero exit; files are written only
// after the whole compilation succeeded.
//
//===----------------------------------------------------------------------===//

#include "wsp/Conversion/Passes.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "wsp/InitAllDialects.h"
#include "wsp/InitAllPasses.h"
#include "wsp/Pipelines/Pipelines.h"
#include "wsp/Pipelines/ProgramTree.h"
#include "wsp/Support/InputFile.h"
#include "wsp/Support/SourceNames.h"
#include "wsp/Support/ToolOptions.h"
#include "wsp/Target/Cpp/Passes.h"
#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

extern char **environ;

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory
    wspcCategory(WSP_TOOL_CATEGORY("Compiler", "wspc"));
static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<workload.mlir>"),
                                      cl::cat(wspcCategory));
static cl::opt<std::string> outputDir("o", cl::Required,
                                      cl::desc("Directory of the emitted tree"),
                                      cl::value_desc("dir"),
                                      cl::cat(wspcCategory));
static cl::opt<std::string> target("target", cl::init("cpusim"),
                                   cl::desc("cpusim (both forms and the "
                                            "self-check's CMake project) or "
                                            "ascend (the device form only); "
                                            "default cpusim"),
                                   cl::cat(wspcCategory));
static cl::opt<bool> staticPlanning(
    "static-planning", cl::init(true),
    cl::desc("Plan at compile time when the lengths are constants "
             "(default true; false plans at run time)"),
    cl::cat(wspcCategory));
static cl::opt<bool> skeleton(
    "selfcheck-skeleton",
    cl::desc("Also write <stem>.selfcheck.cpp to the output directory: a "
             "self-check to start from (every function called, the "
             "reference left to write)"),
    cl::cat(wspcCategory));
static cl::opt<bool> run("run",
                         cl::desc("Build the CPU-sim tree and run its "
                                  "self-check"),
                         cl::cat(wspcCategory));
static cl::opt<std::string>
    checkFile("check", cl::desc("Self-check source (default: "
                                "<input without .mlir>.selfcheck.cpp)"),
              cl::value_desc("file.cpp"), cl::cat(wspcCategory));
static cl::opt<int> ranks(
    "ranks", cl::init(0),
    cl::desc("With --run, for a program with collectives: run the "
             "self-check on this many ranks (threads of one process) "
             "instead of its own choice (default 0: its own choice)"),
    cl::value_desc("N"), cl::cat(wspcCategory));
static cl::opt<int> buildOpt(
    "build-opt", cl::init(3),
    cl::desc("With --run: the optimization level (0-3) the self-check is "
             "built at; a large program builds several times faster at 1 or "
             "0 and computes the same numbers (no fast-math) (default 3: "
             "CMake's Release)"),
    cl::value_desc("N"), cl::cat(wspcCategory));
static cl::opt<std::string> planSvg(
    "plan-svg",
    cl::desc("With --run: draw each plan the run makes or dispatches into "
             "DIR/plan_<n>-<case>-<function>-call<k>.svg (one lane per "
             "core, one bar per work unit in the planner's cost units, a "
             "legend, the lower bound)"),
    cl::value_desc("DIR"), cl::cat(wspcCategory));
static cl::opt<std::string>
    runtimeInclude("runtime-include",
                   cl::desc("Directory holding pto/runtime/runtime.hpp "
                            "(default: <prefix>/include beside the binary, "
                            "else the source tree's)"),
                   cl::value_desc("dir"), cl::cat(wspcCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "wspc: error: " << message << "\n";
  return 1;
}

/// Where pto/runtime lives: the option, the install layout next to this
/// binary (<prefix>/bin/wspc -> <prefix>/include), or the source tree.
static std::string findRuntimeInclude(const char *argv0) {
  if (!runtimeInclude.empty())
    return runtimeInclude;
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&findRuntimeInclude));
  llvm::SmallString<256> installed(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(installed, "include");
  llvm::SmallString<256> probe(installed);
  llvm::sys::path::append(probe, "pto", "runtime", "runtime.hpp");
  if (llvm::sys::fs::exists(probe))
    return std::string(installed);
  return WSP_SOURCE_INCLUDE_DIR;
}

static int runProgram(StringRef program, ArrayRef<StringRef> args,
                      StringRef what,
                      std::optional<ArrayRef<StringRef>> env = std::nullopt) {
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, args, env, {}, 0, 0, &message);
  if (rc != 0)
    return fail(what + " failed" + (message.empty() ? "" : ": " + message) +
                " (exit " + llvm::Twine(rc) + ")");
  return 0;
}

static int compile(int argc, char **argv);

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  int rc = compile(argc, argv);
  // A standard output that cannot be written (a full disk, /dev/full) is
  // one line and a failure, not LLVM's fatal error at exit.
  llvm::outs().flush();
  if (llvm::outs().has_error()) {
    llvm::outs().clear_error();
    return fail("cannot write to standard output");
  }
  return rc;
}

static int compile(int argc, char **argv) {
  wsp::registerAllPasses();
  cl::HideUnrelatedOptions(wspcCategory);
  cl::ParseCommandLineOptions(argc, argv, "wsp compiler driver\n");
  if (outputDir.empty())
    return fail("-o needs a directory");
  if (target != "cpusim" && target != "ascend")
    return fail("unknown --target '" + target + "'; expected ascend or cpusim");
  const bool deviceOnly = target == "ascend";
  if (deviceOnly && run)
    return fail("--run builds and runs the CPU simulation; it needs "
                "--target=cpusim (the default)");
  // The in-process group's ranks are threads: a bounded count.
  constexpr int kMaxRanks = 64;
  if (ranks.getNumOccurrences() && !run)
    return fail("--ranks says how many ranks --run runs; it needs --run");
  if (ranks.getNumOccurrences() && (ranks < 1 || ranks > kMaxRanks))
    return fail("--ranks must be between 1 and " + llvm::Twine(kMaxRanks) +
                ", got " + llvm::Twine(ranks));
  if (buildOpt.getNumOccurrences() && !run)
    return fail("--build-opt says how --run builds the self-check; it needs "
                "--run");
  if (buildOpt < 0 || buildOpt > 3)
    return fail("--build-opt must be 0, 1, 2 or 3, got " +
                llvm::Twine(buildOpt));
  if (planSvg.getNumOccurrences() && !run)
    return fail("--plan-svg draws the plans --run makes; it needs --run");
  if (planSvg.getNumOccurrences() && planSvg.empty())
    return fail("--plan-svg needs a directory");
  if (planSvg.getNumOccurrences() && llvm::sys::fs::exists(planSvg) &&
      !llvm::sys::fs::is_directory(planSvg))
    return fail("--plan-svg '" + planSvg + "' is not a directory");

  // Parse.
  DialectRegistry registry;
  wsp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A diagnostic names the line; the op's generic text after it (a whole
  // kernel for a kernel's error) only buried it.
  context.printOpOnDiagnostic(false);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      wsp::openBoundedInput(inputFile, error);
  if (!input)
    return fail(error);
  if (!wsp::checkNesting(input->getBuffer(), error))
    return fail("'" + inputFile + "': " + error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  // The source's SSA names stay on the IR: the emitted C++ uses them.
  OwningOpRef<ModuleOp> module =
      wsp::parseModuleWithNames(sourceMgr, ParserConfig(&context));
  if (!module)
    return fail("'" + inputFile + "' is not a valid wsp program");
  if (module->getBody()->empty())
    return fail("'" + inputFile + "' is empty: no operation to compile");

  // The default pipeline, in-process. Its stage contracts verify the IR
  // (wsp-check-planned, -specialized, tile-check-planned,
  // wsp-check-emittable), so not after every pass as well (a third of the
  // compile time); wsp-opt, which the tests drive, still does.
  PassManager pm(&context, ModuleOp::getOperationName());
  pm.enableVerifier(false);
  std::string pipeline = "wsp-pipeline{target=" + target +
                         " static-planning=" +
                         (staticPlanning ? "true" : "false") + "}";
  if (failed(parsePassPipeline(pipeline, pm)))
    return fail("cannot build the pipeline '" + pipeline + "'");
  if (failed(pm.run(*module)))
    return fail("the wsp pipeline failed on '" + inputFile + "'");

  // Files are named after the module, or else after the input file.
  if (!module->getSymName()) {
    std::string fileStem = llvm::sys::path::stem(inputFile).str();
    if (wsp::isValidCppIdentifier(fileStem))
      module->setSymName(fileStem);
  }
  // Emit every file in memory first: nothing is written on failure.
  wsp::ProgramTreeOptions treeOptions;
  treeOptions.deviceOnly = deviceOnly;
  treeOptions.selfCheckSkeleton = skeleton;
  FailureOr<wsp::ProgramTree> tree = wsp::emitProgramTree(*module, treeOptions);
  if (failed(tree))
    return fail("cannot emit '" + inputFile + "'");
  const std::string &stem = tree->stem;
  if (deviceOnly && !tree->noAicoreReason.empty())
    return fail("no AICore form for --target=ascend: " + tree->noAicoreReason);
  if (!tree->noAicoreReason.empty())
    llvm::errs() << "wspc: warning: no AICore form, aicore/" << stem
                 << "_aicore.cpp not written: " << tree->noAicoreReason
                 << "\n";
  std::vector<wsp::EmittedFile> &files = tree->files;
  // What each tier's kernel takes on chip: one line per kernel, with the
  // tiers it serves (several when tier specialization folded them).
  for (const std::string &line : tree->kernels)
    llvm::outs() << "wspc: " << line << "\n";

  // The self-check that --run builds.
  std::string check = checkFile;
  if (check.empty()) {
    llvm::SmallString<256> guess(inputFile.getValue());
    llvm::sys::path::replace_extension(guess, "selfcheck.cpp");
    check = std::string(guess);
  }
  // The skeleton --selfcheck-skeleton writes; --run runs it when there is
  // no self-check beside the input (or when --check names it).
  llvm::SmallString<256> skeletonAbs(outputDir.getValue());
  llvm::sys::path::append(skeletonAbs, stem + ".selfcheck.cpp");
  llvm::sys::fs::make_absolute(skeletonAbs);
  if (skeleton && checkFile.empty() && !llvm::sys::fs::exists(check))
    check = std::string(skeletonAbs);
  llvm::SmallString<256> checkAbs(check);
  llvm::sys::fs::make_absolute(checkAbs);
  const std::string runtime = findRuntimeInclude(argv[0]);
  std::string cmake =
      "# Generated by wspc. Builds the CPU-simulation self-check of " + stem +
      ".\ncmake_minimum_required(VERSION 3.20)\nproject(" + stem +
      "_cpusim CXX)\nset(CMAKE_CXX_STANDARD 17)\nset(CMAKE_CXX_STANDARD_"
      "REQUIRED ON)\nif(NOT CMAKE_BUILD_TYPE)\n  set(CMAKE_BUILD_TYPE "
      "Release)\nendif()\n# Plain variables: a tree written again over an old one builds\n# what was written now, not what an old cache holds.\nset(WSP_RUNTIME_INCLUDE \"" + runtime +
      "\")\nset(WSP_SELFCHECK \"" + std::string(checkAbs) + "\")\n"
      "find_package(Threads REQUIRED)\nadd_executable(" + stem +
      "_selfcheck ${WSP_SELFCHECK})\ntarget_include_directories(" + stem +
      "_selfcheck PRIVATE ${WSP_RUNTIME_INCLUDE} "
      "${CMAKE_CURRENT_SOURCE_DIR}/include)\ntarget_compile_definitions(" +
      stem + "_selfcheck PRIVATE __CPU_SIM)\n# The emitted program is one "
      "translation unit with its self-check.\ntarget_compile_options(" + stem +
      "_selfcheck PRIVATE -Wall -Wextra -include "
      "${CMAKE_CURRENT_SOURCE_DIR}/cpusim/" + stem + ".cpp)\n"
      "target_link_libraries(" + stem + "_selfcheck PRIVATE Threads::Threads)\n";
  // A program with collectives runs its ranks as threads, or as processes
  // under `mpirun -np N` where MPI is installed (pto/runtime/
  // collectives_mpi.hpp; the self-check sees WSP_WITH_MPI).
  const bool collectives = wsp::hasCollectives(*module);
  if (ranks.getNumOccurrences() && !collectives)
    return fail("--ranks: the program has no collectives, so it runs on one "
                "rank");
  if (collectives)
    cmake += "find_package(MPI COMPONENTS CXX QUIET)\nif(MPI_CXX_FOUND)\n"
             "  target_compile_definitions(" + stem +
             "_selfcheck PRIVATE WSP_WITH_MPI)\n  target_link_libraries(" +
             stem + "_selfcheck PRIVATE MPI::MPI_CXX)\nendif()\n";
  if (!deviceOnly)
    files.push_back({"CMakeLists.txt", cmake});

  // What --run needs, checked before anything is written.
  llvm::ErrorOr<std::string> cmakeExe = llvm::sys::findProgramByName("cmake");
  const bool checkIsSkeleton = skeleton && checkAbs == skeletonAbs;
  if (run && !checkIsSkeleton && !llvm::sys::fs::exists(checkAbs))
    return fail("no self-check '" + check + "' (give one with --check)");
  if (run && !cmakeExe)
    return fail("cmake is not on PATH; --run needs it");

  // A file that already holds its text is left as it is, time stamp and
  // all: the tree written again over itself rebuilds only what changed.
  // The others are written beside their place first and renamed into it
  // once every one is written, so that a failure (a full disk, a directory
  // that cannot be written) leaves the old tree as it was and no file half
  // written.
  unsigned unchanged = 0;
  std::vector<std::pair<std::string, std::string>> staged; // temp, final
  auto unstage = [&] {
    for (const auto &[temp, path] : staged)
      llvm::sys::fs::remove(temp);
  };
  for (const wsp::EmittedFile &f : files) {
    llvm::SmallString<256> path(outputDir.getValue());
    llvm::sys::path::append(path, f.path);
    if (auto old =
            llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
        old && (*old)->getBuffer() == f.text) {
      ++unchanged;
      continue;
    }
    if (std::error_code ec = llvm::sys::fs::create_directories(
            llvm::sys::path::parent_path(path))) {
      unstage();
      return fail("cannot create '" + llvm::sys::path::parent_path(path) +
                  "': " + ec.message());
    }
    std::string temp = (path + ".wspc-tmp").str();
    std::error_code ec;
    bool created = false;
    {
      llvm::raw_fd_ostream out(temp, ec);
      if (!ec) {
        created = true;
        out << f.text;
        out.close();
        ec = out.error();
        out.clear_error(); // reported below, not as a fatal error
      }
    }
    if (ec) {
      if (created)
        llvm::sys::fs::remove(temp);
      unstage();
      return fail("cannot write '" + path + "': " + ec.message() +
                  " (nothing of the tree was changed)");
    }
    staged.push_back({temp, std::string(path)});
  }
  for (const auto &[temp, path] : staged)
    if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
      unstage();
      return fail("cannot write '" + path + "': " + ec.message());
    }
  const size_t written = files.size() - unchanged;
  llvm::outs() << "wspc: wrote " << written
               << (written == 1 ? " file to " : " files to ") << outputDir
               << " (" << stem << ")";
  if (unchanged)
    llvm::outs() << "; " << unchanged << " held their text already";
  llvm::outs() << "\n";
  llvm::outs().flush();
  if (!run)
    return 0;

  // --run: configure, build and run the CPU-sim self-check.
  llvm::SmallString<256> buildDir(outputDir.getValue());
  llvm::sys::path::append(buildDir, "build");
  std::string source = outputDir, build = std::string(buildDir);
  // Release, at the level asked (CMake's Release flags are -O3 -DNDEBUG;
  // set every time, so a tree built before at another level is rebuilt).
  const std::string releaseFlags = "-DCMAKE_CXX_FLAGS_RELEASE=-O" +
                                   std::to_string(int(buildOpt)) + " -DNDEBUG";
  if (int rc = runProgram(*cmakeExe,
                          {*cmakeExe, "-S", source, "-B", build,
                           "-DCMAKE_BUILD_TYPE=Release", releaseFlags,
                           "--log-level=WARNING"},
                          "configuring the CPU-sim tree"))
    return rc;
  if (int rc = runProgram(*cmakeExe, {*cmakeExe, "--build", build},
                          "building the CPU-sim tree"))
    return rc;
  llvm::SmallString<256> exe(buildDir);
  llvm::sys::path::append(exe, stem + "_selfcheck");
  llvm::outs() << "wspc: running " << exe
               << (ranks.getNumOccurrences()
                       ? " on " + std::to_string(ranks) + " ranks"
                       : std::string())
               << "\n";
  llvm::outs().flush();
  // The environment, with WSP_RANKS and WSP_PLAN_SVG_DIR as the options
  // ask (an option replaces the variable; without it, it is inherited).
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (!(ranks.getNumOccurrences() && StringRef(*e).starts_with("WSP_RANKS=")) &&
        !(planSvg.getNumOccurrences() &&
          StringRef(*e).starts_with("WSP_PLAN_SVG_DIR=")))
      env.push_back(*e);
  if (ranks.getNumOccurrences())
    env.push_back("WSP_RANKS=" + std::to_string(ranks));
  llvm::SmallString<256> charts;
  if (planSvg.getNumOccurrences()) {
    // A fresh directory: charts of an earlier run are not this run's.
    charts = planSvg.getValue();
    if (std::error_code ec = llvm::sys::fs::make_absolute(charts))
      return fail("--plan-svg '" + planSvg + "': " + ec.message());
    if (llvm::sys::fs::exists(charts)) {
      std::error_code ec;
      for (llvm::sys::fs::directory_iterator it(charts, ec), end;
           !ec && it != end; it.increment(ec))
        if (StringRef name = llvm::sys::path::filename(it->path());
            name.starts_with("plan_") && name.ends_with(".svg"))
          llvm::sys::fs::remove(it->path());
    } else if (std::error_code ec =
                   llvm::sys::fs::create_directories(charts)) {
      return fail("cannot create '" + planSvg + "': " + ec.message());
    }
    env.push_back("WSP_PLAN_SVG_DIR=" + std::string(charts));
  }
  std::vector<StringRef> envRefs(env.begin(), env.end());
  if (runProgram(exe, {exe}, "the self-check", ArrayRef(envRefs)))
    return 1;
  if (!charts.empty()) {
    unsigned drawn = 0;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(charts, ec), end;
         !ec && it != end; it.increment(ec))
      if (StringRef name = llvm::sys::path::filename(it->path());
          name.starts_with("plan_") && name.ends_with(".svg"))
        ++drawn;
    llvm::outs() << "wspc: " << drawn << " plan chart"
                 << (drawn == 1 ? "" : "s") << " in " << charts
                 << (drawn ? "" : " (the run planned and dispatched nothing)")
                 << "\n";
  }
  return 0;
}
