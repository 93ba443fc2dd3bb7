#pragma once

#include <unisync/detail/config.hpp>
#include <unisync/detail/lock_algorithms.hpp>

#include <cuda/std/memory>
#include <cuda/std/tuple>
#include <cuda/std/utility>

#include <mutex>

namespace unisync {

/**
 * @brief std::lock and std::try_lock for both sides ([thread.lock.algorithm]): lock or try
 * every Lockable of a list, on CPU threads or GPU threads (per thread).
 *
 * `lock(a, b, ...)` takes them all without deadlock whatever order other threads name them
 * in or lock them by hand: in the order of their addresses, it locks the first and tries
 * the others, and when a try fails it releases all, pauses (exponential backoff) and starts
 * over, so that it never waits while it holds one. Progress: deadlock-free; not
 * starvation-free (std's is not either); threads that call it for the same lockables
 * queue for the first, and whoever gets it fails a try of the rest only while another
 * thread is still letting go of them. A lockable whose `try_lock()` fails while it is free
 * (a `partitioned_semaphore` used as a lock, whose try never takes permits from the other
 * side's pool) can keep it from finishing.
 *
 * `try_lock(a, b, ...)` calls `try_lock()` on each in order until one fails, then unlocks
 * those it took and returns the failed one's index (0-based), or -1 when it took them all.
 *
 * If a Lockable's member throws (host), both unlock what they took before the exception
 * leaves. Cost: a lock() and a try_lock() for each other lockable when nothing collides.
 * Memory ordering: that of the lockables' own members.
 */
template <class Lockable1, class Lockable2, class... MoreLockables>
UNISYNC_HOST_DEVICE int try_lock(Lockable1& first, Lockable2& second, MoreLockables&... more)
{
  return detail::try_lock_all(detail::lockable_list<Lockable1, Lockable2, MoreLockables...>(first, second, more...));
}

/// Locks every lockable without deadlock, as std::lock does (the algorithm and its
/// progress: see try_lock above). Preconditions: no lockable is named twice (checked in
/// every build; unlike std::lock, also for a recursive mutex).
template <class Lockable1, class Lockable2, class... MoreLockables>
UNISYNC_HOST_DEVICE void lock(Lockable1& first, Lockable2& second, MoreLockables&... more)
{
  detail::lock_all(detail::lockable_list<Lockable1, Lockable2, MoreLockables...>(first, second, more...));
}

/**
 * @brief std::scoped_lock for both sides ([thread.lock.scoped]): locks any number of
 * mutexes in the constructor, without deadlock (unisync::lock), and unlocks them in the
 * destructor. Works with any unisync mutex (and any Lockable) in host and device code;
 * class template argument deduction works as std's: `scoped_lock both(a, b);`.
 *
 * `scoped_lock(std::adopt_lock, m...)` adopts mutexes the calling thread already holds.
 */
template <class... Mutexes>
class scoped_lock {
 public:
  /// Locks every mutex: none for an empty list, `unisync::lock(m...)` for several (one
  /// mutex: the specialization below). Preconditions: no mutex is named twice.
  UNISYNC_HOST_DEVICE explicit scoped_lock(Mutexes&... mutexes) : held_(cuda::std::addressof(mutexes)...)
  {
    if constexpr (sizeof...(Mutexes) > 1) unisync::lock(mutexes...);
  }
  /// Does not lock. Preconditions: the calling thread holds every mutex.
  UNISYNC_HOST_DEVICE explicit scoped_lock(std::adopt_lock_t, Mutexes&... mutexes) noexcept
      : held_(cuda::std::addressof(mutexes)...)
  {
  }
  /// Unlocks every mutex, in the order given.
  UNISYNC_HOST_DEVICE ~scoped_lock() { unlock_all(cuda::std::index_sequence_for<Mutexes...>{}); }

  scoped_lock(scoped_lock const&) = delete;
  scoped_lock& operator=(scoped_lock const&) = delete;

 private:
  template <cuda::std::size_t... Index>
  UNISYNC_HOST_DEVICE void unlock_all(cuda::std::index_sequence<Index...>)
  {
    (static_cast<void>(cuda::std::get<Index>(held_)->unlock()), ...);
  }

  cuda::std::tuple<Mutexes*...> held_;
};

/// A scoped_lock of one mutex, which names its type as std's does.
template <class Mutex>
class scoped_lock<Mutex> {
 public:
  /// The locked mutex's type.
  using mutex_type = Mutex;

  /// Locks `lockable` (m.lock()).
  UNISYNC_HOST_DEVICE explicit scoped_lock(Mutex& lockable) : mutex_(lockable) { mutex_.lock(); }
  /// Does not lock. Preconditions: the calling thread holds `lockable`.
  UNISYNC_HOST_DEVICE explicit scoped_lock(std::adopt_lock_t, Mutex& lockable) noexcept : mutex_(lockable) {}
  /// Unlocks it (m.unlock()).
  UNISYNC_HOST_DEVICE ~scoped_lock() { mutex_.unlock(); }

  scoped_lock(scoped_lock const&) = delete;
  scoped_lock& operator=(scoped_lock const&) = delete;

 private:
  Mutex& mutex_;
};

}  // namespace unisync
