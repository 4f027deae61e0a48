//===- Lowering.h - the kernel families' shared lowering API ----*- C++ -*-===//
//
// convert-llm-to-wsp lowers each llm op with the kernel family that owns
// it (RowOps.cpp, TokenRows.cpp, Matmul.cpp, Moe.cpp, ModelEnds.cpp,
// Attention.cpp, BenchmarkAttention.cpp). A family writes its planner and
// kernel as IR fragments (Templates/<Family>.mlir.in, embedded when the
// project is built), fills their `${KEY}` parameters from the op's static
// sizes, and registers one lowering per op in a LoweringRegistry. The pass
// (LlmToWsp.cpp) parses what a lowering returns and moves it into place.
//
// This header is private to lib/Conversion/LlmToWsp.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_LIB_CONVERSION_LLMTOWSP_LOWERING_H
#define WSP_LIB_CONVERSION_LLMTOWSP_LOWERING_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/TypeID.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <pto/runtime/hardware.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace mlir::wsp::lowering {

//===----------------------------------------------------------------------===//
// The fragments
//===----------------------------------------------------------------------===//

// kRowPlanner, kMatmulKernel, ...: one StringLiteral per fragment of the
// families' .mlir.in files; kFragmentKeys: every key they name.
#include "LlmToWspFragments.inc"

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

/// The values of a lowering's `${KEY}` parameters. A value is IR text and
/// may name keys itself (a piece of a kernel is a value). The keys are a
/// declared set: those a fragment names (kFragmentKeys) and those only the
/// pieces the families build in C++ name (kPieceKeys in Lowering.cpp).
/// instantiate() reports, at the op, a value given for an undeclared key,
/// a key named but given no value, and a piece that contains itself.
class Params {
public:
  Params() = default;
  Params(std::initializer_list<std::pair<const std::string, std::string>> init)
      : values(init) {}

  /// The value of `key`, to be set.
  std::string &operator[](const std::string &key) { return values[key]; }
  /// Typed values: a type or attribute as the IR prints it, a number in
  /// decimal.
  void set(const std::string &key, Type type);
  void set(const std::string &key, Attribute attr);
  void set(const std::string &key, int64_t number);
  /// Sets each key of `defaults` that has no value yet: a family's shared
  /// helpers give defaults that an op's own values override.
  void setDefault(const std::string &key, std::string value) {
    values.try_emplace(key, std::move(value));
  }
  void
  setDefaults(std::initializer_list<std::pair<const std::string, std::string>>
                  defaults);
  /// Sets a key derived from an operand's name (`<NAME>_TYPE`,
  /// `LOAD_<name>`), given for every operand whether or not a fragment
  /// names it: such a key is declared by the operand.
  void setDerived(const std::string &key, std::string value);
  bool has(const std::string &key) const { return values.count(key); }
  /// The value of a key that has one.
  const std::string &get(const std::string &key) const {
    return values.at(key);
  }

  const std::map<std::string, std::string> &all() const { return values; }
  /// Whether `key` was set with setDerived.
  bool isDerived(const std::string &key) const { return derived.count(key); }

private:
  std::map<std::string, std::string> values;
  std::set<std::string> derived;
};

/// `text` with the keys that `values` gives replaced by their values (not
/// recursively); the others are left for instantiate(). For a piece filled
/// twice with different values.
std::string fillKeys(StringRef text, const Params &values);

//===----------------------------------------------------------------------===//
// What a lowering returns
//===----------------------------------------------------------------------===//

/// One operand of an llm op as the kernel and the planner see it: its seed
/// name and value.
struct NamedOperand {
  std::string name;
  Value value;
  /// The type when there is no value yet (a workspace argument).
  Type type = {};
  Type getType() const { return value ? value.getType() : type; }
};

struct Lowered {
  std::string text; // the module of fragments, instantiated
  /// The planner's arguments, in order. Those without a value are the
  /// global-memory workspaces the op needs (cube <-> vector exchange, state
  /// carried between a row's chunks): each becomes an argument of the
  /// function, of the type given.
  SmallVector<NamedOperand> args;
};

