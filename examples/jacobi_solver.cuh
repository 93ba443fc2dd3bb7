#pragma once
// A persistent iterative solver: Jacobi relaxation of Laplace's equation on an n × n grid
// (5-point stencil), one kernel for all iterations, with a grid-wide barrier between
// them. Three ways to separate the iterations, so that they can be compared on one grid:
//   - unisync::basic_barrier at device scope, one arrival per block;
//   - cooperative groups' grid.sync() (a cooperative launch);
//   - the kernel boundary itself: one launch per iteration.
// examples/jacobi_solver.cu runs each against a host reference; the contention binary
// times them (benchmark/cases/application_cases.cu).

#include "cuda_memory.cuh"

#include <unisync/barrier.hpp>
#include <unisync/co_resident_launch.hpp>
#include <unisync/error.hpp>
#include <unisync/managed.hpp>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace jacobi {

namespace cg = cooperative_groups;

/// What separates one iteration from the next.
enum class method { unisync_barrier, grid_sync, relaunch };

inline char const* name_of(method chosen)
{
  switch (chosen) {
    case method::unisync_barrier:
      return "unisync.barrier";
    case method::grid_sync:
      return "cg.grid_sync";
    case method::relaunch:
      return "kernel_relaunch";
  }
  return "?";
}

/// The starting grid: the top edge held at 1, the other edges and the interior at 0.
inline std::vector<float> initial_grid(int n)
{
  std::vector<float> grid(static_cast<std::size_t>(n) * n, 0.0f);
  std::fill(grid.begin(), grid.begin() + n, 1.0f);
  return grid;
}

/// `iterations` sweeps on the host, in the order the GPU adds the four neighbours, so
/// that the two agree to rounding.
inline std::vector<float> host_reference(int n, int iterations)
{
  std::vector<float> from = initial_grid(n);
  std::vector<float> to = from;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    for (int row = 1; row < n - 1; ++row) {
      for (int col = 1; col < n - 1; ++col) {
        std::size_t const at = static_cast<std::size_t>(row) * n + col;
        to[at] = 0.25f * (from[at - n] + from[at + n] + from[at - 1] + from[at + 1]);
      }
    }
    std::swap(from, to);
  }
  return from;
}

/// One sweep of the interior, grid-stride: each thread updates every `threads`-th cell.
/// 32-bit cell numbers (the solver keeps n at most max_side): a 64-bit division per cell
/// costs more than the stencil itself on a grid that fits in L2.
__device__ inline void sweep(float const* from, float* to, int n, unsigned thread, unsigned threads)
{
  auto const interior = static_cast<unsigned>(n - 2);
  for (unsigned cell = thread; cell < interior * interior; cell += threads) {
    std::size_t const at = static_cast<std::size_t>(1 + cell / interior) * n + 1 + cell % interior;
    to[at] = 0.25f * (from[at - n] + from[at + n] + from[at - 1] + from[at + 1]);
  }
}

__device__ inline unsigned global_thread() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline unsigned grid_threads() { return gridDim.x * blockDim.x; }

using grid_barrier = unisync::basic_barrier<cuda::thread_scope_device>;

__global__ void solve_with_barrier(float* a, float* b, int n, int iterations, grid_barrier* barrier)
{
  cg::thread_block const block = cg::this_thread_block();
  for (int iteration = 0; iteration < iterations; ++iteration) {
    sweep(iteration % 2 == 0 ? a : b, iteration % 2 == 0 ? b : a, n, global_thread(), grid_threads());
    barrier->arrive_and_wait(block);  // every block's sweep is done before anyone reads it
  }
}

__global__ void solve_with_grid_sync(float* a, float* b, int n, int iterations)
{
  cg::grid_group const grid = cg::this_grid();
  for (int iteration = 0; iteration < iterations; ++iteration) {
    sweep(iteration % 2 == 0 ? a : b, iteration % 2 == 0 ? b : a, n, global_thread(), grid_threads());
    grid.sync();
  }
}

__global__ void sweep_once(float const* from, float* to, int n) { sweep(from, to, n, global_thread(), grid_threads()); }

inline void check(cudaError_t status, char const* what)
{
  if (status != cudaSuccess) throw unisync::error(std::string(what) + ": " + cudaGetErrorString(status));
}

/// The two grids of one problem in device memory, and the barrier the persistent kernel
/// shares, in the placement make_managed gives it.
class solver {
 public:
  /// The largest grid side: the sweep numbers cells in 32 bits, with room for the stride.
  static constexpr int max_side = 46'000;

