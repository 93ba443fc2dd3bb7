// Every read-modify-write of detail::atomic_at on a 64-bit word, in every memory order (and
// every valid pair of compare-exchange orders), beside the same call on cuda::atomic_ref, at
// device and system scope. Compiled to PTX only; check_atomic_orders.py compares the
// instructions' orders and fences kernel by kernel.

#include <unisync/detail/atomic.hpp>

#include <cuda/atomic>

namespace {

using word = unsigned long long;
using cuda::std::memory_order;

// Each call ends with a marker, so that the checker can tell the calls apart.
#define UNISYNC_NEXT_CALL() asm volatile("// next call")

template <class Ref>
__device__ void every_call(Ref ref, word* out)
{
  constexpr memory_order orders[] = {cuda::std::memory_order_relaxed, cuda::std::memory_order_consume,
                                     cuda::std::memory_order_acquire, cuda::std::memory_order_release,
                                     cuda::std::memory_order_acq_rel, cuda::std::memory_order_seq_cst};
  constexpr memory_order failure_orders[] = {cuda::std::memory_order_relaxed, cuda::std::memory_order_consume,
                                             cuda::std::memory_order_acquire, cuda::std::memory_order_seq_cst};
#pragma unroll
  for (memory_order order : orders) {
    out[0] = ref.fetch_add(1, order);
    UNISYNC_NEXT_CALL();
    out[1] = ref.fetch_sub(2, order);
    UNISYNC_NEXT_CALL();
    out[2] = ref.exchange(3, order);
    UNISYNC_NEXT_CALL();
    out[3] = ref.fetch_or(4, order);
    UNISYNC_NEXT_CALL();
#pragma unroll
    for (memory_order failure : failure_orders) {
      // Every failure order with every success order, but a seq_cst failure only with seq_cst.
      if (failure == cuda::std::memory_order_seq_cst && order != cuda::std::memory_order_seq_cst) continue;
      word expected = 5;
      out[4] = ref.compare_exchange_strong(expected, 6, order, failure);
      out[5] = expected;
      UNISYNC_NEXT_CALL();
    }
  }
}

}  // namespace

__global__ void libcudacxx_device(word* target, word* out)
{
  every_call(cuda::atomic_ref<word, cuda::thread_scope_device>(*target), out);
}
__global__ void unisync_device(word* target, word* out)
{
  every_call(unisync::detail::atomic_at<cuda::thread_scope_device>(*target), out);
}
__global__ void libcudacxx_system(word* target, word* out)
{
  every_call(cuda::atomic_ref<word, cuda::thread_scope_system>(*target), out);
}
__global__ void unisync_system(word* target, word* out)
{
  every_call(unisync::detail::atomic_at<cuda::thread_scope_system>(*target), out);
}
