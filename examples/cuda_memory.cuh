#pragma once
// Owning pointers for the examples' arrays in CUDA memory, and for their streams and
// events: whatever a constructor or a run created is freed on every way out, a failure
// part-way through included. (One object in managed memory is unisync::make_managed's job.)

#include <unisync/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

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
/// Throws unless `status` is success: "`what` failed: <CUDA's words>".
inline void check(cudaError_t status, std::string const& what)
{
  if (status != cudaSuccess) throw unisync::error(what + " failed: " + cudaGetErrorString(status));
}
inline void check_allocation(cudaError_t status, char const* call, std::size_t bytes)
{
  check(status, std::string(call) + " of " + std::to_string(bytes) + " bytes");
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

/// Destroys a stream from cudaStreamCreate*.
struct cuda_stream_destroy {
  void operator()(cudaStream_t stream) const noexcept { cudaStreamDestroy(stream); }
};
/// Destroys an event from cudaEventCreate*.
struct cuda_event_destroy {
  void operator()(cudaEvent_t event) const noexcept { cudaEventDestroy(event); }
};

/// A stream, and an event, destroyed with their owner.
using owned_stream = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, cuda_stream_destroy>;
using owned_event = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, cuda_event_destroy>;

/// A non-blocking stream (it does not synchronize with the legacy default stream).
inline owned_stream create_stream()
{
  cudaStream_t stream = nullptr;
  detail::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return owned_stream(stream);
}

/// An event with the given cudaEventCreateWithFlags flags.
inline owned_event create_event(unsigned flags)
{
  cudaEvent_t event = nullptr;
  detail::check(cudaEventCreateWithFlags(&event, flags), "cudaEventCreateWithFlags");
  return owned_event(event);
}

}  // namespace cuda_memory
