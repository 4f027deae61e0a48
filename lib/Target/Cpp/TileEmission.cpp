//===- TileEmission.cpp - tile programs as C++ ----------------------------===//
//
// The tile dialect's emission patterns for two targets from the same IR:
//
//  * the CPU simulation (Flavor::CpuSim): calls of pto::runtime::tile, the
//    project's own tile simulation (`tl::load(...)`), built with the host
//    compiler;
//  * the AICore form (Flavor::Aicore): pto-isa's API (`TLOAD(...)`,
//    `Tile<TileType::Mat, ...>`, `set_flag(PIPE_MTE2, ...)`), with each
//    instruction compiled only for the core (cube or vector) it runs on.
//
// Each function's tile types are declared once as aliases named after the
// type (`MatBf16_128x128Zn`), with the IR type in a comment.
//
//===----------------------------------------------------------------------===//

#include "CppEmitter.h"

#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Tile/Transforms/Fusion.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "mlir/IR/Region.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::wsp::cpp;
using namespace mlir::wsp::tile;

namespace {

bool isPto(Emitter &e) { return e.flavor == Flavor::Aicore; }

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// `f32` -> `F32`, for alias names.
std::string elementTag(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  s[0] = llvm::toUpper(s[0]);
  return s;
}

/// The alias a function declares for a tile type: location, element type,
/// extent and a non-default layout, e.g. `VecF32_32x1Col`.
std::string aliasName(TileType t) {
  static const char *locs[] = {"Vec", "Mat", "Left", "Right", "Acc"};
  std::string name = llvm::formatv("{0}{1}_{2}x{3}",
                                   locs[static_cast<int>(t.getLoc())],
                                   elementTag(t.getElementType()), t.getRows(),
                                   t.getCols());
  if (t.getLayout() != TileType::getDefaultLayout(t.getLoc()))
    name += t.getLayout() == TileLayout::col_major ? "Col"
            : t.getLayout() == TileLayout::zn       ? "Zn"
                                                    : "Nz";
  return name;
}

/// The element type as each target stores it.
std::string elementType(Type t, bool pto) {
  if (t.isF32())
    return "float";
  if (t.isBF16())
    return pto ? "bfloat16_t" : "bf16";
  if (t.isF16())
    return pto ? "half" : "f16";
  if (t.isInteger(8))
    return "int8_t";
  if (t.isInteger(16))
    return "int16_t";
  return "int32_t";
}

/// A pto tile's element `read` as the emitted code's scalar of type `t`: a
/// bf16 or f16 scalar is our 16-bit storage (pto/runtime/float16.hpp), a
/// tile's element pto-isa's own bfloat16_t or half, so the value passes
/// through float.
std::string halfFromTile(Type t, const std::string &read) {
  if (t.isBF16())
    return "f32_to_bf16_storage(static_cast<float>(" + read + "))";
  if (t.isF16())
    return "f32_to_f16(static_cast<float>(" + read + "))";
  return read;
}

/// The scalar `value` of type `t` as an element of pto tile `tile`.
std::string halfToTile(Type t, const std::string &tile,
                       const std::string &value) {
  if (t.isBF16())
    return "static_cast<typename decltype(" + tile +
           ")::DType>(bf16_storage_to_f32(" + value + "))";
  if (t.isF16())
    return "static_cast<typename decltype(" + tile + ")::DType>(f16_to_f32(" +
           value + "))";
  return value;
}
/// The full C++ type behind an alias.
std::string tileCppType(TileType t, bool pto) {
  std::string elem = elementType(t.getElementType(), pto);
  if (!pto) {
    static const char *locs[] = {"Vec", "Mat", "Left", "Right", "Acc"};
    static const char *layouts[] = {"RowMajor", "ColMajor", "Nz", "Zn", "Zz"};
    return llvm::formatv("tl::Tile<tl::Loc::{0}, {1}, {2}, {3}, "
                         "tl::Layout::{4}>",
                         locs[static_cast<int>(t.getLoc())], elem, t.getRows(),
                         t.getCols(), layouts[static_cast<int>(t.getLayout())])
        .str();
  }
  // pto-isa's Tile<TileType, T, Rows, Cols, BLayout, ValidRow, ValidCol,
  // SLayout, FractalSize>; valid extents are always run-time values.
  static const char *types[] = {"Vec", "Mat", "Left", "Right", "Acc"};
  const char *blayout = "RowMajor", *slayout = "NoneBox";
  int fractal = 512;
  switch (t.getLayout()) {
  case TileLayout::row_major:
    break;
  case TileLayout::col_major:
    blayout = "ColMajor";
    break;
  case TileLayout::nz:
    blayout = "ColMajor";
    slayout = "RowMajor";
    fractal = t.getLoc() == TileLoc::acc ? 1024 : 512;
    break;
  case TileLayout::zn:
    slayout = "ColMajor";
    break;
  case TileLayout::zz:
    slayout = "RowMajor";
    break;
  }
  return llvm::formatv("pto::Tile<pto::TileType::{0}, {1}, {2}, {3}, "
                       "pto::BLayout::{4}, pto::DYNAMIC, pto::DYNAMIC, "
                       "pto::SLayout::{5}, {6}>",
                       types[static_cast<int>(t.getLoc())], elem, t.getRows(),
                       t.getCols(), blayout, slayout, fractal)
      .str();
}

std::optional<FailureOr<std::string>> printTileType(Type type, Operation *at) {
  auto t = dyn_cast<TileType>(type);
  if (!t)
    return std::nullopt;
  if (!t.hasStaticShape())
    return FailureOr<std::string>(
        at->emitOpError() << "uses " << t
                          << ", whose static extent is not known; tier "
                             "specialization must fix it before emission");
  return FailureOr<std::string>(aliasName(t));
}

/// Declares the function's tile aliases (and, in the simulation, the
/// kernel's synchronization scope).
LogicalResult tilePrologue(Region &body, Emitter &e) {
  llvm::SetVector<Type> types;
  body.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (auto t = dyn_cast<TileType>(v.getType()))
        types.insert(t);
  });
  if (types.empty())
    return success();
  std::vector<std::pair<std::string, TileType>> sorted;
  for (Type t : types) {
    auto tile = cast<TileType>(t);
    if (!tile.hasStaticShape())
      return body.getParentOp()->emitOpError()
             << "uses " << tile
             << ", whose static extent is not known; tier specialization "
                "must fix it before emission";
    sorted.push_back({aliasName(tile), tile});
  }
  // One alias per name: tiles that differ only in their valid extent share
  // it (the valid extent is a run-time value in both forms).
  llvm::sort(sorted, [](auto &a, auto &b) { return a.first < b.first; });
  sorted.erase(std::unique(sorted.begin(), sorted.end(),
                           [](auto &a, auto &b) { return a.first == b.first; }),
               sorted.end());
  for (auto &[name, t] : sorted) {
    TileType plain = t.withValidShape(t.getShape());
    e.os << "using " << name << " = " << tileCppType(t, isPto(e)) << "; // "
         << plain << "\n";
  }
  if (!isPto(e))
    e.os << "tl::KernelScope wsp_tile_scope; // pipes and flags of this "
            "kernel\n";
  return success();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

