// Timed waits against [thread.timedmutex.requirements], [thread.sema.cnt] and the
// barriers' try_wait_for: a timed wait returns by its deadline, whatever the waiting
// policy's delay (each pause is cut to the time left), and a zero timeout tries once; an
// _until form gives up only once the deadline's own clock has reached it.

#include "bounded.hpp"

#include <unisync/barrier.hpp>
#include <unisync/cohort_mutex.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/detail/chrono.hpp>
#include <unisync/detail/wait.hpp>
#include <unisync/mutex.hpp>
#include <unisync/partitioned_barrier.hpp>
#include <unisync/partitioned_semaphore.hpp>
#include <unisync/shared_mutex.hpp>
#include <unisync/ticket_mutex.hpp>

#include <cuda/std/chrono>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

namespace {

using namespace std::chrono_literals;

// Far above any real forecast: a pause this long overshoots a 1 ms timeout by 500 ms
// unless it is cut to the time left.
constexpr std::uint32_t slow_ns = 500'000'000;
struct slow_tuning : unisync::tuning {
  static constexpr std::uint32_t exponential_floor_ns = slow_ns;
  static constexpr std::uint32_t ceiling_ns = slow_ns;
  static constexpr std::uint32_t ticket_handoff_ns = slow_ns;
  static constexpr std::uint32_t barrier_arrival_ns = slow_ns;
  static constexpr std::uint32_t link_handoff_ns = slow_ns;
};
using slow_exponential = unisync::basic_exponential_backoff<slow_tuning>;
using slow_proportional = unisync::basic_proportional_backoff<slow_tuning>;

long long microseconds(std::chrono::nanoseconds duration)
{
  return std::chrono::duration_cast<std::chrono::microseconds>(duration).count();
}

/// The deadline's slack allowed on a loaded two-core CI machine: half the slow pause.
constexpr auto overshoot_allowed = 250ms;

/// What `attempt()` returns when another thread makes it: a timed try of a lock that the
/// test's own thread holds.
template <class Attempt>
bool in_another_thread(Attempt attempt)
{
  bool taken = true;
  std::thread other([&] { taken = attempt(); });
  other.join();
  return taken;
}

/// A lock held by the test while another thread's timed try fails.
template <class Lock>
struct held_lock {
  std::unique_ptr<Lock> lock = std::make_unique<Lock>();
  held_lock() { lock->lock(); }
  ~held_lock() { lock->unlock(); }
  template <class Timeout>
  bool try_within(Timeout timeout)
  {
    return in_another_thread([&] { return lock->try_lock_for(timeout); });
  }
  template <class TimePoint>
  bool try_until(TimePoint when)
  {
    return in_another_thread([&] { return lock->try_lock_until(when); });
  }
};

/// A shared mutex held exclusively by the test while another thread's timed shared tries
/// fail (held_lock tries the exclusive ones).
template <class SharedMutex>
struct held_shared_mutex : held_lock<SharedMutex> {
  template <class TimePoint>
  bool try_until(TimePoint when)
  {
    return in_another_thread([&] { return this->lock->try_lock_shared_until(when); });
  }
};

/// A semaphore with no permit.
template <class Semaphore>
struct empty_semaphore {
  Semaphore semaphore{0};
  template <class Timeout>
  bool try_within(Timeout timeout)
  {
    return semaphore.try_acquire_for(timeout);
  }
  template <class TimePoint>
  bool try_until(TimePoint when)
  {
    return semaphore.try_acquire_until(when);
  }
};

/// A barrier of two with one arrival: its phase cannot complete.
template <class Barrier>
struct incomplete_phase {
  std::unique_ptr<Barrier> barrier = std::make_unique<Barrier>(2);
  typename Barrier::arrival_token token = barrier->arrive();
  ~incomplete_phase() { barrier->arrive_and_drop(); }
  template <class Timeout>
  bool try_within(Timeout timeout)
  {
    return barrier->try_wait_for(token, timeout);
  }
  template <class TimePoint>
  bool try_until(TimePoint when)
  {
    return barrier->try_wait_until(token, when);
  }
};

template <class Case>
class ConformanceTimedWait : public ::testing::Test {};
using slow_cases = ::testing::Types<
    held_lock<unisync::basic_mutex<cuda::thread_scope_system, slow_exponential>>,
    held_lock<unisync::basic_ticket_mutex<cuda::thread_scope_system, slow_proportional>>,
    held_lock<unisync::basic_cohort_mutex<slow_proportional>>,
    empty_semaphore<unisync::basic_counting_semaphore<cuda::thread_scope_system, 1, slow_proportional>>,
    incomplete_phase<unisync::basic_barrier<cuda::thread_scope_system, unisync::empty_completion, slow_proportional>>,
    incomplete_phase<unisync::basic_partitioned_barrier<unisync::empty_completion, slow_proportional>>>;
TYPED_TEST_SUITE(ConformanceTimedWait, slow_cases);

// [thread.timedmutex.requirements] try_lock_for(rel_time): "The function attempts to
// obtain ownership ... within the relative timeout"; [thread.req.timing]: waits may
// overshoot by implementation delays only, not by a policy's pause of 500 ms.
TYPED_TEST(ConformanceTimedWait, ReturnsByTheDeadlineWhateverThePolicysDelay)
{
  TypeParam blocked;
  for (auto timeout : {std::chrono::nanoseconds(1ms), std::chrono::nanoseconds(3ms)}) {
    auto const start = std::chrono::steady_clock::now();
    EXPECT_FALSE(blocked.try_within(timeout));
    auto const waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, timeout);
    EXPECT_LT(waited, timeout + overshoot_allowed)
        << "the timed wait paused past its deadline: " << microseconds(waited) << " us for a timeout of "
        << microseconds(timeout) << " us";
  }
  auto const start = std::chrono::steady_clock::now();
  EXPECT_FALSE(blocked.try_within(cuda::std::chrono::microseconds(500)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 500us + overshoot_allowed);
}

// [thread.timedmutex.requirements] try_lock_for with a zero or negative duration: one try,
// no wait.
TYPED_TEST(ConformanceTimedWait, ZeroOrNegativeTimeoutReturnsAtOnce)
{
  TypeParam blocked;
  auto const start = std::chrono::steady_clock::now();
  EXPECT_FALSE(blocked.try_within(0ms));
  EXPECT_FALSE(blocked.try_within(-1ms));
  EXPECT_FALSE(blocked.try_within(cuda::std::chrono::nanoseconds(0)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, overshoot_allowed);
}

/// Clocks at half the rate of steady_clock, with std::chrono and cuda::std::chrono time
/// points: a deadline 20 ms away on one is 40 ms away on the monotonic clock that waits
/// are measured on, so a timed try that waits only the 20 ms it computed at the start gives
/// up before its deadline.
struct half_rate_clock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<half_rate_clock>;
  static constexpr bool is_steady = true;
  static time_point now() { return time_point(std::chrono::steady_clock::now().time_since_epoch() / 2); }
};
struct cuda_half_rate_clock {
  using duration = cuda::std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = cuda::std::chrono::time_point<cuda_half_rate_clock>;
  static constexpr bool is_steady = true;
  static time_point now() { return time_point(duration(half_rate_clock::now().time_since_epoch().count())); }
};

template <class Case>
class ConformanceTimedWaitUntil : public ::testing::Test {};
using until_cases = ::testing::Types<
    held_lock<unisync::mutex>, held_lock<unisync::ticket_mutex>, held_lock<unisync::cohort_mutex>,
    held_lock<unisync::shared_mutex>, held_shared_mutex<unisync::shared_mutex>,
    held_shared_mutex<unisync::basic_shared_mutex<cuda::thread_scope_device>>,
    empty_semaphore<unisync::counting_semaphore<1>>, empty_semaphore<unisync::partitioned_semaphore<1>>,
    incomplete_phase<unisync::barrier<>>, incomplete_phase<unisync::partitioned_barrier<>>>;
TYPED_TEST_SUITE(ConformanceTimedWaitUntil, until_cases);

// [thread.timedmutex.requirements] try_lock_until(abs_time): "The function will return
// before the absolute timeout specified by abs_time only if it has obtained ownership";
// [thread.sema.cnt] try_acquire_until likewise; [thread.req.timing]: the timeout is
// measured by abs_time's own clock. A deadline already passed tries once.
TYPED_TEST(ConformanceTimedWaitUntil, FailsOnlyOnceItsOwnClockHasReachedTheDeadline)
{
  TypeParam blocked;
  auto const when = half_rate_clock::now() + 20ms;
  EXPECT_FALSE(blocked.try_until(when));
  EXPECT_GE(half_rate_clock::now(), when) << "the timed try gave up before its deadline by the clock it was given";
  auto const cuda_when = cuda_half_rate_clock::now() + cuda::std::chrono::milliseconds(20);
  EXPECT_FALSE(blocked.try_until(cuda_when));
  EXPECT_GE(cuda_half_rate_clock::now(), cuda_when) << "the same with a cuda::std::chrono time point";
  auto const start = std::chrono::steady_clock::now();
  EXPECT_FALSE(blocked.try_until(half_rate_clock::now() - 1s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, overshoot_allowed) << "a past deadline waited";
}

// The loop behind every _until form: a deadline already passed tries exactly once, with no
// time; a deadline too far for the clock's own arithmetic (time_point::max() in hours)
// waits as long as a wait can, and the try that succeeds ends it.
TEST(ConformanceTimedWaitUntilLoop, TriesOnceAfterTheDeadlineAndSurvivesTheFarthest)
{
  int tries = 0;
  std::uint64_t last_ns = 1;
  auto record = [&](std::uint64_t left_ns) {
    ++tries;
    last_ns = left_ns;
    return false;
  };
  EXPECT_FALSE(unisync::detail::try_until(std::chrono::steady_clock::now() - 1s, record));
  EXPECT_EQ(tries, 1);
  EXPECT_EQ(last_ns, 0u);
  tries = 0;
  EXPECT_FALSE(unisync::detail::try_until(cuda::std::chrono::system_clock::now() - cuda::std::chrono::seconds(1), record));
  EXPECT_EQ(tries, 1);

  tries = 0;
  auto succeed_second = [&](std::uint64_t left_ns) {
    last_ns = left_ns;
    return ++tries == 2;
  };
  EXPECT_TRUE(unisync::detail::try_until(
      std::chrono::time_point<std::chrono::steady_clock, std::chrono::hours>::max(), succeed_second));
  EXPECT_EQ(tries, 2);
  EXPECT_EQ(last_ns, unisync::detail::max_timeout_ns);
  tries = 0;
  EXPECT_TRUE(unisync::detail::try_until(
      cuda::std::chrono::time_point<cuda::std::chrono::system_clock, cuda::std::chrono::hours>::max(), succeed_second));
  EXPECT_EQ(last_ns, unisync::detail::max_timeout_ns);
}

/// A forecast that counts its polls and grants the turn at poll `turn_at` (0: never).
struct counted_turn {
  int* polls;
  int turn_at;
  std::uint32_t operator()(cuda::std::memory_order) const { return ++*polls == turn_at ? 0u : slow_ns; }
};

template <class Backoff>
class ConformanceTimedWaitPolicy : public ::testing::Test {};
using every_policy = ::testing::Types<unisync::no_backoff, unisync::exponential_backoff, unisync::proportional_backoff,
                                      slow_exponential, slow_proportional>;
TYPED_TEST_SUITE(ConformanceTimedWaitPolicy, every_policy);

// The headers' promise (mutex.hpp, ticket_mutex.hpp, cohort_mutex.hpp,
// counting_semaphore.hpp): a timeout of zero or less tries exactly once. Every timed
// try of a lock or semaphore is detail::wait_for_turn_within.
TYPED_TEST(ConformanceTimedWaitPolicy, ZeroTimeoutPollsExactlyOnce)
{
  int polls = 0;
  EXPECT_FALSE(unisync::detail::wait_for_turn_within<TypeParam>(0, counted_turn{&polls, 0}));
  EXPECT_EQ(polls, 1);
  polls = 0;
  EXPECT_TRUE(unisync::detail::wait_for_turn_within<TypeParam>(0, counted_turn{&polls, 1}));
  EXPECT_EQ(polls, 1);
  polls = 0;
  EXPECT_TRUE(unisync::detail::wait_for_turn_within<TypeParam>(1'000'000'000, counted_turn{&polls, 3}));
  EXPECT_EQ(polls, 3) << "a positive timeout polls until the turn comes";
}

TYPED_TEST(ConformanceTimedWaitPolicy, EveryPauseEndsByTheDeadline)
{
  int polls = 0;
  auto const start = std::chrono::steady_clock::now();
  EXPECT_FALSE(unisync::detail::wait_for_turn_until<TypeParam>(unisync::detail::deadline::after(2'000'000),
                                                                counted_turn{&polls, 0}));
  auto const waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 2ms);
  EXPECT_LT(waited, 2ms + overshoot_allowed);
  EXPECT_GE(polls, 2) << "it polls after its last pause";
}

TEST(ConformanceDeadline, ClampsADelayToTheTimeLeft)
{
  auto const soon = unisync::detail::deadline::after(1'000'000);
  EXPECT_LE(soon.remaining_ns(), 1'000'000u);
  EXPECT_LE(soon.clamp_ns(slow_ns), 1'000'000u);
  auto const now = unisync::detail::deadline::after(0);
  EXPECT_TRUE(now.passed());
  EXPECT_EQ(now.remaining_ns(), 0u);
  EXPECT_EQ(now.clamp_ns(slow_ns), 0u);
  auto const far = unisync::detail::deadline::after(~std::uint64_t{0});
  EXPECT_FALSE(far.passed());
  EXPECT_EQ(far.clamp_ns(slow_ns), slow_ns) << "a delay shorter than the time left is kept";
}

}  // namespace
