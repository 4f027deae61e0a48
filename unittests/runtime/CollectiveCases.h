// The cases every backend of pto/runtime/collectives.hpp must pass, written
// once against the Communicator interface: CollectivesTest.cpp runs them on
// threads in one process, CollectivesMpiTest.cpp on MPI processes. Each
// case is called on every rank with that rank's communicator; expected
// values come from loops over the ranks written here, never from the code
// under test.
#ifndef WSP_UNITTESTS_COLLECTIVE_CASES_H
#define WSP_UNITTESTS_COLLECTIVE_CASES_H

#include <pto/runtime/collectives.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace collective_cases {

using namespace pto::runtime;
using namespace pto::runtime::comm;

inline uint8_t pattern(int rank, size_t i, int salt = 0) {
  return static_cast<uint8_t>((rank * 31 + i * 7 + salt * 13) % 251);
}

inline void all_gather(Communicator &c) {
  const int n = c.size(), me = c.rank();
  for (size_t bytes : {size_t(0), size_t(1), size_t(13), size_t(4096)}) {
    std::vector<uint8_t> send(bytes), recv(bytes * n + 1, 0xee);
    for (size_t i = 0; i < bytes; ++i)
      send[i] = pattern(me, i);
    c.reset_bytes_sent();
    ASSERT_EQ(c.all_gather(send.data(), recv.data(), bytes), Status::OK);
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < bytes; ++i)
        ASSERT_EQ(recv[r * bytes + i], pattern(r, i)) << "rank " << r;
    EXPECT_EQ(recv[bytes * n], 0xee) << "written past the receive buffer";
    EXPECT_EQ(c.bytes_sent(), bytes * (n - 1));
  }
}

inline void all_to_all(Communicator &c) {
  const int n = c.size(), me = c.rank();
  const size_t bytes = 37;
  std::vector<uint8_t> send(bytes * n), recv(bytes * n);
  for (int to = 0; to < n; ++to)
    for (size_t i = 0; i < bytes; ++i)
      send[to * bytes + i] = pattern(me, i, to);
  ASSERT_EQ(c.all_to_all(send.data(), recv.data(), bytes), Status::OK);
  for (int from = 0; from < n; ++from)
    for (size_t i = 0; i < bytes; ++i)
      ASSERT_EQ(recv[from * bytes + i], pattern(from, i, me)) << "from " << from;
}

inline void broadcast(Communicator &c) {
  const int n = c.size(), me = c.rank();
  for (int root : {0, n - 1}) {
    std::vector<uint8_t> buf(100);
    for (size_t i = 0; i < buf.size(); ++i)
      buf[i] = pattern(me, i);
    c.reset_bytes_sent();
    ASSERT_EQ(c.broadcast(buf.data(), buf.size(), root), Status::OK);
    for (size_t i = 0; i < buf.size(); ++i)
      ASSERT_EQ(buf[i], pattern(root, i));
    EXPECT_EQ(c.bytes_sent(), me == root ? buf.size() * (n - 1) : 0u);
  }
}

/// Rank r's values of an all_reduce case.
inline std::vector<float> floats_of(int rank, size_t count) {
  std::mt19937 rng(1000 + rank);
  std::uniform_real_distribution<float> d(-100, 100);
  std::vector<float> v(count);
  for (float &x : v)
    x = d(rng);
  return v;
}

