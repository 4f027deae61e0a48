//===- SyncAnalysis.cpp - the order tile kernels need between pipes -------===//

#include "SyncAnalysis.h"

#include "wsp/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/SmallSet.h"

#include <pto/runtime/hardware.hpp>

#include <array>
#include <deque>
#include <functional>
#include <map>

using namespace mlir;
using namespace mlir::wsp::tile;

namespace {

// The pipes of a core: s, v, m, mte1, mte2, mte3, fix (Pipe::all, after
// them, is every pipe).
constexpr int kPipes = static_cast<int>(Pipe::all);
static_assert(getMaxEnumValForPipe() == static_cast<unsigned>(Pipe::all));
constexpr int kAgents = 2 * kPipes;
constexpr int kEvents = TileDialect::kNumFlagEvents; // flag ids per pipe pair
// Cross-core flag ids per direction.
constexpr int kCrossEvents = ::pto::runtime::kCrossCoreFlags;
using Clock = std::array<uint32_t, kAgents>;

int unitIndex(Unit u) { return u == Unit::cube ? 0 : 1; }
int agentOf(Unit u, Pipe p) {
  return unitIndex(u) * kPipes + static_cast<int>(p);
}
Unit unitOfAgent(int a) { return a < kPipes ? Unit::cube : Unit::vector; }
Pipe pipeOfAgent(int a) { return static_cast<Pipe>(a % kPipes); }


std::string describeAgent(int a) {
  return (stringifyUnit(unitOfAgent(a)) + " " +
          stringifyPipe(pipeOfAgent(a)))
      .str();
}

/// A loop being executed symbolically: which pass of it is running.
struct Frame {
  Operation *loop;
  int pass;
  Value iv;
};

/// The enclosing loops of an instruction and the pass each was in.
using PassList = SmallVector<std::pair<Operation *, int>, 2>;

/// One access of one instruction, as remembered for later conflicts. States
/// hold many and are copied at every branch and loop, so what is the same
/// for all accesses of one execution of an instruction lives in the
/// solver's stores, referenced.
struct Touch {
  Operation *op;
  int agent;
  uint32_t clock;
  bool write;
  bool elementwise;
  Value tile;  // the tile operand (for element-wise footprints); null in GM
  int slot;    // copy of a multi-buffered site, -1 if not known / single
  const Clock *know;      // what the agent knew right after the instruction
  const PassList *passes; // enclosing loops
};

/// What is known of one place: its possible last writers and the reads
/// since (latest per agent).
struct Cell {
  SmallVector<Touch, 1> writers;
  SmallVector<Touch, 2> readers;
};

/// A place a tile instruction touches: a tile allocation site (with its
/// copies) or a global-memory buffer.
struct Place {
  const void *key = nullptr;
  int slot = -1;
  int numSlots = 1;
  Value tile;
  bool isTile = false;
};

using FlagKey = std::tuple<int, int, int, int>; // unit, src, dst, event

/// A queue of pending flags: rarely more than two, so inline storage too.
template <typename T> class Fifo {
public:
  bool empty() const { return items.empty(); }
  size_t size() const { return items.size(); }
  const T &front() const { return items.front(); }
  void push_back(const T &t) { items.push_back(t); }
  void pop_front() { items.erase(items.begin()); }
  const T *begin() const { return items.begin(); }
  const T *end() const { return items.end(); }

private:
  SmallVector<T, 2> items;
};

/// A map of few keys, in increasing key order, in one small vector of N
/// inline entries: a State, copied at every branch and loop entry, then
/// copies without allocating.
template <typename K, typename V, unsigned N> class FlatMap {
public:
  using Entry = std::pair<K, V>;
  V &operator[](const K &key) {
    auto *it = llvm::lower_bound(
        entries, key, [](const Entry &e, const K &k) { return e.first < k; });
    if (it == entries.end() || it->first != key)
      it = entries.insert(it, Entry{key, V()});
    return it->second;
  }
  Entry *begin() { return entries.begin(); }
  Entry *end() { return entries.end(); }
  const Entry *begin() const { return entries.begin(); }
  const Entry *end() const { return entries.end(); }

private:
  SmallVector<Entry, N> entries;
};

/// A place's cells by slot (-1 = every slot / single buffer); nearly every
/// place has one. Shared between the states a branch or loop copies and
/// copied on the first write (most places are not touched on a path), so
/// a copy and a join cost what differs, not what is known.
struct Slots : public llvm::RefCountedBase<Slots> {
  FlatMap<int, Cell, 1> bySlot;
};
using SlotsRef = llvm::IntrusiveRefCntPtr<Slots>;

/// Flag waits as bits (the first kTrackedWaits a solve meets; a later one
/// is never named, which only makes fewer claims).
constexpr unsigned kTrackedWaits = 128;
using Waits = std::array<uint64_t, kTrackedWaits / 64>;
using WaitsRow = std::array<Waits, kAgents>;

Waits unite(Waits a, const Waits &b) {
  for (size_t i = 0; i < a.size(); ++i)
    a[i] |= b[i];
  return a;
}
Waits intersect(Waits a, const Waits &b) {
  for (size_t i = 0; i < a.size(); ++i)
    a[i] &= b[i];
  return a;
}

/// The flag waits one agent's knowledge of another depends on, by how much
/// of it a pair needs (Solver::trackWaits): for a threshold t, waits every
/// path that gives the agent t or more goes through, so that without any
/// of them it knows less than t. Steps of increasing `upTo`, the last one
/// the knowledge itself; t takes the first step with upTo >= t. Claiming
/// fewer waits is always sound (a wait not claimed is searched for, not
/// assumed needed), which bounds the steps: past kSteps the two lowest
/// merge into the lower one's waits up to the higher one's threshold.
constexpr int kSteps = 2;
struct Stairs {
  uint8_t n = 1;
  std::array<uint32_t, kSteps> upTo{};
  std::array<Waits, kSteps> waits{};

  bool operator==(const Stairs &o) const {
    if (n != o.n)
      return false;
    for (int i = 0; i < n; ++i)
      if (upTo[i] != o.upTo[i] || waits[i] != o.waits[i])
        return false;
    return true;
  }
  uint32_t know() const { return upTo[n - 1]; }
  const Waits &top() const { return waits[n - 1]; }
  const Waits &at(uint32_t t) const {
    for (int i = 0; i + 1 < n; ++i)
      if (t <= upTo[i])
        return waits[i];
    return waits[n - 1];
  }
  /// Appends the step (v, w), v above the last step's threshold (and w
  /// holding its waits: the claims grow with the threshold).
  void push(uint32_t v, const Waits &w) {
    if (n > 0 && waits[n - 1] == w) {
      upTo[n - 1] = v;
      return;
    }
    if (n == kSteps) {
      // (v0, w0), (v1, w1) -> (v1, w0): fewer waits claimed on (v0, v1].
      upTo[0] = upTo[1];
      for (int i = 1; i + 1 < n; ++i) {
        upTo[i] = upTo[i + 1];
        waits[i] = waits[i + 1];
      }
      --n;
    }
    upTo[n] = v;
    waits[n] = w;
    ++n;
  }
};
/// `f(a's waits or null, b's waits or null)` at each threshold up to
/// `limit` where either changes (null past that side's knowledge).
template <typename F>
Stairs combine(const Stairs &a, const Stairs &b, uint32_t limit, F f) {
  Stairs out;
  out.n = 0;
  // The two sides' thresholds below `limit`, merged in order, then it.
  int i = 0, j = 0;
  while (true) {
    uint32_t v = limit;
    if (i < a.n && a.upTo[i] < v)
      v = a.upTo[i];
    if (j < b.n && b.upTo[j] < v)
      v = b.upTo[j];
    out.push(v, f(v <= a.know() ? &a.at(v) : nullptr,
                  v <= b.know() ? &b.at(v) : nullptr));
    if (v == limit)
      return out;
    while (i < a.n && a.upTo[i] <= v)
      ++i;
    while (j < b.n && b.upTo[j] <= v)
      ++j;
  }
}
/// What an agent knows after learning `b` beside `a`: the greater, each
/// threshold needing the waits of both sides that reach it.
Stairs meet(const Stairs &a, const Stairs &b) {
  return combine(a, b, std::max(a.know(), b.know()),
                 [](const Waits *x, const Waits *y) {
                   return x && y ? intersect(*x, *y) : x ? *x : *y;
                 });
}
/// What either of two paths gives: the less, each threshold needing the
/// waits of either path.
Stairs either(const Stairs &a, const Stairs &b) {
  return combine(a, b, std::min(a.know(), b.know()),
                 [](const Waits *x, const Waits *y) { return unite(*x, *y); });
}
using StairsRow = std::array<Stairs, kAgents>;
/// The waits of what agent `self` knows of each agent, exactly (of its
/// own clock: none).
WaitsRow topsOf(const StairsRow &row, int self) {
  WaitsRow w;
  for (int c = 0; c < kAgents; ++c)
    w[c] = c == self ? Waits{} : row[c].top();
  return w;
}

struct State {
  std::array<Clock, kAgents> know{};
  /// When the solve tracks them (Solver::trackWaits): for know[i][j], the
  /// flag waits agent i's knowledge of agent j depends on, by threshold.
  /// Empty when not tracked.
  std::vector<StairsRow> via;
  FlatMap<FlagKey, Fifo<WaitsRow>, 4> flagVias;
  FlatMap<std::pair<int, int>, Fifo<WaitsRow>, 4> crossVias;
  std::array<uint32_t, 2> vBarrier{};
  llvm::DenseMap<const void *, SlotsRef> cells;

