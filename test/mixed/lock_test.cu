// Lock properties with CPU threads and GPU threads on one object in managed memory: no
// lost updates (per thread and per block on the GPU side), and timed waits that give
// up on either side while the other side holds the lock.

#include "device_actors.cuh"
#include "gpu.hpp"
#include "lockables.hpp"
#include "mixed.hpp"

#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace {

using namespace unisync::test;
using namespace std::chrono_literals;

template <class Lock>
class MixedLock : public ::testing::Test {};
using mixed_lock_types = ::testing::Types<unisync::mutex, unisync::spin_mutex, unisync::ticket_mutex,
                                          system_spin_ticket_mutex, semaphore_lock<cuda::thread_scope_system>>;
TYPED_TEST_SUITE(MixedLock, mixed_lock_types, type_names);

struct mix {
  unsigned cpu_threads;
  int gpu_blocks;  // 0: as many as multiprocessors
};

TYPED_TEST(MixedLock, NoLostUpdates)
{
  UNISYNC_REQUIRE_GPU();
  for (mix const cell : {mix{1, 1}, mix{4, 0}}) {
    int const blocks = cell.gpu_blocks == 0 ? multiprocessor_count() : cell.gpu_blocks;
    auto lock = unisync::make_managed<TypeParam>();
    auto counter = unisync::make_managed<unsigned long long>(0ull);
    constexpr unsigned cpu_iterations = 200;
    constexpr int gpu_iterations = 5;
    cudaError_t const status = run_mixed(
        cell.cpu_threads,
        [&](unsigned) {
          for (unsigned i = 0; i < cpu_iterations; ++i) {
            lock->lock();
            increment_slowly(*counter);
            lock->unlock();
          }
        },
        [&] { increment_per_thread<<<blocks, 1>>>(lock.get(), counter.get(), gpu_iterations); });
    ASSERT_EQ(status, cudaSuccess);
    EXPECT_EQ(*counter, cell.cpu_threads * cpu_iterations + static_cast<unsigned long long>(blocks) * gpu_iterations)
        << cell.cpu_threads << " CPU threads x " << blocks << " GPU blocks";
  }
}

TYPED_TEST(MixedLock, NoLostUpdatesWithBlocksHoldingTheLockTogether)
{
  UNISYNC_REQUIRE_GPU();
  int const blocks = multiprocessor_count();
  auto lock = unisync::make_managed<TypeParam>();
  auto counter = unisync::make_managed<unsigned long long>(0ull);
  constexpr unsigned cpu_threads = 4;
  constexpr unsigned cpu_iterations = 200;
  constexpr int threads_per_block = 128;
  constexpr int gpu_iterations = 3;
  cudaError_t const status = run_mixed(
      cpu_threads,
      [&](unsigned) {
        for (unsigned i = 0; i < cpu_iterations; ++i) {
          lock->lock();
          increment_slowly(*counter);
          lock->unlock();
        }
      },
      [&] {
        increment_per_group<0><<<blocks, threads_per_block>>>(lock.get(), counter.get(), gpu_iterations);
      });
  ASSERT_EQ(status, cudaSuccess);
  EXPECT_EQ(*counter, cpu_threads * cpu_iterations +
                          static_cast<unsigned long long>(blocks) * threads_per_block * gpu_iterations);
}

template <class Lock>
__global__ void try_lock_for_while_host_holds(Lock* lock, unsigned long long timeout_ns, int* result,
                                              unsigned long long* waited_ns)
{
  unsigned long long const start = unisync::detail::monotonic_nanoseconds();
  bool const taken = lock->try_lock_for(cuda::std::chrono::nanoseconds(timeout_ns));
  *waited_ns = unisync::detail::monotonic_nanoseconds() - start;
  *result = taken ? 1 : 0;
  if (taken) lock->unlock();
}

template <class Lock>
__global__ void hold_until_released(Lock* lock, int* holding, int* release)
{
  lock->lock();
  cuda::atomic_ref<int, cuda::thread_scope_system>(*holding).store(1, cuda::std::memory_order_release);
  while (cuda::atomic_ref<int, cuda::thread_scope_system>(*release).load(cuda::std::memory_order_acquire) == 0) {
    __nanosleep(1000);
  }
  lock->unlock();
}

template <class Lock>
class MixedTimedLock : public ::testing::Test {};
using mixed_timed_lock_types = ::testing::Types<unisync::mutex, unisync::ticket_mutex>;
TYPED_TEST_SUITE(MixedTimedLock, mixed_timed_lock_types, type_names);

TYPED_TEST(MixedTimedLock, DeviceTimedWaitGivesUpWhileTheHostHolds)
{
  UNISYNC_REQUIRE_GPU();
  auto lock = unisync::make_managed<TypeParam>();
  auto result = unisync::make_managed<int>(-1);
  auto waited_ns = unisync::make_managed<unsigned long long>(0ull);
  lock->lock();
  constexpr unsigned long long timeout_ns = 2'000'000;
  try_lock_for_while_host_holds<<<1, 1>>>(lock.get(), timeout_ns, result.get(), waited_ns.get());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  lock->unlock();
  EXPECT_EQ(*result, 0);
  EXPECT_GE(*waited_ns, timeout_ns);
  try_lock_for_while_host_holds<<<1, 1>>>(lock.get(), timeout_ns, result.get(), waited_ns.get());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*result, 1) << "the lock is usable after the timed-out wait";
}

TYPED_TEST(MixedTimedLock, HostTimedWaitGivesUpWhileTheDeviceHolds)
{
  UNISYNC_REQUIRE_GPU();
  auto lock = unisync::make_managed<TypeParam>();
  auto holding = unisync::make_managed<int>(0);
  auto release = unisync::make_managed<int>(0);
  hold_until_released<<<1, 1>>>(lock.get(), holding.get(), release.get());
  while (cuda::atomic_ref<int, cuda::thread_scope_system>(*holding).load(cuda::std::memory_order_acquire) == 0) {
    std::this_thread::yield();
  }
  auto const start = std::chrono::steady_clock::now();
  EXPECT_FALSE(lock->try_lock_for(20ms));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
  cuda::atomic_ref<int, cuda::thread_scope_system>(*release).store(1, cuda::std::memory_order_release);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_TRUE(lock->try_lock_for(1s));
  lock->unlock();
}

}  // namespace
