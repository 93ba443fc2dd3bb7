#pragma once

#include <unisync/detail/config.hpp>

#include <mutex>

namespace unisync {

/**
 * @brief std::lock_guard for both sides ([thread.lock.guard]): locks in the constructor,
 * unlocks in the destructor. Works with any unisync mutex (and any Lockable) in host and
 * device code. Class template argument deduction works as std's: `lock_guard guard(m);`.
 *
 * `std::adopt_lock` adopts a lock the calling thread already holds.
 */
template <class Mutex>
class lock_guard {
 public:
  /// The guarded mutex's type.
  using mutex_type = Mutex;

  /// Locks `lockable` (m.lock()).
  UNISYNC_HOST_DEVICE explicit lock_guard(Mutex& lockable) : mutex_(lockable) { mutex_.lock(); }
  /// Does not lock. Preconditions: the calling thread holds `lockable`.
  UNISYNC_HOST_DEVICE lock_guard(Mutex& lockable, std::adopt_lock_t) noexcept : mutex_(lockable) {}
  /// Unlocks it (m.unlock()).
  UNISYNC_HOST_DEVICE ~lock_guard() { mutex_.unlock(); }

  lock_guard(lock_guard const&) = delete;
  lock_guard& operator=(lock_guard const&) = delete;

 private:
  Mutex& mutex_;
};

}  // namespace unisync