TileType tileType(Value v) { return cast<TileType>(v.getType()); }

/// An index value as an int.
std::string asInt(Emitter &e, Value v) {
  return "static_cast<int>(" + e.name(v) + ")";
}

/// The run-time valid extent of dim `d` of an alloc or subview result.
std::string validSize(Emitter &e, TileType t, ValueRange dynamicValid,
                      unsigned d) {
  if (t.getValidShape()[d] != TileType::kDynamic)
    return std::to_string(t.getValidShape()[d]);
  return asInt(e, dynamicValid[t.getDynamicValidIndex(d)]);
}

/// Wraps the statement of a cube or vector instruction in the AICore form
/// so that each core compiles only its own instructions.
std::string onUnit(Emitter &e, Unit unit, const std::string &stmt) {
  if (!isPto(e))
    return stmt;
  return (unit == Unit::cube ? "WSP_CUBE(" : "WSP_VEC(") + stmt + ");";
}

/// Wraps the declaration of a tile of `unit`'s memory in the AICore form:
/// compiled for that core alone on the device, in scope on every core of
/// the CPU simulation (whose instructions ask which core runs them).
std::string declareOnUnit(Unit unit, const std::string &decl) {
  return (unit == Unit::cube ? "WSP_CUBE_TILE(" : "WSP_VEC_TILE(") + decl +
         ");";
}

/// pto-isa: tile `dst` placed over tile `src`'s bytes, `offset` bytes in
/// when given (a view: a subview, a reshape to another element type, the
/// unsigned form of a mask).
std::string assignOver(const std::string &dst, const std::string &src,
                       const std::string &offset = "") {
  return "TASSIGN(" + dst + ", reinterpret_cast<uint64_t>(" + src + ".data())" +
         (offset.empty() ? "" : " + " + offset) + ")";
}

/// Prints the instruction's statement, on the core that runs it.
LogicalResult instr(Emitter &e, Operation *op, Unit unit,
                    const std::string &call) {
  e.os << onUnit(e, unit, isPto(e) ? call : call + ";") << "\n";
  return success();
}

/// The GM address of a memref element and its row stride (elements).
std::pair<std::string, std::string> gmAddress(Emitter &e, Value memref,
                                              ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  std::string base =
      e.name(memref) + ".data + (" + e.offset(memref, indices) + ")";
  std::string stride =
      type.getRank() >= 2
          ? e.name(memref) + ".sizes[" + std::to_string(type.getRank() - 1) + "]"
          : std::string("int64_t(0)");
  return {base, stride};
}

/// The simulation's checked place of `indices` in `memref`:
/// `tl::at(x, r, c)`.
std::string gmAt(Emitter &e, Value memref, ValueRange indices) {
  std::string at = "tl::at(" + e.name(memref);
  for (Value index : indices)
    at += ", " + e.name(index);
  return at + ")";
}

