// Lock properties on CPU threads, over every lock-like type: mutual exclusion (no lost
// updates), FIFO order for the fair types, try_lock and timed semantics, and the std
// lock wrappers.

#include "actors.hpp"
#include "bounded.hpp"
#include "checks.hpp"
#include "lock_misuse.hpp"
#include "lockables.hpp"
#include "test_access.hpp"

#include <unisync/lock_guard.hpp>
#include <unisync/shared_lock.hpp>
#include <unisync/shared_mutex.hpp>
#include <unisync/unique_lock.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using unisync::test::run_cpu_actors;

template <class Lock>
long long lost_update_total(Lock& lock, unsigned threads, unsigned iterations)
{
  long long counter = 0;
  run_cpu_actors(threads, [&](unsigned) {
    for (unsigned i = 0; i < iterations; ++i) {
      lock.lock();
      unisync::test::increment_slowly(counter);
      lock.unlock();
    }
  });
  return counter;
}

template <class Lock>
class HostLock : public ::testing::Test {};
using host_lock_types =
    ::testing::Types<unisync::mutex, unisync::spin_mutex, unisync::ticket_mutex, unisync::test::system_spin_ticket_mutex,
                     unisync::cohort_mutex, unisync::test::semaphore_lock<cuda::thread_scope_system>>;
TYPED_TEST_SUITE(HostLock, host_lock_types, unisync::test::type_names);

// Fewer sections under ThreadSanitizer, which slows every atomic operation many times:
// with more threads than the CI machine's two cores, a pure-spin FIFO lock
// (spin_ticket_mutex) hands over only when the next ticket holder gets a core, and 40000
// sections ran past the 300 s CTest timeout there while another spinning test shared the
// cores.
#if defined(__SANITIZE_THREAD__)
constexpr unsigned lost_update_sections = 8000;
#else   // !defined(__SANITIZE_THREAD__)
constexpr unsigned lost_update_sections = 40000;
#endif  // defined(__SANITIZE_THREAD__)

TYPED_TEST(HostLock, NoLostUpdates)
{
  for (unsigned threads : unisync::test::cpu_thread_counts()) {
    TypeParam lock;
    unsigned const iterations = lost_update_sections / threads;
    EXPECT_EQ(lost_update_total(lock, threads, iterations), static_cast<long long>(threads) * iterations)
        << threads << " threads";
  }
}

TYPED_TEST(HostLock, TryLockFailsWhileHeldAndSucceedsAfterRelease)
{
  TypeParam lock;
  ASSERT_TRUE(lock.try_lock());
  bool taken_while_held = true;
  std::thread([&] { taken_while_held = lock.try_lock(); }).join();
  EXPECT_FALSE(taken_while_held);
  lock.unlock();
  bool taken_after_release = false;
  std::thread([&] {
    taken_after_release = lock.try_lock();
    if (taken_after_release) lock.unlock();
  }).join();
  EXPECT_TRUE(taken_after_release);
}

TYPED_TEST(HostLock, TryLockForTimesOutWhileHeld)
{
  if constexpr (std::is_same_v<TypeParam, unisync::test::semaphore_lock<cuda::thread_scope_system>>) {
    GTEST_SKIP() << "semaphores have try_acquire_for: covered by the semaphore tests";
  } else {
    TypeParam lock;
    lock.lock();
    bool taken = true;
    auto const start = std::chrono::steady_clock::now();
    std::thread([&] { taken = lock.try_lock_for(30ms); }).join();
    auto const waited = std::chrono::steady_clock::now() - start;
    EXPECT_FALSE(taken);
    EXPECT_GE(waited, 30ms);
    EXPECT_LT(waited, 30ms + 5s) << "the timeout should be respected within a generous bound";
    lock.unlock();
  }
}

