// Application workloads: what users share synchronization primitives for, each against
// what they would do without unisync, in the same run. The workloads' code is the
// examples' (examples/*.cuh), so that the figures time the programs the tests check.
//
// Names: application/workload:<w>/impl:<method>/<parameters>/place:<p>/cpu:<n>/gpu:<b>x<t>.

#include "cases.hpp"

#include "../../examples/jacobi_solver.cuh"
#include "../../examples/striped_table.cuh"
#include "../../examples/work_queue_runs.cuh"
#include "../mix/registry.hpp"
#include "../mix/runners.cuh"

#include <unisync/cohort_mutex.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/mutex.hpp>
#include <unisync/partitioned_semaphore.hpp>
#include <unisync/ticket_mutex.hpp>

#include <cuda/semaphore>
#include <cuda_runtime.h>

#include <memory>
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
    cuda_memory::owned_stream const owned_stream = cuda_memory::create_stream();
    cuda_memory::owned_event const owned_start = cuda_memory::create_event(cudaEventDefault);
    cuda_memory::owned_event const owned_stop = cuda_memory::create_event(cudaEventDefault);
    cudaStream_t const stream = owned_stream.get();
    cudaEvent_t const start = owned_start.get();
    cudaEvent_t const stop = owned_stop.get();
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
                               "/place:device/cpu:0/gpu:0x" + std::to_string(jacobi::solver::threads_per_block(chosen));
      register_case(name, [n, chosen](benchmark::State& state) { run_solver(state, n, chosen); });
    }
  }
}

/// The striped table: 2^20 slots, keys drawn from a quarter of that, half the operations
/// adds and half lookups, each under its stripe's lock. An operation is the whole
/// lock-probe-unlock (the harness's wait is the operation's latency).
constexpr unsigned table_slot_bits = 20;
constexpr std::uint64_t table_key_range = std::uint64_t{1} << (table_slot_bits - 2);

template <class Lock, std::uint32_t Stripes>
struct table_case {
  /// What the actors reach: the table's view and each GPU actor's key stream, in managed
  /// memory; host actors keep theirs per thread.
  struct object {
    striped_table::table_view<Lock> view;
    striped_table::key_stream* gpu_keys;
  };
  static constexpr bool on_host = true;
  static constexpr bool on_device = true;

  /// The table lives as long as the returned pointer (its deleter holds it).
  static placed_ptr<object> create(mix_cell const& cell)
  {
    auto table = std::make_shared<striped_table::table<Lock>>(table_slot_bits, Stripes);
    object* shared = nullptr;
    unsigned const gpu_actors = std::max(1u, cell.gpu_blocks * cell.gpu_threads);
    jacobi::check(cudaMallocManaged(&shared, sizeof(object) + gpu_actors * sizeof(striped_table::key_stream)),
                  "cudaMallocManaged");
    placed_ptr<object> placed(shared, [table](object* gone) { cudaFree(gone); });
    shared->view = table->view();
    shared->gpu_keys = reinterpret_cast<striped_table::key_stream*>(shared + 1);
    for (unsigned actor = 0; actor < gpu_actors; ++actor) shared->gpu_keys[actor] = striped_table::key_stream(actor);
    return placed;
  }

  __host__ __device__ static void acquire(object& shared)
  {
    striped_table::key_stream* keys = nullptr;
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (keys = &shared.gpu_keys[blockIdx.x * blockDim.x + threadIdx.x];),
                      (thread_local striped_table::key_stream host_keys(
                           0x9e3779b97f4a7c15ull ^ std::hash<std::thread::id>{}(std::this_thread::get_id()));
                       keys = &host_keys;))
    std::uint64_t const key = keys->next(table_key_range);
    if ((keys->state & 1u) != 0) {
      shared.view.add(key);
    } else {
      static_cast<void>(shared.view.count_of(key));
    }
  }
  __host__ __device__ static void critical_section(object&) {}
  __host__ __device__ static void release(object&) {}
};

