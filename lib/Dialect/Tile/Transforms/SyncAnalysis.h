//===- SyncAnalysis.h - the order tile kernels need between pipes -*- C++ -*-//
//
// One symbolic execution of a tile kernel serves both tile-insert-sync and
// tile-check-sync. It runs the kernel's instructions in program order with
// a vector clock per (core, pipe) agent, as pto::runtime's tile simulation
// does at run time: flags carry what their setter had done to the waiter.
// Every pair of accesses that conflict (same tile site or global buffer, one
// of them a write) must be ordered; when one is not, the solver inserts the
// flags that order it (insert mode) or reports it (check mode).
//
// Loops are executed symbolically several times (once more than the most
// buffers a multi-buffered tile of the loop has), so that a pair across
// iterations meets; branches are executed on copies of the state that are
// joined conservatively after.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_LIB_DIALECT_TILE_TRANSFORMS_SYNCANALYSIS_H
#define WSP_LIB_DIALECT_TILE_TRANSFORMS_SYNCANALYSIS_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/AnalysisManager.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace wsp {
namespace tile {

struct SyncResult {
  /// Flags (set/wait pairs, barriers, cross-core pairs) inserted.
  unsigned inserted = 0;
  /// Unordered pairs found (check mode).
  unsigned missing = 0;
  /// Insert mode: a check-mode solve (what tile-check-sync without its
  /// redundancy search runs) succeeded on the function as it was left.
  bool proven = false;
};

/// The functions of a module that tile-insert-sync proved ordered, as
/// tile-check-sync would check them (every pair ordered over two
/// invocations, every wait matched, no set left pending, no divergent
/// cross-core flag): the pruning's last successful solve ran on exactly
/// the program it left. tile-insert-sync keeps this analysis; a pass that
/// changes IR after it invalidates it (the pass manager's rule), and
/// tile-check-sync then checks from scratch. A contract between the two
/// that changes nothing, or tile-mark-fusion (attributes only), preserves
/// it.
struct SyncProofs {
  explicit SyncProofs(Operation *) {}
  llvm::DenseSet<Operation *> proven;
  bool isInvalidated(const AnalysisManager::PreservedAnalyses &pa) {
    return !pa.isPreserved<SyncProofs>();
  }
};

/// Inserts the synchronization `fn` needs (insert = true) or reports what is
/// missing, unbalanced or redundant (insert = false). Fails on a diagnosed
/// error. `redundant`: after inserting, remove the inserted flags the result
/// does not need; when checking, warn at flags the kernel does not need.
FailureOr<SyncResult> solveSync(FunctionOpInterface fn, bool insert,
                                bool redundant = true);

} // namespace tile
} // namespace wsp
} // namespace mlir

#endif // WSP_LIB_DIALECT_TILE_TRANSFORMS_SYNCANALYSIS_H