inline void all_reduce(Communicator &c) {
  const int n = c.size(), me = c.rank();
  // More than one block of the combination (2048 elements), and on 3
  // ranks slices that do not divide evenly.
  const size_t count = 5000;
  // f32 sum: rank 0's value, plus rank 1's, ... in float: the same bits.
  std::vector<float> f = floats_of(me, count), want(count);
  for (int r = 0; r < n; ++r) {
    const std::vector<float> v = floats_of(r, count);
    for (size_t i = 0; i < count; ++i)
      want[i] = r == 0 ? v[i] : want[i] + v[i];
  }
  ASSERT_EQ(c.all_reduce(f.data(), count, ElemType::F32, ReduceOp::Sum),
            Status::OK);
  for (size_t i = 0; i < count; ++i)
    ASSERT_EQ(f[i], want[i]) << i;
  // bf16 max and sum: combined in float, rounded to bf16 once.
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max}) {
    std::vector<bf16> h(count);
    const std::vector<float> mine = floats_of(me, count);
    for (size_t i = 0; i < count; ++i)
      h[i] = f32_to_bf16(mine[i]);
    std::vector<float> acc(count);
    for (int r = 0; r < n; ++r) {
      const std::vector<float> v = floats_of(r, count);
      for (size_t i = 0; i < count; ++i) {
        const float x = bf16_to_f32(f32_to_bf16(v[i]));
        acc[i] = r == 0 ? x : op == ReduceOp::Sum ? acc[i] + x
                                                  : std::max(acc[i], x);
      }
    }
    ASSERT_EQ(c.all_reduce(h.data(), count, ElemType::BF16, op), Status::OK);
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(h[i].bits, f32_to_bf16(acc[i]).bits) << i;
  }
  // f16 (how pto-isa's CPU simulation may store bf16 buffers): a sum in
  // float, rounded to half once.
  {
    std::vector<f16> h(count);
    const std::vector<float> mine = floats_of(me, count);
    for (size_t i = 0; i < count; ++i)
      h[i] = f32_to_f16(mine[i]);
    std::vector<float> acc(count);
    for (int r = 0; r < n; ++r) {
      const std::vector<float> v = floats_of(r, count);
      for (size_t i = 0; i < count; ++i) {
        const float x = f16_to_f32(f32_to_f16(v[i]));
        acc[i] = r == 0 ? x : acc[i] + x;
      }
    }
    ASSERT_EQ(c.all_reduce(h.data(), count, ElemType::F16, ReduceOp::Sum),
              Status::OK);
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(h[i].bits, f32_to_f16(acc[i]).bits) << i;
  }
  // i32 min, and a sum that wraps as int32 arithmetic does on the device.
  std::vector<int32_t> m = {me * 5 - 3, -me, 7}, s = {INT32_MAX, me, -me};
  ASSERT_EQ(c.all_reduce(m.data(), 3, ElemType::I32, ReduceOp::Min),
            Status::OK);
  EXPECT_EQ(m, (std::vector<int32_t>{-3, -(n - 1), 7}));
  ASSERT_EQ(c.all_reduce(s.data(), 3, ElemType::I32, ReduceOp::Sum),
            Status::OK);
  const int64_t wrapped = int64_t(INT32_MAX) * n;
  EXPECT_EQ(s[0], static_cast<int32_t>(static_cast<uint32_t>(wrapped)));
  EXPECT_EQ(s[1], n * (n - 1) / 2);
  EXPECT_EQ(s[2], -n * (n - 1) / 2);
}

