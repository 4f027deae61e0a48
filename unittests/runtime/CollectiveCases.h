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
  const size_t count = 1000;
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

} // namespace collective_cases

#endif // WSP_UNITTESTS_COLLECTIVE_CASES_H
