// The waiting policies: delay sequences (floor, growth, ceiling, the forecast) and that
// waiting on the host really gives the processor away.

#include <unisync/backoff.hpp>
#include <unisync/detail/wait.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <type_traits>
#include <vector>

namespace {

using unisync::tuning;

TEST(ExponentialBackoff, StartsAtTheFloor)
{
  unisync::exponential_backoff backoff;
  EXPECT_EQ(backoff.next_delay_ns(1), tuning::exponential_floor_ns);
}

TEST(ExponentialBackoff, GrowsByHalfTheHistory)
{
  unisync::exponential_backoff backoff;
  std::uint32_t history = 0;
  for (int poll = 0; poll < 12; ++poll) {
    std::uint32_t expected = history / 2;
    if (expected < tuning::exponential_floor_ns) expected = tuning::exponential_floor_ns;
    EXPECT_EQ(backoff.next_delay_ns(1), expected) << "poll " << poll;
    history += tuning::exponential_growth_ns + expected;
  }
}

TEST(ExponentialBackoff, NeverDecreasesAndStopsAtTheCeiling)
{
  unisync::exponential_backoff backoff;
  std::uint32_t previous = 0;
  for (int poll = 0; poll < 200; ++poll) {
    std::uint32_t const delay = backoff.next_delay_ns(1);
    EXPECT_GE(delay, previous);
    EXPECT_LE(delay, tuning::ceiling_ns);
    previous = delay;
  }
  EXPECT_EQ(previous, tuning::ceiling_ns);
}

TEST(ExponentialBackoff, IgnoresTheDistance)
{
  unisync::exponential_backoff near;
  unisync::exponential_backoff far;
  for (int poll = 0; poll < 10; ++poll) EXPECT_EQ(near.next_delay_ns(1), far.next_delay_ns(1000));
}

TEST(ProportionalBackoff, SleepsTheForecast)
{
  unisync::proportional_backoff backoff;
  for (std::uint32_t forecast : {1u, 256u, 7000u, 100000u}) EXPECT_EQ(backoff.next_delay_ns(forecast), forecast);
}

TEST(ProportionalBackoff, HasNoHistory)
{
  unisync::proportional_backoff backoff;
  for (int poll = 0; poll < 10; ++poll) EXPECT_EQ(backoff.next_delay_ns(768), 768u);
}

TEST(ProportionalBackoff, CapsAMisleadingForecastAtTheCeiling)
{
  unisync::proportional_backoff backoff;
  EXPECT_EQ(backoff.next_delay_ns(4'000'000'000u), tuning::ceiling_ns);
  EXPECT_EQ(backoff.next_delay_ns(tuning::ceiling_ns + 1), tuning::ceiling_ns);
}

TEST(Forecast, IsTheDistanceTimesTheUnit)
{
  using unisync::detail::forecast_ns;
  EXPECT_EQ(forecast_ns(3, tuning::ticket_handoff_ns), 3 * tuning::ticket_handoff_ns);
  EXPECT_EQ(forecast_ns(528, tuning::barrier_arrival_ns), 528 * tuning::barrier_arrival_ns);
}

TEST(Forecast, IsNeverZeroAndSaturates)
{
  using unisync::detail::forecast_ns;
  EXPECT_EQ(forecast_ns(0, 256), 1u) << "0 would mean the turn has come";
  EXPECT_EQ(forecast_ns(0xffffffffu, 256), 0xffffffffu);
}

TEST(NoBackoff, NeverDelays)
{
  unisync::no_backoff backoff;
  EXPECT_EQ(backoff.next_delay_ns(1000), 0u);
}

struct custom_tuning : tuning {
  static constexpr std::uint32_t exponential_floor_ns = 1000;
};

TEST(ExponentialBackoff, TakesItsConstantsFromTheTuning)
{
  unisync::basic_exponential_backoff<custom_tuning> backoff;
  EXPECT_EQ(backoff.next_delay_ns(1), 1000u);
  static_assert(std::is_same_v<unisync::basic_exponential_backoff<custom_tuning>::tuning, custom_tuning>);
}

double thread_cpu_seconds()
{
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

TEST(HostPause, LongDelaysSleepWithoutBurningTheProcessor)
{
  // Ten pauses at 4x the yield threshold: at least that long in wall time, and a small
  // fraction of it on the processor, which only sleeping gives.
  unisync::proportional_backoff backoff;
  std::uint32_t const delay_ns = 4 * tuning::host_sleep_threshold_ns;
  ASSERT_EQ(backoff.next_delay_ns(delay_ns), delay_ns);
  auto const start = std::chrono::steady_clock::now();
  double const cpu_start = thread_cpu_seconds();
  for (int pause = 0; pause < 10; ++pause) backoff.pause(delay_ns);
  double const cpu = thread_cpu_seconds() - cpu_start;
  double const wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(wall, 10 * delay_ns * 1e-9);
  EXPECT_LT(cpu, 0.5 * wall) << "a sleeping pause should leave the processor to others";
}

}  // namespace
