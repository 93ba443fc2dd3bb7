#pragma once

#include <unisync/capabilities.hpp>
#include <unisync/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

namespace unisync {

/**
 * @brief How many blocks of `kernel` with `block_size` threads and `dynamic_smem_bytes`
 * of dynamic shared memory can be resident on `device` at once.
 *
 * A barrier that spans the blocks of one kernel deadlocks when some blocks cannot become
 * resident while the others wait for them: never launch more blocks than this.
 * @throw unisync::error when the occupancy query fails.
 */
int max_resident_blocks(void const* kernel, int block_size, std::size_t dynamic_smem_bytes = 0,
                        int device = current_device);

template <class... Params>
int max_resident_blocks(void (*kernel)(Params...), int block_size, std::size_t dynamic_smem_bytes = 0,
                        int device = current_device)
{
  return max_resident_blocks(reinterpret_cast<void const*>(kernel), block_size, dynamic_smem_bytes, device);
}

namespace detail {
/// @throw unisync::error naming both numbers when `grid_blocks` exceeds the resident limit.
void check_co_resident(void const* kernel, unsigned grid_blocks, int block_size, std::size_t dynamic_smem_bytes);
void check_launch(cudaError_t status);
}  // namespace detail

/**
 * @brief Launches `kernel` like `kernel<<<grid, block, dynamic_smem_bytes, stream>>>(args...)`
 * after checking that every block can be resident at once, which a barrier spanning the
 * grid needs. Refuses a larger grid with unisync::error instead of launching a kernel
 * that would deadlock.
 */
template <class... Params, class... Args>
void launch_co_resident(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t dynamic_smem_bytes,
                        cudaStream_t stream, Args&&... args)
{
  static_assert(sizeof...(Params) == sizeof...(Args), "launch_co_resident: wrong number of kernel arguments");
  void const* const entry = reinterpret_cast<void const*>(kernel);
  detail::check_co_resident(entry, grid.x * grid.y * grid.z, static_cast<int>(block.x * block.y * block.z),
                            dynamic_smem_bytes);
  std::tuple<std::decay_t<Params>...> values(std::forward<Args>(args)...);
  std::apply(
      [&](auto&... value) {
        void* arguments[] = {static_cast<void*>(&value)..., nullptr};
        detail::check_launch(cudaLaunchKernel(entry, grid, block, arguments, dynamic_smem_bytes, stream));
      },
      values);
}

}  // namespace unisync
