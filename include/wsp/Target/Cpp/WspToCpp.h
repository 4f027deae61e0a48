//===- WspToCpp.h - C++ emission from wsp IR --------------------*- C++ -*-===//
//
// Emitters read IR and never change it; anything that must change before
// printing is a preparation pass's job.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_TARGET_CPP_WSPTOCPP_H
#define WSP_TARGET_CPP_WSPTOCPP_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class ModuleOp;
namespace wsp {
class TierConfigOp;

/// The C++ type of a tier configuration,
/// `::pto::runtime::TierConfig<::pto::runtime::Tier<id, min, max>, ...>`,
/// on one line, or one tier per line at `lineIndent` when it is not empty.
/// One spelling for the tier-config header and for planner calls in
/// emitted code.
std::string getTierConfigCppType(TierConfigOp op,
                                 llvm::StringRef lineIndent = "");

/// True if `name` can be used verbatim as a C++ identifier (not a keyword,
/// not reserved by the implementation).
bool isValidCppIdentifier(llvm::StringRef name);

/// Emits a C++17 header that declares every `wsp.tier_config` in `module` as
/// a `pto::runtime::TierConfig` alias. Fails with a diagnostic on the
/// offending op (and writes nothing) if a symbol is not a usable C++ name.
LogicalResult emitTierConfigsHeader(ModuleOp module, llvm::raw_ostream &os);

/// Emits the pipeline's output (what wsp-check-emittable accepts) as one
/// C++17 source for the CPU simulation against pto::runtime: functions,
/// specialized kernels, O(1) kernel tables, static descriptor tables.
/// Writes nothing and names the op on failure.
LogicalResult emitCpuSim(ModuleOp module, llvm::raw_ostream &os);

/// The device form of the same program, as three files that share one
/// interface: <stem>_abi.h (memref views, argument blocks, launch hooks),
/// <stem>_aicpu.cpp (the planning functions as `extern "C" int f(void *)`
/// AICPU entries that fill descriptors and launch the AICore kernels) and
/// <stem>_aicore.cpp (per-tier kernels and, per kernel table, an
/// `extern "C" __global__ AICORE` entry that runs its core's share and
/// selects the tier with a switch). <stem> is the module's name, or
/// wsp_module.
LogicalResult emitAbiHeader(ModuleOp module, llvm::raw_ostream &os);
LogicalResult emitAicpu(ModuleOp module, llvm::raw_ostream &os);
LogicalResult emitAicore(ModuleOp module, llvm::raw_ostream &os);
std::string getEmissionStem(ModuleOp module);
/// A self-check to start from for the module's public functions (what
/// `wspc --run` compiles beside the CPU-sim program): every argument
/// allocated, each function called, the reference left to the author.
LogicalResult emitSelfCheckSkeleton(ModuleOp module, llvm::raw_ostream &os);
/// C entry points for foreign callers (ctypes, C), one per public function:
/// `int32_t wsp_capi_<f>(void *const *args, const int64_t *sizes,
/// wsp_capi_call *call)`, where the caller's handle `call` receives the
/// call's launch report (lib/Target/Cpp/CApi.cpp). Calls on several threads
/// at once are safe.
LogicalResult emitCpuSimCApi(ModuleOp module, llvm::raw_ostream &os);
/// The same entry points' signatures as JSON: per function its arguments'
/// names, element types, shapes (-1 dynamic) and workspaces.
LogicalResult emitCallSignatures(ModuleOp module, llvm::raw_ostream &os);

/// One wsp translation: a module in, text out. The same table backs
/// wsp-translate's flags and the Python package's translate().
struct WspTranslation {
  llvm::StringRef name;
  llvm::StringRef description;
  LogicalResult (*emit)(ModuleOp module, llvm::raw_ostream &os);
};

/// Every translation wsp provides.
llvm::ArrayRef<WspTranslation> getWspTranslations();

/// Registers getWspTranslations() with the mlir-translate registry.
void registerWspTranslations();

} // namespace wsp
} // namespace mlir

#endif // WSP_TARGET_CPP_WSPTOCPP_H
