//===- InitAllDialects.h - wsp's dialects and the upstream ones -*- C++ -*-===//
//
// One list of dialects for every wsp entry point (wsp-opt, wsp-translate,
// wspc, the Python module), so they all accept the same IR.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_INITALLDIALECTS_H
#define WSP_INITALLDIALECTS_H

namespace mlir {
class DialectRegistry;
namespace wsp {

/// Registers the wsp, tile and llm dialects and the upstream dialects wsp
/// programs use: func, arith, scf, memref, math and emitc.
void registerAllDialects(DialectRegistry &registry);

} // namespace wsp
} // namespace mlir

#endif // WSP_INITALLDIALECTS_H
