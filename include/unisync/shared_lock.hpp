#pragma once

#include <unisync/detail/config.hpp>
#include <unisync/detail/platform.hpp>

#include <cuda/std/chrono>
#include <cuda/std/memory>

#include <chrono>
#include <mutex>

namespace unisync {

/**
 * @brief std::shared_lock for both sides ([thread.lock.shared]): a movable owner of a
 * shared hold that may or may not hold it. Works with `basic_shared_mutex` in host and
 * device code, and with any SharedLockable whose members it calls (SharedTimedLockable for
 * the timed ones). On the host `std::shared_lock` works with unisync's shared mutexes too.
 *
 * Tags as std: `std::defer_lock` (do not lock), `std::try_to_lock` (try once),
 * `std::adopt_lock` (the calling thread already holds it shared). Timeouts are durations or
 * time points of `cuda::std::chrono` (both sides) or `std::chrono` (host). Misuse that std
 * reports with std::system_error is checked in every build: locking one that owns its
 * mutex (resource_deadlock_would_occur), locking one without a mutex or unlocking one that
 * does not own it (operation_not_permitted). The host throws std::system_error with that
 * condition, as std does; the device, which has no exceptions, fails the kernel with
 * `cudaErrorAssert`.
 */
template <class Mutex>
class shared_lock {
 public:
  /// The owned mutex's type.
  using mutex_type = Mutex;

  /// Owns no mutex.
  shared_lock() noexcept = default;
  /// Locks `lockable` shared (m.lock_shared()).
  UNISYNC_HOST_DEVICE explicit shared_lock(Mutex& lockable) : mutex_(cuda::std::addressof(lockable))
  {
    mutex_->lock_shared();
    owns_ = true;
  }
  /// Does not lock.
  UNISYNC_HOST_DEVICE shared_lock(Mutex& lockable, std::defer_lock_t) noexcept : mutex_(cuda::std::addressof(lockable))
  {
  }
  /// Tries once (m.try_lock_shared()).
  UNISYNC_HOST_DEVICE shared_lock(Mutex& lockable, std::try_to_lock_t)
      : mutex_(cuda::std::addressof(lockable)), owns_(lockable.try_lock_shared())
  {
  }
  /// Preconditions: the calling thread holds `lockable` shared.
  UNISYNC_HOST_DEVICE shared_lock(Mutex& lockable, std::adopt_lock_t) noexcept
      : mutex_(cuda::std::addressof(lockable)), owns_(true)
  {
  }
  /// @{
  /// Tries to lock `lockable` shared until `when` (m.try_lock_shared_until(when)).
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE shared_lock(Mutex& lockable, cuda::std::chrono::time_point<Clock, Duration> const& when)
      : mutex_(cuda::std::addressof(lockable)), owns_(lockable.try_lock_shared_until(when))
  {
  }
  template <class Clock, class Duration>
  shared_lock(Mutex& lockable, std::chrono::time_point<Clock, Duration> const& when)
      : mutex_(cuda::std::addressof(lockable)), owns_(lockable.try_lock_shared_until(when))
  {
  }
  /// @}
  /// @{
  /// Tries to lock `lockable` shared for at most `timeout` (m.try_lock_shared_for(timeout)).
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE shared_lock(Mutex& lockable, cuda::std::chrono::duration<Rep, Period> const& timeout)
      : mutex_(cuda::std::addressof(lockable)), owns_(lockable.try_lock_shared_for(timeout))
  {
  }
  template <class Rep, class Period>
  shared_lock(Mutex& lockable, std::chrono::duration<Rep, Period> const& timeout)
      : mutex_(cuda::std::addressof(lockable)), owns_(lockable.try_lock_shared_for(timeout))
  {
  }
  /// @}

  /// Unlocks (m.unlock_shared()) if it owns the hold.
  UNISYNC_HOST_DEVICE ~shared_lock()
  {
    if (owns_) mutex_->unlock_shared();
  }

