// pto/runtime/collectives.hpp - collectives between ranks behind one
// interface (seed 003's KV data and context parallelism, seed 002's
// all_reduce), with an in-process backend: one thread per rank, shared
// memory. The MPI backend (one process per rank) is
// pto/runtime/collectives_mpi.hpp, the only header that includes <mpi.h>.
//
// The operations are the ones the sharded programs need, named as MLIR's
// `shard` dialect names its collectives:
// - all_gather(send, recv, bytes): recv[r * bytes, (r + 1) * bytes) = rank
//   r's send, on every rank;
// - all_to_all(send, recv, bytes): block r of recv = block rank() of rank
//   r's send (blocks of `bytes`);
// - broadcast(buf, bytes, root): every rank's buf = root's buf;
// - all_reduce(buf, count, type, op): buf = op over the ranks' bufs;
// - barrier();
// and the forms along an axis of a row-major tensor that the IR's
// collectives print (wsp.all_gather, wsp.all_to_all, wsp.all_slice, with
// the meaning of shard.all_gather, all_to_all and all_slice):
// - all_gather_axis: recv = the ranks' sends concatenated along an axis;
// - all_to_all_axes: send cut along split_axis into size() pieces, piece r
//   to rank r; recv = the pieces received, concatenated along concat_axis;
// - all_slice_axis: recv = this rank's piece of send along an axis (local,
//   no communication).
//
// One result on every backend and every run: all_reduce combines the ranks'
// values in rank order 0, 1, ..., size - 1 (bf16 and f16 in float, rounded
// once at the end), in this header (reduce_in_rank_order). So a sum is the
// same bits in-process, over MPI and against a sequential loop over the
// ranks. Both backends move 2 (size - 1) / size of the buffer per rank, the
// least (docs/rationale/Sharding.md): over MPI a reduce-scatter and an
// all_gather (collectives_mpi.hpp); in one process each rank combines its
// slice of every rank's buffer and writes it into every rank's buffer, in
// one pass over shared memory.
//
// A rank whose earlier work failed still makes the call, with ready =
// false: it cannot leave the others waiting (they would wait until it
// leaves, then fail with PEER_LOST), and every rank's call fails alike.
//
// Errors, never a crash or a hang, and nothing written on any rank:
// - INVALID_PARAMS: a null buffer for a non-zero size, overlapping send and
//   receive buffers, a root outside [0, size), a size that overflows, an
//   element type or reduction outside the enums; a rank not ready; and a
//   call the ranks do not agree on (another operation, size, type or root
//   on some rank): each call first exchanges a small header, so every rank
//   sees every rank's arguments and all decide alike;
// - PEER_LOST: a rank that can no longer take part (in-process: its
//   function returned while the others wait in a collective; MPI: its
//   communicator was destroyed, or it called MPI_Finalize, before making
//   the call, or the library reported an error). A rank making one call
//   more than the others gets it when they leave. The group stays broken:
//   later calls return PEER_LOST at once.
#ifndef PTO_RUNTIME_COLLECTIVES_HPP
#define PTO_RUNTIME_COLLECTIVES_HPP

#include "pto/runtime/float16.hpp"
#include "pto/runtime/work_planner.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace pto {
namespace runtime {
namespace comm {

/// A collective's status: the spec's codes (PlanResult) where they apply,
/// and one more for a group that cannot complete a call.
enum class Status : int32_t {
  OK = static_cast<int32_t>(PlanResult::OK),
  INVALID_PARAMS = static_cast<int32_t>(PlanResult::INVALID_PARAMS),
  PEER_LOST = 16,
};

constexpr const char *to_string(Status s) {
  switch (s) {
  case Status::OK:
    return "OK";
  case Status::INVALID_PARAMS:
    return "INVALID_PARAMS";
  case Status::PEER_LOST:
    return "PEER_LOST";
  }
  return "UNKNOWN";
}

/// How all_reduce combines (pto-isa's pto::comm::ReduceOp).
enum class ReduceOp : uint8_t { Sum, Max, Min };
/// The element types all_reduce combines (16-bit floats in float).
enum class ElemType : uint8_t { F32, BF16, I32, F16 };

constexpr size_t elem_bytes(ElemType t) {
  return t == ElemType::BF16 || t == ElemType::F16 ? 2 : 4;
}

/// How a program's bf16 buffers are stored: bf16 bits, or IEEE half bits
/// where the build holds bfloat16_t as half (pto-isa's CPU simulation
/// without std::bfloat16_t; scripts/check-pto-isa.sh then defines
/// WSP_BF16_STORAGE_IS_F16). Emitted code reduces bf16 buffers as this.
constexpr ElemType kBf16Storage =
    kBf16StoredAsF16 ? ElemType::F16 : ElemType::BF16;

/// What one rank asks of a call; every rank's header is exchanged first.
struct CallHeader {
  uint32_t kind = 0;  // which operation
  uint32_t valid = 1; // this rank's own argument checks passed
  uint64_t bytes = 0; // per-rank bytes (all_gather, all_to_all blocks, ...)
  int64_t root = -1;
  uint32_t elem = 0, op = 0;
  // The axis forms' layouts: the rows before the axis on the send and the
  // receive side (ranks that cut a tensor differently disagree).
  uint64_t send_outer = 0, recv_outer = 0;
  // The address of this rank's send buffer: in one process the others read
  // it directly (not compared: it differs from rank to rank).
  uint64_t send = 0;
  bool operator==(const CallHeader &o) const {
    return kind == o.kind && bytes == o.bytes && root == o.root &&
           elem == o.elem && op == o.op && send_outer == o.send_outer &&
           recv_outer == o.recv_outer;
  }
};

namespace detail {
inline bool overlap(const void *a, size_t an, const void *b, size_t bn) {
  const auto *x = static_cast<const uint8_t *>(a);
  const auto *y = static_cast<const uint8_t *>(b);
  return an && bn && x < y + bn && y < x + an;
}

/// A row-major tensor of `rank` dimensions cut at `axis`: `outer` rows (the
/// product of the sizes before it), each of size `at` x `inner` bytes (the
/// axis and the bytes of one index of it). False when the sizes are not a
/// tensor (a negative size, an axis outside it) or its bytes overflow.
struct AxisCut {
  size_t outer = 1, at = 0, inner = 0;
  size_t bytes() const { return outer * at * inner; }
};
inline bool cut_at(const int64_t *sizes, int rank, int axis, size_t elem,
                   AxisCut &cut) {
  if (!sizes || rank < 1 || axis < 0 || axis >= rank || !elem)
    return false;
  constexpr size_t kMax = static_cast<size_t>(PTRDIFF_MAX);
  auto times = [](size_t &x, size_t n) {
    if (n && x > kMax / n)
      return false;
    x *= n;
    return true;
  };
  cut = AxisCut{};
  cut.inner = elem;
  size_t total = elem; // the whole tensor's bytes fit an object
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] < 0)
      return false;
    const size_t n = static_cast<size_t>(sizes[d]);
    if (!times(total, n))
      return false;
    if (d == axis)
      cut.at = n;
    else if (!times(d < axis ? cut.outer : cut.inner, n))
      return false;
  }
  return true;
}

