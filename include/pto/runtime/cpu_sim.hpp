// pto/runtime/cpu_sim.hpp - CPU simulation of AICore execution (PTO-WSP spec
// §10): simulated cube and vector cores, SPMD and MPMD launches, a
// thread-local core index, and per-core accounting of the work each core ran.
//
// Simulated cores run on a small pool of OS threads; each simulated core runs
// its whole share on one thread with its block index set, so kernels see the
// same get_block_idx()/get_block_num() they would on device. Cores never
// synchronize with each other, as on device within one launch.
#ifndef PTO_RUNTIME_CPU_SIM_HPP
#define PTO_RUNTIME_CPU_SIM_HPP

#include "pto/runtime/hardware.hpp"
#include "pto/runtime/kernel_dispatch.hpp"
#include "pto/runtime/sim_core.hpp"
#include "pto/runtime/work_descriptor.hpp"
#include "pto/runtime/work_planner.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <pthread.h>

namespace pto {
namespace runtime {
namespace sim {

/// The AICore kinds of an A2/A3 device (spec §2.4): 24 cube, 48 vector;
/// Mix is a block of one cube core and its two vector cores (24 blocks),
/// simulated as one core that runs the cube and the vector instructions of
/// its kernel in program order.
enum class CoreKind : uint8_t { Cube, Vector, Mix };

using ::pto::runtime::kNumCubeCores;
using ::pto::runtime::kNumVectorCores;

constexpr int num_cores(CoreKind kind) {
  return kind == CoreKind::Vector ? kNumVectorCores : kNumCubeCores;
}

constexpr const char *to_string(CoreKind kind) {
  return kind == CoreKind::Cube     ? "cube"
         : kind == CoreKind::Vector ? "vector"
                                    : "mix";
}

namespace detail {
inline uint64_t next_core_run() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

struct BlockContext {
  int idx = 0;
  int num = 1;
  CoreKind kind = CoreKind::Vector;
};
inline thread_local BlockContext tl_block;

/// Sets the calling thread's block context for the lifetime of the scope.
class ScopedBlock {
public:
  ScopedBlock(int idx, int num, CoreKind kind) : saved_(tl_block) {
    tl_block = {idx, num, kind};
  }
  ~ScopedBlock() { tl_block = saved_; }
  ScopedBlock(const ScopedBlock &) = delete;
  ScopedBlock &operator=(const ScopedBlock &) = delete;

private:
  BlockContext saved_;
};
} // namespace detail

/// The running simulated core's index within its launch (or group).
inline int block_idx() { return detail::tl_block.idx; }
/// The number of cores of the running launch (or group).
inline int block_num() { return detail::tl_block.num; }
inline CoreKind core_kind() { return detail::tl_block.kind; }

/// Descriptors run per tier id (0-255), read as `counts[tier]`. A core runs
/// a few tiers in a launch, so the counts are (tier, count) pairs, eight
/// kept inline and a full table made only for a core that runs more: a
/// launch's statistics stay small enough to reset for every launch.
class TierCounts {
public:
  uint64_t operator[](size_t tier) const {
    if (!table_.empty())
      return tier < table_.size() ? table_[tier] : 0;
    for (size_t i = 0; i < size_; ++i)
      if (tiers_[i] == tier)
        return counts_[i];
    return 0;
  }

  void add(uint8_t tier) {
    if (!table_.empty()) {
      ++table_[tier];
      return;
    }
    for (size_t i = 0; i < size_; ++i)
      if (tiers_[i] == tier) {
        ++counts_[i];
        return;
      }
    if (size_ < kInline) {
      tiers_[size_] = tier;
      counts_[size_++] = 1;
      return;
    }
    table_.assign(256, 0);
    for (size_t i = 0; i < size_; ++i)
      table_[tiers_[i]] = counts_[i];
    ++table_[tier];
  }

