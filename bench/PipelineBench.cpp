// Compile-time benchmark (issue 42), in process CPU time
// (CLOCK_PROCESS_CPUTIME_ID: other load on the shared machine does not
// count, all of this process's threads do).
//
//   bench-pipeline [--full] [FILE.mlir ...]
//
// 1. The default pipeline, in-process, one thread, on modules of 1, 10 and
//    100 copies (--full: and 1,000) of each workload, its symbols renamed
//    per copy (wsp-merge-kernels off: it would fold the identical copies
//    into one; one copy through the default pipeline is printed below
//    each table): decode attention, the attention block and the tiny model by
//    default, or the files named. Per pass (PassInstrumentation; a pass
//    nested on each function is summed over the functions; the pipeline's
//    three canonicalizations are told apart by their place), the total and
//    the parse, all in microseconds per copy. The total is the median of 3
//    runs (1 run at 100 copies and more); the split is of that run.
// 2. The same pipeline with the context's threads (this machine: 2 cores)
//    against one thread at 100 copies: CPU and wall time.
// 3. The driver: `wspc X -o DIR` (no --run) as a child process, its CPU
//    time (median of 5), beside its parts timed in-process (parse with the
//    source's names, pipeline, emission of the tree) and what is left
//    (process start, dynamic linking, registration).
// 4. Scaling in functions: a module of N small functions through the
//    pipeline (parse + pipeline), 2k and 20k (--full: 20k and 200k).
// Each goal of issue 42 is printed beside its measurement: "met", or by
// how much not.
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/InitAllDialects.h"
#include "wsp/InitAllPasses.h"
#include "wsp/Pipelines/Pipelines.h"
#include "wsp/Pipelines/ProgramTree.h"
#include "wsp/Support/SourceNames.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <vector>

extern char **environ;

using namespace mlir;

