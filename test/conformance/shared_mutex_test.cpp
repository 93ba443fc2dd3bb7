// The shared mutexes against [thread.sharedmutex.requirements] (shared mutex types),
// [thread.sharedtimedmutex.requirements] (shared timed mutex types) and
// [thread.sharedmutex.class], and unisync::shared_lock against [thread.lock.shared], member
// by member, on CPU threads. Writers excluding readers under contention and the starvation
// bounds are test/host/shared_mutex_test.cpp's; this file holds each clause's guarantees,
// each wait bounded. Misuse that std reports with std::system_error throws it, as std does.

#include "bounded.hpp"
#include "lock_misuse.hpp"
#include "shared_kinds.hpp"
#include "test_access.hpp"

#include <unisync/shared_lock.hpp>
#include <unisync/shared_mutex.hpp>

#include <cuda/std/chrono>
#include <gtest/gtest.h>

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace std::chrono_literals;
using unisync::test::bounded_thread;
using unisync::test::eventually;
using unisync::test::free_for_another_thread;
using access = unisync::detail::test_access;

/// Whether another thread could take the mutex shared now.
template <class Mutex>
bool free_for_a_reader(Mutex& mutex)
{
  bool taken = false;
  std::thread other([&] {
    taken = mutex.try_lock_shared();
    if (taken) mutex.unlock_shared();
  });
  other.join();
  return taken;
}

template <class Mutex>
class ConformanceSharedMutex : public ::testing::Test {};
using shared_mutex_types =
    ::testing::Types<unisync::shared_mutex, unisync::test::device_shared_mutex, unisync::test::striped_shared_mutex>;
TYPED_TEST_SUITE(ConformanceSharedMutex, shared_mutex_types, unisync::test::shared_type_names);

// [thread.sharedmutex.class] p1: shared_mutex(); not copyable or movable. p3: "meets all of
// the shared mutex requirements. It is a standard-layout class." (ours also has a constexpr
// noexcept constructor, as unisync::mutex, so static and __managed__ objects work.) A new
// mutex is free in both modes: [thread.sharedmutex.requirements] try_lock_shared takes a
// free mutex when no other thread contends (std allows a spurious failure; ours fails only
// under concurrent use).
TYPED_TEST(ConformanceSharedMutex, ConstructsFreeAndIsStandardLayout)
{
  static_assert(std::is_nothrow_default_constructible_v<TypeParam>);
  static_assert(std::is_standard_layout_v<TypeParam>);
  static_assert(!std::is_copy_constructible_v<TypeParam> && !std::is_copy_assignable_v<TypeParam>);
  static_assert(!std::is_move_constructible_v<TypeParam> && !std::is_move_assignable_v<TypeParam>);
  static constexpr TypeParam constant{};
  static_cast<void>(constant);
  auto mutex = std::make_unique<TypeParam>();
  EXPECT_TRUE(mutex->try_lock_shared());
  mutex->unlock_shared();
  EXPECT_TRUE(mutex->try_lock());
  mutex->unlock();
  EXPECT_EQ(access::reader_words(*mutex), 0u);
}

// [thread.sharedmutex.requirements] p2: "Multiple execution agents can simultaneously hold a
// shared lock ownership of a shared mutex type": every thread holds it at once, none waits
// for another to leave.
TYPED_TEST(ConformanceSharedMutex, ManyThreadsHoldItSharedAtOnce)
{
  constexpr unsigned readers = 16;
  auto mutex = std::make_shared<TypeParam>();
  auto inside = std::make_shared<std::atomic<unsigned>>(0);
  std::vector<std::unique_ptr<bounded_thread>> threads;
  for (unsigned reader = 0; reader < readers; ++reader) {
    threads.push_back(std::make_unique<bounded_thread>([mutex, inside] {
      mutex->lock_shared();
      inside->fetch_add(1);
      EXPECT_TRUE(eventually([&] { return inside->load() == readers; })) << "a reader waited for another to leave";
      mutex->unlock_shared();
    }));
  }
  for (auto& thread : threads) EXPECT_TRUE(thread->returned_within());
  EXPECT_EQ(access::reader_words(*mutex), 0u);
}

/// The least number of agents a shared mutex must admit at once ([thread.sharedmutex.requirements] p2).
#if defined(__SANITIZE_THREAD__)
constexpr unsigned least_shared_holders = 2000;  // ThreadSanitizer keeps fewer than 8192 threads alive
#else   // !defined(__SANITIZE_THREAD__)
constexpr unsigned least_shared_holders = 10000;
#endif  // defined(__SANITIZE_THREAD__)

struct holder_context {
  unisync::shared_mutex* mutex;
  std::atomic<unsigned>* inside;
  std::shared_future<void> leave;
};

