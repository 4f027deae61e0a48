// pto/runtime/collectives.hpp's in-process backend: the shared cases
// (CollectiveCases.h) on 1, 2, 3, 4 and 8 ranks as threads, and what only a
// thread group can show here: a rank that leaves or throws while the others
// wait ends in PEER_LOST, not a hang.
#include "CollectiveCases.h"

#include <atomic>
#include <cstring>
#include <stdexcept>

using namespace pto::runtime::comm;

namespace {
void on_ranks(void (*body)(Communicator &)) {
  for (int n : {1, 2, 3, 4, 8}) {
    SCOPED_TRACE(testing::Message() << n << " ranks");
    ThreadGroup(n).run([&](Communicator &c) {
      EXPECT_EQ(c.size(), n);
      body(c);
    });
  }
}
} // namespace

TEST(Collectives, AllGather) { on_ranks(collective_cases::all_gather); }
TEST(Collectives, AllToAll) { on_ranks(collective_cases::all_to_all); }
TEST(Collectives, Broadcast) { on_ranks(collective_cases::broadcast); }
TEST(Collectives, AllReduceInRankOrder) {
  on_ranks(collective_cases::all_reduce);
}
// In one process, all_reduce is a reduce-scatter and an all_gather in
// shared memory: each rank's share of the traffic is 2 (n - 1) / n of the
// buffer (the ring's), not the gathering form's (n - 1) x.
TEST(Collectives, InProcessAllReduceMovesTheRingsBytes) {
  for (int n : {2, 3, 4}) {
    SCOPED_TRACE(testing::Message() << n << " ranks");
    ThreadGroup(n).run([&](Communicator &c) {
      std::vector<float> v(3000, float(c.rank()));
      c.reset_bytes_sent();
      ASSERT_EQ(c.all_reduce(v.data(), v.size(), ElemType::F32,
                             ReduceOp::Sum),
                Status::OK);
      EXPECT_EQ(c.bytes_sent(), 2 * uint64_t(n - 1) * 12000 / uint64_t(n));
      EXPECT_EQ(v[0], float(n * (n - 1) / 2));
      EXPECT_EQ(v[2999], float(n * (n - 1) / 2));
    });
  }
}

TEST(Collectives, BadArgumentsWriteNothing) {
  on_ranks(collective_cases::bad_arguments);
}
TEST(Collectives, AllGatherAlongAnAxis) { on_ranks(collective_cases::all_gather_axis); }
TEST(Collectives, AllToAllBetweenAxes) { on_ranks(collective_cases::all_to_all_axes); }
TEST(Collectives, AllSliceAlongAnAxis) { on_ranks(collective_cases::all_slice_axis); }
TEST(Collectives, BadAxisArgumentsWriteNothing) { on_ranks(collective_cases::bad_axis_arguments); }

TEST(Collectives, RankGroups) { on_ranks(collective_cases::groups); }

// A rank that leaves while its group's members wait in the group: they get
// PEER_LOST, as in the whole group, and so does the other group's call on
// the whole grid afterwards.
TEST(Collectives, ARankThatLeavesIsLostToItsGroups) {
  std::vector<Status> in_group(4, Status::OK), after(4, Status::OK);
  ThreadGroup(4).run([&](Communicator &c) {
    const int64_t shape[2] = {2, 2};
    const int16_t axis = 1;
    Communicator *g = nullptr;
    ASSERT_EQ(c.along(shape, 2, &axis, 1, g), Status::OK);
    if (c.rank() == 3)
      return; // group {2, 3} loses its rank 1
    int32_t v = 1;
    in_group[c.rank()] = g->all_reduce(&v, 1, ElemType::I32, ReduceOp::Sum);
    after[c.rank()] = c.barrier();
  });
  EXPECT_EQ(in_group[0], Status::OK);
  EXPECT_EQ(in_group[1], Status::OK);
  EXPECT_EQ(in_group[2], Status::PEER_LOST);
  for (int r : {0, 1, 2})
    EXPECT_EQ(after[r], Status::PEER_LOST) << r;
}

