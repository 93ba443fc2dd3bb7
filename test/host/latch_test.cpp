// Latches on CPU threads, over every latch kind: nobody is released before the last
// count_down and everybody after it, try_wait, count_down(update) and arrive_and_wait;
// and, for the partitioned latch, its two sides with host threads standing in for GPU
// threads (test_access names the side of a call): count_downs on one side releasing
// waiters on the other, and the GPU's reports, whose last one must be the final total.

#include "actors.hpp"
#include "latch_kinds.hpp"
#include "test_access.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using unisync::test::release_record;
using unisync::test::run_cpu_actors;
using access = unisync::detail::test_access;
using side = access::side;

template <class Kind>
class HostLatch : public ::testing::Test {
 public:
  using latch_type = typename Kind::type;

  /// On the heap: the system-scope latch's two pages make it 8 KiB.
  static std::unique_ptr<latch_type> make(std::ptrdiff_t expected)
  {
    auto latch = std::make_unique<latch_type>(expected);
    Kind::prepare(*latch);
    return latch;
  }
};
TYPED_TEST_SUITE(HostLatch, unisync::test::latch_kinds_tested, unisync::test::type_names);

/// `threads` threads each count down once per round (the last thread by 2, for an
/// expected count of threads + 1) and wait, on a fresh latch each round; `waiters`
/// more threads only wait. Every thread released checks every counting thread's slot.
template <class Fixture>
void check_rounds(unsigned threads, unsigned waiters, std::uint32_t rounds)
{
  std::vector<std::unique_ptr<typename Fixture::latch_type>> latches;
  for (std::uint32_t round = 0; round < rounds; ++round) latches.push_back(Fixture::make(threads + 1));
  std::vector<std::uint32_t> slots(threads, 0);
  std::uint32_t violations = 0;
  release_record const record{slots.data(), threads, &violations};
  run_cpu_actors(threads + waiters, [&](unsigned actor) {
    for (std::uint32_t round = 1; round <= rounds; ++round) {
      auto& latch = *latches[round - 1];
      if (actor < threads) {
        record.before_count_down(actor, round);
        if (actor == threads - 1) {
          latch.count_down(2);
          latch.wait();
        } else {
          latch.arrive_and_wait();
        }
      } else {
        latch.wait();
      }
      record.after_release(0, threads, round);
      EXPECT_TRUE(latch.try_wait());
    }
  });
  EXPECT_EQ(violations, 0u) << threads << " counting threads, " << waiters << " waiters";
}

TYPED_TEST(HostLatch, NoOneIsReleasedBeforeTheLastCountDown)
{
  for (unsigned threads : unisync::test::cpu_thread_counts()) check_rounds<TestFixture>(threads, 2, 300);
}

TYPED_TEST(HostLatch, TryWaitIsFalseBeforeTheLastCountDownAndTrueAfter)
{
  auto latch = TestFixture::make(3);
  EXPECT_FALSE(latch->try_wait());
  latch->count_down(2);
  EXPECT_FALSE(latch->try_wait());
  std::thread last([&] { latch->count_down(); });
  last.join();
  EXPECT_TRUE(latch->try_wait());
  latch->wait();
  latch->count_down(0);  // update 0 is allowed once the count is zero, and changes nothing
  EXPECT_TRUE(latch->try_wait());
}

TYPED_TEST(HostLatch, ExpectedZeroIsReleasedFromTheStart)
{
  auto latch = TestFixture::make(0);
  EXPECT_TRUE(latch->try_wait());
  latch->wait();
  latch->arrive_and_wait(0);
}

TYPED_TEST(HostLatch, WaitReturnsOnlyAfterTheLastCountDown)
{
  auto latch = TestFixture::make(2);
  std::atomic<bool> released{false};
  std::thread waiter([&] {
    latch->wait();
    released.store(true);
  });
  latch->count_down();
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(released.load()) << "released with a count_down missing";
  latch->count_down();
  waiter.join();
  EXPECT_TRUE(released.load());
}

