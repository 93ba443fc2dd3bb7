#pragma once
// The two measurement loops every case runs in: operations (lock, semaphore: acquire,
// critical section, release, again until stopped) and phases (barriers: arrive and wait
// until the participants agree to stop). One persistent kernel holds the GPU actors; CPU
// actors are threads pinned near the GPU; both start on one signal.
//
// A case is a type with:
//   using object = ...;                 the shared object, placed by the case
//   static holder create(mix_cell);     allocates and constructs it
//   operations: static __host__ __device__ void acquire(object&), critical_section(object&),
//               release(object&) (host-only or device-only cases may define one side only);
//               or an acquire(object&) that returns a hold, which the loop hands to
//               critical_section(object&, hold) and release(object&, hold)
//   phases:     static void arrive_and_wait_cpu(object&);
//               static __device__ void arrive_and_wait_gpu(object&)   (block or per thread)

#include "cell.hpp"
#include "control.hpp"
#include "harness.hpp"
#include "stop_agreement.hpp"

#include <unisync/co_resident_launch.hpp>
#include <unisync/error.hpp>
#include <unisync/detail/platform.hpp>

#include <cuda/atomic>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace unisync::bench {

/// How often an actor looks at the stop word: bounds the overshoot to one operation plus
/// this, and keeps the look from costing anything measurable.
inline constexpr std::uint64_t stop_check_interval_ns = 20'000;

__device__ inline unsigned load_relaxed(unsigned const& word)
{
  return cuda::atomic_ref<unsigned, cuda::thread_scope_system>(const_cast<unsigned&>(word))
      .load(cuda::std::memory_order_relaxed);
}

/// What acquire() hands to the rest of an operation. The shared-mutex family's cases return
/// whether the operation reads, which the section needs (and a readers-writer release):
/// looked up again in memory, it cost a GPU actor two dependent L2 round trips in each
/// section, and a readers-writer lock two more after it. Cases whose acquire() returns
/// nothing get no_hold.
struct no_hold {};

#pragma nv_exec_check_disable
template <class Case>
__host__ __device__ auto acquire_for_operation(typename Case::object& object)
{
  if constexpr (std::is_void_v<decltype(Case::acquire(object))>) {
    Case::acquire(object);
    return no_hold{};
  } else {
    return Case::acquire(object);
  }
}

#pragma nv_exec_check_disable
template <class Case, class Hold>
__host__ __device__ void finish_operation(typename Case::object& object, Hold const& hold)
{
  if constexpr (std::is_same_v<Hold, no_hold>) {
    Case::critical_section(object);
    Case::release(object);
  } else {
    Case::critical_section(object, hold);
    Case::release(object, hold);
  }
}

/// Every GPU thread is an actor. Each signals ready, waits for go, then loops.
template <class Case>
__global__ void operation_actors(typename Case::object* object, gpu_control* control, actor_result* results)
{
  unsigned const actor = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&control->ready, 1u);
  while (load_relaxed(control->go) == 0) __nanosleep(1000);
  std::uint64_t operations = 0;
  std::uint64_t longest_wait_ns = 0;
  std::uint64_t next_stop_check = 0;
  for (;;) {
    std::uint64_t const start = unisync::detail::monotonic_nanoseconds();
    if (start >= next_stop_check) {
      if (load_relaxed(control->stop) != 0) break;
      next_stop_check = start + stop_check_interval_ns;
    }
    auto const hold = acquire_for_operation<Case>(*object);
    std::uint64_t const waited = unisync::detail::monotonic_nanoseconds() - start;
    if (waited > longest_wait_ns) longest_wait_ns = waited;
    finish_operation<Case>(*object, hold);
    ++operations;
  }
  results[actor] = actor_result{operations, longest_wait_ns};
}

/// The phase loop: participants stop after the phase the decider chose. They read it every
/// `check_interval` phases; it is chosen at least two intervals ahead, so every
/// participant reads it in time.
struct phase_loop {
  phase_agreement agreement;
  unsigned check_interval;

