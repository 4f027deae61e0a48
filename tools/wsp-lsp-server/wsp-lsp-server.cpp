//===- wsp-lsp-server.cpp - MLIR's language server for wsp programs -------===//
//
// mlir-lsp-server with wsp's dialects (llm, wsp, tile and the upstream ones
// wsp programs use) registered: an editor gets diagnostics as you type,
// go-to-definition, hover and completion for .mlir files of wsp programs
// (docs/editors.md).
//
//===----------------------------------------------------------------------===//

#include "wsp/InitAllDialects.h"
#include "wsp/Support/ToolOptions.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::wsp::hideLoadTimeOptions();
  mlir::DialectRegistry registry;
  mlir::wsp::registerAllDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry)) ? 1 : 0;
}
