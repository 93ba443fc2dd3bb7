// Lock cases: our exchange and ticket locks (and their pure-spin variants) at system and
// device scope and the cohort mutex, beside std::mutex and libcu++'s binary semaphore used
// as a lock. Each operation is lock, one increment of a counter the lock protects, unlock.

#include "cases.hpp"

#include "../mix/registry.hpp"
#include "../mix/runners.cuh"
#include "../peers/std_peers.hpp"

#include <unisync/cohort_mutex.hpp>
#include <unisync/mutex.hpp>
#include <unisync/ticket_mutex.hpp>

#include <cuda/semaphore>

#include <string>

namespace unisync::bench {
namespace {

/// Anything with lock()/unlock() on both sides. The counter the lock protects sits on a
/// page of its own, without advice, so it moves to whichever side holds the lock; the
/// lock's own parts get the lock's advice (make_managed applies this hook).
template <class Lock>
struct lock_case {
  struct object {
    Lock lock;
    alignas(4096) unsigned long long protected_counter = 0;

    static void advise_placement(object* shared, int device)
    {
      if constexpr (unisync::detail::has_placement_hints<Lock>::value) Lock::advise_placement(&shared->lock, device);
    }
  };
  static constexpr bool on_host = true;
  static constexpr bool on_device = true;
  static constexpr bool advised = advises_itself<Lock>;
  static placed_ptr<object> create(mix_cell const& cell) { return place_for<object>(cell); }
  __host__ __device__ static void acquire(object& shared) { shared.lock.lock(); }
  __host__ __device__ static void critical_section(object& shared) { ++shared.protected_counter; }
  __host__ __device__ static void release(object& shared) { shared.lock.unlock(); }
};

/// libcu++ has no mutex: its binary semaphore is what a libcu++ user would lock with.
template <cuda::thread_scope Scope>
struct libcudacxx_semaphore_lock {
  cuda::binary_semaphore<Scope> semaphore{1};
  __host__ __device__ void lock() { semaphore.acquire(); }
  __host__ __device__ void unlock() { semaphore.release(); }
};

/// The cohort mutex with a longer turn per side: fewer crossings, longer worst-case waits.
struct long_cohort_tuning : unisync::tuning {
  static constexpr cuda::std::uint32_t cohort_pass_bound = 256;
};
using long_cohort_mutex = unisync::basic_cohort_mutex<unisync::basic_proportional_backoff<long_cohort_tuning>>;

template <class Case>
void declare_operations(case_declaration const& declaration, std::vector<mix_cell> const& cells)
{
  declare(declared_for<Case>(declaration), cells,
          [](benchmark::State& state, mix_cell const& cell) { run_operations<Case>(state, cell); });
}

}  // namespace

void declare_lock_cases(case_set set, grid_limits const& limits)
{
  auto const cells = contention_grid(set, limits, 1);
  constexpr auto system = cuda::thread_scope_system;
  declare_operations<lock_case<unisync::mutex>>({"lock", "unisync.mutex", "scope:system"}, cells);
  declare_operations<lock_case<unisync::spin_mutex>>({"lock", "unisync.spin_mutex", "scope:system"}, cells);
  declare_operations<lock_case<unisync::ticket_mutex>>({"lock", "unisync.ticket_mutex", "scope:system"}, cells);
  declare_operations<lock_case<unisync::basic_ticket_mutex<system, unisync::no_backoff>>>(
      {"lock", "unisync.spin_ticket_mutex", "scope:system"}, cells);
  declare_operations<lock_case<unisync::cohort_mutex>>(
      {"lock", "unisync.cohort_mutex", "scope:system/bound:" + std::to_string(unisync::cohort_mutex::pass_bound)}, cells);
  declare_operations<lock_case<long_cohort_mutex>>(
      {"lock", "unisync.cohort_mutex", "scope:system/bound:" + std::to_string(long_cohort_mutex::pass_bound)}, cells);
  declare_operations<lock_case<libcudacxx_semaphore_lock<system>>>(
      {"lock", "cuda.binary_semaphore", "scope:system"}, cells);
  declare_operations<std_mutex_case>({"lock", "std.mutex", "scope:host", sides::host_only}, cells);
  if (limits.has_gpu) {
    constexpr auto device = cuda::thread_scope_device;
    declare_operations<lock_case<unisync::basic_mutex<device>>>(
        {"lock", "unisync.mutex", "scope:device", sides::device_only}, cells);
    declare_operations<lock_case<unisync::basic_ticket_mutex<device>>>(
        {"lock", "unisync.ticket_mutex", "scope:device", sides::device_only}, cells);
    declare_operations<lock_case<libcudacxx_semaphore_lock<device>>>(
        {"lock", "cuda.binary_semaphore", "scope:device", sides::device_only}, cells);
  }
}

}  // namespace unisync::bench
