#pragma once
// One clock for CPU and GPU timestamps: the GPU's global timer, and the host's steady
// clock shifted onto it by a measured offset. The work queue stamps its items with it; the
// contention binary's latch rounds stamp their count_downs and releases with it.

#include <unisync/error.hpp>
#include <unisync/managed.hpp>

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <limits>

namespace gpu_clock {

/// Now, on the GPU's global timer; the host's clock shifted by a measured offset on the
/// host (see clock_offset).
__host__ __device__ inline std::uint64_t gpu_clock_ns(std::int64_t host_to_gpu_ns)
{
#if defined(__CUDA_ARCH__)
  static_cast<void>(host_to_gpu_ns);
  std::uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
#else
  auto const host_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count();
  return static_cast<std::uint64_t>(host_ns + host_to_gpu_ns);
#endif  // defined(__CUDA_ARCH__)
}

/// Measures how far the GPU's global timer is ahead of the host's steady clock: the host
/// stores a request, the GPU answers with its time, and the exchange with the shortest
/// round trip brackets it best (to about half of that round trip, 1 us over PCIe).
struct clock_probe {
  std::uint32_t request;
  std::uint32_t answer;
  std::uint64_t gpu_ns;
};

// Internal linkage: several translation units of one program include this header.
static __global__ void answer_clock_probes(clock_probe* probe, std::uint32_t probes)
{
  for (std::uint32_t round = 1; round <= probes; ++round) {
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system> request(probe->request);
    while (request.load(cuda::std::memory_order_acquire) != round) {
    }
    probe->gpu_ns = gpu_clock_ns(0);
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>(probe->answer).store(round,
                                                                                     cuda::std::memory_order_release);
  }
}

/// The offset to add to the host's steady clock to read the GPU's global timer.
inline std::int64_t clock_offset()
{
  constexpr std::uint32_t probes = 64;
  auto probe = unisync::make_managed<clock_probe>(unisync::memory_advice::prefer_host);
  answer_clock_probes<<<1, 1>>>(probe.get(), probes);
  if (cudaGetLastError() != cudaSuccess) throw unisync::error("gpu_clock: the clock probe kernel did not launch");
  std::int64_t best_offset = 0;
  std::int64_t best_round_trip = std::numeric_limits<std::int64_t>::max();
  for (std::uint32_t round = 1; round <= probes; ++round) {
    std::int64_t const sent = static_cast<std::int64_t>(gpu_clock_ns(0));
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>(probe->request).store(round,
                                                                                      cuda::std::memory_order_release);
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system> answer(probe->answer);
    while (answer.load(cuda::std::memory_order_acquire) != round) {
    }
    std::int64_t const received = static_cast<std::int64_t>(gpu_clock_ns(0));
    if (received - sent < best_round_trip) {
      best_round_trip = received - sent;
      best_offset = static_cast<std::int64_t>(probe->gpu_ns) - (sent + received) / 2;
    }
  }
  if (cudaDeviceSynchronize() != cudaSuccess) throw unisync::error("gpu_clock: the clock probe kernel failed");
  return best_offset;
}

}  // namespace gpu_clock
