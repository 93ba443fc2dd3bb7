#include <unisync/capabilities.hpp>

#include "cuda_call.hpp"

#include <cuda_runtime_api.h>

namespace unisync {

bool gpu_available() noexcept
{
  int count = 0;
  // Without a driver this is cudaErrorInsufficientDriver, not cudaErrorNoDevice: every
  // error means "no usable GPU".
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

gpu_capabilities device_capabilities(int device)
{
  if (!gpu_available()) {
    throw error("unisync::device_capabilities: no CUDA GPU is available (no device, or no driver).",
                cudaErrorNoDevice);
  }
  gpu_capabilities result;
  result.device = detail::resolve_device(device);
  cudaDeviceProp properties{};
  detail::throw_if_failed(cudaGetDeviceProperties(&properties, result.device), "cudaGetDeviceProperties");
  auto attribute = [&](cudaDeviceAttr which, char const* what) {
    int value = 0;
    detail::throw_if_failed(cudaDeviceGetAttribute(&value, which, result.device), what);
    return value;
  };
  result.name = properties.name;
  result.compute_capability_major = properties.major;
  result.compute_capability_minor = properties.minor;
  result.multiprocessor_count = properties.multiProcessorCount;
  result.concurrent_managed_access =
      attribute(cudaDevAttrConcurrentManagedAccess, "cudaDeviceGetAttribute(ConcurrentManagedAccess)") != 0;
  result.host_native_atomic_supported =
      attribute(cudaDevAttrHostNativeAtomicSupported, "cudaDeviceGetAttribute(HostNativeAtomicSupported)") != 0;
  result.pageable_memory_access =
      attribute(cudaDevAttrPageableMemoryAccess, "cudaDeviceGetAttribute(PageableMemoryAccess)") != 0;
  result.cooperative_launch = attribute(cudaDevAttrCooperativeLaunch, "cudaDeviceGetAttribute(CooperativeLaunch)") != 0;
  return result;
}

}  // namespace unisync
