#pragma once
// Flags that CPU threads and GPU threads hand each other in managed memory, with a bounded
// wait on either side: a waiter that gives up counts a failure instead of hanging; and the
// split-phase use of a barrier that they pace.

#include "bounded.hpp"

#include <unisync/detail/atomic.hpp>
#include <unisync/detail/platform.hpp>
#include <unisync/tuning.hpp>

#include <cuda/std/cstdint>
#include <cuda/std/utility>

namespace unisync::test {

/// How long a flag wait lasts before it counts as a failure.
inline constexpr cuda::std::uint64_t flag_wait_limit_ns = 20'000'000'000ull;

/// Publishes `value`, and what the thread did before, to a thread on either side.
UNISYNC_HOST_DEVICE inline void raise_flag(cuda::std::uint32_t& flag, cuda::std::uint32_t value)
{
  detail::atomic_at<cuda::thread_scope_system>(flag).store(value, detail::memory_order_release);
}

/// The flag's value, and what its raiser did before raising it.
UNISYNC_HOST_DEVICE inline cuda::std::uint32_t load_flag(cuda::std::uint32_t const& flag)
{
  return detail::atomic_at<cuda::thread_scope_system>(const_cast<cuda::std::uint32_t&>(flag))
      .load(detail::memory_order_acquire);
}

/// The host's bounded wait for a flag (or a count) the GPU raises: true once `flag` is at
/// least `value`.
inline bool host_sees(cuda::std::uint32_t const& flag, cuda::std::uint32_t value)
{
  return eventually([&] { return load_flag(flag) >= value; });
}

/// Waits until `flag` is at least `value`, at most flag_wait_limit_ns; on timeout adds one
/// to `failures` and returns false.
UNISYNC_HOST_DEVICE inline bool await_flag(cuda::std::uint32_t const& flag, cuda::std::uint32_t value,
                                           cuda::std::uint32_t& failures)
{
  auto const limit = detail::deadline::after(flag_wait_limit_ns);
  auto seen = detail::atomic_at<cuda::thread_scope_system>(const_cast<cuda::std::uint32_t&>(flag));
  while (seen.load(detail::memory_order_acquire) < value) {
    if (limit.passed()) {
      detail::atomic_at<cuda::thread_scope_system>(failures).fetch_add(1, detail::memory_order_relaxed);
      return false;
    }
    detail::pause_for_nanoseconds<tuning>(1000);
  }
  return true;
}

/// The flags of two split-phase participants, 0 and 1: the last phase each has arrived in.
/// With `completions` (the runs a counting completion function has made), each wait that
/// returns before the completion of its phase has run counts in `released_early`.
struct split_phase_signals {
  cuda::std::uint32_t raised[2] = {0, 0};
  cuda::std::uint32_t failures = 0;
  cuda::std::uint32_t const* completions = nullptr;
  cuda::std::uint32_t released_early = 0;
};

/// Split-phase use of `barrier` by participant `me` (0 or 1) in each of `phases` phases:
/// arrive, raise the flag for the phase, then wait on the token. The leader of a phase
/// (participant 0 in odd phases, 1 in even ones, so both directions are covered) arrives
/// first; the follower arrives only once the leader's flag is up, so the leader's
/// arrive() must return before the other participant arrives. A follower that waits in
/// vain gives up (failures) and leaves the barrier.
template <class Barrier>
UNISYNC_HOST_DEVICE void arrive_signal_wait(Barrier& barrier, split_phase_signals& signals, unsigned me,
                                            cuda::std::uint32_t phases)
{
  for (cuda::std::uint32_t phase = 1; phase <= phases; ++phase) {
    bool const leads = (phase & 1u) == (me == 0 ? 1u : 0u);
    if (!leads && !await_flag(signals.raised[1 - me], phase, signals.failures)) return;
    auto token = barrier.arrive();
    raise_flag(signals.raised[me], phase);
    barrier.wait(cuda::std::move(token));
    if (signals.completions != nullptr && load_flag(*signals.completions) < phase) {
      detail::atomic_at<cuda::thread_scope_system>(signals.released_early).fetch_add(1, detail::memory_order_relaxed);
    }
  }
}

}  // namespace unisync::test
