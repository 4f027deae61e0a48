// convert-llm-to-wsp's typed parameters (lib/Conversion/LlmToWsp/Lowering.h):
// instantiate() expands values that name keys, gives the plan result codes
// from the dialect's enum, and reports at the op a key without a value, a
// value for an undeclared key, a value that contains itself and a value for
// a key the dialect gives; fillKeys() leaves the keys it has no value for.
#include "Lowering.h"

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/InitAllDialects.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>

using namespace mlir;
using namespace mlir::wsp::lowering;

namespace {

class LoweringParamsTest : public ::testing::Test {
protected:
  LoweringParamsTest()
      : module(ModuleOp::create(UnknownLoc::get(&context))),
        handler(&context, [this](Diagnostic &d) {
          messages += d.str() + "\n";
          return success();
        }) {}

  /// instantiate() on `planner` (no kernel), the expansion or "" on failure.
  std::string run(const Params &v, StringRef planner) {
    FailureOr<Lowered> lowered = instantiate(*module, v, planner, "", {});
    return succeeded(lowered) ? lowered->text : std::string();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  ScopedDiagnosticHandler handler;
  std::string messages;
};

TEST_F(LoweringParamsTest, ValuesNameKeysInTurn) {
  Params v;
  v["NAME"] = "norm";
  v["SIGNATURE"] = "%x: ${X_TYPE}";
  v.setDerived("X_TYPE", "memref<4xf32>");
  EXPECT_EQ(run(v, "func.func @${NAME}(${SIGNATURE})"),
            "func.func @norm(%x: memref<4xf32>)");
  EXPECT_EQ(messages, "");
}

TEST_F(LoweringParamsTest, PlanResultCodesComeFromTheDialect) {
  // PTO-WSP 6.1's codes, in its order.
  EXPECT_EQ(run(Params(), "${PLAN_OK} ${PLAN_BUFFER_OVERFLOW} "
                          "${PLAN_UNSUPPORTED_SIZE} ${PLAN_INVALID_PARAMS}"),
            "0 1 2 3");
  Params v;
  v["PLAN_OK"] = "7";
  EXPECT_EQ(run(v, "${PLAN_OK}"), "");
  EXPECT_NE(messages.find("a value for ${PLAN_OK}, which the dialect's "
                          "PlanResult gives"),
            std::string::npos)
      << messages;
}

TEST_F(LoweringParamsTest, AKeyWithoutAValueIsAnError) {
  Params v;
  v["NAME"] = "x ${COLS}";
  EXPECT_EQ(run(v, "wsp.kernel @${NAME}"), "");
  EXPECT_NE(messages.find("no value for ${COLS} in the value of ${NAME}"),
            std::string::npos)
      << messages;
  messages.clear();
  EXPECT_EQ(run(Params(), "%c = ${ROWS}"), "");
  EXPECT_NE(messages.find("no value for ${ROWS} in a fragment"),
            std::string::npos)
      << messages;
}

TEST_F(LoweringParamsTest, AnUndeclaredKeyIsAnError) {
  Params v;
  v["NAME"] = "k";
  v["NO_SUCH_KEY"] = "1";
  EXPECT_EQ(run(v, "@${NAME}"), "");
  EXPECT_NE(messages.find("a value for ${NO_SUCH_KEY}, which no fragment "
                          "declares"),
            std::string::npos)
      << messages;
}

TEST_F(LoweringParamsTest, AValueThatContainsItselfIsAnError) {
  Params v;
  v["NAME"] = "a${COLS}";
  v["COLS"] = "b${NAME}";
  EXPECT_EQ(run(v, "${NAME}"), "");
  EXPECT_NE(messages.find("the value of ${NAME} contains itself"),
            std::string::npos)
      << messages;
}

TEST_F(LoweringParamsTest, AnUnterminatedKeyIsAnError) {
  Params v;
  v["NAME"] = "${COLS";
  EXPECT_EQ(run(v, "${NAME}"), "");
  EXPECT_NE(messages.find("an unterminated '${' in the value of ${NAME}"),
            std::string::npos)
      << messages;
}

TEST_F(LoweringParamsTest, DefaultsDoNotOverride) {
  Params v;
  v["ROWS"] = "16";
  v.setDefaults({{"ROWS", "8"}, {"COLS", "64"}});
  v.setDefault("COLS", "32");
  EXPECT_EQ(v.get("ROWS"), "16");
  EXPECT_EQ(v.get("COLS"), "64");
}

TEST_F(LoweringParamsTest, FillKeysLeavesTheOthers) {
  Params v{{"SCALE", "key_scale"}};
  EXPECT_EQ(fillKeys("%${SCALE}[%r] : ${SCALE_TYPE}", v),
            "%key_scale[%r] : ${SCALE_TYPE}");
}

TEST_F(LoweringParamsTest, TheDeclaredKeysAreSortedAndUnique) {
  // instantiate() looks keys up by binary search.
  EXPECT_TRUE(std::is_sorted(std::begin(kFragmentKeys), std::end(kFragmentKeys)));
  EXPECT_EQ(std::adjacent_find(std::begin(kFragmentKeys),
                               std::end(kFragmentKeys)),
            std::end(kFragmentKeys));
}

TEST_F(LoweringParamsTest, AnOpWithoutALoweringIsDiagnosed) {
  LoweringRegistry registry;
  EXPECT_TRUE(failed(registry.lower(*module, "m", 48)));
  EXPECT_NE(messages.find("has no lowering to a wsp workload yet"),
            std::string::npos)
      << messages;
}

} // namespace