TYPED_TEST(HostLock, TimedOutWaiterLeavesTheLockUsable)
{
  if constexpr (std::is_same_v<TypeParam, unisync::test::semaphore_lock<cuda::thread_scope_system>>) {
    GTEST_SKIP() << "semaphores have try_acquire_for: covered by the semaphore tests";
  } else {
    TypeParam lock;
    lock.lock();
    std::thread([&] { EXPECT_FALSE(lock.try_lock_until(std::chrono::steady_clock::now() + 10ms)); }).join();
    std::thread([&] { EXPECT_FALSE(lock.try_lock_for(cuda::std::chrono::milliseconds(10))); }).join();
    lock.unlock();
    // A ticket abandoned by the timed-out waiters would block this forever.
    std::thread([&] {
      lock.lock();
      lock.unlock();
    }).join();
    EXPECT_TRUE(lock.try_lock());
    lock.unlock();
  }
}

TYPED_TEST(HostLock, TryLockForSucceedsWhenReleasedDuringTheWait)
{
  if constexpr (std::is_same_v<TypeParam, unisync::test::semaphore_lock<cuda::thread_scope_system>>) {
    GTEST_SKIP() << "semaphores have try_acquire_for: covered by the semaphore tests";
  } else {
    TypeParam lock;
    lock.lock();
    bool taken = false;
    std::thread waiter([&] {
      taken = lock.try_lock_for(std::chrono::seconds(30));
      if (taken) lock.unlock();
    });
    std::this_thread::sleep_for(20ms);
    lock.unlock();
    waiter.join();
    EXPECT_TRUE(taken);
  }
}

TYPED_TEST(HostLock, WorksWithStdAndUnisyncWrappers)
{
  TypeParam lock;
  long long counter = 0;
  run_cpu_actors(4, [&](unsigned actor) {
    for (int i = 0; i < 500; ++i) {
      if (actor % 2 == 0) {
        std::lock_guard<TypeParam> guard(lock);
        unisync::test::increment_slowly(counter);
      } else {
        unisync::unique_lock<TypeParam> guard(lock);
        unisync::test::increment_slowly(counter);
        guard.unlock();
        EXPECT_FALSE(guard.owns_lock());
      }
    }
  });
  EXPECT_EQ(counter, 2000);
}

template <class Lock>
class HostTimedLock : public ::testing::Test {};
using host_timed_lock_types =
    ::testing::Types<unisync::mutex, unisync::spin_mutex, unisync::ticket_mutex, unisync::cohort_mutex>;
TYPED_TEST_SUITE(HostTimedLock, host_timed_lock_types, unisync::test::type_names);

TYPED_TEST(HostTimedLock, MeetsTimedLockableForStdUniqueLock)
{
  TypeParam lock;
  std::unique_lock<TypeParam> holder(lock);
  std::thread([&] {
    std::unique_lock<TypeParam> timed(lock, 5ms);
    EXPECT_FALSE(timed.owns_lock());
    EXPECT_FALSE(timed.try_lock_until(std::chrono::system_clock::now() + 5ms));
  }).join();
  holder.unlock();
  std::thread([&] {
    std::unique_lock<TypeParam> timed(lock, 1s);
    EXPECT_TRUE(timed.owns_lock());
  }).join();
}

TYPED_TEST(HostTimedLock, ScopedLockAvoidsDeadlockOnTwoLocks)
{
  TypeParam first;
  TypeParam second;
  long long counter = 0;
  run_cpu_actors(2, [&](unsigned actor) {
    for (int i = 0; i < 2000; ++i) {
      if (actor == 0) {
        std::scoped_lock both(first, second);
        unisync::test::increment_slowly(counter);
      } else {
        std::scoped_lock both(second, first);
        unisync::test::increment_slowly(counter);
      }
    }
  });
  EXPECT_EQ(counter, 4000);
}

// FIFO: each waiter starts only after the previous one has taken its ticket, so ticket
// order is known; the order of service must be the same (for the cohort mutex: among the
// threads of one side).
template <class Lock>
class HostFifoLock : public ::testing::Test {};
using host_fifo_lock_types =
    ::testing::Types<unisync::ticket_mutex, unisync::test::system_spin_ticket_mutex, unisync::cohort_mutex,
                     unisync::test::semaphore_lock<cuda::thread_scope_system>>;
TYPED_TEST_SUITE(HostFifoLock, host_fifo_lock_types, unisync::test::type_names);