void* hold_shared_until_told(void* argument)
{
  auto* const context = static_cast<holder_context*>(argument);
  std::shared_future<void> const leave = context->leave;
  context->mutex->lock_shared();
  context->inside->fetch_add(1);
  leave.wait();
  context->mutex->unlock_shared();
  return nullptr;
}

// [thread.sharedmutex.requirements] p2: "The maximum number of execution agents which can
// share a shared lock on a single shared mutex type is unspecified, but is at least 10000."
// (Ours: 2^20 - 1 per side.) Threads with small stacks, blocked on a future while they hold it.
TEST(ConformanceSharedMutexCapacity, TenThousandThreadsHoldItSharedAtOnce)
{
  auto mutex = std::make_unique<unisync::shared_mutex>();
  std::atomic<unsigned> inside{0};
  std::promise<void> leave;
  holder_context context{mutex.get(), &inside, leave.get_future().share()};
  pthread_attr_t attributes;
  ASSERT_EQ(pthread_attr_init(&attributes), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attributes, 256 * 1024), 0);
  std::vector<pthread_t> holders;
  holders.reserve(least_shared_holders);
  int failure = 0;
  for (unsigned holder = 0; holder < least_shared_holders && failure == 0; ++holder) {
    pthread_t thread;
    failure = pthread_create(&thread, &attributes, hold_shared_until_told, &context);
    if (failure == 0) holders.push_back(thread);
  }
  pthread_attr_destroy(&attributes);
  bool const all_inside = eventually([&] { return inside.load() == holders.size(); });
  bool const writer_refused = !mutex->try_lock_for(1ms);
  leave.set_value();
  for (pthread_t const thread : holders) pthread_join(thread, nullptr);
  if (failure != 0) {
    GTEST_SKIP() << "this machine would not start " << least_shared_holders << " threads (pthread_create: "
                 << failure << " after " << holders.size() << ")";
  }
  EXPECT_TRUE(all_inside) << inside.load() << " of " << holders.size() << " threads got a shared hold";
  EXPECT_TRUE(writer_refused) << "a writer got in beside the readers";
  EXPECT_EQ(access::reader_words(*mutex), 0u);
  EXPECT_TRUE(mutex->try_lock());
  mutex->unlock();
}

// [thread.sharedmutex.requirements] p2: "no execution agent holds a shared lock while another
// execution agent holds an exclusive lock on the same shared mutex type, and vice-versa":
// lock_shared blocks while a writer holds it, lock blocks while a reader holds it, and each
// returns once the other lets go.
TYPED_TEST(ConformanceSharedMutex, ExclusiveAndSharedHoldsExcludeEachOther)
{
  auto mutex = std::make_shared<TypeParam>();
  auto entered = std::make_shared<std::atomic<bool>>(false);
  mutex->lock();
  bounded_thread reader([mutex, entered] {
    mutex->lock_shared();
    entered->store(true);
    mutex->unlock_shared();
  });
  EXPECT_FALSE(eventually([&] { return entered->load(); }, 20ms)) << "a reader got in while a writer held it";
  mutex->unlock();
  ASSERT_TRUE(reader.returned_within()) << "unlock() did not let the reader in";

  entered->store(false);
  mutex->lock_shared();
  bounded_thread writer([mutex, entered] {
    mutex->lock();
    entered->store(true);
    mutex->unlock();
  });
  EXPECT_FALSE(eventually([&] { return entered->load(); }, 20ms)) << "a writer got in while a reader held it";
  mutex->unlock_shared();
  ASSERT_TRUE(writer.returned_within()) << "unlock_shared() did not let the writer in";
  EXPECT_EQ(access::reader_words(*mutex), 0u);
}

// [thread.sharedmutex.requirements] try_lock_shared(): "Attempts to obtain shared ownership
// of the mutex for the calling thread without blocking. If shared ownership is not obtained,
// there is no effect and try_lock_shared() immediately returns." Returns whether it got it.
TYPED_TEST(ConformanceSharedMutex, TryLockSharedNeverBlocksAndFailsWithoutEffect)
{
  auto mutex = std::make_shared<TypeParam>();
  static_assert(std::is_same_v<decltype(mutex->try_lock_shared()), bool>);
  mutex->lock();
  bounded_thread refused([mutex] { EXPECT_FALSE(mutex->try_lock_shared()) << "try_lock_shared took a written mutex"; });
  EXPECT_TRUE(refused.returned_within()) << "try_lock_shared blocked on a written mutex";
  EXPECT_EQ(access::reader_words(*mutex), 0u) << "a failed try_lock_shared left a registration";
  mutex->unlock();
  EXPECT_TRUE(free_for_another_thread(*mutex)) << "a failed try_lock_shared held a writer back";
  mutex->lock_shared();
  EXPECT_TRUE(free_for_a_reader(*mutex)) << "try_lock_shared failed beside a reader";
  mutex->unlock_shared();
}

