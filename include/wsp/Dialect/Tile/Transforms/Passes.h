//===- Passes.h - tile passes -----------------------------------*- C++ -*-===//

#ifndef WSP_DIALECT_TILE_TRANSFORMS_PASSES_H
#define WSP_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

#include <pto/runtime/hardware.hpp>

#include <array>

namespace mlir {
namespace wsp {
namespace tile {

#define GEN_PASS_DECL
#include "wsp/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "wsp/Dialect/Tile/Transforms/Passes.h.inc"

/// The bytes a function's placed tiles take in each on-chip buffer (the end
/// of the last tile placed in it; buffers indexed by pto::runtime::Buffer).
/// Tiles not yet placed count nothing.
std::array<int64_t, ::pto::runtime::kNumBuffers>
getPlannedBufferBytes(FunctionOpInterface fn);

/// The bytes a function's tiles would take in each on-chip buffer once
/// tile-plan-memory has placed them all (by its rule: placed sites where
/// they are, the others after them in program order). Tiles of a dynamic
/// size count nothing.
std::array<int64_t, ::pto::runtime::kNumBuffers>
getBufferNeeds(FunctionOpInterface fn);

} // namespace tile
} // namespace wsp
} // namespace mlir

#endif // WSP_DIALECT_TILE_TRANSFORMS_PASSES_H