/// Bad arguments, on one rank or on all: INVALID_PARAMS on every rank, no
/// byte written anywhere; the group stays usable.
inline void bad_arguments(Communicator &c) {
  const int n = c.size(), me = c.rank();
  const size_t bytes = 16;
  std::vector<uint8_t> send(bytes * n, uint8_t(me)), recv(bytes * n, 0xee);
  auto untouched = [&] {
    for (uint8_t b : recv)
      if (b != 0xee)
        return false;
    return true;
  };
  // A null send buffer on rank 0 only.
  EXPECT_EQ(c.all_gather(me == 0 ? nullptr : send.data(), recv.data(), bytes),
            Status::INVALID_PARAMS);
  EXPECT_TRUE(untouched());
  // Ranks that disagree on the size.
  EXPECT_EQ(c.all_gather(send.data(), recv.data(), me == n - 1 ? bytes - 1 : bytes),
            n > 1 ? Status::INVALID_PARAMS : Status::OK);
  if (n > 1) {
    EXPECT_TRUE(untouched());
  }
  recv.assign(recv.size(), 0xee);
  // Ranks that disagree on the operation: a broadcast against a gather.
  if (n > 1) {
    const Status s = me == 0 ? c.broadcast(recv.data(), bytes, 0)
                             : c.all_gather(send.data(), recv.data(), bytes);
    EXPECT_EQ(s, Status::INVALID_PARAMS);
    EXPECT_TRUE(untouched());
  }
  // Overlapping send and receive buffers.
  EXPECT_EQ(c.all_gather(recv.data(), recv.data(), bytes),
            Status::INVALID_PARAMS);
  EXPECT_TRUE(untouched());
  // A root outside the group, on every rank.
  EXPECT_EQ(c.broadcast(recv.data(), bytes, n), Status::INVALID_PARAMS);
  EXPECT_EQ(c.broadcast(recv.data(), bytes, -1), Status::INVALID_PARAMS);
  EXPECT_TRUE(untouched());
  // Sizes that overflow; an element type and a reduction outside the enums.
  EXPECT_EQ(c.all_gather(send.data(), recv.data(), ~size_t(0) / 2),
            Status::INVALID_PARAMS);
  EXPECT_EQ(c.all_reduce(recv.data(), ~size_t(0) / 3, ElemType::F32,
                         ReduceOp::Sum),
            Status::INVALID_PARAMS);
  EXPECT_EQ(c.all_reduce(recv.data(), 2, static_cast<ElemType>(9),
                         ReduceOp::Sum),
            Status::INVALID_PARAMS);
  EXPECT_EQ(c.all_reduce(recv.data(), 2, ElemType::F32,
                         static_cast<ReduceOp>(9)),
            Status::INVALID_PARAMS);
  EXPECT_TRUE(untouched());
  // A rank whose earlier work failed joins the call not ready: the call
  // fails on every rank, nothing written.
  std::vector<float> f(4, float(me));
  EXPECT_EQ(c.all_reduce(f.data(), f.size(), ElemType::F32, ReduceOp::Sum,
                         /*ready=*/me != n - 1),
            Status::INVALID_PARAMS);
  EXPECT_EQ(f, std::vector<float>(4, float(me)));
  EXPECT_EQ(c.all_gather(send.data(), recv.data(), bytes, /*ready=*/me != 0),
            Status::INVALID_PARAMS);
  EXPECT_TRUE(untouched());
  // The group still works.
  EXPECT_EQ(c.barrier(), Status::OK);
  ASSERT_EQ(c.all_gather(send.data(), recv.data(), bytes), Status::OK);
  for (int r = 0; r < n; ++r)
    EXPECT_EQ(recv[r * bytes], uint8_t(r));
}


/// A 4-D int32 tensor of the axis forms: value = rank * 1000000 + the
/// element's row-major index, so every element says where it came from.
struct Tensor4 {
  int64_t sizes[4];
  std::vector<int32_t> v;
  explicit Tensor4(const int64_t (&s)[4], int32_t fill = -1)
      : sizes{s[0], s[1], s[2], s[3]},
        v(size_t(s[0] * s[1] * s[2] * s[3]), fill) {}
  int64_t index(const int64_t (&i)[4]) const {
    return ((i[0] * sizes[1] + i[1]) * sizes[2] + i[2]) * sizes[3] + i[3];
  }
  void fill_as(int rank) {
    for (size_t k = 0; k < v.size(); ++k)
      v[k] = int32_t(rank * 1000000 + int64_t(k));
  }
  /// Calls f(index) for every multi-index, in row-major order.
  template <typename F> void each(F f) const {
    int64_t i[4];
    for (i[0] = 0; i[0] < sizes[0]; ++i[0])
      for (i[1] = 0; i[1] < sizes[1]; ++i[1])
        for (i[2] = 0; i[2] < sizes[2]; ++i[2])
          for (i[3] = 0; i[3] < sizes[3]; ++i[3])
            f(i);
  }
};

/// all_gather_axis along each axis: recv[.., k * s + j, ..] = rank k's
/// send[.., j, ..].
inline void all_gather_axis(Communicator &c) {
  const int n = c.size(), me = c.rank();
  for (int axis = 0; axis < 4; ++axis) {
    SCOPED_TRACE(testing::Message() << "axis " << axis);
    const int64_t base[4] = {2, 3, 4, 5};
    Tensor4 send(base);
    send.fill_as(me);
    int64_t grown[4] = {2, 3, 4, 5};
    grown[axis] *= n;
    Tensor4 recv(grown);
    c.reset_bytes_sent();
    ASSERT_EQ(c.all_gather_axis(send.v.data(), send.sizes, recv.v.data(),
                                recv.sizes, 4, axis, sizeof(int32_t)),
              Status::OK);
    EXPECT_EQ(c.bytes_sent(), send.v.size() * 4 * size_t(n - 1));
    recv.each([&](const int64_t (&i)[4]) {
      int64_t j[4] = {i[0], i[1], i[2], i[3]};
      const int64_t from = i[axis] / base[axis];
      j[axis] = i[axis] % base[axis];
      ASSERT_EQ(recv.v[size_t(recv.index(i))],
                int32_t(from * 1000000 + send.index(j)));
    });
  }
}

