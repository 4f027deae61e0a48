// Spec §10 and §2.5: the CPU simulation launcher (SPMD, MPMD), the
// thread-local core index, per-core accounting, platform macros.
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace pto::runtime;

// Under __CPU_SIM the device qualifiers are empty.
AICORE void aicore_fn(__gm__ int *p) { *p = 1; }
AICPU int aicpu_fn(int x) { return x + 1; }
__global__ __aicore__ void entry_fn(__gm__ int *p) { *p = 2; }

TEST(Platform, MacrosCompileAway) {
  int v = 0;
  aicore_fn(&v);
  EXPECT_EQ(v, 1);
  entry_fn(&v);
  EXPECT_EQ(v, 2);
  EXPECT_EQ(aicpu_dispatch_kernel(aicpu_fn, 41), 42); // §10.3 direct call
}

TEST(CpuSim, MachineModel) {
  EXPECT_EQ(sim::num_cores(sim::CoreKind::Cube), 24);
  EXPECT_EQ(sim::num_cores(sim::CoreKind::Vector), 48);
}

// pto-isa's signatures: a kernel compiled against either gets the same.
static_assert(std::is_same_v<decltype(get_block_idx()), uint32_t>);
static_assert(std::is_same_v<decltype(get_block_num()), uint32_t>);

namespace {
std::vector<WorkDescriptor> make_descs(int n) {
  std::vector<WorkDescriptor> d(n);
  for (int i = 0; i < n; ++i) {
    d[i] = WorkDescriptor{};
    d[i].work_id = i;
    d[i].tier = i % 3;
    d[i].params[3] = 10 + i; // cost under the default cost function
  }
  return d;
}
} // namespace

TEST(CpuSim, SpmdRunsEveryDescriptorOnceOnTheRightCore) {
  const int n = 1000;
  std::vector<WorkDescriptor> descs = make_descs(n);
  std::vector<std::atomic<int>> ran_on(n);
  for (auto &r : ran_on)
    r = -1;
  std::atomic<int> bad_num{0};
  sim::LaunchReport report;
  ASSERT_EQ(sim::run_spmd(
                sim::CoreKind::Vector, 48, descs.data(), n,
                [&](const WorkDescriptor &d) {
                  int expected = -1;
                  ran_on[d.work_id].compare_exchange_strong(expected,
                                                            get_block_idx());
                  if (get_block_num() != 48 ||
                      sim::core_kind() != sim::CoreKind::Vector)
                    ++bad_num;
                },
                &report),
            PlanResult::OK);
  EXPECT_EQ(bad_num, 0);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(ran_on[i], i % 48) << "grid style: core c takes c, c+N, ...";
  ASSERT_EQ(report.cores.size(), 48u);
  EXPECT_EQ(report.total_descriptors(), (uint64_t)n);
  // Accounting, checked against a direct computation.
  for (const sim::CoreStats &c : report.cores) {
    uint64_t count = 0, cost = 0, tier1 = 0;
    for (int i = c.block_idx; i < n; i += 48) {
      ++count;
      cost += 10 + i;
      tier1 += (i % 3) == 1;
    }
    EXPECT_EQ(c.descriptors, count);
    EXPECT_EQ(c.cost, cost);
    EXPECT_EQ(c.per_tier[1], tier1);
    EXPECT_EQ(c.group, 0);
  }
  uint64_t max_cost = 0, total = 0;
  for (const sim::CoreStats &c : report.cores) {
    max_cost = std::max(max_cost, c.cost);
    total += c.cost;
  }
  EXPECT_DOUBLE_EQ(report.balance(), double(max_cost) * 48 / total);
}

