//===- SpecializeTiers.cpp - per-tier kernels and dispatch tables ---------===//

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "Canonicalization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <map>

namespace mlir::wsp {
#define GEN_PASS_DEF_WSPSPECIALIZETIERS
#include "wsp/Dialect/Wsp/Transforms/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {
struct SpecializeTiersPass
    : public wsp::impl::WspSpecializeTiersBase<SpecializeTiersPass> {
  using WspSpecializeTiersBase::WspSpecializeTiersBase;

  LogicalResult initialize(MLIRContext *context) override {
    // Canonicalization patterns of every loaded dialect and op, to fold the
    // clones once their tier is a constant.
    patterns = wsp::detail::canonicalizationPatterns(context);
    return success();
  }

  void runOnOperation() override;

private:
  /// The clone of `kernel` for tier `id`, its tier id and constants folded.
  KernelOp specialize(KernelOp kernel, int64_t id, SymbolTable &symbols);

  /// What tier `id`'s specialization of `kernel` is made from when the
  /// kernel never reads wsp.tier_id (`readsTierId` false): the tier's
  /// constants. Tiers with the same key get the same kernel, which is then
  /// made once.
  static std::optional<std::string> constantsKey(KernelOp kernel, int64_t id,
                                                 bool readsTierId,
                                                 SymbolTable &symbols);

  FrozenRewritePatternSet patterns;
};
} // namespace

KernelOp SpecializeTiersPass::specialize(KernelOp kernel, int64_t id,
                                         SymbolTable &symbols) {
  OpBuilder b(kernel);
  b.setInsertionPointAfter(kernel);
  auto clone = cast<KernelOp>(b.clone(*kernel));
  clone.setSymName((kernel.getSymName() + "_tier" + llvm::Twine(id)).str());
  symbols.insert(clone); // uniquifies the name on a clash
  // With tier(N) set, wsp.tier_id and wsp.tier_constant fold to this
  // tier's values (their folders); the greedy driver folds them and
  // everything that becomes constant after them.
  clone.setTierAttr(b.getI64IntegerAttr(id));
  // Only what the tier changes needs folding (the kernel is canonical
  // already): the tier reads, then whatever their folding touches.
  SmallVector<Operation *> seeds;
  clone.walk([&](Operation *op) {
    if (isa<TierIdOp, TierConstantOp>(op))
      seeds.push_back(op);
  });
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::AnyOp);
  (void)applyOpPatternsGreedily(seeds, patterns, config);
  return clone;
}

/// Prints `kernel`'s tier constants at tier index `index`, "NAME=value;"
/// each; false when one is not a per-tier array of values (left out).
static bool printTierConstants(KernelOp kernel, unsigned index,
                               raw_ostream &os) {
  bool all = true;
  for (NamedAttribute c : kernel.getConstants()) {
    auto values = dyn_cast<DenseI64ArrayAttr>(c.getValue());
    if (!values || index >= values.size()) {
      all = false;
      continue;
    }
    os << c.getName().getValue() << "=" << values.asArrayRef()[index] << ";";
  }
  return all;
}

std::optional<std::string>
SpecializeTiersPass::constantsKey(KernelOp kernel, int64_t id, bool readsTierId,
                                  SymbolTable &symbols) {
  if (readsTierId)
    return std::nullopt;
  auto config = symbols.lookup<TierConfigOp>(kernel.getTiers());
  std::optional<unsigned> index =
      config ? config.getTierIndex(id) : std::nullopt;
  if (!index)
    return std::nullopt;
  std::string key;
  llvm::raw_string_ostream os(key);
  if (!printTierConstants(kernel, *index, os))
    return std::nullopt;
  return key;
}

void SpecializeTiersPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  // One table per (kernel, reachable tier set): MPMD groups whose
  // descriptors reach different tiers get different tables.
  std::map<std::pair<std::string, std::vector<int64_t>>, KernelTableOp> made;
  // One clone per (kernel, tier), shared by every table that needs it.
  std::map<std::pair<std::string, int64_t>, KernelOp> clones;
  // Tiers served by another tier's clone, made from the same constants of
  // a kernel that does not read its tier id (no clone of their own), and
  // those clones by (kernel, constants).
  std::map<std::pair<std::string, int64_t>, KernelOp> shared;
  std::map<std::pair<std::string, std::string>, KernelOp> byConstants;
  SmallVector<KernelOp> generic;

  SmallVector<DispatchOp> dispatches;
  module.walk([&](DispatchOp op) { dispatches.push_back(op); });
  for (DispatchOp dispatch : dispatches) {
    auto kernel = symbols.lookup<KernelOp>(dispatch.getKernel());
    if (!kernel || kernel.isSpecialized())
      continue; // already a table or a specialized kernel
    auto config = symbols.lookup<TierConfigOp>(kernel.getTiers());
    std::vector<int64_t> all;
    for (TierAttr tier : config.getTierList())
      all.push_back(tier.getId());
    std::vector<int64_t> reachable = all;
    if (auto known = dispatch.getReachableTiersAttr())
      reachable.assign(known.asArrayRef().begin(), known.asArrayRef().end());

    auto key = std::make_pair(kernel.getSymName().str(), reachable);
    KernelTableOp &table = made[key];
    if (!table) {
      SmallVector<int64_t> ids;
      SmallVector<Attribute> entries;
      Operation *insertAfter = kernel;
      const bool readsTierId =
          kernel.walk([](TierIdOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
      for (int64_t id : reachable) {
        std::pair<std::string, int64_t> tier = {kernel.getSymName().str(), id};
        ids.push_back(id);
        KernelOp serving;
        if (auto it = shared.find(tier); it != shared.end())
          serving = it->second;
        else if (auto it = clones.find(tier); it != clones.end())
          serving = it->second;
        if (!serving) {
          std::optional<std::string> made =
              constantsKey(kernel, id, readsTierId, symbols);
          KernelOp *same = made ? &byConstants[{tier.first, *made}] : nullptr;
          if (same && *same) {
            serving = shared[tier] = *same;
          } else {
            serving = clones[tier] = specialize(kernel, id, symbols);
            serving->moveAfter(insertAfter);
            insertAfter = serving;
            ++numSpecialized;
            if (same)
              *same = serving;
          }
        }
        // The table goes after the last kernel it names.
        if (insertAfter->isBeforeInBlock(serving))
          insertAfter = serving;
        entries.push_back(FlatSymbolRefAttr::get(serving.getSymNameAttr()));
      }
      numPruned += all.size() - reachable.size();
      OpBuilder b(module.getContext());
      b.setInsertionPointAfter(insertAfter);
      table = KernelTableOp::create(
          b, kernel.getLoc(),
          b.getStringAttr((kernel.getSymName() + "_table").str()),
          kernel.getTiersAttr(), b.getDenseI64ArrayAttr(ids),
          b.getArrayAttr(entries));
      symbols.insert(table);
      if (report) {
        SmallVector<int64_t> pruned;
        for (int64_t id : all)
          if (!llvm::is_contained(reachable, id))
            pruned.push_back(id);
        InFlightDiagnostic remark = table.emitRemark();
        remark << "@" << kernel.getSymName() << ": specialized for tiers ["
               << llvm::join(
                      llvm::map_range(
                          ids, [](int64_t i) { return std::to_string(i); }),
                      ", ")
               << "], pruned ["
               << llvm::join(
                      llvm::map_range(
                          pruned, [](int64_t i) { return std::to_string(i); }),
                      ", ")
               << "]";
      }
      if (!llvm::is_contained(generic, kernel))
        generic.push_back(kernel);
    }
    dispatch.setKernelAttr(FlatSymbolRefAttr::get(table.getSymNameAttr()));
  }

  // Tiers whose specializations came out the same (equal tile sizes, say)
  // share one kernel: the tables route them all to the first. The same
  // means the same tier constants (what the table's verifier checks) and
  // the same body once they and the tier id are folded.
  // Compared structurally (OperationEquivalence: the same ops, attributes
  // and types, each operand the corresponding value), a clone against the
  // earlier ones of its kernel with the same constants.
  std::map<std::pair<std::string, std::string>, SmallVector<KernelOp>> distinct;
  llvm::DenseMap<StringAttr, StringAttr> sameAs;
  for (auto &[key, clone] : clones) { // (kernel, tier) order: deterministic
    std::string constants;
    llvm::raw_string_ostream os(constants);
    auto config = symbols.lookup<TierConfigOp>(clone.getTiers());
    std::optional<unsigned> index =
        config ? config.getTierIndex(clone.getTierAttr().getInt())
               : std::nullopt;
    if (!index)
      continue;
    (void)printTierConstants(clone, *index, os);
    SmallVector<KernelOp> &earlier = distinct[{key.first, constants}];
    auto same = llvm::find_if(earlier, [&](KernelOp other) {
      return OperationEquivalence::isRegionEquivalentTo(
          &other.getBody(), &clone.getBody(),
          OperationEquivalence::IgnoreLocations);
    });
    if (same != earlier.end())
      sameAs[clone.getSymNameAttr()] = same->getSymNameAttr();
    else
      earlier.push_back(clone);
  }
  for (auto &[key, table] : made) {
    SmallVector<Attribute> entries;
    for (Attribute entry : table.getKernels()) {
      auto ref = cast<FlatSymbolRefAttr>(entry);
      auto it = sameAs.find(ref.getAttr());
      entries.push_back(it == sameAs.end()
                            ? entry
                            : FlatSymbolRefAttr::get(it->second));
    }
    table.setKernelsAttr(ArrayAttr::get(module.getContext(), entries));
  }
  // The tiers served by another's kernel, in (kernel, tier) order: those
  // shared before cloning and those folded after.
  std::map<std::pair<std::string, int64_t>, std::pair<KernelOp, StringAttr>>
      folded;
  for (auto &[key, serving] : shared)
    folded[key] = {serving, serving.getSymNameAttr()};
  for (auto &[key, clone] : clones)
    if (auto it = sameAs.find(clone.getSymNameAttr()); it != sameAs.end())
      folded[key] = {clone, it->second};
  for (auto &[key, what] : folded) {
    if (report)
      what.first.emitRemark() << "tier " << key.second << " folded into @"
                              << what.second.getValue() << ": the same kernel";
    ++numFolded;
  }
  for (auto &[key, clone] : clones)
    if (sameAs.count(clone.getSymNameAttr()))
      symbols.erase(clone);

  // Generic kernels nobody dispatches any more are gone. One walk collects
  // every symbol use (asking per kernel would walk the module per kernel).
  llvm::StringSet<> used;
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(&module.getBodyRegion()))
    for (const SymbolTable::SymbolUse &use : *uses)
      used.insert(use.getSymbolRef().getRootReference().getValue());
  for (KernelOp kernel : generic)
    if (!used.contains(kernel.getSymName()))
      symbols.erase(kernel);
}
