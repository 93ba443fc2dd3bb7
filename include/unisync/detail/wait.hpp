#pragma once
// How unisync waits. A primitive passes a `forecast_to_turn(order)` callable that polls
// once, with a load of that memory order, and returns 0 when the waiter may proceed, or
// else its forecast of the remaining wait in nanoseconds (see backoff.hpp); these loops
// poll it and pause by the Backoff policy in between.

#include <unisync/detail/config.hpp>
#include <unisync/detail/platform.hpp>

#include <cuda/std/atomic>
#include <cuda/std/cstdint>

namespace unisync::detail {

/// The forecast of a wait `distance` units long at `unit_ns` each: saturating, and at
/// least 1 (0 means "your turn").
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t forecast_ns(cuda::std::uint32_t distance,
                                                              cuda::std::uint32_t unit_ns) noexcept
{
  cuda::std::uint64_t const forecast = static_cast<cuda::std::uint64_t>(distance) * unit_ns;
  if (forecast == 0) return 1;
  return forecast > 0xffffffffu ? 0xffffffffu : static_cast<cuda::std::uint32_t>(forecast);
}

/// Polls `forecast_to_turn(order)` until it returns 0, pausing by the Backoff policy in
/// between, then makes the wait an acquire. The first poll is an acquire load: a waiter
/// whose turn has come already pays one load. On the GPU the polls after it are relaxed,
/// and the one that finds the turn is followed by `complete_acquire()`: an acquire fence
/// at the scope of the polled word (`acquire_fence_at`), or one more poll with an acquire
/// load where that measured faster (barriers: `acquire_poll`; the turn, once come, stays).
/// Either synchronizes with the store that gave the turn. There an acquire load at system
/// scope carries a fence of its own (about 0.7 us on the H100), so a waiter that polls many
/// times pays it once. On the host every poll is an acquire load: it costs what a relaxed
/// one does on x86, and ThreadSanitizer sees synchronization through loads, not fences.
template <class Backoff, class ForecastToTurn, class CompleteAcquire>
UNISYNC_HOST_DEVICE void wait_for_turn(ForecastToTurn forecast_to_turn, CompleteAcquire complete_acquire)
{
  cuda::std::uint32_t forecast = forecast_to_turn(cuda::std::memory_order_acquire);
  if (forecast == 0) return;
  bool const fence_after_polls = running_on_device();
  cuda::std::memory_order const poll_order =
      fence_after_polls ? cuda::std::memory_order_relaxed : cuda::std::memory_order_acquire;
  Backoff backoff;
  do {
    backoff.pause(forecast);
    forecast = forecast_to_turn(poll_order);
  } while (forecast != 0);
  if (fence_after_polls) complete_acquire();
}

/// complete_acquire for wait_for_turn: polls once more with an acquire load.
template <class ForecastToTurn>
UNISYNC_HOST_DEVICE auto acquire_poll(ForecastToTurn& forecast_to_turn)
{
  return [&forecast_to_turn] { static_cast<void>(forecast_to_turn(cuda::std::memory_order_acquire)); };
}

/// Retries `attempt()`, which takes the turn itself when it succeeds (an exchange lock's
/// try_lock), pausing by the Backoff policy for `forecast` between failed tries.
template <class Backoff, class Attempt>
UNISYNC_HOST_DEVICE void retry_until_taken(cuda::std::uint32_t forecast, Attempt attempt)
{
  Backoff backoff;
  while (!attempt()) backoff.pause(forecast);
}

/// As wait_for_turn, but gives up once `limit` has passed; returns whether the turn came.
/// Polls at least once, so a zero timeout still succeeds when the turn is free.
template <class Backoff, class ForecastToTurn>
UNISYNC_HOST_DEVICE bool wait_for_turn_until(deadline const& limit, ForecastToTurn forecast_to_turn)
{
  Backoff backoff;
  for (cuda::std::uint32_t forecast = forecast_to_turn(cuda::std::memory_order_acquire); forecast != 0;
       forecast = forecast_to_turn(cuda::std::memory_order_acquire)) {
    if (limit.passed()) return false;
    backoff.pause(forecast);
  }
  return true;
}

}  // namespace unisync::detail
