#pragma once
// Scoped atomic access to plain words. unisync objects hold plain integers (so their
// layout is the same under nvcc and g++, and their constructors are constexpr) and touch
// them only through cuda::atomic_ref at the object's thread scope.

#include <unisync/detail/config.hpp>

#include <cuda/atomic>
#include <cuda/std/cstdint>

namespace unisync::detail {

using cuda::std::memory_order_acq_rel;
using cuda::std::memory_order_acquire;
using cuda::std::memory_order_relaxed;
using cuda::std::memory_order_release;
using cuda::std::memory_order_seq_cst;

template <cuda::thread_scope Scope, class T>
UNISYNC_HOST_DEVICE cuda::atomic_ref<T, Scope> atomic_at(T& word) noexcept
{
  return cuda::atomic_ref<T, Scope>(word);
}

/// How far `later` is ahead of `earlier` on a wrapping 64-bit counter; negative when it is
/// behind. Correct while the true distance stays below 2^63.
UNISYNC_HOST_DEVICE constexpr cuda::std::int64_t wrapping_distance(cuda::std::uint64_t later,
                                                                   cuda::std::uint64_t earlier) noexcept
{
  return static_cast<cuda::std::int64_t>(later - earlier);
}

/// A count of waiting units clamped to 32 bits, for forecasts.
UNISYNC_HOST_DEVICE constexpr cuda::std::uint32_t saturated_count(cuda::std::uint64_t count) noexcept
{
  return count > 0xffffffffu ? 0xffffffffu : static_cast<cuda::std::uint32_t>(count);
}

}  // namespace unisync::detail
