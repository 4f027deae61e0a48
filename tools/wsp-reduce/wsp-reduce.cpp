//===- wsp-reduce.cpp - MLIR's test-case reducer for wsp programs ---------===//
//
// mlir-reduce with wsp's dialects and passes registered: given a program
// and an interestingness script (which exits non-zero while the program
// still shows the bug), it removes what the bug does not need
// (docs/editors.md has an example).
//
//===----------------------------------------------------------------------===//

#include "wsp/InitAllDialects.h"
#include "wsp/InitAllPasses.h"
#include "wsp/Support/ToolOptions.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-reduce/MlirReduceMain.h"

int main(int argc, char **argv) {
  mlir::wsp::hideLoadTimeOptions();
  mlir::wsp::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::wsp::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  return mlir::failed(mlir::mlirReduceMain(argc, argv, context)) ? 1 : 0;
}
