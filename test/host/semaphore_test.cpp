// counting_semaphore on CPU threads: never more than N holders, try/timed acquires,
// release(n) admitting exactly n waiters, counter wraparound, and std's API surface.

#include "actors.hpp"
#include "checks.hpp"
#include "test_access.hpp"

#include <unisync/counting_semaphore.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using unisync::test::occupancy_record;
using unisync::test::run_cpu_actors;

template <class Semaphore>
occupancy_record run_holders(Semaphore& semaphore, unsigned threads, unsigned iterations)
{
  occupancy_record record;
  run_cpu_actors(threads, [&](unsigned) {
    for (unsigned i = 0; i < iterations; ++i) {
      semaphore.acquire();
      record.enter();
      std::this_thread::yield();  // stay inside long enough for others to pile in
      record.leave();
      semaphore.release();
    }
  });
  return record;
}

class HostSemaphoreHolders : public ::testing::TestWithParam<int> {};

TEST_P(HostSemaphoreHolders, NeverMoreThanNHolders)
{
  int const permits = GetParam();
  unsigned const threads = static_cast<unsigned>(permits) + 4;  // always more contenders than permits
  unisync::counting_semaphore<> semaphore(permits);
  occupancy_record const record = run_holders(semaphore, threads, 4000 / threads + 20);
  EXPECT_LE(record.most_seen, permits);
  EXPECT_GE(record.most_seen, 1);
  EXPECT_EQ(record.inside, 0);
  EXPECT_EQ(unisync::detail::test_access::count(semaphore), permits) << "every permit came back";
}

INSTANTIATE_TEST_SUITE_P(Permits, HostSemaphoreHolders, ::testing::Values(1, 2, 8, 120));

TEST(HostSemaphore, NoBackoffVariantNeverMoreThanNHolders)
{
  unisync::basic_counting_semaphore<cuda::thread_scope_system, 2, unisync::no_backoff> semaphore(2);
  occupancy_record const record = run_holders(semaphore, 4, 2000);
  EXPECT_LE(record.most_seen, 2);
}

#if !defined(__SANITIZE_THREAD__)
// The checker itself: a "semaphore" that admits everyone must be caught.
struct admits_everyone {
  void acquire() {}
  void release() {}
};

TEST(HostSemaphoreChecker, DetectsTooManyHolders)
{
  // Rounds until the threads overlap, as for the lock checker.
  admits_everyone none;
  bool caught = false;
  for (int round = 0; round < 50 && !caught; ++round) caught = run_holders(none, 8, 20000).most_seen > 1;
  EXPECT_TRUE(caught);
}

#endif  // !defined(__SANITIZE_THREAD__)

TEST(HostSemaphore, NoMoreThanNHoldersAcrossCounterWraparound)
{
  unisync::counting_semaphore<> semaphore(2);
  unisync::detail::test_access::start_tickets_at(semaphore, ~std::uint64_t{0} - 2000u);
  EXPECT_EQ(unisync::detail::test_access::count(semaphore), 2);
  occupancy_record const record = run_holders(semaphore, 4, 1500);
  EXPECT_LE(record.most_seen, 2);
  EXPECT_EQ(unisync::detail::test_access::count(semaphore), 2);
}

TEST(HostSemaphore, TryAcquireTakesOnlyFreePermits)
{
  unisync::counting_semaphore<> semaphore(2);
  EXPECT_TRUE(semaphore.try_acquire());
  EXPECT_TRUE(semaphore.try_acquire());
  EXPECT_FALSE(semaphore.try_acquire());
  EXPECT_EQ(unisync::detail::test_access::count(semaphore), 0) << "a failed try_acquire takes no ticket";
  semaphore.release();
  EXPECT_TRUE(semaphore.try_acquire());
}

TEST(HostSemaphore, TryAcquireDoesNotOvertakeWaiters)
{
  unisync::counting_semaphore<> semaphore(0);
  std::thread waiter([&] { semaphore.acquire(); });
  while (unisync::detail::test_access::count(semaphore) != -1) std::this_thread::yield();
  EXPECT_FALSE(semaphore.try_acquire()) << "no permit is free while a waiter is queued";
  semaphore.release();
  waiter.join();
  EXPECT_EQ(unisync::detail::test_access::count(semaphore), 0);
}

TEST(HostSemaphore, TryAcquireForTimesOutAndLeavesNoTicket)
{
  unisync::counting_semaphore<> semaphore(0);
  auto const start = std::chrono::steady_clock::now();
  EXPECT_FALSE(semaphore.try_acquire_for(30ms));
  auto const waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 30ms);
  EXPECT_LT(waited, 30ms + 5s);
  EXPECT_FALSE(semaphore.try_acquire_until(std::chrono::system_clock::now() + 5ms));
  EXPECT_FALSE(semaphore.try_acquire_for(cuda::std::chrono::milliseconds(5)));
  EXPECT_EQ(unisync::detail::test_access::count(semaphore), 0);
  semaphore.release();
  EXPECT_TRUE(semaphore.try_acquire_for(0ms)) << "a zero timeout still takes a free permit";
}

TEST(HostSemaphore, TryAcquireForSucceedsWhenReleasedDuringTheWait)
{
  unisync::counting_semaphore<> semaphore(0);
  bool acquired = false;
  std::thread waiter([&] { acquired = semaphore.try_acquire_for(30s); });
  std::this_thread::sleep_for(20ms);
  semaphore.release();
  waiter.join();
  EXPECT_TRUE(acquired);
}

TEST(HostSemaphore, ReleaseNAdmitsExactlyNWaiters)
{
  unisync::counting_semaphore<> semaphore(0);
  constexpr int waiters = 6;
  std::atomic<int> admitted{0};
  std::vector<std::thread> threads;
  for (int waiter = 0; waiter < waiters; ++waiter) {
    threads.emplace_back([&] {
      semaphore.acquire();
      admitted.fetch_add(1);
    });
  }
  while (unisync::detail::test_access::count(semaphore) != -waiters) std::this_thread::yield();
  semaphore.release(2);
  while (admitted.load() < 2) std::this_thread::yield();
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(admitted.load(), 2) << "release(2) admits two waiters, no more";
  semaphore.release(waiters - 2);
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(admitted.load(), waiters);
}

TEST(HostSemaphore, MaxIsTheLeastMaxValue)
{
  static_assert(unisync::counting_semaphore<5>::max() == 5);
  static_assert(unisync::binary_semaphore::max() == 1);
  static_assert(unisync::counting_semaphore<>::max() == unisync::semaphore_max);
  static_assert(!std::is_copy_constructible_v<unisync::binary_semaphore>);
  static_assert(!std::is_move_constructible_v<unisync::binary_semaphore>);
  static_assert(!std::is_convertible_v<std::ptrdiff_t, unisync::binary_semaphore>, "explicit constructor");
  constexpr unisync::counting_semaphore<8> constant(8);
  static_cast<void>(constant);
}

TEST(HostSemaphore, RefusesAnOutOfRangeInitialCountInEveryBuild)
{
  EXPECT_THROW(unisync::counting_semaphore<4> negative(-1), unisync::error);
  EXPECT_THROW(unisync::counting_semaphore<4> too_large(5), unisync::error);
  try {
    unisync::binary_semaphore too_large(2);
    FAIL() << "constructed a binary semaphore with count 2";
  } catch (unisync::error const& refused) {
    EXPECT_NE(std::string(refused.what()).find("0 <= desired <= max()"), std::string::npos) << refused.what();
  }
}

}  // namespace