namespace {

/// This process's CPU time (every thread), in milliseconds.
double cpuMs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
double wallMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The symbols `example` defines at its top level (functions, tier
/// configurations, kernels, step tables).
std::vector<std::string> definedSymbols(const std::string &example) {
  std::vector<std::string> names;
  std::regex def(
      R"((func\.func|wsp\.tier_config|wsp\.kernel|wsp\.step)\s+(@[A-Za-z0-9_]+))");
  for (auto it = std::sregex_iterator(example.begin(), example.end(), def);
       it != std::sregex_iterator(); ++it)
    names.push_back((*it)[2]);
  return names;
}

/// `n` copies of the example, its symbols renamed per copy.
std::string copies(const std::string &example, int n) {
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

/// CPU time per pass, one thread. Passes are told apart by their place in
/// the pipeline (a name that comes again gets #2, #3), which is the same in
/// every run; an adaptor running nested passes is not a pass of its own.
struct PassTimes : public PassInstrumentation {
  std::vector<std::string> order;     // labels, in first-run order
  std::map<const Pass *, size_t> ids; // this run's pass -> label index
  std::map<std::string, int> seen;
  std::vector<double> ms;
  std::vector<double> starts; // nested runs
  void runBeforePass(Pass *, Operation *) override {
    starts.push_back(cpuMs());
  }
  void runAfterPass(Pass *pass, Operation *) override { record(pass); }
  void runAfterPassFailed(Pass *pass, Operation *) override { record(pass); }
  void record(Pass *pass) {
    const double t = cpuMs() - starts.back();
    starts.pop_back();
    const std::string name = pass->getArgument().str();
    if (name.empty())
      return;
    auto [it, added] = ids.try_emplace(pass, order.size());
    if (added) {
      int k = ++seen[name];
      order.push_back(k == 1 ? name : name + " #" + std::to_string(k));
      ms.push_back(0);
    }
    ms[it->second] += t;
  }
};

struct Run {
  double parseMs = 0, pipelineMs = 0, wallMs = 0;
  std::vector<std::string> passes;
  std::vector<double> passMs;
};

/// The pipeline the per-copy tables run: copies of one workload are
/// identical, and wsp-merge-kernels would fold them into one copy's
/// kernels, so the tables measure the work of distinct kernels.
constexpr const char *kPerCopyPipeline = "wsp-pipeline{merge-kernels=false}";

/// Parses `source` and runs `pipeline` on it; per pass when `split`.
std::optional<Run> runPipeline(MLIRContext &context, const std::string &source,
                               bool split, int expectTables = -1,
                               int *tablesOut = nullptr,
                               const char *pipeline = kPerCopyPipeline) {
  Run r;
  double c0 = cpuMs();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  double c1 = cpuMs();
  if (!module)
    return std::nullopt;
  // Anchored on builtin.module: a default ("any") PassManager would nest
  // the pipeline one level too deep and run nothing.
  PassManager pm(&context, ModuleOp::getOperationName());
  pm.enableVerifier(false); // as wspc: the stage contracts verify
  if (failed(parsePassPipeline(pipeline, pm)))
    return std::nullopt;
  PassTimes *times = nullptr;
  if (split) {
    auto owned = std::make_unique<PassTimes>();
    times = owned.get();
    pm.addInstrumentation(std::move(owned));
  }
  double w1 = wallMs();
  c1 = cpuMs();
  if (failed(pm.run(*module)))
    return std::nullopt;
  double c2 = cpuMs(), w2 = wallMs();
  // The work was done: as many kernel tables per copy as for one.
  int tables = 0;
  module->walk([&](wsp::KernelTableOp) { ++tables; });
  if (tablesOut)
    *tablesOut = tables;
  if (expectTables >= 0 && tables != expectTables) {
    std::fprintf(stderr, "error: %d kernel tables, expected %d\n", tables,
                 expectTables);
    return std::nullopt;
  }
  r.parseMs = c1 - c0;
  r.pipelineMs = c2 - c1;
  r.wallMs = w2 - w1;
  if (times) {
    r.passes = times->order;
    r.passMs = times->ms;
  }
  return r;
}

/// "met", or by how much not.
std::string verdict(double value, double goal) {
  char buf[96];
  if (value <= goal)
    std::snprintf(buf, sizeof buf, "met");
  else
    std::snprintf(buf, sizeof buf, "NOT met: %.2fx the goal", value / goal);
  return buf;
}

/// Runs `wspc input -o dir` as a child; its CPU time in ms (user + system),
/// or a negative value on failure.
double wspcCpuMs(const std::string &input, const std::string &dir) {
  std::string exe = WSP_WSPC_PATH;
  std::vector<std::string> args = {exe, input, "-o", dir};
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(),
                       environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return -1;
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return -1;
  return usage.ru_utime.tv_sec * 1e3 + usage.ru_utime.tv_usec / 1e3 +
         usage.ru_stime.tv_sec * 1e3 + usage.ru_stime.tv_usec / 1e3;
}

/// The driver's parts in-process: parse (with the source's names), the
/// pipeline, emission of the tree.
struct DriverParts {
  double parse = 0, pipeline = 0, emit = 0;
};
std::optional<DriverParts> driverParts(MLIRContext &context,
                                       const std::string &path) {
  DriverParts p;
  double c0 = cpuMs();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return std::nullopt;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      wsp::parseModuleWithNames(sourceMgr, ParserConfig(&context));
  double c1 = cpuMs();
  if (!module)
    return std::nullopt;
  PassManager pm(&context, ModuleOp::getOperationName());
  pm.enableVerifier(false);
  if (failed(parsePassPipeline("wsp-pipeline", pm)) || failed(pm.run(*module)))
    return std::nullopt;
  double c2 = cpuMs();
  FailureOr<wsp::ProgramTree> tree =
      wsp::emitProgramTree(*module, wsp::ProgramTreeOptions());
  double c3 = cpuMs();
  if (failed(tree))
    return std::nullopt;
  p.parse = c1 - c0;
  p.pipeline = c2 - c1;
  p.emit = c3 - c2;
  return p;
}

struct Workload {
  std::string name, path;
};

} // namespace

int main(int argc, char **argv) {
  bool full = false, pipelineOnly = false;
  std::vector<int> copiesList;
  std::vector<Workload> workloads;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--full") {
      full = true;
    } else if (a.rfind("--copies=", 0) == 0) {
      copiesList.clear();
      std::stringstream list(a.substr(9));
      for (std::string n; std::getline(list, n, ',');)
        copiesList.push_back(std::max(1, std::atoi(n.c_str())));
    } else if (a == "--pipeline-only") {
      pipelineOnly = true;
    } else if (a == "-h" || a == "--help" || a.rfind("-", 0) == 0) {
      std::fprintf(stderr,
                   "usage: %s [--full] [--copies=N,...] [--pipeline-only] "
                   "[FILE.mlir ...]\n  --full: also 1,000 copies, and 20k/200k "
                   "functions (minutes)\n  --copies: these sizes instead\n"
                   "  --pipeline-only: the per-pass tables alone\n",
                   argv[0]);
      return 2;
    } else {
      workloads.push_back({a, a});
    }
  }
  const std::string src = WSP_SOURCE_DIR;
  if (workloads.empty())
    workloads = {{"decode attention", src + "/examples/ir/decode_attention.mlir"},
                 {"attention block", src + "/examples/ir/attention_block.mlir"},
                 {"tiny model", src + "/examples/model/tiny_lm.mlir"}};
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // progress as it happens
  wsp::registerAllPasses();
  DialectRegistry registry;
  wsp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.disableMultithreading(); // one core's cost, comparable across sizes

