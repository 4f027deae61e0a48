// The KV-cache shardings of seed 003 in the CPU simulation
// (examples/ir/kv_sharding.mlir, 8 query heads over 2 KV heads, head_dim
// 64, pages of 16, one new token), in one process: ranks as threads (on
// this shared 2-core machine, where each rank's kernels already run on 2
// threads: 4 ranks are oversubscribed; the times say what the sharded
// programs cost here, not what 4 devices would do). Two batches: 1 request
// of 16384 positions (fewer requests than ranks) and 64 of 2048 (many
// more). For each, in one run:
// - the step time of the unsharded attention on 1 rank, of KV data
//   parallelism (@kvdp4_q1, and its all_to_all form @kvdp4_all_to_all_q1,
//   the default) and of context parallelism (@cp4_q1) on 4;
// - each rank's KV bytes against the unsharded cache's (the largest rank's
//   share: 1/4 where the split is even);
// - the bytes each rank sent per step (the communicator's count) beside
//   the formula they must equal, and against the least its placement
//   needs (docs/rationale/Sharding.md, "The least bytes");
// - each rank's step alone, on the whole machine, its collectives answered
//   by a stand-in communicator (every other rank sends what this one does:
//   the data differ, the work does not), and the slowest rank's time: what
//   a step would take with one device per rank, transfers aside;
// - seed 003's rule (context parallelism when the batch is smaller than
//   the ranks) against the faster of the two modes by that estimate.
//
// Usage: bench-kv-sharding [steps per measurement >= 1]
#include "BenchTiming.h"
#include "kv_sharding.hpp"

#include <pto/runtime/collectives.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace kv_sharding;
namespace comm = pto::runtime::comm;

namespace {

constexpr int64_t kRanks = 4;
// Pages of 64 positions: 16 per rank under context parallelism.
constexpr int64_t kPageSize = 64;

/// The median over 5 measurements of `steps` steps of `body` (every rank
/// runs it; rank 0 times it), per step, in microseconds; the bytes rank r
/// sent per step in sent[r]. False if a step failed.
template <typename Body>
bool timeSteps(int64_t ranks, int steps, Body body, double &us,
               std::vector<uint64_t> &sent) {
  std::vector<double> samples;
  bool ok = true;
  sent.assign(size_t(ranks), 0);
  for (int m = 0; m < 5; ++m) {
    double seconds = 0;
    comm::ThreadGroup(int(ranks)).run([&](comm::Communicator &c) {
      ok = body(c.rank()) == 0 && ok; // warm up
      c.reset_bytes_sent();
      ok = c.barrier() == comm::Status::OK && ok;
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < steps; ++i)
        ok = body(c.rank()) == 0 && ok;
      ok = c.barrier() == comm::Status::OK && ok;
      if (c.rank() == 0)
        seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                .count();
      sent[size_t(c.rank())] = c.bytes_sent() / uint64_t(steps);
    });
    samples.push_back(seconds / steps * 1e6);
  }
  std::sort(samples.begin(), samples.end());
  us = samples[2];
  return ok;
}

/// Rank `rank` of `size` alone: every call agrees at once and every other
/// rank's part is this rank's own.
class LoneCommunicator final : public comm::Communicator {
public:
  LoneCommunicator(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }

protected:
  comm::Status exchange(const comm::CallHeader &mine,
                        std::vector<comm::CallHeader> &all) override {
    all.assign(size_t(size_), mine);
    return comm::Status::OK;
  }
  comm::Status backend_all_gather(const void *send, void *recv,
                                  size_t bytes) override {
    for (int r = 0; r < size_; ++r)
      std::memcpy(static_cast<uint8_t *>(recv) + size_t(r) * bytes, send,
                  bytes);
    return comm::Status::OK;
  }
  comm::Status backend_all_to_all(const void *send, void *recv,
                                  size_t bytes) override {
    for (int r = 0; r < size_; ++r)
      std::memcpy(static_cast<uint8_t *>(recv) + size_t(r) * bytes,
                  static_cast<const uint8_t *>(send) + size_t(rank_) * bytes,
                  bytes);
    return comm::Status::OK;
  }
  comm::Status backend_broadcast(void *, size_t, int) override {
    return comm::Status::OK;
  }

private:
  int rank_, size_;
};

