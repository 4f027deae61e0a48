//===- InitAllPasses.h - every pass and pipeline wsp offers -----*- C++ -*-===//
//
// One list of passes for every wsp entry point that runs them by name
// (wsp-opt, wspc, wsp-reduce, the Python module): the wsp, tile, conversion
// and backend passes, the named pipelines, and the core upstream transforms
// (canonicalize, cse, inline, symbol-dce, ...).
//
//===----------------------------------------------------------------------===//

#ifndef WSP_INITALLPASSES_H
#define WSP_INITALLPASSES_H

namespace mlir {
namespace wsp {

/// Registers every pass and named pipeline above. mlir/InitAllPasses.h is
/// avoided on purpose: it pulls every conversion header and costs a minute
/// per build.
void registerAllPasses();

} // namespace wsp
} // namespace mlir

#endif // WSP_INITALLPASSES_H
