//===- wsp-opt.cpp - wsp optimizer driver ---------------------------------===//

#include "wsp/InitAllDialects.h"
#include "wsp/InitAllPasses.h"
#include "wsp/Support/InputFile.h"
#include "wsp/Support/ToolOptions.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::wsp::hideLoadTimeOptions();
  mlir::wsp::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::wsp::registerAllDialects(registry);
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "wsp optimizer driver\n", registry);
  // A device (/dev/zero), an input past the bound or a file nested deeper
  // than the parser can take is refused before the tool reads it.
  std::string error;
  if (!mlir::wsp::checkProgramFile(input, error)) {
    llvm::errs() << "wsp-opt: error: " << error << "\n";
    return 1;
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
