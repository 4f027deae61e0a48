//===- LlmToWsp.cpp - llm operators to wsp workloads of tile kernels ------===//
//
// Each llm op becomes, at the op, a planning sequence (run-time shape
// checks, chunk planning, descriptor generation, dispatch) and, beside its
// function, a tier configuration and a tile-level wsp.kernel. Both are
// written below as IR text with the op's static sizes filled in, parsed,
// and moved into place: a kernel reads as the IR it is, and the parser
// verifies it. The function becomes a planning function returning the
// spec's PlanResult code.
//
//===----------------------------------------------------------------------===//

#include "wsp/Conversion/Passes.h"
#include "wsp/Dialect/Llm/IR/LlmOps.h"
#include "wsp/Dialect/Tile/IR/TileDialect.h"
#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Support/Layouts.h"
#include "wsp/Support/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <pto/runtime/hardware.hpp>

#include <cmath>

#include <map>

namespace mlir::wsp {
#define GEN_PASS_DEF_CONVERTLLMTOWSP
#include "wsp/Conversion/Passes.h.inc"
} // namespace mlir::wsp

using namespace mlir;
using namespace mlir::wsp;

namespace {

//===----------------------------------------------------------------------===//
// IR text templates
//===----------------------------------------------------------------------===//

/// Replaces every `${KEY}` of `text` by its value; a key without a value is
/// left as it is (and the parser will name it).
std::string substitute(StringRef text,
                       const std::map<std::string, std::string> &values) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    size_t at = text.find("${");
    if (at == StringRef::npos) {
      out += text;
      break;
    }
    out += text.take_front(at);
    text = text.drop_front(at);
    size_t end = text.find('}');
    auto it = end == StringRef::npos
                  ? values.end()
                  : values.find(text.slice(2, end).str());
    if (it == values.end()) {
      out += text.take_front(2);
      text = text.drop_front(2);
      continue;
    }
    out += it->second;
    text = text.drop_front(end + 1);
  }
  return out;
}

std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string str(Attribute a) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << a;
  return s;
}

/// One operand of an llm op as the kernel and the planner see it: its seed
/// name and value.
struct NamedOperand {
  std::string name;
  Value value;
  /// The type when there is no value yet (a workspace argument).
  Type type = {};
  Type getType() const { return value ? value.getType() : type; }
};

/// `%a: T, %b: U` and `%a, %b : T, U` for a list of operands.
std::string signature(ArrayRef<NamedOperand> args) {
  return llvm::join(llvm::map_range(args,
                                    [](const NamedOperand &a) {
                                      return "%" + a.name + ": " +
                                             str(a.getType());
                                    }),
                    ", ");
}
std::string callArgs(ArrayRef<NamedOperand> args) {
  return llvm::join(
             llvm::map_range(args,
                             [](const NamedOperand &a) { return "%" + a.name; }),
             ", ") +
         " : " +
         llvm::join(llvm::map_range(args,
                                    [](const NamedOperand &a) {
                                      return str(a.getType());
                                    }),
                    ", ");
}

/// A run-time check that dimension `dim` of operand `name` equals `%expect`
/// (an index value of the planner), folded into `%shapes_ok`.
struct DimCheck {
  std::string name;
  unsigned dim;
  std::string expect;
};

/// Sets `result` (an i1) to whether every check holds. The sizes are taken
/// from the first argument, so checks of an operand that is that very
/// buffer (an op in place) hold by construction and are left out.
std::string checks(ArrayRef<NamedOperand> args, ArrayRef<DimCheck> wanted,
                   StringRef result = "%shapes_ok") {
  SmallVector<DimCheck> dims;
  for (const DimCheck &d : wanted) {
    const NamedOperand *arg = llvm::find_if(
        args, [&](const NamedOperand &a) { return a.name == d.name; });
    if (arg->value != args.front().value)
      dims.push_back(d);
  }
  if (dims.empty())
    return "  " + result.str() + " = arith.constant true\n";
  std::string out, all;
  for (auto [n, d] : llvm::enumerate(dims)) {
    const NamedOperand *arg = llvm::find_if(
        args, [&](const NamedOperand &a) { return a.name == d.name; });
    std::string i = std::to_string(n);
    bool last = n + 1 == dims.size();
    out += "  %dim_" + i + " = memref.dim %" + d.name + ", %c" +
           std::to_string(d.dim) + " : " + str(arg->getType()) + "\n";
    std::string same = last && n == 0 ? result.str() : "%same_" + i;
    out += "  " + same + " = arith.cmpi eq, %dim_" + i + ", " + d.expect +
           " : index\n";
    if (n == 0) {
      all = same;
      continue;
    }
    std::string next = last ? result.str() : "%all_" + i;
    out += "  " + next + " = arith.andi " + all + ", " + same + " : i1\n";
    all = next;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Row-wise operators: one work unit = a range of token rows
//===----------------------------------------------------------------------===//

/// The planner of an operator over token rows: `tokens` rows cut into at
/// most `UNITS` contiguous ranges for each of `${HEADS}` heads (moe
/// descriptors of one "expert": batch_idx the head, the rows in
/// token_start/token_count), chunks rounded by `${ROUND_CHUNK}`, one tier,
/// dispatched on `${CORES}` (the vector cores; quant_matmul: one head per
/// N tile, whole M tiles, the cube and vector cores). `${CHECKS}` sets
/// %shapes_ok from the run-time shapes and lengths.
constexpr StringLiteral kRowPlanner = R"mlir(
wsp.tier_config @${NAME}_tiers [#wsp.tier<0, [1, 2147483647]>]

func.func @plan(${SIGNATURE}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %ok = arith.constant 0 : i32
  %unsupported = arith.constant 2 : i32
  %invalid = arith.constant 3 : i32
  %int32_max = arith.constant 2147483647 : index
${TOKENS_DEF}
${PLAN_CONSTANTS}
${CHECKS}
  %fits = arith.cmpi ule, %tokens, %int32_max : index
  %shape_status = arith.select %shapes_ok, %ok, %invalid : i32
  %check = arith.select %fits, %shape_status, %unsupported : i32
  %checked = arith.cmpi eq, %check, %ok : i32
  %status = scf.if %checked -> i32 {
    // `tokens` rows of one "expert" for each of `${HEADS}` heads; chunks
    // of at least ${ROWS} rows, at most ${UNITS} units.
    %lens = memref.alloca() : memref<1xi32>
    %descs = memref.alloca() : memref<${UNITS}x!wsp.descriptor<moe>>
    %tokens_i32 = arith.index_cast %tokens : index to i32
    memref.store %tokens_i32, %lens[%c0] : memref<1xi32>
    %chunk = wsp.plan_chunk_size %lens[%c1] heads(${HEADS}) config(${CONFIG})
        : memref<1xi32>
${ROUND_CHUNK}
    %count, %planned = wsp.generate %lens[%c1] heads(${HEADS}) chunk(%rows_per_unit)
        tiers(@${NAME}_tiers) config(${CONFIG}) into %descs
        : memref<1xi32>, memref<${UNITS}x!wsp.descriptor<moe>>
    %run = arith.cmpi eq, %planned, %ok : i32
    scf.if %run {
      wsp.dispatch @${NAME}(${CALL_ARGS})
          descriptors(%descs[%count] : memref<${UNITS}x!wsp.descriptor<moe>>)
          on ${CORES}
    }
    scf.yield %planned : i32
  } else {
    scf.yield %check : i32
  }
  return %status : i32
}
)mlir";

// Row kernels are written in pieces: each piece is a fragment of a
// wsp.kernel body over moe descriptors, `${...}` filled per op.

/// A unit's rows [start, start + count): the descriptor's.
constexpr StringLiteral kUnitRows = R"mlir(  %start = wsp.param %desc["token_start"] : !wsp.descriptor<moe>
  %count = wsp.param %desc["token_count"] : !wsp.descriptor<moe>)mlir";

/// The kernel's opening: its token range [start, end).
constexpr StringLiteral kRowKernelBegin = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
  %c0 = arith.constant 0 : index
  %rows = arith.constant ${ROWS} : index
  %cols = arith.constant ${COLS} : index
  %hidden = arith.constant ${HIDDEN} : index
  %zero = arith.constant 0.0 : f32
${UNIT_ROWS}
  %end = arith.addi %start, %count : index
${VECTOR_TILES}
  scf.for %r = %start to %end step %rows {
    %left = arith.subi %end, %r : index
    %n = arith.minui %left, %rows : index
    %xb = tile.alloc valid(%n) : ${BF16_TILE}
    %xf = tile.alloc valid(%n) : ${F32_TILE}
    %sq = tile.alloc valid(%n) : ${F32_TILE}
    %part = tile.alloc valid(%n) : ${ROW_STAT}
    %part_row = tile.reshape %part : ${ROW_STAT} to ${STAT_ROW})mlir";

constexpr StringLiteral kRowKernelEnd = R"mlir(
  }
  wsp.return
}
)mlir";

/// RMS statistics: %ss holds rstd = 1 / sqrt(sum(x^2) / hidden + eps) per
/// row, the squares summed over the f32 row chunks `${PASS1_LOAD}` leaves
/// in %xf.
constexpr StringLiteral kRstd = R"mlir(
    %inv_hidden = arith.constant ${INV_HIDDEN}
    %eps = arith.constant ${EPS}
    %ss = tile.alloc valid(%n) : ${ROW_STAT}
    %ss_row = tile.reshape %ss : ${ROW_STAT} to ${STAT_ROW}
    tile.expands %ss_row, %zero : ${STAT_ROW}, f32
    // Pass 1: sum of squares per row, chunk by chunk.
    scf.for %c = %c0 to %hidden step %cols {
${PASS1_LOAD}
      tile.mul %sq, %xf, %xf : ${F32_TILE}, ${F32_TILE}, ${F32_TILE}${PASS1_STORE}
      tile.rowsum %part, %sq, %sq : ${ROW_STAT}, ${F32_TILE}, ${F32_TILE}
      tile.add %ss_row, %ss_row, %part_row : ${STAT_ROW}, ${STAT_ROW}, ${STAT_ROW}
    }
    // rstd, one per row.
    tile.muls %ss_row, %ss_row, %inv_hidden : ${STAT_ROW}, ${STAT_ROW}, f32
    tile.adds %ss_row, %ss_row, %eps : ${STAT_ROW}, ${STAT_ROW}, f32
    tile.rsqrt %ss_row, %ss_row : ${STAT_ROW}, ${STAT_ROW})mlir";

constexpr StringLiteral kLoadRows = R"mlir(
      tile.load %xb, %hidden_states[%r, %c] : ${BF16_TILE}, ${X_TYPE}
      tile.cvt %xf, %xb : ${F32_TILE}, ${BF16_TILE})mlir";

/// With a residual: x + residual in f32 (its bf16 rounding is after_res).
/// Both rows are loaded before the arithmetic starts, which then runs as
/// one element-wise chain (tile-mark-fusion).
constexpr StringLiteral kLoadRowsAddResidual = R"mlir(
      %rb = tile.alloc valid(%n) : ${BF16_TILE}
      tile.load %xb, %hidden_states[%r, %c] : ${BF16_TILE}, ${X_TYPE}
      tile.load %rb, %residual[%r, %c] : ${BF16_TILE}, ${RESIDUAL_TYPE}
      tile.cvt %xf, %xb : ${F32_TILE}, ${BF16_TILE}
      tile.cvt %sq, %rb : ${F32_TILE}, ${BF16_TILE}
      tile.add %xf, %xf, %sq : ${F32_TILE}, ${F32_TILE}, ${F32_TILE}
      tile.cvt %xb, %xf : ${BF16_TILE}, ${F32_TILE})mlir";

/// ... and after the squares (the same run), after_res stored.
constexpr StringLiteral kStoreAfterRes = R"mlir(
      tile.store %after_res[%r, %c], %xb : ${AFTER_RES_TYPE}, ${BF16_TILE})mlir";

/// The normalized chunk in %xf: source * rstd * weight (the weight loaded
/// first, so that the arithmetic is one element-wise chain).
constexpr StringLiteral kNormed = R"mlir(
${LOAD_weight}
      tile.load %xb, %${SOURCE}[%r, %c] : ${BF16_TILE}, ${SOURCE_TYPE}
      tile.cvt %xf, %xb : ${F32_TILE}, ${BF16_TILE}
      tile.rowexpandmul %xf, %xf, %ss, %sq : ${F32_TILE}, ${F32_TILE}, ${ROW_STAT}, ${F32_TILE}
      tile.colexpandmul %xf, %xf, %weight_f : ${F32_TILE}, ${F32_TILE}, ${VEC_F32})mlir";

/// rms_norm's pass 2: the normalized chunk to y.
constexpr StringLiteral kStoreNormed = R"mlir(
    // Pass 2: y = source * rstd * weight.
    scf.for %c = %c0 to %hidden step %cols {
${NORMED}
      tile.cvt %xb, %xf : ${BF16_TILE}, ${F32_TILE}
      tile.store %y[%r, %c], %xb : ${Y_TYPE}, ${BF16_TILE}
    })mlir";

/// Dynamic quantization of the f32 chunks `${QUANT_INPUT}` leaves in %xf:
/// a pass for max |x| per row, then scale = max / 127 to `${SCALE}` and
/// y = rint(x * 127 / max(max, 1e-30)) (the floor keeps an all-zero row
/// finite: its y is 0 and its scale 0).
constexpr StringLiteral kQuant = R"mlir(
    %tiny = arith.constant 1.000000e-30 : f32
    %int8_max = arith.constant 1.270000e+02 : f32
    %amax = tile.alloc valid(%n) : ${ROW_STAT}
    %amax_row = tile.reshape %amax : ${ROW_STAT} to ${STAT_ROW}
    %mult = tile.alloc valid(%n) : ${ROW_STAT}
    %mult_row = tile.reshape %mult : ${ROW_STAT} to ${STAT_ROW}
    %qi = tile.alloc valid(%n) : ${I32_TILE}
    %qh = tile.alloc valid(%n) : ${F16_TILE}
    %q8 = tile.alloc valid(%n) : ${I8_TILE}
    tile.expands %amax_row, %zero : ${STAT_ROW}, f32
    // max |x| per row.
    scf.for %c = %c0 to %hidden step %cols {
${QUANT_INPUT}
      tile.abs %sq, %xf : ${F32_TILE}, ${F32_TILE}
      tile.rowmax %part, %sq, %sq : ${ROW_STAT}, ${F32_TILE}, ${F32_TILE}
      tile.max %amax_row, %amax_row, %part_row : ${STAT_ROW}, ${STAT_ROW}, ${STAT_ROW}
    }
    tile.divs %part_row, %amax_row, %int8_max : ${STAT_ROW}, ${STAT_ROW}, f32
    tile.store %${SCALE}[%r], %part transpose : ${SCALE_TYPE}, ${ROW_STAT}
    tile.maxs %amax_row, %amax_row, %tiny : ${STAT_ROW}, ${STAT_ROW}, f32
    tile.expands %mult_row, %int8_max : ${STAT_ROW}, f32
    tile.div %mult_row, %mult_row, %amax_row : ${STAT_ROW}, ${STAT_ROW}, ${STAT_ROW}
    // y = rint(x * mult), chunk by chunk: rounded once to i32, then
    // narrowed through f16 (exact for integers up to 127), the A2/A3
    // conversion path to int8.
    scf.for %c = %c0 to %hidden step %cols {
${QUANT_INPUT}
      tile.rowexpandmul %xf, %xf, %mult, %sq : ${F32_TILE}, ${F32_TILE}, ${ROW_STAT}, ${F32_TILE}
      tile.cvt %qi, %xf : ${I32_TILE}, ${F32_TILE}
      tile.cvt %qh, %qi : ${F16_TILE}, ${I32_TILE}
      tile.cvt %q8, %qh : ${I8_TILE}, ${F16_TILE}
      tile.store %y[%r, %c], %q8 : ${Y_TYPE}, ${I8_TILE}
    })mlir";

/// Rows of a row-wise kernel's tiles: 8 f32 row statistics make one
/// 32-byte row when reshaped to [1 x 8].
constexpr int64_t kRows = 8;
/// The widest column chunk of a row-wise kernel.
constexpr int64_t kMaxCols = 1024;

/// The kernel's column chunk: all of hidden_size up to kMaxCols, else its
/// largest divisor below that which is a multiple of `align` (16 for bf16
/// rows, 32 when an int8 row must be whole 32-byte blocks too).
/// The largest multiple of `step` that divides `total` and is at most
/// `most`, or 0 when there is none.
int64_t largestDivisor(int64_t total, int64_t most, int64_t step) {
  for (int64_t t = std::min(total, most); t >= step; t -= step)
    if (total % t == 0)
      return t;
  return 0;
}

/// `x` rounded up to a multiple of `m`.
int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

FailureOr<int64_t> rowChunk(Operation *op, int64_t hidden, int64_t align) {
  if (ShapedType::isDynamic(hidden))
    return op->emitOpError("lowers with a static hidden_size only: its tiles "
                           "are sized at compile time");
  if (hidden % align)
    return op->emitOpError("lowers with hidden_size a multiple of ")
           << align << " (" << (align == 16 ? "a bf16" : "an int8")
           << " tile row is whole 32-byte blocks), got " << hidden;
  if (int64_t cols = largestDivisor(hidden, kMaxCols, align))
    return cols;
  return op->emitOpError("found no column chunk for hidden_size ") << hidden;
}
FailureOr<int64_t> rowChunk(Operation *op, Value hiddenStates, int64_t align) {
  return rowChunk(op, cast<MemRefType>(hiddenStates.getType()).getDimSize(1),
                  align);
}

/// The emitters take row-major buffers: views of another layout are
/// diagnosed at the op.
LogicalResult requireIdentityLayouts(Operation *op,
                                     ArrayRef<NamedOperand> args) {
  for (const NamedOperand &a : args)
    if (!isContiguousRowMajor(cast<MemRefType>(a.value.getType())))
      return op->emitOpError("lowers with row-major buffers only; '")
             << a.name << "' is a strided view " << a.value.getType();
  return success();
}

struct Lowered {
  std::string text;               // the module of templates, substituted
  /// The planner's arguments, in order. Those without a value are the
  /// global-memory workspaces the op needs (cube <-> vector exchange, state
  /// carried between a row's chunks): each becomes an argument of the
  /// function, of the type given.
  SmallVector<NamedOperand> args;
};

/// Fills the planner and kernel templates (pieces may hold pieces) and
/// returns the op's lowering.
Lowered instantiate(const std::map<std::string, std::string> &v,
                    StringRef planner, StringRef kernel,
                    SmallVector<NamedOperand> args) {
  // Until nothing changes (pieces nest a few levels; the bound stops a
  // piece that would contain itself).
  std::string p = planner.str(), k = kernel.str();
  for (int depth = 0; depth < 16; ++depth) {
    std::string p2 = substitute(p, v), k2 = substitute(k, v);
    if (p2 == p && k2 == k)
      break;
    p = std::move(p2);
    k = std::move(k2);
  }
  return Lowered{p + k, std::move(args)};
}

/// What a row-wise operand is, for its run-time checks: rows
/// [num_tokens, hidden_size], one value per token [num_tokens], or one per
/// channel [hidden_size].
enum class RowRole { Rows, PerToken, PerChannel };

/// A row-wise op's operands (null optional ones left out) and roles.
struct RowOperand {
  std::string name;
  Value value;
  RowRole role;
};

/// `${<NAME>_TYPE}` for each argument: its type.
void addTypeValues(std::map<std::string, std::string> &v,
                   ArrayRef<NamedOperand> args) {
  for (const NamedOperand &a : args)
    v[StringRef(a.name).upper() + "_TYPE"] = str(a.getType());
}

/// What kRowPlanner needs: the names, the planner's arguments (the first
/// is hidden_states, whose dim 0 is num_tokens), and the plan's bounds.
void addPlanValues(std::map<std::string, std::string> &v, StringRef name,
                   ArrayRef<NamedOperand> args, int64_t cores) {
  // An op may set its own rows per unit (the plan's chunk_min) and units.
  std::string r = v.count("ROWS") ? v.at("ROWS") : std::to_string(kRows);
  std::string units =
      v.count("UNITS") ? v.at("UNITS") : std::to_string(cores);
  v.insert({{"NAME", name.str()},
            {"SIGNATURE", signature(args)},
            {"CALL_ARGS", callArgs(args)},
            {"TOKENS_DEF", "  %tokens = memref.dim %" + args.front().name +
                               ", %c0 : " +
                               str(args.front().value.getType())},
            {"UNITS", units},
            {"CORES", "vector(" + units + ")"},
            {"HEADS", "%c1"},
            {"PLAN_CONSTANTS",
             "  %hidden = arith.constant ${HIDDEN} : index"},
            {"ROUND_CHUNK",
             "    %rows_per_unit = arith.addi %chunk, %c0 : index"},
            {"ROWS", r},
            {"UNIT_ROWS", kUnitRows.str()},
            {"CONFIG", "#wsp.plan_config<chunk_min = " + r +
                           ", chunk_max = 2147483647, max_work_units = " +
                           units + ">"}});
}

/// The tile types of a kernel with `rows` rows (kRows unless a kernel
/// takes more) of `cols` columns.
void addTileValues(std::map<std::string, std::string> &v, int64_t cols,
                   int64_t rows = kRows) {
  std::string c = std::to_string(cols), r = std::to_string(rows);
  auto rowsOf = [&](StringRef elem) {
    return "!tile.tile<vec, " + r + "x" + c + "x" + elem.str() +
           ", valid = ?x" + c + ">";
  };
  v.insert({{"COLS", c},
            {"BF16_TILE", rowsOf("bf16")},
            {"F32_TILE", rowsOf("f32")},
            {"I8_TILE", rowsOf("i8")},
            {"I32_TILE", rowsOf("i32")},
            {"F16_TILE", rowsOf("f16")},
            {"ROW_STAT",
             "!tile.tile<vec, " + r + "x1xf32, valid = ?x1, col_major>"},
            {"STAT_ROW", "!tile.tile<vec, 1x" + r + "xf32>"},
            {"VEC_F32", "!tile.tile<vec, 1x" + c + "xf32>"}});
}

/// Lowers a row-wise op: the planner over its token rows and the kernel
/// `body` (a sequence of the pieces above, closed by kRowKernelEnd).
/// Per-channel operands get a [1 x COLS] f32 tile `%<name>_f`, loaded by
/// `${LOAD_<name>}` (through a bf16 tile when they are bf16).
FailureOr<Lowered> lowerRowOp(Operation *op, StringRef name, int64_t cores,
                              ArrayRef<RowOperand> operands, int64_t align,
                              StringRef body,
                              std::map<std::string, std::string> v) {
  SmallVector<NamedOperand> args;
  for (const RowOperand &o : operands)
    if (o.value)
      args.push_back({o.name, o.value});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  Value x = args.front().value; // hidden_states
  FailureOr<int64_t> cols = rowChunk(op, x, align);
  if (failed(cols))
    return failure();
  int64_t hidden = cast<MemRefType>(x.getType()).getDimSize(1);
  std::string c = std::to_string(*cols);
  std::string vecF32 = "!tile.tile<vec, 1x" + c + "xf32>";

  // Every operand's num_tokens and hidden_size, checked at run time; the
  // per-channel operands' tiles.
  SmallVector<DimCheck> dims;
  std::string vectorTiles;
  for (const RowOperand &o : operands) {
    if (!o.value)
      continue;
    std::string type = str(o.value.getType());
    v[o.name == "hidden_states" ? "X_TYPE"
                                : llvm::StringRef(o.name).upper() + "_TYPE"] =
        type;
    switch (o.role) {
    case RowRole::Rows:
      if (o.name != "hidden_states") {
        dims.push_back({o.name, 0, "%tokens"});
        dims.push_back({o.name, 1, "%hidden"});
      }
      break;
    case RowRole::PerToken:
      dims.push_back({o.name, 0, "%tokens"});
      break;
    case RowRole::PerChannel: {
      dims.push_back({o.name, 0, "%hidden"});
      bool bf16 = cast<MemRefType>(o.value.getType()).getElementType().isBF16();
      vectorTiles += "  %" + o.name + "_f = tile.alloc : " + vecF32 + "\n";
      std::string load;
      if (bf16) {
        std::string vecBf16 = "!tile.tile<vec, 1x" + c + "xbf16>";
        vectorTiles += "  %" + o.name + "_b = tile.alloc : " + vecBf16 + "\n";
        load = "      tile.load %" + o.name + "_b, %" + o.name + "[%c] : " +
               vecBf16 + ", " + type + "\n      tile.cvt %" + o.name +
               "_f, %" + o.name + "_b : " + vecF32 + ", " + vecBf16;
      } else {
        load = "      tile.load %" + o.name + "_f, %" + o.name + "[%c] : " +
               vecF32 + ", " + type;
      }
      v["LOAD_" + o.name] = load;
      break;
    }
    }
  }

  Builder b(op->getContext());
  v.insert({{"HIDDEN", std::to_string(hidden)},
            {"INV_HIDDEN", str(b.getF32FloatAttr(1.0f / float(hidden)))},
            {"VECTOR_TILES", vectorTiles}});
  addPlanValues(v, name, args, cores);
  addTileValues(v, *cols);
  v["CHECKS"] = checks(args, dims);
  return instantiate(v, kRowPlanner, body, args);
}

/// The pieces of the rms statistics for an op with an optional residual.
void addRstd(std::map<std::string, std::string> &v, Value residual,
             FloatAttr eps) {
  v["EPS"] = str(eps);
  v["PASS1_LOAD"] = residual ? kLoadRowsAddResidual : kLoadRows;
  v["PASS1_STORE"] = residual ? kStoreAfterRes : "";
  v["SOURCE"] = residual ? "after_res" : "hidden_states";
  v["SOURCE_TYPE"] = residual ? "${AFTER_RES_TYPE}" : "${X_TYPE}";
  v["NORMED"] = kNormed;
}

FailureOr<Lowered> lowerRmsNorm(llm::RmsNormOp op, StringRef name,
                                int64_t cores) {
  std::map<std::string, std::string> v;
  addRstd(v, op.getResidual(), op.getEpsAttr());
  return lowerRowOp(
      op, name, cores,
      {{"hidden_states", op.getHiddenStates(), RowRole::Rows},
       {"residual", op.getResidual(), RowRole::Rows},
       {"weight", op.getWeight(), RowRole::PerChannel},
       {"y", op.getY(), RowRole::Rows},
       {"after_res", op.getAfterRes(), RowRole::Rows}},
      /*align=*/16,
      (kRowKernelBegin + kRstd + kStoreNormed + kRowKernelEnd).str(), v);
}

FailureOr<Lowered> lowerScaleDynamicQuant(llm::ScaleDynamicQuantOp op,
                                          StringRef name, int64_t cores) {
  std::map<std::string, std::string> v;
  v["QUANT_INPUT"] = (Twine("${LOAD_smooth_scale}") + kLoadRows + "\n" +
                      "      tile.colexpandmul %xf, %xf, %smooth_scale_f : "
                      "${F32_TILE}, ${F32_TILE}, ${VEC_F32}")
                         .str();
  v["SCALE"] = "scale";
  v["SCALE_TYPE"] = str(op.getScale().getType());
  return lowerRowOp(
      op, name, cores,
      {{"hidden_states", op.getHiddenStates(), RowRole::Rows},
       {"smooth_scale", op.getSmoothScale(), RowRole::PerChannel},
       {"y", op.getY(), RowRole::Rows},
       {"scale", op.getScale(), RowRole::PerToken}},
      /*align=*/32, (kRowKernelBegin + kQuant + kRowKernelEnd).str(), v);
}

FailureOr<Lowered>
lowerAddRmsNormDynamicQuant(llm::AddRmsNormDynamicQuantOp op, StringRef name,
                            int64_t cores) {
  std::map<std::string, std::string> v;
  addRstd(v, op.getResidual(), op.getEpsAttr());
  v["QUANT_INPUT"] = "${LOAD_smooth_scale}${NORMED}\n"
                     "      tile.colexpandmul %xf, %xf, %smooth_scale_f : "
                     "${F32_TILE}, ${F32_TILE}, ${VEC_F32}";
  v["SCALE"] = "per_token_scale";
  v["SCALE_TYPE"] = str(op.getPerTokenScale().getType());
  return lowerRowOp(
      op, name, cores,
      {{"hidden_states", op.getHiddenStates(), RowRole::Rows},
       {"residual", op.getResidual(), RowRole::Rows},
       {"weight", op.getWeight(), RowRole::PerChannel},
       {"smooth_scale", op.getSmoothScale(), RowRole::PerChannel},
       {"y", op.getY(), RowRole::Rows},
       {"per_token_scale", op.getPerTokenScale(), RowRole::PerToken},
       {"after_res", op.getAfterRes(), RowRole::Rows}},
      /*align=*/32, (kRowKernelBegin + kRstd + kQuant + kRowKernelEnd).str(),
      v);
}

//===----------------------------------------------------------------------===//
// head_rms_norm: one work unit = a range of tokens, each token's heads in
// blocks of kRows
//===----------------------------------------------------------------------===//

/// Rows of a kernel whose tile rows are heads of one token: all `heads`
/// of them (rounded up to whole kRows blocks), so that a token costs one
/// pass of the kernel's vector instructions rather than one per kRows
/// heads, as long as its tiles, `bytesPerRow` for each row, take at most
/// half of UB (else as many kRows blocks as do, at least one).
static int64_t headTileRows(int64_t heads, int64_t bytesPerRow) {
  const int64_t fit = pto::runtime::kUbBytes / 2 / bytesPerRow / kRows * kRows;
  const int64_t all = (heads + kRows - 1) / kRows * kRows;
  return std::max(kRows, std::min(all, fit));
}

/// Per token, the heads [HEAD_LO, HEAD_HI) as rows of [HEAD_ROWS x
/// head_dim] tiles (headTileRows), normalized over head_dim and scaled by
/// their weight rows;
/// `${COPY}` copies the other heads when y is not hidden_states.
constexpr StringLiteral kHeadRmsNormKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant ${HEAD_ROWS} : index
  %head_lo = arith.constant ${HEAD_LO} : index
  %head_hi = arith.constant ${HEAD_HI} : index
  %inv_dim = arith.constant ${INV_HIDDEN}
  %eps = arith.constant ${EPS}
  %start = wsp.param %desc["token_start"] : !wsp.descriptor<moe>
  %count = wsp.param %desc["token_count"] : !wsp.descriptor<moe>
  %end = arith.addi %start, %count : index
  scf.for %t = %start to %end step %c1 {
    scf.for %h = %head_lo to %head_hi step %rows {
      %left = arith.subi %head_hi, %h : index
      %n = arith.minui %left, %rows : index
      %xb = tile.alloc valid(%n) : ${BF16_TILE}
      %xf = tile.alloc valid(%n) : ${F32_TILE}
      %sq = tile.alloc valid(%n) : ${F32_TILE}
      %rstd = tile.alloc valid(%n) : ${ROW_STAT}
      %rstd_row = tile.reshape %rstd : ${ROW_STAT} to ${STAT_ROW}
      tile.load %xb, %hidden_states[%t, %h, %c0] : ${BF16_TILE}, ${X_TYPE}
      tile.cvt %xf, %xb : ${F32_TILE}, ${BF16_TILE}
      tile.mul %sq, %xf, %xf : ${F32_TILE}, ${F32_TILE}, ${F32_TILE}
      tile.rowsum %rstd, %sq, %sq : ${ROW_STAT}, ${F32_TILE}, ${F32_TILE}
      tile.muls %rstd_row, %rstd_row, %inv_dim : ${STAT_ROW}, ${STAT_ROW}, f32
      tile.adds %rstd_row, %rstd_row, %eps : ${STAT_ROW}, ${STAT_ROW}, f32
      tile.rsqrt %rstd_row, %rstd_row : ${STAT_ROW}, ${STAT_ROW}
      tile.rowexpandmul %xf, %xf, %rstd, %sq : ${F32_TILE}, ${F32_TILE}, ${ROW_STAT}, ${F32_TILE}
      // The weight rows of these heads.
      %wh = arith.subi %h, %head_lo : index
${LOAD_WEIGHT_ROWS}
      tile.mul %xf, %xf, %sq : ${F32_TILE}, ${F32_TILE}, ${F32_TILE}
      tile.cvt %xb, %xf : ${BF16_TILE}, ${F32_TILE}
      tile.store %y[%t, %h, %c0], %xb : ${Y_TYPE}, ${BF16_TILE}
    }
${COPY}
  }
  wsp.return
}
)mlir";

/// Copies heads [%lo, %hi) of token %t from hidden_states to y.
constexpr StringLiteral kCopyHeads = R"mlir(
    scf.for %h = ${LO} to ${HI} step %rows {
      %left = arith.subi ${HI}, %h : index
      %n = arith.minui %left, %rows : index
      %xb = tile.alloc valid(%n) : ${BF16_TILE}
      tile.load %xb, %hidden_states[%t, %h, %c0] : ${BF16_TILE}, ${X_TYPE}
      tile.store %y[%t, %h, %c0], %xb : ${Y_TYPE}, ${BF16_TILE}
    })mlir";

