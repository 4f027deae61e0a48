//===- wsp-translate.cpp - wsp translation driver -------------------------===//

#include "wsp/Support/InputFile.h"
#include "wsp/Support/ToolOptions.h"
#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

/// Whether `argv` names a translation, or asks for help or the version
/// (what mlirTranslateMain needs to run). Without one, its required-option
/// error is printed once per registered translation.
static bool namesATranslation(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = llvm::StringRef(argv[i]).ltrim('-');
    arg = arg.take_until([](char c) { return c == '='; });
    if (arg.starts_with("help") || arg == "version")
      return true;
    for (const mlir::wsp::WspTranslation &t : mlir::wsp::getWspTranslations())
      if (arg == t.name)
        return true;
  }
  return false;
}

/// The input file `argv` names (mlir-translate's one positional argument;
/// "-o" is its only option whose value is a separate argument), or "-".
static llvm::StringRef inputOf(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "-o" || arg == "--o") {
      ++i;
      continue;
    }
    if (!arg.starts_with("-") || arg == "-")
      return arg;
  }
  return "-";
}

int main(int argc, char **argv) {
  mlir::wsp::hideLoadTimeOptions();
  mlir::wsp::registerWspTranslations();
  if (!namesATranslation(argc, argv)) {
    llvm::errs() << "wsp-translate: name a translation:";
    for (const mlir::wsp::WspTranslation &t : mlir::wsp::getWspTranslations())
      llvm::errs() << " --" << t.name;
    llvm::errs() << " (see --help)\n";
    return 2;
  }
  // A device (/dev/zero), an input past the bound or a file nested deeper
  // than the parser can take is refused before the tool reads it.
  std::string error;
  if (!mlir::wsp::checkProgramFile(inputOf(argc, argv), error)) {
    llvm::errs() << "wsp-translate: error: " << error << "\n";
    return 1;
  }
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "wsp translation driver\n"));
}
