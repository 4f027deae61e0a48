//===- StdEmission.cpp - func, arith, math, memref and scf as C++ ---------===//

#include "CppEmitter.h"

#include "wsp/Support/Layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::wsp::cpp;

namespace {

LogicalResult binary(Operation *op, Emitter &e, StringRef symbol) {
  return e.declare(op->getResult(0), (e.name(op->getOperand(0)) + " " +
                                      symbol + " " + e.name(op->getOperand(1)))
                                         .str());
}

LogicalResult unsignedBinary(Operation *op, Emitter &e, StringRef symbol) {
  FailureOr<std::string> t = e.scalarType(op->getResult(0).getType(), op);
  if (failed(t))
    return failure();
  std::string u = "static_cast<std::make_unsigned_t<" + *t + ">>";
  return e.declare(op->getResult(0),
                   llvm::formatv("static_cast<{0}>({1}({2}) {3} {1}({4}))", *t,
                                 u, e.name(op->getOperand(0)), symbol,
                                 e.name(op->getOperand(1)))
                       .str());
}

LogicalResult call(Operation *op, Emitter &e, StringRef fn) {
  return e.declare(op->getResult(0),
                   (fn + "(" + e.name(op->getOperand(0)) + ")").str());
}

LogicalResult emitFor(scf::ForOp op, Emitter &e) {
  // Loop-carried values live in the result variables.
  e.os << "// scf.for\n";
  for (auto [result, init] : llvm::zip(op.getResults(), op.getInitArgs()))
    if (failed(e.declare(result, e.name(init))))
      return failure();
  for (auto [arg, result] : llvm::zip(op.getRegionIterArgs(), op.getResults()))
    e.setName(arg, e.name(result));
  std::string iv = e.name(op.getInductionVar());
  e.os << "for (int64_t " << iv << " = " << e.name(op.getLowerBound()) << "; "
       << iv << " < " << e.name(op.getUpperBound()) << "; " << iv
       << " += " << e.name(op.getStep()) << ") {\n";
  e.os.indent();
  Block &body = *op.getBody();
  if (failed(e.emitOps(body)))
    return failure();
  auto yield = cast<scf::YieldOp>(body.getTerminator());
  if (!yield.getResults().empty() &&
      failed(e.assign(op.getResults(), yield.getResults())))
    return failure();
  e.os.unindent();
  e.os << "}\n";
  return success();
}

LogicalResult emitWhile(scf::WhileOp op, Emitter &e) {
  e.os << "// scf.while\n";
  // before-block arguments carry the loop state; results are the state the
  // condition passed on when it stopped.
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  for (auto [arg, init] : llvm::zip(before.getArguments(), op.getInits()))
    if (failed(e.declare(arg, e.name(init))))
      return failure();
  for (Value result : op.getResults())
    if (failed(e.declareResult(result, op)))
      return failure();
  e.os << "while (true) {\n";
  e.os.indent();
  if (failed(e.emitOps(before)))
    return failure();
  auto cond = cast<scf::ConditionOp>(before.getTerminator());
  e.os << "if (!" << e.name(cond.getCondition()) << ") {\n";
  e.os.indent();
  if (failed(e.assign(op.getResults(), cond.getArgs())))
    return failure();
  e.os << "break;\n";
  e.os.unindent();
  e.os << "}\n";
  for (auto [arg, value] : llvm::zip(after.getArguments(), cond.getArgs()))
    if (failed(e.declare(arg, e.name(value))))
      return failure();
  if (failed(e.emitOps(after)))
    return failure();
  auto yield = cast<scf::YieldOp>(after.getTerminator());
  if (failed(e.assign(before.getArguments(), yield.getResults())))
    return failure();
  e.os.unindent();
  e.os << "}\n";
  return success();
}

LogicalResult emitIf(scf::IfOp op, Emitter &e) {
  e.os << "// scf.if\n";
  for (Value result : op.getResults())
    if (failed(e.declareResult(result, op)))
      return failure();
  auto branch = [&](Region &region) -> LogicalResult {
    Block &block = region.front();
    if (failed(e.emitOps(block)))
      return failure();
    auto yield = cast<scf::YieldOp>(block.getTerminator());
    if (!yield.getResults().empty())
      return e.assign(op.getResults(), yield.getResults());
    return success();
  };
  e.os << "if (" << e.name(op.getCondition()) << ") {\n";
  e.os.indent();
  if (failed(branch(op.getThenRegion())))
    return failure();
  e.os.unindent();
  if (!op.getElseRegion().empty()) {
    e.os << "} else {\n";
    e.os.indent();
    if (failed(branch(op.getElseRegion())))
      return failure();
    e.os.unindent();
  }
  e.os << "}\n";
  return success();
}

} // namespace

