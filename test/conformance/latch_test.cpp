// The latches against [thread.latch] and [thread.latch.class] (C++20), on CPU threads,
// over the latch kinds of latch_kinds.hpp (latch, latch in flat mode, device-scope latch);
// the partitioned latch also with host threads standing in for its GPU side. Every wait is
// bounded: a latch that blocks where std says it must not fails the test. Precondition
// checks are on in this suite (UNISYNC_ENABLE_ASSERTIONS).

#include "bounded.hpp"
#include "latch_kinds.hpp"
#include "test_access.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace std::chrono_literals;
using unisync::test::bounded_thread;
using unisync::test::eventually;
using access = unisync::detail::test_access;
using side = access::side;

template <class Kind>
class ConformanceLatch : public ::testing::Test {
 public:
  using latch_type = typename Kind::type;

  /// In a shared_ptr: a thread that hangs in it is detached and keeps its copy.
  static std::shared_ptr<latch_type> make(std::ptrdiff_t expected)
  {
    auto latch = std::make_shared<latch_type>(expected);
    Kind::prepare(*latch);
    return latch;
  }
};
TYPED_TEST_SUITE(ConformanceLatch, unisync::test::latch_kinds_tested, unisync::test::type_names);

/// What a violated precondition reported (unisync::error on the host), or "".
template <class Operation>
std::string violation_reported_by(Operation operation)
{
  try {
    operation();
  } catch (unisync::error const& violation) {
    return violation.what();
  }
  return "";
}

// [thread.latch.class] p3 max(): "the maximum value of counter that the implementation
// supports"; p4 latch(expected): "Preconditions: expected >= 0 is true and expected <=
// max() is true" (checked in every build here); the constructor is constexpr and
// explicit, max() is constexpr and noexcept; a latch is neither copyable nor movable.
TYPED_TEST(ConformanceLatch, MaxAndConstructorPreconditions)
{
  using tested = typename TestFixture::latch_type;
  static_assert(noexcept(tested::max()));
  static_assert(tested::max() > 0);
  static_assert((tested(tested::max()), true), "constexpr constructor");
  static_assert(!std::is_convertible_v<std::ptrdiff_t, tested>);
  static_assert(!std::is_copy_constructible_v<tested> && !std::is_move_constructible_v<tested>);
  static_assert(!std::is_copy_assignable_v<tested> && !std::is_move_assignable_v<tested>);
  EXPECT_NO_THROW(TestFixture::make(0));
  EXPECT_NO_THROW(TestFixture::make(tested::max()));
  EXPECT_THROW(TestFixture::make(-1), unisync::error);
  EXPECT_THROW(TestFixture::make(tested::max() + 1), unisync::error);
}

// [thread.latch.class] p7 count_down: "Preconditions: update >= 0 is true, and update <=
// counter is true": a negative update, and an update above the count left, are reported
// with the precondition's name (as the other types report theirs), not a silent wrap.
TYPED_TEST(ConformanceLatch, CountDownPreconditionsAreReported)
{
  auto latch = TestFixture::make(3);
  EXPECT_NE(violation_reported_by([&] { latch->count_down(-1); }).find("0 <= update"), std::string::npos);
  EXPECT_NE(violation_reported_by([&] { latch->count_down(4); }).find("above the count left"), std::string::npos);
  auto other = TestFixture::make(3);
  other->count_down(2);
  EXPECT_NE(violation_reported_by([&] { other->count_down(2); }).find("above the count left"), std::string::npos);
  EXPECT_NE(violation_reported_by([&] { other->arrive_and_wait(-3); }).find("0 <= update"), std::string::npos);
}

// [thread.latch.class] p8 count_down: "Atomically decrements counter by update. If
// counter is equal to zero, unblocks all threads blocked on *this"; p13 wait: "If counter
// equals zero, returns immediately. Otherwise, blocks on *this until a call to count_down
// that decrements counter to zero." Every waiter stays blocked until the last
// count_down, and every waiter is released by it.
TYPED_TEST(ConformanceLatch, WaitBlocksUntilTheCountReachesZero)
{
  auto latch = TestFixture::make(3);
  auto released = std::make_shared<std::atomic<int>>(0);
  std::vector<std::unique_ptr<bounded_thread>> waiters;
  for (int waiter = 0; waiter < 3; ++waiter) {
    waiters.push_back(std::make_unique<bounded_thread>([latch, released] {
      latch->wait();
      released->fetch_add(1);
    }));
  }
  latch->count_down(2);
  EXPECT_FALSE(eventually([&] { return released->load() != 0; }, 30ms)) << "released with a count_down missing";
  bounded_thread last([latch] { latch->count_down(); });
  EXPECT_TRUE(last.returned_within());
  for (auto& waiter : waiters) EXPECT_TRUE(waiter->returned_within()) << "a waiter was not released";
  EXPECT_EQ(released->load(), 3);
  bounded_thread late([latch] { latch->wait(); });
  EXPECT_TRUE(late.returned_within()) << "wait() after the count reached zero did not return at once";
}

