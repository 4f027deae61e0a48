//===- CApi.cpp - C entry points of the CPU simulation, and their signatures
//===//
//
// A foreign caller (Python's ctypes, a C program, another language's FFI)
// cannot call the typed C++ functions of wsp_gen::: they take MemRef<T, R>
// views. This file writes, per public function, one C entry point with a
// fixed shape,
//
//   int32_t wsp_capi_<f>(void *const *args, const int64_t *sizes,
//                        wsp_capi_call *call)
//
// (args[i]: argument i's data for a memref, a pointer to its value for a
// scalar; sizes: every memref's sizes in argument order; a scalar result
// other than the i32 status is written through args[n]; call: the caller's
// handle that receives the call's launch report and, for a program that
// plans or dispatches, says where its plans are drawn, or null); per
// wsp.step table, four more (wsp_capi_step_<t>_new, _free, _build,
// _replay) taking its function's arguments the same way; and, from the
// same walk, the signature of each entry as JSON, so the caller can check
// its arguments before any C++ runs. Both read one list of CallSignatures:
// the layout has one home. A call keeps nothing outside its arguments and
// its handle: calls on several threads at once are safe.
//
//===----------------------------------------------------------------------===//

#include "CppEmitter.h"

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Support/SourceNames.h"
#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::wsp;
using namespace mlir::wsp::cpp;

