#pragma once

#include <unisync/backoff.hpp>
#include <unisync/detail/atomic.hpp>
#include <unisync/detail/chrono.hpp>
#include <unisync/detail/config.hpp>
#include <unisync/detail/groups.hpp>
#include <unisync/detail/in_place.hpp>

#include <cuda/atomic>
#include <cuda/std/chrono>
#include <cuda/std/cstdint>

#include <chrono>

namespace unisync {

/**
 * @brief A test-and-test-and-set exchange lock that CPU threads and GPU threads share.
 *
 * One 32-bit word: 0 unlocked, 1 locked. `lock()` exchanges 1 into it; a waiter reads the
 * word and exchanges only when it reads 0, so waiters poll a shared cache line instead of
 * writing it (on the GPU below system scope `lock()`'s first try exchanges at once).
 * Unfair: a waiter may be overtaken any number of times (use
 * `basic_ticket_mutex` for FIFO order). Meets Lockable and TimedLockable on the host, so
 * std::lock_guard, std::unique_lock and std::scoped_lock work; on the device use
 * unisync::lock_guard / unisync::unique_lock or the group overloads.
 *
 * Memory ordering: everything the holder did before `unlock()` is visible to the next
 * holder after its `lock()` returns. The exchange that takes the lock is an acquire and
 * the store that releases it a release, both at `Scope`; the polling loads are relaxed
 * because they only decide when to try the exchange. Under the PTX memory model a
 * release/acquire pair at a scope that includes both threads synchronizes them, so
 * `Scope` must include every thread that uses the object (system scope for CPU+GPU).
 *
 * Placement: an object used by CPU and GPU threads lives in managed memory
 * (`unisync::make_managed`); see `unisync::check_placement`.
 *
 * @tparam Scope   every thread that uses the object must be inside this scope.
 * @tparam Backoff waiting policy (backoff.hpp): `exponential_backoff` (default), or
 *                 `no_backoff` for the seed paper's pure spin lock (`spin_mutex`).
 */
template <cuda::thread_scope Scope, class Backoff = exponential_backoff>
class basic_mutex {
 public:
  constexpr basic_mutex() noexcept = default;
  basic_mutex(basic_mutex const&) = delete;
  basic_mutex& operator=(basic_mutex const&) = delete;

  /// Constructs the mutex anew at `object`, unlocked, for a `__shared__` variable (README,
  /// "Objects in shared memory"): one thread calls it, and the block synchronizes before
  /// any thread uses the object.
  friend UNISYNC_HOST_DEVICE void init(basic_mutex* object) { detail::construct_in_place(object); }

  /// Blocks until the calling thread holds the lock.
  /// Preconditions: the calling thread does not hold it. Progress: deadlock-free, not
  /// starvation-free. Cost: uncontended one relaxed load and one exchange at `Scope` (on
  /// the GPU below system scope the exchange alone).
  UNISYNC_HOST_DEVICE void lock();

  /// Takes the lock if it is free; never blocks. May fail spuriously only when another
  /// thread takes or releases the lock at the same time.
  /// Cost: one relaxed load, and one exchange at `Scope` if the lock looked free.
  UNISYNC_HOST_DEVICE bool try_lock() noexcept;

  /// Releases the lock. Preconditions: the calling thread holds it (debug builds check
  /// that someone holds it: the lock keeps no owner). Cost: one release store at `Scope`.
  UNISYNC_HOST_DEVICE void unlock();

  /// @{
  /// As lock(), but gives up after `timeout` (try_lock_until: at `when`) and returns
  /// false. The clock is the calling side's monotonic clock; a timeout of zero or less
  /// tries exactly once.
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
  /// Group overloads: every thread of `group` (a cooperative-groups thread_block or
  /// thread_block_tile) calls them together; its leader touches the lock, the group
  /// synchronizes, and the whole group then holds the lock. Everything any thread of the
  /// group did before unlock(group) is visible to every thread of the next holder group.
  template <class Group>
  __device__ void lock(Group const& group);
  /// The same result in every thread of the group.
  template <class Group>
  __device__ bool try_lock(Group const& group);
  template <class Group>
  __device__ void unlock(Group const& group);
  /// @}
#endif  // defined(__CUDACC__)

 private:
  // lock()'s first attempt: try_lock(), or on the GPU below system scope one exchange.
  UNISYNC_HOST_DEVICE bool first_try() noexcept;
  UNISYNC_HOST_DEVICE void lock_contended();
  UNISYNC_HOST_DEVICE bool try_lock_within(cuda::std::uint64_t timeout_ns);

  // 1 while held. Written by every contender (exchange) and by the holder (unlock).
  alignas(detail::cache_line_size) cuda::std::uint32_t locked_ = 0;
};

/// The system-scope exchange lock shared by CPU and GPU threads.
using mutex = basic_mutex<cuda::thread_scope_system>;
/// The seed paper's baseline: the same lock with pure spinning.
using spin_mutex = basic_mutex<cuda::thread_scope_system, no_backoff>;

}  // namespace unisync

#include <unisync/detail/mutex.inl>
