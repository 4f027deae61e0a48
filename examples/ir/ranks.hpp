// What the self-checks of programs with collectives share: running a check
// on every rank of a run (threads of one process, pto::runtime::comm::
// ThreadGroup, or this process's rank alone when mpirun started it and the
// build has MPI: WSP_WITH_MPI), and their main(): the rank counts
// `wspc --run --ranks N` asks for (rankCounts), or one MPI run.
#ifndef WSP_EXAMPLES_RANKS_HPP
#define WSP_EXAMPLES_RANKS_HPP

#include "selfcheck.hpp"

#include <pto/runtime/collectives.hpp>
#ifdef WSP_WITH_MPI
#include <pto/runtime/collectives_mpi.hpp>
#endif

#include <functional>

namespace selfcheck {

namespace comm = pto::runtime::comm;

/// The ranks of one run: `count` threads, or (MPI, `world` set) this
/// process's rank alone of world->size().
struct Ranks {
  int64_t count;
  comm::Communicator *world = nullptr;

  /// Runs body(rank) on every rank this process runs.
  void run(const std::function<void(int)> &body) {
    if (world) {
      body(world->rank());
      return;
    }
    comm::ThreadGroup(int(count)).run([&](comm::Communicator &c) {
      body(c.rank());
    });
  }
  /// Whether `ok` holds on every rank (MPI: all processes agree).
  bool all(bool ok) {
    if (!world)
      return ok;
    int32_t mine = ok ? 1 : 0;
    return world->all_reduce(&mine, 1, comm::ElemType::I32,
                             comm::ReduceOp::Min) == comm::Status::OK &&
           mine == 1;
  }
  /// Whether this process holds rank r's results.
  bool local(int64_t r) const { return !world || world->rank() == r; }
};

/// A self-check's main(): checkAll(ranks) on every count of
/// rankCounts(defaults), as threads; under mpirun (with MPI), once on the
/// processes. The exit status is 1 when a check failed anywhere.
inline int runOnRanks(int argc, char **argv, std::vector<int64_t> defaults,
                      const std::function<bool(Ranks &)> &checkAll) {
#ifdef WSP_WITH_MPI
  // Started by mpirun: this process is one rank of the run.
  if (std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE")) {
    MPI_Init(&argc, &argv);
    bool ok = false;
    {
      comm::MpiCommunicator world;
      comm::CurrentCommunicator scope(world);
      Ranks ranks{world.size(), &world};
      ok = checkAll(ranks);
    }
    MPI_Finalize();
    return ok ? 0 : 1;
  }
#endif
  (void)argc;
  (void)argv;
  const std::vector<int64_t> counts = rankCounts(std::move(defaults));
  bool ok = !counts.empty();
  for (int64_t count : counts) {
    Ranks ranks{count};
    ok = checkAll(ranks) && ok;
  }
  return ok ? 0 : 1;
}

} // namespace selfcheck

#endif // WSP_EXAMPLES_RANKS_HPP
