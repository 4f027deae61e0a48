// pto/runtime/collectives_mpi.hpp - the MPI backend of pto/runtime/
// collectives.hpp: one process per rank (`mpirun -np N`), over the MPI
// library the program links (Debian's Open MPI here). The only runtime
// header that includes <mpi.h>; the interface, the argument checks and
// all_reduce's rank-order combination are collectives.hpp's, so a sharded
// step gives the same bits here as in-process.
//
// The communicator does not initialize MPI: the program calls MPI_Init
// (and MPI_Finalize) as MPI programs do. Constructing one is collective
// over its MPI communicator (it duplicates it: its messages never meet the
// program's). Per-rank sizes above INT_MAX bytes, which MPI's int counts
// cannot carry in one call, are INVALID_PARAMS.
//
// No hang when the ranks do not make the same calls. Each call's headers
// go from every rank to every other as one small message each (not an
// MPI_Allgather, which would wait forever for a rank that is gone), and a
// rank that leaves sends every peer one message instead of its next
// header: "left". A rank leaves when its communicator is destroyed or,
// with it alive, when it calls MPI_Finalize (an attribute on
// MPI_COMM_SELF, whose delete callback MPI runs first thing in
// MPI_Finalize). Messages between two ranks arrive in the order they were
// sent, so a rank waiting for a call's headers gets from each peer either
// that call's header or "left": a peer that left before making the call,
// or made one call fewer, is PEER_LOST there, as in-process when a rank's
// thread ends; nothing is written on any rank (the headers are agreed
// before any byte moves) and the group stays broken. Once every rank has
// every header of a call, all of them take part in its byte movement, so
// that is one blocking MPI collective as before. The common path adds no
// round trip: the headers were one exchange and still are.
//
// MPI_Finalize (the callback) first sends "left" on every communicator of
// the process still alive, then receives on each, from every peer, what
// it sent and no call took (down to its "left"), and frees the duplicates:
// MPI requires every message to be received before MPI_Finalize, and
// Open MPI's MPI_Finalize waits for every process anyway. Destroying a
// communicator does not wait: it sends "left" and leaves the rest to
// MPI_Finalize. A process that dies without MPI_Finalize is Open MPI's to
// report: mpirun ends the job. MPI errors on the communicator return
// (MPI_ERRORS_RETURN) and surface as PEER_LOST. One thread per process
// calls the communicators (MPI_THREAD_SINGLE or FUNNELED).
#ifndef PTO_RUNTIME_COLLECTIVES_MPI_HPP
#define PTO_RUNTIME_COLLECTIVES_MPI_HPP

#include "pto/runtime/collectives.hpp"

#include <climits>
#include <cstdint>
#include <memory>
#include <mpi.h>
#include <vector>

namespace pto {
namespace runtime {
namespace comm {

namespace detail {

/// What one rank sends each peer per call: the call's header and the
/// call's number on the communicator (from 1), or, in place of its next
/// header, that it has left. The numbers agree by the order of delivery;
/// one that does not (a message this protocol did not send) is PEER_LOST
/// rather than trusted.
struct MpiMessage {
  CallHeader call;
  uint64_t seq = 0;
  uint32_t left = 0;
  uint32_t reserved = 0;
};

/// One MpiCommunicator's duplicate of its MPI communicator and what its
/// messages need: kept by the process's list until MPI_Finalize drains and
/// frees it, so a communicator's end does not wait for its peers.
class MpiChannel {
public:
  static constexpr int kTag = 0x5750; // the headers' tag on the duplicate

  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  uint64_t seq = 0;            // calls whose header this rank sent
  std::vector<char> peer_left; // by rank: its "left" was received
  bool left = false;           // this rank sent its "left"
  bool freed = false;          // MPI_Finalize drained and freed `comm`
  // This rank's header of the call being made: here, not in the
  // communicator, because a broken call's sends may still read it after
  // the communicator's end.
  MpiMessage out;