/// The op's lowering: the planner and kernel fragments with every key
/// replaced by its value (values may name keys in turn). A key without a
/// value, a value for an undeclared key or a value that contains itself is
/// an error at `op` (a bug in the family, which its tests find).
FailureOr<Lowered> instantiate(Operation *op, const Params &values,
                               StringRef planner, StringRef kernel,
                               SmallVector<NamedOperand> args);

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

/// The lowerings of the llm ops, one per op, each registered by its family.
class LoweringRegistry {
public:
  /// How an op lowers: `name` names its kernel, `cores` is the pass's
  /// vector-cores option.
  using Fn = std::function<FailureOr<Lowered>(Operation *op, StringRef name,
                                              int64_t cores)>;

  template <typename OpTy>
  void
  add(std::function<FailureOr<Lowered>(OpTy op, StringRef name, int64_t cores)>
          fn) {
    bool inserted =
        lowerings
            .try_emplace(TypeID::get<OpTy>(),
                         [fn = std::move(fn)](Operation *op, StringRef name,
                                              int64_t cores) {
                           return fn(cast<OpTy>(op), name, cores);
                         })
            .second;
    assert(inserted && "an op has one lowering");
    (void)inserted;
  }

  /// The op's lowering, or a diagnostic at it when no family lowers it.
  FailureOr<Lowered> lower(Operation *op, StringRef name, int64_t cores) const;

private:
  llvm::DenseMap<TypeID, Fn> lowerings;
};

/// The families. Row operators: rms_norm, scale_dynamic_quant,
/// add_rms_norm_dynamic_quant, head_rms_norm.
void populateRowOpLowerings(LoweringRegistry &registry);
/// Token rows: rotary_embedding, store_kv_cache, store_paged_kv_cache.
void populateTokenRowLowerings(LoweringRegistry &registry);
/// Matmuls of token rows: quant_matmul, moe_quant_matmul,
/// moe_gating_gemm.
void populateMatmulLowerings(LoweringRegistry &registry);
/// MoE: moe_quant_group_gemm, moe_scatter_dynamic_quant, moe_gather,
/// moe_softmax_topk, moe_swiglu_dynamic_quant.
void populateMoeLowerings(LoweringRegistry &registry);
/// The model's ends: embedding, argmax.
void populateModelEndLowerings(LoweringRegistry &registry);
/// Paged attention: flash_attention_decode, flash_attention_prefill.
void populateAttentionLowerings(LoweringRegistry &registry);
/// The benchmark attention operators: flash_attention, flash_decoding.
void populateBenchmarkAttentionLowerings(LoweringRegistry &registry);

//===----------------------------------------------------------------------===//
// Helpers the families share
//===----------------------------------------------------------------------===//

std::string str(Type t);
std::string str(Attribute a);

/// `%a: T, %b: U` and `%a, %b : T, U` for a list of operands.
std::string signature(ArrayRef<NamedOperand> args);
std::string callArgs(ArrayRef<NamedOperand> args);

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
                   StringRef result = "%shapes_ok");

/// checks() into `%dims_ok`, then `%shapes_ok`: those and `also`, an i1 the
/// op's own checks set.
std::string checksAnd(ArrayRef<NamedOperand> args, ArrayRef<DimCheck> wanted,
                      StringRef also);

/// A plan's configuration (`#wsp.plan_config`): chunks of at least
/// `chunkMin` rows, at most `units` work units; with `balanced` false,
/// chunks of exactly the chunk size, a row range's last one partial.
std::string planConfig(StringRef chunkMin, StringRef units,
                       bool balanced = true);

/// Tile types, as the tile dialect spells them (the *_type fragments of
/// Common.mlir.in): `rows` x `cols` of `elem` (`?` for a size a tier
/// constant fixes) in `loc`, the tile's buffer (vec: UB; mat, left, right,
/// acc: the cube's); `zn`, the cube's zN layout (a transposed load's).
/// A tile valid as a whole, or in its first `validCols` columns (every
/// row; nz and the location's default layouts only):
std::string tileType(StringRef loc, StringRef rows, StringRef cols,
                     StringRef elem, bool zn = false, StringRef validCols = "");
