#pragma once
// Waiting policies. A primitive says *what* it waits for and forecasts how long the wait
// will last; the policy says *how* to wait. Every primitive takes one as its `Backoff`
// template argument.
//
// The policy contract: a policy object is created on the waiter's stack for one wait
// (never stored in the shared object) and `pause(forecast_ns)` is called after each
// failed poll. `forecast_ns` is the primitive's estimate of the time until the waiter's
// turn: the distance it waits for (tickets ahead, missing arrivals) times the cost of one
// unit of it, both from the policy's `tuning`. A policy exposes `using tuning = ...;`.
// `pause(forecast_ns)` is `pause_for_delay(next_delay_ns(forecast_ns))`: the first half
// chooses the delay (and advances the policy's history), the second spends it the
// policy's way. Timed waits call the halves themselves, to cut the delay to the time left.

#include <unisync/detail/config.hpp>
#include <unisync/detail/platform.hpp>
#include <unisync/tuning.hpp>

#include <cuda/std/cstdint>

namespace unisync {

/**
 * @brief Pure spin: polls again at once, whatever the forecast. The seed paper's baseline;
 * fastest for very short waits with few contenders, worst under heavy contention.
 */
struct no_backoff {
  /// The constants a primitive waiting with this policy builds its forecasts from.
  using tuning = unisync::tuning;
  /// Always 0: poll again at once.
  UNISYNC_HOST_DEVICE cuda::std::uint32_t next_delay_ns(cuda::std::uint32_t) noexcept { return 0; }
  /// Returns at once.
  UNISYNC_HOST_DEVICE void pause_for_delay(cuda::std::uint32_t) noexcept {}
  /// Returns at once.
  UNISYNC_HOST_DEVICE void pause(cuda::std::uint32_t) noexcept {}
};

/**
 * @brief History-based exponential backoff for waits with no useful forecast (exchange
 * locks): ignores the forecast.
 *
 * Each pause sleeps half the accumulated history, at least `exponential_floor_ns` and at
 * most `ceiling_ns`; the history then grows by `exponential_growth_ns` plus that delay,
 * so delays grow by about 1.5x per failed poll.
 */
template <class Tuning = unisync::tuning>
class basic_exponential_backoff {
 public:
  /// The constants a primitive waiting with this policy builds its forecasts from.
  using tuning = Tuning;

  /// The next delay: half the history, clamped to [`exponential_floor_ns`, `ceiling_ns`];
  /// grows the history by `exponential_growth_ns` plus that delay. Ignores the forecast.
  UNISYNC_HOST_DEVICE cuda::std::uint32_t next_delay_ns(cuda::std::uint32_t /*forecast_ns*/) noexcept
  {
    cuda::std::uint32_t delay = history_ns_ / 2;
    if (delay < Tuning::exponential_floor_ns) delay = Tuning::exponential_floor_ns;
    if (delay > Tuning::ceiling_ns) delay = Tuning::ceiling_ns;
    // The history saturates at twice the ceiling, so it never overflows.
    cuda::std::uint32_t const grown = history_ns_ + Tuning::exponential_growth_ns + delay;
    history_ns_ = grown > 2 * Tuning::ceiling_ns ? 2 * Tuning::ceiling_ns : grown;
    return delay;
  }

  /// Sleeps for `delay_ns`.
  UNISYNC_HOST_DEVICE void pause_for_delay(cuda::std::uint32_t delay_ns) noexcept
  {
    detail::pause_for_nanoseconds<Tuning>(delay_ns);
  }

  /// Pauses for next_delay_ns(forecast_ns).
  UNISYNC_HOST_DEVICE void pause(cuda::std::uint32_t forecast_ns) noexcept { pause_for_delay(next_delay_ns(forecast_ns)); }

 private:
  cuda::std::uint32_t history_ns_ = 0;
};

/**
 * @brief Sleeps for the forecast: backoff proportional to the distance from the waiter's
 * turn. The distance of a ticket or a missing-arrival count is an accurate forecast, so no
 * randomness is needed; the cap at `ceiling_ns` only matters for a forecast in the wrong
 * unit.
 *
 * A wait that the forecast says is about to end is spent polling, not sleeping: the
 * device polls again at once at or below `device_spin_threshold_ns` (its shortest sleeps
 * outlast an L2 poll; a device waiter of `basic_barrier` up to `device_barrier_spin_ns`,
 * which its forecast decides before it reaches the policy), and the host spins at or
 * below `host_spin_threshold_ns`, for at most `host_spin_budget_ns` per wait (a yield is a
 * system call that costs about as much as the handoff awaited, so the next ticket holder
 * would notice its turn late on every handoff).
 */
template <class Tuning = unisync::tuning>
class basic_proportional_backoff {
 public:
  /// The constants a primitive waiting with this policy builds its forecasts from.
  using tuning = Tuning;

  /// The forecast, capped at `ceiling_ns`.
  UNISYNC_HOST_DEVICE cuda::std::uint32_t next_delay_ns(cuda::std::uint32_t forecast_ns) noexcept
  {
    return forecast_ns > Tuning::ceiling_ns ? Tuning::ceiling_ns : forecast_ns;
  }

  /// Waits `delay_ns`: polls instead of sleeping when the turn is near (see the class).
  UNISYNC_HOST_DEVICE void pause_for_delay(cuda::std::uint32_t delay_ns) noexcept
  {
    detail::pause_near_turn<Tuning>(delay_ns, spin_until_ns_);
  }

  /// Pauses for next_delay_ns(forecast_ns).
  UNISYNC_HOST_DEVICE void pause(cuda::std::uint32_t forecast_ns) noexcept { pause_for_delay(next_delay_ns(forecast_ns)); }

 private:
  cuda::std::uint64_t spin_until_ns_ = 0;  // end of this wait's host spinning; 0 before it starts
};

using exponential_backoff = basic_exponential_backoff<>;
using proportional_backoff = basic_proportional_backoff<>;

}  // namespace unisync
