//===- CrossCoreFlagsTest.cpp - a mixed block's cross-core flags ----------===//
//
// pto/runtime/cross_core.hpp: FFTS mode 2 between a block's cube core and
// its two vector cores, run as concurrent threads, and the three sync bugs
// it reports (a counter past 15, a wait nobody answers, a flag left
// raised).
//
//===----------------------------------------------------------------------===//

#include "pto/runtime/cross_core.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using namespace pto::runtime;
using namespace std::chrono_literals;

namespace {

constexpr BlockCore kCube = BlockCore::cube, kVector = BlockCore::vector;

TEST(CrossCoreFlagsTest, CubeSetReachesEveryVectorCore) {
  CrossCoreFlags flags(0);
  flags.set(kCube, 0, 3);
  // Each vector core takes its own copy of the one set.
  flags.wait(kVector, 0, 3);
  flags.wait(kVector, 1, 3);
  flags.check_drained();
}

TEST(CrossCoreFlagsTest, CubeWaitsForEveryVectorCore) {
  CrossCoreFlags flags(0);
  std::atomic<bool> through{false};
  std::thread cube([&] {
    flags.wait(kCube, 0, 2);
    through = true;
  });
  flags.set(kVector, 0, 2);
  // One vector core's set does not let the cube through.
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(through.load());
  flags.set(kVector, 1, 2);
  cube.join();
  EXPECT_TRUE(through.load());
  flags.check_drained();
}

TEST(CrossCoreFlagsTest, PingPongBetweenThreeThreads) {
  // The pattern of a pipelined kernel: the cube produces tile j (flag 0 to
  // the vector cores), each vector core consumes it and hands the buffer
  // back (flag 1 to the cube); the data goes through shared memory and must
  // be seen whole.
  constexpr int kTiles = 200, kLen = 64;
  CrossCoreFlags flags(7, 10s);
  std::vector<int> buffer(kLen);
  std::vector<long> sums(kVectorCoresPerBlock, 0);
  std::thread cube([&] {
    for (int j = 0; j < kTiles; ++j) {
      if (j > 0)
        flags.wait(kCube, 0, 1);
      for (int i = 0; i < kLen; ++i)
        buffer[i] = j * kLen + i;
      flags.set(kCube, 0, 0);
    }
    flags.wait(kCube, 0, 1);
  });
  std::vector<std::thread> vectors;
  for (uint32_t sub = 0; sub < kVectorCoresPerBlock; ++sub)
    vectors.emplace_back([&, sub] {
      for (int j = 0; j < kTiles; ++j) {
        flags.wait(kVector, sub, 0);
        for (int i = 0; i < kLen; ++i)
          sums[sub] += buffer[i];
        flags.set(kVector, sub, 1);
      }
    });
  cube.join();
  for (auto &t : vectors)
    t.join();
  const long n = static_cast<long>(kTiles) * kLen;
  for (long s : sums)
    EXPECT_EQ(s, n * (n - 1) / 2);
  flags.check_drained();
}

TEST(CrossCoreFlagsTest, FifteenSetsWaitAndTheSixteenthIsReported) {
  CrossCoreFlags flags(0);
  for (int i = 0; i < kCrossCoreFlagMaxCount; ++i)
    flags.set(kVector, 1, 4);
  EXPECT_DEATH(flags.set(kVector, 1, 4),
               "cross-core flags: block 0, vector core 1 sets cross-core "
               "flag 4 a 16th time before it is waited on");
  for (int i = 0; i < kCrossCoreFlagMaxCount; ++i)
    flags.set(kVector, 0, 4);
  for (int i = 0; i < kCrossCoreFlagMaxCount; ++i)
    flags.wait(kCube, 0, 4);
  flags.check_drained();
}

TEST(CrossCoreFlagsTest, AWaitNobodyAnswersIsReportedNotHung) {
  CrossCoreFlags flags(5, 50ms);
  // Only one vector core set it: the cube would hang on the device.
  flags.set(kVector, 0, 9);
  EXPECT_DEATH(flags.wait(kCube, 0, 9),
               "block 5, the cube waited 50 ms for cross-core flag 9, which "
               "the other cores never set");
  EXPECT_DEATH(flags.wait(kVector, 1, 2),
               "block 5, vector core 1 waited 50 ms for cross-core flag 2");
}

TEST(CrossCoreFlagsTest, AFlagLeftRaisedIsReported) {
  {
    CrossCoreFlags flags(2);
    flags.set(kCube, 0, 6);
    flags.wait(kVector, 0, 6);
    // Vector core 1 never took its copy.
    EXPECT_DEATH(flags.check_drained(),
                 "block 2, the cube set cross-core flag 6 for vector core 1, "
                 "which never waited on it");
  }
  {
    CrossCoreFlags flags(3);
    flags.set(kVector, 1, 0);
    EXPECT_DEATH(flags.check_drained(),
                 "block 3, vector core 1 set cross-core flag 0, which the "
                 "cube never waited on");
  }
}

TEST(CrossCoreFlagsTest, IdsAndCoresOutsideTheBlockAreReported) {
  CrossCoreFlags flags(0);
  EXPECT_DEATH(flags.set(kCube, 0, 16),
               "the cube names cross-core flag 16; a block has 16");
  EXPECT_DEATH(flags.wait(kVector, 2, 0),
               "vector core 2 is not one of the block's 2 vector cores");
}

} // namespace
