//===- wsp-opt.cpp - wsp optimizer driver ---------------------------------===//

#include "wsp/Conversion/Passes.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "wsp/InitAllDialects.h"
#include "wsp/Pipelines/Pipelines.h"
#include "wsp/Target/Cpp/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  // The core upstream transforms (canonicalize, cse, inline, symbol-dce, ...)
  // are available to every wsp pipeline. mlir/InitAllPasses.h is avoided on
  // purpose: it pulls every conversion header and costs a minute per build.
  mlir::registerTransformsPasses();
  mlir::wsp::registerWspPasses();
  mlir::wsp::tile::registerTilePasses();
  mlir::wsp::registerWspConversionPasses();
  mlir::wsp::registerWspCppPasses();
  mlir::wsp::registerWspPipelines();

  mlir::DialectRegistry registry;
  mlir::wsp::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "wsp optimizer driver\n", registry));
}
