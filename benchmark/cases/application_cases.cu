// Application workloads: what users share synchronization primitives for, each against
// what they would do without unisync, in the same run. The workloads' code is the
// examples' (examples/*.cuh), so that the figures time the programs the tests check.
//
// Names: application/workload:<w>/impl:<method>/<parameters>/place:<p>/cpu:<n>/gpu:<b>x<t>.

#include "cases.hpp"

#include "../../examples/jacobi_solver.cuh"
#include "../mix/registry.hpp"

#include <cuda_runtime.h>

#include <string>

namespace unisync::bench {
namespace {

constexpr int solver_iterations = 100;

/// Solves of `solver_iterations` sweeps, repeated for the measurement window, each timed
/// with events on the stream (the reset between solves is not).
void run_solver(benchmark::State& state, int n, jacobi::method chosen)
{
  try {
    jacobi::solver solver(n);
    cudaStream_t stream = nullptr;
    jacobi::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    jacobi::check(cudaEventCreate(&start), "cudaEventCreate");
    jacobi::check(cudaEventCreate(&stop), "cudaEventCreate");
    double seconds = 0;
    std::int64_t solves = 0;
    for (auto _ : state) {
      do {
        solver.reset(stream);
        jacobi::check(cudaEventRecord(start, stream), "cudaEventRecord");
        solver.launch(chosen, solver_iterations, stream);
        jacobi::check(cudaEventRecord(stop, stream), "cudaEventRecord");
        jacobi::check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float milliseconds = 0;
        jacobi::check(cudaEventElapsedTime(&milliseconds, start, stop), "cudaEventElapsedTime");
        seconds += milliseconds * 1e-3;
        ++solves;
      } while (seconds < settings().window_seconds || solves < 3);
      state.SetIterationTime(seconds);
    }
    state.counters["iterations_per_s"] = seconds > 0 ? double(solves) * solver_iterations / seconds : 0.0;
    state.counters["us_per_iteration"] = solves > 0 ? seconds * 1e6 / (double(solves) * solver_iterations) : 0.0;
    state.counters["blocks"] = solver.persistent_blocks();
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
  } catch (std::exception const& failure) {
    state.SkipWithError(failure.what());
  }
}

void declare_solver_cases(case_set set)
{
  std::vector<int> sizes = {256, 1024, 4096};
  if (set == case_set::short_set) sizes = {256};
  for (jacobi::method const chosen :
       {jacobi::method::unisync_barrier, jacobi::method::grid_sync, jacobi::method::relaunch}) {
    for (int const n : sizes) {
      // The block count the persistent kernels use is a property of the grid, reported as
      // a counter; the name keeps the schema's gpu field at the block shape.
      std::string const name = "application/workload:solver/impl:" + std::string(jacobi::name_of(chosen)) +
                                "/size:" + std::to_string(n) + "/iterations:" + std::to_string(solver_iterations) +
                                "/place:device/cpu:0/gpu:0x" + std::to_string(jacobi::solver::threads_per_block);
      register_case(name, [n, chosen](benchmark::State& state) { run_solver(state, n, chosen); });
    }
  }
}

}  // namespace

void declare_application_cases(case_set set, grid_limits const& limits)
{
  if (!limits.has_gpu) return;
  declare_solver_cases(set);
}

}  // namespace unisync::bench