const char *pipeName(Pipe p, bool pto) {
  static const char *sim[] = {"tl::Pipe::S",    "tl::Pipe::V",
                              "tl::Pipe::M",    "tl::Pipe::MTE1",
                              "tl::Pipe::MTE2", "tl::Pipe::MTE3",
                              "tl::Pipe::FIX",  "tl::Pipe::S"};
  static const char *device[] = {"PIPE_S",    "PIPE_V",    "PIPE_M",
                                 "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3",
                                 "PIPE_FIX",  "PIPE_ALL"};
  return (pto ? device : sim)[static_cast<int>(p)];
}

const char *unitName(Unit u) {
  return u == Unit::cube ? "tl::Unit::Cube" : "tl::Unit::Vector";
}


std::string eventId(Emitter &e, int64_t event, Value slot) {
  std::string id = std::to_string(event);
  if (slot)
    id += " + " + asInt(e, slot);
  return id;
}

/// The simulation's function for an instruction, named after its op
/// (`tl::rowsum` for tile.rowsum); the AICore form calls pto-isa's
/// (PipeOpInterface::getInstructionName, `TROWSUM`).
std::string simFunction(Operation *op) {
  return "tl::" + op->getName().stripDialect().str();
}

/// Instructions that are one call of their operands: `TROWSUM(...)` on the
/// device, `tl::rowsum(...)` in the simulation.
template <typename... OpTs> void addCalls(Emitter &e) {
  (e.add<OpTs>([](OpTs op, Emitter &e) {
    std::string fn = isPto(e) ? op.getInstructionName().str() : simFunction(op);
    return instr(e, op, op.getUnit(),
                 fn + "(" + e.join(op->getOperands()) + ")");
  }),
   ...);
}

const char *cmpName(CmpMode m) {
  static const char *names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  return names[static_cast<int>(m)];
}

//===----------------------------------------------------------------------===//
// Fused groups (the simulation's)
//===----------------------------------------------------------------------===//

/// The function of the simulation's lanes (`wsp_l.<fn>`, in
/// pto::runtime::tile's fused form) that computes an op of a fused group,
/// by what the op computes (the dialect's ElementwiseKind) and its form:
/// the one table of their names. "" if the lanes have none.
StringRef laneFunction(const LaneOp &l) {
  using K = ElementwiseKind;
  if (l.kind == LaneKind::load || l.kind == LaneKind::load_column)
    return "load";
  if (l.kind == LaneKind::convert) { // by the type it converts to
    Type to = cast<TileType>(l.dst.getType()).getElementType();
    return to.isF32()         ? "to_f32"
           : to.isBF16()      ? "to_bf16"
           : to.isInteger(32) ? "to_i32"
           : to.isInteger(16) ? "to_i16"
           : to.isF16()       ? "to_f16"
           : to.isInteger(8)  ? "to_i8"
                              : "";
  }
  static const struct {
    K fn;
    const char *elementwise, *overRow;
  } table[] = {{K::add, "add", "rowsum"}, {K::sub, "sub", ""},
               {K::mul, "mul", ""},       {K::div, "div", ""},
               {K::max, "max", "rowmax"}, {K::min, "min", "rowmin"},
               {K::abs, "abs", ""}};
  for (const auto &f : table)
    if (f.fn == l.fn)
      return l.kind == LaneKind::row_reduce ? f.overRow : f.elementwise;
  return "";
}