// [thread.sharedmutex.requirements] lock_shared(): "Synchronization: Prior unlock()
// operations on the same object shall synchronize with this operation"; try_lock_shared():
// "If try_lock_shared() returns true, prior unlock() operations on the same object
// synchronize with this operation". The writer's plain writes are visible to the reader
// (ThreadSanitizer checks the plain accesses).
TYPED_TEST(ConformanceSharedMutex, UnlockSynchronizesWithLaterSharedHolds)
{
  auto mutex = std::make_shared<TypeParam>();
  auto data = std::make_shared<int>(0);
  mutex->lock();
  bounded_thread reader([mutex, data] {
    mutex->lock_shared();
    EXPECT_EQ(*data, 42) << "the writer's write before unlock() is not visible after lock_shared()";
    mutex->unlock_shared();
  });
  std::this_thread::sleep_for(5ms);
  *data = 42;
  mutex->unlock();
  ASSERT_TRUE(reader.returned_within());
  mutex->lock();
  *data = 43;
  mutex->unlock();
  bounded_thread trier([mutex, data] {
    ASSERT_TRUE(eventually([&] { return mutex->try_lock_shared(); }));
    EXPECT_EQ(*data, 43) << "the writer's write before unlock() is not visible after try_lock_shared()";
    mutex->unlock_shared();
  });
  EXPECT_TRUE(trier.returned_within());
}

// [thread.sharedmutex.requirements] unlock_shared(): "Effects: Releases a shared lock on the
// mutex held by the calling thread. ... Synchronization: This operation synchronizes with
// subsequent lock() operations that obtain ownership on the same object." What a reader did
// in its section is visible to the next writer.
TYPED_TEST(ConformanceSharedMutex, UnlockSharedSynchronizesWithTheNextWriter)
{
  auto mutex = std::make_shared<TypeParam>();
  auto seen_by_reader = std::make_shared<int>(0);
  auto entered = std::make_shared<std::atomic<bool>>(false);
  mutex->lock_shared();
  bounded_thread writer([mutex, seen_by_reader, entered] {
    mutex->lock();
    entered->store(true);
    EXPECT_EQ(*seen_by_reader, 7) << "the reader's write before unlock_shared() is not visible after lock()";
    mutex->unlock();
  });
  EXPECT_FALSE(eventually([&] { return entered->load(); }, 10ms));
  *seen_by_reader = 7;
  mutex->unlock_shared();
  ASSERT_TRUE(writer.returned_within()) << "unlock_shared() did not release the hold";
  EXPECT_EQ(access::reader_words(*mutex), 0u);
}

// [thread.sharedtimedmutex.requirements] try_lock_shared_for(rel_time),
// try_lock_shared_until(abs_time): return bool; take a mutex no writer holds; on a written
// one return false, and "return within the timeout ... only if it has obtained shared
// ownership" (so no earlier); a timeout at or below zero, or a time point already past,
// "attempts to obtain ownership without blocking (as if by calling try_lock_shared())".
// Both cuda::std::chrono and std::chrono; a timed-out reader leaves no registration.
TYPED_TEST(ConformanceSharedMutex, TimedSharedTriesTakeAFreeMutexAndTimeOutOnAWrittenOne)
{
  auto mutex = std::make_shared<TypeParam>();
  static_assert(std::is_same_v<decltype(mutex->try_lock_shared_for(1ms)), bool>);
  static_assert(std::is_same_v<decltype(mutex->try_lock_shared_until(std::chrono::steady_clock::now())), bool>);
  EXPECT_TRUE(mutex->try_lock_shared_for(1ms));
  mutex->unlock_shared();
  EXPECT_TRUE(mutex->try_lock_shared_for(0ms)) << "a zero timeout tries once";
  mutex->unlock_shared();
  EXPECT_TRUE(mutex->try_lock_shared_until(cuda::std::chrono::system_clock::now() - cuda::std::chrono::seconds(1)));
  mutex->unlock_shared();
  mutex->lock_shared();
  EXPECT_TRUE(free_for_a_reader(*mutex));
  bounded_thread beside([mutex] {
    EXPECT_TRUE(mutex->try_lock_shared_for(10s)) << "a timed shared try failed beside a reader";
    mutex->unlock_shared();
  });
  EXPECT_TRUE(beside.returned_within());
  mutex->unlock_shared();
  mutex->lock();
  bounded_thread other([mutex] {
    auto const start = std::chrono::steady_clock::now();
    EXPECT_FALSE(mutex->try_lock_shared_for(5ms));
    EXPECT_GE(std::chrono::steady_clock::now() - start, 5ms);
    auto const until = std::chrono::steady_clock::now() + 5ms;
    EXPECT_FALSE(mutex->try_lock_shared_until(until));
    EXPECT_GE(std::chrono::steady_clock::now(), until);
    EXPECT_FALSE(mutex->try_lock_shared_for(cuda::std::chrono::milliseconds(2)));
    EXPECT_FALSE(mutex->try_lock_shared_until(cuda::std::chrono::system_clock::now() +
                                              cuda::std::chrono::milliseconds(2)));
    auto const once = std::chrono::steady_clock::now();
    EXPECT_FALSE(mutex->try_lock_shared_for(-1ms));
    EXPECT_FALSE(mutex->try_lock_shared_until(std::chrono::system_clock::now() - 1h));
    EXPECT_LT(std::chrono::steady_clock::now() - once, 1s) << "a timeout in the past blocked";
  });
  EXPECT_TRUE(other.returned_within());
  EXPECT_EQ(access::reader_words(*mutex), 0u) << "a timed-out reader left its registration";
  mutex->unlock();
  EXPECT_TRUE(free_for_another_thread(*mutex)) << "a timed-out reader held a writer back";
}

