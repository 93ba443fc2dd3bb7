#include <unisync/co_resident_launch.hpp>

#include "cuda_call.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace unisync {

int max_resident_blocks(void const* kernel, int block_size, std::size_t dynamic_smem_bytes, int device)
{
  int const gpu = detail::resolve_device(device);
  int per_multiprocessor = 0;
  int multiprocessors = 0;
  int previous = 0;
  detail::throw_if_failed(cudaGetDevice(&previous), "cudaGetDevice");
  detail::throw_if_failed(cudaSetDevice(gpu), "cudaSetDevice");
  cudaError_t const status =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, block_size, dynamic_smem_bytes);
  cudaSetDevice(previous);
  detail::throw_if_failed(status, "unisync::max_resident_blocks: cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  detail::throw_if_failed(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, gpu),
                          "cudaDeviceGetAttribute(MultiProcessorCount)");
  return per_multiprocessor * multiprocessors;
}

namespace detail {

void check_co_resident(void const* kernel, unsigned grid_blocks, int block_size, std::size_t dynamic_smem_bytes)
{
  int const limit = max_resident_blocks(kernel, block_size, dynamic_smem_bytes);
  if (grid_blocks > static_cast<unsigned>(limit)) {
    throw error("unisync::launch_co_resident: a grid of " + std::to_string(grid_blocks) + " blocks of " +
                std::to_string(block_size) + " threads (" + std::to_string(dynamic_smem_bytes) +
                " bytes of dynamic shared memory) cannot be resident at once: at most " + std::to_string(limit) +
                " blocks of this kernel fit on the GPU, and a barrier spanning the grid would deadlock waiting "
                "for blocks that never start. Launch at most " +
                std::to_string(limit) + " blocks (loop over the work inside them).");
  }
}

void check_launch(cudaError_t status) { throw_if_failed(status, "unisync::launch_co_resident: cudaLaunchKernel"); }

}  // namespace detail
}  // namespace unisync