TYPED_TEST(HostFifoLock, ServesInTicketOrder)
{
  using access = unisync::detail::test_access;
  TypeParam lock;
  lock.lock();
  constexpr unsigned waiters = 8;
  std::vector<unsigned> served;
  std::vector<std::thread> threads;
  for (unsigned waiter = 0; waiter < waiters; ++waiter) {
    auto const tickets_before = access::tickets_taken(lock);
    threads.emplace_back([&, waiter] {
      lock.lock();
      served.push_back(waiter);
      lock.unlock();
    });
    while (access::tickets_taken(lock) == tickets_before) std::this_thread::yield();
  }
  lock.unlock();
  for (auto& thread : threads) thread.join();
  std::vector<unsigned> ticket_order(waiters);
  for (unsigned waiter = 0; waiter < waiters; ++waiter) ticket_order[waiter] = waiter;
  EXPECT_EQ(served, ticket_order);
}

TYPED_TEST(HostFifoLock, NoLostUpdatesAcrossCounterWraparound)
{
  TypeParam lock;
  unisync::detail::test_access::start_tickets_at(lock, ~std::uint64_t{0} - 3000u);
  EXPECT_EQ(lost_update_total(lock, 4, 2000), 8000);
}

// The cohort mutex with host threads in both of its sides' roles: those of the GPU side
// take its local lock and run the GPU's unlock(), which passes within the side before it
// looks whether anyone queued (the mixed suite runs the same on the GPU).
template <class Lock>
class HostCohortGpuSide : public ::testing::Test {};
using host_cohort_types = ::testing::Types<unisync::test::short_cohort_mutex, unisync::cohort_mutex>;
TYPED_TEST_SUITE(HostCohortGpuSide, host_cohort_types, unisync::test::type_names);

TYPED_TEST(HostCohortGpuSide, NoLostUpdatesWhenTheGpuSidePassesFirst)
{
  // The bypass bound is checked on the GPU (test/mixed) and in the model: with more threads
  // than cores here, a thread preempted between its count and its ticket sees any number
  // of foreign sections.
  using access = unisync::detail::test_access;
  constexpr unsigned threads_per_side = 3;
#if defined(__SANITIZE_THREAD__)
  constexpr unsigned iterations = 1000;
#else   // !defined(__SANITIZE_THREAD__)
  constexpr unsigned iterations = 6000;
#endif  // defined(__SANITIZE_THREAD__)
  for (std::uint64_t start : {std::uint64_t{0}, ~std::uint64_t{0} - 2000u}) {
    TypeParam lock;
    access::start_tickets_at(lock, start);
    long long counter = 0;
    run_cpu_actors(2 * threads_per_side, [&](unsigned actor) {
      bool const gpu_role = actor >= threads_per_side;
      for (unsigned i = 0; i < iterations; ++i) {
        gpu_role ? access::lock_as_gpu(lock) : lock.lock();
        unisync::test::increment_slowly(counter);
        gpu_role ? access::unlock_as_gpu(lock) : lock.unlock();
      }
    });
    EXPECT_EQ(counter, 2ll * threads_per_side * iterations) << "tickets from " << start;
    EXPECT_FALSE(access::gpu_side_interested(lock)) << "the last GPU-side unlock() kept the top lock";
    EXPECT_FALSE(access::cpu_side_interested(lock));
  }
}

TYPED_TEST(HostCohortGpuSide, UnlockThatPassedToNobodyLetsTheTopLockGo)
{
  using access = unisync::detail::test_access;
  TypeParam lock;
  for (int i = 0; i < 3; ++i) {
    access::lock_as_gpu(lock);
    EXPECT_TRUE(access::gpu_side_interested(lock));
    access::unlock_as_gpu(lock);
    EXPECT_FALSE(access::gpu_side_interested(lock)) << "round " << i;
  }
  // The CPU side gets the top lock without waiting for the GPU side.
  ASSERT_TRUE(lock.try_lock());
  lock.unlock();
}

