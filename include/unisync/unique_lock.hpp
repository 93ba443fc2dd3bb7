#pragma once

#include <unisync/detail/config.hpp>
#include <unisync/detail/platform.hpp>

#include <cuda/std/chrono>

#include <chrono>
#include <mutex>

namespace unisync {

/**
 * @brief std::unique_lock for both sides: a movable owner of a lock that may or may not
 * hold it. Works with any unisync mutex in host and device code.
 *
 * Tags as std: `std::defer_lock` (do not lock), `std::try_to_lock` (try once),
 * `std::adopt_lock` (the calling thread already holds it). Misuse that std reports with
 * std::system_error (locking twice, unlocking when not owning, no mutex) is a violated
 * precondition here, checked in debug builds, because the device has no exceptions.
 */
template <class Mutex>
class unique_lock {
 public:
  /// The owned mutex's type.
  using mutex_type = Mutex;

  unique_lock() noexcept = default;
  /// Locks `lockable`.
  UNISYNC_HOST_DEVICE explicit unique_lock(Mutex& lockable) : mutex_(&lockable)
  {
    mutex_->lock();
    owns_ = true;
  }
  /// Refers to `lockable` without locking it.
  UNISYNC_HOST_DEVICE unique_lock(Mutex& lockable, std::defer_lock_t) noexcept : mutex_(&lockable) {}
  /// Tries once to lock `lockable` (try_lock()).
  UNISYNC_HOST_DEVICE unique_lock(Mutex& lockable, std::try_to_lock_t) : mutex_(&lockable), owns_(lockable.try_lock()) {}
  /// Adopts the lock. Preconditions: the calling thread holds `lockable`.
  UNISYNC_HOST_DEVICE unique_lock(Mutex& lockable, std::adopt_lock_t) noexcept : mutex_(&lockable), owns_(true) {}
  /// @{
  /// Tries to lock `lockable` for at most `timeout` (its try_lock_for).
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE unique_lock(Mutex& lockable, cuda::std::chrono::duration<Rep, Period> const& timeout)
      : mutex_(&lockable), owns_(lockable.try_lock_for(timeout))
  {
  }
  template <class Rep, class Period>
  unique_lock(Mutex& lockable, std::chrono::duration<Rep, Period> const& timeout)
      : mutex_(&lockable), owns_(lockable.try_lock_for(timeout))
  {
  }
  /// @}

  UNISYNC_HOST_DEVICE ~unique_lock()
  {
    if (owns_) mutex_->unlock();
  }

  unique_lock(unique_lock const&) = delete;
  unique_lock& operator=(unique_lock const&) = delete;
  /// Takes over `other`'s mutex and ownership; `other` is left empty.
  UNISYNC_HOST_DEVICE unique_lock(unique_lock&& other) noexcept : mutex_(other.mutex_), owns_(other.owns_)
  {
    other.mutex_ = nullptr;
    other.owns_ = false;
  }
  /// Unlocks the owned mutex, if any, then takes over `other`'s; `other` is left empty.
  UNISYNC_HOST_DEVICE unique_lock& operator=(unique_lock&& other)
  {
    if (this != &other) {
      if (owns_) mutex_->unlock();
      mutex_ = other.mutex_;
      owns_ = other.owns_;
      other.mutex_ = nullptr;
      other.owns_ = false;
    }
    return *this;
  }

  /// Locks the mutex. Preconditions: there is one and this lock does not own it.
  UNISYNC_HOST_DEVICE void lock()
  {
    check_can_lock();
    mutex_->lock();
    owns_ = true;
  }
  /// The mutex's try_lock(); returns and records whether it owns it now. Same
  /// preconditions as lock().
  UNISYNC_HOST_DEVICE bool try_lock()
  {
    check_can_lock();
    owns_ = mutex_->try_lock();
    return owns_;
  }
  /// @{
  /// The mutex's try_lock_for / try_lock_until; returns and records whether it owns
  /// it now. Same preconditions as lock().
  template <class Rep, class Period>
  UNISYNC_HOST_DEVICE bool try_lock_for(cuda::std::chrono::duration<Rep, Period> const& timeout)
  {
    check_can_lock();
    owns_ = mutex_->try_lock_for(timeout);
    return owns_;
  }
  template <class Rep, class Period>
  bool try_lock_for(std::chrono::duration<Rep, Period> const& timeout)
  {
    check_can_lock();
    owns_ = mutex_->try_lock_for(timeout);
    return owns_;
  }
  template <class Clock, class Duration>
  UNISYNC_HOST_DEVICE bool try_lock_until(cuda::std::chrono::time_point<Clock, Duration> const& when)
  {
    check_can_lock();
    owns_ = mutex_->try_lock_until(when);
    return owns_;
  }
  template <class Clock, class Duration>
  bool try_lock_until(std::chrono::time_point<Clock, Duration> const& when)
  {
    check_can_lock();
    owns_ = mutex_->try_lock_until(when);
    return owns_;
  }
  /// @}
  /// Unlocks the mutex. Preconditions: this lock owns it (checked in debug builds).
  UNISYNC_HOST_DEVICE void unlock()
  {
    UNISYNC_ASSERT(owns_, "unique_lock::unlock() without owning the lock");
    mutex_->unlock();
    owns_ = false;
  }

  /// Gives up ownership without unlocking; returns the mutex.
  UNISYNC_HOST_DEVICE Mutex* release() noexcept
  {
    Mutex* const mutex = mutex_;
    mutex_ = nullptr;
    owns_ = false;
    return mutex;
  }

  /// Exchanges mutex and ownership with `other`.
  UNISYNC_HOST_DEVICE void swap(unique_lock& other) noexcept
  {
    Mutex* const mutex = mutex_;
    bool const owns = owns_;
    mutex_ = other.mutex_;
    owns_ = other.owns_;
    other.mutex_ = mutex;
    other.owns_ = owns;
  }

  /// Whether this lock holds its mutex.
  UNISYNC_HOST_DEVICE bool owns_lock() const noexcept { return owns_; }
  /// owns_lock().
  UNISYNC_HOST_DEVICE explicit operator bool() const noexcept { return owns_; }
  /// The mutex, or null; never locks or unlocks it.
  UNISYNC_HOST_DEVICE Mutex* mutex() const noexcept { return mutex_; }

 private:
  UNISYNC_HOST_DEVICE void check_can_lock() const
  {
    UNISYNC_ASSERT(mutex_ != nullptr, "unique_lock has no mutex to lock");
    UNISYNC_ASSERT(!owns_, "unique_lock already owns its mutex");
  }

  Mutex* mutex_ = nullptr;
  bool owns_ = false;
};

}  // namespace unisync