FailureOr<Lowered> lowerHeadRmsNorm(llm::HeadRmsNormOp op, StringRef name,
                                    int64_t cores) {
  SmallVector<NamedOperand> args = {{"hidden_states", op.getHiddenStates()},
                                    {"weight", op.getWeight()},
                                    {"y", op.getY()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto xType = cast<MemRefType>(op.getHiddenStates().getType());
  int64_t dim = xType.getDimSize(2);
  if (ShapedType::isDynamic(dim))
    return op.emitOpError("lowers with a static head_dim only: its tiles are "
                          "sized at compile time");
  if (dim % 16 || dim > kMaxCols)
    return op.emitOpError("lowers with head_dim a multiple of 16 up to ")
           << kMaxCols << " (one bf16 tile row per head), got " << dim;
  int64_t lo = int32_t(op.getHeadOffset()), num = int32_t(op.getHeadNum());

  std::map<std::string, std::string> v;
  Builder b(op.getContext());
  v["HIDDEN"] = std::to_string(dim);
  v["INV_HIDDEN"] = str(b.getF32FloatAttr(1.0f / float(dim)));
  v["EPS"] = str(op.getEpsAttr());
  v["HEAD_LO"] = std::to_string(lo);
  v["HEAD_HI"] = std::to_string(lo + num);
  v["X_TYPE"] = str(xType);
  v["Y_TYPE"] = str(op.getY().getType());
  v["WEIGHT_TYPE"] = str(op.getWeight().getType());
  addPlanValues(v, name, args, cores);
  // The range's heads in one tile where UB allows: the bf16 and two f32
  // [rows x head_dim] tiles and a row statistic per row.
  const int64_t headRows = headTileRows(num, dim * (2 + 4 + 4) + 4);
  v["HEAD_ROWS"] = std::to_string(headRows);
  addTileValues(v, dim, headRows);
  // The weight rows as f32 in %sq (through %xb when they are bf16).
  if (cast<MemRefType>(op.getWeight().getType()).getElementType().isBF16())
    v["LOAD_WEIGHT_ROWS"] =
        "      tile.load %xb, %weight[%wh, %c0] : ${BF16_TILE}, "
        "${WEIGHT_TYPE}\n      tile.cvt %sq, %xb : ${F32_TILE}, ${BF16_TILE}";
  else
    v["LOAD_WEIGHT_ROWS"] =
        "      tile.load %sq, %weight[%wh, %c0] : ${F32_TILE}, ${WEIGHT_TYPE}";
  // In place (y is hidden_states) the other heads are already there.
  if (op.getY() == op.getHiddenStates()) {
    v["COPY"] = "";
  } else {
    v["LO"] = "%c0";
    v["HI"] = "%head_lo";
    std::string below = substitute(kCopyHeads, v);
    v["LO"] = "%head_hi";
    v["HI"] = "%total_heads";
    v["COPY"] = "    %total_heads = memref.dim %hidden_states, %c1 : ${X_TYPE}" +
                below + substitute(kCopyHeads, v);
  }
  // Run time: y has hidden_states' shape, weight is [head_num, head_dim],
  // and the head range fits.
  v["CHECKS"] =
      "  %total_heads = memref.dim %hidden_states, %c1 : ${X_TYPE}\n"
      "  %head_end = arith.constant " +
      std::to_string(lo + num) +
      " : index\n"
      "  %heads_fit = arith.cmpi ule, %head_end, %total_heads : index\n"
      "  %head_num = arith.constant " +
      std::to_string(num) + " : index\n" +
      checks(args, {{"y", 0, "%tokens"},
                    {"y", 1, "%total_heads"},
                    {"y", 2, "%hidden"},
                    {"weight", 0, "%head_num"},
                    {"weight", 1, "%hidden"}},
             "%dims_ok") +
      "  %shapes_ok = arith.andi %dims_ok, %heads_fit : i1\n";
  return instantiate(v, kRowPlanner, kHeadRmsNormKernel, args);
}

//===----------------------------------------------------------------------===//
// rotary_embedding: one work unit = a range of token rows (packed) or of
// (sequence, query slot) rows (unpacked); each row finds its sequence and
// position
//===----------------------------------------------------------------------===//

/// Per token row %i: `${LOCATE}` sets %valid and %pos (and the row's
/// indices `${IDX}`); a valid row's Q and K heads are rotated on the
/// `rope_dim` columns from `rope_offset`, NeoX pairs (i, i + rope_dim/2),
/// [${HEAD_ROWS} x rope_dim/2] tiles at a time (all the row's rotated heads
/// at once where UB allows, headTileRows). `${COPY}` first copies the whole
/// row when out is not qkv.
constexpr StringLiteral kRopeKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
${TOKEN_RANGE}
  %rows = arith.constant ${HEAD_ROWS} : index
  %rope_heads = arith.constant ${ROPE_HEADS} : index
  %all_heads = arith.constant ${ALL_HEADS} : index
  %half = arith.constant ${HALF} : index
  %off1 = arith.constant ${OFF1} : index
  %off2 = arith.constant ${OFF2} : index
  %cos1b = tile.alloc : ${HALF_BF16}
  %cos2b = tile.alloc : ${HALF_BF16}
  %sin1b = tile.alloc : ${HALF_BF16}
  %sin2b = tile.alloc : ${HALF_BF16}
  %cos1 = tile.alloc : ${HALF_F32}
  %cos2 = tile.alloc : ${HALF_F32}
  %sin1 = tile.alloc : ${HALF_F32}
  %sin2 = tile.alloc : ${HALF_F32}
  scf.for %i = %start to %end step %c1 {
${LOCATE}
    scf.if %valid {
${COPY}
      // The position's cos and sin, both halves: loaded, then converted
      // (every load before the arithmetic, so that it is one run of vector
      // instructions, as below).
      tile.load %cos1b, %cos[%pos, %c0] : ${HALF_BF16}, ${COS_TYPE}
      tile.load %cos2b, %cos[%pos, %half] : ${HALF_BF16}, ${COS_TYPE}
      tile.load %sin1b, %sin[%pos, %c0] : ${HALF_BF16}, ${SIN_TYPE}
      tile.load %sin2b, %sin[%pos, %half] : ${HALF_BF16}, ${SIN_TYPE}
      tile.cvt %cos1, %cos1b : ${HALF_F32}, ${HALF_BF16}
      tile.cvt %cos2, %cos2b : ${HALF_F32}, ${HALF_BF16}
      tile.cvt %sin1, %sin1b : ${HALF_F32}, ${HALF_BF16}
      tile.cvt %sin2, %sin2b : ${HALF_F32}, ${HALF_BF16}
      scf.for %h = %c0 to %rope_heads step %rows {
        %left = arith.subi %rope_heads, %h : index
        %n = arith.minui %left, %rows : index
        %xb1 = tile.alloc valid(%n) : ${ROWS_BF16}
        %xb2 = tile.alloc valid(%n) : ${ROWS_BF16}
        %x1 = tile.alloc valid(%n) : ${ROWS_F32}
        %x2 = tile.alloc valid(%n) : ${ROWS_F32}
        %o = tile.alloc valid(%n) : ${ROWS_F32}
        %t = tile.alloc valid(%n) : ${ROWS_F32}
        tile.load %xb1, %qkv[${IDX}, %h, %off1] : ${ROWS_BF16}, ${QKV_TYPE}
        tile.load %xb2, %qkv[${IDX}, %h, %off2] : ${ROWS_BF16}, ${QKV_TYPE}
        tile.cvt %x1, %xb1 : ${ROWS_F32}, ${ROWS_BF16}
        tile.cvt %x2, %xb2 : ${ROWS_F32}, ${ROWS_BF16}
        // out1 = x1 cos1 - x2 sin1, into %xb1
        tile.colexpandmul %o, %x1, %cos1 : ${ROWS_F32}, ${ROWS_F32}, ${HALF_F32}
        tile.colexpandmul %t, %x2, %sin1 : ${ROWS_F32}, ${ROWS_F32}, ${HALF_F32}
        tile.sub %o, %o, %t : ${ROWS_F32}, ${ROWS_F32}, ${ROWS_F32}
        tile.cvt %xb1, %o : ${ROWS_BF16}, ${ROWS_F32}
        // out2 = x2 cos2 + x1 sin2, into %xb2
        tile.colexpandmul %o, %x2, %cos2 : ${ROWS_F32}, ${ROWS_F32}, ${HALF_F32}
        tile.colexpandmul %t, %x1, %sin2 : ${ROWS_F32}, ${ROWS_F32}, ${HALF_F32}
        tile.add %o, %o, %t : ${ROWS_F32}, ${ROWS_F32}, ${ROWS_F32}
        tile.cvt %xb2, %o : ${ROWS_BF16}, ${ROWS_F32}
        tile.store %out[${IDX}, %h, %off1], %xb1 : ${OUT_TYPE}, ${ROWS_BF16}
        tile.store %out[${IDX}, %h, %off2], %xb2 : ${OUT_TYPE}, ${ROWS_BF16}
      }
    }
  }
  wsp.return
}
)mlir";

// Locating a token row's sequence %b and position %pos (`${FIRST_OF_SEQ}`
// defines %first, the position of the sequence's first new token, from
// %b): shared by every op over ragged token rows.

/// Unpacked: row %i is query slot %s of sequence %b.
constexpr StringLiteral kLocateUnpacked = R"mlir(
    %slots = arith.constant ${SLOTS} : index
    %b = arith.divui %i, %slots : index
    %s = arith.remui %i, %slots : index
    %q_len_i32 = memref.load %q_lens[%b] : ${Q_LENS_TYPE}
    %q_len = arith.index_cast %q_len_i32 : i32 to index
    %valid = arith.cmpi ult, %s, %q_len : index
${FIRST_OF_SEQ}
    %pos = arith.addi %first, %s : index)mlir";

/// Packed with accum_q_len: the last sequence that starts at or before %i.
constexpr StringLiteral kLocateAccum = R"mlir(
    %b = scf.while (%j = %c0) : (index) -> index {
      %j1 = arith.addi %j, %c1 : index
      %more = arith.cmpi ult, %j1, %batch : index
      %next = scf.if %more -> (i1) {
        %start_i32 = memref.load %accum_q_len[%j1] : ${ACCUM_Q_LEN_TYPE}
        %next_start = arith.index_cast %start_i32 : i32 to index
        %past = arith.cmpi ule, %next_start, %i : index
        scf.yield %past : i1
      } else {
        scf.yield %false : i1
      }
      scf.condition(%next) %j : index
    } do {
    ^bb0(%j: index):
      %j1 = arith.addi %j, %c1 : index
      scf.yield %j1 : index
    }
    %in_batch = arith.cmpi ult, %b, %batch : index
    %valid, %pos = ${FOUND})mlir";

/// Packed without accum_q_len: sequences start at the prefix sums of
/// q_lens.
constexpr StringLiteral kLocatePrefix = R"mlir(
    %b, %seq_start = scf.while (%j = %c0, %sum = %c0) : (index, index) -> (index, index) {
      %more = arith.cmpi ult, %j, %batch : index
      %next = scf.if %more -> (i1) {
        %len_i32 = memref.load %q_lens[%j] : ${Q_LENS_TYPE}
        %len = arith.index_cast %len_i32 : i32 to index
        %end_j = arith.addi %sum, %len : index
        %past = arith.cmpi ule, %end_j, %i : index
        scf.yield %past : i1
      } else {
        scf.yield %false : i1
      }
      scf.condition(%next) %j, %sum : index, index
    } do {
    ^bb0(%j: index, %sum: index):
      %len_i32 = memref.load %q_lens[%j] : ${Q_LENS_TYPE}
      %len = arith.index_cast %len_i32 : i32 to index
      %j1 = arith.addi %j, %c1 : index
      %sum1 = arith.addi %sum, %len : index
      scf.yield %j1, %sum1 : index, index
    }
    %in_batch = arith.cmpi ult, %b, %batch : index
    %valid, %pos = ${FOUND})mlir";

/// The found sequence %b: valid when it exists and %i is inside its
/// q_lens[%b] tokens from its start (`${SEQ_START}`).
constexpr StringLiteral kLocateFound = R"mlir(scf.if %in_batch -> (i1, index) {
      ${SEQ_START_DEF}
      %len_i32 = memref.load %q_lens[%b] : ${Q_LENS_TYPE}
      %len = arith.index_cast %len_i32 : i32 to index
      %after = arith.cmpi uge, %i, %seq_start : index
      %s = arith.subi %i, %seq_start : index
      %inside = arith.cmpi ult, %s, %len : index
      %ok = arith.andi %after, %inside : i1
${FIRST_OF_SEQ}
      %p = arith.addi %first, %s : index
      scf.yield %ok, %p : i1, index
    } else {
      scf.yield %false, %c0 : i1, index
    })mlir";

/// Copies token row ${IDX}'s heads from qkv to out.
constexpr StringLiteral kRopeCopy = R"mlir(
      scf.for %h = %c0 to %all_heads step %rows {
        %left = arith.subi %all_heads, %h : index
        %n = arith.minui %left, %rows : index
        %row = tile.alloc valid(%n) : ${FULL_BF16}
        tile.load %row, %qkv[${IDX}, %h, %c0] : ${FULL_BF16}, ${QKV_TYPE}
        tile.store %out[${IDX}, %h, %c0], %row : ${OUT_TYPE}, ${FULL_BF16}
      })mlir";

/// The values every op over ragged token rows shares (`rotary_embedding`,
/// the KV stores): how a row finds its sequence (`${LOCATE}`, `${IDX}`),
/// the planner's `%tokens` (`${TOKENS_DEF}`), and `${SEQ_FITS}`, which sets
/// %fits when sequence %b's tokens lie inside the rows: unpacked, q_lens[b]
/// <= the `slots` per sequence of buffer `rows`; packed with accum_q_len,
/// its start and end inside the rows (packed without, the total is checked
/// after the loop).
void addTokenRowValues(std::map<std::string, std::string> &v, bool packed,
                       bool accum, int64_t slots, StringRef rows) {
  v["SLOTS"] = std::to_string(slots);
  // The kernel's opening: its descriptor's rows [start, end).
  v["TOKEN_RANGE"] =
      "  %c0 = arith.constant 0 : index\n"
      "  %c1 = arith.constant 1 : index\n"
      "  %false = arith.constant false\n"
      "  %batch = memref.dim %q_lens, %c0 : ${Q_LENS_TYPE}\n"
      "  %start = wsp.param %desc[\"token_start\"] : !wsp.descriptor<moe>\n"
      "  %count = wsp.param %desc[\"token_count\"] : !wsp.descriptor<moe>\n"
      "  %end = arith.addi %start, %count : index";
  if (!packed) {
    v["IDX"] = "%b, %s";
    v["LOCATE"] = kLocateUnpacked;
    v["TOKENS_DEF"] = ("  %seqs = memref.dim %" + rows + ", %c0 : ${" +
                       rows.upper() + "_TYPE}\n"
                       "  %slots_per_seq = arith.constant ${SLOTS} : index\n"
                       "  %tokens = arith.muli %seqs, %slots_per_seq : index")
                          .str();
    v["SEQ_FITS"] = "    %slots_i64_u = arith.constant ${SLOTS} : i64\n"
                    "    %fits = arith.cmpi sle, %len, %slots_i64_u : i64";
    return;
  }
  v["IDX"] = "%i";
  v["LOCATE"] = accum ? kLocateAccum : kLocatePrefix;
  v["FOUND"] = kLocateFound;
  v["SEQ_START_DEF"] =
      accum ? "%start_i32 = memref.load %accum_q_len[%b] : "
              "${ACCUM_Q_LEN_TYPE}\n      %seq_start = arith.index_cast "
              "%start_i32 : i32 to index"
            : "";
  v["SEQ_FITS"] =
      accum ? "    %acc_i32 = memref.load %accum_q_len[%b] : "
              "${ACCUM_Q_LEN_TYPE}\n"
              "    %acc_i64 = arith.extsi %acc_i32 : i32 to i64\n"
              "    %acc_ok = arith.cmpi sge, %acc_i64, %zero_i64 : i64\n"
              "    %acc_end = arith.addi %acc_i64, %len : i64\n"
              "    %tok_i64 = arith.index_cast %tokens : index to i64\n"
              "    %end_ok = arith.cmpi sle, %acc_end, %tok_i64 : i64\n"
              "    %fits = arith.andi %acc_ok, %end_ok : i1"
            : "    %fits = arith.constant true";
}

/// The planner's validation of the per-sequence lengths of a token-row op:
/// q_lens >= 0, `${SEQ_FITS}`, and the op's own checks `${SEQ_CHECKS}`
/// (which set %seq_ok from %len_ok, %fits and their own), for every
/// sequence; then the total inside the rows. `${VALIDATE_SETUP}` defines
/// what the checks need. Sets %lengths_ok and %total_fits.
constexpr StringLiteral kSeqValidate = R"mlir(
  %batch = memref.dim %q_lens, %c0 : ${Q_LENS_TYPE}
  %zero_i64 = arith.constant 0 : i64
  %one_i64 = arith.constant 1 : i64
  %true = arith.constant true
${VALIDATE_SETUP}
  %lengths_ok, %total = scf.for %b = %c0 to %batch step %c1
      iter_args(%acc = %true, %sum = %zero_i64) -> (i1, i64) {
    %len_i32 = memref.load %q_lens[%b] : ${Q_LENS_TYPE}
    %len = arith.extsi %len_i32 : i32 to i64
    %len_ok = arith.cmpi sge, %len, %zero_i64 : i64
${SEQ_FITS}
${SEQ_CHECKS}
    %all = arith.andi %acc, %seq_ok : i1
    %sum1 = arith.addi %sum, %len : i64
    scf.yield %all, %sum1 : i1, i64
  }
  %tokens_i64 = arith.index_cast %tokens : index to i64
  %total_fits = arith.cmpi sle, %total, %tokens_i64 : i64
)mlir";

/// The run-time checks of an op over token rows, setting %shapes_ok:
/// `prelude`, the sizes of the rows buffer `rows` (its first argument) as
/// %<rows>_dim_<d>, the per-sequence validation, the op's dimension checks
/// `dims` (plus accum_q_len's batch + 1, and unpacked, the rows buffer's
/// batch), then `extra` lines setting the i1 `extraOk` when given.
std::string tokenRowChecks(ArrayRef<NamedOperand> args,
                           SmallVector<DimCheck> dims, StringRef rows,
                           unsigned rank, bool packed, bool accum,
                           StringRef prelude, StringRef extra = "",
                           StringRef extraOk = "") {
  std::string out = prelude.str();
  for (unsigned d = 0; d < rank; ++d)
    out += ("  %" + rows + "_dim_" + Twine(d) + " = memref.dim %" + rows +
            ", %c" + Twine(d) + " : ${" + rows.upper() + "_TYPE}\n")
               .str();
  out += kSeqValidate;
  if (accum) {
    out += "  %batch_plus_1 = arith.addi %batch, %c1 : index\n";
    dims.push_back({"accum_q_len", 0, "%batch_plus_1"});
  }
  // checks() takes the rows buffer as its reference and checks nothing of
  // it: its unpacked batch is checked here.
  if (packed) {
    out += checks(args, dims, "%dims_and_batch");
  } else {
    out += checks(args, dims, "%dims_ok");
    out += ("  %rows_batch = arith.cmpi eq, %" + rows +
            "_dim_0, %batch : index\n"
            "  %dims_and_batch = arith.andi %dims_ok, %rows_batch : i1\n")
               .str();
  }
  std::string ok = "%dims_and_batch";
  if (!extraOk.empty()) {
    out += extra.str() + "  %l0 = arith.andi %dims_and_batch, " +
           extraOk.str() + " : i1\n";
    ok = "%l0";
  }
  return out + "  %l1 = arith.andi " + ok + ", %lengths_ok : i1\n" +
         "  %shapes_ok = arith.andi %l1, %total_fits : i1\n";
}

FailureOr<Lowered> lowerRotaryEmbedding(llm::RotaryEmbeddingOp op,
                                        StringRef name, int64_t cores) {
  SmallVector<NamedOperand> args = {{"qkv", op.getQkv()},
                                    {"sin", op.getSin()},
                                    {"cos", op.getCos()},
                                    {"position_ids", op.getPositionIds()},
                                    {"q_lens", op.getQLens()}};
  if (op.getAccumQLen())
    args.push_back({"accum_q_len", op.getAccumQLen()});
  args.push_back({"out", op.getOut()});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto qkvType = cast<MemRefType>(op.getQkv().getType());
  bool packed = qkvType.getRank() == 3;
  int64_t dim = qkvType.getDimSize(qkvType.getRank() - 1);
  int64_t offset = int32_t(op.getRopeOffset()), ropeDim = int32_t(op.getRopeDim());
  int64_t qHeads = int32_t(op.getQHeadNum()), kvHeads = int32_t(op.getKvHeadNum());
  if (ShapedType::isDynamic(dim) || dim % 16 || dim > kMaxCols)
    return op.emitOpError("lowers with a static head_dim, a multiple of 16 up "
                          "to ")
           << kMaxCols << " (one bf16 tile row per head)";
  if (ropeDim % 32 || offset % 16)
    return op.emitOpError("lowers with rope_dim a multiple of 32 and "
                          "rope_offset a multiple of 16 (each half of the "
                          "rotated range is whole 32-byte bf16 rows), got "
                          "rope_dim ")
           << ropeDim << " and rope_offset " << offset;
  int64_t slots = packed ? 1 : qkvType.getDimSize(1);
  if (!packed && ShapedType::isDynamic(slots))
    return op.emitOpError("lowers the unpacked form with a static q_seq_len "
                          "only");

  std::map<std::string, std::string> v;
  addTypeValues(v, args);
  addPlanValues(v, name, args, cores);
  int64_t half = ropeDim / 2;
  auto tile = [&](int64_t rows, int64_t cols, StringRef elem, bool valid) {
    std::string t = "!tile.tile<vec, " + std::to_string(rows) + "x" +
                    std::to_string(cols) + "x" + elem.str();
    return t + (valid ? ", valid = ?x" + std::to_string(cols) + ">" : ">");
  };
  v["HIDDEN"] = std::to_string(dim);
  v["HALF"] = std::to_string(half);
  v["OFF1"] = std::to_string(offset);
  v["OFF2"] = std::to_string(offset + half);
  v["ROPE_HEADS"] = std::to_string(qHeads + kvHeads);
  v["ALL_HEADS"] = std::to_string(qHeads + 2 * kvHeads);
  v["HALF_BF16"] = tile(1, half, "bf16", false);
  v["HALF_F32"] = tile(1, half, "f32", false);
  // Six [rows x half] tiles (two bf16, four f32) and the copy's
  // [rows x dim] bf16 one.
  const int64_t headRows =
      headTileRows(qHeads + kvHeads, half * (2 * 2 + 4 * 4) + dim * 2);
  v["HEAD_ROWS"] = std::to_string(headRows);
  v["ROWS_BF16"] = tile(headRows, half, "bf16", true);
  v["ROWS_F32"] = tile(headRows, half, "f32", true);
  v["FULL_BF16"] = tile(headRows, dim, "bf16", true);
  v["SLOTS"] = std::to_string(slots);
  v["COPY"] = op.getOut() == op.getQkv() ? "" : kRopeCopy;
  v["FIRST_OF_SEQ"] =
      "    %first_i32 = memref.load %position_ids[%b] : ${POSITION_IDS_TYPE}\n"
      "    %first = arith.index_cast %first_i32 : i32 to index";
  addTokenRowValues(v, packed, bool(op.getAccumQLen()), slots, "qkv");
  // Every position of the step inside the tables.
  v["VALIDATE_SETUP"] = "  %table = memref.dim %sin, %c0 : ${SIN_TYPE}\n"
                        "  %table_i64 = arith.index_cast %table : index to i64";
  v["SEQ_CHECKS"] =
      "    %first_i32 = memref.load %position_ids[%b] : ${POSITION_IDS_TYPE}\n"
      "    %first = arith.extsi %first_i32 : i32 to i64\n"
      "    %first_ok = arith.cmpi sge, %first, %zero_i64 : i64\n"
      "    %last = arith.addi %first, %len : i64\n"
      "    %in_table = arith.cmpi sle, %last, %table_i64 : i64\n"
      "    %c1_ok = arith.andi %len_ok, %first_ok : i1\n"
      "    %c2_ok = arith.andi %c1_ok, %in_table : i1\n"
      "    %seq_ok = arith.andi %c2_ok, %fits : i1";
  // Shapes: out is qkv's shape; one batch for the per-sequence operands;
  // the tables agree; then the lengths.
  SmallVector<DimCheck> dims;
  for (unsigned d = 0; d < qkvType.getRank(); ++d)
    dims.push_back({"out", d, "%qkv_dim_" + std::to_string(d)});
  dims.push_back({"position_ids", 0, "%batch"});
  dims.push_back({"cos", 0, "%table"});
  dims.push_back({"sin", 1, "%rope_dim"});
  dims.push_back({"cos", 1, "%rope_dim"});
  v["CHECKS"] = tokenRowChecks(
      args, dims, "qkv", qkvType.getRank(), packed, bool(op.getAccumQLen()),
      "  %rope_dim = arith.constant " + std::to_string(ropeDim) + " : index\n");
  return instantiate(v, kRowPlanner, kRopeKernel, args);
}

//===----------------------------------------------------------------------===//
// store_kv_cache / store_paged_kv_cache: token rows as rotary_embedding's;
// each (token, KV head) row of key and value to its cache position
//===----------------------------------------------------------------------===//

/// Per token row %i: its sequence %b and cache position %pos (kv_lens[b] +
/// s); `${WHERE}` gives the cache row (slot or page, head, row) of %pos;
/// each KV head's key and value row is `${CONVERT}`ed and stored.
constexpr StringLiteral kStoreKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
${TOKEN_RANGE}
  %kv_heads = arith.constant ${KV_HEADS} : index
  %key_head0 = arith.constant ${KEY_HEAD0} : index
  %value_head0 = arith.constant ${VALUE_HEAD0} : index
  %head_dim = arith.constant ${HIDDEN} : index
  %run_max = arith.constant 8 : index
  // key and value as rows of token rows (row %i is token row %i): a KV
  // head is a range of columns.
  %key_rows = memref.collapse_shape %key ${TOKEN_ROWS} : ${KEY_TYPE} into ${KEY_ROWS_TYPE}
  %value_rows = memref.collapse_shape %value ${TOKEN_ROWS} : ${VALUE_TYPE} into ${VALUE_ROWS_TYPE}
${CONVERT_TILES}
  // Runs of at most 8 token rows of one sequence that land in one page
  // (or cache row): per KV head, one [n x head_dim] tile, its rows
  // consecutive positions of the cache. A row of no sequence is a run of
  // one that writes nothing.
  %done = scf.while (%i = %start) : (index) -> index {
    %more = arith.cmpi ult, %i, %end : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%i: index):
${LOCATE}
    %seq_left = scf.if %valid -> (index) {
${SEQ_LEFT}
    } else {
      scf.yield %c1 : index
    }
    %unit_left = arith.subi %end, %i : index
    %n_unit = arith.minui %seq_left, %unit_left : index
    %n_run = arith.minui %n_unit, %run_max : index
${RUN_IN_PAGE}
    scf.if %valid {
${SLOT}
${WHERE}
      %rows = tile.alloc valid(%n) : ${ROWS_BF16}
${CONVERT_TILES_N}
      scf.for %h = %c0 to %kv_heads step %c1 {
        %key_h = arith.addi %h, %key_head0 : index
        %key_col = arith.muli %key_h, %head_dim : index
        %value_h = arith.addi %h, %value_head0 : index
        %value_col = arith.muli %value_h, %head_dim : index
        tile.load %rows, %key_rows[%i, %key_col] : ${ROWS_BF16}, ${KEY_ROWS_TYPE}
${CONVERT_KEY}
        tile.store %k_cache[%cache_row, %h, %cache_pos, %c0], ${STORED} : ${K_CACHE_TYPE}, ${STORED_TILE}
        tile.load %rows, %value_rows[%i, %value_col] : ${ROWS_BF16}, ${VALUE_ROWS_TYPE}
${CONVERT_VALUE}
        tile.store %v_cache[%cache_row, %h, %cache_pos, %c0], ${STORED} : ${V_CACHE_TYPE}, ${STORED_TILE}
      }
    }
    %next = arith.addi %i, %n : index
    scf.yield %next : index
  }
  wsp.return
}
)mlir";

/// int8 caches: q = rint(x / scale[h]) clamped to [-128, 127] (in f32,
/// before rounding: the narrowing conversions are not relied on to
/// saturate), through i32 and f16; the head's scale row divides every row
/// of the run.
constexpr StringLiteral kStoreQuantize = R"mlir(
        tile.load %scale_row, %${SCALE}[%h, %c0] : ${ROW_F32}, ${SCALE_TYPE}
        tile.cvt %rows_f, %rows : ${ROWS_F32}, ${ROWS_BF16}
        tile.colexpanddiv %rows_f, %rows_f, %scale_row : ${ROWS_F32}, ${ROWS_F32}, ${ROW_F32}
        tile.mins %rows_f, %rows_f, %int8_max : ${ROWS_F32}, ${ROWS_F32}, f32
        tile.maxs %rows_f, %rows_f, %int8_min : ${ROWS_F32}, ${ROWS_F32}, f32
        tile.cvt %rows_i, %rows_f : ${ROWS_I32}, ${ROWS_F32}
        tile.cvt %rows_h, %rows_i : ${ROWS_F16}, ${ROWS_I32}
        tile.cvt %rows_8, %rows_h : ${ROWS_I8}, ${ROWS_F16})mlir";

/// The KV stores' checks of sequence %b: kv_lens >= 0, the slot inside
/// the cache (or its block-table row), the new tokens inside the
/// sequence's capacity and, paged, every page they touch in the pool
/// (`${PAGES_OK}`). Sets %seq_ok.
constexpr StringLiteral kStoreSeqChecks = R"mlir(
${PAST_OF_SEQ}
${SLOT_OF_SEQ}
    %past_ok = arith.cmpi sge, %past, %zero_i64 : i64
    %slot_ok = arith.cmpi sge, %slot, %zero_i64 : i64
    %slot_in = arith.cmpi slt, %slot, %slots_i64 : i64
    %last = arith.addi %past, %len : i64
    %in_capacity = arith.cmpi sle, %last, %capacity_i64 : i64
    %a1 = arith.andi %len_ok, %past_ok : i1
    %a2 = arith.andi %a1, %slot_ok : i1
    %a3 = arith.andi %a2, %slot_in : i1
    %a4 = arith.andi %a3, %in_capacity : i1
    %a5 = arith.andi %a4, %fits : i1
${PAGES_OK}
    %seq_ok = arith.andi %a5, %pages_ok : i1)mlir";

/// %all: whether pages [${PAGES_FROM}, ${PAGES_TO}) of block-table row
/// %slot_idx all lie in the pool [0, %pool_i64). Shared by the KV stores
/// (the pages their new tokens touch) and attention (every page it reads).
constexpr StringLiteral kPagesInPool = R"mlir(
        %all = scf.for %pg = ${PAGES_FROM} to ${PAGES_TO} step %c1
            iter_args(%in = %true) -> (i1) {
          %page_i32 = memref.load %block_table[%slot_idx, %pg] : ${BLOCK_TABLE_TYPE}
          %page = arith.extsi %page_i32 : i32 to i64
          %lo = arith.cmpi sge, %page, %zero_i64 : i64
          %hi = arith.cmpi slt, %page, %pool_i64 : i64
          %this = arith.andi %lo, %hi : i1
          %both = arith.andi %in, %this : i1
          scf.yield %both : i1
        })mlir";

/// Paged: every page the new tokens [past, past + len) touch is in the
/// pool. Only evaluated for a sequence whose other checks held (%a5), so
/// its block-table row exists and its pages are inside the row.
constexpr StringLiteral kStorePagesOk = R"mlir(
    %pages_ok = scf.if %a5 -> (i1) {
      %has = arith.cmpi sgt, %len, %zero_i64 : i64
      %checked = scf.if %has -> (i1) {
        %block_i64 = arith.constant ${BLOCK_SIZE} : i64
        %first_page = arith.divsi %past, %block_i64 : i64
        %last_tok = arith.subi %last, %one_i64 : i64
        %last_page = arith.divsi %last_tok, %block_i64 : i64
        %first_idx = arith.index_cast %first_page : i64 to index
        %end_page = arith.addi %last_page, %one_i64 : i64
        %end_idx = arith.index_cast %end_page : i64 to index
        %slot_idx = arith.index_cast %slot : i64 to index
        %pool = memref.dim %k_cache, %c0 : ${K_CACHE_TYPE}
        %pool_i64 = arith.index_cast %pool : index to i64
${PAGES_IN_POOL}
        scf.yield %all : i1
      } else {
        scf.yield %true : i1
      }
      scf.yield %checked : i1
    } else {
      scf.yield %a5 : i1
    })mlir";

/// A head range of a packed QKV (the seed's "kv_head_num may be indices
/// from [q_head_num + 2 * kv_head_num]"): `memref.subview %base[0, h0, 0]`
/// (or [0, 0, h0, 0] unpacked) with unit strides, whole in every other
/// dimension, of a row-major base. Returns the base and h0; any other value
/// is its own base at head 0.
/// Whether a dynamic leading size of `view` is its source's whole: the
/// source a whole buffer (what the head ranges of a packed QKV are views
/// of), or a view made with that same size (a KV-sharded rank's rows).
bool coversLeadingSize(memref::SubViewOp view, OpFoldResult size) {
  Value source = view.getSource();
  if (cast<MemRefType>(source.getType()).getLayout().isIdentity())
    return true;
  if (auto rows = source.getDefiningOp<memref::SubViewOp>())
    return rows.getMixedSizes()[0] == size;
  if (auto expanded = source.getDefiningOp<memref::ExpandShapeOp>())
    return expanded.getMixedOutputShape()[0] == size;
  return false;
}

std::pair<Value, int64_t> headRangeOf(Value v) {
  auto view = v.getDefiningOp<memref::SubViewOp>();
  // The source: a whole buffer, or a contiguous range of its rows (a
  // KV-sharded rank's tokens).
  if (!view || !isContiguousRowMajor(view.getSourceType()) ||
      view.getSourceType().getRank() != view.getType().getRank())
    return {v, 0};
  int64_t rank = view.getType().getRank();
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<int64_t> stride = getConstantIntValue(view.getMixedStrides()[d]);
    std::optional<int64_t> offset = getConstantIntValue(view.getMixedOffsets()[d]);
    if (!stride || *stride != 1 || !offset || (d != rank - 2 && *offset != 0))
      return {v, 0};
    if (d == rank - 2)
      continue;
    int64_t whole = view.getSourceType().getDimSize(d);
    OpFoldResult size = view.getMixedSizes()[d];
    if (std::optional<int64_t> known = getConstantIntValue(size)) {
      if (*known != whole)
        return {v, 0};
      continue;
    }
    if (!ShapedType::isDynamic(whole) || !coversLeadingSize(view, size))
      return {v, 0};
  }
  return {view.getSource(),
          *getConstantIntValue(view.getMixedOffsets()[rank - 2])};
}

