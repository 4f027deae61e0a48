//===- LlmOps.cpp - llm operations and their verifiers --------------------===//
//
// Every op checks its operands against the seed's table: rank, dtype, and
// one static size per named dimension across all operands that carry it.
// The checks are declarative calls on a `Signature`, so an op's verifier
// reads like its row of the seed.
//
//===----------------------------------------------------------------------===//

#include "wsp/Dialect/Llm/IR/LlmOps.h"
#include "wsp/Dialect/Llm/IR/LlmDialect.h"
#include "wsp/Support/RankGroups.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>

using namespace mlir;
using namespace mlir::wsp::llm;

#include "wsp/Dialect/Llm/IR/LlmEnums.cpp.inc"

#define GET_OP_CLASSES
#include "wsp/Dialect/Llm/IR/LlmOps.cpp.inc"

namespace {

/// Element types an operand may have (a set).
enum DType : unsigned { BF16 = 1, F32 = 2, I8 = 4, I32 = 8 };

bool hasDType(Type t, unsigned allowed) {
  return ((allowed & BF16) && t.isBF16()) || ((allowed & F32) && t.isF32()) ||
         ((allowed & I8) && t.isSignlessInteger(8)) ||
         ((allowed & I32) && t.isSignlessInteger(32));
}

std::string dtypeNames(unsigned allowed) {
  SmallVector<StringRef> names;
  if (allowed & BF16)
    names.push_back("bf16");
  if (allowed & F32)
    names.push_back("f32");
  if (allowed & I8)
    names.push_back("i8");
  if (allowed & I32)
    names.push_back("i32");
  return llvm::join(names, " or ");
}

/// A dimension of the seed's shape: a name, optionally plus a constant
/// ("batch_size+1").
struct DimSpec {
  StringRef name;
  int64_t offset = 0;
  static DimSpec parse(StringRef spec) {
    auto [name, rest] = spec.split('+');
    DimSpec d{name.trim(), 0};
    if (!rest.empty())
      (void)rest.trim().getAsInteger(10, d.offset);
    return d;
  }
  std::string str() const {
    return offset ? (name + " + " + Twine(offset)).str() : name.str();
  }
};

/// Checks operands against the seed's shapes and dtypes, binding each named
/// dimension to the first static size seen for it. Stops at the first
/// error, which names the operand and the dimension.
class Signature {
public:
  explicit Signature(Operation *op) : op(op) {}

  Signature &operand(Value v, StringRef name, ArrayRef<StringRef> dims,
                     unsigned dtypes) {
    if (failed)
      return *this;
    auto type = cast<MemRefType>(v.getType());
    std::string shape = "[" +
                        llvm::join(llvm::map_range(dims,
                                                   [](StringRef d) {
                                                     return DimSpec::parse(d)
                                                         .str();
                                                   }),
                                   ", ") +
                        "]";
    if (type.getRank() != static_cast<int64_t>(dims.size())) {
      error() << "'" << name << "' must have rank " << dims.size() << " "
              << shape << ", got " << type;
      return *this;
    }
    if (!hasDType(type.getElementType(), dtypes)) {
      error() << "'" << name << "' must hold " << dtypeNames(dtypes)
              << ", got " << type;
      return *this;
    }
    for (auto [i, spec] : llvm::enumerate(dims)) {
      if (type.isDynamicDim(i))
        continue;
      DimSpec d = DimSpec::parse(spec);
      int64_t value = type.getDimSize(i) - d.offset;
      auto [it, inserted] =
          bound.try_emplace(d.name, Binding{value, ("'" + name + "'").str(), d.offset});
      if (inserted || it->second.value == value)
        continue;
      const Binding &b = it->second;
      DimSpec first{d.name, b.offset};
      error() << "'" << name << "' has " << d.str() << " = "
              << type.getDimSize(i) << " but " << b.operand << " has "
              << first.str() << " = " << b.value + b.offset;
      return *this;
    }
    return *this;
  }

  Signature &optional(Value v, StringRef name, ArrayRef<StringRef> dims,
                      unsigned dtypes) {
    return v ? operand(v, name, dims, dtypes) : *this;
  }

  /// Binds a dimension to a value the op's attributes give it.
  Signature &bind(StringRef dim, int64_t value, StringRef what) {
    if (failed)
      return *this;
    auto it = bound.find(dim);
    if (it != bound.end() && it->second.value != value) {
      error() << what << " gives " << dim << " = " << value << " but "
              << it->second.operand << " has " << dim << " = "
              << it->second.value;
      return *this;
    }
    bound.try_emplace(dim, Binding{value, what.str(), 0});
    return *this;
  }

  /// The static size of a dimension, if some operand fixed it.
  std::optional<int64_t> size(StringRef dim) const {
    auto it = bound.find(dim);
    if (it == bound.end())
      return std::nullopt;
    return it->second.value;
  }