/// all_to_all_axes for several (split, concat) pairs: rank me's recv at
/// concat index k * p + j holds what rank k's send had at split index
/// me * q + (that index), q and p the piece's sizes on the two axes.
inline void all_to_all_axes(Communicator &c) {
  const int n = c.size(), me = c.rank();
  const int pairs[][2] = {{0, 2}, {2, 0}, {1, 1}, {0, 3}, {3, 1}, {2, 2}};
  for (const auto &pair : pairs) {
    const int split = pair[0], concat = pair[1];
    SCOPED_TRACE(testing::Message() << "split " << split << " concat "
                                    << concat);
    int64_t s[4] = {2, 3, 4, 5};
    s[split] *= n;
    Tensor4 send(s);
    send.fill_as(me);
    int64_t piece[4] = {s[0], s[1], s[2], s[3]};
    piece[split] /= n;
    int64_t r[4] = {piece[0], piece[1], piece[2], piece[3]};
    r[concat] *= n;
    Tensor4 recv(r);
    c.reset_bytes_sent();
    ASSERT_EQ(c.all_to_all_axes(send.v.data(), send.sizes, recv.v.data(),
                                recv.sizes, 4, split, concat, sizeof(int32_t)),
              Status::OK);
    EXPECT_EQ(c.bytes_sent(), send.v.size() * 4 / size_t(n) * size_t(n - 1));
    recv.each([&](const int64_t (&i)[4]) {
      int64_t j[4] = {i[0], i[1], i[2], i[3]};
      const int64_t from = i[concat] / piece[concat];
      j[concat] = i[concat] % piece[concat];
      j[split] += me * piece[split];
      ASSERT_EQ(recv.v[size_t(recv.index(i))],
                int32_t(from * 1000000 + send.index(j)));
    });
  }
}

/// all_slice_axis: this rank's piece along each axis, no communication.
inline void all_slice_axis(Communicator &c) {
  const int n = c.size(), me = c.rank();
  for (int axis = 0; axis < 4; ++axis) {
    int64_t s[4] = {2, 3, 4, 5};
    const int64_t part = s[axis];
    s[axis] *= n;
    Tensor4 send(s);
    send.fill_as(7);
    int64_t r[4] = {2, 3, 4, 5};
    Tensor4 recv(r);
    ASSERT_EQ(c.all_slice_axis(send.v.data(), send.sizes, recv.v.data(),
                               recv.sizes, 4, axis, sizeof(int32_t)),
              Status::OK);
    recv.each([&](const int64_t (&i)[4]) {
      int64_t j[4] = {i[0], i[1], i[2], i[3]};
      j[axis] += me * part;
      ASSERT_EQ(recv.v[size_t(recv.index(i))],
                int32_t(7 * 1000000 + send.index(j)));
    });
  }
}