  shared_lock(shared_lock const&) = delete;
  shared_lock& operator=(shared_lock const&) = delete;
  /// Takes `other`'s state; `other` is left owning no mutex.
  UNISYNC_HOST_DEVICE shared_lock(shared_lock&& other) noexcept : mutex_(other.mutex_), owns_(other.owns_)
  {
    other.mutex_ = nullptr;
    other.owns_ = false;
  }
  /// Unlocks what it owns, then takes `other`'s state. Self-assignment leaves it unchanged.
  /// noexcept as std's ([thread.lock.shared.cons]): a debug build's report of a violated
  /// unlock_shared() precondition ends the program here, as in the destructor.
  UNISYNC_HOST_DEVICE shared_lock& operator=(shared_lock&& other) noexcept
  {
    if (this != &other) {
      if (owns_) mutex_->unlock_shared();
      mutex_ = other.mutex_;
      owns_ = other.owns_;
      other.mutex_ = nullptr;
      other.owns_ = false;
    }
    return *this;
  }

  /// Misuse (for this and every locking member below): it has no mutex, or owns it (see the
  /// class).
  UNISYNC_HOST_DEVICE void lock()
  {
    check_can_lock();
    mutex_->lock_shared();
    owns_ = true;
  }
  /// The mutex's try_lock_shared(); returns and records whether it owns it now. Same
  /// misuse checks as lock().
  UNISYNC_HOST_DEVICE bool try_lock()
  {
    check_can_lock();
    owns_ = mutex_->try_lock_shared();
    return owns_;
  }
  /// @{
  /// The mutex's try_lock_shared_for / try_lock_shared_until; returns and records whether
  /// it owns it now. Same misuse checks as lock().
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_lock_for(cuda::std::chrono::duration<Rep, Period> const& timeout)
  {
    check_can_lock();
    owns_ = mutex_->try_lock_shared_for(timeout);
    return owns_;
  }
  template <class Rep, class Period>
  bool try_lock_for(std::chrono::duration<Rep, Period> const& timeout)
  {
    check_can_lock();
    owns_ = mutex_->try_lock_shared_for(timeout);
    return owns_;
  }
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE bool try_lock_until(cuda::std::chrono::time_point<Clock, Duration> const& when)
  {
    check_can_lock();
    owns_ = mutex_->try_lock_shared_until(when);
    return owns_;
  }
  template <class Clock, class Duration>
  bool try_lock_until(std::chrono::time_point<Clock, Duration> const& when)
  {
    check_can_lock();
    owns_ = mutex_->try_lock_shared_until(when);
    return owns_;
  }
  /// @}
  /// Misuse: it does not own the hold (see the class).
  UNISYNC_HOST_DEVICE void unlock()
  {
    UNISYNC_CHECK_LOCK_USE(owns_, std::errc::operation_not_permitted,
                           "shared_lock::unlock() without owning the lock: call it only while owns_lock()");
    mutex_->unlock_shared();
    owns_ = false;
  }

  /// Exchanges the states of the two locks.
  UNISYNC_HOST_DEVICE void swap(shared_lock& other) noexcept
  {
    Mutex* const mutex = mutex_;
    bool const owns = owns_;
    mutex_ = other.mutex_;
    owns_ = other.owns_;
    other.mutex_ = mutex;
    other.owns_ = owns;
  }
  /// Gives up ownership without unlocking; returns the mutex it had (or nullptr).
  UNISYNC_HOST_DEVICE Mutex* release() noexcept
  {
    Mutex* const mutex = mutex_;
    mutex_ = nullptr;
    owns_ = false;
    return mutex;
  }

  /// Whether this lock holds its mutex shared.
  UNISYNC_HOST_DEVICE bool owns_lock() const noexcept { return owns_; }
  /// owns_lock().
  UNISYNC_HOST_DEVICE explicit operator bool() const noexcept { return owns_; }
  /// The mutex, or null; never locks or unlocks it.
  UNISYNC_HOST_DEVICE Mutex* mutex() const noexcept { return mutex_; }

 private:
  UNISYNC_HOST_DEVICE void check_can_lock() const
  {
    UNISYNC_CHECK_LOCK_USE(mutex_ != nullptr, std::errc::operation_not_permitted,
                           "shared_lock has no mutex to lock: construct it with one, or move one in");
    UNISYNC_CHECK_LOCK_USE(!owns_, std::errc::resource_deadlock_would_occur,
                           "shared_lock already owns its mutex: unlock() it before locking again");
  }

  Mutex* mutex_ = nullptr;
  bool owns_ = false;
};

/// Exchanges the states of two locks, as std::swap(shared_lock&, shared_lock&).
template <class Mutex>
UNISYNC_HOST_DEVICE void swap(shared_lock<Mutex>& first, shared_lock<Mutex>& second) noexcept
{
  first.swap(second);
}

}  // namespace unisync