  void clear() {
    size_ = 0;
    table_.clear();
  }

private:
  static constexpr size_t kInline = 8;
  std::array<uint8_t, kInline> tiers_{};
  std::array<uint64_t, kInline> counts_{};
  size_t size_ = 0;
  std::vector<uint64_t> table_; // all 256 counts, once more than kInline
};

/// What one simulated core did in one launch.
struct CoreStats {
  int group = 0; // MPMD group index (0 for SPMD)
  CoreKind kind = CoreKind::Vector;
  int block_idx = 0; // index within the group
  uint64_t descriptors = 0;
  uint64_t cost = 0;   // sum of the launch's cost function over descriptors
  double busy_us = 0;  // wall time spent in kernels
  TierCounts per_tier; // descriptors per tier id
};

/// What launches given this report did. A launch fills `cores` while it
/// runs (their storage is kept from launch to launch), so a report takes
/// one launch at a time: ranks run as threads each need their own.
struct LaunchReport {
  std::vector<CoreStats> cores; // the last launch's
  /// Storage of launches of other core counts (a step alternates between
  /// launches of 24 and 48 cores): a launch trades `cores` for the one of
  /// its size instead of building its statistics afresh.
  std::vector<std::vector<CoreStats>> spare_cores;
  /// Every launch reported here: how many, and their wall time (from the
  /// simulation's set-up of the launch's per-core statistics, which a
  /// device has no part of, to the last core's end), to tell the time in
  /// kernels from the host's time around them. Accumulated until reset.
  uint64_t launches = 0;
  double launch_us = 0;

  uint64_t total_descriptors() const {
    uint64_t n = 0;
    for (const CoreStats &c : cores)
      n += c.descriptors;
    return n;
  }
  uint64_t total_cost() const {
    uint64_t n = 0;
    for (const CoreStats &c : cores)
      n += c.cost;
    return n;
  }
  uint64_t max_cost() const {
    uint64_t m = 0;
    for (const CoreStats &c : cores)
      m = std::max(m, c.cost);
    return m;
  }
  /// Load balance: the busiest core's cost over the mean (1.0 is perfect).
  double balance() const {
    const uint64_t total = total_cost();
    if (cores.empty() || total == 0)
      return 1.0;
    return static_cast<double>(max_cost()) * cores.size() / total;
  }
};

using CostFn = uint64_t (*)(const WorkDescriptor &);

/// Default cost: params[3], the unit's length in both spec patterns
/// (Attention kv_len, MoE token_count).
inline uint64_t unit_length(const WorkDescriptor &d) { return d.params[3]; }

/// How a group's descriptors are shared among its cores.
enum class Schedule : uint8_t {
  /// Core c takes descriptors c, c+N, c+2N, ... (a grid).
  Strided,
  /// Core c takes one contiguous range, cut only before FLAG_FIRST
  /// descriptors, so the chunks of a row (FIRST .. LAST, contiguous in the
  /// planner's output) run in order on one core: what kernels that carry a
  /// row's accumulators from chunk to chunk need.
  Rows,
};

struct Options {
  int os_threads = 0;         // 0: std::thread::hardware_concurrency()
  CostFn cost = &unit_length; // what CoreStats::cost sums
  Schedule schedule = Schedule::Strided;
};

/// One MPMD group: `num_cores` cores of one kind running one kernel over its
/// own descriptors, shared among its cores by Options::schedule.
struct CoreGroup {
  CoreKind kind = CoreKind::Vector;
  int num_cores = 0;
  const WorkDescriptor *descs = nullptr;
  int count = 0;
  std::function<void(const WorkDescriptor &)> kernel;
};

namespace detail {
/// The OS threads that help the calling thread run a launch's simulated
/// cores. They outlive the launch: a thread's simulated on-chip buffers and
/// synchronization checker (thread-local, about a megabyte and 816 queues)
/// are built once, not once per launch, which was most of a small launch's
/// cost. One pool per calling thread (ranks run as threads each have
/// theirs); its helpers are joined when that thread ends. A forked child
/// (a gtest death test) starts its own, the parent's helpers having stayed
/// with the parent.
class HelperPool {
public:
  HelperPool() = default;
  HelperPool(const HelperPool &) = delete;
  HelperPool &operator=(const HelperPool &) = delete;
  ~HelperPool() {
    if (fork_epoch() != epoch_) {
      abandon(); // the parent's; its helpers are not here
      return;
    }
    Shared &s = *shared_;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.stop = true;
    }
    s.start.notify_all();
    for (const std::unique_ptr<Helper> &h : s.helpers)
      pthread_join(h->thread, nullptr);
  }

