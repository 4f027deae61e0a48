// The MPI collectives (pto/runtime/collectives_mpi.hpp, MpiCommunicator),
// run under `mpirun -np N` (one process per rank): per call, barrier (the
// header exchange alone), a decode step's tensor-parallel all_reduce (16
// tokens x hidden 256, bf16: 8 KiB) and a 1 MiB one, and all_gather and
// all_to_all (blocks of that size to each rank) of the same sizes. Beside each,
// in the same run and interleaved with it (the machine is shared: a sample of
// each form in turn, the median of each):
// - "blocking": the backend as it was before it detected ranks that leave
//   (issue 45): the headers exchanged by one MPI_Allgather, which waits
//   forever for a rank that is gone; the bytes moved the same way. Its
//   ratio is what the leave-aware header exchange costs;
// - "MPI": the bare MPI call on the same bytes with no header at all
//   (MPI_Barrier, MPI_Allgather, MPI_Alltoall; for all_reduce Open MPI's
//   MPI_Allreduce
//   of the bf16 values with a user operation that takes their max in
//   float, as the backend's combination does): what agreeing on each call
//   and the backend's own movement cost. Goal (issue 43): all_reduce,
//   all_gather and all_to_all within 1.2x of Open MPI's.
// Then the bytes each rank sent per all_reduce against the least an
// all_reduce moves, 2 (n - 1) / n of the buffer (docs/rationale/
// Sharding.md).
//
// Usage: mpirun -np N bench-collectives-mpi [calls per sample >= 1]
#include <pto/runtime/collectives_mpi.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace comm = pto::runtime::comm;

namespace {

/// The backend before issue 45's finding 6: every call's headers by one
/// MPI_Allgather on the program's communicator.
class BlockingMpiCommunicator final : public comm::Communicator {
public:
  explicit BlockingMpiCommunicator(MPI_Comm c) : comm_(c) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

protected:
  comm::Status exchange(const comm::CallHeader &mine,
                        std::vector<comm::CallHeader> &all) override {
    all.resize(size_t(size_));
    return check(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(),
                               sizeof mine, MPI_BYTE, comm_));
  }
  comm::Status backend_all_gather(const void *send, void *recv,
                                  size_t bytes) override {
    return check(MPI_Allgather(send, int(bytes), MPI_BYTE, recv, int(bytes),
                               MPI_BYTE, comm_));
  }
  comm::Status backend_all_to_all(const void *send, void *recv,
                                  size_t bytes) override {
    return check(MPI_Alltoall(send, int(bytes), MPI_BYTE, recv, int(bytes),
                              MPI_BYTE, comm_));
  }
  comm::Status backend_broadcast(void *buf, size_t bytes, int root) override {
    return check(MPI_Bcast(buf, int(bytes), MPI_BYTE, root, comm_));
  }

private:
  static comm::Status check(int rc) {
    return rc == MPI_SUCCESS ? comm::Status::OK : comm::Status::PEER_LOST;
  }
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

/// Seconds per call of `once` over `calls` calls, every rank in step.
double sample(const std::function<bool()> &once, int calls, bool &ok) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < calls; ++i)
    ok = once() && ok;
  double t = (MPI_Wtime() - t0) / calls;
  // The slowest rank's time: a collective ends when its last rank does.
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