/// Equal sizes except at `axis`.
inline bool same_but(const int64_t *a, const int64_t *b, int rank, int axis) {
  for (int d = 0; d < rank; ++d)
    if (d != axis && a[d] != b[d])
      return false;
  return true;
}

/// Two tensors cut at `axis` (into `small` and `big`) whose sizes are equal
/// but at the axis, where big's is n times small's.
inline bool scaled_at(const int64_t *small_sizes, const int64_t *big_sizes,
                      int rank, int axis, size_t elem, size_t n,
                      AxisCut &small, AxisCut &big) {
  return cut_at(small_sizes, rank, axis, elem, small) &&
         cut_at(big_sizes, rank, axis, elem, big) &&
         same_but(small_sizes, big_sizes, rank, axis) &&
         big.at == small.at * n && (!small.at || big.at / n == small.at);
}

/// dst[o][k] = src[k][o] for o < outer, k < n, blocks of `row` bytes: the
/// interleave between a rank-major buffer and a tensor cut at an axis.
inline void transpose_blocks(const uint8_t *src, uint8_t *dst, size_t n,
                             size_t outer, size_t row) {
  if (!row)
    return;
  for (size_t o = 0; o < outer; ++o)
    for (size_t k = 0; k < n; ++k)
      std::memcpy(dst + (o * n + k) * row, src + (k * outer + o) * row, row);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) &&         \
    !defined(__AVX2__)
#define PTO_COMM_WIDE_LOOPS 1
/// `loop()` with everything it calls inlined and compiled for AVX2, or for
/// AVX-512 (F, BW, VL: 16-bit lanes too).
template <typename Loop>
__attribute__((target("avx2"), flatten)) void run_avx2(Loop &loop) {
  loop();
}
template <typename Loop>
__attribute__((target("avx512f,avx512bw,avx512vl"), flatten)) void
run_avx512(Loop &loop) {
  loop();
}
inline bool host_has_avx2() {
  static const bool has =
      (__builtin_cpu_init(), __builtin_cpu_supports("avx2") != 0);
  return has;
}
inline bool host_has_avx512() {
  static const bool has =
      (__builtin_cpu_init(), __builtin_cpu_supports("avx512f") &&
                                 __builtin_cpu_supports("avx512bw") &&
                                 __builtin_cpu_supports("avx512vl"));
  return has;
}
#endif

/// Runs `loop()`, compiled for AVX-512 or AVX2 when the host has it (the
/// build's baseline is SSE2): all_reduce's combination of 16-bit floats
/// in float ran 2x faster with AVX2 and 4x with AVX-512 (262,144 bf16
/// sums of two: 115 -> 56 -> 28 us on this host). The same bits: the
/// combination adds, takes max or min and converts, with no product for a
/// fused multiply-add to contract.
template <typename Loop> void vector_loop(Loop &&loop) {
#ifdef PTO_COMM_WIDE_LOOPS
  if (host_has_avx512())
    return run_avx512(loop);
  if (host_has_avx2())
    return run_avx2(loop);
#endif
  loop();
}

/// acc[i] = src[i] (first) or op(acc[i], src[i]), for `count` elements of
/// type T combined in A; the operation chosen once, outside the loop.
template <typename T, typename A>
void combine(A *acc, const T *src, size_t count, ReduceOp op, bool first) {
  auto load = [](T x) -> A {
    if constexpr (std::is_same_v<T, bf16>)
      return bf16_to_f32(x);
    else if constexpr (std::is_same_v<T, f16>)
      return f16_to_f32(x);
    else
      return x;
  };
  auto each = [&](auto f) {
    for (size_t i = 0; i < count; ++i)
      acc[i] = f(acc[i], load(src[i]));
  };
  if (first)
    each([](A, A v) { return v; });
  else if (op == ReduceOp::Sum)
    each([](A a, A v) { return static_cast<A>(a + v); });
  else if (op == ReduceOp::Max)
    each([](A a, A v) { return std::max(a, v); });
  else
    each([](A a, A v) { return std::min(a, v); });
}
} // namespace detail

