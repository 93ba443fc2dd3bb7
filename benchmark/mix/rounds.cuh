#pragma once
// The round loop of single-use objects (latches): a round is every participant counting
// down once on a fresh object and waiting for it to release. A latch cannot be reset
// while anyone might still be inside it, so a case holds one object per round (a ring of
// `rounds_per_window`, placed once), and every participant runs every round: the window
// lasts from the start signal until the last participant has left the last round, and
// us_per_round is its length over the rounds. A round's time is the release (the last
// count_down until the last waiter leaves) plus the turnaround (a released participant's
// way to its count_down of the next round), so it bounds the release latency from above.
// In cells with GPU actors the release is also measured on its own: each CPU thread and
// each GPU warp stamps, on one clock (examples/gpu_clock.cuh), when it starts its
// count_down and when its wait has returned; a round's release is its last release less
// its last count_down start (so it includes that count_down's own cost).
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

#include "../../examples/gpu_clock.cuh"

#include <unisync/co_resident_launch.hpp>
#include <unisync/detail/managed_memory.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

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

/// When one actor (a CPU thread, a GPU warp) started its count_down of a round and when
/// its wait returned, on the GPU's clock.
struct round_stamps {
  std::uint64_t counted_ns;
  std::uint64_t released_ns;
};

__host__ __device__ inline unsigned warps_per_block(unsigned threads) { return (threads + 31) / 32; }

/// Every GPU thread runs every round; thread 0 of each block signals ready. Lane 0 of each
/// warp stamps the round (`stamps`: rounds_per_window rows of one entry per warp): before
/// the warp's count_downs, and once every lane's wait has returned; the warp syncs around
/// the stamps so that its lanes still call the latch together.
template <class Case>
__global__ void round_actors(typename Case::object* object, gpu_control* control, round_stamps* stamps)
{
  if (threadIdx.x == 0) atomicAdd(&control->ready, 1u);
  while (load_relaxed(control->go) == 0) __nanosleep(1000);
  unsigned const warps = warps_per_block(blockDim.x);
  unsigned const warp = blockIdx.x * warps + threadIdx.x / 32;
  bool const stamps_warp = threadIdx.x % 32 == 0;
  for (unsigned round = 0; round < rounds_per_window; ++round) {
    round_stamps& stamp = stamps[round * gridDim.x * warps + warp];
    if (stamps_warp) stamp.counted_ns = gpu_clock::gpu_clock_ns(0);
    __syncwarp();
    Case::arrive_and_wait_gpu(*object, round);
    __syncwarp();
    if (stamps_warp) stamp.released_ns = gpu_clock::gpu_clock_ns(0);
  }
}

/// The stamps of one window: the GPU's in device memory, the CPU's on the host.
class window_stamps {
 public:
  explicit window_stamps(mix_cell const& cell)
      : gpu_actors_(cell.gpu_blocks * warps_per_block(cell.gpu_threads)),
        cpu_(static_cast<std::size_t>(rounds_per_window) * cell.cpu_threads)
  {
    if (gpu_actors_ > 0 && cudaMalloc(&gpu_, gpu_bytes()) != cudaSuccess) {
      throw unisync::error("cudaMalloc of the latch rounds' stamps failed");
    }
  }
  ~window_stamps() { cudaFree(gpu_); }
  window_stamps(window_stamps const&) = delete;
  window_stamps& operator=(window_stamps const&) = delete;

  [[nodiscard]] round_stamps* gpu() const { return gpu_; }
  [[nodiscard]] round_stamps& cpu(unsigned actor, unsigned round)
  {
    // Each thread's rounds are contiguous: threads do not share the lines they stamp.
    return cpu_[static_cast<std::size_t>(actor) * rounds_per_window + round];
  }

  /// Appends each round's release (µs: its last release less its last count_down start),
  /// and in cells with actors on both sides each side's (its last release less the last
  /// count_down start of either side): which side's waiters end the round.
  void collect_releases(std::vector<double>& releases_us, std::vector<double>& gpu_releases_us,
                        std::vector<double>& cpu_releases_us) const
  {
    std::vector<round_stamps> gpu(static_cast<std::size_t>(rounds_per_window) * gpu_actors_);
    if (gpu_actors_ > 0 && cudaMemcpy(gpu.data(), gpu_, gpu_bytes(), cudaMemcpyDeviceToHost) != cudaSuccess) {
      throw unisync::error("copying the latch rounds' stamps from the GPU failed");
    }
    std::size_t const cpu_actors = cpu_.size() / rounds_per_window;
    for (std::size_t round = 0; round < rounds_per_window; ++round) {
      std::uint64_t last_counted = 0;
      std::uint64_t last_released[2] = {0, 0};  // GPU, CPU
      auto take = [&](round_stamps const& stamp, int side) {
        last_counted = std::max(last_counted, stamp.counted_ns);
        last_released[side] = std::max(last_released[side], stamp.released_ns);
      };
      for (std::size_t actor = 0; actor < gpu_actors_; ++actor) take(gpu[round * gpu_actors_ + actor], 0);
      for (std::size_t actor = 0; actor < cpu_actors; ++actor) take(cpu_[actor * rounds_per_window + round], 1);
      auto since_last_count_down = [&](std::uint64_t released) {
        return (static_cast<double>(released) - static_cast<double>(last_counted)) / 1e3;
      };
      releases_us.push_back(since_last_count_down(std::max(last_released[0], last_released[1])));
      if (gpu_actors_ > 0 && cpu_actors > 0) {
        gpu_releases_us.push_back(since_last_count_down(last_released[0]));
        cpu_releases_us.push_back(since_last_count_down(last_released[1]));
      }
    }
  }

