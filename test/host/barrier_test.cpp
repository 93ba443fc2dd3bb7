// barrier on CPU threads: the phase checker, the completion function (once per phase,
// after every arrival), arrive_and_drop, arrive(update), tokens, and timed waits.

#include "actors.hpp"
#include "checks.hpp"
#include "test_access.hpp"

#include <unisync/barrier.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using unisync::test::checking_completion;
using unisync::test::phase_record;
using unisync::test::run_cpu_actors;

using checked_barrier = unisync::barrier<checking_completion>;

struct phase_harness {
  explicit phase_harness(unsigned participants) : slots(participants, 0)
  {
    record.slots = slots.data();
    record.participants = participants;
    record.violations = &violations;
    record.completions = &completions;
  }
  std::vector<std::uint32_t> slots;
  std::uint32_t violations = 0;
  std::uint32_t completions = 0;
  phase_record record;
};

TEST(HostBarrier, NoParticipantLeavesPhaseEarly)
{
  constexpr std::uint32_t phases = 2000;
  for (unsigned threads : unisync::test::cpu_thread_counts()) {
    phase_harness harness(threads);
    checked_barrier barrier(threads, checking_completion{harness.record});
    run_cpu_actors(threads, [&](unsigned actor) {
      for (std::uint32_t phase = 1; phase <= phases; ++phase) {
        harness.record.before_arriving(actor, phase);
        barrier.arrive_and_wait();
        harness.record.after_passing(0, threads, phase);
      }
    });
    EXPECT_EQ(harness.violations, 0u) << threads << " threads";
    EXPECT_EQ(harness.completions, phases) << "the completion function runs exactly once per phase";
  }
}

TEST(HostBarrier, NoBackoffVariantKeepsPhases)
{
  constexpr unsigned threads = 3;
  phase_harness harness(threads);
  unisync::basic_barrier<cuda::thread_scope_system, checking_completion, unisync::no_backoff> barrier(
      threads, checking_completion{harness.record});
  run_cpu_actors(threads, [&](unsigned actor) {
    for (std::uint32_t phase = 1; phase <= 500; ++phase) {
      harness.record.before_arriving(actor, phase);
      barrier.arrive_and_wait();
      harness.record.after_passing(0, threads, phase);
    }
  });
  EXPECT_EQ(harness.violations, 0u);
  EXPECT_EQ(harness.completions, 500u);
}

TEST(HostBarrier, ArriveAndDropShrinksLaterPhases)
{
  constexpr unsigned threads = 4;
  phase_harness harness(threads);
  checked_barrier barrier(threads, checking_completion{harness.record});
  // Participant k leaves after phase 10 * (k + 1); participant 3 stays to phase 100.
  run_cpu_actors(threads, [&](unsigned actor) {
    std::uint32_t const last = actor == threads - 1 ? 100 : 10 * (actor + 1);
    for (std::uint32_t phase = 1; phase <= last; ++phase) {
      harness.record.before_arriving(actor, phase);
      if (phase == last && actor != threads - 1) {
        harness.record.before_arriving(actor, phase_record::dropped);
        barrier.arrive_and_drop();
        return;
      }
      barrier.arrive_and_wait();
      harness.record.after_passing(0, threads, phase);
    }
  });
  EXPECT_EQ(harness.violations, 0u);
  EXPECT_EQ(harness.completions, 100u);
}

TEST(HostBarrier, ArriveWithUpdateCountsSeveralArrivals)
{
  // Expected 5: this thread arrives with 3 and then 1, the other thread with 1.
  int completions = 0;
  auto count = [&]() noexcept { ++completions; };
  unisync::barrier<decltype(count)> barrier(5, count);
  std::thread other([&] {
    for (int phase = 0; phase < 100; ++phase) barrier.arrive_and_wait();
  });
  for (int phase = 0; phase < 100; ++phase) {
    auto three = barrier.arrive(3);
    barrier.wait(barrier.arrive(1));
    EXPECT_TRUE(barrier.try_wait(three));
    EXPECT_EQ(completions, phase + 1);
  }
  other.join();
}

TEST(HostBarrier, WaitOnATokenAfterOtherWork)
{
  unisync::barrier<> barrier(2);
  std::uint32_t const phase_before = unisync::detail::test_access::phase(barrier);
  auto token = barrier.arrive();
  EXPECT_FALSE(barrier.try_wait(token));
  std::thread other([&] { barrier.arrive_and_wait(); });
  barrier.wait(std::move(token));
  other.join();
  EXPECT_EQ(unisync::detail::test_access::phase(barrier), phase_before + 1);
}

TEST(HostBarrier, TimedWaitReturnsFalseWhileAParticipantIsMissing)
{
  unisync::barrier<> barrier(2);
  auto token = barrier.arrive();
  auto const start = std::chrono::steady_clock::now();
  EXPECT_FALSE(barrier.try_wait_for(token, 30ms));
  auto const waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 30ms);
  EXPECT_LT(waited, 30ms + 5s);
  EXPECT_FALSE(barrier.try_wait_for(token, cuda::std::chrono::milliseconds(1)));
  barrier.arrive_and_drop();
  EXPECT_TRUE(barrier.try_wait_for(token, 0ms)) << "the token stays valid after a timeout";
}

TEST(HostBarrier, ApiMatchesStd)
{
  static_assert(unisync::barrier<>::max() == 0x7fffffff);
  static_assert(!std::is_copy_constructible_v<unisync::barrier<>>);
  static_assert(!std::is_move_constructible_v<unisync::barrier<>>);
  static_assert(!std::is_convertible_v<std::ptrdiff_t, unisync::barrier<>>, "explicit constructor");
  constexpr unisync::barrier<> constant(4);
  static_cast<void>(constant);
}

TEST(HostBarrier, RefusesAnOutOfRangeExpectedCountInEveryBuild)
{
  EXPECT_THROW(unisync::barrier<> negative(-1), unisync::error);
  EXPECT_THROW(unisync::barrier<> too_large(unisync::barrier<>::max() + 1), unisync::error);
}

}  // namespace
