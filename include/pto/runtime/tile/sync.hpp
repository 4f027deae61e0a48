// pto/runtime/tile/sync.hpp - the synchronization checker of the tile
// simulation (pto/runtime/tile.hpp): the pipes of a block as vector clocks,
// what each instruction touched (on chip and in global memory), the hazards
// between them, KernelScope, and the synchronization instructions
// (set_flag/wait_flag, pipe_barrier, sync_set/sync_wait).
#ifndef PTO_RUNTIME_TILE_SYNC_HPP
#define PTO_RUNTIME_TILE_SYNC_HPP

#include "pto/runtime/tile/types.hpp"
#include "pto/runtime/hardware.hpp"
#include "pto/runtime/sim_core.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <map>
#include <vector>

namespace pto {
namespace runtime {
namespace tile {

//===----------------------------------------------------------------------===//
// The synchronization checker
//===----------------------------------------------------------------------===//

namespace detail {
constexpr int kPipes = kNumPipes;
constexpr int kAgents = 2 * kPipes; // (unit, pipe)
constexpr int kGm = kNumBuffers;    // region table of global memory

inline int agent(Unit u, Pipe p) {
  return static_cast<int>(u) * kPipes + static_cast<int>(p);
}

/// What is known of a byte range: its last writer (agent and clock) and the
/// latest read by each agent since.
struct Region {
  uintptr_t lo, hi;
  int8_t writer;
  bool writer_elementwise;
  bool read_elementwise[kAgents];
  uint32_t wclock;
  const char *wname;
  uint32_t reads[kAgents];
  const char *rname[kAgents];
};

/// One operand of an instruction: bytes [lo, hi) of a buffer (or of global
/// memory), read or written, and whether element (r, c) of it depends only
/// on element (r, c) of the instruction's other element-wise operands.
struct Access {
  int table;
  uintptr_t lo, hi;
  bool write;
  bool elementwise = false;
};

/// Nodes of one size kept for reuse: global memory's region table gains
/// and loses a node per row a kernel stores, every invocation, and malloc
/// and free were a sixth of the paged KV store's time.
struct NodePool {
  std::vector<void *> free;
  size_t size = 0;
  NodePool() = default;
  NodePool(const NodePool &) = delete;
  NodePool &operator=(const NodePool &) = delete;
  ~NodePool() {
    for (void *p : free)
      ::operator delete(p);
  }
};
/// A std::map's allocator from a NodePool (single nodes; anything else, or
/// a node of another size, from the heap).
template <typename T> struct PoolAllocator {
  using value_type = T;
  NodePool *pool;
  explicit PoolAllocator(NodePool *p) : pool(p) {}
  template <typename U>
  PoolAllocator(const PoolAllocator<U> &o) : pool(o.pool) {}
  T *allocate(size_t n) {
    if (n == 1 && pool->size == sizeof(T) && !pool->free.empty()) {
      void *p = pool->free.back();
      pool->free.pop_back();
      return static_cast<T *>(p);
    }
    return static_cast<T *>(::operator new(n * sizeof(T)));
  }
  void deallocate(T *p, size_t n) {
    if (n == 1 && (pool->size == 0 || pool->size == sizeof(T))) {
      pool->size = sizeof(T);
      pool->free.push_back(p);
      return;
    }
    ::operator delete(p);
  }
  template <typename U> bool operator==(const PoolAllocator<U> &o) const {
    return pool == o.pool;
  }
  template <typename U> bool operator!=(const PoolAllocator<U> &o) const {
    return pool != o.pool;
  }
};

/// The pipes of one block (a cube core and its vector core) as vector
/// clocks: know[a][b] is the latest instruction of agent b that agent a is
/// ordered after.
struct Checker {
  uint32_t know[kAgents][kAgents] = {};
  std::vector<Region> regions[kNumBuffers];
  // Global memory's table, its nodes from `nodes` (declared first: it
  // outlives the table).
  NodePool nodes;
  using GmTable =
      std::map<uintptr_t, Region, std::less<uintptr_t>,
               PoolAllocator<std::pair<const uintptr_t, Region>>>;
  GmTable gm{PoolAllocator<std::pair<const uintptr_t, Region>>(&nodes)};
  // What a setting pipe had done: its row of `know`, by value (no
  // allocation per set_flag).
  using Snapshot = std::array<uint32_t, kAgents>;
  // Pending flags: set snapshots by (unit, src, dst, event).
  std::deque<Snapshot> flags[2][kPipes][kPipes][kFlagEventsPerPipePair];
  std::deque<Snapshot> cross[2][kCrossCoreFlags]; // by setting unit
  // How many snapshots the flag queues hold: the 816 queues are looked at
  // only when some are not empty (every invocation checks, at its end).
  int pending = 0;
  // The V pipe: clock of the last pipe_barrier(V).
  uint32_t v_barrier[2] = {0, 0};
  // The simulated core run the state belongs to (0: none).
  uint64_t run = 0;

