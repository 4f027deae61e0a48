//===- Pipeline.cpp - the default wsp pipeline ----------------------------===//
//
// The pipeline spans the layers (wsp transforms, tile transforms, the C++
// backend's contract), so it lives above them all.
//
//===----------------------------------------------------------------------===//

#include "wsp/Pipelines/Pipelines.h"
#include "wsp/Conversion/Passes.h"
#include "wsp/Dialect/Tile/Transforms/Passes.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "wsp/Target/Cpp/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::wsp;

namespace {
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("ascend or cpusim (default cpusim)"),
                             llvm::cl::init("cpusim")};
  Option<bool> staticPlanning{
      *this, "static-planning",
      llvm::cl::desc("Plan at compile time when the lengths are constants "
                     "(default true)"),
      llvm::cl::init(true)};
  Option<bool> mergeKernels{
      *this, "merge-kernels",
      llvm::cl::desc("Keep one of each set of identical kernels, "
                     "wsp-merge-kernels (default true)"),
      llvm::cl::init(true)};
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Mark the runs of vector instructions the "
                                   "CPU simulation computes in registers "
                                   "(tile-mark-fusion; default true)"),
                    llvm::cl::init(true)};
};

/// From the form users write to the form the backend emits. Each stage ends
/// with its contract check.
void buildWspPipeline(OpPassManager &pm, const PipelineOptions &options) {
  // Stage 0: operators to workloads (a full conversion: no llm op is left),
  // sharded attention first rewritten into each rank's program.
  pm.addPass(createLlmSelectKvSharding());
  pm.addPass(createConvertLlmKvSharding());
  pm.addPass(createConvertLlmToWsp());
  // One of each set of identical kernels (a model's layers lower to the
  // same ones): everything after is paid per kernel.
  if (options.mergeKernels)
    pm.addPass(createWspMergeKernels());
  // The canonicalizations and CSE run on each top-level op (function,
  // kernel) apart: one function's ops at a time stay in cache, where the
  // module-level driver held every op of the module in one worklist (2.2x
  // faster on ten attention blocks), and with threads the functions run in
  // parallel. No canonicalization pattern is on a top-level op.
  pm.nestAny().addPass(createCanonicalizerPass());
  // Stage 1: planning (and the iteration-space queries it leaves), the
  // plans a step table replays first given storage of their own.
  // A tier configuration with a gap between its tiers: a warning.
  WspTierCoverageOptions coverage;
  coverage.warnGaps = true;
  pm.addPass(createWspTierCoverage(coverage));
  pm.addPass(createWspKeepStepPlans());
  pm.addPass(createWspLowerSpaces());
  pm.addPass(createWspLowerMasks());
  WspPlanOptions plan;
  plan.staticPlanning = options.staticPlanning;
  pm.addPass(createWspPlan(plan));
  pm.addPass(createWspLowerPreconditions());
  // The canonicalizations after the first run on what wsp's own passes
  // built from canonical IR: structured control flow, one block per
  // region, nothing for region simplification (unreachable blocks, block
  // arguments, identical blocks) to find, which was a third of their time.
  GreedyRewriteConfig structured;
  structured.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  pm.nestAny().addPass(createCanonicalizerPass(structured));
  pm.addPass(createWspCheckPlanned());
  // Stage 2: tier specialization.
  // The clones come out canonicalized (the pass folds each with the
  // canonicalization patterns), and nothing else changed since the last
  // canonicalize: CSE is next.
  pm.addPass(createWspSpecializeTiers());
  // Values CSE made one fold again (a size checked against itself): only
  // the ops CSE changed are canonicalized, not every op again.
  pm.nestAny().addPass(createWspCseCanonicalize());
  pm.addPass(createWspCheckSpecialized());
  // Stage 3: tile kernels with long row reductions in two steps,
  // pipelined (the loops that ask for it), placed in their buffers and
  // synchronized. Each
  // tile pass works on one function or kernel at a time, so the stage runs
  // nested on each top-level op: a kernel goes through all of it while its
  // ops are in cache (module-wide walks, one per pass, grew per copy with
  // the module's size), and with threads the kernels run in parallel.
  OpPassManager &tiles = pm.nestAny();
  tiles.addPass(tile::createTileFoldRowReductions());
  tiles.addPass(tile::createTilePipeline());
  tiles.addPass(tile::createTilePlanMemory());
  tiles.addPass(tile::createTileInsertSync());
  // The fusion marks prepare the CPU simulation's emission (the device
  // form ignores them); they are in place before the stage's contract, so
  // that it verifies them too.
  if (options.fuse)
    tiles.addPass(tile::createTileMarkFusion());
  tiles.addPass(tile::createTileCheckPlanned());
  // Every pair ordered; the search for redundant flags is the one
  // tile-insert-sync just ran (and acted on), so it is not repeated, and a
  // kernel tile-insert-sync proved is not solved again (SyncProofs).
  tile::TileCheckSyncOptions checkSync;
  checkSync.redundant = false;
  tiles.addPass(tile::createTileCheckSync(checkSync));
  // Stage 4: ready for emission. tile-check-planned verified every
  // function and kernel, and nothing inside them changes after it, so the
  // last contract verifies the module and its other ops.
  WspSetTargetOptions target;
  target.target = options.target;
  pm.addPass(createWspSetTarget(target));
  WspCheckEmittableOptions emittable;
  emittable.verifyNested = false;
  pm.addPass(createWspCheckEmittable(emittable));
}
} // namespace

void mlir::wsp::registerWspPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "wsp-pipeline",
      "Plan, specialize tiers and prepare a wsp workload for emission",
      buildWspPipeline);
}