template <typename StoreOp>
FailureOr<Lowered> lowerStore(StoreOp op, StringRef name, int64_t cores,
                              Value blockTable) {
  auto [keyBase, keyHead0] = headRangeOf(op.getKey());
  auto [valueBase, valueHead0] = headRangeOf(op.getValue());
  SmallVector<NamedOperand> args = {{"key", keyBase}, {"value", valueBase}};
  if (blockTable)
    args.push_back({"block_table", blockTable});
  if (op.getKvIds())
    args.push_back({"kv_ids", op.getKvIds()});
  args.push_back({"q_lens", op.getQLens()});
  if (op.getKvLens())
    args.push_back({"kv_lens", op.getKvLens()});
  if (op.getAccumQLen())
    args.push_back({"accum_q_len", op.getAccumQLen()});
  if (op.getKeyScale())
    args.push_back({"key_scale", op.getKeyScale()});
  if (op.getValueScale())
    args.push_back({"value_scale", op.getValueScale()});
  args.push_back({"k_cache", op.getKCache()});
  args.push_back({"v_cache", op.getVCache()});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  // Shapes are the op's (a head range's), buffers the bases.
  auto keyType = cast<MemRefType>(op.getKey().getType());
  auto cacheType = cast<MemRefType>(op.getKCache().getType());
  bool packed = keyType.getRank() == 3;
  bool int8 = cacheType.getElementType().isSignlessInteger(8);
  int64_t dim = keyType.getDimSize(keyType.getRank() - 1);
  int64_t kvHeads = keyType.getDimSize(keyType.getRank() - 2);
  if (ShapedType::isDynamic(dim) || dim % 32 || dim > kMaxCols)
    return op.emitOpError("lowers with a static head_dim, a multiple of 32 "
                          "up to ")
           << kMaxCols << " (one bf16 or int8 tile row per head)";
  if (ShapedType::isDynamic(kvHeads))
    return op.emitOpError("lowers with a static kv_head_num only");
  int64_t slots = packed ? 1 : keyType.getDimSize(1);
  if (!packed && ShapedType::isDynamic(slots))
    return op.emitOpError("lowers the unpacked form with a static q_seq_len "
                          "only");
  int64_t blockSize = cacheType.getDimSize(2);
  if (blockTable && ShapedType::isDynamic(blockSize))
    return op.emitOpError("lowers with a static block_size only");

  std::map<std::string, std::string> v;
  addTypeValues(v, args);
  addPlanValues(v, name, args, cores);
  auto row = [&](StringRef elem) {
    return "!tile.tile<vec, 1x" + std::to_string(dim) + "x" + elem.str() + ">";
  };
  auto rows = [&](StringRef elem) {
    return "!tile.tile<vec, 8x" + std::to_string(dim) + "x" + elem.str() +
           ", valid = ?x" + std::to_string(dim) + ">";
  };
  // key and value as [token rows, heads x head_dim] (unpacked: the batch
  // and q_seq_len dimensions make the token rows).
  SmallVector<ReassociationIndices> tokenRows =
      packed ? SmallVector<ReassociationIndices>{{0}, {1, 2}}
             : SmallVector<ReassociationIndices>{{0, 1}, {2, 3}};
  v["TOKEN_ROWS"] = packed ? "[[0], [1, 2]]" : "[[0, 1], [2, 3]]";
  v["KEY_ROWS_TYPE"] = str(memref::CollapseShapeOp::computeCollapsedType(
      cast<MemRefType>(keyBase.getType()), tokenRows));
  v["VALUE_ROWS_TYPE"] = str(memref::CollapseShapeOp::computeCollapsedType(
      cast<MemRefType>(valueBase.getType()), tokenRows));
  v["HIDDEN"] = std::to_string(dim);
  v["KV_HEADS"] = std::to_string(kvHeads);
  v["KEY_HEAD0"] = std::to_string(keyHead0);
  v["VALUE_HEAD0"] = std::to_string(valueHead0);
  v["SLOTS"] = std::to_string(slots);
  v["BLOCK_SIZE"] = std::to_string(blockSize);
  v["ROW_F32"] = row("f32");
  v["ROWS_BF16"] = rows("bf16");
  v["ROWS_F32"] = rows("f32");
  v["ROWS_I32"] = rows("i32");
  v["ROWS_F16"] = rows("f16");
  v["ROWS_I8"] = rows("i8");
  if (int8) {
    v["CONVERT_TILES"] = "  %int8_max = arith.constant 1.270000e+02 : f32\n"
                         "  %int8_min = arith.constant -1.280000e+02 : f32\n"
                         "  %scale_row = tile.alloc : ${ROW_F32}";
    v["CONVERT_TILES_N"] = "      %rows_f = tile.alloc valid(%n) : ${ROWS_F32}\n"
                           "      %rows_i = tile.alloc valid(%n) : ${ROWS_I32}\n"
                           "      %rows_h = tile.alloc valid(%n) : ${ROWS_F16}\n"
                           "      %rows_8 = tile.alloc valid(%n) : ${ROWS_I8}";
    std::map<std::string, std::string> k = {{"SCALE", "key_scale"},
                                            {"SCALE_TYPE", "${KEY_SCALE_TYPE}"}};
    std::map<std::string, std::string> vv = {
        {"SCALE", "value_scale"}, {"SCALE_TYPE", "${VALUE_SCALE_TYPE}"}};
    v["CONVERT_KEY"] = substitute(kStoreQuantize, k);
    v["CONVERT_VALUE"] = substitute(kStoreQuantize, vv);
    v["STORED"] = "%rows_8";
    v["STORED_TILE"] = "${ROWS_I8}";
  } else {
    v["CONVERT_TILES"] = v["CONVERT_TILES_N"] = v["CONVERT_KEY"] =
        v["CONVERT_VALUE"] = "";
    v["STORED"] = "%rows";
    v["STORED_TILE"] = "${ROWS_BF16}";
  }
  // The tokens of the located sequence from row %i on.
  if (!packed)
    v["SEQ_LEFT"] = "      %left_in_seq = arith.subi %q_len, %s : index\n"
                    "      scf.yield %left_in_seq : index";
  else
    v["SEQ_LEFT"] =
        std::string(op.getAccumQLen()
                        ? "      %run_start_i32 = memref.load %accum_q_len[%b] "
                          ": ${ACCUM_Q_LEN_TYPE}\n      %run_start = "
                          "arith.index_cast %run_start_i32 : i32 to index\n"
                        : "      %run_start = arith.addi %seq_start, %c0 : "
                          "index\n") +
        "      %run_len_i32 = memref.load %q_lens[%b] : ${Q_LENS_TYPE}\n"
        "      %run_len = arith.index_cast %run_len_i32 : i32 to index\n"
        "      %run_end = arith.addi %run_start, %run_len : index\n"
        "      %left_in_seq = arith.subi %run_end, %i : index\n"
        "      scf.yield %left_in_seq : index";
  // A run stays in its page (paged) or is whole (a contiguous cache row).
  v["RUN_IN_PAGE"] =
      blockTable ? "    %page_size = arith.constant ${BLOCK_SIZE} : index\n"
                   "    %in_page = arith.remui %pos, %page_size : index\n"
                   "    %page_left = arith.subi %page_size, %in_page : index\n"
                   "    %n = arith.minui %n_run, %page_left : index"
                 : "    %n = arith.addi %n_run, %c0 : index";
  // Where %pos of sequence %b lives.
  v["SLOT"] = op.getKvIds()
                  ? "      %slot_i32 = memref.load %kv_ids[%b] : "
                    "${KV_IDS_TYPE}\n      %slot = arith.index_cast "
                    "%slot_i32 : i32 to index"
                  : "      %slot = arith.addi %b, %c0 : index";
  if (blockTable)
    v["WHERE"] = "      %block = arith.constant ${BLOCK_SIZE} : index\n"
                 "      %page_idx = arith.divui %pos, %block : index\n"
                 "      %page_i32 = memref.load %block_table[%slot, "
                 "%page_idx] : ${BLOCK_TABLE_TYPE}\n"
                 "      %cache_row = arith.index_cast %page_i32 : i32 to "
                 "index\n"
                 "      %cache_pos = arith.remui %pos, %block : index";
  else
    v["WHERE"] = "      %cache_row = arith.addi %slot, %c0 : index\n"
                 "      %cache_pos = arith.addi %pos, %c0 : index";
  v["FIRST_OF_SEQ"] =
      op.getKvLens()
          ? "    %first_i32 = memref.load %kv_lens[%b] : ${KV_LENS_TYPE}\n"
            "    %first = arith.index_cast %first_i32 : i32 to index"
          : "    %first = arith.addi %c0, %c0 : index";
  addTokenRowValues(v, packed, bool(op.getAccumQLen()), slots, "key");
  // Validation of the lengths, slots and pages.
  v["PAST_OF_SEQ"] =
      op.getKvLens()
          ? "    %past_i32 = memref.load %kv_lens[%b] : ${KV_LENS_TYPE}\n"
            "    %past = arith.extsi %past_i32 : i32 to i64"
          : "    %past = arith.constant 0 : i64";
  v["SLOT_OF_SEQ"] =
      op.getKvIds()
          ? "    %slot_i32 = memref.load %kv_ids[%b] : ${KV_IDS_TYPE}\n"
            "    %slot = arith.extsi %slot_i32 : i32 to i64"
          : "    %slot = arith.index_cast %b : index to i64";
  v["SEQ_CHECKS"] = kStoreSeqChecks;
  v["VALIDATE_SETUP"] = "  %slots = memref.dim ${SLOTS_OF}, %c0 : "
                        "${SLOTS_TYPE}\n  %slots_i64 = arith.index_cast "
                        "%slots : index to i64\n${CAPACITY}";
  if (blockTable) {
    v["SLOTS_OF"] = "%block_table";
    v["SLOTS_TYPE"] = "${BLOCK_TABLE_TYPE}";
    v["CAPACITY"] =
        "  %per_seq = memref.dim %block_table, %c1 : ${BLOCK_TABLE_TYPE}\n"
        "  %per_seq_i64 = arith.index_cast %per_seq : index to i64\n"
        "  %block_cap = arith.constant ${BLOCK_SIZE} : i64\n"
        "  %capacity_i64 = arith.muli %per_seq_i64, %block_cap : i64";
    v["PAGES_OK"] = kStorePagesOk;
    v["PAGES_IN_POOL"] = kPagesInPool;
    v["PAGES_FROM"] = "%first_idx";
    v["PAGES_TO"] = "%end_idx";
  } else {
    v["SLOTS_OF"] = "%k_cache";
    v["SLOTS_TYPE"] = "${K_CACHE_TYPE}";
    v["CAPACITY"] =
        "  %cap = memref.dim %k_cache, %c2 : ${K_CACHE_TYPE}\n"
        "  %capacity_i64 = arith.index_cast %cap : index to i64";
    v["PAGES_OK"] = "    %pages_ok = arith.constant true";
  }
  // Shapes: value as key, both caches one shape, the per-sequence operands
  // one batch, the scales [kv_head_num, head_dim].
  SmallVector<DimCheck> dims;
  std::string prelude = "  %kv_heads = arith.constant ${KV_HEADS} : index\n";
  // key and value may be head ranges of larger buffers: their other
  // dimensions agree, and each range fits its buffer's heads.
  unsigned headDim = keyType.getRank() - 2;
  std::string headsFit;
  for (unsigned d = 0; d < keyType.getRank(); ++d)
    if (d != headDim)
      dims.push_back({"value", d, "%key_dim_" + std::to_string(d)});
  for (auto [arg, head0] : {std::pair<StringRef, int64_t>("key", keyHead0),
                            std::pair<StringRef, int64_t>("value", valueHead0)})
    headsFit += ("  %" + arg + "_heads = memref.dim %" + arg + ", %c" +
                 Twine(headDim) + " : ${" + arg.upper() + "_TYPE}\n  %" +
                 arg + "_head_end = arith.constant " +
                 Twine(head0 + kvHeads) + " : index\n  %" + arg +
                 "_fits = arith.cmpi ule, %" + arg + "_head_end, %" + arg +
                 "_heads : index\n")
                    .str();
  headsFit += "  %heads_fit = arith.andi %key_fits, %value_fits : i1\n";
  for (unsigned d = 0; d < 4; ++d) {
    prelude += "  %cache_dim_" + std::to_string(d) +
               " = memref.dim %k_cache, %c" + std::to_string(d) +
               " : ${K_CACHE_TYPE}\n";
    dims.push_back({"v_cache", d, "%cache_dim_" + std::to_string(d)});
  }
  dims.push_back({"k_cache", 1, "%kv_heads"});
  dims.push_back({"k_cache", 3, "%hidden"});
  for (StringRef perSeq : {"kv_ids", "kv_lens"})
    if (llvm::any_of(args, [&](const NamedOperand &a) { return a.name == perSeq; }))
      dims.push_back({perSeq.str(), 0, "%batch"});
  for (StringRef scale : {"key_scale", "value_scale"})
    if (llvm::any_of(args, [&](const NamedOperand &a) { return a.name == scale; })) {
      dims.push_back({scale.str(), 0, "%kv_heads"});
      dims.push_back({scale.str(), 1, "%hidden"});
    }
  v["CHECKS"] = tokenRowChecks(args, dims, "key", keyType.getRank(), packed,
                               bool(op.getAccumQLen()), prelude, headsFit,
                               "%heads_fit");
  return instantiate(v, kRowPlanner, kStoreKernel, args);
}

//===----------------------------------------------------------------------===//
// quant_matmul: one work unit = (N tile, range of token rows); the cube
// multiplies int8 into i32, the vector cores dequantize
//===----------------------------------------------------------------------===//

/// Blocks (a cube core and its vector cores) a matmul runs on; each has its
/// slot of the workspace.
constexpr int64_t kCubeBlocks = 24;
/// Token rows of one cube tile (M), and the widest K and N tiles.
constexpr int64_t kMatmulRows = 32, kMaxKTile = 256, kMaxNTile = 128;
/// Descriptors a matmul plan may write.
constexpr int64_t kMatmulUnits = 1024;

/// A matmul's plan: units of at least one M tile, at most kMatmulUnits, and
/// chunks of exactly the (M-tile-rounded) chunk size, the last one of a row
/// range partial: balanced chunks would cut every unit off the M tile grid,
/// so that each unit's last tile were partial, not only a range's last.
/// The K and N tiles of a matmul over K x N weights (N tiles of at most
/// `maxNTile` columns), or a diagnostic unless K is a multiple of 32 and N
/// of 16 (whole 32-byte int8 and bf16 rows).
FailureOr<std::pair<int64_t, int64_t>>
matmulTiles(Operation *op, int64_t k, int64_t n, int64_t maxNTile) {
  if (k % 32 || n % 16)
    return op->emitOpError("lowers with hidden_size a multiple of 32 and "
                           "new_hidden_size a multiple of 16 (whole 32-byte "
                           "int8 and bf16 rows), got ")
           << k << " and " << n;
  return std::make_pair(largestDivisor(k, kMaxKTile, 32),
                        largestDivisor(n, maxNTile, 16));
}

std::string matmulPlanConfig() {
  return "#wsp.plan_config<chunk_min = " + std::to_string(kMatmulRows) +
         ", chunk_max = 2147483647, max_work_units = " +
         std::to_string(kMatmulUnits) + ", balance_chunks = false>";
}

/// The split of a kernel's vector work over a block's vector cores (two on
/// A2/A3, one in the CPU simulation; this one is %sb of %nsb), one rule for
/// the rows of the attention and matmul kernels and the positions of an
/// int8 page segment: of `count` items this core takes `n` from `first`,
/// every core as many, so an odd count leaves the middle one to both (which
/// write the same bytes) and no core is left with none.
std::string vectorCoreShare(StringRef count, StringRef n, StringRef first) {
  return llvm::formatv("    {1} = arith.ceildivui {0}, %nsb : index\n"
                       "    {2}_last = arith.subi {0}, {1} : index\n"
                       "    {2}_at = arith.muli %sb, {1} : index\n"
                       "    {2} = arith.minui {2}_at, {2}_last : index",
                       count, n, first)
      .str();
}

/// The kernel: per M tile of the unit's rows, acc = sum over K tiles of
/// A B on the cube (i8 x i8 -> i32, or bf16 x bf16 -> f32, in L0C), acc to
/// the block's workspace slot, then on the vector cores y = bf16 of it
/// (int8: times per_token_scale[row] and weight_scale[col] (+ bias[col]),
/// `${EPILOGUE}`).
constexpr StringLiteral kMatmulKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers)${KERNEL_CONSTANTS} (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
  %c0 = arith.constant 0 : index
${M_TILE_DEF}
  %k_tile = arith.constant ${K_TILE} : index
  %n_tile = arith.constant ${N_TILE} : index
  %hidden = arith.constant ${K} : index
  %nt = wsp.param %desc["batch_idx"] : !wsp.descriptor<moe>
  %n0 = arith.muli %nt, %n_tile : index
${UNIT_ROWS}
  %end = arith.addi %start, %count : index
  %blk = tile.block_idx : index
  %sb = tile.subblock_id : index
  %nsb = tile.subblock_num : index
${COL_TILES}
  scf.for %m = %start to %end step %m_tile {
    %left = arith.subi %end, %m : index
    %rows = arith.minui %left, %m_tile : index
    // The epilogue is split by rows over the block's vector cores
    // (vectorCoreShare): this one takes rows [vr0, vr0 + vrows) of the M
    // tile (token %vm on).
${VECTOR_CORE_ROW_SHARE}
    %vm = arith.addi %m, %vr0 : index
    // Cube: acc = A[m : m + rows, :] B[:, n0 : n0 + n_tile].
    %acc = tile.alloc ${ROW_SHAPE}valid(%rows) : ${ACC}
    scf.for %k = %c0 to %hidden step %k_tile {
      %a_mat = tile.alloc ${ROW_SHAPE}valid(%rows) : ${A_MAT}
      tile.load %a_mat, %${A_SOURCE}[${A_INDICES} : ${A_MAT}, ${A_SOURCE_TYPE}
      %a = tile.alloc ${ROW_SHAPE}valid(%rows) : ${A_LEFT}
      tile.mov %a, %a_mat : ${A_LEFT}, ${A_MAT}
      %b_mat = tile.alloc : ${B_MAT}
${LOAD_B}
      %b = tile.alloc : ${B_RIGHT}
      tile.mov %b, %b_mat : ${B_RIGHT}, ${B_MAT}
      %first = arith.cmpi eq, %k, %c0 : index
      scf.if %first {
        tile.matmul %acc, %a, %b : ${ACC}, ${A_LEFT}, ${B_RIGHT}
      } else {
        tile.matmul_acc %acc, %a, %b : ${ACC}, ${A_LEFT}, ${B_RIGHT}
      }
    }
    tile.store %workspace[%blk, %c0, %c0], %acc : ${WORKSPACE_TYPE}, ${ACC}
    // Vector: the vector core's rows of the block's slot into y.
    %yf = tile.alloc ${ROW_SHAPE}valid(%vrows) : ${ROWS_F32}
    %yb = tile.alloc ${ROW_SHAPE}valid(%vrows) : ${ROWS_BF16}
${EPILOGUE}
    tile.cvt %yb, %yf : ${ROWS_BF16}, ${ROWS_F32}
    tile.store %y[%vm, %n0], %yb : ${Y_TYPE}, ${ROWS_BF16}
  }
  wsp.return
}
)mlir";

/// The int8 epilogue: dequantize the i32 sums.
constexpr StringLiteral kDequantEpilogue = R"mlir(    %yi = tile.alloc ${ROW_SHAPE}valid(%vrows) : ${ROWS_I32}
    %tmp = tile.alloc ${ROW_SHAPE}valid(%vrows) : ${ROWS_F32}
    %pts = tile.alloc ${ROW_SHAPE}valid(%vrows) : ${ROW_STAT}
    tile.load %yi, %workspace[%blk, %vr0, %c0] : ${ROWS_I32}, ${WORKSPACE_TYPE}
    tile.cvt %yf, %yi : ${ROWS_F32}, ${ROWS_I32}
    tile.load %pts, %per_token_scale[%vm] transpose : ${ROW_STAT}, ${PER_TOKEN_SCALE_TYPE}
    tile.rowexpandmul %yf, %yf, %pts, %tmp : ${ROWS_F32}, ${ROWS_F32}, ${ROW_STAT}, ${ROWS_F32}
${LOAD_WEIGHT_SCALE}
    tile.colexpandmul %yf, %yf, %ws_f : ${ROWS_F32}, ${ROWS_F32}, ${COL_F32}
${ADD_BIAS})mlir";

/// The bf16 epilogue: the f32 sums as they are.
constexpr StringLiteral kPlainEpilogue = R"mlir(    tile.load %yf, %workspace[%blk, %vr0, %c0] : ${ROWS_F32}, ${WORKSPACE_TYPE})mlir";

/// The operands of a matmul of token rows: quant_matmul and
/// moe_quant_matmul (a shared expert: no bias, no transposes), int8 with
/// dequantization; moe_gating_gemm, bf16 without scales. One kernel.
struct MatmulOperands {
  Operation *op;
  Value hiddenStates, perTokenScale, weight, weightScale, bias, y;
  StringRef weightName;
  bool transposeA = false, transposeB = false;
};

FailureOr<Lowered> lowerMatmul(const MatmulOperands &mm, StringRef name) {
  Operation *op = mm.op;
  const bool quant = bool(mm.perTokenScale);
  SmallVector<NamedOperand> args = {{"hidden_states", mm.hiddenStates}};
  if (quant)
    args.push_back({"per_token_scale", mm.perTokenScale});
  args.push_back({"weight", mm.weight});
  if (quant)
    args.push_back({"weight_scale", mm.weightScale});
  if (mm.bias)
    args.push_back({"bias", mm.bias});
  args.push_back({"y", mm.y});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto wType = cast<MemRefType>(mm.weight.getType());
  bool ta = mm.transposeA, tb = mm.transposeB;
  int64_t k = wType.getDimSize(tb ? 1 : 0), n = wType.getDimSize(tb ? 0 : 1);
  if (ShapedType::isDynamic(k) || ShapedType::isDynamic(n))
    return op->emitOpError("lowers with a static ")
           << mm.weightName
           << " shape only: its tiles are sized at compile time";
  FailureOr<std::pair<int64_t, int64_t>> tiles =
      matmulTiles(op, k, n, kMaxNTile);
  if (failed(tiles))
    return failure();
  const int64_t kTile = tiles->first, nTile = tiles->second;

  MLIRContext *ctx = op->getContext();
  Type accType = quant ? Type(IntegerType::get(ctx, 32)) : Float32Type::get(ctx);
  Type workspace =
      MemRefType::get({kCubeBlocks, kMatmulRows, nTile}, accType);
  args.push_back({"workspace", Value(), workspace});
  const StringRef in = quant ? "i8" : "bf16", acc = quant ? "i32" : "f32";

  std::map<std::string, std::string> v;
  addTypeValues(v, args);
  // The row planner with one "head" per N tile, units of whole M tiles, on
  // the cube and vector cores.
  v["UNITS"] = std::to_string(kMatmulUnits);
  v["CONFIG"] = matmulPlanConfig();
  v["ROWS"] = std::to_string(kMatmulRows);
  v["CORES"] = "mix(" + std::to_string(kCubeBlocks) + ")";
  v["HEADS"] = "%n_tiles";
  v["PLAN_CONSTANTS"] = "  %n_tiles = arith.constant ${N_TILES} : index\n"
                        "  %blocks = arith.constant ${BLOCKS} : index\n"
                        "  %m_tile = arith.constant ${M_TILE} : index\n"
                        "  %n_tile = arith.constant ${N_TILE} : index\n"
                        "  %new_hidden = arith.constant ${N} : index\n"
                        "  %hidden = arith.constant ${K} : index";
  v["ROUND_CHUNK"] = "    %tiles = arith.ceildivui %chunk, %m_tile : index\n"
                     "    %rows_per_unit = arith.muli %tiles, %m_tile : index";
  addPlanValues(v, name, args, kMatmulUnits);
  std::string m = std::to_string(kMatmulRows), kt = std::to_string(kTile),
              nt = std::to_string(nTile);
  auto tile = [&](StringRef loc, const std::string &rows,
                  const std::string &cols, StringRef elem, bool validRows,
                  StringRef layout = "") {
    return "!tile.tile<" + loc.str() + ", " + rows + "x" + cols + "x" +
           elem.str() + (validRows ? ", valid = ?x" + cols : std::string()) +
           (layout.empty() ? "" : ", " + layout.str()) + ">";
  };
  v.insert({{"N_TILES", std::to_string(n / nTile)},
            {"BLOCKS", std::to_string(kCubeBlocks)},
            {"M_TILE", m},
            {"KERNEL_CONSTANTS", ""},
            {"M_TILE_DEF", "  %m_tile = arith.constant ${M_TILE} : index"},
            {"UNIT_ROWS", kUnitRows.str()},
            {"ROW_SHAPE", ""},
            {"A_SOURCE", "hidden_states"},
            {"A_SOURCE_TYPE", "${HIDDEN_STATES_TYPE}"},
            {"K_TILE", kt},
            {"N_TILE", nt},
            {"K", std::to_string(k)},
            {"N", std::to_string(n)},
            {"ACC", tile("acc", m, nt, acc, true)},
            {"A_MAT", tile("mat", m, kt, in, true)},
            {"A_LEFT", tile("left", m, kt, in, true)},
            {"B_MAT", tile("mat", kt, nt, in, false, tb ? "zn" : "")},
            {"B_RIGHT", tile("right", kt, nt, in, false)},
            {"ROWS_I32", tile("vec", m, nt, "i32", true)},
            {"ROWS_F32", tile("vec", m, nt, "f32", true)},
            {"ROWS_BF16", tile("vec", m, nt, "bf16", true)},
            {"ROW_STAT",
             "!tile.tile<vec, " + m + "x1xf32, valid = ?x1, col_major>"},
            {"COL_F32", tile("vec", "1", nt, "f32", false)},
            {"COL_BF16", tile("vec", "1", nt, "bf16", false)}});
  v["VECTOR_CORE_ROW_SHARE"] = vectorCoreShare("%rows", "%vrows", "%vr0");
  // transpose_a: hidden_states is [hidden_size, num_tokens], so an M tile
  // of token rows is read transposed (pto-isa's DN load into a zn L1 tile,
  // as the transposed weight is).
  if (ta) {
    v["TOKENS_DEF"] = "  %tokens = memref.dim %hidden_states, %c1 : "
                      "${HIDDEN_STATES_TYPE}";
    v["A_MAT"] = tile("mat", m, kt, in, true, "zn");
  }
  v["A_INDICES"] = ta ? "%k, %m] transpose" : "%m, %k]";
  v["LOAD_B"] =
      tb ? "      tile.load %b_mat, %weight[%n0, %k] transpose : ${B_MAT}, "
           "${WEIGHT_TYPE}"
         : "      tile.load %b_mat, %weight[%k, %n0] : ${B_MAT}, ${WEIGHT_TYPE}";
  // Run time: every operand's dimensions, and the workspace's.
  // (checks() takes sizes from hidden_states, so its own hidden_size, the
  // rows a K tile reads, is checked here.)
  auto allChecks = [&](ArrayRef<DimCheck> dims) {
    return "  %k_size = memref.dim %hidden_states, %c" +
           std::to_string(ta ? 0 : 1) + " : " + str(mm.hiddenStates.getType()) +
           "\n  %k_ok = arith.cmpi eq, %k_size, %hidden : index\n" +
           checks(args, dims, "%dims_ok") +
           "  %shapes_ok = arith.andi %dims_ok, %k_ok : i1\n";
  };
  SmallVector<DimCheck> dims = {{"y", 0, "%tokens"},
                                {"y", 1, "%new_hidden"},
                                {"workspace", 0, "%blocks"},
                                {"workspace", 1, "%m_tile"},
                                {"workspace", 2, "%n_tile"}};
  if (!quant) {
    v["COL_TILES"] = "";
    v["EPILOGUE"] = kPlainEpilogue;
    v["CHECKS"] = allChecks(dims);
    return instantiate(v, kRowPlanner, kMatmulKernel, args);
  }
  v["EPILOGUE"] = kDequantEpilogue;
  bool wsBf16 = cast<MemRefType>(mm.weightScale.getType())
                    .getElementType()
                    .isBF16();
  v["COL_TILES"] = "  %ws_f = tile.alloc : ${COL_F32}";
  if (wsBf16 || mm.bias)
    v["COL_TILES"] += "\n  %col_b = tile.alloc : ${COL_BF16}";
  if (mm.bias)
    v["COL_TILES"] += "\n  %bias_f = tile.alloc : ${COL_F32}";
  v["LOAD_WEIGHT_SCALE"] =
      wsBf16 ? "    tile.load %col_b, %weight_scale[%n0] : ${COL_BF16}, "
               "${WEIGHT_SCALE_TYPE}\n    tile.cvt %ws_f, %col_b : "
               "${COL_F32}, ${COL_BF16}"
             : "    tile.load %ws_f, %weight_scale[%n0] : ${COL_F32}, "
               "${WEIGHT_SCALE_TYPE}";
  v["ADD_BIAS"] =
      mm.bias
          ? "    tile.load %col_b, %bias[%n0] : ${COL_BF16}, ${BIAS_TYPE}\n"
            "    tile.cvt %bias_f, %col_b : ${COL_F32}, ${COL_BF16}\n"
            "    tile.colexpandadd %yf, %yf, %bias_f : ${ROWS_F32}, "
            "${ROWS_F32}, ${COL_F32}"
          : "";
  dims.push_back({"per_token_scale", 0, "%tokens"});
  dims.push_back({"weight_scale", 0, "%new_hidden"});
  if (mm.bias)
    dims.push_back({"bias", 0, "%new_hidden"});
  v["CHECKS"] = allChecks(dims);
  return instantiate(v, kRowPlanner, kMatmulKernel, args);
}

//===----------------------------------------------------------------------===//
// moe_quant_group_gemm: one work unit = (expert, range of its rows, N tile),
// planned from the experts' token counts without padding any expert to a
// block; the quant_matmul kernel with the expert's weight and scale, its M
// tile chosen by the expert's token count (the tier)
//===----------------------------------------------------------------------===//

/// An expert with at most this many rows is "small": its tier multiplies
/// M tiles of kSmallExpertRows rows, the others kMatmulRows.
constexpr int64_t kSmallExpertRows = 16;
/// The widest N tile of a group GEMM.
constexpr int64_t kExpertNTile = 64;

/// The planner of the ops over an expert-parallel rank's scattered rows:
/// the routed experts' token counts checked (non-negative: INVALID_PARAMS;
/// their sum within the rows the buffers allocate: BUFFER_OVERFLOW), then
/// one descriptor per (segment, chunk of its rows, head) from the segments'
/// lengths themselves (the spec planner's MoE form: the lengths are its
/// per-expert lengths, `${HEADS}` its batch groups), so no segment is
/// padded to a block and an empty one gets no unit. The segments are the
/// routed experts (their counts), after the shared experts' when the op has
/// them (`${LENGTHS}` then builds `%lengths`).
constexpr StringLiteral kExpertPlanner = R"mlir(
wsp.tier_config @${NAME}_tiers ${TIERS}

func.func @plan(${SIGNATURE}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ok = arith.constant 0 : i32
  %overflow = arith.constant 1 : i32
  %invalid = arith.constant 3 : i32
  %zero_i32 = arith.constant 0 : i32
  %false = arith.constant false
  %experts = arith.constant ${EXPERTS} : index
  %shared_rows = arith.constant ${SHARED_ROWS} : index
${PLAN_CONSTANTS}
  %rows = memref.dim %${ROWS_SOURCE}, %c0 : ${ROWS_SOURCE_TYPE}
${CHECKS}
  // The routed experts' rows: every count non-negative, their sum within
  // the rows after the shared experts'.
  %sum, %negative = scf.for %e = %c0 to %experts step %c1
      iter_args(%acc = %c0, %bad = %false) -> (index, i1) {
    %count_i32 = memref.load %${COUNTS}[%e] : ${COUNTS_TYPE}
    %is_negative = arith.cmpi slt, %count_i32, %zero_i32 : i32
    %count_u = arith.index_castui %count_i32 : i32 to index
    %next = arith.addi %acc, %count_u : index
    %bad_next = arith.ori %bad, %is_negative : i1
    scf.yield %next, %bad_next : index, i1
  }
  %used = arith.addi %shared_rows, %sum : index
  %rows_fit = arith.cmpi ule, %used, %rows : index
  %rows_status = arith.select %rows_fit, %ok, %overflow : i32
  %counts_status = arith.select %negative, %invalid, %rows_status : i32
  %check = arith.select %shapes_ok, %counts_status, %invalid : i32
  %checked = arith.cmpi eq, %check, %ok : i32
  %status = scf.if %checked -> i32 {
${LENGTHS}
    %descs = memref.alloca() : memref<${UNITS}x!wsp.descriptor<moe>>
    %chunk = wsp.plan_chunk_size %${LENGTHS_NAME}[${SEGMENTS}] heads(${HEADS})
        config(${CONFIG}) : ${LENGTHS_TYPE}
${ROUND_CHUNK}
    %count, %planned = wsp.generate %${LENGTHS_NAME}[${SEGMENTS}] heads(${HEADS})
        chunk(%rows_per_unit) tiers(@${NAME}_tiers) config(${CONFIG})
        into %descs : ${LENGTHS_TYPE}, memref<${UNITS}x!wsp.descriptor<moe>>
    %run = arith.cmpi eq, %planned, %ok : i32
    scf.if %run {
      wsp.dispatch @${NAME}(${CALL_ARGS})
          descriptors(%descs[%count] : memref<${UNITS}x!wsp.descriptor<moe>>)
          on ${CORES}
    }
    scf.yield %planned : i32
  } else {
    scf.yield %check : i32
  }
  return %status : i32
}
)mlir";

