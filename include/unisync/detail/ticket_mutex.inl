#pragma once
// Definitions of basic_ticket_mutex; the contract is in unisync/ticket_mutex.hpp.

#include <unisync/detail/platform.hpp>
#include <unisync/detail/wait.hpp>

namespace unisync {

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_ticket_mutex<Scope, Backoff>::lock()
{
  cuda::std::uint64_t const my_ticket =
      detail::atomic_at<Scope>(tickets_taken_).fetch_add(1, detail::memory_order_relaxed);
  auto served = detail::atomic_at<Scope>(tickets_served_);
  detail::wait_for_turn<Backoff>([&](cuda::std::memory_order order) {
    // Unsigned subtraction: the number of tickets ahead of mine, across wraparound.
    cuda::std::uint64_t const ahead = my_ticket - served.load(order);
    return ahead == 0 ? 0u : detail::forecast_ns(detail::saturated_count(ahead), Backoff::tuning::ticket_handoff_ns);
  });
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_ticket_mutex<Scope, Backoff>::try_lock() noexcept
{
  // tickets_served first, with acquire: if it equals tickets_taken, the lock is free and
  // this load saw the last holder's release. The compare-exchange then takes exactly the
  // ticket being served, or fails without taking any.
  cuda::std::uint64_t const now_serving =
      detail::atomic_at<Scope>(tickets_served_).load(detail::memory_order_acquire);
  auto taken = detail::atomic_at<Scope>(tickets_taken_);
  cuda::std::uint64_t expected = taken.load(detail::memory_order_relaxed);
  if (expected != now_serving) return false;
  return taken.compare_exchange_strong(expected, expected + 1, detail::memory_order_relaxed,
                                       detail::memory_order_relaxed);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_ticket_mutex<Scope, Backoff>::unlock()
{
  auto served = detail::atomic_at<Scope>(tickets_served_);
  cuda::std::uint64_t const my_ticket = served.load(detail::memory_order_relaxed);
  UNISYNC_ASSERT(detail::atomic_at<Scope>(tickets_taken_).load(detail::memory_order_relaxed) != my_ticket,
                 "unlock() of a ticket_mutex that is not locked");
  served.store(my_ticket + 1, detail::memory_order_release);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_ticket_mutex<Scope, Backoff>::try_lock_within(cuda::std::uint64_t timeout_ns)
{
  auto taken = detail::atomic_at<Scope>(tickets_taken_);
  auto served = detail::atomic_at<Scope>(tickets_served_);
  return try_lock() || detail::wait_for_turn_until<Backoff>(detail::deadline::after(timeout_ns), [&](cuda::std::memory_order) {
           if (try_lock()) return 0u;
           // Pause as if queued behind everyone now waiting.
           cuda::std::uint64_t const queued =
               taken.load(detail::memory_order_relaxed) - served.load(detail::memory_order_relaxed);
           return detail::forecast_ns(detail::saturated_count(queued), Backoff::tuning::ticket_handoff_ns);
         });
}

#if defined(__CUDACC__)
template <cuda::thread_scope Scope, class Backoff>
template <class Group>
__device__ void basic_ticket_mutex<Scope, Backoff>::lock(Group const& group)
{
  detail::leader_takes_for_group(group, [this] { lock(); });
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group>
__device__ bool basic_ticket_mutex<Scope, Backoff>::try_lock(Group const& group)
{
  return detail::leader_tries_for_group(group, [this] { return try_lock(); });
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group>
__device__ void basic_ticket_mutex<Scope, Backoff>::unlock(Group const& group)
{
  detail::leader_gives_for_group(group, [this] { unlock(); });
}
#endif  // defined(__CUDACC__)

}  // namespace unisync