  /// Whether the calling thread is inside run(): its helpers serve that
  /// task, and a task started from inside it (a launch made in a simulated
  /// core) must not take them over.
  bool busy() const { return busy_; }

  /// Runs `task(context)` on `helpers` helper threads and on the calling
  /// thread, and returns when all of them are done. Not from inside a
  /// task of the same pool (busy()).
  void run(int helpers, void (*task)(void *), void *context) {
    struct Busy {
      bool &busy;
      explicit Busy(bool &b) : busy(b) { busy = true; }
      ~Busy() { busy = false; }
    } busy(busy_);
    if (fork_epoch() != epoch_) {
      // A forked child: the state is the parent's (its mutex may even be
      // held by a helper that is not here), so start afresh.
      abandon();
      shared_ = std::make_unique<Shared>();
      epoch_ = fork_epoch();
    }
    Shared &s = *shared_;
    while (static_cast<int>(s.helpers.size()) < helpers) {
      // (pthreads rather than std::thread: a forked child keeps every
      // record of the parent's helpers reachable, which std::thread's
      // hidden start block would not be.)
      auto helper = std::make_unique<Helper>();
      helper->shared = &s;
      if (pthread_create(&helper->thread, nullptr, &serve, helper.get()) != 0)
        break; // run with the helpers there are
      s.helpers.push_back(std::move(helper));
    }
    helpers = static_cast<int>(s.helpers.size());
    bool wake;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.task = task;
      s.context = context;
      s.wanted = helpers;
      s.started = 0;
      s.running.store(helpers, std::memory_order_relaxed);
      s.generation.fetch_add(1, std::memory_order_release);
      wake = s.sleeping > 0; // the others are spinning and will see it
    }
    if (wake)
      s.start.notify_all();
    task(context);
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      // The task shares its work out as it goes: when the calling thread
      // finishes it, a helper that has not taken it yet would find nothing
      // left. Waking a thread takes tens of microseconds here, longer than
      // many a small launch, so those helpers are let off, not waited for.
      s.running.fetch_sub(s.wanted - s.started, std::memory_order_relaxed);
      s.wanted = s.started;
    }
    if (!spin_until(
            [&] { return s.running.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lock(s.mutex);
      s.done.wait(lock, [&] { return s.running.load() == 0; });
    }
  }

  static HelperPool &of_this_thread() {
    thread_local HelperPool pool;
    return pool;
  }

private:
  struct Shared;
  struct Helper {
    Shared *shared;
    pthread_t thread;
  };
  struct Shared {
    std::mutex mutex;
    std::condition_variable start, done;
    std::vector<std::unique_ptr<Helper>> helpers;
    void (*task)(void *) = nullptr;
    void *context = nullptr;
    // Changed under the mutex; read without it by spinning threads.
    std::atomic<uint64_t> generation{0};
    std::atomic<int> running{0}; // helpers still running this task
    std::atomic<bool> stop{false};
    // Under the mutex: of this generation's task, the helpers asked to run
    // it and those that took it; the helpers asleep on `start`.
    int wanted = 0, started = 0, sleeping = 0;
  };

  /// Polls `ready` for a short while (launches come back to back: a thread
  /// that spins through the gap between two of them is not put to sleep
  /// and woken, which costs tens of microseconds here); false if it did
  /// not become true.
  template <typename Ready> static bool spin_until(Ready &&ready) {
    constexpr auto kSpin = std::chrono::microseconds(50);
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (unsigned i = 1;; ++i) {
      if (ready())
        return true;
      if (i % 64 == 0 && std::chrono::steady_clock::now() >= until)
        return false;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }

  /// Lets go of the parent's state in a forked child without destroying
  /// it (its mutex may be held, its threads are not here to join), kept
  /// reachable from a global so that a leak checker does not report it.
  void abandon() {
    static std::vector<Shared *> *abandoned = new std::vector<Shared *>;
    abandoned->push_back(shared_.release());
  }

  static void *serve(void *arg) {
    Shared &s = *static_cast<Helper *>(arg)->shared;
    uint64_t seen = 0;
    for (;;) {
      spin_until([&] {
        return s.stop.load(std::memory_order_relaxed) ||
               s.generation.load(std::memory_order_acquire) != seen;
      });
      void (*task)(void *) = nullptr;
      void *context = nullptr;
      {
        std::unique_lock<std::mutex> lock(s.mutex);
        while (!task) {
          if (s.stop)
            return nullptr;
          if (s.generation != seen) {
            seen = s.generation;
            // Counted, not by id: once the caller has let off the helpers
            // that had not started (wanted = started), no late one may
            // take a task whose launch has returned.
            if (s.started < s.wanted) {
              task = s.task;
              context = s.context;
              ++s.started;
            }
            continue;
          }
          ++s.sleeping;
          s.start.wait(lock);
          --s.sleeping;
        }
      }
      task(context);
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.running.fetch_sub(1, std::memory_order_release) == 1)
        s.done.notify_all();
    }
  }

  std::unique_ptr<Shared> shared_ = std::make_unique<Shared>();
  bool busy_ = false; // the owning thread is inside run()
  /// How many forks the process has been through: a pool made before a
  /// fork finds itself in the child by comparing (getpid() would be a
  /// system call per launch).
  static uint64_t fork_epoch() {
    static std::atomic<uint64_t> forks{0};
    static const bool counting = [] {
      pthread_atfork(nullptr, nullptr, [] { forks.fetch_add(1); });
      return true;
    }();
    (void)counting;
    return forks.load(std::memory_order_relaxed);
  }

  uint64_t epoch_ = fork_epoch();
};

/// std::thread::hardware_concurrency(), asked once per process: glibc
/// reads it from /sys on every call, 5 us here. (Not a static of
/// for_each_core, which every kernel type instantiates anew.)
inline int hardware_threads() {
  static const int hardware =
      static_cast<int>(std::thread::hardware_concurrency());
  return hardware;
}

/// Runs `body(i, last)` for every simulated core i in [0, n) on the calling
/// thread and its helpers. Each i runs whole on one thread; `last` is a
/// time its thread keeps: when it started, or a time the body left there.
template <typename Body>
void for_each_core(int n, int os_threads, Body &&body) {
  int threads = os_threads > 0 ? os_threads : hardware_threads();
  threads = std::max(1, std::min(threads, n));
  std::atomic<int> next{0};
  auto worker = [&] {
    std::chrono::steady_clock::time_point last =
        std::chrono::steady_clock::now();
    for (int i = next++; i < n; i = next++)
      body(i, last);
  };
  if (threads == 1) {
    worker();
    return;
  }
  // A launch made inside a core that this thread runs for a launch of its
  // own pool runs on this thread alone: the pool's helpers are that outer
  // launch's (taking them over lost cores of both).
  HelperPool &pool = HelperPool::of_this_thread();
  if (pool.busy())
    worker();
  else
    pool.run(
        threads - 1, [](void *w) { (*static_cast<decltype(worker) *>(w))(); },
        &worker);
}

inline double micros_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// Runs `body(stats[i])` for every simulated core i, each whole on one OS
/// thread. The thread first resets the core's statistics and sets its
/// place, `place(i, stats[i])` (kind, block_idx, group: the calling thread
/// does not write a core's statistics before the launch, since reading
/// another thread's lines back cost a microsecond per launch of 48 cores),
/// then runs it with its block context set (stats[i].block_idx within a
/// launch or group of `num_of(i)` cores of kind stats[i].kind) and records
/// its busy time. A core starts when the one before it on its thread
/// ended, and `body` returns whether the core ran anything: an idle core's
/// end is not read (two clock reads per core were a good part of a small
/// launch on 48 cores).
///
/// A core whose kernel faults (KernelFault: a run-time input out of
/// bounds) stops there; the other cores run their shares. The first fault
/// becomes the calling thread's pending fault (sim::fault()), or, in a
/// launch made inside a simulated core, that core's fault. While a fault is
/// pending no core runs. Returns false when the launch faulted or did not
/// run.
template <typename Place, typename NumOf, typename Body>
bool simulate(std::vector<CoreStats> &stats, int os_threads, Place &&place,
              NumOf &&num_of, Body &&body) {
  if (fault()) {
    for (CoreStats &s : stats) {
      s.per_tier.clear();
      s.descriptors = 0;
      s.cost = 0;
      s.busy_us = 0;
    }
    return false;
  }
  std::mutex fault_mutex;
  std::string first_fault;
  for_each_core(
      static_cast<int>(stats.size()), os_threads,
      [&](int i, std::chrono::steady_clock::time_point &last) {
        CoreStats &s = stats[i];
        s.per_tier.clear();
        s.descriptors = 0;
        s.cost = 0;
        s.busy_us = 0;
        s.group = 0;
        place(i, s);
        ScopedBlock scope(s.block_idx, num_of(i), s.kind);
        // The core's run ends with its share: a kernel called on this thread
        // after the launch (the caller's thread runs cores too) starts afresh.
        const uint64_t saved_run = core_run();
        core_run() = next_core_run();
        bool ran = true;
        try {
          ran = body(s);
        } catch (const KernelFault &f) {
          std::lock_guard<std::mutex> lock(fault_mutex);
          if (first_fault.empty())
            first_fault = f.what();
        }
        if (ran) {
          const auto end = std::chrono::steady_clock::now();
          s.busy_us =
              std::chrono::duration<double, std::micro>(end - last).count();
          last = end;
        }
        core_run() = saved_run;
      });
  if (first_fault.empty())
    return true;
  if (core_run() != 0) // a launch inside a simulated core: that core's fault
    throw KernelFault(first_fault.c_str());
  detail::pending_fault() = std::move(first_fault);
  return false;
}

/// The per-core statistics of one launch. They live in the report's
/// `cores` when there is a report, else in a buffer of the calling thread,
/// and both are kept from launch to launch: building a launch's afresh
/// (when a CoreStats held a 2 KiB table of tier counts: 48 of them, grown
/// one by one, then freed) was most of a small launch's host time. A launch
/// started from inside another on the same thread (a core's body) gets
/// storage of its own.
class LaunchStats {
public:
  LaunchStats(LaunchReport *report, size_t num_cores)
      : stats_(report   ? report->cores
               : idle() ? scratch()
                        : own_) {
    nested_ = !idle();
    idle() = false;
    if (report)
      size(stats_, report->spare_cores, num_cores);
    else if (!nested_)
      size(stats_, spare(), num_cores);
    else
      stats_.resize(num_cores);
  }
  ~LaunchStats() {
    if (!nested_)
      idle() = true;
  }
  LaunchStats(const LaunchStats &) = delete;
  LaunchStats &operator=(const LaunchStats &) = delete;

