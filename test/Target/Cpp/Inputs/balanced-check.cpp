// Driver for cpusim-balanced-planner.mlir: the emitted balanced planning
// (force-included) against pto::runtime::plan_balanced_into on the same
// inputs, and a persistent dispatch over the plan.
#include <pto/runtime/runtime.hpp>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace rt = pto::runtime;
using wsp_gen::MemRef;

using Emitted = int32_t (*)(MemRef<int32_t, 1>, int64_t, int64_t,
                            MemRef<rt::WorkDescriptor, 1>, MemRef<int32_t, 1>,
                            MemRef<int32_t, 1>, MemRef<int64_t, 1>);

struct Buffers {
  std::vector<rt::WorkDescriptor> descs;
  std::vector<int> cores, merges;
  Buffers(int capacity, int core_size, int merge_size)
      : descs(capacity), cores(core_size, -7), merges(merge_size, -7) {
    std::memset(descs.data(), 0xab, descs.size() * sizeof(rt::WorkDescriptor));
  }
  bool operator==(const Buffers &o) const {
    return descs.size() == o.descs.size() &&
           std::memcmp(descs.data(), o.descs.data(),
                       descs.size() * sizeof(rt::WorkDescriptor)) == 0 &&
           cores == o.cores && merges == o.merges;
  }
};

/// One workload through both; false (with a message) on any difference.
bool same(const char *what, Emitted emitted, const rt::BalancedConfig &config,
          std::vector<int> lens, int64_t batch, int heads, int capacity,
          int core_size, int merge_size) {
  Buffers want(capacity, core_size, merge_size),
      got(capacity, core_size, merge_size);
  int want_count = 0;
  const rt::PlanResult want_status =
      batch > static_cast<int64_t>(lens.size())
          ? rt::PlanResult::INVALID_PARAMS
          : rt::plan_balanced_into(lens.data(), static_cast<int>(batch), heads,
                                   config, rt::DecodeAttentionTiers{},
                                   want.descs.data(), capacity,
                                   want.cores.data(), core_size,
                                   want.merges.data(), merge_size,
                                   &want_count);
  int64_t out[1] = {-1};
  const int32_t got_status = emitted(
      MemRef<int32_t, 1>{lens.data(), {static_cast<int64_t>(lens.size())}},
      batch, heads, MemRef<rt::WorkDescriptor, 1>{got.descs.data(), {capacity}},
      MemRef<int32_t, 1>{got.cores.data(), {core_size}},
      MemRef<int32_t, 1>{got.merges.data(), {merge_size}},
      MemRef<int64_t, 1>{out, {1}});
  const bool ok = got_status == static_cast<int>(want_status) &&
                  out[0] == want_count && got == want;
  if (!ok)
    std::printf("%s MISMATCH: batch %lld heads %d cap %d: status %d/%d "
                "count %lld/%d\n",
                what, static_cast<long long>(batch), heads, capacity,
                got_status, static_cast<int>(want_status),
                static_cast<long long>(out[0]), want_count);
  return ok;
}