// A CPU thread waits for the top lock while the GPU side's local lock shows more passes
// than the bound: the GPU thread that takes it next must let the CPU side in first.
// A broken lock fails the test instead of hanging it: after 10 s the CPU waiter is let in.
template <class Lock, class GpuTakes>
bool cpu_waiter_enters_first(Lock& lock, GpuTakes gpu_takes)
{
  using access = unisync::detail::test_access;
  auto const patience = std::chrono::steady_clock::now() + 10s;
  access::leave_gpu_side_passed(lock, Lock::pass_bound + 1);
  // The wait below must see the CPU thread's own turn store: with the turn already naming
  // the GPU side it could see the CPU's interest alone, and the GPU side's handover could
  // come before that store, which takes the turn back (Peterson lets the GPU side go:
  // the CPU side was not yet waiting).
  access::turn_to_cpu_side(lock);
  std::atomic<int> order{0};
  std::atomic<int> cpu_entered_at{0};
  std::thread cpu([&] {
    lock.lock();
    cpu_entered_at = ++order;
    lock.unlock();
  });
  while (!access::cpu_side_waits_for_gpu(lock) && std::chrono::steady_clock::now() < patience) {
    std::this_thread::yield();
  }
  bool const gpu_took_it = gpu_takes();
  int const gpu_entered_at = ++order;
  if (gpu_took_it) access::unlock_as_gpu(lock);
  while (cpu_entered_at == 0 && std::chrono::steady_clock::now() < patience) std::this_thread::yield();
  bool const cpu_entered = cpu_entered_at != 0;
  if (!cpu_entered) access::let_cpu_side_in(lock);
  cpu.join();
  EXPECT_TRUE(cpu_entered) << "the CPU waiter was still waiting after the GPU side was done";
  return cpu_entered && (cpu_entered_at < gpu_entered_at || !gpu_took_it);
}

TYPED_TEST(HostCohortGpuSide, LockPastTheBoundHandsTheTopLockOverWhenTheOtherSideWaits)
{
  using access = unisync::detail::test_access;
  TypeParam lock;
  EXPECT_TRUE(cpu_waiter_enters_first(lock, [&] {
    access::lock_as_gpu(lock);
    return true;
  })) << "the GPU side entered past its bound while the CPU side waited";
  EXPECT_FALSE(access::gpu_side_interested(lock));
  ASSERT_TRUE(lock.try_lock());
  lock.unlock();
}

TYPED_TEST(HostCohortGpuSide, LockPastTheBoundCarriesOnWhenTheOtherSideDoesNotWait)
{
  using access = unisync::detail::test_access;
  TypeParam lock;
  access::leave_gpu_side_passed(lock, TypeParam::pass_bound + 1);
  access::lock_as_gpu(lock);  // returns at once: nobody else is there to wait for
  EXPECT_EQ(access::gpu_side_passes(lock), 0u) << "the pass count was not started again";
  EXPECT_TRUE(access::turn_names_gpu_side(lock)) << "the top lock was handed over to nobody";
  access::unlock_as_gpu(lock);
  EXPECT_FALSE(access::gpu_side_interested(lock));
}

TYPED_TEST(HostCohortGpuSide, TryLockPastTheBoundFailsAndLetsTheWaitingSideIn)
{
  using access = unisync::detail::test_access;
  TypeParam lock;
  bool tried = true;
  EXPECT_TRUE(cpu_waiter_enters_first(lock, [&] {
    tried = access::try_lock_as_gpu(lock);
    return tried;
  }));
  EXPECT_FALSE(tried) << "a try took the lock past the bound while the CPU side waited";
  EXPECT_FALSE(access::gpu_side_interested(lock)) << "the failed try kept the top lock";
  ASSERT_TRUE(lock.try_lock());
  lock.unlock();
}

TYPED_TEST(HostCohortGpuSide, TimedTryPastTheBoundWaitsItsTurnInsteadOfGivingUp)
{
  using access = unisync::detail::test_access;
  TypeParam lock;
  bool taken = false;
  EXPECT_TRUE(cpu_waiter_enters_first(lock, [&] {
    taken = access::try_lock_within_as_gpu(lock, std::chrono::nanoseconds(20s).count());
    return taken;
  }));
  EXPECT_TRUE(taken) << "a timed try gave up before its timeout";
}

