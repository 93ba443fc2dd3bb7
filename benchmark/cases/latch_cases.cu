// Latch cases, block-collective and per-thread count_downs, 128 threads per block: a
// round is every participant counting down once on a fresh latch and waiting for it
// (arrive_and_wait), measured by the round loop (mix/rounds.cuh). Our latch (system
// scope: partitioned, or flat where make_managed chooses it; device scope: one word)
// beside libcu++'s cuda::latch at system and device scope and std::latch on CPU cells.
// Every GPU thread counts as one count_down in both modes.

#include "cases.hpp"

#include "../mix/registry.hpp"
#include "../mix/rounds.cuh"
#include "../peers/std_peers.hpp"

#include <unisync/latch.hpp>

#include <cooperative_groups.h>
#include <cuda/latch>

#include <string>

namespace unisync::bench {
namespace {

enum class arrival { block, thread };

inline std::ptrdiff_t participants(mix_cell const& cell)
{
  return static_cast<std::ptrdiff_t>(cell.cpu_threads + cell.gpu_blocks * cell.gpu_threads);
}

/// Ours: the block counts down once for its threads with the group overload.
template <class Latch, arrival Mode>
struct unisync_latch_case {
  using object = object_ring<Latch>;
  static constexpr bool on_host = true;
  static constexpr bool on_device = true;
  static constexpr bool advised = advises_itself<Latch>;
  static placed_ptr<object> create(mix_cell const& cell) { return place_for<object>(cell, participants(cell)); }
  static void arrive_and_wait_cpu(object& ring, unsigned round) { ring.at(round).arrive_and_wait(); }
  __device__ static void arrive_and_wait_gpu(object& ring, unsigned round)
  {
    if constexpr (Mode == arrival::block) {
      ring.at(round).arrive_and_wait(cooperative_groups::this_thread_block());
    } else {
      ring.at(round).arrive_and_wait();
    }
  }
};

/// libcu++'s latch used the way a libcu++ user would for a block: the block synchronizes,
/// one thread counts down for all of it and waits, the block synchronizes.
template <cuda::thread_scope Scope, arrival Mode>
struct libcudacxx_latch_case {
  using object = object_ring<cuda::latch<Scope>>;
  static constexpr bool on_host = true;
  static constexpr bool on_device = true;
  static placed_ptr<object> create(mix_cell const& cell) { return place_for<object>(cell, participants(cell)); }
  static void arrive_and_wait_cpu(object& ring, unsigned round) { ring.at(round).arrive_and_wait(); }
  __device__ static void arrive_and_wait_gpu(object& ring, unsigned round)
  {
    if constexpr (Mode == arrival::block) {
      __syncthreads();
      if (threadIdx.x == 0) ring.at(round).arrive_and_wait(blockDim.x);
      __syncthreads();
    } else {
      ring.at(round).arrive_and_wait();
    }
  }
};

/// std::latch (C++20, in std_peers.cpp), CPU cells only.
struct std_latch_case {
  using object = std_latch_ring_peer;
  static constexpr bool on_host = true;
  static constexpr bool on_device = false;
  static placed_ptr<object> create(mix_cell const& cell)
  {
    return place_for<object>(cell, static_cast<std::ptrdiff_t>(cell.cpu_threads), rounds_per_window);
  }
  static void arrive_and_wait_cpu(object& ring, unsigned round) { ring.arrive_and_wait(round); }
};

template <class Case>
void declare_rounds(case_declaration const& declaration, std::vector<mix_cell> const& cells)
{
  declare(declared_for<Case>(declaration), cells,
          [](benchmark::State& state, mix_cell const& cell) { run_rounds<Case>(state, cell); });
}

template <arrival Mode>
void declare_for_mode(std::vector<mix_cell> const& cells, bool has_gpu)
{
  constexpr auto system = cuda::thread_scope_system;
  std::string const mode = Mode == arrival::block ? "mode:block" : "mode:thread";
  declare_rounds<unisync_latch_case<unisync::basic_latch<system>, Mode>>(
      {"latch", "unisync.latch", mode + "/scope:system"}, cells);
  declare_rounds<libcudacxx_latch_case<system, Mode>>({"latch", "cuda.latch", mode + "/scope:system"}, cells);
  if (has_gpu) {
    constexpr auto device = cuda::thread_scope_device;
    declare_rounds<unisync_latch_case<unisync::basic_latch<device>, Mode>>(
        {"latch", "unisync.latch", mode + "/scope:device", sides::device_only}, cells);
    declare_rounds<libcudacxx_latch_case<device, Mode>>(
        {"latch", "cuda.latch", mode + "/scope:device", sides::device_only}, cells);
  }
}

}  // namespace

void declare_latch_cases(case_set set, grid_limits const& limits)
{
  auto const cells = contention_grid(set, limits, 128);
  declare_for_mode<arrival::block>(cells, limits.has_gpu);
  declare_for_mode<arrival::thread>(cells, limits.has_gpu);
  // CPU-only cells have no GPU count_downs: std::latch is listed under block mode only.
  declare_rounds<std_latch_case>({"latch", "std.latch", "mode:block/scope:host", sides::host_only}, cells);
}

}  // namespace unisync::bench