/// The interface the sharded programs call. A backend implements the byte
/// movements (exchange, gather, all_to_all, broadcast); argument checks,
/// agreement and all_reduce's combination live here, once.
class Communicator {
public:
  enum Kind : uint32_t {
    AllGather = 1,
    AllToAll,
    Broadcast,
    AllReduce,
    Barrier,
    AllGatherAxis,
    AllToAllAxes,
    Along
  };

  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  Status all_gather(const void *send, void *recv, size_t bytes,
                    bool ready = true) {
    CallHeader h;
    h.kind = AllGather;
    h.bytes = bytes;
    h.send = reinterpret_cast<uintptr_t>(send);
    const size_t total = checked_total(bytes);
    h.valid = ready && total != kOverflow &&
              buffers_ok(send, bytes, recv, total);
    return call(h, bytes * uint64_t(size() - 1),
                [&] { return backend_all_gather(send, recv, bytes); });
  }

  Status all_to_all(const void *send, void *recv, size_t bytes,
                    bool ready = true) {
    CallHeader h;
    h.kind = AllToAll;
    h.bytes = bytes;
    h.send = reinterpret_cast<uintptr_t>(send);
    const size_t total = checked_total(bytes);
    h.valid = ready && total != kOverflow &&
              buffers_ok(send, total, recv, total);
    return call(h, bytes * uint64_t(size() - 1),
                [&] { return backend_all_to_all(send, recv, bytes); });
  }

  Status broadcast(void *buf, size_t bytes, int root, bool ready = true) {
    CallHeader h;
    h.kind = Broadcast;
    h.bytes = bytes;
    h.root = root;
    h.send = reinterpret_cast<uintptr_t>(buf);
    h.valid = ready && root >= 0 && root < size() && (buf || !bytes);
    return call(h, rank() == root ? bytes * uint64_t(size() - 1) : 0,
                [&] { return backend_broadcast(buf, bytes, root); });
  }

  /// buf = op over the ranks' bufs in rank order; bf16 and f16 combined in
  /// float and rounded once.
  Status all_reduce(void *buf, size_t count, ElemType type, ReduceOp op,
                    bool ready = true) {
    CallHeader h;
    h.kind = AllReduce;
    h.send = reinterpret_cast<uintptr_t>(buf);
    h.elem = static_cast<uint32_t>(type);
    h.op = static_cast<uint32_t>(op);
    const bool known = type <= ElemType::F16 && op <= ReduceOp::Min;
    const size_t bytes =
        known && count <= kMaxTotal / 4 ? count * elem_bytes(type) : kOverflow;
    h.bytes = bytes;
    const size_t total = bytes == kOverflow ? kOverflow : checked_total(bytes);
    h.valid = ready && known && total != kOverflow && (buf || !bytes);
    return call(h, all_reduce_sent(bytes),
                [&] { return backend_all_reduce(buf, count, type, op); });
  }

  Status barrier() {
    CallHeader h;
    h.kind = Barrier;
    return agree(h);
  }

  // The forms along an axis. Tensors are row-major, of `rank` dimensions
  // with sizes `send_sizes` and `recv_sizes`, elements of `elem` bytes;
  // the sizes must fit the operation (below) on every rank, else every
  // rank gets INVALID_PARAMS and nothing is written.

  /// shard.all_gather: recv = the ranks' sends concatenated along `axis`
  /// in rank order; recv_sizes = send_sizes but size() x at `axis`.
  Status all_gather_axis(const void *send, const int64_t *send_sizes,
                         void *recv, const int64_t *recv_sizes, int rank,
                         int axis, size_t elem, bool ready = true) {
    detail::AxisCut in, out;
    const bool shapes = detail::scaled_at(send_sizes, recv_sizes, rank, axis,
                                          elem, size_t(size()), in, out);
    const size_t row = shapes ? in.at * in.inner : 0;
    const size_t bytes = shapes ? in.bytes() : 0;
    CallHeader h;
    h.kind = AllGatherAxis;
    h.bytes = bytes;
    h.send_outer = h.recv_outer = shapes ? in.outer : 0;
    h.send = reinterpret_cast<uintptr_t>(send);
    h.valid = ready && shapes && buffers_ok(send, bytes, recv, out.bytes());
    return call(h, bytes * uint64_t(size() - 1), [&] {
      if (in.outer == 1) // rank-major already
        return backend_all_gather(send, recv, bytes);
      gathered_.resize(out.bytes());
      if (Status s = backend_all_gather(send, gathered_.data(), bytes);
          s != Status::OK)
        return s;
      detail::transpose_blocks(gathered_.data(), static_cast<uint8_t *>(recv),
                               size_t(size()), in.outer, row);
      return Status::OK;
    });
  }

