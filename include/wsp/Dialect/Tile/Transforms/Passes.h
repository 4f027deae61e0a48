//===- Passes.h - tile passes -----------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_TILE_TRANSFORMS_PASSES_H
#define WSP_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace wsp {
namespace tile {

#define GEN_PASS_DECL
#include "wsp/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "wsp/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace tile
} // namespace wsp
} // namespace mlir

#endif // WSP_DIALECT_TILE_TRANSFORMS_PASSES_H
