//===- wsp-opt.cpp - wsp optimizer driver ---------------------------------===//

#include "wsp/InitAllDialects.h"
#include "wsp/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::wsp::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::wsp::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "wsp optimizer driver\n", registry));
}