/// A group marked by tile-mark-fusion: its instructions, which run for
/// their checks, then its lanes, one statement per instruction with the
/// values in registers (named after the tile and numbered), storing what
/// the program reads afterwards:
///
///   tl::GmRows<const bf16> wsp_x_rows_0{x.data + (...), x.sizes[1]};
///   tl::fused(
///       [&] { tl::load(xb, x.data + (...), x.sizes[1]); ... },
///       xf, [=](auto &wsp_l, int wsp_r, int wsp_c) PTO_TILE_FUSED {
///         auto wsp_xb_0 = wsp_l.load(wsp_x_rows_0, wsp_r, wsp_c);
///         ...
///       }, wsp_x_rows_0);
///
/// The group's loads and stores of global memory go through the rows
/// declared before it (tl::GmRows), which tl::fused checks are apart.
LogicalResult printFusedGroup(Operation *first, Emitter &e) {
  auto fn = first->getParentOfType<FunctionOpInterface>();
  if (!fn)
    return first->emitOpError("is marked fused outside a function");
  FailureOr<FusionGroup> group = FusionAnalysis(fn).getGroup(first);
  if (failed(group))
    return failure();
  e.os << "// " << kFuseAttrName << ": " << group->ops.size()
       << " ops, computed in registers";
  for (unsigned w : group->stores)
    e.os << (w == group->stores.front() ? "; stores " : ", ")
         << e.name(group->ops[w].dst);
  e.os << "\n";
  // The global memory rows of each load and store, by op, in a block of
  // their own (their names are the group's).
  DenseMap<Operation *, std::string> rows;
  SmallVector<std::string> rowNames;
  auto memory = [](const LaneOp &l) {
    return l.kind == LaneKind::load || l.kind == LaneKind::load_column ||
           l.kind == LaneKind::store;
  };
  bool block = llvm::any_of(group->ops, memory);
  if (block) {
    e.os << "{\n";
    e.os.indent();
  }
  for (const LaneOp &l : group->ops) {
    if (!memory(l))
      continue;
    auto load = dyn_cast<LoadOp>(l.op);
    auto store = dyn_cast<StoreOp>(l.op);
    Value memref = load ? load.getSource() : store.getDest();
    auto [addr, stride] =
        gmAddress(e, memref, load ? load.getIndices() : store.getIndices());
    FailureOr<std::string> elem =
        e.scalarType(cast<MemRefType>(memref.getType()).getElementType(), l.op);
    if (failed(elem))
      return failure();
    std::string name =
        "wsp_" + e.name(memref) + "_rows_" + std::to_string(rowNames.size());
    e.os << "const tl::GmRows<" << (load ? "const " : "") << *elem << "> "
         << name << "{" << addr << ", " << stride << "}; // " << l.op->getName()
         << "\n";
    rows[l.op] = name;
    rowNames.push_back(name);
  }
  e.os << "tl::fused(\n";
  e.os.indent();
  e.os << "[&] {\n";
  e.os.indent();
  for (const LaneOp &l : group->ops) {
    if (failed(e.emitOpItself(*l.op)))
      return failure();
    e.markPrinted(l.op);
  }
  e.os.unindent();
  e.os << "},\n"
       << e.name(group->extent)
       << ", [=](auto &wsp_l, int wsp_r, int wsp_c) PTO_TILE_FUSED {\n";
  e.os.indent();
  // The register holding each tile's current value (by its bytes).
  std::vector<std::pair<TileBytes, std::string>> regs;
  int statement = 0, reductions = 0;
  auto reg = [&](Value tile) -> std::string {
    TileBytes b = *getTileSpan(tile);
    for (auto &[bytes, name] : regs)
      if (bytes == b)
        return name;
    return "wsp_l.load(" + e.name(tile) + ", wsp_r, wsp_c)";
  };
  auto inRegs = [&](Value tile) {
    TileBytes b = *getTileSpan(tile);
    return llvm::any_of(regs, [&](auto &p) { return p.first == b; });
  };
  for (const LaneOp &l : group->ops) {
    if (l.kind == LaneKind::sync)
      continue;
    if (l.kind == LaneKind::store) {
      e.os << "wsp_l.store(" << rows[l.op] << ", wsp_r, wsp_c, "
           << reg(l.sources.front()) << "); // " << l.op->getName() << "\n";
      continue;
    }
    StringRef fn = laneFunction(l);
    if (fn.empty())
      return l.op->emitOpError("has no function in the simulation's lanes");
    if (l.kind == LaneKind::row_reduce && l.partials) {
      // The second step in pieces: the row's last group reduces its
      // partials.
      e.os << "wsp_l." << fn << "_of_pieces(" << e.name(l.reduced)
           << ", wsp_r, " << e.name(l.partials) << ", " << l.pieces << "); // "
           << l.op->getName() << "\n";
      continue;
    }
    if (l.kind == LaneKind::row_reduce) {
      // The row's state in its slot; the row's last group writes the
      // result (in pieces: each piece's last group, its partial).
      Value src = l.sources.front();
      e.os << "wsp_l." << fn << (l.pieces ? "_pieces(" : "(")
           << e.name(l.reduced) << ", wsp_r, " << reductions++ << ", "
           << reg(src);
      if (l.pieces)
        e.os << ", " << l.pieces << ", "
             << cast<TileType>(src.getType()).getCols() / l.pieces;
      e.os << "); // " << l.op->getName() << "\n";
      continue;
    }
    SmallVector<std::string> args;
    if (l.kind == LaneKind::load)
      args.push_back(rows[l.op] + ", wsp_r, wsp_c");
    else if (l.kind == LaneKind::load_column) // (its only row)
      args.push_back(rows[l.op] + ", 0, wsp_c");
    for (Value v : l.sources)
      args.push_back(reg(v));
    if (l.kind == LaneKind::scalar)
      args.push_back("wsp_l.scalar(" + e.name(l.scalar) + ")");
    else if (l.kind == LaneKind::row_broadcast)
      args.push_back("wsp_l.row(" + e.name(l.broadcast) + ", wsp_r)");
    else if (l.kind == LaneKind::col_broadcast)
      args.push_back(inRegs(l.broadcast)
                         ? reg(l.broadcast) // loaded in the group
                         : "wsp_l.col(" + e.name(l.broadcast) + ", wsp_c)");
    // (The number keeps names apart: a tile may itself be named x_1.)
    std::string name =
        "wsp_" + e.name(l.dst) + "_" + std::to_string(statement++);
    e.os << "auto " << name << " = wsp_l." << fn << "("
         << llvm::join(args, ", ") << "); // " << l.op->getName() << "\n";
    TileBytes b = *getTileSpan(l.dst);
    auto known = llvm::find_if(regs, [&](auto &p) { return p.first == b; });
    if (known == regs.end())
      regs.push_back({b, name});
    else
      known->second = name;
  }
  for (unsigned w : group->stores) {
    // A column's row, loaded in the group, is stored with the first row.
    const LaneOp &writer = group->ops[w];
    Value v = writer.dst;
    if (writer.kind == LaneKind::load_column)
      e.os << "if (wsp_r == 0) wsp_l.store(" << e.name(v) << ", 0, wsp_c, "
           << reg(v) << ");\n";
    else
      e.os << "wsp_l.store(" << e.name(v) << ", wsp_r, wsp_c, " << reg(v)
           << ");\n";
  }
  e.os.unindent();
  e.os << "}";
  for (const std::string &name : rowNames)
    e.os << ", " << name;
  e.os << ");\n";
  e.os.unindent();
  if (block) {
    e.os.unindent();
    e.os << "}\n";
  }
  return success();
}

} // namespace