/// A tile whose valid rows are set at run time (`valid(%n)`), its first
/// `validCols` columns valid (all of them unless given):
std::string rowsTileType(StringRef loc, StringRef rows, StringRef cols,
                         StringRef elem, bool zn = false,
                         StringRef validCols = "");
/// A statistic per row: a col_major column of `rows` of `elem`, its valid
/// rows set at run time.
std::string rowStatType(StringRef rows, StringRef elem = "f32");

/// Rows of a row-wise kernel's tiles: 8 f32 row statistics make one
/// 32-byte row when reshaped to [1 x 8].
constexpr int64_t kRows = 8;
/// The widest column chunk of a row-wise kernel.
constexpr int64_t kMaxCols = 1024;

/// The largest multiple of `step` that divides `total` and is at most
/// `most`, or 0 when there is none.
int64_t largestDivisor(int64_t total, int64_t most, int64_t step);

/// `x` rounded up to a multiple of `m`.
int64_t roundUp(int64_t x, int64_t m);

/// The kernel's column chunk: all of hidden_size up to `maxCols`
/// (kMaxCols unless a kernel's tiles leave room for more), else its
/// largest divisor below that which is a multiple of `align` (16 for bf16
/// rows, 32 when an int8 row must be whole 32-byte blocks too).
FailureOr<int64_t> rowChunk(Operation *op, int64_t hidden, int64_t align,
                            int64_t maxCols = kMaxCols);
FailureOr<int64_t> rowChunk(Operation *op, Value hiddenStates, int64_t align,
                            int64_t maxCols = kMaxCols);

/// The emitters take row-major buffers: views of another layout are
/// diagnosed at the op.
LogicalResult requireIdentityLayouts(Operation *op,
                                     ArrayRef<NamedOperand> args);

/// `${<NAME>_TYPE}` for each argument: its type.
void addTypeValues(Params &v, ArrayRef<NamedOperand> args);

/// What kRowPlanner needs: the names, the planner's arguments (the first
/// is hidden_states, whose dim 0 is num_tokens), and the plan's bounds.
/// An op may set its own ROWS (the plan's chunk_min) and UNITS first.
void addPlanValues(Params &v, StringRef name, ArrayRef<NamedOperand> args,
                   int64_t cores);

/// The tile types of a kernel with `rows` rows (kRows unless a kernel
/// takes more) of `cols` columns.
void addTileValues(Params &v, int64_t cols, int64_t rows = kRows);

/// What the quant fragment takes besides its input: where its second pass
/// gets its chunks and its conversion tiles. With `rowKept` (a row is one
/// chunk, `${QUANT_INPUT}` run once), the second pass takes the row still in
/// %xf and the conversion tiles share %sq's bytes; else it runs
/// `${QUANT_INPUT}` again into tiles of their own.
void addQuantValues(Params &v, bool rowKept);

/// Rows of a kernel whose tile rows are heads of one token: all `heads`
/// of them (rounded up to whole kRows blocks), so that a token costs one
/// pass of the kernel's vector instructions rather than one per kRows
/// heads, as long as its tiles, `bytesPerRow` for each row, take at most
/// half of UB (else as many kRows blocks as do, at least one).
int64_t headTileRows(int64_t heads, int64_t bytesPerRow);

/// A head range of a packed QKV (the seed's "kv_head_num may be indices
/// from [q_head_num + 2 * kv_head_num]"): `memref.subview %base[0, h0, 0]`
/// (or [0, 0, h0, 0] unpacked) with unit strides, whole in every other
/// dimension, of a row-major base. Returns the base and h0; any other value
/// is its own base at head 0.
std::pair<Value, int64_t> headRangeOf(Value v);

