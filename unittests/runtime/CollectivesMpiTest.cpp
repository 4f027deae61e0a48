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
TEST(CollectivesMpi, BadArgumentsWriteNothing) {
  collective_cases::bad_arguments(world());
}
TEST(CollectivesMpi, AllGatherAlongAnAxis) { collective_cases::all_gather_axis(world()); }
TEST(CollectivesMpi, AllToAllBetweenAxes) { collective_cases::all_to_all_axes(world()); }
TEST(CollectivesMpi, AllSliceAlongAnAxis) { collective_cases::all_slice_axis(world()); }
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
