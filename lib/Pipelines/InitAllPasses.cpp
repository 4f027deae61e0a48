//===- InitAllPasses.cpp - every pass and pipeline wsp offers -------------===//

#include "wsp/InitAllPasses.h"
#include "wsp/Conversion/Passes.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "wsp/Pipelines/Pipelines.h"
#include "wsp/Target/Cpp/Passes.h"

#include "mlir/Transforms/Passes.h"

void mlir::wsp::registerAllPasses() {
  registerTransformsPasses();
  registerWspPasses();
  tile::registerTilePasses();
  registerWspConversionPasses();
  registerWspCppPasses();
  registerWspPipelines();
}
