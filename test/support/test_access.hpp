#pragma once
// The tests' hook into the primitives' counters (befriended as unisync::detail::test_access):
// to see when a waiter has taken its ticket, and to start counters near the 64-bit wrap.

#include <unisync/barrier.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/ticket_mutex.hpp>

#include <cuda/std/cstdint>

namespace unisync::detail {

struct test_access {
  template <cuda::thread_scope Scope, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint64_t tickets_taken(basic_ticket_mutex<Scope, Backoff>& lock)
  {
    return atomic_at<Scope>(lock.tickets_taken_).load(memory_order_acquire);
  }
  /// Moves both counters of an unused lock to `ticket`.
  template <cuda::thread_scope Scope, class Backoff>
  static void start_tickets_at(basic_ticket_mutex<Scope, Backoff>& lock, cuda::std::uint64_t ticket)
  {
    lock.tickets_taken_ = ticket;
    lock.tickets_served_ = ticket;
  }

  template <cuda::thread_scope Scope, cuda::std::ptrdiff_t Max, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint64_t tickets_taken(basic_counting_semaphore<Scope, Max, Backoff>& semaphore)
  {
    return atomic_at<Scope>(semaphore.tickets_taken_).load(memory_order_acquire);
  }
  /// Moves both counters of an unused semaphore so the next ticket is `ticket`, keeping
  /// its count.
  template <cuda::thread_scope Scope, cuda::std::ptrdiff_t Max, class Backoff>
  static void start_tickets_at(basic_counting_semaphore<Scope, Max, Backoff>& semaphore, cuda::std::uint64_t ticket)
  {
    cuda::std::uint64_t const count = semaphore.permits_granted_ - semaphore.tickets_taken_;
    semaphore.tickets_taken_ = ticket;
    semaphore.permits_granted_ = ticket + count;
  }
  template <cuda::thread_scope Scope, cuda::std::ptrdiff_t Max, class Backoff>
  static cuda::std::int64_t count(basic_counting_semaphore<Scope, Max, Backoff>& semaphore)
  {
    return wrapping_distance(atomic_at<Scope>(semaphore.permits_granted_).load(memory_order_acquire),
                             atomic_at<Scope>(semaphore.tickets_taken_).load(memory_order_acquire));
  }

  template <cuda::thread_scope Scope, class Completion, class Backoff>
  UNISYNC_HOST_DEVICE static cuda::std::uint32_t phase(basic_barrier<Scope, Completion, Backoff>& barrier)
  {
    return static_cast<cuda::std::uint32_t>(atomic_at<Scope>(barrier.phase_and_missing_).load(memory_order_acquire) >>
                                            32);
  }
};

}  // namespace unisync::detail
