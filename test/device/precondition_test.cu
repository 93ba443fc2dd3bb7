// Violated preconditions on the device report which precondition and where, then fail the
// kernel with cudaErrorAssert: never a hang or silent corruption. Built with
// UNISYNC_ENABLE_ASSERTIONS. Each violation runs in a child process (a trapped kernel
// leaves the CUDA context unusable), whose device-side report is read from its stderr.

#include "gpu.hpp"

#include <unisync/barrier.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/managed.hpp>
#include <unisync/mutex.hpp>
#include <unisync/ticket_mutex.hpp>

#include <gtest/gtest.h>

namespace {

static_assert(UNISYNC_ENABLE_ASSERTIONS, "this suite checks the per-operation precondition checks");

using unisync::test::expect_kernel_assert;

template <class Lock>
__global__ void unlock_unheld(Lock* lock)
{
  lock->unlock();
}

__global__ void release_negative(unisync::counting_semaphore<>* semaphore)
{
  semaphore->release(-1);
}

__global__ void arrive_zero(unisync::barrier<>* barrier)
{
  static_cast<void>(barrier->arrive(0));
}

class DevicePreconditions : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(DevicePreconditions, MutexUnlockWhenNotLocked)
{
  UNISYNC_REQUIRE_GPU();
  EXPECT_EXIT(expect_kernel_assert([] { unlock_unheld<<<1, 1>>>(unisync::make_managed<unisync::mutex>().release()); }),
              ::testing::ExitedWithCode(0), "mutex.inl:[0-9]+: .*unlock\\(\\) of a mutex that is not locked");
}

TEST_F(DevicePreconditions, TicketMutexUnlockWhenNotLocked)
{
  UNISYNC_REQUIRE_GPU();
  EXPECT_EXIT(
      expect_kernel_assert([] { unlock_unheld<<<1, 1>>>(unisync::make_managed<unisync::ticket_mutex>().release()); }),
      ::testing::ExitedWithCode(0), "ticket_lock.hpp:[0-9]+: .*unlock\\(\\) of a ticket_mutex that is not locked");
}

TEST_F(DevicePreconditions, SemaphoreReleaseWithNegativeUpdate)
{
  UNISYNC_REQUIRE_GPU();
  EXPECT_EXIT(expect_kernel_assert([] {
                release_negative<<<1, 1>>>(unisync::make_managed<unisync::counting_semaphore<>>(0).release());
              }),
              ::testing::ExitedWithCode(0), "counting_semaphore.inl:[0-9]+: .*update >= 0");
}

TEST_F(DevicePreconditions, BarrierArriveWithNonPositiveUpdate)
{
  UNISYNC_REQUIRE_GPU();
  EXPECT_EXIT(
      expect_kernel_assert([] { arrive_zero<<<1, 1>>>(unisync::make_managed<unisync::barrier<>>(2).release()); }),
      ::testing::ExitedWithCode(0), "barrier.inl:[0-9]+: .*0 < update");
}

}  // namespace