/// A unit's rows: segment x of the scattered rows is shared expert x (x <
/// SHARED), rows [x PER_RANK, (x + 1) PER_RANK), else routed expert
/// `%expert` = x - SHARED, the `${COUNTS}[%expert]` rows after the shared
/// rows and those of the experts before it (summed from the counts).
constexpr StringLiteral kSegmentRows = R"mlir(  %c1 = arith.constant 1 : index
  %segment = wsp.param %desc["expert_idx"] : !wsp.descriptor<moe>
  %shared = arith.constant ${SHARED} : index
  %per_rank = arith.constant ${PER_RANK} : index
  %shared_end = arith.muli %shared, %per_rank : index
  %expert = arith.subi %segment, %shared : index
  %is_shared = arith.cmpi ult, %segment, %shared : index
  %base = scf.if %is_shared -> (index) {
    %shared_base = arith.muli %segment, %per_rank : index
    scf.yield %shared_base : index
  } else {
    %routed_base = scf.for %i = %c0 to %expert step %c1
        iter_args(%acc = %shared_end) -> (index) {
      %count_i32 = memref.load %${COUNTS}[%i] : ${COUNTS_TYPE}
      %count_i = arith.index_castui %count_i32 : i32 to index
      %next = arith.addi %acc, %count_i : index
      scf.yield %next : index
    }
    scf.yield %routed_base : index
  }
  %local = wsp.param %desc["token_start"] : !wsp.descriptor<moe>
  %count = wsp.param %desc["token_count"] : !wsp.descriptor<moe>
  %start = arith.addi %base, %local : index)mlir";

/// The group GEMM's kernel is kMatmulKernel with these pieces: the tier's
/// M_TILE (16 rows for a small expert, 32 above) sizes the row tiles; the
/// unit's rows are its expert's (kSegmentRows, no shared experts); the
/// expert's weight and scale row.
FailureOr<Lowered> lowerGroupGemm(llm::MoeQuantGroupGemmOp op, StringRef name) {
  SmallVector<NamedOperand> args = {
      {"scatter_tokens", op.getScatterTokens()},
      {"per_token_scale", op.getPerTokenScale()},
      {"experts_weight", op.getExpertsWeight()},
      {"experts_scale", op.getExpertsScale()},
      {"experts_token_count", op.getExpertsTokenCount()},
      {"y", op.getY()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto wType = cast<MemRefType>(op.getExpertsWeight().getType());
  if (!wType.hasStaticShape())
    return op.emitOpError("lowers with a static experts_weight shape only: "
                          "its tiles are sized at compile time");
  int64_t experts = wType.getDimSize(0), k = wType.getDimSize(1),
          n = wType.getDimSize(2);
  // Narrower N tiles than a dense matmul's: a decode step's experts hold a
  // few rows each, so the units are few and nearly equal, and more of them
  // deal more evenly over the cores (bench-moe-plan).
  FailureOr<std::pair<int64_t, int64_t>> tiles =
      matmulTiles(op, k, n, kExpertNTile);
  if (failed(tiles))
    return failure();
  const int64_t kTile = tiles->first, nTile = tiles->second;
  MLIRContext *ctx = op.getContext();
  args.push_back({"workspace", Value(),
                  MemRefType::get({kCubeBlocks, kMatmulRows, nTile},
                                  IntegerType::get(ctx, 32))});

  std::map<std::string, std::string> v;
  addTypeValues(v, args);
  std::string m = std::to_string(kMatmulRows), kt = std::to_string(kTile),
              nt = std::to_string(nTile);
  // Row tiles have the tier's M_TILE rows (a `?` the tier's constant
  // fixes).
  auto rowTile = [&](StringRef loc, const std::string &cols, StringRef elem) {
    return "!tile.tile<" + loc.str() + ", ?x" + cols + "x" + elem.str() +
           ", valid = ?x" + cols + ">";
  };
  v.insert({{"NAME", name.str()},
            {"SIGNATURE", signature(args)},
            {"CALL_ARGS", callArgs(args)},
            {"UNITS", std::to_string(kMatmulUnits)},
            {"CONFIG", matmulPlanConfig()},
            {"TIERS", "[#wsp.tier<0, [1, ${SMALL}]>, #wsp.tier<1, "
                      "[${SMALL_NEXT}, 2147483647]>]"},
            {"SHARED_ROWS", "0"},
            {"PLAN_CONSTANTS",
             "  %n_tiles = arith.constant ${N_TILES} : index\n"
             "  %blocks = arith.constant ${BLOCKS} : index\n"
             "  %m_tile = arith.constant ${M_TILE} : index\n"
             "  %n_tile = arith.constant ${N_TILE} : index\n"
             "  %new_hidden = arith.constant ${N} : index"},
            {"ROWS_SOURCE", "scatter_tokens"},
            {"ROWS_SOURCE_TYPE", "${SCATTER_TOKENS_TYPE}"},
            {"COUNTS", "experts_token_count"},
            {"COUNTS_TYPE", "${EXPERTS_TOKEN_COUNT_TYPE}"},
            {"LENGTHS", ""},
            {"LENGTHS_NAME", "experts_token_count"},
            {"SEGMENTS", "%experts"},
            {"LENGTHS_TYPE", "${EXPERTS_TOKEN_COUNT_TYPE}"},
            {"HEADS", "%n_tiles"},
            {"ROUND_CHUNK",
             "    %tiles = arith.ceildivui %chunk, %m_tile : index\n"
             "    %rows_per_unit = arith.muli %tiles, %m_tile : index"},
            {"CORES", "mix(${BLOCKS})"},
            {"SMALL", std::to_string(kSmallExpertRows)},
            {"SMALL_NEXT", std::to_string(kSmallExpertRows + 1)},
            {"EXPERTS", std::to_string(experts)},
            {"N_TILES", std::to_string(n / nTile)},
            {"BLOCKS", std::to_string(kCubeBlocks)},
            {"M_TILE", m},
            {"K_TILE", kt},
            {"N_TILE", nt},
            {"K", std::to_string(k)},
            {"N", std::to_string(n)},
            {"KERNEL_CONSTANTS", " constants {M_TILE = array<i64: ${SMALL}, "
                                 "${M_TILE}>}"},
            {"M_TILE_DEF",
             "  %m_tile = wsp.tier_constant \"M_TILE\" : index"},
            {"UNIT_ROWS", kSegmentRows.str()},
            {"SHARED", "0"},
            {"PER_RANK", "0"},
            {"ROW_SHAPE", "shape(%m_tile) "},
            {"A_SOURCE", "scatter_tokens"},
            {"A_SOURCE_TYPE", "${SCATTER_TOKENS_TYPE}"},
            {"LOAD_B", "      tile.load %b_mat, %experts_weight[%expert, %k, "
                       "%n0] : ${B_MAT}, ${EXPERTS_WEIGHT_TYPE}"},
            {"COL_TILES", "  %ws_f = tile.alloc : ${COL_F32}\n  tile.load "
                          "%ws_f, %experts_scale[%expert, %n0] : "
                          "${COL_F32}, ${EXPERTS_SCALE_TYPE}"},
            {"EPILOGUE", kDequantEpilogue.str()},
            {"LOAD_WEIGHT_SCALE", ""},
            {"ADD_BIAS", ""},
            {"ACC", rowTile("acc", nt, "i32")},
            {"A_MAT", rowTile("mat", kt, "i8")},
            {"A_LEFT", rowTile("left", kt, "i8")},
            {"B_MAT", "!tile.tile<mat, " + kt + "x" + nt + "xi8>"},
            {"B_RIGHT", "!tile.tile<right, " + kt + "x" + nt + "xi8>"},
            {"ROWS_I32", rowTile("vec", nt, "i32")},
            {"ROWS_F32", rowTile("vec", nt, "f32")},
            {"ROWS_BF16", rowTile("vec", nt, "bf16")},
            {"ROW_STAT", "!tile.tile<vec, ?x1xf32, valid = ?x1, col_major>"},
            {"COL_F32", "!tile.tile<vec, 1x" + nt + "xf32>"}});
  v["A_INDICES"] = "%m, %k]";
  // Run time: every operand's dimensions, and the workspace's.
  SmallVector<DimCheck> dims = {{"per_token_scale", 0, "%rows"},
                                {"y", 0, "%rows"},
                                {"y", 1, "%new_hidden"},
                                {"experts_scale", 0, "%experts"},
                                {"experts_scale", 1, "%new_hidden"},
                                {"experts_token_count", 0, "%experts"},
                                {"workspace", 0, "%blocks"},
                                {"workspace", 1, "%m_tile"},
                                {"workspace", 2, "%n_tile"}};
  // (checks() takes sizes from scatter_tokens, so its own columns are
  // checked here.)
  v["CHECKS"] = "  %hidden_size = arith.constant " + std::to_string(k) +
                " : index\n  %cols = memref.dim %scatter_tokens, %c1 : " +
                str(op.getScatterTokens().getType()) +
                "\n  %cols_ok = arith.cmpi eq, %cols, %hidden_size : index\n" +
                checks(args, dims, "%dims_ok") +
                "  %shapes_ok = arith.andi %dims_ok, %cols_ok : i1\n";
  v["VECTOR_CORE_ROW_SHARE"] = vectorCoreShare("%rows", "%vrows", "%vr0");
  return instantiate(v, kExpertPlanner, kMatmulKernel, args);
}

//===----------------------------------------------------------------------===//
// moe_scatter_dynamic_quant: the AICPU counts this rank's routed rows,
// writes experts_token_count and token_offset, then the vector cores
// quantize the rows (the shared experts' first), one gathered row at a time
//===----------------------------------------------------------------------===//

/// One range of `%range` rows planned as one "expert" of the spec
/// planner's MoE form and dispatched: `%planned` is the plan's status.
constexpr StringLiteral kPlanRange = R"mlir(    %range_i32 = arith.index_cast %range : index to i32
    %lens = memref.alloca() : memref<1xi32>
    memref.store %range_i32, %lens[%c0] : memref<1xi32>
    %descs = memref.alloca() : memref<${UNITS}x!wsp.descriptor<moe>>
    %chunk = wsp.plan_chunk_size %lens[%c1] heads(%c1) config(${CONFIG})
        : memref<1xi32>
    %count, %planned = wsp.generate %lens[%c1] heads(%c1) chunk(%chunk)
        tiers(@${NAME}_tiers) config(${CONFIG}) into %descs
        : memref<1xi32>, memref<${UNITS}x!wsp.descriptor<moe>>
    %run = arith.cmpi eq, %planned, %ok : i32
    scf.if %run {
      wsp.dispatch @${NAME}(${CALL_ARGS})
          descriptors(%descs[%count] : memref<${UNITS}x!wsp.descriptor<moe>>)
          on ${CORES}
    })mlir";

/// The planner: the routing counted per routed expert of the rank (a
/// negative id is INVALID_PARAMS, ids of other ranks skipped, more routed
/// rows than allocated_tokens BUFFER_OVERFLOW, all before anything is
/// written); then the counts, token_offset (routed row -> t * topk + k,
/// grouped by expert in increasing id, (t, k) order within; -1 past the
/// used rows) and the quantization of the shared and used routed rows.
constexpr StringLiteral kScatterPlanner = R"mlir(
wsp.tier_config @${NAME}_tiers [#wsp.tier<0, [1, 2147483647]>]

func.func @plan(${SIGNATURE}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ok = arith.constant 0 : i32
  %overflow = arith.constant 1 : i32
  %unsupported = arith.constant 2 : i32
  %invalid = arith.constant 3 : i32
  %zero_i32 = arith.constant 0 : i32
  %one_i32 = arith.constant 1 : i32
  %minus_one_i32 = arith.constant -1 : i32
  %false = arith.constant false
  %true = arith.constant true
  %int32_max = arith.constant 2147483647 : index
  %experts = arith.constant ${EXPERTS} : index
  %topk = arith.constant ${TOPK} : index
  %hidden_size = arith.constant ${HIDDEN} : index
  %expert_rows = arith.constant ${EXPERT_ROWS} : index
  %shared_end = arith.constant ${SHARED_ROWS} : index
  %tokens_end = arith.constant ${TOKENS_END} : index
  %start_i32 = arith.constant ${START} : i32
  %end_i32 = arith.constant ${END} : i32
  %tokens = memref.dim %hidden_states, %c0 : ${HIDDEN_STATES_TYPE}
  %rows = memref.dim %y, %c0 : ${Y_TYPE}
  %allocated = memref.dim %token_offset, %c0 : ${TOKEN_OFFSET_TYPE}
${CHECKS}
  %rows_match = arith.addi %shared_end, %allocated : index
  %rows_ok = arith.cmpi eq, %rows, %rows_match : index
  %range_ok = arith.cmpi ule, %tokens_end, %tokens : index
  %fits = arith.cmpi ule, %rows, %int32_max : index
  %layout_ok = arith.andi %rows_ok, %range_ok : i1
  %all_ok = arith.andi %shapes_ok, %layout_ok : i1
  // Pass 1: the rank's routed rows per expert; any negative id. Four
  // partial counts, token t counted in part t % 4: a hot expert's
  // consecutive increments then go to four counters, not one chain of
  // dependent loads and stores.
  %c4 = arith.constant 4 : index
  %parts = memref.alloca() : memref<4x${EXPERTS}xi32>
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %e = %c0 to %experts step %c1 {
      memref.store %zero_i32, %parts[%p, %e] : memref<4x${EXPERTS}xi32>
    }
  }
  %pairs_ok = scf.if %all_ok -> (i1) {
    %negative = scf.for %t = %c0 to %tokens step %c1 iter_args(%bad = %false) -> (i1) {
      %part = arith.remui %t, %c4 : index
      %bad_t = scf.for %k = %c0 to %topk step %c1 iter_args(%bad_k = %bad) -> (i1) {
        %id = memref.load %selected_experts[%t, %k] : ${SELECTED_EXPERTS_TYPE}
        %is_negative = arith.cmpi slt, %id, %zero_i32 : i32
        %lo = arith.cmpi sge, %id, %start_i32 : i32
        %hi = arith.cmpi slt, %id, %end_i32 : i32
        %mine = arith.andi %lo, %hi : i1
        scf.if %mine {
          %local_i32 = arith.subi %id, %start_i32 : i32
          %local = arith.index_castui %local_i32 : i32 to index
          %n = memref.load %parts[%part, %local] : memref<4x${EXPERTS}xi32>
          %n1 = arith.addi %n, %one_i32 : i32
          memref.store %n1, %parts[%part, %local] : memref<4x${EXPERTS}xi32>
        }
        %bad_next = arith.ori %bad_k, %is_negative : i1
        scf.yield %bad_next : i1
      }
      scf.yield %bad_t : i1
    }
    %valid = arith.xori %negative, %true : i1
    scf.yield %valid : i1
  } else {
    scf.yield %false : i1
  }
  %counts = memref.alloca() : memref<${EXPERTS}xi32>
  scf.for %e = %c0 to %experts step %c1 {
    %sum = scf.for %p = %c0 to %c4 step %c1 iter_args(%acc = %zero_i32) -> (i32) {
      %n = memref.load %parts[%p, %e] : memref<4x${EXPERTS}xi32>
      %next = arith.addi %acc, %n : i32
      scf.yield %next : i32
    }
    memref.store %sum, %counts[%e] : memref<${EXPERTS}xi32>
  }
  %total = scf.for %e = %c0 to %experts step %c1 iter_args(%acc = %c0) -> (index) {
    %n = memref.load %counts[%e] : memref<${EXPERTS}xi32>
    %n_i = arith.index_castui %n : i32 to index
    %next = arith.addi %acc, %n_i : index
    scf.yield %next : index
  }
  %room = arith.cmpi ule, %total, %allocated : index
  %room_status = arith.select %room, %ok, %overflow : i32
  %size_status = arith.select %fits, %room_status, %unsupported : i32
  %check = arith.select %pairs_ok, %size_status, %invalid : i32
  %checked = arith.cmpi eq, %check, %ok : i32
  %status = scf.if %checked -> i32 {
    // The counts, and each expert's next row (exclusive prefix sums).
    %cursor = memref.alloca() : memref<${EXPERTS}xi32>
    %last = scf.for %e = %c0 to %experts step %c1 iter_args(%acc = %zero_i32) -> (i32) {
      %n = memref.load %counts[%e] : memref<${EXPERTS}xi32>
      memref.store %n, %experts_token_count[%e] : ${EXPERTS_TOKEN_COUNT_TYPE}
      memref.store %acc, %cursor[%e] : memref<${EXPERTS}xi32>
      %next = arith.addi %acc, %n : i32
      scf.yield %next : i32
    }
    // Pass 2: each routed (t, k) to its expert's next row.
    %topk_i32 = arith.constant ${TOPK} : i32
    scf.for %t = %c0 to %tokens step %c1 {
      %t_i32 = arith.index_cast %t : index to i32
      %t_base = arith.muli %t_i32, %topk_i32 : i32
      scf.for %k = %c0 to %topk step %c1 {
        %id = memref.load %selected_experts[%t, %k] : ${SELECTED_EXPERTS_TYPE}
        %lo = arith.cmpi sge, %id, %start_i32 : i32
        %hi = arith.cmpi slt, %id, %end_i32 : i32
        %mine = arith.andi %lo, %hi : i1
        scf.if %mine {
          %local_i32 = arith.subi %id, %start_i32 : i32
          %local = arith.index_castui %local_i32 : i32 to index
          %row_i32 = memref.load %cursor[%local] : memref<${EXPERTS}xi32>
          %row_next = arith.addi %row_i32, %one_i32 : i32
          memref.store %row_next, %cursor[%local] : memref<${EXPERTS}xi32>
          %row = arith.index_castui %row_i32 : i32 to index
          %k_i32 = arith.index_cast %k : index to i32
          %code = arith.addi %t_base, %k_i32 : i32
          memref.store %code, %token_offset[%row] : ${TOKEN_OFFSET_TYPE}
        }
      }
    }
    scf.for %i = %total to %allocated step %c1 {
      memref.store %minus_one_i32, %token_offset[%i] : ${TOKEN_OFFSET_TYPE}
    }
    // The rows to quantize: the shared experts' and the used routed ones.
    %range = arith.addi %shared_end, %total : index
${PLAN_RANGE}
    scf.yield %planned : i32
  } else {
    scf.yield %check : i32
  }
  return %status : i32
}
)mlir";

/// The kernel: per row of the unit, its token and smooth_scale row (a
/// shared expert's row: its token in the rank's range; a routed row: from
/// token_offset and the token's selected expert), then that token's row
/// smoothed and quantized (kQuant, one valid row of the tiles).
constexpr StringLiteral kScatterKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cols = arith.constant ${COLS} : index
  %hidden = arith.constant ${HIDDEN} : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1 : index
  %shared = arith.constant ${SHARED} : index
  %per_rank = arith.constant ${PER_RANK} : index
  %tokens_offset = arith.constant ${TOKENS_OFFSET} : index
  %topk = arith.constant ${TOPK} : index
  %start_i32 = arith.constant ${START} : i32
  %shared_end = arith.muli %shared, %per_rank : index
${UNIT_ROWS}
  %end = arith.addi %start, %count : index
  %smooth_f = tile.alloc : ${VEC_F32}
  scf.for %r = %start to %end step %c1 {
    %is_shared = arith.cmpi ult, %r, %shared_end : index
    %t, %srow = scf.if %is_shared -> (index, index) {
      %s = arith.divui %r, %per_rank : index
      %i = arith.remui %r, %per_rank : index
      %t_shared = arith.addi %tokens_offset, %i : index
      scf.yield %t_shared, %s : index, index
    } else {
      %i = arith.subi %r, %shared_end : index
      %code_i32 = memref.load %token_offset[%i] : ${TOKEN_OFFSET_TYPE}
      %code = arith.index_castui %code_i32 : i32 to index
      %t_routed = arith.divui %code, %topk : index
      %k = arith.remui %code, %topk : index
      %id = memref.load %selected_experts[%t_routed, %k] : ${SELECTED_EXPERTS_TYPE}
      %local_i32 = arith.subi %id, %start_i32 : i32
      %local = arith.index_castui %local_i32 : i32 to index
      %s_routed = arith.addi %local, %shared : index
      scf.yield %t_routed, %s_routed : index, index
    }
    %xb = tile.alloc valid(%n) : ${BF16_TILE}
    %xf = tile.alloc valid(%n) : ${F32_TILE}
    %sq = tile.alloc valid(%n) : ${F32_TILE}
    %part = tile.alloc valid(%n) : ${ROW_STAT}
    %part_row = tile.reshape %part : ${ROW_STAT} to ${STAT_ROW}
${QUANT}
  }
  wsp.return
}
)mlir";

/// The quantization's input chunk: the token's row times its smooth row.
constexpr StringLiteral kScatterInput = R"mlir(
      tile.load %xb, %hidden_states[%t, %c] : ${BF16_TILE}, ${HIDDEN_STATES_TYPE}
      tile.cvt %xf, %xb : ${F32_TILE}, ${BF16_TILE}
      tile.load %smooth_f, %smooth_scale[%srow, %c] : ${VEC_F32}, ${SMOOTH_SCALE_TYPE}
      tile.colexpandmul %xf, %xf, %smooth_f : ${F32_TILE}, ${F32_TILE}, ${VEC_F32})mlir";

FailureOr<Lowered> lowerScatter(llm::MoeScatterDynamicQuantOp op,
                                StringRef name, int64_t cores) {
  // scatter_tokens is `y` and its scale `scale` inside the templates (the
  // quantization piece writes those).
  SmallVector<NamedOperand> args = {
      {"hidden_states", op.getHiddenStates()},
      {"selected_experts", op.getSelectedExperts()},
      {"smooth_scale", op.getSmoothScale()},
      {"y", op.getScatterTokens()},
      {"scale", op.getScatterPerTokenScale()},
      {"experts_token_count", op.getExpertsTokenCount()},
      {"token_offset", op.getTokenOffset()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto ids = cast<MemRefType>(op.getSelectedExperts().getType());
  auto smooth = cast<MemRefType>(op.getSmoothScale().getType());
  if (ShapedType::isDynamic(ids.getDimSize(1)) || !smooth.hasStaticShape())
    return op.emitOpError("lowers with a static topk and smooth_scale shape "
                          "only (the tiles are sized at compile time)");
  const int64_t topk = ids.getDimSize(1), hidden = smooth.getDimSize(1);
  const int64_t start = int32_t(op.getExpertStartIdx());
  const int64_t end = int32_t(op.getExpertEndIdx());
  const int64_t shared = int32_t(op.getNumSharedExpertsPerRank());
  const int64_t perRank = int32_t(op.getNumTokensPerRank());
  const int64_t offset = int32_t(op.getNumTokensOffset());
  FailureOr<int64_t> cols = rowChunk(op, hidden, /*align=*/32);
  if (failed(cols))
    return failure();
  std::map<std::string, std::string> v;
  addTypeValues(v, args);
  addTileValues(v, *cols);
  v.insert({{"NAME", name.str()},
            {"SIGNATURE", signature(args)},
            {"CALL_ARGS", callArgs(args)},
            {"UNITS", std::to_string(cores)},
            {"CORES", "vector(" + std::to_string(cores) + ")"},
            {"CONFIG", "#wsp.plan_config<chunk_min = " + std::to_string(kRows) +
                           ", chunk_max = 2147483647, max_work_units = " +
                           std::to_string(cores) + ">"},
            {"EXPERTS", std::to_string(end - start)},
            {"TOPK", std::to_string(topk)},
            {"HIDDEN", std::to_string(hidden)},
            {"EXPERT_ROWS", std::to_string(shared + end - start)},
            {"SHARED", std::to_string(shared)},
            {"PER_RANK", std::to_string(perRank)},
            {"TOKENS_OFFSET", std::to_string(offset)},
            {"SHARED_ROWS", std::to_string(shared * perRank)},
            {"TOKENS_END", std::to_string(offset + perRank)},
            {"START", std::to_string(start)},
            {"END", std::to_string(end)},
            {"UNIT_ROWS", kUnitRows.str()},
            {"QUANT", kQuant.str()},
            {"PLAN_RANGE", kPlanRange.str()},
            {"QUANT_INPUT", kScatterInput.str()},
            {"SCALE", "scale"}});
  SmallVector<DimCheck> dims = {{"selected_experts", 0, "%tokens"},
                                {"selected_experts", 1, "%topk"},
                                {"smooth_scale", 0, "%expert_rows"},
                                {"smooth_scale", 1, "%hidden_size"},
                                {"y", 1, "%hidden_size"},
                                {"scale", 0, "%rows"},
                                {"experts_token_count", 0, "%experts"}};
  // (checks() takes sizes from hidden_states, so its own columns are
  // checked here.)
  v["CHECKS"] = "  %cols = memref.dim %hidden_states, %c1 : " +
                str(op.getHiddenStates().getType()) +
                "\n  %cols_ok = arith.cmpi eq, %cols, %hidden_size : index\n" +
                checks(args, dims, "%dims_ok") +
                "  %shapes_ok = arith.andi %dims_ok, %cols_ok : i1\n";
  return instantiate(v, kScatterPlanner, kScatterKernel, args);
}

//===----------------------------------------------------------------------===//
// moe_gather: the AICPU inverts token_offset (token, slot -> routed row)
// into a workspace; one work unit = a range of tokens, each adding its
// rows (shared experts' and routed ones, weighted) to its output row
//===----------------------------------------------------------------------===//

/// Tokens a gather may have: its inverse table is a workspace of this many
/// tokens x topk entries (more tokens is UNSUPPORTED_SIZE).
constexpr int64_t kGatherTokens = 8192;

/// The planner: token_offset checked (every entry -1 or a (token, slot)
/// inside expert_weights, none twice: INVALID_PARAMS) while its inverse is
/// written to the workspace, then the tokens planned as one range over the
/// vector cores.
constexpr StringLiteral kGatherPlanner = R"mlir(
wsp.tier_config @${NAME}_tiers [#wsp.tier<0, [1, 2147483647]>]

func.func @plan(${SIGNATURE}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ok = arith.constant 0 : i32
  %unsupported = arith.constant 2 : i32
  %invalid = arith.constant 3 : i32
  %zero_i32 = arith.constant 0 : i32
  %minus_one_i32 = arith.constant -1 : i32
  %false = arith.constant false
  %topk = arith.constant ${TOPK} : index
  %hidden_size = arith.constant ${HIDDEN} : index
  %shared_end = arith.constant ${SHARED_ROWS} : index
  %tokens_end = arith.constant ${TOKENS_END} : index
  %max_tokens = arith.constant ${MAX_TOKENS} : index
  %inverse_size = arith.constant ${INVERSE_SIZE} : index
  %tokens = memref.dim %hidden_states, %c0 : ${HIDDEN_STATES_TYPE}
  %rows = memref.dim %scatter_tokens, %c0 : ${SCATTER_TOKENS_TYPE}
  %allocated = memref.dim %token_offset, %c0 : ${TOKEN_OFFSET_TYPE}
${CHECKS}
  %rows_match = arith.addi %shared_end, %allocated : index
  %rows_ok = arith.cmpi eq, %rows, %rows_match : index
  %range_ok = arith.cmpi ule, %tokens_end, %tokens : index
  %layout_ok = arith.andi %rows_ok, %range_ok : i1
  %all_ok = arith.andi %shapes_ok, %layout_ok : i1
  %fits = arith.cmpi ule, %tokens, %max_tokens : index
  %check_first = arith.select %fits, %ok, %unsupported : i32
  %shape_status = arith.select %all_ok, %check_first, %invalid : i32
  %shaped = arith.cmpi eq, %shape_status, %ok : i32
  %status = scf.if %shaped -> i32 {
    // The inverse: (t, k) -> routed row, -1 where none.
    %pairs = arith.muli %tokens, %topk : index
    scf.for %j = %c0 to %pairs step %c1 {
      memref.store %minus_one_i32, %inverse[%j] : ${INVERSE_TYPE}
    }
    %pairs_i32 = arith.index_cast %pairs : index to i32
    %bad = scf.for %i = %c0 to %allocated step %c1 iter_args(%bad_i = %false) -> (i1) {
      %code = memref.load %token_offset[%i] : ${TOKEN_OFFSET_TYPE}
      %used = arith.cmpi sge, %code, %zero_i32 : i32
      %inside = arith.cmpi slt, %code, %pairs_i32 : i32
      %is_unused = arith.cmpi eq, %code, %minus_one_i32 : i32
      %in_range = arith.andi %used, %inside : i1
      %well_formed = arith.ori %in_range, %is_unused : i1
      %twice = scf.if %in_range -> (i1) {
        %j = arith.index_castui %code : i32 to index
        %seen = memref.load %inverse[%j] : ${INVERSE_TYPE}
        %taken = arith.cmpi ne, %seen, %minus_one_i32 : i32
        %i_i32 = arith.index_cast %i : index to i32
        memref.store %i_i32, %inverse[%j] : ${INVERSE_TYPE}
        scf.yield %taken : i1
      } else {
        scf.yield %false : i1
      }
      %malformed = arith.cmpi eq, %well_formed, %false : i1
      %wrong = arith.ori %malformed, %twice : i1
      %bad_next = arith.ori %bad_i, %wrong : i1
      scf.yield %bad_next : i1
    }
    %offsets_status = arith.select %bad, %invalid, %ok : i32
    %checked = arith.cmpi eq, %offsets_status, %ok : i32
    %planned_status = scf.if %checked -> i32 {
      %range = arith.addi %tokens, %c0 : index
${PLAN_RANGE}
      scf.yield %planned : i32
    } else {
      scf.yield %offsets_status : i32
    }
    scf.yield %planned_status : i32
  } else {
    scf.yield %shape_status : i32
  }
  return %status : i32
}
)mlir";

/// The kernel: per token of the unit and column chunk, its output row in
/// f32 plus its shared experts' rows plus each routed row times its
/// weight, rounded to bf16 once.
constexpr StringLiteral kGatherKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cols = arith.constant ${COLS} : index
  %hidden = arith.constant ${HIDDEN} : index
  %topk = arith.constant ${TOPK} : index
  %shared = arith.constant ${SHARED} : index
  %per_rank = arith.constant ${PER_RANK} : index
  %tokens_offset = arith.constant ${TOKENS_OFFSET} : index
  %tokens_end = arith.constant ${TOKENS_END} : index
  %zero_i32 = arith.constant 0 : i32
  %shared_end = arith.muli %shared, %per_rank : index
${UNIT_ROWS}
  %end = arith.addi %start, %count : index
  %acc = tile.alloc : ${ROW_F32}
  %row_f = tile.alloc : ${ROW_F32}
  %row_b = tile.alloc : ${ROW_BF16}
  %weights = tile.alloc : ${W_TILE}
  scf.for %t = %start to %end step %c1 {
    // The token's k weights, read one by one on the scalar unit.
    tile.load %weights, %expert_weights[%t, %c0] : ${W_TILE}, ${EXPERT_WEIGHTS_TYPE}
    %after_first = arith.cmpi uge, %t, %tokens_offset : index
    %before_end = arith.cmpi ult, %t, %tokens_end : index
    %in_range = arith.andi %after_first, %before_end : i1
    %t_shared = arith.subi %t, %tokens_offset : index
    %pair_base = arith.muli %t, %topk : index
    scf.for %c = %c0 to %hidden step %cols {
      tile.load %row_b, %hidden_states[%t, %c] : ${ROW_BF16}, ${HIDDEN_STATES_TYPE}
      tile.cvt %acc, %row_b : ${ROW_F32}, ${ROW_BF16}
      // The shared experts' rows of this token, weight 1.
      scf.if %in_range {
        scf.for %s = %c0 to %shared step %c1 {
          %s_base = arith.muli %s, %per_rank : index
          %r = arith.addi %s_base, %t_shared : index
          tile.load %row_b, %scatter_tokens[%r, %c] : ${ROW_BF16}, ${SCATTER_TOKENS_TYPE}
          tile.cvt %row_f, %row_b : ${ROW_F32}, ${ROW_BF16}
          tile.add %acc, %acc, %row_f : ${ROW_F32}, ${ROW_F32}, ${ROW_F32}
        }
      }
      // Its routed rows, weighted.
      scf.for %k = %c0 to %topk step %c1 {
        %j = arith.addi %pair_base, %k : index
        %i_i32 = memref.load %inverse[%j] : ${INVERSE_TYPE}
        %routed = arith.cmpi sge, %i_i32, %zero_i32 : i32
        scf.if %routed {
          %i = arith.index_castui %i_i32 : i32 to index
          %r = arith.addi %shared_end, %i : index
          tile.load %row_b, %scatter_tokens[%r, %c] : ${ROW_BF16}, ${SCATTER_TOKENS_TYPE}
          tile.cvt %row_f, %row_b : ${ROW_F32}, ${ROW_BF16}
${LOAD_WEIGHT}
          tile.muls %row_f, %row_f, %w : ${ROW_F32}, ${ROW_F32}, f32
          tile.add %acc, %acc, %row_f : ${ROW_F32}, ${ROW_F32}, ${ROW_F32}
        }
      }
      tile.cvt %row_b, %acc : ${ROW_BF16}, ${ROW_F32}
      tile.store %hidden_states[%t, %c], %row_b : ${HIDDEN_STATES_TYPE}, ${ROW_BF16}
    }
  }
  wsp.return
}
)mlir";

