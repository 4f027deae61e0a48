//===- SourceNames.h - the source's SSA names, kept on the IR ---*- C++ -*-===//
//
// MLIR drops SSA names when it parses: `%kv_start` becomes a value. The
// emitters print names a person can read, so the tools that parse a program
// (wspc, the llm lowering's kernel templates) keep them as locations: a
// value's source name becomes a NameLoc on its block argument, or on its
// defining op when that op has one result. Locations survive cloning and
// most rewrites, and change no semantics; the C++ emitter reads them
// (sourceName) and falls back to numbered names where there is none.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_SUPPORT_SOURCENAMES_H
#define WSP_SUPPORT_SOURCENAMES_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class AsmParserState;
class ParserConfig;

namespace wsp {

/// Records every SSA name `state` saw (its parse of the program) on the IR,
/// as NameLocs wrapping the current locations. Numeric names (`%0`) carry
/// nothing and are skipped.
void attachSourceNames(const AsmParserState &state);

/// Parses `sourceMgr`'s main buffer as a module (one is created around
/// top-level ops that are not one) with the SSA names attached. Null on a
/// parse error (reported through the context's diagnostics).
OwningOpRef<ModuleOp> parseModuleWithNames(const llvm::SourceMgr &sourceMgr,
                                           const ParserConfig &config);

/// The source name NameLoc `loc` carries (looking through a FusedLoc's
/// first location), or "" when there is none.
llvm::StringRef getSourceName(Location loc);

} // namespace wsp
} // namespace mlir

#endif // WSP_SUPPORT_SOURCENAMES_H
