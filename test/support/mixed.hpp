#pragma once
// Runs CPU actors while a kernel runs, for the mixed (CPU+GPU) suites.

#include "actors.hpp"
#include "gpu.hpp"

#include <cuda_runtime_api.h>

#include <functional>

namespace unisync::test {

/// Launches the kernel (`launch` enqueues it), runs `cpu_body` on `cpu_threads` threads
/// meanwhile, then waits for the kernel with the deadlock deadline. Returns the kernel's
/// status.
inline cudaError_t run_mixed(unsigned cpu_threads, std::function<void(unsigned)> const& cpu_body,
                             std::function<void()> const& launch)
{
  launch();
  cudaError_t const launched = cudaGetLastError();
  if (launched != cudaSuccess) return launched;
  run_cpu_actors(cpu_threads, cpu_body);
  return finish_device_work();
}

}  // namespace unisync::test
