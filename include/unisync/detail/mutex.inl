#pragma once
// Definitions of basic_mutex; the contract is in unisync/mutex.hpp.

#include <unisync/detail/platform.hpp>
#include <unisync/detail/wait.hpp>

namespace unisync {

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_mutex<Scope, Backoff>::lock()
{
  if (first_try()) return;
  lock_contended();
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_mutex<Scope, Backoff>::first_try() noexcept
{
  // On the GPU below system scope the first try exchanges without reading first: a free
  // lock, or one its holder frees as it comes back for it, costs one L2 round trip, not
  // two (device scope, 33-528 blocks on an H100: 1.39-1.42e6 against 1.14-1.15e6
  // sections/s, benchmark/results/h100-gpu-lock-entry). The releasing block wins the lock
  // back more often (Jain's index with 33 blocks 0.03 against 0.06). At system scope blind
  // exchanges from 528 blocks on a page the CPU also uses measured 2-4x slower in a trial,
  // and on the host they measured even, so both keep reading first.
  if (Scope != cuda::thread_scope_system && detail::running_on_device()) {
    return detail::atomic_at<Scope>(locked_).exchange(1, detail::memory_order_acquire) == 0;
  }
  return try_lock();
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_mutex<Scope, Backoff>::try_lock() noexcept
{
  auto locked = detail::atomic_at<Scope>(locked_);
  return locked.load(detail::memory_order_relaxed) == 0 && locked.exchange(1, detail::memory_order_acquire) == 0;
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_mutex<Scope, Backoff>::unlock()
{
  auto locked = detail::atomic_at<Scope>(locked_);
  UNISYNC_ASSERT(locked.load(detail::memory_order_relaxed) != 0, "unlock() of a mutex that is not locked");
  locked.store(0, detail::memory_order_release);
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_mutex<Scope, Backoff>::lock_contended()
{
  // An exchange lock cannot tell how many wait: forecast one handoff, the policy decides.
  // try_lock() reads relaxed first and acquires with its exchange.
  detail::retry_until_taken<Backoff>(Backoff::tuning::ticket_handoff_ns, [this] { return try_lock(); });
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_mutex<Scope, Backoff>::try_lock_within(cuda::std::uint64_t timeout_ns)
{
  return detail::wait_for_turn_within<Backoff>(timeout_ns, [this](cuda::std::memory_order) {
    return try_lock() ? 0u : Backoff::tuning::ticket_handoff_ns;
  });
}

#if defined(__CUDACC__)
template <cuda::thread_scope Scope, class Backoff>
template <class Group>
__device__ void basic_mutex<Scope, Backoff>::lock(Group const& group)
{
  detail::leader_takes_for_group(group, [this] { lock(); });
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group>
__device__ bool basic_mutex<Scope, Backoff>::try_lock(Group const& group)
{
  return detail::leader_tries_for_group(group, [this] { return try_lock(); });
}

template <cuda::thread_scope Scope, class Backoff>
template <class Group>
__device__ void basic_mutex<Scope, Backoff>::unlock(Group const& group)
{
  detail::leader_gives_for_group(group, [this] { unlock(); });
}
#endif  // defined(__CUDACC__)

}  // namespace unisync