TEST(Collectives, RanksAreDistinct) {
  std::atomic<int> seen{0};
  ThreadGroup(5).run([&](Communicator &c) { seen |= 1 << c.rank(); });
  EXPECT_EQ(seen.load(), 0x1f);
}

// Rank 1 returns before the second barrier: ranks 0 and 2 get PEER_LOST
// there, and from then on, at once.
TEST(Collectives, ARankThatLeavesIsReportedNotWaitedFor) {
  std::vector<Status> second(3, Status::OK), third(3, Status::OK);
  ThreadGroup(3).run([&](Communicator &c) {
    EXPECT_EQ(c.barrier(), Status::OK);
    if (c.rank() == 1)
      return;
    second[c.rank()] = c.barrier();
    uint8_t b = 0;
    third[c.rank()] = c.broadcast(&b, 1, 0);
  });
  EXPECT_EQ(second[0], Status::PEER_LOST);
  EXPECT_EQ(second[2], Status::PEER_LOST);
  EXPECT_EQ(third[0], Status::PEER_LOST);
  EXPECT_EQ(third[2], Status::PEER_LOST);
}

// An exception on a rank reaches the caller of run(), after the others
// have ended (they see PEER_LOST).
TEST(Collectives, AnExceptionOnARankIsRethrown) {
  std::vector<Status> got(2, Status::OK);
  EXPECT_THROW(ThreadGroup(2).run([&](Communicator &c) {
    if (c.rank() == 0)
      throw std::runtime_error("rank 0 failed");
    got[1] = c.barrier();
  }),
               std::runtime_error);
  EXPECT_EQ(got[1], Status::PEER_LOST);
}

// current(): each rank's thread sees its own communicator inside run(), a
// rank alone outside it (where the shared cases hold too), and a scope
// restores what it replaced.
// A group sharing memory moves its bytes with the GatherFn the rank's
// thread installed (GatherScope; the device form's is pto-isa's TGATHER):
// every shared case passes through one that copies the pieces last to
// first, and that one moved the bytes of every collective that moves any.
namespace {
std::atomic<int> g_pieces_moved{0};
void copy_last_first(const void *const *sends, void *recv, uint64_t bytes,
                     int32_t pieces, int32_t self) {
  EXPECT_TRUE(self >= 0 && self < pieces);
  for (int32_t p = pieces - 1; p >= 0; --p)
    std::memcpy(static_cast<uint8_t *>(recv) + size_t(p) * bytes, sends[p],
                bytes);
  g_pieces_moved += pieces;
}
} // namespace

TEST(Collectives, AGatherFnMovesTheBytes) {
  for (void (*body)(Communicator &) :
       {collective_cases::all_gather, collective_cases::all_to_all,
        collective_cases::broadcast, collective_cases::all_reduce,
        collective_cases::all_gather_axis, collective_cases::all_to_all_axes,
        collective_cases::bad_arguments}) {
    g_pieces_moved = 0;
    ThreadGroup(3).run([&](Communicator &c) {
      GatherScope scope(&copy_last_first);
      body(c);
    });
    if (body != collective_cases::bad_arguments) {
      EXPECT_GT(g_pieces_moved.load(), 0);
    }
  }
  // Outside the scope the copy is the default again.
  g_pieces_moved = 0;
  ThreadGroup(2).run(collective_cases::all_gather);
  EXPECT_EQ(g_pieces_moved.load(), 0);
}

TEST(Collectives, CurrentIsTheCallingRanks) {
  EXPECT_EQ(current().size(), 1);
  EXPECT_EQ(current().rank(), 0);
  collective_cases::all_gather(current());
  collective_cases::all_to_all(current());
  collective_cases::broadcast(current());
  collective_cases::all_reduce(current());
  collective_cases::bad_arguments(current());
  ThreadGroup(3).run([&](Communicator &c) {
    EXPECT_EQ(&current(), &c);
    EXPECT_EQ(current().rank(), c.rank());
    EXPECT_EQ(current().size(), 3);
  });
  EXPECT_EQ(current().size(), 1);
  SoloCommunicator other;
  {
    CurrentCommunicator scope(other);
    EXPECT_EQ(&current(), &other);
  }
  EXPECT_NE(&current(), &other);
}