  /// Forgets everything, keeping the containers' storage: a fresh Checker
  /// constructs its 816 flag queues (each allocating), and reset runs once
  /// per simulated core of every launch.
  void reset() {
    std::memset(know, 0, sizeof know);
    for (std::vector<Region> &t : regions)
      t.clear();
    gm.clear();
    if (pending != 0) {
      for (auto &unit : flags)
        for (auto &src : unit)
          for (auto &dst : src)
            for (std::deque<Snapshot> &q : dst)
              q.clear();
      for (auto &unit : cross)
        for (std::deque<Snapshot> &q : unit)
          q.clear();
      pending = 0;
    }
    v_barrier[0] = v_barrier[1] = 0;
    run = 0;
  }

  /// Orders agent `a` after `snapshot`.
  void join(int a, const Snapshot &snapshot) {
    for (int b = 0; b < kAgents; ++b)
      know[a][b] = std::max(know[a][b], snapshot[b]);
  }
  Snapshot snapshot(int a) const {
    Snapshot s;
    std::copy(know[a], know[a] + kAgents, s.begin());
    return s;
  }

  static const char *agent_name(int a) {
    static const char *names[kAgents] = {
        "cube S",    "cube V",    "cube M",    "cube MTE1", "cube MTE2",
        "cube MTE3", "cube FIX",  "vector S",  "vector V",  "vector M",
        "vector MTE1", "vector MTE2", "vector MTE3", "vector FIX"};
    return names[a];
  }

  /// Agent `a` may touch a range last touched by agent `b` at `clock`.
  /// A pipe runs in order, so within one pipe only a read of what an
  /// earlier instruction wrote can go wrong, and only on V: a chain of
  /// element-wise accesses to the same bytes streams safely, anything else
  /// (a reduction, a broadcast, another shape) needs pipe_barrier(V).
  bool ordered(int a, int b, uint32_t clock, bool raw,
               bool same_elementwise) const {
    if (a != b)
      return know[a][b] >= clock;
    if (!raw || b % kPipes != static_cast<int>(Pipe::V))
      return true;
    return same_elementwise || v_barrier[b / kPipes] >= clock;
  }

  void report(const char *op, int a, const char *kind, const Access &x,
              const char *other, int b) {
    const char *where = x.table == kGm
                            ? "global memory"
                            : buffer_name(static_cast<Buffer>(x.table));
    fail("%s on %s %s %s bytes [%#llx, %#llx) that %s on %s %s with no %s "
         "ordering them",
         op, agent_name(a), x.write ? "writes" : "reads", where,
         static_cast<unsigned long long>(x.lo),
         static_cast<unsigned long long>(x.hi), other, agent_name(b), kind,
         a == b ? "pipe_barrier(V)"
                : (a / kPipes == b / kPipes ? "set_flag/wait_flag"
                                            : "sync_set/sync_wait"));
  }

  // A table is sorted by address, its regions disjoint: each access finds
  // what it overlaps by binary search. An on-chip buffer's table is a
  // vector (a few dozen tiles at most); global memory's is a map, since a
  // kernel may store thousands of separate rows (a KV store into shuffled
  // pages), and inserting into the middle of a vector of them is quadratic.
  static Region &reg(std::vector<Region>::iterator it) { return *it; }
  static Region &reg(GmTable::iterator it) { return it->second; }
  static std::vector<Region>::iterator put(std::vector<Region> &t,
                                           std::vector<Region>::iterator at,
                                           const Region &r) {
    return t.insert(at, r);
  }
  static GmTable::iterator put(GmTable &t, GmTable::iterator at,
                               const Region &r) {
    return t.emplace_hint(at, r.lo, r);
  }