FailureOr<Lowered> lowerGather(llm::MoeGatherOp op, StringRef name,
                               int64_t cores) {
  SmallVector<NamedOperand> args = {
      {"scatter_tokens", op.getScatterTokens()},
      {"token_offset", op.getTokenOffset()},
      {"expert_weights", op.getExpertWeights()},
      {"hidden_states", op.getHiddenStates()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto weights = cast<MemRefType>(op.getExpertWeights().getType());
  auto out = cast<MemRefType>(op.getHiddenStates().getType());
  const int64_t topk = weights.getDimSize(1), hidden = out.getDimSize(1);
  if (ShapedType::isDynamic(topk) || topk > 16)
    return op.emitOpError("lowers with a static topk of at most 16 only (its "
                          "inverse table and weight tile are sized at compile "
                          "time)");
  FailureOr<int64_t> cols = rowChunk(op, hidden, /*align=*/16);
  if (failed(cols))
    return failure();
  const int64_t shared = int32_t(op.getNumSharedExpertsPerRank());
  const int64_t perRank = int32_t(op.getNumTokensPerRank());
  const int64_t offset = int32_t(op.getNumTokensOffset());
  MLIRContext *ctx = op.getContext();
  Type inverse = MemRefType::get({kGatherTokens * topk},
                                 IntegerType::get(ctx, 32));
  args.push_back({"inverse", Value(), inverse});
  std::map<std::string, std::string> v;
  addTypeValues(v, args);
  const std::string c = std::to_string(*cols);
  const bool bf16Weights = weights.getElementType().isBF16();
  v.insert({{"NAME", name.str()},
            {"SIGNATURE", signature(args)},
            {"CALL_ARGS", callArgs(args)},
            {"UNITS", std::to_string(cores)},
            {"CORES", "vector(" + std::to_string(cores) + ")"},
            {"CONFIG", "#wsp.plan_config<chunk_min = " + std::to_string(kRows) +
                           ", chunk_max = 2147483647, max_work_units = " +
                           std::to_string(cores) + ">"},
            {"TOPK", std::to_string(topk)},
            {"HIDDEN", std::to_string(hidden)},
            {"COLS", c},
            {"SHARED", std::to_string(shared)},
            {"PER_RANK", std::to_string(perRank)},
            {"TOKENS_OFFSET", std::to_string(offset)},
            {"SHARED_ROWS", std::to_string(shared * perRank)},
            {"TOKENS_END", std::to_string(offset + perRank)},
            {"MAX_TOKENS", std::to_string(kGatherTokens)},
            {"PLAN_RANGE", kPlanRange.str()},
            {"INVERSE_SIZE", std::to_string(kGatherTokens * topk)},
            {"UNIT_ROWS", kUnitRows.str()},
            {"ROW_F32", "!tile.tile<vec, 1x" + c + "xf32>"},
            {"ROW_BF16", "!tile.tile<vec, 1x" + c + "xbf16>"},
            // Whole 32-byte rows: 8 f32 or 16 bf16 weights, topk valid.
            {"W_TILE", "!tile.tile<vec, 1x" +
                           std::to_string(bf16Weights ? 16 : roundUp(topk, 8)) + "x" +
                           (bf16Weights ? "bf16" : "f32") + ", valid = 1x" +
                           std::to_string(topk) + ">"},
            {"LOAD_WEIGHT",
             bf16Weights
                 ? "          %w_b = tile.getval %weights[%c0, %k] : "
                   "${W_TILE}, bf16\n          %w = arith.extf %w_b : bf16 "
                   "to f32"
                 : "          %w = tile.getval %weights[%c0, %k] : ${W_TILE}, "
                   "f32"}});
  SmallVector<DimCheck> dims = {{"expert_weights", 0, "%tokens"},
                                {"expert_weights", 1, "%topk"},
                                {"hidden_states", 1, "%hidden_size"},
                                {"inverse", 0, "%inverse_size"}};
  // (checks() takes sizes from scatter_tokens, so its own columns are
  // checked here.)
  v["CHECKS"] = "  %cols = memref.dim %scatter_tokens, %c1 : " +
                str(op.getScatterTokens().getType()) +
                "\n  %cols_ok = arith.cmpi eq, %cols, %hidden_size : index\n" +
                checks(args, dims, "%dims_ok") +
                "  %shapes_ok = arith.andi %dims_ok, %cols_ok : i1\n";
  return instantiate(v, kGatherPlanner, kGatherKernel, args);
}

//===----------------------------------------------------------------------===//
// moe_softmax_topk: one work unit = a range of tokens; per 8 tokens the
// softmax over the experts on the vector unit, then each token's top k by
// the scalar unit
//===----------------------------------------------------------------------===//

/// Per 8 tokens: p = softmax(logits) per row; then per token, k times the
/// largest remaining p (a scan over the experts, the first of equals wins:
/// ties go to the lower id), taken out (-1) once chosen; the k weights
/// divided by their sum.
constexpr StringLiteral kTopkKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant ${ROWS} : index
  %experts = arith.constant ${EXPERTS} : index
  %topk = arith.constant ${TOPK} : index
  %taken = arith.constant -1.0 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
${UNIT_ROWS}
  %end = arith.addi %start, %count : index
  scf.for %r = %start to %end step %rows {
    %left = arith.subi %end, %r : index
    %n = arith.minui %left, %rows : index
    %logits = tile.alloc valid(%n) : ${LOGITS_TILE}
    %p = tile.alloc valid(%n) : ${P_TILE}
    %tmp = tile.alloc valid(%n) : ${P_TILE}
    %stat = tile.alloc valid(%n) : ${ROW_STAT}
    %ids = tile.alloc valid(%n) : ${IDS_TILE}
    %w = tile.alloc valid(%n) : ${W_TILE}
    // p = softmax over the experts, per token.
    tile.load %logits, %hidden_states[%r, %c0] : ${LOGITS_TILE}, ${HIDDEN_STATES_TYPE}
    tile.cvt %p, %logits : ${P_TILE}, ${LOGITS_TILE}
    tile.rowmax %stat, %p, %tmp : ${ROW_STAT}, ${P_TILE}, ${P_TILE}
    tile.rowexpandsub %p, %p, %stat, %tmp : ${P_TILE}, ${P_TILE}, ${ROW_STAT}, ${P_TILE}
    tile.exp %p, %p : ${P_TILE}, ${P_TILE}
    tile.rowsum %stat, %p, %tmp : ${ROW_STAT}, ${P_TILE}, ${P_TILE}
    tile.rowexpanddiv %p, %p, %stat, %tmp : ${P_TILE}, ${P_TILE}, ${ROW_STAT}, ${P_TILE}
    // Each token's top k, in decreasing order.
    scf.for %j = %c0 to %n step %c1 {
      %total = scf.for %k = %c0 to %topk step %c1 iter_args(%sum = %zero) -> (f32) {
        %best, %best_e = scf.for %e = %c0 to %experts step %c1
            iter_args(%bv = %taken, %be = %c0) -> (f32, index) {
          %v = tile.getval %p[%j, %e] : ${P_TILE}, f32
          %better = arith.cmpf ogt, %v, %bv : f32
          %nv = arith.select %better, %v, %bv : f32
          %ne = arith.select %better, %e, %be : index
          scf.yield %nv, %ne : f32, index
        }
        tile.setval %p[%j, %best_e], %taken : ${P_TILE}, f32
        %id = arith.index_cast %best_e : index to i32
        tile.setval %ids[%j, %k], %id : ${IDS_TILE}, i32
        tile.setval %w[%j, %k], %best : ${W_TILE}, f32
        %next = arith.addf %sum, %best : f32
        scf.yield %next : f32
      }
      // The weights normalized over the chosen experts.
      %inv = arith.divf %one, %total : f32
      scf.for %k = %c0 to %topk step %c1 {
        %wk = tile.getval %w[%j, %k] : ${W_TILE}, f32
        %normed = arith.mulf %wk, %inv : f32
        tile.setval %w[%j, %k], %normed : ${W_TILE}, f32
      }
    }
    tile.store %selected_experts[%r, %c0], %ids : ${SELECTED_EXPERTS_TYPE}, ${IDS_TILE}
${STORE_WEIGHTS}
  }
  wsp.return
}
)mlir";

FailureOr<Lowered> lowerSoftmaxTopk(llm::MoeSoftmaxTopkOp op, StringRef name,
                                    int64_t cores) {
  SmallVector<NamedOperand> args = {
      {"hidden_states", op.getHiddenStates()},
      {"selected_experts", op.getSelectedExperts()},
      {"expert_weights", op.getExpertWeights()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto logits = cast<MemRefType>(op.getHiddenStates().getType());
  auto ids = cast<MemRefType>(op.getSelectedExperts().getType());
  const int64_t experts = logits.getDimSize(1), topk = ids.getDimSize(1);
  if (ShapedType::isDynamic(experts) || ShapedType::isDynamic(topk))
    return op.emitOpError("lowers with static num_experts and topk only: its "
                          "tiles are sized at compile time");
  if (experts % 16 || experts > kMaxCols)
    return op.emitOpError("lowers with num_experts a multiple of 16 (a bf16 "
                          "tile row is whole 32-byte blocks) and at most ")
           << kMaxCols << ", got " << experts;
  const bool bf16 = cast<MemRefType>(op.getExpertWeights().getType())
                        .getElementType()
                        .isBF16();
  // Whole 32-byte rows: 8 i32 or f32, 16 bf16 (the f32 weights then too,
  // to convert row for row).
  const int64_t idsCols = roundUp(topk, 8), wCols = roundUp(topk, bf16 ? 16 : 8);
  auto rows = [&](int64_t cols, StringRef elem, int64_t valid) {
    return "!tile.tile<vec, " + std::to_string(kRows) + "x" +
           std::to_string(cols) + "x" + elem.str() + ", valid = ?x" +
           std::to_string(valid) + ">";
  };
  std::map<std::string, std::string> v;
  addTypeValues(v, args);
  v.insert({{"EXPERTS", std::to_string(experts)},
            {"TOPK", std::to_string(topk)},
            {"LOGITS_TILE", rows(experts, "bf16", experts)},
            {"P_TILE", rows(experts, "f32", experts)},
            {"IDS_TILE", rows(idsCols, "i32", topk)},
            {"W_TILE", rows(wCols, "f32", topk)},
            {"W_BF16_TILE", rows(wCols, "bf16", topk)},
            {"ROW_STAT", "!tile.tile<vec, " + std::to_string(kRows) +
                             "x1xf32, valid = ?x1, col_major>"},
            {"PLAN_CONSTANTS", "  %topk = arith.constant ${TOPK} : index"}});
  v["STORE_WEIGHTS"] =
      bf16 ? "    %wb = tile.alloc valid(%n) : ${W_BF16_TILE}\n"
             "    tile.cvt %wb, %w : ${W_BF16_TILE}, ${W_TILE}\n"
             "    tile.store %expert_weights[%r, %c0], %wb : "
             "${EXPERT_WEIGHTS_TYPE}, ${W_BF16_TILE}"
           : "    tile.store %expert_weights[%r, %c0], %w : "
             "${EXPERT_WEIGHTS_TYPE}, ${W_TILE}";
  addPlanValues(v, name, args, cores);
  v["CHECKS"] = checks(args, {{"selected_experts", 0, "%tokens"},
                              {"selected_experts", 1, "%topk"},
                              {"expert_weights", 0, "%tokens"},
                              {"expert_weights", 1, "%topk"}});
  return instantiate(v, kRowPlanner, kTopkKernel, args);
}

//===----------------------------------------------------------------------===//
// embedding: one work unit = a range of tokens, each row copied from the
// table on the vector unit; argmax: per 8 tokens, the logits chunk by chunk
// and each token's best by a scan on the scalar unit
//===----------------------------------------------------------------------===//

/// Each token's id on the scalar unit (the AICPU checked every id), then
/// its table row, chunk by chunk, through UB.
constexpr StringLiteral kEmbeddingKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cols = arith.constant ${COLS} : index
  %hidden = arith.constant ${HIDDEN} : index
${UNIT_ROWS}
  %end = arith.addi %start, %count : index
  %row = tile.alloc : ${ROW_BF16}
  scf.for %t = %start to %end step %c1 {
    %id_i32 = memref.load %token_ids[%t] : ${TOKEN_IDS_TYPE}
    %id = arith.index_castui %id_i32 : i32 to index
    scf.for %c = %c0 to %hidden step %cols {
      tile.load %row, %weight[%id, %c] : ${ROW_BF16}, ${WEIGHT_TYPE}
      tile.store %y[%t, %c], %row : ${Y_TYPE}, ${ROW_BF16}
    }
  }
  wsp.return
}
)mlir";

/// Every id in [0, vocab_size), folded into %shapes_ok with the shapes.
constexpr StringLiteral kEmbeddingChecks = R"mlir(
  %vocab_size = memref.dim %weight, %c0 : ${WEIGHT_TYPE}
  %vocab_i32 = arith.index_cast %vocab_size : index to i32
  %zero_i32 = arith.constant 0 : i32
  %all_ids = arith.constant true
  %ids_ok = scf.for %t = %c0 to %tokens step %c1 iter_args(%acc = %all_ids) -> (i1) {
    %id = memref.load %token_ids[%t] : ${TOKEN_IDS_TYPE}
    %not_negative = arith.cmpi sge, %id, %zero_i32 : i32
    %in_table = arith.cmpi slt, %id, %vocab_i32 : i32
    %valid = arith.andi %not_negative, %in_table : i1
    %next = arith.andi %acc, %valid : i1
    scf.yield %next : i1
  }
  %shapes_ok = arith.andi %dims_ok, %ids_ok : i1)mlir";

FailureOr<Lowered> lowerEmbedding(llm::EmbeddingOp op, StringRef name,
                                  int64_t cores) {
  SmallVector<NamedOperand> args = {{"token_ids", op.getTokenIds()},
                                    {"weight", op.getWeight()},
                                    {"y", op.getY()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  const int64_t hidden = cast<MemRefType>(op.getWeight().getType()).getDimSize(1);
  FailureOr<int64_t> cols = rowChunk(op, hidden, /*align=*/16);
  if (failed(cols))
    return failure();
  std::map<std::string, std::string> v;
  addTypeValues(v, args);
  const std::string c = std::to_string(*cols);
  v.insert({{"HIDDEN", std::to_string(hidden)},
            {"COLS", c},
            {"ROW_BF16", "!tile.tile<vec, 1x" + c + "xbf16>"}});
  addPlanValues(v, name, args, cores);
  v["CHECKS"] = checks(args, {{"y", 0, "%tokens"}, {"y", 1, "%hidden"}},
                       "%dims_ok") +
                kEmbeddingChecks.str();
  return instantiate(v, kRowPlanner, kEmbeddingKernel, args);
}

/// Per 8 tokens: the logits COLS at a time (in f32), each token's best so
/// far kept in UB; a later value wins only when greater, so ties go to the
/// lower id and a NaN never wins (a row of NaNs picks 0).
constexpr StringLiteral kArgmaxKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) (%desc: !wsp.descriptor<moe>, ${SIGNATURE}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant ${ROWS} : index
  %cols = arith.constant ${COLS} : index
  %vocab = arith.constant ${VOCAB} : index
  %lowest = arith.constant 0xFF800000 : f32
${UNIT_ROWS}
  %end = arith.addi %start, %count : index
  scf.for %r = %start to %end step %rows {
    %left = arith.subi %end, %r : index
    %n = arith.minui %left, %rows : index
    %x = tile.alloc valid(%n) : ${X_TILE}
${F32_ALLOC}
    %best = tile.alloc valid(%n) : ${BEST_TILE}
    %ids = tile.alloc valid(%n) : ${IDS_TILE}
    scf.for %c = %c0 to %vocab step %cols {
      tile.load %x, %logits[%r, %c] : ${X_TILE}, ${LOGITS_TYPE}
${TO_F32}
      %first = arith.cmpi eq, %c, %c0 : index
      scf.for %j = %c0 to %n step %c1 {
        %v0, %i0 = scf.if %first -> (f32, index) {
          scf.yield %lowest, %c0 : f32, index
        } else {
          %bv = tile.getval %best[%j, %c0] : ${BEST_TILE}, f32
          %bi_i32 = tile.getval %ids[%j, %c0] : ${IDS_TILE}, i32
          %bi = arith.index_castui %bi_i32 : i32 to index
          scf.yield %bv, %bi : f32, index
        }
        %v, %i = scf.for %e = %c0 to %cols step %c1
            iter_args(%acc_v = %v0, %acc_i = %i0) -> (f32, index) {
          %x_e = tile.getval ${SCAN}[%j, %e] : ${F32_TILE}, f32
          %better = arith.cmpf ogt, %x_e, %acc_v : f32
          %id = arith.addi %c, %e : index
          %next_v = arith.select %better, %x_e, %acc_v : f32
          %next_i = arith.select %better, %id, %acc_i : index
          scf.yield %next_v, %next_i : f32, index
        }
        tile.setval %best[%j, %c0], %v : ${BEST_TILE}, f32
        %i_i32 = arith.index_cast %i : index to i32
        tile.setval %ids[%j, %c0], %i_i32 : ${IDS_TILE}, i32
      }
    }
    tile.store %token_ids[%r], %ids transpose : ${TOKEN_IDS_TYPE}, ${IDS_TILE}
  }
  wsp.return
}
)mlir";

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
  std::map<std::string, std::string> v;
  addTypeValues(v, args);
  const std::string c = std::to_string(*cols), r = std::to_string(kRows);
  auto tile = [&](StringRef elem) {
    return "!tile.tile<vec, " + r + "x" + c + "x" + elem.str() +
           ", valid = ?x" + c + ">";
  };
  v.insert({{"VOCAB", std::to_string(vocab)},
            {"COLS", c},
            {"X_TILE", tile(bf16 ? "bf16" : "f32")},
            {"F32_TILE", tile("f32")},
            {"BEST_TILE",
             "!tile.tile<vec, " + r + "x1xf32, valid = ?x1, col_major>"},
            {"IDS_TILE",
             "!tile.tile<vec, " + r + "x1xi32, valid = ?x1, col_major>"},
            {"F32_ALLOC", bf16 ? "    %xf = tile.alloc valid(%n) : ${F32_TILE}"
                               : ""},
            {"TO_F32", bf16 ? "      tile.cvt %xf, %x : ${F32_TILE}, ${X_TILE}"
                            : ""},
            {"SCAN", bf16 ? "%xf" : "%x"},
            {"PLAN_CONSTANTS", ""}});
  addPlanValues(v, name, args, cores);
  v["CHECKS"] = checks(args, {{"token_ids", 0, "%tokens"}});
  return instantiate(v, kRowPlanner, kArgmaxKernel, args);
}

//===----------------------------------------------------------------------===//
// moe_swiglu_dynamic_quant: one work unit = (segment, range of its rows):
// the shared experts' rows and each routed expert's, so that a unit has one
// smooth_scale row; per 8 rows silu(gate) * up * smooth, quantized
//===----------------------------------------------------------------------===//

/// The segments' lengths: the shared experts' num_tokens_per_rank each,
/// then the routed experts' counts.
constexpr StringLiteral kSegmentLengths = R"mlir(    %lengths = memref.alloca() : ${LENGTHS_TYPE}
    %segments = arith.constant ${SEGMENTS_N} : index
    %shared_segments = arith.constant ${SHARED} : index
    %per_rank_i32 = arith.constant ${PER_RANK} : i32
    scf.for %x = %c0 to %shared_segments step %c1 {
      memref.store %per_rank_i32, %lengths[%x] : ${LENGTHS_TYPE}
    }
    scf.for %e = %c0 to %experts step %c1 {
      %n_i32 = memref.load %${COUNTS}[%e] : ${COUNTS_TYPE}
      %x = arith.addi %e, %shared_segments : index
      memref.store %n_i32, %lengths[%x] : ${LENGTHS_TYPE}
    })mlir";

/// The quantization's input chunk: v = silu(g) * u * smooth, from the gate
/// g (columns [c, c + COLS)) and the up projection u (the same columns
/// after hidden_size) of the rows, silu(g) = g / (1 + e^-g).
constexpr StringLiteral kSwigluInput = R"mlir(
      tile.load %xb, %scatter_tokens[%r, %c] : ${BF16_TILE}, ${SCATTER_TOKENS_TYPE}
      tile.cvt %xf, %xb : ${F32_TILE}, ${BF16_TILE}
      tile.muls %sq, %xf, %minus_one : ${F32_TILE}, ${F32_TILE}, f32
      tile.exp %sq, %sq : ${F32_TILE}, ${F32_TILE}
      tile.adds %sq, %sq, %one : ${F32_TILE}, ${F32_TILE}, f32
      tile.div %xf, %xf, %sq : ${F32_TILE}, ${F32_TILE}, ${F32_TILE}
      %c_up = arith.addi %c, %hidden : index
      tile.load %xb, %scatter_tokens[%r, %c_up] : ${BF16_TILE}, ${SCATTER_TOKENS_TYPE}
      tile.cvt %sq, %xb : ${F32_TILE}, ${BF16_TILE}
      tile.mul %xf, %xf, %sq : ${F32_TILE}, ${F32_TILE}, ${F32_TILE}
      tile.load %smooth_f, %smooth_scale[%segment, %c] : ${VEC_F32}, ${SMOOTH_SCALE_TYPE}
      tile.colexpandmul %xf, %xf, %smooth_f : ${F32_TILE}, ${F32_TILE}, ${VEC_F32})mlir";

FailureOr<Lowered> lowerSwiglu(llm::MoeSwigluDynamicQuantOp op, StringRef name,
                               int64_t cores) {
  SmallVector<NamedOperand> args = {
      {"scatter_tokens", op.getScatterTokens()},
      {"smooth_scale", op.getSmoothScale()},
      {"experts_tokens_count", op.getExpertsTokensCount()},
      {"y", op.getY()},
      {"per_token_scale", op.getPerTokenScale()}};
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  auto smoothType = cast<MemRefType>(op.getSmoothScale().getType());
  auto countsType = cast<MemRefType>(op.getExpertsTokensCount().getType());
  if (!smoothType.hasStaticShape() || !countsType.hasStaticShape())
    return op.emitOpError("lowers with static smooth_scale and "
                          "experts_tokens_count shapes only (the experts and "
                          "the tiles are sized at compile time)");
  const int64_t hidden = smoothType.getDimSize(1);
  const int64_t experts = countsType.getDimSize(0);
  const int64_t shared = int32_t(op.getNumSharedExpertsPerRank());
  const int64_t perRank = int32_t(op.getNumTokensPerRank());
  FailureOr<int64_t> cols = rowChunk(op, hidden, /*align=*/32);
  if (failed(cols))
    return failure();
  const int64_t segments = shared + experts;

  std::map<std::string, std::string> v;
  addTypeValues(v, args);
  addTileValues(v, *cols);
  const std::string lengthsType =
      "memref<" + std::to_string(segments) + "xi32>";
  v.insert({{"NAME", name.str()},
            {"SIGNATURE", signature(args)},
            {"CALL_ARGS", callArgs(args)},
            {"UNITS", std::to_string(kMatmulUnits)},
            {"CONFIG", "#wsp.plan_config<chunk_min = " + std::to_string(kRows) +
                           ", chunk_max = 2147483647, max_work_units = " +
                           std::to_string(kMatmulUnits) +
                           ", balance_chunks = false>"},
            {"TIERS", "[#wsp.tier<0, [1, 2147483647]>]"},
            {"EXPERTS", std::to_string(experts)},
            {"SHARED", std::to_string(shared)},
            {"PER_RANK", std::to_string(perRank)},
            {"SHARED_ROWS", std::to_string(shared * perRank)},
            {"SEGMENTS_N", std::to_string(segments)},
            {"PLAN_CONSTANTS",
             "  %hidden_size = arith.constant ${HIDDEN} : index\n"
             "  %gate_up_size = arith.constant ${GATE_UP} : index\n"
             "  %expert_rows = arith.constant ${SEGMENTS_N} : index"},
            {"ROWS_SOURCE", "scatter_tokens"},
            {"ROWS_SOURCE_TYPE", "${SCATTER_TOKENS_TYPE}"},
            {"COUNTS", "experts_tokens_count"},
            {"COUNTS_TYPE", "${EXPERTS_TOKENS_COUNT_TYPE}"},
            {"LENGTHS", kSegmentLengths.str()},
            {"LENGTHS_NAME", "lengths"},
            {"LENGTHS_TYPE", lengthsType},
            {"SEGMENTS", "%segments"},
            {"HEADS", "%c1"},
            {"ROUND_CHUNK",
             "    %rows_per_unit = arith.addi %chunk, %c0 : index"},
            {"CORES", "vector(" + std::to_string(cores) + ")"},
            {"ROWS", std::to_string(kRows)},
            {"HIDDEN", std::to_string(hidden)},
            {"GATE_UP", std::to_string(2 * hidden)},
            {"UNIT_ROWS", kSegmentRows.str()},
            {"VECTOR_TILES",
             "  %one = arith.constant 1.0 : f32\n"
             "  %minus_one = arith.constant -1.0 : f32\n"
             "  %smooth_f = tile.alloc : ${VEC_F32}"},
            {"QUANT_INPUT", kSwigluInput.str()},
            {"SCALE", "per_token_scale"},
            {"SCALE_TYPE", "${PER_TOKEN_SCALE_TYPE}"}});
  // Run time: the operands' dimensions (scatter_tokens' own columns here:
  // checks() takes sizes from it).
  SmallVector<DimCheck> dims = {{"y", 0, "%rows"},
                                {"y", 1, "%hidden_size"},
                                {"per_token_scale", 0, "%rows"},
                                {"smooth_scale", 0, "%expert_rows"},
                                {"smooth_scale", 1, "%hidden_size"},
                                {"experts_tokens_count", 0, "%experts"}};
  v["CHECKS"] = "  %cols = memref.dim %scatter_tokens, %c1 : " +
                str(op.getScatterTokens().getType()) +
                "\n  %cols_ok = arith.cmpi eq, %cols, %gate_up_size : index\n" +
                checks(args, dims, "%dims_ok") +
                "  %shapes_ok = arith.andi %dims_ok, %cols_ok : i1\n";
  return instantiate(v, kExpertPlanner,
                     (kRowKernelBegin + kQuant + kRowKernelEnd).str(), args);
}

//===----------------------------------------------------------------------===//
// Attention: flash_attention_decode (flash decoding: KV chunks of one row
// in order on one block, the softmax state carried between them) and
// flash_attention_prefill (one unit = a block of query tokens of one
// sequence and KV head, its whole causal KV range)
//===----------------------------------------------------------------------===//

/// Blocks attention runs on (a cube core and its two vector cores); each
/// has its slots of the workspaces.
constexpr int64_t kAttentionBlocks = 24;
/// Rows of the cube's Q and S tiles (query tokens x GQA group), and the
/// widest KV tile and head.
constexpr int64_t kAttentionRows = 32, kMaxKvTile = 128, kMaxHeadDim = 128;
/// The widest KV tile over an int8 cache (f32 K^T of 64 positions fills
/// half of L0B).
constexpr int64_t kMaxInt8KvTile = 64;
/// Requests a decode plan holds (its lengths live in a stack buffer), and
/// descriptors an attention plan may write.
constexpr int64_t kMaxDecodeBatch = 1024, kAttentionUnits = 4096;

/// The attention kernel: Q rows (query token, head of the KV head's group)
/// against a KV range [kv_start, kv_end) of one sequence's pages, online
/// softmax. The descriptor's meaning (`${WHICH}`: %req, %kv_head, %q_first,
/// %q_count, %prior, %kv_start, %kv_end, %init, %last), where query token
/// %s sits (`${TOKEN_AT}`, `${Q_IDX}`), what happens to the state at the
/// start and end (`${START_STATE}`, `${END_STATE}`), where K and V come
/// from (`${KV_SOURCE}`, `${S_TILE}`, `${PV_TILE}`: a paged cache or
/// contiguous rows) and how the KV range is cut into tiles
/// (`${TILE_COUNT}`, `${TILE_AT_*}`, addTileGeometry) are the op's.
/// Each row's visible positions in the attention kernel (%lo_t, %hi_t per
/// row; %lo_max and %hi_min: the range every row sees).
constexpr StringLiteral kCausalRowRanges = R"mlir(  // Each row's visible positions: causal (query token s at position
  // prior + s sees [0, prior + s + 1)), cut to [kv_start, kv_end). A tile
  // inside every row's range needs no mask: [largest lo, smallest hi) =
  // [the last token's lo, the first token's hi).
  %lo_t = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %hi_t = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  scf.for %r = %c0 to %vrows step %c1 {
    %row = arith.addi %vr0, %r : index
    %sl = arith.divui %row, %group : index
    %s = arith.addi %q_first, %sl : index
    %pos = arith.addi %prior, %s : index
    %mask_lo, %mask_hi = wsp.mask_range standard query(%s) pos(%pos) prior(%prior) : index, index
    %lo = arith.maxui %kv_start, %mask_lo : index
    %hi = arith.minui %kv_end, %mask_hi : index
    %lo_i32 = arith.index_cast %lo : index to i32
    %lo_f = arith.sitofp %lo_i32 : i32 to f32
    %hi_i32 = arith.index_cast %hi : index to i32
    %hi_f = arith.sitofp %hi_i32 : i32 to f32
    tile.setval %lo_t[%r, %c0], %lo_f : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, f32
    tile.setval %hi_t[%r, %c0], %hi_f : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, f32
  }
  %last_sl = arith.subi %q_count, %c1 : index
  %last_s = arith.addi %q_first, %last_sl : index
  %last_pos = arith.addi %prior, %last_s : index
  %lo_last, %hi_last = wsp.mask_range standard query(%last_s) pos(%last_pos) prior(%prior) : index, index
  %lo_max = arith.maxui %kv_start, %lo_last : index
  %first_pos = arith.addi %prior, %q_first : index
  %lo_first, %hi_first = wsp.mask_range standard query(%q_first) pos(%first_pos) prior(%prior) : index, index
  %hi_min = arith.minui %kv_end, %hi_first : index)mlir";

/// The same from visible_lens: query token s sees the first
/// visible_lens[req][s] positions of the cached sequence (not decreasing
/// in s, so the first token's is the smallest).
constexpr StringLiteral kVisibleRowRanges = R"mlir(  // Each row's visible positions: the first visible_lens[req][s] of the
  // cached sequence, cut to [kv_start, kv_end). The first token sees the
  // fewest (the planner checked they do not decrease).
  %lo_t = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %hi_t = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %lo_i32 = arith.index_cast %kv_start : index to i32
  %lo_f = arith.sitofp %lo_i32 : i32 to f32
  scf.for %r = %c0 to %vrows step %c1 {
    %row = arith.addi %vr0, %r : index
    %sl = arith.divui %row, %group : index
    %s = arith.addi %q_first, %sl : index
    %vis_i32 = memref.load %visible_lens[%req, %s] : ${VISIBLE_LENS_TYPE}
    %vis = arith.index_cast %vis_i32 : i32 to index
    %hi = arith.minui %kv_end, %vis : index
    %hi_i32 = arith.index_cast %hi : index to i32
    %hi_f = arith.sitofp %hi_i32 : i32 to f32
    tile.setval %lo_t[%r, %c0], %lo_f : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, f32
    tile.setval %hi_t[%r, %c0], %hi_f : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, f32
  }
  %lo_max = arith.addi %kv_start, %c0 : index
  %vis_first_i32 = memref.load %visible_lens[%req, %q_first] : ${VISIBLE_LENS_TYPE}
  %vis_first = arith.index_cast %vis_first_i32 : i32 to index
  %hi_min = arith.minui %kv_end, %vis_first : index)mlir";