  /// Sends every peer "left" in place of the next header; not waited for.
  void leave() {
    if (left || freed || comm == MPI_COMM_NULL)
      return;
    left = true;
    bye_.seq = seq + 1;
    bye_.left = 1;
    for (int p = 0; p < size; ++p)
      if (p != rank) {
        MPI_Request r;
        if (MPI_Isend(&bye_, sizeof bye_, MPI_BYTE, p, kTag, comm, &r) ==
            MPI_SUCCESS)
          pending_.push_back(r);
      }
  }

  /// A send to wait for before the duplicate is freed.
  void keep(MPI_Request r) { pending_.push_back(r); }

  /// After every channel of the process left: receives from each peer
  /// whose "left" has not arrived what it sent, down to its "left" (the
  /// headers of calls this rank never made, a broken call's), completes
  /// this rank's sends and frees the duplicate.
  void drain_and_free() {
    if (freed || comm == MPI_COMM_NULL)
      return;
    for (int p = 0; p < size; ++p)
      while (p != rank && !peer_left[p]) {
        MpiMessage m;
        if (MPI_Recv(&m, sizeof m, MPI_BYTE, p, kTag, comm,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
          break;
        peer_left[p] = m.left != 0;
      }
    if (!pending_.empty())
      MPI_Waitall(int(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
    pending_.clear();
    MPI_Comm_free(&comm);
    freed = true;
  }

private:
  MpiMessage bye_;
  std::vector<MPI_Request> pending_;
};

/// The process's channels, and the MPI_COMM_SELF attribute whose delete
/// callback MPI_Finalize runs before it tears anything down.
struct MpiChannels {
  std::vector<std::shared_ptr<MpiChannel>> open;
  int keyval = MPI_KEYVAL_INVALID;

  static MpiChannels &get() {
    static MpiChannels channels;
    return channels;
  }

  /// Every "left" first, then the drains: a peer still waiting in a call
  /// on one communicator is released before this rank waits on another.
  static int on_finalize(MPI_Comm, int, void *, void *) {
    MpiChannels &all = get();
    for (auto &c : all.open)
      c->leave();
    for (auto &c : all.open)
      c->drain_and_free();
    all.open.clear();
    return MPI_SUCCESS;
  }

  void add(std::shared_ptr<MpiChannel> c) {
    if (keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &MpiChannels::on_finalize,
                               &keyval, nullptr) == MPI_SUCCESS)
      MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    open.push_back(std::move(c));
  }
};

} // namespace detail

class MpiCommunicator final : public Communicator {
public:
  /// Collective over `comm`: every rank of it constructs one.
  explicit MpiCommunicator(MPI_Comm comm = MPI_COMM_WORLD)
      : ch_(std::make_shared<detail::MpiChannel>()) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    ch_->rank = rank_;
    ch_->size = size_;
    ch_->peer_left.assign(size_t(size_), 0);
    if (MPI_Comm_dup(comm, &ch_->comm) != MPI_SUCCESS) {
      ch_->comm = MPI_COMM_NULL;
      broken_ = true;
      return;
    }
    MPI_Comm_set_errhandler(ch_->comm, MPI_ERRORS_RETURN);
    detail::MpiChannels::get().add(ch_);
    in_.resize(size_t(size_));
    reqs_.resize(2 * size_t(size_));
  }
  /// Leaves: the peers' calls from now on return PEER_LOST. Does not wait.
  ~MpiCommunicator() override {
    int finalized = 1;
    MPI_Finalized(&finalized);
    if (!finalized)
      ch_->leave();
  }
  MpiCommunicator(const MpiCommunicator &) = delete;
  MpiCommunicator &operator=(const MpiCommunicator &) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

protected:
  /// Every rank's header, one message to each peer and one from each; a
  /// peer's "left" in place of its header is PEER_LOST at once.
  Status exchange(const CallHeader &mine,
                  std::vector<CallHeader> &all) override {
    if (broken_ || ch_->left || ch_->freed)
      return lose();
    all.resize(size_t(size_));
    all[size_t(rank_)] = mine;
    if (size_ == 1)
      return Status::OK;
    detail::MpiMessage &out = ch_->out;
    out.call = mine;
    out.seq = ++ch_->seq;
    out.left = 0;
    // Receives first (the requests [0, size)), then sends ([size, 2 size)).
    for (int p = 0; p < size_; ++p) {
      reqs_[size_t(p)] = reqs_[size_t(size_ + p)] = MPI_REQUEST_NULL;
      if (p == rank_)
        continue;
      if (MPI_Irecv(&in_[size_t(p)], sizeof(detail::MpiMessage), MPI_BYTE, p,
                    detail::MpiChannel::kTag, ch_->comm,
                    &reqs_[size_t(p)]) != MPI_SUCCESS ||
          MPI_Isend(&out, sizeof out, MPI_BYTE, p, detail::MpiChannel::kTag,
                    ch_->comm, &reqs_[size_t(size_ + p)]) != MPI_SUCCESS)
        return abandon();
    }
    for (int waiting = size_ - 1; waiting > 0; --waiting) {
      int p = MPI_UNDEFINED;
      if (MPI_Waitany(size_, reqs_.data(), &p, MPI_STATUS_IGNORE) !=
              MPI_SUCCESS ||
          p == MPI_UNDEFINED || !take(p, all))
        return abandon();
    }
    if (MPI_Waitall(size_, reqs_.data() + size_, MPI_STATUSES_IGNORE) !=
        MPI_SUCCESS)
      return lose();
    return Status::OK;
  }
  Status backend_all_gather(const void *send, void *recv,
                            size_t bytes) override {
    if (bytes > INT_MAX)
      return Status::INVALID_PARAMS;
    return check(MPI_Allgather(send, int(bytes), MPI_BYTE, recv, int(bytes),
                               MPI_BYTE, ch_->comm));
  }
  Status backend_all_to_all(const void *send, void *recv,
                            size_t bytes) override {
    if (bytes > INT_MAX)
      return Status::INVALID_PARAMS;
    return check(MPI_Alltoall(send, int(bytes), MPI_BYTE, recv, int(bytes),
                              MPI_BYTE, ch_->comm));
  }
  Status backend_broadcast(void *buf, size_t bytes, int root) override {
    if (bytes > INT_MAX)
      return Status::INVALID_PARAMS;
    return check(MPI_Bcast(buf, int(bytes), MPI_BYTE, root, ch_->comm));
  }

  /// Reduce-scatter, then all_gather: rank r's slice [count r / n,
  /// count (r + 1) / n) of every rank's buffer goes to rank r (one
  /// MPI_Alltoallv), which combines the n pieces in rank order, as the
  /// gathering form combines every element (the same bits); then every
  /// rank's combined slice goes to every rank, into its buffer (one
  /// MPI_Allgatherv). Each rank sends 2 (n - 1) / n of the buffer, the
  /// least an all_reduce moves (docs/rationale/Sharding.md), and combines
  /// only its slice. Byte counts are MPI's ints: a buffer over INT_MAX
  /// bytes is INVALID_PARAMS, as the other calls' are.
  Status backend_all_reduce(void *buf, size_t count, ElemType type,
                            ReduceOp op) override {
    const size_t n = size_t(size_), elem = elem_bytes(type);
    if (count > size_t(INT_MAX) / elem)
      return Status::INVALID_PARAMS;
    if (n == 1)
      return Status::OK;
    counts_.resize(n);
    displs_.resize(n);
    for (size_t r = 0; r < n; ++r) {
      const size_t lo = count * r / n, hi = count * (r + 1) / n;
      counts_[r] = int((hi - lo) * elem);
      displs_[r] = int(lo * elem);
    }
    const size_t mine = size_t(counts_[size_t(rank_)]);
    pieces_.resize(mine * n);
    recv_counts_.assign(n, int(mine));
    recv_displs_.resize(n);
    for (size_t r = 0; r < n; ++r)
      recv_displs_[r] = int(r * mine);
    if (Status s = check(MPI_Alltoallv(
            buf, counts_.data(), displs_.data(), MPI_BYTE, pieces_.data(),
            recv_counts_.data(), recv_displs_.data(), MPI_BYTE, ch_->comm));
        s != Status::OK)
      return s;
    slice_.resize(mine);
    reduce_in_rank_order(slice_.data(), mine / elem, type, op, 0, [&](int r) {
      return pieces_.data() + size_t(r) * mine;
    });
    return check(MPI_Allgatherv(slice_.data(), int(mine), MPI_BYTE, buf,
                                counts_.data(), displs_.data(), MPI_BYTE,
                                ch_->comm));
  }
  /// The group by MPI_Comm_split of this communicator's duplicate (every
  /// rank calls it once the ranks agreed on the group, so none is missing),
  /// then a communicator of its own over it, with the same protocol.
  std::unique_ptr<Communicator> backend_group(const std::vector<int64_t> &,
                                              int color, int key,
                                              int members) override {
    MPI_Comm split = MPI_COMM_NULL;
    if (broken_ || ch_->left || ch_->freed ||
        MPI_Comm_split(ch_->comm, color, key, &split) != MPI_SUCCESS) {
      lose();
      return nullptr;
    }
    auto group = std::make_unique<MpiCommunicator>(split);
    MPI_Comm_free(&split);
    if (group->size() != members || group->rank() != key) {
      lose();
      return nullptr;
    }
    return group;
  }

  /// Rank r sends the others' slices of its buffer, then its combined
  /// slice to each: 2 (n - 1) / n of the buffer.
  uint64_t all_reduce_sent(size_t bytes) const override {
    const uint64_t n = uint64_t(size_);
    return 2 * (n - 1) * uint64_t(bytes) / n;
  }

private:
  /// Peer p's message of this call arrived: its header, or false when it
  /// is "left" (or not this call's).
  bool take(int p, std::vector<CallHeader> &all) {
    const detail::MpiMessage &m = in_[size_t(p)];
    if (m.left) {
      ch_->peer_left[size_t(p)] = 1;
      return false;
    }
    if (m.seq != ch_->seq)
      return false;
    all[size_t(p)] = m.call;
    return true;
  }

  /// A call that cannot complete: the receives still posted are cancelled
  /// (one that completed meanwhile is read, so a "left" is not lost), the
  /// sends left to MPI_Finalize, and the group is broken.
  Status abandon() {
    for (int p = 0; p < size_; ++p) {
      MPI_Request &r = reqs_[size_t(p)];
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Status st;
        MPI_Wait(&r, &st);
        int cancelled = 1;
        MPI_Test_cancelled(&st, &cancelled);
        if (!cancelled && in_[size_t(p)].left)
          ch_->peer_left[size_t(p)] = 1;
      }
      MPI_Request &s = reqs_[size_t(size_ + p)];
      if (s != MPI_REQUEST_NULL)
        ch_->keep(s);
      s = MPI_REQUEST_NULL;
    }
    return lose();
  }

  Status lose() {
    broken_ = true;
    return Status::PEER_LOST;
  }

  Status check(int rc) { return rc == MPI_SUCCESS ? Status::OK : lose(); }

  std::shared_ptr<detail::MpiChannel> ch_;
  int rank_ = 0, size_ = 1;
  bool broken_ = false;
  std::vector<detail::MpiMessage> in_; // by rank: what each peer sent
  std::vector<MPI_Request> reqs_;      // receives by rank, then sends by rank
  // all_reduce: each rank's slice in bytes and where it starts, the pieces
  // of this rank's slice from every rank, and the slice combined.
  std::vector<int> counts_, displs_, recv_counts_, recv_displs_;
  std::vector<uint8_t> pieces_, slice_;
};

} // namespace comm
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_COLLECTIVES_MPI_HPP
