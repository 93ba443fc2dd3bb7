// Semaphore cases, N = 1 and N = 8 permits: our fetch-and-add semaphore and our
// partitioned semaphore beside libcu++'s cuda::counting_semaphore and
// std::counting_semaphore. Each operation is one acquire and one release. Each object is
// placed as make_managed places it for a user (benchmark/mix/placement.hpp): the
// partitioned semaphore's parts with their own advice (place:managed_advised), the others
// without advice (place:managed).

#include "cases.hpp"

#include "../mix/registry.hpp"
#include "../mix/runners.cuh"
#include "../peers/std_peers.hpp"

#include <unisync/counting_semaphore.hpp>
#include <unisync/partitioned_semaphore.hpp>

#include <cuda/semaphore>

#include <string>

namespace unisync::bench {
namespace {

template <class Semaphore, std::ptrdiff_t Permits>
struct semaphore_case {
  struct object {
    Semaphore semaphore{Permits};

    static void advise_placement(object* shared, int device)
    {
      if constexpr (advises_itself<Semaphore>) Semaphore::advise_placement(&shared->semaphore, device);
    }
  };
  static constexpr bool on_host = true;
  static constexpr bool on_device = true;
  static constexpr bool advised = advises_itself<Semaphore>;
  static placed_ptr<object> create(mix_cell const& cell) { return place_for<object>(cell); }
  __host__ __device__ static void acquire(object& shared) { shared.semaphore.acquire(); }
  __host__ __device__ static void critical_section(object&) {}
  __host__ __device__ static void release(object& shared) { shared.semaphore.release(); }
};

template <class Case>
void declare_operations(case_declaration const& declaration, std::vector<mix_cell> const& cells)
{
  declare(declared_for<Case>(declaration), cells,
          [](benchmark::State& state, mix_cell const& cell) { run_operations<Case>(state, cell); });
}

template <std::ptrdiff_t Permits>
void declare_for_permits(std::vector<mix_cell> const& cells, bool has_gpu)
{
  constexpr auto system = cuda::thread_scope_system;
  std::string const permits = "N:" + std::to_string(Permits);
  declare_operations<semaphore_case<unisync::basic_counting_semaphore<system, Permits>, Permits>>(
      {"semaphore", "unisync.counting_semaphore", permits + "/scope:system"}, cells);
  declare_operations<semaphore_case<unisync::basic_partitioned_semaphore<Permits>, Permits>>(
      {"semaphore", "unisync.partitioned_semaphore", permits + "/scope:system"}, cells);
  declare_operations<semaphore_case<cuda::counting_semaphore<system, Permits>, Permits>>(
      {"semaphore", "cuda.counting_semaphore", permits + "/scope:system"}, cells);
  declare_operations<std_semaphore_case<Permits>>(
      {"semaphore", "std.counting_semaphore", permits + "/scope:host", sides::host_only}, cells);
  if (has_gpu) {
    constexpr auto device = cuda::thread_scope_device;
    declare_operations<semaphore_case<unisync::basic_counting_semaphore<device, Permits>, Permits>>(
        {"semaphore", "unisync.counting_semaphore", permits + "/scope:device", sides::device_only}, cells);
    declare_operations<semaphore_case<cuda::counting_semaphore<device, Permits>, Permits>>(
        {"semaphore", "cuda.counting_semaphore", permits + "/scope:device", sides::device_only}, cells);
  }
}

}  // namespace

void declare_semaphore_cases(case_set set, grid_limits const& limits)
{
  auto const cells = contention_grid(set, limits, 1);
  declare_for_permits<1>(cells, limits.has_gpu);
  declare_for_permits<8>(cells, limits.has_gpu);
}

}  // namespace unisync::bench
