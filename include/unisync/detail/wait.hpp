#pragma once
// How unisync waits. A primitive passes a `distance_to_turn()` callable that tries once and
// returns 0 when the waiter may proceed, or else its forecast distance (tickets ahead,
// missing arrivals); these loops poll it and pause by the Backoff policy in between.

#include <unisync/detail/config.hpp>
#include <unisync/detail/platform.hpp>

#include <cuda/std/cstdint>

namespace unisync::detail {

template <class Backoff, class DistanceToTurn>
UNISYNC_HOST_DEVICE void wait_for_turn(DistanceToTurn distance_to_turn)
{
  Backoff backoff;
  for (cuda::std::uint32_t distance = distance_to_turn(); distance != 0; distance = distance_to_turn()) {
    backoff.pause(distance);
  }
}

/// As wait_for_turn, but gives up once `limit` has passed; returns whether the turn came.
/// Polls at least once, so a zero timeout still succeeds when the turn is free.
template <class Backoff, class DistanceToTurn>
UNISYNC_HOST_DEVICE bool wait_for_turn_until(deadline const& limit, DistanceToTurn distance_to_turn)
{
  Backoff backoff;
  for (cuda::std::uint32_t distance = distance_to_turn(); distance != 0; distance = distance_to_turn()) {
    if (limit.passed()) return false;
    backoff.pause(distance);
  }
  return true;
}

}  // namespace unisync::detail
