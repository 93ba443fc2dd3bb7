// The program of std_version.cpp with part of its workers moved to the GPU: the types
// become unisync's, the shared state goes to managed memory, and GPU threads run the same
// worker function as CPU threads, on the same objects.
// Exit status: 0 when both versions end with the expected total, 1 when one does not, 77
// when the std version matches but there is no GPU to move to.

#include "program.hpp"

#include <unisync/capabilities.hpp>
#include <unisync/cohort_mutex.hpp>
#include <unisync/lock_guard.hpp>
#include <unisync/managed.hpp>
#include <unisync/partitioned_barrier.hpp>
#include <unisync/partitioned_semaphore.hpp>

#include <cstdio>
#include <thread>
#include <vector>

namespace moved_program {

long long run_with_std(int workers, int rounds);

// The types: unisync's for CPU and GPU threads sharing each object across the link.
using moved_state = shared_state<unisync::cohort_mutex, unisync::partitioned_semaphore<slots>,
                                 unisync::partitioned_barrier<>, unisync::lock_guard>;

__global__ void run_gpu_workers(moved_state shared, int first_worker, int rounds)
{
  run_worker(shared, first_worker + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x), rounds);
}

long long run_with_unisync(int cpu_workers, int gpu_blocks, int gpu_threads, int rounds)
{
  // And the allocations: make_managed, which both sides reach, each object placed for
  // the sides that use it.
  auto lock = unisync::make_managed<unisync::cohort_mutex>();
  auto computing = unisync::make_managed<unisync::partitioned_semaphore<slots>>(slots);
  auto round_end = unisync::make_managed<unisync::partitioned_barrier<>>(cpu_workers + gpu_blocks * gpu_threads);
  auto total = unisync::make_managed<long long>(1);
  moved_state const shared{lock.get(), computing.get(), round_end.get(), total.get()};
  run_gpu_workers<<<gpu_blocks, gpu_threads>>>(shared, cpu_workers, rounds);
  if (cudaGetLastError() != cudaSuccess) return -1;  // the CPU workers would wait for it
  std::vector<std::thread> threads;
  for (int worker = 0; worker < cpu_workers; ++worker) {
    threads.emplace_back([shared, worker, rounds] { run_worker(shared, worker, rounds); });
  }
  for (std::thread& thread : threads) thread.join();
  if (cudaDeviceSynchronize() != cudaSuccess) return -1;
  return *total;
}

}  // namespace moved_program

int main()
{
  constexpr int cpu_workers = 4, gpu_blocks = 1, gpu_threads = 32, rounds = 20;
  constexpr int workers = cpu_workers + gpu_blocks * gpu_threads;
  long long const expected = moved_program::expected_total(workers, rounds);
  long long const with_std = moved_program::run_with_std(workers, rounds);
  std::printf("std, %d CPU threads: total %lld (expected %lld)\n", workers, with_std, expected);
  if (with_std != expected) return 1;
  if (!unisync::gpu_available()) return std::puts("no GPU: nothing to move to"), 77;
  long long const moved = moved_program::run_with_unisync(cpu_workers, gpu_blocks, gpu_threads, rounds);
  std::printf("unisync, %d CPU threads and %d GPU threads: total %lld\n", cpu_workers, gpu_blocks * gpu_threads, moved);
  return moved == expected ? 0 : 1;
}
