// pto/runtime/collectives_mpi.hpp when the ranks do not make the same calls:
// a rank that leaves (finalizes MPI, or destroys its communicator) while the
// others wait in a collective, or before they make it, and a rank that makes
// one call more than the others. The others' calls return PEER_LOST, as
// in-process when a rank's thread ends, with nothing written, and every
// process ends by itself. ctest starts one scenario per entry under
// `timeout ... mpirun -np N` (label mpi): a hang fails the entry at the
// timeout instead of holding CI.
//
// Usage (one process per rank): collectives-mpi-leave-test SCENARIO
//   finalize-while-waiting  the last rank calls MPI_Finalize while the
//                           others wait in an all_reduce
//   finalize-before-call    the last rank calls MPI_Finalize before the
//                           others make the all_reduce
//   destroy-while-waiting   the last rank destroys its communicator while
//                           the others wait, then meets them in an
//                           MPI_Barrier (leaving does not block it)
//   finalize-in-group       the last rank calls MPI_Finalize while the
//                           others wait in an all_reduce of a rank group
//   extra-call              rank 0 makes one all_gather more than the others,
//                           which then call MPI_Finalize
//   extra-call-destroy      the same, the others destroying their
//                           communicator first
//   normal                  every rank the same calls, on communicators
//                           created and destroyed one after another and two
//                           alive at once: all OK
// Each process prints what it checked and exits 1 when a check failed.
#include <pto/runtime/collectives_mpi.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace pto::runtime::comm;

namespace {
int g_rank = -1;
int g_failed = 0;

void expect(bool ok, const char *what) {
  std::printf("rank %d: %s: %s\n", g_rank, what, ok ? "ok" : "FAILED");
  std::fflush(stdout);
  if (!ok)
    ++g_failed;
}

void pause_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

/// An all_reduce (sum of int32) every rank makes alike: OK, the sum.
void reduce_ok(Communicator &c, const char *what) {
  int32_t v = c.rank() + 1;
  const Status s = c.all_reduce(&v, 1, ElemType::I32, ReduceOp::Sum);
  expect(s == Status::OK && v == c.size() * (c.size() + 1) / 2, what);
}

/// A call the peers never join: PEER_LOST, the buffer as it was, and the
/// group broken from then on (the next call returns PEER_LOST at once).
void lost(Communicator &c) {
  std::vector<int32_t> buf(64, 7);
  const Status s = c.all_reduce(buf.data(), buf.size(), ElemType::I32,
                                ReduceOp::Sum);
  std::printf("rank %d: all_reduce returned %s\n", g_rank, to_string(s));
  expect(s == Status::PEER_LOST, "all_reduce without the peers: PEER_LOST");
  bool untouched = true;
  for (int32_t x : buf)
    untouched = untouched && x == 7;
  expect(untouched, "nothing written");
  expect(c.barrier() == Status::PEER_LOST, "the next call: PEER_LOST");
}

/// The extra call: an all_gather into a buffer that must stay as it was.
void extra_gather(Communicator &c) {
  std::vector<uint8_t> send(100, uint8_t(c.rank())),
      recv(100 * size_t(c.size()), 0xee);
  const Status s = c.all_gather(send.data(), recv.data(), send.size());
  std::printf("rank %d: the extra all_gather returned %s\n", g_rank,
              to_string(s));
  expect(s == Status::PEER_LOST, "the extra all_gather: PEER_LOST");
  bool untouched = true;
  for (uint8_t x : recv)
    untouched = untouched && x == 0xee;
  expect(untouched, "nothing written");
}

int run(const std::string &scenario) {
  auto world = std::make_unique<MpiCommunicator>();
  const int last = world->size() - 1;
  const bool leaver = world->rank() == last;
  reduce_ok(*world, "an all_reduce every rank makes");

  if (scenario == "finalize-while-waiting" ||
      scenario == "finalize-before-call") {
    const bool first = scenario == "finalize-before-call";
    if (leaver) {
      if (!first)
        pause_ms(300); // the others are waiting by now
      MPI_Finalize();
      expect(true, "finalized with its communicator alive");
      return 0; // the communicator is destroyed after MPI_Finalize
    }
    if (first)
      pause_ms(300); // the last rank has left by now
    lost(*world);
  } else if (scenario == "finalize-in-group") {
    // A rank group of every rank (the grid [n], along its axis): the last
    // rank finalizes while the others wait in the group's all_reduce.
    const int64_t shape = world->size();
    const int16_t axis = 0;
    Communicator *group = nullptr;
    expect(world->along(&shape, 1, &axis, 1, group) == Status::OK,
           "a rank group along the grid's axis");
    if (!group)
      return 1;
    reduce_ok(*group, "an all_reduce in the group every rank makes");
    if (leaver) {
      pause_ms(300);
      MPI_Finalize();
      expect(true, "finalized with its group alive");
      return 0;
    }
    lost(*group);
  } else if (scenario == "destroy-while-waiting") {
    if (leaver) {
      pause_ms(300);
      world.reset();
      expect(true, "destroyed its communicator");
    } else {
      lost(*world);
    }
    // Every process still meets the others over MPI.
    expect(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS,
           "MPI_Barrier after the communicator's end");
  } else if (scenario == "extra-call" || scenario == "extra-call-destroy") {
    reduce_ok(*world, "a second all_reduce every rank makes");
    if (world->rank() == 0) {
      extra_gather(*world);
    } else if (scenario == "extra-call-destroy") {
      world.reset();
      expect(true, "destroyed its communicator");
    }
  } else if (scenario == "normal") {
    // Two communicators alive at once (the world and each half of it),
    // then one destroyed and a new one over the world: no message of one
    // reaches another.
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, world->rank() % 2, world->rank(), &half);
    {
      MpiCommunicator h(half);
      for (int i = 0; i < 3; ++i) {
        reduce_ok(h, "all_reduce on half the ranks");
        reduce_ok(*world, "all_reduce on the world");
      }
      expect(h.barrier() == Status::OK, "barrier on half the ranks");
    }
    MPI_Comm_free(&half);
    world.reset();
    MpiCommunicator again;
    for (int i = 0; i < 3; ++i)
      reduce_ok(again, "all_reduce on a new communicator over the world");
    std::vector<uint8_t> send(1000, uint8_t(again.rank())),
        recv(1000 * size_t(again.size()));
    bool gathered =
        again.all_gather(send.data(), recv.data(), send.size()) == Status::OK;
    for (size_t i = 0; i < recv.size(); ++i)
      gathered = gathered && recv[i] == uint8_t(i / 1000);
    expect(gathered, "all_gather on the new communicator");
    expect(again.barrier() == Status::OK, "barrier on the new communicator");
  } else {
    std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
    return 2;
  }
  MPI_Finalize();
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int rc = run(argv[1]);
  std::printf("rank %d: %s: %s\n", g_rank, argv[1],
              rc || g_failed ? "FAILED" : "passed");
  return rc ? rc : g_failed ? 1 : 0;
}