  /// shard.all_to_all: send cut along `split_axis` into size() equal
  /// pieces, piece r sent to rank r; recv = the pieces received,
  /// concatenated along `concat_axis` in rank order. recv_sizes =
  /// send_sizes with the split axis / size() and the concat axis x size().
  Status all_to_all_axes(const void *send, const int64_t *send_sizes,
                         void *recv, const int64_t *recv_sizes, int rank,
                         int split_axis, int concat_axis, size_t elem,
                         bool ready = true) {
    const size_t n = size_t(size());
    detail::AxisCut in, out;
    bool shapes = detail::cut_at(send_sizes, rank, split_axis, elem, in) &&
                  detail::cut_at(recv_sizes, rank, concat_axis, elem, out) &&
                  in.at % n == 0 && out.at % n == 0;
    // A piece has the send's sizes with the split axis / size(), and the
    // receive's with the concat axis / size().
    for (int d = 0; shapes && d < rank; ++d) {
      const int64_t a = d == split_axis ? send_sizes[d] / int64_t(n)
                                        : send_sizes[d];
      const int64_t b = d == concat_axis ? recv_sizes[d] / int64_t(n)
                                         : recv_sizes[d];
      shapes = a == b;
    }
    const size_t block = shapes ? in.bytes() / n : 0;
    const size_t send_row = shapes ? in.at / n * in.inner : 0;
    const size_t recv_row = shapes ? out.at / n * out.inner : 0;
    // The pieces rank-major: the send itself when the split axis leads.
    const void *packed = send;
    if (shapes && in.outer > 1 && in.bytes() &&
        buffers_ok(send, in.bytes(), recv, out.bytes())) {
      packed_.resize(in.bytes());
      detail::transpose_blocks(static_cast<const uint8_t *>(send),
                               packed_.data(), in.outer, n, send_row);
      packed = packed_.data();
    }
    CallHeader h;
    h.kind = AllToAllAxes;
    h.bytes = block;
    h.send_outer = shapes ? in.outer : 0;
    h.recv_outer = shapes ? out.outer : 0;
    h.send = reinterpret_cast<uintptr_t>(packed);
    h.valid = ready && shapes && buffers_ok(send, in.bytes(), recv, out.bytes());
    return call(h, block * uint64_t(n - 1), [&] {
      if (out.outer == 1)
        return backend_all_to_all(packed, recv, block);
      gathered_.resize(out.bytes());
      if (Status s = backend_all_to_all(packed, gathered_.data(), block);
          s != Status::OK)
        return s;
      detail::transpose_blocks(gathered_.data(), static_cast<uint8_t *>(recv),
                               n, out.outer, recv_row);
      return Status::OK;
    });
  }

  /// shard.all_slice: recv = this rank's piece of send along `axis` (cut
  /// into size() equal pieces); send_sizes = recv_sizes but size() x at
  /// `axis`. Local: no rank waits for another, and a rank not ready (or
  /// with sizes that do not fit) gets INVALID_PARAMS alone.
  Status all_slice_axis(const void *send, const int64_t *send_sizes,
                        void *recv, const int64_t *recv_sizes, int rank,
                        int axis, size_t elem, bool ready = true) {
    detail::AxisCut in, out;
    const bool shapes = detail::scaled_at(recv_sizes, send_sizes, rank, axis,
                                          elem, size_t(size()), out, in);
    if (!ready || !shapes || !buffers_ok(send, in.bytes(), recv, out.bytes()))
      return Status::INVALID_PARAMS;
    const size_t row = out.at * out.inner;
    if (!row)
      return Status::OK;
    const auto *src = static_cast<const uint8_t *>(send);
    auto *dst = static_cast<uint8_t *>(recv);
    for (size_t o = 0; o < out.outer; ++o)
      std::memcpy(dst + o * row,
                  src + (o * size_t(size()) + size_t(this->rank())) * row, row);
    return Status::OK;
  }

  /// A rank group (shard's `grid_axes`): the ranks of a grid that differ
  /// from this rank only along `axes`, as a communicator of their own. The
  /// grid has `dims` dimensions of sizes `shape`, row-major over this
  /// communicator's ranks (rank r is the grid's linear index r), so their
  /// product must be size(). `axes` are distinct dimensions of it; the
  /// group's rank is this rank's index along them, linear in the order
  /// given (as shard.process_multi_index then linearized). On OK `group`
  /// is the group, owned by this communicator. The first call for a
  /// (shape, axes) is collective over this communicator: the ranks agree
  /// on it (every rank must ask for the same group, as for any call), then
  /// the backend makes the groups (in one process a ThreadGroup each,
  /// over MPI MPI_Comm_split). Later calls agree on it again (one header
  /// exchange: ranks that went on into different groups would wait for
  /// each other forever) and return the same group. INVALID_PARAMS when the
  /// shape or the axes do not fit or the ranks ask for different groups,
  /// PEER_LOST when a rank is gone; `group` is then left as it was.
  Status along(const int64_t *shape, int dims, const int16_t *axes, int naxes,
               Communicator *&group) {
    std::vector<int64_t> spec;
    bool fits = shape && axes && dims > 0 && naxes > 0 && naxes <= dims;
    int64_t ranks = 1, members = 1;
    if (fits) {
      spec.assign(shape, shape + dims);
      spec.push_back(-1);
      for (int d = 0; d < dims && fits; ++d) {
        fits = shape[d] > 0 && shape[d] <= int64_t(size()) &&
               ranks <= int64_t(size()) / shape[d];
        ranks = fits ? ranks * shape[d] : ranks;
      }
      fits = fits && ranks == int64_t(size());
      for (int i = 0; i < naxes && fits; ++i) {
        fits = axes[i] >= 0 && axes[i] < dims &&
               std::find(axes, axes + i, axes[i]) == axes + i;
        if (fits) {
          spec.push_back(axes[i]);
          members *= shape[axes[i]];
        }
      }
    }
    // The ranks agree on the group, its spec's hash (FNV-1a) in `bytes`,
    // every time: ranks that went on into different groups' calls would
    // wait for each other there forever.
    CallHeader h;
    h.kind = Along;
    h.valid = fits;
    uint64_t hash = 1469598103934665603ull;
    for (int64_t v : spec)
      for (int i = 0; i < 8; ++i)
        hash = (hash ^ ((uint64_t(v) >> (8 * i)) & 0xff)) * 1099511628211ull;
    h.bytes = hash;
    if (Status s = agree(h); s != Status::OK)
      return s;
    if (auto it = groups_.find(spec); it != groups_.end()) {
      group = it->second.get();
      return Status::OK;
    }
    // This rank's coordinates; its index along the axes (the key) and
    // along the other dimensions (the color: which group).
    std::vector<int64_t> at(size_t(dims), 0);
    for (int64_t r = rank(), d = dims - 1; d >= 0; --d) {
      at[size_t(d)] = r % shape[d];
      r /= shape[d];
    }
    int64_t key = 0, color = 0;
    for (int i = 0; i < naxes; ++i)
      key = key * shape[axes[i]] + at[size_t(axes[i])];
    for (int d = 0; d < dims; ++d)
      if (std::find(axes, axes + naxes, d) == axes + naxes)
        color = color * shape[d] + at[size_t(d)];
    std::unique_ptr<Communicator> made =
        backend_group(spec, int(color), int(key), int(members));
    if (!made)
      return Status::PEER_LOST;
    group = made.get();
    groups_.emplace(std::move(spec), std::move(made));
    return Status::OK;
  }

