//===- InitAllDialects.cpp - wsp and the upstream dialects it uses --------===//

#include "wsp/InitAllDialects.h"
#include "wsp/Dialect/Llm/IR/LlmDialect.h"
#include "wsp/Dialect/Tile/IR/TileDialect.h"
#include "wsp/Dialect/Wsp/IR/WspDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/IR/DialectRegistry.h"

void mlir::wsp::registerAllDialects(DialectRegistry &registry) {
  registry.insert<wsp::WspDialect, wsp::tile::TileDialect, wsp::llm::LlmDialect, arith::ArithDialect, emitc::EmitCDialect,
                  func::FuncDialect, math::MathDialect, memref::MemRefDialect,
                  scf::SCFDialect, shard::ShardDialect>();
}
