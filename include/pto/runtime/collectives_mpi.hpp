// pto/runtime/collectives_mpi.hpp - the MPI backend of pto/runtime/
// collectives.hpp: one process per rank (`mpirun -np N`), over the MPI
// library the program links (Debian's Open MPI here). The only runtime
// header that includes <mpi.h>; the interface, the argument checks and
// all_reduce's rank-order combination are collectives.hpp's, so a sharded
// step gives the same bits here as in-process.
//
// The communicator does not initialize MPI: the program calls MPI_Init
// (and MPI_Finalize) as MPI programs do. MPI errors on the communicator
// are made to return (MPI_ERRORS_RETURN) and surface as PEER_LOST.
// Per-rank sizes above INT_MAX bytes, which MPI's int counts cannot carry
// in one call, are INVALID_PARAMS.
#ifndef PTO_RUNTIME_COLLECTIVES_MPI_HPP
#define PTO_RUNTIME_COLLECTIVES_MPI_HPP

#include "pto/runtime/collectives.hpp"

#include <climits>
#include <mpi.h>

namespace pto {
namespace runtime {
namespace comm {

class MpiCommunicator final : public Communicator {
public:
  explicit MpiCommunicator(MPI_Comm comm = MPI_COMM_WORLD) : comm_(comm) {
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

protected:
  Status exchange(const CallHeader &mine,
                  std::vector<CallHeader> &all) override {
    if (broken_)
      return Status::PEER_LOST;
    all.resize(size_);
    return check(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(),
                               sizeof mine, MPI_BYTE, comm_));
  }
  Status backend_all_gather(const void *send, void *recv,
                            size_t bytes) override {
    if (bytes > INT_MAX)
      return Status::INVALID_PARAMS;
    return check(MPI_Allgather(send, int(bytes), MPI_BYTE, recv, int(bytes),
                               MPI_BYTE, comm_));
  }
  Status backend_all_to_all(const void *send, void *recv,
                            size_t bytes) override {
    if (bytes > INT_MAX)
      return Status::INVALID_PARAMS;
    return check(MPI_Alltoall(send, int(bytes), MPI_BYTE, recv, int(bytes),
                              MPI_BYTE, comm_));
  }
  Status backend_broadcast(void *buf, size_t bytes, int root) override {
    if (bytes > INT_MAX)
      return Status::INVALID_PARAMS;
    return check(MPI_Bcast(buf, int(bytes), MPI_BYTE, root, comm_));
  }

private:
  Status check(int rc) {
    if (rc == MPI_SUCCESS)
      return Status::OK;
    broken_ = true;
    return Status::PEER_LOST;
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  bool broken_ = false;
};

} // namespace comm
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_COLLECTIVES_MPI_HPP
