#pragma once
// Flags that CPU threads and GPU threads hand each other in managed memory, with a bounded
// wait on either side: a waiter that gives up counts a failure instead of hanging.

#include <unisync/detail/atomic.hpp>
#include <unisync/detail/platform.hpp>
#include <unisync/tuning.hpp>

#include <cuda/std/cstdint>

namespace unisync::test {

/// How long a flag wait lasts before it counts as a failure.
inline constexpr cuda::std::uint64_t flag_wait_limit_ns = 20'000'000'000ull;

/// Publishes `value`, and what the thread did before, to a thread on either side.
UNISYNC_HOST_DEVICE inline void raise_flag(cuda::std::uint32_t& flag, cuda::std::uint32_t value)
{
  detail::atomic_at<cuda::thread_scope_system>(flag).store(value, detail::memory_order_release);
}

/// Waits until `flag` is at least `value`, at most flag_wait_limit_ns; on timeout adds one
/// to `failures` and returns false.
UNISYNC_HOST_DEVICE inline bool await_flag(cuda::std::uint32_t const& flag, cuda::std::uint32_t value,
                                           cuda::std::uint32_t& failures)
{
  auto const limit = detail::deadline::after(flag_wait_limit_ns);
  auto seen = detail::atomic_at<cuda::thread_scope_system>(const_cast<cuda::std::uint32_t&>(flag));
  while (seen.load(detail::memory_order_acquire) < value) {
    if (limit.passed()) {
      detail::atomic_at<cuda::thread_scope_system>(failures).fetch_add(1, detail::memory_order_relaxed);
      return false;
    }
    detail::pause_for_nanoseconds<tuning>(1000);
  }
  return true;
}

}  // namespace unisync::test
