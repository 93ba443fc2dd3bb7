// unisync::scoped_lock, unisync::lock and unisync::try_lock against [thread.lock.scoped]
// and [thread.lock.algorithm], on CPU threads, over the mutex types, a mutex that hides
// its address (deleted operator&) and a lockable that throws.

#include "bounded.hpp"
#include "lockables.hpp"

#include <unisync/scoped_lock.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using unisync::test::bounded_thread;
using unisync::test::free_for_another_thread;
using unisync::test::recording_mutex;

template <class Mutex>
class ConformanceScopedLock : public ::testing::Test {
};
using scoped_mutex_types =
    ::testing::Types<unisync::mutex, unisync::ticket_mutex, unisync::cohort_mutex, recording_mutex>;
TYPED_TEST_SUITE(ConformanceScopedLock, scoped_mutex_types, unisync::test::type_names);

// [thread.lock.scoped] explicit scoped_lock(MutexTypes&... m): with one mutex m.lock(),
// with several lock(m...); ~scoped_lock unlocks each; not copyable; mutex_type only for
// one mutex; class template argument deduction as std's.
TYPED_TEST(ConformanceScopedLock, HoldsEveryMutexForItsLifetime)
{
  TypeParam first;
  TypeParam second;
  TypeParam third;
  static_assert(std::is_same_v<typename unisync::scoped_lock<TypeParam>::mutex_type, TypeParam>);
  static_assert(!std::is_copy_constructible_v<unisync::scoped_lock<TypeParam, TypeParam>>);
  static_assert(!std::is_copy_assignable_v<unisync::scoped_lock<TypeParam, TypeParam>>);
  static_assert(!std::is_convertible_v<TypeParam&, unisync::scoped_lock<TypeParam>>, "explicit");
  {
    unisync::scoped_lock one(first);
    static_assert(std::is_same_v<decltype(one), unisync::scoped_lock<TypeParam>>);
    EXPECT_FALSE(free_for_another_thread(first));
  }
  if constexpr (std::is_same_v<TypeParam, recording_mutex>) {
    EXPECT_EQ(first.made().lock, 1) << "scoped_lock(m) calls m.lock()";
    EXPECT_EQ(first.made().unlock, 1) << "~scoped_lock calls m.unlock()";
  }
  EXPECT_TRUE(free_for_another_thread(first));
  {
    unisync::scoped_lock all(first, second, third);
    static_assert(std::is_same_v<decltype(all), unisync::scoped_lock<TypeParam, TypeParam, TypeParam>>);
    EXPECT_FALSE(free_for_another_thread(first));
    EXPECT_FALSE(free_for_another_thread(second));
    EXPECT_FALSE(free_for_another_thread(third));
  }
  EXPECT_TRUE(free_for_another_thread(first) && free_for_another_thread(second) && free_for_another_thread(third));
  {
    unisync::scoped_lock<> none;
  }
}

// [thread.lock.scoped] explicit scoped_lock(adopt_lock_t, MutexTypes&... m): does not lock
// (the calling thread holds them); the destructor unlocks them.
TYPED_TEST(ConformanceScopedLock, AdoptsMutexesHeld)
{
  TypeParam first;
  TypeParam second;
  static_assert(std::is_nothrow_constructible_v<unisync::scoped_lock<TypeParam, TypeParam>, std::adopt_lock_t,
                                                TypeParam&, TypeParam&>);
  first.lock();
  second.lock();
  {
    unisync::scoped_lock adopted(std::adopt_lock, first, second);
    EXPECT_FALSE(free_for_another_thread(first));
    EXPECT_FALSE(free_for_another_thread(second));
  }
  EXPECT_TRUE(free_for_another_thread(first) && free_for_another_thread(second));
  first.lock();
  {
    unisync::scoped_lock<TypeParam> adopted(std::adopt_lock, first);
  }
  EXPECT_TRUE(free_for_another_thread(first));
}