  std::vector<int> sizes = {1, 10, 100};
  if (full)
    sizes.push_back(1000);
  if (!copiesList.empty())
    sizes = copiesList;
  // The split's share and the growth are against 10 copies when measured.
  const size_t ref10 =
      std::find(sizes.begin(), sizes.end(), 10) != sizes.end()
          ? std::find(sizes.begin(), sizes.end(), 10) - sizes.begin()
          : 0;
  std::vector<std::string> goals;
  auto goal = [&](const std::string &line) {
    goals.push_back(line);
    std::printf("  goal: %s\n", line.c_str());
  };

  // 1. Per pass, per size.
  std::map<std::string, std::map<int, double>> perCopy; // workload, n -> us
  for (const Workload &w : workloads) {
    const std::string example = readFile(w.path);
    if (example.empty()) {
      std::fprintf(stderr, "error: cannot read '%s'\n", w.path.c_str());
      return 1;
    }
    std::printf("\n== %s%s%s%s: wsp-pipeline, CPU time, one thread, us per "
                "copy\n",
                w.name.c_str(), w.name == w.path ? "" : " (",
                w.name == w.path ? "" : w.path.c_str(),
                w.name == w.path ? "" : ")");
    int tablesPerCopy = -1;
    std::vector<Run> chosen;
    for (int n : sizes) {
      const std::string source = copies(example, n);
      std::vector<Run> runs;
      for (int rep = 0; rep < (n >= 100 ? 1 : 3); ++rep) {
        int tables = 0;
        std::optional<Run> r =
            runPipeline(context, source, /*split=*/true,
                        tablesPerCopy < 0 ? -1 : n * tablesPerCopy, &tables);
        if (!r)
          return 1;
        // The first run (of whichever size comes first) gives the tables
        // of one copy; every later run must have n times as many.
        if (tablesPerCopy < 0) {
          if (tables % n) {
            std::fprintf(stderr,
                         "error: %d kernel tables for %d copies of '%s'\n",
                         tables, n, w.path.c_str());
            return 1;
          }
          tablesPerCopy = tables / n;
        }
        runs.push_back(std::move(*r));
      }
      std::sort(runs.begin(), runs.end(), [](const Run &a, const Run &b) {
        return a.pipelineMs < b.pipelineMs;
      });
      chosen.push_back(runs[runs.size() / 2]);
      perCopy[w.name][n] = chosen.back().pipelineMs * 1000.0 / n;
    }
    std::printf("  %-34s", "pass \\ copies");
    for (int n : sizes)
      std::printf(" %10d", n);
    std::printf("   share at %d\n", sizes[ref10]);
    const Run &ref = chosen[ref10];
    for (size_t p = 0; p < ref.passes.size(); ++p) {
      std::printf("  %-34s", ref.passes[p].c_str());
      for (size_t s = 0; s < sizes.size(); ++s) {
        const Run &r = chosen[s];
        double ms = p < r.passMs.size() ? r.passMs[p] : 0;
        std::printf(" %10.1f", ms * 1000.0 / sizes[s]);
      }
      std::printf(" %8.1f%%\n", 100.0 * ref.passMs[p] / ref.pipelineMs);
    }
    std::printf("  %-34s", "total (pipeline)");
    for (size_t s = 0; s < sizes.size(); ++s)
      std::printf(" %10.1f", chosen[s].pipelineMs * 1000.0 / sizes[s]);
    std::printf("\n  %-34s", "parse (not in the total)");
    for (size_t s = 0; s < sizes.size(); ++s)
      std::printf(" %10.1f", chosen[s].parseMs * 1000.0 / sizes[s]);
    std::printf("\n  %-34s", "growth per copy (vs 10 copies)");
    for (size_t s = 0; s < sizes.size(); ++s)
      std::printf(" %9.2fx", chosen[s].pipelineMs / sizes[s] /
                                 (chosen[ref10].pipelineMs / sizes[ref10]));
    std::printf("\n");
    {
      // What a user gets: one copy through the default pipeline.
      std::vector<double> merged;
      for (int rep = 0; rep < 3; ++rep) {
        std::optional<Run> r =
            runPipeline(context, example, false, -1, nullptr, "wsp-pipeline");
        if (!r)
          return 1;
        merged.push_back(r->pipelineMs);
      }
      const double m = median(merged);
      std::printf("  %-34s %10.1f   (%.2fx the table's 1 copy)\n",
                  "total, kernels merged (default)", m * 1000.0,
                  m / chosen[0].pipelineMs);
    }
    if (w.path.find("decode_attention.mlir") != std::string::npos &&
        perCopy[w.name].count(10) && perCopy[w.name].count(100)) {
      for (int n : sizes) {
        char line[160];
        std::snprintf(line, sizeof line,
                      "decode attention <= 1000 us per copy at %d: %.0f us, %s",
                      n, perCopy[w.name][n],
                      verdict(perCopy[w.name][n], 1000).c_str());
        goal(line);
      }
      char line[200];
      if (full)
        std::snprintf(line, sizeof line,
                      "decode attention linear, per copy at 1000 / at 10 <= "
                      "1.1: %.2f, %s",
                      perCopy[w.name][1000] / perCopy[w.name][10],
                      verdict(perCopy[w.name][1000] / perCopy[w.name][10], 1.1)
                          .c_str());
      else
        std::snprintf(line, sizeof line,
                      "decode attention linear, per copy at 1000 / at 10 <= "
                      "1.1: not measured (--full); at 100 / at 10: %.2f",
                      perCopy[w.name][100] / perCopy[w.name][10]);
      goal(line);
    }
  }

