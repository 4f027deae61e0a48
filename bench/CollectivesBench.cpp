// The in-process collectives (pto/runtime/collectives.hpp, ThreadGroup):
// per call, for 2 and 4 ranks (threads on this 2-core machine: 4 ranks are
// oversubscribed), a decode step's tensor-parallel all_reduce (16 tokens x
// hidden 256, bf16: 8 KiB) and a 1 MiB one, and all_gather of the same
// sizes. Printed beside each: the bytes each rank received per call over
// the call's time, memcpy of those bytes on one thread in the same run,
// and the bytes each rank sent as the communicator counts them next to the
// formula they must equal (all_gather: (ranks - 1) x the buffer;
// all_reduce in shared memory, a reduce-scatter and an all_gather:
// 2 (ranks - 1) / ranks x the buffer; docs/rationale/Sharding.md).
//
// Usage: bench-collectives [calls per measurement >= 1]
#include "BenchTiming.h"

#include <pto/runtime/collectives.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace comm = pto::runtime::comm;

int main(int argc, char **argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  if (argc > 2 || calls < 1) {
    std::fprintf(stderr, "usage: %s [calls per measurement >= 1]\n", argv[0]);
    return 2;
  }
  std::printf("in-process collectives (threads), %d calls per measurement; "
              "memcpy on one thread\n",
              calls);
  for (int ranks : {2, 4})
    for (size_t bytes : {size_t(8) << 10, size_t(1) << 20})
      for (bool reduce : {true, false}) {
        std::vector<std::vector<uint8_t>> send(ranks), recv(ranks);
        for (int r = 0; r < ranks; ++r) {
          send[r].assign(bytes, uint8_t(r + 1));
          recv[r].assign(bytes * ranks, 0);
        }
        std::vector<uint64_t> sent(ranks);
        double seconds = 0;
        bool ok = true;
        comm::ThreadGroup(ranks).run([&](comm::Communicator &c) {
          const int r = c.rank();
          auto once = [&] {
            return reduce ? c.all_reduce(send[r].data(), bytes / 2,
                                         comm::ElemType::BF16,
                                         comm::ReduceOp::Max)
                          : c.all_gather(send[r].data(), recv[r].data(), bytes);
          };
          ok = ok && once() == comm::Status::OK; // warm up
          c.reset_bytes_sent();
          ok = ok && c.barrier() == comm::Status::OK;
          auto t0 = std::chrono::steady_clock::now();
          for (int i = 0; i < calls; ++i)
            if (once() != comm::Status::OK)
              ok = false;
          if (r == 0)
            seconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - t0)
                          .count();
          sent[r] = c.bytes_sent() / calls;
        });
        if (!ok) {
          std::printf("a collective failed\n");
          return 1;
        }
        // Bytes each rank receives per call: every other rank's buffer.
        const double received = double(bytes) * (ranks - 1);
        std::vector<uint8_t> src(static_cast<size_t>(received), 1);
        std::vector<uint8_t> dst(src.size());
        const double copy_ns = wsp_bench::median_ns([&] {
          std::memcpy(dst.data(), src.data(), src.size());
          wsp_bench::sink = dst[src.size() / 2];
        });
        const double per_call = seconds / calls;
        // all_reduce in shared memory: a reduce-scatter and an all_gather,
        // 2 (ranks - 1) / ranks of the buffer (the ring's minimum).
        const uint64_t formula =
            reduce ? 2 * uint64_t(ranks - 1) * bytes / uint64_t(ranks)
                   : uint64_t(ranks - 1) * bytes;
        std::printf("%d ranks %-10s %7zu B: %8.2f us/call, received %6.2f "
                    "GB/s, memcpy %6.2f GB/s (ratio %.3f); sent per rank "
                    "%zu B = %s x %zu B: %s\n",
                    ranks, reduce ? "all_reduce" : "all_gather", bytes,
                    per_call * 1e6, received / per_call / 1e9,
                    received / copy_ns, copy_ns * 1e-9 / per_call,
                    size_t(sent[0]),
                    reduce ? "2 (ranks - 1) / ranks" : "(ranks - 1)", bytes,
                    sent[0] == formula ? "yes" : "NO");
      }
  return 0;
}
