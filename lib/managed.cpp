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

void advise_managed(void const* object, std::size_t bytes, memory_advice advice, int device)
{
  if (advice == memory_advice::none) return;
  cudaMemLocation const host{cudaMemLocationTypeHost, 0};
  cudaMemLocation const gpu{cudaMemLocationTypeDevice, resolve_device(device)};
  if (advice == memory_advice::prefer_host) {
    throw_if_failed(cudaMemAdvise(object, bytes, cudaMemAdviseSetPreferredLocation, host),
                    "unisync: cudaMemAdvise(SetPreferredLocation, host)");
    throw_if_failed(cudaMemAdvise(object, bytes, cudaMemAdviseSetAccessedBy, gpu),
                    "unisync: cudaMemAdvise(SetAccessedBy, device)");
  } else {
    throw_if_failed(cudaMemAdvise(object, bytes, cudaMemAdviseSetPreferredLocation, gpu),
                    "unisync: cudaMemAdvise(SetPreferredLocation, device)");
  }
}

}  // namespace unisync::detail
