// Barrier cases, block-collective and per-thread arrival, 128 threads per block: our
// central and partitioned barriers beside libcu++'s cuda::barrier (at system and device scope), std::barrier on
// CPU cells, and cooperative groups' grid.sync() and kernel relaunch on GPU cells.
// Every GPU thread counts as a participant in both modes.

#include "cases.hpp"

#include "../mix/registry.hpp"
#include "../mix/runners.cuh"
#include "../peers/grid_barriers.hpp"
#include "../peers/std_peers.hpp"

#include <unisync/barrier.hpp>
#include <unisync/partitioned_barrier.hpp>

#include <cooperative_groups.h>
#include <cuda/barrier>

#include <utility>

namespace unisync::bench {
namespace {

enum class arrival { block, thread };

inline std::ptrdiff_t participants(mix_cell const& cell)
{
  return static_cast<std::ptrdiff_t>(cell.cpu_threads + cell.gpu_blocks * cell.gpu_threads);
}

/// Our barriers (central and partitioned) share one case: both take the group overload.
template <class Barrier, arrival Mode>
struct unisync_barrier_case {
  using object = Barrier;
  static constexpr bool on_host = true;
  static constexpr bool on_device = true;
  static constexpr bool advised = advises_itself<Barrier>;
  static placed_ptr<object> create(mix_cell const& cell) { return place_for<object>(cell, participants(cell)); }
  static void arrive_and_wait_cpu(object& shared) { shared.arrive_and_wait(); }
  __device__ static void arrive_and_wait_gpu(object& shared)
  {
    if constexpr (Mode == arrival::block) {
      shared.arrive_and_wait(cooperative_groups::this_thread_block());
    } else {
      shared.arrive_and_wait();
    }
  }
};

/// libcu++'s barrier used the way a libcu++ user would for a block: the block counts
/// itself, one thread arrives for all of it and waits, the block synchronizes.
template <cuda::thread_scope Scope, arrival Mode>
struct libcudacxx_barrier_case {
  using object = cuda::barrier<Scope>;
  static constexpr bool on_host = true;
  static constexpr bool on_device = true;
  static placed_ptr<object> create(mix_cell const& cell) { return place_for<object>(cell, participants(cell)); }
  static void arrive_and_wait_cpu(object& shared) { shared.arrive_and_wait(); }
  __device__ static void arrive_and_wait_gpu(object& shared)
  {
    if constexpr (Mode == arrival::block) {
      __syncthreads();
      if (threadIdx.x == 0) shared.wait(shared.arrive(blockDim.x));
      __syncthreads();
    } else {
      shared.arrive_and_wait();
    }
  }
};

template <class Case>
void declare_phases(case_declaration const& declaration, std::vector<mix_cell> const& cells)
{
  declare(declared_for<Case>(declaration), cells,
          [](benchmark::State& state, mix_cell const& cell) { run_phases<Case>(state, cell); });
}

template <arrival Mode>
void declare_for_mode(std::vector<mix_cell> const& cells, bool has_gpu)
{
  constexpr auto system = cuda::thread_scope_system;
  std::string const mode = Mode == arrival::block ? "mode:block" : "mode:thread";
  declare_phases<unisync_barrier_case<unisync::basic_barrier<system>, Mode>>(
      {"barrier", "unisync.barrier", mode + "/scope:system"}, cells);
  declare_phases<unisync_barrier_case<unisync::basic_partitioned_barrier<>, Mode>>(
      {"barrier", "unisync.partitioned_barrier", mode + "/scope:system"}, cells);
  declare_phases<libcudacxx_barrier_case<system, Mode>>({"barrier", "cuda.barrier", mode + "/scope:system"}, cells);
  if (has_gpu) {
    constexpr auto device = cuda::thread_scope_device;
    declare_phases<unisync_barrier_case<unisync::basic_barrier<device>, Mode>>(
        {"barrier", "unisync.barrier", mode + "/scope:device", sides::device_only}, cells);
    declare_phases<libcudacxx_barrier_case<device, Mode>>(
        {"barrier", "cuda.barrier", mode + "/scope:device", sides::device_only}, cells);
  }
}

}  // namespace

void declare_barrier_cases(case_set set, grid_limits const& limits)
{
  auto const cells = contention_grid(set, limits, 128);
  declare_for_mode<arrival::block>(cells, limits.has_gpu);
  declare_for_mode<arrival::thread>(cells, limits.has_gpu);
  // CPU-only cells have no GPU arrivals: std::barrier is listed under block mode only.
  declare_phases<std_barrier_case>({"barrier", "std.barrier", "mode:block/scope:host", sides::host_only}, cells);
  if (limits.has_gpu) declare_grid_barrier_peers(cells);
}

}  // namespace unisync::bench