// [thread.sharedtimedmutex.requirements] try_lock_shared_for / _until: "If try_lock_shared_for()
// returns true, prior unlock() operations on the same object synchronize with this
// operation": a reader waiting in a timed try gets in when the writer leaves and sees its writes.
TYPED_TEST(ConformanceSharedMutex, TimedSharedTrySynchronizesWithUnlock)
{
  auto mutex = std::make_shared<TypeParam>();
  auto data = std::make_shared<int>(0);
  mutex->lock();
  bounded_thread for_reader([mutex, data] {
    ASSERT_TRUE(mutex->try_lock_shared_for(20s)) << "the timed try missed the writer's unlock()";
    EXPECT_EQ(*data, 5);
    mutex->unlock_shared();
  });
  bounded_thread until_reader([mutex, data] {
    ASSERT_TRUE(mutex->try_lock_shared_until(std::chrono::steady_clock::now() + 20s));
    EXPECT_EQ(*data, 5);
    mutex->unlock_shared();
  });
  std::this_thread::sleep_for(5ms);
  *data = 5;
  mutex->unlock();
  EXPECT_TRUE(for_reader.returned_within());
  EXPECT_TRUE(until_reader.returned_within());
}

// [thread.sharedtimedmutex.requirements] p1: a shared timed mutex type meets the timed mutex
// requirements ([thread.timedmutex.requirements]): try_lock_for / try_lock_until give up on a
// mutex held shared, no earlier than the timeout, and leave no trace (the reader's hold goes
// on, the next writer gets in); a timeout in the past tries once.
TYPED_TEST(ConformanceSharedMutex, TimedExclusiveTriesTimeOutWhileAReaderHoldsIt)
{
  auto mutex = std::make_shared<TypeParam>();
  mutex->lock_shared();
  bounded_thread other([mutex] {
    auto const start = std::chrono::steady_clock::now();
    EXPECT_FALSE(mutex->try_lock_for(5ms));
    EXPECT_GE(std::chrono::steady_clock::now() - start, 5ms);
    auto const until = std::chrono::steady_clock::now() + 5ms;
    EXPECT_FALSE(mutex->try_lock_until(until));
    EXPECT_GE(std::chrono::steady_clock::now(), until);
    EXPECT_FALSE(mutex->try_lock_for(cuda::std::chrono::milliseconds(2)));
    EXPECT_FALSE(mutex->try_lock_until(std::chrono::system_clock::now() - 1h));
    EXPECT_FALSE(mutex->try_lock());
  });
  EXPECT_TRUE(other.returned_within());
  EXPECT_TRUE(free_for_a_reader(*mutex)) << "a timed-out writer kept the gate closed";
  mutex->unlock_shared();
  EXPECT_TRUE(mutex->try_lock_for(1s));
  mutex->unlock();
}

