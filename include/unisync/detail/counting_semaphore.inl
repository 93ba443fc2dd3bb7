#pragma once
// Definitions of basic_counting_semaphore; the contract is in unisync/counting_semaphore.hpp.

#include <unisync/detail/wait.hpp>

namespace unisync {

template <cuda::thread_scope Scope, cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE void basic_counting_semaphore<Scope, LeastMaxValue, Backoff>::release(cuda::std::ptrdiff_t update)
{
  UNISYNC_ASSERT(update >= 0, "counting_semaphore::release(update) needs update >= 0");
#if UNISYNC_ENABLE_ASSERTIONS
  {
    // permits_granted first, tickets_taken second: concurrent acquires can only lower
    // this estimate, so a count above max() here is a real violation.
    cuda::std::uint64_t const granted = detail::atomic_at<Scope>(permits_granted_).load(detail::memory_order_relaxed);
    cuda::std::uint64_t const taken = detail::atomic_at<Scope>(tickets_taken_).load(detail::memory_order_relaxed);
    cuda::std::ptrdiff_t const count = detail::wrapping_distance(granted, taken);
    UNISYNC_ASSERT(update <= max() - count, "counting_semaphore::release(update) would raise the count above max()");
  }
#endif  // UNISYNC_ENABLE_ASSERTIONS
  detail::atomic_at<Scope>(permits_granted_)
      .fetch_add(static_cast<cuda::std::uint64_t>(update), detail::memory_order_release);
}

template <cuda::thread_scope Scope, cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE void basic_counting_semaphore<Scope, LeastMaxValue, Backoff>::acquire()
{
  cuda::std::uint64_t const my_ticket =
      detail::atomic_at<Scope>(tickets_taken_).fetch_add(1, detail::memory_order_relaxed);
  // Loaded once, with the addition in flight: on the GPU a load in the poll loop would put
  // a second round trip to L2 in every poll of a waiter near its turn.
  cuda::std::uint32_t const in_parallel = initial_count_;
  auto granted = detail::atomic_at<Scope>(permits_granted_);
  detail::wait_for_turn<Backoff>([&](cuda::std::memory_order order) {
    // Admitted once my_ticket < permits_granted; otherwise this many tickets are still to
    // be served, mine included.
    cuda::std::int64_t const to_go = detail::wrapping_distance(my_ticket + 1, granted.load(order));
    return to_go <= 0 ? 0u
                      : forecast_for(detail::saturated_count(static_cast<cuda::std::uint64_t>(to_go)), in_parallel);
  });
}

template <cuda::thread_scope Scope, cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool basic_counting_semaphore<Scope, LeastMaxValue, Backoff>::try_acquire() noexcept
{
  // permits_granted first, with acquire: if it is ahead of tickets_taken, the next ticket
  // holds a permit and this load saw the release that granted it. The compare-exchange
  // then takes exactly that ticket, or fails without taking any.
  cuda::std::uint64_t const granted = detail::atomic_at<Scope>(permits_granted_).load(detail::memory_order_acquire);
  auto taken = detail::atomic_at<Scope>(tickets_taken_);
  cuda::std::uint64_t next_ticket = taken.load(detail::memory_order_relaxed);
  if (detail::wrapping_distance(granted, next_ticket) <= 0) return false;
  return taken.compare_exchange_strong(next_ticket, next_ticket + 1, detail::memory_order_relaxed,
                                       detail::memory_order_relaxed);
}

template <cuda::thread_scope Scope, cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t
basic_counting_semaphore<Scope, LeastMaxValue, Backoff>::forecast_for_timed_wait()
{
  cuda::std::uint64_t const taken = detail::atomic_at<Scope>(tickets_taken_).load(detail::memory_order_relaxed);
  cuda::std::uint64_t const granted = detail::atomic_at<Scope>(permits_granted_).load(detail::memory_order_relaxed);
  cuda::std::int64_t const waiting = detail::wrapping_distance(taken + 1, granted);
  return forecast_for(waiting <= 0 ? 1u : detail::saturated_count(static_cast<cuda::std::uint64_t>(waiting)),
                      initial_count_);
}

template <cuda::thread_scope Scope, cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE cuda::std::uint32_t
basic_counting_semaphore<Scope, LeastMaxValue, Backoff>::forecast_for(cuda::std::uint32_t tickets_to_go,
                                                                      cuda::std::uint32_t initial_count) noexcept
{
  // Permits circulate side by side: with N of them, N tickets are served per handoff.
  return detail::forecast_for_tickets(tickets_to_go, initial_count, Backoff::tuning::ticket_handoff_ns);
}

template <cuda::thread_scope Scope, cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
UNISYNC_HOST_DEVICE bool
basic_counting_semaphore<Scope, LeastMaxValue, Backoff>::try_acquire_within(cuda::std::uint64_t timeout_ns)
{
  return detail::wait_for_turn_within<Backoff>(timeout_ns, [&](cuda::std::memory_order) {
    return try_acquire() ? 0u : forecast_for_timed_wait();
  });
}

#if defined(__CUDACC__)
template <cuda::thread_scope Scope, cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
template <class Group, class>
__device__ void basic_counting_semaphore<Scope, LeastMaxValue, Backoff>::acquire(Group const& group)
{
  detail::leader_takes_for_group(group, [this] { acquire(); });
}

template <cuda::thread_scope Scope, cuda::std::ptrdiff_t LeastMaxValue, class Backoff>
template <class Group, class>
__device__ void basic_counting_semaphore<Scope, LeastMaxValue, Backoff>::release(Group const& group,
                                                                                 cuda::std::ptrdiff_t update)
{
  detail::leader_gives_for_group(group, [this, update] { release(update); });
}
#endif  // defined(__CUDACC__)

}  // namespace unisync
