// Spec §4, §8.1: WorkDescriptor layout, flags, params, descriptor buffers.
#include <pto/runtime/runtime.hpp>

#include <gtest/gtest.h>

#include <cstring>

using namespace pto::runtime;

TEST(WorkDescriptor, Layout) {
  // The header static_asserts these too; the test states the contract.
  EXPECT_EQ(sizeof(WorkDescriptor), 24u);
  EXPECT_EQ(alignof(WorkDescriptor), 8u);
  EXPECT_EQ(offsetof(WorkDescriptor, work_id), 0u);
  EXPECT_EQ(offsetof(WorkDescriptor, tier), 4u);
  EXPECT_EQ(offsetof(WorkDescriptor, flags), 5u);
  EXPECT_EQ(offsetof(WorkDescriptor, reserved), 6u);
  EXPECT_EQ(offsetof(WorkDescriptor, params), 8u);
  static_assert(std::is_trivially_copyable_v<WorkDescriptor>);
  static_assert(std::is_standard_layout_v<WorkDescriptor>);
}

TEST(WorkDescriptor, ByteImage) {
  WorkDescriptor d{};
  d.work_id = 0x04030201u;
  d.tier = 5;
  d.flags = WorkDescriptor::FLAG_FIRST | WorkDescriptor::FLAG_LAST;
  params::Attention::set(d, 0x11, 0x22, 0x33, 0x44);
  unsigned char bytes[24];
  std::memcpy(bytes, &d, 24);
  // Little-endian host (x86-64, aarch64): work_id LSB first.
  EXPECT_EQ(bytes[0], 0x01);
  EXPECT_EQ(bytes[3], 0x04);
  EXPECT_EQ(bytes[4], 5);
  EXPECT_EQ(bytes[5], 0x03);
  EXPECT_EQ(bytes[6], 0);
  EXPECT_EQ(bytes[7], 0);
  EXPECT_EQ(bytes[8], 0x11);
  EXPECT_EQ(bytes[12], 0x22);
  EXPECT_EQ(bytes[16], 0x33);
  EXPECT_EQ(bytes[20], 0x44);
}

TEST(WorkDescriptor, Flags) {
  static_assert(WorkDescriptor::FLAG_FIRST == 0x01);
  static_assert(WorkDescriptor::FLAG_LAST == 0x02);
  static_assert(WorkDescriptor::FLAG_INIT == 0x04);
  WorkDescriptor d{};
  d.flags = WorkDescriptor::FLAG_LAST | WorkDescriptor::FLAG_INIT;
  EXPECT_FALSE(d.is_first());
  EXPECT_TRUE(d.is_last());
  EXPECT_TRUE(d.is_init());
}

TEST(Params, Attention) {
  WorkDescriptor d{};
  params::Attention::set(d, 3, 7, 4096, 1000);
  EXPECT_EQ(params::Attention::request_idx(d), 3u);
  EXPECT_EQ(params::Attention::head_idx(d), 7u);
  EXPECT_EQ(params::Attention::kv_start(d), 4096u);
  EXPECT_EQ(params::Attention::kv_len(d), 1000u);
  EXPECT_EQ(params::Attention::kv_end(d), 5096u);
  EXPECT_EQ(d.params[0], 3u);
  EXPECT_EQ(d.params[3], 1000u);
}

TEST(Params, MoE) {
  WorkDescriptor d{};
  params::MoE::set(d, 1, 63, 128, 17);
  EXPECT_EQ(params::MoE::batch_idx(d), 1u);
  EXPECT_EQ(params::MoE::expert_idx(d), 63u);
  EXPECT_EQ(params::MoE::token_start(d), 128u);
  EXPECT_EQ(params::MoE::token_count(d), 17u);
  EXPECT_EQ(d.params[1], 63u);
}

TEST(DescriptorBuffer, AllocateZeroedAndAligned) {
  WorkDescriptor *buf = allocate_descriptors(1000);
  ASSERT_NE(buf, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buf) % 64, 0u);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(buf[i].work_id, 0u);
    EXPECT_EQ(buf[i].reserved, 0u);
  }
  buf[999].params[3] = 1; // whole range is writable
  free_descriptors(buf);
}

TEST(DescriptorBuffer, EdgeCounts) {
  EXPECT_EQ(allocate_descriptors(-1), nullptr);
  WorkDescriptor *empty = allocate_descriptors(0);
  EXPECT_NE(empty, nullptr) << "an empty plan still gets a buffer";
  free_descriptors(empty);
  free_descriptors(nullptr); // no-op
}
