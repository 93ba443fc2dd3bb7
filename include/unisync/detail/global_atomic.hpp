#pragma once
// 64-bit read-modify-writes in the global state space, for words known to be in global
// memory. cuda::atomic_ref addresses its word generically; a generic 64-bit add, exchange
// or or might address shared memory, which has no native 64-bit form of them, so the
// compiler follows each with a branch on whether it did, and that branch waits for the
// atomic's round trip to L2 even where the result is unused. One GPU thread's acquire and
// release of a ticket semaphore took 612 ns with generic atomics and 421 ns with these
// (H200, in one program, benchmark/results/h200-global-atomics).

#include <unisync/detail/config.hpp>

#include <cuda/atomic>
#include <cuda/std/cstdint>

namespace unisync::detail {

#if defined(__CUDACC__)

/// The scopes these helpers serve; block-scope words may be in shared memory.
template <cuda::thread_scope Scope>
inline constexpr bool has_global_rmw = Scope == cuda::thread_scope_device || Scope == cuda::thread_scope_system;

// One function per operation; each picks the instruction for the order and the scope.
// seq_cst is a fence.sc and then the acquire form, as libcu++ emits it; consume is acquire.
#define UNISYNC_GLOBAL_RMW_FOR_SCOPE(ptx_op, ptx_scope)                         \
  switch (order) {                                                              \
    case cuda::std::memory_order_relaxed:                                       \
      asm volatile("atom.relaxed." ptx_scope ".global." ptx_op " %0, [%1], %2;" \
                   : "=l"(old)                                                  \
                   : "l"(address), "l"(value)                                   \
                   : "memory");                                                 \
      break;                                                                    \
    case cuda::std::memory_order_release:                                       \
      asm volatile("atom.release." ptx_scope ".global." ptx_op " %0, [%1], %2;" \
                   : "=l"(old)                                                  \
                   : "l"(address), "l"(value)                                   \
                   : "memory");                                                 \
      break;                                                                    \
    case cuda::std::memory_order_acq_rel:                                       \
      asm volatile("atom.acq_rel." ptx_scope ".global." ptx_op " %0, [%1], %2;" \
                   : "=l"(old)                                                  \
                   : "l"(address), "l"(value)                                   \
                   : "memory");                                                 \
      break;                                                                    \
    case cuda::std::memory_order_seq_cst:                                       \
      asm volatile("fence.sc." ptx_scope ";" ::: "memory");                     \
      asm volatile("atom.acquire." ptx_scope ".global." ptx_op " %0, [%1], %2;" \
                   : "=l"(old)                                                  \
                   : "l"(address), "l"(value)                                   \
                   : "memory");                                                 \
      break;                                                                    \
    default: /* acquire, consume */                                             \
      asm volatile("atom.acquire." ptx_scope ".global." ptx_op " %0, [%1], %2;" \
                   : "=l"(old)                                                  \
                   : "l"(address), "l"(value)                                   \
                   : "memory");                                                 \
      break;                                                                    \
  }

#define UNISYNC_GLOBAL_RMW(op_name, ptx_op)                                                          \
  template <cuda::thread_scope Scope>                                                                \
  __device__ __forceinline__ cuda::std::uint64_t global_##op_name(                                   \
      cuda::std::uint64_t* word, cuda::std::uint64_t value, cuda::std::memory_order order) noexcept  \
  {                                                                                                  \
    static_assert(has_global_rmw<Scope>, "global read-modify-writes serve device and system scope"); \
    cuda::std::uint64_t old;                                                                         \
    cuda::std::size_t const address = __cvta_generic_to_global(word);                                \
    if constexpr (Scope == cuda::thread_scope_device) {                                              \
      UNISYNC_GLOBAL_RMW_FOR_SCOPE(ptx_op, "gpu")                                                    \
    } else {                                                                                         \
      UNISYNC_GLOBAL_RMW_FOR_SCOPE(ptx_op, "sys")                                                    \
    }                                                                                                \
    return old;                                                                                      \
  }

