// The compiler's static planning (wsp-plan on IR with constant lengths)
// against pto::runtime's AttentionPlanner on the same inputs: same chunk
// size, same descriptors, same tiers (spec §10.2). Random lengths across
// every tier, batch 1 to 4096, heads 1 to 64, several configurations. The
// balanced strategy likewise against plan_balanced, every config field
// varied (what carries the IR's config into the runtime's).
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Dialect/Wsp/Transforms/Passes.h"
#include "wsp/InitAllDialects.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <pto/runtime/balanced_planner.hpp>
#include <pto/runtime/work_planner.hpp>

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir;
namespace rt = pto::runtime;

namespace {

struct Case {
  int batch, heads;
  rt::PlanConfig config;
};

/// A workload with constant lengths, planned by wsp.plan_chunk_size and
/// wsp.generate over the spec's DecodeAttentionTiers.
std::string workload(const std::vector<int> &lens, int heads,
                     const rt::PlanConfig &c) {
  std::ostringstream ir;
  std::ostringstream config;
  config << "#wsp.plan_config<chunk_min = " << c.chunk_min
         << ", chunk_max = " << c.chunk_max
         << ", max_work_units = " << c.max_work_units
         << ", balance_chunks = " << (c.balance_chunks ? "true" : "false")
         << ">";
  ir << "wsp.tier_config @DecodeAttentionTiers [#wsp.tier<0, [1, 1024]>, "
        "#wsp.tier<1, [1025, 4096]>, #wsp.tier<2, [4097, 16384]>, "
        "#wsp.tier<3, [16385, 131072]>]\n";
  ir << "memref.global \"private\" constant @lens : memref<" << lens.size()
     << "xi32> = dense<[";
  for (size_t i = 0; i < lens.size(); ++i)
    ir << (i ? ", " : "") << lens[i];
  ir << "]>\n";
  ir << "func.func @step(%buf: memref<?x!wsp.descriptor<attention>>) -> i32 {\n"
     << "  %b = arith.constant " << lens.size() << " : index\n"
     << "  %h = arith.constant " << heads << " : index\n"
     << "  %lens = memref.get_global @lens : memref<" << lens.size()
     << "xi32>\n"
     << "  %chunk = wsp.plan_chunk_size %lens[%b] heads(%h) config("
     << config.str() << ") : memref<" << lens.size() << "xi32>\n"
     << "  %n, %s = wsp.generate %lens[%b] heads(%h) chunk(%chunk) "
        "tiers(@DecodeAttentionTiers) config("
     << config.str() << ") into %buf : memref<" << lens.size()
     << "xi32>, memref<?x!wsp.descriptor<attention>>\n"
     << "  return %s : i32\n}\n";
  return ir.str();
}

/// The same workload planned by the balanced strategy with config `c`.
std::string balancedWorkload(const std::vector<int> &lens, int heads,
                             const rt::BalancedConfig &c) {
  const size_t b = lens.size();
  std::ostringstream ir;
  ir << "wsp.tier_config @DecodeAttentionTiers [#wsp.tier<0, [1, 1024]>, "
        "#wsp.tier<1, [1025, 4096]>, #wsp.tier<2, [4097, 16384]>, "
        "#wsp.tier<3, [16385, 131072]>]\n";
  ir << "memref.global \"private\" constant @lens : memref<" << b
     << "xi32> = dense<[";
  for (size_t i = 0; i < b; ++i)
    ir << (i ? ", " : "") << lens[i];
  ir << "]>\n";
  ir << "func.func @step(%buf: memref<?x!wsp.descriptor<attention>>, "
        "%cores: memref<?xi32>, %merges: memref<?xi32>) -> i32 {\n"
     << "  %b = arith.constant " << b << " : index\n"
     << "  %h = arith.constant " << heads << " : index\n"
     << "  %lens = memref.get_global @lens : memref<" << b << "xi32>\n"
     << "  %n, %s = wsp.generate %lens[%b] heads(%h) "
        "tiers(@DecodeAttentionTiers) config(#wsp.plan_config<strategy = "
        "balanced, cores = "
     << c.num_cores << ", block_size = " << c.block_size
     << ", unit_cost = " << c.cost.per_unit
     << ", token_cost = " << c.cost.per_token
     << ", merge_cost = " << c.cost.per_merge << ", batch_invariant = "
     << (c.batch_invariant ? "true" : "false")
     << ", invariant_chunk = " << c.invariant_chunk
     << ">) into %buf cores(%cores : memref<?xi32>) merges(%merges : "
        "memref<?xi32>) : memref<"
     << b << "xi32>, memref<?x!wsp.descriptor<attention>>\n"
     << "  return %s : i32\n}\n";
  return ir.str();
}

/// The table's rows are `count` descriptors equal to `expect`, field by
/// field.
void expectTable(wsp::DescriptorTableOp table,
                 const rt::WorkDescriptor *expect, int count) {
  ASSERT_EQ(table.getNumDescriptors(), count) << "descriptor count";
  auto values = llvm::to_vector(table.getTable().getValues<int32_t>());
  for (int i = 0; i < count; ++i) {
    const rt::WorkDescriptor &d = expect[i];
    const int32_t *row = &values[i * wsp::DescriptorTableOp::kColumns];
    ASSERT_EQ(row[0], (int32_t)d.work_id) << i;
    ASSERT_EQ(row[1], d.tier) << i;
    ASSERT_EQ(row[2], d.flags) << i;
    for (int p = 0; p < 4; ++p)
      ASSERT_EQ(row[3 + p], (int32_t)d.params[p]) << i << " param " << p;
  }
}

class StaticPlanEquivalence : public ::testing::Test {
protected:
  StaticPlanEquivalence() {
    DialectRegistry registry;
    wsp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Runs wsp-plan; returns the table op of the planned module.
  wsp::DescriptorTableOp plan(OwningOpRef<ModuleOp> &module,
                              const std::string &source) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return {};
    PassManager pm(&context);
    pm.addPass(wsp::createWspPlan());
    if (failed(pm.run(*module)))
      return {};
    wsp::DescriptorTableOp table;
    module->walk([&](wsp::DescriptorTableOp op) { table = op; });
    return table;
  }

