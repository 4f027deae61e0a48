//===- ProgramTree.h - a lowered program's emitted files --------*- C++ -*-===//
//
// What `wspc` writes and what the Python package compiles: every file of a
// lowered module's emitted tree, made in memory so that nothing is written
// when any part fails. One home for the tree's layout.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_PIPELINES_PROGRAMTREE_H
#define WSP_PIPELINES_PROGRAMTREE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir {
namespace wsp {

struct ProgramTreeOptions {
  /// The device form only (abi, aicpu, aicore): `--target=ascend`.
  bool deviceOnly = false;
  /// Also a self-check skeleton, `<stem>.selfcheck.cpp`.
  bool selfCheckSkeleton = false;
};

struct EmittedFile {
  std::string path; // relative to the tree's root
  std::string text;
};

struct ProgramTree {
  std::string stem;
  std::vector<EmittedFile> files;
  /// Why there is no AICore form (scalar kernels), or "".
  std::string noAicoreReason;
  /// One line per emitted kernel: the tiers it serves, its tier constants
  /// and the on-chip bytes it plans, e.g.
  /// "@k (tiers 1, 2) TILE_K=128: on chip UB 86080/196608".
  std::vector<std::string> kernels;
};

/// Emits the tree of a module the wsp pipeline lowered:
///   include/<stem>_abi.h, aicpu/<stem>_aicpu.cpp, aicore/<stem>_aicore.cpp
///   (the device form; the AICore file only where every kernel is a tile
///   kernel), cpusim/<stem>.cpp and cpusim/<stem>_capi.cpp (the CPU
///   simulation and its C entry points), and the skeleton when asked.
/// Fails with the emitters' diagnostics. A program with scalar kernels has
/// no AICore form: the tree leaves that file out and says why (a caller
/// that wants the device form only treats that as its error).
FailureOr<ProgramTree> emitProgramTree(ModuleOp module,
                                       const ProgramTreeOptions &options);

} // namespace wsp
} // namespace mlir

#endif // WSP_PIPELINES_PROGRAMTREE_H