/// The axis forms' bad sizes: INVALID_PARAMS on every rank, nothing
/// written.
inline void bad_axis_arguments(Communicator &c) {
  const int n = c.size(), me = c.rank();
  const int64_t base[4] = {2, 3, 4, 5};
  Tensor4 send(base);
  send.fill_as(me);
  int64_t grown[4] = {2, 3, 4 * n, 5};
  Tensor4 recv(grown, -1);
  auto untouched = [&] {
    for (int32_t x : recv.v)
      if (x != -1)
        return false;
    return true;
  };
  // A receive size that is not size() x the send's, on the last rank.
  int64_t wrong[4] = {2, 3, me == n - 1 ? 4 * n + 1 : 4 * n, 5};
  EXPECT_EQ(c.all_gather_axis(send.v.data(), send.sizes, recv.v.data(), wrong,
                              4, 2, 4),
            Status::INVALID_PARAMS);
  EXPECT_TRUE(untouched());
  // An axis outside the tensor; a negative size.
  EXPECT_EQ(c.all_gather_axis(send.v.data(), send.sizes, recv.v.data(),
                              recv.sizes, 4, 4, 4),
            Status::INVALID_PARAMS);
  const int64_t negative[4] = {2, -3, 4, 5};
  EXPECT_EQ(c.all_gather_axis(send.v.data(), negative, recv.v.data(),
                              recv.sizes, 4, 2, 4),
            Status::INVALID_PARAMS);
  EXPECT_TRUE(untouched());
  // Ranks that cut the same bytes at different axes (rank 0 gathers along
  // axis 0 of a [1, 120] view: the same bytes per rank, another layout).
  if (n > 1) {
    const int64_t flat[4] = {1, 1, 1, 120}, flat_n[4] = {1, 1, 1, 120 * n};
    const Status s =
        me == 0 ? c.all_gather_axis(send.v.data(), flat, recv.v.data(), flat_n,
                                    4, 3, 4)
                : c.all_gather_axis(send.v.data(), send.sizes, recv.v.data(),
                                    recv.sizes, 4, 2, 4);
    EXPECT_EQ(s, Status::INVALID_PARAMS);
    EXPECT_TRUE(untouched());
  }
  // all_to_all: a split axis the ranks do not divide (n > 1), a rank not
  // ready.
  if (n > 1) {
    int64_t odd[4] = {2, 3, 4, 5};
    EXPECT_EQ(c.all_to_all_axes(send.v.data(), odd, recv.v.data(), recv.sizes,
                                4, 3, 2, 4),
              Status::INVALID_PARAMS);
    EXPECT_TRUE(untouched());
  }
  int64_t split_src[4] = {2, 3, 4, 5 * n};
  Tensor4 big(split_src);
  EXPECT_EQ(c.all_to_all_axes(big.v.data(), big.sizes, recv.v.data(),
                              recv.sizes, 4, 3, 2, 4, /*ready=*/me != 0),
            Status::INVALID_PARAMS);
  EXPECT_TRUE(untouched());
  // all_slice: sizes that do not fit, a rank not ready (alone).
  EXPECT_EQ(c.all_slice_axis(recv.v.data(), recv.sizes, send.v.data(), wrong,
                             4, 2, 4),
            Status::INVALID_PARAMS);
  EXPECT_EQ(c.all_slice_axis(recv.v.data(), recv.sizes, send.v.data(),
                             send.sizes, 4, 2, 4, /*ready=*/false),
            Status::INVALID_PARAMS);
  // The group still works.
  EXPECT_EQ(c.all_gather_axis(send.v.data(), send.sizes, recv.v.data(),
                              recv.sizes, 4, 2, 4),
            Status::OK);
}

