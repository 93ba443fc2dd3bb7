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
#include <unisync/unique_lock.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace {

static_assert(UNISYNC_ENABLE_ASSERTIONS, "this suite checks the per-operation precondition checks");

template <class Lock>
__global__ void unlock_unheld(Lock* lock)
{
  lock->unlock();
}

__global__ void release_negative(unisync::counting_semaphore<>* semaphore) { semaphore->release(-1); }

__global__ void arrive_zero(unisync::barrier<>* barrier) { static_cast<void>(barrier->arrive(0)); }

/// A lock wrapper's misuse (std: std::system_error) is checked in every build.
__global__ void unlock_unowned_unique_lock(unisync::mutex* lock)
{
  unisync::unique_lock<unisync::mutex> owner(*lock);
  owner.unlock();
  owner.unlock();
}

/// Runs `launch` in this (child) process with the device's report on stderr; exits 0 when
/// the kernel failed with cudaErrorAssert.
template <class Launch>
[[noreturn]] void violate(Launch launch)
{
  dup2(STDERR_FILENO, STDOUT_FILENO);
  launch();
  cudaError_t const status = cudaDeviceSynchronize();
  std::fflush(nullptr);
  std::_Exit(status == cudaErrorAssert ? 0 : 1);
}

class DevicePreconditions : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(DevicePreconditions, MutexUnlockWhenNotLocked)
{
  UNISYNC_REQUIRE_GPU();
  EXPECT_EXIT(violate([] { unlock_unheld<<<1, 1>>>(unisync::make_managed<unisync::mutex>().release()); }),
              ::testing::ExitedWithCode(0), "mutex.inl:[0-9]+: .*unlock\\(\\) of a mutex that is not locked");
}

TEST_F(DevicePreconditions, TicketMutexUnlockWhenNotLocked)
{
  UNISYNC_REQUIRE_GPU();
  EXPECT_EXIT(violate([] { unlock_unheld<<<1, 1>>>(unisync::make_managed<unisync::ticket_mutex>().release()); }),
              ::testing::ExitedWithCode(0), "ticket_lock.hpp:[0-9]+: .*unlock\\(\\) of a ticket_mutex that is not locked");
}

TEST_F(DevicePreconditions, SemaphoreReleaseWithNegativeUpdate)
{
  UNISYNC_REQUIRE_GPU();
  EXPECT_EXIT(
      violate([] { release_negative<<<1, 1>>>(unisync::make_managed<unisync::counting_semaphore<>>(0).release()); }),
      ::testing::ExitedWithCode(0), "counting_semaphore.inl:[0-9]+: .*update >= 0");
}

TEST_F(DevicePreconditions, BarrierArriveWithNonPositiveUpdate)
{
  UNISYNC_REQUIRE_GPU();
  EXPECT_EXIT(violate([] { arrive_zero<<<1, 1>>>(unisync::make_managed<unisync::barrier<>>(2).release()); }),
              ::testing::ExitedWithCode(0), "barrier.inl:[0-9]+: .*0 < update");
}

TEST_F(DevicePreconditions, UniqueLockUnlockWithoutOwning)
{
  UNISYNC_REQUIRE_GPU();
  EXPECT_EXIT(
      violate([] { unlock_unowned_unique_lock<<<1, 1>>>(unisync::make_managed<unisync::mutex>().release()); }),
      ::testing::ExitedWithCode(0), "unique_lock.hpp:[0-9]+: .*unique_lock::unlock\\(\\) without owning");
}

}  // namespace
