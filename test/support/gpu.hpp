#pragma once
// GPU helpers for tests compiled by nvcc or g++: skipping without a GPU, checking CUDA
// calls, and waiting for a kernel with a deadline instead of hanging on a broken primitive.

#include <unisync/capabilities.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>

/// Skips the test, with the reason, on a machine without a usable GPU.
#define UNISYNC_REQUIRE_GPU()                                                                        \
  do {                                                                                               \
    if (!::unisync::gpu_available()) {                                                               \
      GTEST_SKIP() << "no CUDA GPU or driver on this machine: device and mixed tests need one";      \
    }                                                                                                \
  } while (false)

#define UNISYNC_CUDA_OK(call) ASSERT_EQ(cudaSuccess, (call)) << #call << ": " << cudaGetErrorString(cudaGetLastError())

namespace unisync::test {

/// How long a correct primitive needs at most in any test kernel here, with a wide margin:
/// 60 s, or UNISYNC_TEST_KERNEL_DEADLINE_S seconds for runs under tools that slow kernels
/// down many times (test/run-sanitizers.sh sets it).
inline std::chrono::seconds kernel_deadline()
{
  char const* const configured = std::getenv("UNISYNC_TEST_KERNEL_DEADLINE_S");
  long const seconds = configured != nullptr ? std::strtol(configured, nullptr, 10) : 0;
  return std::chrono::seconds(seconds > 0 ? seconds : 60);
}

/// Waits for all work on the device. A kernel still running after `deadline` means a
/// deadlocked primitive: the test fails loudly and the process ends, since a running
/// kernel cannot be stopped and would hang every later test.
inline cudaError_t finish_device_work(std::chrono::seconds deadline = kernel_deadline())
{
  auto const give_up = std::chrono::steady_clock::now() + deadline;
  cudaError_t status = cudaStreamQuery(nullptr);
  while (status == cudaErrorNotReady) {
    if (std::chrono::steady_clock::now() > give_up) {
      ADD_FAILURE() << "the kernel did not finish within " << deadline.count()
                    << " s: the primitive under test deadlocked";
      std::fprintf(stderr, "unisync test: kernel deadlocked; ending the test process\n");
      std::fflush(nullptr);
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    status = cudaStreamQuery(nullptr);
  }
  if (status == cudaSuccess) status = cudaDeviceSynchronize();
  return status;
}

/// The body of a death test for a check that fails the kernel (a trapped kernel leaves the
/// CUDA context unusable, so it runs in a child process): runs `launch` with the device's
/// report on stderr, and exits 0 when the kernel failed with cudaErrorAssert.
template <class Launch>
[[noreturn]] void expect_kernel_assert(Launch launch)
{
  dup2(STDERR_FILENO, STDOUT_FILENO);
  launch();
  cudaError_t const status = cudaDeviceSynchronize();
  std::fflush(nullptr);
  std::_Exit(status == cudaErrorAssert ? 0 : 1);
}

/// Multiprocessors of the current GPU.
inline int multiprocessor_count()
{
  int count = 0;
  cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, 0);
  return count;
}

}  // namespace unisync::test