void mlir::wsp::cpp::populateTileEmission(Emitter &e) {
  e.addTypePrinter(printTileType);
  e.addPrologue(tilePrologue);
  if (e.flavor == Flavor::CpuSim)
    e.addAttributePattern(kFuseAttrName, printFusedGroup);

  // Handles.
  e.add<AllocOp>([](AllocOp op, Emitter &e) -> LogicalResult {
    TileType t = op.getType();
    if (!op.getOffsetAttr())
      return op.emitOpError("has no buffer offset; run tile-plan-memory "
                            "before emission");
    FailureOr<std::string> alias = e.type(t, op);
    if (failed(alias))
      return failure();
    std::string v = e.name(op.getResult());
    std::string vr = validSize(e, t, op.getDynamicValid(), 0),
                vc = validSize(e, t, op.getDynamicValid(), 1);
    int64_t offset = op.getOffsetAttr().getInt();
    std::string slot =
        op.getSlot() ? llvm::formatv("{0} % {1}", e.name(op.getSlot()),
                                     op.getNumBuffers())
                           .str()
                     : "";
    Unit unit = getUnit(t.getLoc());
    std::string decl = *alias + " " + v + "(" + vr + ", " + vc + ");";
    std::string place;
    if (isPto(e))
      place = llvm::formatv("wsp_aicore::assign({0}, {1}{2});", v, offset,
                            slot.empty() ? ""
                                         : " + (" + slot + ") * " +
                                               std::to_string(t.getSizeInBytes()))
                  .str();
    else
      place = llvm::formatv("tl::assign({0}, {1}{2});", v, offset,
                            slot.empty() ? "" : ", " + slot)
                  .str();
    if (isPto(e)) {
      e.os << declareOnUnit(unit, decl.substr(0, decl.size() - 1)) << "\n";
      e.os << onUnit(e, unit, place.substr(0, place.size() - 1)) << "\n";
    } else {
      e.os << decl << "\n" << place << "\n";
    }
    return success();
  });
  e.add<SubviewOp>([](SubviewOp op, Emitter &e) -> LogicalResult {
    TileType t = tileType(op.getResult());
    FailureOr<std::string> alias = e.type(t, op);
    FailureOr<std::string> src = e.type(op.getSource().getType(), op);
    if (failed(alias) || failed(src))
      return failure();
    std::string v = e.name(op.getResult());
    std::string vr = validSize(e, t, op.getDynamicValid(), 0),
                vc = validSize(e, t, op.getDynamicValid(), 1);
    if (!isPto(e))
      return e.declare(op.getResult(),
                       llvm::formatv("tl::subview<{0}>({1}, {2}, {3}, {4}, {5})",
                                     *alias, e.name(op.getSource()),
                                     e.name(op.getRow()), e.name(op.getCol()),
                                     vr, vc)
                           .str());
    int64_t cols = tileType(op.getSource()).getCols();
    e.os << declareOnUnit(Unit::vector,
                          *alias + " " + v + "(" + vr + ", " + vc + ")")
         << "\n";
    e.os << onUnit(e, Unit::vector,
                   assignOver(v, e.name(op.getSource()),
                              llvm::formatv("({0} * {1} + {2}) * sizeof("
                                            "typename {3}::DType)",
                                            e.name(op.getRow()), cols,
                                            e.name(op.getCol()), *src)
                                  .str()))
         << "\n";
    return success();
  });
  e.add<ReshapeOp>([](ReshapeOp op, Emitter &e) -> LogicalResult {
    FailureOr<std::string> alias = e.type(op.getResult().getType(), op);
    if (failed(alias))
      return failure();
    if (!isPto(e))
      return e.declare(op.getResult(), "tl::reshape<" + *alias + ">(" +
                                           e.name(op.getSource()) + ")");
    Unit unit = getUnit(tileType(op.getSource()).getLoc());
    TileType t = tileType(op.getResult());
    std::string v = e.name(op.getResult());
    // pto-isa leaves a default-constructed tile's run-time valid extent
    // unset: construct it with the result type's (static) one.
    e.os << declareOnUnit(unit, llvm::formatv("{0} {1}({2}, {3})", *alias, v,
                                              t.getValidShape()[0],
                                              t.getValidShape()[1])
                                    .str())
         << "\n";
    // TRESHAPE takes element types of one kind only (its static_assert:
    // the same, both floating or both integral, and pto-isa's half is not
    // std::is_floating_point): another element type is the source's
    // address assigned, which is what TRESHAPE does on the NPU.
    if (t.getElementType() != tileType(op.getSource()).getElementType())
      return instr(e, op, unit, assignOver(v, e.name(op.getSource())));
    return instr(e, op, unit, "TRESHAPE(" + v + ", " + e.name(op.getSource()) + ")");
  });

  // Global memory.
  // (The simulation checks the place against the memref's sizes:
  // tl::at.)
  e.add<LoadOp>([](LoadOp op, Emitter &e) {
    if (!isPto(e))
      return instr(e, op, op.getUnit(),
                   std::string(op.getTranspose() ? "tl::load_t(" : "tl::load(") +
                       e.name(op.getDst()) + ", " +
                       gmAt(e, op.getSource(), op.getIndices()) + ")");
    auto [addr, stride] = gmAddress(e, op.getSource(), op.getIndices());
    std::string fn = op.getTranspose() ? "wsp_aicore::load_t" : "wsp_aicore::load";
    return instr(e, op, op.getUnit(),
                 fn + "(" + e.name(op.getDst()) + ", " + addr + ", " + stride + ")");
  });
  e.add<LoadPagedOp>([](LoadPagedOp op, Emitter &e) -> LogicalResult {
    auto cache = cast<MemRefType>(op.getCache().getType());
    std::string c = e.name(op.getCache()), table = e.name(op.getTable());
    bool heads = cache.getRank() == 4;
    if (!isPto(e))
      return instr(e, op, op.getUnit(),
                   std::string(op.getTranspose() ? "tl::load_paged_t("
                                                 : "tl::load_paged(") +
                       e.name(op.getDst()) + ", tl::pages(" + c + ", " +
                       table + ", " + e.name(op.getTableRow()) +
                       (heads ? ", " + e.name(op.getHead()) : "") + "), " +
                       e.name(op.getPos()) + ")");
    FailureOr<std::string> elem = e.scalarType(cache.getElementType(), op);
    if (failed(elem))
      return failure();
    // Page stride, row stride and page size of [pages, (heads,) ps, cols].
    std::string ps = c + ".sizes[" + (heads ? "2" : "1") + "]";
    std::string cols = c + ".sizes[" + (heads ? "3" : "2") + "]";
    std::string pageElems = ps + " * " + cols; // one page of one head
    std::string base = c + ".data";
    std::string pageStride = pageElems;
    if (heads) {
      base += " + " + e.name(op.getHead()) + " * " + pageElems;
      pageStride = c + ".sizes[1] * " + pageElems;
    }
    std::string pages = llvm::formatv(
        "wsp_aicore::Pages<{0}>{{{1}, {2}, {3}, {4}, {5}.data + {6} * "
        "{5}.sizes[1], {5}.sizes[1]}",
        *elem, base, pageStride, cols, ps, table, e.name(op.getTableRow()));
    std::string fn = op.getTranspose() ? "wsp_aicore::load_paged_t"
                                       : "wsp_aicore::load_paged";
    return instr(e, op, op.getUnit(),
                 fn + "(" + e.name(op.getDst()) + ", " + pages + ", " +
                     e.name(op.getPos()) + ")");
  });
  e.add<StoreOp>([](StoreOp op, Emitter &e) {
    if (!isPto(e))
      return instr(e, op, op.getUnit(),
                   std::string(op.getTranspose() ? "tl::store_t(" : "tl::store(") +
                       gmAt(e, op.getDest(), op.getIndices()) + ", " +
                       e.name(op.getSrc()) + ")");
    auto [addr, stride] = gmAddress(e, op.getDest(), op.getIndices());
    std::string fn =
        op.getTranspose() ? "wsp_aicore::store_t" : "wsp_aicore::store";
    return instr(e, op, op.getUnit(),
                 fn + "(" + addr + ", " + stride + ", " + e.name(op.getSrc()) +
                     ")");
  });

  // The instructions that are one call; the others below.
  addCalls<MovOp, ExtractOp, TransposeOp, DequantOp, MatmulOp, GemvOp>(e);
  addCalls<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, ExpOp, LogOp, SqrtOp,
           RsqrtOp, AbsOp, AddsOp, SubsOp, MulsOp, DivsOp, MaxsOp, MinsOp,
           ExpandsOp>(e);
  addCalls<RowMaxOp, RowSumOp, RowMinOp, ColMaxOp, ColSumOp, ColMinOp,
           RowExpandOp, ColExpandOp, RowExpandAddOp, RowExpandSubOp,
           RowExpandMulOp, RowExpandDivOp, RowExpandMaxOp, RowExpandMinOp,
           ColExpandAddOp, ColExpandSubOp, ColExpandMulOp, ColExpandDivOp,
           ColExpandMaxOp, ColExpandMinOp, SelOp>(e);

  // Conversions, the cube.
  e.add<CvtOp>([](CvtOp op, Emitter &e) {
    static const char *modes[] = {"RINT", "ROUND", "FLOOR", "CEIL", "TRUNC"};
    static const char *simModes[] = {"Rint", "Round", "Floor", "Ceil",
                                     "Trunc"};
    std::string args = e.name(op.getDst()) + ", " + e.name(op.getSrc());
    if (!isPto(e))
      return instr(e, op, op.getUnit(),
                   simFunction(op) + "(" + args + ", tl::Round::" +
                       simModes[static_cast<int>(op.getRound())] + ")");
    return instr(e, op, op.getUnit(),
                 op.getInstructionName().str() + "(" + args +
                     ", pto::RoundMode::CAST_" +
                     modes[static_cast<int>(op.getRound())] + ")");
  });
  e.add<QuantOp>([](QuantOp op, Emitter &e) -> LogicalResult {
    if (!isPto(e))
      return instr(e, op, op.getUnit(),
                   simFunction(op) + "(" + e.join(op->getOperands()) + ")");
    return op.emitOpError("has no pto-isa form that both A2/A3 and pto-isa's "
                          "CPU simulation compile (A2/A3 takes only the "
                          "scratch-tile TQUANT, the simulation only the "
                          "other); quantize with tile.cvt");
  });
  e.add<MatmulAccOp>([](MatmulAccOp op, Emitter &e) {
    std::string c = e.name(op.getC()), ab =
        e.name(op.getA()) + ", " + e.name(op.getB());
    // pto-isa's portable form names the accumulator twice (out, in).
    return instr(e, op, op.getUnit(),
                 isPto(e) ? "pto::" + op.getInstructionName().str() + "(" + c +
                                ", " + c + ", " + ab + ")"
                          : simFunction(op) + "(" + c + ", " + ab + ")");
  });

  // Indices, masks, selection, scalar access.
  e.add<CiOp>([](CiOp op, Emitter &e) {
    std::string dst = e.name(op.getDst()), start = e.name(op.getStart());
    bool down = op.getDescending();
    if (!isPto(e))
      return instr(e, op, op.getUnit(),
                   simFunction(op) + "(" + dst + ", " + start +
                       (down ? ", true" : "") + ")");
    std::string alias = aliasName(tileType(op.getDst()));
    std::string elem = elementType(tileType(op.getDst()).getElementType(), true);
    return instr(e, op, op.getUnit(),
                 llvm::formatv("{0}<{1}, {2}, {3}>({4}, {5})",
                               op.getInstructionName(), alias, elem,
                               down ? 1 : 0, dst, start)
                     .str());
  });
  e.add<TriOp>([](TriOp op, Emitter &e) {
    std::string dst = e.name(op.getDst()), d = e.name(op.getDiagonal());
    bool upper = op.getUpper();
    if (!isPto(e))
      return instr(e, op, op.getUnit(),
                   simFunction(op) + "(" + dst + ", " + d +
                       (upper ? ", true" : "") + ")");
    return instr(
        e, op, op.getUnit(),
        llvm::formatv("{0}<{1}, {2}>({3}, {4})", op.getInstructionName(),
                      aliasName(tileType(op.getDst())), upper ? 1 : 0, dst, d)
            .str());
  });
  e.add<CmpsOp>([](CmpsOp op, Emitter &e) {
    std::string mask = e.name(op.getMask());
    const char *mode = cmpName(op.getMode());
    std::string rest =
        ", " + e.name(op.getSrc()) + ", " + e.name(op.getScalar());
    if (!isPto(e))
      return instr(e, op, op.getUnit(),
                   simFunction(op) + "(" + mask + rest + ", tl::Cmp::" + mode +
                       ")");
    // pto-isa's a2a3 TCMPS writes its bits through a uint8_t tile: an i8
    // mask is given as an unsigned view of the same bytes, in a block of
    // its own.
    TileType t = tileType(op.getMask());
    if (t.getElementType().isInteger(8)) {
      std::string type = tileCppType(t, /*pto=*/true);
      type.replace(type.find("int8_t"), 6, "uint8_t");
      return instr(e, op, op.getUnit(),
                   "{ " + type + " bits(" + mask + ".GetValidRow(), " + mask +
                       ".GetValidCol()); " + assignOver("bits", mask) + "; " +
                       op.getInstructionName().str() + "(bits" + rest +
                       ", pto::CmpMode::" + mode + "); }");
    }
    return instr(e, op, op.getUnit(),
                 op.getInstructionName().str() + "(" + mask + rest +
                     ", pto::CmpMode::" + mode + ")");
  });
  e.add<GetValOp>([](GetValOp op, Emitter &e) -> LogicalResult {
    TileType t = tileType(op.getTile());
    std::string r = e.name(op.getRow()), c = e.name(op.getCol());
    if (!isPto(e))
      return e.declare(op.getResult(), simFunction(op) + "(" +
                                           e.name(op.getTile()) + ", " + r +
                                           ", " + c + ")");
    std::string offset = t.getLayout() == TileLayout::col_major
                             ? llvm::formatv("{0} * {1} + {2}", c, t.getRows(), r).str()
                             : llvm::formatv("{0} * {1} + {2}", r, t.getCols(), c).str();
    FailureOr<std::string> type = e.type(op.getResult().getType(), op);
    if (failed(type))
      return failure();
    e.os << *type << " " << e.name(op.getResult()) << "{};\n";
    std::string read = e.name(op.getTile()) + "." +
                       op.getInstructionName().str() + "(" + offset + ")";
    return instr(e, op, op.getUnit(),
                 e.name(op.getResult()) + " = " +
                     halfFromTile(op.getResult().getType(), read));
  });
  e.add<SetValOp>([](SetValOp op, Emitter &e) {
    TileType t = tileType(op.getTile());
    std::string r = e.name(op.getRow()), c = e.name(op.getCol());
    if (!isPto(e))
      return instr(e, op, op.getUnit(),
                   simFunction(op) + "(" + e.name(op.getTile()) + ", " + r +
                       ", " + c + ", " + e.name(op.getValue()) + ")");
    std::string offset = t.getLayout() == TileLayout::col_major
                             ? llvm::formatv("{0} * {1} + {2}", c, t.getRows(), r).str()
                             : llvm::formatv("{0} * {1} + {2}", r, t.getCols(), c).str();
    return instr(e, op, op.getUnit(),
                 e.name(op.getTile()) + "." + op.getInstructionName().str() +
                     "(" + offset + ", " +
                     halfToTile(op.getValue().getType(), e.name(op.getTile()),
                                e.name(op.getValue())) +
                     ")");
  });

  // Synchronization and the block.
  auto flag = [](auto op, Emitter &e, StringRef what) {
    std::string id = eventId(e, op.getEvent(), op.getSlot());
    Unit unit = getFlagUnit(op.getSrc(), op.getDst());
    if (!isPto(e)) {
      e.os << "tl::" << what << "(" << unitName(unit) << ", "
           << pipeName(op.getSrc(), false) << ", "
           << pipeName(op.getDst(), false) << ", " << id << ");\n";
      return success();
    }
    e.os << onUnit(e, unit,
                   (what + "(" + pipeName(op.getSrc(), true) + ", " +
                    pipeName(op.getDst(), true) + ", (event_t)(" + id + "))")
                       .str())
         << "\n";
    return success();
  };
  e.add<SetFlagOp>([flag](SetFlagOp op, Emitter &e) {
    return flag(op, e, "set_flag");
  });
  e.add<WaitFlagOp>([flag](WaitFlagOp op, Emitter &e) {
    return flag(op, e, "wait_flag");
  });
  e.add<BarrierOp>([](BarrierOp op, Emitter &e) {
    Pipe p = op.getPipe();
    if (isPto(e)) {
      e.os << "pipe_barrier(" << pipeName(p, true) << ");\n";
      return success();
    }
    if (p == Pipe::all)
      e.os << "tl::barrier_all(tl::Unit::Cube);\ntl::barrier_all(tl::Unit::"
              "Vector);\n";
    else
      e.os << "tl::barrier(" << unitName(getFlagUnit(p, p)) << ", "
           << pipeName(p, false) << ");\n";
    return success();
  });
  e.add<SyncSetOp>([](SyncSetOp op, Emitter &e) {
    if (!isPto(e))
      e.os << "tl::sync_set(" << unitName(op.getUnit()) << ", "
           << pipeName(op.getPipe(), false) << ", " << op.getEvent() << ");\n";
    else
      e.os << onUnit(e, op.getUnit(),
                     llvm::formatv("wsp_aicore::cross_core_set({0}, {1})",
                                   pipeName(op.getPipe(), true), op.getEvent())
                         .str())
           << "\n";
    return success();
  });
  e.add<SyncWaitOp>([](SyncWaitOp op, Emitter &e) {
    if (!isPto(e))
      e.os << "tl::sync_wait(" << unitName(op.getUnit()) << ", "
           << op.getEvent() << ");\n";
    else
      e.os << onUnit(e, op.getUnit(),
                     llvm::formatv("wsp_aicore::cross_core_wait({0})", op.getEvent())
                         .str())
           << "\n";
    return success();
  });
  e.add<SubblockIdOp>([](SubblockIdOp op, Emitter &e) {
    return e.declare(op.getResult(),
                     isPto(e) ? "static_cast<int64_t>(get_subblockid())"
                              : "int64_t(0) /* one vector core per block */");
  });
  e.add<SubblockNumOp>([](SubblockNumOp op, Emitter &e) {
    return e.declare(op.getResult(),
                     isPto(e) ? "static_cast<int64_t>(get_subblockdim())"
                              : "int64_t(1) /* one vector core per block */");
  });
  e.add<BlockIdxOp>([](BlockIdxOp op, Emitter &e) {
    return e.declare(op.getResult(), "static_cast<int64_t>(get_block_idx())");
  });
}
