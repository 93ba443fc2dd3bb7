#pragma once
// How unisync waits. A primitive passes a `forecast_to_turn(order)` callable that polls
// once, with a load of that memory order (the loops here always ask for acquire), and
// returns 0 when the waiter may proceed, or else its forecast of the remaining wait in
// nanoseconds (see backoff.hpp); these loops poll it and pause by the Backoff policy in
// between.

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

/// The forecast of a ticket `tickets_to_go` tickets from its turn (its own included; below
/// 2^63) when `in_parallel` permits circulate side by side: each handoff serves that many.
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t forecast_for_tickets(cuda::std::uint64_t tickets_to_go,
                                                                       cuda::std::uint64_t in_parallel,
                                                                       cuda::std::uint32_t handoff_ns) noexcept
{
  cuda::std::uint64_t const per_handoff = in_parallel > 1 ? in_parallel : 1;
  cuda::std::uint64_t const handoffs = (tickets_to_go + per_handoff - 1) / per_handoff;
  return forecast_ns(handoffs > 0xffffffffu ? 0xffffffffu : static_cast<cuda::std::uint32_t>(handoffs), handoff_ns);
}

/// Polls `forecast_to_turn(memory_order_acquire)` until it returns 0, pausing by the
/// Backoff policy in between. Every poll is an acquire load, so the poll that finds the
/// turn synchronizes with the store that gave it, and nothing follows it. On the H100 this
/// measured fastest on the GPU: an acquire fence at system scope after relaxed polls costs
/// far more than the acquire polls it replaces (8-permit semaphore, 132 blocks, system
/// scope: 7.4e6 acquire/release pairs/s against 4.1e6; ticket lock 6.5e5 against 4.9e5
/// handoffs/s; at device scope the two are even). On the host an acquire load costs what a
/// relaxed one does on x86, and ThreadSanitizer sees synchronization through loads, not
/// fences.
template <class Backoff, class ForecastToTurn>
UNISYNC_HOST_DEVICE void wait_for_turn(ForecastToTurn forecast_to_turn)
{
  cuda::std::uint32_t forecast = forecast_to_turn(cuda::std::memory_order_acquire);
  if (forecast == 0) return;
  Backoff backoff;
  do {
    backoff.pause(forecast);
    forecast = forecast_to_turn(cuda::std::memory_order_acquire);
  } while (forecast != 0);
}

/// Which polls of a waiter that polls a hint line (a barrier's open parity) may trust the
/// hint: all but every 64th, which looks at the word it waits on instead. The thread that
/// completes a phase stores the hint after its carry; if it leaves the barrier with that
/// arrival (arrive_and_drop), its store can land after a later phase's and leave a value
/// that looks unchanged to a waiter, which must cost polls, never a hang.
class hint_polls {
 public:
  UNISYNC_HOST_DEVICE bool trust_next() noexcept { return (++polls_ & 63u) != 0; }

 private:
  cuda::std::uint32_t polls_ = 0;
};

/// Retries `attempt()`, which takes the turn itself when it succeeds (an exchange lock's
/// try_lock), pausing by the Backoff policy for `forecast` between failed tries.
template <class Backoff, class Attempt>
UNISYNC_HOST_DEVICE void retry_until_taken(cuda::std::uint32_t forecast, Attempt attempt)
{
  Backoff backoff;
  while (!attempt()) backoff.pause(forecast);
}

/// Pauses by the Backoff policy between polls of `forecast_to_turn` until a poll returns 0
/// (true) or `limit` has passed (false). `forecast` is the nonzero forecast of the poll the
/// caller just made. Each pause is cut to the time left before the deadline, so the wait
/// ends by the deadline plus the sleep primitive's slack, whatever the policy's delay; the
/// forecasts, and the policy's history, are those of an untimed wait.
template <class Backoff, class ForecastToTurn>
UNISYNC_HOST_DEVICE bool keep_waiting_until(deadline const& limit, cuda::std::uint32_t forecast,
                                            ForecastToTurn forecast_to_turn)
{
  Backoff backoff;
  while (!limit.passed()) {
    backoff.pause_for_delay(limit.clamp_ns(backoff.next_delay_ns(forecast)));
    forecast = forecast_to_turn(cuda::std::memory_order_acquire);
    if (forecast == 0) return true;
  }
  return false;
}

/// As wait_for_turn, but gives up once `limit` has passed; returns whether the turn came.
/// Polls at least once, so a zero timeout still succeeds when the turn is free.
template <class Backoff, class ForecastToTurn>
UNISYNC_HOST_DEVICE bool wait_for_turn_until(deadline const& limit, ForecastToTurn forecast_to_turn)
{
  cuda::std::uint32_t const forecast = forecast_to_turn(cuda::std::memory_order_acquire);
  return forecast == 0 || keep_waiting_until<Backoff>(limit, forecast, forecast_to_turn);
}

/// A timed wait of `timeout_ns` from now: polls once, and a timeout of zero (std's zero or
/// negative duration, or a time point already past) ends there, so that it tries exactly
/// once; otherwise as wait_for_turn_until. The first poll reads no clock, so a turn that is
/// free costs what an untimed try does.
template <class Backoff, class ForecastToTurn>
UNISYNC_HOST_DEVICE bool wait_for_turn_within(cuda::std::uint64_t timeout_ns, ForecastToTurn forecast_to_turn)
{
  cuda::std::uint32_t const forecast = forecast_to_turn(cuda::std::memory_order_acquire);
  if (forecast == 0) return true;
  if (timeout_ns == 0) return false;
  return keep_waiting_until<Backoff>(deadline::after(timeout_ns), forecast, forecast_to_turn);
}

}  // namespace unisync::detail
