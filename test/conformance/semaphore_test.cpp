// The semaphores against [thread.sema.cnt], on CPU threads, over counting_semaphore and
// partitioned_semaphore with a small and the largest LeastMaxValue and their binary forms. Never more than N holders
// and FIFO admission are test/host/semaphore_test.cpp's; every wait here is bounded.

#include "bounded.hpp"
#include "test_access.hpp"

#include <unisync/counting_semaphore.hpp>
#include <unisync/partitioned_semaphore.hpp>

#include <cuda/std/chrono>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using namespace std::chrono_literals;
using unisync::detail::test_access;
using unisync::test::bounded_thread;
using unisync::test::eventually;

template <class Semaphore>
class ConformanceSemaphore : public ::testing::Test {};
using semaphore_types =
    ::testing::Types<unisync::counting_semaphore<8>, unisync::counting_semaphore<>, unisync::binary_semaphore,
                     unisync::partitioned_semaphore<8>, unisync::partitioned_semaphore<>,
                     unisync::partitioned_binary_semaphore>;
TYPED_TEST_SUITE(ConformanceSemaphore, semaphore_types);

// [thread.sema.cnt] max(): at least least_max_value; the constructor: Preconditions:
// desired >= 0 and desired <= max() (checked in every build: unisync::error); constexpr and
// explicit; not copyable.
TYPED_TEST(ConformanceSemaphore, MaxAndConstructorPreconditions)
{
  static_assert(noexcept(TypeParam::max()));
  static_assert(TypeParam::max() >= 1);
  static_assert((TypeParam(TypeParam::max()), true), "constexpr constructor");
  static_assert(!std::is_convertible_v<std::ptrdiff_t, TypeParam>);
  static_assert(!std::is_copy_constructible_v<TypeParam> && !std::is_copy_assignable_v<TypeParam>);
  EXPECT_NO_THROW(TypeParam(0));
  EXPECT_NO_THROW(TypeParam(TypeParam::max()));
  EXPECT_THROW(TypeParam(-1), unisync::error);
  EXPECT_THROW(TypeParam(TypeParam::max() + 1), unisync::error);
}

// [thread.sema.cnt] try_acquire: "Effects: Attempts to atomically decrement counter if it
// is positive, without blocking"; true if it decremented.
TYPED_TEST(ConformanceSemaphore, TryAcquireNeverBlocks)
{
  auto semaphore = std::make_shared<TypeParam>(1);
  bounded_thread other([semaphore] {
    EXPECT_TRUE(semaphore->try_acquire());
    EXPECT_FALSE(semaphore->try_acquire()) << "the count was 0";
  });
  EXPECT_TRUE(other.returned_within()) << "try_acquire blocked";
  semaphore->release();
  EXPECT_TRUE(semaphore->try_acquire());
}

// [thread.sema.cnt] release(update): "atomically execute counter += update. Then, unblocks
// any threads that are waiting for counter to be greater than zero": one release(n)
// admits n waiters.
TYPED_TEST(ConformanceSemaphore, ReleaseNAdmitsNWaiters)
{
  auto const waiters = static_cast<int>(std::min<std::ptrdiff_t>(TypeParam::max(), 3));
  auto semaphore = std::make_shared<TypeParam>(0);
  auto admitted = std::make_shared<std::atomic<int>>(0);
  std::uint64_t const first_ticket = test_access::tickets_taken(*semaphore);
  std::vector<std::unique_ptr<bounded_thread>> threads;
  for (int waiter = 0; waiter < waiters; ++waiter) {
    threads.push_back(std::make_unique<bounded_thread>([semaphore, admitted] {
      semaphore->acquire();
      admitted->fetch_add(1);
    }));
  }
  ASSERT_TRUE(eventually([&] { return test_access::tickets_taken(*semaphore) - first_ticket == std::uint64_t(waiters); }));
  EXPECT_EQ(admitted->load(), 0) << "acquire() returned with a count of 0";
  semaphore->release(waiters);
  for (auto& thread : threads) EXPECT_TRUE(thread->returned_within()) << "release(n) left a waiter blocked";
  EXPECT_EQ(admitted->load(), waiters);
  EXPECT_EQ(test_access::count(*semaphore), 0);
}

// [thread.sema.cnt] release: "Synchronization: Strongly happens before invocations of
// try_acquire that observe the result of the effects" (and of acquire): what the releaser
// wrote is visible to the thread its release admitted.
TYPED_TEST(ConformanceSemaphore, ReleaseHappensBeforeTheAcquireItAdmits)
{
  auto semaphore = std::make_shared<TypeParam>(0);
  auto data = std::make_shared<int>(0);
  bounded_thread acquirer([semaphore, data] {
    semaphore->acquire();
    EXPECT_EQ(*data, 1);
    *data = 2;
    semaphore->release();
  });
  *data = 1;
  semaphore->release();
  ASSERT_TRUE(acquirer.returned_within());
  ASSERT_TRUE(eventually([&] { return semaphore->try_acquire(); }));
  EXPECT_EQ(*data, 2) << "try_acquire did not synchronize with the release it observed";
}

