#pragma once

#include <string>

namespace unisync {

/// Names the CUDA device that is current for the calling host thread.
inline constexpr int current_device = -1;

/**
 * @brief What a GPU and its link to the host can do, as far as sharing synchronization
 * objects is concerned.
 */
struct gpu_capabilities {
  /// The CUDA device number.
  int device = 0;
  /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
  std::string name;
  /// Compute capability, major part (9 for sm_90).
  int compute_capability_major = 0;
  /// Compute capability, minor part.
  int compute_capability_minor = 0;
  /// Number of streaming multiprocessors (SMs).
  int multiprocessor_count = 0;
  /// The GPU and the CPU may access managed memory at the same time (needed for every
  /// CPU+GPU use of a unisync object).
  bool concurrent_managed_access = false;
  /// The link supports atomics that are atomic with respect to the CPU's (NVLink-C2C).
  /// When false (PCIe), GPU read-modify-writes on pinned host memory are not atomic with
  /// respect to CPU atomics.
  bool host_native_atomic_supported = false;
  /// The GPU can access pageable (malloc'd) host memory coherently (HMM or ATS).
  bool pageable_memory_access = false;
  /// Cooperative launches (grid.sync()) are supported.
  bool cooperative_launch = false;
};

/// True when a CUDA device can be used; false, never an exception, on a machine without a
/// GPU or without a driver.
[[nodiscard]] bool gpu_available() noexcept;

/// Queries `device` (the current device by default). Throws unisync::error when the query
/// fails, e.g. when no GPU is available.
[[nodiscard]] gpu_capabilities device_capabilities(int device = current_device);

}  // namespace unisync
