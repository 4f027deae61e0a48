//===- Planning.h - compile-time planning with pto::runtime -----*- C++ -*-===//
//
// The compiler plans static workloads with pto::runtime's WorkPlanner itself
// (over a TierList built from the IR), so a static plan is the runtime's
// plan by construction. These helpers are shared by wsp-plan and its tests.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_DIALECT_WSP_TRANSFORMS_PLANNING_H
#define WSP_DIALECT_WSP_TRANSFORMS_PLANNING_H

#include "wsp/Dialect/Wsp/IR/WspOps.h"

#include "mlir/IR/Builders.h"

#include <pto/runtime/balanced_planner.hpp>
#include <pto/runtime/tier_config.hpp>
#include <pto/runtime/work_planner.hpp>

#include <vector>

namespace mlir {
namespace wsp {

/// The IR's tier configuration as the runtime's run-time tier list.
pto::runtime::TierList toTierList(TierConfigOp config);

/// The IR's plan configuration as the runtime's.
pto::runtime::PlanConfig toPlanConfig(PlanConfigAttr config);

/// The balanced fields of a plan configuration as the runtime's.
pto::runtime::BalancedConfig toBalancedConfig(PlanConfigAttr config);

/// A plan made at compile time.
struct StaticPlan {
  pto::runtime::PlanResult result = pto::runtime::PlanResult::OK;
  std::vector<pto::runtime::WorkDescriptor> descriptors; // empty on error
};

/// What wsp.generate produces for these constant inputs: the runtime's
/// WorkPlanner::generate with the pattern's params (attention:
/// params::Attention; moe: params::MoEPerExpert). Fails for other patterns.
FailureOr<StaticPlan> planStatically(PatternAttr pattern, TierConfigOp tiers,
                                     PlanConfigAttr config,
                                     ArrayRef<int> lengths, int heads,
                                     int chunk);

/// What wsp.plan_chunk_size produces for constant lengths: the runtime's
/// WorkPlanner::plan_chunk_size (0 on invalid input).
int planChunkSizeStatically(PlanConfigAttr config, ArrayRef<int> lengths,
                            int heads);

/// First-match tier selection of `length` (any integer type) as a
/// branch-free chain of compares and selects over the configuration's
/// constant bounds; the i32 result is -1 when no tier matches.
Value buildSelectTier(OpBuilder &b, Location loc, TierConfigOp config,
                      Value length);

} // namespace wsp
} // namespace mlir

#endif // WSP_DIALECT_WSP_TRANSFORMS_PLANNING_H