/// Shared by the cube families (Matmul.cpp defines the functions).
/// Blocks (a cube core and its vector cores) a matmul runs on: every cube
/// core; each has its slot of the workspace.
constexpr int64_t kCubeBlocks = pto::runtime::kNumCubeCores;
/// Token rows of one cube tile (M), and the widest K and N tiles: each
/// K x N tile of weights in L0B serves 128 rows, so that the cube's work
/// on it outlasts its move from L1 (Backend.md, "A GEMM recipe").
constexpr int64_t kMatmulRows = 128, kMaxKTile = 256, kMaxNTile = 128;
/// The M tile of a matmul over at most this many token rows (a decode
/// step): pto-isa moves a tile into L0A whole, valid rows or not.
constexpr int64_t kSmallMatmulRows = 32;
/// Descriptors a matmul plan may write.
constexpr int64_t kMatmulUnits = 1024;
/// The work units a matmul plan aims at: one per cube core, so that each
/// unit's rows are as many as the cores allow and the weight panel it
/// keeps in L1 serves them all (its chunk is the smallest that gives at
/// most this many units; with more N tiles than this, one unit per N
/// tile).
constexpr int64_t kMatmulPlanUnits = kCubeBlocks;

/// The K and N tiles of a matmul over K x N weights of `elemBytes`-byte
/// elements (N tiles of at most `maxNTile` columns; K tiles of at most
/// kMaxKTile bytes a row, so that double-buffered A and B tiles fit L0A
/// and L0B), or a diagnostic unless K is a multiple of 32 and N of 16
/// (whole 32-byte int8 and bf16 rows), or of 8 for bf16 elements.
FailureOr<std::pair<int64_t, int64_t>> matmulTiles(Operation *op, int64_t k,
                                                   int64_t n, int64_t maxNTile,
                                                   int64_t elemBytes = 1);

/// The columns of the cube's tiles (L1, L0B, L0C) that hold an N tile of
/// `nTile` columns: an int8 weight read untransposed is an nz tile of
/// 16 x 32 fractal boxes, so its N tile is padded to whole 32 columns, the
/// first nTile valid (`int8Nz`); otherwise to whole 16 (a bf16 N tile of
/// 8).
int64_t cubeNCols(int64_t nTile, bool int8Nz);

/// How a matmul's weights reach L0B (matmul_kernel's B_PANEL, LOAD_B and
/// MOVE_B): the unit's whole K x N panel (`nCols` columns in the cube's
/// tiles, the first `nTile` valid; zn when read transposed) kept in L1
/// across its M tiles where it fits in half of L1 and the unit has more
/// than one, loaded once by the fragment `loadPanel`; else a K tile a step
/// (`loadB`).
void addWeightPath(Params &v, int64_t k, int64_t kTile, int64_t nCols,
                   int64_t nTile, StringRef elem, bool zn, StringRef loadPanel,
                   StringRef loadB);

/// The rows of a matmul epilogue's vector tiles for an N tile of `nTile`
/// columns: its six tiles of them (i32, two f32, bf16 and row statistics)
/// hold at most 8192 elements each, within UB (whole 16 rows).
int64_t epilogueRows(int64_t nTile);

/// A matmul's plan: units of at least `chunkMin` rows (whole M tiles),
/// at most `units` of them where the rows allow, and chunks of exactly the
/// (M-tile-rounded) chunk size, the last one of a row range partial:
/// balanced chunks would cut every unit off the M tile grid, so that each
/// unit's last tile were partial, not only a range's last.
std::string matmulPlanConfig(int64_t units = kMatmulPlanUnits,
                             int64_t chunkMin = kMatmulRows);

/// The split of a kernel's vector work over a block's vector cores (two on
/// A2/A3, one in the CPU simulation; this one is %sb of %nsb), one rule for
/// the rows of the attention and matmul kernels and the positions of an
/// int8 page segment: of `count` items this core takes `n` from `first`,
/// every core as many, so an odd count leaves the middle one to both (which
/// write the same bytes) and no core is left with none.
std::string vectorCoreShare(StringRef count, StringRef n, StringRef first);

} // namespace mlir::wsp::lowering

#endif // WSP_LIB_CONVERSION_LLMTOWSP_LOWERING_H
