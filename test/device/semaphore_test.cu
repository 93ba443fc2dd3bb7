// counting_semaphore on GPU threads only: never more than N holders, per thread and per
// block, for N in {1, 2, 8, 120} on the multiprocessor count and 4x it in blocks.

#include "device_actors.cuh"
#include "gpu.hpp"

#include <unisync/counting_semaphore.hpp>
#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <tuple>

namespace {

using namespace unisync::test;

// (permits, blocks as a multiple of the multiprocessor count)
class DeviceSemaphoreHolders : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(DeviceSemaphoreHolders, NeverMoreThanNHoldersPerThread)
{
  UNISYNC_REQUIRE_GPU();
  auto const [permits, blocks_per_multiprocessor] = GetParam();
  int const blocks = blocks_per_multiprocessor * multiprocessor_count();
  auto semaphore = unisync::make_managed<unisync::counting_semaphore<>>(permits);
  auto record = unisync::make_managed<occupancy_record>();
  hold_per_thread<<<blocks, 32>>>(semaphore.get(), record.get(), 4);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_LE(record->most_seen, permits);
  EXPECT_GE(record->most_seen, 1);
  EXPECT_EQ(record->entries, blocks * 32 * 4);
  EXPECT_EQ(unisync::detail::test_access::count(*semaphore), permits);
}

TEST_P(DeviceSemaphoreHolders, NeverMoreThanNHoldersPerBlock)
{
  UNISYNC_REQUIRE_GPU();
  auto const [permits, blocks_per_multiprocessor] = GetParam();
  int const blocks = blocks_per_multiprocessor * multiprocessor_count();
  auto semaphore = unisync::make_managed<unisync::counting_semaphore<>>(permits);
  auto record = unisync::make_managed<occupancy_record>();
  hold_per_block<<<blocks, 128>>>(semaphore.get(), record.get(), 20);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_LE(record->most_seen, permits);
  EXPECT_EQ(record->entries, blocks * 20);
}

INSTANTIATE_TEST_SUITE_P(PermitsAndBlocks, DeviceSemaphoreHolders,
                         ::testing::Combine(::testing::Values(1, 2, 8, 120), ::testing::Values(1, 4)));

TEST(DeviceSemaphore, DeviceScopeNoBackoffVariantNeverMoreThanNHolders)
{
  UNISYNC_REQUIRE_GPU();
  using semaphore_type = unisync::basic_counting_semaphore<cuda::thread_scope_device, 8, unisync::no_backoff>;
  auto semaphore = unisync::make_managed<semaphore_type>(8);
  auto record = unisync::make_managed<occupancy_record>();
  hold_per_thread<<<multiprocessor_count(), 32>>>(semaphore.get(), record.get(), 4);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_LE(record->most_seen, 8);
}

TEST(DeviceSemaphore, NoMoreThanNHoldersAcrossCounterWraparound)
{
  UNISYNC_REQUIRE_GPU();
  auto semaphore = unisync::make_managed<unisync::counting_semaphore<>>(2);
  unisync::detail::test_access::start_tickets_at(*semaphore, ~std::uint64_t{0} - 1000u);
  auto record = unisync::make_managed<occupancy_record>();
  hold_per_thread<<<multiprocessor_count(), 32>>>(semaphore.get(), record.get(), 1);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_LE(record->most_seen, 2);
  EXPECT_EQ(unisync::detail::test_access::count(*semaphore), 2);
}

// The checker itself: a semaphore that admits everyone must be caught.
struct admits_everyone {
  __device__ void acquire() {}
  __device__ void release() {}
};

TEST(DeviceSemaphoreChecker, DetectsTooManyHolders)
{
  UNISYNC_REQUIRE_GPU();
  auto none = unisync::make_managed<admits_everyone>();
  auto record = unisync::make_managed<occupancy_record>();
  hold_per_thread<<<multiprocessor_count(), 32>>>(none.get(), record.get(), 4);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_GT(record->most_seen, 1);
}

}  // namespace