TEST(CpuSim, AKernelFaultStopsItsCoreAndIsReportedToTheCaller) {
  // A kernel that throws KernelFault (the tile simulation's out-of-bounds
  // checks do) stops its core; the other cores run their shares; the
  // launch returns INVALID_PARAMS and the calling thread holds the first
  // fault until it clears it, launching nothing meanwhile.
  const int n = 64;
  std::vector<WorkDescriptor> descs = make_descs(n);
  std::vector<std::atomic<int>> ran(n);
  auto kernel = [&](const WorkDescriptor &d) {
    if (d.work_id == 10)
      throw sim::KernelFault("descriptor 10 is out of bounds");
    ++ran[d.work_id];
  };
  sim::clear_fault();
  ASSERT_EQ(sim::fault(), nullptr);
  EXPECT_EQ(sim::run_spmd(sim::CoreKind::Vector, 8, descs.data(), n, kernel),
            PlanResult::INVALID_PARAMS);
  ASSERT_NE(sim::fault(), nullptr);
  EXPECT_STREQ(sim::fault(), "descriptor 10 is out of bounds");
  for (int i = 0; i < n; ++i) // core 2 runs 2, 10, 18, ...: it stopped at 10
    EXPECT_EQ(ran[i], i % 8 == 2 && i >= 10 ? 0 : 1) << i;
  // While the fault is pending, no launch runs anything.
  std::atomic<int> later{0};
  EXPECT_EQ(sim::run_spmd(sim::CoreKind::Vector, 8, descs.data(), n,
                          [&](const WorkDescriptor &) { ++later; }),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(later, 0);
  // Other threads have their own.
  std::thread([&] { EXPECT_EQ(sim::fault(), nullptr); }).join();
  sim::clear_fault();
  EXPECT_EQ(sim::run_spmd(sim::CoreKind::Vector, 8, descs.data(), n,
                          [&](const WorkDescriptor &) { ++later; }),
            PlanResult::OK);
  EXPECT_EQ(later, n);
}

TEST(CpuSim, AFaultInANestedLaunchIsItsCoresFault) {
  // A launch made inside a simulated core passes its fault to that core,
  // whose own launch reports it.
  std::vector<WorkDescriptor> descs = make_descs(4);
  sim::clear_fault();
  EXPECT_EQ(sim::run_spmd(sim::CoreKind::Cube, 2, descs.data(), 4,
                          [&](const WorkDescriptor &d) {
                            if (d.work_id != 3)
                              return;
                            sim::launch(2, [] {
                              if (get_block_idx() == 1)
                                throw sim::KernelFault("inner");
                            });
                          }),
            PlanResult::INVALID_PARAMS);
  ASSERT_NE(sim::fault(), nullptr);
  EXPECT_STREQ(sim::fault(), "inner");
  sim::clear_fault();
}

TEST(CpuSim, LaunchesInsideCoresRunWholeAndReturnAfterThem) {
  // Every core of an outer launch makes launches of its own, on whichever
  // OS thread runs it: the calling thread's among them, while its helpers
  // serve the outer launch. Each inner launch runs all its blocks before it
  // returns, and the outer one returns after all of them (a nested launch
  // that took over the calling thread's helpers left one waiting forever).
  std::vector<WorkDescriptor> descs = make_descs(16);
  for (int round = 0; round < 200; ++round) {
    std::atomic<int> blocks{0}, short_launches{0};
    ASSERT_EQ(sim::run_spmd(sim::CoreKind::Vector, 8, descs.data(), 16,
                            [&](const WorkDescriptor &) {
                              std::atomic<int> mine{0};
                              sim::launch(3, [&] {
                                ++mine;
                                ++blocks;
                              });
                              if (mine != 3)
                                ++short_launches;
                            }),
              PlanResult::OK);
    ASSERT_EQ(blocks, 16 * 3) << "round " << round;
    ASSERT_EQ(short_launches, 0) << "round " << round;
  }
}

TEST(CpuSim, BlockIndexIsThreadLocalAndRestored) {
  EXPECT_EQ(get_block_idx(), 0);
  EXPECT_EQ(get_block_num(), 1);
  std::vector<WorkDescriptor> descs = make_descs(24);
  std::mutex m;
  std::set<int> seen;
  sim::run_spmd(sim::CoreKind::Cube, 24, descs.data(), 24,
                [&](const WorkDescriptor &) {
                  std::lock_guard<std::mutex> lock(m);
                  seen.insert(get_block_idx());
                });
  EXPECT_EQ(seen.size(), 24u);
  EXPECT_EQ(get_block_idx(), 0) << "caller's context is untouched";
}

TEST(CpuSim, MpmdGroupsRunTheirOwnKernels) {
  std::vector<WorkDescriptor> a = make_descs(100), b = make_descs(30),
                              c = make_descs(7);
  std::atomic<int> ran_a{0}, ran_b{0}, ran_c{0}, wrong{0};
  std::vector<sim::CoreGroup> groups(3);
  groups[0] = {sim::CoreKind::Vector, 40, a.data(), 100,
               [&](const WorkDescriptor &) {
                 ++ran_a;
                 wrong += get_block_num() != 40;
               }};
  groups[1] = {sim::CoreKind::Vector, 8, b.data(), 30,
               [&](const WorkDescriptor &) {
                 ++ran_b;
                 wrong += get_block_num() != 8;
               }};
  groups[2] = {sim::CoreKind::Cube, 24, c.data(), 7,
               [&](const WorkDescriptor &) {
                 ++ran_c;
                 wrong += sim::core_kind() != sim::CoreKind::Cube;
               }};
  sim::LaunchReport report;
  ASSERT_EQ(sim::run_mpmd(groups, &report), PlanResult::OK);
  EXPECT_EQ(ran_a, 100);
  EXPECT_EQ(ran_b, 30);
  EXPECT_EQ(ran_c, 7);
  EXPECT_EQ(wrong, 0);
  ASSERT_EQ(report.cores.size(), 72u);
  uint64_t per_group[3] = {};
  for (const sim::CoreStats &s : report.cores)
    per_group[s.group] += s.descriptors;
  EXPECT_EQ(per_group[0], 100u);
  EXPECT_EQ(per_group[1], 30u);
  EXPECT_EQ(per_group[2], 7u);
}

TEST(CpuSim, InvalidLaunchesRunNothing) {
  std::vector<WorkDescriptor> d = make_descs(4);
  std::atomic<int> ran{0};
  auto k = [&](const WorkDescriptor &) { ++ran; };
  EXPECT_EQ(sim::run_spmd(sim::CoreKind::Vector, 49, d.data(), 4, k),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(sim::run_spmd(sim::CoreKind::Cube, 25, d.data(), 4, k),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(sim::run_spmd(sim::CoreKind::Cube, 0, d.data(), 4, k),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(sim::run_spmd(sim::CoreKind::Cube, 4, nullptr, 4, k),
            PlanResult::INVALID_PARAMS);
  EXPECT_EQ(sim::run_spmd(sim::CoreKind::Cube, 4, d.data(), -1, k),
            PlanResult::INVALID_PARAMS);
  std::vector<sim::CoreGroup> too_many = {
      {sim::CoreKind::Vector, 40, d.data(), 4, k},
      {sim::CoreKind::Vector, 9, d.data(), 4, k}};
  EXPECT_EQ(sim::run_mpmd(too_many), PlanResult::INVALID_PARAMS);
  std::vector<sim::CoreGroup> no_kernel = {
      {sim::CoreKind::Vector, 4, d.data(), 4, nullptr}};
  EXPECT_EQ(sim::run_mpmd(no_kernel), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(sim::launch(0, [] {}), PlanResult::INVALID_PARAMS);
  EXPECT_EQ(ran, 0);
}

TEST(CpuSim, GridLaunchBeyondCoreCount) {
  const int blocks = 500;
  std::vector<std::atomic<int>> hits(blocks);
  sim::LaunchReport report;
  ASSERT_EQ(sim::launch(
                blocks,
                [&] {
                  if (get_block_num() == blocks)
                    ++hits[get_block_idx()];
                },
                &report),
            PlanResult::OK);
  for (int b = 0; b < blocks; ++b)
    EXPECT_EQ(hits[b], 1);
  EXPECT_EQ(report.cores.size(), (size_t)blocks);
}

TEST(CpuSim, CustomCostAndSingleThread) {
  std::vector<WorkDescriptor> d = make_descs(10);
  sim::Options options;
  options.os_threads = 1;
  options.cost = [](const WorkDescriptor &) -> uint64_t { return 1; };
  sim::LaunchReport report;
  sim::run_spmd(
      sim::CoreKind::Vector, 4, d.data(), 10, [](const WorkDescriptor &) {},
      &report, options);
  EXPECT_EQ(report.total_cost(), 10u);
  EXPECT_EQ(report.max_cost(), 3u); // cores 0 and 1 take 3 each
  EXPECT_DOUBLE_EQ(report.balance(), 3.0 * 4 / 10);
}

TEST(CpuSim, PlannedWorkloadEndToEnd) {
  // Plan, then run on all vector cores: each (request, head) row must
  // receive exactly its KV length, in chunks flagged FIRST..LAST.
  std::vector<int> lens = {1, 1024, 1025, 5000, 0, 131072};
  const int heads = 4;
  AttentionPlanner planner(PlanConfig{256, 4096, 512, true});
  const int chunk = planner.plan_chunk_size(lens.data(), 6, heads);
  const int cap = planner.get_total_work(lens.data(), 6, heads, chunk);
  WorkDescriptor *descs = allocate_descriptors(cap);
  int count = 0;
  ASSERT_EQ(planner.generate(lens.data(), 6, heads, chunk, descs, cap, &count),
            PlanResult::OK);
  std::vector<std::atomic<long>> tokens(6 * heads);
  std::vector<std::atomic<int>> firsts(6 * heads), lasts(6 * heads);
  sim::run_spmd(sim::CoreKind::Vector, 48, descs, count,
                [&](const WorkDescriptor &d) {
                  const int row = params::Attention::request_idx(d) * heads +
                                  params::Attention::head_idx(d);
                  tokens[row] += params::Attention::kv_len(d);
                  firsts[row] += d.is_first();
                  lasts[row] += d.is_last();
                });
  for (int r = 0; r < 6; ++r)
    for (int h = 0; h < heads; ++h) {
      EXPECT_EQ(tokens[r * heads + h], lens[r]);
      EXPECT_EQ(firsts[r * heads + h], lens[r] ? 1 : 0);
      EXPECT_EQ(lasts[r * heads + h], lens[r] ? 1 : 0);
    }
  free_descriptors(descs);
}

TEST(CpuSim, RowsScheduleKeepsEachRowInOrderOnOneCore) {
  std::vector<int> lens = {5000, 1, 300, 9000, 0, 2048, 777};
  AttentionPlanner planner(PlanConfig{256, 4096, 65536, true});
  const int heads = 3, chunk = 256;
  const int cap = planner.get_total_work(lens.data(), 7, heads, chunk);
  std::vector<WorkDescriptor> descs(cap);
  int count = 0;
  ASSERT_EQ(
      planner.generate(lens.data(), 7, heads, chunk, descs.data(), cap, &count),
      PlanResult::OK);
  for (int cores : {1, 5, 48}) {
    std::vector<int> core_of(count, -1);
    std::mutex m;
    std::vector<std::vector<int>> order(cores);
    sim::Options options;
    options.schedule = sim::Schedule::Rows;
    sim::LaunchReport report;
    ASSERT_EQ(sim::run_spmd(
                  sim::CoreKind::Vector, cores, descs.data(), count,
                  [&](const WorkDescriptor &d) {
                    std::lock_guard<std::mutex> lock(m);
                    core_of[d.work_id] = get_block_idx();
                    order[get_block_idx()].push_back(d.work_id);
                  },
                  &report, options),
              PlanResult::OK);
    EXPECT_EQ(report.total_descriptors(), (uint64_t)count);
    for (int i = 0; i < count; ++i) {
      ASSERT_GE(core_of[i], 0) << "descriptor " << i << " never ran";
      if (!descs[i].is_first()) { // same core as the chunk before it
        EXPECT_EQ(core_of[i], core_of[i - 1]) << i;
      }
    }
    for (const std::vector<int> &ids : order) // in order within a core
      EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  }
}

// The threads that help run a launch's cores are kept between launches (a
// thread's simulated buffers and checker are built once): over 21 launches
// on 3 OS threads, a thread-local object is built at most 3 times (it was
// built anew in every launch's helpers before). A forked child (as a gtest
// death test forks) starts helpers of its own and finishes its launch.
#if defined(__SANITIZE_THREAD__)
#define WSP_TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WSP_TEST_UNDER_TSAN 1
#endif
#endif
#ifndef WSP_TEST_UNDER_TSAN
#define WSP_TEST_UNDER_TSAN 0
#endif

namespace {
std::atomic<int> g_thread_starts{0};
struct ThreadStart {
  ThreadStart() { ++g_thread_starts; }
};
} // namespace

TEST(CpuSim, HelperThreadsOutliveALaunch) {
  std::vector<WorkDescriptor> descs = make_descs(64);
  sim::Options options;
  options.os_threads = 3;
  auto launch = [&] {
    std::atomic<int> ran{0};
    EXPECT_EQ(sim::run_spmd(sim::CoreKind::Vector, 24, descs.data(), 64,
                            [&](const WorkDescriptor &) {
                              thread_local ThreadStart start;
                              (void)start;
                              // Long enough that every thread gets cores.
                              std::this_thread::sleep_for(
                                  std::chrono::microseconds(100));
                              ++ran;
                            },
                            nullptr, options),
              PlanResult::OK);
    return ran.load();
  };
  for (int i = 0; i < 21; ++i)
    ASSERT_EQ(launch(), 64);
  EXPECT_LE(g_thread_starts.load(), 3);
  // ThreadSanitizer (scripts/tsan.sh) refuses to start threads in a child
  // forked from a threaded process: there the fork is not tried (every
  // other build tries it).
#if !WSP_TEST_UNDER_TSAN
  EXPECT_EXIT(std::exit(launch() == 64 ? 0 : 1), testing::ExitedWithCode(0),
              "");
#endif
}

TEST(CpuSim, ReportIsResetBetweenLaunches) {
  // A report keeps its storage from launch to launch (no allocation per
  // launch); what a launch leaves in it must still be its own alone.
  sim::LaunchReport report;
  std::vector<WorkDescriptor> many = make_descs(200);
  for (int i = 0; i < 200; ++i)
    many[i].tier = static_cast<uint8_t>(i % 11); // past the 8 kept inline
  ASSERT_EQ(sim::run_spmd(sim::CoreKind::Vector, 4, many.data(), 200,
                          [](const WorkDescriptor &) {}, &report),
            PlanResult::OK);
  ASSERT_EQ(report.cores.size(), 4u);
  for (const sim::CoreStats &c : report.cores)
    for (size_t t = 0; t < 256; ++t) {
      uint64_t expected = 0;
      for (int i = c.block_idx; i < 200; i += 4)
        expected += static_cast<size_t>(i % 11) == t;
      EXPECT_EQ(c.per_tier[t], expected) << "core " << c.block_idx << " tier "
                                         << t;
    }

  // Fewer cores, other tiers, a group other than 0 before: nothing carries
  // over.
  std::vector<WorkDescriptor> few = make_descs(3);
  for (WorkDescriptor &d : few)
    d.tier = 200;
  sim::CoreGroup cube{sim::CoreKind::Cube, 2, many.data(), 2,
                      [](const WorkDescriptor &) {}};
  sim::CoreGroup vec{sim::CoreKind::Vector, 5, few.data(), 3,
                     [](const WorkDescriptor &) {}};
  ASSERT_EQ(sim::run_mpmd({cube, vec}, &report), PlanResult::OK);
  ASSERT_EQ(report.cores.size(), 7u);
  ASSERT_EQ(sim::run_spmd(sim::CoreKind::Vector, 6, few.data(), 3,
                          [](const WorkDescriptor &) {}, &report),
            PlanResult::OK);
  ASSERT_EQ(report.cores.size(), 6u);
  for (const sim::CoreStats &c : report.cores) {
    const uint64_t ran = c.block_idx < 3 ? 1 : 0;
    EXPECT_EQ(c.group, 0);
    EXPECT_EQ(c.descriptors, ran);
    EXPECT_EQ(c.per_tier[200], ran);
    EXPECT_EQ(c.per_tier[0], 0u);
    EXPECT_EQ(c.per_tier[1], 0u);
    EXPECT_EQ(c.busy_us > 0, ran == 1) << "an idle core has no busy time";
  }
  EXPECT_EQ(report.launches, 3u);

  // Back to 4 cores, then 7 in two groups: a launch takes the storage an
  // earlier launch of its size left (the first one's, with eleven tiers;
  // the group launch's, with group 1 on its last five cores) and sees none
  // of it.
  ASSERT_EQ(sim::run_spmd(
                sim::CoreKind::Cube, 4, few.data(), 3,
                [](const WorkDescriptor &) {}, &report),
            PlanResult::OK);
  ASSERT_EQ(report.cores.size(), 4u);
  for (const sim::CoreStats &c : report.cores) {
    const uint64_t ran = c.block_idx < 3 ? 1 : 0;
    EXPECT_EQ(c.kind, sim::CoreKind::Cube);
    EXPECT_EQ(c.descriptors, ran);
    EXPECT_EQ(c.cost, ran * uint64_t(10 + c.block_idx));
    for (size_t t = 0; t < 256; ++t)
      EXPECT_EQ(c.per_tier[t], t == 200 ? ran : 0u)
          << "core " << c.block_idx << " tier " << t;
  }
  sim::CoreGroup first{sim::CoreKind::Vector, 3, few.data(), 3,
                       [](const WorkDescriptor &) {}};
  sim::CoreGroup second{sim::CoreKind::Cube, 4, many.data(), 0,
                        [](const WorkDescriptor &) {}};
  ASSERT_EQ(sim::run_mpmd({first, second}, &report), PlanResult::OK);
  ASSERT_EQ(report.cores.size(), 7u);
  for (size_t i = 0; i < 7; ++i) {
    const sim::CoreStats &c = report.cores[i];
    EXPECT_EQ(c.group, i < 3 ? 0 : 1);
    EXPECT_EQ(c.kind, i < 3 ? sim::CoreKind::Vector : sim::CoreKind::Cube);
    EXPECT_EQ(c.block_idx, int(i < 3 ? i : i - 3));
    EXPECT_EQ(c.descriptors, i < 3 ? 1u : 0u);
    EXPECT_EQ(c.per_tier[0], 0u);
  }
  EXPECT_EQ(report.launches, 5u);
}

TEST(CpuSim, LaunchFromInsideALaunch) {
  // Statistics without a report live in a buffer of the calling thread; a
  // launch a core starts on that thread must not share it.
  std::vector<WorkDescriptor> outer = make_descs(4), inner = make_descs(5);
  sim::Options one;
  one.os_threads = 1;
  sim::LaunchReport report;
  std::atomic<int> inner_runs{0};
  ASSERT_EQ(sim::run_spmd(
                sim::CoreKind::Vector, 4, outer.data(), 4,
                [&](const WorkDescriptor &) {
                  EXPECT_EQ(sim::run_spmd(sim::CoreKind::Vector, 2,
                                          inner.data(), 5,
                                          [&](const WorkDescriptor &) {
                                            ++inner_runs;
                                          },
                                          nullptr, one),
                            PlanResult::OK);
                },
                &report, one),
            PlanResult::OK);
  EXPECT_EQ(inner_runs, 20);
  ASSERT_EQ(report.cores.size(), 4u);
  for (const sim::CoreStats &c : report.cores)
    EXPECT_EQ(c.descriptors, 1u);
}

// With several helpers, one that wakes after the calling thread let the
// late ones off must not take the finished launch's task (helpers once
// took it by their id, and a helper with a low id waking after one with a
// higher id ran a launch that had returned: a crash in a later test, one
// run in three). Each launch's body checks that its launch is still
// running.
TEST(CpuSim, ALateHelperNeverRunsAFinishedLaunch) {
  std::vector<WorkDescriptor> descs = make_descs(8);
  sim::Options options;
  options.os_threads = 4;
  std::atomic<int> stale{0};
  for (int i = 0; i < 3000; ++i) {
    std::atomic<bool> running{true};
    ASSERT_EQ(sim::run_spmd(
                  sim::CoreKind::Vector, 48, descs.data(), 8,
                  [&](const WorkDescriptor &) {
                    if (!running.load())
                      ++stale;
                  },
                  nullptr, options),
              PlanResult::OK);
    running = false;
  }
  EXPECT_EQ(stale.load(), 0);
}

TEST(CpuSim, ShortLaunchesDoNotWaitForHelpers) {
  // The calling thread takes the work as it comes; helpers that have not
  // woken by the time it is done are let off. Many tiny launches in a row
  // must all complete, whichever threads ran them.
  std::vector<WorkDescriptor> descs = make_descs(3);
  sim::Options options;
  options.os_threads = 2;
  std::atomic<int> ran{0};
  for (int i = 0; i < 2000; ++i)
    ASSERT_EQ(sim::run_spmd(sim::CoreKind::Vector, 48, descs.data(), 3,
                            [&](const WorkDescriptor &) { ++ran; }, nullptr,
                            options),
              PlanResult::OK);
  EXPECT_EQ(ran, 6000);
}