constexpr StringLiteral kAttentionKernel = R"mlir(
wsp.kernel @${NAME} tiers(@${NAME}_tiers) constants {TILE_K = ${TILE_KS}}
    (%desc: ${DESC}, ${SIGNATURE}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %minus_one = arith.constant -1.0 : f32
  // The lowest float: a masked score, finite so that exp() of a difference
  // of two never becomes NaN.
  %lowest = arith.constant -3.40282347e+38 : f32
  %largest = arith.constant 3.40282347e+38 : f32
  %group = arith.constant ${GROUP} : index
  %head_dim = arith.constant ${D} : index
  %scale = arith.constant ${SCALE} : f32
  %tile_k = wsp.tier_constant "TILE_K" : index
  %blk = tile.block_idx : index
${WHICH}
  %rows = arith.muli %q_count, %group : index
  // The vector work is split by rows over the block's vector cores
  // (vectorCoreShare): this one takes rows [vr0, vr_end).
  %sb = tile.subblock_id : index
  %nsb = tile.subblock_num : index
${VECTOR_CORE_ROW_SHARE}
  %vr_end = arith.addi %vr0, %vrows : index
  %head_base = arith.muli %kv_head, %group : index
  %q_head0 = arith.constant ${Q_HEAD0} : index
  %q_head = arith.addi %head_base, %q_head0 : index
${KV_SOURCE}

${Q_PACK}

  // The running softmax state of the core's rows, in UB for the whole
  // range: o [vrows x head_dim], and per row the max m and the sum l
  // ([vrows x 1]; element-wise updates see them as one row of 32).
  %o = tile.alloc valid(%vrows, %head_dim) : !tile.tile<vec, 32x${D}xf32, valid = ?x?>
  %otmp = tile.alloc valid(%vrows, %head_dim) : !tile.tile<vec, 32x${D}xf32, valid = ?x?>
  %m = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %l = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %m_row = tile.reshape %m : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
  %l_row = tile.reshape %l : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
${START_STATE}

${ROW_RANGES}

  // KV tiles of TILE_K positions from the multiple of TILE_K at or before
  // kv_start, software-pipelined over three stages so that the K/V loads,
  // the cube and the vector core work on different tiles at once.
  // Iteration j of the loop runs, in this order:
  //   A. vector: the softmax of tile j - 1 (its S from the workspace, its P
  //      to the workspace), and o scaled to the new row maximum;
  //   B. S = Q K^T of tile j on the cube;
  //   C. vector: o += alpha O_t of tile j - 2 (its P V from the workspace,
  //      brought to the maximum A just set);
  //   D. O_t = P V of tile j - 1 on the cube.
  // Each workspace then has one reader between two writes, and the cube
  // loads K and V of one tile while the vector core runs the softmax of
  // the one before. Iterations 0, T and T + 1 (T tiles) fill and drain the
  // pipeline.
  %w_first_q = arith.divui %kv_start, %tile_k : index
  %w_first = arith.muli %w_first_q, %tile_k : index
${TILE_COUNT}
  %num_steps = arith.addi %num_tiles, %c2 : index
  // alpha = e^(m_old - m_new) of the last softmax, per row: C brings tile
  // j - 2's O_t to the maximum after tile j - 1 with it.
  %alpha = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %alpha_row = tile.reshape %alpha : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
${DEQUANT_SCRATCH}
  scf.for %j = %c0 to %num_steps step %c1 {
    // A. Vector, tile t = j - 1: the scaled, masked scores, then the
    // online softmax.
    %a_t = arith.subi %j, %c1 : index
    %a_live = arith.cmpi ult, %a_t, %num_tiles : index
    scf.if %a_live {
${TILE_AT_A}
      %sv = tile.alloc shape(%tile_k) valid(%vrows, %n) : !tile.tile<vec, 32x?xf32, valid = ?x?>
      %tmp = tile.alloc shape(%tile_k) valid(%vrows, %n) : !tile.tile<vec, 32x?xf32, valid = ?x?>
      tile.load %sv, %ws_f[%blk, %c0, %vr0, %c0] : !tile.tile<vec, 32x?xf32, valid = ?x?>, ${WS_F_TYPE}
      tile.muls %sv, %sv, %scale : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
      %cut_lo = arith.cmpi ult, %w, %lo_max : index
      %cut_hi = arith.cmpi ugt, %w_end, %hi_min : index
      %masked = arith.ori %cut_lo, %cut_hi : i1
      scf.if %masked {
        // bias = 0 where lo <= p < hi, else the lowest float, for p = w + c:
        // visible = clamp(min(hi - p, p - lo + 1), 0, 1).
        %w_i32 = arith.index_cast %w : index to i32
        %pos_i = tile.alloc shape(%tile_k) valid(%n) : !tile.tile<vec, 1x?xi32, valid = 1x?>
        %pos = tile.alloc shape(%tile_k) valid(%n) : !tile.tile<vec, 1x?xf32, valid = 1x?>
        tile.ci %pos_i, %w_i32 : !tile.tile<vec, 1x?xi32, valid = 1x?>, i32
        tile.cvt %pos, %pos_i : !tile.tile<vec, 1x?xf32, valid = 1x?>, !tile.tile<vec, 1x?xi32, valid = 1x?>
        %to_hi = tile.alloc shape(%tile_k) valid(%vrows, %n) : !tile.tile<vec, 32x?xf32, valid = ?x?>
        %from_lo = tile.alloc shape(%tile_k) valid(%vrows, %n) : !tile.tile<vec, 32x?xf32, valid = ?x?>
        tile.rowexpand %to_hi, %hi_t : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
        tile.colexpandsub %to_hi, %to_hi, %pos : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 1x?xf32, valid = 1x?>
        tile.rowexpand %from_lo, %lo_t : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
        tile.colexpandsub %from_lo, %from_lo, %pos : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 1x?xf32, valid = 1x?>
        tile.muls %from_lo, %from_lo, %minus_one : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.adds %from_lo, %from_lo, %one : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.min %to_hi, %to_hi, %from_lo : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
        tile.mins %to_hi, %to_hi, %one : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.maxs %to_hi, %to_hi, %zero : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.adds %to_hi, %to_hi, %minus_one : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.muls %to_hi, %to_hi, %largest : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, f32
        tile.add %sv, %sv, %to_hi : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      }

      // Online softmax: m' = max(m, max_c s), alpha = e^(m - m'),
      // p = e^(s - m'), l' = l alpha + sum_c p, o' = o alpha.
      %mt = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
      %mt_row = tile.reshape %mt : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
      tile.rowmax %mt, %sv, %tmp : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      tile.max %mt_row, %mt_row, %m_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.sub %alpha_row, %m_row, %mt_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.exp %alpha_row, %alpha_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.adds %m_row, %mt_row, %zero : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, f32
      tile.rowexpandsub %sv, %sv, %mt, %tmp : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      tile.exp %sv, %sv : !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      %lt = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
      %lt_row = tile.reshape %lt : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
      tile.rowsum %lt, %sv, %tmp : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x?xf32, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      tile.mul %l_row, %l_row, %alpha_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      tile.add %l_row, %l_row, %lt_row : !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>, !tile.tile<vec, 1x32xf32>
      %pb = tile.alloc shape(%tile_k) valid(%vrows, %n) : !tile.tile<vec, 32x?xbf16, valid = ?x?>
      tile.cvt %pb, %sv : !tile.tile<vec, 32x?xbf16, valid = ?x?>, !tile.tile<vec, 32x?xf32, valid = ?x?>
      tile.store %ws_h[%blk, %c${P_SLOT}, %vr0, %c0], %pb : ${WS_H_TYPE}, !tile.tile<vec, 32x?xbf16, valid = ?x?>
      tile.rowexpandmul %o, %o, %alpha, %otmp : !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>
    } else {
      // No softmax ran: C adds tile j - 2's O_t as it is.
      tile.expands %alpha_row, %one : !tile.tile<vec, 1x32xf32>, f32
    }

    // B. Tile j.
    %b_live = arith.cmpi ult, %j, %num_tiles : index
    scf.if %b_live {
${TILE_AT_B}
${S_TILE}
    }

    // C. Vector, tile j - 2: o += alpha O_t.
    %c_live = arith.cmpi uge, %j, %c2 : index
    scf.if %c_live {
      %ot = tile.alloc valid(%vrows, %head_dim) : !tile.tile<vec, 32x${D}xf32, valid = ?x?>
      tile.load %ot, %ws_f[%blk, %c1, %vr0, %c0] : !tile.tile<vec, 32x${D}xf32, valid = ?x?>, ${WS_F_TYPE}
      tile.rowexpandmul %ot, %ot, %alpha, %otmp : !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>
      tile.add %o, %o, %ot : !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>
    }

    // D. Tile j - 1.
    scf.if %a_live {
${TILE_AT_D}
${PV_TILE}
    }
  }
${END_STATE}
  wsp.return
}
)mlir";

// The pieces of the attention kernel that depend on the cache's type.

/// One page's segment [p, p_end) of a KV tile [w, w_end): %seg positions
/// at offset %off in the tile (a tile spans pages when the page is smaller
/// than TILE_K).
constexpr StringLiteral kPageSegment = R"mlir(        %p_page = arith.divui %p, %block_size : index
        %p_next_page = arith.addi %p_page, %c1 : index
        %p_page_end = arith.muli %p_next_page, %block_size : index
        %p_end = arith.minui %p_page_end, %w_end : index
        %seg = arith.subi %p_end, %p : index
        %off = arith.subi %p, %w : index)mlir";


/// bf16 cache, Q: each vector core packs its rows (token s, head g) ->
/// s * group + g into the block's workspace, the cube loads them all as one
/// operand.
constexpr StringLiteral kAttentionQBf16 = R"mlir(
  // Q: each vector core packs its rows (token s, head g) -> s * group + g
  // into the block's workspace, the cube loads them all as one operand.
  scf.for %sl = %c0 to %q_count step %c1 {
    %s = arith.addi %q_first, %sl : index
${TOKEN_AT}
${VECTOR_CORE_ROWS}
    scf.if %has_rows {
      %qv = tile.alloc valid(%n_rows, %head_dim) : !tile.tile<vec, 32x${D}xbf16, valid = ?x?>
      tile.load %qv, %q[${Q_IDX}, %q_row, %c0] : !tile.tile<vec, 32x${D}xbf16, valid = ?x?>, ${Q_TYPE}
      tile.store %ws_h[%blk, %c0, %lo_r, %c0], %qv : ${WS_H_TYPE}, !tile.tile<vec, 32x${D}xbf16, valid = ?x?>
    }
  }
  %qm = tile.alloc valid(%rows, %head_dim) : !tile.tile<mat, 32x${D}xbf16, valid = ?x?>
  tile.load %qm, %ws_h[%blk, %c0, %c0, %c0] : !tile.tile<mat, 32x${D}xbf16, valid = ?x?>, ${WS_H_TYPE}
  %ql = tile.alloc valid(%rows, %head_dim) : !tile.tile<left, 32x${D}xbf16, valid = ?x?>
  tile.mov %ql, %qm : !tile.tile<left, 32x${D}xbf16, valid = ?x?>, !tile.tile<mat, 32x${D}xbf16, valid = ?x?>)mlir";

/// bf16 cache, S = Q K^T: K straight from the pages.
constexpr StringLiteral kAttentionSBf16 = R"mlir(
      // Cube: S = Q K^T, one page at a time (a KV tile spans pages when the
      // page is smaller than TILE_K): K^T of the page's positions into L1
      // (two copies, alternating by tile), its columns of S to the
      // workspace.
      scf.for %p = %w to %w_end step %block_size {
${PAGE_SEGMENT}
        %kt = tile.alloc shape(%tile_k) valid(%head_dim, %seg) slot(%j) buffers(2) : !tile.tile<mat, ${D}x?xbf16, valid = ?x?, zn>
        tile.load_paged %kt, %k_cache[%kv_head], %block_table[%slot], %p transpose : !tile.tile<mat, ${D}x?xbf16, valid = ?x?, zn>, ${K_CACHE_TYPE}, ${BLOCK_TABLE_TYPE}
        %kr = tile.alloc shape(%tile_k) valid(%head_dim, %seg) : !tile.tile<right, ${D}x?xbf16, valid = ?x?>
        tile.mov %kr, %kt : !tile.tile<right, ${D}x?xbf16, valid = ?x?>, !tile.tile<mat, ${D}x?xbf16, valid = ?x?, zn>
        %sa = tile.alloc shape(%tile_k) valid(%rows, %seg) : !tile.tile<acc, 32x?xf32, valid = ?x?>
        tile.matmul %sa, %ql, %kr : !tile.tile<acc, 32x?xf32, valid = ?x?>, !tile.tile<left, 32x${D}xbf16, valid = ?x?>, !tile.tile<right, ${D}x?xbf16, valid = ?x?>
        tile.store %ws_f[%blk, %c0, %c0, %off], %sa : ${WS_F_TYPE}, !tile.tile<acc, 32x?xf32, valid = ?x?>
      })mlir";

/// bf16 cache, O_t = P V: V straight from the pages.
constexpr StringLiteral kAttentionPvBf16 = R"mlir(
      // Cube: O_t = P V, one page at a time: V of the page's positions into
      // L1 (two copies), the matching columns of P from L1 into L0A,
      // accumulated in L0C. P is loaded after the first V page, so that
      // the V loads do not queue behind the softmax.
      %pm = tile.alloc shape(%tile_k) valid(%rows, %n) slot(%j) buffers(2) : !tile.tile<mat, 32x?xbf16, valid = ?x?>
      %oa = tile.alloc valid(%rows, %head_dim) : !tile.tile<acc, 32x${D}xf32, valid = ?x?>
      scf.for %p = %w to %w_end step %block_size {
${PAGE_SEGMENT}
        %vm = tile.alloc shape(%tile_k) valid(%seg, %head_dim) slot(%j) buffers(2) : !tile.tile<mat, ?x${D}xbf16, valid = ?x?>
        tile.load_paged %vm, %v_cache[%kv_head], %block_table[%slot], %p : !tile.tile<mat, ?x${D}xbf16, valid = ?x?>, ${V_CACHE_TYPE}, ${BLOCK_TABLE_TYPE}
        %first_page = arith.cmpi eq, %p, %w : index
        scf.if %first_page {
          tile.load %pm, %ws_h[%blk, %c${P_SLOT}, %c0, %c0] : !tile.tile<mat, 32x?xbf16, valid = ?x?>, ${WS_H_TYPE}
        }
        %vr = tile.alloc shape(%tile_k) valid(%seg, %head_dim) : !tile.tile<right, ?x${D}xbf16, valid = ?x?>
        tile.mov %vr, %vm : !tile.tile<right, ?x${D}xbf16, valid = ?x?>, !tile.tile<mat, ?x${D}xbf16, valid = ?x?>
        %pl = tile.alloc shape(%tile_k) valid(%rows, %seg) : !tile.tile<left, 32x?xbf16, valid = ?x?>
        tile.extract %pl, %pm[%c0, %off] : !tile.tile<left, 32x?xbf16, valid = ?x?>, !tile.tile<mat, 32x?xbf16, valid = ?x?>
        scf.if %first_page {
          tile.matmul %oa, %pl, %vr : !tile.tile<acc, 32x${D}xf32, valid = ?x?>, !tile.tile<left, 32x?xbf16, valid = ?x?>, !tile.tile<right, ?x${D}xbf16, valid = ?x?>
        } else {
          tile.matmul_acc %oa, %pl, %vr : !tile.tile<acc, 32x${D}xf32, valid = ?x?>, !tile.tile<left, 32x?xbf16, valid = ?x?>, !tile.tile<right, ?x${D}xbf16, valid = ?x?>
        }
      }
      tile.store %ws_f[%blk, %c1, %c0, %c0], %oa : ${WS_F_TYPE}, !tile.tile<acc, 32x${D}xf32, valid = ?x?>)mlir";

/// int8 cache, Q: packed in f32, each column scaled by K's dequantization
/// scale (q . k = sum_d q[d] k_scale[d] k8[d]), for the cube's f32 product
/// with the exact f32 K8.
constexpr StringLiteral kAttentionQInt8 = R"mlir(
  // Q in f32, scaled per column by k_scale, packed as (token s, head g) ->
  // s * group + g into the block's workspace, each vector core its rows.
  %ks = tile.alloc valid(%head_dim) : !tile.tile<vec, 1x${D}xf32, valid = 1x?>
  tile.load %ks, %k_scale[%kv_head, %c0] : !tile.tile<vec, 1x${D}xf32, valid = 1x?>, ${K_SCALE_TYPE}
  scf.for %sl = %c0 to %q_count step %c1 {
    %s = arith.addi %q_first, %sl : index
${TOKEN_AT}
${VECTOR_CORE_ROWS}
    scf.if %has_rows {
      %qv = tile.alloc valid(%n_rows, %head_dim) : !tile.tile<vec, 32x${D}xbf16, valid = ?x?>
      %qf = tile.alloc valid(%n_rows, %head_dim) : !tile.tile<vec, 32x${D}xf32, valid = ?x?>
      tile.load %qv, %q[${Q_IDX}, %q_row, %c0] : !tile.tile<vec, 32x${D}xbf16, valid = ?x?>, ${Q_TYPE}
      tile.cvt %qf, %qv : !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x${D}xbf16, valid = ?x?>
      tile.colexpandmul %qf, %qf, %ks : !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 1x${D}xf32, valid = 1x?>
      tile.store %ws_q[%blk, %lo_r, %c0], %qf : ${WS_Q_TYPE}, !tile.tile<vec, 32x${D}xf32, valid = ?x?>
    }
  }
  %qm = tile.alloc valid(%rows, %head_dim) : !tile.tile<mat, 32x${D}xf32, valid = ?x?>
  tile.load %qm, %ws_q[%blk, %c0, %c0] : !tile.tile<mat, 32x${D}xf32, valid = ?x?>, ${WS_Q_TYPE}
  %ql = tile.alloc valid(%rows, %head_dim) : !tile.tile<left, 32x${D}xf32, valid = ?x?>
  tile.mov %ql, %qm : !tile.tile<left, 32x${D}xf32, valid = ?x?>, !tile.tile<mat, 32x${D}xf32, valid = ?x?>)mlir";

/// int8 cache, S = (Q k_scale) K8^T: the vector core turns the tile's
/// pages into f32 K and bf16 V (both exact: |x8| <= 127) in the block's
/// workspaces, one page at a time (A2/A3's cube multiplies operands of one
/// type); the cube reads K^T from there.
constexpr StringLiteral kAttentionSInt8 = R"mlir(
      // Vector: K of the tile's pages, int8 through f16 (exact) to f32,
      // into the workspace.
      scf.for %p = %w to %w_end step %block_size {
${PAGE_SEGMENT}
${VECTOR_CORE_POSITIONS}
        %k8s = tile.subview %x8[%c0, %c0] valid(%x_n, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xi8, valid = ?x?> to !tile.tile<vec, ${INT8_KV_TILE}x${D}xi8, valid = ?x?>
        %k16s = tile.subview %x16[%c0, %c0] valid(%x_n, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xf16, valid = ?x?> to !tile.tile<vec, ${INT8_KV_TILE}x${D}xf16, valid = ?x?>
        %k32s = tile.subview %x32[%c0, %c0] valid(%x_n, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xf32, valid = ?x?> to !tile.tile<vec, ${INT8_KV_TILE}x${D}xf32, valid = ?x?>
        tile.load_paged %k8s, %k_cache[%kv_head], %block_table[%slot], %p_x : !tile.tile<vec, ${INT8_KV_TILE}x${D}xi8, valid = ?x?>, ${K_CACHE_TYPE}, ${BLOCK_TABLE_TYPE}
        tile.cvt %k16s, %k8s : !tile.tile<vec, ${INT8_KV_TILE}x${D}xf16, valid = ?x?>, !tile.tile<vec, ${INT8_KV_TILE}x${D}xi8, valid = ?x?>
        tile.cvt %k32s, %k16s : !tile.tile<vec, ${INT8_KV_TILE}x${D}xf32, valid = ?x?>, !tile.tile<vec, ${INT8_KV_TILE}x${D}xf16, valid = ?x?>
        tile.store %ws_k[%blk, %off_x, %c0], %k32s : ${WS_K_TYPE}, !tile.tile<vec, ${INT8_KV_TILE}x${D}xf32, valid = ?x?>
      }

      // Cube: S = Q K^T in f32, K^T loaded transposed from the workspace.
      %kt = tile.alloc shape(%tile_k) valid(%head_dim, %n) : !tile.tile<mat, ${D}x?xf32, valid = ?x?, zn>
      tile.load %kt, %ws_k[%blk, %c0, %c0] transpose : !tile.tile<mat, ${D}x?xf32, valid = ?x?, zn>, ${WS_K_TYPE}
      %kr = tile.alloc shape(%tile_k) valid(%head_dim, %n) : !tile.tile<right, ${D}x?xf32, valid = ?x?>
      tile.mov %kr, %kt : !tile.tile<right, ${D}x?xf32, valid = ?x?>, !tile.tile<mat, ${D}x?xf32, valid = ?x?, zn>
      %sa = tile.alloc shape(%tile_k) valid(%rows, %n) : !tile.tile<acc, 32x?xf32, valid = ?x?>
      tile.matmul %sa, %ql, %kr : !tile.tile<acc, 32x?xf32, valid = ?x?>, !tile.tile<left, 32x${D}xf32, valid = ?x?>, !tile.tile<right, ${D}x?xf32, valid = ?x?>
      tile.store %ws_f[%blk, %c0, %c0, %c0], %sa : ${WS_F_TYPE}, !tile.tile<acc, 32x?xf32, valid = ?x?>)mlir";

/// int8 cache: the vector core's scratch for turning a page of K or V into
/// f32 or bf16 (stages B and D of the pipelined loop take its rows in
/// turn), as wide as the widest int8 KV tile.
constexpr StringLiteral kAttentionDequantScratch = R"mlir(  // Scratch for the pages of K and V on their way from int8 to f32.
  %x8 = tile.alloc valid(%tile_k, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xi8, valid = ?x?>
  %x16 = tile.alloc valid(%tile_k, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xf16, valid = ?x?>
  %x32 = tile.alloc valid(%tile_k, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xf32, valid = ?x?>
  %xb = tile.alloc valid(%tile_k, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xbf16, valid = ?x?>)mlir";

/// int8 cache, O_t = P V8 (bf16), V from the workspace; v_scale is applied
/// once, at the end of the row.
constexpr StringLiteral kAttentionPvInt8 = R"mlir(
      // Vector: V of the tile's pages, int8 through f16 and f32 to bf16
      // (exact: |v8| <= 127), into the workspace.
      scf.for %p = %w to %w_end step %block_size {
${PAGE_SEGMENT}
${VECTOR_CORE_POSITIONS}
        %v8s = tile.subview %x8[%c0, %c0] valid(%x_n, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xi8, valid = ?x?> to !tile.tile<vec, ${INT8_KV_TILE}x${D}xi8, valid = ?x?>
        %v16s = tile.subview %x16[%c0, %c0] valid(%x_n, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xf16, valid = ?x?> to !tile.tile<vec, ${INT8_KV_TILE}x${D}xf16, valid = ?x?>
        %v32s = tile.subview %x32[%c0, %c0] valid(%x_n, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xf32, valid = ?x?> to !tile.tile<vec, ${INT8_KV_TILE}x${D}xf32, valid = ?x?>
        %vbs = tile.subview %xb[%c0, %c0] valid(%x_n, %head_dim) : !tile.tile<vec, ${INT8_KV_TILE}x${D}xbf16, valid = ?x?> to !tile.tile<vec, ${INT8_KV_TILE}x${D}xbf16, valid = ?x?>
        tile.load_paged %v8s, %v_cache[%kv_head], %block_table[%slot], %p_x : !tile.tile<vec, ${INT8_KV_TILE}x${D}xi8, valid = ?x?>, ${V_CACHE_TYPE}, ${BLOCK_TABLE_TYPE}
        tile.cvt %v16s, %v8s : !tile.tile<vec, ${INT8_KV_TILE}x${D}xf16, valid = ?x?>, !tile.tile<vec, ${INT8_KV_TILE}x${D}xi8, valid = ?x?>
        tile.cvt %v32s, %v16s : !tile.tile<vec, ${INT8_KV_TILE}x${D}xf32, valid = ?x?>, !tile.tile<vec, ${INT8_KV_TILE}x${D}xf16, valid = ?x?>
        tile.cvt %vbs, %v32s : !tile.tile<vec, ${INT8_KV_TILE}x${D}xbf16, valid = ?x?>, !tile.tile<vec, ${INT8_KV_TILE}x${D}xf32, valid = ?x?>
        tile.store %ws_v[%blk, %off_x, %c0], %vbs : ${WS_V_TYPE}, !tile.tile<vec, ${INT8_KV_TILE}x${D}xbf16, valid = ?x?>
      }

      // Cube: O_t = P V8 in bf16, V loaded from the workspace.
      %pm = tile.alloc shape(%tile_k) valid(%rows, %n) : !tile.tile<mat, 32x?xbf16, valid = ?x?>
      tile.load %pm, %ws_h[%blk, %c${P_SLOT}, %c0, %c0] : !tile.tile<mat, 32x?xbf16, valid = ?x?>, ${WS_H_TYPE}
      %pl = tile.alloc shape(%tile_k) valid(%rows, %n) : !tile.tile<left, 32x?xbf16, valid = ?x?>
      tile.mov %pl, %pm : !tile.tile<left, 32x?xbf16, valid = ?x?>, !tile.tile<mat, 32x?xbf16, valid = ?x?>
      %vm = tile.alloc shape(%tile_k) valid(%n, %head_dim) : !tile.tile<mat, ?x${D}xbf16, valid = ?x?>
      tile.load %vm, %ws_v[%blk, %c0, %c0] : !tile.tile<mat, ?x${D}xbf16, valid = ?x?>, ${WS_V_TYPE}
      %vr = tile.alloc shape(%tile_k) valid(%n, %head_dim) : !tile.tile<right, ?x${D}xbf16, valid = ?x?>
      tile.mov %vr, %vm : !tile.tile<right, ?x${D}xbf16, valid = ?x?>, !tile.tile<mat, ?x${D}xbf16, valid = ?x?>
      %oa = tile.alloc valid(%rows, %head_dim) : !tile.tile<acc, 32x${D}xf32, valid = ?x?>
      tile.matmul %oa, %pl, %vr : !tile.tile<acc, 32x${D}xf32, valid = ?x?>, !tile.tile<left, 32x?xbf16, valid = ?x?>, !tile.tile<right, ?x${D}xbf16, valid = ?x?>
      tile.store %ws_f[%blk, %c1, %c0, %c0], %oa : ${WS_F_TYPE}, !tile.tile<acc, 32x${D}xf32, valid = ?x?>)mlir";

/// int8 cache, the end of a row: each column by V's dequantization scale.
constexpr StringLiteral kAttentionFinishInt8 = R"mlir(
    %vs = tile.alloc valid(%head_dim) : !tile.tile<vec, 1x${D}xf32, valid = 1x?>
    tile.load %vs, %v_scale[%kv_head, %c0] : !tile.tile<vec, 1x${D}xf32, valid = 1x?>, ${V_SCALE_TYPE}
    tile.colexpandmul %o, %o, %vs : !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 1x${D}xf32, valid = 1x?>)mlir";

/// The end of a row's range: o / l, as bf16, one query token's group of
/// rows at a time.
constexpr StringLiteral kAttentionFinish = R"mlir(${FINISH_SCALE}
    tile.rowexpanddiv %o, %o, %l, %otmp : !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>
    %ob = tile.alloc valid(%vrows, %head_dim) : !tile.tile<vec, 32x${D}xbf16, valid = ?x?>
    tile.cvt %ob, %o : !tile.tile<vec, 32x${D}xbf16, valid = ?x?>, !tile.tile<vec, 32x${D}xf32, valid = ?x?>
    scf.for %sl = %c0 to %q_count step %c1 {
      %s = arith.addi %q_first, %sl : index
${TOKEN_AT}
${VECTOR_CORE_ROWS}
      scf.if %has_rows {
        %token = tile.subview %ob[%tr, %c0] valid(%n_rows, %head_dim) : !tile.tile<vec, 32x${D}xbf16, valid = ?x?> to !tile.tile<vec, 32x${D}xbf16, valid = ?x?>
        tile.store %out[${Q_IDX}, %out_head, %c0], %token : ${OUT_TYPE}, !tile.tile<vec, 32x${D}xbf16, valid = ?x?>
      }
    })mlir";

/// The state a range starts from: empty.
constexpr StringLiteral kAttentionFreshState = R"mlir(
    tile.expands %o, %zero : !tile.tile<vec, 32x${D}xf32, valid = ?x?>, f32
    tile.expands %m_row, %lowest : !tile.tile<vec, 1x32xf32>, f32
    tile.expands %l_row, %zero : !tile.tile<vec, 1x32xf32>, f32)mlir";

/// The attention planner: shape checks (`${CHECKS}` sets %shapes_ok), then
/// every sequence's lengths, slot and pages (`${SEQ_CHECKS}` sets %seq_ok
/// for sequence %b from %past (kv_lens[b]), %len (its query tokens), %slot;
/// `${SEQ_EXTRA}` may record what the plan needs), then `${PLAN}`, which
/// plans, dispatches and yields the status.
constexpr StringLiteral kAttentionPlanner = R"mlir(
${TIERS}

func.func @plan(${SIGNATURE}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %true = arith.constant true
  %false = arith.constant false
  %ok = arith.constant 0 : i32
  %unsupported = arith.constant 2 : i32
  %invalid = arith.constant 3 : i32
  %zero_i64 = arith.constant 0 : i64
  %block_i64 = arith.constant ${BLOCK_SIZE} : i64
  %batch = memref.dim %${BATCH_OF}, %c0 : ${BATCH_OF_TYPE}
${PLAN_SETUP}
${CHECKS}
  %size_status = arith.select %batch_fits, %ok, %unsupported : i32
  %check = arith.select %shapes_ok, %size_status, %invalid : i32
  %checked = arith.cmpi eq, %check, %ok : i32
  %status = scf.if %checked -> i32 {
    // Every sequence: its lengths, its block-table row, and every page of
    // the positions [0, kv_lens + q_len) it reads inside the pool.
    %slots = memref.dim %block_table, %c0 : ${BLOCK_TABLE_TYPE}
    %slots_i64 = arith.index_cast %slots : index to i64
    %per_seq = memref.dim %block_table, %c1 : ${BLOCK_TABLE_TYPE}
    %per_seq_i64 = arith.index_cast %per_seq : index to i64
    %capacity_i64 = arith.muli %per_seq_i64, %block_i64 : i64
    %pool = memref.dim %k_cache, %c0 : ${K_CACHE_TYPE}
    %pool_i64 = arith.index_cast %pool : index to i64
    %lengths_ok, %total = scf.for %b = %c0 to %batch step %c1
        iter_args(%acc = %true, %sum = %zero_i64) -> (i1, i64) {
      %past_i32 = memref.load %kv_lens[%b] : ${KV_LENS_TYPE}
      %past = arith.extsi %past_i32 : i32 to i64
      %len_i32 = memref.load %q_lens[%b] : ${Q_LENS_TYPE}
      %len = arith.extsi %len_i32 : i32 to i64
      %slot_i32 = memref.load %kv_ids[%b] : ${KV_IDS_TYPE}
      %slot = arith.extsi %slot_i32 : i32 to i64
      %past_ok = arith.cmpi sge, %past, %zero_i64 : i64
      %len_ok = arith.cmpi sge, %len, %zero_i64 : i64
      %slot_lo = arith.cmpi sge, %slot, %zero_i64 : i64
      %slot_hi = arith.cmpi slt, %slot, %slots_i64 : i64
${SEEN}
      %in_capacity = arith.cmpi sle, %seen, %capacity_i64 : i64
      %a1 = arith.andi %past_ok, %len_ok : i1
      %a2 = arith.andi %a1, %slot_lo : i1
      %a3 = arith.andi %a2, %slot_hi : i1
      %a4 = arith.andi %a3, %in_capacity : i1
${SEQ_CHECKS}
      %pages_ok = scf.if %a5 -> (i1) {
        %seen_idx = arith.index_cast %seen : i64 to index
        %block = arith.constant ${BLOCK_SIZE} : index
        %pages = arith.ceildivui %seen_idx, %block : index
        %slot_idx = arith.index_cast %slot : i64 to index
${PAGES_IN_POOL}
        scf.yield %all : i1
      } else {
        scf.yield %false : i1
      }
${SEQ_EXTRA}
      %all_ok = arith.andi %acc, %pages_ok : i1
      %sum1 = arith.addi %sum, %len : i64
      scf.yield %all_ok, %sum1 : i1, i64
    }
${TOTAL_CHECK}
    %valid = arith.andi %lengths_ok, %total_ok : i1
    %planned = scf.if %valid -> i32 {
${PLAN}
    } else {
      scf.yield %invalid : i32
    }
    scf.yield %planned : i32
  } else {
    scf.yield %check : i32
  }
  return %status : i32
}
)mlir";

/// Decode: the lengths the planner sees are kv_lens + q_seq_len, one
/// descriptor per (request, KV head, KV chunk), the chunks of a row in
/// order on one block (row_affine), which carries the row's softmax state
/// from chunk to chunk in its slot of the workspaces.
constexpr StringLiteral kDecodePlan = R"mlir(
      %count, %generated = wsp.generate %lens[%batch] heads(%kv_heads)
          chunk(%chunk) tiers(@${NAME}_tiers) config(${CONFIG}) into %descs
          : memref<${MAX_BATCH}xi32>, memref<${UNITS}x!wsp.descriptor<attention>>
      %run = arith.cmpi eq, %generated, %ok : i32
      scf.if %run {
        wsp.dispatch @${NAME}(${CALL_ARGS})
            descriptors(%descs[%count] : memref<${UNITS}x!wsp.descriptor<attention>>)
            on mix(${BLOCKS}) row_affine
      }
      scf.yield %generated : i32)mlir";

/// Decode with plan_kv_lens: the chunk is planned for those lengths (plus
/// q_seq_len, as the batch's own), each checked (>= 0, within int32), and
/// the batch's descriptors generated with it.
constexpr int64_t kMaxPlanBatch = 4096;
constexpr StringLiteral kDecodePlanFor = R"mlir(
      %plan_ok = scf.for %pb = %c0 to %plan_batch step %c1
          iter_args(%plan_acc = %true) -> (i1) {
        %plan_past_i32 = memref.load %plan_kv_lens[%pb] : ${PLAN_KV_LENS_TYPE}
        %plan_past = arith.extsi %plan_past_i32 : i32 to i64
        %plan_seen = arith.addi %plan_past, %q_len_i64 : i64
        %plan_nonneg = arith.cmpi sge, %plan_past, %zero_i64 : i64
        %plan_in_i32 = arith.cmpi sle, %plan_seen, %int32_max : i64
        %plan_seen_i32 = arith.trunci %plan_seen : i64 to i32
        memref.store %plan_seen_i32, %plan_lens[%pb] : memref<${PLAN_BATCH}xi32>
        %plan_one = arith.andi %plan_nonneg, %plan_in_i32 : i1
        %plan_all = arith.andi %plan_acc, %plan_one : i1
        scf.yield %plan_all : i1
      }
      %plan_status = scf.if %plan_ok -> i32 {
      %chunk = wsp.plan_chunk_size %plan_lens[%plan_batch] heads(%kv_heads)
          config(${CONFIG}) : memref<${PLAN_BATCH}xi32>)mlir"
    R"mlir(${DECODE_PLAN}
      } else {
        scf.yield %invalid : i32
      }
      scf.yield %plan_status : i32)mlir";

/// Prefill: one descriptor per (sequence, KV head, block of query tokens
/// whose rows fill one tile); each covers its whole causal KV range, so
/// the units are independent (a grid).
constexpr StringLiteral kPrefillPlan = R"mlir(
      %count, %generated = wsp.generate %q_lens[%batch] heads(%kv_heads)
          chunk(%tokens_per_unit) tiers(@${NAME}_tiers) config(${CONFIG})
          into %descs : ${Q_LENS_TYPE}, memref<${UNITS}x!wsp.descriptor<moe>>
      %run = arith.cmpi eq, %generated, %ok : i32
      scf.if %run {
        wsp.dispatch @${NAME}(${CALL_ARGS})
            descriptors(%descs[%count] : memref<${UNITS}x!wsp.descriptor<moe>>)
            on mix(${BLOCKS})
      }
      scf.yield %generated : i32)mlir";

/// Decode's length tiers: TILE_K 64 up to 1024 positions, 128 above.
constexpr StringLiteral kDecodeTiers =
    "wsp.tier_config @${NAME}_tiers [#wsp.tier<0, [1, 1024]>, "
    "#wsp.tier<1, [1025, 4096]>, #wsp.tier<2, [4097, 16384]>, "
    "#wsp.tier<3, [16385, 131072]>]";

/// The descriptor of a decode unit: a KV chunk of one (request, KV head)
/// row, its q_seq_len query tokens.
constexpr StringLiteral kDecodeWhich = R"mlir(
  %req = wsp.param %desc["request_idx"] : !wsp.descriptor<attention>
  %kv_head = wsp.param %desc["head_idx"] : !wsp.descriptor<attention>
  %kv_start = wsp.param %desc["kv_start"] : !wsp.descriptor<attention>
  %kv_end = wsp.kv_end %desc : !wsp.descriptor<attention>
  %init = wsp.has_flag %desc, init : !wsp.descriptor<attention>
  %last = wsp.has_flag %desc, last : !wsp.descriptor<attention>
  %q_first = arith.constant 0 : index
  %q_count = arith.constant ${Q_LEN} : index
