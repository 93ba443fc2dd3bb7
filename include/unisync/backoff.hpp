#pragma once
// Waiting policies. A primitive says *what* it waits for and how far away it is; the
// policy says *how* to wait. Every primitive takes one as its `Backoff` template argument.
//
// The policy contract: a policy object is created on the waiter's stack for one wait
// (never stored in the shared object) and `pause(distance)` is called after each failed
// poll. `distance` is the primitive's forecast of how far the waiter is from its turn, in
// the unit it waits for (tickets ahead, missing arrivals): at least 1.

#include <unisync/detail/config.hpp>
#include <unisync/detail/platform.hpp>

#include <cuda/std/cstdint>

namespace unisync {

/**
 * @brief The constants every waiting policy uses, in one place.
 *
 * To tune, copy this struct, change what you measured, and instantiate
 * `basic_exponential_backoff<YourTuning>` / `basic_proportional_backoff<YourTuning>`.
 */
struct backoff_tuning {
  /// Shortest delay of the exponential policy. One L2 round trip of a contended word on
  /// the H100 is about 0.5-1 us, so shorter sleeps only add polls.
  static constexpr cuda::std::uint32_t exponential_floor_ns = 256;
  /// Longest delay of every policy: bounds the oversleep after the awaited event, and
  /// keeps an inaccurate forecast (mixed arrival weights in a barrier) from sleeping for
  /// milliseconds.
  static constexpr cuda::std::uint32_t ceiling_ns = 256 * 1000;
  /// The exponential policy's history grows by this much plus the last delay.
  static constexpr cuda::std::uint32_t exponential_growth_ns = 256;
  /// Proportional policy: delay per unit of distance (per ticket ahead, per missing
  /// arrival). A system-scope critical-section handoff on the H100 costs 0.5-2 us; 256 ns
  /// per unit keeps the waiter just ahead of its turn.
  static constexpr cuda::std::uint32_t proportional_unit_ns = 256;
  /// Below this delay the host yields instead of sleeping: Linux cannot sleep for much
  /// less than 50 us, so a shorter sleep_for would oversleep by 50 us or more.
  static constexpr cuda::std::uint32_t host_sleep_threshold_ns = 32 * 1000;
};

/**
 * @brief Pure spin: polls again at once. The seed paper's baseline; fastest for very short
 * critical sections with few contenders, worst under heavy contention.
 */
struct no_backoff {
  UNISYNC_HOST_DEVICE cuda::std::uint32_t next_delay_ns(cuda::std::uint32_t) noexcept { return 0; }
  UNISYNC_HOST_DEVICE void pause(cuda::std::uint32_t) noexcept {}
};

/**
 * @brief History-based exponential backoff for waits with no forecast (exchange locks).
 *
 * Each pause sleeps half the accumulated history, at least `exponential_floor_ns` and at
 * most `ceiling_ns`; the history then grows by `exponential_growth_ns` plus that delay,
 * so delays grow by about 1.5x per failed poll.
 */
template <class Tuning = backoff_tuning>
class basic_exponential_backoff {
 public:
  UNISYNC_HOST_DEVICE cuda::std::uint32_t next_delay_ns(cuda::std::uint32_t /*distance*/) noexcept
  {
    cuda::std::uint32_t delay = history_ns_ / 2;
    if (delay < Tuning::exponential_floor_ns) delay = Tuning::exponential_floor_ns;
    if (delay > Tuning::ceiling_ns) delay = Tuning::ceiling_ns;
    // The history saturates at twice the ceiling, so it never overflows.
    cuda::std::uint32_t const grown = history_ns_ + Tuning::exponential_growth_ns + delay;
    history_ns_ = grown > 2 * Tuning::ceiling_ns ? 2 * Tuning::ceiling_ns : grown;
    return delay;
  }

  UNISYNC_HOST_DEVICE void pause(cuda::std::uint32_t distance) noexcept
  {
    detail::pause_for_nanoseconds(next_delay_ns(distance), Tuning::host_sleep_threshold_ns);
  }

 private:
  cuda::std::uint32_t history_ns_ = 0;
};

/**
 * @brief Backoff proportional to the distance from the waiter's turn.
 *
 * Delay = distance x `proportional_unit_ns`, capped at `ceiling_ns`. The distance of a
 * ticket or a missing-arrival count is an accurate forecast, so no randomness is needed;
 * the cap only matters when the forecast is in the wrong unit.
 */
template <class Tuning = backoff_tuning>
class basic_proportional_backoff {
 public:
  UNISYNC_HOST_DEVICE cuda::std::uint32_t next_delay_ns(cuda::std::uint32_t distance) noexcept
  {
    if (distance == 0) distance = 1;
    constexpr cuda::std::uint32_t max_distance = Tuning::ceiling_ns / Tuning::proportional_unit_ns;
    return distance >= max_distance ? Tuning::ceiling_ns : distance * Tuning::proportional_unit_ns;
  }

  UNISYNC_HOST_DEVICE void pause(cuda::std::uint32_t distance) noexcept
  {
    detail::pause_for_nanoseconds(next_delay_ns(distance), Tuning::host_sleep_threshold_ns);
  }
};

using exponential_backoff = basic_exponential_backoff<>;
using proportional_backoff = basic_proportional_backoff<>;

}  // namespace unisync
