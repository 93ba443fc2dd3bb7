#pragma once
// Definitions of basic_barrier; the contract is in unisync/barrier.hpp.

#include <unisync/detail/wait.hpp>

namespace unisync {

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE typename basic_barrier<Scope, CompletionFunction, Backoff>::arrival_token
basic_barrier<Scope, CompletionFunction, Backoff>::arrive(cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update > 0 && update <= max(), "barrier::arrive(update) needs 0 < update <= max()");
  auto const weight = static_cast<cuda::std::uint32_t>(update);
  cuda::std::uint64_t const before =
      detail::atomic_at<Scope>(phase_and_missing_).fetch_sub(weight, detail::memory_order_acq_rel);
  auto const missing = static_cast<cuda::std::uint32_t>(before & missing_mask);
  auto const phase = static_cast<cuda::std::uint32_t>(before >> phase_shift);
  UNISYNC_ASSERT(weight <= missing, "barrier::arrive(update) with update above the arrivals missing in this phase");
  if (missing == weight) complete_phase(phase);
  return arrival_token(phase, weight);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::complete_phase(cuda::std::uint32_t phase)
{
  // Every arrival of this phase happened before this point (acq_rel chain), and each
  // dropper counted its drop before arriving, so the drops read here are all of them.
  cuda::std::uint32_t const drops = detail::atomic_at<Scope>(drops_pending_).exchange(0, detail::memory_order_relaxed);
  expected_ -= drops;
  completion_();
  cuda::std::uint64_t const next = (static_cast<cuda::std::uint64_t>(phase + 1) << phase_shift) | expected_;
  detail::atomic_at<Scope>(phase_and_missing_).store(next, detail::memory_order_release);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t
basic_barrier<Scope, CompletionFunction, Backoff>::distance_to_release(arrival_token const& token) const
{
  // The word is only read here; atomic_ref needs a non-const reference.
  auto word = detail::atomic_at<Scope>(const_cast<cuda::std::uint64_t&>(phase_and_missing_));
  cuda::std::uint64_t const now = word.load(detail::memory_order_acquire);
  if (static_cast<cuda::std::uint32_t>(now >> phase_shift) != token.phase_) return 0;
  // Missing arrivals in units of the waiter's own arrival, rounded up.
  auto const missing = static_cast<cuda::std::uint32_t>(now & missing_mask);
  cuda::std::uint32_t const units = missing / token.weight_ + (missing % token.weight_ != 0 ? 1u : 0u);
  return units == 0 ? 1u : units;
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::wait(arrival_token&& token) const
{
  detail::wait_for_turn<Backoff>([&] { return distance_to_release(token); });
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_barrier<Scope, CompletionFunction, Backoff>::try_wait(arrival_token const& token) const
{
  return distance_to_release(token) == 0;
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool
basic_barrier<Scope, CompletionFunction, Backoff>::try_wait_within(arrival_token const& token,
                                                                   cuda::std::uint64_t timeout_ns) const
{
  return detail::wait_for_turn_until<Backoff>(detail::deadline::after(timeout_ns),
                                              [&] { return distance_to_release(token); });
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::arrive_and_wait()
{
  wait(arrive());
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::arrive_and_drop()
{
  // Counted before arriving, so the phase's last arriver sees it.
  detail::atomic_at<Scope>(drops_pending_).fetch_add(1, detail::memory_order_relaxed);
  static_cast<void>(arrive());
}

#if defined(__CUDACC__)
template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
template <class Group, class>
__device__ void basic_barrier<Scope, CompletionFunction, Backoff>::arrive_and_wait(Group const& group)
{
  // Counting synchronizes the group, which orders every thread's writes before the
  // leader's (cumulative) release in arrive(); the final sync spreads the leader's acquire.
  cuda::std::uint32_t const arrivals = detail::group_count(group);
  if (detail::is_group_leader(group)) wait(arrive(arrivals));
  group.sync();
}
#endif  // defined(__CUDACC__)

}  // namespace unisync
