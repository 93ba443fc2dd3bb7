#include <unisync/managed.hpp>

#include <unisync/capabilities.hpp>
#include <unisync/error.hpp>

#include "cuda_call.hpp"

#include <cuda_runtime_api.h>

namespace unisync::detail {

void* allocate_managed(std::size_t bytes, std::size_t alignment)
{
  if (!gpu_available()) {
    throw error("unisync: managed memory needs a CUDA GPU and driver, and none is available.", cudaErrorNoDevice);
  }
  void* allocation = nullptr;
  throw_if_failed(cudaMallocManaged(&allocation, bytes + alignment, cudaMemAttachGlobal),
                  "unisync: cudaMallocManaged");
  return allocation;
}

void free_managed(void* allocation) noexcept
{
  if (allocation != nullptr) cudaFree(allocation);
}

namespace {

// CUDA 13 names the location-taking forms cudaMemAdvise and cudaMemPrefetchAsync; CUDA
// 12.2 to 12.9 call them cudaMemAdvise_v2 and cudaMemPrefetchAsync_v2.
cudaError_t advise(void const* object, std::size_t bytes, cudaMemoryAdvise advice, cudaMemLocation where)
{
#if CUDART_VERSION >= 13000
  return cudaMemAdvise(object, bytes, advice, where);
#else
  return cudaMemAdvise_v2(object, bytes, advice, where);
#endif
}

cudaError_t prefetch(void const* object, std::size_t bytes, cudaMemLocation where, cudaStream_t stream)
{
#if CUDART_VERSION >= 13000
  return cudaMemPrefetchAsync(object, bytes, where, 0, stream);
#else
  return cudaMemPrefetchAsync_v2(object, bytes, where, 0, stream);
#endif
}

void prefetch_to(void const* object, std::size_t bytes, cudaMemLocation gpu)
{
  int concurrent_access = 0;
  throw_if_failed(cudaDeviceGetAttribute(&concurrent_access, cudaDevAttrConcurrentManagedAccess, gpu.id),
                  "unisync: cudaDeviceGetAttribute(ConcurrentManagedAccess)");
  if (concurrent_access == 0) return;  // no prefetch there: the pages move on first access
  // A stream of its own that does not wait for the legacy default stream: a persistent
  // kernel may be running there, waiting for the very object being created.
  cudaStream_t stream = nullptr;
  throw_if_failed(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "unisync: cudaStreamCreateWithFlags");
  cudaError_t const prefetched = prefetch(object, bytes, gpu, stream);
  cudaError_t const finished = cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  throw_if_failed(prefetched, "unisync: cudaMemPrefetchAsync(device)");
  throw_if_failed(finished, "unisync: cudaStreamSynchronize after cudaMemPrefetchAsync");
}

}  // namespace

void advise_managed(void const* object, std::size_t bytes, memory_advice advice, int device)
{
  if (advice == memory_advice::none) return;
  cudaMemLocation const host{cudaMemLocationTypeHost, 0};
  cudaMemLocation const gpu{cudaMemLocationTypeDevice, resolve_device(device)};
  if (advice == memory_advice::prefer_host) {
    throw_if_failed(advise(object, bytes, cudaMemAdviseSetPreferredLocation, host),
                    "unisync: cudaMemAdvise(SetPreferredLocation, host)");
    throw_if_failed(advise(object, bytes, cudaMemAdviseSetAccessedBy, gpu),
                    "unisync: cudaMemAdvise(SetAccessedBy, device)");
  } else {
    throw_if_failed(advise(object, bytes, cudaMemAdviseSetPreferredLocation, gpu),
                    "unisync: cudaMemAdvise(SetPreferredLocation, device)");
    // The host constructed the object, so its pages are on the host: move them now, or the
    // first GPU access faults and migrates them (tens of microseconds) inside the first
    // lock or arrival, while the CPU side runs on unopposed.
    prefetch_to(object, bytes, gpu);
  }
}

}  // namespace unisync::detail