namespace {

/// One argument of a public function, as a caller passes it.
struct CallArg {
  std::string name;     // the source name, else arg<i>
  std::string typeText; // the MLIR type, for messages
  std::string cType;    // the element (memref) or value (scalar) C++ type
  std::string dtype;    // the element's name: bf16 f16 f32 f64 i8 ... descriptor
  bool isMemRef = false;
  SmallVector<int64_t> shape; // -1 where dynamic
  std::string workspace;      // llm.workspace: scratch the caller may omit
};

/// One public function.
struct CallSignature {
  std::string name;
  bool returnsStatus = false; // an i32 result: the PlanResult
  std::vector<CallArg> args;
  /// Any other scalar result, written through args[args.size()].
  std::optional<CallArg> result;
};

/// One wsp.step table: built from and replayed on its function's
/// arguments, so its entry points take them as that function's do.
struct StepSignature {
  std::string name;     // the table's symbol
  std::string function; // the function it captures
};

struct CallSignatures {
  std::vector<CallSignature> functions;
  std::vector<StepSignature> steps;
};

/// The numpy-independent name of a scalar type.
std::optional<std::string> dtypeName(Type t) {
  if (t.isBF16())
    return std::string("bf16");
  if (t.isF16())
    return std::string("f16");
  if (t.isF32())
    return std::string("f32");
  if (t.isF64())
    return std::string("f64");
  if (t.isIndex())
    return std::string("index");
  if (auto i = dyn_cast<IntegerType>(t))
    return (i.isUnsigned() ? "u" : "i") + std::to_string(i.getWidth());
  if (t.getDialect().getNamespace() == "wsp")
    return std::string("descriptor");
  return std::nullopt;
}

/// What follows wsp_capi_ in the names the C API gives its own functions
/// and types, which no entry point may take.
constexpr llvm::StringLiteral kOwnNames[] = {
    "version",      "call",        "call_new",        "call_free",
    "report_cores", "report_core", "call_draw_plans", "detail", "fault"};

FailureOr<CallSignatures> collectSignatures(ModuleOp module) {
  // The CPU simulation's printer spells the element types.
  Emitter e(llvm::nulls(), Flavor::CpuSim);
  populateStdEmission(e);
  populateWspEmission(e);
  populateTileEmission(e);
  std::vector<CallSignature> signatures;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal() || f.isPrivate())
      continue;
    CallSignature sig;
    sig.name = f.getSymName().str();
    // wsp_capi_<f> must not be one of the library's own names.
    if (llvm::is_contained(kOwnNames, sig.name))
      return f.emitOpError("is named like a C API function of its own: "
                           "wsp_capi_")
             << sig.name << " is taken";
    if (f.getNumResults() > 1 ||
        (f.getNumResults() == 1 && isa<ShapedType>(f.getResultTypes()[0])))
      return f.emitOpError("returns ")
             << f.getResultTypes()
             << "; a C entry point returns one scalar at most";
    sig.returnsStatus =
        f.getNumResults() == 1 && f.getResultTypes()[0].isInteger(32);
    if (f.getNumResults() == 1 && !sig.returnsStatus) {
      Type t = f.getResultTypes()[0];
      CallArg r;
      r.name = "result";
      llvm::raw_string_ostream(r.typeText) << t;
      std::optional<std::string> dtype = dtypeName(t);
      FailureOr<std::string> cType = e.scalarType(t, f);
      if (!dtype || failed(cType))
        return f.emitOpError("returns ")
               << t << ", which a C entry point cannot return";
      r.dtype = *dtype;
      r.cType = *cType;
      sig.result = std::move(r);
    }
    for (auto [i, arg] : llvm::enumerate(f.getArguments())) {
      CallArg a;
      a.name = getSourceName(arg.getLoc()).str();
      if (a.name.empty())
        a.name = "arg" + std::to_string(i);
      llvm::raw_string_ostream(a.typeText) << arg.getType();
      if (auto ws = f.getArgAttrOfType<StringAttr>(i, "llm.workspace"))
        a.workspace = ws.getValue().str();
      Type element = arg.getType();
      if (auto memref = dyn_cast<MemRefType>(arg.getType())) {
        if (memref.getRank() == 0 || !memref.getLayout().isIdentity())
          return f.emitOpError("argument ")
                 << i << " (" << memref
                 << "): a C entry point takes ranked row-major memrefs";
        a.isMemRef = true;
        for (int64_t size : memref.getShape())
          a.shape.push_back(ShapedType::isDynamic(size) ? -1 : size);
        element = memref.getElementType();
      }
      std::optional<std::string> dtype = dtypeName(element);
      if (!dtype)
        return f.emitOpError("argument ")
               << i << " has element type " << element
               << ", which a C entry point cannot take";
      a.dtype = *dtype;
      FailureOr<std::string> cType = e.scalarType(element, f);
      if (failed(cType))
        return failure();
      a.cType = *cType;
      sig.args.push_back(std::move(a));
    }
    signatures.push_back(std::move(sig));
  }
  CallSignatures all;
  for (auto step : module.getOps<StepOp>()) {
    StepSignature st{step.getSymName().str(), step.getFunction().str()};
    // wsp_capi_step_<t>_{new,free,build,replay} must not be a function's
    // entry point.
    for (const CallSignature &sig : signatures)
      if (StringRef(sig.name).starts_with("step_" + st.name + "_"))
        return step.emitOpError("has C entry points wsp_capi_step_")
               << st.name << "_*, and a function is named @" << sig.name;
    if (!llvm::any_of(signatures, [&](const CallSignature &sig) {
          return sig.name == st.function;
        }))
      return step.emitOpError("captures @")
             << st.function << ", which is not a public function";
    all.steps.push_back(std::move(st));
  }
  all.functions = std::move(signatures);
  return all;
}

/// The arguments of a call to `sig`'s function from the C entry point's
/// `args` and `sizes`, as C++ source; `sizesUsed` counts the sizes read.
std::string marshalArgs(const CallSignature &sig, int &sizesUsed) {
  std::string call;
  sizesUsed = 0;
  for (auto [i, a] : llvm::enumerate(sig.args)) {
    call += i ? ",\n      " : "\n      ";
    std::string arg = "args[" + std::to_string(i) + "]";
    if (!a.isMemRef) {
      call += "*static_cast<const " + a.cType + " *>(" + arg + ")";
      continue;
    }
    std::string sizes;
    for (size_t d = 0; d < a.shape.size(); ++d)
      sizes += (d ? ", " : "") + ("sizes[" + std::to_string(sizesUsed++) + "]");
    call += "MemRef<" + a.cType + ", " + std::to_string(a.shape.size()) +
            ">{static_cast<" + a.cType + " *>(" + arg + "), {" + sizes + "}}";
  }
  return call;
}

/// The layout of the entry points: 2 since each call takes its own handle
/// (1 kept one report for the whole library, which calls on several
/// threads shared).
constexpr int kCApiVersion = 2;
/// The fields of one core's record in wsp_capi_report_core.
constexpr int kReportFields = 6;
constexpr int kReportTiers = 256;

} // namespace