// [thread.latch.class] p9 count_down: "Synchronization: Strongly happens before the
// returns from all calls that are unblocked": what every counting thread wrote before its
// count_down is visible to every released waiter; 200 latches, 4 counters, 2 waiters.
TYPED_TEST(ConformanceLatch, CountDownHappensBeforeTheReleasedWaits)
{
  constexpr unsigned counters = 4;
  constexpr std::uint32_t rounds = 200;
  std::vector<std::shared_ptr<typename TestFixture::latch_type>> latches;
  for (std::uint32_t round = 0; round < rounds; ++round) latches.push_back(TestFixture::make(counters));
  auto state = std::make_shared<std::pair<std::vector<std::uint32_t>, std::uint32_t>>(
      std::vector<std::uint32_t>(counters, 0), 0u);
  unisync::test::release_record const record{state->first.data(), counters, &state->second};
  std::vector<std::unique_ptr<bounded_thread>> threads;
  for (unsigned actor = 0; actor < counters + 2; ++actor) {
    threads.push_back(std::make_unique<bounded_thread>([latches, state, record, actor] {
      for (std::uint32_t round = 1; round <= rounds; ++round) {
        if (actor < counters) {
          record.before_count_down(actor, round);
          latches[round - 1]->count_down();
        }
        latches[round - 1]->wait();
        record.after_release(0, counters, round);
      }
    }));
  }
  for (auto& thread : threads) ASSERT_TRUE(thread->returned_within());
  EXPECT_EQ(state->second, 0u) << "a waiter was released before a count_down's writes were visible";
}

// [thread.latch.class] p12 try_wait: "Returns: With very low probability false.
// Otherwise counter == 0": false while a count_down is missing; true once the count is
// zero (asked 1000 times, never a false).
TYPED_TEST(ConformanceLatch, TryWaitReportsTheCount)
{
  auto latch = TestFixture::make(2);
  latch->count_down();
  EXPECT_FALSE(latch->try_wait());
  bounded_thread last([latch] { latch->count_down(); });
  ASSERT_TRUE(last.returned_within());
  int falses = 0;
  for (int attempt = 0; attempt < 1000; ++attempt) falses += latch->try_wait() ? 0 : 1;
  EXPECT_EQ(falses, 0);
}

// [thread.latch.class] p16 arrive_and_wait: "Equivalent to: count_down(update); wait();"
// count_down(update) counts update (p8), including 0 (p7: update >= 0).
TYPED_TEST(ConformanceLatch, ArriveAndWaitCountsDownThenWaits)
{
  auto latch = TestFixture::make(5);
  bounded_thread three([latch] { latch->arrive_and_wait(3); });
  EXPECT_FALSE(eventually([&] { return three.has_returned(); }, 30ms)) << "arrive_and_wait(3) returned with 2 missing";
  latch->count_down(0);
  EXPECT_FALSE(latch->try_wait());
  bounded_thread two([latch] { latch->arrive_and_wait(2); });
  EXPECT_TRUE(two.returned_within());
  EXPECT_TRUE(three.returned_within());
}

// [thread.latch] p1: "allows any number of threads to block until an expected number of
// threads arrive at the latch (via the count_down function)"; count_down never blocks,
// also when it is not the last.
TYPED_TEST(ConformanceLatch, CountDownNeverBlocks)
{
  auto latch = TestFixture::make(3);
  for (int call = 0; call < 3; ++call) {
    bounded_thread counting([latch] { latch->count_down(); });
    EXPECT_TRUE(counting.returned_within()) << "count_down " << call << " blocked";
  }
  EXPECT_TRUE(latch->try_wait());
}

// [thread.latch.class] p8 and p13 with the partitioned latch's two sides: count_downs on
// one side only release waiters on the other side only (the sides named through
// test_access), and count_down on either side never blocks on the other.
TEST(ConformancePartitionedLatch, CountDownsOnOneSideReleaseWaitersOnTheOther)
{
  for (side counting : {side::cpu, side::gpu}) {
    side const waiting = counting == side::cpu ? side::gpu : side::cpu;
    auto latch = std::make_shared<unisync::latch>(2);
    bounded_thread waiter([latch, waiting] { access::wait_as(*latch, waiting); });
    bounded_thread first([latch, counting] { access::count_down_as(*latch, counting, 1); });
    EXPECT_TRUE(first.returned_within()) << "a count_down blocked";
    EXPECT_FALSE(eventually([&] { return waiter.has_returned(); }, 30ms)) << "released with a count_down missing";
    EXPECT_FALSE(access::try_wait_as(*latch, waiting));
    bounded_thread second([latch, counting] { access::count_down_as(*latch, counting, 1); });
    EXPECT_TRUE(second.returned_within());
    EXPECT_TRUE(waiter.returned_within()) << "the other side's waiter was not released";
    EXPECT_TRUE(access::try_wait_as(*latch, waiting));
  }
}

}  // namespace