TYPED_TEST(HostCohortGpuSide, FailedTryKeepsTheInterestForAThreadQueuedBehindIt)
{
  // A timed try announces the CPU side's interest and waits for the top lock, which the
  // GPU side holds; a lock() caller queues behind it on the CPU side meanwhile, counting
  // on that announcement for its bound on the GPU side's sections. When the try gives up
  // it must leave the interest to that waiter, not withdraw it.
  using access = unisync::detail::test_access;
  TypeParam lock;
  access::lock_as_gpu(lock);
  auto const patience = std::chrono::steady_clock::now() + 10s;
  // The try cannot give up before its deadline: a waiter seen queued before it queued
  // behind the try.
  auto const try_deadline = std::chrono::steady_clock::now() + 1s;
  bool taken = true;
  std::thread trier([&] { taken = lock.try_lock_until(try_deadline); });
  while (!access::cpu_side_waits_for_gpu(lock) && std::chrono::steady_clock::now() < patience) {
    std::this_thread::yield();
  }
  std::atomic<bool> entered{false};
  std::thread waiter([&] {
    lock.lock();
    entered = true;
    lock.unlock();
  });
  while (access::tickets_taken(lock) < 2 && std::chrono::steady_clock::now() < patience) std::this_thread::yield();
  bool const queued_behind_the_try = std::chrono::steady_clock::now() < try_deadline;
  trier.join();
  EXPECT_FALSE(taken) << "the try took the lock the GPU side holds";
  // The waiter holds the CPU side's local lock now and waits for the top lock: on the
  // interest the try left it (handed over), or on one it announced again itself.
  bool const interest_kept = access::cpu_side_handed_over(lock) && access::cpu_side_interested(lock);
  EXPECT_FALSE(entered) << "the CPU waiter entered while the GPU side held the lock";
  access::unlock_as_gpu(lock);
  waiter.join();
  EXPECT_TRUE(entered);
  ASSERT_TRUE(lock.try_lock());
  lock.unlock();
  if (!queued_behind_the_try) GTEST_SKIP() << "the waiter queued only after the try had given up";
  EXPECT_TRUE(interest_kept) << "the failed try withdrew the interest its queued waiter counts on";
}

// A lock wrapper's misuse throws std::system_error in every build, as std's does: this suite
// also runs in release builds, where the per-operation precondition checks are off (and
// where, unchecked, relocking would deadlock: hence the bounded thread).
TEST(HostLockWrappers, MisuseThrowsSystemErrorInEveryBuild)
{
  auto const lock = std::make_shared<unisync::mutex>();
  auto const shared = std::make_shared<unisync::shared_mutex>();
  unisync::test::bounded_thread misuse([lock, shared] {
    unisync::test::expect_every_misuse_reported<unisync::unique_lock<unisync::mutex>>(*lock);
    unisync::test::expect_every_misuse_reported<unisync::shared_lock<unisync::shared_mutex>>(*shared);
  });
  ASSERT_TRUE(misuse.returned_within()) << "a misused wrapper blocked instead of throwing";
  ASSERT_TRUE(lock->try_lock()) << "a refused call left the mutex held";
  lock->unlock();
  ASSERT_TRUE(shared->try_lock()) << "a refused call left the shared mutex held";
  shared->unlock();
}

#if !defined(__SANITIZE_THREAD__)
// The checker itself: without a lock, the same harness must see lost updates.
struct not_a_lock {
  void lock() {}
  void unlock() {}
};

TEST(HostLockChecker, DetectsLostUpdatesWithoutALock)
{
  // Rounds until the threads overlap: on a loaded machine one round may run them one
  // after another.
  not_a_lock none;
  bool lost = false;
  for (int round = 0; round < 50 && !lost; ++round) lost = lost_update_total(none, 4, 200000) < 800000;
  EXPECT_TRUE(lost);
}

#endif  // !defined(__SANITIZE_THREAD__)

}  // namespace
