#include "control.hpp"

#include "stop_agreement.hpp"

#include <unisync/error.hpp>
#include <unisync/managed.hpp>

#include <cuda/atomic>

#include <chrono>
#include <string>
#include <thread>

namespace unisync::bench {
namespace {

void check(cudaError_t status, char const* what)
{
  if (status != cudaSuccess) throw unisync::error(std::string(what) + ": " + cudaGetErrorString(status), status);
}

}  // namespace

window_control::window_control(bool with_gpu) : with_gpu_(with_gpu)
{
  if (!with_gpu_) {
    last_phase_for_gpu_ = new unsigned(phase_control::never);
    phases_ = new phase_control{0, phase_control::never};
    return;
  }
  check(cudaMalloc(reinterpret_cast<void**>(&device_words_), sizeof(gpu_control)), "cudaMalloc(gpu_control)");
  check(cudaMemset(device_words_, 0, sizeof(gpu_control)), "cudaMemset(gpu_control)");
  check(cudaHostAlloc(reinterpret_cast<void**>(&phases_), sizeof(phase_control), cudaHostAllocMapped), "cudaHostAlloc(phase_control)");
  check(cudaMallocManaged(reinterpret_cast<void**>(&last_phase_for_gpu_), sizeof(unsigned)),
        "cudaMallocManaged(last phase)");
  *last_phase_for_gpu_ = phase_control::never;
  unisync::detail::advise_managed(last_phase_for_gpu_, sizeof(unsigned), unisync::memory_advice::prefer_device, 0);
  *phases_ = phase_control{0, phase_control::never};
  check(cudaHostAlloc(reinterpret_cast<void**>(&staging_), 2 * sizeof(unsigned), cudaHostAllocDefault), "cudaHostAlloc(staging)");
  check(cudaStreamCreateWithFlags(&kernel_stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaStreamCreateWithFlags(&signal_stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

window_control::~window_control()
{
  if (!with_gpu_) {
    delete phases_;
    delete last_phase_for_gpu_;
    return;
  }
  cudaStreamDestroy(signal_stream_);
  cudaStreamDestroy(kernel_stream_);
  cudaFreeHost(staging_);
  cudaFreeHost(phases_);
  cudaFree(last_phase_for_gpu_);
  cudaFree(device_words_);
}

phase_agreement window_control::agreement() const
{
  return phase_agreement{phases_, last_phase_for_gpu_, with_gpu_ ? &device_words_->stop : nullptr};
}

bool window_control::wait_for_gpu_actors(unsigned actors)
{
  for (;;) {
    check(cudaMemcpyAsync(&staging_[1], &device_words_->ready, sizeof(unsigned), cudaMemcpyDeviceToHost,
                          signal_stream_),
          "cudaMemcpyAsync(ready)");
    check(cudaStreamSynchronize(signal_stream_), "cudaStreamSynchronize");
    if (staging_[1] >= actors) return true;
    cudaError_t const kernel = cudaStreamQuery(kernel_stream_);
    if (kernel != cudaErrorNotReady) return false;  // the kernel ended (failed) before every actor was ready
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void window_control::write_word(unsigned* word, unsigned value)
{
  staging_[0] = value;
  check(cudaMemcpyAsync(word, &staging_[0], sizeof(unsigned), cudaMemcpyHostToDevice, signal_stream_),
        "cudaMemcpyAsync(signal)");
  check(cudaStreamSynchronize(signal_stream_), "cudaStreamSynchronize");
}

void window_control::signal_go()
{
  if (with_gpu_) write_word(&device_words_->go, 1);
}

void window_control::signal_stop()
{
  cuda::atomic_ref<unsigned, cuda::thread_scope_system>(phases_->stop_requested)
      .store(1, cuda::std::memory_order_relaxed);
  if (with_gpu_) write_word(&device_words_->stop, 1);
}

std::string window_control::kernel_failure() const
{
  if (!with_gpu_) return {};
  cudaError_t const status = cudaStreamQuery(kernel_stream_);
  if (status == cudaSuccess || status == cudaErrorNotReady) return {};
  return std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
}

cudaError_t window_control::finish()
{
  if (!with_gpu_) return cudaSuccess;
  cudaError_t const status = cudaStreamSynchronize(kernel_stream_);
  return status == cudaSuccess ? cudaGetLastError() : status;
}

}  // namespace unisync::bench