  /// Bytes this rank has sent to other ranks through the calls so far (the
  /// bytes a sharded step moves, counted as the formulas count them), its
  /// groups' calls included.
  uint64_t bytes_sent() const {
    uint64_t sent = sent_;
    for (const auto &g : groups_)
      sent += g.second->bytes_sent();
    return sent;
  }
  void reset_bytes_sent() {
    sent_ = 0;
    for (auto &g : groups_)
      g.second->reset_bytes_sent();
  }

protected:
  static constexpr size_t kOverflow = ~size_t(0);
  /// The most bytes a call may move into one buffer (an object's limit).
  static constexpr size_t kMaxTotal = static_cast<size_t>(PTRDIFF_MAX);

  /// Every rank's header, in rank order (size() entries).
  virtual Status exchange(const CallHeader &mine,
                          std::vector<CallHeader> &all) = 0;
  virtual Status backend_all_gather(const void *send, void *recv,
                                    size_t bytes) = 0;
  virtual Status backend_all_to_all(const void *send, void *recv,
                                    size_t bytes) = 0;
  virtual Status backend_broadcast(void *buf, size_t bytes, int root) = 0;
  /// The group `color` of `members` ranks this rank is `key` of, for the
  /// group spec `spec` (along()); every rank calls it once the ranks have
  /// agreed on the spec. Null when the group cannot be made (by default:
  /// a backend without groups, such as the benches' stand-ins).
  virtual std::unique_ptr<Communicator>
  backend_group(const std::vector<int64_t> &spec, int color, int key,
                int members) {
    (void)spec, (void)color, (void)key, (void)members;
    return nullptr;
  }

  /// all_reduce's move and combine, after the ranks agreed on the call. By
  /// default an all_gather, then every rank combines every rank's buffer
  /// in rank order: (size - 1) x the buffer received per rank.
  virtual Status backend_all_reduce(void *buf, size_t count, ElemType type,
                                    ReduceOp op) {
    const size_t bytes = count * elem_bytes(type);
    // agree() refused larger counts already; said again for the compiler.
    if (count > kMaxTotal / 4 / size_t(size()))
      return Status::INVALID_PARAMS;
    gathered_.resize(bytes * size_t(size()));
    if (Status s = backend_all_gather(buf, gathered_.data(), bytes);
        s != Status::OK)
      return s;
    reduce_in_rank_order(buf, count, type, op, 0, [&](int r) {
      return gathered_.data() + size_t(r) * bytes;
    });
    return Status::OK;
  }
  /// The bytes one all_reduce of `bytes` counts as this rank's sending (a
  /// backend that moves less says so).
  virtual uint64_t all_reduce_sent(size_t bytes) const {
    return bytes * uint64_t(size() - 1);
  }

  /// out[0, count) = `op` over the ranks' elements [first, first + count)
  /// in rank order 0, 1, ..., size() - 1 (16-bit floats in float, rounded
  /// once; int32 in int64, wrapping as on the device), rank r's elements
  /// read from base(r) (a byte pointer to its element 0). `out` may be one
  /// of the inputs: every input is read before out is written.
  template <typename Base>
  void reduce_in_rank_order(void *out, size_t count, ElemType type,
                            ReduceOp op, size_t first, Base base) {
    reduce_in_rank_order(count, type, op, first, base, 1,
                         [&](int) { return static_cast<uint8_t *>(out); });
  }
  /// The same, the result written to `outs` buffers: element i to
  /// out(o) + i elements for o < outs (each may be one of the inputs, at
  /// the elements read: each block is read from every input before it is
  /// written).
  template <typename Base, typename Out>
  void reduce_in_rank_order(size_t count, ElemType type, ReduceOp op,
                            size_t first, Base base, int outs, Out out) {
    switch (type) {
    case ElemType::F32:
      return reduce_typed<float, float>(count, op, first, base, outs, out);
    case ElemType::BF16:
      return reduce_typed<bf16, float>(count, op, first, base, outs, out);
    case ElemType::F16:
      return reduce_typed<f16, float>(count, op, first, base, outs, out);
    case ElemType::I32:
      return reduce_typed<int32_t, int64_t>(count, op, first, base, outs, out);
    }
  }

  /// Rank r's send buffer in the call being made: its agreed header's
  /// address (meaningful only where ranks share an address space).
  const uint8_t *agreed_send(int r) const {
    return reinterpret_cast<const uint8_t *>(headers_[r].send);
  }

private:
  size_t checked_total(size_t bytes) const {
    const size_t n = static_cast<size_t>(size());
    return bytes <= kMaxTotal / n ? bytes * n : kOverflow;
  }
  static bool buffers_ok(const void *send, size_t send_bytes, const void *recv,
                         size_t recv_bytes) {
    return (send || !send_bytes) && (recv || !recv_bytes) &&
           !detail::overlap(send, send_bytes, recv, recv_bytes);
  }

