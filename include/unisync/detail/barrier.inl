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
  auto word = detail::atomic_at<Scope>(phase_and_missing_);
  // Release only: most arrivals publish and leave. The last one acquires below (measured on
  // the H100: faster than acq_rel arrivals for every arrival).
  cuda::std::uint64_t const before = word.fetch_sub(weight, detail::memory_order_release);
  auto const missing = static_cast<cuda::std::uint32_t>(before & missing_mask);
  auto const phase = static_cast<cuda::std::uint32_t>(before >> phase_shift);
  UNISYNC_ASSERT(weight <= missing, "barrier::arrive(update) with update above the arrivals missing in this phase");
  if (missing == weight) {
    // Every arrival of the phase is a release in the word's release sequence: this
    // acquire load synchronizes with all of them before the completion runs.
    static_cast<void>(word.load(detail::memory_order_acquire));
    complete_phase(phase);
  }
  return arrival_token(phase, weight);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::complete_phase(cuda::std::uint32_t phase)
{
  // Every arrival of this phase happened before this point, and each dropper counted its
  // drop before arriving, so the drops read here are all of them. No one can drop again
  // before the next phase starts, so a load suffices where there are none (the usual case).
  auto drops_pending = detail::atomic_at<Scope>(drops_pending_);
  if (drops_pending.load(detail::memory_order_relaxed) != 0) {
    expected_ -= drops_pending.exchange(0, detail::memory_order_relaxed);
  }
  completion_();
  cuda::std::uint64_t const next = (static_cast<cuda::std::uint64_t>(phase + 1) << phase_shift) | expected_;
  detail::atomic_at<Scope>(phase_and_missing_).store(next, detail::memory_order_release);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t
basic_barrier<Scope, CompletionFunction, Backoff>::forecast_to_release(arrival_token const& token,
                                                                      cuda::std::memory_order order) const
{
  // The word is only read here; atomic_ref needs a non-const reference.
  auto word = detail::atomic_at<Scope>(const_cast<cuda::std::uint64_t&>(phase_and_missing_));
  cuda::std::uint64_t const now = word.load(order);
  if (static_cast<cuda::std::uint32_t>(now >> phase_shift) != token.phase_) return 0;
  // Missing arrivals in units of the waiter's own arrival (a block waits for blocks).
  auto const missing = static_cast<cuda::std::uint32_t>(now & missing_mask);
  cuda::std::uint32_t const units = missing / token.weight_ + (missing % token.weight_ != 0 ? 1u : 0u);
  return detail::forecast_ns(units, Backoff::tuning::barrier_arrival_ns);
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::wait(arrival_token&& token) const
{
  auto forecast = [&](cuda::std::memory_order order) { return forecast_to_release(token, order); };
  detail::wait_for_turn<Backoff>(forecast, detail::acquire_poll(forecast));
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool basic_barrier<Scope, CompletionFunction, Backoff>::try_wait(arrival_token const& token) const
{
  return forecast_to_release(token, detail::memory_order_acquire) == 0;
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE bool
basic_barrier<Scope, CompletionFunction, Backoff>::try_wait_within(arrival_token const& token,
                                                                   cuda::std::uint64_t timeout_ns) const
{
  return detail::wait_for_turn_until<Backoff>(
      detail::deadline::after(timeout_ns),
      [&](cuda::std::memory_order order) { return forecast_to_release(token, order); });
}

template <cuda::thread_scope Scope, class CompletionFunction, class Backoff>
UNISYNC_HOST_DEVICE void basic_barrier<Scope, CompletionFunction, Backoff>::arrive_and_wait()
{
  // On the device, the threads of a warp that call this together arrive as one group:
  // one atomic for up to 32 arrivals, and a waiter that counts missing warps, not threads.
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (detail::group_arrive_and_wait(cooperative_groups::coalesced_threads(), *this);),
                    (wait(arrive());))
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
  detail::group_arrive_and_wait(group, *this);
}
#endif  // defined(__CUDACC__)

}  // namespace unisync