UNISYNC_GLOBAL_RMW(fetch_add, "add.u64")
UNISYNC_GLOBAL_RMW(fetch_or, "or.b64")
UNISYNC_GLOBAL_RMW(exchange, "exch.b64")

#undef UNISYNC_GLOBAL_RMW
#undef UNISYNC_GLOBAL_RMW_FOR_SCOPE

/// The one order a compare-exchange instruction takes for a success and a failure order,
/// as libcu++ combines them.
__device__ constexpr cuda::std::memory_order combined_cas_order(cuda::std::memory_order success,
                                                                cuda::std::memory_order failure) noexcept
{
  if (success == cuda::std::memory_order_seq_cst || failure == cuda::std::memory_order_seq_cst) {
    return cuda::std::memory_order_seq_cst;
  }
  bool const acquires = success == cuda::std::memory_order_acquire || success == cuda::std::memory_order_consume ||
                        success == cuda::std::memory_order_acq_rel || failure == cuda::std::memory_order_acquire ||
                        failure == cuda::std::memory_order_consume;
  bool const releases = success == cuda::std::memory_order_release || success == cuda::std::memory_order_acq_rel;
  if (acquires && releases) return cuda::std::memory_order_acq_rel;
  if (acquires) return cuda::std::memory_order_acquire;
  if (releases) return cuda::std::memory_order_release;
  return cuda::std::memory_order_relaxed;
}

#define UNISYNC_GLOBAL_CAS_FOR(sem, ptx_scope)                               \
  asm volatile("atom." sem "." ptx_scope ".global.cas.b64 %0, [%1], %2, %3;" \
               : "=l"(old)                                                   \
               : "l"(address), "l"(expected), "l"(desired)                   \
               : "memory")
#define UNISYNC_GLOBAL_CAS_FOR_SCOPE(ptx_scope)             \
  switch (order) {                                          \
    case cuda::std::memory_order_relaxed:                   \
      UNISYNC_GLOBAL_CAS_FOR("relaxed", ptx_scope);         \
      break;                                                \
    case cuda::std::memory_order_release:                   \
      UNISYNC_GLOBAL_CAS_FOR("release", ptx_scope);         \
      break;                                                \
    case cuda::std::memory_order_acq_rel:                   \
      UNISYNC_GLOBAL_CAS_FOR("acq_rel", ptx_scope);         \
      break;                                                \
    case cuda::std::memory_order_seq_cst:                   \
      asm volatile("fence.sc." ptx_scope ";" ::: "memory"); \
      UNISYNC_GLOBAL_CAS_FOR("acquire", ptx_scope);         \
      break;                                                \
    default:                                                \
      UNISYNC_GLOBAL_CAS_FOR("acquire", ptx_scope);         \
      break;                                                \
  }

/// Compare-exchange in the global state space, with one order (combined_cas_order):
/// returns the word's value before it.
template <cuda::thread_scope Scope>
__device__ __forceinline__ cuda::std::uint64_t global_compare_exchange(cuda::std::uint64_t* word,
                                                                       cuda::std::uint64_t expected,
                                                                       cuda::std::uint64_t desired,
                                                                       cuda::std::memory_order order) noexcept
{
  static_assert(has_global_rmw<Scope>, "global read-modify-writes serve device and system scope");
  cuda::std::uint64_t old;
  cuda::std::size_t const address = __cvta_generic_to_global(word);
  if constexpr (Scope == cuda::thread_scope_device) {
    UNISYNC_GLOBAL_CAS_FOR_SCOPE("gpu")
  } else {
    UNISYNC_GLOBAL_CAS_FOR_SCOPE("sys")
  }
  return old;
}

#undef UNISYNC_GLOBAL_CAS_FOR_SCOPE
#undef UNISYNC_GLOBAL_CAS_FOR

#endif  // defined(__CUDACC__)

}  // namespace unisync::detail
