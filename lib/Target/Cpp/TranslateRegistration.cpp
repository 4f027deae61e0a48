//===- TranslateRegistration.cpp - wsp-translate registrations ------------===//

#include "wsp/InitAllDialects.h"
#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

ArrayRef<wsp::WspTranslation> mlir::wsp::getWspTranslations() {
  static const WspTranslation translations[] = {
      {"wsp-tier-configs-to-cpp",
       "emit every wsp.tier_config as a pto::runtime::TierConfig C++ alias",
       &emitTierConfigsHeader},
      {"wsp-to-cpusim",
       "emit the wsp-pipeline output as CPU-simulation C++ (pto::runtime)",
       &emitCpuSim},
      {"wsp-to-abi", "emit the device form's shared interface header",
       &emitAbiHeader},
      {"wsp-to-aicpu", "emit the device form's AICPU planning source",
       &emitAicpu},
      {"wsp-to-aicore", "emit the device form's AICore kernel source",
       &emitAicore},
      {"wsp-to-selfcheck-skeleton",
       "emit a self-check to start from for wspc --run",
       &emitSelfCheckSkeleton},
      {"wsp-to-cpusim-capi",
       "emit C entry points of the CPU-simulation program (for ctypes, C)",
       &emitCpuSimCApi},
      {"wsp-to-call-signatures",
       "emit the C entry points' signatures as JSON",
       &emitCallSignatures},
  };
  return translations;
}

void mlir::wsp::registerWspTranslations() {
  // Registration is global and must happen once per process.
  static const bool registered = [] {
    for (const WspTranslation &t : getWspTranslations()) {
      auto emit = t.emit;
      TranslateFromMLIRRegistration(
          t.name, t.description,
          [emit](Operation *op, raw_ostream &os) -> LogicalResult {
            auto module = dyn_cast<ModuleOp>(op);
            if (!module)
              return op->emitError(
                  "expected a builtin.module at the top level");
            return emit(module, os);
          },
          [](DialectRegistry &registry) { registerAllDialects(registry); });
    }
    return true;
  }();
  (void)registered;
}