// [thread.lock.algorithm] try_lock(l1, l2, l3...): calls try_lock() on each in order until
// one returns false; then unlocks the ones it took and returns the 0-based index of the
// one that failed; returns -1 when all succeed. It never blocks.
TYPED_TEST(ConformanceScopedLock, TryLockTakesAllOrNoneAndNamesTheOneHeld)
{
  auto first = std::make_shared<TypeParam>();
  auto second = std::make_shared<TypeParam>();
  auto third = std::make_shared<TypeParam>();
  EXPECT_EQ(unisync::try_lock(*first, *second, *third), -1);
  EXPECT_FALSE(free_for_another_thread(*first) || free_for_another_thread(*second) || free_for_another_thread(*third));
  first->unlock();
  second->unlock();
  // third stays held by this thread: another thread's try fails at index 2 and gives back
  // the two it took, without waiting.
  bounded_thread other([first, second, third] {
    EXPECT_EQ(unisync::try_lock(*first, *second, *third), 2);
    EXPECT_EQ(unisync::try_lock(*third, *first), 0);
  });
  EXPECT_TRUE(other.returned_within()) << "try_lock blocked on a held lockable";
  EXPECT_TRUE(free_for_another_thread(*first) && free_for_another_thread(*second))
      << "a failed try_lock kept what it took";
  third->unlock();
}

// [thread.lock.algorithm] lock(l1, l2, l3...): all locked, by calls to lock(), try_lock()
// and unlock() that avoid deadlock: threads that name the same mutexes in opposite orders
// all get through, and each holds them all at once (no lost updates on the data they
// guard together).
TYPED_TEST(ConformanceScopedLock, LockAvoidsDeadlockWhateverTheOrder)
{
  if constexpr (std::is_same_v<TypeParam, recording_mutex>) {
    GTEST_SKIP() << "recording_mutex counts the calls of one thread at a time";
  }
  auto first = std::make_shared<TypeParam>();
  auto second = std::make_shared<TypeParam>();
  auto third = std::make_shared<TypeParam>();
  auto counts = std::make_shared<std::vector<long>>(3, 0);
  auto started = std::make_shared<std::atomic<int>>(0);
  constexpr int threads = 4;
  constexpr int iterations = 2000;
  std::vector<std::unique_ptr<bounded_thread>> workers;
  for (int thread = 0; thread < threads; ++thread) {
    workers.push_back(std::make_unique<bounded_thread>([=] {
      // Together, and holding on a while inside: an algorithm that could deadlock does.
      started->fetch_add(1);
      while (started->load() < threads) std::this_thread::yield();
      for (int i = 0; i < iterations; ++i) {
        if (thread % 2 == 0) {
          unisync::scoped_lock all(*first, *second, *third);
          for (long& count : *counts) ++count;
          std::this_thread::yield();
        } else {
          unisync::lock(*third, *second, *first);
          for (long& count : *counts) ++count;
          std::this_thread::yield();
          first->unlock();
          second->unlock();
          third->unlock();
        }
      }
    }));
  }
  for (auto& worker : workers) EXPECT_TRUE(worker->returned_within()) << "lock() deadlocked";
  for (long const count : *counts) EXPECT_EQ(count, threads * iterations);
}

/// A Lockable whose lock() and try_lock() throw once armed, whichever unisync::lock calls
/// (it locks the lowest address, tries the rest): std's algorithms must then unlock what
/// they took before the exception leaves.
class throwing_lockable {
 public:
  void lock()
  {
    if (throws_) throw std::runtime_error("lock failed");
    lock_.lock();
  }
  bool try_lock()
  {
    if (throws_) throw std::runtime_error("try_lock failed");
    return lock_.try_lock();
  }
  void unlock() { lock_.unlock(); }
  void arm() { throws_ = true; }

 private:
  unisync::mutex lock_;
  bool throws_ = false;
};