// [thread.sharedmutex.requirements] p1, [thread.lock.shared.general] p1: the types meet the
// mutex and shared mutex requirements, so std's wrappers and algorithms take them:
// std::shared_lock, std::unique_lock, std::lock_guard, std::lock.
TYPED_TEST(ConformanceSharedMutex, StdWrappersAndAlgorithmsTakeIt)
{
  TypeParam first;
  TypeParam second;
  {
    std::shared_lock<TypeParam> reading(first, 10ms);
    EXPECT_TRUE(reading.owns_lock());
    EXPECT_TRUE(free_for_a_reader(first));
    EXPECT_FALSE(free_for_another_thread(first));
  }
  {
    std::unique_lock<TypeParam> one(first, std::defer_lock);
    std::unique_lock<TypeParam> two(second, std::defer_lock);
    std::lock(one, two);
    EXPECT_FALSE(free_for_a_reader(first));
    EXPECT_FALSE(free_for_a_reader(second));
  }
  {
    std::lock_guard<TypeParam> writing(first);
    EXPECT_FALSE(free_for_a_reader(first));
  }
  EXPECT_TRUE(free_for_another_thread(first));
  EXPECT_TRUE(free_for_another_thread(second));
}

/// A shared timed mutex that counts the shared calls made on it (by one thread at a time) and
/// hides its address, as a type may with a deleted `operator&`: shared_lock must take its
/// address with addressof. Its mutex is a unisync::shared_mutex; the exclusive calls are
/// passed on uncounted (other threads use them to see whether it is held).
class recording_shared_mutex {
 public:
  struct calls {
    int lock_shared = 0;
    int try_lock_shared = 0;
    int timed = 0;  // try_lock_shared_for and try_lock_shared_until
    int unlock_shared = 0;
  };

  void lock() { mutex_.lock(); }
  bool try_lock() { return mutex_.try_lock(); }
  void unlock() { mutex_.unlock(); }
  void lock_shared()
  {
    ++calls_.lock_shared;
    mutex_.lock_shared();
  }
  bool try_lock_shared()
  {
    ++calls_.try_lock_shared;
    return mutex_.try_lock_shared();
  }
  template <class Timeout>
  bool try_lock_shared_for(Timeout const& timeout)
  {
    ++calls_.timed;
    return mutex_.try_lock_shared_for(timeout);
  }
  template <class TimePoint>
  bool try_lock_shared_until(TimePoint const& when)
  {
    ++calls_.timed;
    return mutex_.try_lock_shared_until(when);
  }
  void unlock_shared()
  {
    ++calls_.unlock_shared;
    mutex_.unlock_shared();
  }
  [[nodiscard]] calls const& made() const { return calls_; }

  void operator&() const = delete;

 private:
  unisync::shared_mutex mutex_;
  calls calls_;
};

template <class Mutex>
class ConformanceSharedLock : public ::testing::Test {};
using shared_lock_mutex_types =
    ::testing::Types<unisync::shared_mutex, unisync::test::device_shared_mutex, recording_shared_mutex>;
TYPED_TEST_SUITE(ConformanceSharedLock, shared_lock_mutex_types);

// [thread.lock.shared.general]: shared_lock<Mutex>::mutex_type is Mutex; not copyable.
// Class template argument deduction, as std's.
TYPED_TEST(ConformanceSharedLock, NamesItsMutexTypeAndDeducesIt)
{
  static_assert(std::is_same_v<typename unisync::shared_lock<TypeParam>::mutex_type, TypeParam>);
  static_assert(!std::is_copy_constructible_v<unisync::shared_lock<TypeParam>>);
  static_assert(!std::is_copy_assignable_v<unisync::shared_lock<TypeParam>>);
  TypeParam mutex;
  unisync::shared_lock reading(mutex);
  static_assert(std::is_same_v<decltype(reading), unisync::shared_lock<TypeParam>>);
  unisync::shared_lock deferred(mutex, std::defer_lock);
  static_assert(std::is_same_v<decltype(deferred), unisync::shared_lock<TypeParam>>);
}

// [thread.lock.shared.cons] shared_lock() noexcept: "Postconditions: pm == nullptr and owns == false."
TYPED_TEST(ConformanceSharedLock, DefaultConstructedOwnsNothing)
{
  static_assert(std::is_nothrow_default_constructible_v<unisync::shared_lock<TypeParam>>);
  unisync::shared_lock<TypeParam> empty;
  EXPECT_EQ(empty.mutex(), nullptr);
  EXPECT_FALSE(empty.owns_lock());
}

// [thread.lock.shared.cons] explicit shared_lock(mutex_type& m): "Effects: Calls
// m.lock_shared(). Postconditions: pm == addressof(m) and owns == true." ~shared_lock(): "if
// owns calls pm->unlock_shared()".
TYPED_TEST(ConformanceSharedLock, HoldsSharedForItsLifetime)
{
  static_assert(!std::is_convertible_v<TypeParam&, unisync::shared_lock<TypeParam>>, "explicit");
  TypeParam mutex;
  {
    unisync::shared_lock<TypeParam> reading(mutex);
    EXPECT_TRUE(reading.owns_lock());
    EXPECT_EQ(reading.mutex(), std::addressof(mutex));
    EXPECT_TRUE(free_for_a_reader(mutex)) << "a shared_lock holds shared, not exclusively";
    EXPECT_FALSE(free_for_another_thread(mutex));
  }
  EXPECT_TRUE(free_for_another_thread(mutex)) << "~shared_lock did not unlock_shared()";
  if constexpr (std::is_same_v<TypeParam, recording_shared_mutex>) {
    EXPECT_EQ(mutex.made().lock_shared, 1);
    EXPECT_EQ(mutex.made().try_lock_shared, 1) << "the other reader's";
    EXPECT_EQ(mutex.made().unlock_shared, 2) << "the other reader's and the destructor's";
  }
}

