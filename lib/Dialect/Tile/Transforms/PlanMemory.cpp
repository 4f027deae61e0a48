//===- PlanMemory.cpp - place tiles in their on-chip buffers --------------===//

#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <pto/runtime/hardware.hpp>

namespace mlir::wsp::tile {
#define GEN_PASS_DEF_TILEPLANMEMORY
#include "wsp/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::wsp::tile

using namespace mlir;
using namespace mlir::wsp::tile;
using ::pto::runtime::Buffer;

std::array<int64_t, ::pto::runtime::kNumBuffers>
mlir::wsp::tile::getPlannedBufferBytes(FunctionOpInterface fn) {
  std::array<int64_t, ::pto::runtime::kNumBuffers> end{};
  fn->walk([&](AllocOp op) {
    TileType t = op.getType();
    if (!op.getOffsetAttr() || !t.hasStaticShape())
      return;
    int b = static_cast<int>(getBuffer(t.getLoc()));
    end[b] = std::max(end[b], op.getOffsetAttr().getInt() +
                                  op.getNumBuffers() * t.getSizeInBytes());
  });
  return end;
}

namespace {

int64_t alignUp(int64_t n) {
  const int64_t a = ::pto::runtime::kTileAlignBytes;
  return (n + a - 1) / a * a;
}

/// The placement rule, one home for tile-plan-memory and what asks it how
/// much a function needs: sites with an offset stay there (`end` starts
/// after them), the others follow in program order, aligned, each taking
/// buffers x bytes. Calls place(site, offset) for each of the others.
template <typename Place>
void placeInOrder(ArrayRef<AllocOp> sites,
                  std::array<int64_t, ::pto::runtime::kNumBuffers> &end,
                  Place place) {
  for (AllocOp op : sites) {
    if (op.getOffsetAttr())
      continue;
    TileType t = op.getType();
    int b = static_cast<int>(getBuffer(t.getLoc()));
    int64_t offset = alignUp(end[b]);
    end[b] = offset + op.getNumBuffers() * t.getSizeInBytes();
    place(op, offset);
  }
}

} // namespace

std::array<int64_t, ::pto::runtime::kNumBuffers>
mlir::wsp::tile::getBufferNeeds(FunctionOpInterface fn) {
  SmallVector<AllocOp> sites;
  fn->walk([&](AllocOp op) {
    if (op.getType().hasStaticShape())
      sites.push_back(op);
  });
  std::array<int64_t, ::pto::runtime::kNumBuffers> end =
      getPlannedBufferBytes(fn);
  placeInOrder(sites, end, [](AllocOp, int64_t) {});
  return end;
}

namespace {

struct PlanMemoryPass
    : public mlir::wsp::tile::impl::TilePlanMemoryBase<PlanMemoryPass> {
  using TilePlanMemoryBase::TilePlanMemoryBase;

  /// Reports that `op`'s tile does not fit: it takes `bytes` at `offset`,
  /// and the kernel's tiles need `need` bytes of the buffer.
  void overflow(FunctionOpInterface fn, AllocOp op, int64_t offset,
                int64_t bytes, int64_t need) {
    TileType t = op.getType();
    Buffer buffer = getBuffer(t.getLoc());
    InFlightDiagnostic d = op.emitOpError()
                           << "does not fit: " << t << " x "
                           << op.getNumBuffers() << " needs " << bytes
                           << " bytes of " << ::pto::runtime::buffer_name(buffer)
                           << " at offset " << offset << "; the kernel's "
                           << ::pto::runtime::buffer_name(buffer)
                           << " tiles need " << need
                           << " bytes of the A2/A3 budget of "
                           << ::pto::runtime::buffer_bytes(buffer);
    if (auto kernel = fn->getAttrOfType<IntegerAttr>("tier"))
      d << " (tier " << kernel.getInt() << ")";
  }

  /// Plans one function; false on a diagnosed error.
  bool plan(FunctionOpInterface fn) {
    SmallVector<AllocOp> sites;
    fn->walk([&](AllocOp op) { sites.push_back(op); });
    if (sites.empty())
      return true;
    // Tile types are no larger than their buffer (the type verifier) and
    // buffers(N) is at most 8, so no sum below overflows.
    std::array<int64_t, ::pto::runtime::kNumBuffers> end{};
    // Sites placed by hand first: each must fit where it was put and share
    // no bytes with another, and the planner starts after them.
    SmallVector<AllocOp> placed[::pto::runtime::kNumBuffers];
    for (AllocOp op : sites) {
      TileType t = op.getType();
      if (!t.hasStaticShape()) {
        op.emitOpError() << "has a dynamic static extent (" << t
                         << "); specialize tiers before planning memory";
        return false;
      }
      if (auto offset = op.getOffsetAttr()) {
        int b = static_cast<int>(getBuffer(t.getLoc()));
        int64_t bytes = op.getNumBuffers() * t.getSizeInBytes();
        if (offset.getInt() + bytes >
            ::pto::runtime::buffer_bytes(getBuffer(t.getLoc()))) {
          overflow(fn, op, offset.getInt(), bytes, offset.getInt() + bytes);
          return false;
        }
        for (AllocOp other : placed[b]) {
          int64_t lo = other.getOffsetAttr().getInt(),
                  hi = lo + other.getNumBuffers() *
                                other.getType().getSizeInBytes();
          if (offset.getInt() < hi && lo < offset.getInt() + bytes) {
            InFlightDiagnostic d = op.emitOpError()
                                   << "shares bytes [" << std::max(lo, offset.getInt())
                                   << ", " << std::min(hi, offset.getInt() + bytes)
                                   << ") of " << ::pto::runtime::buffer_name(
                                                     getBuffer(t.getLoc()))
                                   << " with another site placed by hand";
            d.attachNote(other.getLoc()) << "the other site";
            return false;
          }
        }
        placed[b].push_back(op);
        end[b] = std::max(end[b], offset.getInt() + bytes);
      }
    }
    // The others in program order. Every site is placed before the budget
    // is checked, so that the error can say what the kernel needs in all.
    Builder builder(fn.getContext());
    AllocOp first;
    int64_t firstOffset = 0;
    placeInOrder(sites, end, [&](AllocOp op, int64_t offset) {
      op.setOffsetAttr(builder.getI64IntegerAttr(offset));
      Buffer buffer = getBuffer(op.getType().getLoc());
      if (!first && end[static_cast<int>(buffer)] >
                        ::pto::runtime::buffer_bytes(buffer)) {
        first = op;
        firstOffset = offset;
      }
    });
    if (first) {
      TileType t = first.getType();
      overflow(fn, first, firstOffset,
               first.getNumBuffers() * t.getSizeInBytes(),
               end[static_cast<int>(getBuffer(t.getLoc()))]);
      return false;
    }
    if (report) {
      InFlightDiagnostic d = fn->emitRemark() << "tiles use";
      const char *sep = " ";
      std::array<int64_t, ::pto::runtime::kNumBuffers> used =
          getPlannedBufferBytes(fn);
      for (int b = 0; b < ::pto::runtime::kNumBuffers; ++b) {
        if (!used[b])
          continue;
        d << sep << used[b] << " of "
          << ::pto::runtime::buffer_bytes(static_cast<Buffer>(b)) << " bytes of "
          << ::pto::runtime::buffer_name(static_cast<Buffer>(b));
        sep = ", ";
      }
    }
    return true;
  }

  void runOnOperation() override {
    bool ok = true;
    getOperation()->walk([&](FunctionOpInterface fn) { ok &= plan(fn); });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