// [thread.lock.algorithm] "If a call to try_lock() throws an exception, unlock() is called
// for any argument that had been locked by a call to try_lock()" (try_lock), and "If a
// call to lock() or try_lock() throws an exception, unlock() is called for any argument
// that had been locked by a call to lock() or try_lock()" (lock).
TEST(ConformanceLockAlgorithms, AnExceptionLeavesNothingLocked)
{
  unisync::mutex first;
  unisync::mutex second;
  throwing_lockable throwing;
  throwing.arm();
  EXPECT_THROW(static_cast<void>(unisync::try_lock(first, second, throwing)), std::runtime_error);
  EXPECT_TRUE(free_for_another_thread(first) && free_for_another_thread(second));
  EXPECT_THROW(unisync::lock(first, throwing, second), std::runtime_error);
  EXPECT_TRUE(free_for_another_thread(first) && free_for_another_thread(second));
  EXPECT_THROW({ unisync::scoped_lock both(second, throwing); }, std::runtime_error);
  EXPECT_TRUE(free_for_another_thread(second));
}

/// A Lockable whose lock() and unlock() return a value, as [thread.req.lockable] allows.
class valued_lockable {
 public:
  bool lock()
  {
    lock_.lock();
    return true;
  }
  bool try_lock() { return lock_.try_lock(); }
  int unlock()
  {
    lock_.unlock();
    return 0;
  }

 private:
  unisync::mutex lock_;
};

// [thread.req.lockable.basic] requires only the expressions m.lock() and m.unlock(): their
// results are ignored.
TEST(ConformanceLockAlgorithms, IgnoresWhatLockAndUnlockReturn)
{
  valued_lockable first;
  valued_lockable second;
  {
    unisync::scoped_lock both(first, second);
    EXPECT_FALSE(free_for_another_thread(first) || free_for_another_thread(second));
  }
  EXPECT_TRUE(free_for_another_thread(first) && free_for_another_thread(second));
}

/// call(mutexes[0], ..., mutexes[N - 1]).
template <class Call, std::size_t... Index>
auto with_each(std::vector<unisync::ticket_mutex>& mutexes, Call call, std::index_sequence<Index...>)
{
  return call(mutexes[Index]...);
}

// [thread.lock.algorithm] and [thread.lock.scoped] bound neither the number of lockables
// nor where they lie: forty, the last one held by another thread for a while.
TEST(ConformanceLockAlgorithms, TakesAnyNumberOfLockables)
{
  constexpr std::size_t count = 40;
  std::vector<unisync::ticket_mutex> mutexes(count);
  auto const all = std::make_index_sequence<count>{};
  auto try_all = [](auto&... each) { return unisync::try_lock(each...); };
  EXPECT_EQ(with_each(mutexes, try_all, all), -1);
  for (auto& mutex : mutexes) mutex.unlock();

  std::atomic<bool> held{false}, tried{false}, released{false};
  std::thread holder([&] {
    mutexes.back().lock();
    held = true;
    while (!tried) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    released = true;
    mutexes.back().unlock();
  });
  while (!held) std::this_thread::yield();
  EXPECT_EQ(with_each(mutexes, try_all, all), static_cast<int>(count - 1));
  for (std::size_t position = 0; position + 1 < count; ++position) {
    EXPECT_TRUE(free_for_another_thread(mutexes[position])) << "a failed try_lock kept mutex " << position;
  }
  tried = true;
  with_each(
      mutexes,
      [&](auto&... each) {
        unisync::scoped_lock every(each...);
        EXPECT_TRUE(released.load()) << "scoped_lock returned while another thread held one of its mutexes";
        return 0;
      },
      all);
  holder.join();
  for (auto& mutex : mutexes) EXPECT_TRUE(free_for_another_thread(mutex));
}

// The std Lockables work too: unisync::lock with a std::mutex beside a unisync one.
TEST(ConformanceLockAlgorithms, TakesStdMutexesBesideOurs)
{
  std::mutex standard;
  unisync::ticket_mutex ours;
  {
    unisync::scoped_lock both(standard, ours);
    EXPECT_FALSE(free_for_another_thread(standard));
    EXPECT_FALSE(free_for_another_thread(ours));
  }
  EXPECT_EQ(unisync::try_lock(standard, ours), -1);
  ours.unlock();
  standard.unlock();
}

}  // namespace
