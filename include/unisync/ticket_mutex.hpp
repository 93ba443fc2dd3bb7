#pragma once

#include <unisync/backoff.hpp>
#include <unisync/detail/atomic.hpp>
#include <unisync/detail/chrono.hpp>
#include <unisync/detail/config.hpp>
#include <unisync/detail/groups.hpp>
#include <unisync/detail/in_place.hpp>
#include <unisync/detail/ticket_lock.hpp>

#include <cuda/atomic>
#include <cuda/std/chrono>
#include <cuda/std/cstdint>

#include <chrono>

namespace unisync {

/**
 * @brief A FIFO-fair (starvation-free) ticket lock that CPU threads and GPU threads share.
 *
 * Two wrapping 64-bit counters on separate 128-byte lines: `lock()` takes a ticket with one
 * `fetch_add` on tickets_taken and waits until tickets_served equals it, pausing in
 * proportion to the number of tickets ahead; `unlock()` adds 1 to tickets_served (only the
 * holder writes it: on the GPU below system scope a `fetch_add` it does not wait for,
 * elsewhere a load and a store). Threads are served in the order their `fetch_add`s took
 * effect. Meets Lockable and TimedLockable on the host.
 *
 * The counters are 64-bit so that they never wrap in practice: try_lock() reads the two
 * counters one after the other, and 32-bit ones could wrap between the reads while a
 * thread is preempted (found by the model in test/models; 2^32 lock operations meanwhile
 * are seconds of GPU time).
 *
 * Timed waits (`try_lock_for/until`) never take a ticket, because an abandoned ticket
 * would block every later one: they retry `try_lock()`, which takes the lock only when
 * nobody holds or waits for it. A timed waiter therefore does not queue, and under
 * constant contention may time out although the lock changed hands.
 *
 * Memory ordering: everything the holder did before `unlock()` is visible to the next
 * holder after its `lock()` returns. The holder's write of tickets_served (store or
 * fetch_add) is a release at `Scope`; the waiter polls it with acquire loads, and the one
 * that reads its own ticket synchronizes with that write. (Polling relaxed and closing
 * with a fence measured slower: the waiter sleeps for its forecast between polls and polls
 * about once per handoff. Relaxed polls measured slower also for the next ticket keeping
 * two or four loads in flight at device scope: 0.8x, benchmark/results/h100-gpu-lock-entry.)
 * Taking a ticket is relaxed: it publishes nothing, it only orders the waiters. Where the
 * holder stores, it reads tickets_served relaxed first: the value is its own ticket,
 * already acquired.
 *
 * @tparam Scope   every thread that uses the object must be inside this scope.
 * @tparam Backoff waiting policy; `proportional_backoff` (default) uses the ticket
 *                 distance as an exact forecast of the wait.
 */
template <cuda::thread_scope Scope, class Backoff = proportional_backoff>
class basic_ticket_mutex {
 public:
  constexpr basic_ticket_mutex() noexcept = default;
  basic_ticket_mutex(basic_ticket_mutex const&) = delete;
  basic_ticket_mutex& operator=(basic_ticket_mutex const&) = delete;

  /// Constructs the lock anew at `object`, unlocked with no tickets taken, for a
  /// `__shared__` variable (README, "Objects in shared memory").
  friend UNISYNC_HOST_DEVICE void init(basic_ticket_mutex* object) { detail::construct_in_place(object); }

  /// Takes a ticket and blocks until it is served. Preconditions: the calling thread does
  /// not hold the lock. Progress: starvation-free,
  /// FIFO. Cost: one fetch_add at `Scope`, then one acquire load per poll.
  UNISYNC_HOST_DEVICE void lock();

  /// Takes the lock only if nobody holds or waits for it; never takes a ticket it might
  /// not use. Cost: two loads and, if the lock looked free, one compare-exchange at `Scope`.
  UNISYNC_HOST_DEVICE bool try_lock() noexcept;

  /// Serves the next ticket. Preconditions: the calling thread holds the lock (debug
  /// builds check that the lock is held by someone). Cost: on the GPU below system scope
  /// one release fetch_add at `Scope` that it does not wait for; else one load and one
  /// release store.
  UNISYNC_HOST_DEVICE void unlock();

  /// @{
  /// Retries try_lock() until it succeeds or `timeout` passes (try_lock_until: until
  /// `when`); never takes a ticket. The clock is the calling side's monotonic clock; a
  /// timeout of zero or less tries exactly once.
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_lock_for(cuda::std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_lock_within(detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE bool try_lock_until(cuda::std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_lock_within(left_ns); });
  }
  template <class Rep, class Period>
  bool try_lock_for(std::chrono::duration<Rep, Period> const& timeout)
  {
    return try_lock_within(detail::to_nanoseconds(timeout));
  }
  template <class Clock, class Duration>
  bool try_lock_until(std::chrono::time_point<Clock, Duration> const& when)
  {
    return detail::try_until(when, [&](cuda::std::uint64_t left_ns) { return try_lock_within(left_ns); });
  }
  /// @}

#if defined(__CUDACC__)
  /// @{
  /// Group overloads: all threads of `group` call them together; the leader takes one
  /// ticket for the whole group. See basic_mutex for the guarantees.
  template <class Group>
  __device__ void lock(Group const& group);
  template <class Group>
  __device__ bool try_lock(Group const& group);
  template <class Group>
  __device__ void unlock(Group const& group);
  /// @}
#endif  // defined(__CUDACC__)

 private:
  friend struct detail::test_access;

  UNISYNC_HOST_DEVICE bool try_lock_within(cuda::std::uint64_t timeout_ns) { return lock_.try_lock_within(timeout_ns); }

  // tickets_taken and tickets_served, each on a line of its own.
  detail::ticket_lock<Scope, Backoff> lock_;
};

/// The system-scope FIFO lock shared by CPU and GPU threads.
using ticket_mutex = basic_ticket_mutex<cuda::thread_scope_system>;

}  // namespace unisync

#include <unisync/detail/ticket_mutex.inl>
