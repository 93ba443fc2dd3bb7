#pragma once
// Internal to the host library: turns a failed CUDA runtime call into unisync::error.

#include <unisync/error.hpp>

#include <cuda_runtime_api.h>

#include <string>

namespace unisync::detail {

inline void throw_if_failed(cudaError_t status, char const* what)
{
  if (status != cudaSuccess) {
    throw error(std::string(what) + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")",
                status);
  }
}

inline int resolve_device(int device)
{
  if (device >= 0) return device;
  int current = 0;
  throw_if_failed(cudaGetDevice(&current), "cudaGetDevice");
  return current;
}

}  // namespace unisync::detail