TYPED_TEST(HostLatch, ApiMatchesStd)
{
  using tested = typename TestFixture::latch_type;
  static_assert(tested::max() >= (1 << 22) - 1, "room for every thread a GPU can keep resident, and more");
  static_assert(noexcept(std::declval<tested const&>().try_wait()));
  static_assert(!std::is_copy_constructible_v<tested> && !std::is_move_constructible_v<tested>);
  static_assert(!std::is_convertible_v<std::ptrdiff_t, tested>, "explicit constructor");
  EXPECT_THROW(tested negative(-1), unisync::error);
  EXPECT_THROW(tested too_large(tested::max() + 1), unisync::error);
}

/// The partitioned latch, its sides named by the test.
class LatchSides : public ::testing::Test {
 protected:
  static std::unique_ptr<unisync::latch> make(std::ptrdiff_t expected)
  {
    return std::make_unique<unisync::latch>(expected);
  }
};

// count_downs on one side only, waiters on the other side only (and on both).
TEST_F(LatchSides, CountDownsOnOneSideReleaseWaitersOnTheOther)
{
  for (side counting : {side::cpu, side::gpu}) {
    side const other = counting == side::cpu ? side::gpu : side::cpu;
    for (int round = 0; round < 200; ++round) {
      constexpr unsigned counters = 4;
      auto latch = make(counters);
      std::vector<std::uint32_t> slots(counters, 0);
      std::uint32_t violations = 0;
      release_record const record{slots.data(), counters, &violations};
      run_cpu_actors(counters + 3, [&](unsigned actor) {
        if (actor < counters) {
          record.before_count_down(actor, 1);
          access::count_down_as(*latch, counting, 1);
          return;
        }
        access::wait_as(*latch, actor == counters ? counting : other);
        record.after_release(0, counters, 1);
        // The CPU learns a GPU count_down from its report, which a reporter may still be
        // storing when a GPU-side waiter is released: try_wait turns true soon after.
        auto const give_up = std::chrono::steady_clock::now() + 5s;
        while (!access::try_wait_as(*latch, other) && std::chrono::steady_clock::now() < give_up) {
          std::this_thread::yield();
        }
        EXPECT_TRUE(access::try_wait_as(*latch, other));
      });
      ASSERT_EQ(violations, 0u) << (counting == side::cpu ? "CPU" : "GPU") << " count_downs, round " << round;
    }
  }
}

// Many GPU count_downs at once publish a cumulative total from many threads: the last
// report stored must be the final total, or CPU waiters would never be released.
TEST_F(LatchSides, TheLastReportIsTheFinalTotal)
{
  unsigned const threads = std::max(4u, std::thread::hardware_concurrency());
  constexpr std::uint32_t per_thread = 200;
  for (int round = 0; round < 20; ++round) {
    auto latch = make(threads * per_thread * 2);
    run_cpu_actors(threads, [&](unsigned actor) {
      for (std::uint32_t step = 0; step < per_thread; ++step) {
        access::count_down_as(*latch, side::gpu, (actor + step) % 2 == 0 ? 1 : 3);
      }
    });
    // Each pair of steps counts 1 + 3 in some order: 4 per pair, 2 * per_thread per thread.
    EXPECT_EQ(access::gpu_total(*latch), threads * per_thread * 2);
    EXPECT_EQ(access::gpu_report(*latch), access::gpu_total(*latch)) << "round " << round;
    EXPECT_TRUE(access::try_wait_as(*latch, side::cpu));
  }
}

// Count_downs from both sides, waiters on both sides, the GPU's waiters electing one
// watcher that reads across the link.
TEST_F(LatchSides, CountDownsFromBothSidesReleaseWaitersOnBoth)
{
  constexpr unsigned per_side = 3;
  for (int round = 0; round < 300; ++round) {
    auto latch = make(2 * per_side * 2);
    std::vector<std::uint32_t> slots(2 * per_side, 0);
    std::uint32_t violations = 0;
    release_record const record{slots.data(), 2 * per_side, &violations};
    run_cpu_actors(2 * per_side, [&](unsigned actor) {
      side const mine = actor < per_side ? side::cpu : side::gpu;
      record.before_count_down(actor, 1);
      access::count_down_as(*latch, mine, 2);
      access::wait_as(*latch, mine);
      record.after_release(0, 2 * per_side, 1);
    });
    ASSERT_EQ(violations, 0u) << "round " << round;
  }
}

