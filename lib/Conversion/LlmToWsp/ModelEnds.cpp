//===- ModelEnds.cpp - embedding and argmax -------------------------------===//
//
// The model's ends: embedding and argmax. Fragments:
// Templates/ModelEnds.mlir.in.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "wsp/Dialect/Llm/IR/LlmOps.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Support/Layouts.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <pto/runtime/hardware.hpp>

using namespace mlir;
using namespace mlir::wsp;
using namespace mlir::wsp::lowering;

namespace {

//===----------------------------------------------------------------------===//
// embedding: one work unit = a range of tokens, each row copied from the
// table on the vector unit; argmax: per 8 tokens, the logits chunk by chunk
// and each token's best by a scan on the scalar unit
//===----------------------------------------------------------------------===//

FailureOr<Lowered> lowerEmbedding(llm::EmbeddingOp op, StringRef name,
                                  int64_t cores) {
  SmallVector<NamedOperand> args = {{"token_ids", op.getTokenIds()},
                                    {"weight", op.getWeight()},
                                    {"y", op.getY()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  const int64_t hidden =
      cast<MemRefType>(op.getWeight().getType()).getDimSize(1);
  FailureOr<int64_t> cols = rowChunk(op, hidden, /*align=*/16);
  if (failed(cols))
    return failure();
  Params v;
  addTypeValues(v, args);
  const std::string c = std::to_string(*cols);
  v.setDefaults({{"HIDDEN", std::to_string(hidden)},
                 {"COLS", c},
                 {"ROW_BF16", tileType("vec", "1", c, "bf16")}});
  addPlanValues(v, name, args, cores);
  v["CHECKS"] =
      checks(args, {{"y", 0, "%tokens"}, {"y", 1, "%hidden"}}, "%dims_ok") +
      kEmbeddingChecks.str();
  return instantiate(op, v, kRowPlanner, kEmbeddingKernel, args);
}

FailureOr<Lowered> lowerArgmax(llm::ArgmaxOp op, StringRef name,
                               int64_t cores) {
  SmallVector<NamedOperand> args = {{"logits", op.getLogits()},
                                    {"token_ids", op.getTokenIds()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto logits = cast<MemRefType>(op.getLogits().getType());
  const int64_t vocab = logits.getDimSize(1);
  const bool bf16 = logits.getElementType().isBF16();
  FailureOr<int64_t> cols = rowChunk(op, vocab, /*align=*/16);
  if (failed(cols))
    return failure();
  Params v;
  addTypeValues(v, args);
  const std::string c = std::to_string(*cols), r = std::to_string(kRows);
  v.setDefaults({{"VOCAB", std::to_string(vocab)},
                 {"COLS", c},
                 {"X_TILE", rowsTileType("vec", r, c, bf16 ? "bf16" : "f32")},
                 {"F32_TILE", rowsTileType("vec", r, c, "f32")},
                 {"BEST_TILE", rowStatType(r)},
                 {"IDS_TILE", rowStatType(r, "i32")},
                 {"F32_ALLOC", bf16 ? kArgmaxF32Alloc.str() : ""},
                 {"TO_F32", bf16 ? kArgmaxToF32.str() : ""},
                 {"SCAN", bf16 ? "%xf" : "%x"},
                 {"PLAN_CONSTANTS", ""}});
  addPlanValues(v, name, args, cores);
  v["CHECKS"] = checks(args, {{"token_ids", 0, "%tokens"}});
  return instantiate(op, v, kRowPlanner, kArgmaxKernel, args);
}

} // namespace

void lowering::populateModelEndLowerings(LoweringRegistry &registry) {
  registry.add<llm::EmbeddingOp>(lowerEmbedding);
  registry.add<llm::ArgmaxOp>(lowerArgmax);
}