  /// Threads per block: the persistent kernels take the widest blocks, so that as few
  /// blocks as possible arrive at the grid-wide barrier each iteration (its cost grows
  /// with the arrivals, a block's __syncthreads much less); a launch per iteration uses
  /// the common 256.
  static constexpr int threads_per_block(method chosen) { return chosen == method::relaunch ? 256 : 1024; }

  explicit solver(int n)
      : n_(check_side(n)),
        bytes_(static_cast<std::size_t>(n) * n * sizeof(float)),
        a_(cuda_memory::allocate_device<float>(static_cast<std::size_t>(n) * n)),
        b_(cuda_memory::allocate_device<float>(static_cast<std::size_t>(n) * n))
  {
    auto const interior = static_cast<long long>(n - 2) * (n - 2);
    auto blocks_for = [&](int threads) { return static_cast<int>(std::max(1ll, (interior + threads - 1) / threads)); };
    int const persistent_threads = threads_per_block(method::unisync_barrier);
    cells_blocks_ = blocks_for(threads_per_block(method::relaunch));
    // A persistent kernel must have every block resident at once; the grid-stride sweep
    // covers the rest.
    int const resident = std::min(unisync::max_resident_blocks(solve_with_barrier, persistent_threads),
                                  unisync::max_resident_blocks(solve_with_grid_sync, persistent_threads));
    persistent_blocks_ = std::min(blocks_for(persistent_threads), resident);
    // A block's arrive_and_wait(block) counts every thread of the block.
    std::ptrdiff_t const participants = static_cast<std::ptrdiff_t>(persistent_blocks_) * persistent_threads;
    barrier_ = unisync::make_managed<grid_barrier>(participants);
  }
  solver(solver const&) = delete;
  solver& operator=(solver const&) = delete;

  /// Both grids back to the starting values (the borders of both stay fixed).
  void reset(cudaStream_t stream)
  {
    std::vector<float> const start = initial_grid(n_);
    check(cudaMemcpyAsync(a_.get(), start.data(), bytes_, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    check(cudaMemcpyAsync(b_.get(), start.data(), bytes_, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }

  /// Queues `iterations` sweeps separated by `chosen` on `stream`.
  void launch(method chosen, int iterations, cudaStream_t stream)
  {
    float* a = a_.get();
    float* b = b_.get();
    switch (chosen) {
      case method::unisync_barrier:
        unisync::launch_co_resident(solve_with_barrier, dim3(persistent_blocks_),
                                    dim3(threads_per_block(method::unisync_barrier)), 0, stream,
                                    a, b, n_, iterations, barrier_.get());
        break;
      case method::grid_sync: {
        void* arguments[] = {&a, &b, &n_, &iterations};
        check(cudaLaunchCooperativeKernel(reinterpret_cast<void const*>(solve_with_grid_sync), dim3(persistent_blocks_),
                                          dim3(threads_per_block(method::grid_sync)), arguments, 0, stream),
              "cudaLaunchCooperativeKernel");
        break;
      }
      case method::relaunch:
        // One thread per cell, as a kernel that is launched per iteration would be written.
        for (int iteration = 0; iteration < iterations; ++iteration) {
          sweep_once<<<cells_blocks_, threads_per_block(method::relaunch), 0, stream>>>(iteration % 2 == 0 ? a : b,
                                                                      iteration % 2 == 0 ? b : a, n_);
        }
        check(cudaGetLastError(), "kernel launch");
        break;
    }
  }

  /// The grid after `iterations` sweeps (call after the stream has drained).
  std::vector<float> result(int iterations) const
  {
    std::vector<float> grid(static_cast<std::size_t>(n_) * n_);
    check(cudaMemcpy(grid.data(), iterations % 2 == 0 ? a_.get() : b_.get(), bytes_, cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    return grid;
  }

  int persistent_blocks() const { return persistent_blocks_; }

 private:
  static int check_side(int n)
  {
    if (n < 3 || n > max_side) {
      throw unisync::error("jacobi::solver: the grid side must be 3 to " + std::to_string(max_side) +
                           " (an interior to sweep, and cell numbers that fit in 32 bits)");
    }
    return n;
  }

  int n_;
  std::size_t bytes_;
  cuda_memory::device_array<float> a_;
  cuda_memory::device_array<float> b_;
  int cells_blocks_ = 1;
  int persistent_blocks_ = 1;
  unisync::managed_ptr<grid_barrier> barrier_;
};

/// The largest difference between two grids.
inline float largest_difference(std::vector<float> const& left, std::vector<float> const& right)
{
  float largest = 0.0f;
  for (std::size_t at = 0; at < left.size(); ++at) largest = std::max(largest, std::fabs(left[at] - right[at]));
  return largest;
}

}  // namespace jacobi
