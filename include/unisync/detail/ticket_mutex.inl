#pragma once
// Definitions of basic_ticket_mutex; the contract is in unisync/ticket_mutex.hpp.

#include <unisync/detail/groups.hpp>

namespace unisync {

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_ticket_mutex<Scope, Backoff>::lock()
{
  lock_.lock();
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE bool basic_ticket_mutex<Scope, Backoff>::try_lock() noexcept
{
  return lock_.try_lock();
}

template <cuda::thread_scope Scope, class Backoff>
UNISYNC_HOST_DEVICE void basic_ticket_mutex<Scope, Backoff>::unlock()
{
  lock_.unlock();
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
