#pragma once

#include <unisync/capabilities.hpp>

namespace unisync {

/// Who will operate on a synchronization object.
enum class sharing {
  host_only,       ///< CPU threads only.
  device_only,     ///< GPU threads only.
  host_and_device  ///< CPU threads and GPU threads, concurrently.
};

/**
 * @brief Refuses memory where the given sharing would hang or lose updates.
 *
 * For `host_and_device` it accepts managed memory (`make_managed`, `cudaMallocManaged`)
 * and pageable memory on a GPU with `pageableMemoryAccess`, and refuses: pinned host
 * memory (`cudaHostAlloc`, `cudaHostRegister`) on a GPU without
 * `hostNativeAtomicSupported` (over PCIe the GPU's read-modify-writes there are not
 * atomic with respect to the CPU's: ticket locks hang, counters lose updates), device
 * memory (`cudaMalloc`: the CPU cannot reach it), and pageable memory without
 * `pageableMemoryAccess`. For `device_only` it refuses pageable memory the GPU cannot
 * reach; for `host_only`, device memory.
 *
 * @throw unisync::error with a message that says what to use instead; also when
 *        `sharing` involves the device and no GPU is available.
 */
void check_placement(void const* object, sharing who, int device = current_device);

}  // namespace unisync