LogicalResult mlir::wsp::emitCpuSimCApi(ModuleOp module, raw_ostream &os) {
  FailureOr<CallSignatures> all = collectSignatures(module);
  if (failed(all))
    return failure();
  const std::vector<CallSignature> *signatures = &all->functions;
  const std::string stem = getEmissionStem(module);
  std::string buffer;
  llvm::raw_string_ostream out(buffer);
  // A program that plans balanced or dispatches draws its plans; a caller
  // asks for a call's charts through its handle.
  auto plansOrDispatches = [](Operation *op) {
    return isa<DispatchOp, PlanBalancedOp>(op) ? WalkResult::interrupt()
                                               : WalkResult::advance();
  };
  const bool drawsPlans = module->walk(plansOrDispatches).wasInterrupted();
  out << "// Generated by wsp-translate --wsp-to-cpusim-capi. Do not edit.\n"
         "// C entry points of "
      << stem
      << "'s CPU simulation, for callers that cannot take\n"
         "// wsp_gen::MemRef views (Python's ctypes, C). Build it beside "
      << stem
      << ".cpp:\n"
         "//   c++ -std=c++17 -shared -fPIC -D__CPU_SIM -I<runtime include> "
      << stem << "_capi.cpp\n#include \"" << stem
      << ".cpp\"\n\n#include <new>\n\n"
         "// The program's types by their short names (bf16, MemRef).\n"
         "using namespace wsp_gen;\n\n"
         "/// What one call records besides its results, owned by the caller: "
         "the launch\n/// report of its dispatches"
      << (drawsPlans ? " and where its plans are drawn" : "")
      << ".\n/// Nothing of a call is kept anywhere else, so calls on several "
         "threads at once\n/// are safe, each with its own handle (or none).\n"
         "struct wsp_capi_call {\n"
         "  ::pto::runtime::sim::LaunchReport report;\n";
  if (drawsPlans)
    out << "  ::pto::runtime::sim::PlanCharts charts;\n";
  out << "};\n\n"
         "namespace wsp_capi_detail {\n"
         "/// For one call, on the calling thread: its dispatches recorded "
         "afresh in its\n/// handle's report";
  if (drawsPlans)
    out << ", its plans drawn as the handle asks (a call\n/// without a "
           "handle draws none: the environment is not read)";
  out << ".\nclass Scope {\npublic:\n"
         "  explicit Scope(::wsp_capi_call *call)\n"
         "      : saved_(wsp_gen::wsp_launch_report)";
  if (drawsPlans)
    out << ", charts_(call ? &call->charts : &none_)";
  out << " {\n"
         "    if (call) {\n"
         "      call->report.cores.clear();\n"
         "      call->report.launches = 0;\n"
         "      call->report.launch_us = 0;\n";
  if (drawsPlans)
    out << "      call->charts.count = 0;\n"
           "      call->charts.failed = false;\n";
  out << "    }\n"
         "    wsp_gen::wsp_launch_report = call ? &call->report : nullptr;\n"
         "  }\n"
         "  ~Scope() { wsp_gen::wsp_launch_report = saved_; }\n"
         "  Scope(const Scope &) = delete;\n"
         "  Scope &operator=(const Scope &) = delete;\n\n"
         "private:\n"
         "  ::pto::runtime::sim::LaunchReport *saved_;\n";
  if (drawsPlans)
    out << "  ::pto::runtime::sim::PlanCharts none_;\n"
           "  ::pto::runtime::sim::ScopedPlanCharts charts_;\n";
  out << "};\n} // namespace wsp_capi_detail\n\n"
         "extern \"C\" {\n\n"
         "/// The layout of these entry points; a caller checks it.\n"
         "int32_t wsp_capi_version(void) { return "
      << kCApiVersion
      << "; }\n\n"
         "/// A new call handle, to pass to the calls whose report a caller "
         "reads\n/// (null when out of memory); one call at a time.\n"
         "::wsp_capi_call *wsp_capi_call_new(void) {\n"
         "  return new (std::nothrow) ::wsp_capi_call();\n}\n\n"
         "void wsp_capi_call_free(::wsp_capi_call *call) { delete call; }\n\n"
         "/// The cores of the last dispatch of the last call given `call`.\n"
         "int64_t wsp_capi_report_cores(const ::wsp_capi_call *call) {\n"
         "  return call ? static_cast<int64_t>(call->report.cores.size()) : "
         "0;\n}\n\n"
         "/// Core `core` of that dispatch: group, kind (0 cube, 1 vector, 2 "
         "mix), block\n/// index, descriptors, cost, busy nanoseconds, then "
         "the descriptors of each of\n/// "
      << kReportTiers << " tiers (" << kReportFields << " + " << kReportTiers
      << " values).\n"
         "int32_t wsp_capi_report_core(const ::wsp_capi_call *call, int64_t "
         "core,\n                             int64_t *out) {\n"
         "  if (core < 0 || core >= wsp_capi_report_cores(call))\n"
         "    return 3;\n"
         "  const auto &c = call->report.cores[static_cast<size_t>(core)];\n"
         "  out[0] = c.group;\n"
         "  out[1] = static_cast<int64_t>(c.kind);\n"
         "  out[2] = c.block_idx;\n"
         "  out[3] = static_cast<int64_t>(c.descriptors);\n"
         "  out[4] = static_cast<int64_t>(c.cost);\n"
         "  out[5] = static_cast<int64_t>(c.busy_us * 1000.0);\n"
         "  for (int t = 0; t < "
      << kReportTiers
      << "; ++t)\n"
         "    out["
      << kReportFields
      << " + t] = static_cast<int64_t>(c.per_tier[static_cast<size_t>(t)]);\n"
         "  return 0;\n}\n\n"
         "/// What stopped the calling thread's last call: a kernel fault's "
         "message (a\n/// tile load or store, or a page, outside its memory; "
         "the call returned\n/// INVALID_PARAMS), or null.\n"
         "const char *wsp_capi_fault(void) { return "
         "::pto::runtime::sim::fault(); }\n";
  if (drawsPlans)
    out << "\n/// Draws the plans of each call given `call` into `dir` (null "
           "or empty:\n/// none), as plan_<n>-<function>-call1[-plan<p>].svg, "
           "n counting the call's\n/// plans from 0. 0, or 3 without a "
           "handle.\n"
           "int32_t wsp_capi_call_draw_plans(::wsp_capi_call *call, const "
           "char *dir) {\n"
           "  if (!call)\n"
           "    return 3;\n"
           "  call->charts.dir = dir ? dir : \"\";\n"
           "  return 0;\n}\n";
  for (const CallSignature &sig : *signatures) {
    out << "\n/// func.func @" << sig.name << "\n";
    for (auto [i, a] : llvm::enumerate(sig.args))
      out << "///   args[" << i << "] " << a.name << ": " << a.typeText
          << (a.workspace.empty() ? "" : " (workspace " + a.workspace + ")")
          << "\n";
    int sizeIndex = 0;
    const std::string call = marshalArgs(sig, sizeIndex);
    if (sig.result)
      out << "///   args[" << sig.args.size() << "] receives the result: "
          << sig.result->typeText << "\n";
    out << "int32_t wsp_capi_" << sig.name << "(void *const *args, "
        << "const int64_t *sizes,\n    ::wsp_capi_call *call) {\n";
    out << "  ::wsp_capi_detail::Scope scope(call);\n";
    if (sig.args.empty() && !sig.result)
      out << "  (void)args;\n";
    if (sizeIndex == 0)
      out << "  (void)sizes;\n";
    // A call starts with no kernel fault pending; one that faulted
    // returns INVALID_PARAMS (wsp_capi_fault says why).
    out << "  ::pto::runtime::sim::clear_fault();\n";
    if (sig.returnsStatus)
      out << "  const int32_t status = wsp_gen::" << sig.name << "(" << call
          << ");\n";
    else if (sig.result)
      out << "  *static_cast<" << sig.result->cType << " *>(args["
          << sig.args.size() << "]) = wsp_gen::" << sig.name << "(" << call
          << ");\n  const int32_t status = 0;\n";
    else
      out << "  wsp_gen::" << sig.name << "(" << call
          << ");\n  const int32_t status = 0;\n";
    out << "  return ::pto::runtime::sim::fault() ? 3 : status;\n}\n";
  }
  for (const StepSignature &step : all->steps) {
    const CallSignature &sig =
        *llvm::find_if(*signatures, [&](const CallSignature &s) {
          return s.name == step.function;
        });
    int sizeIndex = 0;
    const std::string call = marshalArgs(sig, sizeIndex);
    const std::string t = "wsp_gen::" + step.name;
    const std::string entry = "wsp_capi_step_" + step.name;
    out << "\n/// wsp.step @" << step.name << ": @" << step.function
        << "'s launches built once into a table (its\n/// arguments as "
           "wsp_capi_"
        << step.function
        << "'s) and replayed per token. One thread uses a\n/// table at a "
           "time.\n"
        << "void *" << entry << "_new(void) {\n  return new (std::nothrow) "
        << t << "();\n}\n\n"
        << "void " << entry << "_free(void *table) {\n  delete static_cast<"
        << t << " *>(table);\n}\n\n"
        << "/// Records the step's launches, once (max_tokens: the tokens a "
           "replay may\n/// run; kv_capacity: a request's KV positions).\n";
    // _build(table, max_tokens, kv_capacity, ...) and _replay(table,
    // first_token, num_tokens, ...): wsp_gen::<t>_<what> on the function's
    // arguments.
    auto entryPoint = [&](StringRef what, StringRef first, StringRef second) {
      out << "int32_t " << entry << "_" << what << "(void *table, int32_t "
          << first << ",\n    int32_t " << second
          << ", void *const *args, const int64_t *sizes,\n    "
             "::wsp_capi_call *call) {\n"
          << "  ::wsp_capi_detail::Scope scope(call);\n"
          << (sizeIndex ? "" : "  (void)sizes;\n")
          << "  ::pto::runtime::sim::clear_fault();\n"
          << "  const int32_t status = wsp_gen::" << step.name << "_" << what
          << "(*static_cast<" << t << " *>(table), " << first << ",\n      "
          << second << "," << call << ");\n"
          << "  return ::pto::runtime::sim::fault() ? 3 : status;\n}\n";
    };
    entryPoint("build", "max_tokens", "kv_capacity");
    out << "\n/// Replays tokens [first_token, first_token + num_tokens) on "
           "the arguments\n/// the table was built on (INVALID_PARAMS, 3, on "
           "others).\n";
    entryPoint("replay", "first_token", "num_tokens");
  }
  out << "\n} // extern \"C\"\n";
  os << buffer;
  return success();
}