${PRIOR})mlir";

/// The descriptor of a prefill unit: query tokens [token_start, + count)
/// of sequence expert_idx, KV head batch_idx, all the KV they see.
constexpr StringLiteral kPrefillWhich = R"mlir(
  %req = wsp.param %desc["expert_idx"] : !wsp.descriptor<moe>
  %kv_head = wsp.param %desc["batch_idx"] : !wsp.descriptor<moe>
  %q_first = wsp.param %desc["token_start"] : !wsp.descriptor<moe>
  %q_count = wsp.param %desc["token_count"] : !wsp.descriptor<moe>
${PRIOR}
  %kv_start = arith.constant 0 : index
  %q_end = arith.addi %q_first, %q_count : index
  %kv_end = arith.addi %prior, %q_end : index
${SEQ_START})mlir";

/// Decode's state: a row's first chunk starts it, the others take it from
/// the block's slot, where the chunk before left it (row_affine: the
/// chunks of a row run in order on one block).
constexpr StringLiteral kDecodeStartState = R"mlir(
  scf.if %init {${FRESH_STATE}
  } else {
    tile.load %o, %ws_f[%blk, %c2, %vr0, %c0] : !tile.tile<vec, 32x${D}xf32, valid = ?x?>, ${WS_F_TYPE}
    tile.load %m, %ws_ml[%blk, %c0, %vr0] transpose : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, ${WS_ML_TYPE}
    tile.load %l, %ws_ml[%blk, %c1, %vr0] transpose : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>, ${WS_ML_TYPE}
  })mlir";

/// The last chunk writes the output; the others leave the state.
constexpr StringLiteral kDecodeEndState = R"mlir(
  scf.if %last {${FINISH}
  } else {${CARRY_STATE}
  })mlir";

/// A chunk that is not its row's last leaves the state in the block's slot
/// for the next.
constexpr StringLiteral kDecodeCarryState = R"mlir(
    tile.store %ws_f[%blk, %c2, %vr0, %c0], %o : ${WS_F_TYPE}, !tile.tile<vec, 32x${D}xf32, valid = ?x?>
    tile.store %ws_ml[%blk, %c0, %vr0], %m transpose : ${WS_ML_TYPE}, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
    tile.store %ws_ml[%blk, %c1, %vr0], %l transpose : ${WS_ML_TYPE}, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>)mlir";

/// The last chunk writes the row's softmax state (state_o, state_m,
/// state_l) instead of its output; the others leave the state as above.
constexpr StringLiteral kDecodeEndStateToStates = R"mlir(
  scf.if %last {${FINISH_SCALE}
    // m and l of a row over a 32-byte row of 8 (a vector store's least).
    %m8 = tile.alloc valid(%vrows) : !tile.tile<vec, 32x8xf32, valid = ?x8>
    %l8 = tile.alloc valid(%vrows) : !tile.tile<vec, 32x8xf32, valid = ?x8>
    tile.rowexpand %m8, %m : !tile.tile<vec, 32x8xf32, valid = ?x8>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
    tile.rowexpand %l8, %l : !tile.tile<vec, 32x8xf32, valid = ?x8>, !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
    scf.for %sl = %c0 to %q_count step %c1 {
      %s = arith.addi %q_first, %sl : index
${VECTOR_CORE_ROWS}
      scf.if %has_rows {
        %o_token = tile.subview %o[%tr, %c0] valid(%n_rows, %head_dim) : !tile.tile<vec, 32x${D}xf32, valid = ?x?> to !tile.tile<vec, 32x${D}xf32, valid = ?x?>
        tile.store %state_o[%req, %s, %out_head, %c0], %o_token : ${STATE_O_TYPE}, !tile.tile<vec, 32x${D}xf32, valid = ?x?>
        %m_token = tile.subview %m8[%tr, %c0] valid(%n_rows) : !tile.tile<vec, 32x8xf32, valid = ?x8> to !tile.tile<vec, 32x8xf32, valid = ?x8>
        tile.store %state_m[%req, %s, %out_head, %c0], %m_token : ${STATE_M_TYPE}, !tile.tile<vec, 32x8xf32, valid = ?x8>
        %l_token = tile.subview %l8[%tr, %c0] valid(%n_rows) : !tile.tile<vec, 32x8xf32, valid = ?x8> to !tile.tile<vec, 32x8xf32, valid = ?x8>
        tile.store %state_l[%req, %s, %out_head, %c0], %l_token : ${STATE_L_TYPE}, !tile.tile<vec, 32x8xf32, valid = ?x8>
      }
    }
  } else {${CARRY_STATE}
  })mlir";

/// Decode with visible_lens: the range a request reads is its last
/// token's; every entry from 0 up, not decreasing.
constexpr StringLiteral kVisibleSeen = R"mlir(
      %vis_last_i32 = memref.load %visible_lens[%b, %q_last] : ${VISIBLE_LENS_TYPE}
      %seen = arith.extsi %vis_last_i32 : i32 to i64)mlir";
constexpr StringLiteral kVisibleChecks = R"mlir(
      %vis_checked:2 = scf.for %vs = %c0 to %q_len step %c1
          iter_args(%vis_acc = %true, %vis_prev = %zero_i64) -> (i1, i64) {
        %vis_i32 = memref.load %visible_lens[%b, %vs] : ${VISIBLE_LENS_TYPE}
        %vis = arith.extsi %vis_i32 : i32 to i64
        %vis_up = arith.cmpi sge, %vis, %vis_prev : i64
        %vis_and = arith.andi %vis_acc, %vis_up : i1
        scf.yield %vis_and, %vis : i1, i64
      }
      %a5 = arith.andi %a5_decode, %vis_checked#0 : i1)mlir";

/// The run-time checks of one decode request beyond the shared ones: its
/// q_lens and accum_q_len entries as q_seq_len says; its length, for the
/// planner, kv_lens + q_seq_len (inside i32).
constexpr StringLiteral kDecodeSeqChecks = R"mlir(
      %q_len_ok = arith.cmpi eq, %len, %q_len_i64 : i64
      %b_i64 = arith.index_cast %b : index to i64
      %acc_i32 = memref.load %accum_q_len[%b] : ${ACCUM_Q_LEN_TYPE}
      %acc_i64 = arith.extsi %acc_i32 : i32 to i64
      %acc_want = arith.muli %b_i64, %q_len_i64 : i64
      %acc_ok = arith.cmpi eq, %acc_i64, %acc_want : i64
      %fits_i32 = arith.cmpi sle, %seen, %int32_max : i64
      %d1 = arith.andi %a4, %q_len_ok : i1
      %d2 = arith.andi %d1, %acc_ok : i1
      %a5 = arith.andi %d2, %fits_i32 : i1)mlir";

constexpr StringLiteral kDecodeSeqExtra = R"mlir(
      %seen_i32 = arith.trunci %seen : i64 to i32
      memref.store %seen_i32, %lens[%b] : memref<${MAX_BATCH}xi32>)mlir";

/// Prefill with accum_q_len: each sequence's tokens inside q.
constexpr StringLiteral kPrefillAccumChecks = R"mlir(
      %acc_i32 = memref.load %accum_q_len[%b] : ${ACCUM_Q_LEN_TYPE}
      %acc_i64 = arith.extsi %acc_i32 : i32 to i64
      %acc_ok = arith.cmpi sge, %acc_i64, %zero_i64 : i64
      %acc_end = arith.addi %acc_i64, %len : i64
      %end_ok = arith.cmpi sle, %acc_end, %tokens_i64 : i64
      %p1 = arith.andi %a4, %acc_ok : i1
      %a5 = arith.andi %p1, %end_ok : i1)mlir";

/// Where sequence %req's tokens start in q: accum_q_len, or the sum of the
/// q_lens before it.
constexpr StringLiteral kSeqStartAccum = R"mlir(
  %seq_start_i32 = memref.load %accum_q_len[%req] : ${ACCUM_Q_LEN_TYPE}
  %seq_start = arith.index_cast %seq_start_i32 : i32 to index)mlir";
constexpr StringLiteral kSeqStartPrefix = R"mlir(
  %seq_start = scf.for %j = %c0 to %req step %c1 iter_args(%sum = %c0) -> (index) {
    %len_i32 = memref.load %q_lens[%j] : ${Q_LENS_TYPE}
    %len = arith.index_cast %len_i32 : i32 to index
    %sum1 = arith.addi %sum, %len : index
    scf.yield %sum1 : index
  })mlir";

/// A paged cache: its page size and the sequence's block-table row.
constexpr StringLiteral kPagedSlot = R"mlir(  %block_size = arith.constant ${BLOCK_SIZE} : index
  %slot_i32 = memref.load %kv_ids[%req] : ${KV_IDS_TYPE}
  %slot = arith.index_cast %slot_i32 : i32 to index)mlir";

/// The tokens of sequence %req cached before the step.
constexpr StringLiteral kPriorFromKvLens = R"mlir(  %prior_i32 = memref.load %kv_lens[%req] : ${KV_LENS_TYPE}
  %prior = arith.index_cast %prior_i32 : i32 to index)mlir";

/// The kernel's KV tiles: their number (`TILE_COUNT`, from %w_first and
/// %kv_end) and where tile `index` lies (`TILE_AT_*`: %w, %n, %w_end), in
/// each stage that reads one. With `newToken` (flash_decoding) the cached
/// positions [w_first, min(kv_end, prior)) come first, in tiles of TILE_K,
/// and the step's own key and value, at position prior, are one more tile
/// of one position when the range reaches it (%in_cache tells the two
/// apart).
/// The rows of query token %sl's group that this vector core holds
/// ([%lo_r, %hi_r), %n_rows of them when %has_rows): its first at row %tr
/// of the core's tiles, head %g0 of the group (%q_row of Q, %out_head of
/// the output).
constexpr StringLiteral kVectorCoreRows = R"mlir(      %t_lo = arith.muli %sl, %group : index
      %t_hi = arith.addi %t_lo, %group : index
      %lo_r = arith.maxui %t_lo, %vr0 : index
      %hi_r = arith.minui %t_hi, %vr_end : index
      %has_rows = arith.cmpi ult, %lo_r, %hi_r : index
      %n_rows = arith.subi %hi_r, %lo_r : index
      %tr = arith.subi %lo_r, %vr0 : index
      %g0 = arith.subi %lo_r, %t_lo : index
      %q_row = arith.addi %q_head, %g0 : index
      %out_head = arith.addi %head_base, %g0 : index)mlir";

void addTileGeometry(std::map<std::string, std::string> &v, bool newToken) {
  v["VECTOR_CORE_ROW_SHARE"] = vectorCoreShare("%rows", "%vrows", "%vr0");
  v["VECTOR_CORE_ROWS"] = kVectorCoreRows;
  // This vector core's share of a page segment's %seg positions: %x_n of
  // them from %p_x (offset %off_x in the tile).
  v["VECTOR_CORE_POSITIONS"] = vectorCoreShare("%seg", "%x_n", "%x_o") +
                               "\n    %p_x = arith.addi %p, %x_o : index"
                               "\n    %off_x = arith.addi %off, %x_o : index";
  if (!newToken) {
    v["TILE_COUNT"] = "  %span = arith.subi %kv_end, %w_first : index\n"
                      "  %num_tiles = arith.ceildivui %span, %tile_k : index";
  } else {
    v["TILE_COUNT"] =
        "  %cache_end = arith.minui %kv_end, %prior : index\n"
        "  %cache_span = arith.subi %cache_end, %w_first : index\n"
        "  %cache_tiles = arith.ceildivui %cache_span, %tile_k : index\n"
        "  %has_new = arith.cmpi ugt, %kv_end, %prior : index\n"
        "  %new_tiles = arith.select %has_new, %c1, %c0 : index\n"
        "  %num_tiles = arith.addi %cache_tiles, %new_tiles : index";
  }
  auto at = [&](StringRef index) {
    std::string t = index.str();
    if (!newToken)
      return "      %t_off = arith.muli " + t + ", %tile_k : index\n"
             "      %w = arith.addi %w_first, %t_off : index\n"
             "      %left = arith.subi %kv_end, %w : index\n"
             "      %n = arith.minui %tile_k, %left : index\n"
             "      %w_end = arith.addi %w, %n : index";
    return "      %in_cache = arith.cmpi ult, " + t + ", %cache_tiles : index\n"
           "      %t_off = arith.muli " + t + ", %tile_k : index\n"
           "      %w_cached = arith.addi %w_first, %t_off : index\n"
           "      %left = arith.subi %cache_end, %w_cached : index\n"
           "      %n_cached = arith.minui %tile_k, %left : index\n"
           "      %w = arith.select %in_cache, %w_cached, %prior : index\n"
           "      %n = arith.select %in_cache, %n_cached, %c1 : index\n"
           "      %w_end = arith.addi %w, %n : index";
  };
  v["TILE_AT_A"] = at("%a_t");
  v["TILE_AT_B"] = at("%j");
  v["TILE_AT_D"] = at("%a_t");
}

/// What the attention kernel's tiles hold: a head_dim of one cube tile's
/// columns (a static multiple of 32, at most kMaxHeadDim) and a GQA group
/// within one tile of rows.
LogicalResult checkAttentionTile(Operation *op, int64_t dim, int64_t group) {
  if (ShapedType::isDynamic(dim) || dim % 32 || dim > kMaxHeadDim)
    return op->emitOpError("lowers with a static head_dim, a multiple of 32 "
                           "up to ")
           << kMaxHeadDim << " (one cube tile)";
  if (group > kAttentionRows)
    return op->emitOpError("lowers with at most ")
           << kAttentionRows << " query heads per KV head (one tile of rows), "
           << "got " << group;
  return success();
}

template <typename AttentionOp>
FailureOr<Lowered> lowerAttention(AttentionOp op, StringRef name) {
  constexpr bool decode =
      std::is_same_v<AttentionOp, llm::FlashAttentionDecodeOp>;
  // Q may be a head range of a packed QKV: the kernel reads the base.
  auto [qBase, qHead0] = headRangeOf(op.getQ());
  SmallVector<NamedOperand> args;
  // The first argument gives the batch (checks() checks nothing of it).
  args.push_back(decode ? NamedOperand{"kv_lens", op.getKvLens()}
                        : NamedOperand{"q_lens", op.getQLens()});
  args.push_back({"q", qBase});
  args.push_back({"kv_ids", op.getKvIds()});
  args.push_back(decode ? NamedOperand{"q_lens", op.getQLens()}
                        : NamedOperand{"kv_lens", op.getKvLens()});
  if (op.getAccumQLen())
    args.push_back({"accum_q_len", op.getAccumQLen()});
  args.push_back({"block_table", op.getBlockTable()});
  args.push_back({"k_cache", op.getKCache()});
  args.push_back({"v_cache", op.getVCache()});
  bool int8 = bool(op.getKScale());
  if (int8) {
    args.push_back({"k_scale", op.getKScale()});
    args.push_back({"v_scale", op.getVScale()});
  }
  if (op.getOut())
    args.push_back({"out", op.getOut()});
  Value planKvLens, visibleLens, stateO;
  if constexpr (decode) {
    planKvLens = op.getPlanKvLens();
    visibleLens = op.getVisibleLens();
    stateO = op.getStateO();
  }
  if (planKvLens)
    args.push_back({"plan_kv_lens", planKvLens});
  if (visibleLens)
    args.push_back({"visible_lens", visibleLens});
  if constexpr (decode)
    if (stateO) {
      args.push_back({"state_o", stateO});
      args.push_back({"state_m", op.getStateM()});
      args.push_back({"state_l", op.getStateL()});
    }
  if (failed(requireIdentityLayouts(op, args)))
    return failure();

  auto qType = cast<MemRefType>(op.getQ().getType());
  auto cacheType = cast<MemRefType>(op.getKCache().getType());
  unsigned rank = qType.getRank();
  int64_t heads = qType.getDimSize(rank - 2), dim = qType.getDimSize(rank - 1);
  int64_t kvHeads = cacheType.getDimSize(1), blockSize = cacheType.getDimSize(2);
  if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads) ||
      ShapedType::isDynamic(blockSize))
    return op.emitOpError("lowers with static q_head_num, kv_head_num and "
                          "block_size only");
  const int64_t group = heads / kvHeads;
  if (failed(checkAttentionTile(op, dim, group)))
    return failure();
  int64_t qLen = 0;
  if constexpr (decode) {
    qLen = int32_t(op.getQSeqLen());
    if (qLen < 1 || qLen * group > kAttentionRows)
      return op.emitOpError("lowers with q_seq_len x (q_head_num / "
                            "kv_head_num) rows in one tile of ")
             << kAttentionRows << ", got " << qLen << " x " << group;
  }

  std::map<std::string, std::string> v;
  Builder b(op.getContext());
  auto ws = [&](StringRef part, SmallVector<int64_t> shape, Type elem) {
    args.push_back({part.str(), Value(), MemRefType::get(shape, elem)});
  };
  int64_t blocks = kAttentionBlocks, rows = kAttentionRows;
  // Per block: Q (bf16 cache) and P, in bf16; S, O_t and, decode, the
  // row's o, in f32; decode, the row's m and l; int8 cache, Q in f32 and
  // the tile's K (f32) and V (bf16).
  ws("ws_h", {blocks, int8 ? 1 : 2, rows, kMaxKvTile}, b.getBF16Type());
  ws("ws_f", {blocks, decode ? 3 : 2, rows, kMaxKvTile}, b.getF32Type());
  if (decode)
    ws("ws_ml", {blocks, 2, rows}, b.getF32Type());
  if (int8) {
    ws("ws_q", {blocks, rows, kMaxHeadDim}, b.getF32Type());
    ws("ws_k", {blocks, kMaxInt8KvTile, kMaxHeadDim}, b.getF32Type());
    ws("ws_v", {blocks, kMaxInt8KvTile, kMaxHeadDim}, b.getBF16Type());
  }
  v["P_SLOT"] = int8 ? "0" : "1";
  v["PAGE_SEGMENT"] = kPageSegment;
  v["KV_SOURCE"] = kPagedSlot;
  v["PRIOR"] = kPriorFromKvLens;
  addTileGeometry(v, false);
  v["PAGES_IN_POOL"] = kPagesInPool;
  v["PAGES_FROM"] = "%c0";
  v["PAGES_TO"] = "%pages";
  v["Q_PACK"] = int8 ? kAttentionQInt8 : kAttentionQBf16;
  v["S_TILE"] = int8 ? kAttentionSInt8 : kAttentionSBf16;
  v["PV_TILE"] = int8 ? kAttentionPvInt8 : kAttentionPvBf16;
  v["DEQUANT_SCRATCH"] = int8 ? kAttentionDequantScratch : "";
  v["INT8_KV_TILE"] = std::to_string(kMaxInt8KvTile);
  v["FINISH_SCALE"] = int8 ? kAttentionFinishInt8 : "";
  addTypeValues(v, args);
  v.insert({{"NAME", name.str()},
            {"SIGNATURE", signature(args)},
            {"CALL_ARGS", callArgs(args)},
            {"BATCH_OF", args.front().name},
            {"BATCH_OF_TYPE", str(args.front().getType())},
            {"D", std::to_string(dim)},
            {"GROUP", std::to_string(group)},
            {"KV_HEADS", std::to_string(kvHeads)},
            {"Q_HEAD0", std::to_string(qHead0)},
            {"BLOCK_SIZE", std::to_string(blockSize)},
            {"BLOCKS", std::to_string(blocks)},
            {"UNITS", std::to_string(kAttentionUnits)},
            {"MAX_BATCH", std::to_string(kMaxDecodeBatch)},
            {"Q_LEN", std::to_string(qLen)},
            {"SCALE", llvm::formatv("{0:e9}", 1.0 / std::sqrt(double(dim)))
                          .str()},
            {"FRESH_STATE", kAttentionFreshState.str()},
            {"FINISH", kAttentionFinish.str()}});

  // Run-time shapes: q (the base, its batch and heads), the per-sequence
  // operands, out, the caches.
  SmallVector<DimCheck> dims;
  std::string setup = "  %kv_heads = arith.constant ${KV_HEADS} : index\n"
                      "  %head_dim = arith.constant ${D} : index\n"
                      "  %q_heads_end = arith.constant " +
                      std::to_string(qHead0 + heads) + " : index\n"
                      "  %q_heads = arith.constant " + std::to_string(heads) +
                      " : index\n";
  for (unsigned d = 0; d < 4; ++d) {
    setup += "  %cache_dim_" + std::to_string(d) + " = memref.dim %k_cache, %c" +
             std::to_string(d) + " : ${K_CACHE_TYPE}\n";
    dims.push_back({"v_cache", d, "%cache_dim_" + std::to_string(d)});
  }
  dims.push_back({"k_cache", 1, "%kv_heads"});
  dims.push_back({"k_cache", 3, "%head_dim"});
  dims.push_back({"kv_ids", 0, "%batch"});
  dims.push_back({decode ? "q_lens" : "kv_lens", 0, "%batch"});
  for (StringRef scale : {"k_scale", "v_scale"})
    if (int8) {
      dims.push_back({scale.str(), 0, "%kv_heads"});
      dims.push_back({scale.str(), 1, "%head_dim"});
    }
  if (op.getAccumQLen()) {
    setup += "  %batch_plus_1 = arith.addi %batch, %c1 : index\n";
    dims.push_back({"accum_q_len", 0, "%batch_plus_1"});
  }
  // The base's head dimension holds the range.
  setup += "  %base_heads = memref.dim %q, %c" + std::to_string(rank - 2) +
           " : ${Q_TYPE}\n"
           "  %heads_fit = arith.cmpi ule, %q_heads_end, %base_heads : index\n";
  if constexpr (decode) {
    setup += "  %q_len = arith.constant ${Q_LEN} : index\n"
             "  %q_len_i64 = arith.constant ${Q_LEN} : i64\n"
             "  %int32_max = arith.constant 2147483647 : i64\n"
             "  %lens = memref.alloca() : memref<${MAX_BATCH}xi32>\n"
             "  %descs = memref.alloca() : memref<${UNITS}x!wsp.descriptor<"
             "attention>>\n";
    dims.push_back({"q", 0, "%batch"});
    dims.push_back({"q", 1, "%q_len"});
    dims.push_back({"q", 3, "%head_dim"});
    for (StringRef result : {"out", "state_o"})
      if (result == "out" ? bool(op.getOut()) : bool(stateO)) {
        dims.push_back({result.str(), 0, "%batch"});
        dims.push_back({result.str(), 1, "%q_len"});
        dims.push_back({result.str(), 2, "%q_heads"});
        dims.push_back({result.str(), 3, "%head_dim"});
      }
    if (stateO) {
      setup += "  %state_row = arith.constant 8 : index\n";
      for (StringRef part : {"state_m", "state_l"}) {
        dims.push_back({part.str(), 0, "%batch"});
        dims.push_back({part.str(), 1, "%q_len"});
        dims.push_back({part.str(), 2, "%q_heads"});
        dims.push_back({part.str(), 3, "%state_row"});
      }
    }
    v["SEQ_CHECKS"] = kDecodeSeqChecks;
    if (visibleLens) {
      dims.push_back({"visible_lens", 0, "%batch"});
      dims.push_back({"visible_lens", 1, "%q_len"});
      std::string checks = kDecodeSeqChecks.str();
      size_t at = checks.rfind("%a5 = ");
      checks.replace(at, 3, "%a5_decode");
      v["SEQ_CHECKS"] = checks + kVisibleChecks.str();
      v["SEEN"] = kVisibleSeen.str();
      v["ROW_RANGES"] = kVisibleRowRanges.str();
      setup += "  %q_last = arith.constant " + std::to_string(qLen - 1) +
               " : index\n";
    }
    v["SEQ_EXTRA"] = kDecodeSeqExtra;
    v["TOTAL_CHECK"] =
        "    %batch_i64 = arith.index_cast %batch : index to i64\n"
        "    %acc_end_i32 = memref.load %accum_q_len[%batch] : "
        "${ACCUM_Q_LEN_TYPE}\n"
        "    %acc_end = arith.extsi %acc_end_i32 : i32 to i64\n"
        "    %acc_total = arith.muli %batch_i64, %q_len_i64 : i64\n"
        "    %total_ok = arith.cmpi eq, %acc_end, %acc_total : i64";
    v["PLAN"] = "      %chunk = wsp.plan_chunk_size %lens[%batch] "
                "heads(%kv_heads) config(${CONFIG}) : memref<${MAX_BATCH}xi32>" +
                kDecodePlan.str();
    if (planKvLens) {
      // The chunk planned for plan_kv_lens (a sharded rank plans as the
      // whole batch), in a buffer of its own.
      v["PLAN"] = kDecodePlanFor.str();
      v["PLAN_BATCH"] = std::to_string(kMaxPlanBatch);
      v["DECODE_PLAN"] = kDecodePlan.str();
      setup += "  %plan_batch = memref.dim %plan_kv_lens, %c0 : "
               "${PLAN_KV_LENS_TYPE}\n"
               "  %plan_max = arith.constant ${PLAN_BATCH} : index\n"
               "  %plan_fits = arith.cmpi ule, %plan_batch, %plan_max : index\n"
               "  %plan_lens = memref.alloca() : memref<${PLAN_BATCH}xi32>\n";
    }
    // Chunks of 256 to 4096 positions (the defaults).
    v["CONFIG"] = "#wsp.plan_config<max_work_units = ${UNITS}>";
    v["TIERS"] = kDecodeTiers;
    v["TILE_KS"] = int8 ? "array<i64: 32, 64, 64, 64>"
                        : "array<i64: 64, 128, 128, 128>";
    v["DESC"] = "!wsp.descriptor<attention>";
    v["WHICH"] = kDecodeWhich;
    v["TOKEN_AT"] = "";
    v["Q_IDX"] = "%req, %s";
    v["START_STATE"] = kDecodeStartState;
    v["END_STATE"] = stateO ? kDecodeEndStateToStates : kDecodeEndState;
    v["CARRY_STATE"] = kDecodeCarryState;
    // A batch over the stack buffer of lengths is a size the plan does not
    // support.
    setup += "  %max_batch = arith.constant ${MAX_BATCH} : index\n";
    setup += planKvLens
                 ? "  %local_fits = arith.cmpi ule, %batch, %max_batch : "
                   "index\n"
                   "  %batch_fits = arith.andi %local_fits, %plan_fits : i1\n"
                 : "  %batch_fits = arith.cmpi ule, %batch, %max_batch : "
                   "index\n";
  } else {
    setup += "  %tokens = memref.dim %q, %c0 : ${Q_TYPE}\n"
             "  %tokens_i64 = arith.index_cast %tokens : index to i64\n"
             "  %tokens_per_unit = arith.constant " +
             std::to_string(rows / group) +
             " : index\n"
             "  %descs = memref.alloca() : memref<${UNITS}x!wsp.descriptor<"
             "moe>>\n";
    dims.push_back({"q", 2, "%head_dim"});
    dims.push_back({"out", 0, "%tokens"});
    dims.push_back({"out", 1, "%q_heads"});
    dims.push_back({"out", 2, "%head_dim"});
    v["SEQ_CHECKS"] = op.getAccumQLen() ? kPrefillAccumChecks
                                        : "      %a5 = arith.andi %a4, %true : i1";
    v["SEQ_EXTRA"] = "";
    v["TOTAL_CHECK"] = "    %total_ok = arith.cmpi sle, %total, %tokens_i64 : i64";
    v["PLAN"] = kPrefillPlan;
    v["CONFIG"] = "#wsp.plan_config<max_work_units = ${UNITS}>";
    v["TIERS"] = "wsp.tier_config @${NAME}_tiers [#wsp.tier<0, [1, 2147483647]>]";
    v["TILE_KS"] = int8 ? "array<i64: 64>" : "array<i64: 128>";
    v["DESC"] = "!wsp.descriptor<moe>";
    v["WHICH"] = kPrefillWhich;
    v["SEQ_START"] = op.getAccumQLen() ? kSeqStartAccum : kSeqStartPrefix;
    v["TOKEN_AT"] = "    %t = arith.addi %seq_start, %s : index";
    v["Q_IDX"] = "%t";
    v["START_STATE"] = kAttentionFreshState;
    v["END_STATE"] = kAttentionFinish;
    setup += "  %batch_fits = arith.constant true\n";
  }
  // Decode of an empty batch (a KV-sharded rank whose range of requests is
  // empty) has nothing to plan: 0, nothing written. The runtime planner
  // itself refuses a batch of 0.
  if constexpr (decode)
    v["PLAN"] = "      %no_requests = arith.cmpi eq, %batch, %c0 : index\n"
                "      %decoded = scf.if %no_requests -> i32 {\n"
                "        scf.yield %ok : i32\n"
                "      } else {\n" +
                v["PLAN"] +
                "\n      }\n"
                "      scf.yield %decoded : i32";
  v.insert({"SEEN", "      %seen = arith.addi %past, %len : i64"});
  v.insert({"ROW_RANGES", kCausalRowRanges.str()});
  v["PLAN_SETUP"] = setup;
  v["CHECKS"] = checks(args, dims, "%dims_ok") +
                "  %shapes_ok = arith.andi %dims_ok, %heads_fit : i1\n";
  return instantiate(v, kAttentionPlanner, kAttentionKernel, args);
}

//===----------------------------------------------------------------------===//
// The two benchmark attention operators: contiguous K/V, no page table
//===----------------------------------------------------------------------===//

/// K and V tiles straight from contiguous rows (flash_attention,
/// flash_decoding): `${K_LOAD}`/`${V_LOAD}` fill %kt / %vm with the tile's
/// %n positions from %w.
constexpr StringLiteral kAttentionSRows = R"mlir(
      // Cube: S = Q K^T: K^T of the tile's positions into L1 (two copies,
      // alternating by tile), S to the workspace.
      %kt = tile.alloc shape(%tile_k) valid(%head_dim, %n) slot(%j) buffers(2) : !tile.tile<mat, ${D}x?xbf16, valid = ?x?, zn>
${K_LOAD}
      %kr = tile.alloc shape(%tile_k) valid(%head_dim, %n) : !tile.tile<right, ${D}x?xbf16, valid = ?x?>
      tile.mov %kr, %kt : !tile.tile<right, ${D}x?xbf16, valid = ?x?>, !tile.tile<mat, ${D}x?xbf16, valid = ?x?, zn>
      %sa = tile.alloc shape(%tile_k) valid(%rows, %n) : !tile.tile<acc, 32x?xf32, valid = ?x?>
      tile.matmul %sa, %ql, %kr : !tile.tile<acc, 32x?xf32, valid = ?x?>, !tile.tile<left, 32x${D}xbf16, valid = ?x?>, !tile.tile<right, ${D}x?xbf16, valid = ?x?>
      tile.store %ws_f[%blk, %c0, %c0, %c0], %sa : ${WS_F_TYPE}, !tile.tile<acc, 32x?xf32, valid = ?x?>)mlir";

constexpr StringLiteral kAttentionPvRows = R"mlir(
      // Cube: O_t = P V: V of the tile's positions into L1 (two copies),
      // then P (loaded after V, so that the V load does not queue behind
      // the softmax), O_t to the workspace.
      %vm = tile.alloc shape(%tile_k) valid(%n, %head_dim) slot(%j) buffers(2) : !tile.tile<mat, ?x${D}xbf16, valid = ?x?>
${V_LOAD}
      %pm = tile.alloc shape(%tile_k) valid(%rows, %n) slot(%j) buffers(2) : !tile.tile<mat, 32x?xbf16, valid = ?x?>
      tile.load %pm, %ws_h[%blk, %c${P_SLOT}, %c0, %c0] : !tile.tile<mat, 32x?xbf16, valid = ?x?>, ${WS_H_TYPE}
      %vr = tile.alloc shape(%tile_k) valid(%n, %head_dim) : !tile.tile<right, ?x${D}xbf16, valid = ?x?>
      tile.mov %vr, %vm : !tile.tile<right, ?x${D}xbf16, valid = ?x?>, !tile.tile<mat, ?x${D}xbf16, valid = ?x?>
      %pl = tile.alloc shape(%tile_k) valid(%rows, %n) : !tile.tile<left, 32x?xbf16, valid = ?x?>
      tile.mov %pl, %pm : !tile.tile<left, 32x?xbf16, valid = ?x?>, !tile.tile<mat, 32x?xbf16, valid = ?x?>
      %oa = tile.alloc valid(%rows, %head_dim) : !tile.tile<acc, 32x${D}xf32, valid = ?x?>
      tile.matmul %oa, %pl, %vr : !tile.tile<acc, 32x${D}xf32, valid = ?x?>, !tile.tile<left, 32x?xbf16, valid = ?x?>, !tile.tile<right, ?x${D}xbf16, valid = ?x?>
      tile.store %ws_f[%blk, %c1, %c0, %c0], %oa : ${WS_F_TYPE}, !tile.tile<acc, 32x${D}xf32, valid = ?x?>)mlir";

/// Where the K and V heads of KV head %kv_head are in `k` and `v` (their
/// own buffers, or ranges of a packed qkv).
constexpr StringLiteral kKvHeads = R"mlir(  %k_head0 = arith.constant ${K_HEAD0} : index
  %k_head = arith.addi %kv_head, %k_head0 : index
  %v_head0 = arith.constant ${V_HEAD0} : index
  %v_head = arith.addi %kv_head, %v_head0 : index)mlir";

/// flash_attention: k and v [1, q_seq_len, heads, head_dim] seen as rows of
/// positions [q_seq_len, heads x head_dim]; a KV head is a range of
/// columns.
constexpr StringLiteral kKvRows = R"mlir(
  %k_rows = memref.collapse_shape %k [[0, 1], [2, 3]] : ${K_TYPE} into ${K_ROWS_TYPE}
  %v_rows = memref.collapse_shape %v [[0, 1], [2, 3]] : ${V_TYPE} into ${V_ROWS_TYPE}
  %k_col = arith.muli %k_head, %head_dim : index
  %v_col = arith.muli %v_head, %head_dim : index)mlir";

