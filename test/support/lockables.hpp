#pragma once
// The lock-like types the lock properties run over, with readable names for test output.
// A binary semaphore is adapted to Lockable so the lost-update test covers it as a lock.

#include <unisync/cohort_mutex.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/mutex.hpp>
#include <unisync/partitioned_semaphore.hpp>
#include <unisync/scoped_lock.hpp>
#include <unisync/ticket_mutex.hpp>

#include <string>

namespace unisync::test {

/// A binary semaphore used as a lock: acquire to lock, release to unlock.
template <cuda::thread_scope Scope>
class semaphore_lock : public basic_counting_semaphore<Scope, 1> {
 public:
  UNISYNC_HOST_DEVICE semaphore_lock() : basic_counting_semaphore<Scope, 1>(1) {}
  UNISYNC_HOST_DEVICE void lock() { this->acquire(); }
  UNISYNC_HOST_DEVICE bool try_lock() { return this->try_acquire(); }
  UNISYNC_HOST_DEVICE void unlock() { this->release(); }
#if defined(__CUDACC__)
  template <class Group>
  __device__ void lock(Group const& group)
  {
    this->acquire(group);
  }
  template <class Group>
  __device__ bool try_lock(Group const& group)
  {
    return detail::leader_tries_for_group(group, [this] { return this->try_acquire(); });
  }
  template <class Group>
  __device__ void unlock(Group const& group)
  {
    this->release(group);
  }
#endif  // defined(__CUDACC__)
};

/// The platform-aware binary semaphore used as a lock, per thread.
class partitioned_semaphore_lock : public partitioned_binary_semaphore {
 public:
  UNISYNC_HOST_DEVICE partitioned_semaphore_lock() : partitioned_binary_semaphore(1) {}
  UNISYNC_HOST_DEVICE void lock() { this->acquire(); }
  UNISYNC_HOST_DEVICE bool try_lock() { return this->try_acquire(); }
  UNISYNC_HOST_DEVICE void unlock() { this->release(); }
};

/// A TimedLockable that counts the calls made on it (by one thread at a time) and hides its
/// address, as a type may with a deleted `operator&`: the lock wrappers must take its
/// address with addressof. Its lock is a unisync::mutex.
class recording_mutex {
 public:
  struct calls {
    int lock = 0;
    int try_lock = 0;
    int timed = 0;  // try_lock_for and try_lock_until
    int unlock = 0;
  };

  UNISYNC_HOST_DEVICE void lock()
  {
    ++calls_.lock;
    lock_.lock();
  }
  UNISYNC_HOST_DEVICE bool try_lock()
  {
    ++calls_.try_lock;
    return lock_.try_lock();
  }
  template <class Timeout>
  UNISYNC_HOST_DEVICE bool try_lock_for(Timeout const& timeout)
  {
    ++calls_.timed;
    return lock_.try_lock_for(timeout);
  }
  template <class TimePoint>
  UNISYNC_HOST_DEVICE bool try_lock_until(TimePoint const& when)
  {
    ++calls_.timed;
    return lock_.try_lock_until(when);
  }
  UNISYNC_HOST_DEVICE void unlock()
  {
    ++calls_.unlock;
    lock_.unlock();
  }
  UNISYNC_HOST_DEVICE calls const& made() const { return calls_; }

  void operator&() const = delete;

 private:
  mutex lock_;
  calls calls_;
};

/// Three mutexes and the counts they guard together, in managed memory.
template <class Mutex>
struct three_mutexes {
  Mutex first;
  Mutex second;
  Mutex third;
  unsigned long long counts[3] = {0, 0, 0};

  /// One section under all three, taken in the order `parity` picks: scoped_lock in the
  /// declared order, or unisync::lock in the opposite one. Each count is read, then
  /// written: a section let in while another holds one of the mutexes loses updates.
  UNISYNC_HOST_DEVICE void one_section(unsigned parity)
  {
    if (parity == 0) {
      unisync::scoped_lock all(first, second, third);
      add_one();
    } else {
      unisync::lock(third, second, first);
      add_one();
      first.unlock();
      second.unlock();
      third.unlock();
    }
  }
  UNISYNC_HOST_DEVICE void add_one()
  {
    for (unsigned long long& count : counts) {
      unsigned long long const seen = *static_cast<unsigned long long volatile*>(&count);
      *static_cast<unsigned long long volatile*>(&count) = seen + 1;
    }
  }
};

using system_spin_ticket_mutex = basic_ticket_mutex<cuda::thread_scope_system, no_backoff>;

/// A cohort mutex that hands the lock across after 2 passes: makes the bypass bound small
/// enough for a test to see a broken one.
struct short_cohort_tuning : unisync::tuning {
  static constexpr cuda::std::uint32_t cohort_pass_bound = 2;
};
using short_cohort_mutex = basic_cohort_mutex<basic_proportional_backoff<short_cohort_tuning>>;
using device_mutex = basic_mutex<cuda::thread_scope_device>;
using device_ticket_mutex = basic_ticket_mutex<cuda::thread_scope_device>;

template <class T>
struct type_name;
template <>
struct type_name<mutex> {
  static std::string get() { return "mutex"; }
};
template <>
struct type_name<spin_mutex> {
  static std::string get() { return "spin_mutex"; }
};
template <>
struct type_name<ticket_mutex> {
  static std::string get() { return "ticket_mutex"; }
};
template <>
struct type_name<system_spin_ticket_mutex> {
  static std::string get() { return "spin_ticket_mutex"; }
};
template <>
struct type_name<device_mutex> {
  static std::string get() { return "device_scope_mutex"; }
};
template <>
struct type_name<device_ticket_mutex> {
  static std::string get() { return "device_scope_ticket_mutex"; }
};
template <>
struct type_name<cohort_mutex> {
  static std::string get() { return "cohort_mutex"; }
};
template <>
struct type_name<short_cohort_mutex> {
  static std::string get() { return "cohort_mutex_bound_2"; }
};
template <>
struct type_name<semaphore_lock<cuda::thread_scope_system>> {
  static std::string get() { return "binary_semaphore"; }
};
template <>
struct type_name<semaphore_lock<cuda::thread_scope_device>> {
  static std::string get() { return "device_scope_binary_semaphore"; }
};

template <>
struct type_name<partitioned_semaphore_lock> {
  static std::string get() { return "partitioned_binary_semaphore"; }
};
template <>
struct type_name<recording_mutex> {
  static std::string get() { return "mutex_without_operator_address_of"; }
};

/// GoogleTest's name generator for typed suites over these types.
struct type_names {
  template <class T>
  static std::string GetName(int) { return type_name<T>::get(); }
};

}  // namespace unisync::test
