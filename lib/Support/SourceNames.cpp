//===- SourceNames.cpp - the source's SSA names, kept on the IR -----------===//

#include "wsp/Support/SourceNames.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

/// The name at a definition's start: `%name` (or `%name#1`, `%name:2`)
/// without its sigil and suffix; "" for numeric names.
static StringRef nameAt(llvm::SMRange range) {
  const char *p = range.Start.getPointer();
  if (!p || *p != '%')
    return "";
  const char *begin = ++p;
  while (llvm::isAlnum(*p) || *p == '_' || *p == '$' || *p == '.' || *p == '-')
    ++p;
  StringRef name(begin, p - begin);
  if (name.empty() || llvm::isDigit(name.front()))
    return "";
  return name;
}

static Location named(StringRef name, Location loc) {
  return NameLoc::get(StringAttr::get(loc->getContext(), name), loc);
}

void mlir::wsp::attachSourceNames(const AsmParserState &state) {
  for (const AsmParserState::OperationDefinition &def : state.getOpDefs()) {
    if (def.op->getNumResults() != 1 || def.resultGroups.empty())
      continue;
    StringRef name = nameAt(def.resultGroups.front().definition.loc);
    if (!name.empty())
      def.op->setLoc(named(name, def.op->getLoc()));
  }
  for (const AsmParserState::BlockDefinition &def : state.getBlockDefs())
    for (auto [arg, argDef] :
         llvm::zip(def.block->getArguments(), def.arguments)) {
      StringRef name = nameAt(argDef.loc);
      if (!name.empty())
        arg.setLoc(named(name, arg.getLoc()));
    }
}

OwningOpRef<ModuleOp>
mlir::wsp::parseModuleWithNames(const llvm::SourceMgr &sourceMgr,
                                const ParserConfig &config) {
  Block block;
  AsmParserState state;
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  Location loc = FileLineColLoc::get(config.getContext(),
                                     buffer->getBufferIdentifier(), 0, 0);
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &state)))
    return nullptr;
  attachSourceNames(state);
  return detail::constructContainerOpForParserIfNecessary<ModuleOp>(
      &block, config.getContext(), loc);
}

StringRef mlir::wsp::getSourceName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return getSourceName(fused.getLocations().front());
  return "";
}
