#include <unisync/placement.hpp>

#include <unisync/capabilities.hpp>
#include <unisync/error.hpp>

#include "cuda_call.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace unisync {
namespace {

cudaMemoryType memory_type_of(void const* object)
{
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, object) != cudaSuccess) {
    // Pre-11 runtimes report unregistered host memory as an error.
    cudaGetLastError();
    return cudaMemoryTypeUnregistered;
  }
  return attributes.type;
}

[[noreturn]] void refuse(std::string const& why) { throw error("unisync::check_placement: " + why); }

}  // namespace

void check_placement(void const* object, sharing who, int device)
{
  if (object == nullptr) refuse("the object pointer is null.");
  bool const has_gpu = gpu_available();
  if (who == sharing::host_only && !has_gpu) return;  // without a GPU all memory is host memory
  if (!has_gpu) {
    refuse("no CUDA GPU is available, so no placement can be shared with the device; use sharing::host_only.");
  }
  gpu_capabilities const gpu = device_capabilities(device);
  std::string const on_gpu = " on GPU " + std::to_string(gpu.device) + " (" + gpu.name + ")";

  switch (memory_type_of(object)) {
    case cudaMemoryTypeManaged:
      if (who == sharing::host_and_device && !gpu.concurrent_managed_access) {
        refuse("managed memory" + on_gpu +
               " cannot be accessed by CPU and GPU at the same time (concurrentManagedAccess is 0); "
               "share the object only between kernels, or use a GPU with concurrent managed access.");
      }
      return;
    case cudaMemoryTypeDevice:
      if (who == sharing::device_only) return;
      refuse("the object is in device memory (cudaMalloc), which CPU threads cannot access; allocate it with "
             "unisync::make_managed (or cudaMallocManaged) to share it with the host.");
    case cudaMemoryTypeHost:
      if (who != sharing::host_and_device || gpu.host_native_atomic_supported) return;
      refuse("the object is in pinned host memory (cudaHostAlloc/cudaHostRegister), and" + on_gpu +
             " the link has no native host atomics (hostNativeAtomicSupported is 0): the GPU's read-modify-write "
             "atomics there are not atomic with respect to the CPU's, so locks hang and counters lose updates. "
             "Allocate the object with unisync::make_managed (managed memory) instead.");
    case cudaMemoryTypeUnregistered:
    default:
      if (who == sharing::host_only || gpu.pageable_memory_access) return;
      refuse("the object is in pageable host memory (stack, malloc or new), which" + on_gpu +
             " cannot access (pageableMemoryAccess is 0). Allocate it with unisync::make_managed instead.");
  }
}

}  // namespace unisync
