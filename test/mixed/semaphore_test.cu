// counting_semaphore with CPU threads and GPU threads on one object in managed memory:
// never more than N holders, for N in {1, 2, 8, 120}.

#include "device_actors.cuh"
#include "gpu.hpp"
#include "mixed.hpp"

#include <unisync/counting_semaphore.hpp>
#include <unisync/managed.hpp>

#include <gtest/gtest.h>

#include <thread>

namespace {

using namespace unisync::test;

class MixedSemaphoreHolders : public ::testing::TestWithParam<int> {};

TEST_P(MixedSemaphoreHolders, NeverMoreThanNHolders)
{
  UNISYNC_REQUIRE_GPU();
  int const permits = GetParam();
  int const blocks = multiprocessor_count();
  constexpr unsigned cpu_threads = 4;
  constexpr unsigned cpu_iterations = 100;
  constexpr int gpu_iterations = 4;
  auto semaphore = unisync::make_managed<unisync::counting_semaphore<>>(permits);
  auto record = unisync::make_managed<occupancy_record>();
  cudaError_t const status = run_mixed(
      cpu_threads,
      [&](unsigned) {
        for (unsigned i = 0; i < cpu_iterations; ++i) {
          semaphore->acquire();
          record->enter();
          std::this_thread::yield();
          record->leave();
          semaphore->release();
        }
      },
      [&] { hold_per_thread<<<blocks, 1>>>(semaphore.get(), record.get(), gpu_iterations); });
  ASSERT_EQ(status, cudaSuccess);
  EXPECT_LE(record->most_seen, permits);
  EXPECT_EQ(record->entries, static_cast<int>(cpu_threads * cpu_iterations) + blocks * gpu_iterations);
  EXPECT_EQ(unisync::detail::test_access::count(*semaphore), permits);
}

INSTANTIATE_TEST_SUITE_P(Permits, MixedSemaphoreHolders, ::testing::Values(1, 2, 8, 120));

__global__ void timed_acquire(unisync::counting_semaphore<>* semaphore, unsigned long long timeout_ns, int* result,
                              unsigned long long* waited_ns)
{
  unsigned long long const start = unisync::detail::monotonic_nanoseconds();
  bool const acquired = semaphore->try_acquire_for(cuda::std::chrono::nanoseconds(timeout_ns));
  *waited_ns = unisync::detail::monotonic_nanoseconds() - start;
  *result = acquired ? 1 : 0;
}

TEST(MixedTimedSemaphore, DeviceTimedAcquireGivesUpWhileTheHostHoldsEveryPermit)
{
  UNISYNC_REQUIRE_GPU();
  auto semaphore = unisync::make_managed<unisync::counting_semaphore<>>(1);
  auto result = unisync::make_managed<int>(-1);
  auto waited_ns = unisync::make_managed<unsigned long long>(0ull);
  semaphore->acquire();
  constexpr unsigned long long timeout_ns = 2'000'000;
  timed_acquire<<<1, 1>>>(semaphore.get(), timeout_ns, result.get(), waited_ns.get());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*result, 0);
  EXPECT_GE(*waited_ns, timeout_ns);
  semaphore->release();
  timed_acquire<<<1, 1>>>(semaphore.get(), timeout_ns, result.get(), waited_ns.get());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*result, 1) << "the permit is free again after the timed-out wait";
}

}  // namespace
