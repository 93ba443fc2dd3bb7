// Shared mutex cases, 90% and 99% reads: our shared mutex at system scope (side-partitioned,
// its parts advised by make_managed) and at device scope (GPU-only cells), beside
// std::shared_mutex (CPU-only cells) and two locks that take every section exclusively, our
// cohort mutex and libcu++'s binary semaphore: what a user without a readers-writer lock
// shares between CPU and GPU. Each operation draws, per actor, a shared section (lock_shared,
// one load of the counter the mutex protects, unlock_shared) with probability reads/100, else
// an exclusive one (lock, one increment, unlock); the harness's wait is the wait for either.
//
// Cells: CPU threads {0, 1, 4, 15} x GPU blocks of one thread {0, 1, SMs, 4 SMs} (132 and 528
// on the H100) without the empty cell; the short set keeps 4 x SMs, 0 x SMs and 4 x 0.

#include "cases.hpp"

#include "../../examples/striped_table.cuh"
#include "../mix/registry.hpp"
#include "../mix/runners.cuh"
#include "../peers/std_peers.hpp"

#include <unisync/cohort_mutex.hpp>
#include <unisync/error.hpp>
#include <unisync/shared_mutex.hpp>

#include <cuda/semaphore>
#include <cuda_runtime.h>
#include <nv/target>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace unisync::bench {
namespace {

/// One actor's draws: its generator (the striped table's, seeded per actor).
struct section_draw {
  striped_table::key_stream generator;

  /// Draws the next operation: a shared section with probability read_percent / 100.
  __host__ __device__ bool draw(unsigned read_percent) { return generator.next(100) <= read_percent; }
};

/// The calling CPU thread's draws (every case's: a thread runs one operation at a time).
inline section_draw& host_draw()
{
  thread_local section_draw draw{
      striped_table::key_stream(0x9e3779b97f4a7c15ull ^ std::hash<std::thread::id>{}(std::this_thread::get_id()))};
  return draw;
}

/// The calling actor's draws: a CPU thread's own, or the GPU thread's slot in `gpu_draws`.
__host__ __device__ inline section_draw& my_draw(section_draw* gpu_draws)
{
  section_draw* mine = nullptr;
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (mine = &gpu_draws[blockIdx.x * blockDim.x + threadIdx.x];),
                    (static_cast<void>(gpu_draws); mine = &host_draw();))
  return *mine;
}

/// The shared object: the lock with its own advice, the counter it protects on a page of its
/// own without advice (as in the lock family: it moves to the side that touches it), and
/// where the GPU actors keep their draws.
template <class Lock>
struct guarded {
  Lock lock;
  alignas(4096) unsigned long long protected_counter = 0;
  // Device memory, one slot per GPU actor; null without GPU actors. Written once, before the
  // actors start; on a page of its own so that the counter's migrations do not move it.
  alignas(4096) section_draw* gpu_draws = nullptr;

  static void advise_placement(guarded* shared, int device)
  {
    if constexpr (advises_itself<Lock>) Lock::advise_placement(&shared->lock, device);
  }

  /// One load the compiler keeps: what a reader of the protected data does.
  __host__ __device__ void read_counter() const
  {
    static_cast<void>(*static_cast<unsigned long long const volatile*>(&protected_counter));
  }
};

/// Places the object as make_managed places it for a user (CPU-only cells: host memory) and
/// gives each GPU actor its draws, seeded by its index.
template <class Object>
placed_ptr<Object> place_with_draws(mix_cell const& cell)
{
  if (!cell.has_gpu()) return place_for<Object>(cell);
  std::vector<section_draw> seeded;
  unsigned const actors = cell.gpu_blocks * cell.gpu_threads;
  for (unsigned actor = 0; actor < actors; ++actor) seeded.push_back(section_draw{striped_table::key_stream(actor)});
  section_draw* allocated = nullptr;
  if (cudaError_t const status = cudaMalloc(&allocated, actors * sizeof(section_draw)); status != cudaSuccess) {
    throw unisync::error("cudaMalloc of the GPU actors' draws failed", status);
  }
  std::shared_ptr<section_draw> draws(allocated, [](section_draw* gone) { cudaFree(gone); });
  if (cudaError_t const status =
          cudaMemcpy(allocated, seeded.data(), actors * sizeof(section_draw), cudaMemcpyHostToDevice);
      status != cudaSuccess) {
    throw unisync::error("cudaMemcpy of the GPU actors' draws failed", status);
  }
  placed_ptr<Object> placed = place_for<Object>(cell);
  placed->gpu_draws = allocated;
  auto release_object = placed.get_deleter();
  return placed_ptr<Object>(placed.release(), [release_object, draws](Object* gone) { release_object(gone); });
}

/// How a case's sections hold the lock: shared sections shared (a readers-writer lock), or
/// every section exclusively (a lock).
enum class holds { shared_or_exclusive, exclusive_only };