 private:
  [[nodiscard]] std::size_t gpu_bytes() const
  {
    return static_cast<std::size_t>(rounds_per_window) * gpu_actors_ * sizeof(round_stamps);
  }

  std::size_t gpu_actors_;
  round_stamps* gpu_ = nullptr;
  std::vector<round_stamps> cpu_;
};

/// The counters of a round case: rounds per second and microseconds per round.
inline void report_rounds(benchmark::State& state, std::uint64_t rounds, double window_seconds)
{
  state.counters["rounds_per_s"] = benchmark::Counter(double(rounds), benchmark::Counter::kIsRate);
  state.counters["us_per_round"] = rounds > 0 ? window_seconds * 1e6 / double(rounds) : 0.0;
  state.counters["window_s"] = window_seconds;
}

/// The `fraction` percentile of `values` (not empty), which it reorders.
inline double percentile_of(std::vector<double>& values, double fraction)
{
  auto const at = values.begin() + static_cast<std::ptrdiff_t>(fraction * double(values.size() - 1));
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

/// The release counters: the median and 99th percentile of the rounds' releases, and the
/// median of each side's where both sides have actors.
inline void report_releases(benchmark::State& state, std::vector<double> releases_us,
                            std::vector<double> gpu_releases_us, std::vector<double> cpu_releases_us)
{
  if (releases_us.empty()) return;
  state.counters["release_us"] = percentile_of(releases_us, 0.5);
  state.counters["release_p99_us"] = percentile_of(releases_us, 0.99);
  if (gpu_releases_us.empty() || cpu_releases_us.empty()) return;
  state.counters["release_gpu_us"] = percentile_of(gpu_releases_us, 0.5);
  state.counters["release_cpu_us"] = percentile_of(cpu_releases_us, 0.5);
}

/// Runs a round case in `cell` and reports its rounds.
template <class Case>
void run_rounds(benchmark::State& state, mix_cell const& cell)
{
  try {
    window_control control(cell.has_gpu());
    auto holder = Case::create(cell);
    typename Case::object& object = *holder;
    // Stamped in cells with GPU actors only: CPU-only rounds are a tenth of a microsecond,
    // which two clock reads per round would change.
    bool const stamped = cell.has_gpu();
    window_stamps stamps(cell);
    std::vector<double> releases_us;
    std::vector<double> gpu_releases_us;
    std::vector<double> cpu_releases_us;
    for (auto _ : state) {
      // Measured again for every window, so that the clocks' drift stays below the probe's
      // own error.
      std::int64_t const host_to_gpu_ns = stamped && cell.cpu_threads > 0 ? gpu_clock::clock_offset() : 0;
      if (cell.has_gpu()) {
        if constexpr (Case::on_device) {
          unisync::launch_co_resident(round_actors<Case>, dim3(cell.gpu_blocks), dim3(cell.gpu_threads), 0,
                                      control.kernel_stream(), &object, control.device_words(), stamps.gpu());
        }
        if (cudaError_t const status = cudaGetLastError(); status != cudaSuccess) {
          state.SkipWithError(detail::cuda_failure("kernel launch", status).c_str());
          return;
        }
      }
      cpu_actor_threads cpu_actors(cell.cpu_threads, [&](unsigned actor) {
        if constexpr (Case::on_host) {
          for (unsigned round = 0; round < rounds_per_window; ++round) {
            if (stamped) stamps.cpu(actor, round).counted_ns = gpu_clock::gpu_clock_ns(host_to_gpu_ns);
            Case::arrive_and_wait_cpu(object, round);
            if (stamped) stamps.cpu(actor, round).released_ns = gpu_clock::gpu_clock_ns(host_to_gpu_ns);
          }
        }
      }, [&control] { return control.kernel_failure(); });
      bool const gpu_ready = !cell.has_gpu() || control.wait_for_gpu_actors(cell.gpu_blocks);
      cpu_actors.wait_until_ready();
      if (!gpu_ready) {
        cpu_actors.abandon();
        state.SkipWithError(detail::cuda_failure("GPU actors", control.finish()).c_str());
        return;
      }
      // The GPU's signal first: it takes a copy and a stream synchronization, the CPU's a
      // store; both are inside the window.
      auto const start = std::chrono::steady_clock::now();
      control.signal_go();
      cpu_actors.start();
      cpu_actors.join();
      cudaError_t const finished = control.finish();
      auto const end = std::chrono::steady_clock::now();
      if (finished != cudaSuccess) {
        state.SkipWithError(detail::cuda_failure("GPU actors", finished).c_str());
        return;
      }
      double const window = std::chrono::duration<double>(end - start).count();
      state.SetIterationTime(window);
      report_rounds(state, rounds_per_window, window);
      if (stamped) stamps.collect_releases(releases_us, gpu_releases_us, cpu_releases_us);
    }
    report_releases(state, releases_us, gpu_releases_us, cpu_releases_us);
  } catch (std::exception const& failure) {
    state.SkipWithError(failure.what());
  }
}

}  // namespace unisync::bench