int main() {
  std::mt19937 rng(2027);
  auto lengths = [&](int batch) {
    std::vector<int> lens(batch);
    for (int &l : lens)
      l = rng() % 9 == 0 ? 0 : 1 + static_cast<int>(rng() % (rng() % 2 ? 131072 : 2048));
    return lens;
  };
  rt::BalancedConfig sweep; // the defaults: 48 cores, block 16, 64/1/64
  rt::BalancedConfig invariant;
  invariant.num_cores = 24;
  invariant.block_size = 32;
  invariant.cost = {100, 2, 7};
  invariant.batch_invariant = true;
  invariant.invariant_chunk = 1000;
  struct Variant {
    const char *name;
    Emitted fn;
    rt::BalancedConfig config;
  } variants[] = {{"sweep", &wsp_gen::plan_sweep, sweep},
                  {"batch-invariant", &wsp_gen::plan_invariant, invariant}};
  int failures = 0;
  for (const Variant &v : variants) {
    int equal = 0;
    for (int i = 0; i < 300; ++i) {
      const int batch = 1 + static_cast<int>(rng() % (i < 250 ? 64 : 2048));
      const int heads = 1 + static_cast<int>(rng() % 16);
      std::vector<int> lens = lengths(batch);
      // Room for the plan's bound, sometimes a little less (overflow).
      rt::BalancedPlan plan;
      rt::plan_balanced(lens.data(), batch, heads, v.config,
                        rt::DecodeAttentionTiers{}, &plan);
      int capacity = static_cast<int>(plan.descriptors.size());
      if (i % 10 == 9)
        capacity = std::max(0, capacity - 1);
      equal += same(v.name, v.fn, v.config, lens, batch, heads, capacity,
                    v.config.num_cores + 1, batch * heads + 1);
    }
    std::printf("%s: %d workloads equal\n", v.name, equal);
    failures += 300 - equal;
  }

  // Query lengths: the emitted call passes them; a short q_lens buffer is
  // INVALID_PARAMS before the call; a q_len of 0 is the runtime's error.
  {
    rt::BalancedConfig config;
    config.num_cores = 64;
    int equal = 0;
    for (int i = 0; i < 200; ++i) {
      const int batch = 1 + static_cast<int>(rng() % 128);
      const int heads = 1 + static_cast<int>(rng() % 8);
      std::vector<int> lens = lengths(batch), q(batch);
      for (int b = 0; b < batch; ++b) // in [1, kv_len]
        q[b] = std::max(1, std::min(lens[b], rng() % 3 == 0
                                                 ? 1 + static_cast<int>(
                                                           rng() % 256)
                                                 : 1));
      if (i == 7)
        q[0] = 0; // invalid when request 0 is not idle
      if (i == 9)
        q[0] = lens[0] + 1; // invalid: more queries than KV tokens
      const int64_t q_size = i == 11 ? batch - 1 : batch;
      const int cap = batch * heads + 64;
      Buffers want(cap, 65, batch * heads + 1), got(cap, 65, batch * heads + 1);
      int want_count = 0;
      const rt::PlanResult want_status =
          q_size < batch ? rt::PlanResult::INVALID_PARAMS
                         : rt::plan_balanced_into(
                               lens.data(), batch, heads, config,
                               rt::DecodeAttentionTiers{}, want.descs.data(),
                               cap, want.cores.data(), 65, want.merges.data(),
                               batch * heads + 1, &want_count, nullptr,
                               nullptr, q.data());
      int64_t out[1] = {-1};
      const int32_t got_status = wsp_gen::plan_prefill(
          MemRef<int32_t, 1>{lens.data(), {batch}},
          MemRef<int32_t, 1>{q.data(), {q_size}}, batch, heads,
          MemRef<rt::WorkDescriptor, 1>{got.descs.data(), {cap}},
          MemRef<int32_t, 1>{got.cores.data(), {65}},
          MemRef<int32_t, 1>{got.merges.data(), {batch * heads + 1}},
          MemRef<int64_t, 1>{out, {1}});
      const bool ok = got_status == static_cast<int>(want_status) &&
                      out[0] == want_count && got == want;
      if (!ok)
        std::printf("prefill MISMATCH: workload %d status %d/%d\n", i,
                    got_status, static_cast<int>(want_status));
      equal += ok;
    }
    std::printf("prefill: %d workloads equal\n", equal);
    failures += 200 - equal;
  }

  // Error paths: negative length, no tier, batch beyond the lengths, heads
  // 0, short work lists, short merge plan.
  bool errors = true;
  std::vector<int> ok_lens = {100, 5000, 0, 70000};
  std::vector<int> negative = {100, -1};
  std::vector<int> no_tier = {100, 200000};
  errors &= same("negative", &wsp_gen::plan_sweep, sweep, negative, 2, 2, 64,
                 49, 5);
  errors &= same("no tier", &wsp_gen::plan_sweep, sweep, no_tier, 2, 2, 64,
                 49, 5);
  errors &= same("batch beyond", &wsp_gen::plan_sweep, sweep, ok_lens, 5, 2,
                 64, 49, 11);
  errors &= same("heads 0", &wsp_gen::plan_sweep, sweep, ok_lens, 4, 0, 64,
                 49, 9);
  errors &= same("short lists", &wsp_gen::plan_sweep, sweep, ok_lens, 4, 2,
                 64, 48, 9);
  errors &= same("short merges", &wsp_gen::plan_sweep, sweep, ok_lens, 4, 2,
                 64, 49, 6);
  errors &= same("all idle", &wsp_gen::plan_sweep, sweep,
                 std::vector<int>{0, 0}, 2, 3, 64, 49, 7);
  std::printf("errors: %s\n", errors ? "all equal" : "MISMATCH");
  failures += !errors;

  // Static: the table wsp-plan computed equals the runtime's plan.
  {
    rt::BalancedConfig two = sweep;
    two.num_cores = 2;
    std::vector<int> lens = {600, 0, 1500};
    rt::BalancedPlan plan;
    rt::plan_balanced(lens.data(), 3, 2, two, rt::DecodeAttentionTiers{},
                      &plan);
    std::vector<rt::WorkDescriptor> descs(16);
    std::vector<int> cores(3), merges(7);
    int64_t out[1] = {-1};
    const int32_t status = wsp_gen::plan_static(
        MemRef<rt::WorkDescriptor, 1>{descs.data(), {16}},
        MemRef<int32_t, 1>{cores.data(), {3}},
        MemRef<int32_t, 1>{merges.data(), {7}}, MemRef<int64_t, 1>{out, {1}});
    merges.resize(plan.rows + 1);
    const bool ok = status == 0 && out[0] == plan.count &&
                    std::memcmp(descs.data(), plan.descriptors.data(),
                                plan.count * sizeof(rt::WorkDescriptor)) == 0 &&
                    cores == plan.core_indptr && merges == plan.merge_indptr;
    // Too small a buffer: BUFFER_OVERFLOW, nothing written.
    std::vector<int> small(2, -7);
    const int32_t overflow = wsp_gen::plan_static(
        MemRef<rt::WorkDescriptor, 1>{descs.data(), {16}},
        MemRef<int32_t, 1>{small.data(), {2}},
        MemRef<int32_t, 1>{merges.data(), {7}}, MemRef<int64_t, 1>{out, {1}});
    const bool ok_overflow = overflow == 1 && small == std::vector<int>(2, -7);
    std::printf("static: %s\n", ok && ok_overflow
                                    ? "equal to the runtime's plan"
                                    : "MISMATCH");
    failures += !(ok && ok_overflow);
  }

  // Every request idle: status 0, no descriptors, empty lists.
  {
    std::vector<rt::WorkDescriptor> descs(4);
    std::vector<int> cores(3, -7), merges(5, -7);
    int64_t out[1] = {-1};
    const int32_t status = wsp_gen::plan_idle(
        MemRef<rt::WorkDescriptor, 1>{descs.data(), {4}},
        MemRef<int32_t, 1>{cores.data(), {3}},
        MemRef<int32_t, 1>{merges.data(), {5}}, MemRef<int64_t, 1>{out, {1}});
    const bool ok = status == 0 && out[0] == 0 &&
                    cores == std::vector<int>{0, 0, 0} && merges[0] == 0 &&
                    merges[1] == -7;
    std::printf("idle: %s\n", ok ? "an empty plan" : "MISMATCH");
    failures += !ok;
  }

  // Persistent dispatch: every descriptor of a plan runs exactly once.
  {
    std::vector<int> lens = lengths(300);
    rt::BalancedPlan plan;
    rt::plan_balanced(lens.data(), 300, 4, sweep, rt::DecodeAttentionTiers{},
                      &plan);
    std::vector<int32_t> runs(plan.count, 0);
    wsp_gen::run_all(
        MemRef<rt::WorkDescriptor, 1>{plan.descriptors.data(), {plan.count}},
        plan.count,
        MemRef<int32_t, 1>{plan.core_indptr.data(),
                           {static_cast<int64_t>(plan.core_indptr.size())}},
        MemRef<int32_t, 1>{runs.data(), {plan.count}});
    bool once = plan.count > 0;
    for (int32_t r : runs)
      once &= r == 1;
    std::printf("persistent: %s\n",
                once ? "every descriptor ran once" : "MISMATCH");
    failures += !once;
  }

  // The plan as cuts, expanded by the dispatch's cores: against the
  // materialized plan of the same input and capacity (sometimes one short:
  // BUFFER_OVERFLOW, nothing written, nothing run; sometimes a batch beyond
  // the lengths: INVALID_PARAMS).
  {
    int equal = 0;
    bool ran_once = true;
    for (int i = 0; i < 300; ++i) {
      const int batch = 1 + static_cast<int>(rng() % (i < 250 ? 64 : 2048));
      const int heads = 1 + static_cast<int>(rng() % 16);
      std::vector<int> lens = lengths(batch);
      rt::BalancedPlan plan;
      rt::plan_balanced(lens.data(), batch, heads, sweep,
                        rt::DecodeAttentionTiers{}, &plan);
      int capacity = static_cast<int>(plan.descriptors.size());
      if (i % 10 == 9)
        capacity = std::max(0, capacity - 1);
      const int64_t asked = i % 25 == 24 ? batch + 1 : batch;
      Buffers want(capacity, sweep.num_cores + 1, batch * heads + 1),
          got(capacity, sweep.num_cores + 1, 0);
      int want_count = 0;
      const rt::PlanResult want_status =
          asked > batch ? rt::PlanResult::INVALID_PARAMS
                        : rt::plan_balanced_into(
                              lens.data(), batch, heads, sweep,
                              rt::DecodeAttentionTiers{}, want.descs.data(),
                              capacity, want.cores.data(),
                              sweep.num_cores + 1, want.merges.data(),
                              batch * heads + 1, &want_count);
      std::vector<int32_t> cuts(4 * (sweep.num_cores + 1), -7),
          runs(std::max(capacity, 1), 0);
      int64_t out[1] = {-1};
      const int32_t got_status = wsp_gen::plan_cuts_and_run(
          MemRef<int32_t, 1>{lens.data(), {batch}}, asked, heads,
          MemRef<rt::WorkDescriptor, 1>{got.descs.data(), {capacity}},
          MemRef<int32_t, 1>{got.cores.data(), {sweep.num_cores + 1}},
          MemRef<int32_t, 1>{cuts.data(), {static_cast<int64_t>(cuts.size())}},
          MemRef<int32_t, 1>{runs.data(), {static_cast<int64_t>(runs.size())}},
          MemRef<int64_t, 1>{out, {1}});
      const bool planned = want_status == rt::PlanResult::OK;
      // Planned: the buffer and lists as the materialized plan's (its merge
      // plan aside). Not: nothing written, nothing run.
      const bool buffers =
          planned ? std::memcmp(got.descs.data(), want.descs.data(),
                                capacity * sizeof(rt::WorkDescriptor)) == 0 &&
                        got.cores == want.cores
                  : got == Buffers(capacity, sweep.num_cores + 1, 0) &&
                        cuts == std::vector<int32_t>(cuts.size(), -7);
      bool once = true;
      for (int d = 0; d < static_cast<int>(runs.size()); ++d)
        once &= runs[d] == (planned && d < want_count ? 1 : 0);
      const bool ok = got_status == static_cast<int>(want_status) &&
                      (asked > batch || out[0] == want_count) && buffers;
      if (!ok || !once)
        std::printf("cuts MISMATCH: batch %d heads %d cap %d: status %d/%d "
                    "count %lld/%d%s%s\n",
                    batch, heads, capacity, got_status,
                    static_cast<int>(want_status),
                    static_cast<long long>(out[0]), want_count,
                    buffers ? "" : ", buffers differ",
                    once ? "" : ", runs differ");
      equal += ok;
      ran_once &= once;
    }
    std::printf("cuts: %d workloads equal, %s\n", equal,
                ran_once ? "every descriptor ran once" : "RUNS MISMATCH");
    failures += 300 - equal + !ran_once;
  }
  return failures == 0 ? 0 : 1;
}
