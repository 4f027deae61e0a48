//===- MergeKernels.cpp - one of each set of identical kernels ------------===//
//
// Keeps the first of each set of identical wsp.kernel ops (with the tier
// configuration the others used), then of the private functions that
// became identical with them (a model's launch functions), and points
// every use at it. Ops are bucketed by a hash of their attributes and of
// every op of their body (OperationEquivalence's, without operands or
// locations) and compared in full only within a bucket, so the pass is
// linear in the module's size.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"

#include <unordered_map>

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPMERGEKERNELS
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {
/// What two ops must share besides their bodies: their attributes but for
/// their names (a kernel's tier configuration by what it holds).
using Key = SmallVector<Attribute, 8>;

/// The ops met so far, by the hash of their key and body.
class Seen {
public:
  /// The first op met whose key and body equal `op`'s, or null (and `op`
  /// is met).
  Operation *findOrAdd(Operation *op, Key key, Region &body) {
    size_t h = llvm::hash_combine_range(key.begin(), key.end());
    body.walk([&](Operation *inner) {
      h = llvm::hash_combine(h, inner->getNumRegions(),
                             OperationEquivalence::computeHash(
                                 inner, OperationEquivalence::ignoreHashValue,
                                 OperationEquivalence::ignoreHashValue,
                                 OperationEquivalence::IgnoreLocations));
    });
    auto &bucket = buckets[h];
    for (auto &[candidate, candidateKey] : bucket)
      if (candidateKey == key && OperationEquivalence::isRegionEquivalentTo(
                                     &candidate->getRegion(0), &body,
                                     OperationEquivalence::IgnoreLocations))
        return candidate;
    bucket.push_back({op, std::move(key)});
    return nullptr;
  }

private:
  std::unordered_map<size_t, SmallVector<std::pair<Operation *, Key>, 1>>
      buckets;
};

/// Old symbol -> the one kept in its place. A kept kernel's configuration
/// may itself go with a kernel merged later: kept() follows to the end.
struct Renames {
  llvm::DenseMap<Attribute, Attribute> to;
  SmallVector<Operation *> merged;

  Attribute kept(Attribute name) const {
    while (Attribute next = to.lookup(name))
      name = next;
    return name;
  }
  void merge(Operation *op, StringAttr name, StringAttr into) {
    to[FlatSymbolRefAttr::get(name)] = FlatSymbolRefAttr::get(into);
    merged.push_back(op);
  }

  /// Renames every use, on the ops that declare symbol uses (a kernel's
  /// body names no symbol, so only the kernel op itself is looked at), and
  /// erases the merged ops.
  void apply(ModuleOp module) {
    if (merged.empty())
      return;
    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](FlatSymbolRefAttr ref) -> std::optional<Attribute> {
          if (!to.count(ref))
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
      if (isa<KernelOp>(top))
        rewrite(&top);
      else
        top.walk(rewrite);
    }
    for (Operation *op : merged)
      op->erase();
    merged.clear();
    to.clear();
  }
};

Attribute orUnit(Attribute a, MLIRContext *context) {
  return a ? a : UnitAttr::get(context);
}

struct MergeKernelsPass
    : public wsp::impl::WspMergeKernelsBase<MergeKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SymbolTable symbols(module);
    bool changed = false;

    // Kernels, their tier configurations compared by what they hold.
    Renames renames;
    Seen kernels;
    for (auto kernel : module.getOps<KernelOp>()) {
      auto config = symbols.lookup<TierConfigOp>(kernel.getTiers());
      if (!config)
        continue; // the verifier's to report
      Key key{TypeAttr::get(kernel.getFunctionType()),
              config.getTiersAttr(),
              orUnit(config.getSymVisibilityAttr(), context),
              config->getDiscardableAttrDictionary(),
              orUnit(kernel.getTierAttr(), context),
              kernel.getConstantsAttr(),
              orUnit(kernel.getArgAttrsAttr(), context),
              orUnit(kernel.getResAttrsAttr(), context),
              kernel->getDiscardableAttrDictionary()};
      auto same = cast_if_present<KernelOp>(
          kernels.findOrAdd(kernel, std::move(key), kernel.getBody()));
      if (!same)
        continue;
      renames.merge(kernel, kernel.getSymNameAttr(), same.getSymNameAttr());
      ++numKernelsMerged;
      // The merged kernel's configuration goes with it (its plans name the
      // kernel's configuration): it is the kept kernel's, and every other
      // use of it names that one too.
      Attribute from = kernel.getTiersAttr(),
                to = renames.kept(same.getTiersAttr());
      if (from != to && !renames.to.count(from)) {
        renames.merge(config, config.getSymNameAttr(),
                      cast<FlatSymbolRefAttr>(to).getAttr());
        ++numConfigsMerged;
      }
    }
    changed |= !renames.merged.empty();
    renames.apply(module);

    // Private functions made identical by that (a model's layers' launch
    // functions, which now dispatch the same kernels). One round: a
    // function that calls two that merge here is not compared again.
    Seen functions;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (!function.isPrivate() || function.isExternal())
        continue;
      Key key{TypeAttr::get(function.getFunctionType()),
              orUnit(function.getArgAttrsAttr(), context),
              orUnit(function.getResAttrsAttr(), context),
              function->getDiscardableAttrDictionary()};
      auto same = cast_if_present<func::FuncOp>(
          functions.findOrAdd(function, std::move(key), function.getBody()));
      if (!same)
        continue;
      renames.merge(function, function.getSymNameAttr(), same.getSymNameAttr());
      ++numFunctionsMerged;
    }
    changed |= !renames.merged.empty();
    renames.apply(module);
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