  /// One call: the ranks agree on `h`, then `move` moves the bytes; `sent`
  /// is this rank's payload to the others, counted when both succeeded.
  template <typename Move> Status call(const CallHeader &h, uint64_t sent,
                                       Move move) {
    if (Status s = agree(h); s != Status::OK)
      return s;
    if (Status s = move(); s != Status::OK)
      return s;
    sent_ += sent;
    return Status::OK;
  }

  /// Every rank learns every rank's header: OK only when all are valid and
  /// alike.
  Status agree(const CallHeader &mine) {
    if (Status s = exchange(mine, headers_); s != Status::OK)
      return s;
    for (const CallHeader &h : headers_)
      if (!h.valid || !(h == headers_[0]))
        return Status::INVALID_PARAMS;
    return Status::OK;
  }

  template <typename T, typename A, typename Base, typename Out>
  void reduce_typed(size_t count, ReduceOp op, size_t first, Base base,
                    int outs, Out out) {
    // Block by block, the accumulators of one block staying in L1 while
    // every rank's elements are combined into them; the block converted
    // into the first output, then copied to the others.
    constexpr size_t kBlock = 2048;
    acc_.resize(kBlock * sizeof(A));
    A *acc = reinterpret_cast<A *>(acc_.data());
    const int ranks = size();
    detail::vector_loop([&] {
      for (size_t b = 0; b < count; b += kBlock) {
        const size_t m = std::min(kBlock, count - b);
        for (int r = 0; r < ranks; ++r)
          detail::combine<T, A>(
              acc, reinterpret_cast<const T *>(base(r)) + first + b, m, op,
              r == 0);
        T *buf = reinterpret_cast<T *>(out(0)) + b;
        for (size_t i = 0; i < m; ++i) {
          if constexpr (std::is_same_v<T, bf16>)
            buf[i] = f32_to_bf16(acc[i]);
          else if constexpr (std::is_same_v<T, f16>)
            buf[i] = f32_to_f16(acc[i]);
          else
            buf[i] = static_cast<T>(acc[i]); // int32 sums wrap as on device
        }
        for (int o = 1; o < outs; ++o)
          std::memcpy(reinterpret_cast<T *>(out(o)) + b, buf, m * sizeof(T));
      }
    });
  }

  std::vector<CallHeader> headers_;
  std::vector<uint8_t> gathered_;
  std::vector<uint8_t> packed_; // all_to_all_axes' pieces, rank-major
  std::vector<uint8_t> acc_; // raw storage of the accumulators
  uint64_t sent_ = 0;
  // The groups made by along(), by spec (shape, -1, axes).
  std::map<std::vector<int64_t>, std::unique_ptr<Communicator>> groups_;
};

/// One rank alone: what a program runs on when no group was set up. Every
/// collective is a local copy (all_reduce leaves the buffer as it is).
class SoloCommunicator final : public Communicator {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }

protected:
  Status exchange(const CallHeader &mine,
                  std::vector<CallHeader> &all) override {
    all.assign(1, mine);
    return Status::OK;
  }
  Status backend_all_gather(const void *send, void *recv,
                            size_t bytes) override {
    if (bytes > kMaxTotal)
      return Status::INVALID_PARAMS;
    if (bytes)
      std::memcpy(recv, send, bytes);
    return Status::OK;
  }
  Status backend_all_to_all(const void *send, void *recv,
                            size_t bytes) override {
    return backend_all_gather(send, recv, bytes);
  }
  Status backend_broadcast(void *, size_t, int) override { return Status::OK; }
  std::unique_ptr<Communicator> backend_group(const std::vector<int64_t> &, int,
                                              int, int) override {
    return std::make_unique<SoloCommunicator>();
  }
};

/// How a group of ranks sharing one address space moves a call's bytes:
/// `pieces` pieces of `bytes`, piece p from sends[p], into recv back to
/// back; piece `self` is the calling rank's own (a broadcast's single
/// piece is the root's: 0). A plain copy by default; the device form moves
/// them on the AICore with pto-isa's TGATHER (its AICPU code installs that
/// with GatherScope). The ranks agree on the call before the move and wait
/// for each other after it: the move itself needs no synchronization. A
/// group of processes (MPI) moves bytes its own way and calls none.
using GatherFn = void (*)(const void *const *sends, void *recv, uint64_t bytes,
                          int32_t pieces, int32_t self);

namespace detail {
inline Communicator *&current_slot() {
  thread_local Communicator *c = nullptr;
  return c;
}
inline GatherFn &gather_slot() {
  thread_local GatherFn g = nullptr;
  return g;
}
inline void copy_pieces(const void *const *sends, void *recv, uint64_t bytes,
                        int32_t pieces, int32_t) {
  for (int32_t p = 0; p < pieces; ++p)
    std::memcpy(static_cast<uint8_t *>(recv) + size_t(p) * bytes, sends[p],
                bytes);
}
} // namespace detail

/// Makes `g` the calling thread's way of moving a shared-memory group's
/// bytes for a scope (GatherFn).
class GatherScope {
public:
  explicit GatherScope(GatherFn g) : saved_(detail::gather_slot()) {
    detail::gather_slot() = g;
  }
  ~GatherScope() { detail::gather_slot() = saved_; }
  GatherScope(const GatherScope &) = delete;
  GatherScope &operator=(const GatherScope &) = delete;

private:
  GatherFn saved_;
};