// [thread.lock.shared.cons] shared_lock(mutex_type& m, defer_lock_t) noexcept:
// "Postconditions: pm == addressof(m) and owns == false."
TYPED_TEST(ConformanceSharedLock, DeferLockDoesNotLock)
{
  static_assert(std::is_nothrow_constructible_v<unisync::shared_lock<TypeParam>, TypeParam&, std::defer_lock_t>);
  TypeParam mutex;
  {
    unisync::shared_lock<TypeParam> deferred(mutex, std::defer_lock);
    EXPECT_FALSE(deferred.owns_lock());
    EXPECT_EQ(deferred.mutex(), std::addressof(mutex));
    EXPECT_TRUE(free_for_another_thread(mutex));
  }
  EXPECT_TRUE(free_for_another_thread(mutex)) << "a lock it does not own stays as it was";
}

// [thread.lock.shared.cons] shared_lock(mutex_type& m, try_to_lock_t): "Effects: Calls
// m.try_lock_shared(). Postconditions: pm == addressof(m) and owns == res, where res is the
// value returned by the call to m.try_lock_shared()."
TYPED_TEST(ConformanceSharedLock, TryToLockTriesOnceWithoutBlocking)
{
  TypeParam mutex;
  {
    unisync::shared_lock<TypeParam> reading(mutex, std::try_to_lock);
    EXPECT_TRUE(reading.owns_lock());
    EXPECT_EQ(reading.mutex(), std::addressof(mutex));
  }
  mutex.lock();
  bounded_thread other([&] {
    unisync::shared_lock<TypeParam> refused(mutex, std::try_to_lock);
    EXPECT_FALSE(refused.owns_lock());
  });
  EXPECT_TRUE(other.returned_within()) << "try_to_lock blocked on a written mutex";
  mutex.unlock();
  if constexpr (std::is_same_v<TypeParam, recording_shared_mutex>) {
    EXPECT_EQ(mutex.made().try_lock_shared, 2) << "one try per constructor";
    EXPECT_EQ(mutex.made().lock_shared, 0);
    EXPECT_EQ(mutex.made().unlock_shared, 1) << "only the owning lock unlocks";
  }
}

// [thread.lock.shared.cons] shared_lock(mutex_type& m, adopt_lock_t): "Preconditions: The
// calling thread holds a shared lock on m. Postconditions: pm == addressof(m) and owns == true."
TYPED_TEST(ConformanceSharedLock, AdoptLockOwnsWithoutLocking)
{
  TypeParam mutex;
  mutex.lock_shared();
  {
    unisync::shared_lock<TypeParam> reading(mutex, std::adopt_lock);
    EXPECT_TRUE(reading.owns_lock());
    EXPECT_EQ(reading.mutex(), std::addressof(mutex));
    EXPECT_FALSE(free_for_another_thread(mutex));
  }
  EXPECT_TRUE(free_for_another_thread(mutex));
  if constexpr (std::is_same_v<TypeParam, recording_shared_mutex>) {
    EXPECT_EQ(mutex.made().lock_shared, 1);
    EXPECT_EQ(mutex.made().unlock_shared, 1);
  }
}

