// The mutex types against [thread.mutex.requirements] (Lockable, the mutex requirements)
// and [thread.timedmutex.requirements] (TimedLockable), on CPU threads. Mutual exclusion
// under contention and FIFO order are test/host/lock_test.cpp's; this file holds the
// clauses' other guarantees, each wait bounded.

#include "bounded.hpp"
#include "lockables.hpp"
#include "test_access.hpp"

#include <cuda/std/chrono>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>

namespace {

using namespace std::chrono_literals;
using unisync::test::bounded_thread;
using unisync::test::eventually;

/// Whether test_access can see a type's queue (ticket-based locks).
template <class Lock, class = void>
struct has_tickets : std::false_type {};
template <class Lock>
struct has_tickets<Lock, std::void_t<decltype(unisync::detail::test_access::tickets_taken(std::declval<Lock&>()))>>
    : std::true_type {};

template <class Mutex>
class ConformanceMutex : public ::testing::Test {};
using mutex_types = ::testing::Types<unisync::mutex, unisync::spin_mutex, unisync::ticket_mutex, unisync::cohort_mutex>;
TYPED_TEST_SUITE(ConformanceMutex, mutex_types, unisync::test::type_names);

// [thread.mutex.class] constexpr mutex() noexcept; not copyable or movable; a new mutex is
// unlocked. [thread.mutex.requirements.mutex] try_lock on a free mutex, with no other
// thread contending, takes it (std allows a spurious failure; these types fail only under
// concurrent use).
TYPED_TEST(ConformanceMutex, ConstructsUnlockedInAConstantExpression)
{
  static_assert(std::is_nothrow_default_constructible_v<TypeParam>);
  static_assert(!std::is_copy_constructible_v<TypeParam> && !std::is_copy_assignable_v<TypeParam>);
  static_assert(!std::is_move_constructible_v<TypeParam> && !std::is_move_assignable_v<TypeParam>);
  static constexpr TypeParam constant{};
  static_cast<void>(constant);
  auto lock = std::make_unique<TypeParam>();
  EXPECT_TRUE(lock->try_lock());
  lock->unlock();
}

// [thread.mutex.requirements.mutex] try_lock: "attempts to obtain ownership ... without
// blocking"; any thread may call it, also one that does not hold the lock.
TYPED_TEST(ConformanceMutex, TryLockNeverBlocks)
{
  auto lock = std::make_shared<TypeParam>();
  lock->lock();
  bounded_thread other([lock] { EXPECT_FALSE(lock->try_lock()) << "try_lock took a held lock"; });
  EXPECT_TRUE(other.returned_within()) << "try_lock blocked on a held lock";
  lock->unlock();
  bounded_thread after([lock] {
    EXPECT_TRUE(lock->try_lock());
    lock->unlock();
  });
  EXPECT_TRUE(after.returned_within());
}

// [thread.mutex.requirements.mutex] lock: blocks until ownership is obtained; unlock
// releases it, and "prior unlock() operations on the same object synchronize with" the
// lock() (or successful try_lock()) that obtains it: what the owner wrote before unlock()
// is visible after the next lock() (ThreadSanitizer checks the plain accesses).
TYPED_TEST(ConformanceMutex, UnlockMakesTheLockAvailableWithHappensBefore)
{
  auto lock = std::make_shared<TypeParam>();
  auto data = std::make_shared<int>(0);
  auto entered = std::make_shared<std::atomic<bool>>(false);
  lock->lock();
  std::uint64_t const tickets_before = [&] {
    if constexpr (has_tickets<TypeParam>::value) return unisync::detail::test_access::tickets_taken(*lock);
    return std::uint64_t{0};
  }();
  bounded_thread waiter([lock, data, entered] {
    lock->lock();
    entered->store(true);
    EXPECT_EQ(*data, 42) << "the owner's write before unlock() is not visible after lock()";
    *data = 43;
    lock->unlock();
  });
  if constexpr (has_tickets<TypeParam>::value) {
    EXPECT_TRUE(eventually([&] { return unisync::detail::test_access::tickets_taken(*lock) != tickets_before; }));
  }
  EXPECT_FALSE(eventually([&] { return entered->load(); }, 20ms)) << "lock() returned while another thread held it";
  *data = 42;
  lock->unlock();
  ASSERT_TRUE(waiter.returned_within()) << "unlock() did not make the lock available to the waiter";
  ASSERT_TRUE(eventually([&] { return lock->try_lock(); }));
  EXPECT_EQ(*data, 43) << "[thread.mutex.requirements.mutex] try_lock: synchronizes with the prior unlock()";
  lock->unlock();
}

// [thread.timedmutex.requirements] try_lock_for(rel_time), try_lock_until(abs_time): take
// a free lock; on a held one, return false no earlier than the timeout; a time point
// already past tries once, at once. Both cuda::std::chrono and std::chrono.
TYPED_TEST(ConformanceMutex, TimedTriesTakeAFreeLockAndTimeOutOnAHeldOne)
{
  auto lock = std::make_shared<TypeParam>();
  EXPECT_TRUE(lock->try_lock_for(1ms));
  lock->unlock();
  EXPECT_TRUE(lock->try_lock_until(cuda::std::chrono::system_clock::now() - cuda::std::chrono::seconds(1)));
  lock->unlock();
  lock->lock();
  bounded_thread other([lock] {
    auto const start = std::chrono::steady_clock::now();
    EXPECT_FALSE(lock->try_lock_for(5ms));
    EXPECT_GE(std::chrono::steady_clock::now() - start, 5ms);
    auto const until = std::chrono::steady_clock::now() + 5ms;
    EXPECT_FALSE(lock->try_lock_until(until));
    EXPECT_GE(std::chrono::steady_clock::now(), until);
    EXPECT_FALSE(lock->try_lock_for(cuda::std::chrono::milliseconds(2)));
    EXPECT_FALSE(lock->try_lock_until(std::chrono::system_clock::now() - 1h));
    EXPECT_FALSE(lock->try_lock_for(-1ms));
  });
  EXPECT_TRUE(other.returned_within());
  lock->unlock();
}

}  // namespace
