//===- ToolOptions.cpp - the tools' --help --------------------------------===//

#include "wsp/Support/ToolOptions.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

// (The options are libLLVM's objects, whose classes carry no RTTI UBSan's
// vptr check could read: lib/Support/CMakeLists.txt builds this file
// without that check in the sanitizer build.)
void mlir::wsp::hideLoadTimeOptions() {
  static const StringSet<> kept = {
      "help",    "help-list",     "help-hidden",      "help-list-hidden",
      "version", "print-options", "print-all-options"};
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    if (!kept.contains(entry.first) &&
        option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }
}
