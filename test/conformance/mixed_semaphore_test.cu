// partitioned_semaphore and counting_semaphore against [thread.sema.cnt] with CPU and GPU
// threads on one object from make_managed: release on one side unblocks a waiter on the other, and
// synchronizes with it; the std API (acquire, release(n), try_acquire, try_acquire_for,
// try_acquire_until, max) on the device. Host waits are bounded; a kernel that hangs is
// caught by the kernel deadline (gpu.hpp).

#include "bounded.hpp"
#include "gpu.hpp"

#include <unisync/counting_semaphore.hpp>
#include <unisync/managed.hpp>
#include <unisync/partitioned_semaphore.hpp>

#include <cuda/std/chrono>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <type_traits>

namespace {

using namespace unisync::test;
using namespace std::chrono_literals;

template <class Semaphore>
__global__ void acquire_then_read(Semaphore* semaphore, int const* data, int* seen)
{
  semaphore->acquire();
  *seen = *static_cast<int const volatile*>(data);
}

template <class Semaphore>
__global__ void write_then_release(Semaphore* semaphore, int* data, int update)
{
  *data = 1;
  semaphore->release(update);
}

template <class Semaphore>
class ConformanceMixedSemaphore : public ::testing::Test {};
using mixed_semaphore_types = ::testing::Types<unisync::partitioned_semaphore<8>, unisync::counting_semaphore<8>>;
struct semaphore_names {
  template <class Semaphore>
  static std::string GetName(int)
  {
    return std::is_same_v<Semaphore, unisync::counting_semaphore<8>> ? "counting_semaphore" : "partitioned_semaphore";
  }
};
TYPED_TEST_SUITE(ConformanceMixedSemaphore, mixed_semaphore_types, semaphore_names);

// [thread.sema.cnt] release(update): "unblocks any threads that are waiting for counter to
// be greater than zero"; "Synchronization: Strongly happens before invocations of
// try_acquire that observe the result of the effects": a host release wakes a GPU waiter,
// which sees what the host wrote before releasing.
TYPED_TEST(ConformanceMixedSemaphore, HostReleaseUnblocksAndSynchronizesWithADeviceWaiter)
{
  UNISYNC_REQUIRE_GPU();
  auto semaphore = unisync::make_managed<TypeParam>(0);
  auto data = unisync::make_managed<int>(0);
  auto seen = unisync::make_managed<int>(-1);
  acquire_then_read<<<1, 1>>>(semaphore.get(), data.get(), seen.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::this_thread::sleep_for(10ms);
  *data = 1;
  semaphore->release();
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(*seen, 1);
}

// The same the other way: a GPU release wakes a host waiter, which sees the GPU's write.
TYPED_TEST(ConformanceMixedSemaphore, DeviceReleaseUnblocksAndSynchronizesWithAHostWaiter)
{
  UNISYNC_REQUIRE_GPU();
  auto semaphore = unisync::make_managed<TypeParam>(0);
  auto data = unisync::make_managed<int>(0);
  auto shared_semaphore = std::shared_ptr<TypeParam>(semaphore.get(), [](TypeParam*) {});
  auto shared_data = std::shared_ptr<int>(data.get(), [](int*) {});
  auto seen = std::make_shared<int>(-1);
  bounded_thread waiter([shared_semaphore, shared_data, seen] {
    shared_semaphore->acquire();
    *seen = *static_cast<int const volatile*>(shared_data.get());
  });
  std::this_thread::sleep_for(10ms);
  write_then_release<<<1, 1>>>(semaphore.get(), data.get(), 1);
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  ASSERT_TRUE(waiter.returned_within()) << "the GPU's release did not unblock the host waiter";
  EXPECT_EQ(*seen, 1);
}

struct device_results {
  int max_ok = 0;
  int try_free = 0;
  int try_empty = 1;
  int timed_zero = 1;
  int timed_out = 1;
  int until_out = 1;
  int released_n = 0;
};

template <class Semaphore>
__global__ void std_api_on_device(Semaphore* semaphore, device_results* results)
{
  // [thread.sema.cnt] max(); try_acquire takes a free permit and fails without one;
  // try_acquire_for/until with none free return false after the timeout (a zero timeout
  // tries once); release(n) adds n permits that n acquires take.
  results->max_ok = Semaphore::max() >= 8;
  results->try_free = semaphore->try_acquire();
  results->try_empty = semaphore->try_acquire();
  results->timed_zero = semaphore->try_acquire_for(cuda::std::chrono::nanoseconds(0));
  results->timed_out = semaphore->try_acquire_for(cuda::std::chrono::microseconds(50));
  results->until_out =
      semaphore->try_acquire_until(cuda::std::chrono::system_clock::now() + cuda::std::chrono::microseconds(50));
  semaphore->release(3);
  semaphore->acquire();
  semaphore->acquire();
  results->released_n = semaphore->try_acquire() ? 1 : 0;
  semaphore->release(3);
}

TYPED_TEST(ConformanceMixedSemaphore, StdApiOnTheDevice)
{
  UNISYNC_REQUIRE_GPU();
  auto semaphore = unisync::make_managed<TypeParam>(1);
  auto results = unisync::make_managed<device_results>();
  // partitioned_semaphore: the permit starts in the CPU's pool, where the device's
  // try_acquire may not reach it (it never takes across; std allows a try to fail
  // spuriously), but a timed try may (once the CPU side looks idle, its free permits are
  // taken across): at most one of the device's tries takes the one permit, and the rest
  // fail.
  std_api_on_device<<<1, 1>>>(semaphore.get(), results.get());
  ASSERT_EQ(finish_device_work(), cudaSuccess);
  EXPECT_EQ(results->max_ok, 1);
  int const taken = results->try_free + results->try_empty + results->timed_zero + results->timed_out +
                    results->until_out;
  EXPECT_LE(taken, 1) << "the device's tries took more permits than the semaphore had";
  EXPECT_EQ(results->try_empty, 0) << "try_acquire took a permit after try_acquire found none";
  EXPECT_EQ(results->released_n, 1);
  ::testing::Test::RecordProperty("taken_by_tries", taken);
  // Every permit (the initial one, unless a device try got it, and the three released) is
  // still there for the host.
  int const expected = 4 - taken;
  for (int permit = 0; permit < expected; ++permit) EXPECT_TRUE(semaphore->try_acquire_for(10s)) << permit;
  EXPECT_FALSE(semaphore->try_acquire_for(1ms));
}

}  // namespace
