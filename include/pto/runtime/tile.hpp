// pto/runtime/tile.hpp - a functional simulation of AICore tiles for the CPU
// simulation (PTO-WSP spec §10): the A2/A3 on-chip buffers of one core with
// their budgets, tiles placed in them at explicit offsets, one function per
// tile instruction (the semantics of hw-native-sys/pto-isa's instructions,
// written here from their definitions), and a checker that the pipes of a
// core, and the cube and vector cores of a block, are synchronized.
//
// Semantics, not timing: every instruction completes when called. The
// checker makes up for it. Each instruction runs on a pipe of a core; pipes
// run in parallel on a device, so an instruction that touches bytes another
// pipe touched must be ordered after it by set_flag/wait_flag (same core) or
// sync_set/sync_wait (the other core of the block), and one vector
// instruction that depends on another through a reduction, a broadcast or a
// differently shaped access needs pipe_barrier(V) between them. A missing
// order is reported with the two instructions and the bytes, and aborts.
//
// Plain C++17, no MLIR and no pto-isa: names live in pto::runtime::tile.
//
// The instructions live in one header per family under pto/runtime/tile/,
// included here in dependency order (each also compiles on its own):
//   types.hpp          locations, layouts, elements, errors, on-chip
//                      buffers, tiles, and helpers several families share
//   sync.hpp           the synchronization checker and instructions
//   data_movement.hpp  global memory <-> tiles, on-chip moves (TLOAD,
//                      TSTORE, TMOV, TEXTRACT, TTRANS)
//   elementwise.hpp    element-wise vector instructions, TCVT, TQUANT
//   reductions.hpp     row and column reductions and broadcasts
//   selection.hpp      indices, masks, selection, scalar access
//   cube.hpp           the cube (TMATMUL, TMATMUL_ACC, TGEMV)
//   fused.hpp          fused groups of vector instructions (tile::fused)
#ifndef PTO_RUNTIME_TILE_HPP
#define PTO_RUNTIME_TILE_HPP

#include "pto/runtime/tile/types.hpp"
#include "pto/runtime/tile/sync.hpp"
#include "pto/runtime/tile/data_movement.hpp"
#include "pto/runtime/tile/elementwise.hpp"
#include "pto/runtime/tile/reductions.hpp"
#include "pto/runtime/tile/selection.hpp"
#include "pto/runtime/tile/cube.hpp"
#include "pto/runtime/tile/fused.hpp"

#endif // PTO_RUNTIME_TILE_HPP