// [thread.lock.shared.cons] shared_lock(m, abs_time), shared_lock(m, rel_time): "Calls
// m.try_lock_shared_until(abs_time)" / "m.try_lock_shared_for(rel_time)"; owns == res. Both
// chrono kinds; not owning after the timeout while a writer holds it.
TYPED_TEST(ConformanceSharedLock, TimedConstructorsTryUntilTheTimeout)
{
  TypeParam mutex;
  {
    unisync::shared_lock<TypeParam> until_std(mutex, std::chrono::steady_clock::now() + 10ms);
    EXPECT_TRUE(until_std.owns_lock());
    unisync::shared_lock<TypeParam> until_cuda(mutex, cuda::std::chrono::system_clock::now() +
                                                           cuda::std::chrono::milliseconds(10));
    EXPECT_TRUE(until_cuda.owns_lock()) << "a second reader beside the first";
  }
  {
    unisync::shared_lock<TypeParam> for_std(mutex, 10ms);
    EXPECT_TRUE(for_std.owns_lock());
    unisync::shared_lock<TypeParam> for_cuda(mutex, cuda::std::chrono::milliseconds(10));
    EXPECT_TRUE(for_cuda.owns_lock());
  }
  mutex.lock();
  bounded_thread other([&] {
    auto const start = std::chrono::steady_clock::now();
    unisync::shared_lock<TypeParam> refused_for_std(mutex, 5ms);
    EXPECT_FALSE(refused_for_std.owns_lock());
    EXPECT_GE(std::chrono::steady_clock::now() - start, 5ms);
    unisync::shared_lock<TypeParam> refused_until_std(mutex, std::chrono::steady_clock::now() + 2ms);
    EXPECT_FALSE(refused_until_std.owns_lock());
    unisync::shared_lock<TypeParam> refused_until_cuda(mutex, cuda::std::chrono::system_clock::now());
    EXPECT_FALSE(refused_until_cuda.owns_lock());
    unisync::shared_lock<TypeParam> refused_for_cuda(mutex, cuda::std::chrono::nanoseconds(0));
    EXPECT_FALSE(refused_for_cuda.owns_lock());
  });
  EXPECT_TRUE(other.returned_within());
  mutex.unlock();
  if constexpr (std::is_same_v<TypeParam, recording_shared_mutex>) {
    EXPECT_EQ(mutex.made().timed, 8);
    EXPECT_EQ(mutex.made().unlock_shared, 4);
  }
}

// [thread.lock.shared.cons] shared_lock(shared_lock&& sl) noexcept and
// operator=(shared_lock&& sl) noexcept: take sl's state, sl owns nothing (pm == nullptr);
// assignment first "If owns calls pm->unlock_shared()". Self-move-assignment keeps the
// state (C++23 words it as shared_lock(std::move(sl)).swap(*this)).
TYPED_TEST(ConformanceSharedLock, MovesTransferOwnership)
{
  static_assert(std::is_nothrow_move_constructible_v<unisync::shared_lock<TypeParam>>);
  static_assert(std::is_nothrow_move_assignable_v<unisync::shared_lock<TypeParam>>);
  TypeParam first;
  TypeParam second;
  unisync::shared_lock<TypeParam> reading(first);
  unisync::shared_lock<TypeParam> moved(std::move(reading));
  EXPECT_FALSE(reading.owns_lock());
  EXPECT_EQ(reading.mutex(), nullptr);
  EXPECT_TRUE(moved.owns_lock());
  EXPECT_EQ(moved.mutex(), std::addressof(first));
  unisync::shared_lock<TypeParam> other_reading(second);
  moved = std::move(other_reading);
  EXPECT_TRUE(free_for_another_thread(first)) << "move assignment unlocks the hold it owned";
  EXPECT_FALSE(free_for_another_thread(second));
  EXPECT_EQ(moved.mutex(), std::addressof(second));
  EXPECT_TRUE(moved.owns_lock());
  EXPECT_EQ(other_reading.mutex(), nullptr);
  EXPECT_FALSE(other_reading.owns_lock());
  auto& self = moved;
  moved = std::move(self);
  EXPECT_TRUE(moved.owns_lock()) << "self-move-assignment keeps the state";
  EXPECT_EQ(moved.mutex(), std::addressof(second));
}

// [thread.lock.shared.locking] lock(): "As if by pm->lock_shared()"; try_lock(),
// try_lock_until(abs_time), try_lock_for(rel_time): "return pm->try_lock_shared...()" and
// owns == the result; unlock(): "As if by pm->unlock_shared()", owns == false.
TYPED_TEST(ConformanceSharedLock, LockingMembersCallTheSharedMembers)
{
  TypeParam mutex;
  unisync::shared_lock<TypeParam> reading(mutex, std::defer_lock);
  reading.lock();
  EXPECT_TRUE(reading.owns_lock());
  EXPECT_FALSE(free_for_another_thread(mutex));
  EXPECT_TRUE(free_for_a_reader(mutex)) << "lock() took the mutex exclusively";
  reading.unlock();
  EXPECT_FALSE(reading.owns_lock());
  EXPECT_TRUE(free_for_another_thread(mutex));
  EXPECT_TRUE(reading.try_lock());
  reading.unlock();
  EXPECT_TRUE(reading.try_lock_for(1ms));
  reading.unlock();
  EXPECT_TRUE(reading.try_lock_for(cuda::std::chrono::milliseconds(1)));
  reading.unlock();
  EXPECT_TRUE(reading.try_lock_until(std::chrono::steady_clock::now() + 1ms));
  reading.unlock();
  EXPECT_TRUE(reading.try_lock_until(cuda::std::chrono::system_clock::now()));
  EXPECT_TRUE(reading.owns_lock());
  reading.unlock();
  mutex.lock();
  bounded_thread other([&] {
    unisync::shared_lock<TypeParam> refused(mutex, std::defer_lock);
    EXPECT_FALSE(refused.try_lock());
    EXPECT_FALSE(refused.try_lock_for(2ms));
    EXPECT_FALSE(refused.try_lock_until(std::chrono::steady_clock::now() + 2ms));
    EXPECT_FALSE(refused.owns_lock());
  });
  EXPECT_TRUE(other.returned_within());
  mutex.unlock();
  if constexpr (std::is_same_v<TypeParam, recording_shared_mutex>) {
    EXPECT_EQ(mutex.made().lock_shared, 1);
    EXPECT_EQ(mutex.made().try_lock_shared, 3) << "the other reader's, try_lock() and the refused one";
    EXPECT_EQ(mutex.made().timed, 6);
    EXPECT_EQ(mutex.made().unlock_shared, 7) << "six unlock() and the other reader's";
  }
}

