#include "grid_barriers.hpp"

#include "../mix/registry.hpp"
#include "../mix/runners.cuh"

#include <cooperative_groups.h>

#include <chrono>

namespace unisync::bench {
namespace {

namespace cg = cooperative_groups;

/// Thread 0 of the grid decides: the same stop agreement as the barrier cases.
__global__ void grid_sync_actors(gpu_control* control, phase_loop loop)
{
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) atomicAdd(&control->ready, 1u);
  while (load_relaxed(control->go) == 0) __nanosleep(1000);
  loop.run([&] { grid.sync(); }, grid.thread_rank() == 0);
}

void run_grid_sync(benchmark::State& state, mix_cell const& cell)
{
  try {
    window_control control(true);
    phase_loop const loop{control.agreement(), phase_check_interval(cell)};
    std::atomic<bool> unused_stop{false};
    gpu_control* words = control.device_words();
    phase_loop loop_argument = loop;
    auto launch = [&] {
      void* arguments[] = {&words, &loop_argument};
      cudaLaunchCooperativeKernel(reinterpret_cast<void const*>(grid_sync_actors), dim3(cell.gpu_blocks),
                                  dim3(cell.gpu_threads), arguments, 0, control.kernel_stream());
    };
    for (auto _ : state) {
      double const window = detail::run_window(state, control, cell, detail::window_plan{cell.gpu_blocks, true},
                                               launch, [](unsigned) {}, unused_stop);
      state.SetIterationTime(window > 0 ? window : 1e-9);
      if (window > 0) report_phases(state, control.phases()->last_phase, window);
    }
  } catch (std::exception const& failure) {
    state.SkipWithError(failure.what());
  }
}

__global__ void empty_phase() {}

/// Each phase is one launch of an empty kernel of the cell's shape: the kernel boundary
/// is the barrier. Launches are queued in batches and the stream drained, so the figure
/// is the steady-state cost of a boundary, launch overhead included.
void run_relaunch(benchmark::State& state, mix_cell const& cell)
{
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    state.SkipWithError("cudaStreamCreate failed");
    return;
  }
  constexpr unsigned batch = 256;
  for (auto _ : state) {
    std::uint64_t phases = 0;
    empty_phase<<<cell.gpu_blocks, cell.gpu_threads, 0, stream>>>();
    cudaStreamSynchronize(stream);
    auto const start = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
      for (unsigned launch = 0; launch < batch; ++launch) empty_phase<<<cell.gpu_blocks, cell.gpu_threads, 0, stream>>>();
      cudaStreamSynchronize(stream);
      phases += batch;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < settings().window_seconds);
    if (cudaError_t const status = cudaGetLastError(); status != cudaSuccess) {
      state.SkipWithError(cudaGetErrorString(status));
      break;
    }
    state.SetIterationTime(elapsed);
    report_phases(state, phases, elapsed);
  }
  cudaStreamDestroy(stream);
}

}  // namespace

void declare_grid_barrier_peers(std::vector<mix_cell> const& cells)
{
  declare({"barrier", "cg.grid_sync", "mode:block/scope:device", sides::device_only}, cells, run_grid_sync);
  declare({"barrier", "kernel_relaunch", "mode:block/scope:device", sides::device_only}, cells, run_relaunch);
}

}  // namespace unisync::bench