/// libcu++'s binary semaphore as a stripe lock, as a libcu++ user would write it.
struct libcudacxx_stripe_lock {
  cuda::binary_semaphore<cuda::thread_scope_system> semaphore{1};
  __host__ __device__ void lock() { semaphore.acquire(); }
  __host__ __device__ void unlock() { semaphore.release(); }
};

template <class Lock, std::uint32_t Stripes>
void declare_table_case(char const* impl, std::vector<mix_cell> const& cells)
{
  std::string const fields = "workload:table/impl:" + std::string(impl) + "/stripes:" + std::to_string(Stripes) +
                             "/lock_bytes:" + std::to_string(sizeof(Lock));
  for (mix_cell const& cell : cells) {
    register_case("application/" + fields + "/place:managed/" + cell.name(),
                  [cell](benchmark::State& state) { run_operations<table_case<Lock, Stripes>>(state, cell); });
  }
}

template <std::uint32_t Stripes>
void declare_table_cases_for(std::vector<mix_cell> const& cells)
{
  declare_table_case<unisync::mutex, Stripes>("unisync.mutex", cells);
  declare_table_case<unisync::ticket_mutex, Stripes>("unisync.ticket_mutex", cells);
  declare_table_case<libcudacxx_stripe_lock, Stripes>("cuda.binary_semaphore", cells);
  // 12 KiB per lock (its two sides and its top lock each on a page of their own): 768 MiB
  // of locks at 65536 stripes, more than the table it guards by far.
  if constexpr (Stripes <= 4096) declare_table_case<unisync::cohort_mutex, Stripes>("unisync.cohort_mutex", cells);
}

void declare_table_cases(case_set set, grid_limits const& limits)
{
  std::vector<mix_cell> cells;
  for (mix_cell const cell : std::vector<mix_cell>{{1, 1, 1}, {4, 132, 1}, {15, 528, 1}, {4, 0, 1}, {0, 132, 1}}) {
    bool const wanted = set == case_set::full_set || (cell.cpu_threads == 4 && cell.gpu_blocks == 132);
    if (wanted && cell.cpu_threads <= limits.max_cpu_threads) cells.push_back(cell);
  }
  declare_table_cases_for<1>(cells);
  declare_table_cases_for<64>(cells);
  declare_table_cases_for<4096>(cells);
  declare_table_cases_for<65536>(cells);
}

/// The work queue: a ring of 1024 slots (or of `ring:<slots>`), items of 64 bytes, each
/// consumer a block's thread 0. Counters: items/s and the enqueue-to-start latency's median
/// and 99th percentile.
constexpr std::uint32_t queue_capacity = 1024;
/// A ring this small bounds the latency of a full ring (Little: slots / items per second),
/// and its items per second show how long a slot takes to come back to the producers
/// (slots / items per second again), which a large ring hides.
constexpr std::uint32_t small_queue_capacity = 64;
constexpr std::uint64_t queue_record_capacity = std::uint64_t{1} << 22;

void report_queue(benchmark::State& state, work_queue::run_result const& result)
{
  state.SetIterationTime(result.seconds > 0 ? result.seconds : 1e-9);
  state.counters["items_per_s"] = result.seconds > 0 ? double(result.items) / result.seconds : 0.0;
  state.counters["latency_median_us"] = work_queue::latency_percentile(result, 0.5) * 1e-3;
  state.counters["latency_p99_us"] = work_queue::latency_percentile(result, 0.99) * 1e-3;
  if (result.corrupt_items != 0) state.SkipWithError("the queue delivered corrupt items");
}

struct queue_parameters {
  unsigned cpu_threads;
  unsigned gpu_blocks;
  std::uint32_t work_ns;
};

template <class Semaphore, std::uint32_t Capacity>
void run_queue(benchmark::State& state, queue_parameters cell, bool to_gpu)
{
  try {
    work_queue::run_limits const limits{~std::uint64_t{0}, settings().window_seconds};
    for (auto _ : state) {
      work_queue::ring<Semaphore, Capacity> ring;
      report_queue(state, to_gpu ? work_queue::host_to_gpu(ring, cell.cpu_threads, cell.gpu_blocks, cell.work_ns,
                                                           limits, queue_record_capacity)
                                 : work_queue::gpu_to_host(ring, cell.gpu_blocks, cell.cpu_threads, cell.work_ns,
                                                           limits, queue_record_capacity));
    }
  } catch (std::exception const& failure) {
    state.SkipWithError(failure.what());
  }
}

