//===- ProgramTree.cpp - a lowered program's emitted files ----------------===//

#include "wsp/Pipelines/ProgramTree.h"

#include "wsp/Dialect/Tile/Transforms/Passes.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

#include <pto/runtime/hardware.hpp>

using namespace mlir;
using namespace mlir::wsp;

/// "@k (tiers 1, 2) TILE_K=128: on chip UB 86080/196608" per kernel a
/// kernel table names, in table order.
static std::vector<std::string> describeKernels(ModuleOp module) {
  SymbolTableCollection symbols;
  llvm::MapVector<KernelOp, SmallVector<int64_t>> served;
  module->walk([&](KernelTableOp table) {
    for (auto [i, id] : llvm::enumerate(table.getTierIds()))
      if (auto kernel = symbols.lookupNearestSymbolFrom<KernelOp>(
              table, table.getKernel(i));
          kernel && !llvm::is_contained(served[kernel], id))
        served[kernel].push_back(id);
  });
  std::vector<std::string> lines;
  for (auto &[kernel, ids] : served) {
    llvm::sort(ids);
    std::string line;
    llvm::raw_string_ostream os(line);
    os << "@" << kernel.getSymName() << " (tier" << (ids.size() > 1 ? "s " : " ")
       << llvm::join(llvm::map_range(ids,
                                     [](int64_t id) {
                                       return std::to_string(id);
                                     }),
                     ", ")
       << ")";
    auto config = symbols.lookupNearestSymbolFrom<TierConfigOp>(
        kernel, kernel.getTiersAttr());
    std::optional<unsigned> index =
        config ? config.getTierIndex(kernel.getTierAttr().getInt())
               : std::nullopt;
    for (NamedAttribute c : kernel.getConstants())
      if (auto values = dyn_cast<DenseI64ArrayAttr>(c.getValue());
          values && index)
        os << " " << c.getName().getValue() << "="
           << values.asArrayRef()[*index];
    std::array<int64_t, ::pto::runtime::kNumBuffers> bytes =
        tile::getPlannedBufferBytes(kernel);
    const char *sep = ": on chip ";
    for (int b = 0; b < ::pto::runtime::kNumBuffers; ++b) {
      if (!bytes[b])
        continue;
      auto buffer = static_cast<::pto::runtime::Buffer>(b);
      os << sep << ::pto::runtime::buffer_name(buffer) << " " << bytes[b]
         << "/" << ::pto::runtime::buffer_bytes(buffer);
      sep = ", ";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

FailureOr<ProgramTree>
mlir::wsp::emitProgramTree(ModuleOp module, const ProgramTreeOptions &options) {
  ProgramTree tree;
  tree.stem = getEmissionStem(module);
  const std::string &stem = tree.stem;
  // The stem names files (lib<stem>.so, cpusim/<stem>_capi.cpp): a name
  // past what a file system takes would fail half-way through writing.
  constexpr size_t kMaxStem = 128;
  if (stem.size() > kMaxStem)
    return module.emitError("the program's name has ")
           << stem.size() << " characters; at most " << kMaxStem
           << " make its file names";
  using Emit = LogicalResult (*)(ModuleOp, llvm::raw_ostream &);
  SmallVector<std::pair<std::string, Emit>> files = {
      {"include/" + stem + "_abi.h", &emitAbiHeader},
      {"aicpu/" + stem + "_aicpu.cpp", &emitAicpu},
      {"aicore/" + stem + "_aicore.cpp", &emitAicore},
  };
  if (!options.deviceOnly) {
    files.push_back({"cpusim/" + stem + ".cpp", &emitCpuSim});
    files.push_back({"cpusim/" + stem + "_capi.cpp", &emitCpuSimCApi});
  }
  if (options.selfCheckSkeleton)
    files.push_back({stem + ".selfcheck.cpp", &emitSelfCheckSkeleton});
  for (auto &[path, emit] : files) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (emit != &emitAicore) {
      if (failed(emit(module, os)))
        return failure();
      tree.files.push_back({path, std::move(text)});
      continue;
    }
    // The AICore form exists for tile kernels only; a program with scalar
    // kernels still has its CPU simulation.
    std::string why;
    LogicalResult emitted = success();
    {
      ScopedDiagnosticHandler collect(module.getContext(), [&](Diagnostic &d) {
        llvm::raw_string_ostream w(why);
        if (auto at = d.getLocation()->findInstanceOf<FileLineColLoc>())
          w << at.getFilename().getValue() << ":" << at.getLine() << ":"
            << at.getColumn() << ": ";
        w << d;
        return success();
      });
      emitted = emit(module, os);
    }
    if (succeeded(emitted)) {
      tree.files.push_back({path, std::move(text)});
      continue;
    }
    tree.noAicoreReason = why;
  }
  tree.kernels = describeKernels(module);
  return tree;
}
