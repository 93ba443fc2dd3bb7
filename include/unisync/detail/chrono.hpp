#pragma once
// Conversions of std::chrono (host) and cuda::std::chrono (both sides) timeouts into the
// nanosecond counts that detail::deadline takes. Negative timeouts become zero; timeouts
// too long for 64-bit nanoseconds saturate.

#include <unisync/detail/config.hpp>

#include <cuda/std/chrono>
#include <cuda/std/cstdint>

#include <chrono>

namespace unisync::detail {

inline constexpr cuda::std::uint64_t max_timeout_ns = cuda::std::uint64_t{1} << 62;

template <class Rep, class Period>
UNISYNC_HOST_DEVICE cuda::std::uint64_t to_nanoseconds(cuda::std::chrono::duration<Rep, Period> const& timeout)
{
  if (timeout <= timeout.zero()) return 0;
  // In double, so that neither a coarse integer Rep nor a huge count can overflow.
  double const nanoseconds = cuda::std::chrono::duration<double, cuda::std::nano>(timeout).count();
  return nanoseconds >= static_cast<double>(max_timeout_ns) ? max_timeout_ns
                                                             : static_cast<cuda::std::uint64_t>(nanoseconds);
}

template <class Rep, class Period>
cuda::std::uint64_t to_nanoseconds(std::chrono::duration<Rep, Period> const& timeout)
{
  using same_period = cuda::std::ratio<Period::num, Period::den>;
  return to_nanoseconds(cuda::std::chrono::duration<Rep, same_period>(timeout.count()));
}

/// Time left until `when` on its own clock, in nanoseconds: 0 once it has passed, and
/// max_timeout_ns for one further than that. A far deadline (time_point::max() of a coarse
/// duration) is recognized in double first: its exact distance in the clock's own integer
/// arithmetic would overflow. Waits then run on the side's monotonic clock.
template <class Clock, class Duration>
UNISYNC_HOST_DEVICE cuda::std::uint64_t nanoseconds_until(cuda::std::chrono::time_point<Clock, Duration> const& when)
{
  auto const now = Clock::now();
  using approximate = cuda::std::chrono::duration<double, cuda::std::nano>;
  double const left = approximate(when.time_since_epoch()).count() - approximate(now.time_since_epoch()).count();
  if (left >= static_cast<double>(max_timeout_ns)) return max_timeout_ns;
  if (left <= -static_cast<double>(max_timeout_ns)) return 0;
  return to_nanoseconds(when - now);
}

template <class Clock, class Duration>
cuda::std::uint64_t nanoseconds_until(std::chrono::time_point<Clock, Duration> const& when)
{
  auto const now = Clock::now();
  using approximate = std::chrono::duration<double, std::nano>;
  double const left = approximate(when.time_since_epoch()).count() - approximate(now.time_since_epoch()).count();
  if (left >= static_cast<double>(max_timeout_ns)) return max_timeout_ns;
  if (left <= -static_cast<double>(max_timeout_ns)) return 0;
  return to_nanoseconds(when - now);
}

/// What every `_until` form does: waits for the time left until `when`, measured on the
/// calling side's monotonic clock, and when that wait gives up while `when`'s own clock
/// has not reached it (a system_clock set back meanwhile, a clock of another rate), waits
/// again for what is left: std's timed tries return false only once the deadline has
/// passed ([thread.timedmutex.requirements]: "will return before the absolute timeout ...
/// only if it has obtained ownership"). A deadline already passed tries exactly once.
/// `try_within(nanoseconds)` is the type's timed try. (One copy per chrono family: a
/// host-device template calling the std one would be a host call in device code.)
template <class Clock, class Duration, class TryWithin>
UNISYNC_HOST_DEVICE bool try_until(cuda::std::chrono::time_point<Clock, Duration> const& when, TryWithin try_within)
{
  for (;;) {
    cuda::std::uint64_t const left_ns = nanoseconds_until(when);
    if (try_within(left_ns)) return true;
    if (left_ns == 0 || nanoseconds_until(when) == 0) return false;
  }
}

template <class Clock, class Duration, class TryWithin>
bool try_until(std::chrono::time_point<Clock, Duration> const& when, TryWithin try_within)
{
  for (;;) {
    cuda::std::uint64_t const left_ns = nanoseconds_until(when);
    if (try_within(left_ns)) return true;
    if (left_ns == 0 || nanoseconds_until(when) == 0) return false;
  }
}

}  // namespace unisync::detail
