// Uses the installed dialect (parse + verify + query an op) and the installed
// runtime headers in one program.
#include "wsp/Dialect/Wsp/IR/WspOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <pto/runtime/runtime.hpp>

#include <cstdio>

int main() {
  mlir::MLIRContext context;
  context.loadDialect<mlir::wsp::WspDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      "wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, "
      "4096]>]",
      &context);
  if (!module)
    return 1;
  auto config = *module->getOps<mlir::wsp::TierConfigOp>().begin();
  std::printf("ir: %lld runtime: %d\n", (long long)config.selectTier(2000),
              pto::runtime::DecodeAttentionTiers::select_tier(2000));
  return 0;
}
