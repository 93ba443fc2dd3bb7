#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace unisync {

/**
 * @brief The exception unisync host functions throw (the lock wrappers' misuse aside,
 * which throws std::system_error as std's does).
 *
 * `what()` is a full sentence that says what went wrong and what to do instead. `code()`
 * is the CUDA runtime error behind it, or `cudaSuccess` when the cause was not a CUDA
 * call (a violated precondition, an unsafe placement, an oversized grid).
 */
class error : public std::runtime_error {
 public:
  /// `message` is what what() returns; `code` the CUDA error behind it, if any.
  explicit error(std::string const& message, cudaError_t code = cudaSuccess)
      : std::runtime_error(message), code_(code)
  {
  }

  /// The CUDA runtime error that caused this one, or `cudaSuccess`.
  [[nodiscard]] cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

}  // namespace unisync
