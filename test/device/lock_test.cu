// Lock properties on GPU threads only: no lost updates per thread (all 32 lanes of each
// warp contending) and per group (blocks and warp tiles), from 1 block to 4x the
// multiprocessors; uniform try_lock(group); FIFO service for the fair types.

#include "device_actors.cuh"
#include "gpu.hpp"
#include "lockables.hpp"

#include <unisync/managed.hpp>
#include <unisync/mutex.hpp>
#include <unisync/unique_lock.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace unisync::test;

template <class Lock>
class DeviceLock : public ::testing::Test {};
using device_lock_types =
    ::testing::Types<unisync::mutex, unisync::spin_mutex, unisync::ticket_mutex, system_spin_ticket_mutex, device_mutex,
                     device_ticket_mutex, unisync::cohort_mutex, semaphore_lock<cuda::thread_scope_system>>;
TYPED_TEST_SUITE(DeviceLock, device_lock_types, type_names);

std::vector<int> block_counts() { return {1, multiprocessor_count(), 4 * multiprocessor_count()}; }

TYPED_TEST(DeviceLock, NoLostUpdatesPerThreadWithWholeWarpsContending)
{
  UNISYNC_REQUIRE_GPU();
  constexpr int threads_per_block = 32;
  for (int blocks : block_counts()) {
    auto lock = unisync::make_managed<TypeParam>();
    auto counter = unisync::make_managed<unsigned long long>(0ull);
    int const iterations = std::max(1, 40000 / (blocks * threads_per_block));
    increment_per_thread<<<blocks, threads_per_block>>>(lock.get(), counter.get(), iterations);
    ASSERT_EQ(finish_device_work(), cudaSuccess);
    EXPECT_EQ(*counter, static_cast<unsigned long long>(blocks) * threads_per_block * iterations) << blocks << " blocks";
  }
}

TYPED_TEST(DeviceLock, NoLostUpdatesPerBlock)
{
  UNISYNC_REQUIRE_GPU();
  constexpr int threads_per_block = 128;
  for (int blocks : block_counts()) {
    auto lock = unisync::make_managed<TypeParam>();
    auto counter = unisync::make_managed<unsigned long long>(0ull);
    int const iterations = std::max(1, 20000 / blocks);
    increment_per_group<0><<<blocks, threads_per_block>>>(lock.get(), counter.get(), iterations);
    ASSERT_EQ(finish_device_work(), cudaSuccess);
    EXPECT_EQ(*counter, static_cast<unsigned long long>(blocks) * threads_per_block * iterations) << blocks << " blocks";
  }
}

TYPED_TEST(DeviceLock, NoLostUpdatesPerWarpTile)
{
  UNISYNC_REQUIRE_GPU();
  constexpr int threads_per_block = 128;
  int const blocks = multiprocessor_count();
  auto lock = unisync::make_managed<TypeParam>();
  auto counter = unisync::make_managed<unsigned long long>(0ull);
  int const iterations = 50;
  increment_per_group<32><<<blocks, threads_per_block>>>(lock.get(), counter.get(), iterations);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*counter, static_cast<unsigned long long>(blocks) * threads_per_block * iterations);
}

TYPED_TEST(DeviceLock, TryLockOfAGroupAgreesInEveryThread)
{
  UNISYNC_REQUIRE_GPU();
  auto lock = unisync::make_managed<TypeParam>();
  auto violations = unisync::make_managed<unsigned>(0u);
  auto successes = unisync::make_managed<unsigned>(0u);
  try_lock_per_block<<<multiprocessor_count(), 128>>>(lock.get(), violations.get(), successes.get(), 200);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*violations, 0u);
  EXPECT_GT(*successes, 0u);
}

template <class Lock>
class DeviceFifoLock : public ::testing::Test {};
using device_fifo_lock_types = ::testing::Types<unisync::ticket_mutex, system_spin_ticket_mutex, device_ticket_mutex,
                                                unisync::cohort_mutex, semaphore_lock<cuda::thread_scope_system>>;
TYPED_TEST_SUITE(DeviceFifoLock, device_fifo_lock_types, type_names);

TYPED_TEST(DeviceFifoLock, ServesInTicketOrder)
{
  UNISYNC_REQUIRE_GPU();
  constexpr unsigned actors = 64;
  auto lock = unisync::make_managed<TypeParam>();
  std::vector<unsigned, unisync::managed_allocator<unsigned>> served(actors, ~0u);
  auto next_place = unisync::make_managed<unsigned>(0u);
  unsigned long long const first_ticket = unisync::detail::test_access::tickets_taken(*lock);
  serve_in_ticket_order<<<actors, 1>>>(lock.get(), served.data(), next_place.get(), first_ticket);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  for (unsigned place = 0; place < actors; ++place) EXPECT_EQ(served[place], place) << "place " << place;
}

/// Unlocks a unique_lock twice: the second unlock() is misuse (std: std::system_error).
__global__ void unlock_unique_lock_twice(unisync::mutex* lock)
{
  unisync::unique_lock<unisync::mutex> owner(*lock);
  owner.unlock();
  owner.unlock();
}

// A lock wrapper's misuse fails the kernel in every build: this suite is built without the
// per-operation precondition checks in release builds (CI's, and the device runs').
TEST(DeviceLockWrappers, MisuseFailsTheKernelInEveryBuild)
{
  UNISYNC_REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(unisync::test::expect_kernel_assert([] {
                unlock_unique_lock_twice<<<1, 1>>>(unisync::make_managed<unisync::mutex>().release());
              }),
              ::testing::ExitedWithCode(0), "unique_lock.hpp:[0-9]+: .*unique_lock::unlock\\(\\) without owning");
}

// The checker itself: without a lock, GPU threads must lose updates.
struct not_a_lock {
  __device__ void lock() {}
  __device__ void unlock() {}
};

TEST(DeviceLockChecker, DetectsLostUpdatesWithoutALock)
{
  UNISYNC_REQUIRE_GPU();
  auto lock = unisync::make_managed<not_a_lock>();
  auto counter = unisync::make_managed<unsigned long long>(0ull);
  increment_per_thread<<<multiprocessor_count(), 32>>>(lock.get(), counter.get(), 100);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_LT(*counter, static_cast<unsigned long long>(multiprocessor_count()) * 32 * 100);
}

}  // namespace