  if (pipelineOnly)
    return 0;

  // 2. Threads.
  std::printf("\n== threads: the pipeline at 100 copies, one thread against "
              "the context's pool (%u threads)\n",
              std::max(1u, std::thread::hardware_concurrency()));
  std::printf("  %-20s %14s %14s %14s %14s\n", "workload", "1 thr CPU ms",
              "1 thr wall ms", "pool CPU ms", "pool wall ms");
  for (const Workload &w : workloads) {
    const std::string source = copies(readFile(w.path), 100);
    std::optional<Run> one = runPipeline(context, source, false);
    context.enableMultithreading(true);
    std::optional<Run> pool = runPipeline(context, source, false);
    context.disableMultithreading();
    if (!one || !pool)
      return 1;
    std::printf("  %-20s %14.1f %14.1f %14.1f %14.1f\n", w.name.c_str(),
                one->pipelineMs, one->wallMs, pool->pipelineMs, pool->wallMs);
  }

  // 3. The driver.
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("bench-pipeline-wspc", dir)) {
    std::fprintf(stderr, "error: cannot create a temporary directory\n");
    return 1;
  }
  std::printf("\n== wspc X -o DIR (no --run): CPU time, ms (child median of "
              "5; parts in-process, median of 3)\n");
  std::printf("  %-20s %10s %10s %10s %10s %10s\n", "workload", "wspc",
              "parse", "pipeline", "emission", "rest");
  for (const Workload &w : workloads) {
    std::vector<double> child, parse, pipe, emit;
    for (int rep = 0; rep < 5; ++rep) {
      double ms = wspcCpuMs(w.path, std::string(dir));
      if (ms < 0) {
        std::fprintf(stderr, "error: wspc failed on '%s'\n", w.path.c_str());
        return 1;
      }
      child.push_back(ms);
    }
    for (int rep = 0; rep < 3; ++rep) {
      std::optional<DriverParts> p = driverParts(context, w.path);
      if (!p)
        return 1;
      parse.push_back(p->parse);
      pipe.push_back(p->pipeline);
      emit.push_back(p->emit);
    }
    double c = median(child), pa = median(parse), pi = median(pipe),
           e = median(emit);
    std::printf("  %-20s %10.1f %10.1f %10.1f %10.1f %10.1f\n", w.name.c_str(),
                c, pa, pi, e, c - pa - pi - e);
    char line[160];
    if (w.path.find("tiny_lm.mlir") != std::string::npos) {
      std::snprintf(line, sizeof line, "wspc tiny model <= 100 ms: %.0f ms, %s",
                    c, verdict(c, 100).c_str());
      goal(line);
    } else if (w.path.find("attention_block.mlir") != std::string::npos) {
      std::snprintf(line, sizeof line,
                    "wspc attention block <= 40 ms: %.0f ms, %s", c,
                    verdict(c, 40).c_str());
      goal(line);
    }
  }
  llvm::sys::fs::remove_directories(dir);

  // 4. Scaling in functions.
  const int small = full ? 20000 : 2000, large = full ? 200000 : 20000;
  std::printf("\n== scaling: N small functions, parse + pipeline, CPU time, "
              "one thread\n");
  double at[2];
  for (int k = 0; k < 2; ++k) {
    const int n = k ? large : small;
    std::string source = "module {\n";
    for (int i = 0; i < n; ++i)
      source += "  func.func @f" + std::to_string(i) +
                "(%a: index) -> index {\n    %c = arith.constant 1 : index\n"
                "    %r = arith.addi %a, %c : index\n    return %r : index\n"
                "  }\n";
    source += "}\n";
    std::optional<Run> r = runPipeline(context, source, false);
    if (!r)
      return 1;
    at[k] = r->parseMs + r->pipelineMs;
    std::printf("  %7d functions: %10.1f ms (parse %.1f, pipeline %.1f)\n", n,
                at[k], r->parseMs, r->pipelineMs);
  }
  {
    char line[200];
    std::snprintf(line, sizeof line,
                  "%dk functions in < 10x the time of %dk: %.2fx, %s%s",
                  large / 1000, small / 1000, at[1] / at[0],
                  verdict(at[1] / at[0], 10).c_str(),
                  full ? "" : " (the goal is 200k vs 20k: --full)");
    goal(line);
  }

  std::printf("\n== goals (issue 42)\n");
  for (const std::string &g : goals)
    std::printf("  %s\n", g.c_str());
  return 0;
}
