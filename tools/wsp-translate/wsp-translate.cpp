//===- wsp-translate.cpp - wsp translation driver -------------------------===//

#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::wsp::registerWspTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "wsp translation driver\n"));
}