  // Instantiated with host-only lambdas on the host and device lambdas in kernels.
#pragma nv_exec_check_disable
  template <class ArriveAndWait>
  __host__ __device__ std::uint64_t run(ArriveAndWait arrive_and_wait, bool decides) const
  {
    unsigned last = phase_control::never;
    for (unsigned phase = 1;; ++phase) {
      arrive_and_wait();
      if (phase % check_interval == 0) {
        if (decides) decide_last_phase(agreement, phase, check_interval);
        last = last_phase_seen(agreement);
      }
      if (phase == last) return phase;
    }
  }
};

/// Participants look for the last phase every 32 phases; in mixed cells, whose seed-design
/// phases can take milliseconds, every 4, so the window does not outlast its length by much.
inline unsigned phase_check_interval(mix_cell const& cell) { return cell.mixed() ? 4 : 32; }

/// `gpu_decides`: no CPU participant, so thread 0 of block 0 is the decider.
template <class Case>
__global__ void phase_actors(typename Case::object* object, gpu_control* control, phase_loop loop, bool gpu_decides)
{
  if (threadIdx.x == 0) atomicAdd(&control->ready, 1u);
  while (load_relaxed(control->go) == 0) __nanosleep(1000);
  bool const decides = gpu_decides && blockIdx.x == 0 && threadIdx.x == 0;
  loop.run([&] { Case::arrive_and_wait_gpu(*object); }, decides);
}

namespace detail {

inline std::string cuda_failure(char const* what, cudaError_t status)
{
  return std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
}

/// How a window ends: operation actors run until told to stop; barrier participants stop
/// by themselves at the phase they agreed on, so their window lasts until they are done.
struct window_plan {
  unsigned gpu_ready_signals = 0;
  bool actors_stop_by_themselves = false;
};

/// Starts the actors of both sides on one signal, keeps the window open for the set
/// length, closes it, and returns the window's length in seconds (0 after a failure,
/// which is reported on `state`, or thrown by a CUDA call of the signalling).
template <class LaunchGpu, class CpuBody>
double run_window(benchmark::State& state, window_control& control, mix_cell const& cell, window_plan const& plan,
                  LaunchGpu launch_gpu, CpuBody cpu_body, std::atomic<bool>& cpu_stop)
{
  if (cell.has_gpu()) {
    launch_gpu();
    if (cudaError_t const status = cudaGetLastError(); status != cudaSuccess) {
      state.SkipWithError(cuda_failure("kernel launch", status).c_str());
      return 0;
    }
  }
  cpu_actor_threads cpu_actors(cell.cpu_threads, cpu_body, [&control] { return control.kernel_failure(); });
  bool const gpu_ready = !cell.has_gpu() || control.wait_for_gpu_actors(plan.gpu_ready_signals);
  cpu_actors.wait_until_ready();
  if (!gpu_ready) {
    cpu_actors.abandon();
    state.SkipWithError(cuda_failure("GPU actors", control.finish()).c_str());
    return 0;
  }
  auto const start = std::chrono::steady_clock::now();
  cpu_actors.start();
  try {
    control.signal_go();
  } catch (...) {
    cpu_stop.store(true, std::memory_order_relaxed);  // started operation actors stop before the join
    throw;
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(settings().window_seconds));
  cpu_stop.store(true, std::memory_order_relaxed);
  control.signal_stop();
  auto end = std::chrono::steady_clock::now();
  cpu_actors.join();
  cudaError_t const finished = control.finish();
  if (plan.actors_stop_by_themselves) end = std::chrono::steady_clock::now();
  if (finished != cudaSuccess) {
    state.SkipWithError(cuda_failure("GPU actors", finished).c_str());
    return 0;
  }
  return std::chrono::duration<double>(end - start).count();
}

/// Device memory for the GPU actors' results; empty without GPU actors.
class device_results {
 public:
  explicit device_results(unsigned actors) : actors_(actors)
  {
    if (actors_ > 0 && cudaMalloc(&results_, actors_ * sizeof(actor_result)) != cudaSuccess) {
      throw unisync::error("cudaMalloc of the GPU actors' results failed");
    }
  }
  ~device_results() { cudaFree(results_); }
  device_results(device_results const&) = delete;
  device_results& operator=(device_results const&) = delete;

