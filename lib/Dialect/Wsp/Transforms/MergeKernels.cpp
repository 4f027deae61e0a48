//===- MergeKernels.cpp - one of each set of identical kernels ------------===//
//
// Keeps the first of each set of identical wsp.kernel ops (with the tier
// configuration the others used) and points every use at it. Kernels are
// bucketed by a hash of their attributes and of every op of their body
// (OperationEquivalence's, without operands or locations) and compared in full
// only within a bucket, so the pass is linear in the module's size.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPMERGEKERNELS
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {
/// What two kernels must share besides their bodies (the symbol name
/// aside); `tiers` is what their tier configuration holds, not its name.
struct KernelKey {
  Type type;
  Attribute tiers, tier, constants, argAttrs, resAttrs, discardable;
  bool operator==(const KernelKey &o) const {
    return type == o.type && tiers == o.tiers && tier == o.tier &&
           constants == o.constants && argAttrs == o.argAttrs &&
           resAttrs == o.resAttrs && discardable == o.discardable;
  }
};

llvm::hash_code hashBody(KernelOp kernel, const KernelKey &key) {
  llvm::hash_code h = llvm::hash_combine(
      key.type.getAsOpaquePointer(), key.tiers.getAsOpaquePointer(),
      key.tier.getAsOpaquePointer(), key.constants.getAsOpaquePointer(),
      key.argAttrs.getAsOpaquePointer(), key.resAttrs.getAsOpaquePointer(),
      key.discardable.getAsOpaquePointer());
  kernel.getBody().walk([&](Operation *op) {
    h = llvm::hash_combine(h, op->getNumRegions(),
                           OperationEquivalence::computeHash(
                               op, OperationEquivalence::ignoreHashValue,
                               OperationEquivalence::ignoreHashValue,
                               OperationEquivalence::IgnoreLocations));
  });
  return h;
}

struct MergeKernelsPass
    : public wsp::impl::WspMergeKernelsBase<MergeKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Old name -> kept name, for configurations and kernels alike. A kept
    // kernel's configuration may itself go with a kernel merged later:
    // `kept` follows to the end.
    llvm::DenseMap<Attribute, Attribute> renamed;
    auto kept = [&](Attribute name) {
      while (Attribute next = renamed.lookup(name))
        name = next;
      return name;
    };
    SmallVector<Operation *> merged;

    // Kernels: bucketed by hash, compared in full within a bucket; their
    // tier configurations compare by what they hold.
    llvm::MapVector<llvm::hash_code,
                    SmallVector<std::pair<KernelOp, KernelKey>>>
        buckets;
    for (auto kernel : module.getOps<KernelOp>()) {
      auto config = symbols.lookup<TierConfigOp>(kernel.getTiers());
      if (!config)
        continue; // the verifier's to report
      KernelKey key{
          kernel.getFunctionType(),
          ArrayAttr::get(&getContext(),
                         {config.getTiersAttr(),
                          config.getSymVisibilityAttr()
                              ? Attribute(config.getSymVisibilityAttr())
                              : UnitAttr::get(&getContext()),
                          config->getDiscardableAttrDictionary()}),
          kernel.getTierAttr(),
          kernel.getConstantsAttr(),
          kernel.getArgAttrsAttr(),
          kernel.getResAttrsAttr(),
          kernel->getDiscardableAttrDictionary()};
      auto &bucket = buckets[hashBody(kernel, key)];
      KernelOp same;
      for (auto &[candidate, candidateKey] : bucket)
        if (candidateKey == key && OperationEquivalence::isRegionEquivalentTo(
                                       &candidate.getBody(), &kernel.getBody(),
                                       OperationEquivalence::IgnoreLocations)) {
          same = candidate;
          break;
        }
      if (!same) {
        bucket.push_back({kernel, key});
        continue;
      }
      renamed[FlatSymbolRefAttr::get(kernel.getSymNameAttr())] =
          FlatSymbolRefAttr::get(same.getSymNameAttr());
      merged.push_back(kernel);
      ++numKernelsMerged;
      // The merged kernel's configuration goes with it (its plans name the
      // kernel's configuration): it is the kept kernel's, and every other
      // use of it names that one too.
      Attribute from = kernel.getTiersAttr(), to = kept(same.getTiersAttr());
      if (from != to && !renamed.count(from)) {
        renamed[from] = to;
        merged.push_back(
            symbols.lookup(cast<FlatSymbolRefAttr>(from).getValue()));
        ++numConfigsMerged;
      }
    }
    if (merged.empty())
      return markAllAnalysesPreserved();

    // Every use, on the ops that declare them. A kernel's body names no
    // kernel or configuration, so only the kernel op itself is looked at.
    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](FlatSymbolRefAttr ref) -> std::optional<Attribute> {
          if (!renamed.count(ref))
            return std::nullopt;
          return kept(ref);
        });
    auto rewrite = [&](Operation *op) {
      if (isa<SymbolUserOpInterface>(op))
        replacer.replaceElementsIn(op, /*replaceAttrs=*/true,
                                   /*replaceLocs=*/false,
                                   /*replaceTypes=*/false);
    };
    for (Operation &top : module.getOps()) {
      if (isa<KernelOp>(top)) {
        rewrite(&top);
        continue;
      }
      top.walk(rewrite);
    }
    for (Operation *op : merged)
      op->erase();
  }
};
} // namespace