  MLIRContext context;
};

} // namespace

TEST_F(StaticPlanEquivalence, RandomWorkloadsMatchTheRuntime) {
  std::mt19937 rng(4096);
  const int lo[] = {1, 1025, 4097, 16385};
  const int hi[] = {1024, 4096, 16384, 131072};
  const Case cases[] = {
      {1, 1, {256, 4096, 65536, true}},     {1, 64, {256, 4096, 65536, false}},
      {3, 7, {256, 4096, 40, true}},        {16, 32, {256, 4096, 65536, true}},
      {37, 8, {128, 2048, 900, false}},     {64, 64, {256, 4096, 65536, true}},
      {200, 4, {64, 8192, 5000, true}},     {512, 2, {256, 4096, 3000, false}},
      {1000, 1, {256, 4096, 65536, true}},  {2048, 16, {256, 4096, 65536, true}},
      {4096, 1, {256, 4096, 65536, true}},  {4096, 3, {512, 4096, 30000, false}},
  };
  int interior = 0;
  for (const Case &c : cases) {
    std::vector<int> lens(c.batch);
    for (int &len : lens) {
      int t = static_cast<int>(rng() % 4);
      len = std::uniform_int_distribution<int>(lo[t], hi[t])(rng);
    }
    if (c.batch > 4)
      lens[2] = 0; // an idle request
    SCOPED_TRACE(testing::Message() << "batch " << c.batch << " heads "
                                    << c.heads);

    // The runtime, as a user would call it.
    rt::AttentionPlanner planner(c.config);
    const int chunk = planner.plan_chunk_size(lens.data(), c.batch, c.heads);
    const int cap = planner.get_total_work(lens.data(), c.batch, c.heads, chunk);
    std::vector<rt::WorkDescriptor> expect(cap);
    int count = 0;
    ASSERT_EQ(planner.generate(lens.data(), c.batch, c.heads, chunk,
                               expect.data(), cap, &count),
              rt::PlanResult::OK);
    interior += chunk > c.config.chunk_min && chunk < c.config.chunk_max;

    // The compiler.
    OwningOpRef<ModuleOp> module;
    wsp::DescriptorTableOp table =
        plan(module, workload(lens, c.heads, c.config));
    ASSERT_TRUE(table) << "wsp-plan did not plan statically";
    EXPECT_EQ(table.getChunkAttr().getInt(), chunk) << "chunk size";
    expectTable(table, expect.data(), count);
  }
  EXPECT_GE(interior, 3) << "some cases must exercise the chunk search";
}

TEST_F(StaticPlanEquivalence, UnsupportedLengthIsACompileTimeError) {
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    errors += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module;
  EXPECT_FALSE(plan(module, workload({100, 131073}, 2, rt::PlanConfig{})));
  EXPECT_NE(errors.find("length 131073 of sequence 1 is covered by no tier"),
            std::string::npos)
      << errors;
}

TEST_F(StaticPlanEquivalence, BalancedRandomWorkloadsMatchTheRuntime) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int batch = 1 + static_cast<int>(rng() % (trial < 30 ? 64 : 1024));
    const int heads = 1 + static_cast<int>(rng() % 16);
    std::vector<int> lens(batch);
    for (int &len : lens)
      len = rng() % 7 == 0 ? 0 : 1 + static_cast<int>(rng() % 131072);
    rt::BalancedConfig c;
    c.num_cores = 1 + static_cast<int>(rng() % 300);
    c.block_size = 1 << (rng() % 8);
    c.cost = {static_cast<int64_t>(rng() % 200),
              static_cast<int64_t>(1 + rng() % 3),
              static_cast<int64_t>(rng() % 200)};
    c.batch_invariant = rng() % 3 == 0;
    c.invariant_chunk = 1 + static_cast<int>(rng() % 5000);
    SCOPED_TRACE(testing::Message()
                 << "trial " << trial << ": batch " << batch << " heads "
                 << heads << " cores " << c.num_cores);

    rt::BalancedPlan expect;
    ASSERT_EQ(rt::plan_balanced(lens.data(), batch, heads, c,
                                rt::DecodeAttentionTiers{}, &expect),
              rt::PlanResult::OK);
    if (expect.count == 0)
      continue; // all idle: nothing to compare
    OwningOpRef<ModuleOp> module;
    wsp::DescriptorTableOp table =
        plan(module, balancedWorkload(lens, heads, c));
    ASSERT_TRUE(table) << "wsp-plan did not plan statically";
    EXPECT_FALSE(table.getChunkAttr());
    EXPECT_EQ(table.getCoreIndptrAttr().asArrayRef(),
              llvm::ArrayRef<int32_t>(expect.core_indptr));
    EXPECT_EQ(table.getMergeIndptrAttr().asArrayRef(),
              llvm::ArrayRef<int32_t>(expect.merge_indptr));
    expectTable(table, expect.descriptors.data(), expect.count);
  }
}
