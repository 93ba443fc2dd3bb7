#pragma once
// The start and stop signals of a window. GPU actors poll words in device memory (an L2
// hit), which the host writes with copies on a stream of its own while the persistent
// kernel runs; CPU actors poll host atomics. Barrier cases agree on their last phase
// through `phase_control`, which both sides can reach.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace unisync::bench {

/// In device memory. Written by the host (go, stop) and by GPU actors (ready).
struct gpu_control {
  unsigned go;
  unsigned stop;
  unsigned ready;
};

struct phase_agreement;

/// The host's words of the stop agreement (stop_agreement.hpp): pinned host memory with a
/// GPU, ordinary memory without one. `stop_requested` is written by the host (a GPU
/// decider reads gpu_control::stop instead); the last phase by the decider participant,
/// once, choosing a phase at least two check intervals ahead. It writes two copies, so that
/// each side polls a word in its own memory: `last_phase` here for CPU participants, a copy
/// in managed memory preferring the GPU for GPU ones. Polling the pinned copy from every GPU
/// block cost tens of microseconds per phase.
struct phase_control {
  static constexpr unsigned never = 0xffffffffu;
  unsigned stop_requested;
  unsigned last_phase;
};

/// Owns the device words, the host-reachable phase control and the two streams of a
/// window. Without a GPU only the phase control exists.
class window_control {
 public:
  explicit window_control(bool with_gpu);
  ~window_control();
  window_control(window_control const&) = delete;
  window_control& operator=(window_control const&) = delete;

  [[nodiscard]] gpu_control* device_words() const { return device_words_; }
  [[nodiscard]] phase_control* phases() const { return phases_; }
  /// Where each side reads the stop agreement: see stop_agreement.hpp.
  [[nodiscard]] phase_agreement agreement() const;
  [[nodiscard]] cudaStream_t kernel_stream() const { return kernel_stream_; }

  /// Blocks until `actors` GPU actors have signalled ready; false if the kernel failed.
  bool wait_for_gpu_actors(unsigned actors);
  void signal_go();
  void signal_stop();
  /// Waits for the persistent kernel; returns its status.
  cudaError_t finish();
  /// Never waits: how the persistent kernel failed, or an empty string while it runs or
  /// after it finished well (a gpu_failure_probe for the CPU actors' join).
  [[nodiscard]] std::string kernel_failure() const;

 private:
  void write_word(unsigned* word, unsigned value);

  bool with_gpu_;
  gpu_control* device_words_ = nullptr;
  phase_control* phases_ = nullptr;
  unsigned* staging_ = nullptr;  // pinned, for the copies
  unsigned* last_phase_for_gpu_ = nullptr;
  cudaStream_t kernel_stream_ = nullptr;
  cudaStream_t signal_stream_ = nullptr;
};

}  // namespace unisync::bench
