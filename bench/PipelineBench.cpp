// Compile-time benchmark: the default wsp pipeline, in-process, on modules
// of 1, 10 and 100 copies of an example (one per layer of a model and
// more): decode attention's workload, or a file of llm operators, whose
// lowering is then timed too. Prints the time per copy for each size;
// linear growth keeps it flat. Each size is the median of 3 runs; parsing
// is timed apart. Then the split by pass over 10 copies (the pipeline's
// stages run in that order; a pass that runs twice is summed), beside the
// goal of 1 ms per copy.
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "wsp/InitAllDialects.h"
#include "wsp/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir;

static std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The symbols `example` defines at its top level (functions, tier
/// configurations, kernels, step tables).
static std::vector<std::string> definedSymbols(const std::string &example) {
  std::vector<std::string> names;
  std::regex def(
      R"((func\.func|wsp\.tier_config|wsp\.kernel|wsp\.step)\s+(@[A-Za-z0-9_]+))");
  for (auto it = std::sregex_iterator(example.begin(), example.end(), def);
       it != std::sregex_iterator(); ++it)
    names.push_back((*it)[2]);
  return names;
}

/// `n` copies of the example, its symbols renamed per layer.
static std::string layers(const std::string &example, int n) {
  const std::vector<std::string> names = definedSymbols(example);
  std::string out;
  for (int i = 0; i < n; ++i) {
    std::string layer = example;
    const std::string suffix = "_L" + std::to_string(i);
    for (const std::string &from : names) {
      for (size_t at = layer.find(from); at != std::string::npos;
           at = layer.find(from, at + from.size() + suffix.size())) {
        // Only whole symbols: the next character must end the name.
        char next =
            at + from.size() < layer.size() ? layer[at + from.size()] : ' ';
        if (std::isalnum(static_cast<unsigned char>(next)) || next == '_')
          continue;
        layer.insert(at + from.size(), suffix);
      }
    }
    out += layer;
  }
  return out;
}

/// Wall time per pass (by its command-line name), in first-run order. A
/// pass nested on each function (any(canonicalize)) is summed over the
/// functions; the adaptor that runs it is not a pass of its own (its time
/// is theirs).
struct PassTimes : public PassInstrumentation {
  std::vector<std::string> order;
  std::map<std::string, double> ms;
  std::vector<std::chrono::steady_clock::time_point> starts; // nested runs
  void runBeforePass(Pass *, Operation *) override {
    starts.push_back(std::chrono::steady_clock::now());
  }
  void runAfterPass(Pass *pass, Operation *) override { record(pass); }
  void runAfterPassFailed(Pass *pass, Operation *) override { record(pass); }
  void record(Pass *pass) {
    const double t = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - starts.back())
                         .count();
    starts.pop_back();
    const std::string name = pass->getArgument().str();
    if (name.empty())
      return; // an adaptor running nested passes
    if (!ms.count(name))
      order.push_back(name);
    ms[name] += t;
  }
};

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s examples/ir/X.mlir\n",
                 argv[0]);
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // progress as it happens
  const std::string example = readFile(argv[1]);
  if (example.empty()) {
    std::fprintf(stderr, "error: cannot read '%s'\n", argv[1]);
    return 1;
  }
  wsp::registerWspPasses();
  wsp::registerWspPipelines();
  DialectRegistry registry;
  wsp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.disableMultithreading(); // one core's cost, comparable across sizes

  std::printf("wsp-pipeline compile time (median of 3)\n");
  std::printf("%10s %12s %14s %16s\n", "copies", "parse ms", "pipeline ms",
              "us per copy");
  int tablesPerCopy = -1;
  for (int n : {1, 10, 100}) {
    const std::string source = layers(example, n);
    std::vector<double> parse, pipe;
    for (int rep = 0; rep < 3; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      OwningOpRef<ModuleOp> module =
          parseSourceString<ModuleOp>(source, &context);
      auto t1 = std::chrono::steady_clock::now();
      if (!module)
        return 1;
      // Anchored on builtin.module: a default ("any") PassManager would
      // nest the pipeline one level too deep and run nothing.
      PassManager pm(&context, ModuleOp::getOperationName());
      pm.enableVerifier(false); // as wspc: the stage contracts verify
      if (failed(parsePassPipeline("wsp-pipeline", pm))) {
        std::fprintf(stderr, "error: cannot build the pipeline\n");
        return 1;
      }
      if (failed(pm.run(*module)))
        return 1;
      auto t2 = std::chrono::steady_clock::now();
      // The work was done: as many kernel tables per copy as for one.
      int tables = 0;
      module->walk([&](wsp::KernelTableOp) { ++tables; });
      if (tablesPerCopy < 0)
        tablesPerCopy = tables;
      if (tables == 0 || tables != n * tablesPerCopy) {
        std::fprintf(stderr, "error: %d kernel tables for %d copies\n",
                     tables, n);
        return 1;
      }
      parse.push_back(
          std::chrono::duration<double, std::milli>(t1 - t0).count());
      pipe.push_back(
          std::chrono::duration<double, std::milli>(t2 - t1).count());
    }
    const size_t mid = parse.size() / 2;
    std::nth_element(parse.begin(), parse.begin() + mid, parse.end());
    std::nth_element(pipe.begin(), pipe.begin() + mid, pipe.end());
    std::printf("%10d %12.2f %14.2f %16.1f\n", n, parse[mid], pipe[mid],
                pipe[mid] * 1000.0 / n);
  }

  // The split by pass, 10 copies, one run.
  constexpr int kSplitCopies = 10;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(layers(example, kSplitCopies), &context);
  if (!module)
    return 1;
  PassManager pm(&context, ModuleOp::getOperationName());
  pm.enableVerifier(false);
  if (failed(parsePassPipeline("wsp-pipeline", pm)))
    return 1;
  auto times = std::make_unique<PassTimes>();
  PassTimes *split = times.get();
  pm.addInstrumentation(std::move(times));
  if (failed(pm.run(*module)))
    return 1;
  double total = 0;
  for (auto &[name, t] : split->ms)
    total += t;
  std::printf("\nby pass (%d copies, one run)%22s %8s\n", kSplitCopies,
              "us per copy", "share");
  for (const std::string &name : split->order)
    std::printf("  %-40s %10.1f %7.1f%%\n", name.c_str(),
                split->ms[name] * 1000.0 / kSplitCopies,
                100.0 * split->ms[name] / total);
  std::printf("  %-40s %10.1f   (goal: <= 1000 us per copy)\n", "total",
              total * 1000.0 / kSplitCopies);
  return 0;
}
