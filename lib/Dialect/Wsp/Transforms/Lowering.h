//===- Lowering.h - builders the wsp lowerings share --------------*- C++ -*-===//
//
// Private to lib/Dialect/Wsp/Transforms: the small builders wsp-plan and
// wsp-lower-preconditions write their scf/arith/memref IR with. Each
// creates one op per statement: the order ops are created in must not be
// the host compiler's order of evaluating a call's arguments.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_LIB_DIALECT_WSP_TRANSFORMS_LOWERING_H
#define WSP_LIB_DIALECT_WSP_TRANSFORMS_LOWERING_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <utility>

namespace mlir::wsp::detail {

/// Builders for lowered IR; `b` inserts where the op being lowered was.
struct Lowering {
  OpBuilder &b;
  Location loc;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32Type(),
                                     b.getI32IntegerAttr(v));
  }
  Value i1(bool v) {
    return arith::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(v));
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value toIndex(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  Value dim(Value memref, int64_t d) {
    return memref::DimOp::create(b, loc, memref, d);
  }
  Value load(Value buffer, Value i) {
    return memref::LoadOp::create(b, loc, buffer, ValueRange{i});
  }
  /// memref[indices] as an index (sign-extended).
  Value loadIndex(Value memref, ValueRange indices) {
    Value v = memref::LoadOp::create(b, loc, memref, indices);
    return toIndex(v);
  }
  /// 0 <= v < bound.
  Value inRange(Value v, Value bound) {
    Value low = cmp(arith::CmpIPredicate::sge, v, index(0));
    Value high = cmp(arith::CmpIPredicate::slt, v, bound);
    return both(low, high);
  }
  /// Whether 0 <= count <= the array's size, and the rows to read: count
  /// when it is, else 0.
  std::pair<Value, Value> countWithin(Value array, Value count) {
    Value low = cmp(arith::CmpIPredicate::sge, count, index(0));
    Value high = cmp(arith::CmpIPredicate::sle, count, dim(array, 0));
    Value fits = both(low, high);
    return {fits, select(fits, count, index(0))};
  }
  /// Whether 1 <= batch <= the size of `lengths`, and the number of rows
  /// the planning loops read: `batch` when it is, else 0. A batch larger
  /// than its lengths array is INVALID_PARAMS, never a read past it.
  std::pair<Value, Value> batchWithin(Value lengths, Value batch) {
    Value size = dim(lengths, 0);
    Value positive = cmp(arith::CmpIPredicate::sgt, batch, index(0));
    Value fits = cmp(arith::CmpIPredicate::sle, batch, size);
    Value ok = both(positive, fits);
    return {ok, select(ok, batch, index(0))};
  }
  /// and(body(i)) over i in [0, n).
  Value all(Value n, function_ref<Value(Lowering &, Value)> body) {
    Value zero = index(0);
    Value one = index(1);
    Value none = i1(true);
    auto loop = scf::ForOp::create(
        b, loc, zero, n, one, ValueRange{none},
        [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
          Lowering in{nb, l};
          Value ok = body(in, i);
          scf::YieldOp::create(nb, l, ValueRange{in.both(acc[0], ok)});
        });
    return loop.getResult(0);
  }
};

} // namespace mlir::wsp::detail

#endif // WSP_LIB_DIALECT_WSP_TRANSFORMS_LOWERING_H
