//===- ToolOptions.h - the tools' --help ------------------------*- C++ -*-===//
//
// A tool linked against libLLVM inherits several hundred command-line
// options LLVM's code generators register when the library loads (AMDGPU,
// ARM, Polly, ...): wsp-opt's --help was 555 lines, its own and MLIR's
// options lost among them. hideLoadTimeOptions(), called first in main,
// hides every option registered before it from --help (--help-hidden
// still lists them, and they still parse); MLIR's and wsp's options are
// registered after it and stay listed.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_SUPPORT_TOOLOPTIONS_H
#define WSP_SUPPORT_TOOLOPTIONS_H

namespace mlir {
namespace wsp {

/// Hides from --help the options registered so far, except --help's own
/// family and --version.
void hideLoadTimeOptions();

/// The name of a tool's own option category, "<what> options (<tool>)":
/// LLVM prints --help's categories sorted by name, and this one sorts
/// before LLVM's "Generic Options" (--help, --version), so a tool's own
/// options come first. `what` must begin with a capital letter before G
/// ("Compiler", "Drawing"); test/Tools checks the order.
#define WSP_TOOL_CATEGORY(what, tool) what " options (" tool ")"

} // namespace wsp
} // namespace mlir

#endif // WSP_SUPPORT_TOOLOPTIONS_H