// A GPU waiter released by the watcher, and a try_wait on the GPU side that sees the
// count complete before any waiter does.
TEST_F(LatchSides, TryWaitOnTheGpuSideSeesTheCpusCountDowns)
{
  auto latch = make(2);
  access::count_down_as(*latch, side::gpu, 1);
  EXPECT_FALSE(access::try_wait_as(*latch, side::gpu));
  EXPECT_FALSE(access::try_wait_as(*latch, side::cpu));
  access::count_down_as(*latch, side::cpu, 1);
  EXPECT_TRUE(access::try_wait_as(*latch, side::gpu));
  EXPECT_TRUE(access::try_wait_as(*latch, side::cpu));
  access::wait_as(*latch, side::gpu);
  access::wait_as(*latch, side::cpu);
}

// The GPU's waiters split the reading: the watcher polls the GPU's word and the CPU's
// total as the link watcher mirrors it, the link watcher reads across the link (a lone
// watcher reads it itself). A CPU count_down that comes after the GPU's waiters have
// claimed their roles reaches them all, whether the watchers or a GPU try_wait see it
// first, and releases none of them before it (a hang fails the test by its timeout).
TEST_F(LatchSides, GpuWaitersLearnOfACpuCountDownThatComesLast)
{
  for (std::uint32_t round = 1; round <= 300; ++round) {
    // A lone watcher; the two watchers; and one on the released line.
    unsigned const gpu_waiters = 1 + round % 3;
    bool const with_try_wait = round / 3 % 2 == 1;
    auto latch = make(2);
    access::count_down_as(*latch, side::gpu, 1);
    std::uint32_t slot = 0;
    std::uint32_t violations = 0;
    release_record const record{&slot, 1, &violations};
    run_cpu_actors(gpu_waiters + 2, [&](unsigned actor) {
      if (actor < gpu_waiters) {
        access::wait_as(*latch, side::gpu);
        record.after_release(0, 1, round);
      } else if (actor == gpu_waiters) {
        // Once the watchers have claimed their roles (a waiter may still be on its way
        // after a short wait: then it meets the count_down earlier in its wait).
        auto const until = std::chrono::steady_clock::now() + 100ms;
        while (access::gpu_watcher_claims(*latch) < std::min(gpu_waiters, 2u) &&
               std::chrono::steady_clock::now() < until) {
          std::this_thread::yield();
        }
        record.before_count_down(0, round);
        access::count_down_as(*latch, side::cpu, 1);
      } else if (with_try_wait) {
        while (!access::try_wait_as(*latch, side::gpu)) std::this_thread::yield();
        record.after_release(0, 1, round);
      }
    });
    ASSERT_EQ(violations, 0u) << "round " << round;
  }
}

TEST(HostLatchVariants, NoBackoffAndExponentialBackoffRelease)
{
  unisync::basic_latch<cuda::thread_scope_system, unisync::no_backoff> spinning(2);
  unisync::basic_latch<cuda::thread_scope_system, unisync::exponential_backoff> sleeping(2);
  run_cpu_actors(2, [&](unsigned) {
    spinning.arrive_and_wait();
    sleeping.arrive_and_wait();
  });
  EXPECT_TRUE(spinning.try_wait());
  EXPECT_TRUE(sleeping.try_wait());
}

// A latch built in a constant expression, as a static or __managed__ one is.
TEST(HostLatchVariants, ConstructibleInAConstantExpression)
{
  static_assert((unisync::latch(3), true));
  static_assert((unisync::basic_latch<cuda::thread_scope_device>(3), true));
}

}  // namespace