/// A flash_attention unit: query tokens [token_start, + count) of the one
/// sequence, KV head batch_idx; causal, it reads the positions up to its
/// last token, otherwise all of them.
constexpr StringLiteral kBenchmarkPrefillWhich = R"mlir(
  %kv_head = wsp.param %desc["batch_idx"] : !wsp.descriptor<moe>
  %q_first = wsp.param %desc["token_start"] : !wsp.descriptor<moe>
  %q_count = wsp.param %desc["token_count"] : !wsp.descriptor<moe>
  %prior = arith.constant 0 : index
  %kv_start = arith.constant 0 : index
${KV_END})mlir";

/// Not causal: every row sees [kv_start, kv_end), so no tile is masked.
constexpr StringLiteral kAllRowRanges = R"mlir(  // Each row's visible positions: all of them (not causal), so no tile
  // needs a mask.
  %lo_t = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %hi_t = tile.alloc valid(%vrows) : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major>
  %lo_all = tile.reshape %lo_t : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
  %hi_all = tile.reshape %hi_t : !tile.tile<vec, 32x1xf32, valid = ?x1, col_major> to !tile.tile<vec, 1x32xf32>
  %kv_end_i32 = arith.index_cast %kv_end : index to i32
  %kv_end_f = arith.sitofp %kv_end_i32 : i32 to f32
  tile.expands %lo_all, %zero : !tile.tile<vec, 1x32xf32>, f32
  tile.expands %hi_all, %kv_end_f : !tile.tile<vec, 1x32xf32>, f32
  %lo_max = arith.addi %kv_start, %c0 : index
  %hi_min = arith.addi %kv_end, %c0 : index)mlir";

/// The planner of the two benchmark ops: shape checks (`${CHECKS}` sets
/// %shapes_ok), the size check (%batch_fits), then `${PLAN}`.
constexpr StringLiteral kBenchmarkAttentionPlanner = R"mlir(
${TIERS}

func.func @plan(${SIGNATURE}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ok = arith.constant 0 : i32
  %unsupported = arith.constant 2 : i32
  %invalid = arith.constant 3 : i32
  %kv_heads = arith.constant ${KV_HEADS} : index
${PLAN_SETUP}
${CHECKS}
  %size_status = arith.select %batch_fits, %ok, %unsupported : i32
  %check = arith.select %shapes_ok, %size_status, %invalid : i32
  %checked = arith.cmpi eq, %check, %ok : i32
  %status = scf.if %checked -> i32 {
${PLAN}
  } else {
    scf.yield %check : i32
  }
  return %status : i32
}
)mlir";

/// flash_attention: the one sequence's q_seq_len tokens as prefill units.
constexpr StringLiteral kBenchmarkPrefillSetup = R"mlir(  %q_batch = memref.dim %q, %c0 : ${Q_TYPE}
  %tokens = memref.dim %q, %c1 : ${Q_TYPE}
  %batch = arith.constant 1 : index
  %int32_max = arith.constant 2147483647 : index
  %batch_fits = arith.cmpi ule, %tokens, %int32_max : index
  %tokens_per_unit = arith.constant ${TOKENS_PER_UNIT} : index
  %q_lens = memref.alloca() : memref<1xi32>
  %descs = memref.alloca() : memref<${UNITS}x!wsp.descriptor<moe>>)mlir";

constexpr StringLiteral kBenchmarkPrefillPlan = R"mlir(    %no_tokens = arith.cmpi eq, %tokens, %c0 : index
    %planned = scf.if %no_tokens -> i32 {
      scf.yield %ok : i32
    } else {
      %tokens_i32 = arith.index_cast %tokens : index to i32
      memref.store %tokens_i32, %q_lens[%c0] : memref<1xi32>
${PREFILL_PLAN}
    }
    scf.yield %planned : i32)mlir";

/// flash_decoding: every request sees kv_len + 1 positions.
constexpr StringLiteral kBenchmarkDecodeSetup = R"mlir(  %batch = memref.dim %q, %c0 : ${Q_TYPE}
  %q_len = memref.dim %q, %c1 : ${Q_TYPE}
  %one_token = arith.cmpi eq, %q_len, %c1 : index
  %kv_len = arith.constant ${KV_LEN} : index
  %max_batch = arith.constant ${MAX_BATCH} : index
  %batch_fits = arith.cmpi ule, %batch, %max_batch : index
  %slots = memref.dim %k_cache, %c0 : ${K_CACHE_TYPE}
  %capacity = memref.dim %k_cache, %c2 : ${K_CACHE_TYPE}
  %slots_ok = arith.cmpi ule, %batch, %slots : index
  %capacity_ok = arith.cmpi ule, %kv_len, %capacity : index
  %lens = memref.alloca() : memref<${MAX_BATCH}xi32>
  %descs = memref.alloca() : memref<${UNITS}x!wsp.descriptor<attention>>)mlir";

constexpr StringLiteral kBenchmarkDecodePlan = R"mlir(    %no_requests = arith.cmpi eq, %batch, %c0 : index
    %planned = scf.if %no_requests -> i32 {
      scf.yield %ok : i32
    } else {
      %seen_i32 = arith.constant ${SEEN} : i32
      scf.for %b = %c0 to %batch step %c1 {
        memref.store %seen_i32, %lens[%b] : memref<${MAX_BATCH}xi32>
      }
      %chunk = wsp.plan_chunk_size %lens[%batch] heads(%kv_heads)
          config(${CONFIG}) : memref<${MAX_BATCH}xi32>${DECODE_PLAN}
    }
    scf.yield %planned : i32)mlir";

/// flash_decoding's K (V) tile: cached positions from the request's cache
/// row, the new position from the step's own key (value).
constexpr StringLiteral kNewTokenKLoad = R"mlir(      scf.if %in_cache {
        tile.load %kt, %k_cache[%req, %kv_head, %w, %c0] transpose : !tile.tile<mat, ${D}x?xbf16, valid = ?x?, zn>, ${K_CACHE_TYPE}
      } else {
        tile.load %kt, %k[%req, %c0, %k_head, %c0] transpose : !tile.tile<mat, ${D}x?xbf16, valid = ?x?, zn>, ${K_TYPE}
      })mlir";
constexpr StringLiteral kNewTokenVLoad = R"mlir(      scf.if %in_cache {
        tile.load %vm, %v_cache[%req, %kv_head, %w, %c0] : !tile.tile<mat, ?x${D}xbf16, valid = ?x?>, ${V_CACHE_TYPE}
      } else {
        tile.load %vm, %v[%req, %c0, %v_head, %c0] : !tile.tile<mat, ?x${D}xbf16, valid = ?x?>, ${V_TYPE}
      })mlir";

/// flash_attention and flash_decoding. Their K and V are contiguous: the
/// kernel reads them without a page table. flash_attention is prefill's
/// kernel over one sequence with nothing cached (its units read every
/// position they see, causal or not); flash_decoding is decode's (KV
/// chunks of a request in order on one block), over each request's
/// cache row of kv_len positions and then its own new key and value.
template <typename BenchmarkOp>
FailureOr<Lowered> lowerBenchmarkAttention(BenchmarkOp op, StringRef name) {
  constexpr bool decode = std::is_same_v<BenchmarkOp, llm::FlashDecodingOp>;
  auto outType = cast<MemRefType>(op.getOut().getType());
  int64_t heads = outType.getDimSize(2), dim = outType.getDimSize(3);
  // The three inputs: q, k and v, or three head ranges of qkv.
  Value q = op.getQkv() ? op.getQkv() : op.getQ();
  Value k = op.getQkv() ? op.getQkv() : op.getK();
  Value v = op.getQkv() ? op.getQkv() : op.getV();
  int64_t kvHeads;
  int64_t kHead0 = 0, vHead0 = 0;
  if (op.getQkv()) {
    int64_t all = cast<MemRefType>(q.getType()).getDimSize(2);
    kvHeads = ShapedType::isDynamic(all) || ShapedType::isDynamic(heads)
                  ? ShapedType::kDynamic
                  : (all - heads) / 2;
    kHead0 = heads;
    vHead0 = heads + kvHeads;
  } else {
    kvHeads = cast<MemRefType>(k.getType()).getDimSize(2);
  }
  // Heads and head_dim are static in every operand: the run-time checks
  // are of the batch and sequence dimensions only.
  SmallVector<std::pair<Value, SmallVector<unsigned>>> fixed = {
      {q, {2, 3}}, {k, {2, 3}}, {v, {2, 3}}, {op.getOut(), {2, 3}}};
  if constexpr (decode) {
    fixed.push_back({op.getKCache(), {1, 3}});
    fixed.push_back({op.getVCache(), {1, 3}});
  }
  for (auto &[value, fixedDims] : fixed)
    for (unsigned d : fixedDims)
      if (cast<MemRefType>(value.getType()).isDynamicDim(d))
        return op.emitOpError("lowers with static head counts and head_dim "
                              "only");
  const int64_t group = heads / kvHeads;
  if (failed(checkAttentionTile(op, dim, group)))
    return failure();
  int64_t kvLen = 0;
  if constexpr (decode) {
    kvLen = int64_t(op.getKvLen());
    if (kvLen + 1 > std::numeric_limits<int32_t>::max())
      return op.emitOpError("lowers with kv_len + 1 inside int32, got kv_len ")
             << kvLen;
  }

  SmallVector<NamedOperand> args = {{"q", q}, {"k", k}, {"v", v}};
  if constexpr (decode) {
    args.push_back({"k_cache", op.getKCache()});
    args.push_back({"v_cache", op.getVCache()});
  }
  args.push_back({"out", op.getOut()});
  if (failed(requireIdentityLayouts(op, args)))
    return failure();
  Builder b(op.getContext());
  int64_t blocks = kAttentionBlocks, rows = kAttentionRows;
  auto ws = [&](StringRef part, SmallVector<int64_t> shape, Type elem) {
    args.push_back({part.str(), Value(), MemRefType::get(shape, elem)});
  };
  // As prefill's and decode's bf16 kernels: Q and P in bf16; S, O_t and,
  // decode, the request's o in f32; decode, its m and l.
  ws("ws_h", {blocks, 2, rows, kMaxKvTile}, b.getBF16Type());
  ws("ws_f", {blocks, decode ? 3 : 2, rows, kMaxKvTile}, b.getF32Type());
  if (decode)
    ws("ws_ml", {blocks, 2, rows}, b.getF32Type());

  std::map<std::string, std::string> vals;
  addTypeValues(vals, args);
  addTileGeometry(vals, decode);
  vals.insert({{"NAME", name.str()},
               {"SIGNATURE", signature(args)},
               {"CALL_ARGS", callArgs(args)},
               {"D", std::to_string(dim)},
               {"GROUP", std::to_string(group)},
               {"KV_HEADS", std::to_string(kvHeads)},
               {"Q_HEAD0", "0"},
               {"K_HEAD0", std::to_string(kHead0)},
               {"V_HEAD0", std::to_string(vHead0)},
               {"BLOCKS", std::to_string(blocks)},
               {"UNITS", std::to_string(kAttentionUnits)},
               {"MAX_BATCH", std::to_string(kMaxDecodeBatch)},
               {"SCALE",
                llvm::formatv("{0:e9}", 1.0 / std::sqrt(double(dim))).str()},
               {"P_SLOT", "1"},
               {"Q_PACK", kAttentionQBf16.str()},
               {"S_TILE", kAttentionSRows.str()},
               {"PV_TILE", kAttentionPvRows.str()},
               {"DEQUANT_SCRATCH", ""},
               {"FINISH_SCALE", ""},
               {"FRESH_STATE", kAttentionFreshState.str()},
               {"FINISH", kAttentionFinish.str()},
               {"TOKEN_AT", ""},
               {"CONFIG", "#wsp.plan_config<max_work_units = ${UNITS}>"}});

  SmallVector<DimCheck> dims;
  // The checks before and after the operands' dimensions.
  std::string extraChecks, shapesOk;
  if constexpr (decode) {
    // A request's cache row is its index; its length kv_len + 1.
    vals["KV_LEN"] = std::to_string(kvLen);
    vals["SEEN"] = std::to_string(kvLen + 1);
    vals["KV_SOURCE"] = kKvHeads;
    vals["K_LOAD"] = kNewTokenKLoad;
    vals["V_LOAD"] = kNewTokenVLoad;
    vals["PLAN_SETUP"] = kBenchmarkDecodeSetup;
    vals["PLAN"] = kBenchmarkDecodePlan;
    vals["DECODE_PLAN"] = kDecodePlan;
    vals["TIERS"] = kDecodeTiers;
    vals["TILE_KS"] = "array<i64: 64, 128, 128, 128>";
    vals["DESC"] = "!wsp.descriptor<attention>";
    vals["WHICH"] = kDecodeWhich;
    vals["PRIOR"] = "  %prior = arith.constant ${KV_LEN} : index";
    vals["Q_LEN"] = "1";
    vals["Q_IDX"] = "%req, %s";
    vals["ROW_RANGES"] = kCausalRowRanges;
    vals["START_STATE"] = kDecodeStartState;
    vals["END_STATE"] = kDecodeEndState;
    vals["CARRY_STATE"] = kDecodeCarryState;
    for (StringRef part : {"k", "v", "out"}) {
      dims.push_back({part.str(), 0, "%batch"});
      dims.push_back({part.str(), 1, "%c1"});
    }
    extraChecks = "  %c3 = arith.constant 3 : index\n";
    for (unsigned d = 0; d < 4; ++d) {
      std::string at = std::to_string(d);
      extraChecks += "  %cache_dim_" + at + " = memref.dim %k_cache, %c" +
                     at + " : ${K_CACHE_TYPE}\n";
      dims.push_back({"v_cache", d, "%cache_dim_" + at});
    }
    shapesOk = "  %e1 = arith.andi %dims_ok, %one_token : i1\n"
               "  %e2 = arith.andi %e1, %slots_ok : i1\n"
               "  %shapes_ok = arith.andi %e2, %capacity_ok : i1\n";
  } else {
    vals["TOKENS_PER_UNIT"] = std::to_string(rows / group);
    MemRefType kType = cast<MemRefType>(k.getType()),
               vType = cast<MemRefType>(v.getType());
    vals["K_ROWS_TYPE"] = str(memref::CollapseShapeOp::computeCollapsedType(
        kType, {{0, 1}, {2, 3}}));
    vals["V_ROWS_TYPE"] = str(memref::CollapseShapeOp::computeCollapsedType(
        vType, {{0, 1}, {2, 3}}));
    vals["KV_SOURCE"] = (kKvHeads + kKvRows).str();
    vals["K_LOAD"] = "      tile.load %kt, %k_rows[%w, %k_col] transpose : "
                     "!tile.tile<mat, ${D}x?xbf16, valid = ?x?, zn>, "
                     "${K_ROWS_TYPE}";
    vals["V_LOAD"] = "      tile.load %vm, %v_rows[%w, %v_col] : "
                     "!tile.tile<mat, ?x${D}xbf16, valid = ?x?>, "
                     "${V_ROWS_TYPE}";
    vals["PLAN_SETUP"] = kBenchmarkPrefillSetup;
    vals["PLAN"] = kBenchmarkPrefillPlan;
    vals["PREFILL_PLAN"] = kPrefillPlan;
    vals["Q_LENS_TYPE"] = "memref<1xi32>";
    vals["TIERS"] =
        "wsp.tier_config @${NAME}_tiers [#wsp.tier<0, [1, 2147483647]>]";
    vals["TILE_KS"] = "array<i64: 128>";
    vals["DESC"] = "!wsp.descriptor<moe>";
    vals["WHICH"] = kBenchmarkPrefillWhich;
    vals["KV_END"] = op.getIsCausal()
                         ? "  %kv_end = arith.addi %q_first, %q_count : index"
                         : "  %kv_end = memref.dim %q, %c1 : ${Q_TYPE}";
    vals["Q_IDX"] = "%c0, %s";
    vals["ROW_RANGES"] = op.getIsCausal() ? kCausalRowRanges : kAllRowRanges;
    vals["START_STATE"] = kAttentionFreshState;
    vals["END_STATE"] = kAttentionFinish;
    for (StringRef part : {"k", "v", "out"}) {
      dims.push_back({part.str(), 0, "%c1"});
      dims.push_back({part.str(), 1, "%tokens"});
    }
    shapesOk = "  %one_seq = arith.cmpi eq, %q_batch, %c1 : index\n"
               "  %shapes_ok = arith.andi %dims_ok, %one_seq : i1\n";
  }
  vals["CHECKS"] = extraChecks + checks(args, dims, "%dims_ok") + shapesOk;
  return instantiate(vals, kBenchmarkAttentionPlanner, kAttentionKernel,
                     args);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The op's lowering, or a diagnostic.
FailureOr<Lowered> lower(Operation *op, StringRef name, int64_t cores) {
  if (auto norm = dyn_cast<llm::RmsNormOp>(op))
    return lowerRmsNorm(norm, name, cores);
  if (auto quant = dyn_cast<llm::ScaleDynamicQuantOp>(op))
    return lowerScaleDynamicQuant(quant, name, cores);
  if (auto fused = dyn_cast<llm::AddRmsNormDynamicQuantOp>(op))
    return lowerAddRmsNormDynamicQuant(fused, name, cores);
  if (auto heads = dyn_cast<llm::HeadRmsNormOp>(op))
    return lowerHeadRmsNorm(heads, name, cores);
  if (auto rope = dyn_cast<llm::RotaryEmbeddingOp>(op))
    return lowerRotaryEmbedding(rope, name, cores);
  if (auto matmul = dyn_cast<llm::QuantMatmulOp>(op))
    return lowerMatmul({op, matmul.getHiddenStates(),
                        matmul.getPerTokenScale(), matmul.getWeight(),
                        matmul.getWeightScale(), matmul.getBias(),
                        matmul.getY(), "weight", matmul.getTransposeA(),
                        matmul.getTransposeB()},
                       name);
  if (auto matmul = dyn_cast<llm::MoeQuantMatmulOp>(op))
    return lowerMatmul({op, matmul.getHiddenStates(),
                        matmul.getPerTokenScale(), matmul.getExpertWeight(),
                        matmul.getExpertScale(), Value(), matmul.getY(),
                        "expert_weight"},
                       name);
  if (auto gating = dyn_cast<llm::MoeGatingGemmOp>(op))
    return lowerMatmul({op, gating.getHiddenStates(), Value(),
                        gating.getWeight(), Value(), Value(), gating.getY(),
                        "weight"},
                       name);
  if (auto store = dyn_cast<llm::StoreKvCacheOp>(op))
    return lowerStore(store, name, cores, Value());
  if (auto store = dyn_cast<llm::StorePagedKvCacheOp>(op)) {
    if (store.getGrid())
      return op->emitOpError("is sharded over ")
             << store.getGridAttr()
             << ": convert-llm-kv-sharding lowers it to this rank's program "
                "first";
    return lowerStore(store, name, cores, store.getBlockTable());
  }
  if (auto gemm = dyn_cast<llm::MoeQuantGroupGemmOp>(op))
    return lowerGroupGemm(gemm, name);
  if (auto swiglu = dyn_cast<llm::MoeSwigluDynamicQuantOp>(op))
    return lowerSwiglu(swiglu, name, cores);
  if (auto topk = dyn_cast<llm::MoeSoftmaxTopkOp>(op))
    return lowerSoftmaxTopk(topk, name, cores);
  if (auto scatter = dyn_cast<llm::MoeScatterDynamicQuantOp>(op))
    return lowerScatter(scatter, name, cores);
  if (auto gather = dyn_cast<llm::MoeGatherOp>(op))
    return lowerGather(gather, name, cores);
  if (auto embedding = dyn_cast<llm::EmbeddingOp>(op))
    return lowerEmbedding(embedding, name, cores);
  if (auto argmax = dyn_cast<llm::ArgmaxOp>(op))
    return lowerArgmax(argmax, name, cores);
  if (auto attention = dyn_cast<llm::FlashAttentionDecodeOp>(op)) {
    if (attention.getGrid())
      return op->emitOpError("is sharded over ")
             << attention.getGridAttr()
             << ": convert-llm-kv-sharding lowers it to this rank's program "
                "first";
    return lowerAttention(attention, name);
  }
  if (auto attention = dyn_cast<llm::FlashAttentionPrefillOp>(op))
    return lowerAttention(attention, name);
  if (auto attention = dyn_cast<llm::FlashAttentionOp>(op))
    return lowerBenchmarkAttention(attention, name);
  if (auto attention = dyn_cast<llm::FlashDecodingOp>(op))
    return lowerBenchmarkAttention(attention, name);
  return op->emitOpError("has no lowering to a wsp workload yet (see "
                         "docs/rationale/Operators.md for the ops that lower)");
}

struct ConvertLlmToWspPass
    : public wsp::impl::ConvertLlmToWspBase<ConvertLlmToWspPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal() && hasLlmOps(f))
        funcs.push_back(f);
    SymbolTable symbols(module);
    // A function a wsp.step captures keeps each op's workload in a launch
    // function of its own, which the step table records once and replays.
    llvm::StringSet<> captured;
    for (auto step : module.getOps<StepOp>())
      captured.insert(step.getFunction());
    for (func::FuncOp f : funcs)
      if (failed(lowerFunction(f, symbols, captured.contains(f.getSymName()))))
        return signalPassFailure();
  }

  static bool hasLlmOps(func::FuncOp f) {
    return f.walk([](Operation *op) {
              return isa<llm::LlmDialect>(op->getDialect())
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
        .wasInterrupted();
  }

  LogicalResult lowerFunction(func::FuncOp f, SymbolTable &symbols,
                              bool outlineLaunches) {
    if (f.getNumResults() != 0)
      return f.emitOpError("holds llm ops and returns values; lowered, it "
                           "returns the ops' PlanResult code (i32) instead, "
                           "so it must return nothing itself");
    if (!f.getBody().hasOneBlock())
      return f.emitOpError("holds llm ops in a body of several blocks; "
                           "write it with structured control flow");
    Block &body = f.getBody().front();
    unsigned next = 0;
    FailureOr<Value> lowered =
        lowerBlock(body, Value(), f, symbols, outlineLaunches, next);
    if (failed(lowered))
      return failure();
    Value status = *lowered;
    // The function returns the status of its llm ops (0 when none had
    // one).
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    OpBuilder builder(ret);
    if (!status)
      status = arith::ConstantOp::create(builder, f.getLoc(),
                                         builder.getI32IntegerAttr(0));
    f.setType(FunctionType::get(f.getContext(), f.getArgumentTypes(),
                                {builder.getI32Type()}));
    ret->setOperands(status);
    return success();
  }

  /// Whether `op` is an llm op or a collective of a sharded program (what
  /// joins the status chain).
  static bool joinsChain(Operation *op) {
    return isa<llm::LlmDialect>(op->getDialect()) ||
           isa<wsp::AllReduceOp, wsp::AllGatherOp, wsp::AllToAllOp,
               wsp::AllSliceOp>(op);
  }

  /// Lowers the llm ops of `block` in order, each guarded by `status` (the
  /// ops before it succeeded), and of the scf.if branches in it. Returns
  /// the status after them (null when there was none and none came in).
  /// `next` numbers the ops of the function in program order.
  FailureOr<Value> lowerBlock(Block &block, Value status, func::FuncOp f,
                              SymbolTable &symbols, bool outline,
                              unsigned &next) {
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (joinsChain(op)) {
        FailureOr<Value> after =
            lowerOne(op, status, f, symbols, outline, next);
        if (failed(after))
          return failure();
        status = *after;
        continue;
      }
      // Regions without llm ops are left as they are (a collective in a
      // loop of its own is not chained).
      if (!op->walk([](Operation *inner) {
               return isa<llm::LlmDialect>(inner->getDialect())
                          ? WalkResult::interrupt()
                          : WalkResult::advance();
             }).wasInterrupted())
        continue;
      auto branch = dyn_cast<scf::IfOp>(op);
      if (!branch) {
        op->walk([](Operation *inner) {
          if (isa<llm::LlmDialect>(inner->getDialect()))
            inner->emitOpError(
                "lowers only in its function's top block or an scf.if's "
                "branches, where its status can end the function");
        });
        return failure();
      }
      FailureOr<Value> after =
          lowerIf(branch, status, f, symbols, outline, next);
      if (failed(after))
        return failure();
      status = *after;
    }
    return status;
  }

  /// An scf.if whose branches hold llm ops: each branch runs its ops after
  /// the ones before the if, and the if yields the branch's status as one
  /// more result, which the ops after it are guarded by.
  FailureOr<Value> lowerIf(scf::IfOp branch, Value status, func::FuncOp f,
                           SymbolTable &symbols, bool outline,
                           unsigned &next) {
    FailureOr<Value> thenStatus =
        lowerBlock(*branch.thenBlock(), status, f, symbols, outline, next);
    if (failed(thenStatus))
      return failure();
    FailureOr<Value> elseStatus = status;
    if (branch.elseBlock())
      elseStatus =
          lowerBlock(*branch.elseBlock(), status, f, symbols, outline, next);
    if (failed(elseStatus))
      return failure();
    OpBuilder b(branch);
    Location loc = branch.getLoc();
    Value before = status ? status
                          : arith::ConstantOp::create(b, loc,
                                                      b.getI32IntegerAttr(0))
                                .getResult();
    SmallVector<Type> types(branch.getResultTypes());
    types.push_back(b.getI32Type());
    auto withStatus = scf::IfOp::create(b, loc, types, branch.getCondition(),
                                        /*withElseRegion=*/true);
    withStatus.getThenRegion().takeBody(branch.getThenRegion());
    auto yieldStatus = [&](Block *block, Value value) {
      auto yield = cast<scf::YieldOp>(block->getTerminator());
      SmallVector<Value> operands(yield.getOperands());
      operands.push_back(value ? value : before);
      OpBuilder yb(yield);
      scf::YieldOp::create(yb, yield.getLoc(), operands);
      yield.erase();
    };
    yieldStatus(withStatus.thenBlock(), *thenStatus);
    if (branch.elseBlock()) {
      withStatus.getElseRegion().takeBody(branch.getElseRegion());
      yieldStatus(withStatus.elseBlock(), *elseStatus);
    } else {
      Region &otherwise = withStatus.getElseRegion();
      if (otherwise.empty())
        otherwise.emplaceBlock();
      OpBuilder eb = OpBuilder::atBlockEnd(&otherwise.front());
      scf::YieldOp::create(eb, loc, before);
    }
    for (auto [old, kept] :
         llvm::zip(branch.getResults(), withStatus.getResults()))
      old.replaceAllUsesWith(kept);
    branch.erase();
    return withStatus.getResults().back();
  }

  /// Lowers one llm op or collective guarded by `status`; returns the
  /// status after it.
  FailureOr<Value> lowerOne(Operation *op, Value status, func::FuncOp f,
                            SymbolTable &symbols, bool outlineLaunches,
                            unsigned &next) {
    // (Collectives take a number too: the ops are named by their place.)
    const unsigned i = next++;
    if (!isa<llm::LlmDialect>(op->getDialect()))
      return joinCollective(op, status);
    // all_reduce without a device grid runs on the one rank this program
    // runs on, where it leaves the buffer as it is; over a grid, it is
    // the collective.
    if (auto reduce = dyn_cast<llm::AllReduceOp>(op)) {
      if (reduce.getGrid())
        status = lowerAllReduce(reduce, status);
      op->erase();
      return status;
    }
    std::string name =
        (f.getSymName() + "_" + op->getName().stripDialect() + "_" +
         Twine(i))
            .str();
    FailureOr<Lowered> lowered = lower(op, name, vectorCores);
    if (failed(lowered))
      return failure();
    // Workspaces become arguments of the function, after the user's,
    // named for the op (and the part, when it has several) in their
    // `llm.workspace` attribute.
    unsigned parts = llvm::count_if(
        lowered->args, [](const NamedOperand &a) { return !a.value; });
    for (NamedOperand &a : lowered->args) {
      if (a.value)
        continue;
      unsigned at = f.getNumArguments();
      Builder b(f.getContext());
      std::string label = parts == 1 ? name : name + "." + a.name;
      if (failed(f.insertArgument(
              at, a.type,
              b.getDictionaryAttr(b.getNamedAttr(
                  "llm.workspace", b.getStringAttr(label))),
              op->getLoc())))
        return failure();
      a.value = f.getArgument(at);
    }
    FailureOr<Value> after = inlineWorkload(op, *lowered, status, f, symbols,
                                           name, outlineLaunches);
    if (failed(after))
      return failure();
    op->erase();
    return *after;
  }

  /// Parses the op's workload, moves its tier configuration and kernel
  /// before `f`, and inlines its planner at the op, guarded by `status`
  /// (it runs only while every earlier op succeeded; the first op has no
  /// guard). With `outline`, the planner stays a private function,
  /// `@<kernel>_launch`, which the guard calls: one launch of a captured
  /// step. Returns the new status.
  FailureOr<Value> inlineWorkload(Operation *op, const Lowered &lowered,
                                  Value status, func::FuncOp f,
                                  SymbolTable &symbols, StringRef name,
                                  bool outline) {
    // Parsed with the templates' SSA names kept (the emitters print them).
    ParserConfig config(op->getContext());
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(lowered.text, "llm-to-wsp"),
        llvm::SMLoc());
    OwningOpRef<ModuleOp> parsed = parseModuleWithNames(sourceMgr, config);
    if (!parsed)
      return op->emitOpError("produced a workload that does not parse "
                             "(a bug in convert-llm-to-wsp)");
    // Everything the op became points back at it, under its template name.
    auto atOp = [&](Location old) -> Location {
      StringRef name = getSourceName(old);
      if (name.empty())
        return op->getLoc();
      return NameLoc::get(StringAttr::get(op->getContext(), name),
                          op->getLoc());
    };
    parsed->walk([&](Operation *inner) {
      inner->setLoc(atOp(inner->getLoc()));
      for (Region &region : inner->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setLoc(atOp(arg.getLoc()));
    });
    func::FuncOp plan;
    for (Operation &inner :
         llvm::make_early_inc_range(parsed->getBody()->getOperations())) {
      if (auto p = dyn_cast<func::FuncOp>(inner)) {
        plan = p;
        continue;
      }
      if (auto sym = dyn_cast<SymbolOpInterface>(inner);
          sym && symbols.lookup(sym.getName()))
        return op->emitOpError("would define @")
               << sym.getName() << ", which the module already has";
      inner.remove();
      symbols.insert(&inner, Block::iterator(f));
    }

    if (outline) {
      // The planner as the launch function, named for its kernel.
      std::string launch = (name + "_launch").str();
      if (symbols.lookup(launch))
        return op->emitOpError("would define @")
               << launch << ", which the module already has";
      plan.setSymName(launch);
      plan.setPrivate();
      plan->remove();
      symbols.insert(plan, Block::iterator(f));
    }
    // The planner's body, its arguments bound to the op's operands; its
    // returned status. Outlined, a call of it.
    auto plannerStatus = [&](OpBuilder &b) -> Value {
      if (outline) {
        SmallVector<Value> operands;
        for (const NamedOperand &a : lowered.args)
          operands.push_back(a.value);
        return func::CallOp::create(b, op->getLoc(), plan, operands)
            .getResult(0);
      }
      IRMapping map;
      for (auto [arg, operand] : llvm::zip(plan.getArguments(), lowered.args))
        map.map(arg, operand.value);
      for (Operation &inner : plan.getBody().front().without_terminator())
        b.clone(inner, map);
      auto ret = cast<func::ReturnOp>(plan.getBody().front().getTerminator());
      return map.lookup(ret.getOperand(0));
    };
    OpBuilder builder(op);
    return guarded(builder, op->getLoc(), status, plannerStatus);
  }

  /// The status of running `run` (built by it) only while `status` is 0,
  /// else `status`; with no status yet, `run`'s own.
  static Value guarded(OpBuilder &builder, Location loc, Value status,
                       function_ref<Value(OpBuilder &)> run) {
    if (!status)
      return run(builder);
    Value zero =
        arith::ConstantOp::create(builder, loc, builder.getI32IntegerAttr(0));
    Value go = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                     status, zero);
    auto guard = scf::IfOp::create(builder, loc, builder.getI32Type(), go,
                                   /*withElseRegion=*/true);
    OpBuilder then = guard.getThenBodyBuilder();
    scf::YieldOp::create(then, loc, run(then));
    // Else: an earlier op failed; keep its status.
    OpBuilder otherwise = guard.getElseBodyBuilder();
    scf::YieldOp::create(otherwise, loc, status);
    return guard.getResult(0);
  }

  /// A wsp collective already in the function (a sharded program's): it
  /// runs after the ops before it, joining the call not ready when one of
  /// them failed (its own `after`, if any, counts too: the first failure
  /// wins). Returns the new status.
  static Value joinCollective(Operation *op, Value status) {
    MutableOperandRange after =
        TypeSwitch<Operation *, MutableOperandRange>(op)
            .Case<wsp::AllReduceOp, wsp::AllGatherOp, wsp::AllToAllOp,
                  wsp::AllSliceOp>([](auto c) { return c.getAfterMutable(); });
    if (status) {
      Value joined = status;
      if (!after.empty()) {
        OpBuilder b(op);
        Value zero = arith::ConstantOp::create(b, op->getLoc(),
                                               b.getI32IntegerAttr(0));
        Value failed = arith::CmpIOp::create(
            b, op->getLoc(), arith::CmpIPredicate::ne, status, zero);
        joined = arith::SelectOp::create(b, op->getLoc(), failed, status,
                                         after[0].get());
      }
      after.assign(joined);
    }
    return op->getResult(0);
  }

  /// llm.all_reduce over a device grid: wsp.all_reduce on the buffer, in
  /// place. Not guarded like an op's planner: a rank whose earlier ops
  /// failed still joins the collective (`after`), so no rank waits for it.
  static Value lowerAllReduce(llm::AllReduceOp op, Value status) {
    shard::ReductionKind kind = shard::ReductionKind::Sum;
    if (op.getKind() == llm::ReduceKind::max)
      kind = shard::ReductionKind::Max;
    else if (op.getKind() == llm::ReduceKind::min)
      kind = shard::ReductionKind::Min;
    OpBuilder b(op);
    return wsp::AllReduceOp::create(
        b, op.getLoc(), b.getI32Type(), op.getHiddenStates(), op.getGridAttr(),
        shard::ReductionKindAttr::get(b.getContext(), kind), status);
  }
};

} // namespace