  /// The first region of `t` that ends after `at`.
  static std::vector<Region>::iterator first_after(std::vector<Region> &t,
                                                   uintptr_t at) {
    return std::partition_point(t.begin(), t.end(),
                                [&](const Region &r) { return r.hi <= at; });
  }
  static GmTable::iterator first_after(GmTable &t, uintptr_t at) {
    auto it = t.upper_bound(at); // the first region starting after `at`
    if (it != t.begin() && std::prev(it)->second.hi > at)
      return std::prev(it);
    return it;
  }

  /// Splits the region `it` at `at` (it straddles it), returning the right
  /// part. Iterators before the right part stay valid in a map, positions
  /// in a vector (`position`, `at_position`).
  template <typename Table, typename It>
  static It split(Table &t, It it, uintptr_t at) {
    Region right = reg(it);
    right.lo = at;
    reg(it).hi = at;
    return put(t, std::next(it), right);
  }
  static size_t position(std::vector<Region> &t,
                         std::vector<Region>::iterator it) {
    return static_cast<size_t>(it - t.begin());
  }
  static std::vector<Region>::iterator at_position(std::vector<Region> &t,
                                                   size_t i) {
    return t.begin() + static_cast<std::ptrdiff_t>(i);
  }
  static GmTable::iterator position(GmTable &, GmTable::iterator it) {
    return it;
  }
  static GmTable::iterator at_position(GmTable &, GmTable::iterator it) {
    return it;
  }

  void touch(const char *op, int a, const Access &x, uint32_t clock) {
    if (x.table == kGm)
      touch(gm, op, a, x, clock);
    else
      touch(regions[x.table], op, a, x, clock);
  }

  template <typename Table>
  void touch(Table &t, const char *op, int a, const Access &x,
             uint32_t clock) {
    const auto first = first_after(t, x.lo);
    for (auto it = first; it != t.end() && reg(it).lo < x.hi; ++it) {
      const Region &r = reg(it);
      const bool same_bytes = x.elementwise && r.lo == x.lo && r.hi == x.hi;
      const bool same = same_bytes && r.writer_elementwise;
      // The instruction's own accesses (an in-place update) are ordered.
      if (r.writer >= 0 && !(r.writer == a && r.wclock == clock) &&
          !ordered(a, r.writer, r.wclock, !x.write, same))
        report(op, a, x.write ? "wrote (write after write)" : "wrote", x,
               r.wname, r.writer);
      if (x.write)
        for (int b = 0; b < kAgents; ++b)
          if (r.reads[b] && !(b == a && r.reads[b] == clock) &&
              !ordered(a, b, r.reads[b], false,
                       same_bytes && r.read_elementwise[b]))
            report(op, a, "read (write after read)", x, r.rname[b], b);
    }
    // Regions straddling lo or hi are split there: the search above found
    // the first region [lo, hi) overlaps, a walk finds the one straddling
    // hi.
    auto it = first;
    if (it != t.end() && reg(it).lo < x.lo)
      it = split(t, it, x.lo);
    auto h = it;
    while (h != t.end() && reg(h).hi <= x.hi)
      ++h;
    if (h != t.end() && reg(h).lo < x.hi) {
      const auto kept = position(t, it);
      split(t, h, x.hi);
      it = at_position(t, kept);
    }
    if (x.write) {
      // One region for what was written, replacing what was there. When a
      // region starts at lo (a tile written again, the common case) it is
      // overwritten in place, so that the table's tail moves once (to
      // close up what else lay in [lo, hi)) or not at all, not twice.
      auto end = it;
      while (end != t.end() && reg(end).lo < x.hi)
        ++end;
      auto written = [&](Region &r) {
        r.lo = x.lo;
        r.hi = x.hi;
        r.writer = static_cast<int8_t>(a);
        r.writer_elementwise = x.elementwise;
        r.wclock = clock;
        r.wname = op;
        // No reads since (a reader's name and kind are read only where
        // its clock is set).
        std::fill(std::begin(r.reads), std::end(r.reads), 0u);
      };
      if (it != end && reg(it).lo == x.lo) {
        written(reg(it));
        t.erase(std::next(it), end);
      } else {
        Region r{};
        written(r);
        put(t, t.erase(it, end), r);
      }
      return;
    }
    // The read, recorded everywhere in [lo, hi), gaps filled: a later write
    // of those bytes (on chip, or a store to global memory the kernel has
    // only read so far) must be ordered after it.
    auto mark = [&](Region &r) {
      r.reads[a] = clock;
      r.rname[a] = op;
      r.read_elementwise[a] = x.elementwise;
    };
    auto gap = [&](uintptr_t lo, uintptr_t hi) {
      Region g{};
      g.lo = lo;
      g.hi = hi;
      g.writer = -1;
      mark(g);
      return g;
    };
    uintptr_t at = x.lo;
    while (it != t.end() && reg(it).lo < x.hi) {
      if (at < reg(it).lo) {
        const uintptr_t lo = reg(it).lo;
        it = std::next(put(t, it, gap(at, lo)));
      }
      mark(reg(it));
      at = reg(it).hi;
      ++it;
    }
    if (at < x.hi)
      put(t, it, gap(at, x.hi));
  }