/// Anything with lock()/unlock() (and lock_shared()/unlock_shared() for shared_or_exclusive)
/// on both sides. acquire() draws the operation and returns whether it reads; the loop hands
/// that to the section and the release (runners.cuh), so every case pays the same for its
/// draw.
template <class Lock, holds Holds, unsigned ReadPercent>
struct section_case {
  using object = guarded<Lock>;
  static constexpr bool on_host = true;
  static constexpr bool on_device = true;
  static constexpr bool advised = advises_itself<Lock>;
  static placed_ptr<object> create(mix_cell const& cell) { return place_with_draws<object>(cell); }
  __host__ __device__ static bool acquire(object& shared)
  {
    bool const reading = my_draw(shared.gpu_draws).draw(ReadPercent);
    if constexpr (Holds == holds::shared_or_exclusive) {
      if (reading) {
        shared.lock.lock_shared();
        return true;
      }
    }
    shared.lock.lock();
    return reading;
  }
  __host__ __device__ static void critical_section(object& shared, bool reading)
  {
    if (reading) {
      shared.read_counter();
    } else {
      ++shared.protected_counter;
    }
  }
  __host__ __device__ static void release(object& shared, bool reading)
  {
    if constexpr (Holds == holds::shared_or_exclusive) {
      if (reading) {
        shared.lock.unlock_shared();
        return;
      }
    }
    shared.lock.unlock();
  }
};

/// std::shared_mutex, host only: the same sections as section_case.
template <unsigned ReadPercent>
struct std_shared_mutex_case {
  using object = guarded<std_shared_mutex_peer>;
  static constexpr bool on_host = true;
  static constexpr bool on_device = false;
  static placed_ptr<object> create(mix_cell const& cell) { return place_for<object>(cell); }
  static bool acquire(object& shared)
  {
    bool const reading = host_draw().draw(ReadPercent);
    if (reading) {
      shared.lock.lock_shared();
    } else {
      shared.lock.lock();
    }
    return reading;
  }
  static void critical_section(object& shared, bool reading)
  {
    if (reading) {
      shared.read_counter();
    } else {
      ++shared.protected_counter;
    }
  }
  static void release(object& shared, bool reading)
  {
    if (reading) {
      shared.lock.unlock_shared();
    } else {
      shared.lock.unlock();
    }
  }
};

/// libcu++ has no mutex: its binary semaphore is what a libcu++ user would lock with.
template <cuda::thread_scope Scope>
struct libcudacxx_semaphore_lock {
  cuda::binary_semaphore<Scope> semaphore{1};
  __host__ __device__ void lock() { semaphore.acquire(); }
  __host__ __device__ void unlock() { semaphore.release(); }
};

template <class Case>
void declare_operations(case_declaration const& declaration, std::vector<mix_cell> const& cells)
{
  declare(declared_for<Case>(declaration), cells,
          [](benchmark::State& state, mix_cell const& cell) { run_operations<Case>(state, cell); });
}

std::vector<mix_cell> shared_mutex_grid(case_set set, grid_limits const& limits)
{
  unsigned const sms = limits.multiprocessors;
  std::vector<unsigned> block_counts{0};
  if (limits.has_gpu) block_counts = {0, 1, sms, 4 * sms};
  std::vector<mix_cell> cells;
  for (unsigned const cpus : {0u, 1u, 4u, 15u}) {
    if (cpus > limits.max_cpu_threads) continue;
    for (unsigned const blocks : block_counts) {
      if (cpus == 0 && blocks == 0) continue;
      bool const anchor = (cpus == 4 && blocks == sms) || (cpus == 0 && blocks == sms) || (cpus == 4 && blocks == 0);
      if (set == case_set::full_set || anchor) cells.push_back(mix_cell{cpus, blocks, blocks == 0 ? 0u : 1u});
    }
  }
  return cells;
}

template <unsigned ReadPercent>
void declare_for_reads(std::vector<mix_cell> const& cells, bool has_gpu)
{
  constexpr auto system = cuda::thread_scope_system;
  constexpr auto shared = holds::shared_or_exclusive;
  constexpr auto exclusive = holds::exclusive_only;
  std::string const reads = "reads:" + std::to_string(ReadPercent);
  declare_operations<section_case<unisync::shared_mutex, shared, ReadPercent>>(
      {"shared_mutex", "unisync.shared_mutex", reads + "/scope:system"}, cells);
  declare_operations<section_case<unisync::cohort_mutex, exclusive, ReadPercent>>(
      {"shared_mutex", "unisync.cohort_mutex", reads + "/scope:system"}, cells);
  declare_operations<section_case<libcudacxx_semaphore_lock<system>, exclusive, ReadPercent>>(
      {"shared_mutex", "cuda.binary_semaphore", reads + "/scope:system"}, cells);
  declare_operations<std_shared_mutex_case<ReadPercent>>(
      {"shared_mutex", "std.shared_mutex", reads + "/scope:host", sides::host_only}, cells);
  if (has_gpu) {
    constexpr auto device = cuda::thread_scope_device;
    declare_operations<section_case<unisync::basic_shared_mutex<device>, shared, ReadPercent>>(
        {"shared_mutex", "unisync.shared_mutex", reads + "/scope:device", sides::device_only}, cells);
  }
}

}  // namespace

void declare_shared_mutex_cases(case_set set, grid_limits const& limits)
{
  auto const cells = shared_mutex_grid(set, limits);
  declare_for_reads<90>(cells, limits.has_gpu);
  declare_for_reads<99>(cells, limits.has_gpu);
}

}  // namespace unisync::bench