void mlir::wsp::cpp::populateStdEmission(Emitter &e) {
  // arith
  e.add<arith::ConstantOp>([](arith::ConstantOp c, Emitter &e) {
    return e.declare(c.getResult(), e.constant(c.getValue(), c.getType()));
  });
  e.add<arith::AddIOp>([](Operation *o, Emitter &e) { return binary(o, e, "+"); });
  e.add<arith::SubIOp>([](Operation *o, Emitter &e) { return binary(o, e, "-"); });
  e.add<arith::MulIOp>([](Operation *o, Emitter &e) { return binary(o, e, "*"); });
  e.add<arith::DivSIOp>([](Operation *o, Emitter &e) { return binary(o, e, "/"); });
  e.add<arith::RemSIOp>([](Operation *o, Emitter &e) { return binary(o, e, "%"); });
  e.add<arith::DivUIOp>(
      [](Operation *o, Emitter &e) { return unsignedBinary(o, e, "/"); });
  e.add<arith::RemUIOp>(
      [](Operation *o, Emitter &e) { return unsignedBinary(o, e, "%"); });
  e.add<arith::CeilDivUIOp>([](arith::CeilDivUIOp o, Emitter &e) {
    std::string a = e.name(o.getLhs()), b = e.name(o.getRhs());
    return e.declare(o.getResult(),
                     llvm::formatv("static_cast<int64_t>((static_cast<"
                                   "uint64_t>({0}) + static_cast<uint64_t>("
                                   "{1}) - 1) / static_cast<uint64_t>({1}))",
                                   a, b)
                         .str());
  });
  e.add<arith::AndIOp>([](Operation *o, Emitter &e) { return binary(o, e, "&"); });
  e.add<arith::OrIOp>([](Operation *o, Emitter &e) { return binary(o, e, "|"); });
  e.add<arith::XOrIOp>([](Operation *o, Emitter &e) { return binary(o, e, "^"); });
  e.add<arith::AddFOp>([](Operation *o, Emitter &e) { return binary(o, e, "+"); });
  e.add<arith::SubFOp>([](Operation *o, Emitter &e) { return binary(o, e, "-"); });
  e.add<arith::MulFOp>([](Operation *o, Emitter &e) { return binary(o, e, "*"); });
  e.add<arith::DivFOp>([](Operation *o, Emitter &e) { return binary(o, e, "/"); });
  e.add<arith::MaximumFOp>([](arith::MaximumFOp o, Emitter &e) {
    return e.declare(o.getResult(), "maximumf(" + e.name(o.getLhs()) + ", " +
                                        e.name(o.getRhs()) + ")");
  });
  e.add<arith::MinSIOp>([](arith::MinSIOp o, Emitter &e) {
    return e.declare(o.getResult(), "std::min(" + e.name(o.getLhs()) + ", " +
                                        e.name(o.getRhs()) + ")");
  });
  e.add<arith::MaxSIOp>([](arith::MaxSIOp o, Emitter &e) {
    return e.declare(o.getResult(), "std::max(" + e.name(o.getLhs()) + ", " +
                                        e.name(o.getRhs()) + ")");
  });
  auto unsignedMinMax = [](Operation *o, Emitter &e) -> LogicalResult {
    FailureOr<std::string> t = e.scalarType(o->getResult(0).getType(), o);
    if (failed(t))
      return failure();
    const char *fn = isa<arith::MinUIOp>(o) ? "std::min" : "std::max";
    return e.declare(
        o->getResult(0),
        llvm::formatv("static_cast<{0}>({1}(static_cast<std::make_"
                      "unsigned_t<{0}>>({2}), static_cast<std::make_"
                      "unsigned_t<{0}>>({3})))",
                      *t, fn, e.name(o->getOperand(0)),
                      e.name(o->getOperand(1)))
            .str());
  };
  e.add<arith::MinUIOp>(unsignedMinMax);
  e.add<arith::MaxUIOp>(unsignedMinMax);
  e.add<arith::CmpIOp>([](arith::CmpIOp o, Emitter &e) -> LogicalResult {
    static const char *symbols[] = {"==", "!=", "<",  "<=", ">",
                                    ">=", "<",  "<=", ">",  ">="};
    int p = static_cast<int>(o.getPredicate());
    bool isUnsigned = p >= static_cast<int>(arith::CmpIPredicate::ult);
    std::string a = e.name(o.getLhs()), b = e.name(o.getRhs());
    // (bool is unsigned already.)
    if (isUnsigned && !o.getLhs().getType().isInteger(1)) {
      FailureOr<std::string> t = e.scalarType(o.getLhs().getType(), o);
      if (failed(t))
        return failure();
      std::string u = "static_cast<std::make_unsigned_t<" + *t + ">>";
      a = u + "(" + a + ")";
      b = u + "(" + b + ")";
    }
    return e.declare(o.getResult(), a + " " + symbols[p] + " " + b);
  });
  // Float compares: C++'s relations are the ordered predicates (false on
  // NaN); the unordered ones are their negated complements.
  e.add<arith::CmpFOp>([](arith::CmpFOp o, Emitter &e) -> LogicalResult {
    Type t = o.getLhs().getType();
    if (!t.isF32() && !t.isF64())
      return o.emitOpError("compares ")
             << t << " values; the C++ emitter compares f32 and f64";
    std::string a = e.name(o.getLhs()), b = e.name(o.getRhs()), expr;
    using P = arith::CmpFPredicate;
    switch (o.getPredicate()) {
    case P::AlwaysFalse: expr = "false"; break;
    case P::OEQ: expr = a + " == " + b; break;
    case P::OGT: expr = a + " > " + b; break;
    case P::OGE: expr = a + " >= " + b; break;
    case P::OLT: expr = a + " < " + b; break;
    case P::OLE: expr = a + " <= " + b; break;
    case P::ONE: expr = "(" + a + " < " + b + " || " + a + " > " + b + ")"; break;
    case P::ORD: expr = "(" + a + " == " + a + " && " + b + " == " + b + ")"; break;
    case P::UEQ: expr = "!(" + a + " < " + b + " || " + a + " > " + b + ")"; break;
    case P::UGT: expr = "!(" + a + " <= " + b + ")"; break;
    case P::UGE: expr = "!(" + a + " < " + b + ")"; break;
    case P::ULT: expr = "!(" + a + " >= " + b + ")"; break;
    case P::ULE: expr = "!(" + a + " > " + b + ")"; break;
    case P::UNE: expr = a + " != " + b; break;
    case P::UNO: expr = "(" + a + " != " + a + " || " + b + " != " + b + ")"; break;
    case P::AlwaysTrue: expr = "true"; break;
    }
    return e.declare(o.getResult(), expr);
  });
  e.add<arith::SelectOp>([](arith::SelectOp o, Emitter &e) {
    return e.declare(o.getResult(), e.name(o.getCondition()) + " ? " +
                                        e.name(o.getTrueValue()) + " : " +
                                        e.name(o.getFalseValue()));
  });
  // Casts that C++'s static_cast states exactly.
  auto staticCast = [](Operation *o, Emitter &e) -> LogicalResult {
    FailureOr<std::string> t = e.scalarType(o->getResult(0).getType(), o);
    if (failed(t))
      return failure();
    return e.declare(o->getResult(0), "static_cast<" + *t + ">(" +
                                          e.name(o->getOperand(0)) + ")");
  };
  e.add<arith::IndexCastOp>(staticCast);
  e.add<arith::ExtSIOp>(staticCast);
  e.add<arith::TruncIOp>(staticCast);
  e.add<arith::SIToFPOp>(staticCast);
  // Zero-extend: widen through the unsigned type of the source.
  auto zeroExtend = [](Operation *o, Emitter &e) -> LogicalResult {
    Value src = o->getOperand(0);
    FailureOr<std::string> t = e.scalarType(o->getResult(0).getType(), o);
    FailureOr<std::string> from = e.scalarType(src.getType(), o);
    if (failed(t) || failed(from))
      return failure();
    std::string in = *from == "bool" ? e.name(src)
                                     : "static_cast<std::make_unsigned_t<" +
                                           *from + ">>(" + e.name(src) + ")";
    return e.declare(o->getResult(0), "static_cast<" + *t + ">(" + in + ")");
  };
  e.add<arith::ExtUIOp>(zeroExtend);
  e.add<arith::IndexCastUIOp>(zeroExtend);
  // The 16-bit floats are structs: their conversions are the runtime's;
  // f32 <-> f64 is a cast.
  e.add<arith::ExtFOp>([](arith::ExtFOp o, Emitter &e) -> LogicalResult {
    Type from = o.getIn().getType(), to = o.getType();
    if (to.isF32() && (from.isBF16() || from.isF16()))
      return call(o, e, from.isBF16() ? "bf16_storage_to_f32" : "f16_to_f32");
    if (from.isF32() && to.isF64())
      return e.declare(o.getResult(),
                       "static_cast<double>(" + e.name(o.getIn()) + ")");
    return o.emitOpError("is emitted for bf16 or f16 -> f32 and f32 -> f64");
  });
  e.add<arith::TruncFOp>([](arith::TruncFOp o, Emitter &e) -> LogicalResult {
    Type from = o.getIn().getType(), to = o.getType();
    if (from.isF32() && (to.isBF16() || to.isF16()))
      return call(o, e, to.isBF16() ? "f32_to_bf16_storage" : "f32_to_f16");
    if (from.isF64() && to.isF32())
      return e.declare(o.getResult(),
                       "static_cast<float>(" + e.name(o.getIn()) + ")");
    return o.emitOpError("is emitted for f32 -> bf16 or f16 and f64 -> f32");
  });
  // math
  e.add<math::ExpOp>([](Operation *o, Emitter &e) { return call(o, e, "std::exp"); });
  e.add<math::LogOp>(
      [](Operation *o, Emitter &e) { return call(o, e, "std::log"); });
  e.add<math::RsqrtOp>([](math::RsqrtOp o, Emitter &e) {
    return e.declare(o.getResult(),
                     "1.0f / std::sqrt(" + e.name(o.getOperand()) + ")");
  });
  // memref
  e.add<memref::LoadOp>([](memref::LoadOp o, Emitter &e) {
    return e.declare(o.getResult(),
                     e.name(o.getMemRef()) + ".data[" +
                         e.offset(o.getMemRef(), o.getIndices()) + "]");
  });
  e.add<memref::StoreOp>([](memref::StoreOp o, Emitter &e) {
    e.os << e.name(o.getMemRef()) << ".data["
         << e.offset(o.getMemRef(), o.getIndices())
         << "] = " << e.name(o.getValueToStore()) << ";\n";
    return success();
  });
  e.add<memref::DimOp>([](memref::DimOp o, Emitter &e) {
    return e.declare(o.getResult(), e.name(o.getSource()) + ".sizes[" +
                                        e.name(o.getIndex()) + "]");
  });
  // A small static scratch buffer of the host code (a planning function's
  // lengths or descriptors): storage on the stack and a view of it. Left
  // uninitialized, as memref.alloca's memory is: the lowerings write what
  // they read (zeroing it was most of the host time of a decode step called
  // per token: 96 KiB of descriptors an attention call).
  e.add<memref::AllocaOp>(
      [](memref::AllocaOp o, Emitter &e) -> LogicalResult {
        MemRefType t = o.getType();
        if (e.flavor == Flavor::Aicore)
          return o.emitOpError("is host scratch; an AICore kernel keeps its "
                               "buffers in tiles (tile.alloc)");
        if (!t.hasStaticShape() || !t.getLayout().isIdentity())
          return o.emitOpError("is emitted for a static shape with the "
                               "identity layout only");
        FailureOr<std::string> view = e.type(t, o);
        FailureOr<std::string> elem = e.scalarType(t.getElementType(), o);
        if (failed(view) || failed(elem))
          return failure();
        std::string storage = e.name(o.getResult()) + "_storage";
        e.os << *elem << " " << storage << "[" << t.getNumElements() << "];\n";
        std::string sizes = llvm::join(
            llvm::map_range(t.getShape(),
                            [](int64_t s) { return std::to_string(s); }),
            ", ");
        return e.declare(o.getResult(),
                         *view + "{" + storage + ", {" + sizes + "}}");
      });
  // Reshapes of a row-major buffer are views of the same data with other
  // sizes: expand_shape's come from its output shape, collapse_shape's are
  // products of the grouped source sizes.
  e.add<memref::ExpandShapeOp>(
      [](memref::ExpandShapeOp o, Emitter &e) -> LogicalResult {
        FailureOr<std::string> view = e.type(o.getType(), o);
        if (failed(view) || failed(e.type(o.getSrcType(), o)))
          return failure();
        SmallVector<std::string> sizes;
        for (OpFoldResult size : o.getMixedOutputShape())
          sizes.push_back(isa<Attribute>(size)
                              ? std::to_string(cast<IntegerAttr>(
                                                   cast<Attribute>(size))
                                                   .getInt())
                              : e.name(cast<Value>(size)));
        return e.declare(o.getResult(), *view + "{" + e.name(o.getSrc()) +
                                            ".data, {" +
                                            llvm::join(sizes, ", ") + "}}");
      });
  // A contiguous subview (leading rows, whole trailing dimensions) is the
  // same row-major view from an offset: the source's data plus the
  // offsets times the source's row-major strides.
  e.add<memref::SubViewOp>([](memref::SubViewOp o,
                              Emitter &e) -> LogicalResult {
    MemRefType src = o.getSourceType();
    if (!isContiguousRowMajor(o.getType()) || !isContiguousRowMajor(src) ||
        !llvm::all_of(o.getStaticStrides(), [](int64_t s) { return s == 1; }))
      return o.emitOpError("is not a contiguous range of rows of a row-major "
                           "buffer, which the C++ emitter cannot print");
    FailureOr<std::string> view = e.type(o.getType(), o);
    if (failed(view) || failed(e.type(src, o)))
      return failure();
    auto text = [&](OpFoldResult v) {
      return isa<Attribute>(v)
                 ? std::to_string(cast<IntegerAttr>(cast<Attribute>(v)).getInt())
                 : e.name(cast<Value>(v));
    };
    std::string base = e.name(o.getSource()), offset;
    SmallVector<OpFoldResult> offsets = o.getMixedOffsets();
    for (auto [d, off] : llvm::enumerate(offsets)) {
      std::string term = text(off);
      for (size_t inner = d + 1; inner < offsets.size(); ++inner)
        term += " * " + base + ".sizes[" + std::to_string(inner) + "]";
      offset += (d ? " + " : "") + term;
    }
    SmallVector<std::string> sizes;
    for (OpFoldResult size : o.getMixedSizes())
      sizes.push_back(text(size));
    return e.declare(o.getResult(), *view + "{" + base + ".data + (" + offset +
                                        "), {" + llvm::join(sizes, ", ") +
                                        "}}");
  });
  e.add<memref::CollapseShapeOp>(
      [](memref::CollapseShapeOp o, Emitter &e) -> LogicalResult {
        FailureOr<std::string> view = e.type(o.getType(), o);
        if (failed(view) || failed(e.type(o.getSrcType(), o)))
          return failure();
        std::string src = e.name(o.getSrc());
        SmallVector<std::string> sizes;
        for (ReassociationIndices group : o.getReassociationIndices())
          sizes.push_back(llvm::join(
              llvm::map_range(group,
                              [&](int64_t d) {
                                return src + ".sizes[" + std::to_string(d) +
                                       "]";
                              }),
              " * "));
        return e.declare(o.getResult(), *view + "{" + src + ".data, {" +
                                            llvm::join(sizes, ", ") + "}}");
      });
  // A copy between two contiguous row-major views of one shape (host
  // code: a sharded program's staging of its rows).
  e.add<memref::CopyOp>([](memref::CopyOp o, Emitter &e) -> LogicalResult {
    auto from = cast<MemRefType>(o.getSource().getType());
    auto to = cast<MemRefType>(o.getTarget().getType());
    if (e.flavor == Flavor::Aicore)
      return o.emitOpError("is host code; an AICore kernel moves data with "
                           "tile loads and stores");
    if (!isContiguousRowMajor(from) || !isContiguousRowMajor(to))
      return o.emitOpError("copies between contiguous row-major views only");
    if (failed(e.type(from, o)) || failed(e.type(to, o)))
      return failure();
    std::string src = e.name(o.getSource());
    std::string count = "size_t(1)";
    for (int64_t d = 0; d < from.getRank(); ++d)
      count += " * size_t(" + src + ".sizes[" + std::to_string(d) + "])";
    e.os << "std::copy_n(" << src << ".data, " << count << ", "
         << e.name(o.getTarget()) << ".data);\n";
    return success();
  });
  e.add<memref::CastOp>([](memref::CastOp o, Emitter &e) {
    return e.declare(o.getResult(), e.name(o.getSource()));
  });
  e.add<memref::GetGlobalOp>(
      [](memref::GetGlobalOp o, Emitter &e) -> LogicalResult {
        FailureOr<std::string> t = e.type(o.getType(), o);
        FailureOr<std::string> elem =
            e.scalarType(o.getType().getElementType(), o);
        if (failed(t) || failed(elem))
          return failure();
        std::string sizes = llvm::join(
            llvm::map_range(o.getType().getShape(),
                            [](int64_t s) { return std::to_string(s); }),
            ", ");
        return e.declare(o.getResult(), *t + "{const_cast<" + *elem +
                                            " *>(g_" + o.getName().str() +
                                            "), {" + sizes + "}}");
      });
  // scf
  e.add<scf::ForOp>(emitFor);
  e.add<scf::WhileOp>(emitWhile);
  e.add<scf::IfOp>(emitIf);
  // func
  // A call of another function of the module (a captured step's
  // launches): on the AICPU the callee is its `_impl`.
  e.add<func::CallOp>([](func::CallOp c, Emitter &e) -> LogicalResult {
    if (c.getNumResults() > 1)
      return c.emitOpError("returns more than one value, which the C++ "
                           "emitter does not print");
    std::string call =
        (c.getCallee() + (e.flavor == Flavor::Aicpu ? "_impl" : "") + "(" +
         e.join(c.getOperands()) + ")")
            .str();
    if (c.getNumResults() == 1)
      return e.declare(c.getResult(0), call);
    e.os << call << ";\n";
    return success();
  });
  e.add<func::ReturnOp>([](func::ReturnOp o, Emitter &e) {
    if (o.getNumOperands() == 0)
      e.os << "return;\n";
    else
      e.os << "return " << e.name(o.getOperand(0)) << ";\n";
    return success();
  });
}