/// Rank groups (Communicator::along): for each grid whose ranks are this
/// group's (n; 1 x n; 2 x n/2 and n/2 x 2 when n is even; 2 x 2 x n/4 when
/// n divides by 4) and each set of its axes, in both orders when there are
/// two, the group's members are the ranks whose coordinates differ only
/// along the axes, its rank is the index along them (linear in the order
/// given), and an all_reduce and an all_gather over it combine and gather
/// its members alone. Expected members come from coordinates computed
/// here.
inline void groups(Communicator &c) {
  const int n = c.size(), me = c.rank();
  std::vector<std::vector<int64_t>> grids = {{n}, {1, n}};
  if (n % 2 == 0 && n > 2)
    grids.push_back({2, n / 2}), grids.push_back({n / 2, 2});
  if (n % 4 == 0 && n > 4)
    grids.push_back({2, 2, n / 4});
  for (const std::vector<int64_t> &shape : grids) {
    const int dims = int(shape.size());
    auto coords = [&](int r) {
      std::vector<int64_t> at(static_cast<size_t>(dims), 0);
      for (int d = dims - 1; d >= 0; --d) {
        at[size_t(d)] = r % shape[size_t(d)];
        r /= int(shape[size_t(d)]);
      }
      return at;
    };
    std::vector<std::vector<int16_t>> axis_sets;
    for (int mask = 1; mask < (1 << dims); ++mask) {
      std::vector<int16_t> axes;
      for (int d = 0; d < dims; ++d)
        if (mask & (1 << d))
          axes.push_back(int16_t(d));
      axis_sets.push_back(axes);
      if (axes.size() == 2)
        axis_sets.push_back({axes[1], axes[0]});
    }
    for (const std::vector<int16_t> &axes : axis_sets) {
      SCOPED_TRACE(testing::Message()
                   << "grid of " << dims << " dims, " << axes.size()
                   << " axes, first " << axes[0]);
      // The members in group order: ranks agreeing with this one outside
      // the axes, ordered by their coordinates along the axes.
      std::vector<std::pair<int64_t, int>> members;
      const std::vector<int64_t> mine = coords(me);
      for (int r = 0; r < n; ++r) {
        const std::vector<int64_t> at = coords(r);
        bool same = true;
        for (int d = 0; d < dims; ++d)
          if (std::find(axes.begin(), axes.end(), d) == axes.end())
            same = same && at[size_t(d)] == mine[size_t(d)];
        if (!same)
          continue;
        int64_t key = 0;
        for (int16_t a : axes)
          key = key * shape[size_t(a)] + at[size_t(a)];
        members.emplace_back(key, r);
      }
      std::sort(members.begin(), members.end());
      Communicator *g = nullptr;
      ASSERT_EQ(c.along(shape.data(), dims, axes.data(), int(axes.size()), g),
                Status::OK);
      ASSERT_NE(g, nullptr);
      ASSERT_EQ(g->size(), int(members.size()));
      ASSERT_EQ(members[size_t(g->rank())].second, me);
      // Asked again: the same group.
      Communicator *again = nullptr;
      ASSERT_EQ(
          c.along(shape.data(), dims, axes.data(), int(axes.size()), again),
          Status::OK);
      EXPECT_EQ(again, g);
      int32_t sum = me + 1, want = 0;
      for (auto [key, r] : members)
        want += r + 1;
      ASSERT_EQ(g->all_reduce(&sum, 1, ElemType::I32, ReduceOp::Sum),
                Status::OK);
      EXPECT_EQ(sum, want);
      std::vector<int32_t> who(members.size() + 1, -1);
      const int32_t self = me;
      ASSERT_EQ(g->all_gather(&self, who.data(), sizeof self), Status::OK);
      for (size_t k = 0; k < members.size(); ++k)
        EXPECT_EQ(who[k], members[k].second) << "group rank " << k;
      EXPECT_EQ(who.back(), -1) << "written past the receive buffer";
    }
  }
  // What does not fit: every rank gets INVALID_PARAMS, no group is made,
  // and the communicator still works.
  Communicator *none = nullptr;
  const int64_t wrong[2] = {n + 1, 1}, one[1] = {n};
  const int16_t first = 0, twice[2] = {0, 0}, outside = 1, negative = -1;
  EXPECT_EQ(c.along(wrong, 2, &first, 1, none), Status::INVALID_PARAMS);
  EXPECT_EQ(c.along(one, 1, twice, 2, none), Status::INVALID_PARAMS);
  EXPECT_EQ(c.along(one, 1, &outside, 1, none), Status::INVALID_PARAMS);
  EXPECT_EQ(c.along(one, 1, &negative, 1, none), Status::INVALID_PARAMS);
  EXPECT_EQ(c.along(one, 0, &first, 1, none), Status::INVALID_PARAMS);
  EXPECT_EQ(c.along(one, 1, &first, 0, none), Status::INVALID_PARAMS);
  // Ranks asking for different groups (rank 0 another axis), groups that
  // exist already: the ranks still agree on every request.
  if (n % 2 == 0 && n > 2) {
    const int64_t two[2] = {2, n / 2};
    const int16_t axis = me == 0 ? 1 : 0;
    EXPECT_EQ(c.along(two, 2, &axis, 1, none), Status::INVALID_PARAMS);
  }
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(c.barrier(), Status::OK);
}

} // namespace collective_cases

#endif // WSP_UNITTESTS_COLLECTIVE_CASES_H