  /// The cells of `key`, to change: this state's own copy.
  FlatMap<int, Cell, 1> &mutableSlots(const void *key) {
    SlotsRef &ref = cells[key];
    if (!ref)
      ref = llvm::makeIntrusiveRefCnt<Slots>();
    else if (ref->UseCount() > 1)
      ref = llvm::makeIntrusiveRefCnt<Slots>(*ref);
    return ref->bySlot;
  }
  /// The cells of `key` to read, or null.
  const FlatMap<int, Cell, 1> *slots(const void *key) const {
    auto it = cells.find(key);
    return it == cells.end() ? nullptr : &it->second->bySlot;
  }
  // Pending flags (a kernel uses a handful at a time).
  FlatMap<FlagKey, Fifo<Clock>, 4> flags;
  FlatMap<std::pair<int, int>, Fifo<Clock>, 4> cross; // setter unit, event
  // Which set op pushed each pending snapshot (check mode: pairing).
  FlatMap<FlagKey, Fifo<Operation *>, 4> flagSetters;
  FlatMap<std::pair<int, int>, Fifo<Operation *>, 4> crossSetters;
};

void joinClock(Clock &into, const Clock &from) {
  for (int i = 0; i < kAgents; ++i)
    into[i] = std::max(into[i], from[i]);
}

/// The state after either of two paths: `out` (one path) joined with `b`
/// in place.
void joinStates(State &out, const State &b) {
  // What either path knows: the less of the two, each threshold needing
  // the waits of both paths (removing a wait of either then lowers the
  // result below it).
  if (!out.via.empty())
    for (int i = 0; i < kAgents; ++i)
      for (int j = 0; j < kAgents; ++j)
        if (i != j && !(out.via[i][j] == b.via[i][j]))
          out.via[i][j] = either(out.via[i][j], b.via[i][j]);
  for (int i = 0; i < kAgents; ++i)
    for (int j = 0; j < kAgents; ++j)
      out.know[i][j] = i == j ? std::max(out.know[i][j], b.know[i][j])
                              : std::min(out.know[i][j], b.know[i][j]);
  for (int u = 0; u < 2; ++u)
    out.vBarrier[u] = std::min(out.vBarrier[u], b.vBarrier[u]);
  for (auto &[key, theirs] : b.cells) {
    SlotsRef &ours = out.cells[key];
    if (ours == theirs)
      continue; // one history: nothing to add
    if (!ours) {
      ours = theirs;
      continue;
    }
    if (ours->UseCount() > 1)
      ours = llvm::makeIntrusiveRefCnt<Slots>(*ours);
    for (auto &[slot, cell] : theirs->bySlot) {
      Cell &c = ours->bySlot[slot];
      auto add = [](SmallVectorImpl<Touch> &into, const Touch &t) {
        for (const Touch &u : into)
          if (u.op == t.op && u.agent == t.agent && u.clock == t.clock)
            return;
        into.push_back(t);
      };
      for (const Touch &t : cell.writers)
        add(c.writers, t);
      for (const Touch &t : cell.readers)
        add(c.readers, t);
    }
  }
}

/// Constant value of an index.
std::optional<int64_t> constantOf(Value v) {
  APInt value;
  if (v && matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// One tile or global-memory access of an instruction, as far as it does
/// not depend on the running loop passes (the copy of a multi-buffered
/// site does: `slot` is the alloc's slot value to resolve).
struct StaticAccess {
  Place place; // slot -1
  Value slot;  // of a multi-buffered alloc; null otherwise
  bool write;
  bool elementwise;
};

/// What the solves of one function (insertion, the probe, the pruning's
/// solves) share: facts that flags inserted or dropped do not change, and
/// whose finding was a good part of each solve. Flags go into blocks that
/// already hold tile instructions, and add no tile and no loop or branch.
struct SolveCache {
  /// Every instruction's accesses: their effects, roots and operands.
  llvm::DenseMap<Operation *, SmallVector<StaticAccess, 4>> accesses;
  /// Whether each loop or branch holds a tile instruction or flag.
  llvm::DenseMap<Operation *, bool> tileHolders;
  /// The passes of each loop.
  llvm::DenseMap<Operation *, int> loopPasses;
  /// Whether the function's control flow was found to be what the model
  /// follows (checkStructure; a failure ends the first solve).
  bool structureChecked = false;
};

class Solver {
public:
  Solver(FunctionOpInterface fn, bool insert, SolveCache &cache)
      : fn(fn), insert(insert), cache(cache) {}

  FailureOr<SyncResult> run() {
    State st;
    if (trackWaits)
      st.via.assign(kAgents, StairsRow{});
    if (fn.isExternal())
      return result;
    if (!cache.structureChecked) {
      if (failed(checkStructure()))
        return failure();
      cache.structureChecked = true;
    }
    // A kernel runs once per work descriptor, one invocation after the
    // other on the same core: the check runs two of them, so that what one
    // leaves in flight meets the next (insertion fences invocations).
    for (int invocation = 0; invocation < (insert ? 1 : 2); ++invocation) {
      processRegion(fn.getFunctionBody(), st);
      if (failed(status))
        return failure();
      // A first invocation that ends settled (every access ordered before
      // whatever comes next, as the invocation fence leaves a kernel until
      // pruning drops the parts the next invocation's own flags cover)
      // leaves the second nothing but its own pairs, which the first
      // already checked, and no flag to pair across them. (The probe then
      // names no wait that a pair across invocations needs: more groups
      // are tried, and fail, in the pruning's search; its result is the
      // same.)
      if (settled(st))
        break;
    }
    if (!insert) {
      // Once per op, though each invocation leaves it unwaited.
      llvm::SmallPtrSet<Operation *, 8> reported;
      for (auto &[key, setters] : st.flagSetters)
        for (Operation *set : setters)
          if (reported.insert(set).second) {
            set->emitOpError() << "is never waited on: every set flag must "
                                  "be consumed before the kernel ends";
            status = failure();
          }
      for (auto &[key, setters] : st.crossSetters)
        for (Operation *set : setters)
          if (reported.insert(set).second) {
            set->emitOpError() << "is never waited on by the other core";
            status = failure();
          }
    }
    if (failed(status))
      return failure();
    return result;
  }

  /// Check mode: the set op each wait consumed (for redundancy tests).
  llvm::DenseMap<Operation *, SmallVector<Operation *, 2>> waitSources;
  /// Check mode: set/wait ops to treat as absent.
  llvm::SmallPtrSet<Operation *, 8> ignored;
  /// Check mode: report through diagnostics (false: count silently).
  bool diagnose = true;
  /// Check mode: find waits the kernel certainly needs (`neededWaits`):
  /// those every path of some ordered pair's knowledge goes through.
  bool trackWaits = false;
  llvm::SmallPtrSet<Operation *, 16> neededWaits;

  SyncResult result;
  /// Insert mode: the flags this run created.
  llvm::SmallPtrSet<Operation *, 16> insertedOps;

private:
  //===--------------------------------------------------------------------===//
  // Places
  //===--------------------------------------------------------------------===//

  /// Whether nothing done so far can conflict with what follows: no flag
  /// pending, every agent that runs instructions knowing every other's
  /// latest one, and each core's vector pipe past a barrier after its own
  /// latest one. The cells then hold only ordered accesses (an access's
  /// clock is at most its agent's, and knowledge only grows along a path),
  /// so the rest runs as it would from the start. (An agent that ran no
  /// instruction, its own clock 0, runs none later either: the solve
  /// follows every path. What it knows is never compared with an access;
  /// a flag it sets only adds to what the waiting agent knows.)
  static bool settled(const State &st) {
    for (auto &[key, queue] : st.flags)
      if (!queue.empty())
        return false;
    for (auto &[key, queue] : st.cross)
      if (!queue.empty())
        return false;
    for (int i = 0; i < kAgents; ++i)
      for (int j = 0; st.know[i][i] > 0 && j < kAgents; ++j)
        if (st.know[i][j] < st.know[j][j])
          return false;
    for (Unit unit : {Unit::cube, Unit::vector}) {
      const int v = agentOf(unit, Pipe::v);
      if (st.vBarrier[unitIndex(unit)] < st.know[v][v])
        return false;
    }
    return true;
  }

  /// The alloc a tile value is a view of.
  static AllocOp rootAlloc(Value tile) {
    while (tile) {
      Operation *def = tile.getDefiningOp();
      if (auto a = dyn_cast_if_present<AllocOp>(def))
        return a;
      if (auto s = dyn_cast_if_present<SubviewOp>(def))
        tile = s.getSource();
      else if (auto r = dyn_cast_if_present<ReshapeOp>(def))
        tile = r.getSource();
      else
        return {};
    }
    return {};
  }

  /// The relative value of an alloc's slot in the running passes.
  std::optional<int64_t> slotValue(Value slot) {
    if (std::optional<int64_t> c = constantOf(slot))
      return *c;
    for (const Frame &f : frames)
      if (std::optional<int64_t> add = iterationOffset(slot, f.loop, f.iv))
        return f.pass + *add;
    return std::nullopt;
  }

  /// `slot` as the iteration number of `loop` (0, 1, ...; induction
  /// variable `iv`) plus a constant c, or none: `iv + c` where the loop
  /// counts from 0 by 1, and `(iv - lb) / step + c` (`iv / step + c` from
  /// 0), as a kernel numbers the tiles of a loop with a step. The passes
  /// of the analysis are the loop's iterations in order, so only these
  /// name the copy an iteration takes; any other slot is unknown (the
  /// copies are then ordered as one).
  static std::optional<int64_t> iterationOffset(Value slot, Operation *loop,
                                                Value iv) {
    auto forOp = dyn_cast_if_present<scf::ForOp>(loop);
    if (!iv || !forOp || iv != forOp.getInductionVar())
      return std::nullopt;
    int64_t add = 0;
    if (auto a = slot.getDefiningOp<arith::AddIOp>()) {
      if (std::optional<int64_t> c = constantOf(a.getRhs())) {
        add = *c;
        slot = a.getLhs();
      } else if (std::optional<int64_t> c = constantOf(a.getLhs())) {
        add = *c;
        slot = a.getRhs();
      }
    }
    auto same = [](Value a, Value b) {
      std::optional<int64_t> ca = constantOf(a), cb = constantOf(b);
      return a == b || (ca && cb && *ca == *cb);
    };
    const bool fromZero = constantOf(forOp.getLowerBound()) == int64_t(0);
    if (slot == iv)
      return fromZero && constantOf(forOp.getStep()) == int64_t(1)
                 ? std::optional<int64_t>(add)
                 : std::nullopt;
    auto div = slot.getDefiningOp<arith::DivUIOp>();
    if (!div || !same(div.getRhs(), forOp.getStep()))
      return std::nullopt;
    Value num = div.getLhs();
    if (auto sub = num.getDefiningOp<arith::SubIOp>())
      return sub.getLhs() == iv && same(sub.getRhs(), forOp.getLowerBound())
                 ? std::optional<int64_t>(add)
                 : std::nullopt;
    return num == iv && fromZero ? std::optional<int64_t>(add) : std::nullopt;
  }

  /// The tile a tile value is a view of: its tile.alloc's result, or the
  /// argument it comes from.
  static Value rootTile(Value tile) {
    while (Operation *def = tile.getDefiningOp()) {
      if (auto s = dyn_cast<SubviewOp>(def))
        tile = s.getSource();
      else if (auto r = dyn_cast<ReshapeOp>(def))
        tile = r.getSource();
      else
        break;
    }
    return tile;
  }

  /// Where `v` is, but for the copy of a multi-buffered site: `slot` gets
  /// its alloc's slot value (placeOf resolves it).
  static Place staticPlaceOf(Value v, Value &slot) {
    Place p;
    if (isa<TileType>(v.getType())) {
      p.isTile = true;
      p.tile = v;
      AllocOp alloc = rootAlloc(v);
      p.key = alloc ? alloc.getOperation()
                    : rootTile(v).getAsOpaquePointer();
      if (alloc && alloc.getNumBuffers() > 1) {
        p.numSlots = alloc.getNumBuffers();
        slot = alloc.getSlot();
      }
      return p;
    }
    // Global memory: the buffer a view is of.
    while (Operation *def = v.getDefiningOp()) {
      if (auto c = dyn_cast<memref::CastOp>(def))
        v = c.getSource();
      else if (auto s = dyn_cast<memref::SubViewOp>(def))
        v = s.getSource();
      else
        break;
    }
    p.key = v.getAsOpaquePointer();
    return p;
  }

  /// Where `a` is in the running passes: its copy of a multi-buffered
  /// site, when the passes tell.
  Place placeOf(const StaticAccess &a) {
    Place p = a.place;
    if (a.slot)
      if (std::optional<int64_t> s = slotValue(a.slot))
        p.slot =
            static_cast<int>(((*s % p.numSlots) + p.numSlots) % p.numSlots);
    return p;
  }

  /// The accesses of instruction `op`, cached.
  const SmallVector<StaticAccess, 4> &accessesOf(Operation *op) {
    auto [it, added] = cache.accesses.try_emplace(op);
    if (!added)
      return it->second;
    SmallVector<MemoryEffects::EffectInstance, 4> effects;
    cast<MemoryEffectOpInterface>(op).getEffects(effects);
    for (auto &effect : effects) {
      Value v = effect.getValue();
      if (!v || !(isa<TileType>(v.getType()) || isa<MemRefType>(v.getType())))
        continue;
      bool write = isa<MemoryEffects::Write>(effect.getEffect());
      if (!write && !isa<MemoryEffects::Read>(effect.getEffect()))
        continue;
      unsigned index = 0;
      for (OpOperand &operand : op->getOpOperands())
        if (operand.get() == v)
          index = operand.getOperandNumber();
      StaticAccess a;
      a.place = staticPlaceOf(v, a.slot);
      a.write = write;
      a.elementwise = isa<TileType>(v.getType()) &&
                      cast<PipeOpInterface>(op).isElementwiseOperand(index);
      it->second.push_back(a);
    }
    return it->second;
  }

  static bool sameFootprint(Value a, Value b) {
    if (a == b)
      return true;
    AllocOp x = rootAlloc(a), y = rootAlloc(b);
    return x && x == y && a.getDefiningOp() == x && b.getDefiningOp() == y &&
           a.getType() == b.getType();
  }

  //===--------------------------------------------------------------------===//
  // Positions and ids
  //===--------------------------------------------------------------------===//

  static Block *commonBlock(Operation *a, Operation *b) {
    for (Block *blk = a->getBlock(); blk; blk = blk->getParentOp()
                                                    ? blk->getParentOp()->getBlock()
                                                    : nullptr)
      if (blk->findAncestorOpInBlock(*b))
        return blk;
    return nullptr;
  }

  /// The event ids of a kind live at some point of a range of the
  /// function, in program order (pre-order): each set of an id opens it,
  /// each wait closes it. An id is live in the range when it is open where
  /// the range begins or is set or waited inside it. The range begins after
  /// `startAfter` (or at `startAt`) and ends before `stopBefore` (or after
  /// `stopAfter`).
  template <typename Events>
  void liveIds(Operation *startAt, Operation *startAfter, Operation *stopBefore,
               Operation *stopAfter, Events &&events,
               llvm::SmallSet<int, 16> &used) {
    std::map<int, int> open;
    bool inRange = false, done = false;
    SmallVector<std::pair<int, int>, 8> ev;
    auto enter = [&] {
      inRange = true;
      for (auto [id, n] : open)
        if (n > 0)
          used.insert(id);
    };
    std::function<void(Operation *)> visit = [&](Operation *op) {
      if (done)
        return;
      if (op == stopBefore) {
        done = true;
        return;
      }
      if (op == startAt)
        enter();
      ev.clear();
      events(op, ev);
      for (auto [id, d] : ev) {
        open[id] += d;
        if (inRange)
          used.insert(id);
      }
      for (Region &r : op->getRegions())
        for (Block &blk : r)
          for (Operation &inner : blk)
            visit(&inner);
      if (op == stopAfter)
        done = true;
      if (op == startAfter)
        enter();
    };
    for (Block &blk : fn.getFunctionBody())
      for (Operation &op : blk)
        visit(&op);
  }

  /// How many consecutive event ids a flag `event(e + %slot)` takes: the
  /// buffers of `%slot = remui %i, N`, or all when that is not known.
  static int64_t eventsOf(Value slot) {
    if (!slot)
      return 1;
    if (auto rem = slot.getDefiningOp<arith::RemUIOp>())
      if (std::optional<int64_t> n = constantOf(rem.getRhs()); n && *n > 0)
        return *n;
    return kEvents;
  }

  /// The ids a same-core flag between `src` and `dst` pipes sets (+1) or
  /// waits (-1) at `op`.
  auto flagEvents(Unit unit, Pipe src, Pipe dst) {
    return [=](Operation *op, SmallVectorImpl<std::pair<int, int>> &ev) {
      auto add = [&](auto f, int d) {
        if (f.getSrc() != src || f.getDst() != dst ||
            getFlagUnit(f.getSrc(), f.getDst()) != unit)
          return;
        int64_t e = f.getEvent();
        for (int64_t i = e; i < e + eventsOf(f.getSlot()) && i < kEvents; ++i)
          ev.push_back({static_cast<int>(i), d});
      };
      if (auto s = dyn_cast<SetFlagOp>(op))
        add(s, +1);
      else if (auto w = dyn_cast<WaitFlagOp>(op))
        add(w, -1);
    };
  }
  /// The ids of the cross-core flags `setter` sets and the other core waits.
  auto crossEvents(Unit setter) {
    return [=](Operation *op, SmallVectorImpl<std::pair<int, int>> &ev) {
      if (auto s = dyn_cast<SyncSetOp>(op); s && s.getUnit() == setter)
        ev.push_back({static_cast<int>(s.getEvent()), +1});
      if (auto w = dyn_cast<SyncWaitOp>(op); w && w.getUnit() != setter)
        ev.push_back({static_cast<int>(w.getEvent()), -1});
    };
  }

  /// The lowest `count` consecutive ids below `limit` not in `used`.
  static std::optional<int> pickIds(const llvm::SmallSet<int, 16> &used,
                                    int count, int limit) {
    for (int base = 0; base + count <= limit; ++base) {
      bool free = true;
      for (int i = 0; i < count && free; ++i)
        free = !used.count(base + i);
      if (free)
        return base;
    }
    return std::nullopt;
  }

  //===--------------------------------------------------------------------===//
  // Inserting an order
  //===--------------------------------------------------------------------===//

  /// The outermost running loop whose earlier pass recorded `t` (a pair
  /// across that loop's iterations), if any.
  const Frame *backEdgeOf(const Touch &t) {
    for (const Frame &f : frames)
      for (auto &[loop, pass] : *t.passes)
        if (loop == f.loop && pass < f.pass)
          return &f;
    return nullptr;
  }

  /// An index for `event(base + %slot)`: the alloc's slot mod buffers,
  /// computed once, right after the alloc.
  Value slotIndex(AllocOp alloc) {
    Value &cached = slotIndices[alloc];
    if (!cached) {
      OpBuilder b(alloc->getContext());
      b.setInsertionPointAfter(alloc);
      Value n = arith::ConstantIndexOp::create(b, alloc.getLoc(),
                                               alloc.getNumBuffers());
      cached = arith::RemUIOp::create(b, alloc.getLoc(), alloc.getSlot(), n);
    }
    return cached;
  }

  /// Orders `t` before `op` (agent b) by inserting flags. Returns what the
  /// flag carries: the producer's knowledge where the set is placed (after
  /// `t`, or after the loop or branch around it, which may not have run).
  Clock order(const Touch &t, Operation *op, int b, Value bTile,
              const Place &place) {
    const bool sameUnit = unitOfAgent(t.agent) == unitOfAgent(b);
    Unit src = unitOfAgent(t.agent);
    Pipe sp = pipeOfAgent(t.agent), dp = pipeOfAgent(b);
    const Frame *loopFrame = backEdgeOf(t);
    Block *block = nullptr;
    if (!loopFrame) {
      block = commonBlock(t.op, op);
    } else {
      // Across iterations: the loop body both are in (of an scf.while, the
      // region that holds both; a pair from one region to the other runs a
      // different number of times on each side and is not placed).
      for (Region &r : loopFrame->loop->getRegions())
        if (!r.empty() && r.front().findAncestorOpInBlock(*t.op) &&
            r.front().findAncestorOpInBlock(*op))
          block = &r.front();
    }
    if (!block) {
      status = op->emitOpError()
               << "conflicts with " << describeAgent(t.agent) << "'s '"
               << t.op->getName() << "' in "
               << (loopFrame ? "another region of the loop's iterations"
                             : "a block it shares no block with")
               << "; cannot place a flag between them (synchronize by hand)";
      return *t.know;
    }
    Operation *posA = block->findAncestorOpInBlock(*t.op);
    Operation *posB = block->findAncestorOpInBlock(*op);
    // (Across iterations the two may share their position: the flags go
    // around it.)
    if (!posA || !posB || (!loopFrame && posA == posB)) {
      status = op->emitOpError()
               << "conflicts with " << describeAgent(t.agent) << "'s '"
               << t.op->getName() << "' in another region of the same '"
               << (posA ? posA->getName().getStringRef() : StringRef("op"))
               << "'; cannot place a flag between them (synchronize by hand)";
      return *t.know;
    }
    Clock carried = *t.know;
    if (posA != t.op) {
      auto it = knowAfter.find(posA);
      if (it != knowAfter.end())
        carried = it->second[t.agent];
    }
    // One flag serves every pair between the same positions and pipes.
    auto key = std::make_tuple(posA, posB, t.agent, b, loopFrame != nullptr);
    if (!inserted.insert(key).second)
      return carried;

    // Per-slot events for a multi-buffered site whose copies follow the
    // loop's iterations (the copy the producer used comes back after
    // `buffers` iterations), or one allocated before the loop, whose copy
    // stays the same through it.
    AllocOp slotted;
    if (loopFrame && place.isTile && place.slot >= 0) {
      AllocOp a = rootAlloc(place.tile);
      if (a && a.getSlot()) {
        if (a->getBlock() == block) {
          if (a->isBeforeInBlock(posA) && a->isBeforeInBlock(posB))
            slotted = a;
        } else if (Operation *loop = a->getBlock()->findAncestorOpInBlock(
                       *loopFrame->loop)) {
          if (a->isBeforeInBlock(loop))
            slotted = a;
        }
      }
    }
    int count = slotted ? static_cast<int>(slotted.getNumBuffers()) : 1;
    // The loop the flags of a pair across iterations go around: the loop
    // itself, or, when the copies alternate with an enclosing loop's
    // iterations (`slot(%j)` of an outer `scf.for`), that loop. Each
    // iteration of the inner loop waits on and sets again its copy's
    // event, so the events stay balanced however often it runs; priming
    // them around the outer loop lets one copy be filled while the other
    // is still read, where flags around the inner loop would drain both
    // copies at its every exit.
    Operation *around = loopFrame ? loopFrame->loop : nullptr;
    if (slotted)
      for (auto outer = slotted->getParentOfType<scf::ForOp>(); outer;
           outer = outer->getParentOfType<scf::ForOp>())
        if (outer->isProperAncestor(loopFrame->loop) &&
            iterationOffset(slotted.getSlot(), outer,
                            outer.getInductionVar())) {
          around = outer;
          break;
        }

    // The new flag is live from the set to the wait: after posA until posB,
    // or, across a loop's iterations, from before the loop to after it.
    llvm::SmallSet<int, 16> used;
    auto reserve = [&](auto &&events) {
      if (loopFrame)
        liveIds(around, nullptr, nullptr, around, events, used);
      else
        liveIds(nullptr, posA, posB, nullptr, events, used);
    };
    std::optional<int> base;
    if (sameUnit) {
      reserve(flagEvents(getFlagUnit(sp, dp), sp, dp));
      base = pickIds(used, count, kEvents);
    } else {
      reserve(crossEvents(src));
      base = pickIds(used, count, kCrossEvents);
    }
    if (!base) {
      status = op->emitOpError()
               << "needs a flag from " << describeAgent(t.agent) << " to "
               << describeAgent(b) << " but all "
               << (sameUnit ? kEvents : kCrossEvents)
               << " event ids are live here";
      return carried;
    }

    Location loc = op->getLoc();
    OpBuilder builder(op->getContext());
    auto set = [&](OpBuilder &bld, int64_t event, Value slot) {
      Operation *created =
          sameUnit ? SetFlagOp::create(bld, loc, sp, dp, event, slot)
                         .getOperation()
                   : SyncSetOp::create(bld, loc, src, sp, event).getOperation();
      insertedOps.insert(created);
    };
    auto wait = [&](OpBuilder &bld, int64_t event, Value slot) {
      Operation *created =
          sameUnit ? WaitFlagOp::create(bld, loc, sp, dp, event, slot)
                         .getOperation()
                   : SyncWaitOp::create(bld, loc, unitOfAgent(b), event)
                         .getOperation();
      insertedOps.insert(created);
    };
    // After the producer, before the consumer.
    Value slot = slotted ? slotIndex(slotted) : Value();
    builder.setInsertionPointAfter(posA);
    set(builder, *base, slot);
    builder.setInsertionPoint(posB);
    wait(builder, *base, slot);
    if (loopFrame) {
      // The first iterations wait for a flag set before the loop; the last
      // ones' flags are consumed after it.
      builder.setInsertionPoint(around);
      for (int i = 0; i < count; ++i)
        set(builder, *base + i, Value());
      builder.setInsertionPointAfter(around);
      for (int i = 0; i < count; ++i)
        wait(builder, *base + i, Value());
    }
    ++result.inserted;
    (void)bTile;
    return carried;
  }

  //===--------------------------------------------------------------------===//
  // Instructions
  //===--------------------------------------------------------------------===//

  void report(const Touch &t, Operation *op, int b, const Place &place,
              bool write, bool barrier) {
    ++result.missing;
    if (!diagnose) {
      status = failure();
      return;
    }
    std::string where;
    {
      llvm::raw_string_ostream os(where);
      if (place.isTile)
        os << "tile " << place.tile.getType();
      else
        os << "global memory";
    }
    const char *what = t.write ? "wrote" : "read";
    InFlightDiagnostic d = op->emitOpError()
                           << (write ? "writes " : "reads ") << where
                           << " that '" << t.op->getName() << "' on "
                           << describeAgent(t.agent) << " " << what
                           << " with nothing ordering them: ";
    if (barrier)
      d << "a vector instruction reading what another wrote needs "
           "tile.barrier v between them (unless both are element-wise over "
           "the same tile)";
    else if (unitOfAgent(t.agent) == unitOfAgent(b))
      d << "needs tile.set_flag " << stringifyPipe(pipeOfAgent(t.agent))
        << " -> " << stringifyPipe(pipeOfAgent(b))
        << " after it and tile.wait_flag before this op";
    else
      d << "the " << stringifyUnit(unitOfAgent(t.agent)) << " and the "
        << stringifyUnit(unitOfAgent(b))
        << " core need tile.sync_set / tile.sync_wait";
    d.attachNote(t.op->getLoc()) << "the other access";
    status = failure();
  }

  void instruction(Operation *op, State &st) {
    auto pipeOp = cast<PipeOpInterface>(op);
    Unit unit = pipeOp.getUnit();
    int b = agentOf(unit, pipeOp.getPipe());
    const uint32_t clock = ++st.know[b][b];

    struct Access {
      Place place;
      bool write;
      bool elementwise;
    };
    SmallVector<Access, 4> accesses;
    for (const StaticAccess &a : accessesOf(op))
      accesses.push_back({placeOf(a), a.write, a.elementwise});

    // Conflicts: the latest unordered access per agent, and V barriers.
    std::array<std::optional<std::pair<Touch, Access>>, kAgents> needs;
    bool needBarrier = false;
    std::optional<std::pair<Touch, Access>> barrierFor;
    for (const Access &x : accesses) {
      auto visit = [&](const Touch &t, bool conflictIsRaw) {
        if (t.op == op && t.clock == clock && t.agent == b)
          return;
        if (ignored.count(t.op))
          return;
        if (t.agent == b) {
          if (pipeOp.getPipe() == Pipe::v && conflictIsRaw && !x.write &&
              !(t.elementwise && x.elementwise && x.place.isTile &&
                sameFootprint(t.tile, x.place.tile)) &&
              st.vBarrier[unitIndex(unit)] < t.clock) {
            needBarrier = true;
            barrierFor = {t, x};
          }
          return;
        }
        if (st.know[b][t.agent] >= t.clock) {
          // Every path to knowledge of the producer's clock goes through
          // these waits, so without any of them the pair is not ordered.
          if (!st.via.empty())
            need(st.via[b][t.agent].at(t.clock));
          return;
        }
        std::optional<std::pair<Touch, Access>> &need = needs[t.agent];
        if (!need || need->first.clock < t.clock)
          need = {t, x};
      };
      const FlatMap<int, Cell, 1> *slots = st.slots(x.place.key);
      if (!slots)
        continue;
      for (auto &[slot, cell] : *slots) {
        if (x.place.slot >= 0 && slot >= 0 && slot != x.place.slot)
          continue;
        for (const Touch &t : cell.writers)
          visit(t, true);
        if (x.write)
          for (const Touch &t : cell.readers)
            visit(t, false);
      }
    }

    if (needBarrier) {
      if (insert) {
        OpBuilder builder(op);
        BarrierOp::create(builder, op->getLoc(), Pipe::v);
        ++result.inserted;
        st.vBarrier[unitIndex(unit)] = clock - 1;
      } else {
        report(barrierFor->first, op, b, barrierFor->second.place,
               barrierFor->second.write, /*barrier=*/true);
      }
    }
    // Order after the producer whose knowledge covers most of the others
    // first: its flag may make theirs unnecessary.
    SmallVector<std::pair<Touch, Access>> pending;
    for (auto &need : needs)
      if (need)
        pending.push_back(*need);
    auto covers = [](const Touch &by, const Touch &t) {
      return (*by.know)[t.agent] >= t.clock;
    };
    while (!pending.empty()) {
      auto best = std::max_element(
          pending.begin(), pending.end(), [&](auto &x, auto &y) {
            auto count = [&](const Touch &by) {
              return llvm::count_if(pending,
                                    [&](auto &o) { return covers(by, o.first); });
            };
            return count(x.first) < count(y.first);
          });
      std::pair<Touch, Access> need = *best;
      pending.erase(best);
      const Touch &t = need.first;
      if (st.know[b][t.agent] >= t.clock)
        continue; // covered by a flag just placed
      if (insert) {
        Clock carried =
            order(t, op, b, need.second.place.tile, need.second.place);
        if (unitOfAgent(t.agent) == unit) {
          joinClock(st.know[b], carried);
        } else {
          for (int p = 0; p < kPipes; ++p)
            joinClock(st.know[agentOf(unit, static_cast<Pipe>(p))], carried);
        }

      } else {
        report(t, op, b, need.second.place, need.second.write,
               /*barrier=*/false);
      }
    }
    st.know[b][b] = clock;

    // Remember the accesses.
    const PassList &passes = currentPasses();
    const Clock &know = knowStore.emplace_back(st.know[b]);
    for (const Access &x : accesses) {
      Touch t{op,           b,           clock, x.write, x.elementwise,
              x.place.tile, x.place.slot, &know, &passes};
      Cell &cell = st.mutableSlots(x.place.key)[x.place.slot];
      if (x.write) {
        // A write to a known copy (or a single buffer) replaces what was
        // known; one to an unknown copy adds a possible writer.
        if (x.place.slot >= 0 || x.place.numSlots == 1) {
          cell.writers.clear();
          cell.readers.clear();
        }
        cell.writers.push_back(t);
      } else {
        llvm::erase_if(cell.readers,
                       [&](const Touch &r) { return r.agent == b; });
        cell.readers.push_back(t);
      }
    }
  }

  //===--------------------------------------------------------------------===//
  // Existing synchronization
  //===--------------------------------------------------------------------===//

  int eventOf(int64_t base, Value slot) {
    if (!slot)
      return static_cast<int>(base);
    // A slot-indexed event: the slot's value in the running passes.
    Value s = slot;
    int64_t mod = 0;
    if (auto rem = s.getDefiningOp<arith::RemUIOp>()) {
      if (std::optional<int64_t> n = constantOf(rem.getRhs())) {
        mod = *n;
        s = rem.getLhs();
      }
    }
    std::optional<int64_t> v = slotValue(s);
    if (!v || mod <= 0)
      return -1;
    return static_cast<int>(base + ((*v % mod) + mod) % mod);
  }

  /// Marks the waits of `waits` needed.
  void need(const Waits &waits) {
    for (unsigned i = 0; i < kTrackedWaits; ++i)
      if (waits[i / 64] >> (i % 64) & 1)
        neededWaits.insert(bitWaits[i]);
  }

  /// The bit of wait op `op` (none past kTrackedWaits).
  Waits bitOf(Operation *op) {
    auto [it, added] = waitBits.try_emplace(op, bitWaits.size());
    if (added)
      bitWaits.push_back(op);
    Waits w{};
    if (it->second < kTrackedWaits)
      w[it->second / 64] = uint64_t(1) << (it->second % 64);
    return w;
  }

  /// know = max(know, from), and, when tracked, what it depends on: its
  /// own steps beside `from`'s, which a wait (bit `bit`) brought with the
  /// waits `fromVia` of exactly `from` (the setter's) and, below it, at
  /// least that wait.
  static void learnOne(uint32_t &know, Stairs *via, uint32_t from,
                       const Waits *fromVia, const Waits &bit) {
    if (via) {
      Stairs brought;
      brought.n = 0;
      if (from > 0)
        brought.push(from - 1, bit);
      brought.push(from, fromVia ? unite(*fromVia, bit) : bit);
      *via = meet(*via, brought);
    }
    know = std::max(know, from);
  }
  /// Agent `a` learns `snapshot` (with its waits `snapshotVia`, when
  /// tracked) through the wait whose bit is `bit`.
  static void learn(State &st, int a, const Clock &snapshot,
                    const WaitsRow *snapshotVia, const Waits &bit) {
    if (st.via.empty())
      return joinClock(st.know[a], snapshot);
    for (int c = 0; c < kAgents; ++c)
      learnOne(st.know[a][c], c == a ? nullptr : &st.via[a][c], snapshot[c],
               snapshotVia ? &(*snapshotVia)[c] : nullptr, bit);
  }

  void pop(Operation *op, Fifo<Clock> &queue, Fifo<Operation *> *setters,
           Fifo<WaitsRow> *vias, ArrayRef<int> agents, State &st) {
    if (queue.empty()) {
      if (!insert) {
        if (diagnose)
          op->emitOpError("waits for a flag no tile.set_flag / "
                          "tile.sync_set sets before it on this path: the "
                          "device would hang");
        status = failure();
      }
      return;
    }
    const bool tracked = !st.via.empty() && vias && !vias->empty();
    const Waits bit = tracked ? bitOf(op) : Waits{};
    for (int a : agents)
      learn(st, a, queue.front(), tracked ? &vias->front() : nullptr, bit);
    queue.pop_front();
    if (tracked)
      vias->pop_front();
    if (setters && !setters->empty()) {
      waitSources[op].push_back(setters->front());
      setters->pop_front();
    }
  }

  void syncOp(Operation *op, State &st) {
    if (ignored.count(op))
      return;
    if (auto s = dyn_cast<SetFlagOp>(op)) {
      Unit u = getFlagUnit(s.getSrc(), s.getDst());
      int e = eventOf(s.getEvent(), s.getSlot());
      FlagKey key{unitIndex(u), static_cast<int>(s.getSrc()),
                  static_cast<int>(s.getDst()), e};
      st.flags[key].push_back(st.know[agentOf(u, s.getSrc())]);
      st.flagSetters[key].push_back(op);
      if (!st.via.empty()) {
        const int a = agentOf(u, s.getSrc());
        st.flagVias[key].push_back(topsOf(st.via[a], a));
      }
    } else if (auto w = dyn_cast<WaitFlagOp>(op)) {
      Unit u = getFlagUnit(w.getSrc(), w.getDst());
      int e = eventOf(w.getEvent(), w.getSlot());
      FlagKey key{unitIndex(u), static_cast<int>(w.getSrc()),
                  static_cast<int>(w.getDst()), e};
      pop(op, st.flags[key], &st.flagSetters[key],
          st.via.empty() ? nullptr : &st.flagVias[key],
          {agentOf(u, w.getDst())}, st);
    } else if (auto b = dyn_cast<BarrierOp>(op)) {
      for (int u = 0; u < 2; ++u) {
        Unit unit = u ? Unit::vector : Unit::cube;
        if (b.getPipe() == Pipe::v || b.getPipe() == Pipe::all)
          st.vBarrier[u] = st.know[agentOf(unit, Pipe::v)][agentOf(unit, Pipe::v)];
        if (b.getPipe() == Pipe::all) {
          // Every pipe of the unit learns what any of them knows (through
          // no flag wait), with what each threshold of it depends on.
          Clock all{};
          for (int p = 0; p < kPipes; ++p)
            joinClock(all, st.know[agentOf(unit, static_cast<Pipe>(p))]);
          if (!st.via.empty()) {
            // (A pipe knows its own clock through no wait.)
            auto pipe = [&](int p) {
              return agentOf(unit, static_cast<Pipe>(p));
            };
            StairsRow allVia{};
            for (int p = 0; p < kPipes; ++p)
              for (int c = 0; c < kAgents; ++c) {
                Stairs own;
                own.upTo[0] = st.know[c][c];
                allVia[c] =
                    meet(allVia[c], c == pipe(p) ? own : st.via[pipe(p)][c]);
              }
            for (int p = 0; p < kPipes; ++p)
              for (int c = 0; c < kAgents; ++c)
                if (c != pipe(p))
                  st.via[pipe(p)][c] = allVia[c];
          }
          for (int p = 0; p < kPipes; ++p)
            joinClock(st.know[agentOf(unit, static_cast<Pipe>(p))], all);
        }
      }
    } else if (auto s = dyn_cast<SyncSetOp>(op)) {
      std::pair<int, int> key{unitIndex(s.getUnit()),
                              static_cast<int>(s.getEvent())};
      st.cross[key].push_back(st.know[agentOf(s.getUnit(), s.getPipe())]);
      st.crossSetters[key].push_back(op);
      if (!st.via.empty()) {
        const int a = agentOf(s.getUnit(), s.getPipe());
        st.crossVias[key].push_back(topsOf(st.via[a], a));
      }
    } else if (auto w = dyn_cast<SyncWaitOp>(op)) {
      Unit other = w.getUnit() == Unit::cube ? Unit::vector : Unit::cube;
      std::pair<int, int> key{unitIndex(other), static_cast<int>(w.getEvent())};
      std::array<int, kPipes> agents;
      for (int p = 0; p < kPipes; ++p)
        agents[p] = agentOf(w.getUnit(), static_cast<Pipe>(p));
      pop(op, st.cross[key], &st.crossSetters[key],
          st.via.empty() ? nullptr : &st.crossVias[key], agents, st);
    }
  }

  //===--------------------------------------------------------------------===//
  // Control flow
  //===--------------------------------------------------------------------===//

  /// Passes of a loop: one more than the most copies a tile of it cycles
  /// through, so a copy's reuse meets its last use.
  int passesOf(Operation *loop, Value iv) {
    auto [it, added] = cache.loopPasses.try_emplace(loop, 0);
    if (added)
      it->second = countPasses(loop, iv);
    return it->second;
  }
  static int countPasses(Operation *loop, Value iv) {
    int most = 1;
    loop->walk([&](AllocOp a) {
      if (a.getSlot() && iterationOffset(a.getSlot(), loop, iv))
        most = std::max<int>(most, a.getNumBuffers());
    });
    return most + 1;
  }

  void loop(Operation *op, Value iv, ArrayRef<Region *> body, State &st) {
    State before = st;
    frames.push_back({op, 0, iv});
    int passes = passesOf(op, iv);
    for (int pass = 0; pass < passes && succeeded(status); ++pass) {
      frames.back().pass = pass;
      passesNow = nullptr;
      for (Region *r : body)
        processRegion(*r, st);
    }
    frames.pop_back();
    passesNow = nullptr;
    // The loop may run no iteration at all.
    joinStates(st, before);
    // Flags are balanced per iteration: what the body left pending is the
    // last iteration's (the join keeps the loop's queues).
  }

  /// Whether `op` holds a tile instruction or flag: the loops and branches
  /// the model follows (the others change nothing it tracks).
  bool holdsTiles(Operation *op) {
    auto [it, added] = cache.tileHolders.try_emplace(op, false);
    if (added)
      it->second = op->walk([](Operation *inner) {
                       return isa_and_present<TileDialect>(inner->getDialect())
                                  ? WalkResult::interrupt()
                                  : WalkResult::advance();
                     }).wasInterrupted();
    return it->second;
  }

  void processOp(Operation *op, State &st) {
    if (op->getNumRegions() == 0) {
      if (!isa_and_present<TileDialect>(op->getDialect()))
        return;
      if (isa<SetFlagOp, WaitFlagOp, BarrierOp, SyncSetOp, SyncWaitOp>(op))
        return syncOp(op, st);
      if (isa<PipeOpInterface>(op))
        return instruction(op, st);
      return;
    }
    if (!holdsTiles(op))
      return;
    processRegionOp(op, st);
    // (What a flag set after the loop or branch carries: only insertion
    // places flags.)
    if (insert)
      knowAfter[op] = st.know;
  }

  /// The control flow the model follows: the function's body and scf.for,
  /// scf.while and scf.if, one block per region. Anything else around tile
  /// instructions is an error at that op, not a guess.
  LogicalResult checkStructure() {
    bool anyTiles = false;
    fn->walk([&](PipeOpInterface) { anyTiles = true; });
    if (!anyTiles)
      return success();
    WalkResult r = fn->walk([&](Operation *op) {
      // Every tile is a tile.alloc, a view of one or an argument: what the
      // model tells apart by its root.
      if (!isa<AllocOp, SubviewOp, ReshapeOp>(op))
        for (Value v : op->getResults())
          if (isa<TileType>(v.getType())) {
            op->emitOpError() << "yields a tile; tile synchronization needs "
                                 "each tile traced to its tile.alloc";
            return WalkResult::interrupt();
          }
      if (op->getNumRegions() == 0 || op == fn.getOperation())
        return WalkResult::advance();
      bool tiles = false;
      op->walk([&](PipeOpInterface) { tiles = true; });
      if (!tiles)
        return WalkResult::advance();
      if (!isa<scf::ForOp, scf::WhileOp, scf::IfOp>(op)) {
        op->emitOpError() << "holds tile instructions; tile synchronization "
                             "follows scf.for, scf.while and scf.if only";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return failure();
    for (Block &blk : fn.getFunctionBody())
      if (&blk != &fn.getFunctionBody().front()) {
        fn->emitOpError() << "has " << fn.getFunctionBody().getBlocks().size()
                          << " blocks; tile synchronization follows "
                             "structured control flow (one block)";
        return failure();
      }
    return success();
  }

  void processRegionOp(Operation *op, State &st) {
    if (auto f = dyn_cast<scf::ForOp>(op))
      return loop(op, f.getInductionVar(), {&f.getRegion()}, st);
    if (auto w = dyn_cast<scf::WhileOp>(op))
      return loop(op, Value(), {&w.getBefore(), &w.getAfter()}, st);
    if (auto i = dyn_cast<scf::IfOp>(op)) {
      State other = st;
      processRegion(i.getThenRegion(), st);
      if (!i.getElseRegion().empty())
        processRegion(i.getElseRegion(), other);
      if (!insert && (pendingCounts(st) != pendingCounts(other))) {
        if (diagnose)
          op->emitOpError("sets or waits flags on one branch that the other "
                          "does not match: every path must leave the same "
                          "flags pending");
        status = failure();
      }
      joinStates(st, other);
      return;
    }
    // Anything else with regions: its tile instructions, in order.
    for (Region &r : op->getRegions())
      processRegion(r, st);
  }

  /// How many flags of each kind are pending (set, not yet waited), in
  /// key order (the maps hold their keys in order).
  static SmallVector<std::tuple<int, int, int, int, int, size_t>, 8>
  pendingCounts(const State &st) {
    SmallVector<std::tuple<int, int, int, int, int, size_t>, 8> counts;
    for (auto &[key, queue] : st.flags)
      if (!queue.empty())
        counts.push_back({0, std::get<0>(key), std::get<1>(key),
                          std::get<2>(key), std::get<3>(key), queue.size()});
    for (auto &[key, queue] : st.cross)
      if (!queue.empty())
        counts.push_back({1, key.first, key.second, 0, 0, queue.size()});
    return counts;
  }

  void processRegion(Region &region, State &st) {
    for (Block &block : region)
      for (Operation *op = block.empty() ? nullptr : &block.front(),
                     *next = nullptr;
           op; op = next) {
        next = op->getNextNode();
        processOp(op, st);
        if (failed(status))
          return;
      }
  }

  FunctionOpInterface fn;
  bool insert;
  SolveCache &cache;
  LogicalResult status = success();
  SmallVector<Frame, 4> frames;
  std::set<std::tuple<Operation *, Operation *, int, int, bool>> inserted;
  /// What every agent knew right after each loop or branch (the last time
  /// it ran): what a flag set after it carries.
  llvm::DenseMap<Operation *, std::array<Clock, kAgents>> knowAfter;
  llvm::DenseMap<Operation *, Value> slotIndices;
  /// The bit of each flag wait met (trackWaits), and the wait of each bit.
  llvm::DenseMap<Operation *, unsigned> waitBits;
  SmallVector<Operation *> bitWaits;
  /// What Touches reference (stable addresses, kept for the whole solve).
  std::deque<Clock> knowStore;
  std::deque<PassList> passStore;
  /// The running loops' passes as a PassList, while they stay the same.
  const PassList *passesNow = nullptr;
  const PassList &currentPasses() {
    if (!passesNow) {
      PassList &passes = passStore.emplace_back();
      for (const Frame &f : frames)
        passes.push_back({f.loop, f.pass});
      passesNow = &passes;
    }
    return *passesNow;
  }
};

} // namespace

/// Flags of `fn` whose removal, all of them together, leaves every pair
/// ordered, as groups of set and wait ops that pair with each other (a flag
/// across loop iterations is its body set and wait with the set before the loop
/// and the wait after it). `only`, if given, limits the groups to its ops.
/// `proven`, when given, tells whether the program without the groups
/// returned was solved ordered: the probe solves the program as it is, and
/// each successful solve of the search the program without every group
/// dropped so far, so the last successful one (or the probe, when none
/// succeeds) is of the program that removing the groups leaves.
static SmallVector<llvm::SmallPtrSet<Operation *, 8>>
redundantFlags(FunctionOpInterface fn,
               const llvm::SmallPtrSetImpl<Operation *> *only,
               SolveCache &cache, bool *proven = nullptr) {
  SmallVector<llvm::SmallPtrSet<Operation *, 8>> redundant;
  Solver probe(fn, /*insert=*/false, cache);
  probe.diagnose = false;
  probe.trackWaits = true;
  if (failed(probe.run()))
    return redundant;
  if (proven)
    *proven = true;
  llvm::DenseMap<Operation *, SmallVector<Operation *, 2>> &sources =
      probe.waitSources;
  // Waits in program order, so that the result does not depend on
  // pointer values.
  SmallVector<Operation *> waits;
  fn->walk([&](Operation *op) {
    if (sources.count(op))
      waits.push_back(op);
  });
  // The waits that consumed each set, in program order.
  llvm::DenseMap<Operation *, SmallVector<Operation *, 2>> consumers;
  for (Operation *wait : waits)
    for (Operation *set : sources.lookup(wait))
      consumers[set].push_back(wait);
  llvm::SmallPtrSet<Operation *, 8> seen;
  SmallVector<llvm::SmallPtrSet<Operation *, 8>> candidates;
  for (Operation *wait : waits) {
    if (seen.count(wait))
      continue;
    // The wait and every set and wait it pairs with, through each other:
    // each op of the group visited once, the wait first, then its sets.
    llvm::SmallPtrSet<Operation *, 8> group;
    SmallVector<Operation *> work = {wait};
    group.insert(wait);
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      auto visit = [&](ArrayRef<Operation *> next) {
        for (Operation *other : next)
          if (group.insert(other).second)
            work.push_back(other);
      };
      visit(sources.lookup(op));
      visit(consumers.lookup(op));
    }
    for (Operation *op : group)
      seen.insert(op);
    if (only && llvm::any_of(group, [&](Operation *op) {
          return !only->count(op);
        }))
      continue;
    // A group with a wait some ordered pair cannot do without is needed
    // in this program, and so in any with fewer flags: no solve.
    if (llvm::any_of(
            group, [&](Operation *op) { return probe.neededWaits.count(op); }))
      continue;
    candidates.push_back(std::move(group));
  }
  // In program order, each group is redundant together with the groups
  // found before it (two flags that order the same pair are not both
  // redundant). Fewer flags order fewer pairs, so when a run of candidates
  // can go all together, each of them would have gone in turn: one solve
  // answers for the run, and only a run that cannot go is halved.
  llvm::SmallPtrSet<Operation *, 8> dropped;
  std::function<void(MutableArrayRef<llvm::SmallPtrSet<Operation *, 8>>)>
      search = [&](MutableArrayRef<llvm::SmallPtrSet<Operation *, 8>> run) {
        if (run.empty())
          return;
        Solver without(fn, /*insert=*/false, cache);
        without.diagnose = false;
        without.ignored = dropped;
        for (auto &group : run)
          without.ignored.insert(group.begin(), group.end());
        if (succeeded(without.run())) {
          for (auto &group : run) {
            dropped.insert(group.begin(), group.end());
            redundant.push_back(std::move(group));
          }
          return;
        }
        if (run.size() == 1)
          return;
        const size_t half = run.size() / 2;
        search(run.take_front(half));
        search(run.drop_front(half));
      };
  search(candidates);
  return redundant;
}

/// Ends every path of `fn` with all its pipes drained and, when it uses
/// both cores, a handshake between them: a kernel runs once per descriptor
/// on the same core, and the next invocation must not overtake this one.
static void addInvocationFence(FunctionOpInterface fn, SyncResult &result,
                               llvm::SmallPtrSetImpl<Operation *> &inserted) {
  bool units[2] = {false, false};
  fn->walk([&](PipeOpInterface op) {
    units[op.getUnit() == Unit::cube ? 0 : 1] = true;
  });
  for (Block &block : fn.getFunctionBody()) {
    Operation *end = block.getTerminator();
    if (!end)
      continue;
    if (!units[0] && !units[1])
      continue;
    // Fenced already (by hand, or by an earlier run of the pass)? The
    // barrier is kept; the handshake is inserted again when both cores
    // run, and pruning removes it again where it is not needed.
    Operation *prev = end->getPrevNode();
    while (prev && isa<SyncSetOp, SyncWaitOp>(prev))
      prev = prev->getPrevNode();
    auto barrier = dyn_cast_if_present<BarrierOp>(prev);
    bool fenced = barrier && barrier.getPipe() == Pipe::all;
    // A handshake after the barrier (what an earlier run kept) stays.
    bool shaken = fenced && barrier->getNextNode() != end;
    if (fenced && (!(units[0] && units[1]) || shaken))
      continue;
    OpBuilder builder(end);
    Location loc = end->getLoc();
    if (!fenced)
      BarrierOp::create(builder, loc, Pipe::all);
    if (units[0] && units[1]) {
      // Program order is the order the cores meet: the cube signals, the
      // vector core waits, then the other way round.
      // (Pruned with the other inserted flags where the kernel's own
      // exchanges already order consecutive invocations.)
      inserted.insert(SyncSetOp::create(builder, loc, Unit::cube, Pipe::fix, 0));
      inserted.insert(SyncWaitOp::create(builder, loc, Unit::vector, 0));
      inserted.insert(
          SyncSetOp::create(builder, loc, Unit::vector, Pipe::mte3, 0));
      inserted.insert(SyncWaitOp::create(builder, loc, Unit::cube, 0));
    }
    ++result.inserted;
  }
}

/// The `tile.subblock_id` that `v` is computed from within `fn`, if any:
/// through the operands of its defining ops, the values a region of one
/// yields, and the loop or branch that defines a block argument.
static Operation *subblockSource(Value v, llvm::DenseSet<Value> &seen) {
  SmallVector<Value> work = {v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    Operation *def = x.getDefiningOp();
    if (!def) {
      // A loop's induction variable or iteration argument: the loop's
      // bounds and initial values (its yields are its body's operands).
      if (Operation *owner = x.getParentBlock()->getParentOp())
        if (!isa<FunctionOpInterface>(owner))
          llvm::append_range(work, owner->getOperands());
      continue;
    }
    if (isa<SubblockIdOp>(def))
      return def;
    llvm::append_range(work, def->getOperands());
    for (Region &region : def->getRegions())
      for (Block &block : region)
        if (Operation *end = block.getTerminator())
          llvm::append_range(work, end->getOperands());
  }
  return nullptr;
}

/// The block's two vector cores run the same vector code, and the cube's
/// `tile.sync_wait` takes one set from each of them (FFTS mode 2), so each
/// of them must pass every vector-side cross-core flag the same number of
/// times: no vector `tile.sync_set`/`tile.sync_wait` under a branch or loop
/// whose condition or bounds depend on `tile.subblock_id`.
/// `inserted`: the flags tile-insert-sync placed (reported at the access
/// they were placed for, which their location is).
static LogicalResult
checkConvergentFlags(FunctionOpInterface fn,
                     const llvm::SmallPtrSetImpl<Operation *> *inserted) {
  LogicalResult status = success();
  llvm::SmallPtrSet<Operation *, 4> reported; // one error per branch or loop
  // Per branch or loop: the sub-block index it depends on (or null).
  llvm::DenseMap<Operation *, Operation *> divergent;
  auto dependsOn = [&](Operation *parent) -> Operation * {
    auto [it, fresh] = divergent.try_emplace(parent, nullptr);
    if (!fresh)
      return it->second;
    SmallVector<Value> decides;
    if (auto branch = dyn_cast<scf::IfOp>(parent))
      decides.push_back(branch.getCondition());
    else if (auto loop = dyn_cast<scf::ForOp>(parent))
      decides = {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
    else if (auto loop = dyn_cast<scf::WhileOp>(parent))
      decides.push_back(loop.getConditionOp().getCondition());
    llvm::DenseSet<Value> seen;
    Operation *source = nullptr;
    for (Value v : decides)
      if (!source)
        source = subblockSource(v, seen);
    divergent[parent] = source;
    return source;
  };
  fn->walk([&](Operation *op) {
    Unit unit;
    if (auto set = dyn_cast<SyncSetOp>(op))
      unit = set.getUnit();
    else if (auto wait = dyn_cast<SyncWaitOp>(op))
      unit = wait.getUnit();
    else
      return;
    if (unit != Unit::vector)
      return;
    for (Operation *parent = op->getParentOp(); parent && parent != fn;
         parent = parent->getParentOp()) {
      Operation *source = dependsOn(parent);
      if (!source)
        continue;
      if (!reported.insert(parent).second)
        return;
      const bool placed = inserted && inserted->contains(op);
      InFlightDiagnostic diag =
          placed ? emitError(op->getLoc())
                       << "the cross-core flag this access needs ('"
                       << op->getName() << "') would be"
                 : op->emitOpError("is");
      diag << " under a '" << parent->getName()
           << "' whose condition or bounds depend on tile.subblock_id: the "
              "block's two vector cores may pass it a different number of "
              "times, and the cube's tile.sync_wait takes one set from each";
      if (placed)
        diag << "; exchange with the cube outside it";
      diag.attachNote(parent->getLoc()) << "the branch or loop";
      diag.attachNote(source->getLoc()) << "the sub-block index";
      status = failure();
      return;
    }
  });
  return status;
}

FailureOr<SyncResult> mlir::wsp::tile::solveSync(FunctionOpInterface fn,
                                                 bool insert, bool redundant) {
  SolveCache cache;
  Solver solver(fn, insert, cache);
  FailureOr<SyncResult> result = solver.run();
  if (failed(result))
    return result;
  if (insert) {
    addInvocationFence(fn, *result, solver.insertedOps);
    if (failed(checkConvergentFlags(fn, &solver.insertedOps)))
      return failure();
    if (!redundant)
      return result;
    // Flags placed early can be made unnecessary by later ones: drop what
    // the final program does not need. The groups are redundant together
    // (redundantFlags), and removing flags makes no other flag redundant,
    // so one search finds them all.
    for (auto &group :
         redundantFlags(fn, &solver.insertedOps, cache, &result->proven)) {
      for (Operation *op : group) {
        solver.insertedOps.erase(op);
        op->erase();
      }
      --result->inserted;
    }
    return result;
  }
  if (failed(checkConvergentFlags(fn, nullptr)))
    return failure();
  if (!redundant)
    return result;
  for (auto &group : redundantFlags(fn, nullptr, cache))
    for (Operation *op : group)
      if (isa<SetFlagOp, SyncSetOp>(op)) {
        op->emitWarning("is redundant: every pair it orders is ordered "
                        "without it");
        break;
      }
  return result;
}
