#pragma once
// Owning pointers for the examples' arrays in CUDA memory: whatever a constructor or a run
// allocated is freed on every way out, a failure part-way through included. (One object in
// managed memory is unisync::make_managed's job.)

#include <unisync/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>

namespace cuda_memory {

/// Frees memory from cudaMalloc or cudaMallocManaged.
struct cuda_free {
  void operator()(void* memory) const noexcept { cudaFree(memory); }
};
/// Frees pinned host memory from cudaMallocHost.
struct cuda_free_host {
  void operator()(void* memory) const noexcept { cudaFreeHost(memory); }
};

/// An array in device or managed memory.
template <class T>
using device_array = std::unique_ptr<T[], cuda_free>;
/// An array in pinned host memory.
template <class T>
using pinned_array = std::unique_ptr<T[], cuda_free_host>;

namespace detail {
inline void check_allocation(cudaError_t status, char const* call, std::size_t bytes)
{
  if (status != cudaSuccess) {
    throw unisync::error(std::string(call) + " of " + std::to_string(bytes) + " bytes failed: " +
                         cudaGetErrorString(status));
  }
}
}  // namespace detail

/// `count` uninitialized Ts in device memory (cudaMalloc).
template <class T>
device_array<T> allocate_device(std::size_t count)
{
  void* memory = nullptr;
  detail::check_allocation(cudaMalloc(&memory, count * sizeof(T)), "cudaMalloc", count * sizeof(T));
  return device_array<T>(static_cast<T*>(memory));
}

/// `count` uninitialized Ts in managed memory (cudaMallocManaged), which CPU and GPU
/// threads both reach.
template <class T>
device_array<T> allocate_managed(std::size_t count)
{
  void* memory = nullptr;
  detail::check_allocation(cudaMallocManaged(&memory, count * sizeof(T)), "cudaMallocManaged", count * sizeof(T));
  return device_array<T>(static_cast<T*>(memory));
}

/// `count` uninitialized Ts in pinned host memory (cudaMallocHost).
template <class T>
pinned_array<T> allocate_pinned(std::size_t count)
{
  void* memory = nullptr;
  detail::check_allocation(cudaMallocHost(&memory, count * sizeof(T)), "cudaMallocHost", count * sizeof(T));
  return pinned_array<T>(static_cast<T*>(memory));
}

}  // namespace cuda_memory
