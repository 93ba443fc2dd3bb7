// init(): each scope-parameterized type constructed anew over an object in any state, as
// a `__shared__` variable needs (test/device/shared_memory_test.cu runs them there), and
// the default constructors that let such a variable be declared.

#include "actors.hpp"

#include <unisync/barrier.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/error.hpp>
#include <unisync/latch.hpp>
#include <unisync/mutex.hpp>
#include <unisync/shared_mutex.hpp>
#include <unisync/ticket_mutex.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <type_traits>

namespace {

constexpr auto system_scope = cuda::thread_scope_system;
constexpr auto block_scope = cuda::thread_scope_block;

// The default constructors are constexpr, so a `__shared__`, `__device__` or `constexpr`
// variable can be declared with them.
static_assert((unisync::basic_barrier<block_scope>(), true));
static_assert((unisync::basic_latch<block_scope>(), true));
static_assert((unisync::basic_counting_semaphore<block_scope, 4>(), true));
// Only at block scope: std's types have no default constructor, nor do ours elsewhere, so a
// forgotten count does not compile into a released latch.
static_assert(!std::is_default_constructible_v<unisync::latch>);
static_assert(!std::is_default_constructible_v<unisync::barrier<>>);
static_assert(!std::is_default_constructible_v<unisync::counting_semaphore<>>);
static_assert(!std::is_default_constructible_v<unisync::basic_latch<cuda::thread_scope_device>>);

/// Fills the object's bytes with what a previous occupant of shared memory may leave: a
/// pattern that differs from byte to byte (a ticket lock's two counters differ), never zero.
template <class T>
void scribble_over(T& object)
{
  auto* const bytes = reinterpret_cast<unsigned char*>(&object);
  for (std::size_t byte = 0; byte < sizeof(T); ++byte) bytes[byte] = static_cast<unsigned char>(1 + byte % 251);
}

template <class Mutex>
class InitMutex : public ::testing::Test {};
using init_mutex_types =
    ::testing::Types<unisync::basic_mutex<system_scope>, unisync::basic_mutex<block_scope>,
                     unisync::basic_ticket_mutex<system_scope>, unisync::basic_ticket_mutex<block_scope>>;
TYPED_TEST_SUITE(InitMutex, init_mutex_types);

TYPED_TEST(InitMutex, LeavesAnUnlockedMutexOverAHeldOneOrGarbage)
{
  TypeParam mutex;
  mutex.lock();
  init(&mutex);
  ASSERT_TRUE(mutex.try_lock());
  scribble_over(mutex);
  init(&mutex);
  ASSERT_TRUE(mutex.try_lock());
  EXPECT_FALSE(mutex.try_lock());
  mutex.unlock();
}

TEST(InitSharedMutex, LeavesAMutexHeldByNobodyOverAHeldOneOrGarbage)
{
  unisync::basic_shared_mutex<block_scope> mutex;
  mutex.lock();
  init(&mutex);
  ASSERT_TRUE(mutex.try_lock_shared());
  scribble_over(mutex);
  init(&mutex);
  ASSERT_TRUE(mutex.try_lock_shared());
  EXPECT_FALSE(mutex.try_lock());
  mutex.unlock_shared();
  ASSERT_TRUE(mutex.try_lock());
  mutex.unlock();
}

TEST(InitSemaphore, DefaultHasNoPermitsAndInitGivesTheCount)
{
  unisync::basic_counting_semaphore<block_scope, 4> semaphore;
  EXPECT_FALSE(semaphore.try_acquire());
  scribble_over(semaphore);
  init(&semaphore, 2);
  EXPECT_TRUE(semaphore.try_acquire());
  EXPECT_TRUE(semaphore.try_acquire());
  EXPECT_FALSE(semaphore.try_acquire());
  semaphore.release(2);
  EXPECT_TRUE(semaphore.try_acquire());
}

TEST(InitLatch, DefaultIsReleasedAndInitCountsAnew)
{
  unisync::basic_latch<block_scope> latch;
  EXPECT_TRUE(latch.try_wait());
  scribble_over(latch);
  init(&latch, 2);
  EXPECT_FALSE(latch.try_wait());
  latch.count_down();
  EXPECT_FALSE(latch.try_wait());
  latch.count_down();
  EXPECT_TRUE(latch.try_wait());
}

TEST(InitLatch, AtSystemScopeCountsAnewOnTheHost)
{
  unisync::latch latch(1);
  latch.count_down();
  init(&latch, 3);
  EXPECT_FALSE(latch.try_wait());
  latch.count_down(3);
  EXPECT_TRUE(latch.try_wait());
}

TEST(InitBarrier, CompletesPhasesOfTheNewCountAfterGarbage)
{
  constexpr unsigned participants = 3;
  constexpr unsigned phases = 200;
  unisync::basic_barrier<block_scope> barrier;
  scribble_over(barrier);
  init(&barrier, participants);
  std::atomic<unsigned> arrived[participants] = {};
  std::atomic<unsigned> left_early{0};
  unisync::test::run_cpu_actors(participants, [&](unsigned actor) {
    for (unsigned phase = 1; phase <= phases; ++phase) {
      arrived[actor].store(phase, std::memory_order_relaxed);
      barrier.arrive_and_wait();
      for (unsigned other = 0; other < participants; ++other) {
        if (arrived[other].load(std::memory_order_relaxed) < phase) left_early.fetch_add(1);
      }
    }
  });
  EXPECT_EQ(0u, left_early.load());
}

TEST(InitBarrier, TakesTheCompletionFunction)
{
  struct count_phases {
    unsigned* completed;
    void operator()() const noexcept { ++*completed; }
  };
  unsigned completed = 0;
  unisync::basic_barrier<system_scope, count_phases> barrier(2, count_phases{&completed});
  scribble_over(barrier);
  init(&barrier, 1, count_phases{&completed});
  barrier.arrive_and_wait();
  barrier.arrive_and_wait();
  EXPECT_EQ(2u, completed);
}

TEST(Init, RefusesNull)
{
  EXPECT_THROW(init(static_cast<unisync::basic_mutex<block_scope>*>(nullptr)), unisync::error);
  EXPECT_THROW(init(static_cast<unisync::basic_barrier<block_scope>*>(nullptr), 1), unisync::error);
}

}  // namespace
