// partitioned_semaphore on GPU threads only: never more than N holders, per thread and per
// block, for N in {1, 2, 8}. The initial permits start in the CPU's pool; the GPU side
// takes them across once (the CPU side has never been active), then runs on its own.

#include "device_actors.cuh"
#include "gpu.hpp"

#include <unisync/managed.hpp>
#include <unisync/partitioned_semaphore.hpp>

#include <gtest/gtest.h>

#include <tuple>

namespace {

using namespace unisync::test;

// (permits, blocks as a multiple of the multiprocessor count)
class DevicePartitionedSemaphoreHolders : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(DevicePartitionedSemaphoreHolders, NeverMoreThanNHoldersPerThread)
{
  UNISYNC_REQUIRE_GPU();
  auto const [permits, blocks_per_multiprocessor] = GetParam();
  int const blocks = blocks_per_multiprocessor * multiprocessor_count();
  auto semaphore = unisync::make_managed<unisync::partitioned_semaphore<>>(permits);
  auto record = unisync::make_managed<occupancy_record>();
  hold_per_thread<<<blocks, 32>>>(semaphore.get(), record.get(), 4);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_LE(record->most_seen, permits);
  EXPECT_GE(record->most_seen, 1);
  EXPECT_EQ(record->entries, blocks * 32 * 4);
  EXPECT_EQ(unisync::detail::test_access::count(*semaphore), permits);
}

TEST_P(DevicePartitionedSemaphoreHolders, NeverMoreThanNHoldersPerBlock)
{
  UNISYNC_REQUIRE_GPU();
  auto const [permits, blocks_per_multiprocessor] = GetParam();
  int const blocks = blocks_per_multiprocessor * multiprocessor_count();
  auto semaphore = unisync::make_managed<unisync::partitioned_semaphore<>>(permits);
  auto record = unisync::make_managed<occupancy_record>();
  hold_per_block<<<blocks, 128>>>(semaphore.get(), record.get(), 20);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_LE(record->most_seen, permits);
  EXPECT_EQ(record->entries, blocks * 20);
  EXPECT_EQ(unisync::detail::test_access::count(*semaphore), permits);
}

INSTANTIATE_TEST_SUITE_P(PermitsAndBlocks, DevicePartitionedSemaphoreHolders,
                         ::testing::Combine(::testing::Values(1, 2, 8), ::testing::Values(1, 4)));

__global__ void try_and_release(unisync::partitioned_binary_semaphore* semaphore, int* taken)
{
  if (semaphore->try_acquire_for(cuda::std::chrono::seconds(5))) {
    *taken = 1;
    semaphore->release();
  }
}

// A semaphore used from the host first, then from a kernel: the kernel's timed acquire
// finds the permit the host left in its pool (the host side is idle), and the host then
// gets it back from the GPU's pool.
TEST(DevicePartitionedSemaphore, PermitsMoveToTheSideThatUsesThem)
{
  UNISYNC_REQUIRE_GPU();
  auto semaphore = unisync::make_managed<unisync::partitioned_binary_semaphore>(1);
  auto taken = unisync::make_managed<int>(0);
  semaphore->acquire();
  semaphore->release();
  try_and_release<<<1, 1>>>(semaphore.get(), taken.get());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*taken, 1);
  EXPECT_TRUE(semaphore->try_acquire_for(std::chrono::seconds(5))) << "the permit stayed on the GPU side";
  EXPECT_EQ(unisync::detail::test_access::count(*semaphore), 0);
}

}  // namespace