  std::vector<CoreStats> &get() { return stats_; }

private:
  static bool &idle() {
    thread_local bool idle = true;
    return idle;
  }
  static std::vector<CoreStats> &scratch() {
    thread_local std::vector<CoreStats> scratch;
    return scratch;
  }
  static std::vector<std::vector<CoreStats>> &spare() {
    thread_local std::vector<std::vector<CoreStats>> spare;
    return spare;
  }
  /// Gives `cores` n entries, trading with a spare buffer of that size
  /// when there is one (no entry is built or destroyed: resizing 24 to 48
  /// entries last written by other threads was a third of a microsecond);
  /// simulate() resets each core's entry.
  static void size(std::vector<CoreStats> &cores,
                   std::vector<std::vector<CoreStats>> &spares, size_t n) {
    constexpr size_t kMaxSpares = 4;
    if (cores.size() == n)
      return;
    for (std::vector<CoreStats> &s : spares)
      if (s.size() == n) {
        s.swap(cores);
        return;
      }
    if (!cores.empty() && spares.size() < kMaxSpares) {
      spares.push_back(std::move(cores));
      cores.clear(); // a moved-from vector is valid, not necessarily empty
    }
    cores.resize(n);
  }

  std::vector<CoreStats> own_;
  std::vector<CoreStats> &stats_;
  bool nested_ = false;
};

/// Counts a finished launch in `report` (when there is one); its
/// statistics are already in `report->cores` (LaunchStats).
inline void record(LaunchReport *report,
                   std::chrono::steady_clock::time_point start) {
  if (!report)
    return;
  ++report->launches;
  report->launch_us += micros_since(start);
}

/// Runs one descriptor on a simulated core and accounts for it.
template <typename Kernel>
inline void run_one(Kernel &kernel, const WorkDescriptor &d, CoreStats &s,
                    CostFn cost) {
  kernel(d);
  ++s.descriptors;
  s.cost += cost(d);
  s.per_tier.add(d.tier);
}

/// A core group whose kernel is any callable, held by reference: what
/// run_spmd launches, with no std::function or group list to build.
template <typename Kernel> struct GroupOf {
  CoreKind kind;
  int num_cores;
  const WorkDescriptor *descs;
  int count;
  Kernel &kernel;
};

/// run_mpmd over `n` groups of any kernel type.
template <typename Group>
PlanResult run_groups(const Group *groups, size_t n, LaunchReport *report,
                      const Options &options) {
  int used[2] = {0, 0}; // cube, vector
  size_t total = 0;
  for (size_t gi = 0; gi < n; ++gi) {
    const Group &g = groups[gi];
    if (g.num_cores <= 0 || g.count < 0 || (g.count > 0 && !g.descs))
      return PlanResult::INVALID_PARAMS;
    if (g.kind != CoreKind::Vector)
      used[0] += g.num_cores;
    if (g.kind != CoreKind::Cube)
      used[1] += g.kind == CoreKind::Mix ? g.num_cores * kVectorCoresPerBlock
                                         : g.num_cores;
    if (used[0] > kNumCubeCores || used[1] > kNumVectorCores)
      return PlanResult::INVALID_PARAMS;
    total += static_cast<size_t>(g.num_cores);
  }

  const auto launch_start = std::chrono::steady_clock::now();
  LaunchStats storage(report, total);
  std::vector<CoreStats> &stats = storage.get();
  const CostFn cost = options.cost ? options.cost : &unit_length;
  const bool ran = simulate(
      stats, options.os_threads,
      [&](int i, CoreStats &s) {
        size_t gi = 0;
        for (; i >= groups[gi].num_cores; ++gi)
          i -= groups[gi].num_cores;
        s.group = static_cast<int>(gi);
        s.kind = groups[gi].kind;
        s.block_idx = i;
      },
      [&](int i) { return groups[stats[i].group].num_cores; },
      [&](CoreStats &s) {
        const Group &g = groups[s.group];
        if (options.schedule == Schedule::Rows) {
          const int end = ::pto::runtime::row_range_begin(
              g.descs, g.count, s.block_idx + 1, g.num_cores);
          for (int i = ::pto::runtime::row_range_begin(
                   g.descs, g.count, s.block_idx, g.num_cores);
               i < end; ++i)
            run_one(g.kernel, g.descs[i], s, cost);
        } else {
          for (int i = s.block_idx; i < g.count; i += g.num_cores)
            run_one(g.kernel, g.descs[i], s, cost);
        }
        return s.descriptors != 0;
      });
  record(report, launch_start);
  return ran ? PlanResult::OK : PlanResult::INVALID_PARAMS;
}
} // namespace detail

/// MPMD: different kernels on different core groups, all at once. Returns
/// INVALID_PARAMS (running nothing) if a group is malformed or the groups
/// ask for more cores of a kind than the device has.
inline PlanResult run_mpmd(const std::vector<CoreGroup> &groups,
                           LaunchReport *report = nullptr,
                           const Options &options = {}) {
  for (const CoreGroup &g : groups)
    if (!g.kernel)
      return PlanResult::INVALID_PARAMS;
  return detail::run_groups(groups.data(), groups.size(), report, options);
}

/// SPMD: one kernel on `num_cores` cores of `kind` over one descriptor
/// buffer (core c takes descriptors c, c+N, ...).
template <typename Kernel>
PlanResult run_spmd(CoreKind kind, int num_cores, const WorkDescriptor *descs,
                    int count, Kernel &&kernel, LaunchReport *report = nullptr,
                    const Options &options = {}) {
  const detail::GroupOf<std::remove_reference_t<Kernel>> group{
      kind, num_cores, descs, count, kernel};
  return detail::run_groups(&group, 1, report, options);
}

namespace detail {
/// `num_cores` cores of `kind`, each running `work(stats, cost)` once
/// (true: the core did work), with the launch's statistics and timing.
template <typename Work>
PlanResult run_cores(CoreKind kind, int num_cores, LaunchReport *report,
                     const Options &options, Work &&work) {
  const CostFn cost = options.cost ? options.cost : &unit_length;
  const auto launch_start = std::chrono::steady_clock::now();
  LaunchStats storage(report, static_cast<size_t>(num_cores));
  const bool ran = simulate(
      storage.get(), options.os_threads,
      [&](int c, CoreStats &s) {
        s.kind = kind;
        s.block_idx = c;
      },
      [&](int) { return num_cores; },
      [&](CoreStats &s) { return work(s, cost); });
  record(report, launch_start);
  return ran ? PlanResult::OK : PlanResult::INVALID_PARAMS;
}
} // namespace detail

/// SPMD over a plan its cores expand (a RowPlan, incremental_planner.hpp):
/// core c runs plan.for_each(c, num_cores, ...), descriptors c, c + N, ...
/// of the plan, made as it goes: the descriptors run_spmd gives it from
/// the materialized plan, with no buffer. INVALID_PARAMS (running nothing)
/// on a core count the device does not have.
template <typename Plan, typename Kernel>
PlanResult run_spmd_expanding(CoreKind kind, int num_cores, const Plan &plan,
                              Kernel &&kernel, LaunchReport *report = nullptr,
                              const Options &options = {}) {
  if (num_cores <= 0 || num_cores > sim::num_cores(kind))
    return PlanResult::INVALID_PARAMS;
  return detail::run_cores(
      kind, num_cores, report, options, [&](CoreStats &s, CostFn cost) {
        plan.for_each(s.block_idx, num_cores, [&](const WorkDescriptor &d) {
          detail::run_one(kernel, d, s, cost);
        });
        return s.descriptors != 0;
      });
}

/// SPMD over a spec plan kept as rows (spec_rows.hpp; wsp.dispatch ...
/// expand_rows): core c first writes the descriptors it runs into `descs`
/// (c, c + N, ..., or with Schedule::Rows its whole rows, where
/// row_range_begin would cut the materialized plan), then runs them; after
/// the launch `descs` holds the plan. INVALID_PARAMS (running nothing) on a
/// core count the device does not have or rows whose count is not `count`.
template <typename Rows, typename Kernel>
PlanResult run_rows_expanding(CoreKind kind, int num_cores,
                              WorkDescriptor *descs, int count,
                              const Rows &rows, Kernel &&kernel,
                              LaunchReport *report = nullptr,
                              const Options &options = {}) {
  if (num_cores <= 0 || num_cores > sim::num_cores(kind) || count < 0 ||
      rows.count() != count || (count > 0 && !descs))
    return PlanResult::INVALID_PARAMS;
  const bool whole_rows = options.schedule == Schedule::Rows;
  return detail::run_cores(
      kind, num_cores, report, options, [&](CoreStats &s, CostFn cost) {
        const int c = s.block_idx;
        const int begin = whole_rows ? rows.range_begin(c, num_cores) : c;
        const int end = whole_rows ? rows.range_begin(c + 1, num_cores) : count;
        const int step = whole_rows ? 1 : num_cores;
        rows.for_each(begin, end, step,
                      [&](const WorkDescriptor &d) { descs[d.work_id] = d; });
        for (int i = begin; i < end; i += step)
          detail::run_one(kernel, descs[i], s, cost);
        return s.descriptors != 0;
      });
}

/// Persistent style: core c walks its own work list,
/// items[indptr[c] .. indptr[c+1]), in order (e.g. a BalancedPlan's
/// core_indptr / core_items). Null `items` is the identity list: core c
/// runs descriptors [indptr[c], indptr[c+1]) (the balanced planner's lists
/// are contiguous ranges). INVALID_PARAMS (running nothing) on a bad list.
/// Each core first runs `expand(core)` on itself: a plan made as cuts
/// (wsp.dispatch ... expand), whose cores write their own descriptors
/// [indptr[c], indptr[c+1]) before they run them.
template <typename Expand, typename Kernel>
PlanResult run_persistent_expanding(CoreKind kind, int num_cores,
                                    const WorkDescriptor *descs, int count,
                                    const int *indptr, const int *items,
                                    Expand &&expand, Kernel &&kernel,
                                    LaunchReport *report = nullptr,
                                    const Options &options = {}) {
  if (num_cores <= 0 || num_cores > sim::num_cores(kind) || !indptr ||
      count < 0 || (count > 0 && !descs) || indptr[0] != 0 ||
      indptr[num_cores] > count)
    return PlanResult::INVALID_PARAMS;
  for (int c = 0; c < num_cores; ++c)
    if (indptr[c + 1] < indptr[c])
      return PlanResult::INVALID_PARAMS;
  for (int i = 0; items && i < indptr[num_cores]; ++i)
    if (items[i] < 0 || items[i] >= count)
      return PlanResult::INVALID_PARAMS;
  return detail::run_cores(
      kind, num_cores, report, options, [&](CoreStats &s, CostFn cost) {
        expand(s.block_idx);
        for (int i = indptr[s.block_idx]; i < indptr[s.block_idx + 1]; ++i)
          detail::run_one(kernel, descs[items ? items[i] : i], s, cost);
        return true; // expanding is work too
      });
}

/// Persistent style over a plan already in the buffer.
template <typename Kernel>
PlanResult
run_persistent(CoreKind kind, int num_cores, const WorkDescriptor *descs,
               int count, const int *indptr, const int *items, Kernel &&kernel,
               LaunchReport *report = nullptr, const Options &options = {}) {
  return run_persistent_expanding(
      kind, num_cores, descs, count, indptr, items, [](int) {},
      std::forward<Kernel>(kernel), report, options);
}

/// A plain grid launch, `entry<<<num_blocks>>>()`: `entry` runs once per
/// block with get_block_idx() = block and get_block_num() = num_blocks. The
/// grid may exceed the physical core count, as on device. Per-block stats
/// carry the busy time; descriptors are the entry's business.
template <typename Entry>
PlanResult launch(int num_blocks, Entry &&entry, LaunchReport *report = nullptr,
                  const Options &options = {},
                  CoreKind kind = CoreKind::Vector) {
  if (num_blocks <= 0)
    return PlanResult::INVALID_PARAMS;
  const auto launch_start = std::chrono::steady_clock::now();
  detail::LaunchStats storage(report, static_cast<size_t>(num_blocks));
  const bool ran = detail::simulate(
      storage.get(), options.os_threads,
      [&](int b, CoreStats &s) {
        s.kind = kind;
        s.block_idx = b;
      },
      [&](int) { return num_blocks; },
      [&](CoreStats &) {
        entry();
        return true;
      });
  detail::record(report, launch_start);
  return ran ? PlanResult::OK : PlanResult::INVALID_PARAMS;
}

} // namespace sim
} // namespace runtime
} // namespace pto

// The device intrinsics, as kernels spell them, backed by the simulation,
// with pto-isa's signatures. A source that includes pto-isa's CPU
// simulation (its cpu_stub.hpp defines PTO_CPUSTUB_HPP) takes pto-isa's.
#if !defined(PTO_RUNTIME_NO_GLOBAL_BLOCK_IDX) && !defined(PTO_CPUSTUB_HPP)
inline uint32_t get_block_idx() {
  return static_cast<uint32_t>(::pto::runtime::sim::block_idx());
}
inline uint32_t get_block_num() {
  return static_cast<uint32_t>(::pto::runtime::sim::block_num());
}
#endif

#endif // PTO_RUNTIME_CPU_SIM_HPP
