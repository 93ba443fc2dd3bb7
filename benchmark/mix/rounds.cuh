#pragma once
// The round loop of single-use objects (latches): a round is every participant counting
// down once on a fresh object and waiting for it to release. A latch cannot be reset
// while anyone might still be inside it, so a case holds one object per round (a ring of
// `rounds_per_window`, placed once), and every participant runs every round: the window
// lasts from the start signal until the last participant has left the last round, and
// us_per_round is its length over the rounds. A round's time is the release (the last
// count_down until the last waiter leaves) plus the turnaround (a released participant's
// way to its count_down of the next round), so it bounds the release latency from above.
//
// A case is a type with:
//   using object = ...;                          the ring, placed by the case
//   static holder create(mix_cell);              allocates and constructs it
//   static void arrive_and_wait_cpu(object&, unsigned round);
//   static __device__ void arrive_and_wait_gpu(object&, unsigned round)   (block or per thread)

#include "cell.hpp"
#include "control.hpp"
#include "harness.hpp"
#include "runners.cuh"

#include <unisync/co_resident_launch.hpp>
#include <unisync/detail/managed_memory.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <new>
#include <thread>

namespace unisync::bench {

/// Rounds per window: at 5 us a round, 2.6 ms of rounds against some 20 us of start and
/// stop signalling; few enough that the slowest peer in a mixed cell (hundreds of
/// microseconds a round) still ends in a fraction of a second.
inline constexpr unsigned rounds_per_window = 512;

/// One object per round, each on lines of its own, constructed with the same arguments;
/// make_managed advises each object as its own type asks.
template <class Object>
class object_ring {
 public:
  template <class... Args>
  explicit object_ring(Args const&... args)
  {
    for (auto& slot : slots_) ::new (static_cast<void*>(slot.storage)) Object(args...);
  }
  ~object_ring()
  {
    for (unsigned round = 0; round < rounds_per_window; ++round) at(round).~Object();
  }
  object_ring(object_ring const&) = delete;
  object_ring& operator=(object_ring const&) = delete;

  __host__ __device__ Object& at(unsigned round)
  {
    return *reinterpret_cast<Object*>(static_cast<void*>(slots_[round].storage));
  }

  /// make_managed's placement hook: each object's own, if it has one (else no advice).
  static void advise_placement(object_ring* ring, int device)
  {
    if constexpr (unisync::detail::has_placement_hints<Object>::value) {
      for (unsigned round = 0; round < rounds_per_window; ++round) Object::advise_placement(&ring->at(round), device);
    }
  }

 private:
  static constexpr std::size_t slot_alignment = alignof(Object) > 128 ? alignof(Object) : 128;
  struct alignas(slot_alignment) slot {
    alignas(Object) unsigned char storage[sizeof(Object)];
  };
  slot slots_[rounds_per_window];
};

/// Every GPU thread runs every round; thread 0 of each block signals ready.
template <class Case>
__global__ void round_actors(typename Case::object* object, gpu_control* control)
{
  if (threadIdx.x == 0) atomicAdd(&control->ready, 1u);
  while (load_relaxed(control->go) == 0) __nanosleep(1000);
  for (unsigned round = 0; round < rounds_per_window; ++round) Case::arrive_and_wait_gpu(*object, round);
}

/// The counters of a round case: rounds per second and microseconds per round.
inline void report_rounds(benchmark::State& state, std::uint64_t rounds, double window_seconds)
{
  state.counters["rounds_per_s"] = benchmark::Counter(double(rounds), benchmark::Counter::kIsRate);
  state.counters["us_per_round"] = rounds > 0 ? window_seconds * 1e6 / double(rounds) : 0.0;
  state.counters["window_s"] = window_seconds;
}

/// Runs a round case in `cell` and reports its rounds.
template <class Case>
void run_rounds(benchmark::State& state, mix_cell const& cell)
{
  try {
    window_control control(cell.has_gpu());
    auto holder = Case::create(cell);
    typename Case::object& object = *holder;
    for (auto _ : state) {
      if (cell.has_gpu()) {
        if constexpr (Case::on_device) {
          unisync::launch_co_resident(round_actors<Case>, dim3(cell.gpu_blocks), dim3(cell.gpu_threads), 0,
                                      control.kernel_stream(), &object, control.device_words());
        }
        if (cudaError_t const status = cudaGetLastError(); status != cudaSuccess) {
          state.SkipWithError(detail::cuda_failure("kernel launch", status).c_str());
          return;
        }
      }
      std::atomic<unsigned> cpu_ready{0};
      std::atomic<bool> go{false};
      std::atomic<bool> abandoned{false};  // the GPU actors failed: the CPU's leave at once
      std::thread cpu_side([&] {
        run_cpu_actors(cell.cpu_threads, cpu_ready, go, [&](unsigned) {
          if constexpr (Case::on_host) {
            if (abandoned.load()) return;
            for (unsigned round = 0; round < rounds_per_window; ++round) Case::arrive_and_wait_cpu(object, round);
          }
        });
      });
      bool const gpu_ready = !cell.has_gpu() || control.wait_for_gpu_actors(cell.gpu_blocks);
      while (cpu_ready.load() != cell.cpu_threads) std::this_thread::yield();
      if (!gpu_ready) {
        abandoned.store(true);
        go.store(true, std::memory_order_release);
        cpu_side.join();
        state.SkipWithError(detail::cuda_failure("GPU actors", control.finish()).c_str());
        return;
      }
      // The GPU's signal first: it takes a copy and a stream synchronization, the CPU's a
      // store; both are inside the window.
      auto const start = std::chrono::steady_clock::now();
      control.signal_go();
      go.store(true, std::memory_order_release);
      cpu_side.join();
      cudaError_t const finished = control.finish();
      auto const end = std::chrono::steady_clock::now();
      if (finished != cudaSuccess) {
        state.SkipWithError(detail::cuda_failure("GPU actors", finished).c_str());
        return;
      }
      double const window = std::chrono::duration<double>(end - start).count();
      state.SetIterationTime(window);
      report_rounds(state, rounds_per_window, window);
    }
  } catch (std::exception const& failure) {
    state.SkipWithError(failure.what());
  }
}

}  // namespace unisync::bench
