#pragma once
// Scoped atomic access to plain words. unisync objects hold plain integers (so their
// layout is the same under nvcc and g++, and their constructors are constexpr) and touch
// them only through atomic_at: cuda::atomic_ref at the object's thread scope, with 64-bit
// read-modify-writes in the global state space on the GPU (scoped_atomic_ref).

#include <unisync/detail/config.hpp>
#include <unisync/detail/global_atomic.hpp>

#include <cuda/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace unisync::detail {

using cuda::std::memory_order_acq_rel;
using cuda::std::memory_order_acquire;
using cuda::std::memory_order_relaxed;
using cuda::std::memory_order_release;
using cuda::std::memory_order_seq_cst;

/// cuda::atomic_ref at `Scope`, except that on the GPU, at device and system scope, the
/// read-modify-writes of a 64-bit integer in global memory use the global state space
/// (detail/global_atomic.hpp says why). Every other member is atomic_ref's.
template <class T, cuda::thread_scope Scope>
class scoped_atomic_ref : public cuda::atomic_ref<T, Scope> {
  using generic = cuda::atomic_ref<T, Scope>;

 public:
  UNISYNC_HOST_DEVICE explicit scoped_atomic_ref(T& word) noexcept : generic(word), word_(&word) {}

  UNISYNC_HOST_DEVICE T fetch_add(T value, cuda::std::memory_order order = memory_order_seq_cst) const noexcept
  {
    return global_or_generic<global_op::add>(to_bits(value), order, [&] { return generic::fetch_add(value, order); });
  }
  UNISYNC_HOST_DEVICE T fetch_sub(T value, cuda::std::memory_order order = memory_order_seq_cst) const noexcept
  {
    // Subtraction is the addition of the two's complement, modulo 2^64 as the word's.
    return global_or_generic<global_op::add>(~to_bits(value) + 1, order,
                                             [&] { return generic::fetch_sub(value, order); });
  }
  UNISYNC_HOST_DEVICE T fetch_or(T value, cuda::std::memory_order order = memory_order_seq_cst) const noexcept
  {
    return global_or_generic<global_op::bit_or>(to_bits(value), order, [&] { return generic::fetch_or(value, order); });
  }
  UNISYNC_HOST_DEVICE T exchange(T value, cuda::std::memory_order order = memory_order_seq_cst) const noexcept
  {
    return global_or_generic<global_op::exchange>(to_bits(value), order,
                                                  [&] { return generic::exchange(value, order); });
  }
  UNISYNC_HOST_DEVICE bool compare_exchange_strong(T& expected, T desired, cuda::std::memory_order success,
                                                   cuda::std::memory_order failure) const noexcept
  {
#if defined(__CUDACC__)
    if constexpr (global_form) {
      NV_IF_TARGET(NV_IS_DEVICE, (if (__isGlobal(word_)) {
                     T const before = from_bits(global_compare_exchange<Scope>(
                         bits(), to_bits(expected), to_bits(desired), combined_cas_order(success, failure)));
                     bool const exchanged = before == expected;
                     expected = before;
                     return exchanged;
                   }))
    }
#endif
    return generic::compare_exchange_strong(expected, desired, success, failure);
  }
  /// std's one-order form: the failure order is `order` without its release part.
  UNISYNC_HOST_DEVICE bool compare_exchange_strong(T& expected, T desired,
                                                   cuda::std::memory_order order = memory_order_seq_cst) const noexcept
  {
    cuda::std::memory_order const failure = order == memory_order_acq_rel   ? memory_order_acquire
                                            : order == memory_order_release ? memory_order_relaxed
                                                                            : order;
    return compare_exchange_strong(expected, desired, order, failure);
  }

 private:
  // Only 64-bit integers pay for generic addressing: 32-bit atomics have native shared
  // forms, and a block-scope word may be in shared memory.
  static constexpr bool global_form = cuda::std::is_integral<T>::value && sizeof(T) == sizeof(cuda::std::uint64_t) &&
                                      (Scope == cuda::thread_scope_device || Scope == cuda::thread_scope_system);

  enum class global_op { add, bit_or, exchange };

  /// The read-modify-write `Op` of `operand` in the global state space on the GPU, when
  /// this type has the global form and the word is in global memory; `generic_call()`
  /// (atomic_ref's) otherwise.
  template <global_op Op, class Generic>
  UNISYNC_HOST_DEVICE T global_or_generic(cuda::std::uint64_t operand, cuda::std::memory_order order,
                                          Generic generic_call) const noexcept
  {
#if defined(__CUDACC__)
    if constexpr (global_form) {
      NV_IF_TARGET(NV_IS_DEVICE, (if (__isGlobal(word_)) {
                     if constexpr (Op == global_op::add) {
                       return from_bits(global_fetch_add<Scope>(bits(), operand, order));
                     } else if constexpr (Op == global_op::bit_or) {
                       return from_bits(global_fetch_or<Scope>(bits(), operand, order));
                     } else {
                       return from_bits(global_exchange<Scope>(bits(), operand, order));
                     }
                   }))
    }
#endif
    static_cast<void>(operand);
    static_cast<void>(order);
    return generic_call();
  }

#if defined(__CUDACC__)
  __device__ cuda::std::uint64_t* bits() const noexcept
  {
    return reinterpret_cast<cuda::std::uint64_t*>(word_);
  }
#endif
  UNISYNC_HOST_DEVICE static constexpr cuda::std::uint64_t to_bits(T value) noexcept
  {
    return static_cast<cuda::std::uint64_t>(value);
  }
  UNISYNC_HOST_DEVICE static constexpr T from_bits(cuda::std::uint64_t value) noexcept
  {
    return static_cast<T>(value);
  }

  T* word_;
};

template <cuda::thread_scope Scope, class T>
UNISYNC_HOST_DEVICE scoped_atomic_ref<T, Scope> atomic_at(T& word) noexcept
{
  return scoped_atomic_ref<T, Scope>(word);
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