  [[nodiscard]] actor_result* get() const { return results_; }
  [[nodiscard]] std::vector<actor_result> copy_to_host() const
  {
    std::vector<actor_result> host(actors_);
    if (actors_ > 0) cudaMemcpy(host.data(), results_, actors_ * sizeof(actor_result), cudaMemcpyDeviceToHost);
    return host;
  }

 private:
  unsigned actors_;
  actor_result* results_ = nullptr;
};

}  // namespace detail

/// Runs an operation case (lock, semaphore) in `cell` and reports its counters.
template <class Case>
void run_operations(benchmark::State& state, mix_cell const& cell)
{
  try {
    auto holder = Case::create(cell);
    typename Case::object& object = *holder;
    window_control control(cell.has_gpu());
    unsigned const gpu_actors = cell.gpu_blocks * cell.gpu_threads;
    detail::device_results gpu_results(gpu_actors);
    std::vector<actor_result> cpu_results(cell.cpu_threads);
    std::atomic<bool> stop{false};
    auto cpu_body = [&](unsigned actor) {
      if constexpr (Case::on_host) {
        actor_result result;
        while (!stop.load(std::memory_order_relaxed)) {
          auto const start = std::chrono::steady_clock::now();
          auto const hold = acquire_for_operation<Case>(object);
          auto const waited = std::chrono::steady_clock::now() - start;
          result.longest_wait_ns = std::max<std::uint64_t>(
              result.longest_wait_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count());
          finish_operation<Case>(object, hold);
          ++result.operations;
        }
        cpu_results[actor] = result;
      }
    };
    auto launch_gpu = [&] {
      if constexpr (Case::on_device) {
        unisync::launch_co_resident(operation_actors<Case>, dim3(cell.gpu_blocks), dim3(cell.gpu_threads), 0,
                                    control.kernel_stream(), &object, control.device_words(), gpu_results.get());
      }
    };
    for (auto _ : state) {
      double const window =
          detail::run_window(state, control, cell, detail::window_plan{gpu_actors, false}, launch_gpu, cpu_body, stop);
      state.SetIterationTime(window > 0 ? window : 1e-9);
      if (window > 0) report_operations(state, cpu_results, gpu_results.copy_to_host(), window);
    }
  } catch (std::exception const& failure) {
    state.SkipWithError(failure.what());
  }
}

/// Runs a barrier case in `cell` and reports phases.
template <class Case>
void run_phases(benchmark::State& state, mix_cell const& cell)
{
  try {
    window_control control(cell.has_gpu());
    phase_loop const loop{control.agreement(), phase_check_interval(cell)};
    auto holder = Case::create(cell);
    typename Case::object& object = *holder;
    std::atomic<bool> unused_stop{false};
    // CPU actor 0 decides when there are CPU participants, else a GPU thread.
    bool const gpu_decides = cell.cpu_threads == 0;
    auto cpu_body = [&](unsigned actor) {
      if constexpr (Case::on_host) loop.run([&] { Case::arrive_and_wait_cpu(object); }, actor == 0);
    };
    auto launch_gpu = [&] {
      if constexpr (Case::on_device) {
        unisync::launch_co_resident(phase_actors<Case>, dim3(cell.gpu_blocks), dim3(cell.gpu_threads), 0,
                                    control.kernel_stream(), &object, control.device_words(), loop, gpu_decides);
      }
    };
    for (auto _ : state) {
      double const window = detail::run_window(state, control, cell, detail::window_plan{cell.gpu_blocks, true},
                                               launch_gpu, cpu_body, unused_stop);
      state.SetIterationTime(window > 0 ? window : 1e-9);
      unsigned const phases = control.phases()->last_phase;
      if (window > 0) report_phases(state, phases == phase_control::never ? 0 : phases, window);
    }
  } catch (std::exception const& failure) {
    state.SkipWithError(failure.what());
  }
}

}  // namespace unisync::bench
