// pto/runtime/collectives_mpi.hpp: the shared cases (CollectiveCases.h)
// over MPI, one process per rank. ctest runs it under `mpirun -np 2` and
// `-np 4` (label mpi). Every process runs the cases in the same order; the
// exit status of every process is 1 when a case failed on any rank.
#include "CollectiveCases.h"

#include <pto/runtime/collectives_mpi.hpp>

using namespace pto::runtime::comm;

namespace {
Communicator &world() {
  static MpiCommunicator comm;
  return comm;
}
} // namespace

TEST(CollectivesMpi, AllGather) { collective_cases::all_gather(world()); }
TEST(CollectivesMpi, AllToAll) { collective_cases::all_to_all(world()); }
TEST(CollectivesMpi, Broadcast) { collective_cases::broadcast(world()); }
TEST(CollectivesMpi, AllReduceInRankOrder) {
  collective_cases::all_reduce(world());
}
// Over MPI, all_reduce is a reduce-scatter (one MPI_Alltoallv) and an
// all_gather (one MPI_Allgatherv): each rank sends 2 (n - 1) / n of the
// buffer, the least an all_reduce moves; a count the ranks do not divide
// (1001, 1 and 0 elements) gives the ranks slices of other sizes, some
// empty, and the same sums as the gathering form.
TEST(CollectivesMpi, AllReduceMovesTheLeastBytes) {
  Communicator &c = world();
  const int n = c.size();
  for (size_t count : {size_t(1001), size_t(1), size_t(0)}) {
    SCOPED_TRACE(testing::Message() << count << " elements");
    std::vector<float> v(count);
    for (size_t i = 0; i < count; ++i)
      v[i] = float(c.rank() + 1) * float(i % 7);
    c.reset_bytes_sent();
    ASSERT_EQ(c.all_reduce(v.data(), count, ElemType::F32, ReduceOp::Sum),
              Status::OK);
    EXPECT_EQ(c.bytes_sent(), 2 * uint64_t(n - 1) * (count * 4) / uint64_t(n));
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(v[i], float(n * (n + 1) / 2) * float(i % 7)) << i;
  }
}
TEST(CollectivesMpi, BadArgumentsWriteNothing) {
  collective_cases::bad_arguments(world());
}
TEST(CollectivesMpi, AllGatherAlongAnAxis) { collective_cases::all_gather_axis(world()); }
TEST(CollectivesMpi, AllToAllBetweenAxes) { collective_cases::all_to_all_axes(world()); }
TEST(CollectivesMpi, AllSliceAlongAnAxis) { collective_cases::all_slice_axis(world()); }
TEST(CollectivesMpi, RankGroups) { collective_cases::groups(world()); }
TEST(CollectivesMpi, BadAxisArgumentsWriteNothing) { collective_cases::bad_axis_arguments(world()); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any ? 1 : 0;
}