/// The communicator of the rank the calling thread runs: what emitted
/// programs call their collectives on (as a kernel asks get_block_idx()
/// for its block). ThreadGroup::run sets it on each rank's thread; an MPI
/// program sets it with CurrentCommunicator; otherwise one rank alone.
inline Communicator &current() {
  if (Communicator *c = detail::current_slot())
    return *c;
  thread_local SoloCommunicator solo;
  return solo;
}

/// Makes `c` the calling thread's current communicator for a scope.
class CurrentCommunicator {
public:
  explicit CurrentCommunicator(Communicator &c)
      : saved_(detail::current_slot()) {
    detail::current_slot() = &c;
  }
  ~CurrentCommunicator() { detail::current_slot() = saved_; }
  CurrentCommunicator(const CurrentCommunicator &) = delete;
  CurrentCommunicator &operator=(const CurrentCommunicator &) = delete;

private:
  Communicator *saved_;
};

/// The in-process backend: `size` ranks as threads of one process, sharing
/// memory. run() calls fn(communicator) on one thread per rank, with that
/// communicator current() on the thread, and returns when all have returned.
class ThreadGroup {
public:
  explicit ThreadGroup(int size) : size_(std::max(size, 1)) {}
  int size() const { return size_; }

  /// Runs fn(Communicator &) on size() threads; an exception on a rank is
  /// rethrown here after every rank has ended (the others see PEER_LOST).
  void run(const std::function<void(Communicator &)> &fn);

private:
  friend class ThreadCommunicator;
  /// A group of some of these ranks (Communicator::along): its spec and
  /// color, and the ranks that joined it, by their index in it.
  struct Subgroup {
    std::vector<int64_t> spec;
    int color;
    std::unique_ptr<ThreadGroup> group;
    std::vector<int> members; // this group's rank of each, by group rank
  };

  /// Clears the state of a run (or of a subgroup's life).
  void reset() {
    for (std::vector<CallHeader> &slot : headers_)
      slot.assign(size_t(size_), CallHeader{});
    generation_ = 0;
    arrived_ = left_ = 0;
    broken_ = false;
    subgroups_.clear();
  }

  /// Rank `rank` joins the subgroup (spec, color) of `members` ranks as its
  /// rank `key`; the first member to ask makes it.
  ThreadGroup &join(const std::vector<int64_t> &spec, int color, int members,
                    int rank, int key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find_if(
        subgroups_.begin(), subgroups_.end(),
        [&](const Subgroup &g) { return g.color == color && g.spec == spec; });
    if (it == subgroups_.end()) {
      Subgroup g{spec, color, std::make_unique<ThreadGroup>(members),
                 std::vector<int>(size_t(members), -1)};
      g.group->reset();
      subgroups_.push_back(std::move(g));
      it = subgroups_.end() - 1;
    }
    it->members[size_t(key)] = rank;
    return *it->group;
  }

  /// `rank` takes part in no more calls, here or in its subgroups: a rank
  /// waiting for it gets PEER_LOST instead of waiting forever. A member
  /// joins a subgroup in along(), before it can leave.
  void leave(int rank) {
    std::vector<std::pair<ThreadGroup *, int>> also;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++left_;
      cv_.notify_all();
      for (Subgroup &g : subgroups_)
        for (size_t k = 0; k < g.members.size(); ++k)
          if (g.members[k] == rank)
            also.emplace_back(g.group.get(), int(k));
    }
    for (auto [group, key] : also)
      group->leave(key);
  }

  /// Waits for every rank to arrive; false when a rank has left instead.
  /// Called and returning with `lock` held. A rank on a core of its own
  /// sees the others arrive within microseconds, far less than a sleep on
  /// the condition variable and a wake-up cost: it polls the generation
  /// for a while first (without the lock, which the last rank to arrive
  /// needs), then sleeps, so oversubscribed ranks still give their core up.
  bool arrive(std::unique_lock<std::mutex> &lock) {
    if (broken_)
      return false;
    const uint64_t gen = generation_.load(std::memory_order_relaxed);
    if (++arrived_ == size_) {
      arrived_ = 0;
      generation_.store(gen + 1, std::memory_order_release);
      cv_.notify_all();
      return true;
    }
    lock.unlock();
    for (int i = 0; i < kPolls; ++i) {
      if (generation_.load(std::memory_order_acquire) != gen)
        break;
      if (i % 64 == 63)
        std::this_thread::yield();
    }
    lock.lock();
    cv_.wait(lock, [&] {
      return generation_.load(std::memory_order_relaxed) != gen || left_ > 0;
    });
    if (generation_.load(std::memory_order_relaxed) != gen)
      return true;
    broken_ = true;
    return false;
  }
  /// How often a waiting rank polls before it sleeps (a few microseconds).
  static constexpr int kPolls = 2048;

  const int size_;
  std::mutex mu_;
  std::condition_variable cv_;
  // Written under mu_; read without it while a rank polls.
  std::atomic<uint64_t> generation_{0};
  int arrived_ = 0, left_ = 0;
  bool broken_ = false;
  std::vector<CallHeader> headers_[2]; // by call parity, by rank
  std::vector<Subgroup> subgroups_;    // under mu_
};

class ThreadCommunicator final : public Communicator {
public:
  ThreadCommunicator(ThreadGroup &group, int rank)
      : group_(group), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return group_.size_; }