/// The slowest rank's step, each rank timed alone (microseconds).
template <typename Body> double slowestAlone(int64_t ranks, Body body) {
  double slowest = 0;
  for (int64_t r = 0; r < ranks; ++r) {
    LoneCommunicator lone{int(r), int(ranks)};
    comm::CurrentCommunicator scope(lone);
    slowest = std::max(
        slowest,
        wsp_bench::median_us([&] { wsp_bench::sink = body(int(r)); }, 5));
  }
  return slowest;
}

size_t kvBytes(const Args &a) {
  return a.k.size() * sizeof(bf16) + a.v.size() * sizeof(bf16);
}

} // namespace

int main(int argc, char **argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 5;
  if (argc > 2 || steps < 1) {
    std::fprintf(stderr, "usage: %s [steps per measurement >= 1]\n", argv[0]);
    return 2;
  }
  std::printf("KV-cache sharding on %lld ranks (threads), %d steps per "
              "measurement, median of 5\n",
              (long long)kRanks, steps);
  bool allOk = true;
  struct Shape {
    int64_t batch;
    int32_t length;
  };
  for (Shape shape : {Shape{1, 16384}, Shape{64, 2048}}) {
    const Batch whole(shape.batch, 1, false, 7, shape.length, shape.length,
                      kPageSize);
    Args one(whole);
    std::vector<Args> kvdp, a2a, cp;
    for (int64_t r = 0; r < kRanks; ++r) {
      kvdp.emplace_back(whole, r, kRanks, Mode::Kvdp);
      a2a.emplace_back(whole, r, kRanks, Mode::KvdpAllToAll);
      cp.emplace_back(whole, r, kRanks, Mode::Cp);
    }
    double usOne = 0, usKvdp = 0, usA2a = 0, usCp = 0;
    std::vector<uint64_t> sentOne, sentKvdp, sentA2a, sentCp;
    bool ok = timeSteps(
        1, steps, [&](int) { return one.call(wsp_gen::attend_q1); }, usOne,
        sentOne);
    ok = timeSteps(
             kRanks, steps,
             [&](int r) { return kvdp[size_t(r)].call(wsp_gen::kvdp4_q1); },
             usKvdp, sentKvdp) &&
         ok;
    ok = timeSteps(
             kRanks, steps,
             [&](int r) {
               return a2a[size_t(r)].call(wsp_gen::kvdp4_all_to_all_q1);
             },
             usA2a, sentA2a) &&
         ok;
    ok = timeSteps(
             kRanks, steps,
             [&](int r) { return cp[size_t(r)].call(wsp_gen::cp4_q1); }, usCp,
             sentCp) &&
         ok;
    allOk = allOk && ok;

    const int64_t b = shape.batch, n = kRanks, c = (b + n - 1) / n;
    const int64_t local = kHeads / n, d = kDim;
    size_t kvdpMax = 0, cpMax = 0;
    for (int64_t r = 0; r < n; ++r) {
      kvdpMax = std::max(kvdpMax, kvBytes(kvdp[size_t(r)]));
      cpMax = std::max(cpMax, kvBytes(cp[size_t(r)]));
    }
    // KVDP: the q all_gather sends the rank's q (B Hl D bf16) to N - 1
    // ranks, the output all_gather its c rows of every head (c H D bf16).
    const uint64_t kvdpFormula =
        uint64_t((n - 1) * (b * local * d + c * kHeads * d) * 2);
    // KVDP, all_to_all form: N - 1 of the N pieces of c rows of the
    // rank's heads, for q and for the outputs (c S Hl D bf16 each).
    const uint64_t a2aFormula = uint64_t(2 * (n - 1) * c * local * d * 2);
    // CP: the q all_gather as above; the all_to_alls of the states send
    // N - 1 of N pieces: o (B H D f32) and one log-sum-exp (B H f32).
    const uint64_t cpFormula = uint64_t((n - 1) * b * local * d * 2 +
                                        (n - 1) * (b * local * (d + 1)) * 4);
    bool sentOk = true;
    for (int64_t r = 0; r < n; ++r)
      sentOk = sentOk && sentKvdp[size_t(r)] == kvdpFormula &&
               sentA2a[size_t(r)] == a2aFormula &&
               sentCp[size_t(r)] == cpFormula;
    allOk = allOk && sentOk;
    // The least each rank must send (Sharding.md). KVDP, rank r with c_r
    // requests: its heads' q of the others' requests, (B - c_r) Hl D bf16,
    // and its requests' outputs of the others' heads, c_r (N - 1) Hl D
    // bf16. CP: its heads' q to the N - 1 others, (N - 1) B Hl D bf16, and
    // the others' heads' states, each o (D f32) and one log-sum-exp:
    // (N - 1) B Hl (D + 1) f32. The ratio is the busiest rank's: the most
    // sent over the most needed.
    uint64_t kvdpLeast = 0;
    for (int64_t r = 0; r < n; ++r) {
      const int64_t mine =
          std::max<int64_t>(0, std::min(b, (r + 1) * c) - std::min(b, r * c));
      kvdpLeast = std::max(
          kvdpLeast, uint64_t(((b - mine) + mine * (n - 1)) * local * d * 2));
    }
    const uint64_t cpLeast =
        uint64_t((n - 1) * b * local * (d * 2 + (d + 1) * 4));
    uint64_t kvdpMost = 0, a2aMost = 0, cpMost = 0;
    for (int64_t r = 0; r < n; ++r) {
      kvdpMost = std::max(kvdpMost, sentKvdp[size_t(r)]);
      a2aMost = std::max(a2aMost, sentA2a[size_t(r)]);
      cpMost = std::max(cpMost, sentCp[size_t(r)]);
    }

    const double aloneOne =
        slowestAlone(1, [&](int) { return one.call(wsp_gen::attend_q1); });
    const double aloneKvdp = slowestAlone(
        n, [&](int r) { return kvdp[size_t(r)].call(wsp_gen::kvdp4_q1); });
    const double aloneCp = slowestAlone(
        n, [&](int r) { return cp[size_t(r)].call(wsp_gen::cp4_q1); });

    const char *rule = b < n ? "cp" : "kvdp";
    const char *faster = aloneCp < aloneKvdp ? "cp" : "kvdp";
    std::printf("\nB = %lld x %d positions:%s\n", (long long)b, shape.length,
                ok ? "" : " A STEP FAILED");
    std::printf("  step, 4 ranks as threads: 1 rank %9.1f us; kvdp %9.1f us "
                "(%.2fx of 1 rank), its all_to_all form %9.1f us (%.2fx), cp "
                "%9.1f us (%.2fx)\n",
                usOne, usKvdp, usKvdp / usOne, usA2a, usA2a / usOne, usCp,
                usCp / usOne);
    std::printf("  step, slowest rank alone: 1 rank %9.1f us; kvdp %9.1f us "
                "(%.2fx), cp %9.1f us (%.2fx)\n",
                aloneOne, aloneKvdp, aloneKvdp / aloneOne, aloneCp,
                aloneCp / aloneOne);
    std::printf("  KV bytes: unsharded %zu; largest rank: kvdp %zu (%.3f), cp "
                "%zu (%.3f)\n",
                kvBytes(one), kvdpMax, double(kvdpMax) / double(kvBytes(one)),
                cpMax, double(cpMax) / double(kvBytes(one)));
    std::printf("  sent per rank and step: kvdp %llu B = (N - 1)(B Hl D + c H "
                "D) 2 = %llu; its all_to_all form %llu B = 2 (N - 1) c Hl D 2 "
                "= %llu; cp %llu B = (N - 1)(B Hl D 2 + B Hl (D + 1) 4) "
                "= %llu: %s\n",
                (unsigned long long)sentKvdp[0],
                (unsigned long long)kvdpFormula, (unsigned long long)sentA2a[0],
                (unsigned long long)a2aFormula, (unsigned long long)sentCp[0],
                (unsigned long long)cpFormula,
                sentOk ? "equal on every rank" : "DIFFERENT");
    std::printf("  against the least (the busiest rank): kvdp %llu B, "
                "%.2fx; its all_to_all form (the default) %.2fx; cp %llu B, "
                "%.2fx\n",
                (unsigned long long)kvdpLeast,
                double(kvdpMost) / double(kvdpLeast),
                double(a2aMost) / double(kvdpLeast),
                (unsigned long long)cpLeast, double(cpMost) / double(cpLeast));
    std::printf("  seed 003's rule picks %s; faster (slowest rank alone): %s "
                "(%s)\n",
                rule, faster,
                std::strcmp(rule, faster) == 0 ? "agree" : "DISAGREE");
  }
  return allOk ? 0 : 1;
}