/// The bf16 max of MPI_Allreduce's user operation: each element in float,
/// the larger kept (the values are bf16, so the result is exact).
void bf16Max(void *in, void *inout, int *len, MPI_Datatype *) {
  const uint16_t *a = static_cast<const uint16_t *>(in);
  uint16_t *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *len; ++i) {
    const float x = pto::runtime::bf16_to_f32(pto::runtime::bf16{a[i]});
    const float y = pto::runtime::bf16_to_f32(pto::runtime::bf16{b[i]});
    if (x > y)
      b[i] = a[i];
  }
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  if (argc > 2 || calls < 1) {
    if (rank == 0)
      std::fprintf(stderr, "usage: %s [calls per sample >= 1]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  constexpr int kSamples = 9;
  bool ok = true;
  {
    comm::MpiCommunicator now;
    BlockingMpiCommunicator before(MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("MPI collectives, %d processes, %d calls per sample, "
                  "median of %d samples (each the slowest rank's); ratios "
                  "in this run\n",
                  ranks, calls, kSamples);
    enum Op { Barrier, AllReduce, AllGather, AllToAll };
    struct Case {
      Op op;
      size_t bytes;
    };
    const std::vector<Case> cases = {{Barrier, 0},
                                     {AllReduce, size_t(8) << 10},
                                     {AllGather, size_t(8) << 10},
                                     {AllToAll, size_t(8) << 10},
                                     {AllReduce, size_t(1) << 20},
                                     {AllGather, size_t(1) << 20},
                                     {AllToAll, size_t(1) << 20}};
    MPI_Op max_op;
    MPI_Op_create(bf16Max, /*commute=*/1, &max_op);
    for (const Case &k : cases) {
      // all_to_all sends a block of k.bytes to each rank.
      std::vector<uint8_t> send(k.op == AllToAll ? k.bytes * size_t(ranks)
                                                 : k.bytes,
                                uint8_t(rank + 1)),
          recv(k.bytes * size_t(ranks)), reduced(k.bytes, uint8_t(rank + 1));
      auto call = [&](comm::Communicator &c) {
        switch (k.op) {
        case Barrier:
          return c.barrier() == comm::Status::OK;
        case AllReduce:
          return c.all_reduce(send.data(), k.bytes / 2, comm::ElemType::BF16,
                              comm::ReduceOp::Max) == comm::Status::OK;
        case AllGather:
          return c.all_gather(send.data(), recv.data(), k.bytes) ==
                 comm::Status::OK;
        case AllToAll:
          return c.all_to_all(send.data(), recv.data(), k.bytes) ==
                 comm::Status::OK;
        }
        return false;
      };
      auto bare = [&] {
        return (k.op == Barrier ? MPI_Barrier(MPI_COMM_WORLD)
                : k.op == AllReduce
                    ? MPI_Allreduce(MPI_IN_PLACE, reduced.data(),
                                    int(k.bytes / 2), MPI_UINT16_T, max_op,
                                    MPI_COMM_WORLD)
                : k.op == AllToAll
                    ? MPI_Alltoall(send.data(), int(k.bytes), MPI_BYTE,
                                   recv.data(), int(k.bytes), MPI_BYTE,
                                   MPI_COMM_WORLD)
                    : MPI_Allgather(send.data(), int(k.bytes), MPI_BYTE,
                                    recv.data(), int(k.bytes), MPI_BYTE,
                                    MPI_COMM_WORLD)) == MPI_SUCCESS;
      };
      std::vector<double> t_now, t_before, t_bare;
      sample([&] { return call(now); }, calls, ok); // warm up
      for (int s = 0; s < kSamples; ++s) {
        t_now.push_back(sample([&] { return call(now); }, calls, ok));
        t_before.push_back(sample([&] { return call(before); }, calls, ok));
        t_bare.push_back(sample(bare, calls, ok));
      }
      const double a = median(t_now), b = median(t_before), m = median(t_bare);
      if (rank == 0) {
        std::printf("%d ranks %-10s %7zu B: %8.2f us/call; blocking %8.2f us "
                    "(now / blocking %.3f); bare MPI %8.2f us (now / bare "
                    "%.3f)\n",
                    ranks,
                    k.op == Barrier     ? "barrier"
                    : k.op == AllReduce ? "all_reduce"
                    : k.op == AllToAll  ? "all_to_all"
                                        : "all_gather",
                    k.bytes, a * 1e6, b * 1e6, a / b, m * 1e6, a / m);
        if (k.op != Barrier)
          std::printf("  goal: within 1.2x of Open MPI's %s: %.2fx, %s\n",
                      k.op == AllReduce  ? "MPI_Allreduce"
                      : k.op == AllToAll ? "MPI_Alltoall"
                                         : "MPI_Allgather",
                      a / m, a / m <= 1.2 ? "met" : "NOT met");
      }
    }
    MPI_Op_free(&max_op);
    // Bytes this rank sent per all_reduce of 1 MiB, against the least.
    std::vector<uint8_t> buf(size_t(1) << 20, uint8_t(rank + 1));
    now.reset_bytes_sent();
    ok = now.all_reduce(buf.data(), buf.size() / 2, comm::ElemType::BF16,
                        comm::ReduceOp::Max) == comm::Status::OK &&
         ok;
    const double least = 2.0 * (ranks - 1) / ranks * double(buf.size());
    if (rank == 0)
      std::printf("all_reduce of %zu B: %llu bytes sent per rank, the least "
                  "%.0f (2 (n - 1) / n of the buffer): %.2fx\n",
                  buf.size(), (unsigned long long)now.bytes_sent(), least,
                  least > 0 ? double(now.bytes_sent()) / least : 1.0);
  }
  MPI_Finalize();
  if (!ok && rank == 0)
    std::printf("a collective failed\n");
  return ok ? 0 : 1;
}
