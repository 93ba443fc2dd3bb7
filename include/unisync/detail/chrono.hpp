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

/// Time left until `when` on its own clock. Waits then run on the side's monotonic clock,
/// as std permits for clocks other than steady_clock.
template <class Clock, class Duration>
UNISYNC_HOST_DEVICE cuda::std::uint64_t nanoseconds_until(cuda::std::chrono::time_point<Clock, Duration> const& when)
{
  return to_nanoseconds(when - Clock::now());
}

template <class Clock, class Duration>
cuda::std::uint64_t nanoseconds_until(std::chrono::time_point<Clock, Duration> const& when)
{
  return to_nanoseconds(when - Clock::now());
}

}  // namespace unisync::detail