  InFlightDiagnostic error() {
    failed = true;
    return op->emitOpError();
  }
  bool ok() const { return !failed; }
  LogicalResult result() const { return success(!failed); }

private:
  struct Binding {
    int64_t value;
    std::string operand;
    int64_t offset;
  };
  Operation *op;
  bool failed = false;
  llvm::StringMap<Binding> bound;
};

int64_t rankOf(Value v) { return cast<MemRefType>(v.getType()).getRank(); }
Type elementOf(Value v) { return cast<MemRefType>(v.getType()).getElementType(); }

LogicalResult verifyEps(Operation *op, APFloat eps) {
  if (eps.isNaN() || eps.isInfinity() || eps.isNegative())
    return op->emitOpError("eps must be finite and non-negative, got ")
           << eps.convertToDouble();
  return success();
}

/// `present` iff `given`, for an optional output that exists exactly when
/// its optional input does.
LogicalResult verifyPairedOptional(Operation *op, Value input, StringRef inName,
                                   Value output, StringRef outName) {
  if (input && !output)
    return op->emitOpError("has '")
           << inName << "' but no '" << outName << "' output to write";
  if (!input && output)
    return op->emitOpError("has an '")
           << outName << "' output but no '" << inName << "'";
  return success();
}

/// int8 caches come with both scales, bf16 caches with none; the two caches
/// have one dtype.
LogicalResult verifyCacheScales(Operation *op, Value kCache, Value vCache,
                                Value kScale, StringRef kScaleName,
                                Value vScale, StringRef vScaleName) {
  Type kType = elementOf(kCache), vType = elementOf(vCache);
  if (kType != vType)
    return op->emitOpError("'k_cache' and 'v_cache' must hold one dtype, got ")
           << kType << " and " << vType;
  bool int8 = kType.isSignlessInteger(8);
  for (auto [scale, name] : {std::pair(kScale, kScaleName),
                             std::pair(vScale, vScaleName)}) {
    if (int8 && !scale)
      return op->emitOpError("int8 caches need '") << name << "'";
    if (!int8 && scale)
      return op->emitOpError("'")
             << name << "' is given but the caches hold " << kType
             << "; scales are for int8 caches only";
  }
  return success();
}

LogicalResult verifyPositive(Operation *op, int64_t value, StringRef name) {
  if (value < 1)
    return op->emitOpError() << name << " must be at least 1, got " << value;
  return success();
}

/// The packed (rank `packedRank`) or unpacked (one more) form of a token
/// tensor: returns the seed's dimension names for its rank, or none with a
/// diagnostic.
std::optional<SmallVector<StringRef>>
tokenDims(Operation *op, Value v, StringRef name, int64_t packedRank,
          ArrayRef<StringRef> inner) {
  int64_t rank = rankOf(v);
  SmallVector<StringRef> dims;
  if (rank == packedRank) {
    dims.push_back("num_tokens");
  } else if (rank == packedRank + 1) {
    dims.push_back("batch_size");
    dims.push_back("q_seq_len");
  } else {
    op->emitOpError("'") << name << "' must have rank " << packedRank
                         << " (packed) or " << packedRank + 1
                         << " (unpacked), got " << v.getType();
    return std::nullopt;
  }
  dims.append(inner.begin(), inner.end());
  return dims;
}

/// `max_q_len` must be positive and, in the unpacked form, fit q_seq_len.
LogicalResult verifyMaxQLen(Operation *op, int64_t maxQLen, bool packed,
                            const Signature &sig, Value accumQLen) {
  if (failed(verifyPositive(op, maxQLen, "max_q_len")))
    return failure();
  if (!packed) {
    if (auto s = sig.size("q_seq_len"); s && maxQLen > *s)
      return op->emitOpError("max_q_len ")
             << maxQLen << " exceeds the unpacked q_seq_len " << *s;
    if (accumQLen)
      return op->emitOpError("'accum_q_len' is for the packed form only; "
                             "unpacked sequences start at their own row");
  } else if (auto t = sig.size("num_tokens"); t && maxQLen > *t) {
    return op->emitOpError("max_q_len ")
           << maxQLen << " exceeds num_tokens " << *t;
  }
  return success();
}

/// q_head_num must be a multiple of kv_head_num when both are known.
LogicalResult verifyGqa(Operation *op, const Signature &sig) {
  auto q = sig.size("q_head_num"), kv = sig.size("kv_head_num");
  if (kv && *kv < 1)
    return op->emitOpError("kv_head_num must be at least 1, got ") << *kv;
  if (q && kv && *q % *kv != 0)
    return op->emitOpError("q_head_num ")
           << *q << " is not a multiple of kv_head_num " << *kv
           << " (each KV head serves a whole group of query heads)";
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Norms and quantization
//===----------------------------------------------------------------------===//

LogicalResult ScaleDynamicQuantOp::verify() {
  Signature sig(*this);
  sig.operand(getHiddenStates(), "hidden_states", {"num_tokens", "hidden_size"},
              BF16)
      .operand(getSmoothScale(), "smooth_scale", {"hidden_size"}, F32)
      .operand(getY(), "y", {"num_tokens", "hidden_size"}, I8)
      .operand(getScale(), "scale", {"num_tokens"}, F32);
  return sig.result();
}

namespace {
/// The residual norms' shared rules: hidden_states and the optional
/// residual / after_res pair as rows, a weight of `weightTypes`, then the
/// op's own outputs (`rest`), after_res iff residual, and eps.
template <typename NormOp, typename Rest>
LogicalResult verifyResidualNorm(NormOp op, unsigned weightTypes, Rest rest) {
  SmallVector<StringRef> rows = {"num_tokens", "hidden_size"};
  Signature sig(op);
  sig.operand(op.getHiddenStates(), "hidden_states", rows, BF16)
      .optional(op.getResidual(), "residual", rows, BF16)
      .operand(op.getWeight(), "weight", {"hidden_size"}, weightTypes)
      .optional(op.getAfterRes(), "after_res", rows, BF16);
  rest(sig);
  if (!sig.ok())
    return failure();
  if (failed(verifyPairedOptional(op, op.getResidual(), "residual",
                                  op.getAfterRes(), "after_res")))
    return failure();
  return verifyEps(op, op.getEps());
}
} // namespace

LogicalResult RmsNormOp::verify() {
  return verifyResidualNorm(*this, F32, [&](Signature &sig) {
    sig.operand(getY(), "y", {"num_tokens", "hidden_size"}, BF16);
  });
}

LogicalResult AddRmsNormDynamicQuantOp::verify() {
  return verifyResidualNorm(*this, BF16 | F32, [&](Signature &sig) {
    sig.operand(getSmoothScale(), "smooth_scale", {"hidden_size"}, BF16 | F32)
        .operand(getY(), "y", {"num_tokens", "hidden_size"}, I8)
        .operand(getPerTokenScale(), "per_token_scale", {"num_tokens"}, F32);
  });
}

LogicalResult QuantMatmulOp::verify() {
  Signature sig(*this);
  auto a = getTransposeA() ? SmallVector<StringRef>{"hidden_size", "num_tokens"}
                           : SmallVector<StringRef>{"num_tokens", "hidden_size"};
  auto b = getTransposeB()
               ? SmallVector<StringRef>{"new_hidden_size", "hidden_size"}
               : SmallVector<StringRef>{"hidden_size", "new_hidden_size"};
  sig.operand(getHiddenStates(), "hidden_states", a, I8)
      .operand(getPerTokenScale(), "per_token_scale", {"num_tokens"}, F32)
      .operand(getWeight(), "weight", b, I8)
      .operand(getWeightScale(), "weight_scale", {"new_hidden_size"},
               BF16 | F32)
      .optional(getBias(), "bias", {"new_hidden_size"}, BF16)
      .operand(getY(), "y", {"num_tokens", "new_hidden_size"}, BF16);
  return sig.result();
}

LogicalResult HeadRmsNormOp::verify() {
  // I32Attr reads back as uint32_t; the seed's int32 is signed.
  int64_t offset = int32_t(getHeadOffset()), num = int32_t(getHeadNum());
  if (failed(verifyPositive(*this, num, "head_num")))
    return failure();
  if (offset < 0)
    return emitOpError("head_offset must be non-negative, got ") << offset;
  Signature sig(*this);
  sig.operand(getHiddenStates(), "hidden_states",
              {"num_tokens", "total_heads", "head_dim"}, BF16)
      .operand(getWeight(), "weight", {"head_num", "head_dim"}, BF16 | F32)
      .bind("head_num", num, "the head_num attribute")
      .operand(getY(), "y", {"num_tokens", "total_heads", "head_dim"}, BF16);
  if (!sig.ok())
    return failure();
  if (auto total = sig.size("total_heads"); total && offset + num > *total)
    return emitOpError("heads [")
           << offset << ", " << offset + num << ") are not inside the "
           << *total << " heads of 'hidden_states'";
  return verifyEps(*this, getEps());
}

//===----------------------------------------------------------------------===//
// Rotary embedding and KV cache stores
//===----------------------------------------------------------------------===//

LogicalResult RotaryEmbeddingOp::verify() {
  int64_t qHeads = int32_t(getQHeadNum()), kvHeads = int32_t(getKvHeadNum());
  int64_t ropeOffset = int32_t(getRopeOffset());
  int64_t ropeDim = int32_t(getRopeDim());
  if (failed(verifyPositive(*this, qHeads, "q_head_num")) ||
      failed(verifyPositive(*this, kvHeads, "kv_head_num")) ||
      failed(verifyPositive(*this, ropeDim, "rope_dim")))
    return failure();
  if (ropeDim % 2)
    return emitOpError("rope_dim must be even (its halves rotate as pairs), "
                       "got ")
           << ropeDim;
  if (ropeOffset < 0)
    return emitOpError("rope_offset must be non-negative, got ") << ropeOffset;
  auto dims = tokenDims(*this, getQkv(), "qkv", 3, {"heads", "head_dim"});
  if (!dims)
    return failure();
  bool packed = rankOf(getQkv()) == 3;
  Signature sig(*this);
  sig.bind("heads", qHeads + 2 * kvHeads, "q_head_num + 2 * kv_head_num")
      .bind("rope_dim", ropeDim, "the rope_dim attribute")
      .operand(getQkv(), "qkv", *dims, BF16)
      .operand(getSin(), "sin", {"max_position_embedding", "rope_dim"}, BF16)
      .operand(getCos(), "cos", {"max_position_embedding", "rope_dim"}, BF16)
      .operand(getPositionIds(), "position_ids", {"batch_size"}, I32)
      .operand(getQLens(), "q_lens", {"batch_size"}, I32)
      .optional(getAccumQLen(), "accum_q_len", {"batch_size+1"}, I32)
      .operand(getOut(), "out", *dims, BF16);
  if (!sig.ok())
    return failure();
  if (auto headDim = sig.size("head_dim");
      headDim && ropeOffset + ropeDim > *headDim)
    return emitOpError("rope range [")
           << ropeOffset << ", " << ropeOffset + ropeDim
           << ") is not inside head_dim " << *headDim;
  return verifyMaxQLen(*this, int32_t(getMaxQLen()), packed, sig,
                       getAccumQLen());
}

namespace {
/// The shared rules of the two KV cache stores.
template <typename StoreOp>
LogicalResult verifyStore(StoreOp op, ArrayRef<StringRef> cacheDims,
                          Value blockTable) {
  auto dims = tokenDims(op, op.getKey(), "key", 3, {"kv_head_num", "head_dim"});
  if (!dims)
    return failure();
  bool packed = rankOf(op.getKey()) == 3;
  Signature sig(op);
  sig.operand(op.getKey(), "key", *dims, BF16)
      .operand(op.getValue(), "value", *dims, BF16);
  if (blockTable)
    sig.operand(blockTable, "block_table",
                {"max_batch_size", "max_block_num_per_seq"}, I32);
  sig.optional(op.getKvIds(), "kv_ids", {"batch_size"}, I32)
      .operand(op.getQLens(), "q_lens", {"batch_size"}, I32)
      .optional(op.getKvLens(), "kv_lens", {"batch_size"}, I32)
      .optional(op.getAccumQLen(), "accum_q_len", {"batch_size+1"}, I32)
      .optional(op.getKeyScale(), "key_scale", {"kv_head_num", "head_dim"}, F32)
      .optional(op.getValueScale(), "value_scale", {"kv_head_num", "head_dim"},
                F32)
      .operand(op.getKCache(), "k_cache", cacheDims, BF16 | I8)
      .operand(op.getVCache(), "v_cache", cacheDims, BF16 | I8);
  if (!sig.ok())
    return failure();
  if (failed(verifyCacheScales(op, op.getKCache(), op.getVCache(),
                               op.getKeyScale(), "key_scale",
                               op.getValueScale(), "value_scale")))
    return failure();
  // max_batch_size: the contiguous caches' slots, or the block table's rows.
  auto b = sig.size("batch_size"), mb = sig.size("max_batch_size");
  if (!op.getKvIds() && b && mb && *b > *mb)
    return op.emitOpError("without 'kv_ids' request b uses ")
           << (blockTable ? "block-table row" : "cache slot")
           << " b, but batch_size " << *b << " exceeds max_batch_size " << *mb;
  return verifyMaxQLen(op, int32_t(op.getMaxQLen()), packed, sig,
                       op.getAccumQLen());
}
} // namespace

LogicalResult StoreKvCacheOp::verify() {
  return verifyStore(*this,
                     {"max_batch_size", "kv_head_num", "max_seq_len",
                      "head_dim"},
                     Value());
}

/// The number of ranks of the group an op's optional `grid` and
/// `grid_axes` name (wsp/Support/RankGroups.h): nullopt when it names no
/// grid or a size is dynamic, failure with a diagnostic when they do not
/// name a group.
template <typename ShardedOp>
static FailureOr<std::optional<int64_t>>
groupOf(ShardedOp op, SymbolTableCollection &tables) {
  if (!op.getGridAttr())
    return std::optional<int64_t>();
  return wsp::rankGroupSize(op, op.getGridAttr(), op.getGridAxesAttr(),
                            &tables);
}

/// Grid axes only with the grid they name axes of.
template <typename GridOp> LogicalResult verifyAxesOnGrid(GridOp op) {
  if (op.getGridAxes() && !op.getGrid())
    return op.emitOpError("grid_axes needs the device grid (on @grid)");
  return success();
}

/// A KV sharding mode, and grid axes, only with the grid they shard over.
template <typename ShardedOp> LogicalResult verifyShardedOn(ShardedOp op) {
  if (op.getKvSharding() && !op.getGrid())
    return op.emitOpError("kv_sharding needs the device grid it shards over "
                          "(on @grid)");
  if (failed(verifyAxesOnGrid(op)))
    return failure();
  if (op.getKvSharding() == KvSharding::kvdp_cp &&
      (!op.getGridAxes() || op.getGridAxes()->size() != 2))
    return op.emitOpError("kv_sharding = kvdp_cp needs two grid_axes: KV "
                          "data parallel along the first, context parallel "
                          "along the second");
  return success();
}

LogicalResult StorePagedKvCacheOp::verify() {
  if (failed(verifyStore(
          *this, {"max_block_num", "kv_head_num", "block_size", "head_dim"},
          getBlockTable())))
    return failure();
  if (getRing() && getGrid())
    return emitOpError("sharded, has no ring (a rank's part of the cache is "
                       "not the positions a ring wraps)");
  return verifyShardedOn(*this);
}

LogicalResult
StorePagedKvCacheOp::verifySymbolUses(SymbolTableCollection &tables) {
  return failure(failed(groupOf(*this, tables)));
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {
/// `qkv` or all of `q`, `k`, `v`; binds q_head_num and kv_head_num.
template <typename AttnOp>
LogicalResult verifyQkvForms(AttnOp op, Signature &sig,
                             ArrayRef<StringRef> outer) {
  auto with = [&](ArrayRef<StringRef> inner) {
    SmallVector<StringRef> d(outer.begin(), outer.end());
    d.append(inner.begin(), inner.end());
    return d;
  };
  bool any = op.getQ() || op.getK() || op.getV();
  bool all = op.getQ() && op.getK() && op.getV();
  if (op.getQkv() && any)
    return op.emitOpError("takes either 'qkv' or 'q', 'k' and 'v', not both");
  if (!op.getQkv() && !all)
    return op.emitOpError(any ? "needs all of 'q', 'k' and 'v' (or 'qkv')"
                              : "needs 'qkv' or 'q', 'k' and 'v'");
  sig.operand(op.getOut(), "out", with({"q_head_num", "head_dim"}), BF16);
  if (op.getQkv()) {
    sig.operand(op.getQkv(), "qkv", with({"heads", "head_dim"}), BF16);
    auto heads = sig.size("heads"), q = sig.size("q_head_num");
    if (sig.ok() && heads && q) {
      if (*heads <= *q || (*heads - *q) % 2)
        return op.emitOpError("'qkv' has ")
               << *heads << " heads; with q_head_num " << *q
               << " from 'out' that leaves no whole kv_head_num (q_head_num + "
                  "2 * kv_head_num)";
      sig.bind("kv_head_num", (*heads - *q) / 2, "'qkv' minus 'out' heads");
    }
  } else {
    sig.operand(op.getQ(), "q", with({"q_head_num", "head_dim"}), BF16)
        .operand(op.getK(), "k", with({"kv_head_num", "head_dim"}), BF16)
        .operand(op.getV(), "v", with({"kv_head_num", "head_dim"}), BF16);
  }
  return sig.result();
}
} // namespace

LogicalResult FlashAttentionOp::verify() {
  Signature sig(*this);
  sig.bind("batch", 1, "flash_attention's single sequence");
  if (failed(verifyQkvForms(*this, sig, {"batch", "q_seq_len"})))
    return failure();
  return verifyGqa(*this, sig);
}

LogicalResult FlashDecodingOp::verify() {
  if (int64_t(getKvLens()) < 0)
    return emitOpError("kv_lens must be non-negative, got ")
           << int64_t(getKvLens());
  Signature sig(*this);
  sig.bind("q_seq_len", 1, "flash_decoding's single new token");
  if (failed(verifyQkvForms(*this, sig, {"batch_size", "q_seq_len"})))
    return failure();
  SmallVector<StringRef> cache = {"max_batch_size", "kv_head_num",
                                  "max_seq_len", "head_dim"};
  sig.operand(getKCache(), "k_cache", cache, BF16)
      .operand(getVCache(), "v_cache", cache, BF16);
  if (!sig.ok() || failed(verifyGqa(*this, sig)))
    return failure();
  if (auto b = sig.size("batch_size"), mb = sig.size("max_batch_size");
      b && mb && *b > *mb)
    return emitOpError("batch_size ")
           << *b << " exceeds the caches' max_batch_size " << *mb;
  if (auto s = sig.size("max_seq_len"); s && int64_t(getKvLens()) > *s)
    return emitOpError("kv_lens ")
           << int64_t(getKvLens()) << " exceeds the caches' max_seq_len " << *s;
  return success();
}

namespace {
/// The shared rules of the two paged attention ops.
template <typename AttnOp>
LogicalResult verifyPagedAttention(AttnOp op, Signature &sig,
                                   ArrayRef<StringRef> tokenDims,
                                   bool checkGqa = true) {
  if (op.getRing() && !op.getSlidingWindow())
    return op.emitOpError("reads a ring cache only with a sliding_window (a "
                          "ring keeps a sequence's last positions, not all)");
  SmallVector<StringRef> qDims(tokenDims.begin(), tokenDims.end());
  qDims.append({"q_head_num", "head_dim"});
  SmallVector<StringRef> cache = {"max_block_num", "kv_head_num", "block_size",
                                  "head_dim"};
  sig.operand(op.getQ(), "q", qDims, BF16)
      .operand(op.getKvIds(), "kv_ids", {"batch_size"}, I32)
      .operand(op.getKvLens(), "kv_lens", {"batch_size"}, I32)
      .operand(op.getQLens(), "q_lens", {"batch_size"}, I32)
      .optional(op.getAccumQLen(), "accum_q_len", {"batch_size+1"}, I32)
      .operand(op.getBlockTable(), "block_table",
               {"max_batch_size", "max_block_num_per_seq"}, I32)
      .operand(op.getKCache(), "k_cache", cache, BF16 | I8)
      .operand(op.getVCache(), "v_cache", cache, BF16 | I8)
      .optional(op.getKScale(), "k_scale", {"kv_head_num", "head_dim"}, F32)
      .optional(op.getVScale(), "v_scale", {"kv_head_num", "head_dim"}, F32)
      .optional(op.getOut(), "out", qDims, BF16);
  if (!sig.ok())
    return failure();
  if (failed(verifyCacheScales(op, op.getKCache(), op.getVCache(),
                               op.getKScale(), "k_scale", op.getVScale(),
                               "v_scale")))
    return failure();
  return checkGqa ? verifyGqa(op, sig) : success();
}
} // namespace

LogicalResult FlashAttentionPrefillOp::verify() {
  Signature sig(*this);
  if (failed(verifyPagedAttention(*this, sig, {"num_tokens"})))
    return failure();
  if (failed(verifyPositive(*this, int32_t(getMaxQLen()), "max_q_len")))
    return failure();
  if (auto t = sig.size("num_tokens"); t && int32_t(getMaxQLen()) > *t)
    return emitOpError("max_q_len ")
           << int32_t(getMaxQLen()) << " exceeds num_tokens " << *t;
  if (std::optional<int32_t> window = getSlidingWindow())
    if (failed(verifyPositive(*this, *window, "sliding_window")))
      return failure();
  return success();
}

LogicalResult FlashAttentionDecodeOp::verify() {
  if (failed(verifyPositive(*this, int32_t(getQSeqLen()), "q_seq_len")))
    return failure();
  Signature sig(*this);
  sig.bind("q_seq_len", int32_t(getQSeqLen()), "the q_seq_len attribute");
  sig.optional(getPlanKvLens(), "plan_kv_lens", {"plan_batch"}, I32)
      .optional(getVisibleLens(), "visible_lens", {"batch_size", "q_seq_len"},
                I32)
      .optional(getStartPos(), "start_pos", {"batch_size", "q_seq_len"}, I32)
      .optional(getStateO(), "state_o",
                {"batch_size", "q_seq_len", "q_head_num", "head_dim"}, F32)
      .bind("state_row", 8, "a vector store's 32-byte row of f32")
      .optional(getStateM(), "state_m",
                {"batch_size", "q_seq_len", "q_head_num", "state_row"}, F32)
      .optional(getStateL(), "state_l",
                {"batch_size", "q_seq_len", "q_head_num", "state_row"}, F32);
  bool states = getStateO() || getStateM() || getStateL();
  if (states && !(getStateO() && getStateM() && getStateL()))
    return emitOpError("writes its softmax state as state_o, state_m and "
                       "state_l together");
  if (states == bool(getOut()))
    return emitOpError(states ? "writes either out or its softmax state "
                                "(state_o, state_m, state_l), not both"
                              : "needs out, or its softmax state (state_o, "
                                "state_m, state_l)");
  if (getGrid() && (states || getVisibleLens()))
    return emitOpError("sharded, takes q and writes out as the whole "
                       "attention's; visible_lens and the softmax state are "
                       "what its ranks' programs use");
  if (std::optional<int32_t> window = getSlidingWindow()) {
    if (*window < int32_t(getQSeqLen()))
      return emitOpError("sliding_window = ")
             << *window << " must be at least q_seq_len = " << getQSeqLen()
             << " (a window that does not cover the step's new tokens is "
                "not seed 001's sliding mask)";
    if (getVisibleLens())
      return emitOpError("takes sliding_window or visible_lens, not both "
                         "(visible_lens gives each token's range itself)");
    if (getGrid())
      return emitOpError("sharded, has no sliding_window (a rank's part of "
                         "the cache is not the positions a window counts)");
  } else if (getStartPos()) {
    return emitOpError("takes start_pos only with a sliding_window (W "
                       "bounds each start and the chunks planned)");
  }
  // Sharded, q holds this rank's heads: the attention's are every rank's
  // (checked with the grid's size in verifySymbolUses).
  if (failed(verifyPagedAttention(*this, sig, {"batch_size", "q_seq_len"},
                                  /*checkGqa=*/!getGrid())))
    return failure();
  return verifyShardedOn(*this);
}

LogicalResult
FlashAttentionDecodeOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<std::optional<int64_t>> group = groupOf(*this, tables);
  if (failed(group) || !*group)
    return failure(failed(group));
  int64_t ranks = **group;
  int64_t local = getQ().getType().getDimSize(2);
  int64_t kv = getKCache().getType().getDimSize(1);
  if (ShapedType::isDynamic(local) || ShapedType::isDynamic(kv) || kv < 1)
    return success();
  if ((ranks * local) % kv != 0)
    return emitOpError("sharded over ")
           << ranks << " ranks of " << local << " query heads: the "
           << ranks * local << " heads are not a multiple of kv_head_num "
           << kv << " (each KV head serves a whole group of query heads)";
  return success();
}

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

namespace {

/// The expert-parallel attributes of the scatter, swiglu and gather ops:
/// non-negative; shared experts need a token range, which lies inside
/// num_tokens when that is static.
template <typename MoeOp>
LogicalResult verifySharedExperts(MoeOp op, std::optional<int64_t> numTokens) {
  // I32Attr reads back as uint32_t; the seed's int is signed.
  const int64_t shared = int32_t(op.getNumSharedExpertsPerRank());
  const int64_t offset = int32_t(op.getNumTokensOffset());
  const int64_t perRank = int32_t(op.getNumTokensPerRank());
  for (auto [value, name] :
       {std::pair(shared, "num_shared_experts_per_rank"),
        std::pair(offset, "num_tokens_offset"),
        std::pair(perRank, "num_tokens_per_rank")})
    if (value < 0)
      return op.emitOpError() << name << " must be non-negative, got "
                              << value;
  if (shared > 0 && perRank == 0)
    return op.emitOpError("has ")
           << shared
           << " shared experts but num_tokens_per_rank = 0 (the tokens they "
              "see on this rank)";
  if (numTokens && offset + perRank > *numTokens)
    return op.emitOpError("the rank's tokens [")
           << offset << ", " << offset + perRank
           << ") are not inside the " << *numTokens << " tokens";
  return success();
}

/// The scattered rows: the shared experts' rows, then allocated_tokens
/// routed rows (both static, else checked at run time).
template <typename MoeOp>
LogicalResult verifyScatteredRows(MoeOp op, const Signature &sig,
                                  StringRef operand) {
  const int64_t shared = int32_t(op.getNumSharedExpertsPerRank());
  const int64_t perRank = int32_t(op.getNumTokensPerRank());
  std::optional<int64_t> rows = sig.size("rows"),
                         allocated = sig.size("allocated_tokens");
  if (rows && allocated && *rows != shared * perRank + *allocated)
    return op.emitOpError("'")
           << operand << "' has " << *rows
           << " rows but num_shared_experts_per_rank * num_tokens_per_rank + "
              "allocated_tokens = "
           << shared << " * " << perRank << " + " << *allocated << " = "
           << shared * perRank + *allocated;
  if (rows && *rows < shared * perRank)
    return op.emitOpError("'")
           << operand << "' has " << *rows << " rows, fewer than the "
           << shared * perRank << " rows of the shared experts";
  return success();
}

/// smooth_scale's rows: the shared experts, then the rank's routed experts.
template <typename MoeOp>
LogicalResult verifyExpertRows(MoeOp op, const Signature &sig) {
  const int64_t shared = int32_t(op.getNumSharedExpertsPerRank());
  std::optional<int64_t> rows = sig.size("expert_rows"),
                         experts = sig.size("num_experts_per_rank");
  if (rows && experts && *rows != shared + *experts)
    return op.emitOpError("'smooth_scale' has ")
           << *rows << " rows but num_shared_experts_per_rank + "
              "num_experts_per_rank = "
           << shared << " + " << *experts << " = " << shared + *experts;
  return success();
}

} // namespace

LogicalResult MoeGatingGemmOp::verify() {
  Signature sig(*this);
  sig.operand(getHiddenStates(), "hidden_states", {"num_tokens", "hidden_size"},
              BF16)
      .operand(getWeight(), "weight", {"hidden_size", "num_experts"}, BF16)
      .operand(getY(), "y", {"num_tokens", "num_experts"}, BF16);
  return sig.result();
}

LogicalResult MoeSoftmaxTopkOp::verify() {
  Signature sig(*this);
  sig.operand(getHiddenStates(), "hidden_states", {"num_tokens", "num_experts"},
              BF16)
      .operand(getSelectedExperts(), "selected_experts",
               {"num_tokens", "topk"}, I32)
      .operand(getExpertWeights(), "expert_weights", {"num_tokens", "topk"},
               BF16 | F32);
  if (!sig.ok())
    return failure();
  std::optional<int64_t> topk = sig.size("topk"),
                         experts = sig.size("num_experts");
  if (topk && *topk < 1)
    return emitOpError("topk (the outputs' second dimension) must be at "
                       "least 1, got ")
           << *topk;
  if (topk && experts && *topk > *experts)
    return emitOpError("topk = ")
           << *topk << " is larger than num_experts = " << *experts;
  return success();
}

LogicalResult MoeScatterDynamicQuantOp::verify() {
  const int64_t start = int32_t(getExpertStartIdx());
  const int64_t end = int32_t(getExpertEndIdx());
  if (start < 0)
    return emitOpError("expert_start_idx must be non-negative, got ") << start;
  if (end <= start)
    return emitOpError("expert_end_idx = ")
           << end << " must be larger than expert_start_idx = " << start
           << " (the rank's experts [start, end))";
  Signature sig(*this);
  sig.operand(getHiddenStates(), "hidden_states", {"num_tokens", "hidden_size"},
              BF16)
      .operand(getSelectedExperts(), "selected_experts", {"num_tokens", "topk"},
               I32)
      .operand(getSmoothScale(), "smooth_scale", {"expert_rows", "hidden_size"},
               F32)
      .operand(getScatterTokens(), "scatter_tokens", {"rows", "hidden_size"},
               I8)
      .operand(getScatterPerTokenScale(), "scatter_per_token_scale", {"rows"},
               F32)
      .bind("num_experts_per_rank", end - start,
            "expert_end_idx - expert_start_idx")
      .operand(getExpertsTokenCount(), "experts_token_count",
               {"num_experts_per_rank"}, I32)
      .operand(getTokenOffset(), "token_offset", {"allocated_tokens"}, I32);
  if (!sig.ok() || failed(verifySharedExperts(*this, sig.size("num_tokens"))) ||
      failed(verifyExpertRows(*this, sig)))
    return failure();
  return verifyScatteredRows(*this, sig, "scatter_tokens");
}

LogicalResult MoeQuantMatmulOp::verify() {
  Signature sig(*this);
  sig.operand(getHiddenStates(), "hidden_states",
              {"num_tokens_per_rank", "hidden_size"}, I8)
      .operand(getPerTokenScale(), "per_token_scale", {"num_tokens_per_rank"},
               F32)
      .operand(getExpertWeight(), "expert_weight",
               {"hidden_size", "new_hidden_size"}, I8)
      .operand(getExpertScale(), "expert_scale", {"new_hidden_size"}, F32)
      .operand(getY(), "y", {"num_tokens_per_rank", "new_hidden_size"}, BF16);
  return sig.result();
}

LogicalResult MoeQuantGroupGemmOp::verify() {
  Signature sig(*this);
  sig.operand(getScatterTokens(), "scatter_tokens",
              {"allocated_tokens", "hidden_size"}, I8)
      .operand(getPerTokenScale(), "per_token_scale", {"allocated_tokens"}, F32)
      .operand(getExpertsWeight(), "experts_weight",
               {"num_experts_per_rank", "hidden_size", "new_hidden_size"}, I8)
      .operand(getExpertsScale(), "experts_scale",
               {"num_experts_per_rank", "new_hidden_size"}, F32)
      .operand(getExpertsTokenCount(), "experts_token_count",
               {"num_experts_per_rank"}, I32)
      .operand(getY(), "y", {"allocated_tokens", "new_hidden_size"}, BF16);
  if (!sig.ok())
    return failure();
  if (std::optional<int32_t> nTile = getNTile()) {
    if (*nTile < 16 || *nTile > 128 || *nTile % 16)
      return emitOpError("'n_tile' must be a multiple of 16 from 16 to 128 "
                         "(whole 32-byte rows of its bf16 output, at most "
                         "the cube's widest N tile), got ")
             << *nTile;
    std::optional<int64_t> n = sig.size("new_hidden_size");
    if (n && *n % *nTile)
      return emitOpError("'n_tile' ")
             << *nTile << " does not divide new_hidden_size " << *n
             << ": every work unit computes whole N tiles";
  }
  return success();
}

LogicalResult MoeSwigluDynamicQuantOp::verify() {
  Signature sig(*this);
  sig.operand(getScatterTokens(), "scatter_tokens", {"rows", "gate_up_size"},
              BF16)
      .operand(getSmoothScale(), "smooth_scale", {"expert_rows", "hidden_size"},
               F32)
      .operand(getExpertsTokensCount(), "experts_tokens_count",
               {"num_experts_per_rank"}, I32)
      .operand(getY(), "y", {"rows", "hidden_size"}, I8)
      .operand(getPerTokenScale(), "per_token_scale", {"rows"}, F32);
  if (!sig.ok())
    return failure();
  std::optional<int64_t> gateUp = sig.size("gate_up_size"),
                         hidden = sig.size("hidden_size");
  if (gateUp && hidden && *gateUp != 2 * *hidden)
    return emitOpError("'scatter_tokens' has ")
           << *gateUp << " columns but holds gate and up side by side: 2 * "
              "hidden_size = "
           << 2 * *hidden;
  if (failed(verifySharedExperts(*this, std::nullopt)) ||
      failed(verifyExpertRows(*this, sig)))
    return failure();
  return verifyScatteredRows(*this, sig, "scatter_tokens");
}

LogicalResult MoeGatherOp::verify() {
  Signature sig(*this);
  sig.operand(getScatterTokens(), "scatter_tokens", {"rows", "hidden_size"},
              BF16)
      .operand(getTokenOffset(), "token_offset", {"allocated_tokens"}, I32)
      .operand(getExpertWeights(), "expert_weights", {"num_tokens", "topk"},
               BF16 | F32)
      .operand(getHiddenStates(), "hidden_states", {"num_tokens", "hidden_size"},
               BF16);
  if (!sig.ok() || failed(verifySharedExperts(*this, sig.size("num_tokens"))))
    return failure();
  return verifyScatteredRows(*this, sig, "scatter_tokens");
}

//===----------------------------------------------------------------------===//
// Embedding and argmax
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::verify() {
  Signature sig(*this);
  sig.operand(getTokenIds(), "token_ids", {"num_tokens"}, I32)
      .operand(getWeight(), "weight", {"vocab_size", "hidden_size"}, BF16)
      .operand(getY(), "y", {"num_tokens", "hidden_size"}, BF16);
  return sig.result();
}

LogicalResult ArgmaxOp::verify() {
  Signature sig(*this);
  sig.operand(getLogits(), "logits", {"num_tokens", "vocab_size"}, BF16 | F32)
      .operand(getTokenIds(), "token_ids", {"num_tokens"}, I32);
  return sig.result();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::verify() {
  Signature sig(*this);
  sig.operand(getHiddenStates(), "hidden_states", {"num_tokens", "hidden_size"},
              BF16 | F32);
  if (failed(sig.result()))
    return failure();
  // Over a grid the buffer goes to the collective as it is stored.
  auto type = cast<MemRefType>(getHiddenStates().getType());
  if (getGrid() && !type.getLayout().isIdentity())
    return emitOpError("over a grid needs a contiguous 'hidden_states' "
                       "(identity layout), got ")
           << type;
  return verifyAxesOnGrid(*this);
}

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &tables) {
  return failure(failed(groupOf(*this, tables)));
}