// [thread.lock.shared.locking] lock, try_lock, try_lock_for, try_lock_until: "Error
// conditions: operation_not_permitted — if pm is nullptr; resource_deadlock_would_occur — if
// on entry owns is true"; unlock: "operation_not_permitted — if on entry owns is false".
TYPED_TEST(ConformanceSharedLock, MisuseThrowsSystemError)
{
  TypeParam mutex;
  unisync::test::expect_every_misuse_reported<unisync::shared_lock<TypeParam>>(mutex);
  EXPECT_TRUE(free_for_another_thread(mutex)) << "a refused call changed the mutex";
}

// [thread.lock.shared.mod] swap(shared_lock& sl) noexcept: "Effects: Swaps the data members
// of *this and sl"; release() noexcept: "Returns: The previous value of pm. Postconditions:
// pm == nullptr and owns == false" (it does not unlock); [thread.lock.shared.mod]
// swap(shared_lock<Mutex>& x, shared_lock<Mutex>& y) noexcept: "As if by x.swap(y)".
TYPED_TEST(ConformanceSharedLock, SwapAndReleaseModifyOnlyTheWrapper)
{
  TypeParam first;
  TypeParam second;
  unisync::shared_lock<TypeParam> one(first);
  unisync::shared_lock<TypeParam> two(second, std::defer_lock);
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
  first.unlock_shared();
  EXPECT_TRUE(free_for_another_thread(first));
}

// [thread.lock.shared.obs] owns_lock() noexcept, explicit operator bool() noexcept ("Returns:
// owns"), mutex() noexcept ("Returns: pm").
TYPED_TEST(ConformanceSharedLock, ObserversAgree)
{
  TypeParam mutex;
  unisync::shared_lock<TypeParam> reading(mutex, std::defer_lock);
  static_assert(!std::is_convertible_v<unisync::shared_lock<TypeParam>, bool>, "explicit operator bool");
  static_assert(noexcept(reading.owns_lock()) && noexcept(static_cast<bool>(reading)) && noexcept(reading.mutex()));
  EXPECT_FALSE(static_cast<bool>(reading));
  reading.lock();
  EXPECT_TRUE(static_cast<bool>(reading));
  EXPECT_EQ(reading.owns_lock(), static_cast<bool>(reading));
  EXPECT_EQ(reading.mutex(), std::addressof(mutex));
}

// [thread.lock.shared.general] p2: "shared_lock<Mutex> meets the Cpp17Lockable requirements.
// If Mutex meets the Cpp17SharedTimedLockable requirements, shared_lock<Mutex> also meets the
// Cpp17TimedLockable requirements." So std::lock takes shared_locks and std::unique_lock
// wraps one (its timed members calling the shared timed ones).
TYPED_TEST(ConformanceSharedLock, IsItselfATimedLockable)
{
  TypeParam first;
  TypeParam second;
  unisync::shared_lock<TypeParam> one(first, std::defer_lock);
  unisync::shared_lock<TypeParam> two(second, std::defer_lock);
  std::lock(one, two);
  EXPECT_TRUE(one.owns_lock());
  EXPECT_TRUE(two.owns_lock());
  EXPECT_TRUE(free_for_a_reader(first));
  EXPECT_FALSE(free_for_another_thread(second));
  one.unlock();
  two.unlock();
  {
    std::unique_lock<unisync::shared_lock<TypeParam>> outer(one, 10ms);
    EXPECT_TRUE(outer.owns_lock());
    EXPECT_TRUE(one.owns_lock());
  }
  EXPECT_FALSE(one.owns_lock());
  EXPECT_TRUE(free_for_another_thread(first));
}

}  // namespace