LogicalResult mlir::wsp::emitCallSignatures(ModuleOp module, raw_ostream &os) {
  FailureOr<CallSignatures> all = collectSignatures(module);
  if (failed(all))
    return failure();
  llvm::json::Array functions;
  for (const CallSignature &sig : all->functions) {
    llvm::json::Array args;
    for (const CallArg &a : sig.args) {
      llvm::json::Object arg{{"name", a.name},
                             {"type", a.typeText},
                             {"dtype", a.dtype},
                             {"memref", a.isMemRef}};
      if (a.isMemRef)
        arg["shape"] = llvm::json::Array(a.shape);
      if (!a.workspace.empty())
        arg["workspace"] = a.workspace;
      args.push_back(std::move(arg));
    }
    llvm::json::Object fn{{"name", sig.name},
                          {"status", sig.returnsStatus},
                          {"args", std::move(args)}};
    if (sig.result)
      fn["result"] = llvm::json::Object{{"type", sig.result->typeText},
                                        {"dtype", sig.result->dtype}};
    functions.push_back(std::move(fn));
  }
  llvm::json::Array steps;
  for (const StepSignature &step : all->steps)
    steps.push_back(
        llvm::json::Object{{"name", step.name}, {"function", step.function}});
  llvm::json::Object root{
      {"stem", getEmissionStem(module)},   {"capi_version", kCApiVersion},
      {"report_fields", kReportFields},    {"report_tiers", kReportTiers},
      {"functions", std::move(functions)}, {"steps", std::move(steps)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return success();
}