// [thread.sema.cnt] try_acquire_for(rel_time), try_acquire_until(abs_time): take a free
// permit; with none, return false no earlier than the timeout; a zero timeout or a time
// point already past tries once, at once.
TYPED_TEST(ConformanceSemaphore, TimedAcquiresTakeAFreePermitAndTimeOut)
{
  TypeParam semaphore(1);
  EXPECT_TRUE(semaphore.try_acquire_for(0ms));
  EXPECT_FALSE(semaphore.try_acquire_for(0ms));
  EXPECT_FALSE(semaphore.try_acquire_for(cuda::std::chrono::nanoseconds(-5)));
  EXPECT_FALSE(semaphore.try_acquire_until(std::chrono::steady_clock::now() - 1s));
  auto const start = std::chrono::steady_clock::now();
  EXPECT_FALSE(semaphore.try_acquire_for(5ms));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 5ms);
  auto const until = cuda::std::chrono::system_clock::now() + cuda::std::chrono::milliseconds(5);
  EXPECT_FALSE(semaphore.try_acquire_until(until));
  EXPECT_GE(cuda::std::chrono::system_clock::now(), until);
  semaphore.release();
  EXPECT_TRUE(semaphore.try_acquire_until(std::chrono::steady_clock::now() + 1ms));
  EXPECT_EQ(test_access::count(semaphore), 0) << "a failed timed acquire leaves no ticket behind";
}

// The heterogeneous cases, for the partitioned semaphore, with host threads standing in
// for GPU threads (test_access names the side of a call; test/conformance/
// mixed_semaphore_test.cu has them on a real GPU).
using side = test_access::side;

template <class Semaphore>
class ConformanceSemaphoreAcrossSides : public ::testing::Test {};
using partitioned_types = ::testing::Types<unisync::partitioned_semaphore<8>, unisync::partitioned_binary_semaphore>;
TYPED_TEST_SUITE(ConformanceSemaphoreAcrossSides, partitioned_types);

// [thread.sema.cnt] release(update): "Then, unblocks any threads that are waiting for
// counter to be greater than zero", whichever side they wait on; release never blocks.
TYPED_TEST(ConformanceSemaphoreAcrossSides, ReleaseUnblocksAWaiterOnTheOtherSide)
{
  for (side const waiter : {side::cpu, side::gpu}) {
    auto semaphore = std::make_shared<TypeParam>(0);
    bounded_thread acquirer([semaphore, waiter] { test_access::acquire_as(*semaphore, waiter); });
    ASSERT_TRUE(eventually([&] { return test_access::tickets_taken_on(*semaphore, waiter) == 1; }));
    bounded_thread releaser([semaphore, waiter] {
      test_access::release_as(*semaphore, waiter == side::cpu ? side::gpu : side::cpu);
    });
    EXPECT_TRUE(releaser.returned_within()) << "release blocked";
    EXPECT_TRUE(acquirer.returned_within()) << "the waiter on the other side was not unblocked";
  }
}

// [thread.sema.cnt] release: "Synchronization: Strongly happens before invocations of
// try_acquire that observe the result of the effects": across the sides too.
TYPED_TEST(ConformanceSemaphoreAcrossSides, ReleaseHappensBeforeTheAcquireItAdmitsAcrossSides)
{
  for (side const releaser : {side::cpu, side::gpu}) {
    side const acquirer = releaser == side::cpu ? side::gpu : side::cpu;
    auto semaphore = std::make_shared<TypeParam>(0);
    auto data = std::make_shared<int>(0);
    bounded_thread waiter([semaphore, data, acquirer] {
      test_access::acquire_as(*semaphore, acquirer);
      EXPECT_EQ(*data, 1);
      *data = 2;
      test_access::release_as(*semaphore, acquirer);
    });
    *data = 1;
    test_access::release_as(*semaphore, releaser);
    ASSERT_TRUE(waiter.returned_within());
    ASSERT_TRUE(test_access::try_acquire_for_as(*semaphore, releaser, 20ull * 1000 * 1000 * 1000));
    EXPECT_EQ(*data, 2) << "the acquire did not synchronize with the release on the other side";
  }
}

// [thread.sema.cnt] try_acquire_for: "Blocks until it is able to decrement counter or
// until the timeout": a permit that sits on the other side (whose threads have left)
// is found within the timeout; with none anywhere it returns false.
TYPED_TEST(ConformanceSemaphoreAcrossSides, TimedAcquireFindsAPermitOnTheOtherSide)
{
  for (side const holder : {side::cpu, side::gpu}) {
    side const taker = holder == side::cpu ? side::gpu : side::cpu;
    TypeParam semaphore(0);
    test_access::release_as(semaphore, holder);
    EXPECT_TRUE(test_access::try_acquire_for_as(semaphore, taker, 20ull * 1000 * 1000 * 1000));
    EXPECT_FALSE(test_access::try_acquire_for_as(semaphore, holder, 5ull * 1000 * 1000));
    EXPECT_EQ(test_access::count(semaphore), 0);
  }
}

}  // namespace
