// unisync::lock_guard and unisync::unique_lock against [thread.lock.guard] and
// [thread.lock.unique], member by member, over the mutex types and a mutex that hides its
// address (deleted operator&). Misuse that std reports with std::system_error throws it,
// as std does.

#include "bounded.hpp"
#include "lock_misuse.hpp"
#include "lockables.hpp"

#include <unisync/lock_guard.hpp>
#include <unisync/unique_lock.hpp>

#include <cuda/std/chrono>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

namespace {

using namespace std::chrono_literals;
using unisync::test::bounded_thread;
using unisync::test::free_for_another_thread;
using unisync::test::recording_mutex;

template <class Mutex>
class ConformanceLockWrappers : public ::testing::Test {};
using wrapped_mutex_types =
    ::testing::Types<unisync::mutex, unisync::ticket_mutex, unisync::cohort_mutex, recording_mutex>;
TYPED_TEST_SUITE(ConformanceLockWrappers, wrapped_mutex_types);

// [thread.lock.guard]: explicit lock_guard(m) calls m.lock(); the destructor m.unlock().
TYPED_TEST(ConformanceLockWrappers, LockGuardHoldsForItsLifetime)
{
  TypeParam lock;
  static_assert(std::is_same_v<typename unisync::lock_guard<TypeParam>::mutex_type, TypeParam>);
  static_assert(!std::is_convertible_v<TypeParam&, unisync::lock_guard<TypeParam>>, "explicit");
  static_assert(!std::is_copy_constructible_v<unisync::lock_guard<TypeParam>>);
  static_assert(!std::is_copy_assignable_v<unisync::lock_guard<TypeParam>>);
  {
    unisync::lock_guard<TypeParam> guard(lock);
    EXPECT_FALSE(free_for_another_thread(lock));
  }
  EXPECT_TRUE(free_for_another_thread(lock));
}

// [thread.lock.guard]: lock_guard(m, adopt_lock) does not lock; the destructor unlocks.
TYPED_TEST(ConformanceLockWrappers, LockGuardAdoptsALockHeld)
{
  TypeParam lock;
  lock.lock();
  {
    unisync::lock_guard<TypeParam> guard(lock, std::adopt_lock);
    EXPECT_FALSE(free_for_another_thread(lock));
  }
  EXPECT_TRUE(free_for_another_thread(lock));
}

// [thread.lock.guard], [thread.lock.unique]: class template argument deduction, as std's.
TYPED_TEST(ConformanceLockWrappers, DeducesTheMutexType)
{
  TypeParam lock;
  {
    unisync::lock_guard guard(lock);
    static_assert(std::is_same_v<decltype(guard), unisync::lock_guard<TypeParam>>);
  }
  unisync::unique_lock owner(lock);
  static_assert(std::is_same_v<decltype(owner), unisync::unique_lock<TypeParam>>);
  unisync::unique_lock deferred(lock, std::defer_lock);
  static_assert(std::is_same_v<decltype(deferred), unisync::unique_lock<TypeParam>>);
}

// [thread.lock.unique.cons] unique_lock(): owns nothing, mutex() == nullptr.
TYPED_TEST(ConformanceLockWrappers, DefaultUniqueLockOwnsNothing)
{
  static_assert(std::is_nothrow_default_constructible_v<unisync::unique_lock<TypeParam>>);
  unisync::unique_lock<TypeParam> empty;
  EXPECT_EQ(empty.mutex(), nullptr);
  EXPECT_FALSE(empty.owns_lock());
}

// [thread.lock.unique.cons] explicit unique_lock(m): m.lock(); mutex() == addressof(m).
TYPED_TEST(ConformanceLockWrappers, UniqueLockLocksAndUnlocks)
{
  TypeParam lock;
  static_assert(!std::is_convertible_v<TypeParam&, unisync::unique_lock<TypeParam>>, "explicit");
  {
    unisync::unique_lock<TypeParam> owner(lock);
    EXPECT_TRUE(owner.owns_lock());
    EXPECT_EQ(owner.mutex(), std::addressof(lock));
    EXPECT_FALSE(free_for_another_thread(lock));
  }
  EXPECT_TRUE(free_for_another_thread(lock)) << "[thread.lock.unique.cons] ~unique_lock: unlocks what it owns";
}

// [thread.lock.unique.cons] unique_lock(m, defer_lock): does not lock, owns nothing.
TYPED_TEST(ConformanceLockWrappers, DeferLockDoesNotLock)
{
  TypeParam lock;
  static_assert(std::is_nothrow_constructible_v<unisync::unique_lock<TypeParam>, TypeParam&, std::defer_lock_t>);
  {
    unisync::unique_lock<TypeParam> deferred(lock, std::defer_lock);
    EXPECT_FALSE(deferred.owns_lock());
    EXPECT_EQ(deferred.mutex(), std::addressof(lock));
    EXPECT_TRUE(free_for_another_thread(lock));
  }
  EXPECT_TRUE(free_for_another_thread(lock)) << "a lock it does not own stays as it was";
}

// [thread.lock.unique.cons] unique_lock(m, try_to_lock): m.try_lock(); owns its result.
TYPED_TEST(ConformanceLockWrappers, TryToLockTriesWithoutBlocking)
{
  TypeParam lock;
  {
    unisync::unique_lock<TypeParam> owner(lock, std::try_to_lock);
    EXPECT_TRUE(owner.owns_lock());
    bounded_thread other([&] {
      unisync::unique_lock<TypeParam> refused(lock, std::try_to_lock);
      EXPECT_FALSE(refused.owns_lock());
    });
    EXPECT_TRUE(other.returned_within()) << "try_to_lock blocked on a held lock";
  }
  if constexpr (std::is_same_v<TypeParam, recording_mutex>) {
    EXPECT_EQ(lock.made().try_lock, 2) << "one try per constructor";
    EXPECT_EQ(lock.made().lock, 0);
  }
}

// [thread.lock.unique.cons] unique_lock(m, adopt_lock): owns without locking.
TYPED_TEST(ConformanceLockWrappers, AdoptLockOwnsWithoutLocking)
{
  TypeParam lock;
  lock.lock();
  {
    unisync::unique_lock<TypeParam> owner(lock, std::adopt_lock);
    EXPECT_TRUE(owner.owns_lock());
  }
  EXPECT_TRUE(free_for_another_thread(lock));
  if constexpr (std::is_same_v<TypeParam, recording_mutex>) {
    EXPECT_EQ(lock.made().lock, 1);
  }
}

// [thread.lock.unique.cons] unique_lock(m, abs_time) and unique_lock(m, rel_time):
// m.try_lock_until(abs_time) and m.try_lock_for(rel_time), with either chrono.
TYPED_TEST(ConformanceLockWrappers, TimedConstructorsTryUntilTheTimeout)
{
  TypeParam lock;
  {
    unisync::unique_lock<TypeParam> until_std(lock, std::chrono::steady_clock::now() + 10ms);
    EXPECT_TRUE(until_std.owns_lock());
  }
  {
    unisync::unique_lock<TypeParam> until_cuda(lock, cuda::std::chrono::system_clock::now() +
                                                         cuda::std::chrono::milliseconds(10));
    EXPECT_TRUE(until_cuda.owns_lock());
  }
  {
    unisync::unique_lock<TypeParam> for_std(lock, 10ms);
    EXPECT_TRUE(for_std.owns_lock());
  }
  unisync::unique_lock<TypeParam> for_cuda(lock, cuda::std::chrono::milliseconds(10));
  ASSERT_TRUE(for_cuda.owns_lock());
  bounded_thread other([&] {
    unisync::unique_lock<TypeParam> refused_until_std(lock, std::chrono::steady_clock::now() + 5ms);
    EXPECT_FALSE(refused_until_std.owns_lock());
    unisync::unique_lock<TypeParam> refused_until_cuda(lock, cuda::std::chrono::system_clock::now());
    EXPECT_FALSE(refused_until_cuda.owns_lock());
    unisync::unique_lock<TypeParam> refused_for_std(lock, 5ms);
    EXPECT_FALSE(refused_for_std.owns_lock());
    unisync::unique_lock<TypeParam> refused_for_cuda(lock, cuda::std::chrono::nanoseconds(0));
    EXPECT_FALSE(refused_for_cuda.owns_lock());
  });
  EXPECT_TRUE(other.returned_within());
}

// [thread.lock.unique.cons] unique_lock(unique_lock&&) noexcept; operator=(unique_lock&&):
// takes the state, the source owns nothing; assignment first unlocks what it owned.
TYPED_TEST(ConformanceLockWrappers, MovesTransferOwnership)
{
  static_assert(std::is_nothrow_move_constructible_v<unisync::unique_lock<TypeParam>>);
  static_assert(!std::is_copy_constructible_v<unisync::unique_lock<TypeParam>>);
  static_assert(!std::is_copy_assignable_v<unisync::unique_lock<TypeParam>>);
  TypeParam first;
  TypeParam second;
  unisync::unique_lock<TypeParam> owner(first);
  unisync::unique_lock<TypeParam> moved(std::move(owner));
  EXPECT_FALSE(owner.owns_lock());
  EXPECT_EQ(owner.mutex(), nullptr);
  EXPECT_TRUE(moved.owns_lock());
  EXPECT_EQ(moved.mutex(), std::addressof(first));
  unisync::unique_lock<TypeParam> other_owner(second);
  moved = std::move(other_owner);
  EXPECT_TRUE(free_for_another_thread(first)) << "move assignment unlocks the lock it owned";
  EXPECT_FALSE(free_for_another_thread(second));
  EXPECT_EQ(moved.mutex(), std::addressof(second));
  EXPECT_EQ(other_owner.mutex(), nullptr);
  auto& self = moved;
  moved = std::move(self);
  EXPECT_TRUE(moved.owns_lock()) << "self-move-assignment keeps the state";
}

// [thread.lock.unique.locking] lock, try_lock, try_lock_for, try_lock_until call the
// mutex's member and own its result; unlock unlocks and owns nothing.
TYPED_TEST(ConformanceLockWrappers, LockingMembersCallTheMutex)
{
  TypeParam lock;
  unisync::unique_lock<TypeParam> owner(lock, std::defer_lock);
  owner.lock();
  EXPECT_TRUE(owner.owns_lock());
  owner.unlock();
  EXPECT_FALSE(owner.owns_lock());
  EXPECT_TRUE(free_for_another_thread(lock));
  EXPECT_TRUE(owner.try_lock());
  owner.unlock();
  EXPECT_TRUE(owner.try_lock_for(1ms));
  owner.unlock();
  EXPECT_TRUE(owner.try_lock_for(cuda::std::chrono::milliseconds(1)));
  owner.unlock();
  EXPECT_TRUE(owner.try_lock_until(std::chrono::steady_clock::now() + 1ms));
  owner.unlock();
  EXPECT_TRUE(owner.try_lock_until(cuda::std::chrono::system_clock::now()));
  EXPECT_TRUE(owner.owns_lock());
  bounded_thread other([&] {
    unisync::unique_lock<TypeParam> refused(lock, std::defer_lock);
    EXPECT_FALSE(refused.try_lock());
    EXPECT_FALSE(refused.try_lock_for(2ms));
    EXPECT_FALSE(refused.try_lock_until(std::chrono::steady_clock::now() + 2ms));
    EXPECT_FALSE(refused.owns_lock());
  });
  EXPECT_TRUE(other.returned_within());
  if constexpr (std::is_same_v<TypeParam, recording_mutex>) {
    EXPECT_EQ(lock.made().lock, 1);
    EXPECT_EQ(lock.made().timed, 6);
  }
}

// [thread.lock.unique.mod] swap (member and non-member, noexcept) and release.
TYPED_TEST(ConformanceLockWrappers, SwapAndReleaseModifyOnlyTheWrapper)
{
  TypeParam first;
  TypeParam second;
  unisync::unique_lock<TypeParam> one(first);
  unisync::unique_lock<TypeParam> two(second, std::defer_lock);
  static_assert(noexcept(one.swap(two)));
  static_assert(noexcept(swap(one, two)), "a non-member swap, found by argument-dependent lookup");
  one.swap(two);
  EXPECT_EQ(one.mutex(), std::addressof(second));
  EXPECT_FALSE(one.owns_lock());
  EXPECT_EQ(two.mutex(), std::addressof(first));
  EXPECT_TRUE(two.owns_lock());
  swap(one, two);
  EXPECT_EQ(one.mutex(), std::addressof(first));
  EXPECT_TRUE(one.owns_lock());
  static_assert(noexcept(one.release()));
  TypeParam* const released = one.release();
  EXPECT_EQ(released, std::addressof(first));
  EXPECT_EQ(one.mutex(), nullptr);
  EXPECT_FALSE(one.owns_lock());
  EXPECT_FALSE(free_for_another_thread(first)) << "release() does not unlock";
  first.unlock();
}

// [thread.lock.unique.obs] owns_lock, explicit operator bool, mutex: noexcept observers.
TYPED_TEST(ConformanceLockWrappers, ObserversAgree)
{
  TypeParam lock;
  unisync::unique_lock<TypeParam> owner(lock, std::defer_lock);
  static_assert(!std::is_convertible_v<unisync::unique_lock<TypeParam>, bool>, "explicit operator bool");
  static_assert(noexcept(owner.owns_lock()) && noexcept(static_cast<bool>(owner)) && noexcept(owner.mutex()));
  EXPECT_FALSE(static_cast<bool>(owner));
  owner.lock();
  EXPECT_TRUE(static_cast<bool>(owner));
  EXPECT_EQ(owner.owns_lock(), static_cast<bool>(owner));
}

// [thread.lock.unique.locking] lock, try_lock, try_lock_for, try_lock_until: "Error
// conditions: operation_not_permitted — if pm is nullptr; resource_deadlock_would_occur — if
// on entry owns is true"; unlock: "operation_not_permitted — if on entry owns is false".
TYPED_TEST(ConformanceLockWrappers, MisuseThrowsSystemError)
{
  TypeParam lock;
  unisync::test::expect_every_misuse_reported<unisync::unique_lock<TypeParam>>(lock);
  unisync::unique_lock<TypeParam> owner(lock);  // the refused calls left the mutex usable
  EXPECT_TRUE(owner.owns_lock());
}

}  // namespace