protected:
  /// One barrier: every rank publishes its header (with its send buffer's
  /// address) in the slot of this call's parity and reads all of them. The
  /// slots alternate, so a rank already in the next call cannot overwrite
  /// a header a slower rank still reads: it passed this call's barrier, so
  /// every rank has published this call, and it cannot pass the next one
  /// before every rank has read this one and published the next (or the
  /// barrier failed, and then the group is broken and nothing is written).
  Status exchange(const CallHeader &mine,
                  std::vector<CallHeader> &all) override {
    std::vector<CallHeader> &slot = group_.headers_[calls_++ % 2];
    std::unique_lock<std::mutex> lock(group_.mu_);
    // A broken group is left at once: a rank past a failed barrier must
    // not write a slot a slower rank may still read.
    if (group_.broken_)
      return Status::PEER_LOST;
    slot[rank_] = mine;
    if (!group_.arrive(lock))
      return Status::PEER_LOST;
    all = slot;
    return Status::OK;
  }

  /// Moves `pieces` pieces of `bytes` (sends_) into recv with the thread's
  /// GatherFn, then waits for every rank, so no rank reuses its buffer
  /// while another still reads it.
  Status gather_then_wait(void *recv, size_t bytes, int pieces, int self) {
    if (bytes) {
      GatherFn gather = detail::gather_slot();
      (gather ? gather : &detail::copy_pieces)(sends_.data(), recv, bytes,
                                               pieces, self);
    }
    std::unique_lock<std::mutex> lock(group_.mu_);
    return group_.arrive(lock) ? Status::OK : Status::PEER_LOST;
  }

  // The send buffers: the agreed headers' (exchange()).
  Status backend_all_gather(const void *, void *recv, size_t bytes) override {
    if (bytes > kMaxTotal) // refused by agree() already; said for the compiler
      return Status::INVALID_PARAMS;
    sends_.resize(size_t(size()));
    for (int r = 0; r < size(); ++r)
      sends_[r] = agreed_send(r);
    return gather_then_wait(recv, bytes, size(), rank_);
  }
  Status backend_all_to_all(const void *, void *recv, size_t bytes) override {
    if (bytes > kMaxTotal)
      return Status::INVALID_PARAMS;
    sends_.resize(size_t(size()));
    for (int r = 0; r < size(); ++r)
      sends_[r] = agreed_send(r) + size_t(rank_) * bytes;
    return gather_then_wait(recv, bytes, size(), rank_);
  }
  Status backend_broadcast(void *buf, size_t bytes, int root) override {
    if (bytes > kMaxTotal)
      return Status::INVALID_PARAMS;
    sends_.assign(1, agreed_send(root));
    return gather_then_wait(buf, rank_ == root ? 0 : bytes, 1, 0);
  }

  /// Reduce-scatter and all_gather in one pass, in shared memory: rank r
  /// combines its slice [count r / n, count (r + 1) / n) of every rank's
  /// buffer, in rank order, and writes each combined block into that
  /// slice of every rank's buffer; then it waits until every rank has.
  /// No other rank reads or writes rank r's slice of any buffer, and each
  /// block is read from every buffer before it is written, so no wait is
  /// needed between the two. Each element is combined exactly as the
  /// gathering form combines it: the same bits. Where the bytes must move
  /// through a GatherFn (the device form's TGATHER), the gathering form.
  Status backend_all_reduce(void *buf, size_t count, ElemType type,
                            ReduceOp op) override {
    if (detail::gather_slot() || count > kMaxTotal / 4)
      return Communicator::backend_all_reduce(buf, count, type, op);
    const size_t n = size_t(size()), elem = elem_bytes(type);
    const size_t lo = count * size_t(rank_) / n;
    const size_t hi = count * (size_t(rank_) + 1) / n;
    auto in = [&](int r) { return agreed_send(r); };
    reduce_in_rank_order(hi - lo, type, op, lo, in, size(), [&](int r) {
      return const_cast<uint8_t *>(agreed_send(r)) + lo * elem;
    });
    std::unique_lock<std::mutex> lock(group_.mu_);
    return group_.arrive(lock) ? Status::OK : Status::PEER_LOST;
  }
  std::unique_ptr<Communicator> backend_group(const std::vector<int64_t> &spec,
                                              int color, int key,
                                              int members) override {
    return std::make_unique<ThreadCommunicator>(
        group_.join(spec, color, members, rank_, key), key);
  }

  /// Rank r's inputs outside its slice are read by the others, and its
  /// combined slice written to them: 2 (n - 1) / n of the buffer.
  uint64_t all_reduce_sent(size_t bytes) const override {
    const uint64_t n = uint64_t(size());
    return 2 * (n - 1) * uint64_t(bytes) / n;
  }

private:
  ThreadGroup &group_;
  const int rank_;
  uint64_t calls_ = 0; // calls made, for the slot parity
  std::vector<const void *> sends_; // the pieces of the call being moved
};

inline void ThreadGroup::run(const std::function<void(Communicator &)> &fn) {
  reset();
  std::vector<std::exception_ptr> errors(size_);
  std::vector<std::thread> threads;
  threads.reserve(size_);
  for (int r = 0; r < size_; ++r)
    threads.emplace_back([&, r] {
      ThreadCommunicator comm(*this, r);
      CurrentCommunicator scope(comm);
      try {
        fn(comm);
      } catch (...) {
        errors[r] = std::current_exception();
      }
      // This rank takes part in no more calls: a rank still waiting for
      // it gets PEER_LOST instead of waiting forever.
      leave(r);
    });
  for (std::thread &t : threads)
    t.join();
  for (std::exception_ptr &e : errors)
    if (e)
      std::rethrow_exception(e);
}

} // namespace comm
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_COLLECTIVES_HPP