void run_batched(benchmark::State& state, queue_parameters cell, std::uint32_t batch)
{
  try {
    work_queue::run_limits const limits{~std::uint64_t{0}, settings().window_seconds};
    for (auto _ : state) {
      report_queue(state, work_queue::batched_launches(cell.cpu_threads, cell.gpu_blocks, cell.work_ns, batch, limits,
                                                       queue_record_capacity));
    }
  } catch (std::exception const& failure) {
    state.SkipWithError(failure.what());
  }
}

/// Host threads produce and GPU blocks consume, or the reverse.
char const* direction_of(bool to_gpu) { return to_gpu ? "cpu_to_gpu" : "gpu_to_cpu"; }

std::string queue_name(char const* direction, std::string const& impl, queue_parameters cell)
{
  return "application/workload:queue/direction:" + std::string(direction) + "/impl:" + impl +
         "/work_ns:" + std::to_string(cell.work_ns) + "/place:managed/cpu:" + std::to_string(cell.cpu_threads) +
         "/gpu:" + std::to_string(cell.gpu_blocks) + "x1";
}

/// The ring on our partitioned semaphore and on libcu++'s, `Capacity` slots; a ring other
/// than the default one says its size in the name.
template <std::uint32_t Capacity>
void declare_rings(queue_parameters cell, bool to_gpu)
{
  using unisync_partitioned = unisync::partitioned_semaphore<Capacity>;
  using libcudacxx_semaphore = cuda::counting_semaphore<cuda::thread_scope_system, Capacity>;
  std::string const ring = Capacity == queue_capacity ? "" : "/ring:" + std::to_string(Capacity);
  char const* const direction = direction_of(to_gpu);
  register_case(
      queue_name(direction, "unisync.partitioned_semaphore" + ring, cell),
      [cell, to_gpu](benchmark::State& state) { run_queue<unisync_partitioned, Capacity>(state, cell, to_gpu); });
  register_case(queue_name(direction, "cuda.counting_semaphore" + ring, cell), [cell, to_gpu](benchmark::State& state) {
    run_queue<libcudacxx_semaphore, Capacity>(state, cell, to_gpu);
  });
}

void declare_queue_cases(case_set set, grid_limits const& limits)
{
  using unisync_semaphore = unisync::counting_semaphore<queue_capacity>;
  std::vector<queue_parameters> cells;
  for (unsigned const cpus : {1u, 4u, 15u}) {
    for (unsigned const blocks : {1u, 132u, 528u}) {
      for (std::uint32_t const work : {0u, 1000u, 10000u}) {
        bool const wanted = set == case_set::full_set || (cpus == 4 && blocks == 132 && work == 0);
        if (wanted && cpus <= limits.max_cpu_threads) cells.push_back({cpus, blocks, work});
      }
    }
  }
  for (queue_parameters const cell : cells) {
    for (bool const to_gpu : {true, false}) {
      declare_rings<queue_capacity>(cell, to_gpu);
      register_case(queue_name(direction_of(to_gpu), "unisync.counting_semaphore", cell),
                    [cell, to_gpu](benchmark::State& state) {
                      run_queue<unisync_semaphore, queue_capacity>(state, cell, to_gpu);
                    });
      declare_rings<small_queue_capacity>(cell, to_gpu);
    }
    for (std::uint32_t const batch : {1u, 64u, 4096u}) {
      register_case(queue_name("cpu_to_gpu", "batched_launch/batch:" + std::to_string(batch), cell),
                    [cell, batch](benchmark::State& state) { run_batched(state, cell, batch); });
    }
  }
}

}  // namespace

void declare_application_cases(case_set set, grid_limits const& limits)
{
  if (!limits.has_gpu) return;
  declare_solver_cases(set);
  declare_table_cases(set, limits);
  declare_queue_cases(set, limits);
}

}  // namespace unisync::bench