  /// Forgets what every agent is ordered after already: such a record can
  /// make no later access unordered. Run between invocations, after the
  /// kernel's fence, it keeps the tables to one invocation's accesses.
  void prune() {
    auto known = [&](int b, uint32_t clock) {
      for (int a = 0; a < kAgents; ++a)
        if (know[a][b] < clock)
          return false;
      return true;
    };
    auto settled = [&](const Region &r) {
      if (r.writer >= 0 && !known(r.writer, r.wclock))
        return false;
      for (int b = 0; b < kAgents; ++b)
        if (r.reads[b] && !known(b, r.reads[b]))
          return false;
      return true;
    };
    for (std::vector<Region> &t : regions)
      t.erase(std::remove_if(t.begin(), t.end(), settled), t.end());
    for (auto it = gm.begin(); it != gm.end();)
      it = settled(it->second) ? gm.erase(it) : std::next(it);
  }

  /// One instruction on (unit, pipe) with its accesses.
  void instr(const char *op, Unit u, Pipe p,
             std::initializer_list<Access> accesses) {
    const int a = agent(u, p);
    const uint32_t clock = ++know[a][a];
    for (const Access &x : accesses)
      if (x.lo < x.hi)
        touch(op, a, x, clock);
  }
};

inline Checker &checker() {
  thread_local Checker c;
  return c;
}

/// Set while tile::fused runs a group's instructions for their checks
/// alone: each checks its operands and records its accesses (and a load or
/// store its traffic), in program order, and computes or moves nothing (the
/// group's lanes do).
inline bool &checks_only() {
  thread_local bool on = false;
  return on;
}

/// The bytes of a tile's static extent.
template <typename TileT>
Access on_chip(const TileT &t, bool write, bool elementwise = false) {
  const uint8_t *base = scratch().base(buffer_of(TileT::loc));
  const uintptr_t lo = reinterpret_cast<const uint8_t *>(t.data) - base;
  const int64_t bytes = t.view_bytes ? t.view_bytes : TileT::bytes;
  return {static_cast<int>(buffer_of(TileT::loc)), lo,
          lo + static_cast<uintptr_t>(bytes), write, elementwise};
}
/// The bytes of a strided block of global memory: rows of `row_bytes`,
/// `stride_bytes` apart.
inline Access gm(const void *p, int64_t rows, int64_t row_bytes,
                 int64_t stride_bytes, bool write) {
  if (rows <= 0 || row_bytes <= 0)
    return {kGm, 0, 0, write};
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p);
  return {kGm, lo,
          lo + static_cast<uintptr_t>((rows - 1) * stride_bytes + row_bytes),
          write};
}
} // namespace detail

/// One kernel invocation on the running simulated core. The core's pipe
/// clocks and what its buffers hold carry over from its previous invocation
/// in the same launch (consecutive descriptors share a core's pipes, as on
/// device), and start afresh on another core (with the CPU simulation's
/// launcher, pto/runtime/cpu_sim.hpp) or without a launcher. At the end of
/// an invocation every flag that was set must have been waited on.
class KernelScope {
public:
  KernelScope() {
    detail::Checker &c = detail::checker();
    const uint64_t run = ::pto::runtime::sim::core_run();
    if (run == 0 || run != c.run) {
      c.reset();
      c.run = run;
    } else {
      c.prune();
    }
  }
  ~KernelScope() {
    detail::Checker &c = detail::checker();
    if (c.pending == 0)
      return;
    for (int u = 0; u < 2; ++u)
      for (int s = 0; s < detail::kPipes; ++s)
        for (int d = 0; d < detail::kPipes; ++d)
          for (int e = 0; e < kFlagEventsPerPipePair; ++e)
            if (!c.flags[u][s][d][e].empty())
              detail::fail("the kernel ends with set_flag(%s -> %s, event %d) "
                           "of the %s core never waited on",
                           pipe_name(static_cast<Pipe>(s)),
                           pipe_name(static_cast<Pipe>(d)), e,
                           unit_name(static_cast<Unit>(u)));
    for (int u = 0; u < 2; ++u)
      for (int e = 0; e < kCrossCoreFlags; ++e)
        if (!c.cross[u][e].empty())
          detail::fail("the kernel ends with cross-core flag %d of the %s "
                       "core never waited on",
                       e, unit_name(static_cast<Unit>(u)));
  }
  KernelScope(const KernelScope &) = delete;
  KernelScope &operator=(const KernelScope &) = delete;
};

//===----------------------------------------------------------------------===//
// Synchronization instructions
//===----------------------------------------------------------------------===//

inline void set_flag(Unit u, Pipe src, Pipe dst, int event) {
  detail::Checker &c = detail::checker();
  if (event < 0 || event > 7)
    detail::fail("set_flag event %d is not in 0-7", event);
  c.flags[int(u)][int(src)][int(dst)][event].push_back(
      c.snapshot(detail::agent(u, src)));
  ++c.pending;
}

inline void wait_flag(Unit u, Pipe src, Pipe dst, int event) {
  detail::Checker &c = detail::checker();
  if (event < 0 || event > 7)
    detail::fail("wait_flag event %d is not in 0-7", event);
  auto &q = c.flags[int(u)][int(src)][int(dst)][event];
  if (q.empty())
    detail::fail("wait_flag(%s -> %s, event %d) on the %s core has no "
                 "set_flag to wait for: the device would hang",
                 pipe_name(src), pipe_name(dst), event, unit_name(u));
  c.join(detail::agent(u, dst), q.front());
  q.pop_front();
  --c.pending;
}

/// pipe_barrier(p): what `p` issues next waits for what it issued before.
inline void barrier(Unit u, Pipe p) {
  detail::Checker &c = detail::checker();
  if (p == Pipe::V)
    c.v_barrier[int(u)] = c.know[detail::agent(u, p)][detail::agent(u, p)];
}

/// pipe_barrier(PIPE_ALL): every pipe of the core after everything before.
inline void barrier_all(Unit u) {
  detail::Checker &c = detail::checker();
  detail::Checker::Snapshot all{};
  for (int p = 0; p < detail::kPipes; ++p)
    for (int b = 0; b < detail::kAgents; ++b)
      all[b] = std::max(all[b], c.know[detail::agent(u, Pipe(p))][b]);
  for (int p = 0; p < detail::kPipes; ++p)
    c.join(detail::agent(u, Pipe(p)), all);
  c.v_barrier[int(u)] = c.know[detail::agent(u, Pipe::V)][detail::agent(u, Pipe::V)];
}

/// Cross-core flag: `u` signals the block's other core once `p` finished.
inline void sync_set(Unit u, Pipe p, int event) {
  detail::Checker &c = detail::checker();
  if (event < 0 || event >= kCrossCoreFlags)
    detail::fail("sync_set event %d is not in 0-%d", event,
                 kCrossCoreFlags - 1);
  auto &q = c.cross[int(u)][event];
  if (static_cast<int>(q.size()) == kCrossCoreFlagMaxCount)
    detail::fail("sync_set(event %d) on the %s core: %d sets wait for their "
                 "sync_wait already, and the flag's counter holds no more",
                 event, unit_name(u), kCrossCoreFlagMaxCount);
  q.push_back(c.snapshot(detail::agent(u, p)));
  ++c.pending;
}

/// The waiting core stops until the other core set `event`: everything it
/// issues after is ordered after what the setter's pipe had done.
inline void sync_wait(Unit u, int event) {
  detail::Checker &c = detail::checker();
  if (event < 0 || event >= kCrossCoreFlags)
    detail::fail("sync_wait event %d is not in 0-%d", event,
                 kCrossCoreFlags - 1);
  const Unit other = u == Unit::Cube ? Unit::Vector : Unit::Cube;
  auto &q = c.cross[int(other)][event];
  if (q.empty())
    detail::fail("sync_wait(event %d) on the %s core has no sync_set of the "
                 "%s core before it: the device would hang",
                 event, unit_name(u), unit_name(other));
  for (int p = 0; p < detail::kPipes; ++p)
    c.join(detail::agent(u, Pipe(p)), q.front());
  q.pop_front();
  --c.pending;
}

} // namespace tile
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_TILE_SYNC_HPP
